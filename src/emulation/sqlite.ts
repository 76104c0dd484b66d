/**
 * Opens the SQLite database an emulator keeps its state in: a file for the sandbox, ':memory:' for tests.
 *
 * A sandbox file may be open in several processes at once (a desktop client's stdio server and `npm start`
 * share the default data folder), so everything here assumes other writers: WAL so readers never block the
 * writer, a busy timeout so a writer waits for another process's transaction instead of failing, write
 * transactions that take the write lock when they begin, and a way to tell when another process has written.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

/** How long a statement waits for another process's write transaction before giving up with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

export function isMemoryPath(path: string): boolean {
  return path === ':memory:' || path === '';
}

export function openDatabase(path: string): SqliteDatabase {
  if (!isMemoryPath(path)) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(isMemoryPath(path) ? ':memory:' : path);
  if (!isMemoryPath(path)) {
    // First, so that even switching to WAL waits for a process that is opening the same file right now. Until
    // `startupDone`, the wait is the long one: creating tables and seeding may queue behind another process that
    // is seeding the same file, which takes longer than any request should wait.
    db.pragma(`busy_timeout = ${SEED_BUSY_TIMEOUT_MS}`);
    // WAL lets other processes read while one writes; NORMAL sync is safe with WAL and much faster.
    switchToWal(db, SEED_BUSY_TIMEOUT_MS);
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  return db;
}

/**
 * Switches a file to WAL, waiting for another process that is writing it. The busy timeout does not cover this on
 * a file still in rollback mode (a new one): the switch holds a read lock and asks for the write lock, and SQLite
 * fails such an upgrade at once with SQLITE_BUSY while another connection holds the write lock, since waiting
 * could deadlock. Two processes starting on an empty data folder meet exactly that: one creating or switching the
 * file while the other switches it. So a busy switch is tried again every few milliseconds, up to `waitMs`; it is
 * persistent, so once the other process has made it, this one finds the file in WAL already.
 */
function switchToWal(db: SqliteDatabase, waitMs: number): void {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (!isBusyError(error) || Date.now() >= deadline) throw error;
      // A synchronous pause: opening is synchronous, and nothing can use the database before it returns.
      Atomics.wait(PAUSE, 0, 0, WAL_RETRY_MS);
    }
  }
}

const WAL_RETRY_MS = 5;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `fn` in a transaction that holds the write lock from its first statement (BEGIN IMMEDIATE), or in a
 * savepoint when a transaction is already open. A deferred transaction that reads before it writes cannot take
 * the lock once another process has committed since its read (SQLITE_BUSY_SNAPSHOT, which the busy timeout does
 * not retry); an immediate one waits for the lock first, so what it reads is what it writes over.
 */
export function writeTransaction<T>(db: SqliteDatabase, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/** How long starting up waits for another process that is seeding the same file (large scales take a while). */
export const SEED_BUSY_TIMEOUT_MS = 120_000;

/**
 * Seeds a database that holds nothing yet (or any database when `reset`): the check and the seeding run in one
 * write transaction, waiting as long as seeding may take, so two processes starting on an empty file seed it
 * once. Returns whether it seeded.
 */
export function seedIfEmpty(
  db: SqliteDatabase,
  how: { reset: boolean; isEmpty: () => boolean; seed: () => void },
): boolean {
  return withBusyTimeout(db, SEED_BUSY_TIMEOUT_MS, () =>
    writeTransaction(db, () => {
      if (!how.reset && !how.isEmpty()) return false;
      how.seed();
      return true;
    }),
  );
}

/** Ends the start-up phase of a database opened by `openDatabase`: from now on a request waits the usual time. */
export function startupDone(db: SqliteDatabase): void {
  if (db.memory) return;
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
}

/**
 * Runs `fn` with a longer busy timeout, for the one wait that may legitimately be long: a process starting on
 * a file that another process is seeding right now.
 */
export function withBusyTimeout<T>(db: SqliteDatabase, ms: number, fn: () => T): T {
  const before = Number(db.pragma('busy_timeout', { simple: true }));
  db.pragma(`busy_timeout = ${ms}`);
  try {
    return fn();
  } finally {
    db.pragma(`busy_timeout = ${before}`);
  }
}

/** Whether an error is SQLite giving up on a lock another connection holds. */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

/**
 * Tells whether another connection (another process on the same file) has committed since the last look, by
 * `PRAGMA data_version`, which changes only for other connections' commits. In-memory caches of database state
 * call `changed()` before trusting themselves.
 */
export class ExternalChanges {
  readonly #version;
  #last: number;

  constructor(db: SqliteDatabase) {
    this.#version = db.prepare('PRAGMA data_version').pluck();
    this.#last = this.#read();
  }

  #read(): number {
    return Number(this.#version.get());
  }

  /** True once for each batch of other connections' commits since the previous call. */
  changed(): boolean {
    const now = this.#read();
    if (now === this.#last) return false;
    this.#last = now;
    return true;
  }
}
