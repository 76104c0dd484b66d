/**
 * The upstream's per-base rate limit: 5 requests per second per base (a sliding one-second window over every
 * endpoint with a base id in its path); the request that exceeds it starts a 30-second penalty during which
 * every request to that base gets 429 RATE_LIMIT_REACHED, after which the base starts afresh. A use of the
 * emulators' one rate limiter (emulation/rateLimit.ts) keyed by the base, on by default, unlike the shared
 * per-route limits, because it is part of the documented contract clients must handle.
 * Settings live at GET/PUT/DELETE /_emulator/base-rate-limit.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { Clock } from '../../../emulation/clock.js';
import { CONTROL_PREFIX, type EmulatorEnv, type ErrorBodyFn } from '../../../emulation/env.js';
import { readOptionalJson } from '../../../emulation/inspection.js';
import { RateLimiter, rateLimitMiddleware } from '../../../emulation/rateLimit.js';
import { formatZodIssues } from '../../../text/zodIssues.js';
import { errors, respond } from './errors.js';

export interface BaseRateLimitSettings {
  perSecond: number;
  penaltyMs: number;
}

export const DEFAULT_BASE_RATE_LIMIT: BaseRateLimitSettings = { perSecond: 5, penaltyMs: 30_000 };

export interface BaseRateLimitConfig extends BaseRateLimitSettings {
  enabled: boolean;
}

/** The limiter: every base gets `perSecond` (the default limit) in a sliding one-second window. */
export function createBaseRateLimiter(
  clock: Clock,
  settings: BaseRateLimitSettings | false = DEFAULT_BASE_RATE_LIMIT,
): RateLimiter {
  const { perSecond, penaltyMs } = settings === false ? DEFAULT_BASE_RATE_LIMIT : settings;
  return new RateLimiter(
    {},
    { clock, enabled: settings !== false, windowSeconds: 1, defaultLimit: perSecond, penaltyMs },
  );
}

/** The settings as the controls and the state summary show them. */
export function baseRateLimitConfig(limiter: RateLimiter): BaseRateLimitConfig {
  const { enabled, defaultLimit, penaltyMs } = limiter.config;
  return {
    enabled,
    perSecond: defaultLimit ?? DEFAULT_BASE_RATE_LIMIT.perSecond,
    penaltyMs: penaltyMs ?? DEFAULT_BASE_RATE_LIMIT.penaltyMs,
  };
}

/** The base a request addresses: /v0/{baseId}/..., /v0/meta/bases/{baseId}/..., /v0/bases/{baseId}/... */
export function baseIdOfPath(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[1] !== 'v0') return undefined;
  if (parts[2] === 'meta') return parts[3] === 'bases' && parts[4] ? decodeURIComponent(parts[4]) : undefined;
  if (parts[2] === 'bases') return parts[3] ? decodeURIComponent(parts[3]) : undefined;
  return parts[2] && parts[3] ? decodeURIComponent(parts[2]) : undefined;
}

export function baseRateLimitMiddleware(
  limiter: RateLimiter,
  errorBody: ErrorBodyFn,
): MiddlewareHandler<EmulatorEnv> {
  return rateLimitMiddleware(limiter, errorBody, {
    keyOf: (c) => baseIdOfPath(c.req.path),
    // The upstream sends no Retry-After with its 429s; clients are told to wait 30 seconds.
    refuse: (c) => respond(c, errors.rateLimited()),
  });
}

const UpdateSchema = z
  .object({
    enabled: z.boolean().optional(),
    perSecond: z.number().int().min(1).max(10_000).optional(),
    penaltyMs: z.number().int().min(0).max(3_600_000).optional(),
  })
  .strict();

export function mountBaseRateLimitControls(app: Hono<EmulatorEnv>, limiter: RateLimiter): void {
  const path = `${CONTROL_PREFIX}/base-rate-limit`;
  const state = () => ({
    ...baseRateLimitConfig(limiter),
    penalized: limiter.penalties().map(({ key, until }) => ({ baseId: key, until })),
  });
  app.get(path, (c) => c.json(state()));
  app.put(path, async (c) => {
    const body = await readOptionalJson(c);
    if (!body.ok) return c.json({ error: body.error }, 400);
    const parsed = UpdateSchema.safeParse(body.value);
    if (!parsed.success)
      return c.json({ error: `Invalid base rate limit: ${formatZodIssues(parsed.error)}` }, 400);
    const { enabled, perSecond, penaltyMs } = parsed.data;
    limiter.configure({
      ...(enabled === undefined ? {} : { enabled }),
      ...(perSecond === undefined ? {} : { defaultLimit: perSecond }),
      ...(penaltyMs === undefined ? {} : { penaltyMs }),
    });
    return c.json(state());
  });
  // Clears counters and penalties, keeping the settings.
  app.delete(path, (c) => {
    limiter.reset();
    return c.json(state());
  });
}
