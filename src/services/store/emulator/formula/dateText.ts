// Dates as text: moment.js's format tokens for DATETIME_FORMAT, and the forgiving reading of DATETIME_PARSE
// and of text wherever a date is expected. English names and long-date formats only (other locales
// fall back to them).

import {
  type Civil,
  civilToUtcMs,
  dayNumber,
  dayNumberToCivil,
  daysInMonth,
  fromWall,
  isUtcZone,
  mod,
  toWall,
  type Wall,
  weekdayOf,
  zoneOffsetMs,
} from './dates.js';

// --- Weeks (moment's weekOfYear) -----------------------------------------------------------------------

function dayOfYear(w: Civil): number {
  return dayNumber(w.year, w.month, w.day) - dayNumber(w.year, 1, 1) + 1;
}

function firstWeekOffset(year: number, dow: number, doy: number): number {
  const fwd = 7 + dow - doy;
  const fwdlw = (7 + weekdayOf(year, 1, fwd) - dow) % 7;
  return -fwdlw + fwd - 1;
}

function weeksInYear(year: number, dow: number, doy: number): number {
  const days = dayNumber(year + 1, 1, 1) - dayNumber(year, 1, 1);
  return (days - firstWeekOffset(year, dow, doy) + firstWeekOffset(year + 1, dow, doy)) / 7;
}

function weekOfYear(w: Civil, dow: number, doy: number): { week: number; year: number } {
  const week = Math.floor((dayOfYear(w) - firstWeekOffset(w.year, dow, doy) - 1) / 7) + 1;
  if (week < 1) return { week: week + weeksInYear(w.year - 1, dow, doy), year: w.year - 1 };
  const inYear = weeksInYear(w.year, dow, doy);
  if (week > inYear) return { week: week - inYear, year: w.year + 1 };
  return { week, year: w.year };
}

// English locale: weeks start on Sunday and week 1 holds January 1st; ISO weeks start on Monday and
// week 1 holds January 4th.
const LOCALE_WEEK = { dow: 0, doy: 6 };
const ISO_WEEK = { dow: 1, doy: 4 };

// --- Formatting ----------------------------------------------------------------------------------------

const MONTHS = 'January February March April May June July August September October November December'.split(
  ' ',
);
const MONTHS_SHORT = MONTHS.map((m) => m.slice(0, 3));
const WEEKDAYS = 'Sunday Monday Tuesday Wednesday Thursday Friday Saturday'.split(' ');
const WEEKDAYS_SHORT = WEEKDAYS.map((d) => d.slice(0, 3));
const WEEKDAYS_MIN = WEEKDAYS.map((d) => d.slice(0, 2));

const LONG_FORMATS: Record<string, string> = {
  LTS: 'h:mm:ss A',
  LT: 'h:mm A',
  LLLL: 'dddd, MMMM D, YYYY h:mm A',
  LLL: 'MMMM D, YYYY h:mm A',
  LL: 'MMMM D, YYYY',
  L: 'MM/DD/YYYY',
  llll: 'ddd, MMM D, YYYY h:mm A',
  lll: 'MMM D, YYYY h:mm A',
  ll: 'MMM D, YYYY',
  l: 'M/D/YYYY',
};
const LONG_FORMAT_KEYS = Object.keys(LONG_FORMATS);

/** Every format token, longest first where one is a prefix of another. */
const FORMAT_TOKENS: readonly string[] = [
  ...'MMMM MMM Mo MM M DDDD DDDo DDD Do DD D dddd ddd do dd d e E wo ww w Wo WW W Qo Q'.split(' '),
  ...'YYYY YY Y gggg gg GGGG GG HH H hh h kk k mm m ss s A a ZZ Z zz z X x'.split(' '),
  // S to SSSSSSSSS: fractions of a second.
  ...Array.from({ length: 9 }, (_, k) => 'S'.repeat(9 - k)),
];

type FormatPiece = { literal: string } | { token: string };

const compiledFormats = new Map<string, FormatPiece[]>();

/** Splits a moment format into tokens and literal text ([escaped], \x, and any other character). */
function compileFormat(format: string, depth = 0): FormatPiece[] {
  const cached = depth === 0 ? compiledFormats.get(format) : undefined;
  if (cached) return cached;
  const pieces: FormatPiece[] = [];
  let i = 0;
  while (i < format.length) {
    const c = format[i]!;
    if (c === '[') {
      const close = format.indexOf(']', i + 1);
      if (close !== -1) {
        pieces.push({ literal: format.slice(i + 1, close) });
        i = close + 1;
        continue;
      }
    }
    if (c === '\\' && i + 1 < format.length) {
      pieces.push({ literal: format[i + 1]! });
      i += 2;
      continue;
    }
    const long = depth === 0 ? LONG_FORMAT_KEYS.find((key) => format.startsWith(key, i)) : undefined;
    if (long) {
      pieces.push(...compileFormat(LONG_FORMATS[long]!, depth + 1));
      i += long.length;
      continue;
    }
    const token = FORMAT_TOKENS.find((t) => format.startsWith(t, i));
    if (token) {
      pieces.push({ token });
      i += token.length;
      continue;
    }
    pieces.push({ literal: c });
    i++;
  }
  if (depth === 0) {
    if (compiledFormats.size > 500) compiledFormats.clear();
    compiledFormats.set(format, pieces);
  }
  return pieces;
}

function pad(n: number, width: number): string {
  const sign = n < 0 ? '-' : '';
  return sign + String(Math.abs(n)).padStart(width, '0');
}

function ordinal(n: number): string {
  const tens = Math.floor(Math.abs(n) / 10) % 10;
  const ones = Math.abs(n) % 10;
  const suffix = tens === 1 ? 'th' : ones === 1 ? 'st' : ones === 2 ? 'nd' : ones === 3 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

function offsetText(offsetMs: number, separator: string): string {
  const minutes = Math.round(offsetMs / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60), 2)}${separator}${pad(abs % 60, 2)}`;
}

function zoneAbbreviation(ms: number, zone: string): string {
  if (isUtcZone(zone)) return 'UTC';
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }).formatToParts(
      new Date(ms),
    );
    return parts.find((p) => p.type === 'timeZoneName')?.value ?? '';
  } catch {
    return '';
  }
}

function formatToken(token: string, ms: number, w: Wall, zone: string): string {
  const hour12 = w.hour % 12 === 0 ? 12 : w.hour % 12;
  switch (token) {
    case 'M':
      return String(w.month);
    case 'Mo':
      return ordinal(w.month);
    case 'MM':
      return pad(w.month, 2);
    case 'MMM':
      return MONTHS_SHORT[w.month - 1]!;
    case 'MMMM':
      return MONTHS[w.month - 1]!;
    case 'Q':
      return String(Math.ceil(w.month / 3));
    case 'Qo':
      return ordinal(Math.ceil(w.month / 3));
    case 'D':
      return String(w.day);
    case 'Do':
      return ordinal(w.day);
    case 'DD':
      return pad(w.day, 2);
    case 'DDD':
      return String(dayOfYear(w));
    case 'DDDo':
      return ordinal(dayOfYear(w));
    case 'DDDD':
      return pad(dayOfYear(w), 3);
    case 'd':
    case 'e':
      return String(w.weekday);
    case 'do':
      return ordinal(w.weekday);
    case 'dd':
      return WEEKDAYS_MIN[w.weekday]!;
    case 'ddd':
      return WEEKDAYS_SHORT[w.weekday]!;
    case 'dddd':
      return WEEKDAYS[w.weekday]!;
    case 'E':
      return String(w.weekday === 0 ? 7 : w.weekday);
    case 'w':
      return String(weekOfYear(w, LOCALE_WEEK.dow, LOCALE_WEEK.doy).week);
    case 'wo':
      return ordinal(weekOfYear(w, LOCALE_WEEK.dow, LOCALE_WEEK.doy).week);
    case 'ww':
      return pad(weekOfYear(w, LOCALE_WEEK.dow, LOCALE_WEEK.doy).week, 2);
    case 'W':
      return String(weekOfYear(w, ISO_WEEK.dow, ISO_WEEK.doy).week);
    case 'Wo':
      return ordinal(weekOfYear(w, ISO_WEEK.dow, ISO_WEEK.doy).week);
    case 'WW':
      return pad(weekOfYear(w, ISO_WEEK.dow, ISO_WEEK.doy).week, 2);
    case 'gg':
      return pad(weekOfYear(w, LOCALE_WEEK.dow, LOCALE_WEEK.doy).year % 100, 2);
    case 'gggg':
      return pad(weekOfYear(w, LOCALE_WEEK.dow, LOCALE_WEEK.doy).year, 4);
    case 'GG':
      return pad(weekOfYear(w, ISO_WEEK.dow, ISO_WEEK.doy).year % 100, 2);
    case 'GGGG':
      return pad(weekOfYear(w, ISO_WEEK.dow, ISO_WEEK.doy).year, 4);
    case 'Y':
      return String(w.year);
    case 'YY':
      return pad(mod(w.year, 100), 2);
    case 'YYYY':
      return w.year <= 9999 ? pad(w.year, 4) : `+${w.year}`;
    case 'H':
      return String(w.hour);
    case 'HH':
      return pad(w.hour, 2);
    case 'h':
      return String(hour12);
    case 'hh':
      return pad(hour12, 2);
    case 'k':
      return String(w.hour === 0 ? 24 : w.hour);
    case 'kk':
      return pad(w.hour === 0 ? 24 : w.hour, 2);
    case 'm':
      return String(w.minute);
    case 'mm':
      return pad(w.minute, 2);
    case 's':
      return String(w.second);
    case 'ss':
      return pad(w.second, 2);
    case 'A':
      return w.hour < 12 ? 'AM' : 'PM';
    case 'a':
      return w.hour < 12 ? 'am' : 'pm';
    case 'Z':
      return offsetText(zoneOffsetMs(ms, zone), ':');
    case 'ZZ':
      return offsetText(zoneOffsetMs(ms, zone), '');
    case 'z':
    case 'zz':
      return zoneAbbreviation(ms, zone);
    case 'X':
      return String(Math.floor(ms / 1000));
    case 'x':
      return String(ms);
    default:
      // S, SS, ... : fractions of a second, to as many digits as there are S.
      return pad(w.millisecond, 3).padEnd(token.length, '0').slice(0, token.length);
  }
}

/** moment's `format()` with no argument. */
export function defaultFormat(zone: string): string {
  return isUtcZone(zone) ? 'YYYY-MM-DDTHH:mm:ss[Z]' : 'YYYY-MM-DDTHH:mm:ssZ';
}

export function formatDate(ms: number, format: string, zone: string): string {
  const wall = toWall(ms, zone);
  let out = '';
  for (const piece of compileFormat(format)) {
    out += 'literal' in piece ? piece.literal : formatToken(piece.token, ms, wall, zone);
  }
  return out;
}

// --- Parsing -------------------------------------------------------------------------------------------

interface ParsedParts {
  year?: number;
  month?: number;
  day?: number;
  dayOfYear?: number;
  hour?: number;
  minute?: number;
  second?: number;
  millisecond?: number;
  meridiem?: 'am' | 'pm';
  offsetMinutes?: number;
  epochMs?: number;
}

const NAME_MATCHERS: { names: string[]; set: 'month' | 'weekday' }[] = [
  { names: MONTHS, set: 'month' },
  { names: MONTHS_SHORT, set: 'month' },
  { names: WEEKDAYS, set: 'weekday' },
  { names: WEEKDAYS_SHORT, set: 'weekday' },
  { names: WEEKDAYS_MIN, set: 'weekday' },
];

function matchName(
  text: string,
  pos: number,
  set: 'month' | 'weekday',
): { index: number; length: number } | null {
  const lower = text.slice(pos, pos + 12).toLowerCase();
  for (const matcher of NAME_MATCHERS) {
    if (matcher.set !== set) continue;
    const index = matcher.names.findIndex((name) => lower.startsWith(name.toLowerCase()));
    if (index !== -1) return { index, length: matcher.names[index]!.length };
  }
  return null;
}

const TOKEN_PATTERNS: Record<string, RegExp> = {
  YYYY: /\d{1,4}/y,
  Y: /\d{1,6}/y,
  gggg: /\d{1,4}/y,
  GGGG: /\d{1,4}/y,
  YY: /\d\d?/y,
  gg: /\d\d?/y,
  GG: /\d\d?/y,
  M: /\d\d?/y,
  MM: /\d\d?/y,
  D: /\d\d?/y,
  DD: /\d\d?/y,
  Do: /\d\d?(?:st|nd|rd|th)?/iy,
  Mo: /\d\d?(?:st|nd|rd|th)?/iy,
  DDD: /\d{1,3}/y,
  DDDD: /\d{1,3}/y,
  DDDo: /\d{1,3}(?:st|nd|rd|th)?/iy,
  H: /\d\d?/y,
  HH: /\d\d?/y,
  h: /\d\d?/y,
  hh: /\d\d?/y,
  k: /\d\d?/y,
  kk: /\d\d?/y,
  m: /\d\d?/y,
  mm: /\d\d?/y,
  s: /\d\d?/y,
  ss: /\d\d?/y,
  Q: /[1-4]/y,
  Qo: /[1-4](?:st|nd|rd|th)?/iy,
  d: /\d/y,
  e: /\d/y,
  E: /\d/y,
  do: /\d(?:st|nd|rd|th)?/iy,
  w: /\d\d?/y,
  ww: /\d\d?/y,
  wo: /\d\d?(?:st|nd|rd|th)?/iy,
  W: /\d\d?/y,
  WW: /\d\d?/y,
  Wo: /\d\d?(?:st|nd|rd|th)?/iy,
  A: /[ap]\.?m?\.?/iy,
  a: /[ap]\.?m?\.?/iy,
  Z: /Z|[+-]\d\d(?::?\d\d)?/iy,
  ZZ: /Z|[+-]\d\d(?::?\d\d)?/iy,
  X: /[+-]?\d+(?:\.\d{1,3})?/y,
  x: /[+-]?\d+/y,
  z: /[A-Za-z]+/y,
  zz: /[A-Za-z]+/y,
};

function isAlphanumeric(c: string): boolean {
  return /[\p{L}\p{N}]/u.test(c);
}

/** Reads `text` with a moment format, forgivingly as moment does without strict mode: literal text in
 * the format need not be there, and a value token skips punctuation and spaces before it. */
function parseWithFormat(text: string, format: string, wholeText: boolean): ParsedParts | null {
  const parts: ParsedParts = {};
  let pos = 0;
  for (const piece of compileFormat(format)) {
    if ('literal' in piece) {
      for (const c of piece.literal) if (text[pos] === c) pos++;
      continue;
    }
    const token = piece.token;
    const signed = token === 'Z' || token === 'ZZ' || token === 'X' || token === 'x';
    while (pos < text.length && !isAlphanumeric(text[pos]!) && !(signed && /[+-]/.test(text[pos]!))) pos++;
    if (token === 'MMM' || token === 'MMMM' || token === 'dd' || token === 'ddd' || token === 'dddd') {
      const found = matchName(text, pos, token.startsWith('M') ? 'month' : 'weekday');
      if (!found) return null;
      if (token.startsWith('M')) parts.month = found.index + 1;
      pos += found.length;
      continue;
    }
    let matched: string;
    if (token.startsWith('S')) {
      const m = /\d+/y;
      m.lastIndex = pos;
      const found = m.exec(text);
      if (!found) return null;
      matched = found[0];
      parts.millisecond = Math.round(Number(`0.${matched}`) * 1000);
      pos += matched.length;
      continue;
    }
    const pattern = TOKEN_PATTERNS[token];
    if (!pattern) return null;
    pattern.lastIndex = pos;
    const found = pattern.exec(text);
    if (!found) return null;
    matched = found[0];
    pos += matched.length;
    const n = Number.parseInt(matched, 10);
    switch (token) {
      case 'YYYY':
      case 'Y':
        parts.year = n;
        break;
      case 'YY':
        parts.year = n + (n > 68 ? 1900 : 2000);
        break;
      case 'M':
      case 'MM':
      case 'Mo':
        parts.month = n;
        break;
      case 'D':
      case 'DD':
      case 'Do':
        parts.day = n;
        break;
      case 'DDD':
      case 'DDDD':
      case 'DDDo':
        parts.dayOfYear = n;
        break;
      case 'H':
      case 'HH':
      case 'h':
      case 'hh':
      case 'k':
      case 'kk':
        parts.hour = n;
        break;
      case 'm':
      case 'mm':
        parts.minute = n;
        break;
      case 's':
      case 'ss':
        parts.second = n;
        break;
      case 'Q':
      case 'Qo':
        parts.month = (n - 1) * 3 + 1;
        break;
      case 'A':
      case 'a':
        parts.meridiem = matched.toLowerCase().startsWith('p') ? 'pm' : 'am';
        break;
      case 'Z':
      case 'ZZ':
        parts.offsetMinutes = parseOffset(matched);
        break;
      case 'X':
        parts.epochMs = Math.round(Number(matched) * 1000);
        break;
      case 'x':
        parts.epochMs = Number(matched);
        break;
      default:
        // Week numbers, weekday numbers and zone names are read past but do not set the date.
        break;
    }
  }
  if (wholeText && text.slice(pos).trim() !== '') return null;
  return parts;
}

function parseOffset(text: string): number {
  if (text.toUpperCase() === 'Z') return 0;
  const sign = text.startsWith('-') ? -1 : 1;
  const digits = text.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
}

function partsToMs(parts: ParsedParts, zone: string, now: number): number | null {
  if (parts.epochMs !== undefined) return Number.isFinite(parts.epochMs) ? parts.epochMs : null;
  // Like moment: missing larger units default to today, missing smaller ones to their start.
  const today = toWall(now, zone);
  const year = parts.year ?? today.year;
  let month = parts.month ?? (parts.year !== undefined ? 1 : today.month);
  let day = parts.day ?? (parts.year !== undefined || parts.month !== undefined ? 1 : today.day);
  if (parts.dayOfYear !== undefined) {
    if (parts.dayOfYear < 1 || parts.dayOfYear > dayNumber(year + 1, 1, 1) - dayNumber(year, 1, 1))
      return null;
    const civil = dayNumberToCivil(dayNumber(year, 1, 1) + parts.dayOfYear - 1);
    month = civil.month;
    day = civil.day;
  }
  let hour = parts.hour ?? 0;
  if (parts.meridiem) {
    if (hour < 1 || hour > 12) return null;
    if (parts.meridiem === 'pm' && hour < 12) hour += 12;
    if (parts.meridiem === 'am' && hour === 12) hour = 0;
  }
  const minute = parts.minute ?? 0;
  const second = parts.second ?? 0;
  const millisecond = parts.millisecond ?? 0;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 24 || (hour === 24 && (minute > 0 || second > 0 || millisecond > 0))) return null;
  if (minute > 59 || second > 59) return null;
  const civil = { year, month, day, hour, minute, second, millisecond };
  if (parts.offsetMinutes !== undefined) return civilToUtcMs(civil) - parts.offsetMinutes * 60_000;
  return fromWall(civil, zone);
}

const ISO_PATTERN =
  /^([+-]\d{6}|\d{4})-(\d\d)(?:-(\d\d)(?:[T\s](\d\d)(?::?(\d\d)(?::?(\d\d)(?:[.,](\d+))?)?)?)?)?\s*(Z|[+-]\d\d(?::?\d\d)?)?$/i;

// Tried in order when no format is given, after ISO 8601: US month-first dates as moment's fallback
// (the JavaScript Date parser) reads them, and written-out month names.
const FALLBACK_FORMATS = [
  'M/D/YYYY h:mm:ss A',
  'M/D/YYYY h:mm A',
  'M/D/YYYY H:mm:ss',
  'M/D/YYYY H:mm',
  'M/D/YYYY',
  'YYYY/M/D H:mm:ss',
  'YYYY/M/D H:mm',
  'YYYY/M/D',
  'MMMM D YYYY h:mm:ss A',
  'MMMM D YYYY h:mm A',
  'MMMM D YYYY H:mm:ss',
  'MMMM D YYYY H:mm',
  'MMMM D YYYY',
  'D MMMM YYYY H:mm:ss',
  'D MMMM YYYY H:mm',
  'D MMMM YYYY',
  'ddd MMM D YYYY H:mm:ss',
  'dddd MMMM D YYYY',
];

function parseIso(text: string, zone: string): number | null | undefined {
  const m = ISO_PATTERN.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, offset] = m;
  const parts: ParsedParts = {
    year: Number(y),
    month: Number(mo),
    day: d === undefined ? 1 : Number(d),
    hour: h === undefined ? 0 : Number(h),
    minute: mi === undefined ? 0 : Number(mi),
    second: s === undefined ? 0 : Number(s),
    millisecond: frac === undefined ? 0 : Math.round(Number(`0.${frac}`) * 1000),
  };
  if (offset !== undefined) parts.offsetMinutes = parseOffset(offset);
  return partsToMs(parts, zone, 0);
}

/**
 * Reads a date from text: with a moment format when one is given, otherwise ISO 8601 or one of the
 * fallback shapes. Text without an offset is a wall-clock time in `zone`. Undefined when unreadable.
 */
export function parseDateText(
  text: string,
  format: string | undefined,
  zone: string,
  now: number,
): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (format !== undefined && format !== '') {
    const parts = parseWithFormat(trimmed, format, false);
    return parts ? (partsToMs(parts, zone, now) ?? undefined) : undefined;
  }
  const iso = parseIso(trimmed, zone);
  if (iso !== undefined) return iso ?? undefined;
  for (const candidate of FALLBACK_FORMATS) {
    const parts = parseWithFormat(trimmed, candidate, true);
    if (!parts) continue;
    const ms = partsToMs(parts, zone, now);
    if (ms !== null) return ms;
  }
  return undefined;
}
