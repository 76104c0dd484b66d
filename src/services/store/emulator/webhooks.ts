/**
 * Webhooks of the emulated Airtable Web API: registrations, payloads generated from the store's change feed,
 * notification pings signed with X-Airtable-Content-MAC, expiry and retention. Registrations and payloads live
 * in SQLite beside the store's tables; ping timers live in memory. Knows nothing of HTTP (routes/webhooks.ts
 * maps failures to statuses).
 *
 * Upstream rules played here (reference/upstream-apis.md §C.6): at most 10 webhooks per base (2 per OAuth
 * integration); PAT and OAuth webhooks expire after 7 days unless refreshed or their payloads are listed; an
 * expired webhook is disabled but stays readable for 7 more days; payloads are kept 7 days, numbered by a
 * per-webhook cursor that never resets; payloads list at most 50 at a time. Where the upstream is silent, the
 * choice made is written beside the code that makes it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Clock } from '../../../emulation/clock.js';
import { err, ok, type Result } from '../../../emulation/result.js';
import type { ChangeEvent, ChangeFeed } from './changes.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export const MAX_WEBHOOKS_PER_BASE = 10;
export const MAX_OAUTH_WEBHOOKS_PER_BASE = 2;
/** Lifetime of a PAT or OAuth webhook, renewed by refresh and by listing payloads. */
export const WEBHOOK_LIFETIME_MS = 7 * DAY_MS;
/** How long payloads are kept, and how long an expired webhook stays readable. */
export const WEBHOOK_RETENTION_MS = 7 * DAY_MS;
export const MAX_PAYLOADS_PER_PAGE = 50;
/**
 * The upstream's retry schedule for failed pings is not published; the emulator retries three times, 1 s, 5 s
 * and 25 s after each failure, so a tester sees `willBeRetried` flip and a flaky receiver recover.
 */
export const PING_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 25_000];
/** A ping that has not answered by then counts as failed (the default sender only). */
export const PING_TIMEOUT_MS = 10_000;

export type WebhookDataType = 'tableData' | 'tableFields' | 'tableMetadata';
export type WebhookChangeType = 'add' | 'remove' | 'update';
/** Who created the webhook: PAT and OAuth webhooks expire; those of legacy API keys never do. */
export type WebhookOwnerKind = 'personalAccessToken' | 'oauth' | 'apiKey';

export interface WebhookFilters {
  dataTypes: readonly WebhookDataType[];
  recordChangeScope?: string | undefined;
  changeTypes?: readonly WebhookChangeType[] | undefined;
  /** The upstream names more sources than the emulator produces (sync, anonymousUser...); all are accepted. */
  fromSources?: readonly string[] | undefined;
  sourceOptions?:
    | {
        formSubmission?: { viewId?: string | undefined } | undefined;
        formPageSubmission?: { pageId?: string | undefined } | undefined;
      }
    | undefined;
  watchDataInFieldIds?: readonly string[] | undefined;
  watchSchemasOfFieldIds?: readonly string[] | undefined;
}

export interface WebhookIncludes {
  includeCellValuesInFieldIds?: readonly string[] | 'all' | undefined;
  includePreviousCellValues?: boolean | undefined;
  includePreviousFieldDefinitions?: boolean | undefined;
}

export interface WebhookSpecification {
  options: { filters: WebhookFilters; includes?: WebhookIncludes | undefined };
}

export interface CreateWebhookInput {
  notificationUrl?: string | null | undefined;
  specification: WebhookSpecification;
}

export interface CreatedWebhook {
  id: string;
  macSecretBase64: string;
  expirationTime: string | null;
}

export type NotificationResult =
  | { success: true; completionTimestamp: string; durationMs: number; retryNumber: number }
  | {
      success: false;
      error: { message: string };
      completionTimestamp: string;
      durationMs: number;
      retryNumber: number;
      willBeRetried: boolean;
    };

/** A webhook as the list endpoint shows it (Webhook.json); the MAC secret is never part of it. */
export interface WebhookView {
  id: string;
  areNotificationsEnabled: boolean;
  cursorForNextPayload: number;
  isHookEnabled: boolean;
  lastSuccessfulNotificationTime: string | null;
  notificationUrl: string | null;
  expirationTime: string | null;
  lastNotificationResult: NotificationResult | null;
  specification: WebhookSpecification;
}

export interface PayloadPage {
  cursor: number;
  mightHaveMore: boolean;
  payloads: unknown[];
}

/** What /_emulator inspection shows: every webhook with its base and owner kind, never its MAC secret. */
export interface WebhookInspection {
  webhooks: (WebhookView & { baseId: string; ownerTokenKind: string })[];
  payloadCounts: Record<string, number>;
}

export type WebhookFailureType =
  | 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND'
  | 'NOT_FOUND'
  | 'TOO_MANY_WEBHOOKS_IN_BASE'
  | 'TOO_MANY_WEBHOOKS_BY_OAUTH_INTEGRATION_IN_BASE'
  | 'INVALID_REQUEST_UNKNOWN';

export interface WebhookFailure {
  type: WebhookFailureType;
  message?: string;
}

/** The user behind a change, as payloads name it in `actionMetadata.sourceMetadata.user`. */
export interface WebhookUser {
  id: string;
  email: string;
  permissionLevel: string;
  name?: string;
}

export interface WebhookDeps {
  db: Database;
  clock: Clock;
  changes: ChangeFeed;
  /** Does the base exist (and may this user manage it)? Used for 403/404 decisions by the routes. */
  baseExists(baseId: string): boolean;
  /** The ids are deterministic in tests: prefix 'ach' + 14 alphanumerics. */
  newId(prefix: 'ach'): string;
  /** Sends a ping; default uses global fetch. Tests inject a recorder. */
  post?: (url: string, body: string, headers: Record<string, string>) => Promise<{ status: number }>;
  /** Lifetime of PAT/OAuth webhooks; default 7 days. */
  lifetimeMs?: number;
  /**
   * Email, permission level and name of a user, for `actionMetadata`; without it (or for an unknown user)
   * payloads carry only the user's id, since change events carry nothing more.
   */
  describeUser?: (userId: string, baseId: string) => WebhookUser | undefined;
  /** The table a view belongs to, so a view id in `recordChangeScope` can be honoured; see viewScope. */
  tableOfView?: (baseId: string, viewId: string) => string | undefined;
}

export const NOT_FOUND_FAILURE: WebhookFailure = { type: 'NOT_FOUND' };
export const BASE_FAILURE: WebhookFailure = {
  type: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
  message:
    'Invalid permissions, or the requested model was not found. Check that both your user and your token have the required permissions, and that the model names and/or ids are correct.',
};
export const INVALID_REQUEST_MESSAGE =
  'Invalid request: parameter validation failed. Check your request data.';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhooks (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, base_id TEXT NOT NULL,
  owner_kind TEXT NOT NULL, notification_url TEXT, mac_secret TEXT NOT NULL, specification TEXT NOT NULL,
  notifications_enabled INTEGER NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER, error_code TEXT,
  next_cursor INTEGER NOT NULL, last_success_time TEXT, last_result TEXT
);
CREATE INDEX IF NOT EXISTS webhooks_by_base ON webhooks(base_id, pos);
CREATE TABLE IF NOT EXISTS webhook_payloads (
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE, number INTEGER NOT NULL,
  transaction_number INTEGER NOT NULL, created_at INTEGER NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (webhook_id, number)
);
CREATE INDEX IF NOT EXISTS webhook_payloads_by_age ON webhook_payloads(created_at);
`;

interface WebhookRow {
  pos: number;
  id: string;
  base_id: string;
  owner_kind: string;
  notification_url: string | null;
  mac_secret: string;
  specification: string;
  notifications_enabled: number;
  created_at: number;
  expires_at: number | null;
  error_code: string | null;
  next_cursor: number;
  last_success_time: string | null;
  last_result: string | null;
}

interface PayloadRow {
  number: number;
  body: string;
}

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

// ---- the service -------------------------------------------------------------------------------------------

interface Delivery {
  inFlight: boolean;
  /** A change arrived while a ping was in flight: ping once more when it settles. */
  again: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
}

type PingOutcome = { ok: true } | { ok: false; message: string };

async function fetchPost(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number }> {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers,
    signal: AbortSignal.timeout(PING_TIMEOUT_MS),
  });
  // The receiver's body is never read; cancel it so the connection is released.
  await response.body?.cancel();
  return { status: response.status };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class WebhookService {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly post: NonNullable<WebhookDeps['post']>;
  private readonly lifetimeMs: number;
  private readonly deliveries = new Map<string, Delivery>();
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(private readonly deps: WebhookDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.post = deps.post ?? fetchPost;
    this.lifetimeMs = deps.lifetimeMs ?? WEBHOOK_LIFETIME_MS;
    this.db.exec(SCHEMA);
    this.unsubscribe = deps.changes.subscribe((events) => this.onChanges(events));
  }

  // ---- endpoints -------------------------------------------------------------------------------------------

  /** Whether the base exists for this caller; the routes check it before reading a body. */
  hasBase(baseId: string): boolean {
    return this.deps.baseExists(baseId);
  }

  create(
    baseId: string,
    input: CreateWebhookInput,
    ownerTokenKind: WebhookOwnerKind = 'personalAccessToken',
  ): Result<CreatedWebhook, WebhookFailure> {
    const now = this.sweep();
    if (!this.deps.baseExists(baseId)) return err(BASE_FAILURE);
    const url = input.notificationUrl ?? null;
    if (url !== null && !isHttpUrl(url))
      return err({ type: 'INVALID_REQUEST_UNKNOWN', message: INVALID_REQUEST_MESSAGE });
    // Expired webhooks still count until they are gone: they are still listed, as upstream.
    const existing = this.rowsOf(baseId);
    if (existing.length >= MAX_WEBHOOKS_PER_BASE) {
      return err({
        type: 'TOO_MANY_WEBHOOKS_IN_BASE',
        message: `A base can have at most ${MAX_WEBHOOKS_PER_BASE} webhooks.`,
      });
    }
    // The emulator cannot tell OAuth integrations apart, so every OAuth token counts as one integration.
    if (
      ownerTokenKind === 'oauth' &&
      existing.filter((row) => row.owner_kind === 'oauth').length >= MAX_OAUTH_WEBHOOKS_PER_BASE
    ) {
      return err({
        type: 'TOO_MANY_WEBHOOKS_BY_OAUTH_INTEGRATION_IN_BASE',
        message: `An OAuth integration can create at most ${MAX_OAUTH_WEBHOOKS_PER_BASE} webhooks per base.`,
      });
    }
    const id = this.deps.newId('ach');
    const secret = randomBytes(32).toString('base64');
    const expiresAt = ownerTokenKind === 'apiKey' ? null : now + this.lifetimeMs;
    this.db
      .prepare(
        `INSERT INTO webhooks (id, base_id, owner_kind, notification_url, mac_secret, specification,
           notifications_enabled, created_at, expires_at, error_code, next_cursor, last_success_time, last_result)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 1, NULL, NULL)`,
      )
      .run(
        id,
        baseId,
        ownerTokenKind,
        url,
        secret,
        JSON.stringify(input.specification),
        // Upstream sets no default we could observe; notifications are on when there is a URL to send them to.
        url === null ? 0 : 1,
        now,
        expiresAt,
      );
    // "The notification URL (if given) will get a ping shortly after this completes."
    if (url !== null) this.notify(id);
    return ok({ id, macSecretBase64: secret, expirationTime: isoOrNull(expiresAt) });
  }

  list(baseId: string): Result<{ webhooks: WebhookView[] }, WebhookFailure> {
    const now = this.sweep();
    if (!this.deps.baseExists(baseId)) return err(BASE_FAILURE);
    return ok({ webhooks: this.rowsOf(baseId).map((row) => this.view(row, now)) });
  }

  get(baseId: string, webhookId: string): Result<WebhookView, WebhookFailure> {
    const now = this.sweep();
    const row = this.find(baseId, webhookId);
    if (!row.ok) return row;
    return ok(this.view(row.value, now));
  }

  delete(baseId: string, webhookId: string): Result<Record<string, never>, WebhookFailure> {
    this.sweep();
    const row = this.find(baseId, webhookId);
    if (!row.ok) return row;
    this.remove(webhookId);
    return ok({});
  }

  enableNotifications(
    baseId: string,
    webhookId: string,
    enable: boolean,
  ): Result<Record<string, never>, WebhookFailure> {
    this.sweep();
    const row = this.find(baseId, webhookId);
    if (!row.ok) return row;
    this.db
      .prepare('UPDATE webhooks SET notifications_enabled = ? WHERE id = ?')
      .run(enable ? 1 : 0, webhookId);
    // Disabling stops a pending retry; enabling does not ping by itself, only the next change does.
    if (!enable) this.dropDelivery(webhookId);
    return ok({});
  }

  /**
   * "Only applies to active webhooks with an expiration time": a webhook without one answers its null
   * expiration unchanged; an expired or failed one cannot be revived (422 INVALID_REQUEST_UNKNOWN, as the
   * upstream's type for this case is not published).
   */
  refresh(baseId: string, webhookId: string): Result<{ expirationTime: string | null }, WebhookFailure> {
    const now = this.sweep();
    const found = this.find(baseId, webhookId);
    if (!found.ok) return found;
    const row = found.value;
    if (row.expires_at === null) return ok({ expirationTime: null });
    if (!isEnabled(row, now)) {
      return err({
        type: 'INVALID_REQUEST_UNKNOWN',
        message: `${INVALID_REQUEST_MESSAGE} Only an active webhook can be refreshed; this one is disabled.`,
      });
    }
    const expiresAt = now + this.lifetimeMs;
    this.db.prepare('UPDATE webhooks SET expires_at = ? WHERE id = ?').run(expiresAt, webhookId);
    return ok({ expirationTime: isoOrNull(expiresAt) });
  }

  /**
   * Payloads from `cursor` (default 1) on, at most `limit` (default and maximum 50). Payloads dropped after 7
   * days are skipped over: the page starts at the oldest one still kept. Listing renews an active webhook.
   */
  payloads(
    baseId: string,
    webhookId: string,
    cursor = 1,
    limit = MAX_PAYLOADS_PER_PAGE,
  ): Result<PayloadPage, WebhookFailure> {
    const now = this.sweep();
    const found = this.find(baseId, webhookId);
    if (!found.ok) return found;
    const invalid = (message: string) => err<WebhookFailure>({ type: 'INVALID_REQUEST_UNKNOWN', message });
    if (!Number.isSafeInteger(cursor) || cursor < 1)
      return invalid(`${INVALID_REQUEST_MESSAGE} cursor must be a positive integer`);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAYLOADS_PER_PAGE) {
      return invalid(
        `${INVALID_REQUEST_MESSAGE} limit must be an integer from 1 to ${MAX_PAYLOADS_PER_PAGE}`,
      );
    }
    const row = found.value;
    if (row.expires_at !== null && isEnabled(row, now)) {
      this.db
        .prepare('UPDATE webhooks SET expires_at = ? WHERE id = ?')
        .run(now + this.lifetimeMs, webhookId);
    }
    const rows = this.db
      .prepare(
        'SELECT number, body FROM webhook_payloads WHERE webhook_id = ? AND number >= ? ORDER BY number LIMIT ?',
      )
      .all(webhookId, cursor, limit + 1) as PayloadRow[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return ok({
      cursor: last === undefined ? cursor : last.number + 1,
      mightHaveMore: rows.length > limit,
      payloads: page.map((p) => JSON.parse(p.body) as unknown),
    });
  }

  // ---- emulator controls -----------------------------------------------------------------------------------

  /** Every webhook with its base and owner kind (never its MAC secret), and how many payloads each keeps. */
  inspect(): WebhookInspection {
    const now = this.sweep();
    const rows = this.db.prepare('SELECT * FROM webhooks ORDER BY pos').all() as WebhookRow[];
    const counts = this.db
      .prepare('SELECT webhook_id AS id, COUNT(*) AS n FROM webhook_payloads GROUP BY webhook_id')
      .all() as { id: string; n: number }[];
    const payloadCounts: Record<string, number> = {};
    for (const row of rows) payloadCounts[row.id] = 0;
    for (const { id, n } of counts) payloadCounts[id] = n;
    return {
      webhooks: rows.map((row) => ({
        ...this.view(row, now),
        baseId: row.base_id,
        ownerTokenKind: row.owner_kind,
      })),
      payloadCounts,
    };
  }

  reset(): void {
    this.cancelAll();
    this.db.exec('DELETE FROM webhook_payloads; DELETE FROM webhooks;');
  }

  /** Stops every timer and ignores pings still in flight; the service takes no more changes. */
  close(): void {
    this.closed = true;
    this.cancelAll();
    this.unsubscribe();
  }

  // ---- change feed -----------------------------------------------------------------------------------------

  private onChanges(events: readonly ChangeEvent[]): void {
    if (this.closed || events.length === 0) return;
    try {
      const toNotify = this.db.transaction(() => this.record(events))();
      for (const id of toNotify) this.notify(id);
    } catch (error) {
      // A webhook fault must never fail the write that caused the change; say so where a person will see it.
      process.stderr.write(`emulator: webhook payload generation failed: ${errorMessage(error)}\n`);
    }
  }

  /** Stores the payloads these events produce; returns the webhooks to ping. */
  private record(events: readonly ChangeEvent[]): string[] {
    const now = this.sweep();
    const groups = new Map<string, ChangeEvent[]>();
    for (const event of events) {
      const key = `${event.baseId}\u0000${event.transactionNumber}`;
      const group = groups.get(key);
      if (group) group.push(event);
      else groups.set(key, [event]);
    }
    const toNotify = new Set<string>();
    const ctx: PayloadContext = { describeUser: this.deps.describeUser, tableOfView: this.deps.tableOfView };
    const insert = this.db.prepare(
      'INSERT INTO webhook_payloads (webhook_id, number, transaction_number, created_at, body) VALUES (?, ?, ?, ?, ?)',
    );
    for (const group of groups.values()) {
      const head = group[0];
      if (head === undefined) continue;
      for (const row of this.rowsOf(head.baseId)) {
        if (!isEnabled(row, now)) continue;
        const spec = JSON.parse(row.specification) as WebhookSpecification;
        const outcome = buildPayload(spec, group, ctx);
        if (outcome === undefined) continue;
        insert.run(row.id, row.next_cursor, head.transactionNumber, now, JSON.stringify(outcome.payload));
        this.db
          .prepare('UPDATE webhooks SET next_cursor = next_cursor + 1, error_code = ? WHERE id = ?')
          .run(outcome.kind === 'error' ? 'INVALID_FILTERS' : null, row.id);
        toNotify.add(row.id);
      }
    }
    return [...toNotify];
  }

  // ---- notification pings ----------------------------------------------------------------------------------

  /** Pings now, unless a ping is already outstanding: then that one (or one more after it) covers this change. */
  private notify(webhookId: string): void {
    const delivery = this.deliveryOf(webhookId);
    if (delivery.inFlight) delivery.again = true;
    else if (delivery.timer === undefined) this.send(webhookId, 0);
  }

  private send(webhookId: string, retryNumber: number): void {
    const row = this.rowById(webhookId);
    const now = this.clock.now();
    if (this.closed || !row || !canNotify(row, now.getTime()) || row.notification_url === null) {
      this.dropDelivery(webhookId);
      return;
    }
    const delivery = this.deliveryOf(webhookId);
    delivery.inFlight = true;
    delivery.again = false;
    const body = JSON.stringify({
      base: { id: row.base_id },
      webhook: { id: webhookId },
      timestamp: now.toISOString(),
    });
    const headers = {
      'Content-Type': 'application/json',
      'X-Airtable-Content-MAC': `hmac-sha256=${signature(row.mac_secret, body)}`,
    };
    const started = now.getTime();
    let attempt: Promise<{ status: number }>;
    try {
      attempt = this.post(row.notification_url, body, headers);
    } catch (error) {
      attempt = Promise.reject(error);
    }
    attempt
      .then(
        ({ status }): PingOutcome =>
          // The upstream's own failure text names these two: "...returned a 503 status code instead of 200 or 204".
          status === 200 || status === 204
            ? { ok: true }
            : {
                ok: false,
                message: `The HTTP request returned a ${status} status code instead of 200 or 204`,
              },
        (error: unknown): PingOutcome => ({
          ok: false,
          message: `The HTTP request failed: ${errorMessage(error)}`,
        }),
      )
      .then((outcome) => this.settle(webhookId, delivery, retryNumber, started, outcome))
      .catch((error: unknown) => {
        process.stderr.write(`emulator: webhook ping bookkeeping failed: ${errorMessage(error)}\n`);
      });
  }

  private settle(
    webhookId: string,
    delivery: Delivery,
    retryNumber: number,
    started: number,
    outcome: PingOutcome,
  ): void {
    // Deleted, reset or closed while in flight: this answer belongs to nobody any more.
    if (this.closed || this.deliveries.get(webhookId) !== delivery) return;
    delivery.inFlight = false;
    const row = this.rowById(webhookId);
    if (!row) {
      this.dropDelivery(webhookId);
      return;
    }
    const end = this.clock.now();
    const completionTimestamp = end.toISOString();
    const durationMs = Math.max(0, end.getTime() - started);
    if (outcome.ok) {
      const result: NotificationResult = { success: true, completionTimestamp, durationMs, retryNumber };
      this.db
        .prepare('UPDATE webhooks SET last_result = ?, last_success_time = ? WHERE id = ?')
        .run(JSON.stringify(result), completionTimestamp, webhookId);
      if (delivery.again) this.send(webhookId, 0);
      else this.dropDelivery(webhookId);
      return;
    }
    const delay = PING_RETRY_DELAYS_MS[retryNumber];
    const willBeRetried = delay !== undefined && canNotify(row, end.getTime());
    const result: NotificationResult = {
      success: false,
      error: { message: outcome.message },
      completionTimestamp,
      durationMs,
      retryNumber,
      willBeRetried,
    };
    this.db
      .prepare('UPDATE webhooks SET last_result = ? WHERE id = ?')
      .run(JSON.stringify(result), webhookId);
    if (willBeRetried) {
      // The retry carries any change that arrived meanwhile, so nothing more is owed.
      delivery.again = false;
      delivery.timer = setTimeout(() => {
        delivery.timer = undefined;
        if (this.deliveries.get(webhookId) === delivery) this.send(webhookId, retryNumber + 1);
      }, delay);
      delivery.timer.unref?.();
    } else if (delivery.again) {
      this.send(webhookId, 0);
    } else {
      this.dropDelivery(webhookId);
    }
  }

  private deliveryOf(webhookId: string): Delivery {
    let delivery = this.deliveries.get(webhookId);
    if (!delivery) {
      delivery = { inFlight: false, again: false, timer: undefined };
      this.deliveries.set(webhookId, delivery);
    }
    return delivery;
  }

  private dropDelivery(webhookId: string): void {
    const delivery = this.deliveries.get(webhookId);
    if (delivery?.timer !== undefined) clearTimeout(delivery.timer);
    this.deliveries.delete(webhookId);
  }

  private cancelAll(): void {
    for (const id of [...this.deliveries.keys()]) this.dropDelivery(id);
  }

  // ---- rows ------------------------------------------------------------------------------------------------

  /**
   * Applies retention at the clock's current time, which is how expiry works under a manual clock: payloads
   * 7 days old go, and so do webhooks 7 days past their expiration. An expired webhook's payloads are kept as
   * they were when it expired ("metadata and past payloads can be accessed for an additional 7 days"), so
   * their age is counted up to the expiration only. Returns the time.
   */
  private sweep(): number {
    const now = this.clock.now().getTime();
    this.db
      .prepare(
        `DELETE FROM webhook_payloads WHERE created_at + ? <=
           (SELECT MIN(?, COALESCE(w.expires_at, ?)) FROM webhooks w WHERE w.id = webhook_payloads.webhook_id)`,
      )
      .run(WEBHOOK_RETENTION_MS, now, now);
    const gone = this.db
      .prepare('SELECT id FROM webhooks WHERE expires_at IS NOT NULL AND expires_at <= ?')
      .all(now - WEBHOOK_RETENTION_MS) as { id: string }[];
    for (const { id } of gone) this.remove(id);
    return now;
  }

  private remove(webhookId: string): void {
    this.dropDelivery(webhookId);
    this.db.prepare('DELETE FROM webhook_payloads WHERE webhook_id = ?').run(webhookId);
    this.db.prepare('DELETE FROM webhooks WHERE id = ?').run(webhookId);
  }

  private rowsOf(baseId: string): WebhookRow[] {
    return this.db
      .prepare('SELECT * FROM webhooks WHERE base_id = ? ORDER BY pos')
      .all(baseId) as WebhookRow[];
  }

  private rowById(webhookId: string): WebhookRow | undefined {
    return this.db.prepare('SELECT * FROM webhooks WHERE id = ?').get(webhookId) as WebhookRow | undefined;
  }

  /** The webhook in that base: an unknown base is a 403 and an unknown (or other base's) webhook a 404. */
  private find(baseId: string, webhookId: string): Result<WebhookRow, WebhookFailure> {
    if (!this.deps.baseExists(baseId)) return err(BASE_FAILURE);
    const row = this.rowById(webhookId);
    if (!row || row.base_id !== baseId) return err(NOT_FOUND_FAILURE);
    return ok(row);
  }

  private view(row: WebhookRow, now: number): WebhookView {
    return {
      id: row.id,
      areNotificationsEnabled: row.notifications_enabled === 1,
      cursorForNextPayload: row.next_cursor,
      isHookEnabled: isEnabled(row, now),
      lastSuccessfulNotificationTime: row.last_success_time,
      notificationUrl: row.notification_url,
      expirationTime: isoOrNull(row.expires_at),
      lastNotificationResult:
        row.last_result === null ? null : (JSON.parse(row.last_result) as NotificationResult),
      specification: JSON.parse(row.specification) as WebhookSpecification,
    };
  }
}

function isExpired(row: WebhookRow, now: number): boolean {
  return row.expires_at !== null && now >= row.expires_at;
}

/** Not expired and not stopped by an invalid specification. */
function isEnabled(row: WebhookRow, now: number): boolean {
  return row.error_code === null && !isExpired(row, now);
}

/** A webhook stopped by invalid filters still gets the ping announcing its error payload; an expired one none. */
function canNotify(row: WebhookRow, now: number): boolean {
  return row.notifications_enabled === 1 && row.notification_url !== null && !isExpired(row, now);
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Hex HMAC-SHA256 of the raw body, keyed with the decoded MAC secret (how receivers verify a ping). */
export function signature(macSecretBase64: string, body: string): string {
  return createHmac('sha256', Buffer.from(macSecretBase64, 'base64')).update(body).digest('hex');
}
