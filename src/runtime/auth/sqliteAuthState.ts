// The vault's rows in SQLite (auth.db in the data folder): the embedded store for one process, and the default when
// no Redis is configured. better-sqlite3 is synchronous, so each operation that must be one step is one transaction
// and nothing interleaves with it in this process; one process owns the file, so renewals need no lock beyond the
// broker's own (renewal.ts).

import { closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type {
  AccessTokenRow,
  AuthStateStore,
  ClientRecord,
  CodeRow,
  CodeTaking,
  GrantRow,
  PendingRow,
  PendingStage,
  Release,
  Rotation,
  RotationRequest,
  TokenPair,
  UpstreamTokenUpdate,
} from './authState.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS clients (
  id TEXT PRIMARY KEY,
  name TEXT,
  redirect_uris TEXT NOT NULL,
  metadata TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pending (
  handle_hash TEXT PRIMARY KEY,
  stage TEXT NOT NULL CHECK (stage IN ('consent', 'upstream')),
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  client_state TEXT,
  code_challenge TEXT NOT NULL,
  resource TEXT NOT NULL,
  scope TEXT NOT NULL,
  browser_hash TEXT NOT NULL,
  upstream_verifier TEXT,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS grants (
  id TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  upstream_scopes TEXT NOT NULL,
  access_token TEXT NOT NULL,
  access_expires_at INTEGER NOT NULL,
  refresh_token TEXT NOT NULL,
  refresh_expires_at INTEGER,
  version INTEGER NOT NULL,
  tokens_obtained_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  ended_at INTEGER,
  end_reason TEXT
);
CREATE TABLE IF NOT EXISTS codes (
  code_hash TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL,
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  resource TEXT NOT NULL,
  scope TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE TABLE IF NOT EXISTS tokens (
  token_hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  grant_id TEXT NOT NULL,
  client_id TEXT NOT NULL,
  resource TEXT NOT NULL,
  scope TEXT NOT NULL,
  issued_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  retired_at INTEGER
);
CREATE INDEX IF NOT EXISTS tokens_by_grant ON tokens (grant_id, kind);
`;

interface PendingSqlRow {
  stage: PendingStage;
  client_id: string;
  redirect_uri: string;
  client_state: string | null;
  code_challenge: string;
  resource: string;
  scope: string;
  browser_hash: string;
  upstream_verifier: string | null;
  expires_at: number;
}

interface GrantSqlRow {
  id: string;
  client_id: string;
  subject: string;
  upstream_scopes: string;
  access_token: string;
  access_expires_at: number;
  refresh_token: string;
  refresh_expires_at: number | null;
  version: number;
  tokens_obtained_at: number;
  created_at: number;
  ended_at: number | null;
  end_reason: string | null;
}

interface CodeSqlRow {
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scope: string;
  expires_at: number;
  used_at: number | null;
}

interface TokenSqlRow {
  kind: 'access' | 'refresh';
  grant_id: string;
  client_id: string;
  resource: string;
  scope: string;
  issued_at: number;
  expires_at: number;
  retired_at: number | null;
}

export class SqliteAuthState implements AuthStateStore {
  readonly #db: Database.Database;

  constructor(private readonly path: string) {
    if (path !== ':memory:' && !existsSync(path)) {
      // Created owner-only before SQLite opens it; SQLite gives its -wal and -shm files the same permissions.
      closeSync(openSync(path, 'a', 0o600));
    }
    this.#db = new Database(path);
    if (path !== ':memory:') {
      // The timeout first, so that the switch to WAL waits for another process where SQLite lets it wait.
      this.#db.pragma('busy_timeout = 5000');
      this.#db.pragma('journal_mode = WAL');
    }
    this.#db.exec(SCHEMA);
  }

  close(): void {
    this.#db.close();
  }

  keyCheck(candidate: string): string {
    // Stored only if none is (as Redis's SET NX): a second process opening the same new vault gets the first one's.
    this.#db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('key_check', ?)").run(candidate);
    const row = this.#db.prepare("SELECT value FROM meta WHERE key = 'key_check'").get() as { value: string };
    return row.value;
  }

  keyMismatch(): string {
    const { path } = this;
    return `${path} was sealed with another key than the one configured. Set SWITCHBOARD_SECRET_KEY to the key it was made with (or restore the data folder's secret.key), or move ${path} away to start afresh (everyone then signs in again).`;
  }

  // ---- clients -----------------------------------------------------------------------------------------------

  addClient(client: ClientRecord): void {
    this.#db
      .prepare('INSERT INTO clients (id, name, redirect_uris, metadata, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(
        client.id,
        client.name ?? null,
        JSON.stringify(client.redirectUris),
        JSON.stringify(client.metadata),
        client.createdAt,
      );
  }

  client(id: string): ClientRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM clients WHERE id = ?').get(id) as
      | { id: string; name: string | null; redirect_uris: string; metadata: string; created_at: number }
      | undefined;
    if (!row) return undefined;
    return {
      id: row.id,
      ...(row.name ? { name: row.name } : {}),
      redirectUris: JSON.parse(row.redirect_uris) as string[],
      metadata: JSON.parse(row.metadata) as Record<string, unknown>,
      createdAt: row.created_at,
    };
  }

  // ---- authorization requests in flight -----------------------------------------------------------------------

  addPending(hash: string, row: PendingRow, now: number): void {
    this.#db.prepare('DELETE FROM pending WHERE expires_at <= ?').run(now);
    this.#db
      .prepare(
        `INSERT INTO pending (handle_hash, stage, client_id, redirect_uri, client_state, code_challenge, resource,
           scope, browser_hash, upstream_verifier, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        hash,
        row.stage,
        row.clientId,
        row.redirectUri,
        row.clientState ?? null,
        row.codeChallenge,
        row.resource,
        row.scope,
        row.browserHash,
        row.sealedVerifier ?? null,
        row.expiresAt,
      );
  }

  takePending(hash: string, stage: PendingStage, browserHash: string): PendingRow | undefined {
    const take = this.#db.transaction((): PendingRow | undefined => {
      const row = this.#selectPending(hash, stage);
      // Another browser presenting the handle does not use it up: it cannot be the person's own request.
      if (!row || row.browser_hash !== browserHash) return undefined;
      this.#db.prepare('DELETE FROM pending WHERE handle_hash = ?').run(hash);
      return pendingOf(row);
    });
    return take();
  }

  peekPending(hash: string, stage: PendingStage): PendingRow | undefined {
    const row = this.#selectPending(hash, stage);
    return row ? pendingOf(row) : undefined;
  }

  #selectPending(hash: string, stage: PendingStage): PendingSqlRow | undefined {
    return this.#db.prepare('SELECT * FROM pending WHERE handle_hash = ? AND stage = ?').get(hash, stage) as
      | PendingSqlRow
      | undefined;
  }

  // ---- grants --------------------------------------------------------------------------------------------------

  addGrant(grant: GrantRow): void {
    this.#db
      .prepare(
        `INSERT INTO grants (id, client_id, subject, upstream_scopes, access_token, access_expires_at, refresh_token,
           refresh_expires_at, version, tokens_obtained_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        grant.id,
        grant.clientId,
        grant.subject,
        grant.upstreamScopes.join(' '),
        grant.sealedAccessToken,
        grant.accessExpiresAt,
        grant.sealedRefreshToken,
        grant.refreshExpiresAt ?? null,
        grant.version,
        grant.tokensObtainedAt,
        grant.createdAt,
      );
  }

  grant(id: string): GrantRow | undefined {
    const row = this.#db.prepare('SELECT * FROM grants WHERE id = ?').get(id) as GrantSqlRow | undefined;
    return row ? grantOf(row) : undefined;
  }

  replaceUpstreamTokens(id: string, update: UpstreamTokenUpdate): void {
    // Not into an ended grant: ending wiped its tokens, and a renewal finishing late must not put them back.
    this.#db
      .prepare(
        `UPDATE grants SET access_token = ?, access_expires_at = ?, refresh_token = ?, refresh_expires_at = ?,
           upstream_scopes = ?, version = version + 1, tokens_obtained_at = ? WHERE id = ? AND ended_at IS NULL`,
      )
      .run(
        update.sealedAccessToken,
        update.accessExpiresAt,
        update.sealedRefreshToken,
        update.refreshExpiresAt ?? null,
        update.upstreamScopes.join(' '),
        update.tokensObtainedAt,
        id,
      );
  }

  endGrant(id: string, reason: string, now: number): void {
    const end = this.#db.transaction(() => {
      this.#db
        .prepare(
          `UPDATE grants SET ended_at = ?, end_reason = ?, access_token = '', refresh_token = ''
           WHERE id = ? AND ended_at IS NULL`,
        )
        .run(now, reason, id);
      this.#db
        .prepare('UPDATE tokens SET retired_at = ? WHERE grant_id = ? AND retired_at IS NULL')
        .run(now, id);
    });
    end();
  }

  // ---- authorization codes ---------------------------------------------------------------------------------------

  dropAbandonedCodes(cutoff: number): string[] {
    const drop = this.#db.transaction((): string[] => {
      const abandoned = this.#db
        .prepare('SELECT grant_id FROM codes WHERE expires_at <= ? AND used_at IS NULL')
        .all(cutoff) as { grant_id: string }[];
      this.#db.prepare('DELETE FROM codes WHERE expires_at <= ?').run(cutoff);
      return abandoned.map((row) => row.grant_id);
    });
    return drop();
  }

  addCode(hash: string, code: CodeRow): void {
    this.#db
      .prepare(
        `INSERT INTO codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, resource, scope, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        hash,
        code.grantId,
        code.clientId,
        code.redirectUri,
        code.codeChallenge,
        code.resource,
        code.scope,
        code.expiresAt,
      );
  }

  takeCode(hash: string, now: number): CodeTaking {
    const take = this.#db.transaction((): CodeTaking => {
      const row = this.#db.prepare('SELECT * FROM codes WHERE code_hash = ?').get(hash) as
        | CodeSqlRow
        | undefined;
      if (!row) return { status: 'unknown' };
      if (row.used_at !== null) return { status: 'used', grantId: row.grant_id };
      this.#db.prepare('UPDATE codes SET used_at = ? WHERE code_hash = ?').run(now, hash);
      return {
        status: 'taken',
        code: {
          grantId: row.grant_id,
          clientId: row.client_id,
          redirectUri: row.redirect_uri,
          codeChallenge: row.code_challenge,
          resource: row.resource,
          scope: row.scope,
          expiresAt: row.expires_at,
          usedAt: now,
        },
      };
    });
    return take();
  }

  // ---- our tokens ----------------------------------------------------------------------------------------------

  addTokens(
    pair: TokenPair,
    issued: { grantId: string; clientId: string; resource: string; scope: string },
    sweepBefore: number,
  ): void {
    const insert = this.#db.prepare(
      `INSERT INTO tokens (token_hash, kind, grant_id, client_id, resource, scope, issued_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const run = this.#db.transaction(() => {
      // Rows that can no longer matter (long expired) are dropped as new ones come in.
      this.#db.prepare('DELETE FROM tokens WHERE expires_at <= ?').run(sweepBefore);
      for (const [hash, kind, expiresAt] of [
        [pair.accessHash, 'access', pair.accessExpiresAt],
        [pair.refreshHash, 'refresh', pair.refreshExpiresAt],
      ] as const) {
        insert.run(
          hash,
          kind,
          issued.grantId,
          issued.clientId,
          issued.resource,
          issued.scope,
          pair.issuedAt,
          expiresAt,
        );
      }
    });
    run();
  }

  accessToken(hash: string): AccessTokenRow | undefined {
    const row = this.#db
      .prepare(
        `SELECT t.*, g.subject AS subject, g.ended_at AS ended_at
         FROM tokens t JOIN grants g ON g.id = t.grant_id WHERE t.token_hash = ? AND t.kind = 'access'`,
      )
      .get(hash) as (TokenSqlRow & { subject: string; ended_at: number | null }) | undefined;
    if (!row) return undefined;
    return { ...tokenOf(row), subject: row.subject, grantEnded: row.ended_at !== null };
  }

  rotateRefresh(hash: string, request: RotationRequest): Rotation {
    const { clientId, now } = request;
    const rotate = this.#db.transaction((): Rotation => {
      const row = this.#db
        .prepare("SELECT * FROM tokens WHERE token_hash = ? AND kind = 'refresh'")
        .get(hash) as TokenSqlRow | undefined;
      if (!row) return { status: 'unknown' };
      if (row.client_id !== clientId) return { status: 'wrong_client' };
      const grant = this.grant(row.grant_id);
      if (!grant || grant.endedAt !== undefined) return { status: 'ended' };
      if (row.retired_at !== null) return { status: 'reused', grantId: row.grant_id };
      if (row.expires_at <= now) return { status: 'expired' };
      if (!request.acceptsResource(row.resource)) return { status: 'wrong_resource' };
      this.#db
        .prepare('UPDATE tokens SET retired_at = ? WHERE grant_id = ? AND retired_at IS NULL')
        .run(now, row.grant_id);
      this.addTokens(
        request.next,
        { grantId: row.grant_id, clientId, resource: row.resource, scope: row.scope },
        request.sweepBefore,
      );
      return { status: 'ok', grantId: row.grant_id, resource: row.resource, scope: row.scope };
    });
    return rotate();
  }

  /** One process owns auth.db, and the broker keeps its renewals apart: nothing else to exclude. */
  async lockGrant(): Promise<Release> {
    return () => undefined;
  }
}

function pendingOf(row: PendingSqlRow): PendingRow {
  return {
    stage: row.stage,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    ...(row.client_state !== null ? { clientState: row.client_state } : {}),
    codeChallenge: row.code_challenge,
    resource: row.resource,
    scope: row.scope,
    browserHash: row.browser_hash,
    expiresAt: row.expires_at,
    ...(row.upstream_verifier !== null ? { sealedVerifier: row.upstream_verifier } : {}),
  };
}

function grantOf(row: GrantSqlRow): GrantRow {
  return {
    id: row.id,
    clientId: row.client_id,
    subject: row.subject,
    upstreamScopes: row.upstream_scopes === '' ? [] : row.upstream_scopes.split(' '),
    accessExpiresAt: row.access_expires_at,
    ...(row.refresh_expires_at !== null ? { refreshExpiresAt: row.refresh_expires_at } : {}),
    version: row.version,
    tokensObtainedAt: row.tokens_obtained_at,
    createdAt: row.created_at,
    ...(row.ended_at !== null ? { endedAt: row.ended_at } : {}),
    ...(row.end_reason !== null ? { endReason: row.end_reason } : {}),
    sealedAccessToken: row.access_token,
    sealedRefreshToken: row.refresh_token,
  };
}

function tokenOf(row: TokenSqlRow) {
  return {
    kind: row.kind,
    grantId: row.grant_id,
    clientId: row.client_id,
    resource: row.resource,
    scope: row.scope,
    issuedAt: row.issued_at,
    expiresAt: row.expires_at,
    ...(row.retired_at !== null ? { retiredAt: row.retired_at } : {}),
  };
}
