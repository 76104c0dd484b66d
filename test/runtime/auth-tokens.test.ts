// Per-call upstream tokens for per-user OAuth: the call's verified grant is the only key (never another person's
// token), renewal before expiry with one renewal per grant at a time, an `invalid_grant` renewal or an upstream
// 401 ending the grant with a reconnect error, a transient renewal failure falling back to a still-valid token.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  REFRESH_MARGIN_MS,
  type UpstreamOAuthClient,
  UserTokens,
  withUserTokenErrors,
} from '../../src/runtime/auth/userTokens.js';
import { AuthVault, type UpstreamTokenSet } from '../../src/runtime/auth/vault.js';
import { ToolError } from '../../src/runtime/errors.js';
import { loadDefinition, type ServiceRuntime, type ToolCall } from '../../src/runtime/tool.js';
import { reconnectError, StoreOAuthError } from '../../src/services/store/oauth.js';

const START = Date.UTC(2026, 0, 1);

class FakeUpstream implements UpstreamOAuthClient {
  readonly scopes = ['data.records:read'];
  refreshes: string[] = [];
  next: (refreshToken: string) => Promise<UpstreamTokenSet> = async () => this.tokens();
  #n = 0;

  constructor(private readonly now: () => number) {}

  tokens(ttlMs = 3600_000): UpstreamTokenSet {
    this.#n++;
    return {
      accessToken: `oaa-${this.#n}-${randomBytes(6).toString('hex')}`,
      refreshToken: `oar-${this.#n}-${randomBytes(6).toString('hex')}`,
      scopes: this.scopes,
      expiresAt: this.now() + ttlMs,
    };
  }
  authorizeUrl(): string {
    return 'https://store.test/authorize';
  }
  async exchangeCode(): Promise<UpstreamTokenSet> {
    return this.tokens();
  }
  async refresh(refreshToken: string): Promise<UpstreamTokenSet> {
    this.refreshes.push(refreshToken);
    return this.next(refreshToken);
  }
  async whoami(): Promise<{ id: string }> {
    return { id: 'usr' };
  }
}

function setup() {
  let now = START;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const vault = new AuthVault(':memory:', randomBytes(32), { now: clock.now });
  const upstream = new FakeUpstream(clock.now);
  const tokens = new UserTokens(vault, upstream, { reconnectError });
  const connect = async (subject: string, ttlMs?: number) => {
    const initial = upstream.tokens(ttlMs);
    const grant = await vault.createGrant({ clientId: 'sbc_client', subject, tokens: initial });
    return { grant, initial };
  };
  const call = (principal?: { subject: string; grantId: string }): ToolCall => ({
    signal: new AbortController().signal,
    toolName: 'StoreApi.ListStoreBases',
    nameStyle: 'dotted',
    ...(principal ? { principal } : {}),
  });
  return { clock, vault, upstream, tokens, connect, call };
}

async function reconnectOf(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  expect((error as ToolError).kind).toBe('unauthorized');
  expect((error as ToolError).message).toMatch(/connection needs to be renewed/);
  expect((error as ToolError).hint).toMatch(/Sign in again/);
  return error as ToolError;
}

describe('UserTokens', () => {
  it("gives each call its own person's token, found by the verified grant only", async () => {
    const { tokens, connect, call } = setup();
    const grace = await connect('usrGrace');
    const alan = await connect('usrAlan');
    expect(await tokens.tokenFor(call({ subject: 'usrGrace', grantId: grace.grant.id }))).toBe(
      grace.initial.accessToken,
    );
    expect(await tokens.tokenFor(call({ subject: 'usrAlan', grantId: alan.grant.id }))).toBe(
      alan.initial.accessToken,
    );
    // A principal naming someone else's grant gets no token at all, let alone the other person's.
    await reconnectOf(tokens.tokenFor(call({ subject: 'usrGrace', grantId: alan.grant.id })));
    await reconnectOf(tokens.tokenFor(call({ subject: 'usrGrace', grantId: 'sbg_unknown' })));
    // Without a principal (stdio, no OAuth) this source has nothing to say.
    expect(await tokens.tokenFor(call())).toBeUndefined();
  });

  it('renews within the margin before expiry, saves the rotated tokens, and uses them from then on', async () => {
    const { clock, vault, upstream, tokens, connect, call } = setup();
    const { grant, initial } = await connect('usrGrace');
    const principal = { subject: 'usrGrace', grantId: grant.id };
    clock.advance(3600_000 - REFRESH_MARGIN_MS - 1000);
    expect(await tokens.tokenFor(call(principal))).toBe(initial.accessToken);
    expect(upstream.refreshes).toEqual([]);
    clock.advance(2000);
    const renewed = await tokens.tokenFor(call(principal));
    expect(renewed).not.toBe(initial.accessToken);
    expect(upstream.refreshes).toEqual([initial.refreshToken]);
    expect((await vault.grant(grant.id))?.version).toBe(2);
    expect((await vault.upstreamTokens(grant.id))?.accessToken).toBe(renewed);
    expect(await tokens.tokenFor(call(principal))).toBe(renewed);
    expect(upstream.refreshes).toHaveLength(1);
  });

  it('renews once for concurrent calls (the upstream would revoke a grant whose refresh token is used twice)', async () => {
    const { upstream, tokens, connect, call } = setup();
    const { grant } = await connect('usrGrace', 60_000);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    upstream.next = async () => {
      await gate;
      return upstream.tokens();
    };
    const principal = { subject: 'usrGrace', grantId: grant.id };
    const pending = [1, 2, 3, 4].map(() => tokens.tokenFor(call(principal)));
    release();
    const results = await Promise.all(pending);
    expect(upstream.refreshes).toHaveLength(1);
    expect(new Set(results).size).toBe(1);
  });

  it('invalid_grant on renewal ends the grant with a reconnect error; later calls fail the same way at once', async () => {
    const { vault, upstream, tokens, connect, call } = setup();
    const { grant } = await connect('usrGrace', 60_000);
    upstream.next = async () => {
      throw new StoreOAuthError('invalid_grant', 'The grant has been revoked.', 400);
    };
    const principal = { subject: 'usrGrace', grantId: grant.id };
    const error = await reconnectOf(tokens.tokenFor(call(principal)));
    expect(error.message).toMatch(/refused to renew it/);
    expect((await vault.grant(grant.id))?.endedAt).toBeDefined();
    await reconnectOf(tokens.tokenFor(call(principal)));
    expect(upstream.refreshes).toHaveLength(1);
  });

  it('a transient renewal failure keeps a still-valid token, and fails the call once the token has expired', async () => {
    const { clock, upstream, tokens, connect, call } = setup();
    const { grant, initial } = await connect('usrGrace', 60_000);
    upstream.next = async () => {
      throw new StoreOAuthError('network', 'Could not reach the store', 0);
    };
    const principal = { subject: 'usrGrace', grantId: grant.id };
    expect(await tokens.tokenFor(call(principal))).toBe(initial.accessToken);
    clock.advance(61_000);
    const failed = await tokens.tokenFor(call(principal)).catch((e: unknown) => e);
    expect(failed).toMatchObject({ kind: 'upstream_unavailable', retryable: true });
  });

  it('an expired upstream refresh token ends the grant without asking the upstream', async () => {
    const { clock, vault, upstream, tokens, call } = setup();
    const grant = await vault.createGrant({
      clientId: 'sbc_client',
      subject: 'usrGrace',
      tokens: { ...upstream.tokens(60_000), refreshExpiresAt: START + 120_000 },
    });
    clock.advance(121_000);
    await reconnectOf(tokens.tokenFor(call({ subject: 'usrGrace', grantId: grant.id })));
    expect(upstream.refreshes).toEqual([]);
  });

  it('an upstream 401 ends the grant, unless the call ran with tokens renewed since', async () => {
    const { clock, vault, tokens, connect, call } = setup();
    const { grant } = await connect('usrGrace');
    const principal = { subject: 'usrGrace', grantId: grant.id };
    const refused = new ToolError({
      kind: 'unauthorized',
      status: 401,
      message: 'StoreApi upstream returned 401',
    });

    // A call that got its token, then the tokens were renewed by another call before its request arrived.
    const stale = call(principal);
    await tokens.tokenFor(stale);
    clock.advance(3600_000 - REFRESH_MARGIN_MS + 1);
    await tokens.tokenFor(call(principal));
    expect(await tokens.afterUnauthorized(stale, refused)).toMatchObject({
      kind: 'unauthorized',
      retryable: true,
    });
    expect((await vault.grant(grant.id))?.endedAt).toBeUndefined();

    // A call with the current tokens: the upstream no longer honours the grant.
    const current = call(principal);
    await tokens.tokenFor(current);
    const error = await tokens.afterUnauthorized(current, refused);
    expect(error.message).toMatch(/connection needs to be renewed/);
    expect((await vault.grant(grant.id))?.endedAt).toBeDefined();
  });

  it('withUserTokenErrors turns a 401 on a person’s call into the reconnect error, and leaves others alone', async () => {
    const { tokens, connect, call } = setup();
    const { grant } = await connect('usrGrace');
    const fail = (status: number) => async () => {
      throw new ToolError({
        kind: status === 401 ? 'unauthorized' : 'forbidden',
        status,
        message: `got ${status}`,
      });
    };
    const runtime: ServiceRuntime<null> = {
      context: null,
      definition: {
        id: 't',
        prefix: 'T',
        title: 'T',
        instructions: '',
        tools: [401, 403].map((status) => ({
          name: `Fail${status}`,
          title: '',
          description: '',
          input: undefined as never,
          hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
          run: fail(status),
        })),
      },
    };
    const wrapped = withUserTokenErrors(runtime, () => tokens);
    const [t401, t403] = await Promise.all(wrapped.definition.tools.map(loadDefinition));
    const principal = { subject: 'usrGrace', grantId: grant.id };
    await expect(t403!.run({}, null, call(principal))).rejects.toMatchObject({ message: 'got 403' });
    await expect(t401!.run({}, null, call())).rejects.toMatchObject({ message: 'got 401' });
    await reconnectOf(t401!.run({}, null, call(principal)));
  });
});
