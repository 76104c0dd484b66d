// The operating surface of `serve --transport http`, over real loopback HTTP: /healthz and /readyz (outside MCP auth
// and the Host check, with a real redis-server stopped and started again), /metrics behind the bearer token or alone
// on --metrics-port, the graceful SIGTERM of the CLI during a slow tool call (the sandbox emulator holds the upstream
// request up), and --trust-proxy deciding the public URL the OAuth documents, challenges and redirects name.

import { createHash, randomBytes } from 'node:crypto';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeHandle, type ServeOptions, startServe } from '../../src/cli/serve.js';
import {
  SANDBOX_OAUTH_CLIENT_ID,
  SANDBOX_OAUTH_CLIENT_SECRET,
} from '../../src/services/store/emulator/oauth.js';
import { type RedisServer, startRedis } from '../support/redisServer.js';
import { connectClient, spawnCli } from './harness.js';

const options = (extra: Partial<ServeOptions> = {}): ServeOptions => ({
  transport: 'http',
  host: '127.0.0.1',
  port: 0,
  sandbox: true,
  dataDir: ':memory:',
  reset: false,
  readOnly: false,
  toolNames: 'dotted',
  ...extra,
});

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether the request went out on a connection opened for an earlier one. */
  reusedSocket: boolean;
}

/** One HTTP request with node:http: any Host header, a chosen agent (kept-alive sockets), no retries. */
function raw(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent | false } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: init.method ?? 'GET', headers: init.headers ?? {}, agent: init.agent ?? false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            reusedSocket: req.reusedSocket,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const originOf = (url: string) => new URL(url).origin;

describe('/healthz and /readyz, with Redis configured', () => {
  let redis: RedisServer;
  let serve: ServeHandle;
  let origin: string;
  beforeAll(async () => {
    redis = await startRedis();
    serve = await startServe(['issuedesk'], options(), {
      // A password in the URL (this Redis has none, which it accepts): no answer may show it.
      SWITCHBOARD_REDIS_URL: `redis://:pw-not-for-probes-7@127.0.0.1:${redis.port}`,
      SWITCHBOARD_HTTP_TOKEN: 'operating-test-token',
    });
    origin = originOf(serve.boundUrl!);
  });
  afterAll(async () => {
    await serve?.close();
    await redis?.stop();
  });

  it('answer a probe by IP with no token (outside MCP auth and the Host check), while /mcp refuses it', async () => {
    const probe = { host: '10.0.0.5:8787' };
    const health = await raw(`${origin}/healthz`, { headers: probe });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: 'ok' });
    expect(health.headers['cache-control']).toBe('no-store');
    await expect
      .poll(async () => (await raw(`${origin}/readyz`, { headers: probe })).status, { timeout: 10_000 })
      .toBe(200);
    expect(JSON.parse((await raw(`${origin}/readyz`, { headers: probe })).body)).toEqual({
      status: 'ready',
      checks: [{ name: 'redis', status: 'ok' }],
    });
    // The same Host is refused by the MCP endpoint (DNS-rebinding check), and no token is refused too.
    const mcp = await raw(`${origin}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...probe },
      body: toolsList,
    });
    expect(mcp.status).toBe(403);
    const noToken = await raw(`${origin}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: toolsList });
    expect(noToken.status).toBe(401);
  });

  it('/readyz says not ready, naming Redis without its password, while Redis is down; ready again once it is back', async () => {
    await redis.stop();
    const down = await raw(`${origin}/readyz`);
    expect(down.status).toBe(503);
    const body = JSON.parse(down.body) as {
      status: string;
      checks: { name: string; status: string; reason: string }[];
    };
    expect(body.status).toBe('not_ready');
    expect(body.checks).toEqual([
      { name: 'redis', status: 'failed', reason: expect.stringMatching(/Redis/) },
    ]);
    expect(down.body).not.toContain('pw-not-for-probes-7');
    // The process still serves: liveness is not readiness.
    expect((await raw(`${origin}/healthz`)).status).toBe(200);

    await redis.restart();
    // No restart of the server: its Redis client reconnects by itself.
    await expect
      .poll(async () => (await raw(`${origin}/readyz`)).status, { timeout: 15_000, interval: 250 })
      .toBe(200);
  });

  it('/metrics is refused without the bearer token and served with it, counting the tool calls made', async () => {
    const refused = await raw(`${origin}/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.body).not.toContain('switchboard_');
    expect(
      (await raw(`${origin}/metrics`, { headers: { authorization: 'Bearer wrong-token-here' } })).status,
    ).toBe(401);

    const mcp = await connectClient(
      new StreamableHTTPClientTransport(new URL(serve.boundUrl!), {
        requestInit: { headers: { authorization: 'Bearer operating-test-token' } },
      }),
    );
    try {
      expect((await mcp.call('IssueDesk.WhoAmI')).isError).toBe(false);
    } finally {
      await mcp.close();
    }
    const served = await raw(`${origin}/metrics`, {
      headers: { authorization: 'Bearer operating-test-token' },
    });
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(served.body).toMatch(/^switchboard_tool_calls_total\{[^}]*tool="IssueDesk\.WhoAmI"[^}]*\} [1-9]/m);
    expect(served.body).not.toContain('operating-test-token');
  });
});

describe('--metrics-port', () => {
  let serve: ServeHandle;
  beforeAll(async () => {
    serve = await startServe(['issuedesk'], options({ metricsPort: 0 }), {
      SWITCHBOARD_HTTP_TOKEN: 'operating-test-token',
    });
  });
  afterAll(async () => {
    await serve?.close();
  });

  it('serves /metrics there without a token, and not on the MCP port (even with the token)', async () => {
    expect(serve.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(serve.metricsUrl!).port).not.toBe(new URL(serve.boundUrl!).port);
    const apart = await raw(serve.metricsUrl!, { headers: { host: '10.0.0.5:9464' } });
    expect(apart.status).toBe(200);
    expect(apart.body).toContain('# TYPE switchboard_tool_calls_total counter');

    const main = await raw(`${originOf(serve.boundUrl!)}/metrics`, {
      headers: { authorization: 'Bearer operating-test-token' },
    });
    expect(main.status).toBe(404);
    // Only /metrics on that port: the MCP endpoint and the probes are not there.
    expect((await raw(`${originOf(serve.metricsUrl!)}/mcp`)).status).toBe(404);
    expect((await raw(`${originOf(serve.metricsUrl!)}/healthz`)).status).toBe(404);
  });

  it('is refused over stdio, and on the MCP port itself', async () => {
    await expect(
      startServe(['issuedesk'], options({ transport: 'stdio', metricsPort: 9464 }), {}),
    ).rejects.toThrow(/--metrics-port only apply to --transport http/);
    await expect(
      startServe(['issuedesk'], options({ port: 18_911, metricsPort: 18_911 }), {}),
    ).rejects.toThrow(/--metrics-port 18911 is the MCP port too/);
  });
});

describe('SIGTERM during a slow tool call (the CLI as a process)', () => {
  /** `serve issuedesk --sandbox --transport http` with `args`; its MCP URL and its emulator's. */
  async function startCli(args: string[]) {
    const proc = spawnCli(
      [
        'serve',
        'issuedesk',
        '--sandbox',
        '--transport',
        'http',
        '--port',
        '0',
        '--data-dir',
        ':memory:',
        '--keep-alive-timeout',
        '60',
        ...args,
      ],
      {},
      /issuedesk emulator: (http:\/\/127\.0\.0\.1:\d+)[\s\S]*MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)|MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)[\s\S]*issuedesk emulator: (http:\/\/127\.0\.0\.1:\d+)/,
    );
    const match = await proc.ready;
    const emulator = match[1] ?? match[4]!;
    const url = match[2] ?? match[3]!;
    const exited = new Promise<number | null>((resolve) => {
      if (proc.child.exitCode !== null) resolve(proc.child.exitCode);
      proc.child.once('exit', (code) => resolve(code));
    });
    return { proc, url, emulator, exited };
  }

  /**
   * Holds the emulator's next GET /me for `ms`, starts `call`, and resolves once the call is waiting on it (the rule
   * is used up) with the call still pending (wrapped: an async function would otherwise wait for it).
   */
  async function holdUpstream<T>(
    emulator: string,
    ms: number,
    call: () => Promise<T>,
  ): Promise<{ pending: Promise<T> }> {
    const put = await fetch(`${emulator}/_emulator/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        rules: [{ method: 'GET', path: '/me', kind: 'latency', latencyMs: ms, times: 1 }],
      }),
    });
    expect(put.status).toBe(200);
    const pending = call();
    pending.catch(() => undefined);
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${emulator}/_emulator/faults`)).json()) as { rules: unknown[] }).rules,
        { timeout: 10_000, interval: 50 },
      )
      .toEqual([]);
    return { pending };
  }

  it('lets the call in flight finish with its result, refuses new requests and connections, and exits 0', async () => {
    const { proc, url, emulator, exited } = await startCli([]);
    const origin = originOf(url);
    const mcp = await connectClient(new StreamableHTTPClientTransport(new URL(url)));
    // Two connections kept alive, open before the shutdown begins.
    const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const mcpAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await raw(`${origin}/healthz`, { agent: probeAgent })).status).toBe(200);
      expect((await raw(`${origin}/healthz`, { agent: mcpAgent })).status).toBe(200);

      const { pending: slow } = await holdUpstream(emulator, 2_000, () => mcp.call('IssueDesk.WhoAmI'));
      proc.child.kill('SIGTERM');
      await expect.poll(() => proc.stderr(), { timeout: 10_000, interval: 20 }).toMatch(/shutting down/);

      // On a connection already open: /readyz says it is leaving, anything else gets 503 and the connection closes.
      const ready = await raw(`${origin}/readyz`, { agent: probeAgent });
      expect(ready.reusedSocket).toBe(true);
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toEqual({ status: 'shutting_down' });
      const refused = await raw(url, {
        method: 'POST',
        headers: MCP_HEADERS,
        body: toolsList,
        agent: mcpAgent,
      });
      expect(refused.reusedSocket).toBe(true);
      expect(refused.status).toBe(503);
      expect(refused.headers.connection).toBe('close');
      expect(JSON.parse(refused.body)).toMatchObject({ error: 'shutting_down' });
      // A new connection is not accepted at all.
      await expect(raw(`${origin}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      // Nor is a new tool call from the client whose call is in flight.
      await expect(mcp.call('IssueDesk.WhoAmI')).rejects.toThrow();

      const result = await slow;
      expect(result.isError).toBe(false);
      expect(Object.keys(result.structured).length).toBeGreaterThan(0);
      expect(await exited).toBe(0);
      expect(proc.stderr()).not.toMatch(/still in flight after the shutdown grace period/);
    } finally {
      probeAgent.destroy();
      mcpAgent.destroy();
      await mcp.close().catch(() => undefined);
      await proc.stop();
    }
  });

  it('cuts a call that outlasts --shutdown-grace, says so, and still exits 0', async () => {
    const { proc, url, emulator, exited } = await startCli(['--shutdown-grace', '1']);
    const mcp = await connectClient(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const { pending: slow } = await holdUpstream(emulator, 60_000, () => mcp.call('IssueDesk.WhoAmI'));
      proc.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      await expect(slow).rejects.toThrow();
      expect(proc.stderr()).toMatch(
        /still in flight after the shutdown grace period are cut.*"unfinished":1/,
      );
    } finally {
      await mcp.close().catch(() => undefined);
      await proc.stop();
    }
  });
});

describe('SIGTERM twice', () => {
  it('a second signal during the drain ends the process at once, without waiting for the call', async () => {
    const proc = spawnCli(
      ['serve', 'issuedesk', '--sandbox', '--transport', 'http', '--port', '0', '--data-dir', ':memory:'],
      {},
      /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)[\s\S]*issuedesk emulator: (http:\/\/127\.0\.0\.1:\d+)/,
    );
    const [, url, emulator] = await proc.ready;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const mcp = await connectClient(new StreamableHTTPClientTransport(new URL(url!)));
    try {
      await fetch(`${emulator}/_emulator/faults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rules: [{ path: '/me', kind: 'latency', latencyMs: 60_000, times: 1 }] }),
      });
      const slow = mcp.call('IssueDesk.WhoAmI');
      slow.catch(() => undefined);
      await expect
        .poll(
          async () => ((await (await fetch(`${emulator}/_emulator/faults`)).json()) as { rules: [] }).rules,
          {
            timeout: 10_000,
            interval: 50,
          },
        )
        .toEqual([]);
      proc.child.kill('SIGTERM');
      await expect.poll(() => proc.stderr(), { timeout: 10_000, interval: 20 }).toMatch(/shutting down/);
      proc.child.kill('SIGTERM');
      // The default grace (10 s) is not waited for: Node's default action ends the process on the signal.
      expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
    } finally {
      await mcp.close().catch(() => undefined);
      // The harness's stop waits for an exit; a process ended by a signal has had it already.
      if (proc.child.exitCode === null && proc.child.signalCode === null) await proc.stop();
    }
  });
});

describe('--trust-proxy and the public URL (per-user OAuth through the sandbox store)', () => {
  const OAUTH_ENV = {
    STORE_OAUTH_CLIENT_ID: SANDBOX_OAUTH_CLIENT_ID,
    STORE_OAUTH_CLIENT_SECRET: SANDBOX_OAUTH_CLIENT_SECRET,
    SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
  };
  const PROXIED = {
    host: '10.0.0.5:8787',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'mcp.example.com',
  };
  let plain: ServeHandle;
  let trusting: ServeHandle;
  let configured: ServeHandle;
  let pinned: ServeHandle;
  beforeAll(async () => {
    plain = await startServe(['store'], options(), OAUTH_ENV);
    trusting = await startServe(
      ['store'],
      options({ trustProxy: true, allowedHosts: 'mcp.example.com' }),
      OAUTH_ENV,
    );
    configured = await startServe(['store'], options({ trustProxy: true }), {
      ...OAUTH_ENV,
      SWITCHBOARD_PUBLIC_URL: 'https://configured.example.com',
    });
    pinned = await startServe(['store'], options({ trustProxy: true, allowedHosts: 'other.example.com' }), {
      ...OAUTH_ENV,
      STORE_OAUTH_REDIRECT_URL: 'https://mcp.example.com/oauth/callback',
    });
  });
  afterAll(async () => {
    await plain?.close();
    await trusting?.close();
    await configured?.close();
    await pinned?.close();
  });

  const metadata = async (serve: ServeHandle, headers: Record<string, string>) => {
    const origin = originOf(serve.boundUrl!);
    const as = await raw(`${origin}/.well-known/oauth-authorization-server`, { headers });
    const prm = await raw(`${origin}/.well-known/oauth-protected-resource/mcp`, { headers });
    return {
      status: [as.status, prm.status],
      as: as.status === 200 ? (JSON.parse(as.body) as Record<string, unknown>) : undefined,
      prm: prm.status === 200 ? (JSON.parse(prm.body) as Record<string, unknown>) : undefined,
    };
  };

  it('without it, forwarded headers change nothing: the documents name the bound address, and the Host check holds the Host header', async () => {
    const origin = originOf(plain.boundUrl!);
    const { as, prm } = await metadata(plain, {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'mcp.example.com',
    });
    expect(as).toMatchObject({ issuer: origin, authorization_endpoint: `${origin}/authorize` });
    expect(prm).toMatchObject({ resource: `${origin}/mcp`, authorization_servers: [origin] });
    // A forwarded allowed name does not let a foreign Host through.
    const mcp = await raw(`${origin}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, host: '10.0.0.5:8787', 'x-forwarded-host': '127.0.0.1' },
      body: toolsList,
    });
    expect(mcp.status).toBe(403);
  });

  it('with it, the issuer, resource, endpoints and challenge name the forwarded https origin', async () => {
    const { as, prm } = await metadata(trusting, PROXIED);
    expect(as).toMatchObject({
      issuer: 'https://mcp.example.com',
      authorization_endpoint: 'https://mcp.example.com/authorize',
      token_endpoint: 'https://mcp.example.com/token',
      registration_endpoint: 'https://mcp.example.com/register',
    });
    expect(prm).toMatchObject({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://mcp.example.com'],
    });
    // RFC 7239 Forwarded, with a port.
    const forwarded = await metadata(trusting, {
      forwarded: 'for=192.0.2.1;proto=https;host="mcp.example.com:8443"',
    });
    expect(forwarded.as).toMatchObject({ issuer: 'https://mcp.example.com:8443' });
    // Through the proxy the Host header is the replica's address; the forwarded host is what the check holds.
    const challenge = await raw(`${originOf(trusting.boundUrl!)}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...PROXIED },
      body: toolsList,
    });
    expect(challenge.status).toBe(401);
    expect(challenge.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    // Straight to the replica, nothing forwarded: the address it was reached at.
    const direct = await metadata(trusting, {});
    expect(direct.as).toMatchObject({ issuer: originOf(trusting.boundUrl!) });
  });

  it('with it, a forwarded host not on the allow-list is refused everywhere, never named in a document', async () => {
    const forged = { ...PROXIED, 'x-forwarded-host': 'evil.example' };
    const { status } = await metadata(trusting, forged);
    expect(status).toEqual([403, 403]);
    const mcp = await raw(`${originOf(trusting.boundUrl!)}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...forged },
      body: toolsList,
    });
    expect(mcp.status).toBe(403);
    expect(mcp.body).not.toContain('resource_metadata');
  });

  it('with it, the sign-in sends the person to the upstream with the forwarded origin as redirect_uri', async () => {
    const origin = originOf(trusting.boundUrl!);
    const registered = await raw(`${origin}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...PROXIED },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:50123/callback'], client_name: 'proxy test' }),
    });
    expect(registered.status).toBe(201);
    const clientId = (JSON.parse(registered.body) as { client_id: string }).client_id;
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:50123/callback',
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st',
      resource: 'https://mcp.example.com/mcp',
    });
    const page = await raw(`${origin}/authorize?${query}`, { headers: PROXIED });
    expect(page.status).toBe(200);
    const handle = /name="consent" value="([^"]+)"/.exec(page.body)?.[1];
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    // https: the browser-binding cookie is the __Host- one.
    expect(cookie).toMatch(/^__Host-switchboard-browser=/);
    const decided = await raw(`${origin}/authorize`, {
      method: 'POST',
      headers: {
        ...PROXIED,
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://mcp.example.com',
        cookie,
      },
      body: new URLSearchParams({ consent: handle!, decision: 'approve' }).toString(),
    });
    expect(decided.status).toBe(302);
    const location = new URL(decided.headers.location!);
    expect(location.searchParams.get('redirect_uri')).toBe('https://mcp.example.com/oauth/callback');
  });

  it('with SWITCHBOARD_PUBLIC_URL set, the configured URL wins over what the proxy says', async () => {
    const { as } = await metadata(configured, { ...PROXIED, 'x-forwarded-host': 'configured.example.com' });
    expect(as).toMatchObject({ issuer: 'https://configured.example.com' });
    const other = await metadata(configured, {
      'x-forwarded-proto': 'http',
      'x-forwarded-host': '127.0.0.1',
    });
    expect(other.as).toMatchObject({ issuer: 'https://configured.example.com' });
  });

  it('with a configured upstream redirect, sign-in stays on its origin (allowed without --allowed-hosts); another is 421', async () => {
    const { as } = await metadata(pinned, PROXIED);
    expect(as).toMatchObject({ issuer: 'https://mcp.example.com' });
    const other = await metadata(pinned, { ...PROXIED, 'x-forwarded-host': 'other.example.com' });
    expect(other.status).toEqual([421, 421]);
  });

  it('/metrics is not served to OAuth callers on the MCP port: it says to use --metrics-port', async () => {
    const response = await raw(`${originOf(trusting.boundUrl!)}/metrics`);
    expect(response.status).toBe(403);
    expect(response.body).toContain('--metrics-port');
  });
});
