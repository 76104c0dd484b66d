// The readiness runner behind /readyz: every check at once, each bounded in time, and the reasons it reports safe
// to show (no credentials, no registered secret). The Redis check runs against a real redis-server.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReadinessCheck, runReadinessChecks, safeReason } from '../../src/runtime/readiness.js';
import { registerSecret } from '../../src/runtime/secrets.js';
import { closeRedis, openRedis, redisReadinessCheck } from '../../src/runtime/sharedState/redis.js';
import { type RedisServer, startRedis } from '../support/redisServer.js';

const passing = (name: string): ReadinessCheck => ({ name, check: async () => undefined });
const failing = (name: string, message: string): ReadinessCheck => ({
  name,
  check: async () => {
    throw new Error(message);
  },
});

describe('runReadinessChecks', () => {
  it('is ready with no checks, and when every check passes', async () => {
    expect(await runReadinessChecks([])).toEqual({ ready: true, checks: [] });
    expect(await runReadinessChecks([passing('a'), passing('b')])).toEqual({
      ready: true,
      checks: [
        { name: 'a', ok: true },
        { name: 'b', ok: true },
      ],
    });
  });

  it('is not ready when one check fails, naming it and why, and still runs the others', async () => {
    const report = await runReadinessChecks([passing('a'), failing('b', 'b is down'), passing('c')]);
    expect(report.ready).toBe(false);
    expect(report.checks).toEqual([
      { name: 'a', ok: true },
      { name: 'b', ok: false, reason: 'b is down' },
      { name: 'c', ok: true },
    ]);
  });

  it('fails a check that hangs once its time is up', async () => {
    const hanging: ReadinessCheck = { name: 'hangs', check: () => new Promise<void>(() => undefined) };
    const report = await runReadinessChecks([hanging, passing('fine')], { timeoutMs: 50 });
    expect(report).toEqual({
      ready: false,
      checks: [
        { name: 'hangs', ok: false, reason: 'no answer within 50 ms' },
        { name: 'fine', ok: true },
      ],
    });
  });

  it('runs the checks at once: each of two checks that wait for the other to start passes', async () => {
    // Run one after another, the first would wait for the second until its time is up.
    let release: () => void = () => undefined;
    const bothStarted = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    const waitsForTheOther = (name: string): ReadinessCheck => ({
      name,
      check: async () => {
        if (++started === 2) release();
        await bothStarted;
      },
    });
    const report = await runReadinessChecks([waitsForTheOther('x'), waitsForTheOther('y')], {
      timeoutMs: 5_000,
    });
    expect(report.ready).toBe(true);
  });

  it('counts a check that throws synchronously as a failure, not a crash', async () => {
    const throwing: ReadinessCheck = {
      name: 'sync',
      check: () => {
        throw new Error('thrown at once');
      },
    };
    expect(await runReadinessChecks([throwing])).toEqual({
      ready: false,
      checks: [{ name: 'sync', ok: false, reason: 'thrown at once' }],
    });
  });
});

describe('safeReason', () => {
  it('drops the userinfo of any URL in the reason (a Redis password), whatever the scheme', () => {
    expect(safeReason(new Error('connect to redis://:hunter2-password@db.internal:6379 failed'))).toBe(
      'connect to redis://db.internal:6379 failed',
    );
    expect(safeReason(new Error('rediss://admin:s3cr3t@cache:6380/0 refused'))).toBe(
      'rediss://cache:6380/0 refused',
    );
  });

  it('masks registered secrets, puts the reason on one line and cuts a long one', () => {
    registerSecret('registered-secret-value-1234');
    expect(safeReason(new Error('token registered-secret-value-1234 refused'))).toBe(
      'token [redacted] refused',
    );
    expect(safeReason(new Error('line one\n    at stack frame'))).toBe('line one at stack frame');
    const long = safeReason(new Error('x'.repeat(1000)));
    expect(long.length).toBe(200);
    expect(long.endsWith('…')).toBe(true);
    expect(safeReason('')).toBe('failed without a reason');
  });
});

describe('the Redis check, against a real redis-server', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('passes while Redis answers, fails without the password while it is down, passes again once it is back', async () => {
    // A password in the URL (this server has none, which Redis and ioredis accept): it must never reach a reason.
    const client = openRedis(`redis://:pw-never-shown-42@127.0.0.1:${redis.port}`);
    try {
      const checks = [redisReadinessCheck(client)];
      await expect.poll(async () => (await runReadinessChecks(checks)).ready, { timeout: 10_000 }).toBe(true);

      await redis.stop();
      const down = await runReadinessChecks(checks);
      expect(down.ready).toBe(false);
      const outcome = down.checks[0]!;
      expect(outcome).toMatchObject({ name: 'redis', ok: false });
      const reason = outcome.ok ? '' : outcome.reason;
      expect(reason).toMatch(/Redis/);
      expect(reason).not.toContain('pw-never-shown-42');

      await redis.restart();
      // ioredis reconnects by itself (capped backoff): ready again without a new client.
      await expect
        .poll(async () => (await runReadinessChecks(checks)).ready, { timeout: 15_000, interval: 250 })
        .toBe(true);
    } finally {
      await closeRedis(client);
    }
  });
});
