/**
 * Writing records: create, update (merge or replace), upsert and delete, with the API's rules. A request is
 * first planned without touching the database (every cell checked, typecast applied, select options and linked
 * records to create collected, inverse links worked out), so a failing record fails the whole request and
 * nothing is half-written; the plan is then applied in one transaction, and the change events are published.
 */
import { err, ok, type Result } from '../../../emulation/result.js';
import type { ChangeEvent, ChangeHub, ChangeKind, ChangeSource } from './changes.js';
import { allCells, Reader } from './compute.js';
import type { StoreDatabase, TableModel } from './database.js';
import { errors, type StoreError } from './errors.js';
import {
  type CellContext,
  emptyPlan,
  isRecordObject,
  isWritable,
  MERGE_FIELD_TYPES,
  normalizeCell,
  type WritePlan,
} from './fields.js';
import type { FieldRow, JsonObject, RecordRow } from './model.js';
import { resolveField } from './query.js';

export interface Actor {
  userId: string;
  source: ChangeSource;
}

export interface WriteDeps {
  store: StoreDatabase;
  hub: ChangeHub;
  now(): Date;
  origin: string;
}

export interface RecordInput {
  id?: string;
  fields: JsonObject;
}

export interface WriteOptions {
  typecast: boolean;
}

interface Staged {
  table: TableModel;
  before: RecordRow | undefined;
  after: RecordRow | undefined;
}

function sameCell(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function linkIds(cell: unknown): string[] {
  return Array.isArray(cell) ? cell.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * One request's changes to records, staged in memory. Reads see staged rows first, so later records of the
 * same request see the earlier ones' effects (inverse links, upserted records, typecast-created records).
 */
export class Mutation {
  readonly plan: WritePlan = emptyPlan();
  readonly #staged = new Map<string, Staged>();
  readonly #order: string[] = [];
  readonly #primaryIndex = new Map<string, Map<string, string>>();
  readonly #reader: Reader;
  readonly #nowIso: string;

  constructor(
    readonly deps: WriteDeps,
    readonly actor: Actor,
    readonly base: { id: string },
  ) {
    const store = deps.store;
    const now = deps.now();
    this.#nowIso = now.toISOString();
    this.#reader = new Reader(store, store.schema(), { now, origin: deps.origin });
  }

  get snapshot() {
    return this.#reader.snapshot;
  }

  get nowIso(): string {
    return this.#nowIso;
  }

  current(table: TableModel, recordId: string): RecordRow | undefined {
    const staged = this.#staged.get(recordId);
    if (staged) return staged.after;
    return this.deps.store.record(table.row.id, recordId);
  }

  exists(tableId: string, recordId: string): boolean {
    const table = this.snapshot.tableById.get(tableId);
    return table !== undefined && this.current(table, recordId) !== undefined;
  }

  #stage(table: TableModel, recordId: string, after: RecordRow | undefined): void {
    const existing = this.#staged.get(recordId);
    if (existing) {
      existing.after = after;
      return;
    }
    this.#staged.set(recordId, { table, before: this.deps.store.record(table.row.id, recordId), after });
    this.#order.push(recordId);
  }

  #findByPrimaryText(tableId: string, text: string): string | undefined {
    let index = this.#primaryIndex.get(tableId);
    const table = this.snapshot.tableById.get(tableId);
    if (!table) return undefined;
    if (!index) {
      index = new Map();
      for (const row of this.deps.store.records(tableId)) {
        const name = this.#reader.transientView(table, row).primaryText();
        if (!index.has(name)) index.set(name, row.id);
      }
      this.#primaryIndex.set(tableId, index);
    }
    const id = index.get(text);
    return id !== undefined && this.current(table, id) ? id : undefined;
  }

  #cellContext(current: unknown, typecast: boolean): CellContext {
    return {
      typecast,
      snapshot: this.snapshot,
      plan: this.plan,
      current,
      newId: (kind) => this.deps.store.newId(kind),
      recordExists: (tableId, id) => this.exists(tableId, id),
      findByPrimaryText: (tableId, text) => this.#findByPrimaryText(tableId, text),
    };
  }

  /** Checks a `fields` object and returns the stored cells it sets (undefined: cleared), by field id. */
  normalizeFields(
    table: TableModel,
    fields: JsonObject,
    existing: RecordRow | undefined,
    typecast: boolean,
  ): Result<Map<string, unknown>, StoreError> {
    const out = new Map<string, unknown>();
    for (const [key, value] of Object.entries(fields)) {
      const field = resolveField(table, key);
      if (!field) return err(errors.unknownFieldName(key));
      if (!isWritable(field.type)) return err(errors.computedField(field.name));
      const normalized = normalizeCell(field, value, this.#cellContext(existing?.cells[field.id], typecast));
      if (!normalized.ok) return normalized;
      out.set(field.id, normalized.value);
    }
    // Records typecast asked for are staged now, so the inverse links of this record can reach them.
    const planned = this.#stagePlannedRecords();
    return planned.ok ? ok(out) : planned;
  }

  /** Stages a new record with the given stored cells; returns its id. */
  stageCreate(table: TableModel, cells: Map<string, unknown>, id = this.deps.store.newId('record')): string {
    const row: RecordRow = {
      id,
      tableId: table.row.id,
      createdTime: this.#nowIso,
      createdBy: this.actor.userId,
      autoNumber: 0,
      cells: {},
      modified: {},
    };
    this.#stage(table, id, row);
    this.#applyCells(table, row, cells, false);
    return id;
  }

  /** Stages new cell values on an existing record; `replace` clears every writable cell not given. */
  stageUpdate(table: TableModel, row: RecordRow, cells: Map<string, unknown>, replace: boolean): void {
    this.#applyCells(table, row, cells, replace);
  }

  stageDelete(table: TableModel, row: RecordRow): void {
    this.#stage(table, row.id, undefined);
    for (const field of table.fields) {
      if (field.type === 'multipleRecordLinks') this.#relink(field, row.id, linkIds(row.cells[field.id]), []);
    }
    // Self-links have no inverse field: the deleted id is taken out of the other records' cells directly.
    for (const field of table.fields) {
      if (field.type !== 'multipleRecordLinks' || field.options?.inverseLinkFieldId) continue;
      if (field.options?.linkedTableId !== table.row.id) continue;
      for (const other of this.deps.store.records(table.row.id)) {
        const current = this.current(table, other.id);
        if (!current || !linkIds(current.cells[field.id]).includes(row.id)) continue;
        this.#setCell(
          table,
          current,
          field.id,
          linkIds(current.cells[field.id]).filter((id) => id !== row.id),
        );
      }
    }
  }

  #applyCells(table: TableModel, row: RecordRow, cells: Map<string, unknown>, replace: boolean): void {
    const targets = new Map(cells);
    if (replace) {
      for (const field of table.fields) {
        if (isWritable(field.type) && !targets.has(field.id)) targets.set(field.id, undefined);
      }
    }
    let current = this.current(table, row.id) ?? row;
    for (const [fieldId, value] of targets) {
      const field = table.fieldById.get(fieldId);
      if (!field) continue;
      const before = current.cells[fieldId];
      if (sameCell(before, value)) continue;
      current = this.#setCell(table, current, fieldId, value);
      if (field.type === 'multipleRecordLinks') this.#relink(field, row.id, linkIds(before), linkIds(value));
    }
  }

  #setCell(table: TableModel, row: RecordRow, fieldId: string, value: unknown): RecordRow {
    const cells = { ...row.cells };
    if (value === undefined || (Array.isArray(value) && value.length === 0)) delete cells[fieldId];
    else cells[fieldId] = value;
    const next: RecordRow = {
      ...row,
      cells,
      modified: { ...row.modified, [fieldId]: [this.#nowIso, this.actor.userId] },
    };
    this.#stage(table, row.id, next);
    return next;
  }

  /** Keeps the inverse link field of the linked table in step with a change to a link cell. */
  #relink(field: FieldRow, recordId: string, before: string[], after: string[]): void {
    const inverseId = field.options?.inverseLinkFieldId;
    const linked = this.snapshot.tableById.get(String(field.options?.linkedTableId ?? ''));
    if (typeof inverseId !== 'string' || !linked || !linked.fieldById.has(inverseId)) return;
    const added = after.filter((id) => !before.includes(id));
    const removed = before.filter((id) => !after.includes(id));
    for (const id of added) {
      const other = this.current(linked, id);
      if (!other) continue;
      const cell = linkIds(other.cells[inverseId]);
      if (!cell.includes(recordId)) this.#setCell(linked, other, inverseId, [...cell, recordId]);
    }
    for (const id of removed) {
      const other = this.current(linked, id);
      if (!other) continue;
      const cell = linkIds(other.cells[inverseId]);
      if (cell.includes(recordId))
        this.#setCell(
          linked,
          other,
          inverseId,
          cell.filter((x) => x !== recordId),
        );
    }
  }

  /** Creates the records typecast asked for in linked tables (their primary field set to the text). */
  #stagePlannedRecords(): Result<void, StoreError> {
    for (const planned of this.plan.newLinkedRecords) {
      if (this.#staged.has(planned.id)) continue;
      const table = this.snapshot.tableById.get(planned.tableId);
      if (!table) continue;
      const primary = table.primaryField;
      const cells = new Map<string, unknown>();
      if (isWritable(primary.type)) {
        const value = normalizeCell(primary, planned.primaryText, this.#cellContext(undefined, true));
        if (!value.ok) return value;
        cells.set(primary.id, value.value);
      }
      this.stageCreate(table, cells, planned.id);
    }
    return ok(undefined);
  }

  /**
   * Applies everything staged in one transaction and publishes the events (one transaction number for all).
   * Returns the affected rows as stored, by id.
   */
  commit(): Result<Map<string, RecordRow>, StoreError> {
    const { store, hub } = this.deps;
    const previous = new Map<string, Record<string, unknown>>();
    for (const id of this.#order) {
      const staged = this.#staged.get(id);
      if (staged?.before) previous.set(id, allCells(this.#reader.view(staged.table, staged.before)));
    }
    let transactionNumber = 0;
    const written = new Map<string, RecordRow>();
    store.transaction(() => {
      for (const [fieldId, choices] of this.plan.newChoices) {
        const found = this.snapshot.fieldById.get(fieldId);
        if (!found || choices.length === 0) continue;
        const existing = Array.isArray(found.field.options?.choices) ? found.field.options.choices : [];
        store.updateField({
          ...found.field,
          options: { ...found.field.options, choices: [...existing, ...choices] },
        });
      }
      for (const id of this.#order) {
        const staged = this.#staged.get(id);
        if (!staged) continue;
        if (!staged.after) {
          if (staged.before) store.deleteRecord(staged.table.row.id, id);
          continue;
        }
        if (!staged.before) {
          const row = { ...staged.after, autoNumber: store.nextAutoNumber(staged.table.row.id) };
          store.insertRecord(row);
          written.set(id, row);
        } else {
          store.updateRecord(staged.after);
          written.set(id, staged.after);
        }
      }
      if (this.#order.length > 0 || this.plan.newChoices.size > 0) {
        transactionNumber = store.nextTransactionNumber(this.base.id);
      }
    });
    if (transactionNumber > 0) this.#publish(hub, transactionNumber, previous);
    return ok(written);
  }

  #publish(hub: ChangeHub, transactionNumber: number, previous: Map<string, Record<string, unknown>>): void {
    const reader = new Reader(this.deps.store, this.deps.store.schema(), {
      now: new Date(this.#nowIso),
      origin: this.deps.origin,
    });
    const events: ChangeEvent[] = [];
    const common = {
      baseId: this.base.id,
      transactionNumber,
      timestamp: this.#nowIso,
      source: this.actor.source,
      userId: this.actor.userId,
    };
    for (const [fieldId] of this.plan.newChoices) {
      const found = this.snapshot.fieldById.get(fieldId);
      const now = reader.snapshot.fieldById.get(fieldId);
      if (!found || !now) continue;
      events.push({
        ...common,
        kind: 'fieldChanged',
        tableId: found.table.row.id,
        fieldId,
        currentMetadata: { name: now.field.name, type: now.field.type, options: now.field.options },
        previousMetadata: { name: found.field.name, type: found.field.type, options: found.field.options },
      });
    }
    for (const id of this.#order) {
      const staged = this.#staged.get(id);
      if (!staged) continue;
      const table = reader.snapshot.tableById.get(staged.table.row.id) ?? staged.table;
      let kind: ChangeKind;
      if (!staged.after && !staged.before) continue;
      if (!staged.after) kind = 'recordDestroyed';
      else if (!staged.before) kind = 'recordCreated';
      else kind = 'recordChanged';
      const row = staged.after ? this.deps.store.record(table.row.id, id) : undefined;
      events.push({
        ...common,
        kind,
        tableId: table.row.id,
        recordId: id,
        ...(row ? { current: allCells(reader.view(table, row)) } : {}),
        ...(previous.has(id) ? { previous: previous.get(id) } : {}),
      });
    }
    hub.publish(events);
  }
}

// --- the operations ----------------------------------------------------------------------------------------

/** Commits what `m` staged; `value` is the operation's answer when that succeeds. */
function commitWith<T>(m: Mutation, value: T): Result<T, StoreError> {
  const committed = m.commit();
  return committed.ok ? ok(value) : committed;
}

/** Stages the update of record `id` (it must exist) with `fields`; answers its id. */
function stageUpdateOf(
  m: Mutation,
  table: TableModel,
  id: string,
  fields: JsonObject,
  options: WriteOptions & { replace: boolean },
): Result<string, StoreError> {
  const row = m.current(table, id);
  if (!row) return err(errors.recordNotFound(id));
  const cells = m.normalizeFields(table, fields, row, options.typecast);
  if (!cells.ok) return cells;
  m.stageUpdate(table, row, cells.value, options.replace);
  return ok(row.id);
}

export interface UpsertResult {
  ids: string[];
  createdRecords: string[];
  updatedRecords: string[];
}

export function createRecords(
  m: Mutation,
  table: TableModel,
  inputs: readonly RecordInput[],
  options: WriteOptions,
): Result<string[], StoreError> {
  const ids: string[] = [];
  for (const input of inputs) {
    const cells = m.normalizeFields(table, input.fields, undefined, options.typecast);
    if (!cells.ok) return cells;
    ids.push(m.stageCreate(table, cells.value));
  }
  return commitWith(m, ids);
}

export function updateRecords(
  m: Mutation,
  table: TableModel,
  inputs: readonly RecordInput[],
  options: WriteOptions & { replace: boolean },
): Result<string[], StoreError> {
  const ids: string[] = [];
  for (const input of inputs) {
    if (typeof input.id !== 'string') return err(errors.invalidRecords());
    const updated = stageUpdateOf(m, table, input.id, input.fields, options);
    if (!updated.ok) return updated;
    ids.push(updated.value);
  }
  return commitWith(m, ids);
}

/**
 * performUpsert: a record without an id is matched on `fieldsToMergeOn` (by its stored value, after typecast):
 * no match creates it, one match updates that record, several fail the request. Records with an id are plain
 * updates. Matching sees records created earlier in the same request.
 */
export function upsertRecords(
  m: Mutation,
  table: TableModel,
  inputs: readonly RecordInput[],
  options: WriteOptions & { replace: boolean; fieldsToMergeOn: readonly string[] },
): Result<UpsertResult, StoreError> {
  const mergeFields: FieldRow[] = [];
  for (const name of options.fieldsToMergeOn) {
    const field = resolveField(table, name);
    if (!field) return err(errors.unknownFieldName(name));
    if (!MERGE_FIELD_TYPES.has(field.type)) {
      return err(
        errors.invalidRequest(
          `performUpsert.fieldsToMergeOn: field "${field.name}" is a ${field.type} field; merge fields must be text, long text, number, single select, multiple select or date fields.`,
        ),
      );
    }
    if (!mergeFields.includes(field)) mergeFields.push(field);
  }
  const result: UpsertResult = { ids: [], createdRecords: [], updatedRecords: [] };
  const createdHere: string[] = [];
  for (const [index, input] of inputs.entries()) {
    if (typeof input.id === 'string') {
      const updated = stageUpdateOf(m, table, input.id, input.fields, options);
      if (!updated.ok) return updated;
      result.ids.push(updated.value);
      result.updatedRecords.push(updated.value);
      continue;
    }
    const cells = m.normalizeFields(table, input.fields, undefined, options.typecast);
    if (!cells.ok) return cells;
    const keys: [string, unknown][] = [];
    for (const field of mergeFields) {
      if (!cells.value.has(field.id)) {
        return err(
          errors.invalidRequest(
            `records[${index}]: the fields of an upserted record must include every field of performUpsert.fieldsToMergeOn ("${field.name}" is missing).`,
          ),
        );
      }
      keys.push([field.id, cells.value.get(field.id)]);
    }
    const candidates = [...m.deps.store.records(table.row.id).map((r) => r.id), ...createdHere];
    const matched: RecordRow[] = [];
    for (const id of candidates) {
      const row = m.current(table, id);
      if (row && keys.every(([fieldId, value]) => sameCell(row.cells[fieldId], value))) matched.push(row);
    }
    if (matched.length > 1) {
      const described = mergeFields.map((f) => f.name).join(', ');
      return err(
        errors.invalidRequest(
          `records[${index}]: ${matched.length} records match on ${described}; performUpsert needs at most one match.`,
        ),
      );
    }
    const match = matched[0];
    if (match) {
      m.stageUpdate(table, match, cells.value, options.replace);
      result.ids.push(match.id);
      if (!result.updatedRecords.includes(match.id) && !result.createdRecords.includes(match.id)) {
        result.updatedRecords.push(match.id);
      }
    } else {
      const id = m.stageCreate(table, cells.value);
      createdHere.push(id);
      result.ids.push(id);
      result.createdRecords.push(id);
    }
  }
  return commitWith(m, result);
}

export function deleteRecords(
  m: Mutation,
  table: TableModel,
  ids: readonly string[],
): Result<string[], StoreError> {
  const unique = [...new Set(ids)];
  for (const id of unique) {
    const row = m.current(table, id);
    if (!row) return err(errors.recordNotFound(id));
    m.stageDelete(table, row);
  }
  return commitWith(m, unique);
}

/** Reads `{records: [{id?, fields}]}` items after schema validation, defensively. */
export function recordInputs(raw: unknown): RecordInput[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: RecordInput[] = [];
  for (const item of raw) {
    if (!isRecordObject(item)) return undefined;
    const fields = item.fields ?? {};
    if (!isRecordObject(fields)) return undefined;
    if (item.id !== undefined && typeof item.id !== 'string') return undefined;
    out.push({ ...(typeof item.id === 'string' ? { id: item.id } : {}), fields });
  }
  return out;
}
