// A lock that holds across replicas sharing one Redis: one holder at a time per name, for work that must happen once
// (a token renewal per grant). Taken with `SET name token NX PX ttl`, so a holder that dies lets go after the TTL;
// let go with a compare-and-delete script, so a holder whose lock lapsed never deletes the next holder's. While held
// the lock is extended (compare-and-extend) well before it lapses, so a slow holder keeps it until it is done.
// Standalone Redis (or a primary with Sentinel): no Redlock across independent masters is attempted.

import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Release } from '../auth/authState.js';
import { scriptCommands } from './scripts.js';

/** Deletes the lock only while it is still ours. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** Pushes the lock's expiry out only while it is still ours. */
const EXTEND = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

interface LockCommands {
  switchboardLockRelease(key: string, token: string): Promise<number>;
  switchboardLockExtend(key: string, token: string, ttlMs: number): Promise<number>;
}

function commandsOf(redis: Redis): LockCommands {
  return scriptCommands<LockCommands>(redis, {
    switchboardLockRelease: { keys: 1, lua: RELEASE },
    switchboardLockExtend: { keys: 1, lua: EXTEND },
  });
}

export interface RedisLockOptions {
  /** How long the lock outlives a holder that stopped extending it (died). Default 15 s. */
  ttlMs?: number;
  /** How long to wait for another holder before giving up. Default 20 s (longer than the TTL: a dead holder's
   * lock lapses while we wait). */
  waitMs?: number;
  /** Longest pause between tries while waiting. Default 50 ms. */
  pollMs?: number;
}

/** Another holder kept the lock for longer than we wait. */
export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

/** Takes the lock `key`, waiting for another holder; resolves to its release (which never throws). */
export async function acquireRedisLock(
  redis: Redis,
  key: string,
  options: RedisLockOptions = {},
): Promise<Release> {
  const ttlMs = options.ttlMs ?? 15_000;
  const waitMs = options.waitMs ?? 20_000;
  const pollMs = options.pollMs ?? 50;
  const commands = commandsOf(redis);
  const token = randomBytes(16).toString('base64url');
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) === 'OK') break;
    if (Date.now() >= deadline) {
      throw new LockTimeoutError(
        `The lock ${key} was still held elsewhere after ${Math.round(waitMs / 1000)} s.`,
      );
    }
    // Short at first (a renewal takes one upstream round trip), jittered so that waiters do not move in step.
    const pause = Math.min(pollMs, 5 * 2 ** attempt) * (0.5 + Math.random() / 2);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  const keepAlive = setInterval(() => {
    commands.switchboardLockExtend(key, token, ttlMs).catch(() => undefined);
  }, ttlMs / 3);
  keepAlive.unref();
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    clearInterval(keepAlive);
    // Not deleting it (Redis away) only means the next holder waits for the TTL.
    await commands.switchboardLockRelease(key, token).catch(() => undefined);
  };
}
