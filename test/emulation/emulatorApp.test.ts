// The shared emulator skeleton, exercised through a toy service: middleware order, envelopes, control API.
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/emulation/clock.js';
import { createEmulatorApp } from '../../src/emulation/emulatorApp.js';
import type { InspectableService } from '../../src/emulation/inspection.js';
import { err, ok } from '../../src/emulation/result.js';

/** A toy upstream, to show the shared skeleton works for any service and envelope. */
function toyEmulator() {
  let seed = 1;
  const widgets = () => Array.from({ length: 5 }, (_, i) => ({ id: `w${i}`, seed }));
  const service: InspectableService = {
    summary: () => ({ seed, widgets: 5 }),
    collectionNames: () => ['widgets'],
    collection: (name, q) =>
      name === 'widgets' ? { total: 5, items: widgets().slice(q.offset, q.offset + q.limit) } : undefined,
    item: (name, id) => (name === 'widgets' ? widgets().find((w) => w.id === id) : undefined),
    reset: (options) => {
      if (options.scale === 13) return err('unlucky scale');
      seed = options.seed ?? 1;
      return ok({ seed });
    },
  };
  const errors: unknown[] = [];
  const emulator = createEmulatorApp({
    errorBody: (status, message, { requestId, code }) => ({ error: { status, message, code }, requestId }),
    service,
    rateLimits: { 'GET /widgets': 2 },
    clock: manualClock('2025-03-01T00:00:00Z'),
    authenticate: (c) =>
      c.req.header('authorization') === 'Bearer secret-token' ? undefined : c.json({ denied: true }, 401),
    onUnexpectedError: (e) => errors.push(e),
  });
  const { app } = emulator;
  app.get('/widgets', (c) => c.json({ widgets: widgets() }));
  const created: unknown[] = [];
  app.post('/widgets', async (c) => {
    const got = await c.req.json();
    created.push(got);
    return c.json({ got }, 201);
  });
  app.get('/boom', () => {
    throw new Error('secret internals at /srv/app.js:12');
  });
  const auth = { authorization: 'Bearer secret-token' };
  return { ...emulator, errors, auth, created };
}

describe('createEmulatorApp', () => {
  it('gives every response a request id header, including refusals', async () => {
    const { app } = toyEmulator();
    const res = await app.request('/widgets');
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown upstream paths with the service envelope and code not_found', async () => {
    const { app, auth } = toyEmulator();
    const res = await app.request('/nope', { headers: auth });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; status: number }; requestId: string };
    expect(body.error).toMatchObject({ status: 404, code: 'not_found' });
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('turns exceptions into a 500 without leaking them', async () => {
    const { app, auth, errors } = toyEmulator();
    const res = await app.request('/boom', { headers: auth });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/secret internals|srv\/app/);
    expect(text).toMatch(/Internal server error/);
    expect(errors).toHaveLength(1);
  });

  it('logs upstream requests with query and body but never the credentials', async () => {
    const { app, auth, log } = toyEmulator();
    await app.request('/widgets?a=1&b=2&b=3', { headers: auth });
    await app.request('/widgets', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    await app.request('/_emulator/state');
    const entries = log.since();
    expect(entries.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'GET /widgets 200',
      'POST /widgets 201',
    ]);
    expect(entries[0]).toMatchObject({ query: { a: '1', b: ['2', '3'] }, body: null, auth: 'bearer' });
    expect(entries[1]?.body).toEqual({ name: 'x' });
    expect(JSON.stringify(entries)).not.toContain('secret-token');
  });

  it('serves the control API without auth and validates its input', async () => {
    const { app } = toyEmulator();
    expect(await (await app.request('/_emulator/state')).json()).toEqual({ seed: 1, widgets: 5 });
    const page = await (await app.request('/_emulator/state/widgets?offset=1&limit=2')).json();
    expect(page).toMatchObject({ collection: 'widgets', total: 5, offset: 1, limit: 2 });
    expect((page as { items: { id: string }[] }).items.map((w) => w.id)).toEqual(['w1', 'w2']);
    expect(await (await app.request('/_emulator/state/widgets/w3')).json()).toEqual({ id: 'w3', seed: 1 });
    expect((await app.request('/_emulator/state/gadgets')).status).toBe(404);
    expect((await app.request('/_emulator/state/widgets/zz')).status).toBe(404);
    expect((await app.request('/_emulator/state/widgets?limit=0')).status).toBe(400);
    expect((await app.request('/_emulator/requests?since=-1')).status).toBe(400);
    expect((await app.request('/_emulator/nothing-here')).status).toBe(404);
  });

  it('resets through the service and reports its refusals as 400', async () => {
    const { app } = toyEmulator();
    const post = (body?: string) =>
      app.request('/_emulator/reset', { method: 'POST', ...(body === undefined ? {} : { body }) });
    expect(await (await post('{"seed": 9}')).json()).toEqual({ reset: true, state: { seed: 9 } });
    expect(await (await app.request('/_emulator/state')).json()).toMatchObject({ seed: 9 });
    expect((await post()).status).toBe(200);
    expect((await post('{"seed": "x"}')).status).toBe(400);
    expect((await post('{"scale": 13}')).status).toBe(400);
    expect((await post('{oops')).status).toBe(400);
  });

  it('switches faults on and off through /_emulator/faults', async () => {
    const { app, auth } = toyEmulator();
    const put = (body: unknown) =>
      app.request('/_emulator/faults', { method: 'PUT', body: JSON.stringify(body) });
    const bad = await put({ rules: [{ kind: 'nope' }] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/rules\[0\]\.kind/);
    expect((await put({ rules: [{ path: '/widgets', kind: 'error', status: 503, times: 1 }] })).status).toBe(
      200,
    );
    expect(await (await app.request('/_emulator/faults')).json()).toMatchObject({
      rules: [{ kind: 'error', status: 503, times: 1 }],
    });
    const failed = await app.request('/widgets', { headers: auth });
    expect(failed.status).toBe(503);
    expect(await failed.json()).toMatchObject({ error: { status: 503 } });
    expect((await app.request('/widgets', { headers: auth })).status).toBe(200);
    await put({ rules: [{ kind: 'error' }] });
    expect((await app.request('/_emulator/state')).status).toBe(200);
    await app.request('/_emulator/faults', { method: 'DELETE' });
    expect((await app.request('/widgets', { headers: auth })).status).toBe(200);
  });

  it('adds fault rules with POST after the active ones, which keep what is left of their counts', async () => {
    const { app, auth } = toyEmulator();
    const send = (method: 'PUT' | 'POST', body: unknown) =>
      app.request('/_emulator/faults', { method, body: JSON.stringify(body) });
    await send('PUT', { rules: [{ path: '/widgets', kind: 'error', status: 503, times: 2 }] });
    expect((await app.request('/widgets', { headers: auth })).status).toBe(503);

    const added = await send('POST', { rules: [{ path: '/widgets', kind: 'error', status: 502, times: 1 }] });
    expect(added.status).toBe(200);
    // The first rule has one request left, not the two it was set with.
    expect(await added.json()).toEqual({
      rules: [
        { path: '/widgets', kind: 'error', status: 503, times: 1, index: 0 },
        { path: '/widgets', kind: 'error', status: 502, times: 1, index: 1 },
      ],
    });
    expect((await app.request('/widgets', { headers: auth })).status).toBe(503);
    expect((await app.request('/widgets', { headers: auth })).status).toBe(502);
    expect((await app.request('/widgets', { headers: auth })).status).toBe(200);

    const bad = await send('POST', { rules: [{ kind: 'latency' }] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/rules\[0\]\.latencyMs/);
    expect(await (await app.request('/_emulator/faults')).json()).toEqual({ rules: [] });
  });

  it('applies faults before auth, like a failing gateway', async () => {
    const { app, faults } = toyEmulator();
    faults.set([{ kind: 'rate_limit', retryAfterSeconds: 7 }]);
    const res = await app.request('/widgets');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
  });

  it('drops under app.request as a network error, and logs status 0', async () => {
    const { app, auth, faults, log } = toyEmulator();
    faults.set([{ kind: 'drop', times: 1 }]);
    const res = await app.request('/widgets', { headers: auth });
    expect(res.type).toBe('error');
    expect(log.since().at(-1)).toMatchObject({ status: 0, fault: 'drop' });
  });

  it('with when "after", the request takes effect and only then fails: replaced status, or dropped', async () => {
    const { app, auth, faults, log, created } = toyEmulator();
    const post = (n: number) =>
      app.request('/widgets', { method: 'POST', headers: auth, body: JSON.stringify({ n }) });
    faults.set([{ method: 'POST', kind: 'error', status: 502, when: 'after', times: 1 }]);
    const failed = await post(1);
    expect(failed.status).toBe(502);
    expect(await failed.json()).toMatchObject({ error: { status: 502 } });
    expect(created).toEqual([{ n: 1 }]);
    expect(log.since().at(-1)).toMatchObject({ method: 'POST', status: 502, fault: 'error' });

    faults.set([{ method: 'POST', kind: 'drop', when: 'after', times: 1 }]);
    expect((await post(2)).type).toBe('error');
    expect(created).toEqual([{ n: 1 }, { n: 2 }]);
    expect(log.since().at(-1)).toMatchObject({ status: 0, fault: 'drop' });

    // The default stays "before": the service never sees the request.
    faults.set([{ method: 'POST', kind: 'error', status: 502, times: 1 }]);
    expect((await post(3)).status).toBe(502);
    expect(created).toHaveLength(2);
  });

  it('enforces rate limits per route label once enabled, after auth', async () => {
    const { app, auth } = toyEmulator();
    for (let i = 0; i < 3; i++) expect((await app.request('/widgets', { headers: auth })).status).toBe(200);
    const enable = await app.request('/_emulator/rate-limits', {
      method: 'PUT',
      body: JSON.stringify({ enabled: true }),
    });
    expect(await enable.json()).toMatchObject({ enabled: true, limits: { 'GET /widgets': 2 } });
    expect((await app.request('/widgets')).status).toBe(401);
    expect((await app.request('/widgets', { headers: auth })).status).toBe(200);
    expect((await app.request('/widgets', { headers: auth })).status).toBe(200);
    const limited = await app.request('/widgets', { headers: auth });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await app.request('/widgets', { method: 'POST', headers: auth, body: '{}' })).status).toBe(201);
    const bad = await app.request('/_emulator/rate-limits', { method: 'PUT', body: '{"enabled":1}' });
    expect(bad.status).toBe(400);
  });
});
