// The published package, as a user gets it: `npm pack` (which runs `prepare`, the build), `npm install <tarball>`
// into an empty folder, then the installed `switchboard` command run the way the README shows it
// (`npx switchboard serve issuedesk --sandbox`), driven by a real MCP client over stdio.
//
// What this catches: a `files` list that leaves out something the program loads at run time (a chunk, the prebuilt
// tool list), or ships what it must not (sources, tests, source maps); a run-time dependency kept in
// devDependencies (the installed folder has only what `dependencies` names: nothing is copied from this checkout's
// node_modules); a `bin` that does not start.
//
// Cost. The pack builds from a copy of the sources (so the shared dist/ of this working tree is left alone), and the
// install resolves from npm's cache first (--prefer-offline) and the registry for anything missing. The one slow
// step would be compiling better-sqlite3 (about 2.5 minutes on a loaded 2-core machine): a user online gets
// better-sqlite3's prebuilt binary from its releases, which this machine cannot reach, so the test hands
// prebuild-install the same binary from a local folder (its documented `local-prebuilds` setting, in a
// .prebuild-installrc of the consumer folder). It is the binary this checkout compiled for the same version, Node
// ABI and platform; for any other version the file name does not match and the install compiles from source, as a
// user's would. Set SWITCHBOARD_PACKAGE_TEST_COMPILE=1 to skip the shortcut and compile.

import { execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectClient, ROOT } from './harness.js';

const run = promisify(execFile);

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  bin?: Record<string, string>;
  files?: string[];
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

interface PackResult {
  filename: string;
  files: { path: string }[];
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

/**
 * The environment for a nested npm: this process may itself run under `npm test`, whose npm_* variables
 * (npm_config_local_prefix, npm_package_*, ...) would point the inner npm at this checkout.
 */
function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  );
  return {
    ...env,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    ...extra,
  };
}

/**
 * Runs npm in a process group of its own, so that a timeout ends what it started too (an install's node-gyp, make
 * and compilers), not only npm.
 */
function npm(args: string[], cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, {
      cwd,
      env: npmEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid!, 'SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`npm could not be started: ${error.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) return resolve(stdout);
      const why = timedOut ? `did not finish within ${timeoutMs / 1000} s` : `exited with ${code}`;
      reject(new Error(`npm ${args.join(' ')} ${why} in ${cwd}:\n${stderr}`));
    });
  });
}

/** The sources `npm pack` builds from, plus the folders that must stay out of the package. */
const STAGED = [
  'src',
  'scripts',
  'docs',
  'test',
  'bench',
  'README.md',
  'LICENSE',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
];

let work: string;
let packed: PackResult;
let consumer: string;
const timings: Record<string, number> = {};

async function timed<T>(step: string, action: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await action();
  } finally {
    timings[step] = Date.now() - started;
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'switchboard-package-'));
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const entry of STAGED) {
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(stage, entry), { recursive: true });
  }
  // For the build only (esbuild and the bundled modules): npm pack never packs node_modules.
  symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'));
  const out = join(work, 'out');
  mkdirSync(out);
  const packJson = await timed('npm pack', () =>
    npm(['pack', '--json', '--pack-destination', out], stage, 120_000),
  );
  // npm prints the build's output before the JSON; the JSON is the last top-level array.
  packed = (JSON.parse(packJson.slice(packJson.lastIndexOf('\n[') + 1)) as PackResult[])[0]!;

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  if (process.env.SWITCHBOARD_PACKAGE_TEST_COMPILE !== '1') {
    const sqlite = join(ROOT, 'node_modules/better-sqlite3');
    const { version } = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as { version: string };
    const prebuilds = join(work, 'prebuilds');
    mkdirSync(prebuilds);
    const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
    await run('tar', ['-czf', join(prebuilds, name), '-C', sqlite, 'build/Release/better_sqlite3.node']);
    writeFileSync(join(consumer, '.prebuild-installrc'), `local-prebuilds=${prebuilds}\n`);
  }
  await timed('npm install', () =>
    npm(
      ['install', join(out, packed.filename), '--prefer-offline', '--no-audit', '--no-fund'],
      consumer,
      420_000,
    ),
  );
}, 600_000);

afterAll(() => {
  process.stderr.write(
    `package test timings: ${Object.entries(timings)
      .map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`)
      .join(', ')}\n`,
  );
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('is publishable: not private, one bin with a node shebang, engines set', () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin).toEqual({ switchboard: 'dist/cli/main.js' });
    expect(manifest.engines?.node).toBe('>=20');
    const main = readFileSync(join(consumer, 'node_modules/switchboard/dist/cli/main.js'), 'utf8');
    expect(main.startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('packs the built program, the README and its docs, and nothing else', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/cli/main.js',
        'dist/cli/tool-list.json',
        'dist/cli/console/index.html',
      ]),
    );
    const outside = paths.filter(
      (path) =>
        !['package.json', 'README.md', 'LICENSE'].includes(path) &&
        !/^dist\/cli\/[\w.-]+\.(js|json)$/.test(path) &&
        !/^dist\/cli\/console\/(index\.html|app\.js|app\.css)$/.test(path) &&
        !/^docs\/[\w.-]+\.md$/.test(path),
    );
    expect(outside).toEqual([]);
    // Every docs page the README links to travels with it.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\((docs\/[\w.-]+\.md)\)/g)].map((match) => match[1]!);
    expect(linked.length).toBeGreaterThan(0);
    expect(paths).toEqual(expect.arrayContaining(linked));
  });

  it('ships every chunk the bundle imports', () => {
    const paths = new Set(packed.files.map((file) => file.path));
    const installed = join(consumer, 'node_modules/switchboard');
    const missing: string[] = [];
    for (const path of paths) {
      if (!path.endsWith('.js')) continue;
      const code = readFileSync(join(installed, path), 'utf8');
      // Static and dynamic imports of a chunk beside the file (`from"./chunk-X.js"`, `import("./x-Y.js")`).
      for (const [, chunk] of code.matchAll(/(?:from|import\()\s*["']\.\/([\w.-]+\.js)["']/g)) {
        if (!paths.has(`dist/cli/${chunk}`)) missing.push(`${path} -> ${chunk}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('installs without devDependencies or a build', () => {
    const modules = join(consumer, 'node_modules');
    for (const dev of ['esbuild', 'typescript', 'vitest', 'tsx']) {
      expect(manifest.devDependencies?.[dev], dev).toBeDefined();
      expect(existsSync(join(modules, dev)), `${dev} installed`).toBe(false);
    }
    // The native module is loaded at run time from node_modules, so it must be a dependency.
    expect(manifest.dependencies?.['better-sqlite3']).toBeDefined();
    expect(existsSync(join(modules, 'better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
  });

  it('reports its version through the installed bin', async () => {
    const { stdout } = await run('npx', ['--no-install', 'switchboard', '--version'], {
      cwd: consumer,
      env: npmEnv(),
      timeout: 30_000,
    });
    expect(stdout.trim()).toBe(manifest.version);
  });

  describe('npx switchboard serve issuedesk --sandbox, over stdio', () => {
    let mcp: Connected;
    beforeAll(async () => {
      const transport = new StdioClientTransport({
        command: 'npx',
        args: ['--no-install', 'switchboard', 'serve', 'issuedesk', '--sandbox'],
        cwd: consumer,
        env: {
          ...(npmEnv() as Record<string, string>),
          SWITCHBOARD_LOG_LEVEL: 'warn',
          // The sandbox data in the test's folder, not the user's ~/.switchboard.
          SWITCHBOARD_DATA_DIR: join(work, 'data'),
        },
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
      mcp = await connectClient(transport);
    }, 60_000);
    afterAll(() => mcp?.close());

    it('lists the 13 IssueDesk tools', async () => {
      const { tools } = await mcp.client.listTools();
      expect(tools).toHaveLength(13);
      expect(tools.map((tool) => tool.name)).toContain('IssueDesk.WhoAmI');
    });

    it('runs IssueDesk.WhoAmI against the emulator (SQLite through the installed better-sqlite3)', async () => {
      const who = await mcp.call('IssueDesk.WhoAmI');
      expect(who.isError).toBe(false);
      expect(who.text).toContain('Lumen Labs');
    });

    it('turns HTML into text with html-to-text, loaded from the installed dependencies', async () => {
      const issue = await mcp.call('IssueDesk.GetIssue', { lookup_by: 'id', value: '1' });
      expect(issue.isError).toBe(false);
      expect(issue.text).not.toMatch(/<\/?p>/);
    });
  });
});
