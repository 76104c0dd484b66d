// Small caches of facts learned from an upstream (the messaging account's region), kept where the configuration
// says: in this process (the embedded default), or in Redis so that one replica's lookup serves every replica.
// A cache is an optimisation: when Redis cannot be reached it reads as empty and writes are dropped, and the
// caller looks the fact up again, as a process without a cache would.

import { log } from '../log.js';
import type { SharedState } from './redis.js';

export interface FactCache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

/** The embedded cache: entries live in this process until they expire. */
export class MemoryFactCache implements FactCache {
  private readonly entries = new Map<string, { value: string; expires: number }>();

  async get(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(key, { value, expires: Date.now() + ttlMs });
  }
}

/** The cache every replica shares: one Redis string per entry, expiring on Redis's clock. */
export class RedisFactCache implements FactCache {
  constructor(
    private readonly shared: SharedState,
    private readonly namespace: string,
  ) {}

  async get(key: string): Promise<string | undefined> {
    try {
      return (await this.shared.redis.get(this.keyOf(key))) ?? undefined;
    } catch (error) {
      this.warn('read', key, error);
      return undefined;
    }
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    try {
      await this.shared.redis.set(this.keyOf(key), value, 'PX', Math.max(1, Math.round(ttlMs)));
    } catch (error) {
      this.warn('write', key, error);
    }
  }

  private keyOf(key: string): string {
    return `switchboard:cache:${this.namespace}:${key}`;
  }

  private warn(what: string, key: string, error: unknown): void {
    log('warn', `could not ${what} a shared cache entry in Redis; looking it up instead`, {
      cache: this.namespace,
      key,
      reason: error instanceof Error ? error.message : String(error),
    });
  }
}

/** The cache for `namespace`: in Redis when `shared` is given (SWITCHBOARD_REDIS_URL set), else in this process. */
export function factCache(namespace: string, shared: SharedState | undefined): FactCache {
  return shared ? new RedisFactCache(shared, namespace) : new MemoryFactCache();
}
