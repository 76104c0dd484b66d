/**
 * Request limits per key in a fixed or sliding window. By default the key is the answering route's label such as
 * 'GET /issues/:id' and the window a minute: the per-endpoint limits every emulator has, off by default so tests
 * are not throttled, switched on (optionally with a new table) through /_emulator. An emulator may count by its
 * own key instead (the store: the base in the path, 5 per second, with `defaultLimit`) and add a penalty (the
 * store's 30 s during which every request with that key is refused, after which the key starts afresh).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { z } from 'zod';
import { formatZodIssues } from '../text/zodIssues.js';
import { type Clock, systemClock } from './clock.js';
import { type EmulatorEnv, type ErrorBodyFn, isControlPath } from './env.js';
import { err, ok, type Result } from './result.js';

export type RateLimitMode = 'fixed' | 'sliding';

export interface RateLimitConfig {
  enabled: boolean;
  mode: RateLimitMode;
  windowSeconds: number;
  /** Requests allowed per window, by key (a route label); keys without an entry get `defaultLimit`. */
  limits: Record<string, number>;
  /** Requests allowed per window for keys with no entry in `limits`; absent: those are never limited. */
  defaultLimit?: number;
  /**
   * Absent: a refused request waits for the window to free a slot. Set: the refusal starts a penalty of this
   * many milliseconds in which every request with that key is refused, after which its count starts afresh.
   */
  penaltyMs?: number;
}

/** What `configure` may change; `limits`, when given, replaces the whole table. */
export type RateLimitSettings = Partial<Omit<RateLimitConfig, 'windowSeconds'>>;

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
  /** With a penalty: when each penalised key's penalty ends (ms). */
  #penalties = new Map<string, number>();

  constructor(
    limits: Record<string, number>,
    options: {
      clock?: Clock;
      mode?: RateLimitMode;
      windowSeconds?: number;
      enabled?: boolean;
      defaultLimit?: number;
      penaltyMs?: number;
    } = {},
  ) {
    this.#clock = options.clock ?? systemClock;
    this.#config = {
      enabled: options.enabled ?? false,
      mode: options.mode ?? 'sliding',
      windowSeconds: options.windowSeconds ?? 60,
      limits: { ...limits },
      ...(options.defaultLimit === undefined ? {} : { defaultLimit: options.defaultLimit }),
      ...(options.penaltyMs === undefined ? {} : { penaltyMs: options.penaltyMs }),
    };
  }

  get config(): RateLimitConfig {
    return { ...this.#config, limits: { ...this.#config.limits } };
  }

  /** Settings given replace the current ones. Counters restart so a new setting takes effect cleanly. */
  configure(update: RateLimitSettings): RateLimitConfig {
    const { enabled, mode, limits, defaultLimit, penaltyMs } = update;
    this.#config = {
      ...this.#config,
      ...(enabled === undefined ? {} : { enabled }),
      ...(mode === undefined ? {} : { mode }),
      ...(limits === undefined ? {} : { limits: { ...limits } }),
      ...(defaultLimit === undefined ? {} : { defaultLimit }),
      ...(penaltyMs === undefined ? {} : { penaltyMs }),
    };
    this.reset();
    return this.config;
  }

  /** Clears counters and penalties, keeping the settings. */
  reset(): void {
    this.#hits.clear();
    this.#penalties.clear();
  }

  /** Keys whose penalty has not ended yet, with when it ends. */
  penalties(): { key: string; until: string }[] {
    const now = this.#clock.now().getTime();
    return [...this.#penalties]
      .filter(([, until]) => until > now)
      .map(([key, until]) => ({ key, until: new Date(until).toISOString() }));
  }

  /** Counts the request against its key and says whether it may proceed. */
  hit(key: string): RateLimitDecision {
    const limit = this.#config.limits[key] ?? this.#config.defaultLimit;
    if (!this.#config.enabled || limit === undefined) return { allowed: true };
    const now = this.#clock.now().getTime();
    const windowMs = this.#config.windowSeconds * 1000;
    const { penaltyMs } = this.#config;
    if (penaltyMs !== undefined) {
      const until = this.#penalties.get(key);
      if (until !== undefined && now < until) return refusal(limit, until - now);
      if (until !== undefined) {
        this.#penalties.delete(key);
        this.#hits.delete(key);
      }
    }
    if (this.#config.mode === 'fixed') {
      const start = Math.floor(now / windowMs) * windowMs;
      const state = this.#hits.get(key);
      const count = state && state[0] === start ? (state[1] ?? 0) : 0;
      if (count >= limit) return this.#refuse(key, limit, now, start + windowMs - now);
      this.#hits.set(key, [start, count + 1]);
      return { allowed: true };
    }
    const times = (this.#hits.get(key) ?? []).filter((t) => t > now - windowMs);
    if (times.length >= limit) {
      this.#hits.set(key, times);
      return this.#refuse(key, limit, now, (times[0] ?? now) + windowMs - now);
    }
    times.push(now);
    this.#hits.set(key, times);
    return { allowed: true };
  }

  /** Without a penalty, the caller waits for a slot (`slotMs`); with one, for the penalty, then counts afresh. */
  #refuse(key: string, limit: number, now: number, slotMs: number): RateLimitDecision {
    const { penaltyMs } = this.#config;
    if (penaltyMs === undefined) return refusal(limit, slotMs);
    this.#penalties.set(key, now + penaltyMs);
    this.#hits.delete(key);
    return refusal(limit, penaltyMs);
  }
}

function refusal(limit: number, waitMs: number): RateLimitDecision {
  return { allowed: false, limit, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
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

export interface RateLimitMiddlewareOptions {
  /** What a request counts against; default its route label. Undefined: the request is not counted. */
  keyOf?: (c: Context<EmulatorEnv>) => string | undefined;
  /** The refusal; default a 429 in the service's envelope with Retry-After and a message naming the limit. */
  refuse?: (c: Context<EmulatorEnv>) => Response;
}

export function rateLimitMiddleware(
  limiter: RateLimiter,
  errorBody: ErrorBodyFn,
  options: RateLimitMiddlewareOptions = {},
): MiddlewareHandler<EmulatorEnv> {
  const keyOf = options.keyOf ?? ((c: Context<EmulatorEnv>) => routeLabel(c));
  return async (c, next) => {
    if (isControlPath(c.req.path)) return next();
    const label = keyOf(c);
    if (label === undefined) return next();
    const decision = limiter.hit(label);
    if (decision.allowed) return next();
    if (options.refuse) return options.refuse(c);
    c.header('Retry-After', String(decision.retryAfterSeconds));
    const { windowSeconds } = limiter.config;
    const per = windowSeconds === 60 ? 'minute' : `${windowSeconds} seconds`;
    const message = `Rate limit exceeded for ${label} (${decision.limit} requests per ${per}). Please retry later.`;
    return c.json(errorBody(429, message, { requestId: c.get('requestId') }) as object, 429);
  };
}
