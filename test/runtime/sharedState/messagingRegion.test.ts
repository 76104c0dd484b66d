// The messaging region cache: with shared state (Redis, a real redis-server) the region one replica found with
// `auto` serves every replica, so only one asks the region endpoint; without it each process asks once, as
// before; a cache that cannot be reached only costs a lookup. Against the Track API emulator with an EU account,
// whose region endpoint is the only way to find the EU host.

import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeRedis,
  openRedis,
  redisConnected,
  type SharedState,
} from '../../../src/runtime/sharedState/redis.js';
import { MessagingClient } from '../../../src/services/messaging/client.js';
import { type MessagingEmulatorHandle, startMessaging } from '../../e2e/messagingHarness.js';
import { freePort, type RedisServer, startRedis } from '../../support/redisServer.js';

let server: RedisServer;
let upstream: MessagingEmulatorHandle;
const connections: Redis[] = [];

beforeAll(async () => {
  server = await startRedis();
  upstream = await startMessaging({ region: 'eu' });
});
afterAll(async () => {
  for (const redis of connections) await closeRedis(redis);
  await upstream?.close();
  await server?.stop();
});

async function replica(url = server.url, wait = true): Promise<SharedState> {
  const redis = openRedis(url);
  connections.push(redis);
  if (wait) expect(await redisConnected(redis, 5000)).toBe(true);
  return { redis };
}

/** A client as one replica's messaging runtime builds it: `auto` region against the emulator's US root. */
function client(sharedState: SharedState | undefined, siteId = upstream.siteId): MessagingClient {
  return new MessagingClient({
    region: 'auto',
    baseUrl: upstream.url,
    siteId: () => siteId,
    apiKey: () => upstream.apiKey,
    clientRateLimits: false,
    ...(sharedState ? { sharedState } : {}),
  });
}

const REGION_PATH = '/api/v1/accounts/region';
const lookups = async () => (await upstream.requests()).filter((r) => r.path === REGION_PATH).length;

describe('messaging region cache', () => {
  it("with shared state, one replica's lookup serves the others", async () => {
    await upstream.clearLog();
    const one = client(await replica());
    const two = client(await replica());
    expect((await one.client()).baseUrl).toBe(upstream.euUrl);
    expect(await lookups()).toBe(1);
    expect((await two.client()).baseUrl).toBe(upstream.euUrl);
    expect(await lookups()).toBe(0);
  });

  it('without shared state each process looks the region up once, as before', async () => {
    await upstream.clearLog();
    const one = client(undefined);
    const two = client(undefined);
    expect((await one.client()).baseUrl).toBe(upstream.euUrl);
    expect((await one.client()).baseUrl).toBe(upstream.euUrl);
    expect((await two.client()).baseUrl).toBe(upstream.euUrl);
    expect(await lookups()).toBe(2);
  });

  it('a region answer a tool obtained (GetTrackApiRegion) is shared too', async () => {
    const shared = await replica();
    const entries = async () => (await shared.redis.keys('switchboard:cache:messaging-region:*')).length;
    const before = await entries();
    // Another account (site id), so the entry from the first test does not answer.
    const one = client(shared, `${upstream.siteId}-other`);
    one.rememberRegion({ region: 'eu', url: upstream.euUrl });
    const two = client(await replica(), `${upstream.siteId}-other`);
    // rememberRegion writes in the background: wait for the entry.
    for (let i = 0; i < 100 && (await entries()) === before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await upstream.clearLog();
    // The second replica would be refused by the emulator for this made-up site id if it asked; it need not.
    expect((await two.client()).baseUrl).toBe(upstream.euUrl);
    expect(await lookups()).toBe(0);
  });

  it('keys name a hash of the account, never the site id', async () => {
    const shared = await replica();
    const keys = await shared.redis.keys('switchboard:cache:messaging-region:*');
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).not.toContain(upstream.siteId);
  });

  it('a cache that cannot be reached only costs a lookup', async () => {
    await upstream.clearLog();
    const down = client(await replica(`redis://127.0.0.1:${await freePort()}`, false));
    expect((await down.client()).baseUrl).toBe(upstream.euUrl);
    expect(await lookups()).toBe(1);
  });
});
