// What a new user meets first: help texts that list the services there are, `--version`, --tools mistakes, the
// environment `emulate` prints for `serve`, and the warning when `serve` starts without credentials.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportLines } from '../../src/cli/banner.js';
import { type ServeOptions, startServe } from '../../src/cli/serve.js';
import { SERVICES } from '../../src/services/registry.js';
import { credentialsFromLogin, writeCredentialsFile } from '../../src/services/store/credentials.js';
import { CLI, connectClient, connectHttp, ROOT, spawnCli } from './harness.js';

const run = promisify(execFile);
const cli = (args: string[]) =>
  run(process.execPath, [...CLI, ...args], { cwd: ROOT, env: { PATH: process.env.PATH } });
const SERVICE_IDS = SERVICES.map((service) => service.id);
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
/** A credentials file path that does not exist: never the machine user's own saved login. */
function noSavedLogin(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-first-run-'));
  dirs.push(dir);
  return join(dir, 'store-credentials.json');
}

describe('help and version', () => {
  it('switchboard --help and serve --help name every service of the registry', async () => {
    const top = (await cli(['--help'])).stdout;
    const serve = (await cli(['serve', '--help'])).stdout;
    const list = `(${SERVICE_IDS.join(', ')}, or all)`;
    for (const id of SERVICE_IDS) {
      expect(top).toMatch(new RegExp(`^  ${id}\\s+\\S`, 'm'));
      expect(serve).toContain(`"${id}"`);
    }
    expect(top).toContain('serve [options] [services...]');
    expect(serve).toContain(`Serve MCP tools for one or more services ${list}.`);
    expect(serve).not.toContain('(issuedesk, or all)');
  });

  it('--version prints the package version, the one the MCP server reports in serverInfo', async () => {
    expect((await cli(['--version'])).stdout.trim()).toBe(VERSION);
    const mcp = await connectHttp({ ISSUEDESK_BASE_URL: 'http://127.0.0.1:9' });
    try {
      // Besides its title and icon (test/e2e/icons-titles-cache-hints.test.ts).
      expect(mcp.client.getServerVersion()).toMatchObject({ name: 'switchboard', version: VERSION });
    } finally {
      await mcp.close();
    }
  });

  it('an unknown service is refused with the list from the registry', async () => {
    const error = await cli(['serve', 'tickets']).catch((e: { stderr: string }) => e);
    expect((error as { stderr: string }).stderr).toContain(
      `Allowed choices are ${[...SERVICE_IDS, 'all'].join(', ')}.`,
    );
  });
});

describe('--tools mistakes', () => {
  it("--tools '' is refused instead of serving every tool", async () => {
    const proc = spawnCli(['serve', 'issuedesk', '--tools', ''], {}, /never/);
    await expect(proc.ready).rejects.toThrow(
      /--tools names no tool\. Give at least one.*or leave --tools out to serve all 13 tools\./s,
    );
  });
});

/** `export NAME=value` lines read back as a POSIX shell would (values bare or single-quoted). */
function parseExports(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, name, raw] of text.matchAll(/^export ([A-Z_]+)=(.*)$/gm)) {
    env[name!] = raw!.startsWith("'") ? raw!.slice(1, -1).replaceAll("'\\''", "'") : raw!;
  }
  return env;
}

describe('emulate prints the environment for serve', () => {
  it('serve started with exactly the printed lines calls each of the three emulators successfully', async () => {
    const emulate = spawnCli(['emulate', 'all', '--port', '0', '--region', 'eu'], {}, /^# then: .*$/m, {
      stream: 'stdout',
    });
    try {
      await emulate.ready;
      const env = parseExports(emulate.stdout());
      expect(Object.keys(env).sort()).toEqual(
        [
          'ISSUEDESK_API_TOKEN',
          'ISSUEDESK_BASE_URL',
          'MESSAGING_API_KEY',
          'MESSAGING_BASE_URL',
          'MESSAGING_REGION',
          'MESSAGING_SITE_ID',
          'STORE_ACCESS_TOKEN',
          'STORE_BASE_URL',
        ].sort(),
      );
      expect(emulate.stdout()).toMatch(/^# then: switchboard serve issuedesk messaging store$/m);
      expect(emulate.stderr()).not.toContain('accepts:');

      const serve = spawnCli(
        ['serve', 'all', '--transport', 'http', '--port', '0'],
        { ...env, SWITCHBOARD_CREDENTIALS_FILE: noSavedLogin() },
        /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
      );
      try {
        const [, url] = await serve.ready;
        expect(serve.stderr()).not.toMatch(/not set, so every/);
        const mcp = await connectClient(new StreamableHTTPClientTransport(new URL(url!)));
        try {
          const me = await mcp.call('IssueDesk.WhoAmI');
          expect(me.isError, me.text).toBe(false);
          // Seeded manual segment 1 and person user-1, on the eu account the region endpoint points at.
          const added = await mcp.call('MessagingTrackApi.AddPeopleToSegment', {
            mode: 'execute',
            segment_identifier: 1,
            request_body: JSON.stringify({ ids: ['user-1'] }),
          });
          expect(added.structured, added.text).toEqual({ success: true, status: 200 });
          const bases = await mcp.call('StoreApi.ListStoreBases');
          expect(bases.isError, bases.text).toBe(false);
          expect((bases.structured.bases as unknown[]).length).toBeGreaterThanOrEqual(3);
        } finally {
          await mcp.close();
        }
      } finally {
        await serve.stop();
      }
    } finally {
      await emulate.stop();
    }
    // Two CLI processes, three emulators seeding and 126 tools: slow on a busy 2-core machine.
  }, 60_000);

  it('the export lines give any value back unchanged to a POSIX shell', async () => {
    const value = `it's "quoted" $HOME \`x\` a\\b`;
    const { stdout } = await run('/bin/sh', [
      '-c',
      `${exportLines({ V: value, W: 'plain-1.2:3/4' }).join('\n')}\nprintf '%s|%s' "$V" "$W"`,
    ]);
    expect(stdout).toBe(`${value}|plain-1.2:3/4`);
  });
});

describe('serve without credentials warns at start, naming the variables', () => {
  const options = (extra: Partial<ServeOptions> = {}): ServeOptions => ({
    transport: 'http',
    host: '127.0.0.1',
    port: 0,
    sandbox: false,
    reset: false,
    readOnly: false,
    toolNames: 'dotted',
    dataDir: ':memory:',
    ...extra,
  });

  let stderr: string[] = [];
  let realWrite: typeof process.stderr.write;
  beforeEach(() => {
    stderr = [];
    realWrite = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }) as typeof process.stderr.write;
  });
  afterEach(() => {
    process.stderr.write = realWrite;
  });

  interface Warning {
    level: string;
    msg: string;
    service?: string;
    missing?: string[];
    hint?: string;
  }
  /** The start-up warnings, by service. */
  const warnings = (): Record<string, Warning> =>
    Object.fromEntries(
      stderr
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Warning)
        .filter((entry) => entry.level === 'warn' && entry.missing)
        .map((entry) => [entry.service, entry]),
    );

  async function serve(names: string[], env: NodeJS.ProcessEnv, extra: Partial<ServeOptions> = {}) {
    const handle = await startServe(names, options(extra), {
      SWITCHBOARD_CREDENTIALS_FILE: noSavedLogin(),
      ...env,
    });
    await handle.close();
    return warnings();
  }

  it('over HTTP: each service without its variables, with the fix and --sandbox', async () => {
    const warned = await serve(['all'], {});
    expect(Object.keys(warned).sort()).toEqual(['issuedesk', 'messaging', 'store']);
    expect(warned.issuedesk!.missing).toEqual(['ISSUEDESK_API_TOKEN']);
    expect(warned.messaging!.missing).toEqual(['MESSAGING_SITE_ID', 'MESSAGING_API_KEY']);
    expect(warned.store!.missing).toEqual(['STORE_ACCESS_TOKEN']);
    expect(warned.messaging!.msg).toBe(
      'messaging: MESSAGING_SITE_ID and MESSAGING_API_KEY are not set, so every messaging tool call will fail',
    );
    for (const entry of Object.values(warned)) expect(entry!.hint).toContain('--sandbox');
    expect(warned.store!.hint).toContain('switchboard login store');
  });

  it('names only what is missing, and nothing once every variable is set', async () => {
    expect(Object.keys(await serve(['all'], { MESSAGING_SITE_ID: 'site' }))).toEqual(
      expect.arrayContaining(['messaging']),
    );
    expect(warnings().messaging!.missing).toEqual(['MESSAGING_API_KEY']);
    stderr = [];
    const none = await serve(['all'], {
      ISSUEDESK_API_TOKEN: 'token',
      MESSAGING_SITE_ID: 'site',
      MESSAGING_API_KEY: 'key',
      STORE_ACCESS_TOKEN: 'pat-token',
    });
    expect(none).toEqual({});
  });

  it('only for services whose tools are served (--tools)', async () => {
    expect(Object.keys(await serve(['all'], {}, { tools: 'IssueDesk.WhoAmI' }))).toEqual(['issuedesk']);
  });

  it('not for the store when a saved login (`switchboard login store`) or per-user OAuth will supply the token', async () => {
    const saved = noSavedLogin();
    writeCredentialsFile(
      saved,
      credentialsFromLogin({
        tokens: {
          accessToken: 'access',
          refreshToken: 'refresh',
          scopes: [],
          expiresAt: Date.now() + 3_600_000,
        },
        identity: { id: 'usrSaved' },
        clientId: 'client',
        confidentialClient: false,
        oauthUrl: 'https://airtable.com',
        apiUrl: 'https://api.airtable.com',
      }),
    );
    expect(await serve(['store'], { SWITCHBOARD_CREDENTIALS_FILE: saved })).toEqual({});
    expect(
      await serve(['store'], {
        STORE_OAUTH_CLIENT_ID: 'sandbox-oauth-client',
        STORE_OAUTH_CLIENT_SECRET: 'sandbox-oauth-secret',
      }),
    ).toEqual({});
  });

  it('not in the sandbox', async () => {
    expect(await serve(['issuedesk'], {}, { sandbox: true })).toEqual({});
  });

  it('over stdio too, where the line goes to the client log', async () => {
    const proc = spawnCli(
      ['serve', 'issuedesk'],
      { SWITCHBOARD_CREDENTIALS_FILE: noSavedLogin() },
      /issuedesk: ISSUEDESK_API_TOKEN is not set, so every issuedesk tool call will fail.*--sandbox/,
    );
    try {
      await proc.ready;
    } finally {
      await proc.stop();
    }
  });
});
