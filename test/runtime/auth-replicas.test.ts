// Per-user OAuth with replicas sharing one real Redis (SWITCHBOARD_REDIS_URL): every replica sees the same clients,
// requests in flight, codes, tokens and grants; a code is redeemed once and a refresh token rotated once across all
// of them (reuse detected as with one process); a person's sign-in works with each step landing on another replica;
// a store token is renewed exactly once per grant across replicas (counted at the store emulator's token endpoint);
// while Redis is away the endpoints say "try again" (503) rather than "sign in again", and work again once it is
// back; and `serve` refuses to share the state without one sealing key from the environment.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ServeHandle, type ServeOptions, startServe } from '../../src/cli/serve.js';
import { openPerUserAuth, type PerUserSignIn, perUserSignInFromEnv } from '../../src/runtime/auth/perUser.js';
import { UserTokens } from '../../src/runtime/auth/userTokens.js';
import { AuthVault } from '../../src/runtime/auth/vault.js';
import { ToolError } from '../../src/runtime/errors.js';
import { closeRedis, openRedis, redisConnected } from '../../src/runtime/sharedState/redis.js';
import { RedisAuthState } from '../../src/runtime/sharedState/redisAuthState.js';
import { acquireRedisLock, LockTimeoutError } from '../../src/runtime/sharedState/redisLock.js';
import type { ToolCall } from '../../src/runtime/tool.js';
import { SERVICES } from '../../src/services/registry.js';
import { readCredentialsFile } from '../../src/services/store/credentials.js';
import { loginStore } from '../../src/services/store/login.js';
import { reconnectError, StoreOAuthClient } from '../../src/services/store/oauth.js';
import { CLIENT_SECRET, consent, loginEnv, tempCredentials } from '../e2e/loginHarness.js';
import { type StoreEmulatorHandle, startStore } from '../e2e/storeHarness.js';
import { startRedis } from '../support/redisServer.js';
import {
  authHarness,
  CLIENT_REDIRECT,
  callerAndStoreUserTools,
  FakeStore,
  LOOPBACK_ORIGIN,
} from './authHarness.js';
import { useAuthStores } from './authStores.js';

const stores = useAuthStores();

/** Two vaults over one Redis place with one key: two replicas. */
async function replicas(options: Parameters<ReturnType<typeof stores.redisPlace>['open']>[1] = {}) {
  const place = stores.redisPlace();
  const key = randomBytes(32);
  return { place, key, a: await place.open(key, options), b: await place.open(key, options) };
}

const codeInput = (grantId: string) => ({
  grantId,
  clientId: 'sbc_x',
  redirectUri: 'http://127.0.0.1:1/cb',
  codeChallenge: 'c'.repeat(43),
  resource: 'http://h/mcp',
  scope: 'mcp',
});

const storeTokens = (n: number) => ({
  accessToken: `oaa-${n}-${randomBytes(8).toString('hex')}`,
  refreshToken: `oar-${n}-${randomBytes(8).toString('hex')}`,
  scopes: ['data.records:read'],
  expiresAt: Date.now() + 3600_000,
});

describe('two replicas over one Redis', () => {
  it('see each other’s clients, requests in flight, grants, codes and tokens', async () => {
    const { a, b } = await replicas();
    const client = await a.registerClient({
      name: 'Shared',
      redirectUris: ['http://127.0.0.1:1/cb'],
      metadata: { client_name: 'Shared' },
    });
    expect(await b.client(client.id)).toEqual(client);

    const request = { ...codeInput('unused'), clientId: client.id };
    const { grantId: _, ...authorization } = request;
    const handle = await a.createPending(authorization, 'browser-hash');
    const pending = await b.takePending(handle, 'browser-hash');
    expect(pending).toMatchObject(authorization);
    expect(await a.takePending(handle, 'browser-hash')).toBeUndefined();
    const state = await b.createUpstreamAuthorization(pending!, 'verifier-abc');
    expect(await a.takeUpstreamAuthorization(state, 'browser-hash')).toMatchObject({
      upstreamVerifier: 'verifier-abc',
    });

    const tokens = storeTokens(1);
    const grant = await a.createGrant({ clientId: client.id, subject: 'usrGrace', tokens });
    expect(await b.grant(grant.id)).toEqual(grant);
    expect(await b.upstreamTokens(grant.id)).toMatchObject({ accessToken: tokens.accessToken, version: 1 });
    const code = await b.issueCode({ ...codeInput(grant.id), clientId: client.id });
    expect(await a.redeemCode(code)).toMatchObject({ status: 'ok', code: { grantId: grant.id } });
    const issued = await a.issueTokens({
      grantId: grant.id,
      clientId: client.id,
      resource: 'r',
      scope: 'mcp',
    });
    expect(await b.accessToken(issued.accessToken)).toMatchObject({ subject: 'usrGrace', grantId: grant.id });

    // A renewal saved on one is what the other reads.
    const renewed = storeTokens(2);
    await b.saveUpstreamTokens(grant.id, renewed);
    expect(await a.upstreamTokens(grant.id)).toMatchObject({ accessToken: renewed.accessToken, version: 2 });
    // Ending on one ends on both.
    await a.endGrant(grant.id, 'signed out');
    expect(await b.accessToken(issued.accessToken)).toBeUndefined();
    expect(await b.grant(grant.id)).toMatchObject({ endReason: 'signed out' });
  });

  it('a code redeemed on one replica cannot be redeemed on the other, even at the same moment', async () => {
    const { a, b } = await replicas();
    const grant = await a.createGrant({ clientId: 'sbc_x', subject: 'u', tokens: storeTokens(1) });
    const code = await a.issueCode(codeInput(grant.id));
    expect((await b.redeemCode(code)).status).toBe('ok');
    expect(await a.redeemCode(code)).toEqual({ status: 'reused', grantId: grant.id });
    expect((await b.grant(grant.id))?.endReason).toBe('authorization code used twice');

    for (let round = 0; round < 5; round++) {
      const other = await a.createGrant({ clientId: 'sbc_x', subject: 'u', tokens: storeTokens(round) });
      const racing = await b.issueCode(codeInput(other.id));
      const outcomes = await Promise.all([a, b, a, b].map((vault) => vault.redeemCode(racing)));
      expect(outcomes.filter((o) => o.status === 'ok')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'reused')).toHaveLength(3);
    }
  });

  it('concurrent refreshes with one refresh token: exactly one wins, and the reuse ends the grant', async () => {
    const { a, b } = await replicas();
    for (let round = 0; round < 5; round++) {
      const grant = await a.createGrant({ clientId: 'sbc_x', subject: 'u', tokens: storeTokens(round) });
      const first = await b.issueTokens({
        grantId: grant.id,
        clientId: 'sbc_x',
        resource: 'r',
        scope: 'mcp',
      });
      const outcomes = await Promise.all(
        [a, b, a, b].map((vault) => vault.refresh(first.refreshToken, 'sbc_x')),
      );
      const winners = outcomes.filter((o) => o.status === 'ok');
      expect(winners).toHaveLength(1);
      // The first loser presented a retired token (reuse); once that has ended the grant, the rest find it ended.
      expect(outcomes.filter((o) => o.status === 'reused').length).toBeGreaterThanOrEqual(1);
      expect(outcomes.every((o) => ['ok', 'reused', 'ended'].includes(o.status))).toBe(true);
      expect((await a.grant(grant.id))?.endReason).toBe('refresh token used twice');
      const won = winners[0];
      if (won?.status !== 'ok') throw new Error('no winner');
      // What the winner got dies with the grant, on every replica.
      expect(await a.accessToken(won.tokens.accessToken)).toBeUndefined();
      expect(await b.refresh(won.tokens.refreshToken, 'sbc_x')).toEqual({ status: 'ended' });
    }
  });

  it('a person signs in and uses tools with each step on another replica', async () => {
    const { a: vaultA, b: vaultB } = await replicas();
    // Both replicas send people to the same store, as real replicas do.
    const store = new FakeStore(`${LOOPBACK_ORIGIN}/oauth/callback`);
    const a = authHarness({ vault: vaultA, store, tools: callerAndStoreUserTools });
    const b = authHarness({ vault: vaultB, store, tools: callerAndStoreUserTools });

    const clientId = await a.registered();
    const { url, verifier } = b.authorizeUrl(clientId);
    const page = await b.openConsent(url);
    expect(page.response.status).toBe(200);
    const state = await a.approve(page.handle, page.cookie);
    expect(state).not.toBe('');
    const back = await b.request(b.callbackPath('usrGrace', state), { headers: { cookie: page.cookie } });
    const location = new URL(back.headers.get('location') ?? 'http://invalid/');
    expect(location.href.startsWith(CLIENT_REDIRECT)).toBe(true);
    const code = location.searchParams.get('code') ?? '';
    const tokens = await a.exchange(clientId, code, verifier);
    expect(tokens.status).toBe(200);
    // The same code on the other replica: used up.
    expect((await b.exchange(clientId, code, verifier)).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('after sign-in, calls work on every replica, a refresh on one rotates for all, and reuse is caught on the other', async () => {
    const { a: vaultA, b: vaultB } = await replicas();
    const store = new FakeStore(`${LOOPBACK_ORIGIN}/oauth/callback`);
    const a = authHarness({ vault: vaultA, store, tools: callerAndStoreUserTools });
    const b = authHarness({ vault: vaultB, store, tools: callerAndStoreUserTools });
    const clientId = await b.registered();
    const first = await a.connect(clientId, 'usrAlan');
    for (const replica of [a, b]) {
      const called = await replica.whoCalls(first.access_token as string);
      expect(called.result.structuredContent).toMatchObject({
        principal: { subject: 'usrAlan' },
        storeUser: 'usrAlan',
      });
    }
    const second = await b.refresh(clientId, first.refresh_token as string);
    expect(second.status).toBe(200);
    expect((await a.mcp(first.access_token as string)).status).toBe(401);
    expect((await a.mcp(second.body.access_token)).status).toBe(200);
    // The rotated-away refresh token comes back on the other replica: reuse, and the connection ends everywhere.
    expect((await a.refresh(clientId, first.refresh_token as string)).body).toMatchObject({
      error: 'invalid_grant',
    });
    expect((await b.mcp(second.body.access_token)).status).toBe(401);
  });
});

describe('the renewal lock', () => {
  it('one holder at a time; a dead holder’s lock lapses; a release never frees another holder’s lock', async () => {
    const redis = stores.redis();
    const key = `test-lock-${randomBytes(4).toString('hex')}`;
    const release = await acquireRedisLock(redis, key, { ttlMs: 5000 });
    await expect(acquireRedisLock(redis, key, { waitMs: 150 })).rejects.toThrow(LockTimeoutError);
    await release();
    // A second release (of a lock no longer ours) does nothing.
    const next = await acquireRedisLock(redis, key, { waitMs: 150 });
    await release();
    expect(await redis.exists(key)).toBe(1);
    await next();
    expect(await redis.exists(key)).toBe(0);

    // Held by a process that died: nobody extends it, so it lapses and the waiter gets it.
    await redis.set(key, 'someone-else', 'PX', 300);
    const after = await acquireRedisLock(redis, key, { waitMs: 5000 });
    expect(await redis.get(key)).not.toBe('someone-else');
    // Lapsed under us and taken by another: our release leaves theirs alone.
    await redis.set(key, 'someone-else', 'PX', 5000);
    await after();
    expect(await redis.get(key)).toBe('someone-else');
    await redis.del(key);
  });

  it('a holder is kept while it works longer than the TTL', async () => {
    const redis = stores.redis();
    const key = `test-lock-${randomBytes(4).toString('hex')}`;
    // The holder extends every third of the TTL, so the lock survives any pause of this worker's event loop shorter
    // than two thirds of it. A 300 ms TTL lapsed once in CI on a loaded 2-core machine; 1.2 s leaves 800 ms.
    const release = await acquireRedisLock(redis, key, { ttlMs: 1200 });
    const token = await redis.get(key);
    await new Promise((resolve) => setTimeout(resolve, 3600));
    expect(await redis.get(key)).toBe(token);
    await expect(acquireRedisLock(redis, key, { waitMs: 50 })).rejects.toThrow(LockTimeoutError);
    await release();
    expect(await redis.exists(key)).toBe(0);
  });
});

describe('store token renewal across replicas', () => {
  let upstream: StoreEmulatorHandle;
  const files: ReturnType<typeof tempCredentials>[] = [];
  beforeAll(async () => {
    upstream = await startStore();
  });
  afterAll(async () => {
    await upstream.close();
    for (const file of files) file.remove();
  });

  /** Grace's real store tokens: a login against the emulator, the browser part done with fetch. */
  async function graceTokens() {
    const file = tempCredentials();
    files.push(file);
    await loginStore({
      env: loginEnv(upstream.url, file.path),
      openBrowser: async (url) => {
        await consent(url, 'Grace Hopper');
      },
      print: () => undefined,
      warn: () => undefined,
    });
    const saved = readCredentialsFile(file.path);
    if (!saved) throw new Error('no login saved');
    return saved;
  }

  const storeClient = (scopes: string[]) =>
    new StoreOAuthClient({
      clientId: loginEnv(upstream.url, '').STORE_OAUTH_CLIENT_ID as string,
      clientSecret: CLIENT_SECRET,
      oauthUrl: upstream.url,
      apiUrl: upstream.url,
      scopes,
    });

  const call = (principal: { subject: string; grantId: string }): ToolCall => ({
    signal: new AbortController().signal,
    toolName: 'StoreApi.ListStoreBases',
    nameStyle: 'dotted',
    principal,
  });

  /** A grant on replica A whose store token (real, from the emulator) is inside the renewal margin. */
  async function nearExpiryGrant(vault: AuthVault) {
    const saved = await graceTokens();
    const grant = await vault.createGrant({
      clientId: 'sbc_client',
      subject: saved.user.id,
      tokens: {
        accessToken: saved.accessToken,
        refreshToken: saved.refreshToken,
        scopes: saved.scopes,
        expiresAt: Date.now() + 60_000,
      },
    });
    return { saved, grant, principal: { subject: saved.user.id, grantId: grant.id } };
  }

  it('two replicas renewing one grant at once ask the store once, and both use the renewed token', async () => {
    const { a, b } = await replicas();
    const { saved, grant, principal } = await nearExpiryGrant(a);
    // Each replica has its own broker and its own OAuth client, as separate processes do.
    const tokensA = new UserTokens(a, storeClient(saved.scopes), { reconnectError });
    const tokensB = new UserTokens(b, storeClient(saved.scopes), { reconnectError });
    await upstream.clearLog();
    const results = await Promise.all(
      [tokensA, tokensB, tokensA, tokensB, tokensB, tokensA].map((tokens) =>
        tokens.tokenFor(call(principal)),
      ),
    );
    expect(new Set(results).size).toBe(1);
    expect(results[0]).not.toBe(saved.accessToken);
    const tokenRequests = (await upstream.requests()).filter(
      (r) => r.method === 'POST' && r.path === '/oauth2/v1/token',
    );
    expect(tokenRequests).toHaveLength(1);
    expect(String(tokenRequests[0]?.body)).toContain('grant_type=refresh_token');
    // The store saw no second use of the rotated refresh token, so it revoked nothing.
    const grants = (
      await upstream.get<{ grants: { userId: string; revoked: boolean }[] }>('/_emulator/oauth/grants')
    ).grants;
    expect(grants.filter((g) => g.userId === saved.user.id).every((g) => !g.revoked)).toBe(true);
    expect(await storeClient(saved.scopes).whoami(results[0] as string)).toMatchObject({ id: saved.user.id });
    expect((await b.grant(grant.id))?.version).toBe(2);
    // Fresh now on both: no further renewal.
    expect(await tokensB.tokenFor(call(principal))).toBe(results[0]);
    expect(await tokensA.tokenFor(call(principal))).toBe(results[0]);
    expect((await upstream.requests()).filter((r) => r.path === '/oauth2/v1/token')).toHaveLength(0);
  });

  it('a renewal lock held elsewhere for too long fails the call as retryable, asking the store nothing', async () => {
    const place = stores.redisPlace();
    const key = randomBytes(32);
    const vault = await place.open(key, { redis: { lock: { waitMs: 200 } } });
    const grant = await vault.createGrant({
      clientId: 'sbc_client',
      subject: 'usrNobody',
      tokens: { ...storeTokens(1), expiresAt: Date.now() + 60_000 },
    });
    // Another replica holds the grant's renewal lock (and keeps holding it).
    await stores.redis().set(`${place.prefix}lock:grant:${grant.id}`, 'another-replica', 'PX', 10_000);
    const tokens = new UserTokens(vault, storeClient(['data.records:read']), { reconnectError });
    await upstream.clearLog();
    const failed = await tokens.tokenFor(call({ subject: 'usrNobody', grantId: grant.id })).catch((e) => e);
    expect(failed).toBeInstanceOf(ToolError);
    expect(failed).toMatchObject({ kind: 'upstream_unavailable', retryable: true });
    expect((failed as ToolError).message).toMatch(/Another replica is renewing/);
    expect(await upstream.requests()).toHaveLength(0);
    expect((await vault.grant(grant.id))?.endedAt).toBeUndefined();
  });
});

describe('while Redis is away', () => {
  it('answers 503 (try again, not sign in again), fails tool calls as retryable, and works again once Redis is back', async () => {
    const server = await startRedis();
    const redis = openRedis(server.url);
    try {
      expect(await redisConnected(redis, 5000)).toBe(true);
      const vault = await AuthVault.open(new RedisAuthState(redis), randomBytes(32));
      const store = new FakeStore(`${LOOPBACK_ORIGIN}/oauth/callback`);
      const replica = authHarness({ vault, store, tools: callerAndStoreUserTools });
      const clientId = await replica.registered();
      const tokens = await replica.connect(clientId);
      expect((await replica.mcp(tokens.access_token as string)).status).toBe(200);

      await server.stop();
      const mcp = await replica.mcp(tokens.access_token as string);
      expect(mcp.status).toBe(503);
      expect(mcp.headers.get('retry-after')).toBe('2');
      expect(mcp.headers.get('www-authenticate')).toBeNull();
      const refreshed = await replica.refresh(clientId, tokens.refresh_token as string);
      expect(refreshed).toMatchObject({ status: 503, body: { error: 'temporarily_unavailable' } });
      expect((await replica.register()).status).toBe(503);
      const page = await replica.openConsent(replica.authorizeUrl(clientId).url);
      expect(page.response.status).toBe(503);
      expect(page.html).toMatch(/try again/);
      const userTokens = new UserTokens(vault, store, { reconnectError });
      const grantId = replica.grants.at(-1)?.id as string;
      const failed = await userTokens
        .tokenFor({
          signal: new AbortController().signal,
          toolName: 'StoreApi.ListStoreBases',
          nameStyle: 'dotted',
          principal: { subject: 'usrGrace', grantId },
        })
        .catch((e: unknown) => e);
      expect(failed).toMatchObject({ kind: 'upstream_unavailable', retryable: true });
      expect((failed as ToolError).message).toMatch(/SWITCHBOARD_REDIS_URL/);

      // Back (empty: the test server keeps nothing on disk), and reconnected without a restart of ours.
      await server.restart();
      expect(await redisConnected(redis, 10_000)).toBe(true);
      const again = await replica.connect(await replica.registered());
      expect((await replica.mcp(again.access_token as string)).status).toBe(200);
    } finally {
      await closeRedis(redis);
      await server.stop();
    }
  });
});

describe('a replica that starts before Redis is reachable', () => {
  it('starts anyway, and checks the sealing key on first use once Redis answers', async () => {
    const server = await startRedis();
    await server.stop();
    const redis = openRedis(server.url);
    const key = randomBytes(32).toString('base64');
    const signIn = (secret: string) =>
      perUserSignInFromEnv(SERVICES, {
        STORE_OAUTH_CLIENT_ID: 'sandbox-oauth-client',
        SWITCHBOARD_SECRET_KEY: secret,
      }) as PerUserSignIn;
    let realWrite: typeof process.stderr.write | undefined;
    try {
      const logged: string[] = [];
      realWrite = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((chunk: string) => {
        logged.push(String(chunk));
        return true;
      }) as typeof process.stderr.write;
      const early = await openPerUserAuth(signIn(key), ':memory:', { redis });
      expect(logged.join('')).toMatch(/could not check the sealing key.*SWITCHBOARD_REDIS_URL/);
      await server.restart();
      expect(await redisConnected(redis, 10_000)).toBe(true);
      const client = await early.vault.registerClient({ redirectUris: [CLIENT_REDIRECT], metadata: {} });
      expect(await early.vault.client(client.id)).toEqual(client);
      // The key check was stored on that first use: a replica with another key is now refused.
      await expect(
        openPerUserAuth(signIn(randomBytes(32).toString('base64')), ':memory:', { redis }),
      ).rejects.toThrow(/sealed with another key/);
      expect((await openPerUserAuth(signIn(key), ':memory:', { redis })).vault).toBeDefined();
    } finally {
      if (realWrite) process.stderr.write = realWrite;
      await closeRedis(redis);
      await server.stop();
    }
  });
});

describe('serve with SWITCHBOARD_REDIS_URL', () => {
  const options = (dataDir: string): ServeOptions => ({
    transport: 'http',
    host: '127.0.0.1',
    port: 0,
    sandbox: false,
    dataDir,
    reset: false,
    readOnly: false,
    toolNames: 'dotted',
  });
  const dirs: string[] = [];
  const handles: ServeHandle[] = [];
  let redisUrl = '';
  let realWrite: typeof process.stderr.write;
  beforeEach(() => {
    redisUrl = `redis://127.0.0.1:${stores.redis().options.port}`;
    // The start-up log lines are not this test's subject.
    realWrite = process.stderr.write.bind(process.stderr);
    process.stderr.write = (() => true) as typeof process.stderr.write;
  });
  afterEach(async () => {
    process.stderr.write = realWrite;
    for (const handle of handles.splice(0)) await handle.close();
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-replica-'));
    dirs.push(dir);
    return join(dir, 'data');
  };
  const env = (extra: Record<string, string> = {}) => ({
    STORE_OAUTH_CLIENT_ID: 'sandbox-oauth-client',
    STORE_OAUTH_CLIENT_SECRET: 'sandbox-oauth-secret',
    SWITCHBOARD_REDIS_URL: redisUrl,
    ...extra,
  });

  it('refuses per-user OAuth without SWITCHBOARD_SECRET_KEY, saying how to make one, and makes no key of its own', async () => {
    const dir = dataDir();
    const refusal = startServe(['store'], options(dir), env());
    await expect(refusal).rejects.toThrow(
      /SWITCHBOARD_REDIS_URL is set.*SWITCHBOARD_SECRET_KEY.*on every replica.*openssl rand -base64 32/s,
    );
    expect(existsSync(join(dir, 'secret.key'))).toBe(false);
  });

  it('with the key, replicas share the sign-in state in Redis (no auth.db), and one with another key is refused', async () => {
    const key = randomBytes(32).toString('base64');
    const dirA = dataDir();
    const first = await startServe(['store'], options(dirA), env({ SWITCHBOARD_SECRET_KEY: key }));
    handles.push(first);
    const origin = new URL(first.boundUrl as string).origin;
    const registered = await fetch(`${origin}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Replica test', redirect_uris: [CLIENT_REDIRECT] }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    expect(await stores.redis().exists(`switchboard:auth:client:${clientId}`)).toBe(1);
    expect(existsSync(dirA) ? readdirSync(dirA) : []).not.toContain('auth.db');

    const second = await startServe(['store'], options(dataDir()), env({ SWITCHBOARD_SECRET_KEY: key }));
    handles.push(second);
    const authorize = new URL('/authorize', new URL(second.boundUrl as string).origin);
    for (const [k, v] of Object.entries({
      client_id: clientId,
      redirect_uri: CLIENT_REDIRECT,
      response_type: 'code',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'S256',
    })) {
      authorize.searchParams.set(k, v);
    }
    const page = await fetch(authorize);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Replica test');

    await expect(
      startServe(
        ['store'],
        options(dataDir()),
        env({ SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('base64') }),
      ),
    ).rejects.toThrow(/sealed with another key.*same SWITCHBOARD_SECRET_KEY/s);
  });
});
