// The HTTP server's authorization state: MCP clients that registered, authorization requests in flight, grants (one
// person's connection: their upstream user id and the upstream's tokens), and the authorization codes and tokens we
// issue to MCP clients. The rows live in a store (authState.ts): SQLite in the data folder (auth.db) by default, or
// Redis when replicas share the state; this class is the same over both.
//
// Nothing secret rests in the clear, in either store. The upstream's access and refresh tokens and our PKCE
// verifiers are sealed with AES-256-GCM under the server's key, each bound to its row and column (the additional
// authenticated data), so a sealed value copied into another person's row does not open. Our own codes, tokens and
// one-time handles are kept as SHA-256 hashes only: they are 256-bit random values, so a plain hash cannot be
// reversed or guessed. The key itself is never stored with the state.

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSecret, registerTransientSecret } from '../secrets.js';
import type {
  AuthorizationRequest,
  AuthStateStore,
  ClientRecord,
  CodeGrant,
  GrantRecord,
  GrantRow,
  PendingAuthorization,
  PendingRow,
  PendingStage,
  Release,
  TokenPair,
  UpstreamAuthorization,
  UpstreamTokenSet,
} from './authState.js';
import { AuthSetupError } from './config.js';
import { SqliteAuthState } from './sqliteAuthState.js';

export type {
  AuthorizationRequest,
  AuthStateStore,
  ClientRecord,
  CodeGrant,
  GrantRecord,
  PendingAuthorization,
  UpstreamAuthorization,
  UpstreamTokenSet,
} from './authState.js';

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

// ---- results -------------------------------------------------------------------------------------------------

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

/** A known value sealed when the state is created: opening it later proves the key is the same. */
const KEY_CHECK = 'switchboard auth.db key check';
const KEY_CHECK_CONTEXT = 'meta:key_check';

export class AuthVault {
  readonly #state: AuthStateStore;
  readonly #sealer: Sealer;
  readonly #now: () => number;
  readonly #ttl: { access: number; refresh: number; code: number; pending: number };
  /** The known value sealed under this vault's key, which the stored one must match. */
  readonly #keyCheck: string;
  /** Whether the stored key check opened under our key; until it has, every operation checks first. */
  #keyVerified = false;
  /** The key check on its way (a store that answers later), shared by the operations waiting for it. */
  #checking: Promise<void> | undefined;

  /**
   * Over `state`, or over SQLite at a path (`:memory:` for tests). A wrong key throws here for a store that answers
   * at once (SQLite); for one that answers later (Redis), `verifyKey` (or `AuthVault.open`) checks, and every
   * operation checks until that has passed.
   */
  constructor(state: string | AuthStateStore, key: Buffer, options: VaultOptions = {}) {
    this.#sealer = new Sealer(key);
    this.#now = options.now ?? Date.now;
    this.#ttl = {
      access: options.accessTokenTtlMs ?? ACCESS_TOKEN_TTL_MS,
      refresh: options.refreshTokenTtlMs ?? REFRESH_TOKEN_TTL_MS,
      code: options.codeTtlMs ?? CODE_TTL_MS,
      pending: options.pendingTtlMs ?? PENDING_TTL_MS,
    };
    this.#state = typeof state === 'string' ? new SqliteAuthState(state) : state;
    this.#keyCheck = this.#sealer.seal(KEY_CHECK, KEY_CHECK_CONTEXT);
    const stored = this.#state.keyCheck(this.#keyCheck);
    if (stored instanceof Promise) {
      // Answered later: checked by verifyKey or the first operation. Observed so that it is no unhandled rejection.
      this.#checking = this.#settleKeyCheck(stored);
      this.#checking.catch(() => undefined);
    } else {
      this.#checkKey(stored);
    }
  }

  /** The vault over `state`, once its key check has passed: throws an AuthSetupError for another key. */
  static async open(state: AuthStateStore, key: Buffer, options: VaultOptions = {}): Promise<AuthVault> {
    const vault = new AuthVault(state, key, options);
    await vault.verifyKey();
    return vault;
  }

  /**
   * Resolves once the stored state is known to be sealed under this vault's key: an AuthSetupError when it is
   * another, the store's own error when it cannot be reached (then the next operation checks again).
   */
  async verifyKey(): Promise<void> {
    if (this.#keyVerified) return;
    this.#checking ??= this.#settleKeyCheck(Promise.resolve(this.#state.keyCheck(this.#keyCheck)));
    await this.#checking;
  }

  #settleKeyCheck(stored: Promise<string>): Promise<void> {
    return stored
      .then((value) => this.#checkKey(value))
      .finally(() => {
        this.#checking = undefined;
      });
  }

  async close(): Promise<void> {
    await this.#state.close();
  }

  get now(): number {
    return this.#now();
  }

  #checkKey(stored: string): void {
    if (this.#sealer.open(stored, KEY_CHECK_CONTEXT) !== KEY_CHECK) {
      throw new AuthSetupError(this.#state.keyMismatch());
    }
    this.#keyVerified = true;
  }

  /** The store, once the key check has passed. */
  async #ready(): Promise<AuthStateStore> {
    if (!this.#keyVerified) await this.verifyKey();
    return this.#state;
  }

  // ---- clients -----------------------------------------------------------------------------------------------

  async registerClient(input: {
    name?: string;
    redirectUris: string[];
    metadata: Record<string, unknown>;
  }): Promise<ClientRecord> {
    const client: ClientRecord = {
      id: `sbc_${randomBytes(16).toString('base64url')}`,
      ...(input.name ? { name: input.name } : {}),
      redirectUris: input.redirectUris,
      metadata: input.metadata,
      createdAt: this.#now(),
    };
    await (await this.#ready()).addClient(client);
    return client;
  }

  async client(id: string): Promise<ClientRecord | undefined> {
    return (await this.#ready()).client(id);
  }

  // ---- authorization requests in flight -----------------------------------------------------------------------

  /** Remembers a checked /authorize request while the consent page is shown; the handle goes into the page. */
  async createPending(request: AuthorizationRequest, browserHash: string): Promise<string> {
    const handle = newSecret('');
    await this.#addPending(sha256(handle), 'consent', { ...request, browserHash });
    return handle;
  }

  /** Takes (once) the request behind a consent form, if it is open and this is the browser it was shown in. */
  async takePending(handle: string, browserHash: string): Promise<PendingAuthorization | undefined> {
    const row = await this.#take(sha256(handle), 'consent', browserHash);
    return row ? pendingOf(row) : undefined;
  }

  /** After consent: the same request, now waiting for the upstream's answer; the handle is our upstream `state`. */
  async createUpstreamAuthorization(
    request: PendingAuthorization,
    upstreamVerifier: string,
  ): Promise<string> {
    const state = newSecret('');
    const hash = sha256(state);
    const sealedVerifier = this.#sealer.seal(upstreamVerifier, `pending:${hash}`);
    await this.#addPending(hash, 'upstream', request, sealedVerifier);
    return state;
  }

  /** One stage of a request in flight, under the hash of its handle, open for the pending lifetime from now. */
  async #addPending(
    hash: string,
    stage: PendingStage,
    request: AuthorizationRequest & { browserHash: string },
    sealedVerifier?: string,
  ): Promise<void> {
    const now = this.#now();
    const row: PendingRow = {
      stage,
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      ...(request.clientState !== undefined ? { clientState: request.clientState } : {}),
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      scope: request.scope,
      browserHash: request.browserHash,
      expiresAt: now + this.#ttl.pending,
      ...(sealedVerifier !== undefined ? { sealedVerifier } : {}),
    };
    await (await this.#ready()).addPending(hash, row, now);
  }

  /** Takes (once) the request an upstream callback's `state` names, with its sealed verifier opened. */
  async takeUpstreamAuthorization(
    state: string,
    browserHash: string,
  ): Promise<UpstreamAuthorization | undefined> {
    const hash = sha256(state);
    const row = await this.#take(hash, 'upstream', browserHash);
    if (!row?.sealedVerifier) return undefined;
    const upstreamVerifier = this.#sealer.open(row.sealedVerifier, `pending:${hash}`);
    if (upstreamVerifier === undefined) return undefined;
    return { ...pendingOf(row), upstreamVerifier };
  }

  /** Whether `state` names a request we are waiting on (without taking it), for error pages. */
  async peekUpstreamAuthorization(state: string): Promise<AuthorizationRequest | undefined> {
    const row = await (await this.#ready()).peekPending(sha256(state), 'upstream');
    return row && row.expiresAt > this.#now() ? pendingOf(row) : undefined;
  }

  /** Taken (used up) whether or not it is still open; only an open one is returned. */
  async #take(hash: string, stage: PendingStage, browserHash: string): Promise<PendingRow | undefined> {
    const row = await (await this.#ready()).takePending(hash, stage, browserHash);
    return row && row.expiresAt > this.#now() ? row : undefined;
  }

  // ---- grants --------------------------------------------------------------------------------------------------

  async createGrant(input: {
    clientId: string;
    subject: string;
    tokens: UpstreamTokenSet;
  }): Promise<GrantRecord> {
    const id = `sbg_${randomBytes(16).toString('base64url')}`;
    const now = this.#now();
    const t = input.tokens;
    const row: GrantRow = {
      id,
      clientId: input.clientId,
      subject: input.subject,
      upstreamScopes: [...t.scopes],
      accessExpiresAt: t.expiresAt,
      ...(t.refreshExpiresAt !== undefined ? { refreshExpiresAt: t.refreshExpiresAt } : {}),
      version: 1,
      tokensObtainedAt: now,
      createdAt: now,
      sealedAccessToken: this.#sealer.seal(t.accessToken, `grant:${id}:access`),
      sealedRefreshToken: this.#sealer.seal(t.refreshToken, `grant:${id}:refresh`),
    };
    // Kept while tokens issued for it may come back; issuing tokens for it extends that.
    await (await this.#ready()).addGrant(row, this.#ttl.refresh);
    return recordOf(row);
  }

  async grant(id: string): Promise<GrantRecord | undefined> {
    const row = await (await this.#ready()).grant(id);
    return row ? recordOf(row) : undefined;
  }

  /** The grant's upstream tokens, opened; undefined when they do not open (another key, or tampering). */
  async upstreamTokens(
    id: string,
  ): Promise<{ accessToken: string; refreshToken: string; version: number } | undefined> {
    return (await this.grantWithTokens(id))?.tokens;
  }

  /** The grant and its opened upstream tokens from one read (`tokens` undefined when they do not open). */
  async grantWithTokens(id: string): Promise<
    | {
        record: GrantRecord;
        tokens?: { accessToken: string; refreshToken: string; version: number };
      }
    | undefined
  > {
    const row = await (await this.#ready()).grant(id);
    if (!row) return undefined;
    const record = recordOf(row);
    const accessToken = this.#sealer.open(row.sealedAccessToken, `grant:${id}:access`);
    const refreshToken = this.#sealer.open(row.sealedRefreshToken, `grant:${id}:refresh`);
    if (accessToken === undefined || refreshToken === undefined) return { record };
    registerTransientSecret(accessToken);
    registerTransientSecret(refreshToken);
    return { record, tokens: { accessToken, refreshToken, version: row.version } };
  }

  /** Replaces the upstream tokens after a refresh (the old refresh token no longer works upstream). */
  async saveUpstreamTokens(id: string, tokens: UpstreamTokenSet): Promise<GrantRecord | undefined> {
    const state = await this.#ready();
    await state.replaceUpstreamTokens(id, {
      sealedAccessToken: this.#sealer.seal(tokens.accessToken, `grant:${id}:access`),
      accessExpiresAt: tokens.expiresAt,
      sealedRefreshToken: this.#sealer.seal(tokens.refreshToken, `grant:${id}:refresh`),
      ...(tokens.refreshExpiresAt !== undefined ? { refreshExpiresAt: tokens.refreshExpiresAt } : {}),
      upstreamScopes: [...tokens.scopes],
      tokensObtainedAt: this.#now(),
    });
    const row = await state.grant(id);
    return row ? recordOf(row) : undefined;
  }

  /** Ends a grant: its tokens stop working at once and its upstream tokens are wiped. */
  async endGrant(id: string, reason: string): Promise<void> {
    await (await this.#ready()).endGrant(id, reason, this.#now());
  }

  /**
   * Exclusive use of the grant's upstream tokens while they are renewed, across every process sharing the state
   * (the renewal broker's store lock, renewal.ts).
   */
  async lockGrant(id: string): Promise<Release> {
    return (await this.#ready()).lockGrant(id);
  }

  // ---- authorization codes ---------------------------------------------------------------------------------------

  async issueCode(input: CodeGrant): Promise<string> {
    const state = await this.#ready();
    const now = this.#now();
    // A code its client never came back for: the grant it stood for can no longer be reached, so its store tokens
    // are not kept for nobody.
    for (const grantId of await state.dropAbandonedCodes(now - this.#ttl.code)) {
      await this.endGrant(grantId, 'its authorization code was never redeemed');
    }
    // Our codes and tokens are not registered for redaction: we never hold them (only their hashes) nor write them
    // anywhere but the client's redirect and the token response, and the registry only grows.
    const code = newSecret('sb_ac_');
    const expiresAt = now + this.#ttl.code;
    // Kept a lifetime past expiry, so that a late second use is still recognised as one.
    await state.addCode(sha256(code), { ...codeGrantOf(input), expiresAt }, now, expiresAt + this.#ttl.code);
    return code;
  }

  /**
   * Uses a code up, whatever comes next: a failed redemption (wrong verifier, wrong client) gives a thief one
   * try. A second use ends the grant the first one made (RFC 6749 §4.1.2: revoke what the code issued).
   */
  async redeemCode(code: string): Promise<CodeRedemption> {
    const now = this.#now();
    const taking = await (await this.#ready()).takeCode(sha256(code), now);
    if (taking.status === 'unknown') return { status: 'unknown' };
    if (taking.status === 'used') {
      await this.endGrant(taking.grantId, 'authorization code used twice');
      return { status: 'reused', grantId: taking.grantId };
    }
    if (taking.code.expiresAt <= now) {
      await this.endGrant(taking.code.grantId, 'its authorization code expired unused');
      return { status: 'expired' };
    }
    return { status: 'ok', code: codeGrantOf(taking.code) };
  }

  // ---- our tokens ----------------------------------------------------------------------------------------------

  async issueTokens(input: {
    grantId: string;
    clientId: string;
    resource: string;
    scope: string;
  }): Promise<IssuedTokens> {
    const { pair, issued } = this.#newTokens(input.scope, this.#now());
    await (await this.#ready()).addTokens(pair, input, pair.issuedAt - this.#ttl.refresh);
    return issued;
  }

  /** A new access and refresh token: the values for the client, the hashes for the store. */
  #newTokens(scope: string, now: number): { pair: TokenPair; issued: IssuedTokens } {
    const accessToken = newSecret('sb_at_');
    const refreshToken = newSecret('sb_rt_');
    return {
      pair: {
        accessHash: sha256(accessToken),
        refreshHash: sha256(refreshToken),
        issuedAt: now,
        accessExpiresAt: now + this.#ttl.access,
        refreshExpiresAt: now + this.#ttl.refresh,
      },
      issued: { accessToken, refreshToken, expiresIn: Math.round(this.#ttl.access / 1000), scope },
    };
  }

  /** What an access token stands for, if it is one of ours and not retired (expiry is the caller's check). */
  async accessToken(token: string): Promise<AccessTokenInfo | undefined> {
    const row = await (await this.#ready()).accessToken(sha256(token));
    if (!row || row.retiredAt !== undefined) return undefined;
    return {
      grantId: row.grantId,
      clientId: row.clientId,
      subject: row.subject,
      resource: row.resource,
      scope: row.scope,
      expiresAt: row.expiresAt,
      grantEnded: row.grantEnded,
    };
  }

  /** Rotates a refresh token: the one presented stops working, and so does the access token issued with it. */
  async refresh(
    token: string,
    clientId: string,
    acceptsResource: (resource: string) => boolean = () => true,
  ): Promise<RefreshOutcome> {
    const now = this.#now();
    const state = await this.#ready();
    // Made before the rotation, which stores them only if it succeeds; our tokens all carry the one scope, so the
    // answer's scope is the presented token's, as the store reports it.
    const { pair, issued } = this.#newTokens('', now);
    const rotation = await state.rotateRefresh(sha256(token), {
      clientId,
      now,
      acceptsResource,
      next: pair,
      sweepBefore: now - this.#ttl.refresh,
    });
    if (rotation.status === 'reused') {
      await this.endGrant(rotation.grantId, 'refresh token used twice');
      return rotation;
    }
    if (rotation.status !== 'ok') return { status: rotation.status };
    return {
      status: 'ok',
      grantId: rotation.grantId,
      resource: rotation.resource,
      tokens: { ...issued, scope: rotation.scope },
    };
  }
}

function pendingOf(row: PendingRow): PendingAuthorization {
  return {
    clientId: row.clientId,
    redirectUri: row.redirectUri,
    ...(row.clientState !== undefined ? { clientState: row.clientState } : {}),
    codeChallenge: row.codeChallenge,
    resource: row.resource,
    scope: row.scope,
    browserHash: row.browserHash,
    expiresAt: row.expiresAt,
  };
}

/** The grant without its sealed tokens. */
function recordOf(row: GrantRow): GrantRecord {
  const { sealedAccessToken: _access, sealedRefreshToken: _refresh, ...record } = row;
  return record;
}

function codeGrantOf(code: CodeGrant): CodeGrant {
  return {
    grantId: code.grantId,
    clientId: code.clientId,
    redirectUri: code.redirectUri,
    codeChallenge: code.codeChallenge,
    resource: code.resource,
    scope: code.scope,
  };
}
