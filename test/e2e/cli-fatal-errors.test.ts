// A start that fails ends with exit code 1 and one line on stderr. When SQLite is the cause, the line carries its
// extended code: "database is locked" alone covers several cases, and the code tells them apart.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliToEnd } from './harness.js';

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-fatal-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a start that fails', () => {
  it("names SQLite's code when a sandbox database cannot be opened", async () => {
    mkdirSync(join(dataDir, 'issuedesk.db')); // a folder where the database file should be
    const { code, stderr } = await runCliToEnd(['serve', 'issuedesk', '--sandbox', '--data-dir', dataDir]);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('switchboard: unable to open database file (SQLITE_CANTOPEN)');
  });
});
