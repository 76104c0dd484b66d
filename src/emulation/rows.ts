/**
 * Reading columns of SQLite rows (better-sqlite3 returns them as plain objects of unknown values), the same way
 * in every emulator store.
 */

export type Row = Record<string, unknown>;

export function str(row: Row, key: string): string {
  return String(row[key]);
}

export function strOrNull(row: Row, key: string): string | null {
  const v = row[key];
  return v === null || v === undefined ? null : String(v);
}

export function num(row: Row, key: string): number {
  return Number(row[key]);
}

export function numOrNull(row: Row, key: string): number | null {
  const v = row[key];
  return v === null || v === undefined ? null : Number(v);
}
