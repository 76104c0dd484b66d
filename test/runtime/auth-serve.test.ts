// `serve --transport http` and its protection: bound to anything but loopback it refuses to start unless the MCP
// endpoint is protected (per-user OAuth, or a static bearer token), and the refusal names both ways; settings that
// contradict each other are refused with what to unset; OAuth mode needs an https public URL off loopback, makes
// (or takes) the sealing key, and refuses a database sealed with another key.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ServeOptions, startServe } from '../../src/cli/serve.js';

const options = (extra: Partial<ServeOptions> = {}): ServeOptions => ({
  transport: 'http',
  host: '127.0.0.1',
  port: 0,
  sandbox: false,
  reset: false,
  readOnly: false,
  toolNames: 'dotted',
  ...extra,
});

const OAUTH = {
  STORE_OAUTH_CLIENT_ID: 'sandbox-oauth-client',
  STORE_OAUTH_CLIENT_SECRET: 'sandbox-oauth-secret',
  SWITCHBOARD_DATA_DIR: ':memory:',
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

let stderr: string[] = [];
const realWrite = process.stderr.write.bind(process.stderr);
beforeEach(() => {
  stderr = [];
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stderr.write;
});
afterEach(() => {
  process.stderr.write = realWrite;
});

describe('refusals before anything starts', () => {
  it('a non-loopback address without protection, naming both ways to protect it', async () => {
    const refusal = startServe(['issuedesk'], options({ host: '0.0.0.0' }), {});
    await expect(refusal).rejects.toThrow(/^Refusing to serve on 0\.0\.0\.0 without protection/);
    const message = await refusal.catch((e: Error) => e.message);
    for (const name of [
      'SWITCHBOARD_HTTP_TOKEN',
      'STORE_OAUTH_CLIENT_ID',
      'STORE_OAUTH_CLIENT_SECRET',
      'SWITCHBOARD_PUBLIC_URL',
    ]) {
      expect(message).toContain(name);
    }
  });

  it('per-user OAuth beside one shared STORE_ACCESS_TOKEN, saying which to unset', async () => {
    await expect(
      startServe(['store'], options(), { ...OAUTH, STORE_ACCESS_TOKEN: 'pat-shared-token' }),
    ).rejects.toThrow(
      /STORE_OAUTH_CLIENT_ID and STORE_ACCESS_TOKEN are both set.*unset STORE_ACCESS_TOKEN for per-user OAuth, or unset STORE_OAUTH_CLIENT_ID/s,
    );
  });

  it('per-user OAuth beside the static bearer token', async () => {
    await expect(
      startServe(['store'], options(), { ...OAUTH, SWITCHBOARD_HTTP_TOKEN: 'team-secret-123456' }),
    ).rejects.toThrow(/SWITCHBOARD_HTTP_TOKEN and STORE_OAUTH_CLIENT_ID are both set/);
  });

  it('per-user OAuth off loopback without an https public URL', async () => {
    await expect(startServe(['store'], options({ host: '0.0.0.0' }), OAUTH)).rejects.toThrow(
      /Per-user OAuth on 0\.0\.0\.0 needs SWITCHBOARD_PUBLIC_URL/,
    );
    await expect(
      startServe(['store'], options({ host: '0.0.0.0' }), {
        ...OAUTH,
        SWITCHBOARD_PUBLIC_URL: 'http://switchboard.example.com',
      }),
    ).rejects.toThrow(/SWITCHBOARD_PUBLIC_URL must use https/);
    await expect(
      startServe(['store'], options(), {
        ...OAUTH,
        SWITCHBOARD_PUBLIC_URL: 'https://switchboard.example.com/prefix',
      }),
    ).rejects.toThrow(/must be an origin only/);
  });

  it('a store redirect URL off the public origin (the sign-in cookie would not come back) or on a taken path', async () => {
    await expect(
      startServe(['store'], options(), {
        ...OAUTH,
        STORE_OAUTH_REDIRECT_URL: 'https://elsewhere.example/callback',
      }),
    ).rejects.toThrow(
      /STORE_OAUTH_REDIRECT_URL \(https:\/\/elsewhere\.example\/callback\) must be on the server's public origin/,
    );
    await expect(
      startServe(['store'], options(), {
        ...OAUTH,
        SWITCHBOARD_PUBLIC_URL: 'http://127.0.0.1:1',
        STORE_OAUTH_REDIRECT_URL: 'http://127.0.0.1:1/mcp',
      }),
    ).rejects.toThrow(/path \/mcp is taken/);
  });

  it('a malformed SWITCHBOARD_SECRET_KEY', async () => {
    await expect(
      startServe(['store'], options(), { ...OAUTH, SWITCHBOARD_SECRET_KEY: 'too-short' }),
    ).rejects.toThrow(/SWITCHBOARD_SECRET_KEY must be 32 random bytes in base64/);
  });
});

describe('OAuth counts as protection', () => {
  it('on 0.0.0.0 with an https public URL: starts, advertises the public URL, and refuses requests without a token', async () => {
    const serve = await startServe(['issuedesk', 'store'], options({ host: '0.0.0.0' }), {
      ...OAUTH,
      SWITCHBOARD_PUBLIC_URL: 'https://switchboard.example.com/',
    });
    try {
      expect(serve.url).toBe('https://switchboard.example.com/mcp');
      expect(serve.protection).toMatchObject({ kind: 'oauth', issuer: 'https://switchboard.example.com' });
      const banner = stderr.join('');
      expect(banner).toMatch(
        /Protection: OAuth: each person signs in through the data store \(https:\/\/airtable\.com\)/,
      );
      expect(banner).toContain('MCP endpoint (Streamable HTTP): https://switchboard.example.com/mcp');
      const local = new URL((serve.boundUrl as string).replace('0.0.0.0', '127.0.0.1'));
      const metadata = await (await fetch(`${local.origin}/.well-known/oauth-protected-resource/mcp`)).json();
      expect(metadata).toMatchObject({
        resource: 'https://switchboard.example.com/mcp',
        authorization_servers: ['https://switchboard.example.com'],
      });
      const refused = await fetch(local, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(
        'Bearer resource_metadata="https://switchboard.example.com/.well-known/oauth-protected-resource/mcp"',
      );
    } finally {
      await serve.close();
    }
  });

  it('the banner says which protection is on, for each kind', async () => {
    const open = await startServe(['issuedesk'], options(), {});
    await open.close();
    expect(stderr.join('')).toMatch(/Protection: none beyond loopback/);
    stderr = [];
    const bearer = await startServe(['issuedesk'], options(), {
      SWITCHBOARD_HTTP_TOKEN: 'team-secret-123456',
    });
    await bearer.close();
    expect(stderr.join('')).toMatch(/Protection: static bearer token \(SWITCHBOARD_HTTP_TOKEN\)/);
    expect(stderr.join('')).not.toContain('team-secret-123456');
  });

  it('in the sandbox, people sign in through the store emulator', async () => {
    const serve = await startServe(['store'], options({ sandbox: true, dataDir: ':memory:' }), {
      STORE_OAUTH_CLIENT_ID: 'sandbox-oauth-client',
      STORE_OAUTH_CLIENT_SECRET: 'sandbox-oauth-secret',
    });
    try {
      expect(serve.protection).toMatchObject({
        kind: 'oauth',
        upstream: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      });
      const origin = new URL(serve.url as string).origin;
      const metadata = (await (
        await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)
      ).json()) as Record<string, unknown>;
      expect(metadata.resource).toBe(`${origin}/mcp`);
      const refused = await fetch(serve.url as string, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.status).toBe(401);
    } finally {
      await serve.close();
    }
  });
});

describe('the sealing key', () => {
  it('is generated owner-only into the data folder when not configured, and said so without showing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-serve-'));
    dirs.push(dir);
    const serve = await startServe(['store'], options(), { ...OAUTH, SWITCHBOARD_DATA_DIR: dir });
    await serve.close();
    const keyFile = join(dir, 'secret.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'auth.db')).mode & 0o777).toBe(0o600);
    const log = stderr.join('');
    expect(log).toMatch(/generated a new key for sealing stored tokens/);
    expect(log).toContain(keyFile);
    expect(log).not.toContain(readFileSync(keyFile, 'utf8').trim());
    // The next start reads the same key back.
    stderr = [];
    await (await startServe(['store'], options(), { ...OAUTH, SWITCHBOARD_DATA_DIR: dir })).close();
    expect(stderr.join('')).not.toMatch(/generated a new key/);
  });

  it('a database sealed with another key stops the start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-serve-'));
    dirs.push(dir);
    const env = { ...OAUTH, SWITCHBOARD_DATA_DIR: dir };
    await (
      await startServe(['store'], options(), {
        ...env,
        SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('base64'),
      })
    ).close();
    await expect(
      startServe(['store'], options(), {
        ...env,
        SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('base64'),
      }),
    ).rejects.toThrow(/sealed with another key/);
  });
});
