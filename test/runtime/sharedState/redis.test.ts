// The shared-state connection's setting and operating surface, on a real redis-server: SWITCHBOARD_REDIS_URL is
// checked with messages that name the setting and never echo a password; the readiness check PINGs within its
// timeout; closing ends the connection.

import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeRedis,
  openRedis,
  openSharedState,
  redisConnected,
  redisReadinessCheck,
} from '../../../src/runtime/sharedState/redis.js';
import { REDIS_URL_VARIABLE, redisUrlFrom } from '../../../src/runtime/sharedState/redisUrl.js';
import { freePort, type RedisServer, startRedis } from '../../support/redisServer.js';

let server: RedisServer;
const connections: Redis[] = [];

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const redis of connections) await closeRedis(redis);
  await server?.stop();
});

describe('redisUrlFrom', () => {
  it('is undefined (the embedded state) when unset or blank', () => {
    expect(redisUrlFrom({})).toBeUndefined();
    expect(redisUrlFrom({ [REDIS_URL_VARIABLE]: '  ' })).toBeUndefined();
  });

  it('takes redis:// and rediss:// URLs, with a password and a database number', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://cache.internal:6380', 'redis://:pw@host:6379/2']) {
      expect(redisUrlFrom({ [REDIS_URL_VARIABLE]: url })).toBe(url);
    }
  });

  it('refuses a malformed URL, naming the setting and the flag, never echoing the value', () => {
    const cases: [string, RegExp][] = [
      ['not a url s3cret', /is not a URL/],
      ['http://user:s3cret@host:6379', /must start with redis:\/\/ or rediss:\/\/, not http:/],
      ['redis://', /names no host/],
      ['redis://:s3cret@host:6379/cache', /database number/],
    ];
    for (const [value, problem] of cases) {
      let message = '';
      try {
        redisUrlFrom({ [REDIS_URL_VARIABLE]: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(problem);
      expect(message).toContain('SWITCHBOARD_REDIS_URL (--redis-url)');
      expect(message).not.toContain('s3cret');
    }
  });
});

describe('redisReadinessCheck', () => {
  it('passes while Redis answers PING', async () => {
    const redis = openRedis(server.url);
    connections.push(redis);
    expect(await redisConnected(redis, 5000)).toBe(true);
    const check = redisReadinessCheck(redis);
    expect(check.name).toBe('redis');
    await expect(check.check()).resolves.toBeUndefined();
  });

  it('fails, naming the setting and not the password, when Redis cannot be reached', async () => {
    const redis = openRedis(`redis://:s3cret@127.0.0.1:${await freePort()}`);
    connections.push(redis);
    const failure = await redisReadinessCheck(redis, 500)
      .check()
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    expect(failure?.message).toMatch(/Redis \(SWITCHBOARD_REDIS_URL\) (is unreachable|did not answer PING)/);
    expect(failure?.message).not.toContain('s3cret');
  });

  it('fails within its timeout when Redis takes the connection but does not answer', async () => {
    const own = await startRedis();
    try {
      const redis = openRedis(own.url);
      connections.push(redis);
      expect(await redisConnected(redis, 5000)).toBe(true);
      // A second connection keeps the server's only thread busy for 1.5 s (a script spinning on TIME).
      const blocker = openRedis(own.url);
      connections.push(blocker);
      expect(await redisConnected(blocker, 5000)).toBe(true);
      const spin = `local t = redis.call('TIME'); local stop = t[1] * 1000000 + t[2] + 1500000
        while true do local n = redis.call('TIME'); if n[1] * 1000000 + n[2] > stop then break end end
        return 1`;
      blocker.eval(spin, 0).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const failure = await redisReadinessCheck(redis, 300)
        .check()
        .then(
          () => undefined,
          (error: unknown) => error as Error,
        );
      expect(failure?.message).toMatch(/did not answer PING within 300 ms/);
    } finally {
      await own.stop();
    }
  });
});

describe('openSharedState and closeRedis', () => {
  it('opens one connected connection, and closing ends it', async () => {
    const { redis } = await openSharedState(server.url, 5000);
    expect(redis.status).toBe('ready');
    expect(await redis.ping()).toBe('PONG');
    await closeRedis(redis);
    expect(redis.status).toBe('end');
  });

  it('does not stop the start when Redis is not there yet; the connection keeps trying', async () => {
    const { redis } = await openSharedState(`redis://127.0.0.1:${await freePort()}`, 200);
    connections.push(redis);
    expect(redis.status).not.toBe('ready');
    expect(redis.status).not.toBe('end');
  });
});
