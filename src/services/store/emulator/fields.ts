/**
 * The field types: which are writable, computed or creatable, how a written cell value is checked and stored
 * (with and without `typecast`), how a stored cell reads back in the API's JSON cell format, and which options
 * a new field of each type takes. The API's rules, in one place; no SQL and no HTTP.
 *
 * Typecast, as emulated (upstream documents only "best-effort automatic data conversion from string values"):
 *   - text fields take numbers and booleans as their text, arrays as their items joined with ", ";
 *   - number, percent, currency, rating and duration read numeric text ("1,234.5", "$12", "50%" -> 0.5,
 *     "1:30" -> 5400 seconds for durations);
 *   - checkbox reads "true"/"yes"/"checked"/"1" as checked and "false"/"no"/"0"/"" as unchecked;
 *   - selects create options they do not have yet (multiple selects also split "a, b" text);
 *   - dates read ISO 8601, M/D/YYYY, YYYY/M/D, "June 5, 2025" and "5 June 2025", with an optional time;
 *   - record links take a record id of the linked table, or else text matched against the linked table's
 *     primary field (the first match in creation order); text that matches nothing creates a record in the
 *     linked table with that text as its primary field, as the upstream does;
 *   - collaborators take a user id or email as plain text;
 *   - attachments take a URL as plain text; barcodes take plain text.
 */

import { err, ok, type Result } from '../../../emulation/result.js';
import { WRITABLE_FIELD_TYPES } from '../schemas/index.js';
import type { SchemaSnapshot, TableModel } from './database.js';
import { isoDateIn, isValidTimeZone, parseIsoDate, parseIsoDateTime, parseLooseDateTime } from './dates.js';
import type { StoreError } from './errors.js';
import { errors } from './errors.js';
import { looksLikeId } from './ids.js';
import {
  type FieldRow,
  type JsonObject,
  NUMBER_FIELD_TYPES,
  type StoredAttachment,
  TEXT_FIELD_TYPES,
  type UserRow,
} from './model.js';

/** The writable types are the ones the shared request schemas let a caller create. */
export const WRITABLE_TYPES = WRITABLE_FIELD_TYPES;

export const COMPUTED_TYPES = [
  'formula',
  'createdTime',
  'lastModifiedTime',
  'autoNumber',
  'createdBy',
  'lastModifiedBy',
  'count',
  'rollup',
  'multipleLookupValues',
] as const;

/** What the API can create: the writable types, as the upstream's field-model pages allow. */
export const CREATABLE_TYPES: readonly string[] = WRITABLE_TYPES;

/** Types the upstream has that the emulator knows by name but neither computes nor creates. */
const OTHER_UPSTREAM_TYPES = ['button', 'externalSyncSource', 'aiText', 'lookup'];

const WRITABLE = new Set<string>(WRITABLE_TYPES);

export const KNOWN_TYPES: ReadonlySet<string> = new Set<string>([
  ...WRITABLE_TYPES,
  ...COMPUTED_TYPES,
  ...OTHER_UPSTREAM_TYPES,
]);

export function isWritable(type: string): boolean {
  return WRITABLE.has(type);
}

/** performUpsert.fieldsToMergeOn: "number, text, long text, single select, multiple select or date" fields. */
export const MERGE_FIELD_TYPES: ReadonlySet<string> = new Set([
  'singleLineText',
  'email',
  'url',
  'phoneNumber',
  'multilineText',
  'number',
  'currency',
  'percent',
  'singleSelect',
  'multipleSelects',
  'date',
  'dateTime',
]);

export function isRecordObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `""`, `[]`, `false`, null and undefined: the values the API leaves out of a record's `fields`. */
export function isEmptyCell(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === '' ||
    value === false ||
    (Array.isArray(value) && value.length === 0)
  );
}

// --- writing cells ---------------------------------------------------------------------------------------

export interface Choice {
  id: string;
  name: string;
  color?: string;
}

export interface PlannedRecord {
  tableId: string;
  id: string;
  primaryText: string;
}

/** Side effects a write needs beyond its own cells: options to add to selects, records to add to linked tables. */
export interface WritePlan {
  newChoices: Map<string, Choice[]>;
  newLinkedRecords: PlannedRecord[];
}

export function emptyPlan(): WritePlan {
  return { newChoices: new Map(), newLinkedRecords: [] };
}

export interface CellContext {
  typecast: boolean;
  snapshot: SchemaSnapshot;
  plan: WritePlan;
  /** The cell as it is now (stored form), for attachments kept by id. */
  current: unknown;
  newId(kind: 'choice' | 'record' | 'attachment'): string;
  recordExists(tableId: string, recordId: string): boolean;
  /** The first record of the table whose primary field reads as `text`. */
  findByPrimaryText(tableId: string, text: string): string | undefined;
}

/** The stored form of a written value: undefined when the write empties the cell. */
export type CellResult = Result<unknown, StoreError>;

const EMPTY: CellResult = ok(undefined);

/** A multi-valued cell's items: an array as given, or with typecast comma-separated text; undefined otherwise. */
function itemsOf(value: unknown, typecast: boolean): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typecast && typeof value === 'string') return value.split(',').map((s) => s.trim());
  return undefined;
}

function choicesOf(field: FieldRow, plan: WritePlan): Choice[] {
  const raw = field.options?.choices;
  const existing = Array.isArray(raw) ? (raw.filter(isRecordObject) as unknown as Choice[]) : [];
  return [...existing, ...(plan.newChoices.get(field.id) ?? [])];
}

function asText(value: unknown, typecast: boolean): string | undefined {
  if (typeof value === 'string') return value;
  if (!typecast) return undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
    return value.map(String).join(', ');
  }
  return undefined;
}

/** Numeric text as typecast reads it: thousands separators, currency symbols and spaces are ignored. */
function numberFromText(text: string, percent: boolean): number | undefined {
  let t = text.trim();
  if (t === '') return undefined;
  const isPercent = t.endsWith('%');
  if (isPercent) t = t.slice(0, -1);
  t = t.replace(/[\s,]/g, '').replace(/^([+-]?)[^\d.+-]+/, '$1');
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(t)) return undefined;
  const n = Number(t);
  if (!Number.isFinite(n)) return undefined;
  return percent && isPercent ? n / 100 : n;
}

/** Durations as text: plain seconds, or h:mm[:ss[.fff]]. */
function durationFromText(text: string): number | undefined {
  const t = text.trim();
  const m = /^(-)?(\d+):(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?$/.exec(t);
  if (m) {
    const seconds = Number(m[2]) * 3600 + Number(m[3]) * 60 + (m[4] === undefined ? 0 : Number(m[4]));
    return m[1] ? -seconds : seconds;
  }
  return numberFromText(t, false);
}

function normalizeNumber(field: FieldRow, value: unknown, { typecast }: CellContext): CellResult {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (typecast && typeof value === 'string') {
    if (value.trim() === '') return EMPTY;
    n = field.type === 'duration' ? durationFromText(value) : numberFromText(value, field.type === 'percent');
  } else if (typecast && typeof value === 'boolean') n = value ? 1 : 0;
  if (n === undefined || !Number.isFinite(n)) return err(errors.invalidValue(field.name));
  if (field.type === 'rating') {
    const max = typeof field.options?.max === 'number' ? field.options.max : 5;
    if (typecast) n = Math.round(n);
    if (n === 0) return EMPTY;
    if (!Number.isInteger(n) || n < 1 || n > max) return err(errors.invalidValue(field.name));
  }
  return ok(n);
}

const TRUE_TEXT = new Set(['true', 'yes', 'checked', 'on', '1', 'x', 'y']);
const FALSE_TEXT = new Set(['false', 'no', 'unchecked', 'off', '0', '', 'n']);

function normalizeCheckbox(field: FieldRow, value: unknown, { typecast }: CellContext): CellResult {
  if (typeof value === 'boolean') return value ? ok(true) : EMPTY;
  if (typecast && typeof value === 'string') {
    const t = value.trim().toLowerCase();
    if (TRUE_TEXT.has(t)) return ok(true);
    if (FALSE_TEXT.has(t)) return EMPTY;
  }
  if (typecast && typeof value === 'number') return value !== 0 ? ok(true) : EMPTY;
  return err(errors.invalidValue(field.name));
}

function pickChoice(field: FieldRow, name: string, ctx: CellContext): Result<string, StoreError> {
  const choices = choicesOf(field, ctx.plan);
  const found = choices.find((c) => c.name === name) ?? choices.find((c) => c.id === name);
  if (found) return ok(found.name);
  if (!ctx.typecast) return err(errors.unknownSelectOption(name));
  const added = ctx.plan.newChoices.get(field.id) ?? [];
  added.push({ id: ctx.newId('choice'), name });
  ctx.plan.newChoices.set(field.id, added);
  return ok(name);
}

function normalizeSingleSelect(field: FieldRow, value: unknown, ctx: CellContext): CellResult {
  const text = asText(value, ctx.typecast);
  if (text === undefined) return err(errors.invalidValue(field.name));
  if (text === '') return EMPTY;
  return pickChoice(field, text, ctx);
}

function normalizeMultipleSelects(field: FieldRow, value: unknown, ctx: CellContext): CellResult {
  const items = itemsOf(value, ctx.typecast);
  if (!items) return err(errors.invalidValue(field.name));
  const names: string[] = [];
  for (const item of items) {
    const text = asText(item, ctx.typecast);
    if (text === undefined) return err(errors.invalidValue(field.name));
    if (text === '') continue;
    const picked = pickChoice(field, text, ctx);
    if (!picked.ok) return picked;
    if (!names.includes(picked.value)) names.push(picked.value);
  }
  return names.length === 0 ? EMPTY : ok(names);
}

/** A date-time field's own zone ('utc', 'client' or an IANA name); offset-less input is read in it. */
function fieldZone(field: FieldRow): string {
  const zone = field.options?.timeZone;
  return typeof zone === 'string' && zone !== 'client' ? zone : 'utc';
}

function normalizeDate(field: FieldRow, value: unknown, { typecast }: CellContext): CellResult {
  if (typeof value !== 'string') {
    if (typecast && typeof value === 'number') return ok(isoDateIn(value, 'utc'));
    return err(errors.invalidValue(field.name));
  }
  if (value.trim() === '') return EMPTY;
  const strict = parseIsoDate(value);
  if (strict) return ok(strict);
  // airtable.js sends a JS Date as its ISO date-time; the date field keeps the UTC date part of it.
  const instant = parseIsoDateTime(value.trim(), 'utc');
  if (instant !== undefined && !Number.isNaN(instant)) return ok(isoDateIn(instant, 'utc'));
  if (typecast) {
    const ms = parseLooseDateTime(value, 'utc');
    if (ms !== undefined) return ok(isoDateIn(ms, 'utc'));
  }
  return err(errors.invalidDate(value, field.name));
}

function normalizeDateTime(field: FieldRow, value: unknown, { typecast }: CellContext): CellResult {
  const zone = fieldZone(field);
  if (typeof value !== 'string') {
    if (typecast && typeof value === 'number' && Number.isFinite(value))
      return ok(new Date(value).toISOString());
    return err(errors.invalidValue(field.name));
  }
  if (value.trim() === '') return EMPTY;
  const ms = typecast ? parseLooseDateTime(value, zone) : parseIsoDateTime(value.trim(), zone);
  if (ms === undefined || Number.isNaN(ms)) return err(errors.invalidDate(value, field.name));
  return ok(new Date(ms).toISOString());
}

function normalizeLinks(field: FieldRow, value: unknown, ctx: CellContext): CellResult {
  const linkedTableId = String(field.options?.linkedTableId ?? '');
  const linkedTable = ctx.snapshot.tableById.get(linkedTableId);
  if (!linkedTable) return err(errors.invalidValue(field.name));
  const items = itemsOf(value, ctx.typecast);
  if (!items) return err(errors.invalidValue(field.name));
  const ids: string[] = [];
  for (const item of items) {
    const raw = isRecordObject(item) && typeof item.id === 'string' ? item.id : item;
    const text = asText(raw, ctx.typecast);
    if (text === undefined) return err(errors.invalidValue(field.name));
    if (text === '') continue;
    let id: string | undefined;
    if (looksLikeId('record', text) && ctx.recordExists(linkedTableId, text)) id = text;
    else if (!ctx.typecast) {
      return err(
        looksLikeId('record', text) ? errors.rowDoesNotExist(text) : errors.invalidValue(field.name),
      );
    } else {
      id =
        ctx.findByPrimaryText(linkedTableId, text) ??
        ctx.plan.newLinkedRecords.find((r) => r.tableId === linkedTableId && r.primaryText === text)?.id;
      if (id === undefined) {
        id = ctx.newId('record');
        ctx.plan.newLinkedRecords.push({ tableId: linkedTableId, id, primaryText: text });
      }
    }
    if (!ids.includes(id)) ids.push(id);
  }
  return ids.length === 0 ? EMPTY : ok(ids);
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  zip: 'application/zip',
  mp4: 'video/mp4',
  mp3: 'audio/mpeg',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export function contentTypeFor(filename: string): string | undefined {
  const ext = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  return ext === undefined ? undefined : CONTENT_TYPES[ext];
}

function filenameOfUrl(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last) : 'file';
  } catch {
    return 'file';
  }
}

function normalizeAttachments(field: FieldRow, value: unknown, ctx: CellContext): CellResult {
  const items = itemsOf(value, ctx.typecast);
  if (!items) return err(errors.invalidValue(field.name));
  const current = Array.isArray(ctx.current) ? (ctx.current as StoredAttachment[]) : [];
  const out: StoredAttachment[] = [];
  for (const item of items) {
    const obj = ctx.typecast && typeof item === 'string' ? { url: item } : item;
    if (!isRecordObject(obj)) return err(errors.invalidValue(field.name));
    if (typeof obj.id === 'string' && obj.url === undefined) {
      // An attachment already in the cell is kept by id, as clients round-trip what they read.
      const kept = current.find((a) => a.id === obj.id);
      if (!kept) return err(errors.invalidValue(field.name));
      out.push(kept);
      continue;
    }
    if (typeof obj.url !== 'string' || obj.url.trim() === '') return err(errors.invalidValue(field.name));
    if (obj.filename !== undefined && typeof obj.filename !== 'string')
      return err(errors.invalidValue(field.name));
    const kept = typeof obj.id === 'string' ? current.find((a) => a.id === obj.id) : undefined;
    if (kept) {
      out.push(kept);
      continue;
    }
    const filename =
      typeof obj.filename === 'string' && obj.filename !== '' ? obj.filename : filenameOfUrl(obj.url);
    const type = contentTypeFor(filename);
    out.push({ id: ctx.newId('attachment'), url: obj.url, filename, ...(type ? { type } : {}) });
  }
  return out.length === 0 ? EMPTY : ok(out);
}

function findUser(snapshot: SchemaSnapshot, value: unknown, typecast: boolean): UserRow | undefined {
  if (isRecordObject(value)) {
    if (typeof value.id === 'string') return snapshot.userById.get(value.id);
    if (typeof value.email === 'string') return snapshot.userByEmail.get(value.email.toLowerCase());
    return undefined;
  }
  if (typeof value === 'string') {
    // The field model's write format for collaborators includes plain user ids; an email as text needs typecast.
    const byId = snapshot.userById.get(value.trim());
    if (byId) return byId;
    if (typecast) return snapshot.userByEmail.get(value.trim().toLowerCase());
  }
  return undefined;
}

function normalizeCollaborators(field: FieldRow, value: unknown, ctx: CellContext): CellResult {
  if (field.type === 'singleCollaborator') {
    const user = findUser(ctx.snapshot, value, ctx.typecast);
    return user ? ok(user.id) : err(errors.invalidValue(field.name));
  }
  const items = itemsOf(value, ctx.typecast);
  if (!items) return err(errors.invalidValue(field.name));
  const ids: string[] = [];
  for (const item of items) {
    const user = findUser(ctx.snapshot, item, ctx.typecast);
    if (!user) return err(errors.invalidValue(field.name));
    if (!ids.includes(user.id)) ids.push(user.id);
  }
  return ids.length === 0 ? EMPTY : ok(ids);
}

function normalizeBarcode(field: FieldRow, value: unknown, { typecast }: CellContext): CellResult {
  if (isRecordObject(value)) {
    if (typeof value.text !== 'string') return err(errors.invalidValue(field.name));
    if (value.type !== undefined && value.type !== null && typeof value.type !== 'string') {
      return err(errors.invalidValue(field.name));
    }
    if (value.text === '') return EMPTY;
    return ok(typeof value.type === 'string' ? { text: value.text, type: value.type } : { text: value.text });
  }
  const text = typecast ? asText(value, true) : undefined;
  if (text === undefined) return err(errors.invalidValue(field.name));
  return text === '' ? EMPTY : ok({ text });
}

function normalizeText(field: FieldRow, value: unknown, ctx: CellContext): CellResult {
  const text = asText(value, ctx.typecast);
  if (text === undefined) return err(errors.invalidValue(field.name));
  if (text === '') return EMPTY;
  if (field.type === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim())) {
    return err(errors.invalidValue(field.name));
  }
  return ok(text);
}

/** How each writable type checks a written value; a type without one is computed (or unknown) and refused. */
const NORMALIZERS: ReadonlyMap<string, (field: FieldRow, value: unknown, ctx: CellContext) => CellResult> =
  new Map([
    ...TEXT_FIELD_TYPES.map((type) => [type, normalizeText] as const),
    ...NUMBER_FIELD_TYPES.map((type) => [type, normalizeNumber] as const),
    ['checkbox', normalizeCheckbox],
    ['singleSelect', normalizeSingleSelect],
    ['multipleSelects', normalizeMultipleSelects],
    ['date', normalizeDate],
    ['dateTime', normalizeDateTime],
    ['multipleRecordLinks', normalizeLinks],
    ['multipleAttachments', normalizeAttachments],
    ['singleCollaborator', normalizeCollaborators],
    ['multipleCollaborators', normalizeCollaborators],
    ['barcode', normalizeBarcode],
  ]);

/**
 * Checks a value written to a field and returns its stored form (undefined: the cell becomes empty). Computed
 * fields are the caller's concern; this handles only writable types.
 */
export function normalizeCell(field: FieldRow, value: unknown, ctx: CellContext): CellResult {
  if (value === null || value === undefined) return EMPTY;
  const normalize = NORMALIZERS.get(field.type);
  return normalize ? normalize(field, value, ctx) : err(errors.computedField(field.name));
}

// --- reading cells ---------------------------------------------------------------------------------------

export function collaboratorJson(snapshot: SchemaSnapshot, userId: unknown): JsonObject | undefined {
  if (typeof userId !== 'string') return undefined;
  const user = snapshot.userById.get(userId);
  return user ? { id: user.id, email: user.email, name: user.name } : { id: userId };
}

export function fileUrl(origin: string, attachmentId: string, filename: string): string {
  return `${origin}/_files/${attachmentId}/${encodeURIComponent(filename)}`;
}

export function attachmentJson(a: StoredAttachment, origin: string): JsonObject {
  return {
    id: a.id,
    url: a.url ?? fileUrl(origin, a.id, a.filename),
    filename: a.filename,
    ...(a.size === undefined ? {} : { size: a.size }),
    ...(a.type === undefined ? {} : { type: a.type }),
  };
}

/** A stored cell of a writable field in the API's JSON cell format. */
export function storedToJson(
  field: FieldRow,
  stored: unknown,
  snapshot: SchemaSnapshot,
  origin: string,
): unknown {
  if (stored === undefined || stored === null) return undefined;
  switch (field.type) {
    case 'singleCollaborator':
      return collaboratorJson(snapshot, stored);
    case 'multipleCollaborators':
      return Array.isArray(stored) ? stored.map((id) => collaboratorJson(snapshot, id)) : undefined;
    case 'multipleAttachments':
      return Array.isArray(stored)
        ? (stored as StoredAttachment[]).map((a) => attachmentJson(a, origin))
        : undefined;
    default:
      return stored;
  }
}

// --- field options ---------------------------------------------------------------------------------------

const DATE_FORMATS: Readonly<Record<string, string>> = {
  local: 'l',
  friendly: 'LL',
  us: 'M/D/YYYY',
  european: 'D/M/YYYY',
  iso: 'YYYY-MM-DD',
};
const TIME_FORMATS: Readonly<Record<string, string>> = { '12hour': 'h:mma', '24hour': 'HH:mm' };
const DURATION_FORMATS = ['h:mm', 'h:mm:ss', 'h:mm:ss.S', 'h:mm:ss.SS', 'h:mm:ss.SSS'];
const RATING_ICONS = ['star', 'heart', 'thumbsUp', 'flag', 'dot'];
const CHECKBOX_ICONS = ['check', 'xCheckbox', 'star', 'heart', 'thumbsUp', 'flag', 'dot'];

export const DEFAULT_DATE_FORMAT = { name: 'iso', format: 'YYYY-MM-DD' };
export const DEFAULT_TIME_FORMAT = { name: '24hour', format: 'HH:mm' };

export interface OptionsContext {
  snapshot: SchemaSnapshot;
  /** The table the field goes into; undefined while a new base or table is being built. */
  table: TableModel | undefined;
  baseId: string;
  newChoiceId(): string;
}

type OptionsResult = Result<JsonObject | null, StoreError>;

function optionsError(type: string, detail: string): StoreError {
  return errors.invalidRequest(`Invalid options for a ${type} field: ${detail}.`);
}

function onlyKeys(options: JsonObject, allowed: readonly string[], type: string): StoreError | undefined {
  const extra = Object.keys(options).filter((k) => !allowed.includes(k));
  return extra.length === 0
    ? undefined
    : optionsError(type, `unknown option ${extra.map((k) => `"${k}"`).join(', ')}`);
}

function precision(
  options: JsonObject,
  type: string,
  max: number,
  fallback: number,
): Result<number, StoreError> {
  const p = options.precision ?? fallback;
  if (typeof p !== 'number' || !Number.isInteger(p) || p < 0 || p > max) {
    return err(optionsError(type, `precision must be an integer from 0 to ${max}`));
  }
  return ok(p);
}

/** The named formats of date and time options: each name has one format string, and a default. */
const NAMED_FORMATS = {
  dateFormat: {
    formats: DATE_FORMATS,
    fallback: DEFAULT_DATE_FORMAT,
    names: `one of ${Object.keys(DATE_FORMATS).join(', ')}`,
  },
  timeFormat: { formats: TIME_FORMATS, fallback: DEFAULT_TIME_FORMAT, names: '12hour or 24hour' },
} as const;

/** `{name, format?}` of dateFormat or timeFormat: a known name, and if a format is given, that name's format. */
function namedFormat(
  key: keyof typeof NAMED_FORMATS,
  value: unknown,
  type: string,
): Result<JsonObject, StoreError> {
  const { formats, fallback, names } = NAMED_FORMATS[key];
  if (value === undefined) return ok({ ...fallback });
  if (!isRecordObject(value) || typeof value.name !== 'string' || !(value.name in formats)) {
    return err(optionsError(type, `${key}.name must be ${names}`));
  }
  const format = formats[value.name] as string;
  if (value.format !== undefined && value.format !== format) {
    return err(optionsError(type, `${key}.format of "${value.name}" is "${format}"`));
  }
  return ok({ name: value.name, format });
}

/** The icon and color options rating and checkbox fields share: an icon of the type's set, a color string. */
function iconAndColor(
  options: JsonObject,
  type: string,
  icons: readonly string[],
  defaults: { icon: string; color: string },
): Result<{ color: string; icon: string }, StoreError> {
  const icon = options.icon ?? defaults.icon;
  if (typeof icon !== 'string' || !icons.includes(icon)) {
    return err(optionsError(type, `icon must be one of ${icons.join(', ')}`));
  }
  const color = options.color ?? defaults.color;
  if (typeof color !== 'string') return err(optionsError(type, 'color must be a string'));
  return ok({ color, icon });
}

function selectChoices(options: JsonObject, type: string, ctx: OptionsContext): Result<Choice[], StoreError> {
  const raw = options.choices ?? [];
  if (!Array.isArray(raw)) return err(optionsError(type, 'choices must be an array'));
  const out: Choice[] = [];
  for (const c of raw) {
    if (!isRecordObject(c) || typeof c.name !== 'string' || c.name.trim() === '') {
      return err(optionsError(type, 'each choice needs a non-empty name'));
    }
    if (out.some((o) => o.name === c.name))
      return err(optionsError(type, `choice "${c.name}" appears twice`));
    if (c.color !== undefined && typeof c.color !== 'string')
      return err(optionsError(type, 'color must be a string'));
    out.push({
      id: ctx.newChoiceId(),
      name: c.name,
      ...(typeof c.color === 'string' ? { color: c.color } : {}),
    });
  }
  return ok(out);
}

/**
 * Checks and completes the options of a field being created (defaults filled in, choice ids minted). The type
 * must already be known to be creatable. Links: linkedTableId must name a table of the same base; the inverse
 * field is the caller's to create.
 */
export function normalizeFieldOptions(type: string, raw: unknown, ctx: OptionsContext): OptionsResult {
  if (raw !== undefined && raw !== null && !isRecordObject(raw))
    return err(optionsError(type, 'options must be an object'));
  const options: JsonObject = isRecordObject(raw) ? raw : {};
  const check = (allowed: readonly string[]) => onlyKeys(options, allowed, type);
  switch (type) {
    case 'singleLineText':
    case 'multilineText':
    case 'richText':
    case 'email':
    case 'url':
    case 'phoneNumber':
    case 'barcode':
    case 'singleCollaborator':
    case 'multipleCollaborators': {
      const bad = check([]);
      return bad ? err(bad) : ok(null);
    }
    case 'number':
    case 'percent': {
      const bad = check(['precision']);
      if (bad) return err(bad);
      const p = precision(options, type, 8, 0);
      return p.ok ? ok({ precision: p.value }) : p;
    }
    case 'currency': {
      const bad = check(['precision', 'symbol']);
      if (bad) return err(bad);
      const p = precision(options, type, 7, 2);
      if (!p.ok) return p;
      const symbol = options.symbol ?? '$';
      if (typeof symbol !== 'string') return err(optionsError(type, 'symbol must be a string'));
      return ok({ precision: p.value, symbol });
    }
    case 'rating': {
      const bad = check(['max', 'icon', 'color']);
      if (bad) return err(bad);
      const max = options.max ?? 5;
      if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 10) {
        return err(optionsError(type, 'max must be an integer from 1 to 10'));
      }
      const look = iconAndColor(options, type, RATING_ICONS, { icon: 'star', color: 'yellowBright' });
      return look.ok ? ok({ ...look.value, max }) : look;
    }
    case 'duration': {
      const bad = check(['durationFormat']);
      if (bad) return err(bad);
      const format = options.durationFormat ?? 'h:mm';
      if (typeof format !== 'string' || !DURATION_FORMATS.includes(format)) {
        return err(optionsError(type, `durationFormat must be one of ${DURATION_FORMATS.join(', ')}`));
      }
      return ok({ durationFormat: format });
    }
    case 'checkbox': {
      const bad = check(['icon', 'color']);
      if (bad) return err(bad);
      return iconAndColor(options, type, CHECKBOX_ICONS, { icon: 'check', color: 'greenBright' });
    }
    case 'singleSelect':
    case 'multipleSelects': {
      const bad = check(['choices']);
      if (bad) return err(bad);
      const choices = selectChoices(options, type, ctx);
      return choices.ok ? ok({ choices: choices.value as unknown as JsonObject[] }) : choices;
    }
    case 'date': {
      const bad = check(['dateFormat']);
      if (bad) return err(bad);
      const df = namedFormat('dateFormat', options.dateFormat, type);
      return df.ok ? ok({ dateFormat: df.value }) : df;
    }
    case 'dateTime': {
      const bad = check(['dateFormat', 'timeFormat', 'timeZone']);
      if (bad) return err(bad);
      const df = namedFormat('dateFormat', options.dateFormat, type);
      if (!df.ok) return df;
      const tf = namedFormat('timeFormat', options.timeFormat, type);
      if (!tf.ok) return tf;
      const zone = options.timeZone ?? 'utc';
      if (typeof zone !== 'string' || (zone !== 'client' && zone !== 'utc' && !isValidTimeZone(zone))) {
        return err(optionsError(type, 'timeZone must be "utc", "client" or an IANA time zone'));
      }
      return ok({ dateFormat: df.value, timeFormat: tf.value, timeZone: zone });
    }
    case 'multipleAttachments': {
      const bad = check(['isReversed']);
      if (bad) return err(bad);
      const isReversed = options.isReversed ?? false;
      if (typeof isReversed !== 'boolean') return err(optionsError(type, 'isReversed must be a boolean'));
      return ok({ isReversed });
    }
    case 'multipleRecordLinks': {
      const bad = check([
        'linkedTableId',
        'isReversed',
        'prefersSingleRecordLink',
        'viewIdForRecordSelection',
      ]);
      if (bad) return err(bad);
      const linked =
        typeof options.linkedTableId === 'string'
          ? ctx.snapshot.tableById.get(options.linkedTableId)
          : undefined;
      if (!linked || linked.row.baseId !== ctx.baseId) {
        return err(optionsError(type, 'linkedTableId must be the id of a table in the same base'));
      }
      const isReversed = options.isReversed ?? false;
      const prefersSingle = options.prefersSingleRecordLink ?? false;
      if (typeof isReversed !== 'boolean' || typeof prefersSingle !== 'boolean') {
        return err(optionsError(type, 'isReversed and prefersSingleRecordLink must be booleans'));
      }
      const viewId = options.viewIdForRecordSelection;
      if (viewId !== undefined && !linked.views.some((v) => v.id === viewId)) {
        return err(optionsError(type, 'viewIdForRecordSelection must be a view of the linked table'));
      }
      return ok({
        linkedTableId: linked.row.id,
        isReversed,
        prefersSingleRecordLink: prefersSingle,
        ...(typeof viewId === 'string' ? { viewIdForRecordSelection: viewId } : {}),
      });
    }
    default:
      return err(errors.unsupportedFieldType(type, CREATABLE_TYPES));
  }
}
