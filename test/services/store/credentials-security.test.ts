// An adversarial review of the stdio side of per-user OAuth: `switchboard login store`'s loopback listener (RFC 8252
// §7.3 and §8.3: bound to the loopback IP literal only; one answer, with this login's state, over GET /callback;
// gone afterwards; nothing it shows can inject markup) and the credentials file (refused when another user owns it,
// and written by replacing the path, never through a link planted there). The store is faked through the login's
// own `fetch` option, so nothing leaves the machine.
//
// Tests marked "(fixed)" failed before the fix beside them.

import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/runtime/errors.js';
import type { ToolCall } from '../../../src/runtime/tool.js';
import {
  credentialsFromLogin,
  readCredentialsFile,
  SavedStoreLogin,
  type StoreCredentials,
  writeCredentialsFile,
} from '../../../src/services/store/credentials.js';
import { type LoginError, loginStore } from '../../../src/services/store/login.js';

const STORE = 'http://store.invalid';
const CALL: ToolCall = {
  signal: new AbortController().signal,
  toolName: 'StoreApi.ListStoreBases',
  nameStyle: 'dotted',
};

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-credsec-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The store's token endpoint and whoami, answered in-process; every token it issued is kept. */
function fakeStore() {
  const issued: string[] = [];
  const requests: string[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    requests.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    if (url.pathname === '/oauth2/v1/token') {
      const access = `oaa-${randomBytes(12).toString('hex')}`;
      const refresh = `oar-${randomBytes(12).toString('hex')}`;
      issued.push(access, refresh);
      return Response.json({
        access_token: access,
        refresh_token: refresh,
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'schema.bases:read',
      });
    }
    if (url.pathname === '/v0/meta/whoami')
      return Response.json({ id: 'usrGrace', email: 'grace@example.com' });
    return new Response('not found', { status: 404 });
  };
  return { fetch: fetchImpl, issued, requests };
}

function env(path: string): NodeJS.ProcessEnv {
  return {
    STORE_OAUTH_CLIENT_ID: 'client',
    STORE_OAUTH_CLIENT_SECRET: 'client-secret-value',
    STORE_BASE_URL: STORE,
    SWITCHBOARD_CREDENTIALS_FILE: path,
  };
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(2000, () => done(false));
  });
}

/**
 * A login whose "browser" is `browse`: it gets the authorization URL and the callback URL it names, and does what a
 * browser (or an attacker on the machine) would. Resolves with the login's outcome.
 */
async function loginWith(
  browse: (authorize: URL, callback: URL, store: ReturnType<typeof fakeStore>) => Promise<void>,
) {
  const path = join(tempDir(), 'switchboard', 'store-credentials.json');
  const store = fakeStore();
  const warnings: string[] = [];
  const outcome = loginStore({
    env: env(path),
    fetch: store.fetch,
    timeoutMs: 15_000,
    print: () => undefined,
    warn: (line) => warnings.push(line),
    openBrowser: async (url) => {
      const authorize = new URL(url);
      await browse(authorize, new URL(authorize.searchParams.get('redirect_uri') ?? ''), store);
    },
  });
  const result = await outcome.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { result, path, store, warnings };
}

/** The store's redirect back, as the browser would follow it. */
function answer(callback: URL, params: Record<string, string>): Promise<Response> {
  const url = new URL(callback);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return fetch(url, { redirect: 'manual' });
}

describe('the loopback listener of `login store` (RFC 8252 §7.3, §8.3; RFC 6749 §10.12)', () => {
  it('listens on 127.0.0.1 only: not on ::1, nor on the machine’s other addresses', async () => {
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i !== undefined && !i.internal && i.family === 'IPv4')
      .map((i) => i?.address as string);
    const seen: Record<string, boolean> = {};
    const { result } = await loginWith(async (authorize, callback) => {
      expect(callback.hostname).toBe('127.0.0.1');
      const port = Number(callback.port);
      seen['127.0.0.1'] = await accepts('127.0.0.1', port);
      seen['::1'] = await accepts('::1', port);
      for (const address of others) seen[address] = await accepts(address, port);
      await (await answer(callback, { code: 'c', state: authorize.searchParams.get('state') ?? '' })).text();
    });
    expect(result.ok).toBe(true);
    expect(seen['127.0.0.1']).toBe(true);
    for (const [address, accepted] of Object.entries(seen)) {
      if (address !== '127.0.0.1') expect(accepted, address).toBe(false);
    }
  });

  it('answers only GET /callback with this login’s state; everything else is refused and the login goes on; then it is gone', async () => {
    const statuses: Record<string, number> = {};
    let callbackUrl: URL | undefined;
    const { result, path, store, warnings } = await loginWith(async (authorize, callback, upstream) => {
      callbackUrl = callback;
      const state = authorize.searchParams.get('state') ?? '';
      const base = `${callback.origin}`;
      const query = `?code=attacker-code&state=${state}`;
      for (const [name, url, init] of [
        ['POST /callback', `${base}/callback${query}`, { method: 'POST' }],
        ['PUT /callback', `${base}/callback${query}`, { method: 'PUT' }],
        ['GET /callback/', `${base}/callback/${query}`, {}],
        ['GET /CALLBACK', `${base}/CALLBACK${query}`, {}],
        ['GET /other', `${base}/other${query}`, {}],
        ['GET /callback no state', `${base}/callback?code=attacker-code`, {}],
        ['GET /callback empty state', `${base}/callback?code=attacker-code&state=`, {}],
        [
          'GET /callback near state',
          `${base}/callback?code=attacker-code&state=${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`,
          {},
        ],
        ['GET /callback longer state', `${base}/callback?code=attacker-code&state=${state}x`, {}],
      ] as const) {
        const response = await fetch(url, { ...init, redirect: 'manual' });
        await response.text();
        statuses[name] = response.status;
      }
      // None of those reached the store, nor ended the login: the real answer still completes it.
      expect(upstream.requests).toEqual([]);
      const own = await answer(callback, { code: 'real-code', state });
      expect(own.status).toBe(200);
      await own.text();
      // One answer only.
      const again = await answer(callback, { code: 'real-code', state });
      await again.text();
      statuses.again = again.status;
    });
    expect(result.ok).toBe(true);
    for (const name of ['POST /callback', 'PUT /callback', 'GET /callback/', 'GET /CALLBACK', 'GET /other']) {
      expect(statuses[name], name).toBe(404);
    }
    for (const name of [
      'GET /callback no state',
      'GET /callback empty state',
      'GET /callback near state',
      'GET /callback longer state',
    ]) {
      expect(statuses[name], name).toBe(400);
    }
    expect(statuses.again).toBe(409);
    expect(warnings.length).toBe(4);
    expect(store.requests).toEqual(['POST /oauth2/v1/token', 'GET /v0/meta/whoami']);
    expect(readCredentialsFile(path)?.user.id).toBe('usrGrace');
    // The listener is closed once the login is over.
    expect(await accepts('127.0.0.1', Number(callbackUrl?.port))).toBe(false);
  });

  it('shows a hostile error from the store as text, saves nothing, and never prints a secret', async () => {
    let html = '';
    let headers: Headers | undefined;
    const { result, path, store } = await loginWith(async (authorize, callback) => {
      const response = await answer(callback, {
        state: authorize.searchParams.get('state') ?? '',
        error: '<script>alert(1)</script>',
        error_description: '"><img src=x onerror=alert(1)>',
      });
      headers = response.headers;
      html = await response.text();
    });
    expect(result.ok).toBe(false);
    expect(result.ok ? undefined : (result.error as LoginError).kind).toBe('refused');
    expect(html).not.toMatch(/<script>|<img/);
    expect(html).toContain('&lt;script&gt;');
    expect(headers?.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(headers?.get('referrer-policy')).toBe('no-referrer');
    expect(headers?.get('cache-control')).toBe('no-store');
    expect(store.requests).toEqual([]);
    expect(() => readFileSync(path)).toThrow();
  });

  it('the page after a good login names who connected, never a token, and is neither cached nor referred', async () => {
    let html = '';
    let headers: Headers | undefined;
    const { result, path, store } = await loginWith(async (authorize, callback) => {
      const response = await answer(callback, {
        state: authorize.searchParams.get('state') ?? '',
        code: 'the-code',
      });
      headers = response.headers;
      html = await response.text();
    });
    expect(result.ok).toBe(true);
    expect(html).toContain('grace@example.com');
    for (const secret of [...store.issued, 'the-code', 'client-secret-value']) {
      expect(html).not.toContain(secret);
    }
    expect(headers?.get('cache-control')).toBe('no-store');
    expect(headers?.get('referrer-policy')).toBe('no-referrer');
    expect(readCredentialsFile(path)?.accessToken).toBe(store.issued[0]);
  });
});

describe('the credentials file', () => {
  const sample = (): StoreCredentials =>
    credentialsFromLogin({
      tokens: {
        accessToken: 'oaa-sample-access-token',
        refreshToken: 'oar-sample-refresh-token',
        scopes: ['schema.bases:read'],
        expiresAt: Date.now() + 3600_000,
      },
      identity: { id: 'usrSample' },
      clientId: 'client',
      confidentialClient: true,
      oauthUrl: STORE,
      apiUrl: STORE,
    });

  // Only root can hand a file to another user, and only a privileged process can read another user's 0600 file.
  it.runIf(process.getuid?.() === 0)(
    '(fixed) is refused when another user owns it, even at 0600: its owner could point renewals anywhere',
    async () => {
      const dir = tempDir();
      const path = join(dir, 'store-credentials.json');
      // The other user's version: their own store, which renewals would send the client secret to.
      writeCredentialsFile(path, { ...sample(), oauthUrl: 'https://attacker.example' });
      chownSync(path, 65534, 65534);
      expect(() => readCredentialsFile(path)).toThrow(/belongs to another user \(uid 65534\)/);
      const requests: string[] = [];
      const saved = new SavedStoreLogin({
        path,
        apiUrl: STORE,
        clientSecret: 'client-secret-value',
        now: () => Date.now() + 3600_000,
        fetch: async (input) => {
          requests.push(String(input));
          return new Response('{}', { status: 500 });
        },
      });
      const error = await Promise.resolve(saved.token(CALL)).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).message).toContain('belongs to another user');
      expect(JSON.stringify((error as ToolError).toJSON())).not.toContain('oar-sample-refresh-token');
      expect(requests).toEqual([]);
      // Root's own files (and a user's own) are fine.
      chownSync(path, 0, 0);
      expect(readCredentialsFile(path)?.user.id).toBe('usrSample');
    },
  );

  it('is written by replacing the path: a link planted there is replaced, its target untouched', () => {
    const dir = tempDir();
    const folder = join(dir, 'switchboard');
    mkdirSync(folder, { mode: 0o700 });
    const target = join(dir, 'somewhere-else.txt');
    writeFileSync(target, 'not yours to overwrite\n', { mode: 0o644 });
    const path = join(folder, 'store-credentials.json');
    symlinkSync(target, path);
    writeCredentialsFile(path, sample());
    expect(readFileSync(target, 'utf8')).toBe('not yours to overwrite\n');
    const stats = lstatSync(path);
    expect(stats.isSymbolicLink()).toBe(false);
    expect(stats.mode & 0o777).toBe(0o600);
    expect(readCredentialsFile(path)?.user.id).toBe('usrSample');
    // No temporary file is left beside it.
    expect(readdirSync(folder)).toEqual(['store-credentials.json']);
  });

  it('a link to a file others can read is judged by that file: refused', () => {
    const dir = tempDir();
    const target = join(dir, 'shared.json');
    writeCredentialsFile(target, sample());
    const path = join(dir, 'store-credentials.json');
    symlinkSync(target, path);
    expect(readCredentialsFile(path)?.user.id).toBe('usrSample');
    chmodSync(target, 0o644);
    expect(() => readCredentialsFile(path)).toThrow(/open to other users/);
  });
});
