/**
 * Webhooks of the emulated Airtable Web API: registrations, payloads from the store's change feed (built by
 * webhookPayloads.ts), notification pings signed with X-Airtable-Content-MAC, expiry and retention.
 * Registrations and payloads live in SQLite beside the store's tables; ping timers live in memory. Knows
 * nothing of HTTP (routes/webhooks.ts maps failures to statuses).
 *
 * Upstream rules played here (reference/upstream-apis.md §C.6): at most 10 webhooks per base (2 per OAuth
 * integration); PAT and OAuth webhooks expire after 7 days unless refreshed or their payloads are listed; an
 * expired webhook is disabled but stays readable for 7 more days; payloads are kept 7 days, numbered by a
 * per-webhook cursor that never resets; payloads list at most 50 at a time. Where the upstream is silent, the
 * choice made is written beside the code that makes it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Clock } from '../../../emulation/clock.js';
import { err, ok, type Result } from '../../../emulation/result.js';
import type { ChangeEvent, ChangeFeed } from './changes.js';
import { buildPayload, type PayloadContext } from './webhookPayloads.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export const MAX_WEBHOOKS_PER_BASE = 10;
export const MAX_OAUTH_WEBHOOKS_PER_BASE = 2;
/** Lifetime of a PAT or OAuth webhook, renewed by refresh and by listing payloads. */
export const WEBHOOK_LIFETIME_MS = 7 * DAY_MS;
/** How long payloads are kept, and how long an expired webhook stays readable. */
export const WEBHOOK_RETENTION_MS = 7 * DAY_MS;
export const MAX_PAYLOADS_PER_PAGE = 50;
/**
 * The upstream's retry schedule for failed pings is not published; the emulator retries three times, 1 s, 5 s
 * and 25 s after each failure, so a tester sees `willBeRetried` flip and a flaky receiver recover.
 */
export const PING_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 25_000];
/** A ping that has not answered by then counts as failed (the default sender only). */
export const PING_TIMEOUT_MS = 10_000;

export type WebhookDataType = 'tableData' | 'tableFields' | 'tableMetadata';
export type WebhookChangeType = 'add' | 'remove' | 'update';
/** Who created the webhook: PAT and OAuth webhooks expire; those of legacy API keys never do. */
export type WebhookOwnerKind = 'personalAccessToken' | 'oauth' | 'apiKey';

export interface WebhookFilters {
  dataTypes: readonly WebhookDataType[];
  recordChangeScope?: string | undefined;
  changeTypes?: readonly WebhookChangeType[] | undefined;
  /** The upstream names more sources than the emulator produces (sync, anonymousUser...); all are accepted. */
  fromSources?: readonly string[] | undefined;
  sourceOptions?:
    | {
        formSubmission?: { viewId?: string | undefined } | undefined;
        formPageSubmission?: { pageId?: string | undefined } | undefined;
      }
    | undefined;
  watchDataInFieldIds?: readonly string[] | undefined;
  watchSchemasOfFieldIds?: readonly string[] | undefined;
}

export interface WebhookIncludes {
  includeCellValuesInFieldIds?: readonly string[] | 'all' | undefined;
  includePreviousCellValues?: boolean | undefined;
  includePreviousFieldDefinitions?: boolean | undefined;
}

export interface WebhookSpecification {
  options: { filters: WebhookFilters; includes?: WebhookIncludes | undefined };
}

export interface CreateWebhookInput {
  notificationUrl?: string | null | undefined;
  specification: WebhookSpecification;
}

export interface CreatedWebhook {
  id: string;
  macSecretBase64: string;
  expirationTime: string | null;
}

export type NotificationResult =
  | { success: true; completionTimestamp: string; durationMs: number; retryNumber: number }
  | {
      success: false;
      error: { message: string };
      completionTimestamp: string;
      durationMs: number;
      retryNumber: number;
      willBeRetried: boolean;
    };

/** A webhook as the list endpoint shows it (Webhook.json); the MAC secret is never part of it. */
export interface WebhookView {
  id: string;
  areNotificationsEnabled: boolean;
  cursorForNextPayload: number;
  isHookEnabled: boolean;
  lastSuccessfulNotificationTime: string | null;
  notificationUrl: string | null;
  expirationTime: string | null;
  lastNotificationResult: NotificationResult | null;
  specification: WebhookSpecification;
}

export interface PayloadPage {
  cursor: number;
  mightHaveMore: boolean;
  payloads: unknown[];
}

/** What /_emulator inspection shows: every webhook with its base and owner kind, never its MAC secret. */
export interface WebhookInspection {
  webhooks: (WebhookView & { baseId: string; ownerTokenKind: string })[];
  payloadCounts: Record<string, number>;
}

export type WebhookFailureType =
  | 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND'
  | 'NOT_FOUND'
  | 'TOO_MANY_WEBHOOKS_IN_BASE'
  | 'TOO_MANY_WEBHOOKS_BY_OAUTH_INTEGRATION_IN_BASE'
  | 'INVALID_REQUEST_UNKNOWN';

export interface WebhookFailure {
  type: WebhookFailureType;
  message?: string;
}

/** The user behind a change, as payloads name it in `actionMetadata.sourceMetadata.user`. */
export interface WebhookUser {
  id: string;
  email: string;
  permissionLevel: string;
  name?: string;
}

export interface WebhookDeps {
  db: Database;
  clock: Clock;
  changes: ChangeFeed;
  /** Does the base exist (and may this user manage it)? Used for 403/404 decisions by the routes. */
  baseExists(baseId: string): boolean;
  /** The ids are deterministic in tests: prefix 'ach' + 14 alphanumerics. */
  newId(prefix: 'ach'): string;
  /** Sends a ping; default uses global fetch. Tests inject a recorder. */
  post?: (url: string, body: string, headers: Record<string, string>) => Promise<{ status: number }>;
  /** Lifetime of PAT/OAuth webhooks; default 7 days. */
  lifetimeMs?: number;
  /**
   * Email, permission level and name of a user, for `actionMetadata`; without it (or for an unknown user)
   * payloads carry only the user's id, since change events carry nothing more.
   */
  describeUser?: (userId: string, baseId: string) => WebhookUser | undefined;
  /** The table a view belongs to, so a view id in `recordChangeScope` can be honoured; see viewScope. */
  tableOfView?: (baseId: string, viewId: string) => string | undefined;
}

export const NOT_FOUND_FAILURE: WebhookFailure = { type: 'NOT_FOUND' };
export const BASE_FAILURE: WebhookFailure = {
  type: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
  message:
    'Invalid permissions, or the requested model was not found. Check that both your user and your token have the required permissions, and that the model names and/or ids are correct.',
};
export const INVALID_REQUEST_MESSAGE =
  'Invalid request: parameter validation failed. Check your request data.';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhooks (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, base_id TEXT NOT NULL,
  owner_kind TEXT NOT NULL, notification_url TEXT, mac_secret TEXT NOT NULL, specification TEXT NOT NULL,
  notifications_enabled INTEGER NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER, error_code TEXT,
  next_cursor INTEGER NOT NULL, last_success_time TEXT, last_result TEXT
);
CREATE INDEX IF NOT EXISTS webhooks_by_base ON webhooks(base_id, pos);
CREATE TABLE IF NOT EXISTS webhook_payloads (
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE, number INTEGER NOT NULL,
  transaction_number INTEGER NOT NULL, created_at INTEGER NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (webhook_id, number)
);
CREATE INDEX IF NOT EXISTS webhook_payloads_by_age ON webhook_payloads(created_at);
`;

interface WebhookRow {
  pos: number;
  id: string;
  base_id: string;
  owner_kind: string;
  notification_url: string | null;
  mac_secret: string;
  specification: string;
  notifications_enabled: number;
  created_at: number;
  expires_at: number | null;
  error_code: string | null;
  next_cursor: number;
  last_success_time: string | null;
  last_result: string | null;
}

interface PayloadRow {
  number: number;
  body: string;
}

// ---- the service -------------------------------------------------------------------------------------------

interface Delivery {
  inFlight: boolean;
  /** A change arrived while a ping was in flight: ping once more when it settles. */
  again: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
}

type PingOutcome = { ok: true } | { ok: false; message: string };

async function fetchPost(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number }> {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers,
    signal: AbortSignal.timeout(PING_TIMEOUT_MS),
  });
  // The receiver's body is never read; cancel it so the connection is released.
  await response.body?.cancel();
  return { status: response.status };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class WebhookService {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly post: NonNullable<WebhookDeps['post']>;
  private readonly lifetimeMs: number;
  private readonly deliveries = new Map<string, Delivery>();
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(private readonly deps: WebhookDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.post = deps.post ?? fetchPost;
    this.lifetimeMs = deps.lifetimeMs ?? WEBHOOK_LIFETIME_MS;
    this.db.exec(SCHEMA);
    this.unsubscribe = deps.changes.subscribe((events) => this.onChanges(events));
  }

  // ---- endpoints -------------------------------------------------------------------------------------------

  /** Whether the base exists for this caller; the routes check it before reading a body. */
  hasBase(baseId: string): boolean {
    return this.deps.baseExists(baseId);
  }

  create(
    baseId: string,
    input: CreateWebhookInput,
    ownerTokenKind: WebhookOwnerKind = 'personalAccessToken',
  ): Result<CreatedWebhook, WebhookFailure> {
    const now = this.sweep();
    if (!this.deps.baseExists(baseId)) return err(BASE_FAILURE);
    const url = input.notificationUrl ?? null;
    if (url !== null && !isHttpUrl(url))
      return err({ type: 'INVALID_REQUEST_UNKNOWN', message: INVALID_REQUEST_MESSAGE });
    // Expired webhooks still count until they are gone: they are still listed, as upstream.
    const existing = this.rowsOf(baseId);
    if (existing.length >= MAX_WEBHOOKS_PER_BASE) {
      return err({
        type: 'TOO_MANY_WEBHOOKS_IN_BASE',
        message: `A base can have at most ${MAX_WEBHOOKS_PER_BASE} webhooks.`,
      });
    }
    // The emulator cannot tell OAuth integrations apart, so every OAuth token counts as one integration.
    if (
      ownerTokenKind === 'oauth' &&
      existing.filter((row) => row.owner_kind === 'oauth').length >= MAX_OAUTH_WEBHOOKS_PER_BASE
    ) {
      return err({
        type: 'TOO_MANY_WEBHOOKS_BY_OAUTH_INTEGRATION_IN_BASE',
        message: `An OAuth integration can create at most ${MAX_OAUTH_WEBHOOKS_PER_BASE} webhooks per base.`,
      });
    }
    const id = this.deps.newId('ach');
    const secret = randomBytes(32).toString('base64');
    const expiresAt = ownerTokenKind === 'apiKey' ? null : now + this.lifetimeMs;
    this.db
      .prepare(
        `INSERT INTO webhooks (id, base_id, owner_kind, notification_url, mac_secret, specification,
           notifications_enabled, created_at, expires_at, error_code, next_cursor, last_success_time, last_result)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 1, NULL, NULL)`,
      )
      .run(
        id,
        baseId,
        ownerTokenKind,
        url,
        secret,
        JSON.stringify(input.specification),
        // Upstream sets no default we could observe; notifications are on when there is a URL to send them to.
        url === null ? 0 : 1,
        now,
        expiresAt,
      );
    // "The notification URL (if given) will get a ping shortly after this completes."
    if (url !== null) this.notify(id);
    return ok({ id, macSecretBase64: secret, expirationTime: isoOrNull(expiresAt) });
  }

  list(baseId: string): Result<{ webhooks: WebhookView[] }, WebhookFailure> {
    const now = this.sweep();
    if (!this.deps.baseExists(baseId)) return err(BASE_FAILURE);
    return ok({ webhooks: this.rowsOf(baseId).map((row) => this.view(row, now)) });
  }

  get(baseId: string, webhookId: string): Result<WebhookView, WebhookFailure> {
    const now = this.sweep();
    const row = this.find(baseId, webhookId);
    if (!row.ok) return row;
    return ok(this.view(row.value, now));
  }

  delete(baseId: string, webhookId: string): Result<Record<string, never>, WebhookFailure> {
    this.sweep();
    const row = this.find(baseId, webhookId);
    if (!row.ok) return row;
    this.remove(webhookId);
    return ok({});
  }

  enableNotifications(
    baseId: string,
    webhookId: string,
    enable: boolean,
  ): Result<Record<string, never>, WebhookFailure> {
    this.sweep();
    const row = this.find(baseId, webhookId);
    if (!row.ok) return row;
    this.db
      .prepare('UPDATE webhooks SET notifications_enabled = ? WHERE id = ?')
      .run(enable ? 1 : 0, webhookId);
    // Disabling stops a pending retry; enabling does not ping by itself, only the next change does.
    if (!enable) this.dropDelivery(webhookId);
    return ok({});
  }

  /**
   * "Only applies to active webhooks with an expiration time": a webhook without one answers its null
   * expiration unchanged; an expired or failed one cannot be revived (422 INVALID_REQUEST_UNKNOWN, as the
   * upstream's type for this case is not published).
   */
  refresh(baseId: string, webhookId: string): Result<{ expirationTime: string | null }, WebhookFailure> {
    const now = this.sweep();
    const found = this.find(baseId, webhookId);
    if (!found.ok) return found;
    const row = found.value;
    if (row.expires_at === null) return ok({ expirationTime: null });
    if (!isEnabled(row, now)) {
      return err({
        type: 'INVALID_REQUEST_UNKNOWN',
        message: `${INVALID_REQUEST_MESSAGE} Only an active webhook can be refreshed; this one is disabled.`,
      });
    }
    const expiresAt = now + this.lifetimeMs;
    this.db.prepare('UPDATE webhooks SET expires_at = ? WHERE id = ?').run(expiresAt, webhookId);
    return ok({ expirationTime: isoOrNull(expiresAt) });
  }

  /**
   * Payloads from `cursor` (default 1) on, at most `limit` (default and maximum 50). Payloads dropped after 7
   * days are skipped over: the page starts at the oldest one still kept. Listing renews an active webhook.
   */
  payloads(
    baseId: string,
    webhookId: string,
    cursor = 1,
    limit = MAX_PAYLOADS_PER_PAGE,
  ): Result<PayloadPage, WebhookFailure> {
    const now = this.sweep();
    const found = this.find(baseId, webhookId);
    if (!found.ok) return found;
    const invalid = (message: string) => err<WebhookFailure>({ type: 'INVALID_REQUEST_UNKNOWN', message });
    if (!Number.isSafeInteger(cursor) || cursor < 1)
      return invalid(`${INVALID_REQUEST_MESSAGE} cursor must be a positive integer`);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAYLOADS_PER_PAGE) {
      return invalid(
        `${INVALID_REQUEST_MESSAGE} limit must be an integer from 1 to ${MAX_PAYLOADS_PER_PAGE}`,
      );
    }
    const row = found.value;
    if (row.expires_at !== null && isEnabled(row, now)) {
      this.db
        .prepare('UPDATE webhooks SET expires_at = ? WHERE id = ?')
        .run(now + this.lifetimeMs, webhookId);
    }
    const rows = this.db
      .prepare(
        'SELECT number, body FROM webhook_payloads WHERE webhook_id = ? AND number >= ? ORDER BY number LIMIT ?',
      )
      .all(webhookId, cursor, limit + 1) as PayloadRow[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return ok({
      cursor: last === undefined ? cursor : last.number + 1,
      mightHaveMore: rows.length > limit,
      payloads: page.map((p) => JSON.parse(p.body) as unknown),
    });
  }

  // ---- emulator controls -----------------------------------------------------------------------------------

  /** Every webhook with its base and owner kind (never its MAC secret), and how many payloads each keeps. */
  inspect(): WebhookInspection {
    const now = this.sweep();
    const rows = this.db.prepare('SELECT * FROM webhooks ORDER BY pos').all() as WebhookRow[];
    const counts = this.db
      .prepare('SELECT webhook_id AS id, COUNT(*) AS n FROM webhook_payloads GROUP BY webhook_id')
      .all() as { id: string; n: number }[];
    const payloadCounts: Record<string, number> = {};
    for (const row of rows) payloadCounts[row.id] = 0;
    for (const { id, n } of counts) payloadCounts[id] = n;
    return {
      webhooks: rows.map((row) => ({
        ...this.view(row, now),
        baseId: row.base_id,
        ownerTokenKind: row.owner_kind,
      })),
      payloadCounts,
    };
  }

  reset(): void {
    this.cancelAll();
    this.db.exec('DELETE FROM webhook_payloads; DELETE FROM webhooks;');
  }

  /** Stops every timer and ignores pings still in flight; the service takes no more changes. */
  close(): void {
    this.closed = true;
    this.cancelAll();
    this.unsubscribe();
  }

  // ---- change feed -----------------------------------------------------------------------------------------

  private onChanges(events: readonly ChangeEvent[]): void {
    if (this.closed || events.length === 0) return;
    try {
      // Each webhook's cursor is read and advanced under the write lock (another process may add payloads too).
      const toNotify = this.db.transaction(() => this.record(events)).immediate();
      for (const id of toNotify) this.notify(id);
    } catch (error) {
      // A webhook fault must never fail the write that caused the change; say so where a person will see it.
      process.stderr.write(`emulator: webhook payload generation failed: ${errorMessage(error)}\n`);
    }
  }

  /** Stores the payloads these events produce; returns the webhooks to ping. */
  private record(events: readonly ChangeEvent[]): string[] {
    const now = this.sweep();
    const groups = new Map<string, ChangeEvent[]>();
    for (const event of events) {
      const key = `${event.baseId}\u0000${event.transactionNumber}`;
      const group = groups.get(key);
      if (group) group.push(event);
      else groups.set(key, [event]);
    }
    const toNotify = new Set<string>();
    const ctx: PayloadContext = { describeUser: this.deps.describeUser, tableOfView: this.deps.tableOfView };
    const insert = this.db.prepare(
      'INSERT INTO webhook_payloads (webhook_id, number, transaction_number, created_at, body) VALUES (?, ?, ?, ?, ?)',
    );
    for (const group of groups.values()) {
      const head = group[0];
      if (head === undefined) continue;
      for (const row of this.rowsOf(head.baseId)) {
        if (!isEnabled(row, now)) continue;
        const spec = JSON.parse(row.specification) as WebhookSpecification;
        const outcome = buildPayload(spec, group, ctx);
        if (outcome === undefined) continue;
        insert.run(row.id, row.next_cursor, head.transactionNumber, now, JSON.stringify(outcome.payload));
        this.db
          .prepare('UPDATE webhooks SET next_cursor = next_cursor + 1, error_code = ? WHERE id = ?')
          .run(outcome.kind === 'error' ? 'INVALID_FILTERS' : null, row.id);
        toNotify.add(row.id);
      }
    }
    return [...toNotify];
  }

  // ---- notification pings ----------------------------------------------------------------------------------

  /** Pings now, unless a ping is already outstanding: then that one (or one more after it) covers this change. */
  private notify(webhookId: string): void {
    const delivery = this.deliveryOf(webhookId);
    if (delivery.inFlight) delivery.again = true;
    else if (delivery.timer === undefined) this.send(webhookId, 0);
  }

  private send(webhookId: string, retryNumber: number): void {
    const row = this.rowById(webhookId);
    const now = this.clock.now();
    if (this.closed || !row || !canNotify(row, now.getTime()) || row.notification_url === null) {
      this.dropDelivery(webhookId);
      return;
    }
    const delivery = this.deliveryOf(webhookId);
    delivery.inFlight = true;
    delivery.again = false;
    const body = JSON.stringify({
      base: { id: row.base_id },
      webhook: { id: webhookId },
      timestamp: now.toISOString(),
    });
    const headers = {
      'Content-Type': 'application/json',
      'X-Airtable-Content-MAC': `hmac-sha256=${signature(row.mac_secret, body)}`,
    };
    const started = now.getTime();
    let attempt: Promise<{ status: number }>;
    try {
      attempt = this.post(row.notification_url, body, headers);
    } catch (error) {
      attempt = Promise.reject(error);
    }
    attempt
      .then(
        ({ status }): PingOutcome =>
          // The upstream's own failure text names these two: "...returned a 503 status code instead of 200 or 204".
          status === 200 || status === 204
            ? { ok: true }
            : {
                ok: false,
                message: `The HTTP request returned a ${status} status code instead of 200 or 204`,
              },
        (error: unknown): PingOutcome => ({
          ok: false,
          message: `The HTTP request failed: ${errorMessage(error)}`,
        }),
      )
      .then((outcome) => this.settle(webhookId, delivery, retryNumber, started, outcome))
      .catch((error: unknown) => {
        process.stderr.write(`emulator: webhook ping bookkeeping failed: ${errorMessage(error)}\n`);
      });
  }

  private settle(
    webhookId: string,
    delivery: Delivery,
    retryNumber: number,
    started: number,
    outcome: PingOutcome,
  ): void {
    // Deleted, reset or closed while in flight: this answer belongs to nobody any more.
    if (this.closed || this.deliveries.get(webhookId) !== delivery) return;
    delivery.inFlight = false;
    const row = this.rowById(webhookId);
    if (!row) {
      this.dropDelivery(webhookId);
      return;
    }
    const end = this.clock.now();
    const completionTimestamp = end.toISOString();
    const durationMs = Math.max(0, end.getTime() - started);
    if (outcome.ok) {
      const result: NotificationResult = { success: true, completionTimestamp, durationMs, retryNumber };
      this.db
        .prepare('UPDATE webhooks SET last_result = ?, last_success_time = ? WHERE id = ?')
        .run(JSON.stringify(result), completionTimestamp, webhookId);
      if (delivery.again) this.send(webhookId, 0);
      else this.dropDelivery(webhookId);
      return;
    }
    const delay = PING_RETRY_DELAYS_MS[retryNumber];
    const willBeRetried = delay !== undefined && canNotify(row, end.getTime());
    const result: NotificationResult = {
      success: false,
      error: { message: outcome.message },
      completionTimestamp,
      durationMs,
      retryNumber,
      willBeRetried,
    };
    this.db
      .prepare('UPDATE webhooks SET last_result = ? WHERE id = ?')
      .run(JSON.stringify(result), webhookId);
    if (willBeRetried) {
      // The retry carries any change that arrived meanwhile, so nothing more is owed.
      delivery.again = false;
      delivery.timer = setTimeout(() => {
        delivery.timer = undefined;
        if (this.deliveries.get(webhookId) === delivery) this.send(webhookId, retryNumber + 1);
      }, delay);
      delivery.timer.unref?.();
    } else if (delivery.again) {
      this.send(webhookId, 0);
    } else {
      this.dropDelivery(webhookId);
    }
  }

  private deliveryOf(webhookId: string): Delivery {
    let delivery = this.deliveries.get(webhookId);
    if (!delivery) {
      delivery = { inFlight: false, again: false, timer: undefined };
      this.deliveries.set(webhookId, delivery);
    }
    return delivery;
  }

  private dropDelivery(webhookId: string): void {
    const delivery = this.deliveries.get(webhookId);
    if (delivery?.timer !== undefined) clearTimeout(delivery.timer);
    this.deliveries.delete(webhookId);
  }

  private cancelAll(): void {
    for (const id of [...this.deliveries.keys()]) this.dropDelivery(id);
  }

  // ---- rows ------------------------------------------------------------------------------------------------

  /**
   * Applies retention at the clock's current time, which is how expiry works under a manual clock: payloads
   * 7 days old go, and so do webhooks 7 days past their expiration. An expired webhook's payloads are kept as
   * they were when it expired ("metadata and past payloads can be accessed for an additional 7 days"), so
   * their age is counted up to the expiration only. Returns the time.
   */
  private sweep(): number {
    const now = this.clock.now().getTime();
    this.db
      .prepare(
        `DELETE FROM webhook_payloads WHERE created_at + ? <=
           (SELECT MIN(?, COALESCE(w.expires_at, ?)) FROM webhooks w WHERE w.id = webhook_payloads.webhook_id)`,
      )
      .run(WEBHOOK_RETENTION_MS, now, now);
    const gone = this.db
      .prepare('SELECT id FROM webhooks WHERE expires_at IS NOT NULL AND expires_at <= ?')
      .all(now - WEBHOOK_RETENTION_MS) as { id: string }[];
    for (const { id } of gone) this.remove(id);
    return now;
  }

  private remove(webhookId: string): void {
    this.dropDelivery(webhookId);
    this.db.prepare('DELETE FROM webhook_payloads WHERE webhook_id = ?').run(webhookId);
    this.db.prepare('DELETE FROM webhooks WHERE id = ?').run(webhookId);
  }

  private rowsOf(baseId: string): WebhookRow[] {
    return this.db
      .prepare('SELECT * FROM webhooks WHERE base_id = ? ORDER BY pos')
      .all(baseId) as WebhookRow[];
  }

  private rowById(webhookId: string): WebhookRow | undefined {
    return this.db.prepare('SELECT * FROM webhooks WHERE id = ?').get(webhookId) as WebhookRow | undefined;
  }

  /** The webhook in that base: an unknown base is a 403 and an unknown (or other base's) webhook a 404. */
  private find(baseId: string, webhookId: string): Result<WebhookRow, WebhookFailure> {
    if (!this.deps.baseExists(baseId)) return err(BASE_FAILURE);
    const row = this.rowById(webhookId);
    if (!row || row.base_id !== baseId) return err(NOT_FOUND_FAILURE);
    return ok(row);
  }

  private view(row: WebhookRow, now: number): WebhookView {
    return {
      id: row.id,
      areNotificationsEnabled: row.notifications_enabled === 1,
      cursorForNextPayload: row.next_cursor,
      isHookEnabled: isEnabled(row, now),
      lastSuccessfulNotificationTime: row.last_success_time,
      notificationUrl: row.notification_url,
      expirationTime: isoOrNull(row.expires_at),
      lastNotificationResult:
        row.last_result === null ? null : (JSON.parse(row.last_result) as NotificationResult),
      specification: JSON.parse(row.specification) as WebhookSpecification,
    };
  }
}

function isExpired(row: WebhookRow, now: number): boolean {
  return row.expires_at !== null && now >= row.expires_at;
}

/** Not expired and not stopped by an invalid specification. */
function isEnabled(row: WebhookRow, now: number): boolean {
  return row.error_code === null && !isExpired(row, now);
}

/** A webhook stopped by invalid filters still gets the ping announcing its error payload; an expired one none. */
function canNotify(row: WebhookRow, now: number): boolean {
  return row.notifications_enabled === 1 && row.notification_url !== null && !isExpired(row, now);
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Hex HMAC-SHA256 of the raw body, keyed with the decoded MAC secret (how receivers verify a ping). */
export function signature(macSecretBase64: string, body: string): string {
  return createHmac('sha256', Buffer.from(macSecretBase64, 'base64')).update(body).digest('hex');
}
