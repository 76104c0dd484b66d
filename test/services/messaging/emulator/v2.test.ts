// Track v2: every person, object and delivery operation through /api/v2/entity, its {errors:[{reason, field,
// message}]} envelope, and /api/v2/batch (200, 207 with batch_index and the valid operations applied, 400).
import { afterAll, describe, expect, it } from 'vitest';
import { call, DAY_S, item, makeEmulator, NOW_S, person, state } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const entity = (body: unknown) => call(emulator, 'POST', '/api/v2/entity', { body });
const batch = (body: unknown) => call(emulator, 'POST', '/api/v2/batch', { body });
const personOp = (id: string, action: string, extra: Record<string, unknown> = {}) => ({
  type: 'person',
  identifiers: { id },
  action,
  ...extra,
});

describe('person operations', () => {
  it('identify creates and updates, with reserved attributes and relationships', async () => {
    const res = await entity(
      personOp('v2-1', 'identify', {
        attributes: { email: 'v2-1@example.com', plan: 'pro', created_at: 1_700_000_000, gone: null },
        cio_relationships: [
          {
            identifiers: { object_type_id: '1', object_id: 'globex' },
            relationship_attributes: { role: 'owner' },
          },
        ],
      }),
    );
    expect(res.status).toBe(200);
    expect(res.text).toBe('{}');
    expect(await person(emulator, 'v2-1@example.com')).toMatchObject({
      id: 'v2-1',
      attributes: { plan: 'pro', created_at: 1_700_000_000 },
      relationships: [expect.objectContaining({ object_id: 'globex', attributes: { role: 'owner' } })],
    });
    await entity(personOp('v2-1', 'identify', { attributes: { plan: null } }));
    expect((await person(emulator, 'v2-1')).attributes).toEqual({ created_at: 1_700_000_000 });
    await entity({
      type: 'person',
      identifiers: { email: 'v2-1@example.com' },
      action: 'identify',
      attributes: { by: 'email' },
    });
    expect((await person(emulator, 'v2-1')).attributes.by).toBe('email');
    await entity(personOp('v2-unknown', 'identify', { attributes: { _update: true } }));
    expect(await person(emulator, 'v2-unknown')).toBeNull();
  });

  it('event, screen and page record typed events (name trimmed, id deduplicated)', async () => {
    await entity(
      personOp('v2-1', 'event', { name: ' signed_up ', id: 'ULID-1', attributes: { source: 'ads' } }),
    );
    await entity(personOp('v2-1', 'event', { name: 'signed_up', id: 'ULID-1' }));
    await entity(personOp('v2-1', 'screen', { name: 'Home', timestamp: NOW_S - DAY_S }));
    await entity(personOp('v2-1', 'page', { name: '/pricing', attributes: { title: 'Pricing' } }));
    const events = await state(emulator, 'events', 'person=v2-1&origin=v2');
    expect(events.map((e) => [e.name, e.type, e.data])).toEqual([
      ['signed_up', 'event', { source: 'ads' }],
      ['Home', 'screen', {}],
      ['/pricing', 'page', { title: 'Pricing' }],
    ]);
  });

  it('add_device and delete_device', async () => {
    await entity(
      personOp('v2-1', 'add_device', {
        device: { token: 'v2-tok', platform: 'android', attributes: { app_version: '3.0' } },
      }),
    );
    expect(await item(emulator, 'devices', 'v2-tok')).toMatchObject({
      platform: 'android',
      attributes: { app_version: '3.0' },
    });
    await entity(personOp('v2-1', 'delete_device', { device: { token: 'v2-tok' } }));
    expect(await item(emulator, 'devices', 'v2-tok')).toBeNull();
  });

  it('add_relationships and delete_relationships', async () => {
    const rel = [
      {
        identifiers: { object_type_id: '2', object_id: 'course-101' },
        relationship_attributes: { grade: 'A' },
      },
    ];
    await entity(personOp('v2-1', 'add_relationships', { cio_relationships: rel }));
    expect(
      (await state(emulator, 'relationships', 'person=v2-1&object_id=course-101'))[0].attributes,
    ).toEqual({ grade: 'A' });
    await entity(personOp('v2-1', 'delete_relationships', { cio_relationships: rel }));
    expect(await state(emulator, 'relationships', 'person=v2-1&object_id=course-101')).toEqual([]);
  });

  it('merge, suppress, unsuppress and delete', async () => {
    await entity(personOp('v2-2', 'identify', { attributes: { city: 'Oslo' } }));
    await entity({ type: 'person', action: 'merge', primary: { id: 'v2-1' }, secondary: { id: 'v2-2' } });
    expect(await person(emulator, 'v2-2')).toBeNull();
    expect((await person(emulator, 'v2-1')).attributes.city).toBe('Oslo');

    await entity(personOp('v2-3', 'identify'));
    await entity(personOp('v2-3', 'suppress'));
    expect(await person(emulator, 'v2-3')).toBeNull();
    await entity(personOp('v2-3', 'identify'));
    expect(await person(emulator, 'v2-3')).toBeNull();
    await entity(personOp('v2-3', 'unsuppress'));
    await entity(personOp('v2-3', 'identify'));
    expect(await person(emulator, 'v2-3')).not.toBeNull();

    await entity(personOp('v2-3', 'delete'));
    expect(await person(emulator, 'v2-3')).toBeNull();
  });

  it('identify: timestamp orders updates; dot notation and unsubscribed read as in v1', async () => {
    await entity(
      personOp('v2-ts', 'identify', {
        timestamp: NOW_S,
        attributes: { plan: 'new', cio_subscription_preferences: { topics: { topic_1: true } } },
      }),
    );
    await entity(
      personOp('v2-ts', 'identify', {
        timestamp: NOW_S - 60,
        attributes: { plan: 'stale', unsubscribed: 'TRUE' },
      }),
    );
    await entity(
      personOp('v2-ts', 'identify', { attributes: { 'cio_subscription_preferences.topics.topic_2': false } }),
    );
    expect((await person(emulator, 'v2-ts')).attributes).toEqual({
      plan: 'new',
      unsubscribed: true,
      cio_subscription_preferences: { topics: { topic_1: true, topic_2: false } },
    });
  });
});

describe('object operations', () => {
  const object = (objectId: string, action: string, extra: Record<string, unknown> = {}) => ({
    type: 'object',
    identifiers: { object_type_id: '1', object_id: objectId },
    action,
    ...extra,
  });

  it('identify creates an object related to people; attributes merge, null removes', async () => {
    await entity(
      object('v2-co', 'identify', {
        attributes: { name: 'V2 Co', seats: 10 },
        cio_relationships: [{ identifiers: { id: 'v2-1' }, relationship_attributes: { role: 'admin' } }],
      }),
    );
    const created = await item(emulator, 'objects', '1:v2-co');
    expect(created).toMatchObject({
      object_type_id: '1',
      object_id: 'v2-co',
      attributes: { name: 'V2 Co', seats: 10 },
    });
    await entity({
      type: 'object',
      identifiers: { cio_object_id: created.cio_object_id },
      action: 'identify',
      attributes: { seats: null, tier: 'gold' },
    });
    expect((await item(emulator, 'objects', created.cio_object_id)).attributes).toEqual({
      name: 'V2 Co',
      tier: 'gold',
    });
    expect(await state(emulator, 'relationships', `cio_object_id=${created.cio_object_id}`)).toEqual([
      expect.objectContaining({
        person: (await person(emulator, 'v2-1')).cio_id,
        attributes: { role: 'admin' },
      }),
    ]);
  });

  it('add_relationships and delete_relationships from the object side', async () => {
    await entity(
      object('v2-co', 'add_relationships', {
        cio_relationships: [{ identifiers: { email: 'v2-rel@example.com' } }],
      }),
    );
    expect(
      (await state(emulator, 'relationships', 'person=v2-rel@example.com')).map((r) => r.object_id),
    ).toEqual(['v2-co']);
    await entity(
      object('v2-co', 'delete_relationships', {
        cio_relationships: [{ identifiers: { email: 'v2-rel@example.com' } }],
      }),
    );
    expect(await state(emulator, 'relationships', 'person=v2-rel@example.com')).toEqual([]);
  });

  it('identify_anonymous relates the object to a visitor; identifying them carries it over', async () => {
    await entity(
      object('v2-anon-co', 'identify_anonymous', {
        cio_relationships: [
          { identifiers: { anonymous_id: 'v2-anon' }, relationship_attributes: { seen: true } },
        ],
      }),
    );
    expect(await state(emulator, 'relationships', 'anonymous_id=v2-anon')).toEqual([
      expect.objectContaining({ person: null, object_id: 'v2-anon-co' }),
    ]);
    await call(emulator, 'PUT', '/api/v1/customers/v2-visitor', { body: { anonymous_id: 'v2-anon' } });
    expect(
      (await state(emulator, 'relationships', 'person=v2-visitor')).map((r) => [r.object_id, r.attributes]),
    ).toEqual([['v2-anon-co', { seen: true }]]);
  });

  it('identify_anonymous takes the top-level anonymous_id of the upstream example too', async () => {
    expect(
      (await entity(object('v2-anon-top', 'identify_anonymous', { anonymous_id: 'v2-anon-top' }))).status,
    ).toBe(200);
    expect(await state(emulator, 'relationships', 'anonymous_id=v2-anon-top')).toEqual([
      expect.objectContaining({ person: null, object_id: 'v2-anon-top' }),
    ]);
    // A visitor already identified with that anonymous_id gets the relationship directly.
    await entity(personOp('v2-known-visitor', 'identify', { attributes: { anonymous_id: 'v2-anon-known' } }));
    await entity(object('v2-anon-known-co', 'identify_anonymous', { anonymous_id: 'v2-anon-known' }));
    expect(
      (await state(emulator, 'relationships', 'person=v2-known-visitor')).map((r) => r.object_id),
    ).toEqual(['v2-anon-known-co']);
  });

  it('delete removes the object and its relationships', async () => {
    const { cio_object_id } = await item(emulator, 'objects', '1:v2-co');
    expect((await entity(object('v2-co', 'delete'))).status).toBe(200);
    expect(await item(emulator, 'objects', cio_object_id)).toBeNull();
    expect(await state(emulator, 'relationships', `cio_object_id=${cio_object_id}`)).toEqual([]);
  });
});

describe('delivery operations', () => {
  it('record a metric for the delivery', async () => {
    const [delivery] = await state(emulator, 'deliveries', 'channel=push&limit=1');
    await entity({
      type: 'delivery',
      action: 'event',
      identifiers: { id: delivery.id },
      name: 'opened',
      attributes: { device_token: 'tok-x' },
    });
    expect(await state(emulator, 'metrics', `delivery_id=${delivery.id}&source=v2_delivery`)).toEqual([
      expect.objectContaining({ metric: 'opened', fields: { device_token: 'tok-x' }, known_delivery: true }),
    ]);
  });
});

describe('the v2 error envelope {errors: [{reason, field, message}]}', () => {
  it.each([
    ['missing type', { identifiers: { id: 'x' } }, { reason: 'required', field: 'type' }],
    ['unknown type', { type: 'robot' }, { reason: 'invalid', field: 'type' }],
    [
      'unknown action',
      { type: 'person', action: 'dance', identifiers: { id: 'x' } },
      { reason: 'invalid', field: 'action' },
    ],
    [
      'two identifiers',
      { type: 'person', action: 'delete', identifiers: { id: 'x', email: 'x@example.com' } },
      { reason: 'invalid', field: 'identifiers' },
    ],
    [
      'missing event name',
      { type: 'person', action: 'event', identifiers: { id: 'x' } },
      { reason: 'required', field: 'name' },
    ],
    [
      'object without object_id',
      { type: 'object', action: 'delete', identifiers: { object_type_id: '1' } },
      { reason: 'required', field: 'identifiers.object_id' },
    ],
    [
      'unknown object type',
      { type: 'object', action: 'delete', identifiers: { object_type_id: '42', object_id: 'a' } },
      { reason: 'invalid', field: 'identifiers.object_type_id' },
    ],
    [
      'phone identifier',
      { type: 'person', action: 'delete', identifiers: { phone: '+14155552671' } },
      { reason: 'invalid', field: 'identifiers.phone' },
    ],
    [
      'nested relationship id',
      {
        type: 'person',
        action: 'add_relationships',
        identifiers: { id: 'x' },
        cio_relationships: [{ identifiers: { object_type_id: '1' } }],
      },
      { reason: 'required', field: 'cio_relationships.0.identifiers.object_id' },
    ],
    [
      'delivery device token',
      { type: 'delivery', action: 'event', identifiers: { id: 'd' }, name: 'opened', attributes: {} },
      { reason: 'required', field: 'attributes.device_token' },
    ],
  ])('%s', async (_label, body, expected) => {
    const res = await entity(body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ ...expected, message: expect.any(String) });
  });

  it('invalid JSON', async () => {
    const res = await call(emulator, 'POST', '/api/v2/entity', { rawBody: '{nope' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [{ reason: 'invalid', field: '', message: expect.stringMatching(/not valid JSON/) }],
    });
  });
});

describe('batch: POST /api/v2/batch', () => {
  it('applies a mixed batch and answers {}', async () => {
    const res = await batch({
      batch: [
        personOp('b-1', 'identify', { attributes: { n: 1 } }),
        {
          type: 'object',
          identifiers: { object_type_id: '2', object_id: 'course-b' },
          action: 'identify',
          attributes: { title: 'B' },
        },
        {
          type: 'object',
          identifiers: { object_type_id: '2', object_id: 'course-b' },
          action: 'add_relationships',
          cio_relationships: [{ identifiers: { id: 'b-1' } }],
        },
        personOp('b-1', 'event', { name: 'enrolled' }),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(
      (await person(emulator, 'b-1')).relationships.map((r: { object_id: string }) => r.object_id),
    ).toEqual(['course-b']);
    expect((await state(emulator, 'batches')).at(-1)).toMatchObject({
      operations: 4,
      accepted: 4,
      failed: [],
      status: 200,
    });
  });

  it('207: lists each invalid operation by batch_index and applies the valid ones', async () => {
    const res = await batch({
      batch: [
        personOp('b-2', 'identify', { attributes: { n: 2 } }),
        { type: 'person', identifiers: { id: 'b-3' }, action: 'event' },
        personOp('b-4', 'identify', { attributes: { n: 4 } }),
        { type: 'object', identifiers: { object_type_id: '77', object_id: 'x' }, action: 'identify' },
        'not an object',
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body.errors).toEqual([
      { batch_index: 1, reason: 'required', field: 'name', message: 'is required' },
      {
        batch_index: 3,
        reason: 'invalid',
        field: 'identifiers.object_type_id',
        message: expect.stringMatching(/object type 77/),
      },
      { batch_index: 4, reason: 'invalid', field: '', message: expect.any(String) },
    ]);
    expect((await person(emulator, 'b-2')).attributes.n).toBe(2);
    expect((await person(emulator, 'b-4')).attributes.n).toBe(4);
    expect(await person(emulator, 'b-3')).toBeNull();
    expect((await state(emulator, 'batches')).at(-1)).toMatchObject({
      operations: 5,
      accepted: 2,
      failed: [1, 3, 4],
      status: 207,
    });
  });

  it.each([
    ['not JSON', '{"batch": [', 'invalid', ''],
    ['no batch array', '{"ops": []}', 'required', 'batch'],
    ['batch not an array', '{"batch": {}}', 'invalid', 'batch'],
    ['empty batch', '{"batch": []}', 'invalid', 'batch'],
    ['not an object', '[1]', 'invalid', ''],
  ])('400 for a malformed request: %s', async (_label, rawBody, reason, field) => {
    const res = await call(emulator, 'POST', '/api/v2/batch', { rawBody });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ reason, field, message: expect.any(String) }] });
    expect((await state(emulator, 'batches')).at(-1)).toMatchObject({ status: 400, operations: 0 });
  });
});
