/**
 * Per-endpoint, per-minute request limits keyed by route labels such as 'GET /issues/:id'.
 * Off by default so tests are not throttled; switched on (optionally with a new table) through /_emulator.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { z } from 'zod';
import { type Clock, systemClock } from './clock.js';
import { type EmulatorEnv, type ErrorBodyFn, isControlPath } from './env.js';
import { formatZodIssues } from './faults.js';
import { err, ok, type Result } from './result.js';

export type RateLimitMode = 'fixed' | 'sliding';

export interface RateLimitConfig {
  enabled: boolean;
  mode: RateLimitMode;
  windowSeconds: number;
  /** Requests allowed per window, by route label; routes without an entry are never limited. */
  limits: Record<string, number>;
}

export type RateLimitDecision =
  | { allowed: true }
  | { allowed: false; retryAfterSeconds: number; limit: number };

export const RateLimitUpdateSchema = z
  .object({
    enabled: z.boolean(),
    mode: z.enum(['fixed', 'sliding']).optional(),
    limits: z
      .record(z.string().regex(/^[A-Z]+ \/\S*$/, 'keys look like "GET /issues/:id"'), z.number().int().min(0))
      .optional(),
  })
  .strict();

export type RateLimitUpdate = z.infer<typeof RateLimitUpdateSchema>;

export function parseRateLimitUpdate(body: unknown): Result<RateLimitUpdate, string> {
  const parsed = RateLimitUpdateSchema.safeParse(body);
  return parsed.success ? ok(parsed.data) : err(formatZodIssues(parsed.error));
}

export class RateLimiter {
  readonly #clock: Clock;
  #config: RateLimitConfig;
  /** Sliding mode: request times (ms) inside the window. Fixed mode: [windowStart, count]. */
  #hits = new Map<string, number[]>();

  constructor(
    limits: Record<string, number>,
    options: { clock?: Clock; mode?: RateLimitMode; windowSeconds?: number; enabled?: boolean } = {},
  ) {
    this.#clock = options.clock ?? systemClock;
    this.#config = {
      enabled: options.enabled ?? false,
      mode: options.mode ?? 'sliding',
      windowSeconds: options.windowSeconds ?? 60,
      limits: { ...limits },
    };
  }

  get config(): RateLimitConfig {
    return { ...this.#config, limits: { ...this.#config.limits } };
  }

  /** `limits`, when given, replaces the whole table. Counters restart so a new setting takes effect cleanly. */
  configure(update: RateLimitUpdate): RateLimitConfig {
    this.#config = {
      ...this.#config,
      enabled: update.enabled,
      ...(update.mode ? { mode: update.mode } : {}),
      ...(update.limits ? { limits: { ...update.limits } } : {}),
    };
    this.#hits.clear();
    return this.config;
  }

  reset(): void {
    this.#hits.clear();
  }

  /** Counts the request against its label and says whether it may proceed. */
  hit(label: string): RateLimitDecision {
    const limit = this.#config.limits[label];
    if (!this.#config.enabled || limit === undefined) return { allowed: true };
    const now = this.#clock.now().getTime();
    const windowMs = this.#config.windowSeconds * 1000;
    if (this.#config.mode === 'fixed') {
      const start = Math.floor(now / windowMs) * windowMs;
      const state = this.#hits.get(label);
      const count = state && state[0] === start ? (state[1] ?? 0) : 0;
      if (count >= limit) {
        return {
          allowed: false,
          limit,
          retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
        };
      }
      this.#hits.set(label, [start, count + 1]);
      return { allowed: true };
    }
    const times = (this.#hits.get(label) ?? []).filter((t) => t > now - windowMs);
    if (times.length >= limit) {
      this.#hits.set(label, times);
      const oldest = times[0] ?? now;
      return {
        allowed: false,
        limit,
        retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)),
      };
    }
    times.push(now);
    this.#hits.set(label, times);
    return { allowed: true };
  }
}

/** 'METHOD /pattern' of the route that will answer, or undefined for paths no route handles. */
export function routeLabel(c: Context): string | undefined {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i];
    // Middleware registered with use() carries method 'ALL'; the answering route has a real method.
    if (r && r.method !== 'ALL') return `${r.method} ${r.path}`;
  }
  return undefined;
}

export function rateLimitMiddleware(
  limiter: RateLimiter,
  errorBody: ErrorBodyFn,
): MiddlewareHandler<EmulatorEnv> {
  return async (c, next) => {
    if (isControlPath(c.req.path)) return next();
    const label = routeLabel(c);
    if (label === undefined) return next();
    const decision = limiter.hit(label);
    if (decision.allowed) return next();
    c.header('Retry-After', String(decision.retryAfterSeconds));
    const { windowSeconds } = limiter.config;
    const per = windowSeconds === 60 ? 'minute' : `${windowSeconds} seconds`;
    const message = `Rate limit exceeded for ${label} (${decision.limit} requests per ${per}). Please retry later.`;
    return c.json(errorBody(429, message, { requestId: c.get('requestId') }) as object, 429);
  };
}
