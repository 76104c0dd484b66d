// The local credentials file of `switchboard login store`: one person's store tokens on their own machine, for
// `serve store` over stdio (and over HTTP without per-user OAuth). The file holds the access and refresh tokens,
// so it is treated like an SSH private key: created owner-only (0600, in a 0700 folder), always replaced whole
// (temporary file + rename, so a reader never sees half a file), and refused when other users can read it.
//
// `SavedStoreLogin` is the token source `serve store` uses: it reads the file (again only when it changed), renews
// the access token before it expires, and writes the rotated tokens back. The renewing is the runtime's one broker
// (src/runtime/auth/renewal.ts, which renews per-user HTTP grants too) over this file as its store. Renewals are
// single-flight within the process and serialised across processes by a lock file, because the store's refresh
// tokens are single-use and a second use of a rotated one revokes the whole grant (RFC 9700 §4.14): two MCP clients
// each running `serve store` over the same file must never both present the same refresh token.

import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import {
  type GrantStore,
  RENEW_BEFORE_MS,
  type StoredGrant,
  TokenBroker,
} from '../../runtime/auth/renewal.js';
import { ToolError } from '../../runtime/errors.js';
import { log } from '../../runtime/log.js';
import { registerSecret } from '../../runtime/secrets.js';
import type { TokenSource } from './client.js';
import {
  reconnectError,
  type StoreIdentity,
  StoreOAuthClient,
  type StoreOAuthConfig,
  StoreOAuthError,
  type StoreTokens,
} from './oauth.js';

export const CREDENTIALS_FILE_ENV = 'SWITCHBOARD_CREDENTIALS_FILE';
export const LOGIN_COMMAND = 'switchboard login store';
/** Renew this long before the access token expires (the store's last about an hour): the broker's margin. */
export const REFRESH_BEFORE_MS = RENEW_BEFORE_MS;
/** A lock older than this is taken to be left behind by a process that died while renewing. */
const STALE_LOCK_MS = 30_000;
/** How long a renewal waits for another process's renewal before giving up with a retryable error. */
const LOCK_WAIT_MS = 15_000;

const CredentialsSchema = z.object({
  version: z.literal(1),
  service: z.literal('store'),
  /** The application the tokens were issued to; refreshes must name the same one. */
  clientId: z.string().min(1),
  /** Whether the application authenticated with a secret (then renewals need STORE_OAUTH_CLIENT_SECRET too). */
  confidentialClient: z.boolean(),
  /** Origin of the store's /oauth2/v1/token that issued the tokens. */
  oauthUrl: z.string().min(1),
  /** The API the tokens are for; they are never sent anywhere else. */
  apiUrl: z.string().min(1),
  user: z.object({ id: z.string().min(1), email: z.string().optional() }),
  scopes: z.array(z.string()),
  accessToken: z.string().min(1),
  accessTokenExpiresAt: z.iso.datetime(),
  refreshToken: z.string().min(1),
  refreshTokenExpiresAt: z.iso.datetime().optional(),
  savedAt: z.iso.datetime(),
});

export type StoreCredentials = z.infer<typeof CredentialsSchema>;

/** `SWITCHBOARD_CREDENTIALS_FILE`, else `$XDG_CONFIG_HOME/switchboard/store-credentials.json` (~/.config by default). */
export function storeCredentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[CREDENTIALS_FILE_ENV];
  if (override) return override;
  // XDG Base Directory: a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg = env.XDG_CONFIG_HOME;
  const configHome = xdg?.startsWith('/') ? xdg : join(homedir(), '.config');
  return join(configHome, 'switchboard', 'store-credentials.json');
}

/** Trailing slashes off, so `http://host/` and `http://host` compare equal. */
export function normalizeUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The file's content for a fresh login. */
export function credentialsFromLogin(options: {
  tokens: StoreTokens;
  identity: StoreIdentity;
  clientId: string;
  confidentialClient: boolean;
  oauthUrl: string;
  apiUrl: string;
  now?: number;
}): StoreCredentials {
  const { tokens, identity } = options;
  return {
    version: 1,
    service: 'store',
    clientId: options.clientId,
    confidentialClient: options.confidentialClient,
    oauthUrl: normalizeUrl(options.oauthUrl),
    apiUrl: normalizeUrl(options.apiUrl),
    user: { id: identity.id, ...(identity.email ? { email: identity.email } : {}) },
    scopes: tokens.scopes,
    ...tokenFields(tokens),
    savedAt: new Date(options.now ?? Date.now()).toISOString(),
  };
}

function tokenFields(tokens: StoreTokens) {
  return {
    accessToken: tokens.accessToken,
    accessTokenExpiresAt: new Date(tokens.expiresAt).toISOString(),
    refreshToken: tokens.refreshToken,
    ...(tokens.refreshExpiresAt === undefined
      ? {}
      : { refreshTokenExpiresAt: new Date(tokens.refreshExpiresAt).toISOString() }),
  };
}

function credentialsError(message: string, hint: string): ToolError {
  return new ToolError({ kind: 'missing_secret', message, hint, retryable: false });
}

/**
 * Refuses a file that other users can read or write, or that another user owns, as ssh refuses such a private key:
 * someone else who can read it holds this person's store account, and someone who can write it can make the server
 * act as another account.
 * The fix is the user's to make (chmod, or a new login, which writes 0600), so this does not silently chmod.
 * Windows has no such mode bits; there the folder's ACLs decide.
 */
function checkPermissions(path: string, stats: Stats): void {
  if (process.platform === 'win32') return;
  // Owned by another user (readable here only because this process is privileged): its owner can rewrite it at
  // will, down to the URL that renewals send the refresh token and the client secret to.
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid && stats.uid !== 0) {
    throw credentialsError(
      `The saved data store login ${path} belongs to another user (uid ${stats.uid}); it was not used.`,
      `Run \`${LOGIN_COMMAND}\` as this user to make your own.`,
    );
  }
  const mode = stats.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw credentialsError(
      `The saved data store login ${path} is open to other users (mode ${mode.toString(8).padStart(4, '0')}); it was not used.`,
      `Run \`chmod 600 ${path}\` (only you may read it), or run \`${LOGIN_COMMAND}\` again.`,
    );
  }
}

function parseCredentials(path: string, text: string): StoreCredentials {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = CredentialsSchema.safeParse(json);
  if (!parsed.success) {
    throw credentialsError(
      `The saved data store login ${path} is not a credentials file Switchboard can read.`,
      `Run \`${LOGIN_COMMAND}\` again to replace it.`,
    );
  }
  registerSecret(parsed.data.accessToken);
  registerSecret(parsed.data.refreshToken);
  return parsed.data;
}

interface LoadedFile {
  credentials: StoreCredentials;
  /** Changes whenever the file is replaced or rewritten. */
  version: string;
}

function fileVersion(stats: Stats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** Reads the file if there is one: undefined when it does not exist; a ToolError when it is unsafe or unreadable. */
function loadFile(path: string): LoadedFile | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw credentialsError(
      `The saved data store login ${path} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      `Check the file, or run \`${LOGIN_COMMAND}\` again.`,
    );
  }
  try {
    // Checked on the open file, so the file judged is the file read.
    const stats = fstatSync(fd);
    checkPermissions(path, stats);
    return { credentials: parseCredentials(path, readFileSync(fd, 'utf8')), version: fileVersion(stats) };
  } finally {
    closeSync(fd);
  }
}

/** The saved login at `path`, or undefined when there is none. Throws a ToolError for an unsafe or broken file. */
export function readCredentialsFile(path: string): StoreCredentials | undefined {
  return loadFile(path)?.credentials;
}

/**
 * Writes the file owner-only and atomically: a temporary file beside it (created 0600, so the tokens are never
 * readable by others even for a moment), flushed to disk, then renamed over the old one. The folder is created 0700.
 */
export function writeCredentialsFile(path: string, credentials: StoreCredentials): void {
  const dir = dirname(path);
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  // An unusual umask could have narrowed the mode further; only folders we created are ours to set.
  if (created !== undefined && process.platform !== 'win32') chmodSync(dir, 0o700);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    try {
      writeSync(fd, `${JSON.stringify(credentials, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

// ---- the cross-process lock -------------------------------------------------------------------------------------

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a lock file was left by a process that is gone, or is too old to be a renewal still in progress. */
function staleLock(lockPath: string): boolean {
  try {
    const stats = statSync(lockPath);
    if (Date.now() - stats.mtimeMs > STALE_LOCK_MS) return true;
    const pid = Number(readFileSync(lockPath, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && !processAlive(pid);
  } catch {
    return false;
  }
}

/** An exclusive lock file (O_EXCL create) beside the credentials; resolves to its release. */
async function acquireLock(lockPath: string): Promise<() => void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (staleLock(lockPath)) {
      rmSync(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new ToolError({
        kind: 'timeout',
        message: 'Another Switchboard process is renewing the saved data store login and has not finished.',
        hint: `Try the call again. If this persists, delete ${lockPath}.`,
        retryable: true,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// ---- the token source -------------------------------------------------------------------------------------------

export interface SavedStoreLoginOptions {
  path: string;
  /** The API this server calls; the saved tokens are only handed out for the API they were issued for. */
  apiUrl: string;
  /** The application's secret, when it has one (from STORE_OAUTH_CLIENT_SECRET; never kept in the file). */
  clientSecret?: string;
  now?: () => number;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** The saved login as the renewal broker holds it: the file's tokens, with the file they came from. */
interface SavedGrant extends StoredGrant {
  loaded: LoadedFile;
}

function savedGrant(loaded: LoadedFile): SavedGrant {
  const { credentials } = loaded;
  return {
    loaded,
    accessToken: credentials.accessToken,
    refreshToken: credentials.refreshToken,
    accessExpiresAt: Date.parse(credentials.accessTokenExpiresAt),
    ...(credentials.refreshTokenExpiresAt
      ? { refreshExpiresAt: Date.parse(credentials.refreshTokenExpiresAt) }
      : {}),
  };
}

/**
 * The credentials file as the broker's store: one grant (the file), read again only when it changed, renewed under
 * a lock file beside it so that two processes sharing the file never both spend its refresh token.
 */
class CredentialsFileStore implements GrantStore<SavedGrant> {
  private cached: LoadedFile | undefined;
  /** The file version whose grant the store refused: not asked again until the file changes (a new login). */
  private deadVersion: string | undefined;

  constructor(
    private readonly options: SavedStoreLoginOptions,
    private readonly now: () => number,
  ) {}

  read(path: string, locked: boolean): SavedGrant | undefined {
    // Under the lock, read again: another process may have renewed while we waited.
    if (locked) this.cached = undefined;
    const loaded = this.load(path);
    if (!loaded) return undefined;
    this.checkApi(loaded.credentials);
    if (loaded.version === this.deadVersion) throw this.reconnect();
    return savedGrant(loaded);
  }

  write(path: string, grant: SavedGrant, tokens: StoreTokens): SavedGrant {
    const { credentials } = grant.loaded;
    const next: StoreCredentials = {
      ...credentials,
      scopes: tokens.scopes,
      ...tokenFields(tokens),
      savedAt: new Date(this.now()).toISOString(),
    };
    // Without the old refresh token's expiry carried over: the store answers a new one with each rotation.
    if (tokens.refreshExpiresAt === undefined) delete next.refreshTokenExpiresAt;
    writeCredentialsFile(path, next);
    this.cached = { credentials: next, version: fileVersion(statSync(path)) };
    log('info', 'renewed the saved data store login', {
      user: credentials.user.id,
      expiresAt: next.accessTokenExpiresAt,
    });
    return savedGrant(this.cached);
  }

  lock(path: string): Promise<() => void> {
    return acquireLock(`${path}.lock`);
  }

  ended(_path: string, grant: SavedGrant): ToolError {
    this.deadVersion = grant.loaded.version;
    return this.reconnect();
  }

  renewalFailed(_path: string, grant: SavedGrant, error: unknown): SavedGrant {
    const { credentials } = grant.loaded;
    if (error instanceof StoreOAuthError && error.code === 'invalid_client') {
      throw new ToolError({
        kind: 'missing_secret',
        message: `The store did not accept the application (${credentials.clientId}) when renewing the saved login.`,
        hint: credentials.confidentialClient
          ? 'The login was made with a client secret: give serve the same STORE_OAUTH_CLIENT_SECRET, or run `switchboard login store` again.'
          : `Run \`${LOGIN_COMMAND}\` again.`,
        retryable: false,
      });
    }
    // A passing failure (network, 5xx): the access token may still have a few minutes; use them.
    if (grant.accessExpiresAt > this.now() + 10_000) {
      log('warn', 'could not renew the saved data store login yet; using the current token', {
        reason: error instanceof Error ? error.message : String(error),
      });
      return grant;
    }
    const status = error instanceof StoreOAuthError ? error.status : 0;
    throw new ToolError({
      kind: status === 0 ? 'network' : 'upstream_unavailable',
      message: `Could not renew the saved data store login: ${error instanceof Error ? error.message : String(error)}`,
      retryable: true,
      cause: error,
    });
  }

  /** The file, re-read only when it changed since the last read (one stat per call). */
  private load(path: string): LoadedFile | undefined {
    let stats: Stats;
    try {
      stats = statSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.cached = undefined;
        return undefined;
      }
      throw credentialsError(
        `The saved data store login ${path} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
        `Check the file, or run \`${LOGIN_COMMAND}\` again.`,
      );
    }
    if (this.cached && this.cached.version === fileVersion(stats)) {
      // The mode can change without changing the version; chmod 644 after the first read still stops use.
      checkPermissions(path, stats);
      return this.cached;
    }
    this.cached = loadFile(path);
    return this.cached;
  }

  private checkApi(credentials: StoreCredentials): void {
    // No token passthrough: a token issued for one API is never sent to another host.
    if (normalizeUrl(credentials.apiUrl) !== normalizeUrl(this.options.apiUrl)) {
      throw credentialsError(
        `The saved data store login (${this.options.path}) is for ${credentials.apiUrl}, but this server calls ${this.options.apiUrl}; it was not used.`,
        `Run \`${LOGIN_COMMAND}\` with the same STORE_BASE_URL as the server, or set STORE_ACCESS_TOKEN.`,
      );
    }
  }

  private reconnect(): ToolError {
    return reconnectError(
      'the store no longer accepts the saved login (it was revoked, expired, or renewed elsewhere)',
      `Run \`${LOGIN_COMMAND}\` again.`,
    );
  }
}

/** `serve store`'s access to the person's saved login: read, renewed before expiry, rotated tokens written back. */
export class SavedStoreLogin {
  private readonly broker: TokenBroker<SavedGrant>;

  constructor(private readonly options: SavedStoreLoginOptions) {
    registerSecret(options.clientSecret);
    const now = options.now ?? Date.now;
    this.broker = new TokenBroker(new CredentialsFileStore(options, now), {
      refresh: (grant) => this.client(grant.loaded.credentials).refresh(grant.refreshToken),
      now,
      renewBeforeMs: REFRESH_BEFORE_MS,
    });
  }

  get path(): string {
    return this.options.path;
  }

  /** The access token to use now, renewing it first when it expires within five minutes. */
  readonly token: TokenSource = async () => (await this.broker.grant(this.options.path))?.accessToken;

  private client(credentials: StoreCredentials): StoreOAuthClient {
    const config: StoreOAuthConfig = {
      clientId: credentials.clientId,
      oauthUrl: credentials.oauthUrl,
      apiUrl: credentials.apiUrl,
      scopes: credentials.scopes,
      ...(credentials.confidentialClient && this.options.clientSecret
        ? { clientSecret: this.options.clientSecret }
        : {}),
      ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    };
    return new StoreOAuthClient(config);
  }
}

/** The saved login as `storeConfigFromEnv` wires it: file from the environment, secret from STORE_OAUTH_CLIENT_SECRET. */
export function savedStoreLoginFromEnv(env: NodeJS.ProcessEnv, apiUrl: string): SavedStoreLogin {
  return new SavedStoreLogin({
    path: storeCredentialsPath(env),
    apiUrl,
    ...(env.STORE_OAUTH_CLIENT_SECRET ? { clientSecret: env.STORE_OAUTH_CLIENT_SECRET } : {}),
    ...(env.SWITCHBOARD_TIMEOUT_MS ? { timeoutMs: Number(env.SWITCHBOARD_TIMEOUT_MS) } : {}),
  });
}
