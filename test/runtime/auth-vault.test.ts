// The per-user OAuth vault: sealing (AES-256-GCM bound to row and column), the data key (from the environment,
// or generated owner-only into the data folder), a database opened with another key refused, single-use codes and
// handles, rotating refresh tokens with reuse detection, and no secret at rest in the clear.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AuthSetupError,
  AuthVault,
  loadSecretKey,
  Sealer,
  sha256,
  type UpstreamTokenSet,
} from '../../src/runtime/auth/vault.js';

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

describe('AuthVault', () => {
  it('refuses a database sealed with another key, naming both ways out', () => {
    const path = join(tempDir(), 'auth.db');
    new AuthVault(path, randomBytes(32)).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(() => new AuthVault(path, randomBytes(32))).toThrow(
      /sealed with another key.*SWITCHBOARD_SECRET_KEY.*move .*auth\.db away/s,
    );
  });

  it('keeps upstream tokens sealed and hashes of everything it issues, never the values', () => {
    const path = join(tempDir(), 'auth.db');
    const key = randomBytes(32);
    const vault = new AuthVault(path, key);
    const client = vault.registerClient({ redirectUris: ['http://127.0.0.1:1/cb'], metadata: {} });
    const tokens = upstreamTokens(1);
    const grant = vault.createGrant({ clientId: client.id, subject: 'usrGrace', tokens });
    const code = vault.issueCode({
      grantId: grant.id,
      clientId: client.id,
      redirectUri: 'http://127.0.0.1:1/cb',
      codeChallenge: 'c'.repeat(43),
      resource: 'http://127.0.0.1:9/mcp',
      scope: 'mcp',
    });
    const ours = vault.issueTokens({
      grantId: grant.id,
      clientId: client.id,
      resource: 'http://127.0.0.1:9/mcp',
      scope: 'mcp',
    });
    const pending = vault.createPending(
      {
        clientId: client.id,
        redirectUri: 'http://127.0.0.1:1/cb',
        codeChallenge: 'c'.repeat(43),
        resource: 'http://127.0.0.1:9/mcp',
        scope: 'mcp',
      },
      sha256('browser'),
    );
    const state = vault.createUpstreamAuthorization(
      vault.takePending(pending, sha256('browser'))!,
      'upstream-verifier-value-0123456789-abcdefghijklmnop',
    );
    expect(vault.upstreamTokens(grant.id)).toMatchObject({
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
    });
    vault.close();
    const bytes = ['auth.db', 'auth.db-wal']
      .map((f) => join(path, '..', f))
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f).toString('latin1'))
      .join('');
    for (const secret of [
      tokens.accessToken,
      tokens.refreshToken,
      code,
      ours.accessToken,
      ours.refreshToken,
      pending,
      state,
      'upstream-verifier-value-0123456789-abcdefghijklmnop',
      key.toString('base64'),
    ]) {
      expect(bytes.includes(secret), secret.slice(0, 8)).toBe(false);
    }
    expect(bytes).toContain(sha256(ours.accessToken));
    expect(bytes).toContain('usrGrace');
  });

  it('a consent handle works once, in the browser it was given to, before it expires', () => {
    const time = clock();
    const vault = new AuthVault(':memory:', randomBytes(32), { now: time.now });
    const request = {
      clientId: 'sbc_x',
      redirectUri: 'http://127.0.0.1:1/cb',
      codeChallenge: 'c'.repeat(43),
      resource: 'r',
      scope: 'mcp',
    };
    const handle = vault.createPending(request, sha256('browser-a'));
    expect(vault.takePending(handle, sha256('browser-b'))).toBeUndefined();
    expect(vault.takePending(handle, sha256('browser-a'))).toMatchObject(request);
    expect(vault.takePending(handle, sha256('browser-a'))).toBeUndefined();
    const late = vault.createPending(request, sha256('browser-a'));
    time.advance(10 * 60 * 1000 + 1);
    expect(vault.takePending(late, sha256('browser-a'))).toBeUndefined();
  });

  it('an upstream authorization keeps the request and its verifier, for the same browser, once, stage by stage', () => {
    const time = clock();
    const vault = new AuthVault(':memory:', randomBytes(32), { now: time.now });
    const request = {
      clientId: 'sbc_x',
      redirectUri: 'http://127.0.0.1:1/cb',
      clientState: 'client-state-1',
      codeChallenge: 'c'.repeat(43),
      resource: 'r',
      scope: 'mcp',
    };
    const browser = sha256('browser-a');
    const handle = vault.createPending(request, browser);
    // A consent handle is no upstream state, and trying it as one does not use it up.
    expect(vault.takeUpstreamAuthorization(handle, browser)).toBeUndefined();
    const pending = vault.takePending(handle, browser)!;
    expect(pending).toMatchObject({ ...request, browserHash: browser });
    const state = vault.createUpstreamAuthorization(pending, 'upstream-verifier-1');
    expect(vault.peekUpstreamAuthorization(state)).toMatchObject(request);
    expect(vault.takePending(state, browser)).toBeUndefined();
    expect(vault.takeUpstreamAuthorization(state, sha256('browser-b'))).toBeUndefined();
    expect(vault.takeUpstreamAuthorization(state, browser)).toMatchObject({
      ...request,
      browserHash: browser,
      upstreamVerifier: 'upstream-verifier-1',
    });
    expect(vault.takeUpstreamAuthorization(state, browser)).toBeUndefined();
    const late = vault.createUpstreamAuthorization(pending, 'upstream-verifier-2');
    time.advance(10 * 60 * 1000 + 1);
    expect(vault.peekUpstreamAuthorization(late)).toBeUndefined();
    expect(vault.takeUpstreamAuthorization(late, browser)).toBeUndefined();
  });

  it('a code works once; a second use ends the grant and the tokens the first one issued', () => {
    const time = clock();
    const vault = new AuthVault(':memory:', randomBytes(32), { now: time.now });
    const grant = vault.createGrant({ clientId: 'sbc_x', subject: 'usr1', tokens: upstreamTokens(1) });
    const input = {
      grantId: grant.id,
      clientId: 'sbc_x',
      redirectUri: 'http://127.0.0.1:1/cb',
      codeChallenge: 'c'.repeat(43),
      resource: 'http://h/mcp',
      scope: 'mcp',
    };
    const code = vault.issueCode(input);
    const first = vault.redeemCode(code);
    expect(first).toEqual({ status: 'ok', code: input });
    const issued = vault.issueTokens({
      grantId: grant.id,
      clientId: 'sbc_x',
      resource: 'http://h/mcp',
      scope: 'mcp',
    });
    expect(vault.accessToken(issued.accessToken)).toMatchObject({ subject: 'usr1', grantEnded: false });
    expect(vault.redeemCode(code)).toEqual({ status: 'reused', grantId: grant.id });
    expect(vault.grant(grant.id)).toMatchObject({ endReason: 'authorization code used twice' });
    expect(vault.accessToken(issued.accessToken)).toBeUndefined();
    expect(vault.upstreamTokens(grant.id)).toBeUndefined();
    expect(vault.redeemCode('sb_ac_unknown')).toEqual({ status: 'unknown' });
    const late = vault.issueCode(input);
    time.advance(5 * 60 * 1000 + 1);
    expect(vault.redeemCode(late)).toEqual({ status: 'expired' });
  });

  it('refresh tokens rotate; presenting a rotated one ends the grant (reuse detection)', () => {
    const vault = new AuthVault(':memory:', randomBytes(32));
    const grant = vault.createGrant({ clientId: 'sbc_x', subject: 'usr1', tokens: upstreamTokens(1) });
    const first = vault.issueTokens({
      grantId: grant.id,
      clientId: 'sbc_x',
      resource: 'http://h/mcp',
      scope: 'mcp',
    });
    expect(vault.refresh(first.refreshToken, 'sbc_other')).toEqual({ status: 'wrong_client' });
    expect(vault.refresh(first.refreshToken, 'sbc_x', () => false)).toEqual({ status: 'wrong_resource' });
    const second = vault.refresh(first.refreshToken, 'sbc_x');
    if (second.status !== 'ok') throw new Error(second.status);
    expect(second.tokens.refreshToken).not.toBe(first.refreshToken);
    // The access token that came with the old refresh token is retired with it.
    expect(vault.accessToken(first.accessToken)).toBeUndefined();
    expect(vault.accessToken(second.tokens.accessToken)).toMatchObject({ grantId: grant.id });
    expect(vault.refresh(first.refreshToken, 'sbc_x')).toEqual({ status: 'reused', grantId: grant.id });
    expect(vault.grant(grant.id)?.endedAt).toBeDefined();
    expect(vault.refresh(second.tokens.refreshToken, 'sbc_x')).toEqual({ status: 'ended' });
    expect(vault.accessToken(second.tokens.accessToken)).toBeUndefined();
  });

  it('replacing upstream tokens bumps the version; ending a grant wipes them', () => {
    const vault = new AuthVault(':memory:', randomBytes(32));
    const grant = vault.createGrant({ clientId: 'sbc_x', subject: 'usr1', tokens: upstreamTokens(1) });
    expect(grant.version).toBe(1);
    const next = upstreamTokens(2);
    expect(vault.saveUpstreamTokens(grant.id, next)?.version).toBe(2);
    expect(vault.upstreamTokens(grant.id)?.accessToken).toBe(next.accessToken);
    vault.endGrant(grant.id, 'test');
    expect(vault.upstreamTokens(grant.id)).toBeUndefined();
    expect(vault.grant(grant.id)).toMatchObject({ endReason: 'test' });
  });
});
