// Dates as text, by moment itself (Airtable's date functions are moment underneath): DATETIME_FORMAT's tokens
// and long formats, and DATETIME_PARSE's forgiving reading with a format. Without a format, text is read as
// ISO 8601 and then as one of a few other shapes (below).

import moment from 'moment-timezone';
import { inZone, isKnownTimeZone, isUtcZone } from './dates.js';

/** moment's `format()` with no argument. */
export function defaultFormat(zone: string): string {
  return isUtcZone(zone) ? 'YYYY-MM-DDTHH:mm:ss[Z]' : 'YYYY-MM-DDTHH:mm:ssZ';
}

export function formatDate(ms: number, format: string, zone: string): string {
  return inZone(ms, zone).format(format);
}

// moment's own fallback for text that is not ISO 8601 is the JavaScript Date parser, deprecated and
// engine-dependent; these are the shapes it reads that people type: US month-first dates, year-first
// dates with slashes, and written-out months, each with an optional time. A shape is tried only when the
// text starts the same way (a digit or a letter) and has as many colons and a meridiem when the shape
// does: a failed moment parse costs tens of microseconds, and a filter can read thousands of cells.
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
].map((format) => ({
  format,
  startsWithDigit: /^(M\/|YYYY|D )/.test(format),
  colons: format.split(':').length - 1,
  meridiem: format.endsWith(' A'),
}));

const MERIDIEM = /\d\s*[ap]\.?m?\.?$/i;

// moment fills the units a format lacks from "now", which it reads from moment.now (a documented hook); the
// formula's clock is the evaluation's, so it stands in for the one synchronous parse.
const clock = moment as unknown as { now: () => number };

function parseIn(text: string, format: moment.MomentFormatSpecification, zone: string, now: number) {
  const saved = clock.now;
  clock.now = () => now;
  try {
    return isUtcZone(zone) || !isKnownTimeZone(zone)
      ? moment.utc(text, format)
      : moment.tz(text, format, zone);
  } finally {
    clock.now = saved;
  }
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
    const parsed = parseIn(trimmed, format, zone, now);
    return parsed.isValid() ? parsed.valueOf() : undefined;
  }
  const iso = parseIn(trimmed, moment.ISO_8601, zone, now);
  if (iso.isValid()) return iso.valueOf();
  const startsWithDigit = /^\d/.test(trimmed);
  const colons = trimmed.split(':').length - 1;
  const meridiem = MERIDIEM.test(trimmed);
  for (const candidate of FALLBACK_FORMATS) {
    if (candidate.startsWithDigit !== startsWithDigit || candidate.colons !== colons) continue;
    if (candidate.meridiem !== meridiem) continue;
    const parsed = parseIn(trimmed, candidate.format, zone, now);
    const flags = parsed.parsingFlags();
    // Whole text: every token read, and nothing skipped but punctuation and spaces (moment, not being
    // strict, would also skip words and numbers).
    if (
      parsed.isValid() &&
      flags.unusedTokens.length === 0 &&
      flags.unusedInput.every((skipped) => !/[\p{L}\p{N}]/u.test(skipped))
    ) {
      return parsed.valueOf();
    }
  }
  return undefined;
}
