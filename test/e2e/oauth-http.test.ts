// Per-user OAuth over Streamable HTTP, end to end, as a real MCP client does it: the SDK's client with an
// OAuthClientProvider discovers the authorization server from the 401, registers itself, sends the person through
// our consent page and the store emulator's consent page (driven here with fetch, as a browser would follow it),
// redeems the code, and calls tools that run with that person's own store token. Between Switchboard and the store
// emulator sits a recording proxy, so every upstream request can be tied to the store user whose token it carried.
//
// Covered: discovery, registration, token exchange, tool calls as the approving user, store token renewal before
// expiry (one renewal for concurrent calls), our own token refresh, a grant revoked at the store (reconnect error,
// then a new sign-in), two people at once (each only their own bases, never the other's token), audience checks,
// and no token in logs, results or the SQLite file.

import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeHandle, startServe } from '../../src/cli/serve.js';
import {
  SANDBOX_OAUTH_CLIENT_ID,
  SANDBOX_OAUTH_CLIENT_SECRET,
} from '../../src/services/store/emulator/oauth.js';
import { CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM } from '../support/chromium.js';
import { type CallResult, type Connected, connectClient } from './harness.js';
import { PersonProvider } from './oauthSignIn.js';
import { type StoreEmulatorHandle, startStore } from './storeHarness.js';

// ---- the recording proxy between Switchboard and the store emulator ---------------------------------------------

interface ProxiedRequest {
  method: string;
  path: string;
  /** The store user whose token the request carried, or `none`. */
  user: string;
  /** SHA-256 of the bearer token, to compare tokens without keeping them in assertions' output. */
  tokenHash?: string;
  status: number;
}

const hash = (value: string) => createHash('sha256').update(value).digest('hex');

/** Forwards everything to the emulator; records who each API request acted as, and every token it saw. */
async function startRecordingProxy(store: StoreEmulatorHandle) {
  const requests: ProxiedRequest[] = [];
  /** Every store token and code that went through (the token endpoint's answers, bearer headers). */
  const secrets = new Set<string>();
  /** Access token -> the store user it was issued to, noted when the token endpoint hands it out. */
  const owners = new Map<string, string>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    // Who the token acts as: noted when it was issued (it may be revoked by now), else asked of the emulator's
    // OAuth state in-process (a request would show in its log).
    const user = bearer
      ? (owners.get(bearer) ?? store.emulator.oauth.principalOf(bearer)?.userId ?? 'not-an-oauth-token')
      : 'none';
    if (bearer) secrets.add(bearer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (key === 'host' || key === 'connection' || value === undefined) continue;
      headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const response = await fetch(`${store.url}${req.url}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
      redirect: 'manual',
    });
    const answer = Buffer.from(await response.arrayBuffer());
    if (req.url?.startsWith('/oauth2/v1/token') && response.ok) {
      const tokens = JSON.parse(answer.toString('utf8')) as { access_token: string; refresh_token: string };
      secrets.add(tokens.access_token);
      secrets.add(tokens.refresh_token);
      const owner = store.emulator.oauth.principalOf(tokens.access_token)?.userId;
      if (owner) owners.set(tokens.access_token, owner);
    }
    requests.push({
      method: req.method ?? 'GET',
      path: req.url ?? '',
      user,
      ...(bearer ? { tokenHash: hash(bearer) } : {}),
      status: response.status,
    });
    const out: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(key))
        out[key] = value;
    });
    res.writeHead(response.status, out);
    res.end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let mark = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    secrets,
    all: () => requests,
    /** Requests since the last call. */
    since(): ProxiedRequest[] {
      const out = requests.slice(mark);
      mark = requests.length;
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---- the MCP client's OAuth provider ---------------------------------------------------------------------------

/** Every token, code and verifier the MCP clients held, to search the logs and the database for. */
const clientSecrets: string[] = [];

/** A person's MCP client (oauthSignIn.ts), noting every secret it holds. */
class TestProvider extends PersonProvider {
  protected override noteSecret(secret: string): void {
    clientSecrets.push(secret);
  }
}

/** The same client, with the person's sign-in done by a real browser clicking through both consent pages. */
class BrowserProvider extends TestProvider {
  constructor(
    readonly page: Page,
    storeUser: string,
  ) {
    super(storeUser, 'http://127.0.0.1:54100/callback');
  }

  override async redirectToAuthorization(url: URL) {
    this.signIns++;
    let captured: (url: string) => void = () => undefined;
    const back = new Promise<string>((resolve) => {
      captured = resolve;
    });
    // Nothing listens at the client's redirect URI: the browser's request to it is answered here.
    await this.page.route('http://127.0.0.1:54100/**', async (route) => {
      captured(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'Signed in.' });
    });
    await this.page.goto(url.href);
    await this.page.click('#approve');
    await this.page.waitForSelector('select#user');
    await this.page.selectOption('select#user', this.storeUser);
    await this.page.click('#approve');
    this.callback = new URL(await back);
    this.noteSecret(this.callback.searchParams.get('code') ?? '');
  }
}

// ---- the server, the people, the captures -------------------------------------------------------------------------

let store: StoreEmulatorHandle;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let serve: ServeHandle;
let mcpUrl: string;
let dataDir: string;
const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
let grace: { id: string };
let alan: { id: string };
const stderr: string[] = [];
const results: string[] = [];
const realWrite = process.stderr.write.bind(process.stderr);
const logLevel = process.env.SWITCHBOARD_LOG_LEVEL;

function serverEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    STORE_BASE_URL: proxy.url,
    STORE_OAUTH_CLIENT_ID: SANDBOX_OAUTH_CLIENT_ID,
    STORE_OAUTH_CLIENT_SECRET: SANDBOX_OAUTH_CLIENT_SECRET,
    SWITCHBOARD_SECRET_KEY: SECRET_KEY,
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
    ...extra,
  };
}

const serveOptions = {
  transport: 'http' as const,
  host: '127.0.0.1',
  port: 0,
  sandbox: false,
  reset: false,
  readOnly: false,
  toolNames: 'dotted' as const,
};

type Person = Connected & { transport: StreamableHTTPClientTransport };

/** Connects an MCP client as `provider`'s person, signing in when the server asks for it. */
async function connectAs(provider: TestProvider, fetchLog?: string[], url = mcpUrl): Promise<Person> {
  const transportFor = () =>
    new StreamableHTTPClientTransport(new URL(url), {
      authProvider: provider,
      ...(fetchLog
        ? {
            fetch: (input: string | URL | Request, init?: RequestInit) => {
              const url = new URL(input instanceof Request ? input.url : input);
              fetchLog.push(`${init?.method ?? 'GET'} ${url.pathname}`);
              return fetch(input, init);
            },
          }
        : {}),
    });
  const first = transportFor();
  try {
    return { ...recording(await connectClient(first)), transport: first };
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !provider.callback) throw error;
  }
  await first.finishAuth(provider.callback.searchParams);
  const second = transportFor();
  return { ...recording(await connectClient(second)), transport: second };
}

/** Keeps every tool result's text, to search it for tokens at the end. */
function recording(connected: Connected): Connected {
  return {
    ...connected,
    async call(name, args) {
      const result = await connected.call(name, args);
      results.push(result.text, JSON.stringify(result.structured));
      return result;
    },
  };
}

/** A tool call that may first need a new sign-in (after the server ended the connection). */
async function callSigningIn(provider: TestProvider, person: Person, name: string): Promise<CallResult> {
  try {
    return await person.call(name);
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !provider.callback) throw error;
    await person.transport.finishAuth(provider.callback.searchParams);
    return person.call(name);
  }
}

const bases = (result: CallResult) =>
  ((result.structured.bases ?? []) as { name: string }[]).map((b) => b.name).sort();

beforeAll(async () => {
  process.env.SWITCHBOARD_LOG_LEVEL = 'debug';
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stderr.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return realWrite(chunk, ...(rest as []));
  }) as typeof process.stderr.write;
  store = await startStore();
  proxy = await startRecordingProxy(store);
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-oauth-'));
  const users = store.emulator.store.schema().users;
  grace = users.find((u) => u.name === 'Grace Hopper') as { id: string };
  alan = users.find((u) => u.name === 'Alan Turing') as { id: string };
  serve = await startServe(['store'], serveOptions, serverEnv());
  mcpUrl = serve.url as string;
});

afterAll(async () => {
  await serve?.close();
  await proxy?.close();
  await store?.close();
  process.stderr.write = realWrite;
  if (logLevel === undefined) delete process.env.SWITCHBOARD_LOG_LEVEL;
  else process.env.SWITCHBOARD_LOG_LEVEL = logLevel;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// ---- the tests ---------------------------------------------------------------------------------------------------

describe('the MCP endpoint as a protected resource', () => {
  it('answers 401 with a resource_metadata pointer, and serves both discovery documents', async () => {
    const origin = new URL(mcpUrl).origin;
    expect(serve.protection).toMatchObject({ kind: 'oauth', issuer: origin, resource: `${origin}/mcp` });
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).not.toMatch(/error=/);

    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const prm = await fetch(`${origin}${path}`);
      expect(prm.status).toBe(200);
      expect(await prm.json()).toMatchObject({
        resource: `${origin}/mcp`,
        authorization_servers: [origin],
        bearer_methods_supported: ['header'],
      });
    }
    const as = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(as).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('refuses an unknown token with error="invalid_token"', async () => {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: 'Bearer sb_at_not-a-token-we-issued',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
  });
});

describe('one person, end to end through the SDK client', () => {
  let provider: TestProvider;
  let graceClient: Person;
  const clientRequests: string[] = [];

  it('discovers, registers, signs in through both consent pages, and gets our tokens', async () => {
    provider = new TestProvider(grace.id);
    proxy.since();
    graceClient = await connectAs(provider, clientRequests);
    // Discovery from the 401, registration, the authorization request (driven above), the code exchange.
    expect(clientRequests).toEqual(
      expect.arrayContaining([
        'POST /mcp',
        'GET /.well-known/oauth-protected-resource/mcp',
        'GET /.well-known/oauth-authorization-server',
        'POST /register',
        'POST /token',
      ]),
    );
    expect(clientRequests.indexOf('GET /.well-known/oauth-protected-resource/mcp')).toBeLessThan(
      clientRequests.indexOf('POST /register'),
    );
    expect(provider.signIns).toBe(1);
    expect(provider.savedClient?.client_id).toMatch(/^sbc_/);
    expect(provider.savedClient).toMatchObject({ token_endpoint_auth_method: 'none' });
    expect(provider.savedTokens).toMatchObject({ token_type: 'Bearer', scope: 'mcp', expires_in: 3600 });
    expect(provider.savedTokens?.access_token).toMatch(/^sb_at_/);
    expect(provider.callback?.searchParams.get('iss')).toBe(new URL(mcpUrl).origin);
    expect(provider.callback?.searchParams.get('state')).toBe(`state-${grace.id}-0`);
    // The store saw our code exchange with the operator's client, then whoami with Grace's new token.
    const upstream = proxy.since();
    expect(upstream.map((r) => `${r.method} ${r.path.split('?')[0]} ${r.status}`)).toEqual([
      'GET /oauth2/v1/authorize 200',
      'POST /oauth2/v1/authorize 302',
      'POST /oauth2/v1/token 200',
      'GET /v0/meta/whoami 200',
    ]);
    expect(upstream[3]?.user).toBe(grace.id);
  });

  it('names the MCP client and the store scopes on our consent page', async () => {
    const url = new URL('/authorize', mcpUrl);
    const pkce = 'a'.repeat(43);
    for (const [k, v] of Object.entries({
      client_id: provider.savedClient?.client_id ?? '',
      redirect_uri: provider.redirect,
      response_type: 'code',
      code_challenge: pkce,
      code_challenge_method: 'S256',
      state: 'look',
    })) {
      url.searchParams.set(k, v);
    }
    const page = await fetch(url);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(html).toContain(`E2E client of ${grace.id}`);
    expect(html).toContain(provider.redirect);
    expect(html).toContain('data-scope="schema.bases:read"');
  });

  it('runs tool calls as the person who approved', async () => {
    proxy.since();
    const me = await graceClient.call('StoreApi.RetrieveUserIdAndScopes');
    expect(me.isError).toBe(false);
    expect(me.structured.id).toBe(grace.id);
    const list = await graceClient.call('StoreApi.ListStoreBases');
    expect(bases(list)).toEqual(['Product Roadmap', 'Sales CRM']);
    const upstream = proxy.since();
    expect(upstream.map((r) => `${r.path} ${r.user}`)).toEqual([
      `/v0/meta/whoami ${grace.id}`,
      `/v0/meta/bases ${grace.id}`,
    ]);
    // Our own token never goes upstream.
    expect(proxy.all().every((r) => r.tokenHash !== hash(provider.savedTokens?.access_token ?? ''))).toBe(
      true,
    );
  });

  it('refreshes our own access token when the server no longer takes the old one', async () => {
    const before = provider.savedTokens!;
    // The stored access token goes stale (as after its hour): the server answers 401, the client refreshes.
    provider.savedTokens = { ...before, access_token: `${before.access_token}-stale` };
    clientRequests.length = 0;
    const me = await graceClient.call('StoreApi.RetrieveUserIdAndScopes');
    expect(me.structured.id).toBe(grace.id);
    expect(provider.signIns).toBe(1);
    expect(provider.savedTokens?.access_token).not.toBe(before.access_token);
    expect(provider.savedTokens?.refresh_token).not.toBe(before.refresh_token);
    expect(clientRequests).toEqual(['POST /mcp', 'POST /token', 'POST /mcp']);
    // The rotation retired the access token issued with the old refresh token.
    const old = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${before.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(old.status).toBe(401);
  });

  it('renews the store token before it expires: each call after the TTL drops below the margin, once for concurrent calls', async () => {
    await store.send('PUT', '/_emulator/oauth/config', { accessTokenTtlSeconds: 60 });
    try {
      // A new sign-in, so the store token starts with the short lifetime (below our 5-minute margin).
      const alanProvider = new TestProvider(alan.id);
      const alanClient = await connectAs(alanProvider);
      proxy.since();
      const refreshes = () =>
        proxy.since().filter((r) => r.path === '/oauth2/v1/token' && r.method === 'POST').length;

      expect((await alanClient.call('StoreApi.RetrieveUserIdAndScopes')).structured.id).toBe(alan.id);
      expect(refreshes()).toBe(1);
      expect((await alanClient.call('StoreApi.RetrieveUserIdAndScopes')).structured.id).toBe(alan.id);
      expect(refreshes()).toBe(1);
      const together = await Promise.all(
        [1, 2, 3].map(() => alanClient.call('StoreApi.RetrieveUserIdAndScopes')),
      );
      expect(together.map((r) => r.structured.id)).toEqual([alan.id, alan.id, alan.id]);
      // One renewal for the three: a second one would present a rotated-away refresh token (and get revoked).
      expect(refreshes()).toBe(1);
      const grants = await store.get<{ grants: { userId: string; revoked: boolean }[] }>(
        '/_emulator/oauth/grants',
      );
      expect(grants.grants.filter((g) => g.userId === alan.id).every((g) => !g.revoked)).toBe(true);
      // The emulator's request log has the refresh requests, secrets redacted.
      const log = await store.requests();
      const tokenCalls = log.filter((r) => r.path === '/oauth2/v1/token');
      expect(tokenCalls.some((r) => String(r.body).includes('grant_type=refresh_token'))).toBe(true);
      expect(tokenCalls.every((r) => !String(r.body).includes('oar'))).toBe(true);
      await alanClient.close();
    } finally {
      await store.send('PUT', '/_emulator/oauth/config', { accessTokenTtlSeconds: 3600 });
    }
  });

  it('a grant revoked at the store gives a reconnect error, never other data; then a new sign-in works', async () => {
    const grants = await store.get<{ grants: { id: string; userId: string; revoked: boolean }[] }>(
      '/_emulator/oauth/grants',
    );
    const graces = grants.grants.filter((g) => g.userId === grace.id && !g.revoked);
    expect(graces).toHaveLength(1);
    await store.send('DELETE', `/_emulator/oauth/grants/${graces[0]?.id}`);
    proxy.since();

    const refused = await graceClient.call('StoreApi.ListStoreBases');
    expect(refused.isError).toBe(true);
    expect(refused.structured.error).toMatchObject({ kind: 'unauthorized', retryable: false });
    expect(refused.text).toMatch(/data store connection needs to be renewed/);
    expect(refused.text).toMatch(/Sign in again/);
    expect(refused.text).not.toMatch(/Content Calendar|Product Roadmap|Sales CRM/);
    const upstream = proxy.since();
    expect(upstream).toHaveLength(1);
    expect(upstream[0]).toMatchObject({ path: '/v0/meta/bases', status: 401 });

    // The connection is over: the next request is refused, the client signs in again, and it works.
    const result = await callSigningIn(provider, graceClient, 'StoreApi.ListStoreBases');
    expect(provider.signIns).toBe(2);
    expect(bases(result)).toEqual(['Product Roadmap', 'Sales CRM']);
    expect(
      proxy
        .since()
        .filter((r) => r.path === '/v0/meta/bases')
        .map((r) => `${r.user} ${r.status}`),
    ).toEqual([`${grace.id} 200`]);
  });

  afterAll(async () => {
    await graceClient?.close();
  });
});

describe('two people at once', () => {
  it('each sees only their own bases, and each upstream request carries its caller’s token', async () => {
    const graceProvider = new TestProvider(grace.id, 'http://localhost:54001/cb');
    const alanProvider = new TestProvider(alan.id, 'http://[::1]:54002/cb');
    const g = await connectAs(graceProvider);
    const a = await connectAs(alanProvider);
    proxy.since();

    // Interleaved, one after another.
    const sequence: [Connected, string][] = [
      [g, grace.id],
      [a, alan.id],
      [a, alan.id],
      [g, grace.id],
      [g, grace.id],
      [a, alan.id],
    ];
    for (const [client, expected] of sequence) {
      expect((await client.call('StoreApi.RetrieveUserIdAndScopes')).structured.id).toBe(expected);
    }
    expect(proxy.since().map((r) => r.user)).toEqual(sequence.map(([, id]) => id));

    // At the same time.
    const [gBases, aBases, gMe, aMe] = await Promise.all([
      g.call('StoreApi.ListStoreBases'),
      a.call('StoreApi.ListStoreBases'),
      g.call('StoreApi.RetrieveUserIdAndScopes'),
      a.call('StoreApi.RetrieveUserIdAndScopes'),
    ]);
    expect(bases(gBases)).toEqual(['Product Roadmap', 'Sales CRM']);
    expect(bases(aBases)).toEqual(['Content Calendar']);
    expect([gMe.structured.id, aMe.structured.id]).toEqual([grace.id, alan.id]);
    const concurrent = proxy.since();
    expect(concurrent).toHaveLength(4);
    expect(concurrent.filter((r) => r.user === grace.id)).toHaveLength(2);
    expect(concurrent.filter((r) => r.user === alan.id)).toHaveLength(2);

    // Over the whole run: no token ever carried by a call of one person was carried by a call of the other.
    const tokensOf = (user: string) =>
      new Set(
        proxy
          .all()
          .filter((r) => r.user === user && r.tokenHash)
          .map((r) => r.tokenHash),
      );
    const graceTokens = tokensOf(grace.id);
    const alanTokens = tokensOf(alan.id);
    expect(graceTokens.size).toBeGreaterThan(0);
    expect(alanTokens.size).toBeGreaterThan(0);
    expect([...graceTokens].filter((t) => alanTokens.has(t))).toEqual([]);
    // And every store request with a bearer token acted as an OAuth user (never a shared token).
    expect(
      proxy
        .all()
        .filter((r) => r.tokenHash)
        .every((r) => r.user !== 'not-an-oauth-token'),
    ).toBe(true);
    await g.close();
    await a.close();
  });
});

describe.skipIf(!HAVE_CHROMIUM)(`in a real browser (headless ${CHROMIUM})`, () => {
  it('the consent pages and the browser-bound cookie work with the store on another site', {
    timeout: 60_000,
  }, async () => {
    // The store at `localhost`, Switchboard at 127.0.0.1: another site, so the SameSite=Lax cookie that binds the
    // sign-in to this browser must survive the store's form post and redirect back, as in production.
    const crossSite = await startServe(
      ['store'],
      serveOptions,
      serverEnv({
        STORE_BASE_URL: proxy.url.replace('127.0.0.1', 'localhost'),
        SWITCHBOARD_DATA_DIR: ':memory:',
      }),
    );
    const profile = mkdtempSync(join(tmpdir(), 'switchboard-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const provider = new BrowserProvider(page, alan.id);
      const person = await connectAs(provider, undefined, crossSite.url as string);
      expect(provider.callback?.searchParams.get('iss')).toBe(new URL(crossSite.url as string).origin);
      expect(await page.textContent('body')).toBe('Signed in.');
      const cookies = await context.cookies(new URL(crossSite.url as string).origin);
      expect(cookies.find((c) => c.name === 'switchboard-browser')).toMatchObject({
        httpOnly: true,
        sameSite: 'Lax',
      });
      expect((await person.call('StoreApi.RetrieveUserIdAndScopes')).structured.id).toBe(alan.id);
      expect(bases(await person.call('StoreApi.ListStoreBases'))).toEqual(['Content Calendar']);
      await person.close();
    } finally {
      await context.close();
      await crossSite.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});

describe('audience', () => {
  it('a token issued for another resource is refused with 401, even by a server sharing the database', async () => {
    const provider = new TestProvider(grace.id);
    const client = await connectAs(provider);
    await client.close();
    // A second server over the same auth.db and key, at another address: another resource.
    const other = await startServe(['store'], serveOptions, serverEnv());
    try {
      const token = provider.savedTokens?.access_token ?? '';
      const post = (url: string) =>
        fetch(url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
      const refused = await post(other.url as string);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(
        /error="invalid_token", error_description="Token was not issued for this resource"/,
      );
      expect((await post(mcpUrl)).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('secrets', () => {
  it('no token, code, verifier or client secret is in the log, the results, or the SQLite files', async () => {
    const logText = stderr.join('');
    const resultText = results.join('\n');
    expect(logText).toMatch(/person connected/);
    const db = ['auth.db', 'auth.db-wal', 'auth.db-shm']
      .map((name) => join(dataDir, name))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString('latin1'))
      .join('\n');
    expect(db.length).toBeGreaterThan(0);
    const storeSecrets = [...proxy.secrets];
    expect(storeSecrets.filter((s) => s.startsWith('oaa')).length).toBeGreaterThan(3);
    expect(storeSecrets.filter((s) => s.startsWith('oar')).length).toBeGreaterThan(3);
    const ours = clientSecrets.filter((s) => s.length > 0);
    expect(ours.filter((s) => s.startsWith('sb_at_')).length).toBeGreaterThan(3);
    const everything = [...storeSecrets, ...ours, SANDBOX_OAUTH_CLIENT_SECRET, SECRET_KEY];
    for (const secret of everything) {
      expect(logText.includes(secret), 'log').toBe(false);
      expect(resultText.includes(secret), 'results').toBe(false);
      expect(db.includes(secret), 'auth.db').toBe(false);
    }
    // The database holds the store tokens sealed: the grant rows are there, their tokens are not readable.
    expect(db).toMatch(/v1\./);
  });
});
