// The bulk data table tools end to end: the SDK's MCP client -> Switchboard over HTTP -> the data-store emulator
// on loopback. Reads page through the seeded Customers table; upserts and deletes go through schema mode; each
// call is checked in the tool result, the exact upstream request the emulator logged, and the emulator's rows.
// Refusals (another organisation's caller, a read-only token, an unknown field) come back as tool errors.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestBodyDocument } from '../../src/runtime/schemaMode.js';
import { BulkTables, type DataTableDoc } from '../../src/services/store/emulator/admin/bulkTables.js';
import { createStoreEmulator } from '../../src/services/store/emulator/app.js';
import { ADMIN_SEED } from '../../src/services/store/emulator/seed/admin.js';
import { BULK_SEED } from '../../src/services/store/emulator/seed/bulkTables.js';
import { STORE_BODIES } from '../../src/services/store/schemas/index.js';
import { type Connected, errorOf } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore } from './storeHarness.js';

const T = (name: string) => `StoreApi.${name}`;
const json = (value: unknown) => JSON.stringify(value);

const PAT_TOKEN = 'pat_partner_pat_e2e';
const READ_ONLY_TOKEN = 'pat_hyper_read_e2e';

interface Row {
  primaryKey: string;
  fields: Record<string, unknown>;
  createdTime: string;
  updatedTime?: string;
}

/** Pat's user id: seeded ids are deterministic, so a throwaway emulator tells it. */
function partnerUserId(): string {
  const probe = createStoreEmulator({ db: ':memory:' });
  const id = probe.store.schema().users.find((u) => u.email === ADMIN_SEED.users.partner.email)?.id;
  probe.close();
  if (!id) throw new Error('no partner user');
  return id;
}

let upstream: StoreEmulatorHandle;
let mcp: Connected;
let bulk: BulkTables;
let table: DataTableDoc;
let account: string;
let tablePath: string;

const ok = async (tool: string, args: Record<string, unknown>) => {
  const result = await mcp.call(T(tool), args);
  if (result.isError) throw new Error(`${tool}: ${result.text}`);
  return result.structured;
};
const exec = (tool: string, body: unknown, client: Connected = mcp) =>
  client.call(T(tool), {
    mode: 'execute',
    enterprise_account_id: account,
    data_table_id: table.id,
    request_body: json(body),
  });

beforeAll(async () => {
  upstream = await startStore({
    tokens: [
      {
        token: PAT_TOKEN,
        userId: partnerUserId(),
        scopes: ['hyperDB.records:read', 'hyperDB.records:write'],
      },
      { token: READ_ONLY_TOKEN, scopes: ['hyperDB.records:read'] },
    ],
  });
  mcp = await connectStore('http', upstream.env());
  bulk = new BulkTables(upstream.emulator.admin.deps.db);
  table = bulk.tables()[0]!;
  account = table.enterpriseAccountId;
  tablePath = `/v0/${account}/${table.id}`;
});
afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
});
beforeEach(() => upstream.clearLog());

describe('StoreApi bulk data tables end to end', () => {
  it('the seeded table belongs to the root account', async () => {
    const accounts = await upstream.state<{ id: string; name: string }>('enterprise_accounts');
    expect(accounts.find((a) => a.id === account)?.name).toBe(ADMIN_SEED.rootAccount);
    expect(table.name).toBe(BULK_SEED.tableName);
    expect(bulk.count(table.id)).toBe(BULK_SEED.records);
  });

  it('schema mode: the upsert and delete tools return their body schema and call nothing', async () => {
    for (const [tool, body] of [
      ['UpsertStoreRecords', 'upsertBulkRecords'],
      ['DeleteRecordsByPrimaryKeys', 'deleteBulkRecords'],
    ] as const) {
      const result = await ok(tool, { mode: 'get_request_schema' });
      expect(result.tool, tool).toEqual(expect.stringContaining(tool));
      expect(result.request_body, tool).toEqual(requestBodyDocument(STORE_BODIES[body]));
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('ReadBulkTableRecords pages through the table with the cursor until it runs out', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const page = await ok('ReadBulkTableRecords', {
        enterprise_account_id: account,
        data_table_id: table.id,
        maximum_records_to_retrieve: 100,
        fields_to_retrieve: ['name', 'plan'],
        ...(cursor ? { pagination_cursor: cursor } : {}),
      });
      const rows = page.records as Row[];
      for (const row of rows) expect(Object.keys(row.fields).sort()).toEqual(['name', 'plan']);
      seen.push(...rows.map((r) => r.primaryKey));
      cursor = page.nextCursor as string | undefined;
      calls++;
    } while (cursor !== undefined && calls < 10);
    expect(calls).toBe(3);
    expect(seen).toEqual(bulk.records(table.id).map((r) => r.primaryKey));
    const requests = await upstream.requests();
    expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(
      Array(3).fill(`POST ${tablePath}/getRecords 200`),
    );
    expect(requests[0]!.body).toEqual({ fields: ['name', 'plan'], maxRecords: 100 });
    expect(requests[1]!.body).toEqual({
      fields: ['name', 'plan'],
      maxRecords: 100,
      cursor: expect.any(String),
    });
  });

  it('ReadBulkTableRecords selects rows by primary key, in the order given', async () => {
    const [first, second] = bulk.records(table.id);
    const result = await ok('ReadBulkTableRecords', {
      enterprise_account_id: account,
      data_table_id: table.id,
      primary_keys_to_retrieve: [second!.primaryKey, 'nobody@example.com', first!.primaryKey],
    });
    expect((result.records as Row[]).map((r) => r.primaryKey)).toEqual([
      second!.primaryKey,
      first!.primaryKey,
    ]);
    expect((result.records as Row[])[1]).toEqual(first);
    expect(result.nextCursor).toBeUndefined();
    const [request] = await upstream.requests();
    expect(request).toMatchObject({
      method: 'POST',
      path: `${tablePath}/getRecords`,
      body: { primaryKeys: [second!.primaryKey, 'nobody@example.com', first!.primaryKey] },
    });
  });

  it('UpsertStoreRecords creates and updates rows by key', async () => {
    const existing = bulk.records(table.id)[4]!;
    const body = {
      records: [
        { primaryKey: 'e2e.new@example.com', fields: { name: 'E2E New', seats: 4, status: 'active' } },
        { primaryKey: existing.primaryKey, fields: { plan: 'enterprise', seats: 77, status: null } },
      ],
    };
    const result = await exec('UpsertStoreRecords', body);
    expect(result.isError).toBe(false);
    expect(result.structured).toEqual({
      createdPrimaryKeys: ['e2e.new@example.com'],
      updatedPrimaryKeys: [existing.primaryKey],
    });
    const [request] = await upstream.requests();
    expect(request).toMatchObject({ method: 'PUT', path: `${tablePath}/upsertRecords`, status: 200, body });
    expect(bulk.record(table.id, 'e2e.new@example.com')?.fields).toEqual({
      name: 'E2E New',
      seats: 4,
      status: 'active',
    });
    const updated = bulk.record(table.id, existing.primaryKey)!;
    expect(updated.fields).toEqual({
      name: existing.fields.name,
      plan: 'enterprise',
      seats: 77,
      signupDate: existing.fields.signupDate,
    });
    expect(updated.updatedTime).toEqual(expect.any(String));
  });

  it('UpsertStoreRecords refuses a boolean cell before sending, as the published body allows none', async () => {
    const result = await exec('UpsertStoreRecords', {
      records: [{ primaryKey: 'e2e.flag@example.com', fields: { status: true } }],
    });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('status');
    expect(await upstream.requests()).toEqual([]);
    expect(bulk.record(table.id, 'e2e.flag@example.com')).toBeUndefined();
  });

  it('DeleteRecordsByPrimaryKeys deletes rows and echoes the keys', async () => {
    const victim = bulk.records(table.id)[9]!.primaryKey;
    const body = { primaryKeysForDelete: [victim, 'nobody@example.com'] };
    const result = await exec('DeleteRecordsByPrimaryKeys', body);
    expect(result.isError).toBe(false);
    expect(result.structured).toEqual(body);
    const [request] = await upstream.requests();
    expect(request).toMatchObject({ method: 'POST', path: `${tablePath}/deleteRecords`, status: 200, body });
    expect(bulk.record(table.id, victim)).toBeUndefined();
  });

  it('refusals come back as tool errors: unknown field, read-only token, another organisation', async () => {
    const before = bulk.count(table.id);
    const unknown = await exec('UpsertStoreRecords', {
      records: [{ primaryKey: 'x@example.com', fields: { Revenue: 1 } }],
    });
    expect(unknown.isError).toBe(true);
    expect(errorOf(unknown)).toMatchObject({ status: 422, upstream_code: 'UNKNOWN_FIELD_NAME' });
    expect(errorOf(unknown).message).toContain('"Revenue"');

    const readOnly = await connectStore('http', upstream.env({ STORE_ACCESS_TOKEN: READ_ONLY_TOKEN }));
    try {
      const read = await readOnly.call(T('ReadBulkTableRecords'), {
        enterprise_account_id: account,
        data_table_id: table.id,
        maximum_records_to_retrieve: 1,
      });
      expect(read.isError).toBe(false);
      const write = await exec(
        'UpsertStoreRecords',
        { records: [{ primaryKey: 'ro@example.com', fields: {} }] },
        readOnly,
      );
      expect(errorOf(write)).toMatchObject({
        kind: 'forbidden',
        status: 403,
        upstream_code: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
      });
    } finally {
      await readOnly.close();
    }

    const pat = await connectStore('http', upstream.env({ STORE_ACCESS_TOKEN: PAT_TOKEN }));
    try {
      const del = await exec(
        'DeleteRecordsByPrimaryKeys',
        { primaryKeysForDelete: [bulk.records(table.id)[0]!.primaryKey] },
        pat,
      );
      expect(errorOf(del)).toMatchObject({ kind: 'forbidden', status: 403 });
      const read = await pat.call(T('ReadBulkTableRecords'), {
        enterprise_account_id: account,
        data_table_id: table.id,
      });
      expect(errorOf(read)).toMatchObject({ kind: 'forbidden', status: 403 });
    } finally {
      await pat.close();
    }
    expect(bulk.count(table.id)).toBe(before);
    expect(bulk.record(table.id, 'ro@example.com')).toBeUndefined();
    const statuses = (await upstream.requests()).map(
      (r) => `${r.method} ${r.path.split('/').at(-1)} ${r.status}`,
    );
    expect(statuses).toEqual([
      'PUT upsertRecords 422',
      'POST getRecords 200',
      'PUT upsertRecords 403',
      'POST deleteRecords 403',
      'POST getRecords 403',
    ]);
  });

  it('over 1000 keys is refused before anything is sent', async () => {
    const result = await mcp.call(T('ReadBulkTableRecords'), {
      enterprise_account_id: account,
      data_table_id: table.id,
      primary_keys_to_retrieve: Array.from({ length: 1001 }, (_, i) => `k${i}`),
    });
    expect(errorOf(result).kind).toBe('invalid_arguments');
    const upsert = await exec('UpsertStoreRecords', {
      records: Array.from({ length: 1001 }, (_, i) => ({ primaryKey: `k${i}`, fields: {} })),
    });
    expect(errorOf(upsert).kind).toBe('invalid_arguments');
    expect(await upstream.requests()).toEqual([]);
  });
});
