// Bulk data tables (HyperDB) in the store emulator: the seeded Customers table, getRecords (cursor paging, key
// selection, field filtering), upsertRecords (create vs update, merging, type checks, limits), deleteRecords,
// and who may call them (scopes, organisation, account of the table), through in-process requests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { BulkTables, type DataTableDoc } from '../../../../src/services/store/emulator/admin/bulkTables.js';
import { DEFAULT_STORE_TOKEN } from '../../../../src/services/store/emulator/app.js';
import { ADMIN_SEED } from '../../../../src/services/store/emulator/seed/admin.js';
import { BULK_SEED, seededCustomer } from '../../../../src/services/store/emulator/seed/bulkTables.js';
import { BULK_RECORDS_PER_REQUEST } from '../../../../src/services/store/schemas/index.js';
import { call, type Loose, makeEmulator, type Reply, type TestEmulator } from './helpers.js';

const HYPER_READ = 'pat_hyper_read';
const DATA_ONLY = 'pat_data_only';
const PAT = 'pat_partner_pat';
const EMILIE = 'pat_europe_emilie';
const KATHERINE = 'pat_deactivated_katherine';
const HYPER = ['hyperDB.records:read', 'hyperDB.records:write'];

/** User ids by email: ids are deterministic, so a probe emulator tells the ones the tokens need. */
const userIds = (() => {
  const probe = makeEmulator();
  const byEmail = new Map(probe.store.schema().users.map((u) => [u.email, u.id]));
  probe.close();
  const id = (email: string) => {
    const found = byEmail.get(email);
    if (!found) throw new Error(`no user ${email}`);
    return found;
  };
  return {
    pat: id(ADMIN_SEED.users.partner.email),
    emilie: id(ADMIN_SEED.users.europe.email),
    katherine: id(ADMIN_SEED.users.katherine.email),
  };
})();

function emulatorWithTokens(): TestEmulator {
  return makeEmulator({
    tokens: [
      { token: HYPER_READ, scopes: ['hyperDB.records:read'] },
      { token: DATA_ONLY, scopes: ['data.records:read', 'data.records:write'] },
      { token: PAT, userId: userIds.pat, scopes: HYPER },
      { token: EMILIE, userId: userIds.emilie, scopes: HYPER },
      { token: KATHERINE, userId: userIds.katherine, scopes: HYPER },
    ],
  });
}

function accountNamed(emulator: TestEmulator, name: string): string {
  const account = emulator.admin.state.list('account').find((a) => a.name === name);
  if (!account) throw new Error(`no account ${name}`);
  return account.id;
}

describe('bulk data tables', () => {
  let emulator: TestEmulator;
  let bulk: BulkTables;
  let root: string;
  let table: DataTableDoc;
  let path: (action: 'getRecords' | 'upsertRecords' | 'deleteRecords', account?: string) => string;
  const read = (body: unknown, token?: string): Promise<Reply> =>
    call(emulator, 'POST', path('getRecords'), { body, ...(token ? { token } : {}) });
  const upsert = (body: unknown, token?: string): Promise<Reply> =>
    call(emulator, 'PUT', path('upsertRecords'), { body, ...(token ? { token } : {}) });
  const remove = (body: unknown, token?: string): Promise<Reply> =>
    call(emulator, 'POST', path('deleteRecords'), { body, ...(token ? { token } : {}) });
  const keysOf = (reply: Reply) => (reply.body.records as Loose[]).map((r) => r.primaryKey as string);
  const customer = (index: number) => seededCustomer(index, new Date(emulator.store.seedInfo()!.seededAt));

  beforeEach(() => {
    emulator = emulatorWithTokens();
    bulk = new BulkTables(emulator.admin.deps.db);
    root = accountNamed(emulator, ADMIN_SEED.rootAccount);
    const [seeded] = bulk.tables();
    table = seeded!;
    path = (action, account = root) => `/v0/${account}/${table.id}/${action}`;
  });

  describe('the seed', () => {
    it('lays down Customers for the root account: 250 rows keyed by email, the same every time', () => {
      expect(bulk.tables()).toHaveLength(1);
      expect(table).toMatchObject({
        id: expect.stringMatching(/^dtb/),
        enterpriseAccountId: root,
        name: 'Customers',
        primaryKeyFieldName: 'email',
      });
      expect(table.fields).toEqual([
        { name: 'name', type: 'text' },
        { name: 'plan', type: 'text' },
        { name: 'seats', type: 'number' },
        { name: 'status', type: 'text' },
        { name: 'signupDate', type: 'text' },
      ]);
      const records = bulk.records(table.id);
      expect(records).toHaveLength(BULK_SEED.records);
      expect(new Set(records.map((r) => r.primaryKey)).size).toBe(BULK_SEED.records);
      for (const record of records) {
        expect(record.primaryKey).toMatch(/^[a-z.]+\.\d+@customers\.example\.com$/);
        expect(typeof record.fields.name).toBe('string');
        expect(['free', 'team', 'business', 'enterprise']).toContain(record.fields.plan);
        expect(Number.isInteger(record.fields.seats)).toBe(true);
        expect(['active', 'churned']).toContain(record.fields.status);
        expect(record.fields.signupDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
      expect(new Set(records.map((r) => r.fields.plan)).size).toBe(4);
      expect(records.some((r) => r.fields.status === 'churned')).toBe(true);
      // Deterministic: a second emulator seeds the same table id and rows.
      const other = emulatorWithTokens();
      const again = new BulkTables(other.admin.deps.db);
      expect(again.tables()[0]?.id).toBe(table.id);
      expect(again.records(table.id)).toEqual(records);
      other.close();
    });

    it('reseeds on /_emulator/reset, dropping what was written', async () => {
      const first = customer(0).primaryKey;
      expect((await remove({ primaryKeysForDelete: [first] })).status).toBe(200);
      expect(
        (await upsert({ records: [{ primaryKey: 'new@example.com', fields: { name: 'New' } }] })).status,
      ).toBe(200);
      expect(bulk.count(table.id)).toBe(BULK_SEED.records);
      const reset = await call(emulator, 'POST', '/_emulator/reset', { body: {} });
      expect(reset.status).toBe(200);
      expect(bulk.tables().map((t) => t.id)).toEqual([table.id]);
      expect(bulk.record(table.id, first)).toEqual(customer(0));
      expect(bulk.record(table.id, 'new@example.com')).toBeUndefined();
      expect(bulk.count(table.id)).toBe(BULK_SEED.records);
    });
    it('keeps rows in a file database across restarts, and reseeds them when started with reset', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'store-bulk-'));
      const db = join(dir, 'store.db');
      try {
        const first = makeEmulator({ db });
        const [seeded] = new BulkTables(first.admin.deps.db).tables();
        expect(seeded?.id).toBe(table.id);
        const body = { records: [{ primaryKey: 'kept@example.com', fields: { name: 'Kept' } }] };
        expect((await call(first, 'PUT', `/v0/${root}/${table.id}/upsertRecords`, { body })).status).toBe(
          200,
        );
        first.close();
        const second = makeEmulator({ db });
        const reopened = new BulkTables(second.admin.deps.db);
        expect(reopened.tables().map((t) => t.id)).toEqual([table.id]);
        expect(reopened.record(table.id, 'kept@example.com')?.fields).toEqual({ name: 'Kept' });
        second.close();
        const reset = makeEmulator({ db, reset: true });
        const reseeded = new BulkTables(reset.admin.deps.db);
        expect(reseeded.tables().map((t) => t.id)).toEqual([table.id]);
        expect(reseeded.record(table.id, 'kept@example.com')).toBeUndefined();
        expect(reseeded.count(table.id)).toBe(BULK_SEED.records);
        reset.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('POST getRecords', () => {
    it('returns every row in insertion order, with its key, cells and times, and no cursor when done', async () => {
      const reply = await read({});
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body)).toEqual(['records']);
      expect(reply.body.records).toHaveLength(BULK_SEED.records);
      expect(reply.body.records[0]).toEqual(customer(0));
      expect(reply.body.records[1]).toEqual(customer(1));
      expect(reply.body.records[1].updatedTime).toBeUndefined();
      expect(reply.body.records[0].updatedTime).toEqual(expect.any(String));
      expect(keysOf(reply)).toEqual(bulk.records(table.id).map((r) => r.primaryKey));
    });

    it('pages by cursor until the rows run out', async () => {
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const reply = await read({ maxRecords: 60, ...(cursor ? { cursor } : {}) });
        expect(reply.status).toBe(200);
        seen.push(...keysOf(reply));
        sizes.push(reply.body.records.length);
        cursor = reply.body.nextCursor;
        if (cursor === undefined) break;
        expect(typeof cursor).toBe('string');
      }
      expect(sizes).toEqual([60, 60, 60, 60, 10]);
      expect(seen).toEqual(bulk.records(table.id).map((r) => r.primaryKey));
      // An exact fit ends without a cursor too.
      const all = await read({ maxRecords: 250 });
      expect(all.body.records).toHaveLength(250);
      expect(all.body.nextCursor).toBeUndefined();
    });

    it('keeps a cursor valid while rows are added and deleted: no row is skipped or repeated', async () => {
      const first = await read({ maxRecords: 100 });
      const later = customer(150).primaryKey;
      expect((await remove({ primaryKeysForDelete: [later, customer(10).primaryKey] })).status).toBe(200);
      expect(
        (await upsert({ records: [{ primaryKey: 'late@example.com', fields: { plan: 'team' } }] })).status,
      ).toBe(200);
      const rest: string[] = [];
      let cursor: string | undefined = first.body.nextCursor;
      while (cursor) {
        const reply = await read({ maxRecords: 100, cursor });
        rest.push(...keysOf(reply));
        cursor = reply.body.nextCursor;
      }
      expect(rest).not.toContain(later);
      expect(rest.at(-1)).toBe('late@example.com');
      expect(new Set([...keysOf(first), ...rest]).size).toBe(100 + rest.length);
      expect(rest).toHaveLength(150);
    });

    it('selects rows by primaryKeys, in the order given; missing keys are absent, a repeated key comes once', async () => {
      const keys = [
        customer(42).primaryKey,
        'nobody@example.com',
        customer(3).primaryKey,
        customer(42).primaryKey,
      ];
      const reply = await read({ primaryKeys: keys });
      expect(reply.status).toBe(200);
      expect(keysOf(reply)).toEqual([customer(42).primaryKey, customer(3).primaryKey]);
      expect(reply.body.records[0]).toEqual(customer(42));
      expect(reply.body.nextCursor).toBeUndefined();
      expect((await read({ primaryKeys: [] })).body).toEqual({ records: [] });
    });

    it('pages through a key selection, and refuses its cursor with other keys', async () => {
      const keys = [5, 'gone', 7, 9, 'gone2', 11, 13].map((k) =>
        typeof k === 'number' ? customer(k).primaryKey : k,
      );
      const one = await read({ primaryKeys: keys, maxRecords: 2 });
      expect(keysOf(one)).toEqual([customer(5).primaryKey, customer(7).primaryKey]);
      const two = await read({ primaryKeys: keys, maxRecords: 2, cursor: one.body.nextCursor });
      expect(keysOf(two)).toEqual([customer(9).primaryKey, customer(11).primaryKey]);
      const three = await read({ primaryKeys: keys, maxRecords: 2, cursor: two.body.nextCursor });
      expect(keysOf(three)).toEqual([customer(13).primaryKey]);
      expect(three.body.nextCursor).toBeUndefined();
      const other = await read({ primaryKeys: keys.slice(1), maxRecords: 2, cursor: one.body.nextCursor });
      expect(other.status).toBe(422);
      expect(other.body.error.message).toContain('cursor');
      // A key-selection cursor is no scan cursor either.
      expect((await read({ cursor: one.body.nextCursor })).status).toBe(422);
    });

    it('filters cells by fields (the key field name is allowed) and names unknown fields with a 422', async () => {
      const reply = await read({ fields: ['seats', 'plan'], maxRecords: 3 });
      expect(reply.status).toBe(200);
      expect(reply.body.records[1]).toEqual({
        primaryKey: customer(1).primaryKey,
        fields: { plan: customer(1).fields.plan, seats: customer(1).fields.seats },
        createdTime: customer(1).createdTime,
      });
      const keyOnly = await read({ fields: ['email'], maxRecords: 1 });
      expect(keyOnly.body.records[0].fields).toEqual({});
      const unknown = await read({ fields: ['name', 'Revenue', 'tier'] });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error.type).toBe('UNKNOWN_FIELD_NAME');
      expect(unknown.body.error.message).toContain('"Revenue"');
      expect(unknown.body.error.message).toContain('"tier"');
    });

    it('refuses a forged cursor, another table’s cursor, and out-of-range bodies with a 422', async () => {
      expect((await read({ cursor: 'not-a-cursor' })).status).toBe(422);
      const otherTable = bulk.createTable({ ...table, id: 'dtbOtherTable0001', name: 'Other' });
      bulk.upsert(
        otherTable.id,
        [
          { primaryKey: 'a', fields: {} },
          { primaryKey: 'b', fields: {} },
        ],
        'x',
      );
      const theirs = await call(emulator, 'POST', `/v0/${root}/${otherTable.id}/getRecords`, {
        body: { maxRecords: 1 },
      });
      expect(theirs.status).toBe(200);
      const mixed = await read({ cursor: theirs.body.nextCursor });
      expect(mixed.status).toBe(422);
      expect(mixed.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
      const tooMany = await read({ maxRecords: BULK_RECORDS_PER_REQUEST + 1 });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.error.message).toContain('maxRecords');
      const keys = await read({ primaryKeys: Array.from({ length: 1001 }, (_, i) => `k${i}`) });
      expect(keys.status).toBe(422);
      expect(keys.body.error.message).toContain('primaryKeys');
      expect((await read({ extra: true })).status).toBe(422);
      const bad = await call(emulator, 'POST', path('getRecords'), { rawBody: '{"maxRecords":' });
      expect(bad.status).toBe(400);
    });

    it('answers with or without a trailing slash, and records no audit event (a read)', async () => {
      const before = emulator.admin.trail.count();
      const reply = await call(emulator, 'POST', `${path('getRecords')}/`, { body: { maxRecords: 1 } });
      expect(reply.status).toBe(200);
      expect(reply.body.records).toHaveLength(1);
      expect(emulator.admin.trail.count()).toBe(before);
    });
  });

  describe('PUT upsertRecords', () => {
    it('creates new rows and merges cells into existing ones; null clears a cell', async () => {
      emulator.clock.advance(60_000);
      const existing = customer(7);
      const reply = await upsert({
        records: [
          {
            primaryKey: 'new.one@example.com',
            fields: { name: 'New One', seats: 3, status: 'active', plan: null },
          },
          { primaryKey: existing.primaryKey, fields: { seats: 999, status: 'churned', plan: null } },
          { primaryKey: 'new.two@example.com', fields: {} },
        ],
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        createdPrimaryKeys: ['new.one@example.com', 'new.two@example.com'],
        updatedPrimaryKeys: [existing.primaryKey],
      });
      const now = emulator.clock.now().toISOString();
      expect(bulk.record(table.id, 'new.one@example.com')).toEqual({
        primaryKey: 'new.one@example.com',
        fields: { name: 'New One', seats: 3, status: 'active' },
        createdTime: now,
      });
      expect(bulk.record(table.id, 'new.two@example.com')?.fields).toEqual({});
      const updated = bulk.record(table.id, existing.primaryKey);
      expect(updated).toEqual({
        primaryKey: existing.primaryKey,
        fields: {
          name: existing.fields.name,
          seats: 999,
          status: 'churned',
          signupDate: existing.fields.signupDate,
        },
        createdTime: existing.createdTime,
        updatedTime: now,
      });
      expect(bulk.count(table.id)).toBe(BULK_SEED.records + 2);
      // New rows come last in reads; the updated one keeps its place.
      const all = await read({});
      expect(keysOf(all).slice(-2)).toEqual(['new.one@example.com', 'new.two@example.com']);
      expect(keysOf(all)[7]).toBe(existing.primaryKey);
      // The audit trail records the write against the table.
      const event = emulator.admin.deps.db
        .prepare('SELECT action, model_id, account_id FROM audit_events ORDER BY seq DESC LIMIT 1')
        .get();
      expect(event).toEqual({ action: 'upsertDataTableRecords', model_id: table.id, account_id: root });
    });

    it('upserting the same rows again updates them all', async () => {
      const rows = [{ primaryKey: 'x@example.com', fields: { name: 'X' } }];
      expect((await upsert({ records: rows })).body).toEqual({
        createdPrimaryKeys: ['x@example.com'],
        updatedPrimaryKeys: [],
      });
      expect((await upsert({ records: rows })).body).toEqual({
        createdPrimaryKeys: [],
        updatedPrimaryKeys: ['x@example.com'],
      });
    });

    it('names every unknown field with a 422 and changes nothing', async () => {
      const reply = await upsert({
        records: [
          { primaryKey: 'ok@example.com', fields: { name: 'Fine' } },
          { primaryKey: customer(1).primaryKey, fields: { Revenue: 10, name: 'Changed', tier: 'gold' } },
        ],
      });
      expect(reply.status).toBe(422);
      expect(reply.body.error.type).toBe('UNKNOWN_FIELD_NAME');
      expect(reply.body.error.message).toContain('"Revenue"');
      expect(reply.body.error.message).toContain('"tier"');
      expect(bulk.record(table.id, 'ok@example.com')).toBeUndefined();
      expect(bulk.record(table.id, customer(1).primaryKey)).toEqual(customer(1));
    });

    it('checks values against the field types, and refuses the key field among the cells', async () => {
      for (const [fields, field] of [
        [{ seats: 'ten' }, 'seats'],
        [{ status: 7 }, 'status'],
        [{ name: 42 }, 'name'],
        [{ signupDate: 20240301 }, 'signupDate'],
      ] as const) {
        const reply = await upsert({ records: [{ primaryKey: 'typed@example.com', fields }] });
        expect(reply.status, field).toBe(422);
        expect(reply.body.error.type).toBe('INVALID_VALUE_FOR_COLUMN');
        expect(reply.body.error.message).toContain(`"${field}"`);
      }
      const key = await upsert({
        records: [{ primaryKey: 'k@example.com', fields: { email: 'other@example.com' } }],
      });
      expect(key.status).toBe(422);
      expect(key.body.error.message).toContain('primary key');
      expect(bulk.record(table.id, 'typed@example.com')).toBeUndefined();
      expect(bulk.record(table.id, 'k@example.com')).toBeUndefined();
    });

    it('takes text, numbers, ISO dates and null, as the published body does, and refuses booleans', async () => {
      const dated = await upsert({
        records: [
          { primaryKey: 'dated@example.com', fields: { signupDate: '2024-03-01T00:00:00.000Z', seats: 2 } },
        ],
      });
      expect(dated.status).toBe(200);
      const reply = await upsert({
        records: [{ primaryKey: 'flag@example.com', fields: { name: 'Flag', status: true } }],
      });
      expect(reply.status).toBe(422);
      expect(reply.body.error.message).toContain('status');
      expect(bulk.record(table.id, 'flag@example.com')).toBeUndefined();
    });

    it('takes 1000 rows, refuses 1001, repeated keys, empty keys, nested cells and no rows (422)', async () => {
      const rows = (n: number) =>
        Array.from({ length: n }, (_, i) => ({ primaryKey: `bulk${i}@example.com`, fields: { seats: i } }));
      const full = await upsert({ records: rows(BULK_RECORDS_PER_REQUEST) });
      expect(full.status).toBe(200);
      expect(full.body.createdPrimaryKeys).toHaveLength(BULK_RECORDS_PER_REQUEST);
      expect(bulk.count(table.id)).toBe(BULK_SEED.records + BULK_RECORDS_PER_REQUEST);

      const over = await upsert({ records: rows(BULK_RECORDS_PER_REQUEST + 1) });
      expect(over.status).toBe(422);
      expect(over.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
      expect(over.body.error.message).toContain('at most 1000 records');
      const twice = await upsert({
        records: [
          { primaryKey: 'dup@example.com', fields: { seats: 1 } },
          { primaryKey: 'dup@example.com', fields: { seats: 2 } },
        ],
      });
      expect(twice.status).toBe(422);
      expect(twice.body.error.message).toContain('records[1].primaryKey');
      expect(twice.body.error.message).toContain('listed twice');
      expect(bulk.record(table.id, 'dup@example.com')).toBeUndefined();
      const empty = await upsert({ records: [{ primaryKey: '', fields: {} }] });
      expect(empty.status).toBe(422);
      expect(empty.body.error.message).toContain('records[0].primaryKey');
      expect((await upsert({ records: [{ primaryKey: 'n', fields: { name: ['a'] } }] })).status).toBe(422);
      expect((await upsert({ records: [] })).status).toBe(422);
      expect((await upsert(undefined)).status).toBe(422);
      expect(bulk.count(table.id)).toBe(BULK_SEED.records + BULK_RECORDS_PER_REQUEST);
    });
  });

  describe('POST deleteRecords', () => {
    it('deletes rows by key and echoes the keys; unknown keys are ignored', async () => {
      const keys = [customer(0).primaryKey, 'nobody@example.com', customer(249).primaryKey];
      const reply = await remove({ primaryKeysForDelete: keys });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ primaryKeysForDelete: keys });
      expect(bulk.record(table.id, customer(0).primaryKey)).toBeUndefined();
      expect(bulk.record(table.id, customer(249).primaryKey)).toBeUndefined();
      expect(bulk.count(table.id)).toBe(BULK_SEED.records - 2);
      // Again: the same answer, nothing more deleted.
      expect((await remove({ primaryKeysForDelete: keys })).body).toEqual({ primaryKeysForDelete: keys });
      expect(bulk.count(table.id)).toBe(BULK_SEED.records - 2);
      const event = emulator.admin.deps.db
        .prepare('SELECT action, model_id FROM audit_events ORDER BY seq DESC LIMIT 1')
        .get();
      expect(event).toEqual({ action: 'deleteDataTableRecords', model_id: table.id });
    });

    it('refuses no keys, empty keys, more than 1000 keys and other properties (422)', async () => {
      expect((await remove({ primaryKeysForDelete: [] })).status).toBe(422);
      const blank = await remove({ primaryKeysForDelete: [''] });
      expect(blank.status).toBe(422);
      expect(blank.body.error.message).toContain('primaryKeysForDelete[0]');
      const over = await remove({
        primaryKeysForDelete: Array.from({ length: BULK_RECORDS_PER_REQUEST + 1 }, (_, i) => `k${i}`),
      });
      expect(over.status).toBe(422);
      expect(over.body.error.message).toContain('at most 1000 primary keys');
      expect((await remove({ primaryKeys: [customer(0).primaryKey] })).status).toBe(422);
      expect(bulk.count(table.id)).toBe(BULK_SEED.records);
    });
  });

  describe('who may call', () => {
    const refused = (reply: Reply) => {
      expect(reply.status).toBe(403);
      expect(reply.body.error.type).toBe('INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND');
    };

    it('needs hyperDB.records:read to read and hyperDB.records:write to change', async () => {
      expect((await read({ maxRecords: 1 }, HYPER_READ)).status).toBe(200);
      refused(await upsert({ records: [{ primaryKey: 'ro@example.com', fields: {} }] }, HYPER_READ));
      refused(await remove({ primaryKeysForDelete: [customer(0).primaryKey] }, HYPER_READ));
      // The data plane's record scopes are not enough.
      refused(await read({}, DATA_ONLY));
      refused(await upsert({ records: [{ primaryKey: 'ro@example.com', fields: {} }] }, DATA_ONLY));
      expect(bulk.record(table.id, 'ro@example.com')).toBeUndefined();
      expect(bulk.count(table.id)).toBe(BULK_SEED.records);
      const anonymous = await call(emulator, 'POST', path('getRecords'), { body: {}, token: null });
      expect(anonymous.status).toBe(401);
    });

    it('checks the caller before the body', async () => {
      refused(await upsert({ records: [] }, HYPER_READ));
    });

    it('refuses someone from another organisation, with his own token, on either account id', async () => {
      refused(await read({}, PAT));
      refused(await upsert({ records: [{ primaryKey: 'pat@example.com', fields: {} }] }, PAT));
      refused(await remove({ primaryKeysForDelete: [customer(0).primaryKey] }, PAT));
      const partner = accountNamed(emulator, ADMIN_SEED.otherOrganisation);
      refused(await call(emulator, 'POST', path('getRecords', partner), { body: {}, token: PAT }));
      expect(bulk.count(table.id)).toBe(BULK_SEED.records);
      // His organisation's own tables are his to use, and closed to the sandbox owner.
      const theirs = bulk.createTable({ ...table, id: 'dtbPartnerTable01', enterpriseAccountId: partner });
      const own = await call(emulator, 'PUT', `/v0/${partner}/${theirs.id}/upsertRecords`, {
        token: PAT,
        body: { records: [{ primaryKey: 'p1', fields: { name: 'P' } }] },
      });
      expect(own.status).toBe(200);
      refused(await call(emulator, 'POST', `/v0/${partner}/${theirs.id}/getRecords`, { body: {} }));
    });

    it('lets members of any account of the organisation in, but not a deactivated one', async () => {
      const europe = await read({ maxRecords: 2 }, EMILIE);
      expect(europe.status).toBe(200);
      expect(europe.body.records).toHaveLength(2);
      // A deactivated user's token stops working altogether.
      const deactivated = await read({}, KATHERINE);
      expect(deactivated.status).toBe(401);
      expect(deactivated.body.error.type).toBe('AUTHENTICATION_REQUIRED');
    });

    it('treats unknown accounts and tables, and a table named under another account, as not found', async () => {
      const europe = accountNamed(emulator, ADMIN_SEED.descendantAccount);
      refused(await call(emulator, 'POST', path('getRecords', europe), { body: {} }));
      refused(await call(emulator, 'POST', path('getRecords', 'entUnknown0000000'), { body: {} }));
      refused(await call(emulator, 'POST', `/v0/${root}/dtbUnknown0000000/getRecords`, { body: {} }));
      refused(
        await call(emulator, 'PUT', `/v0/${root}/dtbUnknown0000000/upsertRecords`, {
          body: { records: [{ primaryKey: 'a', fields: {} }] },
        }),
      );
    });
  });

  it('leaves the data plane’s /v0/{baseId}/{table} routes alone', async () => {
    const crm = emulator.store.schema().bases[1]!;
    const [firstTable] = emulator.store.schema().tablesOfBase.get(crm.id) ?? [];
    const list = await call(emulator, 'GET', `/v0/${crm.id}/${firstTable!.row.id}?maxRecords=1`, {
      token: DEFAULT_STORE_TOKEN,
    });
    expect(list.status).toBe(200);
    expect(list.body.records[0].id).toMatch(/^rec/);
    // A base id in the account position is not a bulk table route.
    const notBulk = await call(emulator, 'POST', `/v0/${crm.id}/${firstTable!.row.id}/getRecords`, {
      body: {},
    });
    expect(notBulk.status).not.toBe(200);
  });
});
