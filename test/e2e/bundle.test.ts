// The built program, as `npm install` makes it (scripts/build.mjs: one bundle with lazily loaded chunks), run the
// way users run it: `node dist/cli/main.js ...`. Built here into a temporary folder laid out like the package
// (package.json and node_modules beside dist/), so the test checks the current sources, not a stale dist/.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectClient, ROOT } from './harness.js';

let folder: string;
let main: string;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'switchboard-bundle-'));
  symlinkSync(join(ROOT, 'package.json'), join(folder, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), join(folder, 'dist/cli')]);
  main = join(folder, 'dist/cli/main.js');
}, 60_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the bundled command', () => {
  it('is one entry file with its chunks beside it, and reports the package version', () => {
    const files = readdirSync(join(folder, 'dist/cli')).filter((name) => name.endsWith('.js'));
    expect(files).toContain('main.js');
    // Chunks, not a copy of the source tree: the emulators and the OAuth vault are split off to load on use.
    expect(files.length).toBeLessThan(40);
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;
    expect(execFileSync(process.execPath, [main, '--version'], { encoding: 'utf8' }).trim()).toBe(version);
  });

  describe('serve all --sandbox over stdio', () => {
    let mcp: Connected;
    beforeAll(async () => {
      mcp = await connectClient(
        new StdioClientTransport({
          command: process.execPath,
          args: [main, 'serve', 'all', '--sandbox', '--data-dir', ':memory:'],
          env: { PATH: process.env.PATH ?? '', SWITCHBOARD_LOG_LEVEL: 'warn' },
          stderr: 'ignore',
        }),
      );
    }, 60_000);
    afterAll(() => mcp?.close());

    it('lists all 126 tools and runs one against its emulator (SQLite, loaded from node_modules)', async () => {
      const { tools } = await mcp.client.listTools();
      expect(tools).toHaveLength(126);
      const who = await mcp.call('IssueDesk.WhoAmI');
      expect(who.isError).toBe(false);
      expect(who.text).toContain('Lumen Labs');
    });

    it('turns HTML into text through the module it loads at run time (html-to-text)', async () => {
      const issue = await mcp.call('IssueDesk.GetIssue', { lookup_by: 'id', value: '1' });
      expect(issue.isError).toBe(false);
      expect(issue.text).not.toMatch(/<\/?p>/);
    });
  });
});
