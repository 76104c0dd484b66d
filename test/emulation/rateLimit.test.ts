// Per-route rate limits in fixed and sliding windows, on a pinned clock.
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/emulation/clock.js';
import { parseRateLimitUpdate, RateLimiter } from '../../src/emulation/rateLimit.js';

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
