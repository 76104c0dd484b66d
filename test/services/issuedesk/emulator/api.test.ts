// Pylon emulator wire protocol: auth, envelopes of every endpoint, list paging, 404s, hostile ids, bad JSON.
import { afterAll, describe, expect, it } from 'vitest';
import { call, DAY, makeEmulator, NOW_MS, windowQuery } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('auth', () => {
  it('refuses a missing Authorization header as invalid_authorization_header', async () => {
    const res = await call(emulator, 'GET', '/me', { token: null });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'invalid_authorization_header' });
    expect(res.body.errors[0]).toMatch(/Bearer/);
    expect(res.body.request_id).toMatch(UUID);
  });

  it.each(['Basic dXNlcjpwYXNz', 'pylon_sandbox_token', 'Bearer', 'Token pylon_sandbox_token'])(
    'refuses Authorization "%s" as invalid_authorization_header',
    async (header) => {
      const res = await call(emulator, 'GET', '/me', { token: null, headers: { authorization: header } });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_authorization_header');
    },
  );

  it('refuses a wrong token as invalid_api_token, on every upstream route', async () => {
    for (const path of ['/me', '/issues/1', '/contacts', '/users', '/teams', '/no-such-path']) {
      const res = await call(emulator, 'GET', path, { token: 'wrong' });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ errors: ['Invalid API token'], code: 'invalid_api_token' });
    }
  });

  it('accepts the bearer scheme in any letter case', async () => {
    const res = await call(emulator, 'GET', '/me', {
      token: null,
      headers: { authorization: `bearer ${emulator.token}` },
    });
    expect(res.status).toBe(200);
  });
});

describe('success envelopes', () => {
  it('GET /me returns the org with a request id that matches the header', async () => {
    const res = await call(emulator, 'GET', '/me');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: expect.stringMatching(UUID), name: 'Lumen Labs' });
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    const again = await call(emulator, 'GET', '/me');
    expect(again.body.request_id).not.toBe(res.body.request_id);
  });

  it('GET /issues returns issues with the full Issue shape and pagination', async () => {
    const res = await call(emulator, 'GET', windowQuery(NOW_MS - 7 * DAY, NOW_MS));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'pagination', 'request_id']);
    expect(res.body.pagination).toEqual({ cursor: null, has_next_page: false });
    expect(res.body.data.length).toBeGreaterThan(5);
    const issue = res.body.data[0];
    expect(issue).toMatchObject({
      id: expect.stringMatching(UUID),
      number: expect.any(Number),
      title: expect.any(String),
      body_html: expect.stringContaining('<p>'),
      state: expect.any(String),
      type: expect.stringMatching(/^(conversation|ticket)$/),
      source: expect.any(String),
      // The emulator's own view of the issue, never the real product's web app (app.request's origin).
      link: `http://localhost/_emulator/state/issues/${issue.number}`,
      created_at: expect.stringMatching(RFC3339_SECONDS),
      updated_at: expect.stringMatching(RFC3339_SECONDS),
      latest_message_time: expect.stringMatching(RFC3339_SECONDS),
      tags: expect.any(Array),
      custom_fields: expect.any(Object),
      attachment_urls: expect.any(Array),
      customer_portal_visible: expect.any(Boolean),
      account: { id: expect.stringMatching(UUID) },
      requester: { id: expect.stringMatching(UUID), email: expect.stringContaining('@') },
    });
  });

  it('GET /issues/:id/messages lists the conversation, oldest first', async () => {
    const res = await call(emulator, 'GET', '/issues/5/messages');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ cursor: null, has_next_page: false });
    const [first, ...rest] = res.body.data;
    expect(first).toMatchObject({
      id: expect.stringMatching(UUID),
      message_html: expect.any(String),
      is_private: false,
      timestamp: expect.stringMatching(RFC3339_SECONDS),
      author: { name: expect.any(String), contact: { id: expect.any(String), email: expect.any(String) } },
    });
    const times = [first, ...rest].map((m: { timestamp: string }) => m.timestamp);
    expect([...times].sort()).toEqual(times);
  });

  it('GET /issue-statuses lists the built-in and custom statuses', async () => {
    const res = await call(emulator, 'GET', '/issue-statuses');
    expect(res.body.data.map((s: { slug: string }) => s.slug)).toEqual([
      'new',
      'waiting_on_you',
      'waiting_on_customer',
      'on_hold',
      'closed',
      'investigating',
      'pending_release',
    ]);
    expect(res.body.data[5]).toEqual({
      slug: 'investigating',
      label: 'Investigating',
      category: 'waiting_on_you',
      is_default_status: false,
      is_archived: false,
    });
  });

  it('GET /contacts and /contacts/:id return Contact objects', async () => {
    const list = await call(emulator, 'GET', '/contacts');
    expect(list.body.data).toHaveLength(40);
    expect(list.body.pagination).toEqual({ cursor: null, has_next_page: false });
    const contact = list.body.data[0];
    expect(contact).toMatchObject({
      id: expect.stringMatching(UUID),
      name: expect.any(String),
      email: expect.stringContaining('@'),
      emails: expect.arrayContaining([contact.email]),
      account: { id: expect.any(String) },
      portal_role: expect.stringMatching(/^(member|admin|no_access)$/),
    });
    const one = await call(emulator, 'GET', `/contacts/${contact.id}`);
    expect(one.body.data).toEqual(contact);
  });

  it('GET /users and /users/:id return User objects', async () => {
    const list = await call(emulator, 'GET', '/users');
    expect(list.body.data).toHaveLength(12);
    const user = list.body.data[0];
    expect(user).toMatchObject({
      id: expect.stringMatching(UUID),
      name: 'Ana Lima',
      email: 'ana.lima@lumenlabs.example',
      status: 'active',
      role_id: expect.any(String),
    });
    expect((await call(emulator, 'GET', `/users/${user.id}`)).body.data).toEqual(user);
  });

  it('GET /teams and /teams/:id return teams with their members', async () => {
    const list = await call(emulator, 'GET', '/teams');
    expect(list.body.data.map((t: { name: string }) => t.name)).toEqual([
      'Support',
      'Billing',
      'Engineering',
      'Success',
    ]);
    for (const team of list.body.data) {
      expect(team.users.length).toBeGreaterThanOrEqual(2);
      expect(team.users.length).toBeLessThanOrEqual(5);
      for (const member of team.users)
        expect(member).toEqual({ id: expect.any(String), email: expect.any(String) });
    }
    const team = list.body.data[2];
    expect((await call(emulator, 'GET', `/teams/${team.id}`)).body.data).toEqual(team);
  });
});

describe('list paging for contacts, users and teams', () => {
  it('walks every contact once with limit and cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await call(emulator, 'GET', `/contacts?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((c: { id: string }) => c.id));
      cursor = res.body.pagination.cursor;
      expect(res.body.pagination.has_next_page).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(pages).toBe(6);
    expect(new Set(seen).size).toBe(40);
  });

  it('pages users and teams too', async () => {
    const users = await call(emulator, 'GET', '/users?limit=5');
    expect(users.body.data).toHaveLength(5);
    expect(users.body.pagination.has_next_page).toBe(true);
    const next = await call(emulator, 'GET', `/users?limit=5&cursor=${users.body.pagination.cursor}`);
    expect(next.body.data[0].name).toBe('Sofia Rossi');
    const teams = await call(emulator, 'GET', '/teams?limit=3');
    const rest = await call(emulator, 'GET', `/teams?cursor=${teams.body.pagination.cursor}`);
    expect(rest.body.data.map((t: { name: string }) => t.name)).toEqual(['Success']);
    expect(rest.body.pagination).toEqual({ cursor: null, has_next_page: false });
  });

  it.each([
    '/contacts?limit=0',
    '/users?limit=1000',
    '/teams?limit=abc',
    '/contacts?cursor=bogus',
    '/users?cursor=eHh4eHh4eHh4eA',
  ])('rejects %s with 400', async (path) => {
    const res = await call(emulator, 'GET', path);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatch(/limit|cursor/i);
  });

  it('does not accept one list’s cursor on another list', async () => {
    const users = await call(emulator, 'GET', '/users?limit=2');
    const res = await call(emulator, 'GET', `/teams?cursor=${users.body.pagination.cursor}`);
    expect(res.status).toBe(400);
  });
});

describe('errors', () => {
  it.each([
    ['/issues/00000000-0000-4000-8000-000000000000', 'Issue not found'],
    ['/issues/999999', 'Issue not found'],
    ['/issues/999999/messages', 'Issue not found'],
    ['/contacts/nope', 'Contact not found'],
    ['/users/nope', 'User not found'],
    ['/teams/nope', 'Team not found'],
  ])('GET %s is a 404 saying %s', async (path, message) => {
    const res = await call(emulator, 'GET', path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ errors: [message], request_id: expect.stringMatching(UUID) });
  });

  it('unknown paths and methods are 404 with code not_found', async () => {
    for (const [method, path] of [
      ['GET', '/accounts'],
      ['GET', '/issues/1/unknown'],
      ['DELETE', '/issues/1'],
      ['POST', '/me'],
    ] as const) {
      const res = await call(emulator, method, path);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it.each([
    ['/issues/..%2Fx', 'GET'],
    ['/issues/a%2Fb', 'GET'],
    ['/issues/%3Fx%3D1', 'GET'],
    ['/issues/1%2Fmessages', 'GET'],
    ['/issues/..%2F..%2Fme', 'GET'],
    ['/issues/%00', 'PATCH'],
    ['/issues/..%5Cx', 'GET'],
    ['/contacts/..%2Fsearch', 'GET'],
    ['/teams/%23frag', 'GET'],
  ])('treats hostile id %s as a plain unknown id', async (path, method) => {
    const res = await call(emulator, method, path, method === 'PATCH' ? { body: { title: 'x' } } : {});
    expect(res.status).toBe(404);
    expect(res.body.errors[0]).toMatch(/not found/);
    expect(res.body.code).toBeUndefined();
    const logged = emulator.controls.log.since().at(-1);
    expect(logged?.path).toBe(path.replace(/\?.*/, ''));
  });

  it('malformed JSON bodies are a 400, not a crash', async () => {
    for (const [method, path] of [
      ['PATCH', '/issues/1'],
      ['POST', '/issues/1/note'],
      ['POST', '/contacts/search'],
    ] as const) {
      const res = await call(emulator, method, path, { rawBody: '{"title": ' });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatch(/not valid JSON/);
      const notObject = await call(emulator, method, path, { rawBody: '[1,2]' });
      expect(notObject.status).toBe(400);
      expect(notObject.body.errors[0]).toMatch(/JSON object/);
    }
  });
});
