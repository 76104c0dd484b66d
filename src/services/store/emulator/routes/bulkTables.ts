/**
 * Bulk data tables (HyperDB) routes: read rows by key or by cursor, upsert rows, delete rows by key, under
 * `/v0/{enterpriseAccountId}/{dataTableId}/…`. The upstream documents these only through third parties
 * (upstream-apis.md C.8), so the response shapes below are the emulator's choices, each said where it is made.
 *
 * Access: the token's hyperDB scope, and a caller who belongs to the account's organisation (any account of
 * it); an unknown account or table, a table of another account, or a caller from elsewhere is the upstream's
 * model-not-found 403, as in the rest of the API. Registered before the data plane, matching only account ids
 * that start with `ent`, so `/v0/{baseId}/{table}/…` paths keep reaching the records routes.
 */
import { createHash } from 'node:crypto';
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import type {
  deleteBulkRecordsBody,
  readBulkRecordsBody,
  upsertBulkRecordsBody,
} from '../../schemas/bulkTables.js';
import { BULK_RECORDS_PER_REQUEST } from '../../schemas/bulkTables.js';
import { type BulkCell, type BulkRecord, type DataTableDoc, upsertProblem } from '../admin/bulkTables.js';
import type { AdminRouteDeps } from '../admin/guards.js';
import type { Principal } from '../auth.js';
import { errors, respond, type StoreError } from '../errors.js';
import { type Ctx, createArea, param, readBody, route } from './common.js';

const READ_SCOPE = 'hyperDB.records:read';
const WRITE_SCOPE = 'hyperDB.records:write';
/** Only account ids (`ent…`) match, so `/v0/{baseId}/{table}/…` paths keep reaching the records routes. */
const ENTERPRISE_ONLY = { patterns: { enterpriseAccountId: 'ent[^/]*' } } as const;

/** The request bodies, by the name of their shared schema. */
interface BulkBodies {
  readBulkRecords: z.infer<typeof readBulkRecordsBody>;
  upsertBulkRecords: z.infer<typeof upsertBulkRecordsBody>;
  deleteBulkRecords: z.infer<typeof deleteBulkRecordsBody>;
}

/**
 * The table in the path, if the caller may use it under `scope`, then the request's body checked against its
 * schema `name` (in that order, as the upstream checks access first).
 */
async function dataTableRequest<N extends keyof BulkBodies>(
  c: Ctx,
  deps: AdminRouteDeps,
  scope: string,
  name: N,
): Promise<Result<{ table: DataTableDoc; body: BulkBodies[N] }, StoreError>> {
  const access = requireDataTable(c, deps, scope);
  if (!access.ok) return access;
  const body = await readBody(c, name);
  if (!body.ok) return body;
  // readBody has checked the body against the schema of this name.
  return ok({ table: access.value.table, body: body.value as BulkBodies[N] });
}

/** The account and table in the path, if the caller may use them under `scope`. */
function requireDataTable(
  c: Ctx,
  deps: AdminRouteDeps,
  scope: string,
): Result<{ principal: Principal; table: DataTableDoc }, StoreError> {
  const principal = deps.access.require(c, scope);
  if (!principal.ok) return principal;
  const account = deps.state.account(param(c, 'enterpriseAccountId'));
  const profile = deps.state.profile(principal.value.userId);
  // Members of any account of the organisation may use its tables; a deactivated user may not.
  const member =
    account !== undefined &&
    profile !== undefined &&
    profile.state === 'provisioned' &&
    profile.enterpriseAccountId !== null &&
    deps.state.accountScope(account.rootEnterpriseAccountId).has(profile.enterpriseAccountId);
  const table = member ? deps.bulk.table(param(c, 'dataTableId')) : undefined;
  if (!account || !table || table.enterpriseAccountId !== account.id) {
    return err(errors.modelNotFound());
  }
  return ok({ principal: principal.value, table });
}

// --- cursors: opaque to callers; they name the table, and for a key selection its position and the keys' hash.

type Cursor = { t: string; a: number } | { t: string; i: number; h: string };

const keysHash = (keys: readonly string[]) =>
  createHash('sha256').update(JSON.stringify(keys)).digest('base64url').slice(0, 16);

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

const badCursor = (): StoreError =>
  errors.invalidRequest(
    'cursor: not a cursor this table gave for this request (the same primaryKeys, or none). Start again without a cursor.',
  );

function decodeCursor(
  raw: string,
  table: DataTableDoc,
  keys: readonly string[] | undefined,
): Cursor | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const cursor = value as Record<string, unknown>;
  if (cursor.t !== table.id) return undefined;
  if (keys === undefined) {
    return Number.isSafeInteger(cursor.a) && (cursor.a as number) >= 0
      ? { t: table.id, a: cursor.a as number }
      : undefined;
  }
  const index = cursor.i;
  if (!Number.isSafeInteger(index) || (index as number) < 0 || cursor.h !== keysHash(keys)) return undefined;
  return { t: table.id, i: index as number, h: cursor.h as string };
}

/** A row as reads return it: `{primaryKey, fields, createdTime, updatedTime?}`, cells limited to `only`. */
function present(record: BulkRecord, only: ReadonlySet<string> | undefined): BulkRecord {
  if (only === undefined) return record;
  const fields: Record<string, BulkCell> = {};
  for (const [name, value] of Object.entries(record.fields)) if (only.has(name)) fields[name] = value;
  return { ...record, fields };
}

export function bulkTablesArea(deps: AdminRouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { bulk } = deps;

  // Read → `{records: [{primaryKey, fields, createdTime, updatedTime?}], nextCursor?}`; nextCursor only when
  // more rows remain. Rows come in insertion order, or in the order of `primaryKeys` (keys with no row are
  // left out, a repeated key is returned once, [] selects nothing). Pages default to 1000 rows.
  async function getDataTableRecords(c: Ctx) {
    const request = await dataTableRequest(c, deps, READ_SCOPE, 'readBulkRecords');
    if (!request.ok) return respond(c, request.error);
    const { table, body } = request.value;

    let only: Set<string> | undefined;
    if (body.fields !== undefined) {
      const known = new Set([table.primaryKeyFieldName, ...table.fields.map((f) => f.name)]);
      const unknown = [...new Set(body.fields.filter((name) => !known.has(name)))];
      if (unknown.length > 0) {
        return respond(c, {
          status: 422,
          type: 'UNKNOWN_FIELD_NAME',
          message: `Unknown field name${unknown.length > 1 ? 's' : ''} in fields: ${unknown.map((n) => JSON.stringify(n)).join(', ')}.`,
        });
      }
      only = new Set(body.fields);
    }
    const limit = body.maxRecords ?? BULK_RECORDS_PER_REQUEST;
    const cursor = body.cursor === undefined ? undefined : decodeCursor(body.cursor, table, body.primaryKeys);
    if (body.cursor !== undefined && cursor === undefined) return respond(c, badCursor());

    const records: BulkRecord[] = [];
    let next: Cursor | undefined;
    if (body.primaryKeys !== undefined) {
      const keys = body.primaryKeys;
      const start = cursor !== undefined && 'i' in cursor ? cursor.i : 0;
      const seen = new Set(keys.slice(0, start));
      for (let index = start; index < keys.length; index++) {
        const key = keys[index] as string;
        if (seen.has(key)) continue;
        seen.add(key);
        const record = bulk.record(table.id, key);
        if (!record) continue;
        if (records.length === limit) {
          next = { t: table.id, i: index, h: keysHash(keys) };
          break;
        }
        records.push(record);
      }
    } else {
      const page = bulk.page(table.id, cursor && 'a' in cursor ? cursor.a : 0, limit + 1);
      const shown = page.slice(0, limit);
      records.push(...shown.map((r) => r.record));
      const last = shown.at(-1);
      if (page.length > limit && last) next = { t: table.id, a: last.seq };
    }
    return c.json({
      records: records.map((r) => present(r, only)),
      ...(next === undefined ? {} : { nextCursor: encodeCursor(next) }),
    });
  }

  // Upsert → `{createdPrimaryKeys, updatedPrimaryKeys}` in request order. Cells merge into an existing row
  // (null clears one); all rows are checked first, so a refused request changes nothing.
  async function upsertDataTableRecords(c: Ctx) {
    const request = await dataTableRequest(c, deps, WRITE_SCOPE, 'upsertBulkRecords');
    if (!request.ok) return respond(c, request.error);
    const { table, body } = request.value;
    const problem = upsertProblem(table, body.records);
    if (problem) return respond(c, problem);
    const now = deps.clock.now().toISOString();
    const result = deps.store.transaction(() => bulk.upsert(table.id, body.records, now));
    return c.json({ createdPrimaryKeys: result.created, updatedPrimaryKeys: result.updated });
  }

  // Delete → echoes `{primaryKeysForDelete}` as sent; keys with no row are ignored (deleting is idempotent, so
  // a retried request answers the same).
  async function deleteDataTableRecords(c: Ctx) {
    const request = await dataTableRequest(c, deps, WRITE_SCOPE, 'deleteBulkRecords');
    if (!request.ok) return respond(c, request.error);
    const { table, body } = request.value;
    deps.store.transaction(() => bulk.delete(table.id, body.primaryKeysForDelete));
    return c.json({ primaryKeysForDelete: body.primaryKeysForDelete });
  }

  route(area, STORE_OPERATIONS.GetDataTableRecords, getDataTableRecords, ENTERPRISE_ONLY);
  route(area, STORE_OPERATIONS.UpsertDataTableRecords, upsertDataTableRecords, ENTERPRISE_ONLY);
  route(area, STORE_OPERATIONS.DeleteDataTableRecords, deleteDataTableRecords, ENTERPRISE_ONLY);
  return area;
}
