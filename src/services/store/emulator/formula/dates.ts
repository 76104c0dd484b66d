// Calendar arithmetic for the date functions in any IANA time zone, on Intl.DateTimeFormat alone: the
// wall clock of an instant in a zone and back, and moment.js's rules for adding to and subtracting
// dates (Airtable's date functions are moment underneath): `add` rounds fractional days and months and
// keeps the day of the month where it can, `diff` truncates toward zero and measures months moment's
// way. Formatting and parsing text are in dateText.ts.

const DAY_MS = 86_400_000;

export interface Civil {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

export interface Wall extends Civil {
  /** 0 = Sunday */
  weekday: number;
}

export type DateUnit =
  | 'millisecond'
  | 'second'
  | 'minute'
  | 'hour'
  | 'day'
  | 'week'
  | 'month'
  | 'quarter'
  | 'year';

const UNIT_NAMES: readonly DateUnit[] = [
  ...(['millisecond', 'second', 'minute', 'hour', 'day'] as const),
  ...(['week', 'month', 'quarter', 'year'] as const),
];

// moment's abbreviations, which are case-sensitive: m is minutes, M months.
const UNIT_ABBREVIATIONS: Record<string, DateUnit> = {
  ms: 'millisecond',
  s: 'second',
  m: 'minute',
  h: 'hour',
  d: 'day',
  D: 'day',
  w: 'week',
  W: 'week',
  M: 'month',
  Q: 'quarter',
  y: 'year',
};

export function parseDateUnit(raw: string): DateUnit | undefined {
  const text = raw.trim();
  const abbreviation = UNIT_ABBREVIATIONS[text];
  if (abbreviation) return abbreviation;
  const lower = text.toLowerCase();
  const singular = lower.endsWith('s') ? lower.slice(0, -1) : lower;
  return UNIT_NAMES.find((unit) => unit === singular);
}

// --- Time zones --------------------------------------------------------------------------------------

const UTC_NAMES = new Set(['UTC', 'ETC/UTC', 'GMT', 'ETC/GMT', 'Z', 'ZULU', 'UNIVERSAL', 'ETC/UNIVERSAL']);
const formatters = new Map<string, Intl.DateTimeFormat | null>();

/** A cached formatter that reads wall-clock parts in `zone`, or null for an unknown zone. */
export function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      formatter = null;
    }
    if (formatters.size > 500) formatters.clear();
    formatters.set(zone, formatter);
  }
  return formatter;
}

export function isUtcZone(zone: string): boolean {
  return UTC_NAMES.has(zone.toUpperCase());
}

export function isValidTimeZone(zone: string): boolean {
  return isUtcZone(zone) || formatterFor(zone) !== null;
}

export function mod(n: number, m: number): number {
  return ((n % m) + m) % m;
}

export function civilToUtcMs(c: Civil): number {
  const d = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999; both normalise overflow
  // (day 32, month 13), which the calendar arithmetic below relies on.
  d.setUTCFullYear(c.year, c.month - 1, c.day);
  d.setUTCHours(c.hour, c.minute, c.second, c.millisecond);
  return d.getTime();
}

export function weekdayOf(year: number, month: number, day: number): number {
  return new Date(
    civilToUtcMs({ year, month, day, hour: 0, minute: 0, second: 0, millisecond: 0 }),
  ).getUTCDay();
}

export function daysInMonth(year: number, month: number): number {
  return new Date(
    civilToUtcMs({ year, month: month + 1, day: 0, hour: 0, minute: 0, second: 0, millisecond: 0 }),
  ).getUTCDate();
}

export function toWall(ms: number, zone: string): Wall {
  const formatter = isUtcZone(zone) ? null : formatterFor(zone);
  if (!formatter) {
    const d = new Date(ms);
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      millisecond: d.getUTCMilliseconds(),
      weekday: d.getUTCDay(),
    };
  }
  const fields: Record<string, number> = {};
  for (const part of formatter.formatToParts(new Date(ms))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const year = fields.year ?? 1970;
  const month = fields.month ?? 1;
  const day = fields.day ?? 1;
  return {
    year,
    month,
    day,
    hour: fields.hour ?? 0,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
    millisecond: mod(ms, 1000),
    weekday: weekdayOf(year, month, day),
  };
}

/** Milliseconds to add to UTC to get the zone's wall clock at that instant. */
export function zoneOffsetMs(ms: number, zone: string): number {
  if (isUtcZone(zone)) return 0;
  const wall = toWall(ms, zone);
  return civilToUtcMs({ ...wall, millisecond: 0 }) - (ms - mod(ms, 1000));
}

/** The instant at which the zone's clock shows `c` (in a DST gap, the instant an hour on). */
export function fromWall(c: Civil, zone: string): number {
  const local = civilToUtcMs(c);
  if (isUtcZone(zone)) return local;
  const first = zoneOffsetMs(local, zone);
  const guess = local - first;
  const second = zoneOffsetMs(guess, zone);
  return second === first ? guess : local - second;
}

// --- Arithmetic ----------------------------------------------------------------------------------------

function absRound(n: number): number {
  return n < 0 ? -Math.round(-n) : Math.round(n);
}

function absFloor(n: number): number {
  return n < 0 ? Math.ceil(n) || 0 : Math.floor(n);
}

function addMonths(ms: number, months: number, zone: string): number {
  if (months === 0) return ms;
  const wall = toWall(ms, zone);
  const total = wall.year * 12 + (wall.month - 1) + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12 + 1;
  return fromWall({ ...wall, year, month, day: Math.min(wall.day, daysInMonth(year, month)) }, zone);
}

function addDays(ms: number, days: number, zone: string): number {
  if (days === 0) return ms;
  const wall = toWall(ms, zone);
  return fromWall({ ...wall, day: wall.day + days }, zone);
}

/** moment's `add`: fixed lengths up to hours; days and months (weeks, quarters and years through them)
 * move the wall clock, rounded to whole units. */
export function addToDate(ms: number, count: number, unit: DateUnit, zone: string): number {
  switch (unit) {
    case 'millisecond':
      return ms + count;
    case 'second':
      return ms + count * 1000;
    case 'minute':
      return ms + count * 60_000;
    case 'hour':
      return ms + count * 3_600_000;
    case 'day':
      return addDays(ms, absRound(count), zone);
    case 'week':
      return addDays(ms, absRound(count * 7), zone);
    case 'month':
      return addMonths(ms, absRound(count), zone);
    case 'quarter':
      return addMonths(ms, absRound(count * 3), zone);
    case 'year':
      return addMonths(ms, absRound(count * 12), zone);
  }
}

function monthDiff(a: number, b: number, zone: string): number {
  if (toWall(a, zone).day < toWall(b, zone).day) return -monthDiff(b, a, zone);
  const wa = toWall(a, zone);
  const wb = toWall(b, zone);
  const whole = (wb.year - wa.year) * 12 + (wb.month - wa.month);
  const anchor = addMonths(a, whole, zone);
  let adjust: number;
  if (b - anchor < 0) {
    const before = addMonths(a, whole - 1, zone);
    adjust = (b - anchor) / (anchor - before);
  } else {
    const after = addMonths(a, whole + 1, zone);
    adjust = (b - anchor) / (after - anchor);
  }
  return -(whole + adjust) || 0;
}

/** moment's `a.diff(b, unit)`: a - b in whole units, truncated toward zero. */
export function diffDates(a: number, b: number, unit: DateUnit, zone: string): number {
  const zoneDelta = zoneOffsetMs(a, zone) - zoneOffsetMs(b, zone);
  switch (unit) {
    case 'millisecond':
      return absFloor(a - b);
    case 'second':
      return absFloor((a - b) / 1000);
    case 'minute':
      return absFloor((a - b) / 60_000);
    case 'hour':
      return absFloor((a - b) / 3_600_000);
    case 'day':
      return absFloor((a - b + zoneDelta) / DAY_MS);
    case 'week':
      return absFloor((a - b + zoneDelta) / (7 * DAY_MS));
    case 'month':
      return absFloor(monthDiff(a, b, zone));
    case 'quarter':
      return absFloor(monthDiff(a, b, zone) / 3);
    case 'year':
      return absFloor(monthDiff(a, b, zone) / 12);
  }
}

/** The first instant of the unit containing `ms`, on the zone's clock; weeks start on Sunday. */
export function startOf(ms: number, unit: DateUnit, zone: string): number {
  if (unit === 'millisecond') return ms;
  const w = toWall(ms, zone);
  const at = (c: Partial<Civil>): number =>
    fromWall({ year: w.year, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0, ...c }, zone);
  switch (unit) {
    case 'second':
      return at({ month: w.month, day: w.day, hour: w.hour, minute: w.minute, second: w.second });
    case 'minute':
      return at({ month: w.month, day: w.day, hour: w.hour, minute: w.minute });
    case 'hour':
      return at({ month: w.month, day: w.day, hour: w.hour });
    case 'day':
      return at({ month: w.month, day: w.day });
    case 'week':
      return at({ month: w.month, day: w.day - w.weekday });
    case 'month':
      return at({ month: w.month });
    case 'quarter':
      return at({ month: Math.floor((w.month - 1) / 3) * 3 + 1 });
    case 'year':
      return at({});
  }
}

/** Days since 1970-01-01 of a calendar date; weekday = mod(dayNumber + 4, 7). */
export function dayNumber(year: number, month: number, day: number): number {
  return Math.floor(
    civilToUtcMs({ year, month, day, hour: 0, minute: 0, second: 0, millisecond: 0 }) / DAY_MS,
  );
}

export function dayNumberToCivil(n: number): Civil {
  const d = new Date(n * DAY_MS);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: 0,
    minute: 0,
    second: 0,
    millisecond: 0,
  };
}
