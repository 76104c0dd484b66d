/**
 * The emulated Airtable OAuth 2.0 authorization server's state: registered applications (clients), pending
 * consent requests, authorization codes, grants and their access and refresh tokens, in SQLite tables beside the
 * store's own. Knows nothing of HTTP: routes/oauth.ts parses requests and turns OAuthErrors into RFC 6749 bodies.
 *
 * Secrets never rest here in the clear: consent request ids, codes and tokens are kept as SHA-256 hashes only,
 * and client secrets as digests compared in constant time. What the upstream does (Airtable's OAuth reference,
 * airtable.com/developers/web/api/oauth-reference, and its example app github.com/Airtable/oauth-example):
 * authorization code grant with PKCE S256 required and `state` required; access tokens live 60 minutes; refresh
 * tokens live 60 days and are single-use (each refresh answers a new one, `refresh_expires_in` beside
 * `expires_in`). Where the upstream is silent, the choice made is commented beside the code that makes it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Clock } from '../../../emulation/clock.js';
import { err, ok, type Result } from '../../../emulation/result.js';

/** The operator application every emulator knows (a confidential client: it has a secret). */
export const SANDBOX_OAUTH_CLIENT_ID = 'sandbox-oauth-client';
export const SANDBOX_OAUTH_CLIENT_SECRET = 'sandbox-oauth-secret';
export const SANDBOX_OAUTH_CLIENT_NAME = 'Switchboard sandbox integration';

/** Upstream: access tokens expire after 60 minutes. */
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 3600;
/** Upstream: refresh tokens expire after 60 days (each refresh starts a new 60 days). */
export const DEFAULT_REFRESH_TOKEN_TTL_SECONDS = 60 * 24 * 60 * 60;
/** RFC 6749 §4.1.2 recommends at most 10 minutes; the upstream publishes no figure. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 600;
/** How long a consent page may stay open before Approve or Deny is refused (the emulator's choice). */
export const CONSENT_TTL_SECONDS = 600;
/** The longest lifetime the options and the config control accept: 10 years. */
export const MAX_TOKEN_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;

/** An application registered with the emulator; a client without a secret is public (PKCE is its only proof). */
export interface OAuthClientOptions {
  clientId: string;
  clientSecret?: string;
  redirectUris: readonly string[];
  /** Shown on the consent page; defaults to the client id. */
  name?: string;
}

export interface OAuthOptions {
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  /**
   * More applications; an entry with the sandbox client's id adds redirect URIs to it (and may replace its
   * secret) instead of registering another.
   */
  clients?: readonly OAuthClientOptions[];
}

export interface OAuthConfig {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
}

export interface OAuthClient {
  id: string;
  name: string;
  confidential: boolean;
  redirectUris: readonly string[];
  /** The sandbox application accepts any loopback redirect URI, on any port, as for native apps (RFC 8252). */
  anyLoopback: boolean;
}

/** RFC 6749 §5.2 error codes the token endpoint answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope';

export interface OAuthError {
  error: OAuthErrorCode;
  description: string;
}

/** A validated authorization request waiting for the emulated user's decision on the consent page. */
export interface PendingAuthorization {
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  state: string;
  codeChallenge: string;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  scopes: readonly string[];
  expiresIn: number;
  refreshExpiresIn: number;
}

/** A grant as the control API shows it: no token material, not even hashes. */
export interface GrantView {
  id: string;
  clientId: string;
  userId: string;
  scopes: string[];
  createdTime: string;
  /** Of the grant's current access and refresh tokens (a revoked grant keeps them, but they no longer work). */
  accessTokenExpirationTime: string | null;
  refreshTokenExpirationTime: string | null;
  revoked: boolean;
  revokedTime: string | null;
}

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

const SCHEMA = `
CREATE TABLE IF NOT EXISTS oauth_consents (
  id_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  scopes TEXT NOT NULL,
  state TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS oauth_grants (
  id TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE TABLE IF NOT EXISTS oauth_codes (
  code_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  user_id TEXT NOT NULL,
  scopes TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  grant_id TEXT
);
CREATE TABLE IF NOT EXISTS oauth_tokens (
  token_hash TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  scopes TEXT NOT NULL,
  issued_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  retired_at INTEGER
);
CREATE INDEX IF NOT EXISTS oauth_tokens_by_grant ON oauth_tokens (grant_id, kind);
`;

interface ConsentRow {
  client_id: string;
  redirect_uri: string;
  scopes: string;
  state: string;
  code_challenge: string;
  expires_at: number;
}

interface CodeRow {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  user_id: string;
  scopes: string;
  expires_at: number;
  used_at: number | null;
  grant_id: string | null;
}

interface GrantRow {
  id: string;
  client_id: string;
  user_id: string;
  scopes: string;
  created_at: number;
  revoked_at: number | null;
}

interface TokenRow {
  grant_id: string;
  kind: 'access' | 'refresh';
  scopes: string;
  expires_at: number;
  retired_at: number | null;
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** What the tables keep instead of a secret value. */
export function hashSecret(value: string): string {
  return sha256(value).toString('hex');
}

function sameSecret(presented: string, digest: Buffer): boolean {
  return timingSafeEqual(sha256(presented), digest);
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) equals the code_challenge. */
export function pkceChallengeOf(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** RFC 7636 §4.1: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
export function isValidCodeVerifier(verifier: string): boolean {
  return /^[A-Za-z0-9\-._~]{43,128}$/.test(verifier);
}

/** An S256 challenge is the base64url encoding, without padding, of 32 bytes: 43 characters. */
export function isValidS256Challenge(challenge: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(challenge);
}

/** A space-delimited scope parameter as a list (RFC 6749 §3.3); empty when nothing was asked for. */
export function parseScopes(raw: string): string[] {
  const trimmed = raw.trim();
  return trimmed === '' ? [] : trimmed.split(/ +/);
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(prefix: string): string {
  const bytes = randomBytes(14);
  let body = '';
  for (const b of bytes) body += ID_ALPHABET[b % ID_ALPHABET.length];
  return `${prefix}${body}`;
}

/**
 * Issued credentials are opaque to clients. Access tokens start with "oaa" and refresh tokens with "oar", never
 * with "pat", so auth.ts's tokenKindOf counts them as OAuth tokens; the 256 random bits are what matters.
 */
function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

function urlOrUndefined(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** http://127.0.0.1:<port>/..., http://localhost:<port>/... (and [::1]): a native app's loopback listener. */
export function isLoopbackRedirect(raw: string): boolean {
  const url = urlOrUndefined(raw);
  return (
    url !== undefined &&
    url.protocol === 'http:' &&
    LOOPBACK_HOSTS.has(url.hostname) &&
    url.username === '' &&
    url.password === '' &&
    !raw.includes('#')
  );
}

/** The same URI with the port dropped: RFC 8252 §7.3 lets a registered loopback URI match on any port. */
function withoutPort(raw: string): string {
  const url = new URL(raw);
  url.port = '';
  return url.toString();
}

function checkRedirectUri(raw: string, clientId: string): void {
  const url = urlOrUndefined(raw);
  // RFC 6749 §3.1.2: absolute, and no fragment.
  if (!url || raw.includes('#')) {
    throw new Error(
      `OAuth client ${clientId}: redirect URI ${raw} must be an absolute URL without a fragment`,
    );
  }
}

function checkTtl(value: number | undefined, what: string): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1 || value > MAX_TOKEN_TTL_SECONDS) {
    throw new Error(`${what} must be an integer from 1 to ${MAX_TOKEN_TTL_SECONDS}`);
  }
}

interface RegisteredClient extends OAuthClient {
  secretDigest: Buffer | undefined;
}

function buildClients(options: OAuthOptions): Map<string, RegisteredClient> {
  const clients = new Map<string, RegisteredClient>();
  clients.set(SANDBOX_OAUTH_CLIENT_ID, {
    id: SANDBOX_OAUTH_CLIENT_ID,
    name: SANDBOX_OAUTH_CLIENT_NAME,
    confidential: true,
    redirectUris: [],
    anyLoopback: true,
    secretDigest: sha256(SANDBOX_OAUTH_CLIENT_SECRET),
  });
  for (const entry of options.clients ?? []) {
    if (entry.clientId.trim() === '' || /\s/.test(entry.clientId)) {
      throw new Error('An OAuth client id must be non-empty and contain no spaces');
    }
    if (entry.clientSecret !== undefined && entry.clientSecret === '') {
      throw new Error(`OAuth client ${entry.clientId}: clientSecret must be non-empty when given`);
    }
    for (const uri of entry.redirectUris) checkRedirectUri(uri, entry.clientId);
    const existing = clients.get(entry.clientId);
    const secret = entry.clientSecret;
    clients.set(entry.clientId, {
      id: entry.clientId,
      name: entry.name ?? existing?.name ?? entry.clientId,
      confidential: secret !== undefined || (existing?.confidential ?? false),
      redirectUris: [...(existing?.redirectUris ?? []), ...entry.redirectUris],
      anyLoopback: existing?.anyLoopback ?? false,
      secretDigest: secret !== undefined ? sha256(secret) : existing?.secretDigest,
    });
  }
  return clients;
}

const fail = (error: OAuthErrorCode, description: string): Result<never, OAuthError> =>
  err({ error, description });

export interface ClientCredentials {
  /** From an `Authorization: Basic` header, already form-decoded. */
  basic?: { clientId: string; secret: string };
  bodyClientId?: string;
  bodyClientSecret?: string;
}

export class OAuthState {
  readonly #clients: Map<string, RegisteredClient>;
  #config: OAuthConfig;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    options: OAuthOptions = {},
  ) {
    checkTtl(options.accessTokenTtlSeconds, 'oauth.accessTokenTtlSeconds');
    checkTtl(options.refreshTokenTtlSeconds, 'oauth.refreshTokenTtlSeconds');
    this.#clients = buildClients(options);
    this.#config = {
      accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
    };
    db.exec(SCHEMA);
  }

  get config(): OAuthConfig {
    return { ...this.#config };
  }

  /** New lifetimes apply to tokens issued from now on; tokens already out keep the expiry they were given. */
  configure(update: Partial<OAuthConfig>): OAuthConfig {
    checkTtl(update.accessTokenTtlSeconds, 'accessTokenTtlSeconds');
    checkTtl(update.refreshTokenTtlSeconds, 'refreshTokenTtlSeconds');
    this.#config = {
      accessTokenTtlSeconds: update.accessTokenTtlSeconds ?? this.#config.accessTokenTtlSeconds,
      refreshTokenTtlSeconds: update.refreshTokenTtlSeconds ?? this.#config.refreshTokenTtlSeconds,
    };
    return this.config;
  }

  client(clientId: string): OAuthClient | undefined {
    const found = this.#clients.get(clientId);
    if (!found) return undefined;
    const { secretDigest: _secret, ...client } = found;
    return client;
  }

  clients(): OAuthClient[] {
    return [...this.#clients.keys()].map((id) => this.client(id) as OAuthClient);
  }

  /**
   * Exact match with a registered URI (RFC 6749 §3.1.2.3); a registered loopback URI on any port; any loopback
   * URI for the sandbox application.
   */
  redirectAllowed(client: OAuthClient, redirectUri: string): boolean {
    if (client.redirectUris.includes(redirectUri)) return true;
    if (!isLoopbackRedirect(redirectUri)) return false;
    if (client.anyLoopback) return true;
    const portless = withoutPort(redirectUri);
    return client.redirectUris.some((uri) => isLoopbackRedirect(uri) && withoutPort(uri) === portless);
  }

  /** Drops every grant, token, code and pending consent (the emulator's reset, or a reseed). */
  reset(): void {
    this.db.exec(
      'DELETE FROM oauth_tokens; DELETE FROM oauth_codes; DELETE FROM oauth_grants; DELETE FROM oauth_consents;',
    );
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  // ---- consent -----------------------------------------------------------------------------------------------

  /** Remembers a validated request; the returned id is what the consent form posts back (only its hash is kept). */
  createConsent(request: PendingAuthorization): string {
    const now = this.now();
    this.db.prepare('DELETE FROM oauth_consents WHERE expires_at <= ?').run(now);
    const id = newSecret('');
    this.db
      .prepare(
        `INSERT INTO oauth_consents (id_hash, client_id, redirect_uri, scopes, state, code_challenge, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        hashSecret(id),
        request.clientId,
        request.redirectUri,
        request.scopes.join(' '),
        request.state,
        request.codeChallenge,
        now + CONSENT_TTL_SECONDS * 1000,
      );
    return id;
  }

  /** The pending request behind a consent form, if it is still open. */
  consent(id: string): PendingAuthorization | undefined {
    const row = this.db.prepare('SELECT * FROM oauth_consents WHERE id_hash = ?').get(hashSecret(id)) as
      | ConsentRow
      | undefined;
    if (!row || row.expires_at <= this.now()) return undefined;
    return {
      clientId: row.client_id,
      redirectUri: row.redirect_uri,
      scopes: parseScopes(row.scopes),
      state: row.state,
      codeChallenge: row.code_challenge,
    };
  }

  /** A consent form answers once, whichever button was pressed. */
  closeConsent(id: string): void {
    this.db.prepare('DELETE FROM oauth_consents WHERE id_hash = ?').run(hashSecret(id));
  }

  // ---- codes and tokens --------------------------------------------------------------------------------------

  /** A single-use code, bound to the client, redirect URI, PKCE challenge, user and scopes; valid 10 minutes. */
  issueCode(request: PendingAuthorization, userId: string): string {
    const now = this.now();
    // Expired codes are forgotten; used ones are kept until then, so a replay can still be recognised.
    this.db.prepare('DELETE FROM oauth_codes WHERE expires_at <= ?').run(now);
    const code = newSecret('');
    this.db
      .prepare(
        `INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, user_id, scopes, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        hashSecret(code),
        request.clientId,
        request.redirectUri,
        request.codeChallenge,
        userId,
        request.scopes.join(' '),
        now + AUTHORIZATION_CODE_TTL_SECONDS * 1000,
      );
    return code;
  }

  /**
   * Who is calling the token endpoint (RFC 6749 §2.3.1). Airtable documents one method for a client with a
   * secret: `Authorization: Basic base64(client_id:client_secret)`, with client_id in the body optional then, and
   * client_id alone in the body for a client without one (github.com/Airtable/oauth-example). The RFC also allows
   * client_secret in the body (client_secret_post, "NOT RECOMMENDED"); the emulator accepts it too so clients
   * built that way can be exercised, but never both methods at once (RFC 6749 §2.3).
   */
  authenticateClient(credentials: ClientCredentials): Result<OAuthClient, OAuthError> {
    const { basic, bodyClientId, bodyClientSecret } = credentials;
    if (basic && bodyClientSecret !== undefined) {
      return fail(
        'invalid_request',
        'Use one client authentication method: the Authorization header or client_secret in the body, not both.',
      );
    }
    if (basic && bodyClientId !== undefined && bodyClientId !== basic.clientId) {
      return fail('invalid_client', 'client_id does not match the client in the Authorization header.');
    }
    const clientId = basic?.clientId ?? bodyClientId;
    if (clientId === undefined || clientId === '') {
      return fail(
        'invalid_client',
        'Client authentication is required: an Authorization: Basic header, or client_id for a client without a secret.',
      );
    }
    const client = this.#clients.get(clientId);
    if (!client) return fail('invalid_client', 'Unknown client.');
    const presented = basic ? basic.secret : bodyClientSecret;
    if (client.secretDigest) {
      if (presented === undefined) {
        return fail(
          'invalid_client',
          'This client has a secret: authenticate with an Authorization: Basic client_id:client_secret header.',
        );
      }
      if (!sameSecret(presented, client.secretDigest))
        return fail('invalid_client', 'Client authentication failed.');
    } else if (presented !== undefined && presented !== '') {
      return fail('invalid_client', 'Client authentication failed: this client has no secret.');
    }
    return ok(this.client(clientId) as OAuthClient);
  }

  /**
   * Redeems an authorization code (RFC 6749 §4.1.3, RFC 7636 §4.6). A code works once: a second attempt is refused
   * and, as RFC 6749 §4.1.2 advises, revokes the grant the first one created, since a replayed code suggests it
   * was stolen. A failed attempt also uses the code up, so a stolen code gives a guesser a single try.
   */
  exchangeCode(
    client: OAuthClient,
    input: { code: string; redirectUri: string; codeVerifier: string },
  ): Result<IssuedTokens, OAuthError> {
    const now = this.now();
    const hash = hashSecret(input.code);
    const run = this.db.transaction((): Result<IssuedTokens, OAuthError> => {
      const row = this.db.prepare('SELECT * FROM oauth_codes WHERE code_hash = ?').get(hash) as
        | CodeRow
        | undefined;
      if (!row) return fail('invalid_grant', 'The authorization code is invalid or has expired.');
      if (row.used_at !== null) {
        if (row.grant_id !== null) this.revokeGrantAt(row.grant_id, now);
        return fail(
          'invalid_grant',
          'The authorization code has already been used; tokens issued for it are revoked.',
        );
      }
      this.db.prepare('UPDATE oauth_codes SET used_at = ? WHERE code_hash = ?').run(now, hash);
      if (row.expires_at <= now) return fail('invalid_grant', 'The authorization code has expired.');
      if (row.client_id !== client.id) {
        return fail('invalid_grant', 'The authorization code was issued to another client.');
      }
      if (row.redirect_uri !== input.redirectUri) {
        return fail('invalid_grant', 'redirect_uri does not match the one of the authorization request.');
      }
      const challenge = pkceChallengeOf(input.codeVerifier);
      if (
        challenge.length !== row.code_challenge.length ||
        !timingSafeEqual(Buffer.from(challenge), Buffer.from(row.code_challenge))
      ) {
        return fail('invalid_grant', 'code_verifier does not match the code_challenge.');
      }
      const grantId = randomId('oag');
      this.db
        .prepare(
          'INSERT INTO oauth_grants (id, client_id, user_id, scopes, created_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(grantId, client.id, row.user_id, row.scopes, now);
      this.db.prepare('UPDATE oauth_codes SET grant_id = ? WHERE code_hash = ?').run(grantId, hash);
      const scopes = parseScopes(row.scopes);
      return ok(this.issueTokens(grantId, scopes, scopes, now));
    });
    // Immediate: a code is used once even when two processes sharing the file are handed it at once.
    return run.immediate();
  }

  /**
   * A refresh (RFC 6749 §6). Refresh tokens rotate: each answer carries a new one and the one presented stops
   * working, as upstream. Presenting a refresh token that was already rotated away is refused AND revokes the
   * whole grant: either the client or an attacker holds a stale copy, and the server cannot tell which (the
   * refresh token reuse detection of the OAuth 2.0 Security BCP, RFC 9700 §4.14). The previous access token is
   * retired too (integrators report this of the upstream; it also flags clients that keep using a superseded
   * token).
   * `scope` may narrow the new access token's scopes, never widen them; the refresh token keeps the grant's.
   */
  refresh(
    client: OAuthClient,
    input: { refreshToken: string; scope?: string },
  ): Result<IssuedTokens, OAuthError> {
    const now = this.now();
    const hash = hashSecret(input.refreshToken);
    const run = this.db.transaction((): Result<IssuedTokens, OAuthError> => {
      const token = this.db
        .prepare("SELECT * FROM oauth_tokens WHERE token_hash = ? AND kind = 'refresh'")
        .get(hash) as TokenRow | undefined;
      const grant = token
        ? (this.db.prepare('SELECT * FROM oauth_grants WHERE id = ?').get(token.grant_id) as
            | GrantRow
            | undefined)
        : undefined;
      if (!token || !grant) return fail('invalid_grant', 'The refresh token is invalid.');
      if (grant.client_id !== client.id) {
        return fail('invalid_grant', 'The refresh token was issued to another client.');
      }
      if (grant.revoked_at !== null) return fail('invalid_grant', 'The grant has been revoked.');
      if (token.retired_at !== null) {
        this.revokeGrantAt(grant.id, now);
        return fail(
          'invalid_grant',
          'The refresh token has already been used; the grant is revoked and the user must authorize again.',
        );
      }
      if (token.expires_at <= now) return fail('invalid_grant', 'The refresh token has expired.');
      const granted = parseScopes(grant.scopes);
      let scopes = granted;
      if (input.scope !== undefined) {
        const asked = parseScopes(input.scope);
        const beyond = asked.filter((s) => !granted.includes(s));
        if (asked.length === 0 || beyond.length > 0) {
          return fail(
            'invalid_scope',
            beyond.length > 0
              ? `The scope may only narrow the grant's scopes; not granted: ${beyond.join(' ')}`
              : 'The scope parameter is empty.',
          );
        }
        scopes = [...new Set(asked)];
      }
      this.db
        .prepare('UPDATE oauth_tokens SET retired_at = ? WHERE grant_id = ? AND retired_at IS NULL')
        .run(now, grant.id);
      return ok(this.issueTokens(grant.id, scopes, granted, now));
    });
    // Immediate: what it reads (is the token still current?) must be what it writes over, whatever another
    // process sharing the file does meanwhile.
    return run.immediate();
  }

  private issueTokens(
    grantId: string,
    scopes: readonly string[],
    grantScopes: readonly string[],
    now: number,
  ): IssuedTokens {
    const { accessTokenTtlSeconds, refreshTokenTtlSeconds } = this.#config;
    const accessToken = newSecret('oaa');
    const refreshToken = newSecret('oar');
    const insert = this.db.prepare(
      `INSERT INTO oauth_tokens (token_hash, grant_id, kind, scopes, issued_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    insert.run(
      hashSecret(accessToken),
      grantId,
      'access',
      scopes.join(' '),
      now,
      now + accessTokenTtlSeconds * 1000,
    );
    insert.run(
      hashSecret(refreshToken),
      grantId,
      'refresh',
      grantScopes.join(' '),
      now,
      now + refreshTokenTtlSeconds * 1000,
    );
    return {
      accessToken,
      refreshToken,
      scopes,
      expiresIn: accessTokenTtlSeconds,
      refreshExpiresIn: refreshTokenTtlSeconds,
    };
  }

  /** The user and scopes behind a live access token: not expired, not superseded, its grant not revoked. */
  principalOf(accessToken: string): { userId: string; scopes: ReadonlySet<string> } | undefined {
    const row = this.db
      .prepare(
        `SELECT t.scopes AS scopes, t.expires_at AS expires_at, t.retired_at AS retired_at,
                g.user_id AS user_id, g.revoked_at AS revoked_at
         FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
         WHERE t.token_hash = ? AND t.kind = 'access'`,
      )
      .get(hashSecret(accessToken)) as
      | {
          scopes: string;
          expires_at: number;
          retired_at: number | null;
          user_id: string;
          revoked_at: number | null;
        }
      | undefined;
    if (!row || row.retired_at !== null || row.revoked_at !== null || row.expires_at <= this.now()) {
      return undefined;
    }
    return { userId: row.user_id, scopes: new Set(parseScopes(row.scopes)) };
  }

  // ---- grants ------------------------------------------------------------------------------------------------

  grants(): GrantView[] {
    const rows = this.db.prepare('SELECT * FROM oauth_grants ORDER BY created_at, rowid').all() as GrantRow[];
    return rows.map((row) => this.view(row));
  }

  grant(id: string): GrantView | undefined {
    const row = this.db.prepare('SELECT * FROM oauth_grants WHERE id = ?').get(id) as GrantRow | undefined;
    return row ? this.view(row) : undefined;
  }

  /** Revokes a grant (as a user removing the integration would): its access and refresh tokens stop at once. */
  revokeGrant(id: string): GrantView | undefined {
    if (!this.grant(id)) return undefined;
    this.revokeGrantAt(id, this.now());
    return this.grant(id);
  }

  private revokeGrantAt(id: string, now: number): void {
    this.db
      .prepare('UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
      .run(now, id);
  }

  private view(row: GrantRow): GrantView {
    const current = (kind: 'access' | 'refresh'): string | null => {
      const found = this.db
        .prepare(
          `SELECT expires_at FROM oauth_tokens WHERE grant_id = ? AND kind = ? AND retired_at IS NULL
           ORDER BY issued_at DESC, rowid DESC LIMIT 1`,
        )
        .get(row.id, kind) as { expires_at: number } | undefined;
      return found ? new Date(found.expires_at).toISOString() : null;
    };
    return {
      id: row.id,
      clientId: row.client_id,
      userId: row.user_id,
      scopes: parseScopes(row.scopes),
      createdTime: new Date(row.created_at).toISOString(),
      accessTokenExpirationTime: current('access'),
      refreshTokenExpirationTime: current('refresh'),
      revoked: row.revoked_at !== null,
      revokedTime: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
    };
  }
}
