// The per-user OAuth vault: sealing (AES-256-GCM bound to row and column), the data key (from the environment,
// or generated owner-only into the data folder), and the vault's contract, run with the same test bodies over both
// of its stores (SQLite in the data folder, and a real Redis): state sealed with another key refused, single-use
// codes and handles, rotating refresh tokens with reuse detection, grants ended with all their tokens, and no secret
// at rest in the clear.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AuthSetupError,
  loadSecretKey,
  Sealer,
  sha256,
  type UpstreamTokenSet,
} from '../../src/runtime/auth/vault.js';
import { STORE_KINDS, useAuthStores } from './authStores.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-vault-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function clock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const upstreamTokens = (n: number): UpstreamTokenSet => ({
  accessToken: `oaaUpstreamAccess${n}-${randomBytes(8).toString('hex')}`,
  refreshToken: `oarUpstreamRefresh${n}-${randomBytes(8).toString('hex')}`,
  scopes: ['data.records:read'],
  expiresAt: Date.UTC(2026, 0, 1) + 3600_000,
});

describe('Sealer', () => {
  const sealer = new Sealer(randomBytes(32));

  it('opens what it sealed, only for the same context and key', () => {
    const sealed = sealer.seal('secret-token-value', 'grant:a:access');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('secret-token-value');
    expect(sealer.open(sealed, 'grant:a:access')).toBe('secret-token-value');
    // Moved to another row or column: refused.
    expect(sealer.open(sealed, 'grant:b:access')).toBeUndefined();
    expect(sealer.open(sealed, 'grant:a:refresh')).toBeUndefined();
    expect(new Sealer(randomBytes(32)).open(sealed, 'grant:a:access')).toBeUndefined();
    // Tampered: refused.
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 1;
    expect(sealer.open(`v1.${raw.toString('base64')}`, 'grant:a:access')).toBeUndefined();
  });

  it('uses a fresh IV every time', () => {
    expect(sealer.seal('same', 'ctx')).not.toBe(sealer.seal('same', 'ctx'));
  });
});

describe('loadSecretKey', () => {
  it('takes a 32-byte base64 key from SWITCHBOARD_SECRET_KEY and refuses anything else', () => {
    const key = randomBytes(32);
    expect(loadSecretKey(key.toString('base64'), tempDir())).toMatchObject({ origin: 'environment', key });
    expect(loadSecretKey(key.toString('base64url'), tempDir()).key.equals(key)).toBe(true);
    expect(() => loadSecretKey(randomBytes(16).toString('base64'), tempDir())).toThrow(
      /SWITCHBOARD_SECRET_KEY must be 32 random bytes in base64.*decodes to 16 bytes/,
    );
    expect(() => loadSecretKey('not base64 at all!', tempDir())).toThrow(AuthSetupError);
  });

  it('generates an owner-only key file once, then reads it back', () => {
    const dir = join(tempDir(), 'nested');
    const first = loadSecretKey(undefined, dir);
    expect(first.origin).toBe('generated');
    expect(first.path).toBe(join(dir, 'secret.key'));
    expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const second = loadSecretKey(undefined, dir);
    expect(second.origin).toBe('file');
    expect(second.key.equals(first.key)).toBe(true);
    expect(second.looseFileMode).toBeUndefined();
  });

  it('flags a key file other users can read, and refuses a malformed one', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'secret.key'), randomBytes(32).toString('base64'), { mode: 0o644 });
    expect(loadSecretKey(undefined, dir).looseFileMode).toBe(0o644);
    writeFileSync(join(dir, 'secret.key'), 'short', { mode: 0o600 });
    expect(() => loadSecretKey(undefined, dir)).toThrow(/secret\.key must be 32 random bytes/);
  });

  it('makes up a key for an in-memory run, writing nothing', () => {
    expect(loadSecretKey(undefined, ':memory:')).toMatchObject({ origin: 'ephemeral' });
  });
});

const stores = useAuthStores();

describe.each(STORE_KINDS)('AuthVault over %s', (kind) => {
  const open = (options: Parameters<ReturnType<typeof stores.place>['open']>[1] = {}) =>
    stores.place(kind).open(randomBytes(32), options);

  it('refuses state sealed with another key, naming the way out', async () => {
    const place = stores.place(kind);
    await (await place.open(randomBytes(32))).close();
    const refusal = place.open(randomBytes(32));
    await expect(refusal).rejects.toThrow(AuthSetupError);
    await expect(refusal).rejects.toThrow(
      kind === 'sqlite'
        ? /sealed with another key.*SWITCHBOARD_SECRET_KEY.*move .*auth\.db away/s
        : /SWITCHBOARD_REDIS_URL.*sealed with another key.*same SWITCHBOARD_SECRET_KEY/s,
    );
  });

  it('two vaults opening one new state at once with the same key both open, over one state', async () => {
    const place = stores.place(kind);
    const key = randomBytes(32);
    const [first, second] = await Promise.all([place.open(key), place.open(key)]);
    const client = await first.registerClient({ redirectUris: ['http://127.0.0.1:1/cb'], metadata: {} });
    expect(await second.client(client.id)).toEqual(client);
    await first.close();
    await second.close();
  });

  it('opens the same state again with the same key, and finds what it stored', async () => {
    const place = stores.place(kind);
    const key = randomBytes(32);
    const first = await place.open(key);
    const client = await first.registerClient({
      redirectUris: ['http://127.0.0.1:1/cb'],
      metadata: { a: 1 },
    });
    await first.close();
    const again = await place.open(key);
    expect(await again.client(client.id)).toEqual(client);
    expect(await again.client('sbc_unknown')).toBeUndefined();
    await again.close();
  });

  it('keeps upstream tokens sealed and hashes of everything it issues, never the values', async () => {
    const place = stores.place(kind);
    const key = randomBytes(32);
    const vault = await place.open(key);
    const client = await vault.registerClient({ redirectUris: ['http://127.0.0.1:1/cb'], metadata: {} });
    const tokens = upstreamTokens(1);
    const grant = await vault.createGrant({ clientId: client.id, subject: 'usrGrace', tokens });
    const code = await vault.issueCode({
      grantId: grant.id,
      clientId: client.id,
      redirectUri: 'http://127.0.0.1:1/cb',
      codeChallenge: 'c'.repeat(43),
      resource: 'http://127.0.0.1:9/mcp',
      scope: 'mcp',
    });
    const ours = await vault.issueTokens({
      grantId: grant.id,
      clientId: client.id,
      resource: 'http://127.0.0.1:9/mcp',
      scope: 'mcp',
    });
    const pending = await vault.createPending(
      {
        clientId: client.id,
        redirectUri: 'http://127.0.0.1:1/cb',
        codeChallenge: 'c'.repeat(43),
        resource: 'http://127.0.0.1:9/mcp',
        scope: 'mcp',
      },
      sha256('browser'),
    );
    const state = await vault.createUpstreamAuthorization(
      (await vault.takePending(pending, sha256('browser')))!,
      'upstream-verifier-value-0123456789-abcdefghijklmnop',
    );
    // A second pending request, left in the store for the dump.
    const open = await vault.createPending(
      {
        clientId: client.id,
        redirectUri: 'http://127.0.0.1:1/cb',
        codeChallenge: 'd'.repeat(43),
        resource: 'http://127.0.0.1:9/mcp',
        scope: 'mcp',
      },
      sha256('browser'),
    );
    expect(await vault.upstreamTokens(grant.id)).toMatchObject({
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
    });
    await vault.close();
    const bytes = await place.dump();
    for (const secret of [
      tokens.accessToken,
      tokens.refreshToken,
      code,
      ours.accessToken,
      ours.refreshToken,
      pending,
      open,
      state,
      'upstream-verifier-value-0123456789-abcdefghijklmnop',
      key.toString('base64'),
      key.toString('hex'),
    ]) {
      expect(bytes.includes(secret), secret.slice(0, 8)).toBe(false);
    }
    // What it does keep: the hashes, and who the grant is for.
    expect(bytes).toContain(sha256(ours.accessToken));
    expect(bytes).toContain(sha256(code));
    expect(bytes).toContain('usrGrace');
  });

  it('a consent handle works once, in the browser it was given to, before it expires', async () => {
    const time = clock();
    const vault = await open({ now: time.now });
    const request = {
      clientId: 'sbc_x',
      redirectUri: 'http://127.0.0.1:1/cb',
      codeChallenge: 'c'.repeat(43),
      resource: 'r',
      scope: 'mcp',
    };
    const handle = await vault.createPending(request, sha256('browser-a'));
    expect(await vault.takePending(handle, sha256('browser-b'))).toBeUndefined();
    expect(await vault.takePending(handle, sha256('browser-a'))).toMatchObject(request);
    expect(await vault.takePending(handle, sha256('browser-a'))).toBeUndefined();
    const late = await vault.createPending(request, sha256('browser-a'));
    time.advance(10 * 60 * 1000 + 1);
    expect(await vault.takePending(late, sha256('browser-a'))).toBeUndefined();
  });

  it('an upstream authorization keeps the request and its verifier, for the same browser, once, stage by stage', async () => {
    const time = clock();
    const vault = await open({ now: time.now });
    const request = {
      clientId: 'sbc_x',
      redirectUri: 'http://127.0.0.1:1/cb',
      clientState: 'client-state-1',
      codeChallenge: 'c'.repeat(43),
      resource: 'r',
      scope: 'mcp',
    };
    const browser = sha256('browser-a');
    const handle = await vault.createPending(request, browser);
    // A consent handle is no upstream state, and trying it as one does not use it up.
    expect(await vault.takeUpstreamAuthorization(handle, browser)).toBeUndefined();
    expect(await vault.peekUpstreamAuthorization(handle)).toBeUndefined();
    const pending = (await vault.takePending(handle, browser))!;
    expect(pending).toMatchObject({ ...request, browserHash: browser });
    const state = await vault.createUpstreamAuthorization(pending, 'upstream-verifier-1');
    expect(await vault.peekUpstreamAuthorization(state)).toMatchObject(request);
    expect(await vault.takePending(state, browser)).toBeUndefined();
    expect(await vault.takeUpstreamAuthorization(state, sha256('browser-b'))).toBeUndefined();
    expect(await vault.takeUpstreamAuthorization(state, browser)).toMatchObject({
      ...request,
      browserHash: browser,
      upstreamVerifier: 'upstream-verifier-1',
    });
    expect(await vault.takeUpstreamAuthorization(state, browser)).toBeUndefined();
    const late = await vault.createUpstreamAuthorization(pending, 'upstream-verifier-2');
    time.advance(10 * 60 * 1000 + 1);
    expect(await vault.peekUpstreamAuthorization(late)).toBeUndefined();
    expect(await vault.takeUpstreamAuthorization(late, browser)).toBeUndefined();
  });

  it('a code works once; a second use ends the grant and the tokens the first one issued', async () => {
    const time = clock();
    const vault = await open({ now: time.now });
    const grant = await vault.createGrant({ clientId: 'sbc_x', subject: 'usr1', tokens: upstreamTokens(1) });
    const input = {
      grantId: grant.id,
      clientId: 'sbc_x',
      redirectUri: 'http://127.0.0.1:1/cb',
      codeChallenge: 'c'.repeat(43),
      resource: 'http://h/mcp',
      scope: 'mcp',
    };
    const code = await vault.issueCode(input);
    const first = await vault.redeemCode(code);
    expect(first).toEqual({ status: 'ok', code: input });
    const issued = await vault.issueTokens({
      grantId: grant.id,
      clientId: 'sbc_x',
      resource: 'http://h/mcp',
      scope: 'mcp',
    });
    expect(await vault.accessToken(issued.accessToken)).toMatchObject({
      subject: 'usr1',
      grantEnded: false,
    });
    expect(await vault.redeemCode(code)).toEqual({ status: 'reused', grantId: grant.id });
    expect(await vault.grant(grant.id)).toMatchObject({ endReason: 'authorization code used twice' });
    expect(await vault.accessToken(issued.accessToken)).toBeUndefined();
    expect(await vault.upstreamTokens(grant.id)).toBeUndefined();
    expect(await vault.redeemCode('sb_ac_unknown')).toEqual({ status: 'unknown' });
    const other = await vault.createGrant({ clientId: 'sbc_x', subject: 'usr1', tokens: upstreamTokens(2) });
    const late = await vault.issueCode({ ...input, grantId: other.id });
    time.advance(5 * 60 * 1000 + 1);
    expect(await vault.redeemCode(late)).toEqual({ status: 'expired' });
    // A code that expired unused ends its grant: nobody can reach the store tokens it stood for.
    expect(await vault.grant(other.id)).toMatchObject({ endReason: 'its authorization code expired unused' });
  });

  it('a code never redeemed ends its grant once it has long expired, and is then forgotten', async () => {
    const time = clock();
    const vault = await open({ now: time.now });
    const input = (grantId: string) => ({
      grantId,
      clientId: 'sbc_x',
      redirectUri: 'http://127.0.0.1:1/cb',
      codeChallenge: 'c'.repeat(43),
      resource: 'http://h/mcp',
      scope: 'mcp',
    });
    const abandoned = await vault.createGrant({ clientId: 'sbc_x', subject: 'u', tokens: upstreamTokens(1) });
    const redeemed = await vault.createGrant({ clientId: 'sbc_x', subject: 'u', tokens: upstreamTokens(2) });
    const lost = await vault.issueCode(input(abandoned.id));
    const used = await vault.issueCode(input(redeemed.id));
    expect((await vault.redeemCode(used)).status).toBe('ok');
    time.advance(5 * 60 * 1000);
    // Just expired: not yet abandoned (a late redemption is still told it expired).
    await vault.issueCode(input(redeemed.id));
    expect((await vault.grant(abandoned.id))?.endedAt).toBeUndefined();
    time.advance(5 * 60 * 1000 + 1);
    await vault.issueCode(input(redeemed.id));
    expect(await vault.grant(abandoned.id)).toMatchObject({
      endReason: 'its authorization code was never redeemed',
    });
    expect(await vault.upstreamTokens(abandoned.id)).toBeUndefined();
    // The redeemed code's grant lives on; both old codes are forgotten.
    expect((await vault.grant(redeemed.id))?.endedAt).toBeUndefined();
    expect(await vault.redeemCode(lost)).toEqual({ status: 'unknown' });
    expect(await vault.redeemCode(used)).toEqual({ status: 'unknown' });
  });

  it('refresh tokens rotate; presenting a rotated one ends the grant (reuse detection)', async () => {
    const vault = await open();
    const grant = await vault.createGrant({ clientId: 'sbc_x', subject: 'usr1', tokens: upstreamTokens(1) });
    const first = await vault.issueTokens({
      grantId: grant.id,
      clientId: 'sbc_x',
      resource: 'http://h/mcp',
      scope: 'mcp',
    });
    expect(await vault.refresh(first.refreshToken, 'sbc_other')).toEqual({ status: 'wrong_client' });
    expect(await vault.refresh(first.refreshToken, 'sbc_x', () => false)).toEqual({
      status: 'wrong_resource',
    });
    // An access token is no refresh token, nor the other way round.
    expect(await vault.refresh(first.accessToken, 'sbc_x')).toEqual({ status: 'unknown' });
    expect(await vault.accessToken(first.refreshToken)).toBeUndefined();
    const second = await vault.refresh(first.refreshToken, 'sbc_x');
    if (second.status !== 'ok') throw new Error(second.status);
    expect(second).toMatchObject({ grantId: grant.id, resource: 'http://h/mcp' });
    expect(second.tokens).toMatchObject({ scope: 'mcp', expiresIn: 3600 });
    expect(second.tokens.refreshToken).not.toBe(first.refreshToken);
    // The access token that came with the old refresh token is retired with it.
    expect(await vault.accessToken(first.accessToken)).toBeUndefined();
    expect(await vault.accessToken(second.tokens.accessToken)).toMatchObject({
      grantId: grant.id,
      clientId: 'sbc_x',
      resource: 'http://h/mcp',
      scope: 'mcp',
      subject: 'usr1',
      grantEnded: false,
    });
    expect(await vault.refresh(first.refreshToken, 'sbc_x')).toEqual({ status: 'reused', grantId: grant.id });
    expect((await vault.grant(grant.id))?.endedAt).toBeDefined();
    expect(await vault.refresh(second.tokens.refreshToken, 'sbc_x')).toEqual({ status: 'ended' });
    expect(await vault.accessToken(second.tokens.accessToken)).toBeUndefined();
  });

  it('an expired refresh token is refused as expired, and ends nothing', async () => {
    const time = clock();
    const vault = await open({ now: time.now, refreshTokenTtlMs: 60_000 });
    const grant = await vault.createGrant({ clientId: 'sbc_x', subject: 'usr1', tokens: upstreamTokens(1) });
    const issued = await vault.issueTokens({
      grantId: grant.id,
      clientId: 'sbc_x',
      resource: 'http://h/mcp',
      scope: 'mcp',
    });
    time.advance(60_000);
    expect(await vault.refresh(issued.refreshToken, 'sbc_x')).toEqual({ status: 'expired' });
    expect((await vault.grant(grant.id))?.endedAt).toBeUndefined();
  });

  it('replacing upstream tokens bumps the version; ending a grant wipes them, and a late renewal does not put them back', async () => {
    const vault = await open();
    const grant = await vault.createGrant({ clientId: 'sbc_x', subject: 'usr1', tokens: upstreamTokens(1) });
    expect(grant.version).toBe(1);
    const next = { ...upstreamTokens(2), scopes: ['a', 'b'], refreshExpiresAt: Date.UTC(2026, 1, 1) };
    const saved = await vault.saveUpstreamTokens(grant.id, next);
    expect(saved).toMatchObject({
      version: 2,
      upstreamScopes: ['a', 'b'],
      accessExpiresAt: next.expiresAt,
      refreshExpiresAt: next.refreshExpiresAt,
    });
    expect((await vault.upstreamTokens(grant.id))?.accessToken).toBe(next.accessToken);
    // A renewal without a refresh expiry drops the old one.
    const third = upstreamTokens(3);
    expect(await vault.saveUpstreamTokens(grant.id, third)).not.toHaveProperty('refreshExpiresAt');
    await vault.endGrant(grant.id, 'test');
    await vault.endGrant(grant.id, 'ended again');
    expect(await vault.upstreamTokens(grant.id)).toBeUndefined();
    expect(await vault.grant(grant.id)).toMatchObject({ endReason: 'test', version: 3 });
    expect(await vault.saveUpstreamTokens(grant.id, upstreamTokens(4))).toMatchObject({ version: 3 });
    expect(await vault.upstreamTokens(grant.id)).toBeUndefined();
    expect(await vault.saveUpstreamTokens('sbg_unknown', upstreamTokens(5))).toBeUndefined();
  });
});
