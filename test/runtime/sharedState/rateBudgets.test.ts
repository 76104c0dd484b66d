// The rate budget replicas share through Redis, on a real redis-server: two budgets on two connections (as two
// replicas hold them) never let more than the limit through in any window, counted on the grants' own times (the
// Redis clock); a 429's pause set through one is honoured by the other, also by calls already waiting; refusals
// past the longest wait and cancellation behave as the embedded limiter's; an unreachable Redis refuses the call
// without sending it. The embedded default is what `rateBudget()` gives without shared state.

import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/runtime/errors.js';
import { type RateLimit, RateLimiter } from '../../../src/runtime/rateLimiter.js';
import { rateBudget, SharedRateBudget } from '../../../src/runtime/sharedState/rateBudgets.js';
import {
  closeRedis,
  openRedis,
  redisConnected,
  type SharedState,
} from '../../../src/runtime/sharedState/redis.js';
import { freePort, type RedisServer, startRedis } from '../../support/redisServer.js';

let server: RedisServer;
const connections: Redis[] = [];

/** A replica's connection: each budget below gets its own, as separate processes would. */
async function replica(): Promise<SharedState> {
  const redis = openRedis(server.url);
  connections.push(redis);
  expect(await redisConnected(redis, 5000)).toBe(true);
  return { redis };
}

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const redis of connections) await closeRedis(redis);
  await server?.stop();
});

let namespaces = 0;
/** A namespace of its own per test, so no test sees another's grants. */
const fresh = () => `test-${++namespaces}`;

const limits = (rate: RateLimit) => new Map([['k', rate]]);

const refusal = (error: unknown) => {
  expect(error).toBeInstanceOf(ToolError);
  expect((error as ToolError).kind).toBe('rate_limited');
  return error as ToolError;
};

/**
 * Every grant's Redis time for `namespace`, read from the grants log while the calls run. A grant stays in the log
 * at least one window, so reading it three times per window sees every one.
 */
function watchGrants(redis: Redis, namespace: string, windowMs: number) {
  const key = `switchboard:rate:${namespace}:{k}:sent`;
  const seen = new Map<string, number>();
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const entries = await redis.zrange(key, '0', '-1', 'WITHSCORES');
      for (let i = 0; i < entries.length; i += 2) seen.set(entries[i]!, Number(entries[i + 1]));
      await new Promise((resolve) => setTimeout(resolve, windowMs / 3));
    }
  })();
  return {
    async stop(): Promise<number[]> {
      stopped = true;
      await done;
      const entries = await redis.zrange(key, '0', '-1', 'WITHSCORES');
      for (let i = 0; i < entries.length; i += 2) seen.set(entries[i]!, Number(entries[i + 1]));
      return [...seen.values()].sort((a, b) => a - b);
    },
  };
}

/** The most grants (times in microseconds) in any half-open window of `windowMs`. */
function busiestWindow(times: readonly number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    // Grants in (times[i] - window, times[i]].
    while (times[j]! <= times[i]! - windowMs * 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('SharedRateBudget across replicas', () => {
  it('two replicas hammering one key never let more than the limit through in any window', async () => {
    const rate = { limit: 3, intervalMs: 400 };
    const namespace = fresh();
    const [one, two] = [await replica(), await replica()];
    const budgets = [one, two].map(
      (shared) => new SharedRateBudget(shared, limits(rate), { namespace, maxWaitMs: 15_000 }),
    );
    const watch = watchGrants((await replica()).redis, namespace, rate.intervalMs);
    // 12 calls per replica, all at once: 24 grants, 8 windows' worth.
    const calls = budgets.flatMap((budget) => Array.from({ length: 12 }, () => budget.acquire('k')));
    await Promise.all(calls);
    const grants = await watch.stop();
    expect(grants).toHaveLength(24);
    expect(busiestWindow(grants, rate.intervalMs)).toBe(rate.limit);
    // The control: the same counting over two budgets that do not share (each replica with a budget of its own,
    // as before shared state) finds twice the limit in one window, so the assertion above can fail.
    const apart = [fresh(), fresh()];
    const watches = apart.map((ns) => watchGrants(one.redis, ns, rate.intervalMs));
    await Promise.all(
      apart.flatMap((ns, i) => {
        const budget = new SharedRateBudget([one, two][i]!, limits(rate), { namespace: ns });
        return Array.from({ length: rate.limit }, () => budget.acquire('k'));
      }),
    );
    const separate = (await Promise.all(watches.map((w) => w.stop()))).flat().sort((a, b) => a - b);
    expect(busiestWindow(separate, rate.intervalMs)).toBe(2 * rate.limit);
  });

  it('serves waiting calls in arrival order across replicas', async () => {
    const rate = { limit: 1, intervalMs: 150 };
    const namespace = fresh();
    const [one, two] = [await replica(), await replica()];
    const budgets = [one, two].map((shared) => new SharedRateBudget(shared, limits(rate), { namespace }));
    const order: number[] = [];
    const calls: Promise<void>[] = [];
    const base = `switchboard:rate:${namespace}:{k}`;
    const reached = async () =>
      (await one.redis.zcard(`${base}:sent`)) + (await one.redis.zcard(`${base}:waiting`));
    // Arrivals alternate between the replicas, each once the previous one has reached Redis (granted or queued).
    for (let i = 0; i < 6; i++) {
      calls.push(budgets[i % 2]!.acquire('k').then(() => void order.push(i)));
      while ((await reached()) < i + 1) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await Promise.all(calls);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("a 429's pause set through one replica holds the other's calls, including those already waiting", async () => {
    const rate = { limit: 1, intervalMs: 3000 };
    const namespace = fresh();
    const one = new SharedRateBudget(await replica(), limits(rate), { namespace, maxWaitMs: 5000 });
    const two = new SharedRateBudget(await replica(), limits(rate), { namespace, maxWaitMs: 5000 });
    await two.acquire('k');
    // Waits for the window (about 3 s, within its 5 s)...
    const waiting = two.acquire('k');
    waiting.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // ...until the upstream answers 429 to another replica with a 30 s wait: it can no longer go in time.
    await one.pause('k', 30_000);
    const error = refusal(
      await waiting.then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(error.message).toMatch(/answered 429 \(rate limit\) for k/);
    expect(error.retryAfterSeconds).toBeGreaterThan(20);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(30);
    // A new call on the other replica is refused at once with the same wait.
    const next = refusal(
      await two.acquire('k').then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(next.message).toMatch(/answered 429/);
  });

  it('a pause shorter than the longest wait is waited out on the other replica; keys without a limit too', async () => {
    const namespace = fresh();
    const none = new Map<string, RateLimit>();
    const one = new SharedRateBudget(await replica(), none, { namespace });
    const two = new SharedRateBudget(await replica(), none, { namespace });
    // Without a pause a key with no limit passes at once.
    await two.acquire('k');
    await one.pause('k', 1500);
    let passed = false;
    const held = two.acquire('k').then(() => {
      passed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Still held: the pause runs on Redis's clock for at least 1.5 s.
    expect(passed).toBe(false);
    await held;
    expect(passed).toBe(true);
    // A call that may not wait that long is refused with the pause's words.
    await one.pause('k', 5000);
    const short = new SharedRateBudget(await replica(), none, { namespace, maxWaitMs: 1000 });
    expect(
      refusal(
        await short.acquire('k').then(
          () => undefined,
          (e: unknown) => e,
        ),
      ).message,
    ).toMatch(/429/);
  });
});

describe('SharedRateBudget: longest wait and cancellation, as the embedded limiter', () => {
  it('refuses at once, with the wait and the same words, a call that could not go within maxWaitMs', async () => {
    const rate = { limit: 2, intervalMs: 5000 };
    const shared = new SharedRateBudget(await replica(), limits(rate), {
      namespace: fresh(),
      maxWaitMs: 1000,
    });
    const embedded = new RateLimiter(limits(rate), { maxWaitMs: 1000 });
    const results: ToolError[] = [];
    for (const budget of [shared, embedded]) {
      await budget.acquire('k');
      await budget.acquire('k');
      results.push(
        refusal(
          await budget.acquire('k').then(
            () => undefined,
            (e: unknown) => e,
          ),
        ),
      );
    }
    const [fromShared, fromEmbedded] = results;
    expect(fromShared!.message).toBe(fromEmbedded!.message);
    expect(fromShared!.message).toBe('Client-side rate limit for k (2 per 5 s) is used up.');
    expect(fromShared!.hint).toBe(fromEmbedded!.hint);
    // Refused at once, not after waiting its second: the whole window is still ahead.
    expect(fromShared!.retryAfterSeconds).toBe(5);
  });

  it('a cancelled wait rejects with the signal reason and gives its place back', async () => {
    const rate = { limit: 1, intervalMs: 1000 };
    const budget = new SharedRateBudget(await replica(), limits(rate), {
      namespace: fresh(),
      maxWaitMs: 1500,
    });
    await budget.acquire('k');
    const controller = new AbortController();
    const waiting = budget.acquire('k', controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(new Error('cancelled by the client'));
    await expect(waiting).rejects.toThrow('cancelled by the client');
    // Had the cancelled call kept its place (a slot 1 s out), this one would need 2 s, over its 1.5 s: refused.
    await budget.acquire('k');
  });

  it('a call cancelled before it asks is not sent when it would have to wait', async () => {
    const rate = { limit: 1, intervalMs: 1000 };
    const budget = new SharedRateBudget(await replica(), limits(rate), { namespace: fresh() });
    await budget.acquire('k');
    const reason = new Error('already gone');
    await expect(budget.acquire('k', AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});

describe('SharedRateBudget without Redis', () => {
  it('refuses the call without sending it, naming the setting; a pause does not throw', async () => {
    const redis = openRedis(`redis://127.0.0.1:${await freePort()}`);
    connections.push(redis);
    const budget = new SharedRateBudget({ redis }, limits({ limit: 5, intervalMs: 1000 }), {
      namespace: fresh(),
    });
    const error = (await budget.acquire('k').then(
      () => undefined,
      (e: unknown) => e,
    )) as ToolError;
    expect(error).toBeInstanceOf(ToolError);
    expect(error.kind).toBe('upstream_unavailable');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/SWITCHBOARD_REDIS_URL/);
    expect(error.message).toMatch(/not sent/);
    await expect(budget.pause('k', 1000)).resolves.toBeUndefined();
  });

  it('works again once Redis is back, without a new connection', async () => {
    const own = await startRedis();
    try {
      const redis = openRedis(own.url);
      connections.push(redis);
      expect(await redisConnected(redis, 5000)).toBe(true);
      const budget = new SharedRateBudget({ redis }, limits({ limit: 5, intervalMs: 1000 }), {
        namespace: fresh(),
      });
      await budget.acquire('k');
      await own.restart({ downForMs: 200 });
      expect(await redisConnected(redis, 10_000)).toBe(true);
      // The scripts are gone with the restart (no persistence): loaded again by themselves.
      await budget.acquire('k');
    } finally {
      await own.stop();
    }
  });
});

describe('rateBudget()', () => {
  it('is the embedded limiter without shared state, and the shared budget with it', async () => {
    const rate = limits({ limit: 1, intervalMs: 1000 });
    expect(
      rateBudget(rate, { service: 'store', upstream: 'https://api.example.com' }, undefined),
    ).toBeInstanceOf(RateLimiter);
    const shared = await replica();
    const budget = rateBudget(
      rate,
      { service: 'store', upstream: 'https://user:pw@api.example.com/x' },
      shared,
    );
    expect(budget).toBeInstanceOf(SharedRateBudget);
    await budget.acquire('k');
    // Keys name the service and the upstream host, never credentials or a path from the URL.
    const keys = await shared.redis.keys('switchboard:rate:store:*');
    expect(keys).toEqual(['switchboard:rate:store:api.example.com:{k}:sent']);
  });
});
