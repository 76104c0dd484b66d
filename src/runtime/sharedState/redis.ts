// The one Redis connection a Switchboard process opens when replicas share state (`--redis-url`,
// SWITCHBOARD_REDIS_URL). Everything replicas must agree on (rate budgets, OAuth state, locks, caches) goes through
// it; without it each process keeps today's embedded state (in-process limits, SQLite in the data folder).

import { Redis } from 'ioredis';
import { log } from '../log.js';
import type { ReadinessCheck } from '../readiness.js';
import { REDIS_URL_VARIABLE } from './redisUrl.js';

// The setting is read in a module of its own, so a process without Redis never loads ioredis; re-exported here.
export { REDIS_URL_VARIABLE, redisUrlFrom } from './redisUrl.js';

/**
 * What replicas share, handed by `serve` to every part that keeps state (the services' rate budgets and caches,
 * the OAuth state): absent, each part keeps its embedded state.
 */
export interface SharedState {
  readonly redis: Redis;
}

/**
 * A connection that fails fast while Redis is down (no offline queue, one try per command) and reconnects by itself
 * with a capped backoff: a call that needs shared state then fails honestly instead of hanging, /readyz says not
 * ready, and service resumes when Redis is back, without a restart.
 */
export function openRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    // A Redis that accepts the connection but stops answering must not hang a tool call: the command fails.
    commandTimeout: 2000,
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2000),
    // The URL may carry a password: ioredis never logs it, and neither do we (errors name the host only).
    lazyConnect: false,
  });
  // Without a listener an unreachable Redis would be an unhandled 'error' event; readiness reports the state.
  redis.on('error', () => undefined);
  return redis;
}

/**
 * /readyz's check of the connection: a PING answered within `timeoutMs`. The reason names the setting and says
 * what failed, never the URL (it may carry a password).
 */
export function redisReadinessCheck(redis: Redis, timeoutMs = 1000): ReadinessCheck {
  return {
    name: 'redis',
    async check() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error(`Redis (${REDIS_URL_VARIABLE}) did not answer PING within ${timeoutMs} ms.`)),
          timeoutMs,
        );
      });
      try {
        await Promise.race([
          redis.ping().catch((error: unknown) => {
            const reason = error instanceof Error ? error.message : String(error);
            throw new Error(`Redis (${REDIS_URL_VARIABLE}) is unreachable: ${reason}`);
          }),
          timeout,
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Waits up to `timeoutMs` for the first connection; false when Redis was not reached by then (it keeps trying). */
export function redisConnected(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.once('ready', onReady);
  });
}

/**
 * Closes the connection: QUIT when connected (replies in flight are read first), else drops it at once. Resolves
 * once the connection has ended, so nothing of it outlives a shutdown.
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status === 'reconnecting') {
    // No socket between attempts: dropping it only cancels the next attempt.
    redis.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<void>((resolve) => {
    redis.once('end', () => resolve());
    // Never wait long for the event: a close must not hold up a shutdown.
    timer = setTimeout(resolve, 1000);
  });
  if (redis.status === 'ready') {
    try {
      await redis.quit();
    } catch {
      // Redis went away meanwhile: nothing left to flush.
    }
  }
  // After QUIT the server closes the socket; otherwise (or if it does not) the connection is dropped here.
  // (Read afresh: QUIT changes the status, which the checks above narrowed.)
  if ((redis.status as string) !== 'end') redis.disconnect();
  await ended;
  clearTimeout(timer);
}

/**
 * The shared state `serve` hands to the services and the OAuth state: one connection to `url`, given up to
 * `connectWaitMs` to connect so the first calls do not fail while it does. A Redis not reached by then does not
 * stop the start (replicas often start before their Redis): calls that need it fail and /readyz says not ready
 * until it answers.
 */
export async function openSharedState(url: string, connectWaitMs = 5000): Promise<SharedState> {
  const redis = openRedis(url);
  const host = new URL(url).host;
  if (await redisConnected(redis, connectWaitMs)) {
    log('info', 'shared state on Redis', { redis: host });
  } else {
    log('warn', `Redis (${REDIS_URL_VARIABLE}) not reached within ${connectWaitMs / 1000} s; still trying`, {
      redis: host,
      hint: 'Calls that need the shared rate budgets fail until it answers; check that Redis runs and the URL is right.',
    });
  }
  return { redis };
}
