// `vitest run` stays quiet while tests pass: a passing test's server logs and console lines are not printed, a
// failing test's are, and the closing summary with the counts (which CI reads) remains. Also the one-time note
// on why tests skip without ../shared.

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../e2e/harness.js';
import { SHARED_FILES, skipNotes } from './notes.js';

const run = promisify(execFile);

describe('quiet test output', () => {
  it('prints the output of failing tests only, and keeps the summary line', async () => {
    const result = await run(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/setup/fixtures/vitest.config.ts'],
      { cwd: ROOT, env: { PATH: process.env.PATH, NO_COLOR: '1', CI: '1' } },
    ).catch((error: { stdout: string; stderr: string }) => error);
    const output = result.stdout + result.stderr;
    expect(output).toContain('log line of the failing test');
    expect(output).not.toContain('log line of the passing test');
    expect(output).not.toContain('console line of the passing test');
    expect(output).toMatch(/Tests\s+1 failed \| 1 passed \(2\)/);
  });
});

describe('skip notes', () => {
  it('name the missing ../shared files once, and say nothing when they are there', () => {
    const notes = skipNotes('/nonexistent/shared/', process.execPath);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('not found in /nonexistent/shared/');
    for (const file of SHARED_FILES) expect(notes[0]).toContain(file);

    const shared = `${mkdtempSync(join(tmpdir(), 'switchboard-shared-'))}/`;
    try {
      for (const file of SHARED_FILES) {
        mkdirSync(dirname(`${shared}${file}`), { recursive: true });
        writeFileSync(`${shared}${file}`, '');
      }
      expect(skipNotes(shared, process.execPath)).toEqual([]);
      expect(skipNotes(shared, '/nonexistent/chromium')).toEqual([
        expect.stringMatching(/^Skipping the tests in a real browser: \/nonexistent\/chromium is missing/),
      ]);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });
});
