// The store's own OAuth 2.0 (authorization code with PKCE S256, rotating refresh tokens), as its end users'
// connections need it: the URL that sends a person to the store's consent page, the code exchange, the refresh,
// and the identity behind a token. Used by `switchboard login store` (one person, loopback redirect) and by the
// HTTP server's authorization flow (many people). Tokens and secrets are registered for redaction as soon as they
// are known, so no log line, error or result can carry them.

import { createHash, randomBytes } from 'node:crypto';
import { ToolError } from '../../runtime/errors.js';
import { registerSecret, registerTransientSecret } from '../../runtime/secrets.js';
import { STORE_TOOL_SCOPES } from './scopes.js';

/** The upstream's OAuth host; the API lives on api.airtable.com, the authorization pages on airtable.com. */
export const DEFAULT_OAUTH_URL = 'https://airtable.com';

export interface StoreOAuthConfig {
  clientId: string;
  /** Confidential clients authenticate with HTTP Basic; a public client has none. */
  clientSecret?: string;
  /** Origin of /oauth2/v1/authorize and /oauth2/v1/token. */
  oauthUrl: string;
  /** Origin of the API (for whoami). */
  apiUrl: string;
  /** Scopes to ask for; by default those the StoreApi tools need. */
  scopes?: readonly string[];
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface StoreTokens {
  accessToken: string;
  refreshToken: string;
  scopes: string[];
  /** Epoch milliseconds. */
  expiresAt: number;
  refreshExpiresAt?: number;
}

/** The person behind a token, as whoami tells it. */
export interface StoreIdentity {
  id: string;
  email?: string;
  scopes?: string[];
}

/** The store refused a grant: the person must connect again (expired, revoked, or a reused refresh token). */
export class StoreOAuthError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'StoreOAuthError';
  }

  /** invalid_grant: the refresh token (or code) is no longer good; only a new consent helps. */
  get needsReconnect(): boolean {
    return this.code === 'invalid_grant';
  }
}

/** A PKCE verifier (43–128 characters of the unreserved set) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An unguessable value for `state` and other one-time handles. */
export function randomHandle(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** Every scope the StoreApi tools need between them, in a stable order. */
export function scopesForTools(toolNames?: Iterable<string>): string[] {
  const names = toolNames ? [...toolNames] : Object.keys(STORE_TOOL_SCOPES);
  const scopes = new Set<string>();
  for (const name of names) {
    const scope = STORE_TOOL_SCOPES[name];
    if (scope) scopes.add(scope);
  }
  // whoami's email needs it, and it tells the person which account they connected.
  scopes.add('user.email:read');
  return [...scopes].sort();
}

/** The error an agent sees when its person's store connection is gone. */
export function reconnectError(reason: string, how: string): ToolError {
  return new ToolError({
    kind: 'unauthorized',
    message: `Your data store connection needs to be renewed: ${reason}.`,
    hint: how,
    retryable: false,
  });
}

export class StoreOAuthClient {
  readonly scopes: readonly string[];
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly config: StoreOAuthConfig) {
    registerSecret(config.clientSecret);
    this.scopes = config.scopes ?? scopesForTools();
    this.fetchImpl = config.fetch ?? fetch;
  }

  get clientId(): string {
    return this.config.clientId;
  }

  /** Where to send the person: the store's consent page for these scopes, bound to our PKCE challenge. */
  authorizeUrl(options: { redirectUri: string; state: string; codeChallenge: string }): string {
    const url = new URL('/oauth2/v1/authorize', this.config.oauthUrl);
    url.searchParams.set('client_id', this.config.clientId);
    url.searchParams.set('redirect_uri', options.redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', this.scopes.join(' '));
    url.searchParams.set('state', options.state);
    url.searchParams.set('code_challenge', options.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    return url.toString();
  }

  exchangeCode(options: { code: string; redirectUri: string; codeVerifier: string }): Promise<StoreTokens> {
    registerTransientSecret(options.code);
    return this.#token({
      grant_type: 'authorization_code',
      code: options.code,
      redirect_uri: options.redirectUri,
      code_verifier: options.codeVerifier,
    });
  }

  /** Rotates: the refresh token passed in stops working once this succeeds; keep the returned one. */
  refresh(refreshToken: string): Promise<StoreTokens> {
    return this.#token({ grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  async whoami(accessToken: string): Promise<StoreIdentity> {
    const response = await this.#fetch(new URL('/v0/meta/whoami', this.config.apiUrl), {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok || typeof body.id !== 'string') {
      throw new StoreOAuthError(
        response.status === 401 ? 'invalid_token' : 'whoami_failed',
        `The data store did not say who this token belongs to (HTTP ${response.status}).`,
        response.status,
      );
    }
    return {
      id: body.id,
      ...(typeof body.email === 'string' ? { email: body.email } : {}),
      ...(Array.isArray(body.scopes) ? { scopes: body.scopes.filter((s) => typeof s === 'string') } : {}),
    };
  }

  async #token(form: Record<string, string>): Promise<StoreTokens> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const body = new URLSearchParams(form);
    if (this.config.clientSecret) {
      const basic = Buffer.from(`${this.config.clientId}:${this.config.clientSecret}`).toString('base64');
      registerSecret(basic);
      headers.authorization = `Basic ${basic}`;
    } else {
      body.set('client_id', this.config.clientId);
    }
    const response = await this.#fetch(new URL('/oauth2/v1/token', this.config.oauthUrl), {
      method: 'POST',
      headers,
      body: body.toString(),
    });
    const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) {
      const code = typeof json.error === 'string' ? json.error : 'token_request_failed';
      const description = typeof json.error_description === 'string' ? `: ${json.error_description}` : '';
      throw new StoreOAuthError(
        code,
        `The data store refused the token request (${code}${description}).`,
        response.status,
      );
    }
    const access = json.access_token;
    const refresh = json.refresh_token;
    if (typeof access !== 'string' || typeof refresh !== 'string') {
      throw new StoreOAuthError(
        'invalid_response',
        'The data store answered the token request without tokens.',
        502,
      );
    }
    registerTransientSecret(access);
    registerTransientSecret(refresh);
    const now = Date.now();
    const expiresIn = typeof json.expires_in === 'number' ? json.expires_in : 3600;
    return {
      accessToken: access,
      refreshToken: refresh,
      scopes: typeof json.scope === 'string' ? json.scope.split(' ').filter(Boolean) : [...this.scopes],
      expiresAt: now + expiresIn * 1000,
      ...(typeof json.refresh_expires_in === 'number'
        ? { refreshExpiresAt: now + json.refresh_expires_in * 1000 }
        : {}),
    };
  }

  async #fetch(url: URL, init: RequestInit): Promise<Response> {
    try {
      return await this.fetchImpl(url, {
        ...init,
        signal: AbortSignal.timeout(this.config.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw new StoreOAuthError(
        'network',
        `Could not reach the data store's OAuth service at ${url.origin}: ${error instanceof Error ? error.message : String(error)}`,
        0,
      );
    }
  }
}
