// `switchboard login store` as a person runs it, without a browser: the CLI as a child process prints the
// authorization URL, the consent page is driven with fetch, and the loopback callback completes the login. Then
// `serve store` over stdio works with the saved file alone. Also: denial, a stray callback with the wrong state,
// timeout, --status, configuration errors, and that no token, code or secret is ever printed.

import { chmodSync, existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCli, errorOf } from './harness.js';
import { CLIENT_SECRET, consent, loginEnv, spawnLogin, tempCredentials } from './loginHarness.js';
import { type StoreEmulatorHandle, startStore } from './storeHarness.js';

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

function tempFile() {
  const file = tempCredentials();
  files.push(file);
  return file;
}

// Child processes (tsx start-up) on a machine shared with the rest of the suite: a generous limit for each test.
describe('login store --no-browser', { timeout: 60_000 }, () => {
  it('connects Grace through the consent page, saves 0600, prints who, never a token; serve store then uses it', async () => {
    const file = tempFile();
    const login = spawnLogin(['--no-browser'], loginEnv(upstream.url, file.path));
    try {
      const url = new URL(await login.authorizeUrl());
      const callbackUrl = await login.callbackUrl();
      expect(url.origin).toBe(upstream.url);
      expect(url.searchParams.get('client_id')).toBe('sandbox-oauth-client');
      expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl);
      expect(callbackUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(url.searchParams.get('scope')?.split(' ')).toContain('schema.bases:read');

      const { location, callback } = await consent(url.toString(), 'Grace Hopper');
      expect(callback.status).toBe(200);
      expect(callback.html).toContain(`Connected as ${grace.email} (${grace.id})`);
      expect(callback.html).toContain('you can close this tab');
      expect(await login.exited).toBe(0);

      expect(file.mode()).toBe(0o600);
      const saved = file.read();
      expect(saved.user).toEqual({ id: grace.id, email: grace.email });
      expect(saved.clientId).toBe('sandbox-oauth-client');
      expect(saved.confidentialClient).toBe(true);
      expect(saved.oauthUrl).toBe(upstream.url);
      expect(saved.apiUrl).toBe(upstream.url);
      expect(Date.parse(saved.accessTokenExpiresAt) - Date.now()).toBeGreaterThan(55 * 60_000);

      const printed = login.stdout() + login.stderr();
      expect(login.stdout()).toContain(`Connected to the data store as ${grace.email} (${grace.id}).`);
      expect(login.stdout()).toContain(`Saved to ${file.path}`);
      const code = location.searchParams.get('code') as string;
      for (const secret of [saved.accessToken, saved.refreshToken, code, CLIENT_SECRET]) {
        expect(printed).not.toContain(secret);
      }
      // Nor did any of them reach the emulator's request log.
      const log = JSON.stringify(await upstream.requests());
      for (const secret of [saved.accessToken, saved.refreshToken, code, CLIENT_SECRET]) {
        expect(log).not.toContain(secret);
      }
    } finally {
      await login.stop();
    }

    // `serve store` over stdio, with the file and no STORE_ACCESS_TOKEN, acts as Grace.
    const mcp = await connectCli(['serve', 'store'], {
      STORE_BASE_URL: upstream.url,
      SWITCHBOARD_CREDENTIALS_FILE: file.path,
      SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
    });
    try {
      const me = await mcp.call('StoreApi.RetrieveUserIdAndScopes');
      expect(me.isError).toBe(false);
      expect(me.structured.id).toBe(grace.id);
      const bases = await mcp.call('StoreApi.ListStoreBases');
      expect((bases.structured.bases as { name: string }[]).map((b) => b.name)).toEqual([
        'Product Roadmap',
        'Sales CRM',
      ]);
      const text = me.text + bases.text;
      expect(text).not.toContain(file.read().accessToken);

      // Opened up to other users while the server runs: refused on the next call, with the fix in the hint.
      chmodSync(file.path, 0o644);
      const refused = await mcp.call('StoreApi.ListStoreBases');
      expect(errorOf(refused).kind).toBe('missing_secret');
      expect(errorOf(refused).message).toContain('open to other users (mode 0644)');
      expect(errorOf(refused).hint).toContain(`chmod 600 ${file.path}`);
      chmodSync(file.path, 0o600);
      expect((await mcp.call('StoreApi.ListStoreBases')).isError).toBe(false);
    } finally {
      await mcp.close();
    }

    const status = spawnLogin(['--status'], loginEnv(upstream.url, file.path));
    expect(await status.exited).toBe(0);
    expect(status.stdout()).toContain(`Connected to the data store as ${grace.email} (${grace.id}).`);
    expect(status.stdout()).toContain(`File: ${file.path}`);
    expect(status.stdout()).not.toContain(file.read().accessToken);
  });

  it('denied in the browser: an error page, a non-zero exit with a clear message, and no file', async () => {
    const file = tempFile();
    const login = spawnLogin(['--no-browser'], loginEnv(upstream.url, file.path));
    try {
      const { location, callback } = await consent(await login.authorizeUrl(), 'Grace Hopper', 'deny');
      expect(location.searchParams.get('error')).toBe('access_denied');
      expect(callback.status).toBe(400);
      expect(callback.html).toContain('Access not granted');
      expect(await login.exited).toBe(1);
      expect(login.stderr()).toContain('Access was not granted in the browser, so nothing was saved.');
      expect(login.stderr()).toContain('switchboard login store');
      expect(existsSync(file.path)).toBe(false);
    } finally {
      await login.stop();
    }
  });

  it('refuses a callback with another state, keeps waiting, and finishes with the right one', async () => {
    const file = tempFile();
    const login = spawnLogin(['--no-browser'], loginEnv(upstream.url, file.path));
    try {
      const authorizeUrl = await login.authorizeUrl();
      const callbackUrl = await login.callbackUrl();
      const forged = await fetch(`${callbackUrl}?code=attacker-code&state=not-the-state`);
      expect(forged.status).toBe(400);
      expect(await forged.text()).toContain('does not belong to the login');
      const stateless = await fetch(`${callbackUrl}?code=attacker-code`);
      expect(stateless.status).toBe(400);
      await stateless.body?.cancel();
      const elsewhere = await fetch(new URL('/favicon.ico', callbackUrl));
      expect(elsewhere.status).toBe(404);
      await elsewhere.body?.cancel();
      expect(existsSync(file.path)).toBe(false);
      expect(login.child.exitCode).toBeNull();
      // The attacker's code never reached the token endpoint.
      expect((await upstream.requests()).filter((r) => r.path === '/oauth2/v1/token')).toEqual([]);

      const { callback } = await consent(authorizeUrl, 'Grace Hopper');
      expect(callback.status).toBe(200);
      expect(await login.exited).toBe(0);
      expect(login.stderr()).toContain('Refused a browser callback whose state does not match this login');
      expect(file.read().user.id).toBe(grace.id);
      // A second answer after the login finished changes nothing (the listener is gone).
      await expect(fetch(`${callbackUrl}?code=x&state=y`)).rejects.toThrow();
    } finally {
      await login.stop();
    }
  });

  it('gives up after --timeout with a clear message and no file', async () => {
    const file = tempFile();
    const login = spawnLogin(['--no-browser', '--timeout', '1'], loginEnv(upstream.url, file.path));
    expect(await login.exited).toBe(1);
    expect(login.stdout()).toContain('Waiting up to 1 second');
    expect(login.stderr()).toContain('No answer from the browser within 1 second, so nothing was saved.');
    expect(existsSync(file.path)).toBe(false);
  });

  it('says what to configure, and refuses services that have no login', async () => {
    const file = tempFile();
    const noClient = spawnLogin(['--no-browser'], {
      STORE_BASE_URL: upstream.url,
      SWITCHBOARD_CREDENTIALS_FILE: file.path,
    });
    expect(await noClient.exited).toBe(1);
    expect(noClient.stderr()).toContain('Set STORE_OAUTH_CLIENT_ID');

    const status = spawnLogin(['--status'], loginEnv(upstream.url, file.path));
    expect(await status.exited).toBe(1);
    expect(status.stdout()).toContain(`Not connected: there is no saved login at ${file.path}`);

    const other = spawnLogin([], loginEnv(upstream.url, file.path), 'issuedesk');
    expect(await other.exited).toBe(1);
    expect(other.stderr()).toContain('Only the store has a login');
    expect(other.stderr()).toContain('takes its API credentials from the environment');
  });
});

describe('serve store without any token', { timeout: 60_000 }, () => {
  it('says to run `switchboard login store` (or set STORE_ACCESS_TOKEN)', async () => {
    const file = tempFile();
    const mcp = await connectCli(['serve', 'store'], {
      STORE_BASE_URL: upstream.url,
      SWITCHBOARD_CREDENTIALS_FILE: file.path,
    });
    try {
      const result = await mcp.call('StoreApi.ListStoreBases');
      expect(errorOf(result).kind).toBe('missing_secret');
      expect(errorOf(result).message).toContain('there is no saved login');
      expect(errorOf(result).hint).toContain('`switchboard login store`');
      expect(errorOf(result).hint).toContain('STORE_ACCESS_TOKEN');
    } finally {
      await mcp.close();
    }
  });
});
