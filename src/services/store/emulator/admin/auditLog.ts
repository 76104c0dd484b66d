/**
 * The read side of the audit trail (audit.ts writes it): the enterprise audit log endpoint's filtered,
 * time-ordered pages with opaque next/previous cursors, and the slices the legacy audit log requests export.
 *
 * Everything is answered by SQL over `audit_events`, walking the index (root_account_id, timestamp, seq) with
 * keyset conditions on (timestamp, seq) and a LIMIT, so a page costs the same over 100,000 events as over ten;
 * nothing loads the whole table into memory. Events older than the 180-day retention are never returned.
 */
import type { Statement } from 'better-sqlite3';
import { err, ok, type Result } from '../../../../emulation/result.js';
import type { SqliteDatabase } from '../../../../emulation/sqlite.js';
import type { StoreDatabase } from '../database.js';
import { errors, type StoreError } from '../errors.js';
import { AUDIT_CATEGORIES, type AuditEventRow } from './audit.js';
import type { EnterpriseAccountDoc } from './model.js';

export const DAY_MS = 86_400_000;
/** How far back the audit log reaches. */
export const AUDIT_RETENTION_MS = 180 * DAY_MS;
export const AUDIT_PAGE_SIZE_DEFAULT = 10;
export const AUDIT_PAGE_SIZE_MAX = 1000;
/** Values each repeatable filter (originatingUserId, eventType, modelId, category) may carry. */
export const AUDIT_FILTER_MAX_VALUES = 100;
export const SORT_ORDERS = ['descending', 'ascending'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** Categories the `category` filter accepts: the ones audit.ts files events under. */
export const AUDIT_CATEGORY_NAMES: readonly string[] = [
  ...new Set([...Object.values(AUDIT_CATEGORIES), 'other']),
];

/** Which events: an account's (a root's covers its whole organisation), a time window and optional filters. */
export interface AuditFilter {
  account: EnterpriseAccountDoc;
  /** ISO instants; start inclusive, end exclusive. */
  start: string;
  end: string;
  originatingUserIds?: readonly string[];
  eventTypes?: readonly string[];
  modelIds?: readonly string[];
  categories?: readonly string[];
}

/** A place in the (timestamp, seq) order. */
export interface Position {
  timestamp: string;
  seq: number;
}

export interface AuditQuery extends AuditFilter {
  pageSize: number;
  sortOrder: SortOrder;
  /**
   * Continue onwards from the position ('next') or backwards from it ('previous'), in the sort order; the
   * request's time-named pointers are mapped to these by inSortOrder.
   */
  cursor?: { kind: 'next' | 'previous'; position: Position };
}

export interface AuditPage {
  rows: AuditEventRow[];
  /** Pointers by time, as the upstream names them: `next` to newer events, `previous` to older ones. */
  next?: string;
  previous?: string;
}

// --- parameters ------------------------------------------------------------------------------------------

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An ISO 8601 date or date-time as epoch milliseconds; a date-time without an offset is read as UTC (so the
 * answer never depends on the emulator's time zone).
 */
export function parseTime(name: string, raw: string): Result<number, StoreError> {
  const m = ISO_TIME.exec(raw.trim());
  const text = m && raw.includes('T') && m[1] === undefined ? `${raw.trim()}Z` : raw.trim();
  const ms = m ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    return err(
      errors.invalidRequest(`${name} must be an ISO 8601 timestamp, e.g. 2025-06-01T00:00:00.000Z.`),
    );
  }
  return ok(ms);
}

/** A whole number within bounds, or the 422 naming the parameter. */
export function intParam(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): Result<number, StoreError> {
  if (raw === undefined) return ok(fallback);
  const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    return err(errors.invalidRequest(`${name} must be an integer from ${min} to ${max}.`));
  }
  return ok(n);
}

/**
 * startTime (inclusive) and endTime (exclusive) of a log kept for `retentionMs`, as ISO timestamps: by default
 * from the start of the retention to now; a startTime before the retention is clipped to it (nothing older is
 * kept, whatever startTime asks for).
 */
export function parseWindow(
  one: (name: string) => string | undefined,
  now: Date,
  retentionMs: number,
): Result<{ start: string; end: string }, StoreError> {
  const retentionStart = now.getTime() - retentionMs;
  const startRaw = one('startTime');
  const endRaw = one('endTime');
  const start = startRaw === undefined ? ok(retentionStart) : parseTime('startTime', startRaw);
  if (!start.ok) return start;
  // Without endTime, everything up to now, including what happened at this very instant.
  const end = endRaw === undefined ? ok(now.getTime() + 1) : parseTime('endTime', endRaw);
  if (!end.ok) return end;
  if (end.value <= start.value)
    return err(errors.invalidRequest('endTime (default: now) must be later than startTime.'));
  return ok({
    start: new Date(Math.max(start.value, retentionStart)).toISOString(),
    end: new Date(end.value).toISOString(),
  });
}

/** The query string as the audit log endpoint reads it: single values and repeatable ones (`k[]=` or `k=`). */
export interface QueryParams {
  one(name: string): string | undefined;
  many(name: string): string[] | undefined;
}

/**
 * The endpoint's parameters, checked: a window clipped to the retention (defaults: 180 days ago to now),
 * filters of at most 100 values, pageSize 1 to 1000, sortOrder, and at most one cursor that this account and
 * sort order minted. Every problem is the upstream's 422 naming the parameter.
 */
export function parseAuditQuery(
  params: QueryParams,
  account: EnterpriseAccountDoc,
  now: Date,
): Result<AuditQuery, StoreError> {
  // Retention: nothing older than 180 days.
  const window = parseWindow((name) => params.one(name), now, AUDIT_RETENTION_MS);
  if (!window.ok) return window;

  const filters: Partial<Record<'originatingUserIds' | 'eventTypes' | 'modelIds' | 'categories', string[]>> =
    {};
  const names = [
    ['originatingUserId', 'originatingUserIds'],
    ['eventType', 'eventTypes'],
    ['modelId', 'modelIds'],
    ['category', 'categories'],
  ] as const;
  for (const [param, key] of names) {
    const values = params.many(param);
    if (values === undefined) continue;
    if (values.length > AUDIT_FILTER_MAX_VALUES) {
      return err(
        errors.invalidRequest(
          `${param} accepts at most ${AUDIT_FILTER_MAX_VALUES} values; got ${values.length}.`,
        ),
      );
    }
    const cleaned = values.map((v) => v.trim()).filter((v) => v !== '');
    if (cleaned.length === 0) continue;
    filters[key] = [...new Set(cleaned)];
  }
  // The upstream's category names are not published; the emulator knows its own and refuses typos.
  const unknownCategory = filters.categories?.find((c) => !AUDIT_CATEGORY_NAMES.includes(c));
  if (unknownCategory !== undefined) {
    return err(
      errors.invalidRequest(
        `Unknown category "${unknownCategory}"; known categories: ${AUDIT_CATEGORY_NAMES.join(', ')}.`,
      ),
    );
  }

  const pageSize = intParam(
    'pageSize',
    params.one('pageSize'),
    AUDIT_PAGE_SIZE_DEFAULT,
    1,
    AUDIT_PAGE_SIZE_MAX,
  );
  if (!pageSize.ok) return pageSize;
  const sortRaw = params.one('sortOrder') ?? 'descending';
  if (!(SORT_ORDERS as readonly string[]).includes(sortRaw)) {
    return err(errors.invalidRequest('sortOrder must be "descending" or "ascending".'));
  }
  const sortOrder = sortRaw as SortOrder;

  const next = params.one('next');
  const previous = params.one('previous');
  if (next !== undefined && previous !== undefined) {
    return err(errors.invalidRequest('Give either next or previous, not both.'));
  }
  let cursor: AuditQuery['cursor'];
  if (next !== undefined || previous !== undefined) {
    const kind = next !== undefined ? 'next' : 'previous';
    const position = decodeCursor(next ?? previous ?? '', account.id, sortOrder);
    if (!position) {
      return err(
        errors.invalidRequest(
          `${kind} is not a pagination pointer this endpoint returned for this account and sortOrder.`,
        ),
      );
    }
    cursor = { kind: inSortOrder(kind, sortOrder), position };
  }

  return ok({
    account,
    ...window.value,
    ...filters,
    pageSize: pageSize.value,
    sortOrder,
    ...(cursor ? { cursor } : {}),
  });
}

// --- cursors ---------------------------------------------------------------------------------------------

/**
 * The upstream's pointers go by time, whatever the sort order: `previous` reaches the older events, `next` the
 * newer ones (audit-log-events reference; pyairtable follows `previous` in descending order). A page here
 * continues onwards ('next') or backwards ('previous') in its sort order, and newest first onwards is older: in
 * descending order the names swap. The mapping is its own inverse, so it serves both ways.
 */
function inSortOrder(kind: 'next' | 'previous', sortOrder: SortOrder): 'next' | 'previous' {
  if (sortOrder === 'ascending') return kind;
  return kind === 'next' ? 'previous' : 'next';
}

interface CursorBody {
  v: 1;
  a: string;
  o: SortOrder;
  t: string;
  s: number;
}

/** An opaque pointer: base64url of the position, the account and the sort order it belongs to. */
export function encodeCursor(accountId: string, sortOrder: SortOrder, position: Position): string {
  const body: CursorBody = { v: 1, a: accountId, o: sortOrder, t: position.timestamp, s: position.seq };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

export function decodeCursor(raw: string, accountId: string, sortOrder: SortOrder): Position | undefined {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(raw)) return undefined;
  try {
    const body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<CursorBody>;
    if (body.v !== 1 || body.a !== accountId || body.o !== sortOrder) return undefined;
    if (typeof body.t !== 'string' || Number.isNaN(Date.parse(body.t))) return undefined;
    if (typeof body.s !== 'number' || !Number.isSafeInteger(body.s)) return undefined;
    return { timestamp: body.t, seq: body.s };
  } catch {
    return undefined;
  }
}

// --- queries ---------------------------------------------------------------------------------------------

type Direction = 'asc' | 'desc';

interface RawRow {
  seq: number;
  id: string;
  timestamp: string;
  account_id: string;
  root_account_id: string;
  action: string;
  category: string;
  actor_user_id: string | null;
  model_id: string;
  model_type: string;
  payload: string;
  context: string;
  origin: string;
}

const COLUMNS =
  'seq, id, timestamp, account_id, root_account_id, action, category, actor_user_id, model_id, model_type, payload, context, origin';

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function rowOf(raw: RawRow): AuditEventRow {
  return {
    seq: raw.seq,
    id: raw.id,
    timestamp: raw.timestamp,
    accountId: raw.account_id,
    rootAccountId: raw.root_account_id,
    action: raw.action,
    category: raw.category,
    actorUserId: raw.actor_user_id,
    modelId: raw.model_id,
    modelType: raw.model_type,
    payload: parseObject(raw.payload),
    context: parseObject(raw.context),
    origin: parseObject(raw.origin),
  };
}

/**
 * The WHERE clause of a filter, optionally only the events strictly beyond `from` in `direction`. The time
 * bounds come first and are plain comparisons on `timestamp`, tightened to the cursor's, so SQLite seeks the
 * index (root_account_id, timestamp, seq) straight to the page instead of scanning from the window's edge; ties
 * on the cursor's timestamp are settled by seq.
 */
function whereOf(
  filter: AuditFilter,
  from?: { position: Position; direction: Direction },
): { sql: string; params: unknown[] } {
  const account = filter.account;
  const clauses = ['root_account_id = ?'];
  const params: unknown[] = [account.rootEnterpriseAccountId];
  const at = from?.position;
  let lower = { sql: 'timestamp >= ?', value: filter.start };
  let upper = { sql: 'timestamp < ?', value: filter.end };
  if (at && from.direction === 'asc' && at.timestamp >= filter.start) {
    lower = { sql: 'timestamp >= ?', value: at.timestamp };
  }
  if (at && from.direction === 'desc' && at.timestamp < filter.end) {
    upper = { sql: 'timestamp <= ?', value: at.timestamp };
  }
  clauses.push(lower.sql, upper.sql);
  params.push(lower.value, upper.value);
  if (at) {
    clauses.push(from.direction === 'asc' ? '(timestamp > ? OR seq > ?)' : '(timestamp < ? OR seq < ?)');
    params.push(at.timestamp, at.seq);
  }
  // A root account sees its whole organisation; a descendant only its own events.
  if (account.parentEnterpriseAccountId !== null) {
    clauses.push('account_id = ?');
    params.push(account.id);
  }
  const list = (column: string, values: readonly string[] | undefined) => {
    if (!values || values.length === 0) return;
    clauses.push(`${column} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  };
  list('actor_user_id', filter.originatingUserIds);
  list('action', filter.eventTypes);
  list('model_id', filter.modelIds);
  list('category', filter.categories);
  return { sql: clauses.join(' AND '), params };
}

export class AuditLogReader {
  readonly #statements = new Map<string, Statement<unknown[]>>();

  constructor(
    readonly db: SqliteDatabase,
    private readonly store: StoreDatabase,
  ) {}

  #prepare(sql: string): Statement<unknown[]> {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare<unknown[]>(sql);
      // Filter shapes are few (which lists are present, their lengths); keep the cache bounded anyway.
      if (this.#statements.size > 500) this.#statements.clear();
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Up to `limit` events in `direction`, strictly beyond `from` when given. */
  #select(filter: AuditFilter, direction: Direction, from: Position | undefined, limit: number): RawRow[] {
    const where = whereOf(filter, from ? { position: from, direction } : undefined);
    const order = direction === 'desc' ? 'DESC' : 'ASC';
    const sql = `SELECT ${COLUMNS} FROM audit_events WHERE ${where.sql} ORDER BY timestamp ${order}, seq ${order} LIMIT ?`;
    return this.#prepare(sql).all(...where.params, limit) as RawRow[];
  }

  #exists(filter: AuditFilter, direction: Direction, from: Position): boolean {
    return this.#select(filter, direction, from, 1).length > 0;
  }

  /** One page in the sort order, with pointers to the pages on either side when there are events there. */
  page(query: AuditQuery): AuditPage {
    const forward: Direction = query.sortOrder === 'descending' ? 'desc' : 'asc';
    const backward: Direction = forward === 'desc' ? 'asc' : 'desc';
    const n = query.pageSize;
    let raw: RawRow[];
    let moreAfter: boolean | undefined;
    let moreBefore: boolean | undefined;
    if (query.cursor?.kind === 'previous') {
      raw = this.#select(query, backward, query.cursor.position, n + 1);
      moreBefore = raw.length > n;
      raw = raw.slice(0, n).reverse();
    } else {
      raw = this.#select(query, forward, query.cursor?.position, n + 1);
      moreAfter = raw.length > n;
      raw = raw.slice(0, n);
    }
    const first = raw[0];
    const last = raw.at(-1);
    if (!first || !last) return { rows: [] };
    const at = (r: RawRow): Position => ({ timestamp: r.timestamp, seq: r.seq });
    moreAfter ??= this.#exists(query, forward, at(last));
    moreBefore ??= this.#exists(query, backward, at(first));
    const cursor = (r: RawRow) => encodeCursor(query.account.id, query.sortOrder, at(r));
    const onwards = inSortOrder('next', query.sortOrder);
    const backwards = inSortOrder('previous', query.sortOrder);
    return {
      rows: raw.map(rowOf),
      ...(moreAfter ? { [onwards]: cursor(last) } : {}),
      ...(moreBefore ? { [backwards]: cursor(first) } : {}),
    };
  }

  /** How many events match, for splitting an export into files. */
  count(filter: AuditFilter): number {
    const where = whereOf(filter);
    const row = this.#prepare(`SELECT COUNT(*) AS n FROM audit_events WHERE ${where.sql}`).get(
      ...where.params,
    ) as { n: number };
    return row.n;
  }

  /** Matching events oldest first, `offset` of them skipped. */
  slice(filter: AuditFilter, offset: number, limit: number): AuditEventRow[] {
    const where = whereOf(filter);
    const rows = this.#prepare(
      `SELECT ${COLUMNS} FROM audit_events WHERE ${where.sql} ORDER BY timestamp ASC, seq ASC LIMIT ? OFFSET ?`,
    ).all(...where.params, limit, offset) as RawRow[];
    return rows.map(rowOf);
  }

  /** When, at or after `since`, the organisation's audit trail last recorded `action` on the model. */
  lastAction(rootAccountId: string, action: string, modelId: string, since: string): string | undefined {
    const row = this.#prepare(
      `SELECT MAX(timestamp) AS t FROM audit_events
       WHERE root_account_id = ? AND timestamp >= ? AND action = ? AND model_id = ?`,
    ).get(rootAccountId, since, action, modelId) as { t: string | null };
    return row.t ?? undefined;
  }

  /** An event as the endpoint answers it, the actor resolved against the current users. */
  eventJson(row: AuditEventRow): Record<string, unknown> {
    return {
      id: row.id,
      timestamp: row.timestamp,
      action: row.action,
      actor: actorJson(this.store, row.actorUserId),
      modelId: row.modelId,
      modelType: row.modelType,
      payload: row.payload,
      payloadVersion: '1.0',
      context: row.context,
      origin: row.origin,
    };
  }
}

/**
 * `{type:"user", user:{id,email,name}}` (a user since deleted as they were when deleted: the upstream's actor
 * and export `user` carry an email), `{type:"anonymous"}` for none. Only an id this store never knew is
 * answered with the id alone.
 */
export function actorJson(store: StoreDatabase, userId: string | null | undefined): Record<string, unknown> {
  if (!userId) return { type: 'anonymous' };
  const user = store.schema().userById.get(userId) ?? store.formerUser(userId);
  return { type: 'user', user: user ? { id: user.id, email: user.email, name: user.name } : { id: userId } };
}
