// People on the v1 API: identify (create, update, identifier rules, Attribute Update Failure, _update,
// anonymous folding), delete, devices, events, suppression and merge, each checked through the control API.
import { afterAll, describe, expect, it } from 'vitest';
import { call, DAY_S, item, makeEmulator, NOW_S, person, state } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const put = (identifier: string, body: unknown) =>
  call(emulator, 'PUT', `/api/v1/customers/${identifier}`, { body });

describe('identify: PUT /api/v1/customers/{identifier}', () => {
  it('creates a person by id, then merges attributes; an empty string removes one', async () => {
    expect((await put('p-1', { email: 'p1@example.com', plan: 'basic', seats: 3, trial: true })).status).toBe(
      200,
    );
    const created = await person(emulator, 'p-1');
    expect(created).toMatchObject({
      id: 'p-1',
      email: 'p1@example.com',
      attributes: { plan: 'basic', seats: 3, trial: true },
      created_at: NOW_S,
      cio_id: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    await put('p-1', { plan: 'pro', trial: '' });
    expect((await person(emulator, 'p-1')).attributes).toEqual({ plan: 'pro', seats: 3 });
    // The same person by email, by cio_<id> and by bare cio_id.
    expect((await person(emulator, 'p1@example.com')).id).toBe('p-1');
    expect((await person(emulator, `cio_${created.cio_id}`)).id).toBe('p-1');
  });

  it('creates a person by email; emails are case-insensitive identifiers', async () => {
    await put('Mixed.Case@Example.com', { source: 'signup' });
    await put('mixed.case@example.com', { step: 2 });
    const people = await state(emulator, 'people', 'email=MIXED.CASE@example.com');
    expect(people).toHaveLength(1);
    expect(people[0]).toMatchObject({
      id: null,
      email: 'Mixed.Case@Example.com',
      attributes: { source: 'signup', step: 2 },
    });
  });

  it('sets created_at (profile and attribute), subscription preferences and unsubscribed', async () => {
    await put('p-2', {
      created_at: 1_700_000_000,
      unsubscribed: true,
      cio_subscription_preferences: { topics: { topic_1: true, topic_3: true } },
    });
    // The whole object replaces the stored preferences; dot notation changes one topic and keeps the others.
    await put('p-2', { cio_subscription_preferences: { topics: { topic_2: false } }, _timestamp: NOW_S });
    await put('p-2', { 'cio_subscription_preferences.topics.topic_4': true });
    const p = await person(emulator, 'p-2');
    expect(p.created_at).toBe(1_700_000_000);
    expect(p.attributes).toEqual({
      created_at: 1_700_000_000,
      unsubscribed: true,
      cio_subscription_preferences: { topics: { topic_2: false, topic_4: true } },
    });
  });

  it('dot notation changes one subscription topic; an empty value reverts it to the default (removes it)', async () => {
    await put('p-dot', { cio_subscription_preferences: { topics: { topic_1: true, topic_2: true } } });
    await put('p-dot', {
      'cio_subscription_preferences.topics.topic_1': '',
      'cio_subscription_preferences.topics.topic_5': false,
      plan: 'pro',
    });
    expect((await person(emulator, 'p-dot')).attributes).toEqual({
      plan: 'pro',
      cio_subscription_preferences: { topics: { topic_2: true, topic_5: false } },
    });
  });

  it('stores unsubscribed as a boolean: any case of "true", 1 and "1" are true, anything else false', async () => {
    const cases: [unknown, boolean][] = [
      [true, true],
      ['tRUe', true],
      ['TRUE', true],
      [1, true],
      ['1', true],
      [false, false],
      ['yes', false],
      [0, false],
      [2, false],
      ['0', false],
    ];
    for (const [value, expected] of cases) {
      await put('p-unsub', { unsubscribed: value });
      expect((await person(emulator, 'p-unsub')).attributes.unsubscribed, JSON.stringify(value)).toBe(
        expected,
      );
    }
    // An empty value removes it, as for any attribute.
    await put('p-unsub', { unsubscribed: '' });
    expect((await person(emulator, 'p-unsub')).attributes).not.toHaveProperty('unsubscribed');
  });

  it('_timestamp: an older update leaves attributes a later one set, applies the rest and records which', async () => {
    await put('p-ts', { plan: 'new', seats: 5, _timestamp: NOW_S });
    const res = await put('p-ts', { plan: 'stale', city: 'Oslo', _timestamp: NOW_S - 3600 });
    expect(res.status).toBe(200);
    expect((await person(emulator, 'p-ts')).attributes).toEqual({ plan: 'new', seats: 5, city: 'Oslo' });
    expect((await state(emulator, 'dropped', 'reason=stale_attributes')).at(-1).detail).toEqual({
      identifier: 'id p-ts',
      timestamp: NOW_S - 3600,
      attributes: ['plan'],
    });
    // Without _timestamp an update counts as of its receipt time; the same time as the last one still applies.
    await put('p-ts', { plan: 'now' });
    expect((await person(emulator, 'p-ts')).attributes.plan).toBe('now');
    // Removing is an update too: an older removal is ignored, a newer one applies.
    await put('p-ts', { seats: '', _timestamp: NOW_S - 60 });
    expect((await person(emulator, 'p-ts')).attributes.seats).toBe(5);
    await put('p-ts', { seats: '', plan: 'later', _timestamp: NOW_S + 60 });
    expect((await person(emulator, 'p-ts')).attributes).toEqual({ plan: 'later', city: 'Oslo' });
  });

  it('_timestamp orders subscription preferences and created_at like other attributes', async () => {
    await put('p-ts2', {
      created_at: 1_600_000_000,
      cio_subscription_preferences: { topics: { topic_1: true } },
    });
    await put('p-ts2', {
      created_at: 1_500_000_000,
      'cio_subscription_preferences.topics.topic_1': false,
      _timestamp: NOW_S - 1,
    });
    const p = await person(emulator, 'p-ts2');
    expect(p.created_at).toBe(1_600_000_000);
    expect(p.attributes).toEqual({
      created_at: 1_600_000_000,
      cio_subscription_preferences: { topics: { topic_1: true } },
    });
  });

  it('_update: true never creates, but updates an existing person', async () => {
    await put('p-ghost', { _update: true, a: 1 });
    expect(await person(emulator, 'p-ghost')).toBeNull();
    const [dropped] = await state(emulator, 'dropped', 'reason=update_only_unknown_person');
    expect(dropped.detail).toMatchObject({ identifier: 'id p-ghost' });
    await put('p-1', { _update: true, a: 1 });
    expect((await person(emulator, 'p-1')).attributes.a).toBe(1);
  });

  it('adds a missing identifier from the body, and adopts the path identifier for a body match', async () => {
    await put('p-3', {});
    await put('p-3', { email: 'p3@example.com' });
    expect((await person(emulator, 'p-3')).email).toBe('p3@example.com');
    // Unknown path id + known email: the existing person gets the new id (upstream's "tip").
    const before = await person(emulator, 'p3@example.com');
    await put('p-3-new', { email: 'p3@example.com', x: 1 });
    const after = await person(emulator, 'p3@example.com');
    expect(after).toMatchObject({ cio_id: before.cio_id, id: 'p-3-new', attributes: { x: 1 } });
    expect(await person(emulator, 'p-3')).toBeNull();
  });

  it('changing an identifier needs the cio_ path; otherwise it is an Attribute Update Failure (200, no change)', async () => {
    await put('p-4', { email: 'p4@example.com' });
    const res = await put('p-4', { email: 'p4-new@example.com', y: 1 });
    expect(res.status).toBe(200);
    expect(await person(emulator, 'p-4')).toMatchObject({ email: 'p4@example.com', attributes: {} });
    const { cio_id } = await person(emulator, 'p-4');
    await put(`cio_${cio_id}`, { email: 'p4-new@example.com', id: 'p-4b', y: 2 });
    expect(await person(emulator, `cio_${cio_id}`)).toMatchObject({
      id: 'p-4b',
      email: 'p4-new@example.com',
      attributes: { y: 2 },
    });
  });

  it('path and body identifiers of different people: 200, neither changes, and it is recorded', async () => {
    await put('p-5', { email: 'p5@example.com', v: 'five' });
    await put('p-6', { email: 'p6@example.com', v: 'six' });
    const res = await put('p-5', { email: 'p6@example.com', v: 'clash' });
    expect(res.status).toBe(200);
    expect((await person(emulator, 'p-5')).attributes.v).toBe('five');
    expect((await person(emulator, 'p-6')).attributes.v).toBe('six');
    const failures = await state(emulator, 'dropped', 'reason=attribute_update_failure');
    expect(failures.at(-1).detail).toMatchObject({ identifier: 'id p-5', email: 'p6@example.com' });
    expect(failures.at(-1).detail.message).toMatch(/belongs to another person/);
    // A cio_ path whose body email belongs to someone else fails the same way.
    const { cio_id } = await person(emulator, 'p-5');
    await put(`cio_${cio_id}`, { email: 'p6@example.com' });
    expect((await person(emulator, 'p-5')).email).toBe('p5@example.com');
  });

  it('an unknown cio_ path is dropped, never created', async () => {
    expect((await put('cio_ffffffff', { a: 1 })).status).toBe(200);
    expect(await state(emulator, 'people', 'cio_id=ffffffff')).toEqual([]);
    expect((await state(emulator, 'dropped', 'reason=cio_id_not_found')).length).toBeGreaterThan(0);
  });

  it('anonymous_id folds in that visitor’s anonymous events of the last 30 days', async () => {
    const send = (body: unknown) => call(emulator, 'POST', '/api/v1/events', { body });
    await send({ name: 'old visit', anonymous_id: 'anon-fold', timestamp: NOW_S - 31 * DAY_S });
    await send({ name: 'recent visit', anonymous_id: 'anon-fold', timestamp: NOW_S - 2 * DAY_S });
    await send({ name: 'today', anonymous_id: 'anon-fold' });
    await send({ name: 'someone else', anonymous_id: 'anon-other' });
    expect(await state(emulator, 'anonymous_events', 'anonymous_id=anon-fold')).toHaveLength(3);
    await put('p-fold', { anonymous_id: 'anon-fold' });
    const events = await state(emulator, 'events', 'person=p-fold');
    expect(events.map((e) => e.name).sort()).toEqual(['recent visit', 'today']);
    expect(events.every((e) => e.anonymous_id === 'anon-fold')).toBe(true);
    expect((await state(emulator, 'anonymous_events', 'anonymous_id=anon-fold')).map((e) => e.name)).toEqual([
      'old visit',
    ]);
    expect(await state(emulator, 'anonymous_events', 'anonymous_id=anon-other')).toHaveLength(1);
    // The anonymous_id stays on the person as an attribute, so later events with it are theirs straight away.
    expect((await person(emulator, 'p-fold')).attributes).toEqual({ anonymous_id: 'anon-fold' });
    await send({ name: 'after identify', anonymous_id: 'anon-fold' });
    expect((await state(emulator, 'events', 'person=p-fold&name=after identify'))[0]).toMatchObject({
      anonymous_id: 'anon-fold',
      origin: 'anonymous',
    });
    expect(await state(emulator, 'anonymous_events', 'name=after identify')).toEqual([]);
  });

  it('cio_relationships adds and deletes relationships to objects', async () => {
    await put('p-rel', {
      cio_relationships: {
        action: 'add_relationships',
        relationships: [
          {
            identifiers: { object_type_id: '1', object_id: 'acme' },
            relationship_attributes: { role: 'admin' },
          },
          { identifiers: { object_type_id: '2', object_id: 'brand-new-course' } },
        ],
      },
    });
    const rels = await state(emulator, 'relationships', 'person=p-rel');
    expect(rels.map((r) => [r.object_type_id, r.object_id, r.attributes])).toEqual([
      ['1', 'acme', { role: 'admin' }],
      ['2', 'brand-new-course', {}],
    ]);
    // An object named by type and id is created on first use.
    expect(await item(emulator, 'objects', '2:brand-new-course')).toMatchObject({
      object_id: 'brand-new-course',
    });
    await put('p-rel', {
      cio_relationships: {
        action: 'delete_relationships',
        relationships: [{ identifiers: { object_type_id: '1', object_id: 'acme' } }],
      },
    });
    expect((await state(emulator, 'relationships', 'person=p-rel')).map((r) => r.object_id)).toEqual([
      'brand-new-course',
    ]);
    const unknownType = await put('p-rel', {
      cio_relationships: { relationships: [{ identifiers: { object_type_id: '99', object_id: 'x' } }] },
    });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.meta.errors[0]).toMatch(/object type 99/);
  });

  it('refuses bodies that are not JSON objects of string, number or boolean attributes (v1 envelope)', async () => {
    const notJson = await call(emulator, 'PUT', '/api/v1/customers/p-bad', { rawBody: '{"a":' });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual({ meta: { errors: [expect.stringMatching(/not valid JSON/)] } });
    const nested = await put('p-bad', { a: { b: 1 } });
    expect(nested.status).toBe(400);
    expect(nested.body.meta.errors[0]).toMatch(/^a: /);
    expect((await put('p-bad', [1, 2])).status).toBe(400);
    expect(await person(emulator, 'p-bad')).toBeNull();
  });
});

describe('workspace identifier settings', () => {
  it('identifyBy id: an email-looking path value is an id, and email is a plain, non-unique field', async () => {
    const ids = makeEmulator({ identifyBy: 'id' });
    try {
      await call(ids, 'PUT', '/api/v1/customers/a@b.com', { body: { email: 'shared@example.com' } });
      await call(ids, 'PUT', '/api/v1/customers/other', { body: { email: 'shared@example.com' } });
      expect(await person(ids, 'a@b.com')).toMatchObject({ id: 'a@b.com', email: 'shared@example.com' });
      expect((await person(ids, 'other')).email).toBe('shared@example.com');
      // Email changes freely: it is not an identifier here.
      await call(ids, 'PUT', '/api/v1/customers/other', { body: { email: 'changed@example.com' } });
      expect((await person(ids, 'other')).email).toBe('changed@example.com');
      const merge = await call(ids, 'POST', '/api/v1/merge_customers', {
        body: { primary: { email: 'changed@example.com' }, secondary: { id: 'a@b.com' } },
      });
      expect(merge.status).toBe(400);
      expect(merge.body.meta.error).toMatch(/email is not an identifier/);
    } finally {
      ids.close();
    }
  });

  it('identifyBy email: a path value that is not an email (nor cio_) is a 400', async () => {
    const emails = makeEmulator({ identifyBy: 'email' });
    try {
      const res = await call(emails, 'PUT', '/api/v1/customers/user-77', { body: {} });
      expect(res.status).toBe(400);
      expect(res.body.meta.errors[0]).toMatch(/identifies people by email/);
      expect((await call(emails, 'PUT', '/api/v1/customers/Ann@Example.com', { body: {} })).status).toBe(200);
      expect((await person(emails, 'ann@example.com')).email).toBe('Ann@Example.com');
    } finally {
      emails.close();
    }
  });
});

describe('delete: DELETE /api/v1/customers/{identifier}', () => {
  it('removes the person with their devices, events, memberships and relationships', async () => {
    const [member] = await state(emulator, 'segment_members', 'segment_id=1&limit=1');
    const victim = await person(emulator, member.cio_id);
    await call(emulator, 'PUT', `/api/v1/customers/${victim.id}/devices`, {
      body: { device: { id: 'del-device', platform: 'ios' } },
    });
    await call(emulator, 'POST', `/api/v1/customers/${victim.id}/events`, { body: { name: 'bye' } });
    await put(victim.id, {
      cio_relationships: { relationships: [{ identifiers: { object_type_id: '1', object_id: 'acme' } }] },
    });
    expect((await call(emulator, 'DELETE', `/api/v1/customers/${victim.id}`)).status).toBe(200);
    expect(await person(emulator, victim.cio_id)).toBeNull();
    for (const collection of ['devices', 'events', 'segment_members', 'relationships']) {
      expect(await state(emulator, collection, `person=${victim.cio_id}`), collection).toEqual([]);
    }
  });

  it('answers 200 for an unknown person', async () => {
    expect((await call(emulator, 'DELETE', '/api/v1/customers/nobody-here')).status).toBe(200);
  });
});

describe('devices', () => {
  const device = (identifier: string, body: unknown) =>
    call(emulator, 'PUT', `/api/v1/customers/${identifier}/devices`, { body });

  it('adds and updates a device (merging its attributes)', async () => {
    await put('d-1', {});
    const res = await device('d-1', {
      device: { id: 'tok-1', platform: 'ios', last_used: 1_700_000_000, attributes: { app_version: '1.0' } },
    });
    expect(res.status).toBe(200);
    await device('d-1', { device: { id: 'tok-1', platform: 'ios', attributes: { push_enabled: 'true' } } });
    expect(await state(emulator, 'devices', 'person=d-1')).toEqual([
      expect.objectContaining({
        id: 'tok-1',
        platform: 'ios',
        last_used: NOW_S,
        attributes: { app_version: '1.0', push_enabled: 'true' },
      }),
    ]);
  });

  it('a token belongs to one person: adding it to another moves it', async () => {
    await device('d-2', { device: { id: 'tok-1', platform: 'ios' } });
    expect(await state(emulator, 'devices', 'person=d-1')).toEqual([]);
    expect((await item(emulator, 'devices', 'tok-1')).person).toBe((await person(emulator, 'd-2')).cio_id);
  });

  it('creates the person for an unknown id or email, never for an unknown cio_id', async () => {
    await device('d-new@example.com', { device: { id: 'tok-2', platform: 'android' } });
    expect((await person(emulator, 'd-new@example.com')).email).toBe('d-new@example.com');
    await device('cio_deadbeef', { device: { id: 'tok-3', platform: 'android' } });
    expect(await item(emulator, 'devices', 'tok-3')).toBeNull();
  });

  it('refuses invalid devices with the v1 400', async () => {
    const res = await device('d-1', { device: { id: 'tok-4', platform: 'windows' } });
    expect(res.status).toBe(400);
    expect(res.body.meta.errors[0]).toMatch(/^device\.platform: /);
    expect((await device('d-1', {})).body).toEqual({ meta: { errors: ['device: is required'] } });
  });

  it('DELETE removes the person’s device; unknown devices and people are still 200', async () => {
    await device('d-3', { device: { id: 'tok-5', platform: 'ios' } });
    expect((await call(emulator, 'DELETE', '/api/v1/customers/d-1/devices/tok-5')).status).toBe(200);
    expect(await item(emulator, 'devices', 'tok-5')).not.toBeNull();
    expect((await call(emulator, 'DELETE', '/api/v1/customers/d-3/devices/tok-5')).status).toBe(200);
    expect(await item(emulator, 'devices', 'tok-5')).toBeNull();
    expect((await call(emulator, 'DELETE', '/api/v1/customers/nobody/devices/none')).status).toBe(200);
  });
});

describe('events: POST /api/v1/customers/{identifier}/events', () => {
  const track = (identifier: string, body: unknown) =>
    call(emulator, 'POST', `/api/v1/customers/${identifier}/events`, { body });

  it('records a trimmed, typed, timestamped event; a repeated id is ignored', async () => {
    await put('e-1', {});
    expect((await track('e-1', { name: '  purchase  ', id: '01HZX', data: { amount: 5 } })).status).toBe(200);
    expect((await track('e-1', { name: 'purchase', id: '01HZX', data: { amount: 6 } })).status).toBe(200);
    await track('e-1', { name: '/pricing', type: 'page', timestamp: 1_700_000_000 });
    const events = await state(emulator, 'events', 'person=e-1');
    expect(events).toEqual([
      expect.objectContaining({
        name: 'purchase',
        type: 'event',
        id: '01HZX',
        timestamp: NOW_S,
        data: { amount: 5 },
      }),
      expect.objectContaining({ name: '/pricing', type: 'page', id: null, timestamp: 1_700_000_000 }),
    ]);
    expect((await state(emulator, 'dropped', 'reason=duplicate_event_id')).at(-1).detail).toEqual({
      id: '01HZX',
    });
  });

  it('creates the person for an unknown id', async () => {
    await track('e-new', { name: 'first_touch' });
    expect((await state(emulator, 'events', 'person=e-new')).map((e) => e.name)).toEqual(['first_touch']);
  });

  it('refuses a missing or blank name and a wrong type', async () => {
    expect((await track('e-1', { data: {} })).body).toEqual({ meta: { errors: ['name: is required'] } });
    expect((await track('e-1', { name: '   ' })).body).toEqual({
      meta: { errors: ['name: must not be blank'] },
    });
    const wrongType = await track('e-1', { name: 'x', type: 'click' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.meta.errors[0]).toMatch(/^type: /);
  });
});

describe('anonymous events: POST /api/v1/events', () => {
  const send = (body: unknown) => call(emulator, 'POST', '/api/v1/events', { body });

  it('records an event for an anonymous_id', async () => {
    expect((await send({ name: 'viewed', anonymous_id: 'anon-1', data: { page: '/' } })).status).toBe(200);
    expect(await state(emulator, 'anonymous_events', 'anonymous_id=anon-1')).toEqual([
      expect.objectContaining({ name: 'viewed', person: null, invite: false, data: { page: '/' } }),
    ]);
  });

  it('without anonymous_id, data.recipient makes an invite event', async () => {
    expect(
      (await send({ name: 'invited', anonymous_id: '', data: { recipient: 'friend@example.com' } })).status,
    ).toBe(200);
    const invites = (await state(emulator, 'anonymous_events', 'name=invited')) as { invite: boolean }[];
    expect(invites).toEqual([expect.objectContaining({ anonymous_id: null, invite: true })]);
  });

  it('without both it is a 400 that says what is missing', async () => {
    const res = await send({ name: 'lost' });
    expect(res.status).toBe(400);
    expect(res.body.meta.errors[0]).toMatch(/anonymous_id is required, unless data\.recipient/);
  });
});

describe('suppression', () => {
  const post = (path: string) => call(emulator, 'POST', path, { body: {} });

  it('deletes the profile and blocks both its id and email; later calls are accepted but ignored', async () => {
    await put('s-1', { email: 's1@example.com', a: 1 });
    await call(emulator, 'POST', '/api/v1/customers/s-1/events', { body: { name: 'x' } });
    const { cio_id } = await person(emulator, 's-1');
    expect((await post('/api/v1/customers/s-1/suppress')).status).toBe(200);
    expect(await person(emulator, cio_id)).toBeNull();
    expect(await state(emulator, 'events', `person=${cio_id}`)).toEqual([]);
    const blocked = await state(emulator, 'suppressions', `cio_id=${cio_id}`);
    expect(blocked.map((s) => `${s.kind}:${s.identifier}`).sort()).toEqual([
      'email:s1@example.com',
      'id:s-1',
    ]);
    for (const res of [
      await put('s-1', { a: 2 }),
      await put('S1@example.com', { a: 3 }),
      await put('s-other', { email: 's1@example.com' }),
      await call(emulator, 'POST', '/api/v1/customers/s-1/events', { body: { name: 'y' } }),
      await call(emulator, 'PUT', '/api/v1/customers/s-1/devices', {
        body: { device: { id: 't', platform: 'ios' } },
      }),
    ]) {
      expect(res.status).toBe(200);
    }
    expect(await person(emulator, 's-1')).toBeNull();
    expect(await person(emulator, 's1@example.com')).toBeNull();
    expect(await person(emulator, 's-other')).toBeNull();
    expect((await state(emulator, 'dropped', 'reason=suppressed')).length).toBeGreaterThanOrEqual(5);
  });

  it('unsuppress frees both identifiers and restores nothing', async () => {
    expect((await post('/api/v1/customers/s1@example.com/unsuppress')).status).toBe(200);
    expect(await state(emulator, 'suppressions', 'kind=id')).not.toContainEqual(
      expect.objectContaining({ identifier: 's-1' }),
    );
    expect(await person(emulator, 's-1')).toBeNull();
    await put('s-1', { fresh: true });
    expect((await person(emulator, 's-1')).attributes).toEqual({ fresh: true });
    expect(await state(emulator, 'events', 'person=s-1')).toEqual([]);
  });

  it('blocks an identifier nobody has yet', async () => {
    await post('/api/v1/customers/never-seen/suppress');
    await put('never-seen', { a: 1 });
    expect(await person(emulator, 'never-seen')).toBeNull();
    await post('/api/v1/customers/never-seen/unsuppress');
    await put('never-seen', { a: 1 });
    expect(await person(emulator, 'never-seen')).not.toBeNull();
  });
});

describe('merge: POST /api/v1/merge_customers', () => {
  const merge = (body: unknown) => call(emulator, 'POST', '/api/v1/merge_customers', { body });

  it('folds the secondary into the primary: unset attributes, recent events, devices, segments, deliveries', async () => {
    await put('m-1', { plan: 'pro', city: '', nick: 'primary' });
    await put('m-2', { email: 'm2@example.com', plan: 'basic', city: 'Lyon', extra: 1 });
    const secondary = await person(emulator, 'm-2');
    await call(emulator, 'POST', '/api/v1/customers/m-2/events', { body: { name: 'recent' } });
    await call(emulator, 'POST', '/api/v1/customers/m-2/events', {
      body: { name: 'ancient', timestamp: NOW_S - 40 * DAY_S },
    });
    await call(emulator, 'PUT', '/api/v1/customers/m-2/devices', {
      body: { device: { id: 'm-tok', platform: 'ios' } },
    });
    await call(emulator, 'POST', '/api/v1/segments/2/add_customers', { body: { ids: ['m-2'] } });

    expect((await merge({ primary: { id: 'm-1' }, secondary: { email: 'm2@example.com' } })).status).toBe(
      200,
    );
    const primary = await person(emulator, 'm-1');
    expect(primary.attributes).toEqual({ plan: 'pro', nick: 'primary', city: 'Lyon', extra: 1 });
    expect(primary.email).toBe('m2@example.com');
    expect(primary.segments).toContain(2);
    expect(primary.devices.map((d: { id: string }) => d.id)).toEqual(['m-tok']);
    expect((await state(emulator, 'events', 'person=m-1')).map((e) => e.name)).toEqual(['recent']);
    expect(await person(emulator, secondary.cio_id)).toBeNull();
    expect((await state(emulator, 'merges')).at(-1)).toMatchObject({
      primary_ref: { kind: 'id', value: 'm-1' },
      secondary_ref: { kind: 'email', value: 'm2@example.com' },
      secondary_cio_id: secondary.cio_id,
      outcome: 'merged',
    });
  });

  it('moves the secondary’s delivery history to the primary', async () => {
    const [delivery] = await state(emulator, 'deliveries', 'limit=1');
    const owner = await person(emulator, delivery.person);
    await put('m-3', {});
    await merge({ primary: { id: 'm-3' }, secondary: { cio_id: owner.cio_id } });
    expect((await item(emulator, 'deliveries', delivery.id)).person).toBe(
      (await person(emulator, 'm-3')).cio_id,
    );
  });

  it('does nothing (still 200) when the primary does not exist', async () => {
    await put('m-4', { keep: true });
    expect((await merge({ primary: { id: 'm-missing' }, secondary: { id: 'm-4' } })).status).toBe(200);
    expect((await person(emulator, 'm-4')).attributes).toEqual({ keep: true });
    expect((await state(emulator, 'merges', 'outcome=primary_not_found')).length).toBe(1);
  });

  it('refuses more than one identifier per side with the merge envelope {meta:{error}}', async () => {
    const res = await merge({ primary: { id: 'm-1', email: 'm2@example.com' }, secondary: { id: 'm-4' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      meta: { error: expect.stringMatching(/^primary: give exactly one of id, email, cio_id/) },
    });
    const notJson = await call(emulator, 'POST', '/api/v1/merge_customers', { rawBody: 'nope' });
    expect(notJson.body).toEqual({ meta: { error: expect.stringMatching(/not valid JSON/) } });
    expect((await merge({ primary: { id: 'm-1' } })).body).toEqual({
      meta: { error: 'secondary: is required' },
    });
  });
});
