/**
 * The audit trail: every mutation made through the emulator (data plane, administration plane, SCIM, bulk
 * tables) becomes one audit log event, recorded by a middleware (../auditMiddleware.ts) after the request
 * succeeded: who (the token's user and a token id, never the token), what (action, model id and type, a short
 * payload), when (the clock) and context (enterprise account, base, workspace, interface). Events are kept in SQLite, indexed for the
 * enterprise audit log endpoint's time-ordered, filtered paging (see auditLog.ts), so 100,000 of them stay fast.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../../../emulation/clock.js';
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import type { AdminState } from './state.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, timestamp TEXT NOT NULL,
  account_id TEXT NOT NULL, root_account_id TEXT NOT NULL, action TEXT NOT NULL, category TEXT NOT NULL,
  actor_user_id TEXT, model_id TEXT NOT NULL, model_type TEXT NOT NULL, payload TEXT NOT NULL,
  context TEXT NOT NULL, origin TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_events_by_time ON audit_events(root_account_id, timestamp, seq);
`;

export interface AuditEntry {
  action: string;
  category: string;
  /** The acting user; absent for the system. */
  actorUserId?: string;
  modelId: string;
  modelType: string;
  /** The account the event belongs to (a descendant's events show in its root's log too). */
  enterpriseAccountId: string;
  payload?: Record<string, unknown>;
  context?: { baseId?: string; workspaceId?: string; interfaceId?: string };
  origin?: {
    ipAddress?: string;
    userAgent?: string;
    personalAccessTokenId?: string;
    oauthAccessTokenId?: string;
  };
  /** ISO time; the clock's now when absent. */
  timestamp?: string;
}

/** One stored event as the audit log endpoint returns it (actor resolved at read time). */
export interface AuditEventRow {
  seq: number;
  id: string;
  timestamp: string;
  accountId: string;
  rootAccountId: string;
  action: string;
  category: string;
  actorUserId: string | null;
  modelId: string;
  modelType: string;
  payload: Record<string, unknown>;
  context: Record<string, unknown>;
  origin: Record<string, unknown>;
}

export class AuditTrail {
  readonly #insert;
  readonly #clear;
  readonly #lastSeq;

  constructor(
    readonly db: SqliteDatabase,
    private readonly state: AdminState,
    private readonly clock: Clock,
  ) {
    db.exec(SCHEMA);
    this.#insert = db.prepare(
      `INSERT INTO audit_events (seq, id, timestamp, account_id, root_account_id, action, category,
        actor_user_id, model_id, model_type, payload, context, origin)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#clear = db.prepare('DELETE FROM audit_events');
    this.#lastSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) AS n FROM audit_events').pluck();
  }

  /** Records one event; an entry for an account the emulator does not know is dropped. */
  record(entry: AuditEntry): string | undefined {
    // The sequence number comes from the file, so it must be read and used under one write lock: another
    // process may be recording too.
    if (!this.db.inTransaction) return writeTransaction(this.db, () => this.record(entry));
    const account = this.state.account(entry.enterpriseAccountId);
    if (!account) return undefined;
    const timestamp = entry.timestamp ?? this.clock.now().toISOString();
    const seq = Number(this.#lastSeq.get()) + 1;
    const id = eventId(timestamp, seq);
    const context: Record<string, unknown> = {
      actionId: `act${id.slice(-14)}`,
      enterpriseAccountId: account.rootEnterpriseAccountId,
      ...(account.parentEnterpriseAccountId === null ? {} : { descendantEnterpriseAccountId: account.id }),
      ...entry.context,
    };
    this.#insert.run(
      seq,
      id,
      timestamp,
      account.id,
      account.rootEnterpriseAccountId,
      entry.action,
      entry.category,
      entry.actorUserId ?? null,
      entry.modelId,
      entry.modelType,
      JSON.stringify(entry.payload ?? {}),
      JSON.stringify(context),
      JSON.stringify(entry.origin ?? {}),
    );
    return id;
  }

  /** Many events in one transaction (seeding, benchmarks). */
  recordMany(entries: Iterable<AuditEntry>): number {
    let n = 0;
    writeTransaction(this.db, () => {
      for (const entry of entries) if (this.record(entry)) n++;
    });
    return n;
  }

  clear(): void {
    this.#clear.run();
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM audit_events').get() as { n: number }).n;
  }
}

/** Sortable ids like the upstream's (time first), unique by the event's sequence number. */
function eventId(timestamp: string, n: number): string {
  const time = Date.parse(timestamp).toString(36).toUpperCase().padStart(10, '0');
  const digest = createHash('sha256').update(`${timestamp}:${n}`).digest('hex').toUpperCase();
  return `${time}${digest.slice(0, 16)}`;
}

/** A stable id for a token that cannot be turned back into it. */
export function tokenId(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 14);
}

/** The audit category of a model type: what the log's `category` filter selects on. */
export const AUDIT_CATEGORIES: Readonly<Record<string, string>> = {
  base: 'base',
  table: 'base',
  field: 'base',
  view: 'base',
  record: 'record',
  comment: 'record',
  dataTable: 'record',
  webhook: 'integration',
  blockInstallation: 'integration',
  invite: 'sharing',
  share: 'sharing',
  interface: 'sharing',
  workspace: 'workspace',
  user: 'user',
  userGroup: 'group',
  enterpriseAccount: 'enterprise',
  auditLogTask: 'compliance',
  export: 'compliance',
};
