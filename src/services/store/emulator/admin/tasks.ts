/**
 * The asynchronous compliance tasks: legacy audit log requests and eDiscovery exports. Neither runs in the
 * background: a task's state is derived from the emulator's clock and its creation time (pending, then
 * processing after TASK_PROCESSING_AFTER_MS, then done or error after TASK_DONE_AFTER_MS), so a test moves a
 * task along by advancing its manual clock, and a sandbox sees it finish half a minute later.
 *
 * A finished task's files are served by the emulator itself under /_emulator/downloads (no token, like the
 * upstream's signed links): an export is the base's tables and records captured when it was requested (JSON,
 * and CSV files in a zip when asked), an audit log request is the period's audit events, 1,000 per file.
 */
import type { Clock } from '../../../../emulation/clock.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import type { SqliteDatabase } from '../../../../emulation/sqlite.js';
import { Reader } from '../compute.js';
import type { StoreDatabase } from '../database.js';
import { errors, type StoreError } from '../errors.js';
import { recordJson } from '../query.js';
import { AUDIT_RETENTION_MS, type AuditFilter, type AuditLogReader, actorJson, DAY_MS } from './auditLog.js';
import type { AuditLogTaskDoc, EnterpriseAccountDoc, ExportDoc } from './model.js';
import type { AdminState } from './state.js';

/** A task is picked up (pending → processing) this long after it was created. */
export const TASK_PROCESSING_AFTER_MS = 5_000;
/** A task finishes (processing → done, or error) this long after it was created. */
export const TASK_DONE_AFTER_MS = 30_000;
/** An export's download links work this long after it finished; the upstream does not publish its figure. */
export const EXPORT_LINK_TTL_MS = 7 * DAY_MS;
/** An audit log request's file links work this long after it finished (the upstream's "expire after 7 days"). */
export const AUDIT_LOG_LINK_TTL_MS = 7 * DAY_MS;
/** Events per audit log file (logFileUrls lists as many files as the period needs, at least one). */
export const AUDIT_EVENTS_PER_FILE = 1000;
export const TASK_PAGE_SIZE_DEFAULT = 10;
export const TASK_PAGE_SIZE_MAX = 100;
/** Where finished tasks' files are served, without a token. */
export const DOWNLOADS_PREFIX = '/_emulator/downloads';

export const TASK_STATES = ['pending', 'processing', 'done', 'error'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/**
 * Why a task failed. Only the message reaches the answer (the upstream's audit log `errorMessage` and export
 * `error` are strings); the type is kept for the emulator's own bookkeeping.
 */
export interface TaskError {
  type: string;
  message: string;
}

export interface TaskStatus {
  state: TaskState;
  error?: TaskError;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS compliance_exports (
  task_id TEXT PRIMARY KEY, snapshot TEXT NOT NULL, final_state TEXT, error TEXT
);
`;

/** The upstream's 404 for an unknown export base or task: `{"error":{"type":"NOT_FOUND"}}`. */
export const notFound = (): StoreError => ({ status: 404, type: 'NOT_FOUND' });

/** A month (YYYY-MM) or day (YYYY-MM-DD) as a UTC interval; undefined for a date the calendar lacks. */
export function periodOf(timePeriod: string): { start: number; end: number } | undefined {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(timePeriod);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]) - 1;
  if (month < 0 || month > 11) return undefined;
  if (m[3] === undefined) return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
  const day = Number(m[3]);
  const start = Date.UTC(year, month, day);
  if (day < 1 || new Date(start).getUTCMonth() !== month) return undefined;
  return { start, end: start + DAY_MS };
}

export interface ExportSnapshot {
  base: { id: string; name: string; workspaceId: string; createdTime: string };
  exportedTime: string;
  tables: {
    id: string;
    name: string;
    description: string | null;
    primaryFieldId: string;
    fields: { id: string; name: string; type: string }[];
    records: Record<string, unknown>[];
  }[];
}

interface ExportRow {
  task_id: string;
  snapshot: string;
  final_state: TaskState | null;
  error: string | null;
}

export interface TaskDeps {
  db: SqliteDatabase;
  store: StoreDatabase;
  state: AdminState;
  clock: Clock;
  log: AuditLogReader;
}

export class ComplianceTasks {
  readonly #s;

  constructor(private readonly deps: TaskDeps) {
    deps.db.exec(SCHEMA);
    this.#s = {
      insert: deps.db.prepare('INSERT OR REPLACE INTO compliance_exports (task_id, snapshot) VALUES (?, ?)'),
      get: deps.db.prepare('SELECT * FROM compliance_exports WHERE task_id = ?'),
      finish: deps.db.prepare('UPDATE compliance_exports SET final_state = ?, error = ? WHERE task_id = ?'),
      clear: deps.db.prepare('DELETE FROM compliance_exports'),
    };
  }

  clear(): void {
    this.#s.clear.run();
  }

  #now(): number {
    return this.deps.clock.now().getTime();
  }

  /** Tasks of the accounts an admin of `account` administers (a root's include its descendants'), newest first. */
  #inScope<T extends { enterpriseAccountId: string }>(docs: T[], account: EnterpriseAccountDoc): T[] {
    const scope = this.deps.state.accountScope(account.id);
    return docs.filter((d) => scope.has(d.enterpriseAccountId)).reverse();
  }

  // --- audit log requests --------------------------------------------------------------------------------

  createAuditLogTask(
    account: EnterpriseAccountDoc,
    userId: string,
    body: { timePeriod: string; filter?: string },
  ): Result<AuditLogTaskDoc, StoreError> {
    if (!periodOf(body.timePeriod)) {
      return err(errors.invalidRequest(`timePeriod "${body.timePeriod}" is not a date of the calendar.`));
    }
    const doc: AuditLogTaskDoc = {
      id: this.deps.store.newId('auditLogTask'),
      enterpriseAccountId: account.id,
      createdTime: new Date(this.#now()).toISOString(),
      createdByUserId: userId,
      timePeriod: body.timePeriod,
      filter: body.filter ?? null,
    };
    return ok(this.deps.state.put('auditLogTask', doc));
  }

  auditLogTasks(account: EnterpriseAccountDoc): AuditLogTaskDoc[] {
    return this.#inScope(this.deps.state.list('auditLogTask'), account);
  }

  auditLogTask(account: EnterpriseAccountDoc, taskId: string): AuditLogTaskDoc | undefined {
    const doc = this.deps.state.get('auditLogTask', taskId);
    return doc && this.deps.state.accountScope(account.id).has(doc.enterpriseAccountId) ? doc : undefined;
  }

  /** Why the period cannot be exported: entirely before the retention window, or entirely in the future. */
  #periodProblem(doc: AuditLogTaskDoc): TaskError | undefined {
    const period = periodOf(doc.timePeriod);
    const created = Date.parse(doc.createdTime);
    if (!period) return { type: 'INVALID_TIME_PERIOD', message: `"${doc.timePeriod}" is not a date.` };
    if (period.end <= created - AUDIT_RETENTION_MS) {
      return {
        type: 'INVALID_TIME_PERIOD',
        message: `The time period ${doc.timePeriod} ended before the audit log's 180-day retention window.`,
      };
    }
    if (period.start >= created) {
      return {
        type: 'INVALID_TIME_PERIOD',
        message: `The time period ${doc.timePeriod} had not started when the request was made.`,
      };
    }
    return undefined;
  }

  auditLogStatus(doc: AuditLogTaskDoc): TaskStatus {
    const elapsed = this.#now() - Date.parse(doc.createdTime);
    if (elapsed < TASK_PROCESSING_AFTER_MS) return { state: 'pending' };
    const problem = this.#periodProblem(doc);
    if (problem) return { state: 'error', error: problem };
    return { state: elapsed < TASK_DONE_AFTER_MS ? 'processing' : 'done' };
  }

  /**
   * The events a request exports: the period within the retention window as it stood when the request was
   * made, up to when it finished; the account's (a root's: its organisation's); `filter` as a comma-separated
   * list of event types.
   */
  #auditFilter(doc: AuditLogTaskDoc): AuditFilter | undefined {
    const account = this.deps.state.account(doc.enterpriseAccountId);
    const period = periodOf(doc.timePeriod);
    if (!account || !period) return undefined;
    const created = Date.parse(doc.createdTime);
    const types = (doc.filter ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    return {
      account,
      start: new Date(Math.max(period.start, created - AUDIT_RETENTION_MS)).toISOString(),
      end: new Date(Math.min(period.end, created + TASK_DONE_AFTER_MS)).toISOString(),
      ...(types.length > 0 ? { eventTypes: types } : {}),
    };
  }

  /** When a finished request's file links stop working. */
  auditLogExpiration(doc: AuditLogTaskDoc): number {
    return Date.parse(doc.createdTime) + TASK_DONE_AFTER_MS + AUDIT_LOG_LINK_TTL_MS;
  }

  #auditFileCount(doc: AuditLogTaskDoc): number {
    const filter = this.#auditFilter(doc);
    const count = filter ? this.deps.log.count(filter) : 0;
    return Math.max(1, Math.ceil(count / AUDIT_EVENTS_PER_FILE));
  }

  auditLogJson(doc: AuditLogTaskDoc, origin: string): Record<string, unknown> {
    const status = this.auditLogStatus(doc);
    const files = status.state === 'done' ? this.#auditFileCount(doc) : 0;
    return {
      id: doc.id,
      state: status.state,
      createdTime: doc.createdTime,
      createdByUserId: doc.createdByUserId,
      timePeriod: doc.timePeriod,
      ...(doc.filter === null ? {} : { filter: doc.filter }),
      ...(status.state === 'done'
        ? {
            data: {
              expirationTime: new Date(this.auditLogExpiration(doc)).toISOString(),
              logFileUrls: Array.from(
                { length: files },
                (_, i) => `${origin}${DOWNLOADS_PREFIX}/${doc.id}-${i + 1}.json`,
              ),
            },
          }
        : {}),
      // The upstream's error state carries the message as `errorMessage`, a string.
      ...(status.error ? { errorMessage: status.error.message } : {}),
    };
  }

  // --- eDiscovery exports --------------------------------------------------------------------------------

  /** Starts an export of a base of the accounts `account` administers; 404 for any other base. */
  createExport(
    account: EnterpriseAccountDoc,
    userId: string,
    body: { baseId: string; includeCsvFormat?: boolean; shouldSendEmailOnCompletion?: boolean },
    origin: string,
  ): Result<ExportDoc, StoreError> {
    const { store, state } = this.deps;
    const base = store.schema().baseById.get(body.baseId);
    const owner = base ? state.accountOfBase(base.id) : undefined;
    if (!base || owner === undefined || !state.accountScope(account.id).has(owner)) return err(notFound());
    const now = new Date(this.#now());
    const doc: ExportDoc = {
      id: store.newId('export'),
      enterpriseAccountId: account.id,
      createdTime: now.toISOString(),
      userId,
      request: {
        baseId: base.id,
        includeCsvFormat: body.includeCsvFormat ?? false,
        shouldSendEmailOnCompletion: body.shouldSendEmailOnCompletion ?? false,
      },
    };
    // The export captures the base as it is when requested; later edits do not change its files.
    const snapshot = this.#snapshot(base.id, now, origin);
    state.transaction(() => {
      state.put('export', doc);
      this.#s.insert.run(doc.id, JSON.stringify(snapshot));
    });
    return ok(doc);
  }

  #snapshot(baseId: string, now: Date, origin: string): ExportSnapshot {
    const { store } = this.deps;
    const schema = store.schema();
    const base = schema.baseById.get(baseId);
    if (!base) throw new Error(`no base ${baseId}`);
    const reader = new Reader(store, schema, { now, origin });
    return {
      base: { id: base.id, name: base.name, workspaceId: base.workspaceId, createdTime: base.createdTime },
      exportedTime: now.toISOString(),
      tables: (schema.tablesOfBase.get(baseId) ?? []).map((table) => ({
        id: table.row.id,
        name: table.row.name,
        description: table.row.description,
        primaryFieldId: table.row.primaryFieldId,
        fields: table.fields.map((f) => ({ id: f.id, name: f.name, type: f.type })),
        records: store.records(table.row.id).map((row) =>
          recordJson(reader.transientView(table, row), {
            cellFormat: 'json',
            returnFieldsByFieldId: false,
          }),
        ),
      })),
    };
  }

  exports(account: EnterpriseAccountDoc): ExportDoc[] {
    return this.#inScope(this.deps.state.list('export'), account);
  }

  exportDoc(account: EnterpriseAccountDoc, taskId: string): ExportDoc | undefined {
    const doc = this.deps.state.get('export', taskId);
    return doc && this.deps.state.accountScope(account.id).has(doc.enterpriseAccountId) ? doc : undefined;
  }

  /**
   * Pending, processing, then done; error instead when the base was deleted before the export finished. The
   * first time an export is seen finished its outcome is kept, so deleting the base later changes nothing.
   */
  exportStatus(doc: ExportDoc): TaskStatus {
    const row = this.#s.get.get(doc.id) as ExportRow | undefined;
    if (row?.final_state) {
      return {
        state: row.final_state,
        ...(row.error ? { error: JSON.parse(row.error) as TaskError } : {}),
      };
    }
    const now = this.#now();
    const created = Date.parse(doc.createdTime);
    const elapsed = now - created;
    if (elapsed < TASK_PROCESSING_AFTER_MS) return { state: 'pending' };
    const finish = (status: TaskStatus): TaskStatus => {
      this.#s.finish.run(status.state, status.error ? JSON.stringify(status.error) : null, doc.id);
      return status;
    };
    const baseId = doc.request.baseId;
    if (!row || !this.deps.store.schema().baseById.has(baseId)) {
      // When it went: the audit trail's deleteBase, else (deleted some other way) no later than now.
      const root = this.deps.state.account(doc.enterpriseAccountId)?.rootEnterpriseAccountId ?? '';
      const deleted = this.deps.log.lastAction(root, 'deleteBase', baseId, doc.createdTime);
      const deletedAt = deleted === undefined ? now : Date.parse(deleted);
      if (!row || deletedAt < created + TASK_DONE_AFTER_MS) {
        return finish({
          state: 'error',
          error: {
            type: 'BASE_NOT_FOUND',
            message: `Base ${baseId} was deleted before the export finished.`,
          },
        });
      }
    }
    if (elapsed < TASK_DONE_AFTER_MS) return { state: 'processing' };
    return finish({ state: 'done' });
  }

  exportExpiration(doc: ExportDoc): number {
    return Date.parse(doc.createdTime) + TASK_DONE_AFTER_MS + EXPORT_LINK_TTL_MS;
  }

  exportJson(doc: ExportDoc, origin: string): Record<string, unknown> {
    const status = this.exportStatus(doc);
    return {
      id: doc.id,
      state: status.state,
      createdTime: doc.createdTime,
      user: (actorJson(this.deps.store, doc.userId).user as Record<string, unknown> | undefined) ?? {
        id: doc.userId,
      },
      request: { ...doc.request },
      ...(status.state === 'done'
        ? {
            data: {
              expirationTime: new Date(this.exportExpiration(doc)).toISOString(),
              jsonDownloadUrl: `${origin}${DOWNLOADS_PREFIX}/${doc.id}.json`,
              ...(doc.request.includeCsvFormat
                ? { csvZipDownloadUrl: `${origin}${DOWNLOADS_PREFIX}/${doc.id}.csv.zip` }
                : {}),
            },
          }
        : {}),
      // The upstream's `error` is the message alone, a string.
      ...(status.error ? { error: status.error.message } : {}),
    };
  }

  // --- downloads -----------------------------------------------------------------------------------------

  /**
   * A finished task's file by its name under DOWNLOADS_PREFIX: `<exportId>.json`, `<exportId>.csv.zip`,
   * `<auditLogTaskId>-<n>.json`. 404 for anything unknown or unfinished, 410 once the task's links expired.
   */
  download(
    file: string,
  ): { ok: true; type: string; body: string | Uint8Array; name: string } | { ok: false; status: 404 | 410 } {
    const exportMatch = /^(ett[A-Za-z0-9]{14})\.(json|csv\.zip)$/.exec(file);
    if (exportMatch) {
      const [, id = '', kind] = exportMatch;
      const doc = this.deps.state.get('export', id);
      if (!doc || this.exportStatus(doc).state !== 'done') return { ok: false, status: 404 };
      if (kind === 'csv.zip' && !doc.request.includeCsvFormat) return { ok: false, status: 404 };
      if (this.#now() >= this.exportExpiration(doc)) return { ok: false, status: 410 };
      const row = this.#s.get.get(id) as ExportRow | undefined;
      if (!row) return { ok: false, status: 404 };
      const snapshot = JSON.parse(row.snapshot) as ExportSnapshot;
      if (kind === 'json') {
        const body = { exportId: doc.id, enterpriseAccountId: doc.enterpriseAccountId, ...snapshot };
        return { ok: true, type: 'application/json', body: JSON.stringify(body), name: file };
      }
      return {
        ok: true,
        type: 'application/zip',
        body: csvZip(snapshot, new Date(snapshot.exportedTime)),
        name: file,
      };
    }
    const auditMatch = /^(alt[A-Za-z0-9]{14})-(\d+)\.json$/.exec(file);
    if (auditMatch) {
      const [, id = '', partText = ''] = auditMatch;
      const doc = this.deps.state.get('auditLogTask', id);
      const filter = doc ? this.#auditFilter(doc) : undefined;
      if (!doc || !filter || this.auditLogStatus(doc).state !== 'done') return { ok: false, status: 404 };
      const part = Number(partText);
      const parts = this.#auditFileCount(doc);
      if (!Number.isSafeInteger(part) || part < 1 || part > parts) return { ok: false, status: 404 };
      if (this.#now() >= this.auditLogExpiration(doc)) return { ok: false, status: 410 };
      const rows = this.deps.log.slice(filter, (part - 1) * AUDIT_EVENTS_PER_FILE, AUDIT_EVENTS_PER_FILE);
      const body = {
        auditLogTaskId: doc.id,
        timePeriod: doc.timePeriod,
        ...(doc.filter === null ? {} : { filter: doc.filter }),
        part,
        parts,
        events: rows.map((r) => this.deps.log.eventJson(r)),
      };
      return { ok: true, type: 'application/json', body: JSON.stringify(body), name: file };
    }
    return { ok: false, status: 404 };
  }
}

// --- CSV in a zip ------------------------------------------------------------------------------------------

/** A cell as CSV text: lists joined with commas, collaborators by name, attachments as `file (url)`. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(cellText).join(', ');
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.filename === 'string' && typeof o.url === 'string') return `${o.filename} (${o.url})`;
    for (const key of ['name', 'email', 'text', 'label', 'id']) {
      if (typeof o[key] === 'string') return o[key] as string;
    }
    return JSON.stringify(value);
  }
  return String(value);
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function tableCsv(table: ExportSnapshot['tables'][number]): string {
  const names = table.fields.map((f) => f.name);
  const lines = [names.map(csvField).join(',')];
  for (const record of table.records) {
    const fields = (record.fields ?? {}) as Record<string, unknown>;
    lines.push(names.map((n) => csvField(cellText(fields[n]))).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** One CSV per table, named after it (made safe for file systems, unique within the archive). */
function csvZip(snapshot: ExportSnapshot, at: Date): Uint8Array {
  const used = new Set<string>();
  const files = snapshot.tables.map((table) => {
    const stem =
      [...table.name]
        .map((ch) => (ch.charCodeAt(0) < 32 || '\\/:*?"<>|'.includes(ch) ? '_' : ch))
        .join('')
        .trim() || table.id;
    let name = `${stem}.csv`;
    for (let i = 2; used.has(name.toLowerCase()); i++) name = `${stem} (${i}).csv`;
    used.add(name.toLowerCase());
    return { name, data: Buffer.from(tableCsv(table), 'utf8') };
  });
  return zipStored(files, at);
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A zip archive of uncompressed ("stored") entries with UTF-8 names: enough for any unzip tool. */
export function zipStored(files: { name: string; data: Buffer }[], at: Date): Uint8Array {
  const time = (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2);
  const date =
    (Math.max(0, at.getUTCFullYear() - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate();
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, 'utf8');
    const crc = crc32(file.data);
    // The local header and the central directory entry share a run of fields, the central one two bytes later
    // (after its "version made by"); the rest of both is zero but for the entry's offset in the central one.
    const shared = (header: Buffer, at: number) => {
      header.writeUInt16LE(20, at); // version needed to extract: 2.0
      header.writeUInt16LE(0x0800, at + 2); // flags: names are UTF-8
      header.writeUInt16LE(0, at + 4); // method: stored
      header.writeUInt16LE(time, at + 6);
      header.writeUInt16LE(date, at + 8);
      header.writeUInt32LE(crc, at + 10);
      header.writeUInt32LE(file.data.length, at + 14); // compressed size
      header.writeUInt32LE(file.data.length, at + 18); // size
      header.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    shared(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by: 2.0
    shared(central, 6);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, file.data);
    centrals.push(central, name);
    offset += local.length + name.length + file.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}
