// Black-box checks of documented upstream Track API behaviour (the official OpenAPI's descriptions, the reference
// digest in upstream-apis.md section B, and customerio-node's TrackClient), one documented rule per test, each
// driven through the Track API itself and checked through /_emulator/state only where the API has no read path.
import { afterAll, describe, expect, it } from 'vitest';
import { basic, call, DAY_S, item, makeEmulator, NOW_S, person, state } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const put = (identifier: string, body: unknown) =>
  call(emulator, 'PUT', `/api/v1/customers/${encodeURIComponent(identifier)}`, { body });
const track = (identifier: string, body: unknown) =>
  call(emulator, 'POST', `/api/v1/customers/${encodeURIComponent(identifier)}/events`, { body });
const anonymous = (body: unknown) => call(emulator, 'POST', '/api/v1/events', { body });
const entity = (body: unknown) => call(emulator, 'POST', '/api/v2/entity', { body });
const batch = (body: unknown) => call(emulator, 'POST', '/api/v2/batch', { body });
const merge = (body: unknown) => call(emulator, 'POST', '/api/v1/merge_customers', { body });
const segment = (id: number | string, action: 'add' | 'remove', body: unknown, query = '') =>
  call(emulator, 'POST', `/api/v1/segments/${id}/${action}_customers${query}`, { body });
const v2Person = (
  identifiers: Record<string, string>,
  action: string,
  extra: Record<string, unknown> = {},
) => ({
  type: 'person',
  identifiers,
  action,
  ...extra,
});
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** A JSON text of exactly `target` bytes: `make(pad)` with one padding attribute of the right length. */
function exactly(target: number, make: (pad: Record<string, string>) => unknown): string {
  const pads: Record<string, string> = {};
  for (let i = 0; ; i++) {
    const key = `pad${i}`;
    pads[key] = '';
    const room = target - bytes(JSON.stringify(make(pads)));
    if (room < 0) throw new Error(`cannot reach ${target} bytes`);
    if (room <= 1000) {
      pads[key] = 'x'.repeat(room);
      const text = JSON.stringify(make(pads));
      if (bytes(text) !== target) throw new Error('sizing went wrong');
      return text;
    }
    pads[key] = 'x'.repeat(1000);
  }
}

// ---- auth and region ------------------------------------------------------------------------------------------

describe('auth and region (B.1, GET /api/v1/accounts/region)', () => {
  it('region lookup answers {url, region, environment_id:int} with Basic site_id:api_key', async () => {
    const res = await call(emulator, 'GET', '/api/v1/accounts/region');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      url: expect.any(String),
      region: 'us',
      environment_id: expect.any(Number),
    });
    expect(Number.isInteger(res.body.environment_id)).toBe(true);
  });

  it('wrong credentials, no credentials and a non-Basic scheme are 401', async () => {
    for (const auth of [basic(emulator.siteId, 'wrong-key'), null, `Bearer ${emulator.apiKey}`]) {
      const res = await call(emulator, 'PUT', '/api/v1/customers/auth-probe', { auth, body: { a: 1 } });
      expect(res.status).toBe(401);
    }
    expect(await person(emulator, 'auth-probe')).toBeNull();
  });

  it('POST /api/v1/metrics and /api/v1/push/events are served without Authorization', async () => {
    const metric = await call(emulator, 'POST', '/api/v1/metrics', {
      auth: null,
      body: { delivery_id: 'dlv-no-auth', metric: 'opened', timestamp: NOW_S },
    });
    expect(metric.status).toBe(200);
    expect(metric.body).toEqual({});
    const push = await call(emulator, 'POST', '/api/v1/push/events', {
      auth: null,
      body: { delivery_id: 'dlv-no-auth', event: 'delivered', device_id: 'tok', timestamp: NOW_S },
    });
    expect(push.status).toBe(200);
  });
});

// ---- identify ------------------------------------------------------------------------------------------------

describe('identify: PUT /api/v1/customers/{identifier}', () => {
  it('creates a person and answers 200 with an empty JSON object', async () => {
    const res = await put('doc-1', { email: 'doc1@example.com', plan: 'basic', seats: 2, trial: true });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{}');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await person(emulator, 'doc-1')).toMatchObject({
      id: 'doc-1',
      email: 'doc1@example.com',
      attributes: { plan: 'basic', seats: 2, trial: true },
    });
  });

  it('updates the existing person; an empty string removes an attribute', async () => {
    await put('doc-2', { plan: 'basic', color: 'red' });
    const before = await person(emulator, 'doc-2');
    await put('doc-2', { plan: 'pro', color: '' });
    const after = await person(emulator, 'doc-2');
    expect(after.cio_id).toBe(before.cio_id);
    expect(after.attributes).toEqual({ plan: 'pro' });
  });

  it('email is case-insensitive: two spellings are one person', async () => {
    await put('Case.Doc@Example.com', { first: 1 });
    await put('case.doc@example.COM', { second: 2 });
    await track('CASE.DOC@EXAMPLE.COM', { name: 'cased' });
    const people = await state(emulator, 'people', 'email=case.doc@example.com');
    expect(people).toHaveLength(1);
    expect(people[0].attributes).toEqual({ first: 1, second: 2 });
    expect(await state(emulator, 'events', `person=${people[0].cio_id}`)).toHaveLength(1);
  });

  it('_update: true never creates a person, but updates an existing one', async () => {
    const res = await put('doc-ghost', { _update: true, a: 1 });
    expect(res.status).toBe(200);
    expect(await person(emulator, 'doc-ghost')).toBeNull();
    await put('doc-3', { a: 1 });
    await put('doc-3', { _update: true, a: 2 });
    expect((await person(emulator, 'doc-3')).attributes).toEqual({ a: 2 });
  });

  it('an identifier already set changes only through the cio_<cio_id> path', async () => {
    await put('doc-4', { email: 'doc4@example.com' });
    await put('doc-4', { email: 'doc4-new@example.com' });
    expect((await person(emulator, 'doc-4')).email).toBe('doc4@example.com');
    const { cio_id } = await person(emulator, 'doc-4');
    expect((await put(`cio_${cio_id}`, { email: 'doc4-new@example.com', id: 'doc-4b' })).status).toBe(200);
    expect(await person(emulator, `cio_${cio_id}`)).toMatchObject({
      id: 'doc-4b',
      email: 'doc4-new@example.com',
    });
  });

  it('a new path id with an email that already belongs to someone updates that person (the "Tip")', async () => {
    await put('doc-5', { email: 'doc5@example.com', keep: true });
    const before = await person(emulator, 'doc5@example.com');
    await put('doc-5-new', { email: 'doc5@example.com', more: 1 });
    expect(await state(emulator, 'people', 'email=doc5@example.com')).toHaveLength(1);
    expect(await person(emulator, 'doc5@example.com')).toMatchObject({
      cio_id: before.cio_id,
      id: 'doc-5-new',
      attributes: { keep: true, more: 1 },
    });
  });

  it('reserved created_at sets the creation time; cio_subscription_preferences sets topic preferences', async () => {
    await put('doc-6', { created_at: 1_600_000_000 });
    expect((await person(emulator, 'doc-6')).created_at).toBe(1_600_000_000);
    await put('doc-7', { cio_subscription_preferences: { topics: { topic_1: true, topic_2: false } } });
    expect((await person(emulator, 'doc-7')).attributes.cio_subscription_preferences).toEqual({
      topics: { topic_1: true, topic_2: false },
    });
  });

  it('JSON dot notation "cio_subscription_preferences.topics.topic_<id>" updates one topic, keeping others', async () => {
    await put('doc-8', { cio_subscription_preferences: { topics: { topic_1: true, topic_2: true } } });
    const res = await put('doc-8', { 'cio_subscription_preferences.topics.topic_2': false });
    expect(res.status).toBe(200);
    const p = await person(emulator, 'doc-8');
    expect(p.attributes.cio_subscription_preferences).toEqual({ topics: { topic_1: true, topic_2: false } });
    expect(p.attributes).not.toHaveProperty(['cio_subscription_preferences.topics.topic_2']);
  });

  it('sending the whole cio_subscription_preferences object replaces the topics (dot notation is the way to keep others)', async () => {
    await put('doc-9', { cio_subscription_preferences: { topics: { topic_1: true } } });
    await put('doc-9', { cio_subscription_preferences: { topics: { topic_2: false } } });
    expect((await person(emulator, 'doc-9')).attributes.cio_subscription_preferences).toEqual({
      topics: { topic_2: false },
    });
  });

  it('unsubscribed accepts "1", 1 and any case of "true" as unsubscribed', async () => {
    for (const [id, value] of [
      ['doc-10a', '1'],
      ['doc-10b', 1],
      ['doc-10c', 'TRUE'],
    ] as const) {
      const res = await put(id, { unsubscribed: value });
      expect(res.status, `unsubscribed: ${JSON.stringify(value)}`).toBe(200);
      expect(await person(emulator, id)).not.toBeNull();
    }
  });

  it('_timestamp orders attribute updates: an older update does not overwrite a newer one', async () => {
    await put('doc-11', { plan: 'new', _timestamp: NOW_S });
    await put('doc-11', { plan: 'stale', _timestamp: NOW_S - 3600 });
    expect((await person(emulator, 'doc-11')).attributes.plan).toBe('new');
  });

  it('v1 cio_relationships adds relationships with attributes, and delete_relationships removes them', async () => {
    await put('doc-12', {
      cio_relationships: {
        action: 'add_relationships',
        relationships: [
          {
            identifiers: { object_type_id: '1', object_id: 'doc-co' },
            relationship_attributes: { role: 'admin' },
          },
        ],
      },
    });
    expect((await person(emulator, 'doc-12')).relationships).toEqual([
      expect.objectContaining({ object_type_id: '1', object_id: 'doc-co', attributes: { role: 'admin' } }),
    ]);
    await put('doc-12', {
      cio_relationships: {
        action: 'delete_relationships',
        relationships: [{ identifiers: { object_type_id: '1', object_id: 'doc-co' } }],
      },
    });
    expect((await person(emulator, 'doc-12')).relationships).toEqual([]);
  });

  it('a phone number in the path is treated as an id', async () => {
    expect((await put('+14155550123', { via: 'phone' })).status).toBe(200);
    expect(await state(emulator, 'people', `id=${encodeURIComponent('+14155550123')}`)).toEqual([
      expect.objectContaining({ id: '+14155550123', email: null }),
    ]);
  });
});

describe('delete: DELETE /api/v1/customers/{identifier}', () => {
  it('removes the person (200 {}); the identifier can be added again as a new person', async () => {
    await put('doc-del', { a: 1 });
    const before = await person(emulator, 'doc-del');
    const res = await call(emulator, 'DELETE', '/api/v1/customers/doc-del');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await person(emulator, before.cio_id)).toBeNull();
    await put('doc-del', { b: 2 });
    const again = await person(emulator, 'doc-del');
    expect(again.cio_id).not.toBe(before.cio_id);
    expect(again.attributes).toEqual({ b: 2 });
  });
});

// ---- devices -------------------------------------------------------------------------------------------------

describe('devices', () => {
  const addDevice = (id: string, device: unknown) =>
    call(emulator, 'PUT', `/api/v1/customers/${id}/devices`, { body: { device } });

  it('PUT upserts by token (last_used defaults to the request time); DELETE removes it (200 {})', async () => {
    const first = await addDevice('doc-dev', {
      id: 'doc-tok',
      platform: 'ios',
      last_used: 1_000,
      attributes: { app_version: '1.0' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({});
    await addDevice('doc-dev', { id: 'doc-tok', platform: 'android', attributes: { app_version: '2.0' } });
    const devices = (await person(emulator, 'doc-dev')).devices;
    expect(devices).toHaveLength(1);
    expect(devices[0]).toMatchObject({
      id: 'doc-tok',
      platform: 'android',
      last_used: NOW_S,
      attributes: { app_version: '2.0' },
    });
    const res = await call(emulator, 'DELETE', '/api/v1/customers/doc-dev/devices/doc-tok');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await person(emulator, 'doc-dev')).devices).toEqual([]);
  });

  it('v1 validation errors use {meta:{errors:[string]}}: a device without platform, an event without name', async () => {
    for (const res of [
      await addDevice('doc-dev3', { id: 'doc-tok3' }),
      await track('doc-ev4', { data: {} }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ meta: { errors: [expect.any(String)] } });
    }
  });
});

// ---- events --------------------------------------------------------------------------------------------------

describe('events: POST /api/v1/customers/{identifier}/events', () => {
  it('trims the name; type defaults to event; timestamp defaults to receipt time', async () => {
    expect((await track('doc-ev', { name: '  signed up  ', data: { plan: 'pro' } })).body).toEqual({});
    expect(await state(emulator, 'events', 'person=doc-ev')).toEqual([
      expect.objectContaining({ name: 'signed up', type: 'event', timestamp: NOW_S, data: { plan: 'pro' } }),
    ]);
  });

  it('page and screen types are kept (customerio-node trackPageView sends type "page")', async () => {
    await track('doc-ev2', { type: 'page', name: '/pricing' });
    await track('doc-ev2', { type: 'screen', name: 'Home' });
    expect((await state(emulator, 'events', 'person=doc-ev2')).map((e) => [e.type, e.name])).toEqual([
      ['page', '/pricing'],
      ['screen', 'Home'],
    ]);
  });

  it('an event repeating an id already received is ignored', async () => {
    const id = '01HZDOCDEDUPE0000000000000';
    expect((await track('doc-ev3', { name: 'bought', id })).status).toBe(200);
    expect((await track('doc-ev3', { name: 'bought', id })).status).toBe(200);
    expect(await state(emulator, 'events', 'person=doc-ev3')).toHaveLength(1);
  });
});

describe('anonymous events: POST /api/v1/events', () => {
  it('identifying with anonymous_id folds in only that visitor’s events of the last 30 days', async () => {
    await anonymous({ name: 'old', anonymous_id: 'doc-anon', timestamp: NOW_S - 31 * DAY_S });
    await anonymous({ name: 'recent', anonymous_id: 'doc-anon', timestamp: NOW_S - 29 * DAY_S });
    await put('doc-anon-person', { anonymous_id: 'doc-anon' });
    expect((await state(emulator, 'events', 'person=doc-anon-person')).map((e) => e.name)).toEqual([
      'recent',
    ]);
  });

  it('an anonymous event whose anonymous_id is already set on a person is associated with that person', async () => {
    await put('doc-anon-2', { anonymous_id: 'doc-anon-later' });
    expect((await anonymous({ name: 'after identify', anonymous_id: 'doc-anon-later' })).status).toBe(200);
    expect((await state(emulator, 'events', 'person=doc-anon-2')).map((e) => e.name)).toEqual([
      'after identify',
    ]);
  });

  it('without anonymous_id, data.recipient makes an invite event (200)', async () => {
    const res = await anonymous({ name: 'doc-invite', data: { recipient: 'friend@example.com' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });
});

// ---- forms ---------------------------------------------------------------------------------------------------

describe('forms: POST /api/v1/forms/{form_id}/submit', () => {
  it('an unknown form id creates the connection; 204 with no body; exactly one identifier, else 400', async () => {
    const res = await call(emulator, 'POST', '/api/v1/forms/doc-form/submit', {
      body: { data: { email: 'doc-form@example.com', first_name: 'Ada', form_name: 'ignored' } },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await item(emulator, 'forms', 'doc-form')).not.toBeNull();
    expect(await person(emulator, 'doc-form@example.com')).toMatchObject({
      id: null,
      email: 'doc-form@example.com',
      attributes: { first_name: 'Ada' },
    });
    // "If your request includes more than one identifier, you'll receive an error."
    const both = await call(emulator, 'POST', '/api/v1/forms/doc-form2/submit', {
      body: { data: { email: 'doc-form2@example.com', id: 'doc-form2' } },
    });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ meta: { errors: [expect.any(String)] } });
    expect(await person(emulator, 'doc-form2')).toBeNull();
  });
});

// ---- merge ---------------------------------------------------------------------------------------------------

describe('merge: POST /api/v1/merge_customers', () => {
  it('does nothing when the primary does not exist (still 200)', async () => {
    await put('doc-m-sec0', { keep: 1 });
    const res = await merge({ primary: { id: 'doc-m-missing' }, secondary: { id: 'doc-m-sec0' } });
    expect(res.status).toBe(200);
    expect(await person(emulator, 'doc-m-missing')).toBeNull();
    expect((await person(emulator, 'doc-m-sec0')).attributes).toEqual({ keep: 1 });
  });

  it('deletes the secondary; copies only attributes the primary lacks; moves recent events', async () => {
    await put('doc-m-pri', { plan: 'pro' });
    await put('doc-m-sec', { plan: 'free', city: 'Oslo' });
    await track('doc-m-sec', { name: 'recent' });
    const sec = await person(emulator, 'doc-m-sec');
    const res = await merge({ primary: { id: 'doc-m-pri' }, secondary: { cio_id: sec.cio_id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await person(emulator, sec.cio_id)).toBeNull();
    expect((await person(emulator, 'doc-m-pri')).attributes).toEqual({ plan: 'pro', city: 'Oslo' });
    expect((await state(emulator, 'events', 'person=doc-m-pri')).map((e) => e.name)).toEqual(['recent']);
  });

  it('two identifiers on one side is a 400 in the merge envelope {meta:{error: string}}', async () => {
    const res = await merge({ primary: { id: 'a', email: 'a@example.com' }, secondary: { id: 'b' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ meta: { error: expect.any(String) } });
  });
});

// ---- segments ------------------------------------------------------------------------------------------------

describe('manual segments', () => {
  it('adds by id (the default id_type); values that do not match id_type are ignored', async () => {
    await put('doc-seg1', { email: 'doc-seg1@example.com' });
    expect((await segment(3, 'add', { ids: ['doc-seg1'] })).status).toBe(200);
    expect((await person(emulator, 'doc-seg1')).segments).toContain(3);
    await put('doc-seg2', {});
    const res = await segment(2, 'add', { ids: ['doc-seg2'] }, '?id_type=email');
    expect(res.status).toBe(200);
    expect((await person(emulator, 'doc-seg2')).segments).not.toContain(2);
  });

  it('data-driven and unknown segments, and more than 1000 ids, are 400 {meta:{errors}}', async () => {
    for (const id of [10, 999]) {
      const res = await segment(id, 'add', { ids: ['doc-seg1'] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ meta: { errors: [expect.any(String)] } });
    }
    const ids = Array.from({ length: 1001 }, (_, i) => `doc-many-${i}`);
    const tooMany = await segment(3, 'add', { ids });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ meta: { errors: [expect.any(String)] } });
  });

  it('remove_customers removes by id', async () => {
    await put('doc-seg3', {});
    await segment(1, 'add', { ids: ['doc-seg3'] });
    expect((await segment(1, 'remove', { ids: ['doc-seg3'] })).status).toBe(200);
    expect((await person(emulator, 'doc-seg3')).segments).not.toContain(1);
  });
});

// ---- suppression ---------------------------------------------------------------------------------------------

describe('suppress and unsuppress', () => {
  it('suppress deletes and blocks; unsuppress does not restore; identifying again creates a fresh profile', async () => {
    await put('doc-sup', { email: 'doc-sup@example.com', a: 1 });
    const before = await person(emulator, 'doc-sup');
    expect((await call(emulator, 'POST', '/api/v1/customers/doc-sup/suppress')).body).toEqual({});
    expect(await person(emulator, before.cio_id)).toBeNull();
    expect((await put('doc-sup', { a: 2 })).status).toBe(200);
    expect(await person(emulator, 'doc-sup')).toBeNull();
    expect((await call(emulator, 'POST', '/api/v1/customers/doc-sup/unsuppress')).body).toEqual({});
    expect(await person(emulator, 'doc-sup')).toBeNull();
    await put('doc-sup', { b: 3 });
    const fresh = await person(emulator, 'doc-sup');
    expect(fresh.cio_id).not.toBe(before.cio_id);
    expect(fresh.attributes).toEqual({ b: 3 });
  });
});

// ---- global unsubscribe --------------------------------------------------------------------------------------

describe('global unsubscribe: POST /unsubscribe/{delivery_id}', () => {
  it('needs Content-Type: application/json (400 without); then sets unsubscribed, no auth needed', async () => {
    const delivery = (await state(emulator, 'deliveries')).find((d) => d.person !== null);
    const plain = await emulator.app.request(`/unsubscribe/${delivery.id}`, {
      method: 'POST',
      body: '{"unsubscribe":true}',
    });
    expect(plain.status).toBe(400);
    const res = await call(emulator, 'POST', `/unsubscribe/${delivery.id}`, {
      auth: null,
      body: { unsubscribe: true },
    });
    expect(res.status).toBe(200);
    expect((await person(emulator, delivery.person)).attributes.unsubscribed).toBe(true);
  });

  it('unsubscribe: false resubscribes the person (customerio-node TrackClient.unsubscribe)', async () => {
    const delivery = (await state(emulator, 'deliveries')).filter((d) => d.person !== null)[1];
    await call(emulator, 'POST', `/unsubscribe/${delivery.id}`, { auth: null, body: { unsubscribe: true } });
    expect((await person(emulator, delivery.person)).attributes.unsubscribed).toBe(true);
    const res = await call(emulator, 'POST', `/unsubscribe/${delivery.id}`, {
      auth: null,
      body: { unsubscribe: false },
    });
    expect(res.status).toBe(200);
    expect((await person(emulator, delivery.person)).attributes.unsubscribed).not.toBe(true);
  });
});

// ---- v2 ------------------------------------------------------------------------------------------------------

describe('v2 /api/v2/entity', () => {
  it('person identify answers 200 {}; a missing identifiers is a 400 {errors:[{reason, field, message}]}', async () => {
    const ok = await entity(v2Person({ id: 'doc-v2' }, 'identify', { attributes: { plan: 'pro' } }));
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('{}');
    expect((await person(emulator, 'doc-v2')).attributes).toEqual({ plan: 'pro' });
    const bad = await entity({ type: 'person', action: 'identify', attributes: {} });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      errors: [
        {
          reason: expect.any(String),
          field: expect.stringMatching(/identifiers/),
          message: expect.any(String),
        },
      ],
    });
  });

  it('identify attributes: null removes; _update: true never creates', async () => {
    await entity(v2Person({ id: 'doc-v2b' }, 'identify', { attributes: { a: 1, b: 2 } }));
    await entity(v2Person({ id: 'doc-v2b' }, 'identify', { attributes: { a: null } }));
    expect((await person(emulator, 'doc-v2b')).attributes).toEqual({ b: 2 });
    await entity(v2Person({ id: 'doc-v2-ghost' }, 'identify', { attributes: { _update: true, a: 1 } }));
    expect(await person(emulator, 'doc-v2-ghost')).toBeNull();
  });

  it('event, page and screen actions record typed events', async () => {
    await entity(v2Person({ id: 'doc-v2e' }, 'event', { name: 'purchase', attributes: { price: 3 } }));
    await entity(v2Person({ id: 'doc-v2e' }, 'page', { name: '/home' }));
    await entity(v2Person({ id: 'doc-v2e' }, 'screen', { name: 'Dashboard' }));
    expect((await state(emulator, 'events', 'person=doc-v2e')).map((e) => [e.type, e.name])).toEqual([
      ['event', 'purchase'],
      ['page', '/home'],
      ['screen', 'Dashboard'],
    ]);
  });

  it('add_device and delete_device by token', async () => {
    await entity(
      v2Person({ id: 'doc-v2d' }, 'add_device', { device: { token: 'doc-v2-tok', platform: 'ios' } }),
    );
    expect((await person(emulator, 'doc-v2d')).devices.map((d: { id: string }) => d.id)).toEqual([
      'doc-v2-tok',
    ]);
    await entity(v2Person({ id: 'doc-v2d' }, 'delete_device', { device: { token: 'doc-v2-tok' } }));
    expect((await person(emulator, 'doc-v2d')).devices).toEqual([]);
  });

  it('person add_relationships / delete_relationships; null in relationship_attributes removes', async () => {
    const rel = (attrs: Record<string, unknown>) => ({
      cio_relationships: [
        { identifiers: { object_type_id: '2', object_id: 'doc-course' }, relationship_attributes: attrs },
      ],
    });
    await entity(v2Person({ id: 'doc-v2r' }, 'add_relationships', rel({ role: 'student', level: 2 })));
    await entity(v2Person({ id: 'doc-v2r' }, 'add_relationships', rel({ role: null })));
    expect((await person(emulator, 'doc-v2r')).relationships).toEqual([
      expect.objectContaining({ object_id: 'doc-course', attributes: { level: 2 } }),
    ]);
    await entity(v2Person({ id: 'doc-v2r' }, 'delete_relationships', rel({})));
    expect((await person(emulator, 'doc-v2r')).relationships).toEqual([]);
  });

  it('object identify creates then updates (null and "" remove attributes); delete removes its relationships', async () => {
    const obj = (action: string, extra: Record<string, unknown> = {}) => ({
      type: 'object',
      identifiers: { object_type_id: '1', object_id: 'doc-obj' },
      action,
      ...extra,
    });
    await entity(
      obj('identify', {
        attributes: { name: 'Doc Co', seats: 5, tier: 'gold' },
        cio_relationships: [{ identifiers: { id: 'doc-v2o' } }],
      }),
    );
    await entity(obj('identify', { attributes: { seats: null, tier: '' } }));
    const stored = await item(emulator, 'objects', '1:doc-obj');
    expect(stored.attributes).toEqual({ name: 'Doc Co' });
    expect((await person(emulator, 'doc-v2o')).relationships).toHaveLength(1);
    expect((await entity(obj('delete'))).status).toBe(200);
    expect(await item(emulator, 'objects', stored.cio_object_id)).toBeNull();
    expect((await person(emulator, 'doc-v2o')).relationships).toEqual([]);
  });

  it('object identify_anonymous with the documented top-level anonymous_id carries over on identify', async () => {
    const res = await entity({
      type: 'object',
      identifiers: { object_type_id: '1', object_id: 'doc-anon-co' },
      action: 'identify_anonymous',
      anonymous_id: 'doc-anon-obj',
    });
    expect(res.status).toBe(200);
    await put('doc-anon-obj-person', { anonymous_id: 'doc-anon-obj' });
    expect(
      (await person(emulator, 'doc-anon-obj-person')).relationships.map(
        (r: { object_id: string }) => r.object_id,
      ),
    ).toEqual(['doc-anon-co']);
  });

  it('merge: primary keeps its values, secondary is deleted', async () => {
    await entity(v2Person({ id: 'doc-v2-pri' }, 'identify', { attributes: { a: 'p' } }));
    await entity(
      v2Person({ email: 'doc-v2-sec@example.com' }, 'identify', { attributes: { a: 's', b: 's' } }),
    );
    const res = await entity({
      type: 'person',
      action: 'merge',
      primary: { id: 'doc-v2-pri' },
      secondary: { email: 'doc-v2-sec@example.com' },
    });
    expect(res.status).toBe(200);
    expect((await person(emulator, 'doc-v2-pri')).attributes).toEqual({ a: 'p', b: 's' });
    expect(await state(emulator, 'people', 'email=doc-v2-sec@example.com')).toEqual([
      expect.objectContaining({ id: 'doc-v2-pri' }),
    ]);
  });

  it('suppress deletes and blocks; unsuppress frees the identifier', async () => {
    await entity(v2Person({ id: 'doc-v2s' }, 'identify', { attributes: { a: 1 } }));
    await entity(v2Person({ id: 'doc-v2s' }, 'suppress'));
    expect(await person(emulator, 'doc-v2s')).toBeNull();
    await entity(v2Person({ id: 'doc-v2s' }, 'identify', { attributes: { a: 2 } }));
    expect(await person(emulator, 'doc-v2s')).toBeNull();
    await entity(v2Person({ id: 'doc-v2s' }, 'unsuppress'));
    await entity(v2Person({ id: 'doc-v2s' }, 'identify', { attributes: { a: 3 } }));
    expect((await person(emulator, 'doc-v2s')).attributes).toEqual({ a: 3 });
  });

  it('delivery event needs attributes.device_token and a name of opened, converted or delivered', async () => {
    const ok = await entity({
      type: 'delivery',
      action: 'event',
      identifiers: { id: 'doc-dlv' },
      name: 'converted',
      attributes: { device_token: 'tok' },
    });
    expect(ok.status).toBe(200);
    const badName = await entity({
      type: 'delivery',
      action: 'event',
      identifiers: { id: 'doc-dlv' },
      name: 'clicked',
      attributes: { device_token: 'tok' },
    });
    expect(badName.status).toBe(400);
    expect(badName.body.errors[0]).toMatchObject({ field: 'name' });
  });

  it('a request of exactly 32 KB is not "smaller than 32kb": 400', async () => {
    const text = exactly(32 * 1024, (pad) => v2Person({ id: 'doc-v2-32k' }, 'identify', { attributes: pad }));
    const res = await call(emulator, 'POST', '/api/v2/entity', { rawBody: text });
    expect(res.status).toBe(400);
    expect(await person(emulator, 'doc-v2-32k')).toBeNull();
  });
});

describe('v2 /api/v2/batch', () => {
  it('207 lists invalid operations by batch_index; the others are applied', async () => {
    const res = await batch({
      batch: [
        v2Person({ id: 'doc-b1' }, 'identify', { attributes: { n: 1 } }),
        v2Person({ id: 'doc-b2' }, 'event', {}),
        v2Person({ id: 'doc-b3' }, 'identify', { attributes: { n: 3 } }),
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body).toEqual({
      errors: [{ batch_index: 1, reason: expect.any(String), field: 'name', message: expect.any(String) }],
    });
    expect((await person(emulator, 'doc-b1')).attributes).toEqual({ n: 1 });
    expect((await person(emulator, 'doc-b3')).attributes).toEqual({ n: 3 });
  });

  it('a whole request of exactly 500 KB is not "smaller than 500kb": 400 for the whole request', async () => {
    const target = 500 * 1024;
    const ops: string[] = [];
    const envelope = bytes('{"batch":[]}');
    const used = () => envelope + ops.reduce((n, o) => n + bytes(o) + 1, 0);
    while (target - used() > 31_000) {
      ops.push(
        exactly(30_000, (pad) => v2Person({ id: `doc-500k-${ops.length}` }, 'identify', { attributes: pad })),
      );
    }
    ops.push(
      exactly(target - used(), (pad) =>
        v2Person({ id: `doc-500k-${ops.length}` }, 'identify', { attributes: pad }),
      ),
    );
    const text = `{"batch":[${ops.join(',')}]}`;
    expect(bytes(text)).toBe(target);
    const res = await call(emulator, 'POST', '/api/v2/batch', { rawBody: text });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [expect.objectContaining({ message: expect.any(String) })] });
    expect(await person(emulator, 'doc-500k-0')).toBeNull();
  });

  it('an oversized batch (over 1 MB) is still the documented 400 {errors}, not another status', async () => {
    const op = (i: number) =>
      v2Person({ id: `doc-huge-${i}` }, 'identify', { attributes: { v: 'x'.repeat(900) } });
    const ops = Array.from({ length: 1200 }, (_, i) => op(i));
    const res = await batch({ batch: ops });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [expect.objectContaining({ message: expect.any(String) })] });
  });
});
