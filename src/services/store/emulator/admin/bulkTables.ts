/**
 * Bulk data tables (the upstream's HyperDB): tables of an enterprise account whose rows are addressed by a
 * primary key instead of a record id. Kept in two SQLite tables of the emulator's database, with no cache, so
 * any number of BulkTables over the same database agree and a rolled-back transaction leaves nothing stale.
 *
 * A row's cells are flat values (text or number: the published upsert body allows strings, numbers, ISO date
 * strings and null, and no booleans, so a yes/no column holds text); an empty cell is simply absent. The primary key is
 * carried as `primaryKey`, never repeated among the cells, and the table's `fields` list only the other
 * columns. Rows keep the order they were first inserted in (a never-reused sequence number), which is the
 * order reads page through, so a cursor stays valid while rows are added or deleted.
 */
import type { SqliteDatabase } from '../../../../emulation/sqlite.js';
import type { StoreError } from '../errors.js';

export type BulkFieldType = 'text' | 'number';
export type BulkCell = string | number;

export interface DataTableDoc {
  id: string;
  enterpriseAccountId: string;
  name: string;
  /** The name of the key column, e.g. "email"; its values are the rows' primary keys. */
  primaryKeyFieldName: string;
  /** The other columns, in display order. */
  fields: { name: string; type: BulkFieldType }[];
  createdTime: string;
}

export interface BulkRecord {
  primaryKey: string;
  fields: Record<string, BulkCell>;
  createdTime: string;
  /** Absent until an upsert first changes the row. */
  updatedTime?: string;
}

/** One row of an upsert: cells to set, null to clear one. */
export interface BulkUpsertRow {
  primaryKey: string;
  fields: Record<string, BulkCell | null>;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS bulk_data_tables (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, enterprise_account_id TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bulk_records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, table_id TEXT NOT NULL, primary_key TEXT NOT NULL,
  fields TEXT NOT NULL, created_time TEXT NOT NULL, updated_time TEXT,
  UNIQUE (table_id, primary_key)
);
CREATE INDEX IF NOT EXISTS bulk_records_by_table ON bulk_records (table_id, seq);
`;

interface RecordRow {
  seq: number;
  primary_key: string;
  fields: string;
  created_time: string;
  updated_time: string | null;
}

function recordOf(row: RecordRow): BulkRecord {
  return {
    primaryKey: row.primary_key,
    fields: JSON.parse(row.fields) as Record<string, BulkCell>,
    createdTime: row.created_time,
    ...(row.updated_time === null ? {} : { updatedTime: row.updated_time }),
  };
}

function unprocessable(type: string, message: string): StoreError {
  return { status: 422, type, message };
}

const quoted = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(', ');

/** Whether a value fits a column: text takes strings (dates among them), number finite numbers. */
function fits(type: BulkFieldType, value: BulkCell): boolean {
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  return typeof value === 'string';
}

/**
 * What is wrong with an upsert's rows against the table, or undefined: every unknown field name at once
 * (UNKNOWN_FIELD_NAME, like the data plane's), then the first value of the wrong type (INVALID_VALUE_FOR_COLUMN).
 */
export function upsertProblem(table: DataTableDoc, rows: readonly BulkUpsertRow[]): StoreError | undefined {
  const types = new Map(table.fields.map((f) => [f.name, f.type]));
  const unknown = new Set<string>();
  let keyField = false;
  for (const row of rows) {
    for (const name of Object.keys(row.fields)) {
      if (name === table.primaryKeyFieldName) keyField = true;
      else if (!types.has(name)) unknown.add(name);
    }
  }
  if (keyField) {
    // Changing a row's key would make it another row: the key is only ever given as primaryKey.
    return unprocessable(
      'INVALID_VALUE_FOR_COLUMN',
      `Field "${table.primaryKeyFieldName}" is the primary key of table ${table.name}; give it as primaryKey, not among the fields.`,
    );
  }
  if (unknown.size > 0) {
    const names = [...unknown];
    return unprocessable(
      'UNKNOWN_FIELD_NAME',
      `Unknown field name${names.length > 1 ? 's' : ''}: ${quoted(names)}. Fields of table ${table.name}: ${quoted(table.fields.map((f) => f.name))}.`,
    );
  }
  for (const row of rows) {
    for (const [name, value] of Object.entries(row.fields)) {
      const type = types.get(name);
      if (value === null || type === undefined || fits(type, value)) continue;
      return unprocessable(
        'INVALID_VALUE_FOR_COLUMN',
        `Field "${name}" holds ${type === 'text' ? 'text' : `${type}s`}; row ${JSON.stringify(row.primaryKey)} gives ${JSON.stringify(value)}.`,
      );
    }
  }
  return undefined;
}

export class BulkTables {
  readonly #s;

  constructor(private readonly db: SqliteDatabase) {
    db.exec(SCHEMA);
    this.#s = {
      insertTable: db.prepare(
        'INSERT INTO bulk_data_tables (id, enterprise_account_id, data) VALUES (?, ?, ?)',
      ),
      table: db.prepare('SELECT data FROM bulk_data_tables WHERE id = ?'),
      tables: db.prepare('SELECT data FROM bulk_data_tables ORDER BY pos'),
      count: db.prepare('SELECT COUNT(*) AS n FROM bulk_records WHERE table_id = ?'),
      record: db.prepare(
        'SELECT seq, primary_key, fields, created_time, updated_time FROM bulk_records WHERE table_id = ? AND primary_key = ?',
      ),
      after: db.prepare(
        'SELECT seq, primary_key, fields, created_time, updated_time FROM bulk_records WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?',
      ),
      insert: db.prepare(
        'INSERT INTO bulk_records (table_id, primary_key, fields, created_time, updated_time) VALUES (?, ?, ?, ?, ?)',
      ),
      update: db.prepare(
        'UPDATE bulk_records SET fields = ?, updated_time = ? WHERE table_id = ? AND primary_key = ?',
      ),
      remove: db.prepare('DELETE FROM bulk_records WHERE table_id = ? AND primary_key = ?'),
    };
  }

  /** Empties both tables and restarts their sequences, so a reseed lays down the same rows in the same order. */
  clear(): void {
    this.db.exec(`DELETE FROM bulk_records; DELETE FROM bulk_data_tables;
      DELETE FROM sqlite_sequence WHERE name IN ('bulk_records', 'bulk_data_tables');`);
  }

  createTable(doc: DataTableDoc): DataTableDoc {
    this.#s.insertTable.run(doc.id, doc.enterpriseAccountId, JSON.stringify(doc));
    return doc;
  }

  table(id: string): DataTableDoc | undefined {
    const row = this.#s.table.get(id) as { data: string } | undefined;
    return row ? (JSON.parse(row.data) as DataTableDoc) : undefined;
  }

  /** Every data table, in creation order. */
  tables(): DataTableDoc[] {
    return (this.#s.tables.all() as { data: string }[]).map((row) => JSON.parse(row.data) as DataTableDoc);
  }

  count(tableId: string): number {
    return (this.#s.count.get(tableId) as { n: number }).n;
  }

  record(tableId: string, primaryKey: string): BulkRecord | undefined {
    const row = this.#s.record.get(tableId, primaryKey) as RecordRow | undefined;
    return row ? recordOf(row) : undefined;
  }

  /** Up to `limit` rows after position `after` (0: from the start), in insertion order, with their positions. */
  page(tableId: string, after: number, limit: number): { record: BulkRecord; seq: number }[] {
    return (this.#s.after.all(tableId, after, limit) as RecordRow[]).map((row) => ({
      record: recordOf(row),
      seq: row.seq,
    }));
  }

  /** Every row in insertion order (inspection and tests). */
  records(tableId: string): BulkRecord[] {
    return this.page(tableId, 0, Number.MAX_SAFE_INTEGER).map((r) => r.record);
  }

  /**
   * Inserts new rows and merges cells into existing ones (null clears a cell), in the caller's transaction.
   * Rows must have been checked with upsertProblem. Returns the keys created and updated, in request order.
   */
  upsert(
    tableId: string,
    rows: readonly BulkUpsertRow[],
    now: string,
  ): { created: string[]; updated: string[] } {
    const created: string[] = [];
    const updated: string[] = [];
    for (const row of rows) {
      const existing = this.record(tableId, row.primaryKey);
      const cells: Record<string, BulkCell> = { ...(existing?.fields ?? {}) };
      for (const [name, value] of Object.entries(row.fields)) {
        if (value === null) delete cells[name];
        else cells[name] = value;
      }
      if (existing) {
        this.#s.update.run(JSON.stringify(cells), now, tableId, row.primaryKey);
        updated.push(row.primaryKey);
      } else {
        this.#s.insert.run(tableId, row.primaryKey, JSON.stringify(cells), now, null);
        created.push(row.primaryKey);
      }
    }
    return { created, updated };
  }

  /** Lays down a seeded row as it is (its own times); the key must be new. */
  seedRecord(tableId: string, record: BulkRecord): void {
    this.#s.insert.run(
      tableId,
      record.primaryKey,
      JSON.stringify(record.fields),
      record.createdTime,
      record.updatedTime ?? null,
    );
  }

  /** Deletes the rows with these keys; keys with no row are skipped. Returns the keys actually deleted. */
  delete(tableId: string, primaryKeys: readonly string[]): string[] {
    const deleted: string[] = [];
    for (const key of primaryKeys) {
      if (this.#s.remove.run(tableId, key).changes > 0) deleted.push(key);
    }
    return deleted;
  }
}
