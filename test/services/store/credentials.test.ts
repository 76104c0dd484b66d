// The saved login of `switchboard login store` as `serve store` uses it: the file written owner-only and
// atomically, read again only when it changes, refused when others can read it, renewed within five minutes of
// expiry (the rotation seen at the emulator), one renewal for many concurrent calls (in one process and across two),
// a revoked grant turned into a "reconnect" error, STORE_ACCESS_TOKEN winning, and no token in errors or logs.

import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolError } from '../../../src/runtime/errors.js';
import type { ToolCall } from '../../../src/runtime/tool.js';
import {
  credentialsFromLogin,
  REFRESH_BEFORE_MS,
  readCredentialsFile,
  SavedStoreLogin,
  type StoreCredentials,
  storeCredentialsPath,
  writeCredentialsFile,
} from '../../../src/services/store/credentials.js';
import { loginStore } from '../../../src/services/store/login.js';
import { storeConfigFromEnv } from '../../../src/services/store/service.js';
import { CLIENT_SECRET, consent, loginEnv, tempCredentials } from '../../e2e/loginHarness.js';
import { type StoreEmulatorHandle, startStore } from '../../e2e/storeHarness.js';

const CALL: ToolCall = {
  signal: new AbortController().signal,
  toolName: 'StoreApi.ListStoreBases',
  nameStyle: 'dotted',
};
const MINUTE = 60_000;

let upstream: StoreEmulatorHandle;
let grace: { id: string; email: string };
const files: ReturnType<typeof tempCredentials>[] = [];

beforeAll(async () => {
  upstream = await startStore();
  const users = await upstream.state<{ id: string; email: string; name: string }>('users');
  grace = users.find((u) => u.name === 'Grace Hopper') as { id: string; email: string };
});
afterAll(async () => {
  await upstream.close();
  for (const file of files) file.remove();
});
afterEach(() => {
  vi.restoreAllMocks();
});

function tempFile() {
  const file = tempCredentials();
  files.push(file);
  return file;
}

/** A real login against the emulator, the browser part done with fetch; the file it wrote. */
async function login(file = tempFile(), userName = 'Grace Hopper') {
  await loginStore({
    env: loginEnv(upstream.url, file.path),
    openBrowser: async (url) => {
      await consent(url, userName);
    },
    print: () => undefined,
    warn: () => undefined,
  });
  return file;
}

/** A login whose access token has four minutes left (inside the renewal window) on the real clock. */
async function loginNearExpiry() {
  await upstream.send('PUT', '/_emulator/oauth/config', { accessTokenTtlSeconds: 240 });
  try {
    return await login();
  } finally {
    await upstream.send('PUT', '/_emulator/oauth/config', { accessTokenTtlSeconds: 3600 });
  }
}

/** A clock the test moves: `skew` is added to the real time. */
function clock() {
  const state = { skew: 0 };
  return { state, now: () => Date.now() + state.skew };
}

function source(path: string, now?: () => number, extra: { clientSecret?: string; apiUrl?: string } = {}) {
  return new SavedStoreLogin({
    path,
    apiUrl: extra.apiUrl ?? upstream.url,
    clientSecret: 'clientSecret' in extra ? extra.clientSecret : CLIENT_SECRET,
    ...(now ? { now } : {}),
  });
}

async function whoamiStatus(token: string): Promise<number> {
  const res = await fetch(`${upstream.url}/v0/meta/whoami`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await res.body?.cancel();
  return res.status;
}

/** The token-endpoint requests the emulator logged since the last look. */
async function tokenRequests(): Promise<string[]> {
  return (await upstream.requests()).filter((r) => r.path === '/oauth2/v1/token').map((r) => String(r.body));
}

async function caught(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

describe('the credentials file', () => {
  const sample = (): StoreCredentials =>
    credentialsFromLogin({
      tokens: {
        accessToken: 'oaa-sample-access-token',
        refreshToken: 'oar-sample-refresh-token',
        scopes: ['schema.bases:read'],
        expiresAt: Date.parse('2030-01-01T01:00:00Z'),
        refreshExpiresAt: Date.parse('2030-03-01T00:00:00Z'),
      },
      identity: { id: 'usrSample', email: 'sample@example.com' },
      clientId: 'client',
      confidentialClient: true,
      oauthUrl: 'http://127.0.0.1:1/',
      apiUrl: 'http://127.0.0.1:1/',
      now: Date.parse('2030-01-01T00:00:00Z'),
    });

  it('is created 0600 in a new 0700 folder, with what serve needs and nothing else', () => {
    const file = tempFile();
    writeCredentialsFile(file.path, sample());
    expect(file.mode()).toBe(0o600);
    expect(statSync(dirname(file.path)).mode & 0o777).toBe(0o700);
    expect(file.read()).toEqual({
      version: 1,
      service: 'store',
      clientId: 'client',
      confidentialClient: true,
      oauthUrl: 'http://127.0.0.1:1',
      apiUrl: 'http://127.0.0.1:1',
      user: { id: 'usrSample', email: 'sample@example.com' },
      scopes: ['schema.bases:read'],
      accessToken: 'oaa-sample-access-token',
      accessTokenExpiresAt: '2030-01-01T01:00:00.000Z',
      refreshToken: 'oar-sample-refresh-token',
      refreshTokenExpiresAt: '2030-03-01T00:00:00.000Z',
      savedAt: '2030-01-01T00:00:00.000Z',
    });
    expect(readCredentialsFile(file.path)).toEqual(file.read());
  });

  it('is replaced whole (a new file renamed over the old), 0600 even where the old one was not', () => {
    const file = tempFile();
    writeCredentialsFile(file.path, sample());
    chmodSync(file.path, 0o644);
    const before = statSync(file.path).ino;
    writeCredentialsFile(file.path, { ...sample(), accessToken: 'oaa-second-access-token' });
    expect(statSync(file.path).ino).not.toBe(before);
    expect(file.mode()).toBe(0o600);
    expect(file.read().accessToken).toBe('oaa-second-access-token');
    // No temporary file is left beside it.
    expect(readdirSync(dirname(file.path))).toEqual(['store-credentials.json']);
  });

  it('lives in SWITCHBOARD_CREDENTIALS_FILE, else under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(
      storeCredentialsPath({ SWITCHBOARD_CREDENTIALS_FILE: '/x/creds.json', XDG_CONFIG_HOME: '/cfg' }),
    ).toBe('/x/creds.json');
    expect(storeCredentialsPath({ XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/switchboard/store-credentials.json');
    // A relative XDG_CONFIG_HOME is invalid by the XDG spec and ignored.
    expect(storeCredentialsPath({ XDG_CONFIG_HOME: 'cfg' })).toBe(
      join(homedir(), '.config', 'switchboard', 'store-credentials.json'),
    );
    expect(storeCredentialsPath({})).toBe(
      join(homedir(), '.config', 'switchboard', 'store-credentials.json'),
    );
  });

  it('is refused, not used, when other users can read it; a broken file is refused too', async () => {
    const file = await login();
    const saved = source(file.path);
    const token = await saved.token(CALL);
    expect(token).toBe(file.read().accessToken);
    chmodSync(file.path, 0o640);
    await upstream.clearLog();
    const error = await caught(Promise.resolve(saved.token(CALL)));
    expect(error.kind).toBe('missing_secret');
    expect(error.message).toContain('open to other users (mode 0640)');
    expect(error.hint).toContain(`chmod 600 ${file.path}`);
    expect(JSON.stringify(error.toJSON())).not.toContain(file.read().refreshToken);
    expect(() => readCredentialsFile(file.path)).toThrow(/open to other users/);
    chmodSync(file.path, 0o600);
    expect(await saved.token(CALL)).toBe(token);

    writeFileSync(file.path, '{"version": 1, "accessToken": "half a file', { mode: 0o600 });
    const broken = await caught(Promise.resolve(saved.token(CALL)));
    expect(broken.message).toContain('not a credentials file');
    expect(broken.hint).toContain('switchboard login store');
    expect(await tokenRequests()).toEqual([]);
  });

  it('is read again only when it changes', async () => {
    const file = await login();
    const saved = source(file.path);
    const first = await saved.token(CALL);
    // A login in another terminal replaces it; the running server picks the new one up without a restart.
    await login(file, 'Alan Turing');
    const second = await saved.token(CALL);
    expect(second).not.toBe(first);
    expect(second).toBe(file.read().accessToken);
    expect(file.read().user.id).not.toBe(grace.id);
  });
});

describe('renewal', () => {
  it('uses the saved token as it is while more than five minutes remain', async () => {
    const file = await login();
    const { now, state } = clock();
    const saved = source(file.path, now);
    await upstream.clearLog();
    state.skew = 54 * MINUTE; // about six minutes left
    expect(await saved.token(CALL)).toBe(file.read().accessToken);
    expect(await tokenRequests()).toEqual([]);
  });

  it('renews within five minutes of expiry, rotates both tokens and writes them back 0600', async () => {
    const file = await login();
    const before = file.read();
    const { now, state } = clock();
    const saved = source(file.path, now);
    await upstream.clearLog();
    state.skew = Date.parse(before.accessTokenExpiresAt) - Date.now() - REFRESH_BEFORE_MS + 1000;

    const token = await saved.token(CALL);
    expect(await tokenRequests()).toEqual(['grant_type=refresh_token&refresh_token=[redacted]']);
    const after = file.read();
    expect(token).toBe(after.accessToken);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(Date.parse(after.accessTokenExpiresAt)).toBeGreaterThan(Date.parse(before.accessTokenExpiresAt));
    expect(after.user).toEqual(before.user);
    expect(after.scopes).toEqual(before.scopes);
    expect(file.mode()).toBe(0o600);
    // The emulator retired the old access token and accepts the new one as Grace.
    expect(await whoamiStatus(before.accessToken)).toBe(401);
    expect(await whoamiStatus(after.accessToken)).toBe(200);

    // Back to the real time: the new token has an hour, so no renewal.
    state.skew = 0;
    expect(await saved.token(CALL)).toBe(after.accessToken);
    expect(await tokenRequests()).toEqual([]);
  });

  it('renews once for many concurrent calls in one process', async () => {
    const file = await login();
    const { now, state } = clock();
    const saved = source(file.path, now);
    await upstream.clearLog();
    state.skew = 58 * MINUTE;
    const tokens = await Promise.all(Array.from({ length: 12 }, () => saved.token(CALL)));
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).toBe(file.read().accessToken);
    expect(await tokenRequests()).toHaveLength(1);
    expect(await whoamiStatus(tokens[0] as string)).toBe(200);
  });

  it('renews once when two processes share the file (the lock file serialises them)', async () => {
    // The real clock here: the renewed token must look fresh to the process that reads it after the other wrote it.
    const file = await loginNearExpiry();
    const a = source(file.path);
    const b = source(file.path);
    await upstream.clearLog();
    const [ta, tb, tc] = await Promise.all([a.token(CALL), b.token(CALL), b.token(CALL)]);
    expect(ta).toBe(tb);
    expect(tb).toBe(tc);
    // A second use of the rotated refresh token would have revoked the grant; there was only one renewal.
    expect(await tokenRequests()).toHaveLength(1);
    expect(await whoamiStatus(ta as string)).toBe(200);
    expect(readdirSync(dirname(file.path))).toEqual(['store-credentials.json']);
  });

  it('a revoked grant becomes a reconnect error, once; a new login works again', async () => {
    const file = await login();
    const saved = file.read();
    const grants = (
      await upstream.get<{ grants: { id: string; userId: string; revoked: boolean }[] }>(
        '/_emulator/oauth/grants',
      )
    ).grants;
    const grant = grants.filter((g) => g.userId === grace.id && !g.revoked).at(-1);
    await upstream.send('DELETE', `/_emulator/oauth/grants/${grant?.id}`);

    const { now, state } = clock();
    const login1 = source(file.path, now);
    state.skew = 58 * MINUTE;
    await upstream.clearLog();
    const error = await caught(Promise.resolve(login1.token(CALL)));
    expect(error.kind).toBe('unauthorized');
    expect(error.message).toMatch(/connection needs to be renewed/);
    expect(error.hint).toBe('Run `switchboard login store` again.');
    expect(error.retryable).toBe(false);
    const text = JSON.stringify(error.toJSON());
    for (const secret of [saved.accessToken, saved.refreshToken]) expect(text).not.toContain(secret);
    expect(await tokenRequests()).toHaveLength(1);
    // The refused grant is not asked again until the file changes.
    await expect(Promise.resolve(login1.token(CALL))).rejects.toThrow(/renewed/);
    expect(await tokenRequests()).toEqual([]);

    await login(file);
    state.skew = 0;
    expect(await login1.token(CALL)).toBe(file.read().accessToken);
  });

  it('says what to do when a confidential login is renewed without the client secret', async () => {
    const file = await login();
    const { now, state } = clock();
    const saved = source(file.path, now, { clientSecret: undefined });
    state.skew = 58 * MINUTE;
    const error = await caught(Promise.resolve(saved.token(CALL)));
    expect(error.kind).toBe('missing_secret');
    expect(error.hint).toContain('STORE_OAUTH_CLIENT_SECRET');
    // The refresh token was not used up: with the secret, the renewal works.
    expect(await source(file.path, now).token(CALL)).toBe(file.read().accessToken);
  });

  it('rides out a passing failure while the token lasts, and says so retryably once it has expired', async () => {
    const file = await login();
    const before = file.read();
    const { now, state } = clock();
    const saved = source(file.path, now);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await upstream.faults([{ path: '/oauth2/v1/token', kind: 'error', status: 503 }]);
    try {
      state.skew = 58 * MINUTE;
      expect(await saved.token(CALL)).toBe(before.accessToken);
      const warned = stderr.mock.calls.map((c) => String(c[0])).join('');
      expect(warned).toContain('could not renew the saved data store login yet');
      for (const secret of [before.accessToken, before.refreshToken]) expect(warned).not.toContain(secret);

      state.skew = 61 * MINUTE;
      const error = await caught(Promise.resolve(saved.token(CALL)));
      expect(error.kind).toBe('upstream_unavailable');
      expect(error.retryable).toBe(true);
    } finally {
      await upstream.clearFaults();
    }
    expect(await saved.token(CALL)).not.toBe(before.accessToken);
    expect(file.read().refreshToken).not.toBe(before.refreshToken);
  });

  it('never sends the saved token to another API than the one it was issued for', async () => {
    const file = await login();
    const saved = source(file.path, undefined, { apiUrl: 'https://api.elsewhere.example' });
    const error = await caught(Promise.resolve(saved.token(CALL)));
    expect(error.message).toContain(
      `is for ${upstream.url}, but this server calls https://api.elsewhere.example`,
    );
    expect(error.hint).toContain('STORE_BASE_URL');
  });
});

describe('storeConfigFromEnv', () => {
  it('STORE_ACCESS_TOKEN wins (the file is not even read); without it the saved login is used', async () => {
    const file = await login();
    chmodSync(file.path, 0o644);
    const env = { ...loginEnv(upstream.url, file.path), STORE_ACCESS_TOKEN: 'pat-from-the-environment' };
    expect(await storeConfigFromEnv(env).token(CALL)).toBe('pat-from-the-environment');

    const withoutPat = loginEnv(upstream.url, file.path);
    await expect(Promise.resolve(storeConfigFromEnv(withoutPat).token(CALL))).rejects.toThrow(
      /open to other users/,
    );
    chmodSync(file.path, 0o600);
    expect(await storeConfigFromEnv(withoutPat).token(CALL)).toBe(file.read().accessToken);
  });

  it('has no saved login when there is no file, and never beside per-user tokens', async () => {
    const missing = tempFile();
    expect(await storeConfigFromEnv(loginEnv(upstream.url, missing.path)).token(CALL)).toBeUndefined();

    const file = await login();
    const env = loginEnv(upstream.url, file.path);
    // A caller over HTTP who has not connected gets nothing, not the operator's saved account.
    expect(await storeConfigFromEnv(env, { userToken: () => undefined }).token(CALL)).toBeUndefined();
    expect(await storeConfigFromEnv(env, { userToken: () => 'per-user-token' }).token(CALL)).toBe(
      'per-user-token',
    );
    expect(await storeConfigFromEnv(env, { savedToken: undefined }).token(CALL)).toBeUndefined();
  });
});
