// Opening emulator databases with the right pragmas, in memory and on disk.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/emulation/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'emulation-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openDatabase', () => {
  it('turns foreign keys on in memory', () => {
    const db = openDatabase(':memory:');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.memory).toBe(true);
    db.close();
  });

  it('uses WAL for files, creating missing folders', () => {
    const path = join(dir, 'nested', 'state.db');
    const db = openDatabase(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.exec('CREATE TABLE t (x INTEGER)');
    db.prepare('INSERT INTO t VALUES (1)').run();
    db.close();
    const again = openDatabase(path);
    expect(again.prepare('SELECT x FROM t').pluck().get()).toBe(1);
    again.close();
  });
});
