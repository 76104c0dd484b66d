/**
 * The upstream's per-base rate limit: 5 requests per second per base (a sliding one-second window over every
 * endpoint with a base id in its path); the request that exceeds it starts a 30-second penalty during which
 * every request to that base gets 429 RATE_LIMIT_REACHED, after which the base starts afresh. On by default,
 * unlike the shared per-route limiter, because it is part of the documented contract clients must handle.
 * Settings live at GET/PUT/DELETE /_emulator/base-rate-limit.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { Clock } from '../../../emulation/clock.js';
import { CONTROL_PREFIX, type EmulatorEnv, isControlPath } from '../../../emulation/env.js';
import { formatZodIssues } from '../../../emulation/faults.js';
import { errors, respond } from './errors.js';

export interface BaseRateLimitSettings {
  perSecond: number;
  penaltyMs: number;
}

export const DEFAULT_BASE_RATE_LIMIT: BaseRateLimitSettings = { perSecond: 5, penaltyMs: 30_000 };
const WINDOW_MS = 1000;

export interface BaseRateLimitConfig extends BaseRateLimitSettings {
  enabled: boolean;
}

export type BaseRateDecision = { allowed: true } | { allowed: false; penaltyEndsAt: number };

export class BaseRateLimiter {
  #config: BaseRateLimitConfig;
  #hits = new Map<string, number[]>();
  #penalties = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    settings: BaseRateLimitSettings | false = DEFAULT_BASE_RATE_LIMIT,
  ) {
    this.#config =
      settings === false ? { enabled: false, ...DEFAULT_BASE_RATE_LIMIT } : { enabled: true, ...settings };
  }

  get config(): BaseRateLimitConfig {
    return { ...this.#config };
  }

  configure(update: Partial<BaseRateLimitConfig>): BaseRateLimitConfig {
    this.#config = { ...this.#config, ...update };
    this.reset();
    return this.config;
  }

  reset(): void {
    this.#hits.clear();
    this.#penalties.clear();
  }

  /** Bases currently in their penalty, with when it ends. */
  penalties(): { baseId: string; until: string }[] {
    const now = this.clock.now().getTime();
    return [...this.#penalties]
      .filter(([, until]) => until > now)
      .map(([baseId, until]) => ({ baseId, until: new Date(until).toISOString() }));
  }

  hit(baseId: string): BaseRateDecision {
    if (!this.#config.enabled) return { allowed: true };
    const now = this.clock.now().getTime();
    const until = this.#penalties.get(baseId);
    if (until !== undefined) {
      if (now < until) return { allowed: false, penaltyEndsAt: until };
      this.#penalties.delete(baseId);
      this.#hits.delete(baseId);
    }
    const recent = (this.#hits.get(baseId) ?? []).filter((t) => t > now - WINDOW_MS);
    if (recent.length >= this.#config.perSecond) {
      const ends = now + this.#config.penaltyMs;
      this.#penalties.set(baseId, ends);
      this.#hits.delete(baseId);
      return { allowed: false, penaltyEndsAt: ends };
    }
    recent.push(now);
    this.#hits.set(baseId, recent);
    return { allowed: true };
  }
}

/** The base a request addresses: /v0/{baseId}/..., /v0/meta/bases/{baseId}/..., /v0/bases/{baseId}/... */
export function baseIdOfPath(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[1] !== 'v0') return undefined;
  if (parts[2] === 'meta') return parts[3] === 'bases' && parts[4] ? decodeURIComponent(parts[4]) : undefined;
  if (parts[2] === 'bases') return parts[3] ? decodeURIComponent(parts[3]) : undefined;
  return parts[2] && parts[3] ? decodeURIComponent(parts[2]) : undefined;
}

export function baseRateLimitMiddleware(limiter: BaseRateLimiter): MiddlewareHandler<EmulatorEnv> {
  return async (c, next) => {
    if (isControlPath(c.req.path)) return next();
    const baseId = baseIdOfPath(c.req.path);
    if (baseId === undefined) return next();
    const decision = limiter.hit(baseId);
    if (decision.allowed) return next();
    // The upstream sends no Retry-After with its 429s; clients are told to wait 30 seconds.
    return respond(c, errors.rateLimited());
  };
}

const UpdateSchema = z
  .object({
    enabled: z.boolean().optional(),
    perSecond: z.number().int().min(1).max(10_000).optional(),
    penaltyMs: z.number().int().min(0).max(3_600_000).optional(),
  })
  .strict();

export function mountBaseRateLimitControls(app: Hono<EmulatorEnv>, limiter: BaseRateLimiter): void {
  const path = `${CONTROL_PREFIX}/base-rate-limit`;
  const state = () => ({ ...limiter.config, penalized: limiter.penalties() });
  app.get(path, (c) => c.json(state()));
  app.put(path, async (c) => {
    let body: unknown;
    try {
      const text = await c.req.text();
      body = text.trim() === '' ? {} : JSON.parse(text);
    } catch (e) {
      return c.json({ error: `Request body is not valid JSON: ${(e as Error).message}` }, 400);
    }
    const parsed = UpdateSchema.safeParse(body);
    if (!parsed.success)
      return c.json({ error: `Invalid base rate limit: ${formatZodIssues(parsed.error)}` }, 400);
    const update: Partial<BaseRateLimitConfig> = {};
    if (parsed.data.enabled !== undefined) update.enabled = parsed.data.enabled;
    if (parsed.data.perSecond !== undefined) update.perSecond = parsed.data.perSecond;
    if (parsed.data.penaltyMs !== undefined) update.penaltyMs = parsed.data.penaltyMs;
    limiter.configure(update);
    return c.json(state());
  });
  // Clears counters and penalties, keeping the settings.
  app.delete(path, (c) => {
    limiter.reset();
    return c.json(state());
  });
}
