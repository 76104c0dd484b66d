import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/runtime/errors.js';
import { RateLimiter } from '../../src/runtime/rateLimiter.js';

function fakeClock() {
  let now = 0;
  const waits: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
    waits,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('RateLimiter', () => {
  it('lets a burst up to the limit through, then spaces calls at the refill rate', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(new Map([['GET /issues', { limit: 3, intervalMs: 60_000 }]]), clock);
    for (let i = 0; i < 3; i++) await limiter.acquire('GET /issues');
    expect(clock.waits).toEqual([]);
    await limiter.acquire('GET /issues');
    expect(clock.waits).toEqual([20_000]);
  });

  it('refuses at once, with retry_after, when the wait would exceed maxWaitMs', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(new Map([['k', { limit: 1, intervalMs: 60_000 }]]), {
      ...clock,
      maxWaitMs: 5_000,
    });
    await limiter.acquire('k');
    const error = await limiter.acquire('k').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).kind).toBe('rate_limited');
    expect((error as ToolError).retryAfterSeconds).toBe(60);
    // The refused call did not consume a token: after the interval one call passes without waiting.
    clock.advance(60_000);
    await limiter.acquire('k');
    expect(clock.waits).toEqual([]);
  });

  it('passes keys without a configured limit', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(new Map(), clock);
    for (let i = 0; i < 100; i++) await limiter.acquire('anything');
    expect(clock.waits).toEqual([]);
  });
});
