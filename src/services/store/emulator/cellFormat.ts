/**
 * cellFormat=string: every cell as the text the Airtable UI shows, in the request's time zone and locale.
 * Numbers follow the field's precision, currency its symbol, dates and times the field's date and time formats,
 * links show the linked records' primary field, collaborators their names, attachments "filename (url)".
 */
import { type RecordView, valueText } from './compute.js';
import { formatMoment, parseIsoDateTime } from './dates.js';
import { DEFAULT_DATE_FORMAT, DEFAULT_TIME_FORMAT, isRecordObject } from './fields.js';
import type { FieldRow, JsonObject } from './model.js';

export interface StringFormat {
  timeZone: string;
  userLocale: string;
}

function precisionOf(field: FieldRow, fallback: number): number {
  const p = field.options?.precision;
  return typeof p === 'number' && Number.isInteger(p) && p >= 0 && p <= 10 ? p : fallback;
}

function fixed(n: number, digits: number, grouping: boolean): string {
  return new Intl.NumberFormat('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    useGrouping: grouping,
  }).format(n);
}

function duration(seconds: number, format: string): string {
  const sign = seconds < 0 ? '-' : '';
  const abs = Math.abs(seconds);
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  const s = abs % 60;
  const mm = String(m).padStart(2, '0');
  if (format === 'h:mm') return `${sign}${h}:${mm}`;
  const decimals = format.split('.')[1]?.length ?? 0;
  const whole = Math.floor(s);
  let ss = String(whole).padStart(2, '0');
  if (decimals > 0) ss += `.${String(Math.floor((s - whole) * 10 ** decimals)).padStart(decimals, '0')}`;
  return `${sign}${h}:${mm}:${ss}`;
}

function formatOf(value: unknown, fallback: { format: string }): string {
  return isRecordObject(value) && typeof value.format === 'string' ? value.format : fallback.format;
}

function dateTimeText(iso: string, options: JsonObject | null | undefined, fmt: StringFormat): string {
  const ms = parseIsoDateTime(iso, 'utc');
  if (ms === undefined) return iso;
  const fieldZone = options?.timeZone;
  const zone = typeof fieldZone === 'string' && fieldZone !== 'client' ? fieldZone : fmt.timeZone;
  const date = formatMoment(ms, formatOf(options?.dateFormat, DEFAULT_DATE_FORMAT), zone, fmt.userLocale);
  const time = formatMoment(ms, formatOf(options?.timeFormat, DEFAULT_TIME_FORMAT), zone, fmt.userLocale);
  return `${date} ${time}`;
}

function resultOptions(field: FieldRow): JsonObject | undefined {
  const result = field.options?.result;
  if (!isRecordObject(result) || !isRecordObject(result.options)) return undefined;
  return result.options as JsonObject;
}

function nameOf(value: unknown): string {
  if (!isRecordObject(value)) return '';
  return typeof value.name === 'string' ? value.name : typeof value.email === 'string' ? value.email : '';
}

const NUMERIC_RESULTS = new Set(['number', 'currency', 'percent', 'duration']);

/** The cell as text, or undefined when it is empty (empty cells stay out of the response in both formats). */
export function formatCell(view: RecordView, field: FieldRow, fmt: StringFormat): string | undefined {
  const cell = view.json(field.id);
  if (cell === undefined || cell === null || cell === '' || cell === false) return undefined;
  if (Array.isArray(cell) && cell.length === 0) return undefined;
  let text: string;
  switch (field.type) {
    case 'number':
      text = typeof cell === 'number' ? fixed(cell, precisionOf(field, 0), false) : String(cell);
      break;
    case 'currency': {
      const symbol = typeof field.options?.symbol === 'string' ? field.options.symbol : '$';
      const n = typeof cell === 'number' ? cell : Number(cell);
      text = `${n < 0 ? '-' : ''}${symbol}${fixed(Math.abs(n), precisionOf(field, 2), true)}`;
      break;
    }
    case 'percent':
      text = typeof cell === 'number' ? `${fixed(cell * 100, precisionOf(field, 0), false)}%` : String(cell);
      break;
    case 'duration': {
      const format =
        typeof field.options?.durationFormat === 'string' ? field.options.durationFormat : 'h:mm';
      text = typeof cell === 'number' ? duration(cell, format) : String(cell);
      break;
    }
    case 'checkbox':
      text = 'checked';
      break;
    case 'multipleSelects':
      text = Array.isArray(cell) ? cell.join(', ') : String(cell);
      break;
    case 'date': {
      const ms = parseIsoDateTime(String(cell), 'utc');
      text =
        ms === undefined
          ? String(cell)
          : formatMoment(ms, formatOf(field.options?.dateFormat, DEFAULT_DATE_FORMAT), 'utc', fmt.userLocale);
      break;
    }
    case 'dateTime':
      text = dateTimeText(String(cell), field.options, fmt);
      break;
    case 'createdTime':
    case 'lastModifiedTime':
      text = dateTimeText(String(cell), resultOptions(field) ?? { timeZone: 'client' }, fmt);
      break;
    case 'multipleAttachments':
      text = (cell as JsonObject[]).map((a) => `${String(a.filename)} (${String(a.url)})`).join(', ');
      break;
    case 'singleCollaborator':
    case 'createdBy':
    case 'lastModifiedBy':
      text = nameOf(cell);
      break;
    case 'multipleCollaborators':
      text = (cell as unknown[]).map(nameOf).join(', ');
      break;
    case 'barcode':
      text = isRecordObject(cell) && typeof cell.text === 'string' ? cell.text : '';
      break;
    case 'formula':
    case 'rollup': {
      // A numeric result is shown with its result type's formatting (precision, symbol, percent sign).
      const result = field.options?.result;
      if (typeof cell === 'number' && isRecordObject(result) && NUMERIC_RESULTS.has(String(result.type))) {
        return formatCell(
          view,
          { ...field, type: String(result.type), options: resultOptions(field) ?? {} },
          fmt,
        );
      }
      text =
        isRecordObject(cell) && typeof cell.error === 'string' ? cell.error : valueText(view.value(field.id));
      break;
    }
    case 'multipleRecordLinks':
    case 'multipleLookupValues':
      text =
        isRecordObject(cell) && typeof cell.error === 'string' ? cell.error : valueText(view.value(field.id));
      break;
    default:
      text = typeof cell === 'string' ? cell : typeof cell === 'number' ? String(cell) : JSON.stringify(cell);
  }
  return text === '' ? undefined : text;
}
