/**
 * Listing records: a view's filter and order, filterByFormula, explicit sorts, maxRecords, pages with opaque
 * offsets, the fields[] projection and both cell formats. The matching record ids are worked out once, on the
 * first page, and kept as an iterator the later pages read from (so pages neither skip nor repeat records when
 * the table changes meanwhile); iterators expire, and an expired or unknown offset is the upstream's
 * LIST_RECORDS_ITERATOR_NOT_AVAILABLE. Formulas are compiled once per request and evaluated in memory.
 */
import type { Clock } from '../../../emulation/clock.js';
import { err, ok, type Result } from '../../../emulation/result.js';
import { formatCell, type StringFormat } from './cellFormat.js';
import { fieldResolver, type Reader, type RecordView, valueText } from './compute.js';
import type { TableModel } from './database.js';
import { errors, type StoreError } from './errors.js';
import { isEmptyCell, isRecordObject } from './fields.js';
import {
  type CompiledFormula,
  compileFormula,
  FormulaSyntaxError,
  type FormulaValue,
  isTruthy,
} from './formula/index.js';
import { ID_BODY_LENGTH, looksLikeId } from './ids.js';
import type { FieldRow, JsonObject, ViewRow, ViewSort } from './model.js';

export const MAX_PAGE_SIZE = 100;
export const ITERATOR_TTL_MS = 10 * 60 * 1000;
export const MAX_LIVE_ITERATORS = 64;

export interface SortSpec {
  field: string;
  direction: 'asc' | 'desc';
}

export interface ListRequest {
  view?: string;
  filterByFormula?: string;
  sort?: SortSpec[];
  fields?: string[];
  pageSize: number;
  maxRecords?: number;
  offset?: string;
  cellFormat: 'json' | 'string';
  /** Required (and checked by the caller) when cellFormat is 'string'. */
  stringFormat?: StringFormat;
  returnFieldsByFieldId: boolean;
  commentCount: boolean;
}

export interface OutputOptions {
  /** Only these fields; all when undefined. */
  fields?: readonly FieldRow[];
  cellFormat: 'json' | 'string';
  stringFormat?: StringFormat;
  returnFieldsByFieldId: boolean;
  commentCount?: number;
}

/** A record as the API returns it: `{id, createdTime, fields, commentCount?}`, empty cells left out. */
export function recordJson(view: RecordView, options: OutputOptions): JsonObject {
  const fields: JsonObject = {};
  for (const field of options.fields ?? view.table.fields) {
    const key = options.returnFieldsByFieldId ? field.id : field.name;
    if (options.cellFormat === 'string' && options.stringFormat) {
      const text = formatCell(view, field, options.stringFormat);
      if (text !== undefined) fields[key] = text;
    } else {
      const cell = view.json(field.id);
      if (!isEmptyCell(cell)) fields[key] = cell;
    }
  }
  return {
    id: view.row.id,
    createdTime: view.row.createdTime,
    fields,
    ...(options.commentCount === undefined ? {} : { commentCount: options.commentCount }),
  };
}

/** A field by name or id, as the API accepts either wherever a field is named. */
export function resolveField(table: TableModel, nameOrId: string): FieldRow | undefined {
  return table.fieldByName.get(nameOrId) ?? table.fieldById.get(nameOrId);
}

export function resolveView(table: TableModel, nameOrId: string): ViewRow | undefined {
  return table.views.find((v) => v.id === nameOrId) ?? table.views.find((v) => v.name === nameOrId);
}

// --- iterators -------------------------------------------------------------------------------------------

interface ListIterator {
  id: string;
  fingerprint: string;
  ids: readonly string[];
  /** Offsets handed out, with the position each stands for. */
  issued: Map<string, number>;
  lastUsed: number;
}

/** The live list iterators of one emulator, oldest dropped first; lost on restart, as upstream ones expire. */
export class ListIterators {
  #iterators = new Map<string, ListIterator>();
  #counter = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = ITERATOR_TTL_MS,
    private readonly max = MAX_LIVE_ITERATORS,
  ) {}

  #sweep(now: number): void {
    for (const [id, it] of this.#iterators) if (now - it.lastUsed > this.ttlMs) this.#iterators.delete(id);
    while (this.#iterators.size >= this.max) {
      const oldest = this.#iterators.keys().next().value;
      if (oldest === undefined) break;
      this.#iterators.delete(oldest);
    }
  }

  create(fingerprint: string, ids: readonly string[]): ListIterator {
    const now = this.clock.now().getTime();
    this.#sweep(now);
    // Iterator ids only need to be unique within the process; they are not part of the seeded data.
    const n = this.#counter++;
    const body = `${n.toString(36)}${now.toString(36)}`.padStart(ID_BODY_LENGTH, '0').slice(-ID_BODY_LENGTH);
    const it: ListIterator = { id: `itr${body}`, fingerprint, ids, issued: new Map(), lastUsed: now };
    this.#iterators.set(it.id, it);
    return it;
  }

  /** The iterator and position an offset stands for, if it is still alive and was made for the same query. */
  resolve(offset: string, fingerprint: string): { it: ListIterator; position: number } | undefined {
    const now = this.clock.now().getTime();
    const [itrId] = offset.split('/');
    const it = itrId === undefined ? undefined : this.#iterators.get(itrId);
    if (!it) return undefined;
    if (now - it.lastUsed > this.ttlMs) {
      this.#iterators.delete(it.id);
      return undefined;
    }
    const position = it.issued.get(offset);
    if (position === undefined || it.fingerprint !== fingerprint) return undefined;
    it.lastUsed = now;
    // Keep most recently used last, so the sweep drops the stalest.
    this.#iterators.delete(it.id);
    this.#iterators.set(it.id, it);
    return { it, position };
  }

  clear(): void {
    this.#iterators.clear();
  }
}

// --- sorting ---------------------------------------------------------------------------------------------

type SortKey = number | string | null;

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

function choiceIndex(field: FieldRow, name: unknown): number {
  const choices = field.options?.choices;
  if (!Array.isArray(choices)) return Number.MAX_SAFE_INTEGER;
  const i = choices.findIndex((c) => isRecordObject(c) && c.name === name);
  return i < 0 ? Number.MAX_SAFE_INTEGER : i;
}

function keyOfValue(value: FormulaValue): SortKey {
  if (value === null || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isNaN(value) ? null : value;
  if (typeof value === 'boolean') return value ? 1 : null;
  if (value instanceof Date) return value.getTime();
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    if (value.length === 1) return keyOfValue(value[0] ?? null);
    return valueText(value);
  }
  return null;
}

/** Selects sort by their option order, as in the upstream's UI; everything else by its value. */
function sortKey(view: RecordView, field: FieldRow): SortKey {
  if (field.type === 'singleSelect') {
    const cell = view.json(field.id);
    return cell === undefined ? null : choiceIndex(field, cell);
  }
  if (field.type === 'multipleSelects') {
    const cell = view.json(field.id);
    if (!Array.isArray(cell) || cell.length === 0) return null;
    // Lexicographic over option positions, encoded as fixed-width text.
    return cell.map((name) => String(choiceIndex(field, name)).padStart(6, '0')).join(',');
  }
  if (field.type === 'checkbox') return view.json(field.id) === true ? 1 : 0;
  return keyOfValue(view.value(field.id));
}

/** Empty cells first in ascending order, as the smallest values; numbers before text. */
function compareKeys(a: SortKey, b: SortKey): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return collator.compare(a, b);
}

function sortViews(
  views: RecordView[],
  sorts: { field: FieldRow; direction: 'asc' | 'desc' }[],
): RecordView[] {
  if (sorts.length === 0) return views;
  const decorated = views.map((view, index) => ({
    view,
    index,
    keys: sorts.map((s) => sortKey(view, s.field)),
  }));
  decorated.sort((x, y) => {
    for (let i = 0; i < sorts.length; i++) {
      const c = compareKeys(x.keys[i] ?? null, y.keys[i] ?? null);
      if (c !== 0) return sorts[i]?.direction === 'desc' ? -c : c;
    }
    return x.index - y.index;
  });
  return decorated.map((d) => d.view);
}

// --- listing ---------------------------------------------------------------------------------------------

export interface ListDeps {
  reader: Reader;
  iterators: ListIterators;
  commentCount(recordId: string): number;
}

export interface ListResult {
  records: JsonObject[];
  offset?: string;
}

function compileFilter(table: TableModel, source: string): Result<CompiledFormula, StoreError> {
  try {
    return ok(compileFormula(source, fieldResolver(table)));
  } catch (error) {
    if (error instanceof FormulaSyntaxError) return err(errors.invalidFilter(error.message));
    throw error;
  }
}

const READS_LAST_MODIFIED = /LAST_MODIFIED_TIME/i;

function matches(
  formula: CompiledFormula,
  view: RecordView,
  now: Date,
  timeZone: string | undefined,
): boolean {
  // Working out a record's last change costs a scan of its cells; only formulas that ask for it pay.
  const lastModified = READS_LAST_MODIFIED.test(formula.source) ? view.lastModified(undefined) : undefined;
  return isTruthy(
    formula.evaluate({
      field: (id) => view.value(id),
      now,
      recordId: view.row.id,
      createdTime: new Date(view.row.createdTime),
      ...(lastModified ? { lastModifiedTime: new Date(lastModified.time) } : {}),
      ...(timeZone ? { timeZone } : {}),
    }),
  );
}

export function listRecords(
  deps: ListDeps,
  table: TableModel,
  req: ListRequest,
): Result<ListResult, StoreError> {
  const { reader, iterators } = deps;
  let view: ViewRow | undefined;
  if (req.view !== undefined && req.view !== '') {
    view = resolveView(table, req.view);
    if (!view) return err(errors.viewNotFound(req.view));
  }
  let projection: FieldRow[] | undefined;
  if (req.fields) {
    projection = [];
    for (const name of req.fields) {
      const field = resolveField(table, name);
      if (!field) return err(errors.unknownFieldName(name));
      if (!projection.includes(field)) projection.push(field);
    }
  }
  let sorts: { field: FieldRow; direction: 'asc' | 'desc' }[] = [];
  if (req.sort && req.sort.length > 0) {
    for (const s of req.sort) {
      const field = resolveField(table, s.field);
      if (!field) return err(errors.unknownFieldName(s.field));
      sorts.push({ field, direction: s.direction });
    }
  } else if (view) {
    sorts = view.sorts.flatMap((s: ViewSort) => {
      const field = table.fieldById.get(s.fieldId);
      return field ? [{ field, direction: s.direction }] : [];
    });
  }
  const formulaSource = req.filterByFormula?.trim() ? req.filterByFormula : undefined;
  let filter: CompiledFormula | undefined;
  if (formulaSource !== undefined) {
    const compiled = compileFilter(table, formulaSource);
    if (!compiled.ok) return compiled;
    filter = compiled.value;
  }
  const fingerprint = JSON.stringify([
    table.row.id,
    view?.id ?? null,
    formulaSource ?? null,
    sorts.map((s) => [s.field.id, s.direction]),
    req.maxRecords ?? null,
  ]);

  let ids: readonly string[];
  let position = 0;
  let iterator: ReturnType<ListIterators['create']> | undefined;
  if (req.offset !== undefined && req.offset !== '') {
    const found = looksLikeOffset(req.offset) ? iterators.resolve(req.offset, fingerprint) : undefined;
    if (!found) return err(errors.iteratorNotAvailable());
    iterator = found.it;
    ids = found.it.ids;
    position = found.position;
  } else {
    const now = reader.options.now;
    // timeZone and userLocale only format cells (cellFormat=string); which records match never depends on them,
    // so formulas are evaluated in UTC, as they are without those parameters.
    const timeZone = undefined;
    let viewFilter: CompiledFormula | undefined;
    if (view?.filter) {
      const compiled = compileFilter(table, view.filter);
      // A view whose stored filter no longer compiles (a field was renamed away) shows every record.
      if (compiled.ok) viewFilter = compiled.value;
    }
    const selected: RecordView[] = [];
    for (const row of reader.store.records(table.row.id)) {
      const rv = reader.transientView(table, row);
      if (viewFilter && !matches(viewFilter, rv, now, timeZone)) continue;
      if (filter && !matches(filter, rv, now, timeZone)) continue;
      selected.push(rv);
    }
    const ordered = sortViews(selected, sorts);
    const capped = req.maxRecords === undefined ? ordered : ordered.slice(0, req.maxRecords);
    ids = capped.map((v) => v.row.id);
  }

  const pageIds = ids.slice(position, position + req.pageSize);
  const records: JsonObject[] = [];
  for (const id of pageIds) {
    const row = reader.store.record(table.row.id, id);
    // Deleted since the first page: upstream iterators skip them too.
    if (!row) continue;
    records.push(
      recordJson(reader.view(table, row), {
        ...(projection ? { fields: projection } : {}),
        cellFormat: req.cellFormat,
        ...(req.stringFormat ? { stringFormat: req.stringFormat } : {}),
        returnFieldsByFieldId: req.returnFieldsByFieldId,
        ...(req.commentCount ? { commentCount: deps.commentCount(id) } : {}),
      }),
    );
  }
  const next = position + req.pageSize;
  if (next >= ids.length) return ok({ records });
  iterator ??= iterators.create(fingerprint, ids);
  const offset = `${iterator.id}/${ids[next]}`;
  iterator.issued.set(offset, next);
  return ok({ records, offset });
}

function looksLikeOffset(offset: string): boolean {
  const [itr, rec, ...rest] = offset.split('/');
  return (
    rest.length === 0 &&
    itr !== undefined &&
    rec !== undefined &&
    looksLikeId('iterator', itr) &&
    looksLikeId('record', rec)
  );
}
