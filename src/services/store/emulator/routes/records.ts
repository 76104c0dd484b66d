/**
 * The records endpoints: list (GET with query parameters, or POST .../listRecords with the same parameters in a
 * JSON body), get one, create (a batch of up to 10 or a single `{fields}`), update and replace (batch, with
 * performUpsert, or one record), delete (batch via `records[]=`, or one). Checks run in the upstream's order:
 * token and scope, base access, table, body, then the records themselves.
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import type { Principal } from '../auth.js';
import { Reader } from '../compute.js';
import type { StoreDatabase, TableModel } from '../database.js';
import { isValidLocale, isValidTimeZone } from '../dates.js';
import { errors, respond, type StoreError } from '../errors.js';
import { isRecordObject } from '../fields.js';
import type { BaseRow, JsonObject } from '../model.js';
import {
  type ListRequest,
  MAX_PAGE_SIZE,
  listRecords as pageOfRecords,
  recordJson,
  type SortSpec,
} from '../query.js';
import {
  deleteRecords,
  createRecords as insertRecords,
  Mutation,
  recordInputs,
  updateRecords,
  upsertRecords,
} from '../records.js';
import { RECORDS_PER_REQUEST } from '../requestBodies.js';
import {
  actorOf,
  arrayParam,
  boolParam,
  type Ctx,
  createArea,
  isReservedBaseSegment,
  originOf,
  param,
  type RouteDeps,
  readBody,
  readJson,
  reply,
  route,
  sortParam,
} from './common.js';

export const READ_SCOPE = 'data.records:read';
export const WRITE_SCOPE = 'data.records:write';

/** A table of the base by id, or else by exact name. */
export function resolveTable(store: StoreDatabase, baseId: string, idOrName: string): TableModel | undefined {
  const tables = store.schema().tablesOfBase.get(baseId) ?? [];
  return tables.find((t) => t.row.id === idOrName) ?? tables.find((t) => t.row.name === idOrName);
}

interface Target {
  principal: Principal;
  base: BaseRow;
  table: TableModel;
}

/**
 * The caller, base and table of a records request, checked in the upstream's order: a reserved `baseId` segment
 * (another route family's path) is an unknown route; then token and scope, read access to the base, the table,
 * and for a write (`write` names what it does to the records) edit access to the base.
 */
function target(deps: RouteDeps, c: Ctx, write?: 'create' | 'update' | 'delete'): Result<Target, StoreError> {
  const baseId = param(c, 'baseId');
  if (isReservedBaseSegment(baseId)) return err(errors.routeNotFound());
  const principal = deps.access.require(c, write ? WRITE_SCOPE : READ_SCOPE);
  if (!principal.ok) return principal;
  const seen = deps.access.base(principal.value, baseId, 'read', 'read this base');
  if (!seen.ok) return seen;
  const table = resolveTable(deps.store, baseId, param(c, 'tableIdOrName'));
  if (!table) return err(errors.modelNotFound());
  if (write) {
    const refused = `${write} records in table ${table.row.name} (${table.row.id})`;
    const writable = deps.access.base(principal.value, baseId, 'edit', refused);
    if (!writable.ok) return writable;
  }
  return ok({ principal: principal.value, base: seen.value, table });
}

// --- list parameters -----------------------------------------------------------------------------------------

/** The list parameters as they arrive, from the query string or a listRecords body. */
interface RawList {
  pageSize?: unknown;
  maxRecords?: unknown;
  offset?: unknown;
  view?: unknown;
  fields?: unknown;
  filterByFormula?: unknown;
  sort?: unknown;
  cellFormat?: unknown;
  timeZone?: unknown;
  userLocale?: unknown;
  returnFieldsByFieldId?: unknown;
  recordMetadata?: unknown;
}

const LIST_BODY_KEYS: readonly (keyof RawList)[] = [
  'pageSize',
  'maxRecords',
  'offset',
  'view',
  'fields',
  'filterByFormula',
  'sort',
  'cellFormat',
  'timeZone',
  'userLocale',
  'returnFieldsByFieldId',
  'recordMetadata',
];

function positiveInt(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isInteger(raw) && raw > 0 ? raw : undefined;
  if (typeof raw === 'string' && /^\d{1,9}$/.test(raw.trim())) {
    const n = Number(raw.trim());
    return n > 0 ? n : undefined;
  }
  return undefined;
}

function stringList(raw: unknown, what: string): Result<string[] | undefined, StoreError> {
  if (raw === undefined) return ok(undefined);
  if (Array.isArray(raw) && raw.every((v) => typeof v === 'string')) return ok(raw as string[]);
  return err(errors.invalidRequest(`${what} must be an array of strings.`));
}

interface FormatParams {
  cellFormat: 'json' | 'string';
  stringFormat?: { timeZone: string; userLocale: string };
  returnFieldsByFieldId: boolean;
}

function formatParams(raw: RawList): Result<FormatParams, StoreError> {
  const cellFormat = raw.cellFormat ?? 'json';
  if (cellFormat !== 'json' && cellFormat !== 'string') {
    return err(errors.invalidRequest('cellFormat must be "json" or "string".'));
  }
  const byId = boolParam(raw.returnFieldsByFieldId);
  if (byId === 'invalid') return err(errors.invalidRequest('returnFieldsByFieldId must be true or false.'));
  const base = { cellFormat, returnFieldsByFieldId: byId ?? false } as const;
  if (cellFormat === 'json') return ok(base);
  const { timeZone, userLocale } = raw;
  if (
    typeof timeZone !== 'string' ||
    timeZone === '' ||
    typeof userLocale !== 'string' ||
    userLocale === ''
  ) {
    return err(
      errors.invalidRequest(
        'cellFormat "string" requires both timeZone and userLocale (for example timeZone=America/New_York and userLocale=en-us).',
      ),
    );
  }
  if (!isValidTimeZone(timeZone)) return err(errors.invalidRequest(`Unknown timeZone "${timeZone}".`));
  if (!isValidLocale(userLocale)) return err(errors.invalidRequest(`Unknown userLocale "${userLocale}".`));
  return ok({ ...base, stringFormat: { timeZone, userLocale } });
}

function listRequest(raw: RawList): Result<ListRequest, StoreError> {
  const pageSize = raw.pageSize === undefined ? MAX_PAGE_SIZE : positiveInt(raw.pageSize);
  if (pageSize === undefined || pageSize > MAX_PAGE_SIZE) {
    return err(errors.invalidRequest(`pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}.`));
  }
  const maxRecords = raw.maxRecords === undefined ? undefined : positiveInt(raw.maxRecords);
  if (raw.maxRecords !== undefined && maxRecords === undefined) {
    return err(errors.invalidRequest('maxRecords must be a positive integer.'));
  }
  for (const key of ['offset', 'view', 'filterByFormula'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string') {
      return err(errors.invalidRequest(`${key} must be a string.`));
    }
  }
  const fields = stringList(raw.fields, 'fields');
  if (!fields.ok) return fields;
  const metadata = stringList(raw.recordMetadata, 'recordMetadata');
  if (!metadata.ok) return metadata;
  const unknownMetadata = (metadata.value ?? []).filter((m) => m !== 'commentCount');
  if (unknownMetadata.length > 0) {
    return err(
      errors.invalidRequest(`recordMetadata accepts only "commentCount"; got "${unknownMetadata[0]}".`),
    );
  }
  let sort: SortSpec[] | undefined;
  if (raw.sort !== undefined) {
    if (!Array.isArray(raw.sort))
      return err(errors.invalidRequest('sort must be an array of {field, direction}.'));
    sort = [];
    for (const [i, item] of raw.sort.entries()) {
      if (!isRecordObject(item) || typeof item.field !== 'string' || item.field === '') {
        return err(errors.invalidRequest(`sort[${i}].field must be a field name or id.`));
      }
      const direction = item.direction ?? 'asc';
      if (direction !== 'asc' && direction !== 'desc') {
        return err(errors.invalidRequest(`sort[${i}].direction must be "asc" or "desc".`));
      }
      sort.push({ field: item.field, direction });
    }
  }
  const format = formatParams(raw);
  if (!format.ok) return format;
  return ok({
    pageSize,
    ...(maxRecords === undefined ? {} : { maxRecords }),
    ...(typeof raw.offset === 'string' ? { offset: raw.offset } : {}),
    ...(typeof raw.view === 'string' ? { view: raw.view } : {}),
    ...(typeof raw.filterByFormula === 'string' ? { filterByFormula: raw.filterByFormula } : {}),
    ...(fields.value ? { fields: fields.value } : {}),
    ...(sort ? { sort } : {}),
    ...format.value,
    commentCount: (metadata.value ?? []).includes('commentCount'),
  });
}

function rawListFromQuery(c: Ctx): RawList {
  const q = (key: string) => c.req.query(key);
  const raw: RawList = {};
  for (const key of ['pageSize', 'maxRecords', 'offset', 'view', 'filterByFormula', 'cellFormat'] as const) {
    const value = q(key);
    if (value !== undefined) raw[key] = value;
  }
  for (const key of ['timeZone', 'userLocale', 'returnFieldsByFieldId'] as const) {
    const value = q(key);
    if (value !== undefined) raw[key] = value;
  }
  const fields = arrayParam(c, 'fields');
  if (fields) raw.fields = fields;
  const metadata = arrayParam(c, 'recordMetadata');
  if (metadata) raw.recordMetadata = metadata;
  const sort = sortParam(c);
  if (sort) raw.sort = sort;
  return raw;
}

// --- routes --------------------------------------------------------------------------------------------------

export function recordsArea(deps: RouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { store, clock } = deps;
  const reader = (c: Ctx) => new Reader(store, store.schema(), { now: clock.now(), origin: originOf(c) });
  const mutation = (c: Ctx, t: Target) =>
    new Mutation(
      { store, hub: deps.hub, now: () => clock.now(), origin: originOf(c) },
      actorOf(t.principal),
      t.base,
    );

  const list = (c: Ctx, t: Target, raw: RawList): Response => {
    const req = listRequest(raw);
    if (!req.ok) return respond(c, req.error);
    const result = pageOfRecords(
      { reader: reader(c), iterators: deps.iterators, commentCount: (id) => store.commentCount(id) },
      t.table,
      req.value,
    );
    return reply(c, result);
  };

  /** The written records, read back fresh (computed fields included). */
  const written = (c: Ctx, table: TableModel, ids: readonly string[], byFieldId: boolean): JsonObject[] => {
    const r = reader(c);
    const fresh = r.snapshot.tableById.get(table.row.id) ?? table;
    return ids.flatMap((id) => {
      const row = store.record(fresh.row.id, id);
      return row
        ? [recordJson(r.view(fresh, row), { cellFormat: 'json', returnFieldsByFieldId: byFieldId })]
        : [];
    });
  };

  function listRecords(c: Ctx) {
    const t = target(deps, c);
    if (!t.ok) return respond(c, t.error);
    return list(c, t.value, rawListFromQuery(c));
  }

  async function listRecordsByPost(c: Ctx) {
    const t = target(deps, c);
    if (!t.ok) return respond(c, t.error);
    const body = await readJson(c);
    if (!body.ok) return respond(c, body.error);
    const value = body.value ?? {};
    if (!isRecordObject(value)) return respond(c, errors.invalidRequest('The body must be a JSON object.'));
    const unknown = Object.keys(value).filter((k) => !(LIST_BODY_KEYS as readonly string[]).includes(k));
    if (unknown.length > 0) return respond(c, errors.invalidRequest(`Unknown parameter "${unknown[0]}".`));
    const raw: RawList = { ...value };
    // timeZone and userLocale may come as query parameters (pyairtable sends them there).
    for (const key of ['timeZone', 'userLocale'] as const) {
      const fromQuery = c.req.query(key);
      if (raw[key] === undefined && fromQuery !== undefined) raw[key] = fromQuery;
    }
    return list(c, t.value, raw);
  }

  function getRecord(c: Ctx) {
    const t = target(deps, c);
    if (!t.ok) return respond(c, t.error);
    const format = formatParams({
      cellFormat: c.req.query('cellFormat'),
      timeZone: c.req.query('timeZone'),
      userLocale: c.req.query('userLocale'),
      returnFieldsByFieldId: c.req.query('returnFieldsByFieldId'),
    });
    if (!format.ok) return respond(c, format.error);
    const recordId = param(c, 'recordId');
    // The upstream finds a record through any table of its base (a quirk clients rely on), and shows it as a
    // record of its own table.
    const row = store.record(t.value.table.row.id, recordId) ?? store.findRecord(recordId);
    const table = row ? store.schema().tableById.get(row.tableId) : undefined;
    if (!row || !table || table.row.baseId !== t.value.table.row.baseId) {
      return respond(c, errors.recordNotFound(recordId));
    }
    return c.json(recordJson(reader(c).view(table, row), format.value));
  }

  async function createRecords(c: Ctx) {
    const t = target(deps, c, 'create');
    if (!t.ok) return respond(c, t.error);
    const body = await readBody(c, 'createRecords');
    if (!body.ok) return respond(c, body.error);
    const single = body.value.records === undefined;
    const inputs = single ? recordInputs([{ fields: body.value.fields }]) : recordInputs(body.value.records);
    if (!inputs) return respond(c, errors.invalidRecords());
    const created = insertRecords(mutation(c, t.value), t.value.table, inputs, {
      typecast: body.value.typecast === true,
    });
    if (!created.ok) return respond(c, created.error);
    const records = written(c, t.value.table, created.value, body.value.returnFieldsByFieldId === true);
    return c.json(single ? (records[0] ?? {}) : { records });
  }

  const updateMany = (replace: boolean) => async (c: Ctx) => {
    const t = target(deps, c, 'update');
    if (!t.ok) return respond(c, t.error);
    const body = await readBody(c, replace ? 'replaceRecords' : 'updateRecords');
    if (!body.ok) return respond(c, body.error);
    const inputs = recordInputs(body.value.records);
    if (!inputs) return respond(c, errors.invalidRecords());
    const typecast = body.value.typecast === true;
    const byFieldId = body.value.returnFieldsByFieldId === true;
    const upsert = body.value.performUpsert;
    if (isRecordObject(upsert)) {
      const mergeOn = Array.isArray(upsert.fieldsToMergeOn) ? upsert.fieldsToMergeOn.map(String) : [];
      const result = upsertRecords(mutation(c, t.value), t.value.table, inputs, {
        typecast,
        replace,
        fieldsToMergeOn: mergeOn,
      });
      if (!result.ok) return respond(c, result.error);
      return c.json({
        records: written(c, t.value.table, result.value.ids, byFieldId),
        createdRecords: result.value.createdRecords,
        updatedRecords: result.value.updatedRecords,
      });
    }
    const result = updateRecords(mutation(c, t.value), t.value.table, inputs, { typecast, replace });
    if (!result.ok) return respond(c, result.error);
    return c.json({ records: written(c, t.value.table, result.value, byFieldId) });
  };
  const updateMultipleRecords = updateMany(false);
  const replaceMultipleRecords = updateMany(true);

  const updateOne = (replace: boolean) => async (c: Ctx) => {
    const t = target(deps, c, 'update');
    if (!t.ok) return respond(c, t.error);
    const recordId = param(c, 'recordId');
    if (!store.record(t.value.table.row.id, recordId)) return respond(c, errors.recordNotFound(recordId));
    const body = await readBody(c, replace ? 'replaceRecord' : 'updateRecord');
    if (!body.ok) return respond(c, body.error);
    const inputs = recordInputs([{ id: recordId, fields: body.value.fields }]);
    if (!inputs) return respond(c, errors.invalidRecords());
    const result = updateRecords(mutation(c, t.value), t.value.table, inputs, {
      typecast: body.value.typecast === true,
      replace,
    });
    if (!result.ok) return respond(c, result.error);
    const records = written(c, t.value.table, result.value, body.value.returnFieldsByFieldId === true);
    return c.json(records[0] ?? {});
  };
  const updateRecord = updateOne(false);
  const replaceRecord = updateOne(true);

  function deleteMultipleRecords(c: Ctx) {
    const t = target(deps, c, 'delete');
    if (!t.ok) return respond(c, t.error);
    const ids = arrayParam(c, 'records') ?? [];
    if (ids.length === 0 || ids.length > RECORDS_PER_REQUEST) return respond(c, errors.invalidRecords());
    const result = deleteRecords(mutation(c, t.value), t.value.table, ids);
    if (!result.ok) return respond(c, result.error);
    return c.json({ records: result.value.map((id) => ({ id, deleted: true })) });
  }

  function deleteRecord(c: Ctx) {
    const t = target(deps, c, 'delete');
    if (!t.ok) return respond(c, t.error);
    const result = deleteRecords(mutation(c, t.value), t.value.table, [param(c, 'recordId')]);
    if (!result.ok) return respond(c, result.error);
    return c.json({ id: result.value[0], deleted: true });
  }

  route(area, STORE_OPERATIONS.ListRecords, listRecords);
  route(area, STORE_OPERATIONS.ListRecordsByPost, listRecordsByPost);
  route(area, STORE_OPERATIONS.GetRecord, getRecord);
  route(area, STORE_OPERATIONS.CreateRecords, createRecords);
  route(area, STORE_OPERATIONS.UpdateMultipleRecords, updateMultipleRecords);
  route(area, STORE_OPERATIONS.ReplaceMultipleRecords, replaceMultipleRecords);
  route(area, STORE_OPERATIONS.UpdateRecord, updateRecord);
  route(area, STORE_OPERATIONS.ReplaceRecord, replaceRecord);
  route(area, STORE_OPERATIONS.DeleteMultipleRecords, deleteMultipleRecords);
  route(area, STORE_OPERATIONS.DeleteRecord, deleteRecord);
  return area;
}
