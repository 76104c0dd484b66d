// Configuration of per-user OAuth over HTTP, from the environment: the operator's application at the data store
// (client id and secret, redirect URL, scopes), where the store's OAuth lives, the server's external URL, and the
// key that seals stored tokens. OAuth mode is on when STORE_OAUTH_CLIENT_ID is set and the transport is HTTP.

import { AuthSetupError } from './vault.js';

export interface OAuthModeSettings {
  clientId: string;
  clientSecret?: string;
  /** STORE_OAUTH_URL as set; the caller supplies the default (STORE_BASE_URL, the sandbox, or the real host). */
  oauthUrl?: string;
  /** STORE_OAUTH_REDIRECT_URL as set; default `<public url>/oauth/callback`. */
  redirectUrl?: string;
  /** STORE_OAUTH_SCOPES: replaces the scopes the enabled tools need. */
  scopes?: string[];
  /** SWITCHBOARD_PUBLIC_URL: the origin clients reach this server at; default the bound URL. */
  publicUrl?: URL;
  /** SWITCHBOARD_SECRET_KEY (base64, 32 bytes); when unset, `<data dir>/secret.key`. */
  secretKey?: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host);
}

function absoluteUrl(raw: string, name: string): URL {
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
  const url = absoluteUrl(raw.trim(), name);
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

export function oauthSettingsFromEnv(env: NodeJS.ProcessEnv): OAuthModeSettings | undefined {
  const clientId = env.STORE_OAUTH_CLIENT_ID?.trim();
  if (!clientId) return undefined;
  const scopes = env.STORE_OAUTH_SCOPES?.split(/[\s,]+/).filter(Boolean);
  const redirectUrl = env.STORE_OAUTH_REDIRECT_URL?.trim();
  if (redirectUrl) absoluteUrl(redirectUrl, 'STORE_OAUTH_REDIRECT_URL');
  const oauthUrl = env.STORE_OAUTH_URL?.trim();
  if (oauthUrl) absoluteUrl(oauthUrl, 'STORE_OAUTH_URL');
  return {
    clientId,
    ...(env.STORE_OAUTH_CLIENT_SECRET ? { clientSecret: env.STORE_OAUTH_CLIENT_SECRET } : {}),
    ...(oauthUrl ? { oauthUrl: oauthUrl.replace(/\/+$/, '') } : {}),
    ...(redirectUrl ? { redirectUrl } : {}),
    ...(scopes && scopes.length > 0 ? { scopes } : {}),
    ...(env.SWITCHBOARD_PUBLIC_URL ? { publicUrl: checkPublicUrl(env.SWITCHBOARD_PUBLIC_URL) } : {}),
    ...(env.SWITCHBOARD_SECRET_KEY ? { secretKey: env.SWITCHBOARD_SECRET_KEY } : {}),
  };
}

/** The public origin: as configured, or the bound URL (which must then be a loopback one). */
export function resolvePublicUrl(settings: OAuthModeSettings, bound: URL): URL {
  if (settings.publicUrl) return settings.publicUrl;
  if (!isLoopbackHost(bound.hostname)) {
    throw new AuthSetupError(
      `Set SWITCHBOARD_PUBLIC_URL to the https URL clients reach this server at: on ${bound.hostname} the bound address is not one they can sign in through.`,
    );
  }
  return new URL(bound.origin);
}
