/**
 * Reading records the way the API shows them: stored cells in the API's JSON format, and computed fields
 * (formula, createdTime, lastModifiedTime, autoNumber, createdBy, lastModifiedBy, count, lookup, rollup)
 * worked out on read, lazily and at most once per record and field within a request. Formulas are compiled
 * once per schema version with the formula engine; a formula reading another formula, a lookup of a lookup and
 * so on are followed, with a guard against cycles.
 */

import type { SchemaSnapshot, StoreDatabase, TableModel } from './database.js';
import { collaboratorJson, isRecordObject, isWritable, storedToJson } from './fields.js';
import {
  type CompiledFormula,
  cellToFormulaValue,
  compileFormula,
  type FieldResolver,
  FormulaErrorValue,
  FormulaSyntaxError,
  type FormulaValue,
  formulaValueToCell,
} from './formula/index.js';
import {
  type FieldRow,
  type JsonObject,
  NUMBER_FIELD_TYPES,
  type RecordRow,
  TEXT_FIELD_TYPES,
} from './model.js';

/** A compiled formula, or why it is invalid. */
export type FormulaState = { ok: true; formula: CompiledFormula } | { ok: false; reason: string };

const ROLLUP_VALUES_ID = '__values';

/** Resolves `{Name}` and `{fldXXX}` in a table, as the formula engine needs. */
export function fieldResolver(table: TableModel): FieldResolver {
  return {
    resolve(nameOrId) {
      const field = table.fieldByName.get(nameOrId) ?? table.fieldById.get(nameOrId);
      return field ? { id: field.id, name: field.name, type: field.type } : undefined;
    },
  };
}

const compiledByTable = new WeakMap<TableModel, Map<string, FormulaState>>();

function compileTableFormulas(table: TableModel): Map<string, FormulaState> {
  const states = new Map<string, FormulaState>();
  const resolver = fieldResolver(table);
  for (const field of table.fields) {
    if (field.type !== 'formula') continue;
    const source = typeof field.options?.formula === 'string' ? field.options.formula : '';
    try {
      states.set(field.id, { ok: true, formula: compileFormula(source, resolver) });
    } catch (error) {
      if (!(error instanceof FormulaSyntaxError)) throw error;
      states.set(field.id, { ok: false, reason: error.message });
    }
  }
  // A formula that reaches itself through other formulas is invalid, as in the upstream's editor.
  const visiting = new Set<string>();
  const done = new Set<string>();
  const cyclic = new Set<string>();
  const visit = (id: string, path: string[]): void => {
    if (done.has(id)) return;
    if (visiting.has(id)) {
      for (const member of path.slice(path.indexOf(id))) cyclic.add(member);
      return;
    }
    const state = states.get(id);
    if (!state?.ok) return;
    visiting.add(id);
    for (const ref of state.formula.referencedFieldIds) if (states.has(ref)) visit(ref, [...path, ref]);
    visiting.delete(id);
    done.add(id);
  };
  for (const id of states.keys()) visit(id, [id]);
  for (const id of cyclic) states.set(id, { ok: false, reason: 'Circular reference between formula fields' });
  return states;
}

export function formulaState(table: TableModel, fieldId: string): FormulaState | undefined {
  let states = compiledByTable.get(table);
  if (!states) {
    states = compileTableFormulas(table);
    compiledByTable.set(table, states);
  }
  return states.get(fieldId);
}

const aggregationCache = new Map<string, CompiledFormula | null>();

/** A rollup's aggregation formula over `values` (e.g. `SUM(values)`), compiled once per text. */
function aggregation(source: string): CompiledFormula | null {
  let compiled = aggregationCache.get(source);
  if (compiled === undefined) {
    try {
      compiled = compileFormula(source, {
        resolve: (name) =>
          name === 'values'
            ? { id: ROLLUP_VALUES_ID, name: 'values', type: 'multipleLookupValues' }
            : undefined,
      });
    } catch {
      compiled = null;
    }
    if (aggregationCache.size > 200) aggregationCache.clear();
    aggregationCache.set(source, compiled);
  }
  return compiled;
}

/** Text of a formula value, as a linked record's name or a lookup item reads. */
export function valueText(value: FormulaValue): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Object.is(value, -0) ? '0' : String(value);
  if (typeof value === 'boolean') return value ? 'checked' : '';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  if (Array.isArray(value))
    return value
      .map(valueText)
      .filter((t) => t !== '')
      .join(', ');
  return value.code;
}

export interface ReadOptions {
  now: Date;
  /** Scheme, host and port of the request, for the urls of uploaded attachments. */
  origin: string;
}

/** One request's view of the data: builds RecordViews and memoizes them, so linked records are read once. */
export class Reader {
  readonly #views = new Map<string, RecordView>();

  constructor(
    readonly store: StoreDatabase,
    readonly snapshot: SchemaSnapshot,
    readonly options: ReadOptions,
  ) {}

  view(table: TableModel, row: RecordRow): RecordView {
    let view = this.#views.get(row.id);
    if (!view || view.row !== row) {
      view = new RecordView(this, table, row);
      // Only views reached through links are worth keeping; a scan's own records are read once.
      if (this.#views.size < 100_000) this.#views.set(row.id, view);
    }
    return view;
  }

  /** A fresh view that is not memoized, for one pass over many records. */
  transientView(table: TableModel, row: RecordRow): RecordView {
    return this.#views.get(row.id) ?? new RecordView(this, table, row);
  }

  linkedViews(field: FieldRow, row: RecordRow): RecordView[] {
    const linkedTable = this.snapshot.tableById.get(String(field.options?.linkedTableId ?? ''));
    const ids = row.cells[field.id];
    if (!linkedTable || !Array.isArray(ids)) return [];
    const out: RecordView[] = [];
    for (const id of ids) {
      const linked = typeof id === 'string' ? this.store.record(linkedTable.row.id, id) : undefined;
      if (linked) out.push(this.view(linkedTable, linked));
    }
    return out;
  }
}

/** Types whose stored cell is already the API's JSON cell, so the formula engine can read it directly. */
const PLAIN_TYPES = new Set<string>([
  ...TEXT_FIELD_TYPES,
  ...NUMBER_FIELD_TYPES,
  'checkbox',
  'singleSelect',
  'multipleSelects',
  'date',
  'dateTime',
  'barcode',
]);

export class RecordView {
  // Created on first use: a filter over tens of thousands of records mostly reads plain cells, memo-free.
  #jsonMemo: Map<string, unknown> | undefined;
  #valueMemo: Map<string, FormulaValue> | undefined;
  #busySet: Set<string> | undefined;

  constructor(
    readonly reader: Reader,
    readonly table: TableModel,
    readonly row: RecordRow,
  ) {}

  get id(): string {
    return this.row.id;
  }

  get #json(): Map<string, unknown> {
    this.#jsonMemo ??= new Map();
    return this.#jsonMemo;
  }

  get #values(): Map<string, FormulaValue> {
    this.#valueMemo ??= new Map();
    return this.#valueMemo;
  }

  get #busy(): Set<string> {
    this.#busySet ??= new Set();
    return this.#busySet;
  }

  /** The cell in the API's JSON format; undefined when empty. */
  json(fieldId: string): unknown {
    if (this.#jsonMemo?.has(fieldId)) return this.#jsonMemo.get(fieldId);
    const field = this.table.fieldById.get(fieldId);
    let value: unknown;
    if (!field) value = undefined;
    else if (this.#busy.has(fieldId)) value = { error: '#ERROR!' };
    else {
      this.#busy.add(fieldId);
      try {
        value = this.#computeJson(field);
      } finally {
        this.#busy.delete(fieldId);
      }
    }
    this.#json.set(fieldId, value);
    return value;
  }

  /** The cell as the formula engine sees it (`{Field}` in a formula). */
  value(fieldId: string): FormulaValue {
    if (this.#valueMemo?.has(fieldId)) return this.#valueMemo.get(fieldId) ?? null;
    const field = this.table.fieldById.get(fieldId);
    if (field && PLAIN_TYPES.has(field.type)) return cellToFormulaValue(field.type, this.row.cells[fieldId]);
    let value: FormulaValue;
    if (!field) value = null;
    else if (this.#busy.has(`v:${fieldId}`)) value = new FormulaErrorValue('#ERROR!', 'circular reference');
    else {
      this.#busy.add(`v:${fieldId}`);
      try {
        value = this.#computeValue(field);
      } finally {
        this.#busy.delete(`v:${fieldId}`);
      }
    }
    this.#values.set(fieldId, value);
    return value;
  }

  /** The primary field as text: what a link to this record shows. */
  primaryText(): string {
    return valueText(this.value(this.table.primaryField.id));
  }

  lastModified(referenced: readonly string[] | undefined): { time: string; userId: string } | undefined {
    const ids = referenced && referenced.length > 0 ? referenced : undefined;
    let best: { time: string; userId: string } | undefined;
    for (const [fieldId, [time, userId]] of Object.entries(this.row.modified)) {
      if (ids && !ids.includes(fieldId)) continue;
      if (!best || time > best.time) best = { time, userId };
    }
    if (!best && !ids) return { time: this.row.createdTime, userId: this.row.createdBy };
    return best;
  }

  #computeValue(field: FieldRow): FormulaValue {
    switch (field.type) {
      case 'formula':
        return this.#evaluateFormula(field);
      case 'rollup':
        return this.#rollup(field);
      case 'multipleRecordLinks': {
        const links = this.reader
          .linkedViews(field, this.row)
          .map((v) => ({ id: v.id, name: v.primaryText() }));
        return cellToFormulaValue(field.type, links);
      }
      case 'multipleLookupValues':
        return this.#lookupViews(field).flatMap(({ view, fieldId }) => {
          const v = view.value(fieldId);
          return Array.isArray(v) ? v : [v];
        });
      default:
        return cellToFormulaValue(field.type, this.json(field.id));
    }
  }

  #evaluateFormula(field: FieldRow): FormulaValue {
    const state = formulaState(this.table, field.id);
    if (!state?.ok) return new FormulaErrorValue('#ERROR!', state?.reason);
    const lastModified = this.lastModified(undefined);
    return state.formula.evaluate({
      field: (id) => this.value(id),
      now: this.reader.options.now,
      recordId: this.row.id,
      createdTime: new Date(this.row.createdTime),
      ...(lastModified ? { lastModifiedTime: new Date(lastModified.time) } : {}),
    });
  }

  #lookupViews(field: FieldRow): { view: RecordView; fieldId: string }[] {
    const linkField = this.table.fieldById.get(String(field.options?.recordLinkFieldId ?? ''));
    const target = String(field.options?.fieldIdInLinkedTable ?? '');
    if (linkField?.type !== 'multipleRecordLinks') return [];
    return this.reader.linkedViews(linkField, this.row).map((view) => ({ view, fieldId: target }));
  }

  #rollup(field: FieldRow): FormulaValue {
    const source =
      typeof field.options?.aggregation === 'string' ? field.options.aggregation : 'ARRAYJOIN(values)';
    const compiled = aggregation(source);
    if (!compiled) return new FormulaErrorValue('#ERROR!', 'invalid rollup aggregation');
    const values = this.#lookupViews(field).flatMap(({ view, fieldId }) => {
      const v = view.value(fieldId);
      return Array.isArray(v) ? v : [v];
    });
    return compiled.evaluate({
      field: (id) => (id === ROLLUP_VALUES_ID ? values : null),
      now: this.reader.options.now,
      recordId: this.row.id,
      createdTime: new Date(this.row.createdTime),
    });
  }

  #computeJson(field: FieldRow): unknown {
    const { snapshot, options } = this.reader;
    if (isWritable(field.type))
      return storedToJson(field, this.row.cells[field.id], snapshot, options.origin);
    switch (field.type) {
      case 'formula':
      case 'rollup': {
        const cell = formulaValueToCell(this.value(field.id));
        return cell === null ? undefined : cell;
      }
      case 'createdTime':
        return this.row.createdTime;
      case 'lastModifiedTime':
        return this.lastModified(referencedIds(field))?.time;
      case 'autoNumber':
        return this.row.autoNumber;
      case 'createdBy':
        return collaboratorJson(snapshot, this.row.createdBy);
      case 'lastModifiedBy': {
        const last = this.lastModified(referencedIds(field));
        return last ? collaboratorJson(snapshot, last.userId) : undefined;
      }
      case 'count': {
        const linkField = this.table.fieldById.get(String(field.options?.recordLinkFieldId ?? ''));
        return linkField ? this.reader.linkedViews(linkField, this.row).length : 0;
      }
      case 'multipleLookupValues': {
        const items: unknown[] = [];
        for (const { view, fieldId } of this.#lookupViews(field)) {
          const cell = view.json(fieldId);
          if (cell === undefined || cell === null) continue;
          if (Array.isArray(cell)) items.push(...cell);
          else items.push(cell);
        }
        return items;
      }
      default:
        // Types the emulator does not compute (button, aiText, ...) read as empty.
        return undefined;
    }
  }
}

function referencedIds(field: FieldRow): string[] | undefined {
  const ids = field.options?.referencedFieldIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : undefined;
}

/** Every non-empty cell of a record in the API's JSON format, keyed by field id (the change feed's form). */
export function allCells(view: RecordView): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of view.table.fields) {
    const cell = view.json(field.id);
    if (!isEmptyJson(cell)) out[field.id] = cell;
  }
  return out;
}

export function isEmptyJson(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === '' ||
    value === false ||
    (Array.isArray(value) && value.length === 0) ||
    (isRecordObject(value) && Object.keys(value as JsonObject).length === 0)
  );
}
