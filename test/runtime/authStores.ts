// The two places the vault keeps its rows, for tests that run the same bodies over both: SQLite in a file (the
// embedded default) and a real redis-server (test/support/redisServer.ts), each test under its own key prefix. A
// place opens vaults over one state (two vaults over one Redis place are two replicas) and dumps everything the
// state holds, to look for secrets at rest.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { AuthVault, type VaultOptions } from '../../src/runtime/auth/vault.js';
import { closeRedis, openRedis, redisConnected } from '../../src/runtime/sharedState/redis.js';
import { RedisAuthState, type RedisAuthStateOptions } from '../../src/runtime/sharedState/redisAuthState.js';
import { type RedisServer, startRedis } from '../support/redisServer.js';

export type StoreKind = 'sqlite' | 'redis';
export const STORE_KINDS: StoreKind[] = ['sqlite', 'redis'];

export interface StorePlace {
  kind: StoreKind;
  /** A vault over this place's state (checked against `key`): for Redis, one more replica. */
  open(key: Buffer, options?: VaultOptions & { redis?: RedisAuthStateOptions }): Promise<AuthVault>;
  /** Everything the state holds, keys and values, as text. */
  dump(): Promise<string>;
}

/** Starts a redis-server for the file (stopped after it) and gives fresh places of either kind. */
export function useAuthStores() {
  let server: RedisServer | undefined;
  let connection: Redis | undefined;
  const dirs: string[] = [];
  beforeAll(async () => {
    server = await startRedis();
    connection = openRedis(server.url);
    if (!(await redisConnected(connection, 5000))) throw new Error('the test Redis did not answer');
  });
  afterAll(async () => {
    if (connection) await closeRedis(connection);
    await server?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const redis = (): Redis => {
    if (!connection) throw new Error('Redis is not started yet (use it inside a test)');
    return connection;
  };

  const sqlitePlace = (): StorePlace => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-vault-'));
    dirs.push(dir);
    const path = join(dir, 'auth.db');
    return {
      kind: 'sqlite',
      open: async (key, options) => new AuthVault(path, key, options),
      dump: async () =>
        ['auth.db', 'auth.db-wal']
          .map((f) => join(dir, f))
          .filter((f) => existsSync(f))
          .map((f) => readFileSync(f).toString('latin1'))
          .join(''),
    };
  };

  const redisPlace = (): StorePlace & { prefix: string } => {
    const prefix = `test-${randomBytes(6).toString('hex')}:`;
    return {
      kind: 'redis',
      prefix,
      open: (key, options = {}) => {
        const { redis: stateOptions, ...vaultOptions } = options;
        return AuthVault.open(new RedisAuthState(redis(), { prefix, ...stateOptions }), key, vaultOptions);
      },
      dump: async () => {
        const out: string[] = [];
        const keys = await redis().keys(`${prefix}*`);
        for (const key of keys) {
          const type = await redis().type(key);
          out.push(key);
          if (type === 'string') out.push((await redis().get(key)) ?? '');
          if (type === 'hash') out.push(...Object.entries(await redis().hgetall(key)).flat());
          if (type === 'set') out.push(...(await redis().smembers(key)));
          if (type === 'zset') out.push(...(await redis().zrange(key, '0', '-1')));
        }
        return out.join('\n');
      },
    };
  };

  return {
    redis,
    place: (kind: StoreKind): StorePlace => (kind === 'sqlite' ? sqlitePlace() : redisPlace()),
    redisPlace,
  };
}
