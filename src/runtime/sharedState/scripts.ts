// Lua scripts as commands on a Redis connection: ioredis `defineCommand` sends them by EVALSHA, and by EVAL again
// after a Redis restart has emptied its script cache. Each is defined once per connection.

import type { Redis } from 'ioredis';

export interface Script {
  /** How many of the command's leading arguments are keys. */
  keys: number;
  lua: string;
}

/** `redis` with `scripts` defined on it, typed by `T`: ioredis adds defined commands without types. */
export function scriptCommands<T>(redis: Redis, scripts: Readonly<Record<keyof T & string, Script>>): T {
  const defined = redis as unknown as Record<string, unknown>;
  for (const [name, { keys, lua }] of Object.entries<Script>(scripts)) {
    if (typeof defined[name] !== 'function') redis.defineCommand(name, { numberOfKeys: keys, lua });
  }
  return redis as unknown as T;
}
