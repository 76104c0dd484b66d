// The HTTP server's authorization state in SQLite (auth.db): MCP clients that registered, authorization requests
// in flight, grants (one person's connection: their upstream user id and the upstream's tokens), and the
// authorization codes and tokens we issue to MCP clients.
//
// Nothing secret rests in the clear. The upstream's access and refresh tokens and our PKCE verifiers are sealed
// with AES-256-GCM under the server's key, each bound to its row and column (the additional authenticated data), so
// a sealed value copied into another person's row does not open. Our own codes, tokens and one-time handles are
// kept as SHA-256 hashes only: they are 256-bit random values, so a plain hash cannot be reversed or guessed.

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { registerSecret, registerTransientSecret } from '../secrets.js';
import { AuthSetupError } from './config.js';

export const KEY_BYTES = 32;
const SEAL_PREFIX = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The data key: from SWITCHBOARD_SECRET_KEY, from `<data dir>/secret.key`, or made up for an in-memory run. */
export interface SecretKey {
  key: Buffer;
  origin: 'environment' | 'file' | 'generated' | 'ephemeral';
  /** The key file, for `file` and `generated`. */
  path?: string;
  /** Set when the key file can be read by other users of the machine. */
  looseFileMode?: number;
}

// Declared beside the settings (config.ts), which must not load SQLite to throw it; exported here too.
export { AuthSetupError };

/** Standard or URL-safe base64 of exactly 32 bytes. */
export function decodeKey(text: string, where: string): Buffer {
  const trimmed = text.trim();
  const key = /^[A-Za-z0-9+/=_-]+$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (key.length !== KEY_BYTES) {
    throw new AuthSetupError(
      `${where} must be ${KEY_BYTES} random bytes in base64 (make one with \`openssl rand -base64 32\`); it decodes to ${key.length} bytes.`,
    );
  }
  return key;
}

export function loadSecretKey(fromEnv: string | undefined, dataDir: string): SecretKey {
  if (fromEnv) {
    registerSecret(fromEnv.trim());
    return { key: decodeKey(fromEnv, 'SWITCHBOARD_SECRET_KEY'), origin: 'environment' };
  }
  if (dataDir === ':memory:') return { key: randomBytes(KEY_BYTES), origin: 'ephemeral' };
  const path = join(dataDir, 'secret.key');
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const text = randomBytes(KEY_BYTES).toString('base64');
    try {
      // `wx`: never overwrite a key another process wrote meanwhile; a lost key would end every connection.
      writeFileSync(path, `${text}\n`, { mode: 0o600, flag: 'wx' });
      registerSecret(text);
      return { key: Buffer.from(text, 'base64'), origin: 'generated', path };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const text = readFileSync(path, 'utf8');
  registerSecret(text.trim());
  const mode = statSync(path).mode & 0o777;
  return {
    key: decodeKey(text, path),
    origin: 'file',
    path,
    ...((mode & 0o077) !== 0 ? { looseFileMode: mode } : {}),
  };
}

/** AES-256-GCM with a fresh 96-bit IV per value; `context` is authenticated, not stored. */
export class Sealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new AuthSetupError(`The data key must be ${KEY_BYTES} bytes.`);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return SEAL_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** Undefined when the value was sealed under another key or for another context, or was tampered with. */
  open(sealed: string, context: string): string | undefined {
    if (!sealed.startsWith(SEAL_PREFIX)) return undefined;
    const raw = Buffer.from(sealed.slice(SEAL_PREFIX.length), 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return undefined;
    }
  }
}

export function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** A 256-bit random secret, prefixed so that a leaked value says what it is. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

// ---- records -------------------------------------------------------------------------------------------------

export interface ClientRecord {
  id: string;
  name?: string;
  redirectUris: string[];
  /** The registration as we accepted it, echoed back to the client. */
  metadata: Record<string, unknown>;
  createdAt: number;
}

/** What an MCP client asked for at /authorize, kept while the person decides and signs in upstream. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  /** The client's own `state`, returned to it unchanged. */
  clientState?: string;
  codeChallenge: string;
  resource: string;
  scope: string;
}

export interface PendingAuthorization extends AuthorizationRequest {
  /** Hash of the browser-binding cookie the consent page set. */
  browserHash: string;
  expiresAt: number;
}

export interface UpstreamAuthorization extends PendingAuthorization {
  /** Our PKCE verifier for the upstream's authorization code. */
  upstreamVerifier: string;
}

/** The upstream's tokens for one person, as its token endpoint gave them. */
export interface UpstreamTokenSet {
  accessToken: string;
  refreshToken: string;
  scopes: string[];
  /** Epoch milliseconds. */
  expiresAt: number;
  refreshExpiresAt?: number;
}

export interface GrantRecord {
  id: string;
  clientId: string;
  /** The person's user id at the upstream. */
  subject: string;
  upstreamScopes: string[];
  accessExpiresAt: number;
  refreshExpiresAt?: number;
  /** Goes up by one each time the upstream tokens are replaced (a refresh). */
  version: number;
  tokensObtainedAt: number;
  createdAt: number;
  endedAt?: number;
  endReason?: string;
}

export interface CodeGrant {
  grantId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
}

export type CodeRedemption =
  | { status: 'ok'; code: CodeGrant }
  | { status: 'unknown' | 'expired' }
  /** A second use: the code may have been stolen, so what the first use issued has been revoked. */
  | { status: 'reused'; grantId: string };

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds. */
  expiresIn: number;
  scope: string;
}

export interface AccessTokenInfo {
  grantId: string;
  clientId: string;
  subject: string;
  resource: string;
  scope: string;
  expiresAt: number;
  grantEnded: boolean;
}

export type RefreshOutcome =
  | { status: 'ok'; tokens: IssuedTokens; grantId: string; resource: string }
  | { status: 'unknown' | 'expired' | 'ended' | 'wrong_client' | 'wrong_resource' }
  /** A rotated-away refresh token came back: the grant is ended (RFC 9700 §4.14.2). */
  | { status: 'reused'; grantId: string };

export interface VaultOptions {
  now?: () => number;
  accessTokenTtlMs?: number;
  refreshTokenTtlMs?: number;
  codeTtlMs?: number;
  pendingTtlMs?: number;
}

/** Our access tokens live about an hour, as the upstream's do. */
export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
/** Our refresh tokens rotate on every use; an unused one lapses after 30 days. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** RFC 6749 §4.1.2: short-lived; the client redeems it at once. */
export const CODE_TTL_MS = 5 * 60 * 1000;
/** How long a consent page and the upstream sign-in after it may take. */
export const PENDING_TTL_MS = 10 * 60 * 1000;

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

/** A known value sealed when the database is created: opening it later proves the key is the same. */
const KEY_CHECK = 'switchboard auth.db key check';

interface PendingRow {
  stage: 'consent' | 'upstream';
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

interface GrantRow {
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

interface CodeRow {
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scope: string;
  expires_at: number;
  used_at: number | null;
}

interface TokenRow {
  kind: 'access' | 'refresh';
  grant_id: string;
  client_id: string;
  resource: string;
  scope: string;
  expires_at: number;
  retired_at: number | null;
}

export class AuthVault {
  readonly #db: Database.Database;
  readonly #sealer: Sealer;
  readonly #now: () => number;
  readonly #ttl: { access: number; refresh: number; code: number; pending: number };

  constructor(path: string, key: Buffer, options: VaultOptions = {}) {
    this.#sealer = new Sealer(key);
    this.#now = options.now ?? Date.now;
    this.#ttl = {
      access: options.accessTokenTtlMs ?? ACCESS_TOKEN_TTL_MS,
      refresh: options.refreshTokenTtlMs ?? REFRESH_TOKEN_TTL_MS,
      code: options.codeTtlMs ?? CODE_TTL_MS,
      pending: options.pendingTtlMs ?? PENDING_TTL_MS,
    };
    if (path !== ':memory:' && !existsSync(path)) {
      // Created owner-only before SQLite opens it; SQLite gives its -wal and -shm files the same permissions.
      closeSync(openSync(path, 'a', 0o600));
    }
    this.#db = new Database(path);
    if (path !== ':memory:') {
      this.#db.pragma('journal_mode = WAL');
      this.#db.pragma('busy_timeout = 5000');
    }
    this.#db.exec(SCHEMA);
    this.#checkKey(path);
  }

  close(): void {
    this.#db.close();
  }

  get now(): number {
    return this.#now();
  }

  #checkKey(path: string): void {
    const row = this.#db.prepare("SELECT value FROM meta WHERE key = 'key_check'").get() as
      | { value: string }
      | undefined;
    if (!row) {
      this.#db
        .prepare("INSERT INTO meta (key, value) VALUES ('key_check', ?)")
        .run(this.#sealer.seal(KEY_CHECK, 'meta:key_check'));
      return;
    }
    if (this.#sealer.open(row.value, 'meta:key_check') !== KEY_CHECK) {
      throw new AuthSetupError(
        `${path} was sealed with another key than the one configured. Set SWITCHBOARD_SECRET_KEY to the key it was made with (or restore the data folder's secret.key), or move ${path} away to start afresh (everyone then signs in again).`,
      );
    }
  }

  // ---- clients -----------------------------------------------------------------------------------------------

  registerClient(input: {
    name?: string;
    redirectUris: string[];
    metadata: Record<string, unknown>;
  }): ClientRecord {
    const id = `sbc_${randomBytes(16).toString('base64url')}`;
    const createdAt = this.#now();
    this.#db
      .prepare('INSERT INTO clients (id, name, redirect_uris, metadata, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(
        id,
        input.name ?? null,
        JSON.stringify(input.redirectUris),
        JSON.stringify(input.metadata),
        createdAt,
      );
    return {
      id,
      ...(input.name ? { name: input.name } : {}),
      redirectUris: input.redirectUris,
      metadata: input.metadata,
      createdAt,
    };
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

  /** Remembers a checked /authorize request while the consent page is shown; the handle goes into the page. */
  createPending(request: AuthorizationRequest, browserHash: string): string {
    const now = this.#now();
    this.#db.prepare('DELETE FROM pending WHERE expires_at <= ?').run(now);
    const handle = newSecret('');
    this.#insertPending(sha256(handle), 'consent', { ...request, browserHash }, null, now);
    return handle;
  }

  /** Takes (once) the request behind a consent form, if it is open and this is the browser it was shown in. */
  takePending(handle: string, browserHash: string): PendingAuthorization | undefined {
    return this.#take(handle, 'consent', browserHash);
  }

  /** After consent: the same request, now waiting for the upstream's answer; the handle is our upstream `state`. */
  createUpstreamAuthorization(request: PendingAuthorization, upstreamVerifier: string): string {
    const now = this.#now();
    const state = newSecret('');
    const hash = sha256(state);
    const sealedVerifier = this.#sealer.seal(upstreamVerifier, `pending:${hash}`);
    this.#insertPending(hash, 'upstream', request, sealedVerifier, now);
    return state;
  }

  /** One stage of a request in flight, under the hash of its handle, open for the pending lifetime from `now`. */
  #insertPending(
    hash: string,
    stage: PendingRow['stage'],
    request: AuthorizationRequest & { browserHash: string },
    sealedVerifier: string | null,
    now: number,
  ): void {
    this.#db
      .prepare(
        `INSERT INTO pending (handle_hash, stage, client_id, redirect_uri, client_state, code_challenge, resource,
           scope, browser_hash, upstream_verifier, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        hash,
        stage,
        request.clientId,
        request.redirectUri,
        request.clientState ?? null,
        request.codeChallenge,
        request.resource,
        request.scope,
        request.browserHash,
        sealedVerifier,
        now + this.#ttl.pending,
      );
  }

  /** Takes (once) the request an upstream callback's `state` names, with its sealed verifier opened. */
  takeUpstreamAuthorization(state: string, browserHash: string): UpstreamAuthorization | undefined {
    const hash = sha256(state);
    const row = this.#takeRow(hash, 'upstream', browserHash);
    if (!row?.upstream_verifier) return undefined;
    const upstreamVerifier = this.#sealer.open(row.upstream_verifier, `pending:${hash}`);
    if (upstreamVerifier === undefined) return undefined;
    return { ...pendingOf(row), upstreamVerifier };
  }

  /** Whether `state` names a request we are waiting on (without taking it), for error pages. */
  peekUpstreamAuthorization(state: string): AuthorizationRequest | undefined {
    const row = this.#db
      .prepare("SELECT * FROM pending WHERE handle_hash = ? AND stage = 'upstream'")
      .get(sha256(state)) as PendingRow | undefined;
    return row && row.expires_at > this.#now() ? pendingOf(row) : undefined;
  }

  #take(handle: string, stage: PendingRow['stage'], browserHash: string): PendingAuthorization | undefined {
    const row = this.#takeRow(sha256(handle), stage, browserHash);
    return row ? pendingOf(row) : undefined;
  }

  #takeRow(hash: string, stage: PendingRow['stage'], browserHash: string): PendingRow | undefined {
    const take = this.#db.transaction((): PendingRow | undefined => {
      const row = this.#db
        .prepare('SELECT * FROM pending WHERE handle_hash = ? AND stage = ?')
        .get(hash, stage) as PendingRow | undefined;
      if (!row) return undefined;
      // Another browser presenting the handle does not use it up: it cannot be the person's own request.
      if (row.browser_hash !== browserHash) return undefined;
      this.#db.prepare('DELETE FROM pending WHERE handle_hash = ?').run(hash);
      return row.expires_at > this.#now() ? row : undefined;
    });
    return take();
  }

  // ---- grants --------------------------------------------------------------------------------------------------

  createGrant(input: { clientId: string; subject: string; tokens: UpstreamTokenSet }): GrantRecord {
    const id = `sbg_${randomBytes(16).toString('base64url')}`;
    const now = this.#now();
    const t = input.tokens;
    this.#db
      .prepare(
        `INSERT INTO grants (id, client_id, subject, upstream_scopes, access_token, access_expires_at, refresh_token,
           refresh_expires_at, version, tokens_obtained_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
      )
      .run(
        id,
        input.clientId,
        input.subject,
        t.scopes.join(' '),
        this.#sealer.seal(t.accessToken, `grant:${id}:access`),
        t.expiresAt,
        this.#sealer.seal(t.refreshToken, `grant:${id}:refresh`),
        t.refreshExpiresAt ?? null,
        now,
        now,
      );
    return this.grant(id) as GrantRecord;
  }

  grant(id: string): GrantRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM grants WHERE id = ?').get(id) as GrantRow | undefined;
    return row ? grantOf(row) : undefined;
  }

  /** The grant's upstream tokens, opened; undefined when they do not open (another key, or tampering). */
  upstreamTokens(id: string): { accessToken: string; refreshToken: string; version: number } | undefined {
    const row = this.#db.prepare('SELECT * FROM grants WHERE id = ?').get(id) as GrantRow | undefined;
    if (!row) return undefined;
    const accessToken = this.#sealer.open(row.access_token, `grant:${id}:access`);
    const refreshToken = this.#sealer.open(row.refresh_token, `grant:${id}:refresh`);
    if (accessToken === undefined || refreshToken === undefined) return undefined;
    registerTransientSecret(accessToken);
    registerTransientSecret(refreshToken);
    return { accessToken, refreshToken, version: row.version };
  }

  /** Replaces the upstream tokens after a refresh (the old refresh token no longer works upstream). */
  saveUpstreamTokens(id: string, tokens: UpstreamTokenSet): GrantRecord | undefined {
    this.#db
      .prepare(
        `UPDATE grants SET access_token = ?, access_expires_at = ?, refresh_token = ?, refresh_expires_at = ?,
           upstream_scopes = ?, version = version + 1, tokens_obtained_at = ? WHERE id = ?`,
      )
      .run(
        this.#sealer.seal(tokens.accessToken, `grant:${id}:access`),
        tokens.expiresAt,
        this.#sealer.seal(tokens.refreshToken, `grant:${id}:refresh`),
        tokens.refreshExpiresAt ?? null,
        tokens.scopes.join(' '),
        this.#now(),
        id,
      );
    return this.grant(id);
  }

  /** Ends a grant: its tokens stop working at once and its upstream tokens are wiped. */
  endGrant(id: string, reason: string): void {
    const now = this.#now();
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

  issueCode(input: CodeGrant): string {
    const now = this.#now();
    const cutoff = now - this.#ttl.code;
    // A code its client never came back for: the grant it stood for can no longer be reached, so its store tokens
    // are not kept for nobody.
    const abandoned = this.#db
      .prepare('SELECT grant_id FROM codes WHERE expires_at <= ? AND used_at IS NULL')
      .all(cutoff) as { grant_id: string }[];
    for (const { grant_id } of abandoned)
      this.endGrant(grant_id, 'its authorization code was never redeemed');
    this.#db.prepare('DELETE FROM codes WHERE expires_at <= ?').run(cutoff);
    // Our codes and tokens are not registered for redaction: we never hold them (only their hashes) nor write them
    // anywhere but the client's redirect and the token response, and the registry only grows.
    const code = newSecret('sb_ac_');
    this.#db
      .prepare(
        `INSERT INTO codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, resource, scope, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        sha256(code),
        input.grantId,
        input.clientId,
        input.redirectUri,
        input.codeChallenge,
        input.resource,
        input.scope,
        now + this.#ttl.code,
      );
    return code;
  }

  /**
   * Uses a code up, whatever comes next: a failed redemption (wrong verifier, wrong client) gives a thief one
   * try. A second use ends the grant the first one made (RFC 6749 §4.1.2: revoke what the code issued).
   */
  redeemCode(code: string): CodeRedemption {
    const hash = sha256(code);
    const now = this.#now();
    let expiredGrant: string | undefined;
    const redeem = this.#db.transaction((): CodeRedemption => {
      const row = this.#db.prepare('SELECT * FROM codes WHERE code_hash = ?').get(hash) as
        | CodeRow
        | undefined;
      if (!row) return { status: 'unknown' };
      if (row.used_at !== null) return { status: 'reused', grantId: row.grant_id };
      this.#db.prepare('UPDATE codes SET used_at = ? WHERE code_hash = ?').run(now, hash);
      if (row.expires_at <= now) {
        expiredGrant = row.grant_id;
        return { status: 'expired' };
      }
      return {
        status: 'ok',
        code: {
          grantId: row.grant_id,
          clientId: row.client_id,
          redirectUri: row.redirect_uri,
          codeChallenge: row.code_challenge,
          resource: row.resource,
          scope: row.scope,
        },
      };
    });
    const result = redeem();
    if (result.status === 'reused') this.endGrant(result.grantId, 'authorization code used twice');
    if (expiredGrant !== undefined) this.endGrant(expiredGrant, 'its authorization code expired unused');
    return result;
  }

  // ---- our tokens ----------------------------------------------------------------------------------------------

  issueTokens(input: { grantId: string; clientId: string; resource: string; scope: string }): IssuedTokens {
    const now = this.#now();
    const accessToken = newSecret('sb_at_');
    const refreshToken = newSecret('sb_rt_');
    const insert = this.#db.prepare(
      `INSERT INTO tokens (token_hash, kind, grant_id, client_id, resource, scope, issued_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const run = this.#db.transaction(() => {
      // Rows that can no longer matter (long expired) are dropped as new ones come in.
      this.#db.prepare('DELETE FROM tokens WHERE expires_at <= ?').run(now - this.#ttl.refresh);
      insert.run(
        sha256(accessToken),
        'access',
        input.grantId,
        input.clientId,
        input.resource,
        input.scope,
        now,
        now + this.#ttl.access,
      );
      insert.run(
        sha256(refreshToken),
        'refresh',
        input.grantId,
        input.clientId,
        input.resource,
        input.scope,
        now,
        now + this.#ttl.refresh,
      );
    });
    run();
    return { accessToken, refreshToken, expiresIn: Math.round(this.#ttl.access / 1000), scope: input.scope };
  }

  /** What an access token stands for, if it is one of ours and not retired (expiry is the caller's check). */
  accessToken(token: string): AccessTokenInfo | undefined {
    const row = this.#db
      .prepare(
        `SELECT t.grant_id AS grant_id, t.client_id AS client_id, t.resource AS resource, t.scope AS scope,
                t.expires_at AS expires_at, t.retired_at AS retired_at, g.subject AS subject, g.ended_at AS ended_at
         FROM tokens t JOIN grants g ON g.id = t.grant_id WHERE t.token_hash = ? AND t.kind = 'access'`,
      )
      .get(sha256(token)) as
      | (Omit<TokenRow, 'kind'> & { subject: string; ended_at: number | null })
      | undefined;
    if (!row || row.retired_at !== null) return undefined;
    return {
      grantId: row.grant_id,
      clientId: row.client_id,
      subject: row.subject,
      resource: row.resource,
      scope: row.scope,
      expiresAt: row.expires_at,
      grantEnded: row.ended_at !== null,
    };
  }

  /** Rotates a refresh token: the one presented stops working, and so does the access token issued with it. */
  refresh(
    token: string,
    clientId: string,
    acceptsResource: (resource: string) => boolean = () => true,
  ): RefreshOutcome {
    const hash = sha256(token);
    const now = this.#now();
    const rotate = this.#db.transaction((): RefreshOutcome => {
      const row = this.#db
        .prepare("SELECT * FROM tokens WHERE token_hash = ? AND kind = 'refresh'")
        .get(hash) as TokenRow | undefined;
      if (!row) return { status: 'unknown' };
      if (row.client_id !== clientId) return { status: 'wrong_client' };
      const grant = this.grant(row.grant_id);
      if (!grant || grant.endedAt !== undefined) return { status: 'ended' };
      if (row.retired_at !== null) return { status: 'reused', grantId: row.grant_id };
      if (row.expires_at <= now) return { status: 'expired' };
      if (!acceptsResource(row.resource)) return { status: 'wrong_resource' };
      this.#db
        .prepare('UPDATE tokens SET retired_at = ? WHERE grant_id = ? AND retired_at IS NULL')
        .run(now, row.grant_id);
      return {
        status: 'ok',
        grantId: row.grant_id,
        resource: row.resource,
        tokens: this.issueTokens({
          grantId: row.grant_id,
          clientId,
          resource: row.resource,
          scope: row.scope,
        }),
      };
    });
    const result = rotate();
    if (result.status === 'reused') this.endGrant(result.grantId, 'refresh token used twice');
    return result;
  }
}

function pendingOf(row: PendingRow): PendingAuthorization {
  return {
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    ...(row.client_state !== null ? { clientState: row.client_state } : {}),
    codeChallenge: row.code_challenge,
    resource: row.resource,
    scope: row.scope,
    browserHash: row.browser_hash,
    expiresAt: row.expires_at,
  };
}

function grantOf(row: GrantRow): GrantRecord {
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
  };
}
