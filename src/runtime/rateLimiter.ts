// Client-side rate limiting: a token bucket per upstream limit key (an endpoint, or a base for the store), so
// that agents see throughput close to the published limit and never a storm of 429s.
//
// Hand-written rather than taken from a library because we need one thing the common ones do not give: the
// wait a call would face, known before waiting, so a call that would block past `maxWaitMs` fails at once
// with a clear "retry in N s" instead of hanging an agent for a minute.

import { ToolError } from './errors.js';

export interface RateLimit {
  /** Requests allowed per interval; also the burst size. */
  limit: number;
  intervalMs: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
  readonly rate: RateLimit;
}

export interface RateLimiterOptions {
  /** Longest a call may wait for a token before it is refused. */
  maxWaitMs?: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxWaitMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(
    private readonly limits: ReadonlyMap<string, RateLimit>,
    options: RateLimiterOptions = {},
  ) {
    this.maxWaitMs = options.maxWaitMs ?? 20_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleep;
  }

  /** Takes one token for `key`, waiting for it if needed. Keys without a configured limit pass at once. */
  async acquire(key: string, signal?: AbortSignal): Promise<void> {
    const rate = this.limits.get(key);
    if (!rate) return;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: rate.limit, updatedAt: this.now(), rate };
      this.buckets.set(key, bucket);
    }
    this.refill(bucket);
    // Reserve the token now (tokens may go negative) so concurrent callers queue up fairly behind each other.
    bucket.tokens -= 1;
    if (bucket.tokens >= 0) return;
    const perTokenMs = rate.intervalMs / rate.limit;
    const waitMs = Math.ceil(-bucket.tokens * perTokenMs);
    if (waitMs > this.maxWaitMs) {
      bucket.tokens += 1;
      throw new ToolError({
        kind: 'rate_limited',
        message: `Client-side rate limit for ${key} (${rate.limit} per ${rate.intervalMs / 1000} s) is used up.`,
        retryAfterSeconds: Math.ceil(waitMs / 1000),
        hint: `Wait about ${Math.ceil(waitMs / 1000)} s before calling again, or make fewer calls of this kind.`,
      });
    }
    try {
      await this.sleep(waitMs, signal);
    } catch (error) {
      bucket.tokens += 1;
      throw error;
    }
  }

  private refill(bucket: Bucket): void {
    const now = this.now();
    const elapsed = now - bucket.updatedAt;
    bucket.updatedAt = now;
    const added = (elapsed * bucket.rate.limit) / bucket.rate.intervalMs;
    bucket.tokens = Math.min(bucket.rate.limit, bucket.tokens + added);
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
