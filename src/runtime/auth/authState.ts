// Where the vault (vault.ts) keeps its rows: the records of per-user OAuth and the operations AuthVault needs on
// them. Two implementations: SQLite in the data folder (sqliteAuthState.ts, the embedded default for one process)
// and Redis (../sharedState/redisAuthState.ts), which replicas behind a load balancer share.
//
// A store never sees a secret in the clear: the vault hashes our codes, tokens and handles and seals the upstream's
// tokens and our PKCE verifiers before they reach it. Each step where a check and an update must be one (a pending
// request taken once, a code redeemed once, a refresh token rotated once with reuse detected, a grant ended with all
// its tokens) is one operation here, atomic in each store: a transaction in SQLite, a Lua script in Redis.
//
// Times are epoch milliseconds on the vault's clock, passed in as `now`, so both stores judge expiry alike (and
// tests can move the clock). Retention arguments say how long a row still matters; a store may keep it longer.

/** A value now (the SQLite store, synchronous) or later (Redis): the vault awaits either. */
export type Awaitable<T> = T | Promise<T>;

// ---- records ---------------------------------------------------------------------------------------------------

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

// ---- rows as stores keep them ------------------------------------------------------------------------------------

export type PendingStage = 'consent' | 'upstream';

/** A request in flight, under the hash of its handle; the upstream stage carries our sealed PKCE verifier. */
export interface PendingRow extends PendingAuthorization {
  stage: PendingStage;
  sealedVerifier?: string;
}

/** A grant with its upstream tokens sealed (both '' once the grant has ended). */
export interface GrantRow extends GrantRecord {
  sealedAccessToken: string;
  sealedRefreshToken: string;
}

/** New upstream tokens for a grant, sealed. */
export interface UpstreamTokenUpdate {
  sealedAccessToken: string;
  accessExpiresAt: number;
  sealedRefreshToken: string;
  refreshExpiresAt?: number;
  upstreamScopes: string[];
  tokensObtainedAt: number;
}

export interface CodeRow extends CodeGrant {
  expiresAt: number;
  usedAt?: number;
}

export type CodeTaking =
  | { status: 'unknown' }
  /** First use: the code is now marked used (expiry is the vault's check). */
  | { status: 'taken'; code: CodeRow }
  | { status: 'used'; grantId: string };

export interface TokenRow {
  kind: 'access' | 'refresh';
  grantId: string;
  clientId: string;
  resource: string;
  scope: string;
  issuedAt: number;
  expiresAt: number;
  retiredAt?: number;
}

/** An access token's row with what the vault needs of its grant. */
export interface AccessTokenRow extends TokenRow {
  subject: string;
  grantEnded: boolean;
}

/** The hashes and lifetimes of an access and refresh token to store together. */
export interface TokenPair {
  accessHash: string;
  refreshHash: string;
  issuedAt: number;
  accessExpiresAt: number;
  refreshExpiresAt: number;
}

export type Rotation =
  /** The presented token and every live token of its grant are retired; `next` is stored in their place. */
  | { status: 'ok'; grantId: string; resource: string; scope: string }
  | { status: 'unknown' | 'expired' | 'ended' | 'wrong_client' | 'wrong_resource' }
  /** A retired refresh token came back (the vault then ends the grant). */
  | { status: 'reused'; grantId: string };

export interface RotationRequest {
  clientId: string;
  now: number;
  /** Whether the token's resource is the one asked for; checked after the other refusals, as in RFC 6749 order. */
  acceptsResource: (resource: string) => boolean;
  /** The tokens that replace the presented one, stored only when the rotation succeeds. */
  next: TokenPair;
  /** Tokens whose `expiresAt` is before this may be forgotten (the SQLite store sweeps them). */
  sweepBefore: number;
}

/** Lets go of a lock. */
export type Release = () => Awaitable<void>;

// ---- the store -------------------------------------------------------------------------------------------------

export interface AuthStateStore {
  /** Stores `candidate` (a known value sealed under the vault's key) unless one is stored; returns the stored one. */
  keyCheck(candidate: string): Awaitable<string>;
  /** The start-up refusal when the stored key check does not open under the configured key: what to do. */
  keyMismatch(): string;

  addClient(client: ClientRecord): Awaitable<void>;
  client(id: string): Awaitable<ClientRecord | undefined>;

  /** Stores a request in flight until `row.expiresAt`; the SQLite store drops expired ones as it goes. */
  addPending(hash: string, row: PendingRow, now: number): Awaitable<void>;
  /**
   * Takes (deletes and returns) the row at `hash` in `stage` when its browser hash is `browserHash`. A row in another
   * stage, or for another browser, is left alone. Expiry is the caller's check.
   */
  takePending(hash: string, stage: PendingStage, browserHash: string): Awaitable<PendingRow | undefined>;
  peekPending(hash: string, stage: PendingStage): Awaitable<PendingRow | undefined>;

  /** Stores a new grant, kept at least `retainMs` (while tokens issued for it may come back). */
  addGrant(grant: GrantRow, retainMs: number): Awaitable<void>;
  grant(id: string): Awaitable<GrantRow | undefined>;
  /** Replaces a live grant's upstream tokens and bumps its version; nothing for an unknown or ended grant. */
  replaceUpstreamTokens(id: string, update: UpstreamTokenUpdate): Awaitable<void>;
  /** Ends the grant (once: the first reason stays), wipes its sealed tokens and retires every token issued for it. */
  endGrant(id: string, reason: string, now: number): Awaitable<void>;

  /**
   * Forgets codes that expired before `cutoff`; returns the grants of those among them never redeemed (the vault
   * ends them: nobody can reach them any more).
   */
  dropAbandonedCodes(cutoff: number): Awaitable<string[]>;
  /** Stores a code; it matters until `forgetAt` (a second use is recognised until then). */
  addCode(hash: string, code: CodeRow, now: number, forgetAt: number): Awaitable<void>;
  /** Marks the code used and returns it, once; later calls answer `used`. */
  takeCode(hash: string, now: number): Awaitable<CodeTaking>;

  /** Stores an access and a refresh token for a grant (and keeps the grant while they may come back). */
  addTokens(
    pair: TokenPair,
    issued: { grantId: string; clientId: string; resource: string; scope: string },
    sweepBefore: number,
  ): Awaitable<void>;
  /** An access token's row (retired or not), with its grant's subject; undefined when unknown. */
  accessToken(hash: string): Awaitable<AccessTokenRow | undefined>;
  /**
   * Rotates a refresh token in one step: refused (unknown, wrong client, grant ended, reused, expired, wrong
   * resource, in that order) or every live token of the grant retired and `next` stored.
   */
  rotateRefresh(hash: string, request: RotationRequest): Awaitable<Rotation>;

  /**
   * Exclusive use of one grant's upstream tokens for a renewal, across whatever else shares this store; resolves
   * to its release. The broker (renewal.ts) keeps calls within one process apart itself.
   */
  lockGrant(grantId: string): Promise<Release>;

  /** Lets go of what the store opened itself (a shared connection is its owner's to close). */
  close(): Awaitable<void>;
}

/**
 * The store could not be reached or did not answer in time (a Redis outage, a renewal lock held too long): the
 * operation did not happen, and trying again later can help. Messages name the setting to check, never a secret.
 */
export class AuthStateUnavailableError extends Error {
  override name = 'AuthStateUnavailableError';
  readonly retryable = true;
}
