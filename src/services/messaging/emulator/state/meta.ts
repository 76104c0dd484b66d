/**
 * The workspace's own bookkeeping: the seed its data was made with and the counters that number new people and
 * objects (kept in the database, so a reopened file goes on where it stopped).
 */
import type { SqliteDatabase } from '../../../../emulation/sqlite.js';

export const META_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

export class Meta {
  readonly #get;
  readonly #set;

  constructor(db: SqliteDatabase) {
    this.#get = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    this.#set = db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
  }

  get(key: string): string | undefined {
    const value = this.#get.get(key);
    return typeof value === 'string' ? value : undefined;
  }

  set(key: string, value: string): void {
    this.#set.run(key, value);
  }

  /** The counter's current value, which it then moves on by one. */
  next(key: string): number {
    const n = Number(this.#get.get(key) ?? '1');
    this.#set.run(key, String(n + 1));
    return n;
  }
}
