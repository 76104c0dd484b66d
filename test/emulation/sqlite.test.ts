// Opening emulator databases with the right pragmas, in memory and on disk, and the parts that let several
// processes share a file: write transactions that take the lock at once, and telling another writer's commits.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ExternalChanges,
  isBusyError,
  openDatabase,
  type SqliteDatabase,
  seedIfEmpty,
  startupDone,
  withBusyTimeout,
  writeTransaction,
} from '../../src/emulation/sqlite.js';

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

  it('switches a new file to WAL while another process holds its write lock, once that process commits', async () => {
    // What two sandboxes starting on an empty data folder meet: SQLite fails this switch at once with SQLITE_BUSY,
    // whatever the busy timeout, while another process writes the file in rollback mode.
    const path = join(dir, 'held.db');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require('better-sqlite3');
         const db = new Database(process.argv[1]);
         db.exec('BEGIN IMMEDIATE; CREATE TABLE made_by_holder (x INTEGER)');
         console.log('held');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);`,
        path,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    await new Promise((resolve) => holder.stdout!.once('data', resolve));
    const started = Date.now();
    const db = openDatabase(path);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200); // it waited for the holder's commit
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual([
      'made_by_holder',
    ]);
    db.close();
    expect(await exited).toBe(0);
  });
});

describe('sharing a file between connections (as processes do)', () => {
  function twoConnections(name: string) {
    const path = join(dir, name);
    const first = openDatabase(path);
    first.exec('CREATE TABLE IF NOT EXISTS t (x INTEGER)');
    const second = openDatabase(path);
    // No waiting in this test: a connection that would wait for the lock fails at once instead.
    second.pragma('busy_timeout = 0');
    return { first, second };
  }

  it('waits up to the busy timeout for another writer, longer only while starting on a file being seeded', () => {
    const db = openDatabase(join(dir, 'timeout.db'));
    // Starting up (creating tables, seeding) may queue behind another process seeding the same file.
    expect(db.pragma('busy_timeout', { simple: true })).toBe(120_000);
    startupDone(db);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(withBusyTimeout(db, 120_000, () => db.pragma('busy_timeout', { simple: true }))).toBe(120_000);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    db.close();
  });

  it('writeTransaction holds the write lock from its start, before it has written anything', () => {
    const { first, second } = twoConnections('lock.db');
    let refused: unknown;
    writeTransaction(first, () => {
      first.prepare('SELECT COUNT(*) FROM t').get();
      try {
        second.prepare('INSERT INTO t VALUES (2)').run();
      } catch (error) {
        refused = error;
      }
      first.prepare('INSERT INTO t VALUES (1)').run();
    });
    expect(isBusyError(refused)).toBe(true);
    // Nested, it is a savepoint of the open transaction: its failure undoes only its own writes.
    writeTransaction(first, () => {
      first.prepare('INSERT INTO t VALUES (3)').run();
      expect(() =>
        writeTransaction(first, () => {
          first.prepare('INSERT INTO t VALUES (4)').run();
          throw new Error('undo me');
        }),
      ).toThrow('undo me');
    });
    expect(second.prepare('SELECT x FROM t ORDER BY x').pluck().all()).toEqual([1, 3]);
    first.close();
    second.close();
  });

  it('seedIfEmpty seeds a file once whichever connection starts first, again on reset, and all or nothing', () => {
    const { first, second } = twoConnections('seed.db');
    const count = (db: SqliteDatabase) => Number(db.prepare('SELECT COUNT(*) FROM t').pluck().get());
    const checkedIn: boolean[] = [];
    const seed = (db: SqliteDatabase, reset = false) =>
      seedIfEmpty(db, {
        reset,
        isEmpty: () => {
          // The check is made under the write lock, so no other process can seed between it and the seeding.
          checkedIn.push(db.inTransaction);
          return count(db) === 0;
        },
        seed: () => {
          db.prepare('INSERT INTO t VALUES (1)').run();
        },
      });
    expect(seed(first)).toBe(true);
    expect(seed(second)).toBe(false);
    expect(checkedIn).toEqual([true, true]);
    expect(seed(second, true)).toBe(true);
    expect(count(first)).toBe(2);

    let busyTimeout: unknown;
    const failed = () =>
      seedIfEmpty(second, {
        reset: true,
        isEmpty: () => true,
        seed: () => {
          busyTimeout = second.pragma('busy_timeout', { simple: true });
          second.prepare('INSERT INTO t VALUES (2)').run();
          throw new Error('seeding failed');
        },
      });
    expect(failed).toThrow('seeding failed');
    // Seeding may wait long for another process seeding the file; afterwards the connection's own wait is back.
    expect(busyTimeout).toBe(120_000);
    expect(second.pragma('busy_timeout', { simple: true })).toBe(0);
    expect(count(first)).toBe(2);
    first.close();
    second.close();
  });

  it("ExternalChanges reports another connection's commits once, and never its own", () => {
    const { first, second } = twoConnections('changes.db');
    const watch = new ExternalChanges(first);
    expect(watch.changed()).toBe(false);
    first.prepare('INSERT INTO t VALUES (1)').run();
    expect(watch.changed()).toBe(false);
    second.prepare('INSERT INTO t VALUES (2)').run();
    expect(watch.changed()).toBe(true);
    expect(watch.changed()).toBe(false);
    first.close();
    second.close();
  });
});
