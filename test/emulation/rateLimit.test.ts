// Per-route rate limits in fixed and sliding windows, on a pinned clock.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/emulation/clock.js';
import type { EmulatorEnv } from '../../src/emulation/env.js';
import { parseRateLimitUpdate, RateLimiter, rateLimitMiddleware } from '../../src/emulation/rateLimit.js';

describe('RateLimiter', () => {
  it('lets everything through while disabled', () => {
    const limiter = new RateLimiter({ 'GET /x': 1 });
    for (let i = 0; i < 5; i++) expect(limiter.hit('GET /x').allowed).toBe(true);
  });

  it('fixed window: refuses past the limit until the next minute starts', () => {
    const clock = manualClock('2025-01-01T00:00:10Z');
    const limiter = new RateLimiter({ 'GET /x': 2 }, { clock, mode: 'fixed', enabled: true });
    expect(limiter.hit('GET /x').allowed).toBe(true);
    expect(limiter.hit('GET /x').allowed).toBe(true);
    expect(limiter.hit('GET /x')).toEqual({ allowed: false, limit: 2, retryAfterSeconds: 50 });
    expect(limiter.hit('GET /y').allowed).toBe(true);
    clock.advance(50_000);
    expect(limiter.hit('GET /x').allowed).toBe(true);
  });

  it('sliding window: frees a slot one minute after the oldest counted request', () => {
    const clock = manualClock('2025-01-01T00:00:00Z');
    const limiter = new RateLimiter({ 'GET /x': 2 }, { clock, enabled: true });
    limiter.hit('GET /x');
    clock.advance(20_000);
    limiter.hit('GET /x');
    const refused = limiter.hit('GET /x');
    expect(refused).toEqual({ allowed: false, limit: 2, retryAfterSeconds: 40 });
    clock.advance(40_000);
    expect(limiter.hit('GET /x').allowed).toBe(true);
    expect(limiter.hit('GET /x').allowed).toBe(false);
  });

  it('configure replaces the table, switches mode and restarts counting', () => {
    const limiter = new RateLimiter({ 'GET /x': 1 }, { enabled: true });
    limiter.hit('GET /x');
    expect(limiter.hit('GET /x').allowed).toBe(false);
    const config = limiter.configure({ enabled: true, mode: 'fixed', limits: { 'GET /y': 1 } });
    expect(config).toMatchObject({ enabled: true, mode: 'fixed', limits: { 'GET /y': 1 } });
    expect(limiter.hit('GET /x').allowed).toBe(true);
    limiter.configure({ enabled: false });
    expect(limiter.config.limits).toEqual({ 'GET /y': 1 });
  });

  it('validates updates with clear messages', () => {
    expect(parseRateLimitUpdate({ enabled: true, limits: { 'GET /me': 5 } }).ok).toBe(true);
    const bad = parseRateLimitUpdate({ enabled: 'yes', limits: { me: -1 } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error).toMatch(/enabled/);
      expect(bad.error).toMatch(/limits/);
    }
  });
});

// The store's per-base limit is this limiter keyed by base: one limit for every key, a one-second window, and a
// penalty that refuses a key for a while once it goes over and then lets it start afresh.
describe('RateLimiter with a default limit and a penalty', () => {
  it('limits every key alike with defaultLimit, each key counted on its own', () => {
    const clock = manualClock('2025-01-01T00:00:00Z');
    const limiter = new RateLimiter({}, { clock, enabled: true, windowSeconds: 1, defaultLimit: 2 });
    expect(limiter.hit('a').allowed).toBe(true);
    expect(limiter.hit('a').allowed).toBe(true);
    expect(limiter.hit('a')).toEqual({ allowed: false, limit: 2, retryAfterSeconds: 1 });
    expect(limiter.hit('b').allowed).toBe(true);
  });

  it('refuses a key for the penalty after it goes over, then counts it afresh', () => {
    const clock = manualClock('2025-01-01T00:00:00Z');
    const limiter = new RateLimiter(
      {},
      { clock, enabled: true, windowSeconds: 1, defaultLimit: 2, penaltyMs: 30_000 },
    );
    limiter.hit('a');
    limiter.hit('a');
    expect(limiter.hit('a')).toEqual({ allowed: false, limit: 2, retryAfterSeconds: 30 });
    expect(limiter.penalties()).toEqual([{ key: 'a', until: '2025-01-01T00:00:30.000Z' }]);
    // The window has long passed, but the penalty has not.
    clock.advance(29_000);
    expect(limiter.hit('a')).toEqual({ allowed: false, limit: 2, retryAfterSeconds: 1 });
    expect(limiter.hit('b').allowed).toBe(true);
    clock.advance(1_000);
    expect(limiter.penalties()).toEqual([]);
    expect(limiter.hit('a').allowed).toBe(true);
    expect(limiter.hit('a').allowed).toBe(true);
    expect(limiter.hit('a').allowed).toBe(false);
  });

  it('configure changes the default limit and the penalty and clears penalties; reset keeps settings', () => {
    const clock = manualClock('2025-01-01T00:00:00Z');
    const limiter = new RateLimiter({}, { clock, enabled: true, defaultLimit: 1, penaltyMs: 5_000 });
    limiter.hit('a');
    expect(limiter.hit('a').allowed).toBe(false);
    const config = limiter.configure({ defaultLimit: 3, penaltyMs: 0 });
    expect(config).toMatchObject({ enabled: true, defaultLimit: 3, penaltyMs: 0, limits: {} });
    expect(limiter.penalties()).toEqual([]);
    for (let i = 0; i < 3; i++) expect(limiter.hit('a').allowed).toBe(true);
    expect(limiter.hit('a').allowed).toBe(false);
    limiter.reset();
    expect(limiter.config).toMatchObject({ defaultLimit: 3, penaltyMs: 0 });
    expect(limiter.hit('a').allowed).toBe(true);
  });

  it('leaves the per-route configuration as it was when neither is set', () => {
    const limiter = new RateLimiter({ 'GET /x': 1 });
    expect(limiter.config).toEqual({
      enabled: false,
      mode: 'sliding',
      windowSeconds: 60,
      limits: { 'GET /x': 1 },
    });
  });
});

describe('rateLimitMiddleware with a key function and a refusal of its own', () => {
  it('counts requests by the key the service chooses and answers with its refusal', async () => {
    const limiter = new RateLimiter(
      {},
      { enabled: true, windowSeconds: 1, defaultLimit: 1, penaltyMs: 60_000 },
    );
    const app = new Hono<EmulatorEnv>();
    app.use(
      '*',
      rateLimitMiddleware(limiter, () => ({ error: 'generic' }), {
        keyOf: (c) => c.req.path.split('/')[1] || undefined,
        refuse: (c) => c.json({ error: 'RATE_LIMIT_REACHED' }, 429),
      }),
    );
    app.get('*', (c) => c.text('ok'));
    expect((await app.request('/a/1')).status).toBe(200);
    const refused = await app.request('/a/2');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(await refused.json()).toEqual({ error: 'RATE_LIMIT_REACHED' });
    expect((await app.request('/b/1')).status).toBe(200);
    // No key, not counted.
    expect((await app.request('/')).status).toBe(200);
    expect((await app.request('/')).status).toBe(200);
  });
});
