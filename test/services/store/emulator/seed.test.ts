// The seeded account and the /_emulator controls: the same seed gives the same ids and data, another seed
// other ids, /_emulator/reset reseeds (and drops what was written), `scale` fills the Scale base, the state
// collections show what tests need (never token values), and a file database survives a restart.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../../../src/emulation/clock.js';
import { createStoreEmulator, DEFAULT_STORE_TOKEN } from '../../../../src/services/store/emulator/app.js';
import { ADMIN_SEED } from '../../../../src/services/store/emulator/seed/admin.js';
import { call, ids, type Loose, makeEmulator, NOW } from './helpers.js';

const everything = async (emulator: ReturnType<typeof makeEmulator>) => {
  const out: Loose[] = [];
  const bases = (await call(emulator, 'GET', '/v0/meta/bases')).body.bases;
  for (const base of bases) {
    const schema = (await call(emulator, 'GET', `/v0/meta/bases/${base.id}/tables`)).body;
    out.push(schema);
    for (const table of schema.tables) {
      out.push((await call(emulator, 'GET', `/v0/${base.id}/${table.id}`)).body);
    }
  }
  return out;
};

describe('seed', () => {
  it('is deterministic: same seed, same ids and data; another seed, other ids', async () => {
    const a = makeEmulator({ seed: 7 });
    const b = makeEmulator({ seed: 7 });
    const c = makeEmulator({ seed: 8 });
    try {
      const dataA = await everything(a);
      expect(await everything(b)).toEqual(dataA);
      const dataC = await everything(c);
      expect(dataC[0].tables[0].id).not.toBe(dataA[0].tables[0].id);
      expect(a.store.counts()).toEqual(c.store.counts());
    } finally {
      a.close();
      b.close();
      c.close();
    }
  });

  it('holds the documented bases, a few hundred records and some comments', () => {
    const emulator = makeEmulator();
    try {
      const counts = emulator.store.counts();
      expect(counts.bases).toBe(3);
      // Four data-plane users, and the administration plane's own (deactivated, service account, other accounts).
      expect(counts.users).toBe(4 + Object.keys(ADMIN_SEED.users).length);
      expect(counts.records).toBeGreaterThan(250);
      expect(counts.comments).toBeGreaterThan(10);
      const features = ids(emulator, 'Product Roadmap', 'Features');
      const types = new Set(
        emulator.store
          .schema()
          .tableById.get(features.table)!
          .fields.map((f) => f.type),
      );
      for (const type of [
        'singleLineText',
        'richText',
        'email',
        'url',
        'phoneNumber',
        'number',
        'percent',
        'currency',
        'rating',
        'duration',
        'checkbox',
        'singleSelect',
        'multipleSelects',
        'date',
        'dateTime',
        'multipleRecordLinks',
        'multipleAttachments',
        'singleCollaborator',
        'multipleCollaborators',
        'barcode',
        'formula',
        'createdTime',
        'lastModifiedTime',
        'createdBy',
        'lastModifiedBy',
        'autoNumber',
        'multipleLookupValues',
      ]) {
        expect(types, type).toContain(type);
      }
    } finally {
      emulator.close();
    }
  });

  it('fills the Scale base with `scale` events', async () => {
    const emulator = makeEmulator({ scale: 2500 });
    try {
      const events = ids(emulator, 'Scale', 'Events');
      expect(emulator.store.records(events.table)).toHaveLength(2500);
      const purchases = await call(emulator, 'GET', `/v0/${events.base}/Events?view=Purchases&pageSize=5`);
      expect(purchases.status).toBe(200);
      expect(purchases.body.records.every((r: Loose) => r.fields.Kind === 'purchase')).toBe(true);
      const last = await call(
        emulator,
        'GET',
        `/v0/${events.base}/Events?filterByFormula=${encodeURIComponent("{Name} = 'Event 2500'")}`,
      );
      expect(last.body.records).toHaveLength(1);
    } finally {
      emulator.close();
    }
  });
});

describe('controls', () => {
  const emulator = makeEmulator();
  afterAll(() => emulator.close());
  const features = ids(emulator, 'Product Roadmap', 'Features');

  it('summarises counts and a token hint, never the token', async () => {
    const res = await call(emulator, 'GET', '/_emulator/state');
    expect(res.body.counts.bases).toBe(3);
    expect(res.body.token_hint).toBe('pat_…');
    expect(res.text).not.toContain(DEFAULT_STORE_TOKEN);
    const tokens = await call(emulator, 'GET', '/_emulator/state/tokens');
    expect(tokens.text).not.toContain(DEFAULT_STORE_TOKEN);
    expect(tokens.body.items[0]).toMatchObject({ hint: 'pat_…', kind: 'personalAccessToken' });
    expect(tokens.body.items[0].scopes).toContain('data.records:write');
  });

  it('lists records of one table, and shows one record by id', async () => {
    const res = await call(
      emulator,
      'GET',
      `/_emulator/state/records?base=${features.base}&table=Features&limit=5`,
    );
    expect(res.body.total).toBe(60);
    expect(res.body.items).toHaveLength(5);
    expect(res.body.items[0]).toMatchObject({ baseId: features.base, tableId: features.table });
    const one = await call(emulator, 'GET', `/_emulator/state/records/${res.body.items[0].id}`);
    expect(one.body.fields.Name).toBe(res.body.items[0].fields.Name);
    for (const name of [
      'bases',
      'tables',
      'fields',
      'views',
      'comments',
      'attachments',
      'users',
      'workspaces',
      'webhooks',
    ]) {
      const page = await call(emulator, 'GET', `/_emulator/state/${name}`);
      expect(page.status, name).toBe(200);
    }
    const views = await call(emulator, 'GET', `/_emulator/state/views?table=${features.table}`);
    expect(views.body.items.find((v: Loose) => v.name === 'Shipped').filter).toContain(
      features.field('Status'),
    );
  });

  it('reseeds on /_emulator/reset, dropping what was written', async () => {
    const created = await call(emulator, 'POST', `/v0/${features.base}/${features.table}`, {
      body: { fields: { Name: 'Temporary' } },
    });
    expect(created.status).toBe(200);
    const reset = await call(emulator, 'POST', '/_emulator/reset', { body: {} });
    expect(reset.status).toBe(200);
    expect(emulator.store.record(features.table, created.body.id)).toBeUndefined();
    expect(emulator.store.records(features.table)).toHaveLength(60);
    const other = await call(emulator, 'POST', '/_emulator/reset', { body: { seed: 99, scale: 10 } });
    expect(other.body.state.counts.bases).toBe(4);
    expect(emulator.store.schema().bases[0]!.id).not.toBe(features.base);
    const tooBig = await call(emulator, 'POST', '/_emulator/reset', { body: { scale: 300_000 } });
    expect(tooBig.status).toBe(400);
  });
});

describe('persistence', () => {
  it('keeps writes and the id counter in a file database across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-emulator-'));
    const db = join(dir, 'store.db');
    try {
      const first = createStoreEmulator({ db, clock: manualClock(NOW), baseRateLimit: false });
      const features = ids(first, 'Product Roadmap', 'Features');
      const a = await call(first, 'POST', `/v0/${features.base}/${features.table}`, {
        body: { fields: { Name: 'Persisted' } },
      });
      first.close();
      const second = createStoreEmulator({ db, clock: manualClock(NOW), baseRateLimit: false });
      expect(second.store.record(features.table, a.body.id)?.cells[features.field('Name')]).toBe('Persisted');
      const b = await call(second, 'POST', `/v0/${features.base}/${features.table}`, {
        body: { fields: { Name: 'Next' } },
      });
      expect(b.body.id).not.toBe(a.body.id);
      second.close();
      const reseeded = createStoreEmulator({
        db,
        clock: manualClock(NOW),
        reset: true,
        baseRateLimit: false,
      });
      expect(reseeded.store.record(features.table, a.body.id)).toBeUndefined();
      reseeded.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
