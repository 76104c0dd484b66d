/**
 * Reading columns of SQLite rows (better-sqlite3 returns them as plain objects of unknown values), and the JSON
 * text columns written and read back, the same way in every emulator store.
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

/** A value as the JSON text a column stores it in. */
export function json(value: unknown): string {
  return JSON.stringify(value);
}

/** A JSON text column's value, parsed; `fallback` when the column is NULL or empty. */
export function parseJson<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string' || value === '') return fallback;
  return JSON.parse(value) as T;
}

/** A JSON text column that holds an object (attributes, event data); {} when it holds anything else. */
export function parseJsonObject(value: unknown): Record<string, unknown> {
  const parsed = parseJson<unknown>(value, {});
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}
