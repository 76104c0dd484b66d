/**
 * The schema side of the data plane: bases, tables, fields and views as the metadata API shows them (the
 * shapes of store-samples BaseSchema, TableSchema and ViewSchema), and the schema changes the API allows:
 * create a base or a table (each with a "Grid view"), rename or describe a table or field, add a field (a link
 * field gets its inverse in the linked table), delete a view or a base. Change events are published here too.
 */
import { err, ok, type Result } from '../../../emulation/result.js';
import type { ChangeEvent, ChangeHub, ChangeKind } from './changes.js';
import { formulaState } from './compute.js';
import type { SchemaSnapshot, StoreDatabase, TableModel } from './database.js';
import { errors, type StoreError } from './errors.js';
import { CREATABLE_TYPES, isRecordObject, KNOWN_TYPES, normalizeFieldOptions } from './fields.js';
import type { BaseRow, FieldRow, JsonObject, TableRow, ViewRow } from './model.js';
import type { Actor } from './records.js';
import { FIELD_DESCRIPTION_MAX, PRIMARY_FIELD_TYPES } from './requestBodies.js';

export const DEFAULT_VIEW_NAME = 'Grid view';

/** Option keys the emulator keeps for itself (how a rollup aggregates); never shown. */
const INTERNAL_OPTION_KEYS = new Set(['aggregation']);

// --- JSON shapes ---------------------------------------------------------------------------------------------

function publicOptions(field: FieldRow): JsonObject | undefined {
  if (!field.options) return undefined;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(field.options)) if (!INTERNAL_OPTION_KEYS.has(k)) out[k] = v;
  return out;
}

/** A lookup's result: the looked-up field's type, and its options when it has any. */
function lookupResult(target: FieldRow): JsonObject {
  const options = publicOptions(target);
  return { type: target.type, ...(options && Object.keys(options).length > 0 ? { options } : {}) };
}

function computedOptions(
  field: FieldRow,
  table: TableModel,
  snapshot: SchemaSnapshot,
): JsonObject | undefined {
  const stored = publicOptions(field) ?? {};
  switch (field.type) {
    case 'formula': {
      const state = formulaState(table, field.id);
      return {
        formula: stored.formula ?? '',
        isValid: state?.ok ?? false,
        referencedFieldIds: state?.ok ? state.formula.referencedFieldIds : [],
        result: state?.ok ? { type: state.formula.resultType } : null,
      };
    }
    case 'count': {
      const link = table.fieldById.get(String(stored.recordLinkFieldId ?? ''));
      return {
        isValid: link?.type === 'multipleRecordLinks',
        recordLinkFieldId: stored.recordLinkFieldId ?? null,
      };
    }
    case 'multipleLookupValues':
    case 'rollup': {
      const link = table.fieldById.get(String(stored.recordLinkFieldId ?? ''));
      const linked = snapshot.tableById.get(String(link?.options?.linkedTableId ?? ''));
      const target = linked?.fieldById.get(String(stored.fieldIdInLinkedTable ?? ''));
      const isValid = link?.type === 'multipleRecordLinks' && target !== undefined;
      const result =
        field.type === 'rollup'
          ? isRecordObject(stored.result)
            ? stored.result
            : { type: 'number' }
          : target
            ? lookupResult(target)
            : null;
      return {
        fieldIdInLinkedTable: stored.fieldIdInLinkedTable ?? null,
        recordLinkFieldId: stored.recordLinkFieldId ?? null,
        result,
        isValid,
        ...(field.type === 'rollup' ? { referencedFieldIds: target ? [target.id] : [] } : {}),
      };
    }
    default:
      return publicOptions(field);
  }
}

/** A field as the metadata API shows it: `{id, name, type, description?, options?}`. */
export function fieldJson(field: FieldRow, table: TableModel, snapshot: SchemaSnapshot): JsonObject {
  const options = computedOptions(field, table, snapshot);
  return {
    id: field.id,
    name: field.name,
    type: field.type,
    ...(field.description ? { description: field.description } : {}),
    ...(options && Object.keys(options).length > 0 ? { options } : {}),
  };
}

export function visibleFieldIds(view: ViewRow, table: TableModel): string[] {
  return table.fields.filter((f) => !view.hiddenFieldIds.includes(f.id)).map((f) => f.id);
}

/** A view: `{id, name, type, personalForUserId?, visibleFieldIds?}`; visibleFieldIds only for grid views. */
export function viewJson(view: ViewRow, table: TableModel, includeVisibleFieldIds: boolean): JsonObject {
  return {
    id: view.id,
    name: view.name,
    type: view.type,
    ...(view.personalForUserId ? { personalForUserId: view.personalForUserId } : {}),
    ...(includeVisibleFieldIds && view.type === 'grid'
      ? { visibleFieldIds: visibleFieldIds(view, table) }
      : {}),
  };
}

export function tableJson(
  table: TableModel,
  snapshot: SchemaSnapshot,
  includeVisibleFieldIds: boolean,
): JsonObject {
  return {
    id: table.row.id,
    name: table.row.name,
    ...(table.row.description ? { description: table.row.description } : {}),
    primaryFieldId: table.row.primaryFieldId,
    fields: table.fields.map((f) => fieldJson(f, table, snapshot)),
    views: table.views.map((v) => viewJson(v, table, includeVisibleFieldIds)),
    ...(table.row.dateDependencySettings ? { dateDependencySettings: table.row.dateDependencySettings } : {}),
  };
}

function fieldMetadata(field: FieldRow, table: TableModel, snapshot: SchemaSnapshot): JsonObject {
  const json = fieldJson(field, table, snapshot);
  return {
    name: json.name,
    type: json.type,
    ...(json.description === undefined ? {} : { description: json.description }),
    ...(json.options === undefined ? {} : { options: json.options }),
  };
}

function tableMetadata(table: TableRow): JsonObject {
  return { name: table.name, ...(table.description ? { description: table.description } : {}) };
}

// --- inputs ----------------------------------------------------------------------------------------------------

export interface FieldInput {
  name: string;
  type: string;
  description?: string;
  options?: unknown;
}

export interface TableInput {
  name: string;
  description?: string;
  fields: FieldInput[];
}

function checkDescription(description: unknown, what: string): StoreError | undefined {
  if (description === undefined) return undefined;
  if (
    typeof description !== 'string' ||
    description.length === 0 ||
    description.length > FIELD_DESCRIPTION_MAX
  ) {
    return errors.invalidRequest(
      `${what} description, if present, must be a non-empty string of at most ${FIELD_DESCRIPTION_MAX} characters.`,
    );
  }
  return undefined;
}

function sameName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** Reads `{name, type, description?, options?}` defensively (the body schemas have already run). */
export function fieldInputOf(raw: unknown): FieldInput | undefined {
  if (!isRecordObject(raw) || typeof raw.name !== 'string' || typeof raw.type !== 'string') return undefined;
  return {
    name: raw.name,
    type: raw.type,
    ...(raw.description === undefined ? {} : { description: raw.description as string }),
    ...(raw.options === undefined ? {} : { options: raw.options }),
  };
}

export function tableInputOf(raw: unknown): TableInput | undefined {
  if (!isRecordObject(raw) || typeof raw.name !== 'string' || !Array.isArray(raw.fields)) return undefined;
  const fields: FieldInput[] = [];
  for (const f of raw.fields) {
    const field = fieldInputOf(f);
    if (!field) return undefined;
    fields.push(field);
  }
  return {
    name: raw.name,
    ...(raw.description === undefined ? {} : { description: raw.description as string }),
    fields,
  };
}

// --- operations --------------------------------------------------------------------------------------------------

export interface SchemaDeps {
  store: StoreDatabase;
  hub: ChangeHub;
  now(): Date;
}

interface PendingEvent {
  kind: ChangeKind;
  tableId: string;
  fieldId?: string;
  viewId?: string;
  currentMetadata?: JsonObject;
  previousMetadata?: JsonObject;
}

function publish(
  deps: SchemaDeps,
  actor: Actor,
  baseId: string,
  at: string,
  txn: number,
  pending: PendingEvent[],
) {
  const events: ChangeEvent[] = pending.map((p) => ({
    baseId,
    transactionNumber: txn,
    timestamp: at,
    source: actor.source,
    userId: actor.userId,
    ...p,
  }));
  deps.hub.publish(events);
}

/**
 * Makes a schema change: `write` (given the change's time) runs in one transaction that then takes the base's
 * next transaction number, and the events `events` reads off the schema as it is afterwards go out with that
 * number and time. Returns that schema.
 */
function commit(
  deps: SchemaDeps,
  actor: Actor,
  baseId: string,
  write: (at: string) => void,
  events: (after: SchemaSnapshot) => PendingEvent[],
): SchemaSnapshot {
  const at = deps.now().toISOString();
  let txn = 0;
  deps.store.transaction(() => {
    write(at);
    txn = deps.store.nextTransactionNumber(baseId);
  });
  const after = deps.store.schema();
  publish(deps, actor, baseId, at, txn, events(after));
  return after;
}

function fieldCreated(field: FieldRow, table: TableModel, snapshot: SchemaSnapshot): PendingEvent {
  return {
    kind: 'fieldCreated',
    tableId: table.row.id,
    fieldId: field.id,
    currentMetadata: fieldMetadata(field, table, snapshot),
  };
}

interface PlannedField {
  row: FieldRow;
  /** The inverse field this link field needs in its linked table. */
  inverse?: FieldRow;
}

/** Checks one new field against its table (names taken so far) and plans it, with its inverse for links. */
function planField(
  deps: SchemaDeps,
  snapshot: SchemaSnapshot,
  baseId: string,
  table: { id: string; name: string },
  existingNames: string[],
  input: FieldInput,
  primary: boolean,
  reservedNames: Map<string, string[]>,
): Result<PlannedField, StoreError> {
  const name = input.name;
  if (name.trim() === '' || existingNames.some((n) => sameName(n, name))) {
    return err(errors.duplicateFieldName(name));
  }
  const badDescription = checkDescription(input.description, 'A field');
  if (badDescription) return err(badDescription);
  if (!KNOWN_TYPES.has(input.type)) {
    return err(errors.invalidRequest(`Unknown field type "${input.type}".`));
  }
  if (!CREATABLE_TYPES.includes(input.type))
    return err(errors.unsupportedFieldType(input.type, CREATABLE_TYPES));
  if (primary && !(PRIMARY_FIELD_TYPES as readonly string[]).includes(input.type)) {
    return err(
      errors.invalidRequest(`A ${input.type} field cannot be the primary (first) field of a table.`),
    );
  }
  const options = normalizeFieldOptions(input.type, input.options, {
    snapshot,
    table: snapshot.tableById.get(table.id),
    baseId,
    newChoiceId: () => deps.store.newId('choice'),
  });
  if (!options.ok) return options;
  const row: FieldRow = {
    id: deps.store.newId('field'),
    tableId: table.id,
    name,
    type: input.type,
    description: input.description ?? null,
    options: options.value,
  };
  if (input.type !== 'multipleRecordLinks' || !options.value) return ok({ row });
  const linked = snapshot.tableById.get(String(options.value.linkedTableId));
  if (!linked || linked.row.id === table.id) return ok({ row });
  // The inverse is named after the table the link comes from, numbered if that name is taken.
  const taken = [...linked.fields.map((f) => f.name), ...(reservedNames.get(linked.row.id) ?? [])];
  let inverseName = table.name;
  for (let n = 2; taken.some((t) => sameName(t, inverseName)); n++) inverseName = `${table.name} ${n}`;
  reservedNames.set(linked.row.id, [...(reservedNames.get(linked.row.id) ?? []), inverseName]);
  const inverse: FieldRow = {
    id: deps.store.newId('field'),
    tableId: linked.row.id,
    name: inverseName,
    type: 'multipleRecordLinks',
    description: null,
    options: {
      linkedTableId: table.id,
      isReversed: false,
      prefersSingleRecordLink: false,
      inverseLinkFieldId: row.id,
    },
  };
  row.options = { ...options.value, inverseLinkFieldId: inverse.id };
  return ok({ row, inverse });
}

interface PlannedTable {
  row: TableRow;
  fields: PlannedField[];
  view: ViewRow;
}

function planTable(
  deps: SchemaDeps,
  snapshot: SchemaSnapshot,
  baseId: string,
  takenTableNames: string[],
  input: TableInput,
  reservedNames: Map<string, string[]>,
): Result<PlannedTable, StoreError> {
  if (input.name.trim() === '' || takenTableNames.some((n) => sameName(n, input.name))) {
    return err(errors.duplicateTableName(input.name));
  }
  const badDescription = checkDescription(input.description, 'A table');
  if (badDescription) return err(badDescription);
  if (input.fields.length === 0) return err(errors.invalidRequest('A table needs at least one field.'));
  const id = deps.store.newId('table');
  const fields: PlannedField[] = [];
  for (const [i, fieldInput] of input.fields.entries()) {
    const planned = planField(
      deps,
      snapshot,
      baseId,
      { id, name: input.name },
      fields.map((f) => f.row.name),
      fieldInput,
      i === 0,
      reservedNames,
    );
    if (!planned.ok) return planned;
    fields.push(planned.value);
  }
  const primary = fields[0] as PlannedField;
  const row: TableRow = {
    id,
    baseId,
    name: input.name,
    description: input.description ?? null,
    primaryFieldId: primary.row.id,
    dateDependencySettings: null,
  };
  const view: ViewRow = {
    id: deps.store.newId('view'),
    tableId: id,
    name: DEFAULT_VIEW_NAME,
    type: 'grid',
    personalForUserId: null,
    sorts: [],
    filter: null,
    hiddenFieldIds: [],
  };
  return ok({ row, fields, view });
}

/** Plans new tables of a base in order, each checked against the names taken so far (`existing`, then theirs). */
function planTables(
  deps: SchemaDeps,
  snapshot: SchemaSnapshot,
  baseId: string,
  existing: readonly string[],
  inputs: readonly TableInput[],
): Result<PlannedTable[], StoreError> {
  const planned: PlannedTable[] = [];
  // Inverse link field names claimed by earlier tables of this request, per linked table.
  const reserved = new Map<string, string[]>();
  for (const input of inputs) {
    const taken = [...existing, ...planned.map((t) => t.row.name)];
    const table = planTable(deps, snapshot, baseId, taken, input, reserved);
    if (!table.ok) return table;
    planned.push(table.value);
  }
  return ok(planned);
}

function writeTable(store: StoreDatabase, planned: PlannedTable): void {
  store.insertTable(planned.row);
  for (const f of planned.fields) store.insertField(f.row);
  for (const f of planned.fields) if (f.inverse) store.insertField(f.inverse);
  store.insertView(planned.view);
}

export function createBase(
  deps: SchemaDeps,
  actor: Actor,
  input: { name: string; workspaceId: string; tables: TableInput[] },
): Result<JsonObject, StoreError> {
  const snapshot = deps.store.schema();
  if (!snapshot.workspaceById.has(input.workspaceId)) return err(errors.modelNotFound());
  if (input.name.trim() === '') return err(errors.invalidRequest('The base name cannot be empty.'));
  if (input.tables.length === 0) return err(errors.invalidRequest('A base needs at least one table.'));
  const baseId = deps.store.newId('base');
  const planned = planTables(deps, snapshot, baseId, [], input.tables);
  if (!planned.ok) return planned;
  const tablesIn = (after: SchemaSnapshot) =>
    planned.value.map((t) => after.tableById.get(t.row.id)).filter((t): t is TableModel => t !== undefined);
  const after = commit(
    deps,
    actor,
    baseId,
    (at) => {
      const base: BaseRow = { id: baseId, workspaceId: input.workspaceId, name: input.name, createdTime: at };
      deps.store.insertBase(base, [{ userId: actor.userId, level: 'create' }]);
      for (const t of planned.value) writeTable(deps.store, t);
    },
    (after) => tablesIn(after).flatMap((t) => createdEvents(t, after)),
  );
  return ok({ id: baseId, tables: tablesIn(after).map((t) => tableJson(t, after, false)) });
}

function createdEvents(table: TableModel, snapshot: SchemaSnapshot): PendingEvent[] {
  return [
    { kind: 'tableCreated', tableId: table.row.id, currentMetadata: tableMetadata(table.row) },
    ...table.fields.map((f) => fieldCreated(f, table, snapshot)),
  ];
}

export function createTable(
  deps: SchemaDeps,
  actor: Actor,
  baseId: string,
  input: TableInput,
): Result<JsonObject, StoreError> {
  const snapshot = deps.store.schema();
  const existing = (snapshot.tablesOfBase.get(baseId) ?? []).map((t) => t.row.name);
  const plans = planTables(deps, snapshot, baseId, existing, [input]);
  if (!plans.ok) return plans;
  const planned = plans.value[0] as PlannedTable;
  const tableIn = (after: SchemaSnapshot) => after.tableById.get(planned.row.id) as TableModel;
  const after = commit(
    deps,
    actor,
    baseId,
    () => writeTable(deps.store, planned),
    (after) => [
      ...createdEvents(tableIn(after), after),
      ...createdFields(
        after,
        planned.fields.flatMap((f) => (f.inverse ? [f.inverse] : [])),
      ),
    ],
  );
  return ok(tableJson(tableIn(after), after, false));
}

/** fieldCreated events for the fields of `rows` that the schema has (each in its own table). */
function createdFields(snapshot: SchemaSnapshot, rows: readonly FieldRow[]): PendingEvent[] {
  return rows.flatMap((row) => {
    const found = snapshot.fieldById.get(row.id);
    return found ? [fieldCreated(found.field, found.table, snapshot)] : [];
  });
}

const DEPENDENCY_FIELDS: readonly [string, readonly string[]][] = [
  ['startDateFieldId', ['date', 'dateTime']],
  ['endDateFieldId', ['date', 'dateTime']],
  ['durationFieldId', ['number', 'duration']],
  ['predecessorFieldId', ['multipleRecordLinks']],
];

/** The date-dependency settings' field ids must name fields of this table of fitting types. */
function checkDependencies(table: TableModel, settings: JsonObject): StoreError | undefined {
  for (const [key, types] of DEPENDENCY_FIELDS) {
    const id = settings[key];
    if (id === null || id === undefined) continue;
    const field = table.fieldById.get(String(id));
    if (!field || !types.includes(field.type)) {
      return errors.invalidRequest(
        `dateDependencySettings.${key} must be the id of a ${types.join(' or ')} field of table ${table.row.name}.`,
      );
    }
  }
  return undefined;
}

export function updateTable(
  deps: SchemaDeps,
  actor: Actor,
  table: TableModel,
  input: { name?: string; description?: string; dateDependencySettings?: JsonObject },
): Result<JsonObject, StoreError> {
  const snapshot = deps.store.schema();
  if (
    input.name === undefined &&
    input.description === undefined &&
    input.dateDependencySettings === undefined
  ) {
    return err(errors.invalidRequest('Provide a name, a description or dateDependencySettings.'));
  }
  if (input.name !== undefined) {
    const others = (snapshot.tablesOfBase.get(table.row.baseId) ?? []).filter(
      (t) => t.row.id !== table.row.id,
    );
    if (input.name.trim() === '' || others.some((t) => sameName(t.row.name, input.name as string))) {
      return err(errors.duplicateTableName(input.name));
    }
  }
  // An empty description clears it; otherwise the usual limit applies.
  if (input.description !== undefined && input.description !== '') {
    const badDescription = checkDescription(input.description, 'A table');
    if (badDescription) return err(badDescription);
  }
  if (input.dateDependencySettings !== undefined) {
    const bad = checkDependencies(table, input.dateDependencySettings);
    if (bad) return err(bad);
  }
  const next: TableRow = {
    ...table.row,
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.description === undefined
      ? {}
      : { description: input.description === '' ? null : input.description }),
    ...(input.dateDependencySettings === undefined
      ? {}
      : { dateDependencySettings: input.dateDependencySettings }),
  };
  const after = commit(
    deps,
    actor,
    table.row.baseId,
    () => deps.store.updateTable(next),
    () => [
      {
        kind: 'tableChanged',
        tableId: table.row.id,
        currentMetadata: tableMetadata(next),
        previousMetadata: tableMetadata(table.row),
      },
    ],
  );
  return ok(tableJson(after.tableById.get(table.row.id) as TableModel, after, false));
}

export function createField(
  deps: SchemaDeps,
  actor: Actor,
  table: TableModel,
  input: FieldInput,
): Result<JsonObject, StoreError> {
  const snapshot = deps.store.schema();
  const planned = planField(
    deps,
    snapshot,
    table.row.baseId,
    { id: table.row.id, name: table.row.name },
    table.fields.map((f) => f.name),
    input,
    false,
    new Map(),
  );
  if (!planned.ok) return planned;
  const rows = [planned.value.row, ...(planned.value.inverse ? [planned.value.inverse] : [])];
  const after = commit(
    deps,
    actor,
    table.row.baseId,
    () => {
      for (const row of rows) deps.store.insertField(row);
    },
    (after) => createdFields(after, rows),
  );
  const mine = after.fieldById.get(planned.value.row.id);
  return ok(mine ? fieldJson(mine.field, mine.table, after) : {});
}

export function updateField(
  deps: SchemaDeps,
  actor: Actor,
  table: TableModel,
  field: FieldRow,
  input: { name?: string; description?: string },
): Result<JsonObject, StoreError> {
  if (input.name === undefined && input.description === undefined) {
    return err(errors.invalidRequest('Provide a name, a description or both.'));
  }
  if (input.name !== undefined) {
    const taken = table.fields.filter((f) => f.id !== field.id).map((f) => f.name);
    if (input.name.trim() === '' || taken.some((n) => sameName(n, input.name as string))) {
      return err(errors.duplicateFieldName(input.name));
    }
  }
  // Unlike creating a field, updating one takes any string up to the limit: "" clears the description.
  if (input.description !== undefined && input.description.length > FIELD_DESCRIPTION_MAX) {
    return err(
      errors.invalidRequest(
        `A field description must be at most ${FIELD_DESCRIPTION_MAX} characters; got ${input.description.length}. Shorten it.`,
      ),
    );
  }
  const snapshot = deps.store.schema();
  const previous = fieldMetadata(field, table, snapshot);
  const next: FieldRow = {
    ...field,
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.description === undefined ? {} : { description: input.description || null }),
  };
  const after = commit(
    deps,
    actor,
    table.row.baseId,
    () => deps.store.updateField(next),
    (after) => {
      const found = after.fieldById.get(field.id);
      return found
        ? [
            {
              kind: 'fieldChanged',
              tableId: table.row.id,
              fieldId: field.id,
              currentMetadata: fieldMetadata(found.field, found.table, after),
              previousMetadata: previous,
            },
          ]
        : [];
    },
  );
  const found = after.fieldById.get(field.id);
  if (!found) return err(errors.modelNotFound());
  return ok(fieldJson(found.field, found.table, after));
}

export function deleteView(
  deps: SchemaDeps,
  actor: Actor,
  table: TableModel,
  view: ViewRow,
): Result<JsonObject, StoreError> {
  if (table.views.length <= 1) return err(errors.lastView(view.name));
  commit(
    deps,
    actor,
    table.row.baseId,
    () => deps.store.deleteView(view.id),
    () => [{ kind: 'viewDestroyed', tableId: table.row.id, viewId: view.id }],
  );
  return ok({ id: view.id, deleted: true });
}

export function deleteBase(deps: SchemaDeps, actor: Actor, baseId: string): Result<JsonObject, StoreError> {
  const snapshot = deps.store.schema();
  const tables = snapshot.tablesOfBase.get(baseId) ?? [];
  const at = deps.now().toISOString();
  let txn = 0;
  deps.store.transaction(() => {
    txn = deps.store.nextTransactionNumber(baseId);
    deps.store.deleteBase(baseId);
  });
  // The webhooks of a deleted base go with it; tableDestroyed events let listeners see that.
  publish(
    deps,
    actor,
    baseId,
    at,
    txn,
    tables.map((t) => ({
      kind: 'tableDestroyed' as const,
      tableId: t.row.id,
      previousMetadata: tableMetadata(t.row),
    })),
  );
  return ok({ id: baseId, deleted: true });
}
