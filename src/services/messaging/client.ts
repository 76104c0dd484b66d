// The tracking API as the MessagingTrackApi tools see it: HTTP Basic auth from the site id and API key, the
// region (US, EU, or found once by asking the region endpoint, MESSAGING_OPERATIONS.getRegion), the upstream's
// three error envelopes, and a client-side limit at the upstream's account-wide fair-use rate. With shared state
// (SWITCHBOARD_REDIS_URL) the limit is one budget for every replica, and so is the region once one has found it.

import { createHash } from 'node:crypto';
import { type ErrorKind, ToolError } from '../../runtime/errors.js';
import { type ParsedUpstreamError, UpstreamClient, type UpstreamRequest } from '../../runtime/http.js';
import type { RateBudget } from '../../runtime/rateLimiter.js';
import { registerSecret } from '../../runtime/secrets.js';
import { type FactCache, factCache } from '../../runtime/sharedState/cache.js';
import { rateBudget } from '../../runtime/sharedState/rateBudgets.js';
import type { SharedState } from '../../runtime/sharedState/redis.js';
import { MESSAGING_OPERATIONS, TRACK_FAIR_USE } from './endpoints.js';

export const SITE_ID_ENV = 'MESSAGING_SITE_ID';
export const API_KEY_ENV = 'MESSAGING_API_KEY';

export const REGION_HOSTS = {
  us: 'https://track.customer.io',
  eu: 'https://track-eu.customer.io',
} as const;

export type Region = keyof typeof REGION_HOSTS;
export type RegionSetting = Region | 'auto';

/** Every call shares one budget: the fair-use rate is the account's, not any endpoint's (endpoints.ts). */
const RATE_KEY = 'track';

/**
 * How long a region found by `auto` is kept in the shared cache. An account's region does not change in practice;
 * the expiry only bounds how long a moved account would be sent to its old host by replicas started later.
 */
const REGION_CACHE_TTL_MS = 24 * 60 * 60 * 1000;

/** The endpoints whose 400 usually means a segment that is not manual (or not there). */
const SEGMENT_PATHS: ReadonlySet<string> = new Set([
  MESSAGING_OPERATIONS.add_to_segment.path,
  MESSAGING_OPERATIONS.remove_from_segment.path,
]);

export interface MessagingClientOptions {
  /** `us`, `eu`, or `auto` (ask the region endpoint once, then use the address it gives). */
  region: RegionSetting;
  /** Replaces the regional host (with `auto`, the region endpoint is asked there). */
  baseUrl?: string;
  /** Read per call, so rotated credentials are used without a restart. */
  siteId: () => string | undefined;
  apiKey: () => string | undefined;
  clientRateLimits?: boolean;
  /** Replicas' shared state: the rate budget and the region cache live there instead of in this process. */
  sharedState?: SharedState;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface RegionAnswer {
  region: string;
  url: string;
  environment_id?: number;
}

export class MessagingClient {
  private readonly clients = new Map<string, UpstreamClient>();
  private readonly rateLimiter: RateBudget | undefined;
  /** Regions found by `auto`, by account: this process's, or every replica's with shared state. */
  private readonly regions: FactCache;
  private resolving: Promise<string> | undefined;
  /** The signal of the call whose lookup `resolving` is: the lookup is shared, and runs with its first caller's. */
  private resolvingSignal: AbortSignal | undefined;

  constructor(private readonly options: MessagingClientOptions) {
    this.rateLimiter =
      options.clientRateLimits === false
        ? undefined
        : rateBudget(
            new Map([[RATE_KEY, TRACK_FAIR_USE]]),
            { service: 'messaging', upstream: options.baseUrl ?? 'customer.io' },
            options.sharedState,
          );
    this.regions = factCache('messaging-region', options.sharedState);
  }

  get regionSetting(): RegionSetting {
    return this.options.region;
  }

  /**
   * The client for the account's host. Every tool needs both secrets (the spec says so, and `auto` needs them to
   * find the region), even the two endpoints that are then called without them.
   */
  async client(signal?: AbortSignal): Promise<UpstreamClient> {
    this.credentials();
    for (;;) {
      const lookupSignal = this.resolving ? this.resolvingSignal : signal;
      try {
        return this.clientFor(await this.baseUrl(signal));
      } catch (error) {
        // A cancelled call sends nothing more, its region lookup included; a call that waited on another call's
        // lookup, and that other call was cancelled, is still wanted: it asks again.
        if (signal?.aborted || lookupSignal === signal || !lookupSignal?.aborted) throw error;
      }
    }
  }

  /** The host the region lookup goes to: the override, or the US host (the endpoint answers on both). */
  async lookupClient(): Promise<UpstreamClient> {
    this.credentials();
    const { region, baseUrl } = this.options;
    return this.clientFor(baseUrl ?? REGION_HOSTS[region === 'auto' ? 'us' : region]);
  }

  private async baseUrl(signal?: AbortSignal): Promise<string> {
    const { region, baseUrl } = this.options;
    if (region !== 'auto') return baseUrl ?? REGION_HOSTS[region];
    // One lookup per process (per deployment with a shared cache); a failed lookup is not cached, so the next
    // call tries again.
    if (!this.resolving) {
      this.resolvingSignal = signal;
      this.resolving = this.cachedRegion(signal).catch((error: unknown) => {
        this.resolving = undefined;
        throw error;
      });
    }
    return this.resolving;
  }

  /** The account's host from the cache, or asked of the region endpoint and then cached. */
  private async cachedRegion(signal?: AbortSignal): Promise<string> {
    const account = this.accountKey();
    const cached = usableUrl({ url: await this.regions.get(account) });
    if (cached) return cached;
    const url = await this.lookupRegion(signal);
    await this.regions.set(account, url, REGION_CACHE_TTL_MS);
    return url;
  }

  /** Takes a region answer obtained elsewhere (GetTrackApiRegion), so `auto` need not ask again. */
  rememberRegion(answer: unknown): void {
    if (this.options.region !== 'auto' || this.resolving) return;
    const url = usableUrl(answer);
    if (!url) return;
    this.resolving = Promise.resolve(url);
    // The answer came with this account's credentials, so they are set; the cache never throws.
    void this.regions.set(this.accountKey(), url, REGION_CACHE_TTL_MS);
  }

  /**
   * The cache key of the account `auto` looks up: the host asked and the site id, hashed, since the site id is
   * one of the credentials and cache keys are visible to anyone who can read Redis.
   */
  private accountKey(): string {
    const lookupHost = this.options.baseUrl ?? REGION_HOSTS.us;
    const { siteId } = this.credentials();
    return createHash('sha256').update(`${lookupHost}\n${siteId}`).digest('hex').slice(0, 32);
  }

  private async lookupRegion(signal?: AbortSignal): Promise<string> {
    const client = await this.lookupClient();
    const { method, path } = MESSAGING_OPERATIONS.getRegion;
    const response = await client.request<RegionAnswer>({
      method,
      path,
      ...(signal ? { signal } : {}),
    });
    const url = usableUrl(response.body);
    if (!url) {
      throw new ToolError({
        kind: 'upstream_error',
        message: 'The region endpoint answered without a usable url, so the account region is unknown.',
        hint: 'Set MESSAGING_REGION to us or eu instead of auto.',
      });
    }
    return url;
  }

  private credentials(): { siteId: string; apiKey: string } {
    const siteId = this.options.siteId();
    const apiKey = this.options.apiKey();
    if (!siteId || !apiKey) {
      const missing = [!siteId ? SITE_ID_ENV : undefined, !apiKey ? API_KEY_ENV : undefined].filter(Boolean);
      throw new ToolError({
        kind: 'missing_secret',
        message: `The MessagingTrackApi server needs ${SITE_ID_ENV} and ${API_KEY_ENV}; not set: ${missing.join(', ')}.`,
        hint: `Set ${SITE_ID_ENV} (the workspace's site id) and ${API_KEY_ENV} (its Track API key, from the workspace's API credentials page), then restart the server, or run with --sandbox to use the local emulator.`,
        retryable: false,
      });
    }
    return { siteId, apiKey };
  }

  private clientFor(baseUrl: string): UpstreamClient {
    let client = this.clients.get(baseUrl);
    if (!client) {
      client = new UpstreamClient({
        service: 'MessagingTrackApi',
        baseUrl,
        authHeaders: () => {
          const { siteId, apiKey } = this.credentials();
          const encoded = Buffer.from(`${siteId}:${apiKey}`).toString('base64');
          for (const secret of [apiKey, encoded]) registerSecret(secret);
          return { authorization: `Basic ${encoded}` };
        },
        parseError: parseTrackError,
        hintFor: trackHint,
        rateLimitKey: () => RATE_KEY,
        ...(this.rateLimiter ? { rateLimiter: this.rateLimiter } : {}),
        ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      });
      this.clients.set(baseUrl, client);
    }
    return client;
  }
}

/** The `url` of a region answer, when it is an http(s) address. */
function usableUrl(answer: unknown): string | undefined {
  const url = (answer as Partial<RegionAnswer> | null | undefined)?.url;
  return typeof url === 'string' && /^https?:\/\//.test(url) ? url.replace(/\/+$/, '') : undefined;
}

/** v1 `{meta:{errors:[...]}}`, merge `{meta:{error}}`, v2 `{errors:[{reason, field, message}]}`; 401 has no body. */
export function parseTrackError(status: number, body: unknown): ParsedUpstreamError {
  if (body && typeof body === 'object') {
    const record = body as { meta?: { errors?: unknown; error?: unknown }; errors?: unknown };
    if (Array.isArray(record.meta?.errors)) return { message: record.meta.errors.map(String).join('; ') };
    if (typeof record.meta?.error === 'string') return { message: record.meta.error };
    if (Array.isArray(record.errors)) {
      const parts = record.errors.map((item) => {
        const error = item as { field?: unknown; message?: unknown; reason?: unknown };
        const text = String(error.message ?? error.reason ?? 'invalid');
        return error.field ? `${String(error.field)}: ${text}` : text;
      });
      const first = record.errors[0] as { reason?: unknown } | undefined;
      return {
        message: parts.join('; '),
        ...(typeof first?.reason === 'string' ? { code: first.reason } : {}),
      };
    }
  }
  if (typeof body === 'string' && body.trim() !== '') return { message: body.trim().slice(0, 500) };
  if (status === 401) return { message: 'Unauthorized request' };
  return {};
}

function trackHint(kind: ErrorKind, _status: number, request: UpstreamRequest): string | undefined {
  if (kind === 'unauthorized') {
    return `Check ${SITE_ID_ENV} and ${API_KEY_ENV} (a Track API key, not an App API key) and the region: an account in one region is refused by the other region's host; MESSAGING_REGION=auto finds it.`;
  }
  if (kind === 'invalid_request' && SEGMENT_PATHS.has(request.path)) {
    return 'Only existing manual segments can be changed through the API; check the segment id and type.';
  }
  if (kind === 'invalid_request') {
    // The upstream answers 400 with the field and the reason in its message (v1 `meta.errors`, v2 `errors`).
    return 'The tracking API refused the request as invalid; its message names the field and the problem. Correct it (mode "get_request_schema" shows the shape request_body must have) and call again.';
  }
  return undefined;
}
