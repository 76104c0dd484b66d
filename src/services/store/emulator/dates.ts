/**
 * Calendar helpers for cells (not formulas, which have their own in formula/): reading a date or date-time a
 * client wrote (strictly for JSON writes, loosely for typecast) and printing one in a field's date and time
 * format for cellFormat=string, in any IANA time zone, via Intl.
 */

import { formatterFor, toWall } from './formula/dates.js';

export interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

// The formula engine already keeps one cached formatter per zone; the emulator's date handling shares it.
const zoneFormatter = formatterFor;

export function isValidTimeZone(zone: string): boolean {
  return zone.toLowerCase() === 'utc' || zoneFormatter(zone) !== null;
}

export function isValidLocale(locale: string): boolean {
  try {
    return (
      Intl.getCanonicalLocales(locale).length === 1 && /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(locale)
    );
  } catch {
    return false;
  }
}

function civilToMs(c: Civil): number {
  const d = new Date(0);
  d.setUTCFullYear(c.year, c.month - 1, c.day);
  d.setUTCHours(c.hour, c.minute, c.second, c.millisecond);
  return d.getTime();
}

/** The wall clock of `zone` at instant `ms` (the formula engine's reading, without the weekday). */
export function wallOf(ms: number, zone: string): Civil {
  const { weekday: _weekday, ...civil } = toWall(ms, zone);
  return civil;
}

/** The instant at which `zone`'s clock shows `c`. */
export function instantOf(c: Civil, zone: string): number {
  const local = civilToMs(c);
  if (zone.toLowerCase() === 'utc' || !zoneFormatter(zone)) return local;
  const offsetAt = (ms: number) =>
    civilToMs({ ...wallOf(ms, zone), millisecond: 0 }) - (ms - (((ms % 1000) + 1000) % 1000));
  const guess = local - offsetAt(local);
  return local - offsetAt(guess);
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function ordinal(n: number): string {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return `${n}${s[(v - 20) % 10] ?? s[v] ?? s[0]}`;
}

const TOKEN = /\[[^\]]*]|YYYY|YY|MMMM|MMM|MM|Mo|M|DD|Do|D|dddd|ddd|HH|H|hh|h|mm|m|ss|s|A|a|LL|l/g;

/**
 * Formats an instant with a moment.js-style format (the formats Airtable's date fields name), on `zone`'s clock.
 * `l` is the locale's numeric date, as Airtable's "local" date format.
 */
const localFormatters = new Map<string, Intl.DateTimeFormat | null>();

/**
 * Month and weekday names (and the long date) in the caller's `userLocale`, as the upstream shows them; English
 * keeps the fixed tables, and an unknown locale falls back to them (undefined).
 */
function localName(
  locale: string,
  options: Intl.DateTimeFormatOptions,
  w: { year: number; month: number; day: number },
): string | undefined {
  if (/^en(-us)?$/i.test(locale) && !options.dateStyle) return undefined;
  const key = `${locale}|${JSON.stringify(options)}`;
  let formatter = localFormatters.get(key);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' });
    } catch {
      formatter = null;
    }
    if (localFormatters.size > 500) localFormatters.clear();
    localFormatters.set(key, formatter);
  }
  return formatter?.format(new Date(Date.UTC(w.year, w.month - 1, w.day)));
}

export function formatMoment(ms: number, format: string, zone: string, locale: string): string {
  const w = wallOf(ms, zone);
  const weekday = new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay();
  return format.replace(TOKEN, (token) => {
    switch (token) {
      case 'YYYY':
        return String(w.year);
      case 'YY':
        return pad(w.year % 100);
      case 'MMMM':
        return localName(locale, { month: 'long' }, w) ?? MONTHS[w.month - 1] ?? '';
      case 'MMM':
        return localName(locale, { month: 'short' }, w) ?? (MONTHS[w.month - 1] ?? '').slice(0, 3);
      case 'MM':
        return pad(w.month);
      case 'Mo':
        return ordinal(w.month);
      case 'M':
        return String(w.month);
      case 'DD':
        return pad(w.day);
      case 'Do':
        return ordinal(w.day);
      case 'D':
        return String(w.day);
      case 'dddd':
        return localName(locale, { weekday: 'long' }, w) ?? WEEKDAYS[weekday] ?? '';
      case 'ddd':
        return localName(locale, { weekday: 'short' }, w) ?? (WEEKDAYS[weekday] ?? '').slice(0, 3);
      case 'HH':
        return pad(w.hour);
      case 'H':
        return String(w.hour);
      case 'hh':
        return pad(w.hour % 12 === 0 ? 12 : w.hour % 12);
      case 'h':
        return String(w.hour % 12 === 0 ? 12 : w.hour % 12);
      case 'mm':
        return pad(w.minute);
      case 'm':
        return String(w.minute);
      case 'ss':
        return pad(w.second);
      case 's':
        return String(w.second);
      case 'A':
        return w.hour < 12 ? 'AM' : 'PM';
      case 'a':
        return w.hour < 12 ? 'am' : 'pm';
      case 'LL':
        return (
          localName(locale, { dateStyle: 'long' }, w) ?? `${MONTHS[w.month - 1] ?? ''} ${w.day}, ${w.year}`
        );
      case 'l':
        return new Intl.DateTimeFormat(locale, {
          timeZone: 'UTC',
          year: 'numeric',
          month: 'numeric',
          day: 'numeric',
        }).format(new Date(Date.UTC(w.year, w.month - 1, w.day)));
      default:
        return token.slice(1, -1);
    }
  });
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function validCivil(c: Civil): boolean {
  if (c.month < 1 || c.month > 12 || c.day < 1 || c.hour > 23 || c.minute > 59 || c.second > 59) return false;
  const d = new Date(civilToMs(c));
  return d.getUTCDate() === c.day && d.getUTCMonth() + 1 === c.month;
}

function offsetMinutes(text: string): number {
  if (text.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

/** A strict ISO 8601 calendar date (`2024-05-01`), as the API's date cells are written; undefined otherwise. */
export function parseIsoDate(text: string): string | undefined {
  const m = ISO_DATE.exec(text);
  if (!m) return undefined;
  const c = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: 0,
    minute: 0,
    second: 0,
    millisecond: 0,
  };
  return validCivil(c) ? text : undefined;
}

/**
 * An ISO 8601 date-time (or a bare date, read as midnight) to an instant. Text without an offset is a wall time
 * in `zone`, which is how Airtable reads offset-less input to a date-time field with a fixed time zone.
 */
export function parseIsoDateTime(text: string, zone: string): number | undefined {
  const dateOnly = ISO_DATE.exec(text);
  if (dateOnly) {
    const c = {
      year: Number(dateOnly[1]),
      month: Number(dateOnly[2]),
      day: Number(dateOnly[3]),
      hour: 0,
      minute: 0,
      second: 0,
      millisecond: 0,
    };
    return validCivil(c) ? instantOf(c, zone) : undefined;
  }
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return undefined;
  const c: Civil = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: m[6] === undefined ? 0 : Number(m[6]),
    millisecond: m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000),
  };
  if (!validCivil(c)) return undefined;
  if (m[8] === undefined) return instantOf(c, zone);
  return civilToMs(c) - offsetMinutes(m[8]) * 60_000;
}

const MONTH_INDEX = new Map(
  MONTHS.flatMap((name, i) => [
    [name.toLowerCase(), i + 1],
    [name.slice(0, 3).toLowerCase(), i + 1],
  ]),
);

function timeOf(text: string | undefined): { hour: number; minute: number; second: number } | undefined {
  if (text === undefined || text.trim() === '') return { hour: 0, minute: 0, second: 0 };
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm)?$/i.exec(text.trim());
  if (!m) return undefined;
  let hour = Number(m[1]);
  const suffix = m[4]?.toLowerCase();
  if (suffix) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (suffix === 'pm' ? 12 : 0);
  } else if (m[2] === undefined) {
    return undefined;
  }
  return {
    hour,
    minute: m[2] === undefined ? 0 : Number(m[2]),
    second: m[3] === undefined ? 0 : Number(m[3]),
  };
}

/**
 * What typecast reads as a date: ISO 8601, `M/D/YYYY` (US order, as Airtable assumes without a locale),
 * `YYYY/M/D`, `Month D, YYYY` and `D Month YYYY`, each optionally followed by a time (`14:30`, `2:30pm`).
 * Offset-less text is a wall time in `zone`.
 */
export function parseLooseDateTime(text: string, zone: string): number | undefined {
  const trimmed = text.trim();
  const iso = parseIsoDateTime(trimmed, zone);
  if (iso !== undefined) return iso;
  const patterns: [RegExp, (m: RegExpExecArray) => [number, number, number] | undefined][] = [
    [/^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ ,T]+(.*))?$/, (m) => [Number(m[3]), Number(m[1]), Number(m[2])]],
    [/^(\d{4})\/(\d{1,2})\/(\d{1,2})(?:[ ,T]+(.*))?$/, (m) => [Number(m[1]), Number(m[2]), Number(m[3])]],
    [
      /^([A-Za-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})(?:[ ,]+(.*))?$/,
      (m) => {
        const month = MONTH_INDEX.get((m[1] ?? '').toLowerCase());
        return month === undefined ? undefined : [Number(m[3]), month, Number(m[2])];
      },
    ],
    [
      /^(\d{1,2}) ([A-Za-z]+)\.?,? (\d{4})(?:[ ,]+(.*))?$/,
      (m) => {
        const month = MONTH_INDEX.get((m[2] ?? '').toLowerCase());
        return month === undefined ? undefined : [Number(m[3]), month, Number(m[1])];
      },
    ],
  ];
  for (const [re, ymd] of patterns) {
    const m = re.exec(trimmed);
    if (!m) continue;
    const date = ymd(m);
    const time = timeOf(m[4]);
    if (!date || !time) return undefined;
    const c: Civil = { year: date[0], month: date[1], day: date[2], ...time, millisecond: 0 };
    return validCivil(c) ? instantOf(c, zone) : undefined;
  }
  return undefined;
}

/** The calendar date `zone`'s clock shows at `ms`, as `YYYY-MM-DD`. */
export function isoDateIn(ms: number, zone: string): string {
  const w = wallOf(ms, zone);
  return `${String(w.year).padStart(4, '0')}-${pad(w.month)}-${pad(w.day)}`;
}
