// The runtime's own settings for per-user OAuth over HTTP, from the environment: the server's external URL and the
// key that seals stored tokens. The upstream's side (its application's client id and secret, where its OAuth
// lives, the scopes to ask for) belongs to the service that offers the sign-in (PerUserAuthOffer, perUser.ts),
// which reads its own variables and hands the runtime generic settings. This module loads nothing heavy, so a
// service can check its settings with it before the vault (SQLite) is ever loaded.

export class AuthSetupError extends Error {
  override name = 'AuthSetupError';
}

export interface AuthSettings {
  /** SWITCHBOARD_PUBLIC_URL: the origin clients reach this server at; default the bound URL. */
  publicUrl?: URL;
  /** SWITCHBOARD_SECRET_KEY (base64, 32 bytes); when unset, `<data dir>/secret.key`. */
  secretKey?: string;
  /**
   * SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK=1, for tests only: client ID metadata documents may be fetched from
   * loopback addresses (over http too, and without checking an https certificate there). Default off.
   */
  clientMetadataAllowLoopback?: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host);
}

/** `raw` as an absolute http(s) URL; the error names the setting `name` it came from. */
export function checkAbsoluteUrl(raw: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AuthSetupError(`${name} must be an absolute URL; got "${raw}".`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AuthSetupError(`${name} must be an http(s) URL; got "${raw}".`);
  }
  return url;
}

/**
 * The server's external origin. MCP clients refuse plain http for an authorization server anywhere but on a
 * loopback address (MCP authorization spec: all authorization endpoints over HTTPS), so neither do we.
 */
export function checkPublicUrl(raw: string, name = 'SWITCHBOARD_PUBLIC_URL'): URL {
  const url = checkAbsoluteUrl(raw.trim(), name);
  if (
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    (url.pathname !== '/' && url.pathname !== '')
  ) {
    throw new AuthSetupError(
      `${name} must be an origin only, like https://switchboard.example.com (no path, query or credentials); got "${raw}".`,
    );
  }
  if (url.protocol !== 'https:' && !isLoopbackHost(url.hostname)) {
    throw new AuthSetupError(
      `${name} must use https (MCP clients refuse to sign in over plain http except on a loopback address); got "${raw}".`,
    );
  }
  return new URL(url.origin);
}

function clientMetadataAllowLoopback(env: NodeJS.ProcessEnv): boolean {
  const raw = (env.SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK ?? '').trim().toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new AuthSetupError(
    `SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK must be 1 or 0 (true or false); got "${env.SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK}".`,
  );
}

/** Read only once a service's sign-in is on: without it neither variable means anything. */
export function authSettingsFromEnv(env: NodeJS.ProcessEnv): AuthSettings {
  return {
    ...(env.SWITCHBOARD_PUBLIC_URL ? { publicUrl: checkPublicUrl(env.SWITCHBOARD_PUBLIC_URL) } : {}),
    ...(env.SWITCHBOARD_SECRET_KEY ? { secretKey: env.SWITCHBOARD_SECRET_KEY } : {}),
    ...(clientMetadataAllowLoopback(env) ? { clientMetadataAllowLoopback: true } : {}),
  };
}

/** The public origin: as configured, or the bound URL (which must then be a loopback one). */
export function resolvePublicUrl(settings: AuthSettings, bound: URL): URL {
  if (settings.publicUrl) return settings.publicUrl;
  if (!isLoopbackHost(bound.hostname)) {
    throw new AuthSetupError(
      `Set SWITCHBOARD_PUBLIC_URL to the https URL clients reach this server at: on ${bound.hostname} the bound address is not one they can sign in through.`,
    );
  }
  return new URL(bound.origin);
}
