// The client of the data store's Web API, as the StoreApi tools see it: a bearer token chosen per call (today the
// configured access token; per-user OAuth plugs in here), the upstream's error envelope, and a client-side limit
// that keeps every base under 5 requests per second so that agents never meet the upstream's 30-second penalty.
// That limit is per base, across every operation on it, so it lives here and not in the operation table
// (endpoints.ts), whose rows carry only limits the upstream publishes per operation.

import { type ErrorKind, ToolError } from '../../runtime/errors.js';
import { type ParsedUpstreamError, UpstreamClient, type UpstreamRequest } from '../../runtime/http.js';
import type { RateBudget, RateLimits } from '../../runtime/rateLimiter.js';
import { registerSecret } from '../../runtime/secrets.js';
import { rateBudget } from '../../runtime/sharedState/rateBudgets.js';
import type { SharedState } from '../../runtime/sharedState/redis.js';
import type { ToolCall } from '../../runtime/tool.js';
import { explainStoreError } from './errorHints.js';

export const DEFAULT_BASE_URL = 'https://api.airtable.com';
/** The upstream documents attachment uploads on this host. */
export const DEFAULT_CONTENT_URL = 'https://content.airtable.com';
export const TOKEN_ENV = 'STORE_ACCESS_TOKEN';

/**
 * The upstream's limit is 5 requests per second per base, counted over any one-second window, and a burst over
 * it costs 30 s of refusals. Spacing requests to a base 250 ms apart puts at most 5 in a second and leaves 250 ms
 * of slack for requests that reach the upstream unevenly (network jitter); 210 ms would leave 50.
 */
const PER_BASE_SPACING_MS = 250;
const PENALTY_SECONDS = 30;

/** Finds the credential for one tool call; undefined means none is configured for this caller. */
export type TokenSource = (call: ToolCall) => string | undefined | Promise<string | undefined>;

export interface StoreClientOptions {
  baseUrl?: string;
  /** Host for attachment uploads; defaults to the content host, or to `baseUrl` when that is overridden. */
  contentUrl?: string;
  token: TokenSource;
  clientRateLimits?: boolean;
  /** Replicas' shared state: each base's budget (and a 429's penalty) is then one for every replica. */
  sharedState?: SharedState;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class StoreClient {
  readonly baseUrl: string;
  readonly contentUrl: string;
  private readonly rateLimiter: RateBudget | undefined;

  constructor(private readonly options: StoreClientOptions) {
    this.baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
    this.contentUrl = options.contentUrl ?? (options.baseUrl ? options.baseUrl : DEFAULT_CONTENT_URL);
    this.rateLimiter =
      options.clientRateLimits === false
        ? undefined
        : rateBudget(
            new PerBaseLimits(),
            { service: 'store', upstream: this.baseUrl, maxWaitMs: 20_000 },
            options.sharedState,
          );
  }

  /** A client bound to this call's token; the rate limiter is shared by every client, so bases stay under 5/s. */
  async forCall(call: ToolCall, host: 'api' | 'content' = 'api'): Promise<UpstreamClient> {
    const token = await this.options.token(call);
    if (!token) {
      throw new ToolError({
        kind: 'missing_secret',
        message: `The StoreApi server has no access token: ${TOKEN_ENV} is not set, and there is no saved login.`,
        hint: `Run \`switchboard login store\` once to connect your data store account through the browser (the server then uses and renews that login), or set ${TOKEN_ENV} to a personal access token (or an OAuth access token) with the scopes the tools need and restart the server, or run with --sandbox to use the local emulator.`,
        retryable: false,
      });
    }
    registerSecret(token);
    const client: UpstreamClient = new UpstreamClient({
      service: 'StoreApi',
      baseUrl: host === 'content' ? this.contentUrl : this.baseUrl,
      authHeaders: () => ({ authorization: `Bearer ${token}` }),
      parseError: parseStoreError,
      hintFor: storeHint,
      explainError: (error, request) => explainStoreError(error, request, client),
      rateLimitKey,
      rateLimitPenaltySeconds: PENALTY_SECONDS,
      ...(this.rateLimiter ? { rateLimiter: this.rateLimiter } : {}),
      ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    });
    return client;
  }
}

/** Requests on one base share a key; the rest (bases list, whoami) are not limited per base. */
function rateLimitKey(request: UpstreamRequest): string {
  const baseId = request.params?.baseId;
  return baseId === undefined ? 'account' : `base:${baseId}`;
}

/** Every `base:` key gets the per-base spacing; the rate budget asks by key. */
class PerBaseLimits implements RateLimits {
  get(key: string) {
    return key.startsWith('base:') ? { limit: 1, intervalMs: PER_BASE_SPACING_MS } : undefined;
  }
}

/** `{error: {type, message}}`, or `{error: "NOT_FOUND"}` on some 404s. */
export function parseStoreError(_status: number, body: unknown): ParsedUpstreamError {
  const error = (body as { error?: unknown } | undefined)?.error;
  if (typeof error === 'string') return { code: error, message: error };
  if (error && typeof error === 'object') {
    const { type, message } = error as { type?: unknown; message?: unknown };
    return {
      ...(typeof type === 'string' ? { code: type } : {}),
      ...(typeof message === 'string' ? { message } : typeof type === 'string' ? { message: type } : {}),
    };
  }
  // SCIM endpoints answer RFC 7644 error bodies: {schemas, status, scimType?, detail}.
  const { detail, scimType } = (body ?? {}) as { detail?: unknown; scimType?: unknown };
  if (typeof detail === 'string') {
    return { ...(typeof scimType === 'string' ? { code: scimType } : {}), message: detail };
  }
  return {};
}

function storeHint(kind: ErrorKind, status: number): string | undefined {
  if (kind === 'unauthorized')
    return `Check ${TOKEN_ENV}: the token was not accepted (expired, revoked or mistyped).`;
  if (status === 403) {
    return 'Either an id is wrong (base, table, record, view) or the token lacks the scope or base access this call needs; the upstream does not say which.';
  }
  if (status === 429) {
    return `The base is in the upstream's ${PENALTY_SECONDS}-second penalty for going over 5 requests per second; wait ${PENALTY_SECONDS} s.`;
  }
  if (kind === 'invalid_request') {
    return 'The upstream refused the request as invalid; its message names what to change. Correct that (for request_body, mode "get_request_schema" shows the expected shape) and call again.';
  }
  return undefined;
}
