// Calendar arithmetic for the date functions, by moment-timezone: Airtable's date functions are moment
// underneath, so DATEADD, DATETIME_DIFF, IS_SAME and TODAY take moment's own rules (`add` rounds fractional
// days and months and keeps the day of the month where it can, `diff` truncates toward zero and measures
// months moment's way, weeks start on Sunday), and every zone reads moment-timezone's IANA data. The same
// wall-clock reading serves the emulator's cell dates (../dates.ts). Formatting and parsing text are in
// dateText.ts.

import moment from 'moment-timezone';

const DAY_MS = 86_400_000;

/** A wall-clock reading: calendar date and time of day, in no particular zone. */
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

// moment's abbreviations, which are case-sensitive: m is minutes, M months. (moment.normalizeUnits reads
// D as the day of the month and d as the weekday, which `add` treats differently, so units are mapped here.)
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

export function isUtcZone(zone: string): boolean {
  return UTC_NAMES.has(zone.toUpperCase());
}

/** Whether moment-timezone's data has the zone (names are case-insensitive, links included). */
export function isKnownTimeZone(zone: string): boolean {
  return moment.tz.zone(zone) !== null;
}

export function isValidTimeZone(zone: string): boolean {
  return isUtcZone(zone) || isKnownTimeZone(zone);
}

/** The instant as a moment on the zone's clock; UTC for UTC's names and for an unknown zone. */
export function inZone(ms: number, zone: string): moment.Moment {
  return isUtcZone(zone) || !isKnownTimeZone(zone) ? moment.utc(ms) : moment.tz(ms, zone);
}

export function civilToUtcMs(c: Civil): number {
  const d = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999; both normalise overflow
  // (day 32, month 13), which the callers' calendar arithmetic relies on.
  d.setUTCFullYear(c.year, c.month - 1, c.day);
  d.setUTCHours(c.hour, c.minute, c.second, c.millisecond);
  return d.getTime();
}

export function toWall(ms: number, zone: string): Wall {
  const m = inZone(ms, zone);
  return {
    year: m.year(),
    month: m.month() + 1,
    day: m.date(),
    hour: m.hour(),
    minute: m.minute(),
    second: m.second(),
    millisecond: m.millisecond(),
    weekday: m.day(),
  };
}

/** The instant at which the zone's clock shows `c` (in a DST gap, the instant an hour on); `c` may overflow
 * (day 0, month 13) and is normalised first. */
export function fromWall(c: Civil, zone: string): number {
  const local = civilToUtcMs(c);
  if (isUtcZone(zone) || !isKnownTimeZone(zone)) return local;
  const d = new Date(local);
  const parts = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()];
  return moment.tz([...parts, d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()], zone).valueOf();
}

// --- Arithmetic ----------------------------------------------------------------------------------------

/** moment's `add`: fixed lengths up to hours; days and months (weeks, quarters and years through them)
 * move the wall clock, rounded to whole units. */
export function addToDate(ms: number, count: number, unit: DateUnit, zone: string): number {
  return inZone(ms, zone).add(count, unit).valueOf();
}

/** moment's `a.diff(b, unit)`: a - b in whole units, truncated toward zero. */
export function diffDates(a: number, b: number, unit: DateUnit, zone: string): number {
  return inZone(a, zone).diff(inZone(b, zone), unit);
}

/** moment's `startOf`: the first instant of the unit containing `ms`, on the zone's clock; weeks start on
 * Sunday (moment's English locale). */
export function startOf(ms: number, unit: DateUnit, zone: string): number {
  return inZone(ms, zone).startOf(unit).valueOf();
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
