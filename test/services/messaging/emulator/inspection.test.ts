// The /_emulator control API for the Track emulator: summary, every collection with its filters and items, the
// seed (counts, shapes, determinism), reset, scale cap, and file-backed persistence.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_SCALE } from '../../../../src/services/messaging/emulator/app.js';
import { buildSeedData } from '../../../../src/services/messaging/emulator/seed/seed.js';
import { call, item, makeEmulator, NOW, NOW_S, person, state } from './helpers.js';

const emulator = makeEmulator({ scale: 200 });
const dir = mkdtempSync(join(tmpdir(), 'messaging-emulator-'));
afterAll(() => {
  emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const COLLECTIONS = [
  'people',
  'devices',
  'events',
  'anonymous_events',
  'forms',
  'form_submissions',
  'metrics',
  'segments',
  'segment_members',
  'suppressions',
  'deliveries',
  'unsubscribes',
  'objects',
  'relationships',
  'batches',
  'merges',
  'dropped',
];

describe('summary', () => {
  it('has counts, region, workspace setting, site id and only a hint of the key', async () => {
    const res = await call(emulator, 'GET', '/_emulator/state');
    expect(res.body).toMatchObject({
      region: 'us',
      identify_by: 'email_or_id',
      site_id: 'sandbox_site',
      api_key_hint: 'sand…',
      seed: 1,
      scale: 200,
      environment_id: expect.any(Number),
    });
    expect(Object.keys(res.body.counts)).toEqual(COLLECTIONS);
    expect(res.text).not.toContain('sandbox_track_key');
  });
});

describe('the seed', () => {
  it('has ~200 people user-<n> with emails, devices, events, segments, deliveries and objects', async () => {
    const { counts } = (await call(emulator, 'GET', '/_emulator/state')).body;
    expect(counts).toMatchObject({ people: 200, segments: 5, deliveries: 50, suppressions: 0, forms: 0 });
    expect(counts.devices).toBeGreaterThan(40);
    expect(counts.events).toBeGreaterThan(200);
    expect(counts.anonymous_events).toBeGreaterThan(5);
    expect(counts.objects).toBe(16);
    expect(counts.relationships).toBeGreaterThan(100);
    const first = await person(emulator, 'user-1');
    expect(first).toMatchObject({
      cio_id: 'a3000001',
      email: expect.stringMatching(/^[a-z.-]+1@example\.com$/),
      attributes: { first_name: expect.any(String), plan: expect.any(String), city: expect.any(String) },
    });
  });

  it('segments 1-3 are manual, 10 and 11 data-driven; object types 1 companies and 2 courses', async () => {
    const segments = await state(emulator, 'segments');
    expect(segments.map((s) => [s.id, s.type])).toEqual([
      [1, 'manual'],
      [2, 'manual'],
      [3, 'manual'],
      [10, 'data_driven'],
      [11, 'data_driven'],
    ]);
    expect((await item(emulator, 'segments', '1')).members.length).toBe(segments[0].member_count);
    expect((await state(emulator, 'objects', 'object_type_id=1')).length).toBe(10);
    expect((await state(emulator, 'objects', 'object_type_id=2')).map((o) => o.object_id)).toContain(
      'course-101',
    );
  });

  it('deliveries cover the channels and belong to people; some anonymous events are older than 30 days', async () => {
    const deliveries = await state(emulator, 'deliveries');
    expect(new Set(deliveries.map((d) => d.channel)).size).toBeGreaterThanOrEqual(4);
    expect(deliveries.every((d) => typeof d.person === 'string')).toBe(true);
    const anonymous = await state(emulator, 'anonymous_events');
    expect(anonymous.some((e) => e.timestamp < NOW_S - 30 * 86_400)).toBe(true);
    expect(anonymous.some((e) => e.timestamp > NOW_S - 30 * 86_400)).toBe(true);
  });

  it('is deterministic for a seed and differs between seeds', () => {
    const now = new Date(NOW);
    expect(buildSeedData({ seed: 7, scale: 50, now })).toEqual(buildSeedData({ seed: 7, scale: 50, now }));
    expect(buildSeedData({ seed: 8, scale: 50, now }).people).not.toEqual(
      buildSeedData({ seed: 7, scale: 50, now }).people,
    );
  });
});

describe('collections and items', () => {
  it('every collection is listed, paged and unknown names are 404', async () => {
    for (const name of COLLECTIONS) {
      const res = await call(emulator, 'GET', `/_emulator/state/${name}?limit=2`);
      expect(res.status, name).toBe(200);
      expect(res.body).toMatchObject({ collection: name, offset: 0, limit: 2 });
    }
    const page = await call(emulator, 'GET', '/_emulator/state/people?offset=10&limit=5');
    expect(page.body.items.map((p: { id: string }) => p.id)).toEqual([
      'user-11',
      'user-12',
      'user-13',
      'user-14',
      'user-15',
    ]);
    expect(page.body.total).toBe(200);
    expect((await call(emulator, 'GET', '/_emulator/state/contacts')).status).toBe(404);
  });

  it('items: people by cio_id, cio_<id>, id or email, with devices, segments and relationships', async () => {
    const byId = await person(emulator, 'user-2');
    for (const key of [byId.cio_id, `cio_${byId.cio_id}`, byId.email.toUpperCase()]) {
      expect((await person(emulator, key)).cio_id).toBe(byId.cio_id);
    }
    expect(byId).toMatchObject({
      devices: expect.any(Array),
      segments: expect.any(Array),
      relationships: expect.any(Array),
    });
    expect(byId.event_count).toBe((await state(emulator, 'events', 'person=user-2')).length);
    expect(await person(emulator, 'nobody')).toBeNull();
  });

  it('items of the other collections by their key', async () => {
    const [device] = await state(emulator, 'devices', 'limit=1');
    expect(await item(emulator, 'devices', device.id)).toEqual(device);
    const [event] = await state(emulator, 'events', 'limit=1');
    expect(await item(emulator, 'events', String(event.seq))).toEqual(event);
    const [delivery] = await state(emulator, 'deliveries', 'limit=1');
    expect(await item(emulator, 'deliveries', delivery.id)).toEqual(delivery);
    const [object] = await state(emulator, 'objects', 'limit=1');
    expect(await item(emulator, 'objects', object.cio_object_id)).toEqual(object);
    expect(await item(emulator, 'objects', `${object.object_type_id}:${object.object_id}`)).toEqual(object);
    const [member] = await state(emulator, 'segment_members', 'limit=1');
    expect(await item(emulator, 'segment_members', `${member.segment_id}:${member.cio_id}`)).toEqual(member);
    expect(await item(emulator, 'events', '999999')).toBeNull();
  });

  it('shows each row under the names the upstream uses, JSON columns parsed and flags as booleans', async () => {
    const track = await call(emulator, 'POST', '/api/v1/customers/user-4/events', {
      body: { name: 'viewed', id: '01HZZZZZZZZZZZZZZZZZZZZZZZ', data: { page: '/a' } },
    });
    expect(track.status).toBe(200);
    const [event] = await state(emulator, 'events', 'id=01HZZZZZZZZZZZZZZZZZZZZZZZ');
    expect(Object.keys(event)).toEqual([
      'seq',
      'person',
      'anonymous_id',
      'name',
      'type',
      'id',
      'timestamp',
      'data',
      'invite',
      'received_at',
      'origin',
    ]);
    expect(event).toMatchObject({ name: 'viewed', data: { page: '/a' }, invite: false, origin: 'v1' });
    const [anonymous] = await state(emulator, 'anonymous_events', 'limit=1');
    expect(Object.keys(anonymous)).toEqual(Object.keys(event));
    expect(anonymous).toMatchObject({ person: null, data: expect.any(Object), invite: expect.any(Boolean) });

    const [device] = await state(emulator, 'devices', 'limit=1');
    expect(Object.keys(device)).toEqual([
      'id',
      'person',
      'platform',
      'last_used',
      'attributes',
      'created_at',
      'updated_at',
    ]);
    expect(device.attributes).toEqual(expect.any(Object));
    expect(await item(emulator, 'devices', device.id)).toEqual(device);

    const [object] = await state(emulator, 'objects', 'limit=1');
    expect(Object.keys(object)).toEqual([
      'cio_object_id',
      'object_type_id',
      'object_id',
      'attributes',
      'created_at',
      'updated_at',
    ]);
    expect(object.attributes).toEqual(expect.any(Object));
    const [relationship] = await state(emulator, 'relationships', 'limit=1');
    expect(Object.keys(relationship)).toEqual([
      'seq',
      'person',
      'anonymous_id',
      'cio_object_id',
      'object_type_id',
      'object_id',
      'attributes',
      'created_at',
      'updated_at',
    ]);
    expect(relationship.attributes).toEqual(expect.any(Object));
    expect(Object.keys(await person(emulator, 'user-4'))).toEqual([
      'cio_id',
      'id',
      'email',
      'attributes',
      'created_at',
      'updated_at',
      'devices',
      'segments',
      'relationships',
      'event_count',
    ]);
  });

  it('filters by equality; person filters take a cio_id, an id or an email', async () => {
    const p = await person(emulator, 'user-3');
    const byId = await state(emulator, 'events', 'person=user-3');
    expect(await state(emulator, 'events', `person=${p.cio_id}`)).toEqual(byId);
    expect(await state(emulator, 'events', `person=${encodeURIComponent(p.email)}`)).toEqual(byId);
    expect((await state(emulator, 'deliveries', 'channel=email')).every((d) => d.channel === 'email')).toBe(
      true,
    );
    expect((await state(emulator, 'segment_members', 'segment_id=2')).every((m) => m.segment_id === 2)).toBe(
      true,
    );
  });

  it('records what each endpoint stored: forms, submissions, metrics, suppressions, unsubscribes, batches, merges', async () => {
    await call(emulator, 'POST', '/api/v1/forms/insp/submit', { body: { data: { id: 'insp-1', a: 'b' } } });
    await call(emulator, 'POST', '/api/v1/metrics', {
      auth: null,
      body: { delivery_id: 'x', metric: 'opened' },
    });
    await call(emulator, 'POST', '/api/v1/customers/insp-2/suppress');
    const [delivery] = await state(emulator, 'deliveries', 'limit=1');
    await call(emulator, 'POST', `/unsubscribe/${delivery.id}`, { auth: null, body: { unsubscribe: true } });
    await call(emulator, 'POST', '/api/v2/batch', {
      body: { batch: [{ type: 'person', identifiers: { id: 'insp-3' }, action: 'identify' }] },
    });
    await call(emulator, 'POST', '/api/v1/merge_customers', {
      body: { primary: { id: 'insp-1' }, secondary: { id: 'insp-3' } },
    });
    expect(await item(emulator, 'forms', 'insp')).toMatchObject({ submissions: 1 });
    expect(await state(emulator, 'form_submissions', 'form_id=insp')).toHaveLength(1);
    expect(await state(emulator, 'metrics', 'delivery_id=x')).toHaveLength(1);
    expect(await item(emulator, 'suppressions', 'insp-2')).toMatchObject({ kind: 'id', cio_id: null });
    expect(await state(emulator, 'unsubscribes', `delivery_id=${delivery.id}`)).toHaveLength(1);
    expect((await state(emulator, 'batches')).at(-1)).toMatchObject({ operations: 1, status: 200 });
    expect((await state(emulator, 'merges')).at(-1)).toMatchObject({ outcome: 'merged' });
  });
});

describe('reset', () => {
  it('reseeds to the same data for the same seed, other data for another, and caps the scale', async () => {
    const local = makeEmulator({ scale: 30 });
    try {
      const original = await state(local, 'people');
      await call(local, 'DELETE', '/api/v1/customers/user-1');
      await call(local, 'PUT', '/api/v1/customers/extra', { body: {} });
      const reset = await call(local, 'POST', '/_emulator/reset', { body: {} });
      expect(reset.body.state.counts.people).toBe(30);
      expect(await state(local, 'people')).toEqual(original);
      // cio_ids restart with the data, so runs are reproducible.
      await call(local, 'PUT', '/api/v1/customers/extra', { body: {} });
      expect((await person(local, 'extra')).cio_id).toBe('a300001f');

      await call(local, 'POST', '/_emulator/reset', { body: { seed: 2, scale: 10 } });
      const other = await state(local, 'people');
      expect(other).toHaveLength(10);
      expect(other[0].email).not.toBe(original[0].email);
      const tooBig = await call(local, 'POST', '/_emulator/reset', { body: { scale: MAX_SCALE + 1 } });
      expect(tooBig.status).toBe(400);
      expect(() => makeEmulator({ scale: MAX_SCALE + 1 })).toThrow(/at most/);
    } finally {
      local.close();
    }
  });

  it('a file database survives a restart and is reseeded only when asked', async () => {
    const db = join(dir, 'messaging.db');
    const first = makeEmulator({ db, scale: 20 });
    await call(first, 'PUT', '/api/v1/customers/kept', { body: { kept: true } });
    first.close();
    const second = makeEmulator({ db, scale: 20, seed: 99 });
    expect((await person(second, 'kept')).attributes).toEqual({ kept: true });
    // A new person does not reuse a cio_id from before the restart.
    await call(second, 'PUT', '/api/v1/customers/after-restart', { body: {} });
    expect((await person(second, 'after-restart')).cio_id).not.toBe((await person(second, 'kept')).cio_id);
    second.close();
    const third = makeEmulator({ db, scale: 20, reset: true });
    expect(await person(third, 'kept')).toBeNull();
    third.close();
  });

  it('refuses bad options', () => {
    expect(() => makeEmulator({ siteId: 'a:b' })).toThrow(/colons/);
    expect(() => makeEmulator({ apiKey: '' })).toThrow(/API key/);
    expect(() => makeEmulator({ region: 'ap' as 'us' })).toThrow(/region/);
  });
});
