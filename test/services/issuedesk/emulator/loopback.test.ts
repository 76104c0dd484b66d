// The issue-desk emulator on a real socket: inspection, request log, faults and rate limits via fetch.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_ISSUEDESK_TOKEN,
  ISSUEDESK_RATE_LIMITS,
  type RunningIssueDeskEmulator,
  startIssueDeskEmulator,
} from '../../../../src/services/issuedesk/emulator/app.js';
import type { Loose } from './helpers.js';

let running: RunningIssueDeskEmulator;
const auth = { authorization: `Bearer ${DEFAULT_ISSUEDESK_TOKEN}` };

beforeAll(async () => {
  running = await startIssueDeskEmulator({ scale: 60 });
});
afterAll(async () => {
  await running?.close();
});

async function api(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Loose; headers: Headers }> {
  const res = await fetch(`${running.url}${path}`, { ...init, headers: { ...auth, ...init.headers } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

async function control(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Loose }> {
  const res = await fetch(`${running.url}/_emulator${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, body: await res.json() };
}

beforeEach(async () => {
  await control('DELETE', '/faults');
  await control('PUT', '/rate-limits', { enabled: false, limits: { ...ISSUEDESK_RATE_LIMITS } });
  await control('DELETE', '/requests');
});

describe('issue-desk emulator over a loopback socket', () => {
  it('starts on an ephemeral port with the sandbox token', () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.token).toBe('pylon_sandbox_token');
  });

  it('serves the upstream API and the inspection API', async () => {
    const me = await api('/me');
    expect(me.status).toBe(200);
    expect(me.headers.get('x-request-id')).toBe(me.body.request_id);
    const state = await control('GET', '/state');
    expect(state.body).toEqual({
      counts: { issues: 60, messages: expect.any(Number), contacts: 40, users: 12, teams: 4 },
      org: me.body.data,
      token_hint: 'pylo…',
      seed: 1,
      scale: 60,
    });
    expect(JSON.stringify(state.body)).not.toContain(DEFAULT_ISSUEDESK_TOKEN);
    const issues = await control('GET', '/state/issues?limit=5&offset=10');
    expect(issues.body).toMatchObject({ collection: 'issues', total: 60, offset: 10, limit: 5 });
    expect(issues.body.items.map((i: { number: number }) => i.number)).toEqual([11, 12, 13, 14, 15]);
    const messages = await control('GET', '/state/messages?issue_id=11');
    expect(
      messages.body.items.every((m: { issue_id: string }) => m.issue_id === issues.body.items[0].id),
    ).toBe(true);
    expect(messages.body.total).toBe(messages.body.items.length);
    for (const name of ['contacts', 'users', 'teams', 'statuses']) {
      const page = await control('GET', `/state/${name}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBe(page.body.total);
    }
    const user = (await control('GET', '/state/users')).body.items[0];
    expect((await control('GET', `/state/users/${user.id}`)).body).toEqual(user);
    expect((await control('GET', '/state/issues/11')).body).toMatchObject({
      number: 11,
      messages: expect.any(Array),
      threads: expect.any(Array),
    });
    expect((await control('GET', '/state/issues/999')).status).toBe(404);
    expect((await control('GET', '/state/widgets')).status).toBe(404);
  });

  it("links an issue to the emulator's own view of it, never to the real product's web app", async () => {
    const issue = (await api('/issues/7')).body.data;
    expect(issue.link).toBe(`${running.url}/_emulator/state/issues/7`);
    expect(issue.link).not.toContain('usepylon');
    // The link answers without the API token (a person opens it in a browser): the issue with its messages.
    const opened = await fetch(issue.link);
    expect(opened.status).toBe(200);
    expect(await opened.json()).toMatchObject({ id: issue.id, number: 7, messages: expect.any(Array) });
  });

  it('logs method, path, query, body and status, never the token', async () => {
    await api('/issues/2', { method: 'PATCH', body: JSON.stringify({ state: 'on_hold' }) });
    await api('/issues?start_time=2020-01-01T00:00:00Z&end_time=2020-01-02T00:00:00Z&limit=5');
    await fetch(`${running.url}/me`, { headers: { authorization: 'Bearer not-the-token' } });
    const { body } = await control('GET', '/requests');
    const log = body.requests as Loose[];
    expect(log.map((r) => `${r.method} ${r.path} ${r.status} ${r.auth}`)).toEqual([
      'PATCH /issues/2 200 bearer',
      'GET /issues 200 bearer',
      'GET /me 401 bearer',
    ]);
    expect(log[0].body).toEqual({ state: 'on_hold' });
    expect(log[1].query).toEqual({
      start_time: '2020-01-01T00:00:00Z',
      end_time: '2020-01-02T00:00:00Z',
      limit: '5',
    });
    expect(log[0].durationMs).toEqual(expect.any(Number));
    expect(JSON.stringify(body)).not.toMatch(/pylon_sandbox_token|not-the-token/);
    const since = await control('GET', `/requests?since=${log[1].seq}`);
    expect(since.body.requests.map((r: { seq: number }) => r.seq)).toEqual([log[2].seq]);
    const cleared = await control('DELETE', '/requests');
    expect(cleared.body.cleared).toBe(3);
    expect((await control('GET', '/requests')).body.requests).toEqual([]);
  });

  it('injects latency', async () => {
    await control('PUT', '/faults', { rules: [{ path: '/me', kind: 'latency', latencyMs: 300, times: 1 }] });
    const started = performance.now();
    expect((await api('/me')).status).toBe(200);
    // A lower bound only: the injected delay is a floor; how much longer a loaded machine takes is not asserted.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('injects a 500 in the Pylon error envelope, then expires after `times`', async () => {
    await control('PUT', '/faults', {
      rules: [{ method: 'GET', path: '/issues/:id', kind: 'error', times: 2 }],
    });
    const failed = await api('/issues/1');
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ errors: [expect.any(String)], request_id: expect.any(String) });
    expect((await api('/issues/1')).status).toBe(500);
    expect((await api('/issues/1')).status).toBe(200);
    expect((await control('GET', '/faults')).body.rules).toEqual([]);
  });

  it('injects 429 with Retry-After and chosen statuses', async () => {
    await control('PUT', '/faults', {
      rules: [
        { path: '/users', kind: 'rate_limit', retryAfterSeconds: 12 },
        { path: '/teams', kind: 'error', status: 503 },
      ],
    });
    const limited = await api('/users');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('12');
    expect(limited.body.errors[0]).toMatch(/rate limit/i);
    expect((await api('/teams')).status).toBe(503);
    expect((await api('/contacts')).status).toBe(200);
  });

  it('drops the connection so fetch rejects, then recovers', async () => {
    await control('PUT', '/faults', { rules: [{ path: '/me', kind: 'drop', times: 1 }] });
    await expect(fetch(`${running.url}/me`, { headers: auth })).rejects.toThrow();
    expect((await api('/me')).status).toBe(200);
    const log = (await control('GET', '/requests')).body.requests as Loose[];
    expect(log[0]).toMatchObject({ path: '/me', status: 0, fault: 'drop' });
  });

  it('rejects invalid fault rules with a clear 400', async () => {
    const res = await control('PUT', '/faults', { rules: [{ kind: 'error', status: 'x' }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/rules\[0\]\.status/);
  });

  it('enforces upstream rate limits only once enabled', async () => {
    for (let i = 0; i < 12; i++)
      expect(
        (await api('/issues?start_time=2025-01-01T00:00:00Z&end_time=2025-01-02T00:00:00Z')).status,
      ).toBe(200);
    const config = await control('GET', '/rate-limits');
    expect(config.body).toMatchObject({
      enabled: false,
      limits: { 'GET /issues': 10, 'PATCH /issues/:id': 20 },
    });
    await control('PUT', '/rate-limits', { enabled: true, limits: { 'GET /me': 2 } });
    expect((await api('/me')).status).toBe(200);
    expect((await api('/me')).status).toBe(200);
    const limited = await api('/me');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.body).toEqual({
      errors: [expect.stringMatching(/GET \/me/)],
      request_id: expect.any(String),
    });
    // Other routes have no entry in the replaced table, so they are not limited.
    expect((await api('/users')).status).toBe(200);
  });

  it('applies the upstream table: GET /issues allows 10 per minute', async () => {
    await control('PUT', '/rate-limits', { enabled: true });
    const q = '/issues?start_time=2025-01-01T00:00:00Z&end_time=2025-01-02T00:00:00Z';
    for (let i = 0; i < 10; i++) expect((await api(q)).status).toBe(200);
    expect((await api(q)).status).toBe(429);
    expect((await api('/issues/1')).status).toBe(200);
  });
});
