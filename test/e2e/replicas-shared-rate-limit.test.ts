// Two replicas on one store base, with the upstream's limit on (the emulator's 5 requests/s per base and its
// 30-second penalty): two `serve store --transport http --redis-url ...` processes sharing a real redis-server
// call one base at once and the upstream answers no 429 at all. The control: the same load from two runtimes with
// their own in-process limiters (as before shared state) trips the penalty, so the first assertion can fail.

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../../src/cli/serve.js';
import { closeRedis, openRedis, redisConnected } from '../../src/runtime/sharedState/redis.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { serveHttp } from '../../src/runtime/transports.js';
import { STORE_SERVICE } from '../../src/services/store/service.js';
import { type RedisServer, startRedis } from '../support/redisServer.js';
import { type CallResult, type Connected, connectClient, spawnCli } from './harness.js';
import { type StoreEmulatorHandle, startStore } from './storeHarness.js';

const CALLS_PER_REPLICA = 8;

let redis: RedisServer;
let upstream: StoreEmulatorHandle;
let bases: { id: string; name: string }[];

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startStore();
  // The upstream's documented limit and penalty, on (the harness starts with it off).
  await upstream.send('PUT', '/_emulator/base-rate-limit', {
    enabled: true,
    perSecond: 5,
    penaltyMs: 30_000,
  });
  bases = await upstream.state<{ id: string; name: string }>('bases');
});
afterAll(async () => {
  await upstream?.close();
  await redis?.stop();
});

const serverEnv = () => ({
  STORE_BASE_URL: upstream.url,
  STORE_ACCESS_TOKEN: upstream.token,
  // Never a saved store login of the machine's user.
  SWITCHBOARD_CREDENTIALS_FILE: join(tmpdir(), 'switchboard-e2e-no-saved-login.json'),
});

/** Every replica's calls to one base, all at once. */
function hammer(replicas: Connected[], base: string): Promise<CallResult[]> {
  return Promise.all(
    replicas.flatMap((mcp) =>
      Array.from({ length: CALLS_PER_REPLICA }, () =>
        mcp.call('StoreApi.GetStoreBaseSchema', { store_base_id: base }),
      ),
    ),
  );
}

const statusesOn = async (base: string) =>
  (await upstream.requests()).filter((r) => r.path.includes(base)).map((r) => r.status);

describe('replicas sharing rate budgets through Redis', () => {
  it('two serve processes with --redis-url calling one base concurrently: 0 upstream 429s', async () => {
    const base = bases.find((b) => b.name === 'Sales CRM')!.id;
    const processes = [0, 1].map(() =>
      spawnCli(
        ['serve', 'store', '--transport', 'http', '--port', '0', '--redis-url', redis.url],
        serverEnv(),
        /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
      ),
    );
    const replicas: Connected[] = [];
    try {
      for (const proc of processes) {
        const [, url] = await proc.ready;
        replicas.push(await connectClient(new StreamableHTTPClientTransport(new URL(url!))));
      }
      // Warm replicas, as a deployment's are: a process's first upstream request also loads its HTTP client and
      // opens a connection, and under tsx on a busy machine it reached the upstream up to ~280 ms after its slot,
      // more than the 50 ms of slack in the 250 ms spacing (src/services/store/client.ts). The limiter times
      // sends, not arrivals; a cold first request landing late is a hazard of one process as much as of two.
      for (const mcp of replicas) expect((await mcp.call('StoreApi.ListStoreBases')).isError).toBe(false);
      await upstream.clearLog();
      const results = await hammer(replicas, base);
      expect(results.filter((r) => r.isError)).toEqual([]);
      const statuses = await statusesOn(base);
      expect(statuses).toHaveLength(2 * CALLS_PER_REPLICA);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      // Each replica said at start that its state is shared.
      for (const proc of processes) expect(proc.stderr()).toMatch(/shared state on Redis/);
    } finally {
      for (const mcp of replicas) await mcp.close();
      for (const proc of processes) await proc.stop();
    }
  }, 90_000);

  it('the control: the same load from two replicas with in-process limiters meets the 429 penalty', async () => {
    const base = bases.find((b) => b.name === 'Product Roadmap')!.id;
    const replicas: Connected[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        // No shared state: each runtime has its own limiter, as each process had before.
        const runtime = STORE_SERVICE.runtimeFromEnv(serverEnv());
        const server = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 });
        replicas.push(
          await connectClient(new StreamableHTTPClientTransport(new URL(server.url)), () => server.close()),
        );
      }
      await upstream.clearLog();
      await hammer(replicas, base);
      expect((await statusesOn(base)).filter((s) => s === 429).length).toBeGreaterThan(0);
    } finally {
      for (const mcp of replicas) await mcp.close();
    }
  }, 60_000);

  it('serve opens one connection to Redis for all its services, and closes it when it stops', async () => {
    const observer = openRedis(redis.url);
    const clients = async () =>
      String(await observer.call('CLIENT', 'LIST'))
        .trim()
        .split('\n').length;
    try {
      expect(await redisConnected(observer, 5000)).toBe(true);
      const before = await clients();
      const handle = await startServe(
        ['all'],
        {
          transport: 'http',
          host: '127.0.0.1',
          port: 0,
          sandbox: true,
          dataDir: ':memory:',
          reset: false,
          readOnly: false,
          toolNames: 'dotted',
        },
        { ...serverEnv(), SWITCHBOARD_REDIS_URL: redis.url },
      );
      expect(await clients()).toBe(before + 1);
      await handle.close();
      expect(await clients()).toBe(before);
    } finally {
      await closeRedis(observer);
    }
  });
});
