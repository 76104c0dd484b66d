// The upstream client against a real HTTP server on loopback: retries, Retry-After, timeouts, error shaping and
// secret redaction.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../src/runtime/errors.js';
import { UpstreamClient } from '../../src/runtime/http.js';
import { registerSecret } from '../../src/runtime/secrets.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let handlers: Handler[] = [];
const seen: { method: string; url: string; auth: string | undefined; body: string }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body });
      const handler =
        handlers.shift() ??
        ((_q, r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Node loads its fetch implementation on first use, which can take longer than the tests' 0.5 s timeout on a
  // busy machine: load it here, outside any test.
  await (await fetch(baseUrl)).text();
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  handlers = [];
  seen.length = 0;
});

const SECRET = 'sk_live_very_secret_token_123';
function client(overrides: Partial<ConstructorParameters<typeof UpstreamClient>[0]> = {}) {
  registerSecret(SECRET);
  return new UpstreamClient({
    service: 'Test',
    baseUrl,
    authHeaders: () => ({ authorization: `Bearer ${SECRET}` }),
    parseError: (_status, body) => ({ message: (body as { error?: string })?.error }),
    timeoutMs: 500,
    ...overrides,
  });
}
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_q, r) =>
    r.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

describe('UpstreamClient', () => {
  it('sends auth, JSON body and encoded path; returns parsed JSON', async () => {
    handlers.push(json(200, { data: 1 }));
    const res = await client().request({
      method: 'POST',
      path: '/items/{id}',
      params: { id: 'a/b' },
      body: { x: 1 },
    });
    expect(res.body).toEqual({ data: 1 });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/items/a%2Fb',
      auth: `Bearer ${SECRET}`,
      body: '{"x":1}',
    });
  });

  it('retries a GET after a 503 and succeeds', async () => {
    handlers.push(json(503, { error: 'busy' }), json(200, { ok: 1 }));
    const res = await client().request({ method: 'GET', path: '/x' });
    expect(res.body).toEqual({ ok: 1 });
    expect(seen).toHaveLength(2);
  });

  it('never repeats a POST after a 500: its effect may already have happened, so the outcome is unknown', async () => {
    handlers.push(json(500, { error: 'boom' }), json(200, {}));
    const error = (await client()
      .request({ method: 'POST', path: '/x', body: {} })
      .catch((e) => e)) as ToolError;
    expect(error.kind).toBe('outcome_unknown');
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(500);
    expect(seen).toHaveLength(1);
  });

  it('repeats a POST after a 429 (refused before any work), honouring Retry-After', async () => {
    handlers.push(json(429, { error: 'slow down' }, { 'retry-after': '1' }), json(200, { ok: 2 }));
    const started = Date.now();
    const res = await client().request({ method: 'POST', path: '/x', body: {} });
    expect(res.body).toEqual({ ok: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('gives up on a Retry-After longer than it may wait, and reports it', async () => {
    handlers.push(json(429, { error: 'slow down' }, { 'retry-after': '120' }));
    const error = (await client()
      .request({ method: 'GET', path: '/x' })
      .catch((e) => e)) as ToolError;
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterSeconds).toBe(120);
    expect(error.retryable).toBe(true);
    expect(error.hint).toMatch(/120/);
    expect(seen).toHaveLength(1);
  });

  it('times out, retries a GET, then reports a timeout', async () => {
    handlers.push(
      () => undefined,
      () => undefined,
      () => undefined,
    );
    const error = (await client({ maxRetries: 1 })
      .request({ method: 'GET', path: '/slow' })
      .catch((e) => e)) as ToolError;
    expect(error.kind).toBe('timeout');
    expect(seen).toHaveLength(2);
  });

  it('reports a refused connection as a network error', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = (await client({ baseUrl: `http://127.0.0.1:${closedPort}`, maxRetries: 0 })
      .request({ method: 'GET', path: '/x' })
      .catch((e) => e)) as ToolError;
    expect(error.kind).toBe('network');
    expect(error.upstreamCode).toBe('ECONNREFUSED');
  });

  it('maps statuses to kinds and keeps the upstream message, with the secret masked', async () => {
    handlers.push(json(404, { error: `no item for token ${SECRET}` }));
    const error = (await client()
      .request({ method: 'GET', path: '/x' })
      .catch((e) => e)) as ToolError;
    expect(error).toBeInstanceOf(ToolError);
    expect(error.kind).toBe('not_found');
    expect(error.status).toBe(404);
    expect(error.upstreamMessage).toContain('[redacted]');
    expect(JSON.stringify(error.toJSON())).not.toContain(SECRET);
    expect(error.message).not.toContain(SECRET);
  });

  it('stops without retrying when the caller aborts', async () => {
    handlers.push(() => undefined);
    const controller = new AbortController();
    const pending = client({ timeoutMs: 5_000 }).request({
      method: 'GET',
      path: '/x',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('cancelled')), 50);
    await expect(pending).rejects.toThrow('cancelled');
    expect(seen).toHaveLength(1);
  });

  it('a POST answered 502 or 504 is outcome_unknown: not retryable, not re-sent, with a check-first hint', async () => {
    for (const status of [502, 503, 504]) {
      seen.length = 0;
      handlers = [json(status, { error: 'gateway' }), json(200, {})];
      const error = (await client()
        .request({ method: 'POST', path: '/items', body: { a: 1 } })
        .catch((e) => e)) as ToolError;
      expect(error).toMatchObject({ kind: 'outcome_unknown', status, retryable: false });
      expect(error.message).toMatch(/whether it took effect is unknown/);
      expect(error.hint).toMatch(/check whether it did/i);
      expect(error.hint).not.toMatch(/can be tried again/);
      expect(seen).toHaveLength(1);
    }
  });

  it('a POST whose connection drops after it was sent is outcome_unknown, never re-sent', async () => {
    handlers.push((req) => req.socket.destroy(), json(200, {}));
    const error = (await client()
      .request({ method: 'POST', path: '/items', body: { a: 1 } })
      .catch((e) => e)) as ToolError;
    expect(error).toMatchObject({ kind: 'outcome_unknown', retryable: false });
    expect(error.message).toMatch(/dropped the connection/);
    expect(seen).toHaveLength(1);
  });

  it('a POST that times out is outcome_unknown, never re-sent', async () => {
    handlers.push(() => undefined);
    const error = (await client({ timeoutMs: 200 })
      .request({ method: 'POST', path: '/slow', body: {} })
      .catch((e) => e)) as ToolError;
    expect(error).toMatchObject({ kind: 'outcome_unknown', retryable: false });
    expect(error.message).toMatch(/did not answer within 0.2 s/);
    expect(seen).toHaveLength(1);
  });

  it('the same failures on an idempotent call are retried, and stay retryable when they persist', async () => {
    handlers.push((req) => req.socket.destroy(), json(502, { error: 'gateway' }), json(502, { error: 'x' }));
    const error = (await client()
      .request({ method: 'PATCH', path: '/items/1', body: { a: 1 }, idempotent: true })
      .catch((e) => e)) as ToolError;
    expect(error).toMatchObject({ kind: 'upstream_unavailable', status: 502, retryable: true });
    expect(seen).toHaveLength(3);
  });

  it('a POST refused with 408 was not processed: it is sent again', async () => {
    handlers.push(json(408, { error: 'request timeout' }), json(200, { ok: 3 }));
    const res = await client().request({ method: 'POST', path: '/x', body: {} });
    expect(res.body).toEqual({ ok: 3 });
    expect(seen).toHaveLength(2);
  });

  it('a refused connection never reached the upstream: a POST stays retryable, and says nothing changed', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = (await client({ baseUrl: `http://127.0.0.1:${closedPort}`, maxRetries: 0 })
      .request({ method: 'POST', path: '/x', body: {} })
      .catch((e) => e)) as ToolError;
    expect(error).toMatchObject({ kind: 'network', upstreamCode: 'ECONNREFUSED', retryable: true });
    expect(error.hint).toMatch(/never reached the upstream, so nothing changed/);
  });

  it('400 and 422 are invalid_request (not retryable, a hint to correct); 409 stays conflict', async () => {
    for (const [status, kind] of [
      [400, 'invalid_request'],
      [422, 'invalid_request'],
      [409, 'conflict'],
    ] as const) {
      handlers.push(json(status, { error: 'no' }));
      const error = (await client()
        .request({ method: 'POST', path: '/x', body: {} })
        .catch((e) => e)) as ToolError;
      expect(error, String(status)).toMatchObject({ kind, status, retryable: false });
      expect(error.hint, String(status)).toBeTruthy();
    }
  });

  it('explainError refines refusals only, and a failing explainer leaves the error as it was', async () => {
    const explained: number[] = [];
    const explaining = client({
      maxRetries: 0,
      explainError: async (error) => {
        explained.push(error.status ?? 0);
        if (error.status === 404) throw new Error('explainer broke');
        return error.with({ hint: 'refined' });
      },
    });
    handlers.push(json(422, { error: 'bad' }), json(404, { error: 'gone' }), json(503, { error: 'busy' }));
    const refused = (await explaining.request({ method: 'GET', path: '/x' }).catch((e) => e)) as ToolError;
    const missing = (await explaining.request({ method: 'GET', path: '/x' }).catch((e) => e)) as ToolError;
    const busy = (await explaining.request({ method: 'GET', path: '/x' }).catch((e) => e)) as ToolError;
    expect(refused.hint).toBe('refined');
    expect(missing.kind).toBe('not_found');
    expect(busy.kind).toBe('upstream_unavailable');
    expect(explained).toEqual([422, 404]);
  });
});
