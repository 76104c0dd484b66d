/**
 * Opens the SQLite database an emulator keeps its state in: a file for the sandbox, ':memory:' for tests.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

export function isMemoryPath(path: string): boolean {
  return path === ':memory:' || path === '';
}

export function openDatabase(path: string): SqliteDatabase {
  if (!isMemoryPath(path)) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(isMemoryPath(path) ? ':memory:' : path);
  db.pragma('foreign_keys = ON');
  if (!isMemoryPath(path)) {
    // WAL lets an inspector read the file while the emulator writes; NORMAL sync is safe with WAL and much faster.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
  }
  return db;
}
