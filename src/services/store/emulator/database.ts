/**
 * State of the emulated Airtable account in SQLite: users, workspaces, bases and who may do what in them,
 * tables, fields, views, records (cells as one JSON column), comments and uploaded files. Knows nothing of HTTP
 * or of the API's rules; callers pass validated rows.
 *
 * Reads go through two in-memory caches so list requests over tens of thousands of records stay fast: the
 * schema (rebuilt after any schema write) and each table's parsed records (kept in step with every write, and
 * dropped wholesale if a transaction rolls back). Other processes may write to the same file: `sync` drops both
 * when one has (every request and every outermost transaction calls it), and ids are drawn from a counter row
 * in the database inside the writing transaction, so two processes never mint the same id.
 */
import { json, parseJson, type Row, str, strOrNull } from '../../../emulation/rows.js';
import {
  ExternalChanges,
  type SqliteDatabase,
  seedIfEmpty,
  writeTransaction,
} from '../../../emulation/sqlite.js';
import { deriveId, type IdKind } from './ids.js';
import {
  type BaseRow,
  type CommentRow,
  type FieldRow,
  type FileRow,
  type JsonObject,
  type Modifications,
  PERMISSION_RANK,
  type PermissionLevel,
  type RecordRow,
  type TableRow,
  type UserRow,
  type ViewRow,
  type ViewSort,
  type ViewType,
  type WorkspaceRow,
} from './model.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, email TEXT NOT NULL, name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS workspaces (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, created_time TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bases (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, workspace_id TEXT NOT NULL,
  name TEXT NOT NULL, created_time TEXT NOT NULL, transaction_number INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS base_permissions (
  base_id TEXT NOT NULL REFERENCES bases(id) ON DELETE CASCADE, user_id TEXT NOT NULL,
  level TEXT NOT NULL, PRIMARY KEY (base_id, user_id)
);
CREATE TABLE IF NOT EXISTS tables (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
  base_id TEXT NOT NULL REFERENCES bases(id) ON DELETE CASCADE, name TEXT NOT NULL, description TEXT,
  primary_field_id TEXT NOT NULL, next_auto_number INTEGER NOT NULL DEFAULT 1, date_dependencies TEXT
);
CREATE TABLE IF NOT EXISTS fields (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
  table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE, name TEXT NOT NULL, type TEXT NOT NULL,
  description TEXT, options TEXT
);
CREATE TABLE IF NOT EXISTS views (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
  table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE, name TEXT NOT NULL, type TEXT NOT NULL,
  personal_for_user_id TEXT, config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
  table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE, created_time TEXT NOT NULL,
  created_by TEXT NOT NULL, auto_number INTEGER NOT NULL, cells TEXT NOT NULL, modified TEXT
);
CREATE INDEX IF NOT EXISTS records_by_table ON records(table_id, seq);
CREATE TABLE IF NOT EXISTS comments (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
  record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE, author_id TEXT NOT NULL, text TEXT NOT NULL,
  parent_comment_id TEXT, created_time TEXT NOT NULL, last_updated_time TEXT
);
CREATE INDEX IF NOT EXISTS comments_by_record ON comments(record_id, seq);
CREATE TABLE IF NOT EXISTS files (
  id TEXT PRIMARY KEY, filename TEXT NOT NULL, type TEXT NOT NULL, size INTEGER NOT NULL, bytes BLOB NOT NULL,
  created_time TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS former_users (id TEXT PRIMARY KEY, email TEXT NOT NULL, name TEXT NOT NULL);
`;

const TABLES_CHILD_FIRST = [
  'former_users',
  'files',
  'comments',
  'records',
  'views',
  'fields',
  'tables',
  'base_permissions',
  'bases',
  'workspaces',
  'users',
  'meta',
] as const;

export interface TableModel {
  row: TableRow;
  base: BaseRow;
  fields: FieldRow[];
  fieldById: ReadonlyMap<string, FieldRow>;
  fieldByName: ReadonlyMap<string, FieldRow>;
  views: ViewRow[];
  primaryField: FieldRow;
}

/** The whole schema, immutable once built; a new snapshot replaces it after every schema write. */
export interface SchemaSnapshot {
  users: UserRow[];
  userById: ReadonlyMap<string, UserRow>;
  userByEmail: ReadonlyMap<string, UserRow>;
  workspaces: WorkspaceRow[];
  workspaceById: ReadonlyMap<string, WorkspaceRow>;
  bases: BaseRow[];
  baseById: ReadonlyMap<string, BaseRow>;
  tablesOfBase: ReadonlyMap<string, TableModel[]>;
  tableById: ReadonlyMap<string, TableModel>;
  fieldById: ReadonlyMap<string, { field: FieldRow; table: TableModel }>;
  viewById: ReadonlyMap<string, { view: ViewRow; table: TableModel }>;
  /** Keyed `${baseId} ${userId}`; a missing entry means 'none'. */
  permissions: ReadonlyMap<string, PermissionLevel>;
}

interface TableCache {
  byId: Map<string, RecordRow>;
  /** Creation order; rebuilt from byId (whose insertion order is creation order) after a change. */
  list: RecordRow[] | undefined;
}

export interface SeedInfo {
  seed: number;
  scale: number;
  seededAt: string;
}

/** Everything a seed lays down, in insertion order. */
export interface StoreSeedData {
  info: SeedInfo;
  idCounter: number;
  users: UserRow[];
  workspaces: WorkspaceRow[];
  bases: BaseRow[];
  permissions: { baseId: string; userId: string; level: PermissionLevel }[];
  tables: (TableRow & { nextAutoNumber: number })[];
  fields: FieldRow[];
  views: ViewRow[];
  records: Iterable<RecordRow>;
  comments: Omit<CommentRow, 'seq'>[];
}

function toRecord(row: Row): RecordRow {
  return {
    id: str(row, 'id'),
    tableId: str(row, 'table_id'),
    createdTime: str(row, 'created_time'),
    createdBy: str(row, 'created_by'),
    autoNumber: Number(row.auto_number),
    cells: parseJson(row.cells, {}),
    modified: parseJson<Modifications>(row.modified, {}),
  };
}

function toComment(row: Row): CommentRow {
  return {
    seq: Number(row.seq),
    id: str(row, 'id'),
    recordId: str(row, 'record_id'),
    authorId: str(row, 'author_id'),
    text: str(row, 'text'),
    parentCommentId: strOrNull(row, 'parent_comment_id'),
    createdTime: str(row, 'created_time'),
    lastUpdatedTime: strOrNull(row, 'last_updated_time'),
  };
}

interface ViewConfig {
  sorts?: ViewSort[];
  filter?: string | null;
  hiddenFieldIds?: string[];
}

function viewConfig(view: ViewRow): string {
  return json({ sorts: view.sorts, filter: view.filter, hiddenFieldIds: view.hiddenFieldIds });
}

export class StoreDatabase {
  readonly db: SqliteDatabase;
  #schema: SchemaSnapshot | undefined;
  #records = new Map<string, TableCache>();
  readonly #external: ExternalChanges;
  readonly #dropListeners: (() => void)[] = [];
  readonly #s;

  constructor(db: SqliteDatabase) {
    this.db = db;
    db.exec(SCHEMA);
    this.#external = new ExternalChanges(db);
    const prepare = (sql: string) => db.prepare(sql);
    this.#s = {
      getMeta: prepare('SELECT value FROM meta WHERE key = ?'),
      setMeta: prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      // One statement reads and advances the counter, so it is atomic even outside a transaction.
      nextIdNumber: prepare(
        `INSERT INTO meta (key, value) VALUES ('id_counter', '1')
         ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
         RETURNING CAST(value AS INTEGER) - 1 AS n`,
      ),
      insertUser: prepare('INSERT INTO users (id, email, name) VALUES (?, ?, ?)'),
      insertWorkspace: prepare('INSERT INTO workspaces (id, name, created_time) VALUES (?, ?, ?)'),
      insertBase: prepare('INSERT INTO bases (id, workspace_id, name, created_time) VALUES (?, ?, ?, ?)'),
      deleteBase: prepare('DELETE FROM bases WHERE id = ?'),
      moveBase: prepare('UPDATE bases SET workspace_id = ? WHERE id = ?'),
      updateUser: prepare('UPDATE users SET email = ?, name = ? WHERE id = ?'),
      deleteUser: prepare('DELETE FROM users WHERE id = ?'),
      rememberUser: prepare(
        'INSERT OR REPLACE INTO former_users (id, email, name) SELECT id, email, name FROM users WHERE id = ?',
      ),
      formerUser: prepare('SELECT id, email, name FROM former_users WHERE id = ?'),
      deleteUserPermissions: prepare('DELETE FROM base_permissions WHERE user_id = ?'),
      deleteWorkspace: prepare('DELETE FROM workspaces WHERE id = ?'),
      deletePermission: prepare('DELETE FROM base_permissions WHERE base_id = ? AND user_id = ?'),
      nextTransaction: prepare(
        'UPDATE bases SET transaction_number = transaction_number + 1 WHERE id = ? RETURNING transaction_number',
      ),
      setPermission: prepare(
        'INSERT INTO base_permissions (base_id, user_id, level) VALUES (?, ?, ?) ON CONFLICT(base_id, user_id) DO UPDATE SET level = excluded.level',
      ),
      insertTable: prepare(
        'INSERT INTO tables (id, base_id, name, description, primary_field_id, next_auto_number) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      updateTable: prepare('UPDATE tables SET name = ?, description = ?, date_dependencies = ? WHERE id = ?'),
      nextAutoNumber: prepare(
        'UPDATE tables SET next_auto_number = next_auto_number + 1 WHERE id = ? RETURNING next_auto_number - 1 AS n',
      ),
      insertField: prepare(
        'INSERT INTO fields (id, table_id, name, type, description, options) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      updateField: prepare('UPDATE fields SET name = ?, description = ?, options = ? WHERE id = ?'),
      insertView: prepare(
        'INSERT INTO views (id, table_id, name, type, personal_for_user_id, config) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      deleteView: prepare('DELETE FROM views WHERE id = ?'),
      recordsOfTable: prepare('SELECT * FROM records WHERE table_id = ? ORDER BY seq'),
      tableOfRecord: prepare('SELECT table_id FROM records WHERE id = ?'),
      insertRecord: prepare(
        'INSERT INTO records (id, table_id, created_time, created_by, auto_number, cells, modified) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      updateRecord: prepare('UPDATE records SET cells = ?, modified = ? WHERE id = ?'),
      deleteRecord: prepare('DELETE FROM records WHERE id = ?'),
      insertComment: prepare(
        'INSERT INTO comments (id, record_id, author_id, text, parent_comment_id, created_time, last_updated_time) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq',
      ),
      comment: prepare('SELECT * FROM comments WHERE id = ?'),
      commentsNewestFirst: prepare(
        'SELECT * FROM comments WHERE record_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
      ),
      commentCount: prepare('SELECT COUNT(*) AS n FROM comments WHERE record_id = ?'),
      updateComment: prepare('UPDATE comments SET text = ?, last_updated_time = ? WHERE id = ?'),
      deleteComment: prepare('DELETE FROM comments WHERE id = ?'),
      insertFile: prepare(
        'INSERT INTO files (id, filename, type, size, bytes, created_time) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      file: prepare('SELECT id, filename, type, size, created_time FROM files WHERE id = ?'),
      fileBytes: prepare('SELECT bytes FROM files WHERE id = ?'),
    };
  }

  #meta(key: string): string | undefined {
    const row = this.#s.getMeta.get(key) as { value: string } | undefined;
    return row?.value;
  }

  isEmpty(): boolean {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM bases').get() as { n: number }).n === 0;
  }

  seedInfo(): SeedInfo | undefined {
    const raw = this.#meta('seed_info');
    return raw === undefined ? undefined : (JSON.parse(raw) as SeedInfo);
  }

  /**
   * The next id of a kind: the seed and the database's running counter, read and advanced in one statement of
   * the caller's transaction. A seeded run mints the same ids every time; two processes on one file never
   * mint the same one; an id drawn in a transaction that rolls back is drawn again.
   */
  newId(kind: IdKind): string {
    const { n } = this.#s.nextIdNumber.get() as { n: number };
    return deriveId(kind, Number(this.#meta('seed') ?? '0'), n);
  }

  /**
   * Drops the caches if another process has written to the database since the last look. Called at the start
   * of every request and of every outermost transaction (under the write lock, so nothing else writes until
   * it ends).
   */
  sync(): void {
    if (this.#external.changed()) this.dropCaches();
  }

  /** Forgets every cached row and schema (and what listeners cache beside them), to be read again. */
  dropCaches(): void {
    this.#records.clear();
    this.#schema = undefined;
    for (const listener of this.#dropListeners) listener();
  }

  /** Lets state kept beside the store's (the administration plane's documents) be dropped with its caches. */
  onCachesDropped(listener: () => void): void {
    this.#dropListeners.push(listener);
  }

  /**
   * Runs `fn` in one SQLite transaction holding the write lock (a savepoint inside an open one, such as the
   * request's). If it throws, the caches are dropped, since they may hold changes the rollback undid.
   */
  transaction<T>(fn: () => T): T {
    const outermost = !this.db.inTransaction;
    try {
      return writeTransaction(this.db, () => {
        if (outermost) this.sync();
        return fn();
      });
    } catch (error) {
      this.dropCaches();
      throw error;
    }
  }

  /** Seeds with what `build` makes if the database is empty, or always when `reset` (sqlite.ts seedIfEmpty). */
  seedIfEmpty(build: () => StoreSeedData, reset: boolean): boolean {
    return seedIfEmpty(this.db, {
      reset,
      isEmpty: () => this.isEmpty(),
      seed: () => this.replaceAll(build()),
    });
  }

  // --- seeding -------------------------------------------------------------------------------------------

  /** Wipes everything and lays down a seed, in one transaction with prepared statements. */
  replaceAll(data: StoreSeedData): void {
    const s = this.#s;
    writeTransaction(this.db, () => {
      for (const table of TABLES_CHILD_FIRST) this.db.exec(`DELETE FROM ${table}`);
      this.db.exec(
        `DELETE FROM sqlite_sequence WHERE name IN (${TABLES_CHILD_FIRST.map((t) => `'${t}'`).join(', ')})`,
      );
      s.setMeta.run('seed', String(data.info.seed));
      s.setMeta.run('seed_info', json(data.info));
      for (const u of data.users) s.insertUser.run(u.id, u.email, u.name);
      for (const w of data.workspaces) s.insertWorkspace.run(w.id, w.name, w.createdTime);
      for (const b of data.bases) s.insertBase.run(b.id, b.workspaceId, b.name, b.createdTime);
      for (const p of data.permissions) s.setPermission.run(p.baseId, p.userId, p.level);
      for (const t of data.tables) {
        s.insertTable.run(t.id, t.baseId, t.name, t.description, t.primaryFieldId, t.nextAutoNumber);
      }
      for (const f of data.fields) this.#insertFieldRow(f);
      for (const v of data.views) this.#insertViewRow(v);
      for (const r of data.records) this.#insertRecordRow(r);
      for (const c of data.comments) {
        s.insertComment.run(
          c.id,
          c.recordId,
          c.authorId,
          c.text,
          c.parentCommentId,
          c.createdTime,
          c.lastUpdatedTime,
        );
      }
      s.setMeta.run('id_counter', String(data.idCounter));
    });
    this.dropCaches();
  }

  // --- schema --------------------------------------------------------------------------------------------

  schema(): SchemaSnapshot {
    this.#schema ??= this.#loadSchema();
    return this.#schema;
  }

  #loadSchema(): SchemaSnapshot {
    const all = (sql: string) => this.db.prepare(sql).all() as Row[];
    const users: UserRow[] = all('SELECT * FROM users ORDER BY pos').map((r) => ({
      id: str(r, 'id'),
      email: str(r, 'email'),
      name: str(r, 'name'),
    }));
    const workspaces: WorkspaceRow[] = all('SELECT * FROM workspaces ORDER BY pos').map((r) => ({
      id: str(r, 'id'),
      name: str(r, 'name'),
      createdTime: str(r, 'created_time'),
    }));
    const bases: BaseRow[] = all('SELECT * FROM bases ORDER BY pos').map((r) => ({
      id: str(r, 'id'),
      workspaceId: str(r, 'workspace_id'),
      name: str(r, 'name'),
      createdTime: str(r, 'created_time'),
    }));
    const baseById = new Map(bases.map((b) => [b.id, b]));
    const permissions = new Map<string, PermissionLevel>();
    for (const r of all('SELECT * FROM base_permissions')) {
      permissions.set(`${str(r, 'base_id')} ${str(r, 'user_id')}`, str(r, 'level') as PermissionLevel);
    }
    const fieldsByTable = new Map<string, FieldRow[]>();
    for (const r of all('SELECT * FROM fields ORDER BY pos')) {
      const field: FieldRow = {
        id: str(r, 'id'),
        tableId: str(r, 'table_id'),
        name: str(r, 'name'),
        type: str(r, 'type'),
        description: strOrNull(r, 'description'),
        options: parseJson<JsonObject | null>(r.options, null),
      };
      const list = fieldsByTable.get(field.tableId) ?? [];
      list.push(field);
      fieldsByTable.set(field.tableId, list);
    }
    const viewsByTable = new Map<string, ViewRow[]>();
    for (const r of all('SELECT * FROM views ORDER BY pos')) {
      const config = parseJson<ViewConfig>(r.config, {});
      const view: ViewRow = {
        id: str(r, 'id'),
        tableId: str(r, 'table_id'),
        name: str(r, 'name'),
        type: str(r, 'type') as ViewType,
        personalForUserId: strOrNull(r, 'personal_for_user_id'),
        sorts: config.sorts ?? [],
        filter: config.filter ?? null,
        hiddenFieldIds: config.hiddenFieldIds ?? [],
      };
      const list = viewsByTable.get(view.tableId) ?? [];
      list.push(view);
      viewsByTable.set(view.tableId, list);
    }
    const tablesOfBase = new Map<string, TableModel[]>();
    const tableById = new Map<string, TableModel>();
    const fieldById = new Map<string, { field: FieldRow; table: TableModel }>();
    const viewById = new Map<string, { view: ViewRow; table: TableModel }>();
    for (const r of all('SELECT * FROM tables ORDER BY pos')) {
      const row: TableRow = {
        id: str(r, 'id'),
        baseId: str(r, 'base_id'),
        name: str(r, 'name'),
        description: strOrNull(r, 'description'),
        primaryFieldId: str(r, 'primary_field_id'),
        dateDependencySettings: parseJson<JsonObject | null>(r.date_dependencies, null),
      };
      const base = baseById.get(row.baseId);
      const fields = fieldsByTable.get(row.id) ?? [];
      const primaryField = fields.find((f) => f.id === row.primaryFieldId) ?? fields[0];
      if (!base || !primaryField) continue;
      const table: TableModel = {
        row,
        base,
        fields,
        fieldById: new Map(fields.map((f) => [f.id, f])),
        fieldByName: new Map(fields.map((f) => [f.name, f])),
        views: viewsByTable.get(row.id) ?? [],
        primaryField,
      };
      tableById.set(row.id, table);
      const list = tablesOfBase.get(row.baseId) ?? [];
      list.push(table);
      tablesOfBase.set(row.baseId, list);
      for (const field of fields) fieldById.set(field.id, { field, table });
      for (const view of table.views) viewById.set(view.id, { view, table });
    }
    return {
      users,
      userById: new Map(users.map((u) => [u.id, u])),
      userByEmail: new Map(users.map((u) => [u.email.toLowerCase(), u])),
      workspaces,
      workspaceById: new Map(workspaces.map((w) => [w.id, w])),
      bases,
      baseById,
      tablesOfBase,
      tableById,
      fieldById,
      viewById,
      permissions,
    };
  }

  /**
   * What a user may do in a base: the direct grant, raised by whatever the overlay adds (the administration
   * plane's workspace and group collaborators).
   */
  permissionOf(baseId: string, userId: string): PermissionLevel {
    const direct = this.directPermissionOf(baseId, userId);
    const inherited = this.#overlay?.(baseId, userId) ?? 'none';
    return PERMISSION_RANK[inherited] > PERMISSION_RANK[direct] ? inherited : direct;
  }

  /** The user's own grant on the base, without what workspaces and groups add. */
  directPermissionOf(baseId: string, userId: string): PermissionLevel {
    return this.schema().permissions.get(`${baseId} ${userId}`) ?? 'none';
  }

  #overlay: ((baseId: string, userId: string) => PermissionLevel) | undefined;

  /** Lets the administration plane add inherited access (workspace and group collaborators). */
  setPermissionOverlay(overlay: (baseId: string, userId: string) => PermissionLevel): void {
    this.#overlay = overlay;
  }

  /** Grants `level` on a base directly, or takes the grant away with 'none'. */
  setPermission(baseId: string, userId: string, level: PermissionLevel): void {
    if (level === 'none') this.#s.deletePermission.run(baseId, userId);
    else this.#s.setPermission.run(baseId, userId, level);
    this.#schema = undefined;
  }

  insertUser(user: UserRow): void {
    this.#s.insertUser.run(user.id, user.email, user.name);
    this.#schema = undefined;
  }

  updateUser(user: UserRow): void {
    this.#s.updateUser.run(user.email, user.name, user.id);
    this.#schema = undefined;
  }

  /**
   * Removes a user and every direct base grant they held. Their email and name are kept aside (formerUser):
   * the audit log and eDiscovery exports still name who acted, as the upstream's `user` objects always do.
   */
  deleteUser(userId: string): void {
    this.#s.rememberUser.run(userId);
    this.#s.deleteUserPermissions.run(userId);
    this.#s.deleteUser.run(userId);
    this.#schema = undefined;
  }

  /** A user since deleted, as they were when deleted; undefined for a current or never-known id. */
  formerUser(userId: string): UserRow | undefined {
    const row = this.#s.formerUser.get(userId) as { id: string; email: string; name: string } | undefined;
    return row ? { id: row.id, email: row.email, name: row.name } : undefined;
  }

  insertWorkspace(workspace: WorkspaceRow): void {
    this.#s.insertWorkspace.run(workspace.id, workspace.name, workspace.createdTime);
    this.#schema = undefined;
  }

  /** Only an empty workspace can go; callers delete or move its bases first. */
  deleteWorkspace(workspaceId: string): void {
    this.#s.deleteWorkspace.run(workspaceId);
    this.#schema = undefined;
  }

  moveBase(baseId: string, workspaceId: string): void {
    this.#s.moveBase.run(workspaceId, baseId);
    this.#schema = undefined;
  }

  insertBase(base: BaseRow, permissions: { userId: string; level: PermissionLevel }[]): void {
    this.#s.insertBase.run(base.id, base.workspaceId, base.name, base.createdTime);
    for (const p of permissions) this.#s.setPermission.run(base.id, p.userId, p.level);
    this.#schema = undefined;
  }

  deleteBase(baseId: string): void {
    const tables = this.schema().tablesOfBase.get(baseId) ?? [];
    this.#s.deleteBase.run(baseId);
    for (const t of tables) this.#records.delete(t.row.id);
    this.#schema = undefined;
  }

  insertTable(table: TableRow): void {
    this.#s.insertTable.run(table.id, table.baseId, table.name, table.description, table.primaryFieldId, 1);
    this.#schema = undefined;
  }

  updateTable(table: TableRow): void {
    this.#s.updateTable.run(
      table.name,
      table.description,
      table.dateDependencySettings ? json(table.dateDependencySettings) : null,
      table.id,
    );
    this.#schema = undefined;
  }

  insertField(field: FieldRow): void {
    this.#insertFieldRow(field);
    this.#schema = undefined;
  }

  #insertFieldRow(f: FieldRow): void {
    this.#s.insertField.run(
      f.id,
      f.tableId,
      f.name,
      f.type,
      f.description,
      f.options ? json(f.options) : null,
    );
  }

  updateField(field: FieldRow): void {
    this.#s.updateField.run(
      field.name,
      field.description,
      field.options ? json(field.options) : null,
      field.id,
    );
    this.#schema = undefined;
  }

  insertView(view: ViewRow): void {
    this.#insertViewRow(view);
    this.#schema = undefined;
  }

  #insertViewRow(v: ViewRow): void {
    this.#s.insertView.run(v.id, v.tableId, v.name, v.type, v.personalForUserId, viewConfig(v));
  }

  deleteView(viewId: string): void {
    this.#s.deleteView.run(viewId);
    this.#schema = undefined;
  }

  /** The next transaction number of a base (1 for its first change). */
  nextTransactionNumber(baseId: string): number {
    const row = this.#s.nextTransaction.get(baseId) as { transaction_number: number } | undefined;
    return row?.transaction_number ?? 1;
  }

  nextAutoNumber(tableId: string): number {
    const row = this.#s.nextAutoNumber.get(tableId) as { n: number } | undefined;
    return row?.n ?? 1;
  }

  // --- records -------------------------------------------------------------------------------------------

  #cache(tableId: string): TableCache {
    let cache = this.#records.get(tableId);
    if (!cache) {
      const byId = new Map<string, RecordRow>();
      for (const row of this.#s.recordsOfTable.iterate(tableId) as Iterable<Row>) {
        const record = toRecord(row);
        byId.set(record.id, record);
      }
      cache = { byId, list: undefined };
      this.#records.set(tableId, cache);
    }
    return cache;
  }

  /** The table's records in creation order. Rows are shared with the cache: treat them as immutable. */
  records(tableId: string): readonly RecordRow[] {
    const cache = this.#cache(tableId);
    cache.list ??= [...cache.byId.values()];
    return cache.list;
  }

  recordMap(tableId: string): ReadonlyMap<string, RecordRow> {
    return this.#cache(tableId).byId;
  }

  record(tableId: string, recordId: string): RecordRow | undefined {
    return this.#cache(tableId).byId.get(recordId);
  }

  /** Finds a record by id alone (uploadAttachment names no table). */
  findRecord(recordId: string): RecordRow | undefined {
    const row = this.#s.tableOfRecord.get(recordId) as { table_id: string } | undefined;
    return row ? this.record(row.table_id, recordId) : undefined;
  }

  insertRecord(record: RecordRow): void {
    this.#insertRecordRow(record);
    const cache = this.#records.get(record.tableId);
    if (cache) {
      cache.byId.set(record.id, record);
      cache.list = undefined;
    }
  }

  #insertRecordRow(r: RecordRow): void {
    this.#s.insertRecord.run(
      r.id,
      r.tableId,
      r.createdTime,
      r.createdBy,
      r.autoNumber,
      json(r.cells),
      Object.keys(r.modified).length === 0 ? null : json(r.modified),
    );
  }

  updateRecord(record: RecordRow): void {
    this.#s.updateRecord.run(
      json(record.cells),
      Object.keys(record.modified).length === 0 ? null : json(record.modified),
      record.id,
    );
    const cache = this.#records.get(record.tableId);
    if (cache) {
      cache.byId.set(record.id, record);
      cache.list = undefined;
    }
  }

  deleteRecord(tableId: string, recordId: string): void {
    this.#s.deleteRecord.run(recordId);
    const cache = this.#records.get(tableId);
    if (cache) {
      cache.byId.delete(recordId);
      cache.list = undefined;
    }
  }

  // --- comments ------------------------------------------------------------------------------------------

  insertComment(comment: Omit<CommentRow, 'seq'>): CommentRow {
    const row = this.#s.insertComment.get(
      comment.id,
      comment.recordId,
      comment.authorId,
      comment.text,
      comment.parentCommentId,
      comment.createdTime,
      comment.lastUpdatedTime,
    ) as { seq: number };
    return { ...comment, seq: row.seq };
  }

  comment(commentId: string): CommentRow | undefined {
    const row = this.#s.comment.get(commentId) as Row | undefined;
    return row ? toComment(row) : undefined;
  }

  /** Newest first, strictly older than `beforeSeq`. */
  comments(recordId: string, beforeSeq: number, limit: number): CommentRow[] {
    return (this.#s.commentsNewestFirst.all(recordId, beforeSeq, limit) as Row[]).map(toComment);
  }

  commentCount(recordId: string): number {
    return (this.#s.commentCount.get(recordId) as { n: number }).n;
  }

  updateComment(commentId: string, text: string, at: string): void {
    this.#s.updateComment.run(text, at, commentId);
  }

  deleteComment(commentId: string): void {
    this.#s.deleteComment.run(commentId);
  }

  // --- files ---------------------------------------------------------------------------------------------

  insertFile(file: FileRow, bytes: Buffer): void {
    this.#s.insertFile.run(file.id, file.filename, file.type, file.size, bytes, file.createdTime);
  }

  file(fileId: string): FileRow | undefined {
    const row = this.#s.file.get(fileId) as Row | undefined;
    if (!row) return undefined;
    return {
      id: str(row, 'id'),
      filename: str(row, 'filename'),
      type: str(row, 'type'),
      size: Number(row.size),
      createdTime: str(row, 'created_time'),
    };
  }

  fileBytes(fileId: string): Buffer | undefined {
    const row = this.#s.fileBytes.get(fileId) as { bytes: Buffer } | undefined;
    return row?.bytes;
  }

  // --- inspection ----------------------------------------------------------------------------------------

  counts(): Record<string, number> {
    const count = (table: string) =>
      (this.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return {
      users: count('users'),
      workspaces: count('workspaces'),
      bases: count('bases'),
      tables: count('tables'),
      fields: count('fields'),
      views: count('views'),
      records: count('records'),
      comments: count('comments'),
      attachments: count('files'),
    };
  }

  /** Comments for inspection, oldest first, optionally of one record. */
  allComments(
    recordId: string | undefined,
    offset: number,
    limit: number,
  ): { total: number; items: CommentRow[] } {
    const where = recordId === undefined ? '' : 'WHERE record_id = ?';
    const args = recordId === undefined ? [] : [recordId];
    const total = (
      this.db.prepare(`SELECT COUNT(*) AS n FROM comments ${where}`).get(...args) as { n: number }
    ).n;
    const items = (
      this.db
        .prepare(`SELECT * FROM comments ${where} ORDER BY seq LIMIT ? OFFSET ?`)
        .all(...args, limit, offset) as Row[]
    ).map(toComment);
    return { total, items };
  }

  allFiles(offset: number, limit: number): { total: number; items: FileRow[] } {
    const total = (this.db.prepare('SELECT COUNT(*) AS n FROM files').get() as { n: number }).n;
    const items = (
      this.db
        .prepare('SELECT id, filename, type, size, created_time FROM files ORDER BY rowid LIMIT ? OFFSET ?')
        .all(limit, offset) as Row[]
    ).map((row) => ({
      id: str(row, 'id'),
      filename: str(row, 'filename'),
      type: str(row, 'type'),
      size: Number(row.size),
      createdTime: str(row, 'created_time'),
    }));
    return { total, items };
  }
}
