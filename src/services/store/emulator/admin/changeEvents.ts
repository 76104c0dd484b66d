/**
 * Enterprise change events: one `base_modified` event per base each time the data plane publishes a batch of
 * changes (one request's worth: records, tables, fields, views), attributed to the user who made them and kept
 * in SQLite under the base's enterprise account. The endpoint lists them newest first for 14 days, paged with
 * an opaque offset over (timestamp, seq), from the index (root_account_id, timestamp, seq).
 */

import { err, ok, type Result } from '../../../../emulation/result.js';
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import type { ChangeEvent, ChangeFeed } from '../changes.js';
import type { StoreDatabase } from '../database.js';
import { errors, type StoreError } from '../errors.js';
import { deriveId } from '../ids.js';
import { actorJson, DAY_MS, intParam, parseWindow } from './auditLog.js';
import type { EnterpriseAccountDoc } from './model.js';
import type { AdminState } from './state.js';

/** How long change events are kept. */
export const CHANGE_EVENT_RETENTION_MS = 14 * DAY_MS;
export const CHANGE_EVENT_PAGE_SIZE_DEFAULT = 10;
export const CHANGE_EVENT_PAGE_SIZE_MAX = 100;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS change_events (
  seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, timestamp TEXT NOT NULL,
  account_id TEXT NOT NULL, root_account_id TEXT NOT NULL, base_id TEXT NOT NULL, actor_user_id TEXT
);
CREATE INDEX IF NOT EXISTS change_events_by_time ON change_events(root_account_id, timestamp, seq);
`;

interface Row {
  seq: number;
  id: string;
  timestamp: string;
  account_id: string;
  root_account_id: string;
  base_id: string;
  actor_user_id: string | null;
}

export interface ChangeEventQuery {
  account: EnterpriseAccountDoc;
  start: string;
  end: string;
  pageSize: number;
  /** Continue after this (timestamp, seq), newest first. */
  after?: { timestamp: string; seq: number };
}

export interface ChangeEventDeps {
  db: SqliteDatabase;
  store: StoreDatabase;
  state: AdminState;
  hub: ChangeFeed;
}

export class ChangeEventLog {
  readonly #s;

  constructor(private readonly deps: ChangeEventDeps) {
    deps.db.exec(SCHEMA);
    this.#s = {
      insert: deps.db.prepare(
        `INSERT INTO change_events (seq, id, timestamp, account_id, root_account_id, base_id, actor_user_id)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      clear: deps.db.prepare('DELETE FROM change_events'),
      count: deps.db.prepare('SELECT COUNT(*) AS n FROM change_events'),
      // The last seq used, from the file (another process may have recorded since); ids derive from it, so
      // they never consume the data plane's id counter.
      lastSeq: deps.db.prepare('SELECT COALESCE(MAX(seq), 0) AS n FROM change_events').pluck(),
    };
    deps.hub.subscribe((events) => this.#onChanges(events));
  }

  /** One event per base of the batch: the first change's time and user stand for the request. */
  #onChanges(events: readonly ChangeEvent[]): void {
    const byBase = new Map<string, ChangeEvent>();
    for (const event of events) {
      const seen = byBase.get(event.baseId);
      if (!seen || (seen.userId === undefined && event.userId !== undefined)) byBase.set(event.baseId, event);
    }
    for (const [baseId, event] of byBase) {
      this.record({ baseId, timestamp: event.timestamp, userId: event.userId });
    }
  }

  /** Stores one event for a base of a known account; returns its id, undefined for a base outside them. */
  record(entry: { baseId: string; timestamp: string; userId?: string | undefined }): string | undefined {
    // The seq is read and used under one write lock (a savepoint of the caller's transaction, if any).
    if (!this.deps.db.inTransaction) return writeTransaction(this.deps.db, () => this.record(entry));
    const accountId = this.deps.state.accountOfBase(entry.baseId);
    const account = accountId === undefined ? undefined : this.deps.state.account(accountId);
    if (!account) return undefined;
    const seq = Number(this.#s.lastSeq.get()) + 1;
    const id = deriveId('changeEvent', this.deps.store.seedInfo()?.seed ?? 0, seq);
    this.#s.insert.run(
      seq,
      id,
      new Date(entry.timestamp).toISOString(),
      account.id,
      account.rootEnterpriseAccountId,
      entry.baseId,
      entry.userId ?? null,
    );
    return id;
  }

  clear(): void {
    this.#s.clear.run();
  }

  count(): number {
    return (this.#s.count.get() as { n: number }).n;
  }

  /**
   * A few events of the seeded bases, so the log is not empty on a fresh sandbox: two within the 14 days and
   * one older that the endpoint no longer returns.
   */
  seed(now: Date): void {
    const { store } = this.deps;
    const [roadmap, crm, calendar] = store.schema().bases;
    const [owner, ada, grace] = store.schema().users;
    const at = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();
    const entries = [
      { base: calendar, user: grace, days: 20 },
      { base: crm, user: ada, days: 6 },
      { base: roadmap, user: owner, days: 2 },
    ];
    for (const { base, user, days } of entries) {
      if (base) this.record({ baseId: base.id, timestamp: at(days), userId: user?.id });
    }
  }

  /** One page, newest first, and where the next one starts. */
  page(query: ChangeEventQuery): { rows: Row[]; more: boolean } {
    const { account } = query;
    const after = query.after;
    // The offset's timestamp tightens the upper bound itself, so the index seeks straight to the page.
    const tighter = after !== undefined && after.timestamp < query.end;
    const clauses = ['root_account_id = ?', 'timestamp >= ?', tighter ? 'timestamp <= ?' : 'timestamp < ?'];
    const params: unknown[] = [
      account.rootEnterpriseAccountId,
      query.start,
      tighter ? after.timestamp : query.end,
    ];
    // A root account sees its whole organisation's bases; a descendant only its own.
    if (account.parentEnterpriseAccountId !== null) {
      clauses.push('account_id = ?');
      params.push(account.id);
    }
    if (after) {
      clauses.push('(timestamp < ? OR seq < ?)');
      params.push(after.timestamp, after.seq);
    }
    const rows = this.deps.db
      .prepare(
        `SELECT * FROM change_events WHERE ${clauses.join(' AND ')} ORDER BY timestamp DESC, seq DESC LIMIT ?`,
      )
      .all(...params, query.pageSize + 1) as Row[];
    return { rows: rows.slice(0, query.pageSize), more: rows.length > query.pageSize };
  }

  eventJson(row: Row): Record<string, unknown> {
    return {
      id: row.id,
      type: 'base_modified',
      actor: actorJson(this.deps.store, row.actor_user_id),
      objectId: row.base_id,
      objectType: 'base',
      eventTimestamp: row.timestamp,
      timestamp: row.timestamp,
    };
  }
}

/** The offset a page hands out: base64url of where it ended, bound to the account. */
export function encodeOffset(accountId: string, row: { timestamp: string; seq: number }): string {
  return Buffer.from(JSON.stringify({ a: accountId, t: row.timestamp, s: row.seq }), 'utf8').toString(
    'base64url',
  );
}

function decodeOffset(raw: string, accountId: string): { timestamp: string; seq: number } | undefined {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(raw)) return undefined;
  try {
    const body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as {
      a?: unknown;
      t?: unknown;
      s?: unknown;
    };
    if (body.a !== accountId || typeof body.t !== 'string' || Number.isNaN(Date.parse(body.t)))
      return undefined;
    if (typeof body.s !== 'number' || !Number.isSafeInteger(body.s)) return undefined;
    return { timestamp: body.t, seq: body.s };
  } catch {
    return undefined;
  }
}

/**
 * The endpoint's parameters: startTime (inclusive) and endTime (exclusive) within the 14 days kept (defaults:
 * 14 days ago to now), pageSize 1 to 100 (default 10), and an offset this endpoint returned for this account.
 */
export function parseChangeEventQuery(
  one: (name: string) => string | undefined,
  account: EnterpriseAccountDoc,
  now: Date,
): Result<ChangeEventQuery, StoreError> {
  const window = parseWindow(one, now, CHANGE_EVENT_RETENTION_MS);
  if (!window.ok) return window;
  const pageSize = intParam(
    'pageSize',
    one('pageSize'),
    CHANGE_EVENT_PAGE_SIZE_DEFAULT,
    1,
    CHANGE_EVENT_PAGE_SIZE_MAX,
  );
  if (!pageSize.ok) return pageSize;
  const offsetRaw = one('offset');
  let after: ChangeEventQuery['after'];
  if (offsetRaw !== undefined) {
    after = decodeOffset(offsetRaw, account.id);
    if (!after) return err(errors.invalidOffset());
  }
  return ok({
    account,
    ...window.value,
    pageSize: pageSize.value,
    ...(after ? { after } : {}),
  });
}
