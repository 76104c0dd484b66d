// The setting that switches shared state on: SWITCHBOARD_REDIS_URL (`serve --redis-url` sets it). Read and checked
// here, apart from the connection (redis.ts), so that a process without Redis never loads the Redis client.

/** The environment variable naming the Redis server; `--redis-url` sets it for `serve`. */
export const REDIS_URL_VARIABLE = 'SWITCHBOARD_REDIS_URL';

const SETTING = `${REDIS_URL_VARIABLE} (--redis-url)`;

/**
 * The configured Redis URL, or undefined for the embedded state. Throws, naming the setting and never echoing the
 * value (it may carry a password), on a malformed URL.
 */
export function redisUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
  const value = env[REDIS_URL_VARIABLE]?.trim();
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${SETTING} is not a URL; use redis://host:6379 (or rediss://host:6379 for TLS).`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new Error(
      `${SETTING} must start with redis:// or rediss://, not ${url.protocol}//; for example redis://host:6379.`,
    );
  }
  if (!url.hostname) {
    throw new Error(`${SETTING} names no host; use redis://host:6379 (or rediss://host:6379 for TLS).`);
  }
  // ioredis reads a path as the database number; anything else would be silently ignored.
  const database = url.pathname.replace(/^\//, '');
  if (database !== '' && !/^\d+$/.test(database)) {
    throw new Error(
      `${SETTING} has the path /${database}; the only path Redis URLs take is a database number, e.g. redis://host:6379/0.`,
    );
  }
  return value;
}
