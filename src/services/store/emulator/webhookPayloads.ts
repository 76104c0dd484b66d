/**
 * Webhook payloads of the emulated Airtable Web API: which change events a webhook's specification lets through
 * (data types, change types, sources, record scope, watched fields) and the payload JSON built from one
 * transaction's events, in the upstream's shape (reference/store-samples/WebhookPayload*.json). Pure: no state,
 * no I/O; webhooks.ts stores and delivers what this builds.
 */
import type { ChangeEvent } from './changes.js';
import type {
  WebhookChangeType,
  WebhookDataType,
  WebhookFilters,
  WebhookIncludes,
  WebhookSpecification,
  WebhookUser,
} from './webhooks.js';

type Cells = Record<string, unknown>;
type Json = Record<string, unknown>;

/** A JSON rendering with sorted keys, so two cell values compare equal whatever order their keys came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Json = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Json)[key];
    return sorted;
  });
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return canonical(a) === canonical(b);
}

/** The keys whose values differ between two snapshots, in first-seen order. */
function changedKeys(before: Cells, after: Cells, only?: readonly string[]): string[] {
  const keys = only ?? [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys.filter((key) => !sameValue(before[key], after[key]));
}

/** A cleared cell is reported as null: the upstream omits empty cells, yet a change to "empty" must show. */
function pick(source: Cells, keys: readonly string[]): Cells {
  const out: Cells = {};
  for (const key of keys) out[key] = source[key] ?? null;
  return out;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---- payload generation ------------------------------------------------------------------------------------

/** The event kinds each data type covers; table creation and destruction concern all three. */
const KIND_DATA_TYPE: Partial<Record<ChangeEvent['kind'], WebhookDataType>> = {
  recordCreated: 'tableData',
  recordChanged: 'tableData',
  recordDestroyed: 'tableData',
  fieldCreated: 'tableFields',
  fieldChanged: 'tableFields',
  fieldDestroyed: 'tableFields',
  tableChanged: 'tableMetadata',
};

const KIND_CHANGE_TYPE: Record<ChangeEvent['kind'], WebhookChangeType> = {
  recordCreated: 'add',
  recordChanged: 'update',
  recordDestroyed: 'remove',
  tableCreated: 'add',
  tableChanged: 'update',
  tableDestroyed: 'remove',
  fieldCreated: 'add',
  fieldChanged: 'update',
  fieldDestroyed: 'remove',
  viewDestroyed: 'remove',
};

/** Field definitions in payloads carry only these (webhooks field model: name and type). */
const FIELD_KEYS = ['name', 'type'] as const;
/** Table metadata in payloads: name and description. */
const TABLE_KEYS = ['name', 'description'] as const;

interface Snapshots {
  first: Cells;
  last: Cells;
}

interface CreatedRecord {
  createdTime: string;
  cells: Cells;
}

interface TableAccumulator {
  metadata?: Snapshots;
  createdFields: Map<string, Cells>;
  changedFields: Map<string, Snapshots>;
  destroyedFieldIds: string[];
  createdRecords: Map<string, CreatedRecord>;
  changedRecords: Map<string, Snapshots>;
  destroyedRecordIds: string[];
}

interface CreatedTableAccumulator {
  metadata: Cells;
  fields: Map<string, Cells>;
  records: Map<string, CreatedRecord>;
}

function emptyTable(): TableAccumulator {
  return {
    createdFields: new Map(),
    changedFields: new Map(),
    destroyedFieldIds: [],
    createdRecords: new Map(),
    changedRecords: new Map(),
    destroyedRecordIds: [],
  };
}

function fieldDefinition(metadata: Cells | undefined): Cells {
  const out: Cells = {};
  for (const key of FIELD_KEYS) if (metadata?.[key] !== undefined) out[key] = metadata[key];
  return out;
}

export interface PayloadContext {
  describeUser?: ((userId: string, baseId: string) => WebhookUser | undefined) | undefined;
  tableOfView?: ((baseId: string, viewId: string) => string | undefined) | undefined;
}

export type PayloadOutcome =
  | { kind: 'payload'; payload: Json }
  | { kind: 'error'; payload: Json }
  | undefined;

/**
 * The table a `recordChangeScope` confines changes to. A view scope is played as its whole table: change events
 * do not say which views a record is in, so records outside the view are reported too (documented limit).
 * `null` means no scope; `undefined` a scope that matches nothing (an unknown view).
 */
function scopeTable(
  spec: WebhookSpecification,
  baseId: string,
  ctx: PayloadContext,
): string | null | undefined {
  const scope = spec.options.filters.recordChangeScope;
  if (scope === undefined || scope === '') return null;
  if (scope.startsWith('viw')) return ctx.tableOfView?.(baseId, scope);
  return scope;
}

function actionMetadata(event: ChangeEvent, ctx: PayloadContext): Json {
  const { source } = event;
  if ((source === 'client' || source === 'publicApi') && event.userId !== undefined) {
    const user = ctx.describeUser?.(event.userId, event.baseId) ?? { id: event.userId };
    return { source, sourceMetadata: { user } };
  }
  // Form submissions name their form view; automations and system changes carry no metadata we could fill.
  if (source === 'formSubmission' && event.viewId !== undefined) {
    return { source, sourceMetadata: { viewId: event.viewId } };
  }
  return { source };
}

/**
 * Builds the payload one transaction produces for one webhook, or undefined when nothing in it matches the
 * specification. Events of the transaction are folded per record, field and table first (a record created and
 * then edited in one transaction is one creation with its final cells), then rendered.
 */
export function buildPayload(
  spec: WebhookSpecification,
  events: readonly ChangeEvent[],
  ctx: PayloadContext = {},
): PayloadOutcome {
  const first = events[0];
  if (first === undefined) return undefined;
  const { filters } = spec.options;
  const includes = spec.options.includes ?? {};
  const header = {
    timestamp: first.timestamp,
    baseTransactionNumber: first.transactionNumber,
    payloadFormat: 'v0',
  };

  // Deleting a watched field, or the view a webhook is scoped to, invalidates its filters: the upstream then
  // sends one error payload and stops generating payloads (webhooks specification, watch* warnings).
  const watched = new Set([
    ...(filters.watchDataInFieldIds ?? []),
    ...(filters.watchSchemasOfFieldIds ?? []),
  ]);
  const broken = events.some(
    (e) =>
      (e.kind === 'fieldDestroyed' && e.fieldId !== undefined && watched.has(e.fieldId)) ||
      (e.kind === 'viewDestroyed' && e.viewId !== undefined && e.viewId === filters.recordChangeScope),
  );
  if (broken) return { kind: 'error', payload: { ...header, error: true, code: 'INVALID_FILTERS' } };

  const dataTypes = new Set(filters.dataTypes);
  const scope = scopeTable(spec, first.baseId, ctx);
  if (scope === undefined) return undefined;
  const changeTypes = filters.changeTypes === undefined ? undefined : new Set(filters.changeTypes);
  const sources = filters.fromSources === undefined ? undefined : new Set(filters.fromSources);
  const formView = filters.sourceOptions?.formSubmission?.viewId;
  const watchData = filters.watchDataInFieldIds;
  const watchSchemas =
    filters.watchSchemasOfFieldIds === undefined ? undefined : new Set(filters.watchSchemasOfFieldIds);

  const tables = new Map<string, TableAccumulator>();
  const createdTables = new Map<string, CreatedTableAccumulator>();
  const destroyedTableIds: string[] = [];
  let actor: ChangeEvent | undefined;
  const tableOf = (id: string): TableAccumulator => {
    let acc = tables.get(id);
    if (!acc) {
      acc = emptyTable();
      tables.set(id, acc);
    }
    return acc;
  };

  for (const event of events) {
    if (sources && !sources.has(event.source)) continue;
    if (
      event.source === 'formSubmission' &&
      formView &&
      event.viewId !== undefined &&
      event.viewId !== formView
    )
      continue;
    if (changeTypes && !changeTypes.has(KIND_CHANGE_TYPE[event.kind])) continue;
    if (scope !== null && event.tableId !== scope) continue;
    const dataType = KIND_DATA_TYPE[event.kind];
    if (dataType !== undefined && !dataTypes.has(dataType)) continue;
    const table = event.tableId;
    const created = createdTables.get(table);
    let matched = true;

    switch (event.kind) {
      case 'recordCreated': {
        const id = event.recordId;
        if (id === undefined) continue;
        const record = { createdTime: event.timestamp, cells: { ...(event.current ?? {}) } };
        if (created) created.records.set(id, record);
        else tableOf(table).createdRecords.set(id, record);
        break;
      }
      case 'recordChanged': {
        const id = event.recordId;
        if (id === undefined) continue;
        const fresh = created?.records.get(id) ?? tables.get(table)?.createdRecords.get(id);
        if (fresh) {
          fresh.cells = { ...(event.current ?? {}) };
          break;
        }
        const acc = tableOf(table);
        const seen = acc.changedRecords.get(id);
        const current = { ...(event.current ?? {}) };
        if (seen) seen.last = current;
        else acc.changedRecords.set(id, { first: { ...(event.previous ?? {}) }, last: current });
        break;
      }
      case 'recordDestroyed': {
        const id = event.recordId;
        if (id === undefined) continue;
        if (created?.records.delete(id)) break;
        const acc = tableOf(table);
        if (acc.createdRecords.delete(id)) break;
        acc.changedRecords.delete(id);
        acc.destroyedRecordIds.push(id);
        break;
      }
      case 'fieldCreated': {
        const id = event.fieldId;
        if (id === undefined || (watchSchemas && !watchSchemas.has(id))) continue;
        const definition = fieldDefinition(event.currentMetadata);
        if (created) created.fields.set(id, definition);
        else tableOf(table).createdFields.set(id, definition);
        break;
      }
      case 'fieldChanged': {
        const id = event.fieldId;
        if (id === undefined || (watchSchemas && !watchSchemas.has(id))) continue;
        const fresh = created?.fields.get(id) ?? tables.get(table)?.createdFields.get(id);
        if (fresh) {
          Object.assign(fresh, fieldDefinition(event.currentMetadata));
          break;
        }
        const acc = tableOf(table);
        const seen = acc.changedFields.get(id);
        const current = fieldDefinition(event.currentMetadata);
        if (seen) seen.last = current;
        else acc.changedFields.set(id, { first: fieldDefinition(event.previousMetadata), last: current });
        break;
      }
      case 'fieldDestroyed': {
        const id = event.fieldId;
        if (id === undefined || (watchSchemas && !watchSchemas.has(id))) continue;
        if (created?.fields.delete(id)) break;
        const acc = tableOf(table);
        if (acc.createdFields.delete(id)) break;
        acc.changedFields.delete(id);
        acc.destroyedFieldIds.push(id);
        break;
      }
      case 'tableChanged': {
        const pickTable = (m: Cells | undefined): Cells => {
          const out: Cells = {};
          for (const key of TABLE_KEYS) if (m?.[key] !== undefined) out[key] = m[key];
          return out;
        };
        if (created) {
          Object.assign(created.metadata, pickTable(event.currentMetadata));
          break;
        }
        const acc = tableOf(table);
        if (acc.metadata) acc.metadata.last = pickTable(event.currentMetadata);
        else
          acc.metadata = { first: pickTable(event.previousMetadata), last: pickTable(event.currentMetadata) };
        break;
      }
      case 'tableCreated': {
        const meta = event.currentMetadata ?? {};
        const metadata: Cells = {};
        for (const key of TABLE_KEYS) if (meta[key] !== undefined) metadata[key] = meta[key];
        const entry: CreatedTableAccumulator = { metadata, fields: new Map(), records: new Map() };
        // A store may describe the new table's fields inline instead of (or as well as) sending fieldCreated.
        if (Array.isArray(meta.fields) && dataTypes.has('tableFields')) {
          for (const field of meta.fields) {
            if (isRecord(field) && typeof field.id === 'string')
              entry.fields.set(field.id, fieldDefinition(field));
          }
        }
        createdTables.set(table, entry);
        tables.delete(table);
        break;
      }
      case 'tableDestroyed': {
        if (createdTables.delete(table)) break;
        tables.delete(table);
        destroyedTableIds.push(table);
        break;
      }
      case 'viewDestroyed':
        // No data type covers views; a destroyed scope view was handled above as an error payload.
        matched = false;
        break;
    }
    if (matched) actor ??= event;
  }

  const changedTablesById = renderChangedTables(tables, filters, includes, watchData);
  const createdTablesById: Json = {};
  for (const [id, entry] of createdTables) {
    const out: Json = {};
    if (dataTypes.has('tableMetadata')) out.metadata = entry.metadata;
    if (dataTypes.has('tableFields') && entry.fields.size > 0)
      out.fieldsById = Object.fromEntries(entry.fields);
    if (dataTypes.has('tableData') && entry.records.size > 0) out.recordsById = renderCreated(entry.records);
    if (Object.keys(out).length > 0) createdTablesById[id] = out;
  }

  const body: Json = {};
  if (Object.keys(changedTablesById).length > 0) body.changedTablesById = changedTablesById;
  if (Object.keys(createdTablesById).length > 0) body.createdTablesById = createdTablesById;
  if (destroyedTableIds.length > 0) body.destroyedTableIds = destroyedTableIds;
  if (Object.keys(body).length === 0 || actor === undefined) return undefined;
  return {
    kind: 'payload',
    payload: {
      timestamp: header.timestamp,
      baseTransactionNumber: header.baseTransactionNumber,
      payloadFormat: header.payloadFormat,
      actionMetadata: actionMetadata(actor, ctx),
      ...body,
    },
  };
}

function renderCreated(records: Map<string, CreatedRecord>): Json {
  const out: Json = {};
  for (const [id, record] of records) {
    out[id] = { createdTime: record.createdTime, cellValuesByFieldId: record.cells };
  }
  return out;
}

function renderChangedTables(
  tables: Map<string, TableAccumulator>,
  filters: WebhookFilters,
  includes: WebhookIncludes,
  watchData: readonly string[] | undefined,
): Json {
  const out: Json = {};
  const included = includes.includeCellValuesInFieldIds;
  for (const [tableId, acc] of tables) {
    const table: Json = {};
    if (acc.metadata) {
      const keys = changedKeys(acc.metadata.first, acc.metadata.last, TABLE_KEYS);
      // Table metadata changes always carry the previous values (there is no include switch for them).
      if (keys.length > 0) {
        table.changedMetadata = {
          current: pick(acc.metadata.last, keys),
          previous: pick(acc.metadata.first, keys),
        };
      }
    }
    if (acc.createdFields.size > 0) table.createdFieldsById = Object.fromEntries(acc.createdFields);
    const changedFields: Json = {};
    for (const [id, snap] of acc.changedFields) {
      const keys = changedKeys(snap.first, snap.last, FIELD_KEYS);
      if (keys.length === 0) continue;
      changedFields[id] = {
        current: pick(snap.last, keys),
        ...(includes.includePreviousFieldDefinitions ? { previous: pick(snap.first, keys) } : {}),
      };
    }
    if (Object.keys(changedFields).length > 0) table.changedFieldsById = changedFields;
    if (acc.destroyedFieldIds.length > 0) table.destroyedFieldIds = acc.destroyedFieldIds;

    const recordParts: Json = {};
    if (acc.createdRecords.size > 0) recordParts.createdRecordsById = renderCreated(acc.createdRecords);
    const changedRecords: Json = {};
    for (const [id, snap] of acc.changedRecords) {
      let keys = changedKeys(snap.first, snap.last);
      if (watchData) keys = keys.filter((key) => watchData.includes(key));
      if (keys.length === 0) continue;
      const entry: Json = { current: { cellValuesByFieldId: pick(snap.last, keys) } };
      if (includes.includePreviousCellValues)
        entry.previous = { cellValuesByFieldId: pick(snap.first, keys) };
      if (included !== undefined) {
        const wanted = included === 'all' ? Object.keys(snap.last) : included;
        const unchanged: Cells = {};
        for (const key of wanted) {
          if (!keys.includes(key) && snap.last[key] !== undefined) unchanged[key] = snap.last[key];
        }
        if (Object.keys(unchanged).length > 0) entry.unchanged = { cellValuesByFieldId: unchanged };
      }
      changedRecords[id] = entry;
    }
    if (Object.keys(changedRecords).length > 0) recordParts.changedRecordsById = changedRecords;
    if (acc.destroyedRecordIds.length > 0) recordParts.destroyedRecordIds = acc.destroyedRecordIds;
    Object.assign(table, recordParts);
    // A view scope also reports the records under the view (this emulator plays a view as its whole table).
    const scope = filters.recordChangeScope;
    if (scope?.startsWith('viw') && Object.keys(recordParts).length > 0) {
      table.changedViewsById = { [scope]: recordParts };
    }
    if (Object.keys(table).length > 0) out[tableId] = table;
  }
  return out;
}
