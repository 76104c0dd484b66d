/**
 * Calendar helpers for cells (not formulas, whose date functions are in formula/): reading a date or date-time a
 * client wrote (strictly for JSON writes, loosely for typecast) and printing one in a field's date and time
 * format for cellFormat=string, in any IANA time zone. Wall clocks and zones are the formula engine's
 * (moment-timezone); month and weekday names in the caller's locale come from Intl.
 */

import moment from 'moment-timezone';
import { type Civil, civilToUtcMs, fromWall, inZone, isKnownTimeZone } from './formula/dates.js';

export function isValidTimeZone(zone: string): boolean {
  return zone.toLowerCase() === 'utc' || isKnownTimeZone(zone);
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

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

const TOKEN = /\[[^\]]*]|YYYY|YY|MMMM|MMM|MM|Mo|M|DD|Do|D|dddd|ddd|HH|H|hh|h|mm|m|ss|s|A|a|LL|l/g;

const localFormatters = new Map<string, Intl.DateTimeFormat | null>();

/**
 * Month and weekday names (and the long date) in the caller's `userLocale`, as the upstream shows them; English
 * keeps moment's names, and an unknown locale falls back to them (undefined).
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

/**
 * Formats an instant with one of the moment formats Airtable's date fields name, on `zone`'s clock: moment
 * prints each token, except names and the long date in a non-English `locale` (Intl's) and `l`, the locale's
 * numeric date, as Airtable's "local" date format.
 */
export function formatMoment(ms: number, format: string, zone: string, locale: string): string {
  const m = inZone(ms, zone);
  const w = { year: m.year(), month: m.month() + 1, day: m.date() };
  return format.replace(TOKEN, (token) => {
    switch (token) {
      case 'MMMM':
        return localName(locale, { month: 'long' }, w) ?? m.format(token);
      case 'MMM':
        return localName(locale, { month: 'short' }, w) ?? m.format(token);
      case 'dddd':
        return localName(locale, { weekday: 'long' }, w) ?? m.format(token);
      case 'ddd':
        return localName(locale, { weekday: 'short' }, w) ?? m.format(token);
      case 'LL':
        return localName(locale, { dateStyle: 'long' }, w) ?? m.format(token);
      case 'l':
        return new Intl.DateTimeFormat(locale, {
          timeZone: 'UTC',
          year: 'numeric',
          month: 'numeric',
          day: 'numeric',
        }).format(new Date(Date.UTC(w.year, w.month - 1, w.day)));
      default:
        return m.format(token);
    }
  });
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function validCivil(c: Civil): boolean {
  if (c.month < 1 || c.month > 12 || c.day < 1 || c.hour > 23 || c.minute > 59 || c.second > 59) return false;
  const d = new Date(civilToUtcMs(c));
  return d.getUTCDate() === c.day && d.getUTCMonth() + 1 === c.month;
}

function offsetMinutes(text: string): number {
  if (text.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

/**
 * The wall time an ISO_DATE or ISO_DATE_TIME match names, parts it lacks being 0 (a bare date is its midnight).
 * It may name no real time (validCivil tells).
 */
function civilOf(m: RegExpExecArray): Civil {
  return {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: m[4] === undefined ? 0 : Number(m[4]),
    minute: m[5] === undefined ? 0 : Number(m[5]),
    second: m[6] === undefined ? 0 : Number(m[6]),
    millisecond: m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000),
  };
}

/** A strict ISO 8601 calendar date (`2024-05-01`), as the API's date cells are written; undefined otherwise. */
export function parseIsoDate(text: string): string | undefined {
  const m = ISO_DATE.exec(text);
  return m && validCivil(civilOf(m)) ? text : undefined;
}

/**
 * An ISO 8601 date-time (or a bare date, read as midnight) to an instant. Text without an offset is a wall time
 * in `zone`, which is how Airtable reads offset-less input to a date-time field with a fixed time zone.
 */
export function parseIsoDateTime(text: string, zone: string): number | undefined {
  const dateOnly = ISO_DATE.exec(text);
  if (dateOnly) {
    const c = civilOf(dateOnly);
    return validCivil(c) ? fromWall(c, zone) : undefined;
  }
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return undefined;
  const c = civilOf(m);
  if (!validCivil(c)) return undefined;
  if (m[8] === undefined) return fromWall(c, zone);
  return civilToUtcMs(c) - offsetMinutes(m[8]) * 60_000;
}

const MONTH_INDEX = new Map(
  moment.months().flatMap((name, i) => [
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
    return validCivil(c) ? fromWall(c, zone) : undefined;
  }
  return undefined;
}

/** The calendar date `zone`'s clock shows at `ms`, as `YYYY-MM-DD`. */
export function isoDateIn(ms: number, zone: string): string {
  const m = inZone(ms, zone);
  return `${String(m.year()).padStart(4, '0')}-${pad(m.month() + 1)}-${pad(m.date())}`;
}
