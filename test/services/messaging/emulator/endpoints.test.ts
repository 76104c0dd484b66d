// The remaining v1 endpoints: form submissions (204, form connections), metrics and legacy push metrics (no
// auth), manual segments (id_type, data-driven refusal) and the root global unsubscribe.
import { afterAll, describe, expect, it } from 'vitest';
import { call, item, makeEmulator, NOW_S, person, state } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

describe('forms: POST /api/v1/forms/{form_id}/submit', () => {
  const submit = (formId: string, body: unknown) =>
    call(emulator, 'POST', `/api/v1/forms/${formId}/submit`, { body });

  it('answers 204 with no body, creates the form connection and the person', async () => {
    const res = await submit('newsletter', {
      data: { email: 'form1@example.com', first_name: 'Ada', form_name: 'ignored', form_url: 'https://x' },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await item(emulator, 'forms', 'newsletter')).toMatchObject({ id: 'newsletter', submissions: 1 });
    expect((await person(emulator, 'form1@example.com')).attributes).toEqual({ first_name: 'Ada' });
    const [submission] = await state(emulator, 'form_submissions', 'form_id=newsletter');
    expect(submission).toMatchObject({
      outcome: 'applied',
      person: (await person(emulator, 'form1@example.com')).cio_id,
      fields: { email: 'form1@example.com', first_name: 'Ada', form_name: 'ignored', form_url: 'https://x' },
    });
  });

  it('a second submission updates the same person; the same form id is the same form', async () => {
    await submit('newsletter', { data: { email: 'FORM1@example.com', company: 'Analytical' } });
    expect((await person(emulator, 'form1@example.com')).attributes).toEqual({
      first_name: 'Ada',
      company: 'Analytical',
    });
    expect((await state(emulator, 'forms')).filter((f) => f.id === 'newsletter')).toHaveLength(1);
    expect((await item(emulator, 'forms', 'newsletter')).submissions).toBe(2);
  });

  it('identifies by id as well', async () => {
    expect((await submit('by-id', { data: { id: 'form-user', plan: 'pro' } })).status).toBe(204);
    expect((await person(emulator, 'form-user')).attributes).toEqual({ plan: 'pro' });
  });

  it('refuses both or neither identifier, and non-string fields, yet still adds the form connection', async () => {
    const neither = await submit('mapped-later', { data: { email_address: 'x@example.com' } });
    expect(neither.status).toBe(400);
    expect(neither.body.meta.errors[0]).toMatch(/give exactly one of email or id/);
    expect(await item(emulator, 'forms', 'mapped-later')).toMatchObject({ submissions: 0 });
    const both = await submit('f2', { data: { email: 'a@example.com', id: 'a' } });
    expect(both.body.meta.errors[0]).toMatch(/got both/);
    const numeric = await submit('f2', { data: { id: 'a', age: 3 } });
    expect(numeric.status).toBe(400);
    expect(numeric.body.meta.errors[0]).toMatch(/^data\.age: /);
    expect(await person(emulator, 'a')).toBeNull();
    expect((await submit('f2', { data: { email: 'not-an-email' } })).body.meta.errors).toEqual([
      'data.email: must be an email address',
    ]);
  });
});

describe('metrics: POST /api/v1/metrics and /api/v1/push/events (no auth)', () => {
  it('records a metric for a known delivery, with its extra fields', async () => {
    const [delivery] = await state(emulator, 'deliveries', 'channel=email&limit=1');
    const res = await call(emulator, 'POST', '/api/v1/metrics', {
      auth: null,
      body: {
        delivery_id: delivery.id,
        metric: 'clicked',
        href: 'https://example.com/offer',
        timestamp: 1_700_000_000,
      },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{}');
    expect(await state(emulator, 'metrics', `delivery_id=${delivery.id}`)).toEqual([
      expect.objectContaining({
        metric: 'clicked',
        timestamp: 1_700_000_000,
        fields: { href: 'https://example.com/offer' },
        source: 'metrics',
        known_delivery: true,
      }),
    ]);
  });

  it('accepts a metric for an unknown delivery ("the request was received")', async () => {
    await call(emulator, 'POST', '/api/v1/metrics', {
      auth: null,
      body: { delivery_id: 'no-such', metric: 'opened' },
    });
    expect(await state(emulator, 'metrics', 'delivery_id=no-such')).toEqual([
      expect.objectContaining({ known_delivery: false, timestamp: NOW_S }),
    ]);
  });

  it('refuses a metric name no channel has, listing the allowed ones', async () => {
    const res = await call(emulator, 'POST', '/api/v1/metrics', {
      auth: null,
      body: { delivery_id: 'd', metric: 'liked' },
    });
    expect(res.status).toBe(400);
    expect(res.body.meta.errors[0]).toMatch(/^metric: is not a valid value; expected one of .*"spammed"/);
    const missing = await call(emulator, 'POST', '/api/v1/metrics', {
      auth: null,
      body: { metric: 'opened' },
    });
    expect(missing.body.meta.errors).toEqual(['delivery_id: is required']);
  });

  it('records legacy push metrics', async () => {
    const res = await call(emulator, 'POST', '/api/v1/push/events', {
      auth: null,
      body: { delivery_id: 'push-d', event: 'opened', device_id: 'tok', timestamp: 1_700_000_001 },
    });
    expect(res.status).toBe(200);
    expect(await state(emulator, 'metrics', 'delivery_id=push-d')).toEqual([
      expect.objectContaining({ metric: 'opened', source: 'push_events', fields: { device_id: 'tok' } }),
    ]);
    const bad = await call(emulator, 'POST', '/api/v1/push/events', {
      auth: null,
      body: { event: 'clicked' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.meta.errors).toEqual([
      'delivery_id: is required',
      'event: must be one of "opened", "converted", "delivered"',
    ]);
  });
});

describe('manual segments: add_customers and remove_customers', () => {
  const segment = (id: string | number, action: 'add' | 'remove', body: unknown, query = '') =>
    call(emulator, 'POST', `/api/v1/segments/${id}/${action}_customers${query}`, { body });
  const members = async (id: number) =>
    (await state(emulator, 'segment_members', `segment_id=${id}`)).map((m) => m.cio_id);

  it('adds by id (the default), ignoring unknown people and duplicates', async () => {
    const before = await members(2);
    const u1 = await person(emulator, 'user-1');
    const u2 = await person(emulator, 'user-2');
    expect((await segment(2, 'add', { ids: ['user-1', 'user-2', 'user-2', 'nobody'] })).status).toBe(200);
    const after = await members(2);
    expect(after).toEqual(expect.arrayContaining([...before, u1.cio_id, u2.cio_id]));
    expect(after.length).toBe(new Set([...before, u1.cio_id, u2.cio_id]).size);
  });

  it('adds by email and by cio_id; values of another kind are ignored', async () => {
    const u3 = await person(emulator, 'user-3');
    const u4 = await person(emulator, 'user-4');
    await segment(3, 'add', { ids: [u3.email.toUpperCase(), 'user-5'] }, '?id_type=email');
    await segment(3, 'add', { ids: [u4.cio_id, `cio_${u4.cio_id}`, 'user-6'] }, '?id_type=cio_id');
    const after = await members(3);
    expect(after).toEqual(expect.arrayContaining([u3.cio_id, u4.cio_id]));
    expect(after).not.toContain((await person(emulator, 'user-5')).cio_id);
    expect(after).not.toContain((await person(emulator, 'user-6')).cio_id);
  });

  it('removes by any id_type, also people who have no id', async () => {
    const u3 = await person(emulator, 'user-3');
    await segment(3, 'remove', { ids: [u3.email] }, '?id_type=email');
    expect(await members(3)).not.toContain(u3.cio_id);
    await call(emulator, 'PUT', '/api/v1/customers/no-id@example.com', { body: {} });
    const noId = await person(emulator, 'no-id@example.com');
    await segment(3, 'add', { ids: ['no-id@example.com'] }, '?id_type=email');
    expect(await members(3)).toContain(noId.cio_id);
    await segment(3, 'remove', { ids: [noId.cio_id] }, '?id_type=cio_id');
    expect(await members(3)).not.toContain(noId.cio_id);
  });

  it('refuses data-driven and unknown segments, bad ids and bad id_type with the v1 400', async () => {
    const dataDriven = await segment(10, 'add', { ids: ['user-1'] });
    expect(dataDriven.status).toBe(400);
    expect(dataDriven.body.meta.errors[0]).toMatch(/data-driven/);
    expect(await members(10)).toEqual([]);
    expect((await segment(999, 'add', { ids: ['user-1'] })).body).toEqual({
      meta: { errors: ['segment 999 does not exist'] },
    });
    expect((await segment('abc', 'add', { ids: ['user-1'] })).body.meta.errors[0]).toMatch(
      /segment_id must be an integer/,
    );
    expect((await segment(1, 'add', { ids: ['user-1'] }, '?id_type=phone')).body.meta.errors[0]).toMatch(
      /id_type/,
    );
    expect((await segment(1, 'remove', { ids: [] })).body.meta.errors[0]).toMatch(/^ids: /);
  });
});

describe('global unsubscribe: POST /unsubscribe/{delivery_id}', () => {
  it('requires Content-Type: application/json', async () => {
    const [delivery] = await state(emulator, 'deliveries', 'limit=1');
    const res = await emulator.app.request(`/unsubscribe/${delivery.id}`, {
      method: 'POST',
      body: '{"unsubscribe":true}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(400);
    expect(await state(emulator, 'unsubscribes', `delivery_id=${delivery.id}`)).toEqual([]);
  });

  it('unsubscribe: true sets the person’s unsubscribed attribute and records it against the delivery', async () => {
    const deliveries = await state(emulator, 'deliveries');
    const delivery = deliveries.find((d) => d.person !== null);
    const res = await call(emulator, 'POST', `/unsubscribe/${delivery.id}`, {
      auth: null,
      body: { unsubscribe: true },
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{}');
    expect((await person(emulator, delivery.person)).attributes.unsubscribed).toBe(true);
    expect(await state(emulator, 'unsubscribes', `delivery_id=${delivery.id}`)).toEqual([
      expect.objectContaining({ person: delivery.person, unsubscribed: true, unsubscribed_at: NOW_S }),
    ]);
  });

  it('unsubscribe: false resubscribes the person and records that too; absent records nothing (200 each)', async () => {
    const delivery = (await state(emulator, 'deliveries')).filter((d) => d.person !== null)[1];
    const post = (body: unknown) =>
      call(emulator, 'POST', `/unsubscribe/${delivery.id}`, { auth: null, body });
    expect((await post({})).status).toBe(200);
    expect(await state(emulator, 'unsubscribes', `delivery_id=${delivery.id}`)).toEqual([]);
    expect((await post({ unsubscribe: true })).status).toBe(200);
    expect((await post({ unsubscribe: false })).status).toBe(200);
    expect((await person(emulator, delivery.person)).attributes.unsubscribed).toBe(false);
    expect(await state(emulator, 'unsubscribes', `delivery_id=${delivery.id}`)).toEqual([
      expect.objectContaining({ person: delivery.person, unsubscribed: true }),
      expect.objectContaining({ person: delivery.person, unsubscribed: false }),
    ]);
  });

  it('an unknown delivery id or a malformed body is a 400', async () => {
    expect(
      (
        await call(emulator, 'POST', '/unsubscribe/no-such-delivery', {
          auth: null,
          body: { unsubscribe: true },
        })
      ).status,
    ).toBe(400);
    const [delivery] = await state(emulator, 'deliveries', 'limit=1');
    expect(
      (await call(emulator, 'POST', `/unsubscribe/${delivery.id}`, { auth: null, rawBody: '{' })).status,
    ).toBe(400);
    expect(
      (
        await call(emulator, 'POST', `/unsubscribe/${delivery.id}`, {
          auth: null,
          body: { unsubscribe: 'yes' },
        })
      ).status,
    ).toBe(400);
  });
});
