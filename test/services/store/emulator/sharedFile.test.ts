// Two store emulators over one SQLite file, as two sandbox processes are (each with its own connection and its
// own in-memory caches): whatever one writes, the other sees on its next request and never writes over with a
// stale copy, and every id, sequence number and cursor either draws comes from the file, so none is drawn
// twice. Requests alternate (one at a time: in one process, two connections cannot both wait for the lock).
// The real two-process check is test/e2e/sandbox-shared-data.test.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ids, type Loose, makeEmulator, type TestEmulator } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'store-shared-'));
let a: TestEmulator;
let b: TestEmulator;

beforeAll(() => {
  const db = join(dir, 'store.db');
  a = makeEmulator({ db });
  b = makeEmulator({ db });
});
afterAll(() => {
  a?.close();
  b?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('two store emulators on one file', () => {
  it("seeds once: the second opens the first one's data", () => {
    expect(b.seeding.fresh).toBe(false);
    expect(b.store.schema().bases.map((x) => x.id)).toEqual(a.store.schema().bases.map((x) => x.id));
  });

  it('creates records from both with distinct ids, each readable from the other', async () => {
    const features = ids(a, 'Product Roadmap', 'Features');
    const path = `/v0/${features.base}/${features.table}`;
    const made: { id: string; by: TestEmulator; name: string }[] = [];
    for (let i = 0; i < 3; i++) {
      for (const [who, emulator] of [
        ['a', a],
        ['b', b],
      ] as const) {
        const name = `${who}-${i}`;
        const res = await call(emulator, 'POST', path, { body: { records: [{ fields: { Name: name } }] } });
        expect(res.status, name).toBe(200);
        made.push({ id: res.body.records[0].id, by: emulator, name });
      }
    }
    expect(new Set(made.map((m) => m.id)).size).toBe(made.length);
    for (const record of made) {
      const other = record.by === a ? b : a;
      const got = await call(other, 'GET', `${path}/${record.id}`);
      expect(got.status, record.name).toBe(200);
      expect(got.body.fields.Name).toBe(record.name);
    }
    // Both recorded the change events of their writes, numbered from the file.
    const events = a.admin.deps.db.prepare('SELECT seq, id FROM change_events').all() as Loose[];
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it("merges an update into the record as it is now, not as the other's cache last saw it", async () => {
    const features = ids(a, 'Product Roadmap', 'Features');
    const path = `/v0/${features.base}/${features.table}`;
    const created = await call(a, 'POST', path, { body: { records: [{ fields: { Name: 'shared' } }] } });
    const id = created.body.records[0].id as string;
    expect((await call(b, 'GET', `${path}/${id}`)).status).toBe(200);
    await call(a, 'PATCH', `${path}/${id}`, { body: { fields: { Name: 'renamed by a' } } });
    await call(b, 'PATCH', `${path}/${id}`, { body: { fields: { 'Spec URL': 'https://b.example.com' } } });
    for (const emulator of [a, b]) {
      const got = await call(emulator, 'GET', `${path}/${id}`);
      expect(got.body.fields).toMatchObject({ Name: 'renamed by a', 'Spec URL': 'https://b.example.com' });
    }
  });

  it('sees fields and workspaces the other created (schema and administration caches)', async () => {
    const features = ids(a, 'Product Roadmap', 'Features');
    // Read once so b has the schema cached before a changes it.
    expect((await call(b, 'GET', `/v0/meta/bases/${features.base}/tables`)).status).toBe(200);
    const field = await call(a, 'POST', `/v0/meta/bases/${features.base}/tables/${features.table}/fields`, {
      body: { name: 'Added by a', type: 'singleLineText' },
    });
    expect(field.status).toBe(200);
    const write = await call(b, 'POST', `/v0/${features.base}/${features.table}`, {
      body: { records: [{ fields: { Name: 'uses it', 'Added by a': 'yes' } }] },
    });
    expect(write.status).toBe(200);

    const account = a.admin.state.list('account')[0]!.id;
    expect((await call(b, 'GET', `/v0/meta/workspaces/${b.store.schema().workspaces[0]!.id}`)).status).toBe(
      200,
    );
    const workspace = await call(a, 'POST', '/v0/meta/workspaces', {
      body: { enterpriseAccountId: account, name: 'Made by a' },
    });
    expect(workspace.status).toBe(200);
    const read = await call(b, 'GET', `/v0/meta/workspaces/${workspace.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('Made by a');
    // Audit events from both processes: every id distinct.
    const audit = a.admin.deps.db.prepare('SELECT id FROM audit_events').all() as Loose[];
    expect(new Set(audit.map((e) => e.id)).size).toBe(audit.length);
  });

  it("numbers a webhook's payloads from the file, whichever emulator made the change", async () => {
    const features = ids(a, 'Product Roadmap', 'Features');
    const hook = await call(a, 'POST', `/v0/bases/${features.base}/webhooks`, {
      body: { specification: { options: { filters: { dataTypes: ['tableData'] } } } },
    });
    expect(hook.status).toBe(200);
    for (const emulator of [b, a, b]) {
      await call(emulator, 'POST', `/v0/${features.base}/${features.table}`, {
        body: { records: [{ fields: { Name: 'hooked' } }] },
      });
    }
    const payloads = await call(b, 'GET', `/v0/bases/${features.base}/webhooks/${hook.body.id}/payloads`);
    expect(payloads.status).toBe(200);
    expect(payloads.body.payloads).toHaveLength(3);
    expect(payloads.body.cursor).toBe(4);
  });
});
