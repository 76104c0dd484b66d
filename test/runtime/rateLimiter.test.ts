// The client-side rate limiter on a virtual clock: never more than the limit in any window of the published
// length (property-style over random arrivals), first come first served, refusals past maxWait with the wait,
// cancellation, pauses after an upstream 429, and agreement with the emulators' sliding-window counting.
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/emulation/clock.js';
import { RateLimiter as EmulatorRateLimiter } from '../../src/emulation/rateLimit.js';
import { createRng } from '../../src/emulation/rng.js';
import { ToolError } from '../../src/runtime/errors.js';
import { type RateLimit, RateLimiter } from '../../src/runtime/rateLimiter.js';

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

/**
 * Virtual time for concurrent callers: `sleep` registers a timer; `advanceTo` fires due timers in time order,
 * letting every promise callback run after each, so the limiter's pump behaves as it would on real timers.
 */
function virtualTime() {
  let now = 0;
  let timers: { at: number; resolve: () => void }[] = [];
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => now,
    sleep(ms: number, signal?: AbortSignal): Promise<void> {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const timer = { at: now + ms, resolve };
        timers.push(timer);
        signal?.addEventListener(
          'abort',
          () => {
            timers = timers.filter((t) => t !== timer);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    async advanceTo(time: number): Promise<void> {
      await settle();
      for (;;) {
        const next = timers.reduce<(typeof timers)[number] | undefined>(
          (earliest, t) => (!earliest || t.at < earliest.at ? t : earliest),
          undefined,
        );
        if (!next || next.at > time) break;
        timers = timers.filter((t) => t !== next);
        now = Math.max(now, next.at);
        next.resolve();
        await settle();
      }
      if (Number.isFinite(time)) now = Math.max(now, time);
    },
    pendingTimers: () => timers.length,
  };
}

const refusal = (error: unknown) => {
  expect(error).toBeInstanceOf(ToolError);
  expect((error as ToolError).kind).toBe('rate_limited');
  return error as ToolError;
};

describe('RateLimiter', () => {
  it('lets a burst up to the limit through, then the next call waits until the oldest leaves the window', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(new Map([['GET /issues', { limit: 3, intervalMs: 60_000 }]]), {
      ...clock,
      maxWaitMs: 120_000,
    });
    for (let i = 0; i < 3; i++) await limiter.acquire('GET /issues');
    expect(clock.waits).toEqual([]);
    // A token bucket would let this one go after 20 s (a third of the window), putting 4 in one minute.
    await limiter.acquire('GET /issues');
    expect(clock.waits).toEqual([60_000]);
  });

  it('adds the slack beyond the window', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(new Map([['k', { limit: 2, intervalMs: 60_000, slackMs: 1_000 }]]), {
      ...clock,
      maxWaitMs: 120_000,
    });
    await limiter.acquire('k');
    clock.advance(10_000);
    await limiter.acquire('k');
    await limiter.acquire('k');
    expect(clock.waits).toEqual([51_000]);
  });

  it('refuses at once, with retry_after, when the wait would exceed maxWaitMs', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(new Map([['k', { limit: 1, intervalMs: 60_000 }]]), {
      ...clock,
      maxWaitMs: 5_000,
    });
    await limiter.acquire('k');
    const error = refusal(await limiter.acquire('k').catch((e: unknown) => e));
    expect(error.retryAfterSeconds).toBe(60);
    expect(error.message).toMatch(/Client-side rate limit for k \(1 per 60 s\)/);
    // The refused call took no slot: after the interval one call passes without waiting.
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

  it('never lets more than `limit` calls go in any window of `intervalMs` (+ slack), whatever the arrivals', async () => {
    const rates: (RateLimit & { spreadMs: number; maxWaitMs: number })[] = [
      // Pylon's 10 per minute with our second of slack; the default 20 s maxWait.
      { limit: 10, intervalMs: 60_000, slackMs: 1_000, spreadMs: 240_000, maxWaitMs: 20_000 },
      // The store's pacing of one call per 250 ms per base.
      { limit: 1, intervalMs: 250, spreadMs: 6_000, maxWaitMs: 20_000 },
      { limit: 5, intervalMs: 1_000, spreadMs: 5_000, maxWaitMs: 3_000 },
      { limit: 3, intervalMs: 10_000, spreadMs: 40_000, maxWaitMs: 25_000 },
    ];
    const violations: string[] = [];
    let refusedTotal = 0;
    let waitedTotal = 0;
    for (const rate of rates) {
      for (let seed = 1; seed <= 20; seed++) {
        const rng = createRng(seed);
        const time = virtualTime();
        const limiter = new RateLimiter(new Map([['k', rate]]), {
          now: time.now,
          sleep: time.sleep,
          maxWaitMs: rate.maxWaitMs,
        });
        // Bursts and gaps: arrivals clustered around a few moments.
        const centres = Array.from({ length: 4 }, () => rng.int(0, rate.spreadMs));
        const arrivals = Array.from({ length: 60 }, () =>
          Math.max(
            0,
            rng.pick(centres) + rng.int(-Math.floor(rate.intervalMs / 4), Math.floor(rate.intervalMs / 4)),
          ),
        ).sort((a, b) => a - b);
        const sent: { call: number; at: number; arrived: number }[] = [];
        const calls: Promise<void>[] = [];
        for (const [call, arrived] of arrivals.entries()) {
          await time.advanceTo(arrived);
          calls.push(
            limiter.acquire('k').then(
              () => {
                sent.push({ call, at: time.now(), arrived });
              },
              (error: unknown) => {
                const refused = refusal(error);
                refusedTotal++;
                if (!((refused.retryAfterSeconds ?? 0) * 1000 > rate.maxWaitMs)) {
                  violations.push(`seed ${seed}: call ${call} refused though it could go within maxWait`);
                }
              },
            ),
          );
        }
        await time.advanceTo(Number.POSITIVE_INFINITY);
        await Promise.all(calls);
        const spacing = rate.intervalMs + (rate.slackMs ?? 0);
        for (let j = rate.limit; j < sent.length; j++) {
          const first = sent[j - rate.limit]!;
          const last = sent[j]!;
          if (last.at - first.at < spacing) {
            violations.push(
              `${rate.limit}/${rate.intervalMs} seed ${seed}: ${rate.limit + 1} calls in ${last.at - first.at} ms`,
            );
          }
        }
        for (const s of sent) {
          if (s.at > s.arrived) waitedTotal++;
          if (s.at - s.arrived > rate.maxWaitMs)
            violations.push(`seed ${seed}: call ${s.call} waited too long`);
        }
        const order = sent.map((s) => s.call);
        if (order.some((call, i) => i > 0 && call < order[i - 1]!)) {
          violations.push(`${rate.limit}/${rate.intervalMs} seed ${seed}: not first come first served`);
        }
        if (time.pendingTimers() !== 0) violations.push(`seed ${seed}: a timer was left behind`);
      }
    }
    expect(violations).toEqual([]);
    // The runs did exercise both waiting and refusing.
    expect(refusedTotal).toBeGreaterThan(0);
    expect(waitedTotal).toBeGreaterThan(0);
  });

  it('serves concurrent callers in arrival order, each in the next free slot', async () => {
    const time = virtualTime();
    const limiter = new RateLimiter(new Map([['k', { limit: 2, intervalMs: 1_000 }]]), time);
    const sent: [string, number][] = [];
    const calls = ['a', 'b', 'c', 'd', 'e'].map((name) =>
      limiter.acquire('k').then(() => {
        sent.push([name, time.now()]);
      }),
    );
    await time.advanceTo(Number.POSITIVE_INFINITY);
    await Promise.all(calls);
    expect(sent).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 1_000],
      ['d', 1_000],
      ['e', 2_000],
    ]);
  });

  it('a cancelled call leaves the queue with the signal reason, and the next one takes its slot', async () => {
    const time = virtualTime();
    const limiter = new RateLimiter(new Map([['k', { limit: 1, intervalMs: 1_000 }]]), time);
    await limiter.acquire('k');
    const controller = new AbortController();
    const cancelled = limiter.acquire('k', controller.signal).catch((e: unknown) => e);
    let cAt: number | undefined;
    const c = limiter.acquire('k').then(() => {
      cAt = time.now();
    });
    await time.advanceTo(500);
    controller.abort(new Error('client cancelled'));
    expect(await cancelled).toEqual(new Error('client cancelled'));
    await time.advanceTo(Number.POSITIVE_INFINITY);
    await c;
    expect(cAt).toBe(1_000);
    // An already-aborted signal is refused before queueing.
    const again = new AbortController();
    again.abort(new Error('gone'));
    expect(await limiter.acquire('k', again.signal).catch((e: unknown) => e)).toEqual(new Error('gone'));
  });

  it('leaves no timer running once every waiting call is cancelled', async () => {
    const time = virtualTime();
    const limiter = new RateLimiter(new Map([['k', { limit: 1, intervalMs: 10_000 }]]), time);
    await limiter.acquire('k');
    const controller = new AbortController();
    const waiting = limiter.acquire('k', controller.signal).catch(() => 'cancelled');
    await time.advanceTo(1);
    expect(time.pendingTimers()).toBe(1);
    controller.abort();
    expect(await waiting).toBe('cancelled');
    await time.advanceTo(2);
    expect(time.pendingTimers()).toBe(0);
  });

  describe('pause (after an upstream 429)', () => {
    it('refuses the calls waiting for the key and new ones, with the remaining wait, and sends nothing before it ends', async () => {
      const time = virtualTime();
      const limiter = new RateLimiter(new Map([['base:app1', { limit: 1, intervalMs: 250 }]]), {
        now: time.now,
        sleep: time.sleep,
        maxWaitMs: 20_000,
      });
      await limiter.acquire('base:app1');
      const waiting = limiter.acquire('base:app1').then(
        () => 'sent',
        (e: unknown) => e,
      );
      await time.advanceTo(100);
      limiter.pause('base:app1', 30_000);
      const refusedWaiting = refusal(await waiting);
      expect(refusedWaiting.retryAfterSeconds).toBe(30);
      expect(refusedWaiting.message).toMatch(/429.*base:app1/);
      expect(refusedWaiting.hint).toMatch(/30 s/);

      await time.advanceTo(5_100);
      const fresh = refusal(await limiter.acquire('base:app1').catch((e: unknown) => e));
      expect(fresh.retryAfterSeconds).toBe(25);
      // Another base is not affected.
      await limiter.acquire('base:app2');
      expect(time.now()).toBe(5_100);

      // Once the remaining wait fits in maxWait, a call waits for the end of the pause instead.
      await time.advanceTo(20_100);
      let sentAt: number | undefined;
      const late = limiter.acquire('base:app1').then(() => {
        sentAt = time.now();
      });
      await time.advanceTo(30_099);
      expect(sentAt).toBeUndefined();
      await time.advanceTo(Number.POSITIVE_INFINITY);
      await late;
      expect(sentAt).toBe(30_100);
    });

    it('a short pause keeps waiting calls queued and sends them after it', async () => {
      const time = virtualTime();
      const limiter = new RateLimiter(new Map([['track', { limit: 1, intervalMs: 100 }]]), time);
      await limiter.acquire('track');
      let sentAt: number | undefined;
      const waiting = limiter.acquire('track').then(() => {
        sentAt = time.now();
      });
      limiter.pause('track', 2_000);
      await time.advanceTo(Number.POSITIVE_INFINITY);
      await waiting;
      expect(sentAt).toBe(2_000);
    });

    it('holds keys that have no configured limit too', async () => {
      const time = virtualTime();
      const limiter = new RateLimiter(new Map(), time);
      limiter.pause('account', 40_000);
      expect(refusal(await limiter.acquire('account').catch((e: unknown) => e)).retryAfterSeconds).toBe(40);
      await time.advanceTo(40_000);
      await limiter.acquire('account');
      expect(time.now()).toBe(40_000);
    });
  });

  it("counts like the emulators' sliding window: every call it lets go, the emulator admits", async () => {
    // Without slack, so the two meet exactly at the boundary: a request one window after the oldest counted one.
    const clock = manualClock('2026-01-05T09:00:00Z');
    const emulator = new EmulatorRateLimiter({ 'GET /issues': 10 }, { clock, enabled: true });
    const start = clock.now().getTime();
    const time = virtualTime();
    const limiter = new RateLimiter(new Map([['GET /issues', { limit: 10, intervalMs: 60_000 }]]), {
      now: time.now,
      sleep: time.sleep,
      maxWaitMs: 180_000,
    });
    const rng = createRng(7);
    const refused: number[] = [];
    const calls: Promise<void>[] = [];
    for (let i = 0; i < 40; i++) {
      await time.advanceTo(rng.int(0, 90_000) + i * 1_000);
      calls.push(
        limiter.acquire('GET /issues').then(() => {
          clock.set(new Date(start + time.now()));
          if (!emulator.hit('GET /issues').allowed) refused.push(time.now());
        }),
      );
    }
    await time.advanceTo(Number.POSITIVE_INFINITY);
    await Promise.all(calls);
    expect(refused).toEqual([]);
    // And one more the moment before a slot frees is refused by both.
    clock.set(new Date(start + time.now()));
    expect(emulator.hit('GET /issues').allowed).toBe(false);
  });
});
