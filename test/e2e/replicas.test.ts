// The proof that Switchboard runs as stateless replicas, with real parts (issue 14): redis-server, the emulators with
// the store's 5 requests/s per base on, three `serve all --transport http --redis-url` replicas and HAProxy in front,
// configured by deploy/haproxy.cfg itself (test/e2e/replicasHarness.ts starts and stops them all, on loopback).
//
// First as deploy/compose.yaml runs them (a bearer token, --trust-proxy) with one store token: eight agents writing
// 10-record batches into one base meet no upstream 429 and lose or duplicate nothing; a replica killed with SIGKILL
// under load fails only the calls it held, with an error that says the connection dropped, and HAProxy routes around
// it; a Redis restart under load makes every replica say not-ready and fail calls at once with a clear error, and
// they recover without a restart. Then, restarted for per-user OAuth: a person signs in through the load balancer
// and their calls work on every replica, and a store token renewal happens once across all of them. Correctness
// only: the figures are bench/replicas.ts's.

import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SANDBOX_OAUTH_CLIENT_ID,
  SANDBOX_OAUTH_CLIENT_SECRET,
} from '../../src/services/store/emulator/oauth.js';
import { freePort } from '../support/redisServer.js';
import { PersonProvider } from './oauthSignIn.js';
import {
  type BatchCall,
  baseNamed,
  buildCli,
  CREATE_TOOL,
  connectAgent,
  connectPerson,
  createWriteTable,
  describeError,
  type Replica,
  startTopology,
  type Topology,
  tally,
  timelineOfFirst429,
  waitFor,
  writeBatches,
} from './replicasHarness.js';

const AGENTS = 8;
/** How long the agents write in the first test: long enough for hundreds of upstream calls across three replicas. */
const WRITE_SECONDS = 12;
const IN_FLIGHT = 'switchboard_tool_calls_in_flight';
const TOOL_CALLS = 'switchboard_tool_calls_total';

let built: ReturnType<typeof buildCli> | undefined;
let topology: Topology;
let baseId: string;
let tableId: string;
/** Every batch call of every test, for the 429 count and the final tally. */
const everyCall: BatchCall[] = [];

beforeAll(async () => {
  built = buildCli();
  topology = await startTopology({ main: built.main });
  baseId = await baseNamed(topology.emulators, 'Product Roadmap');
  // A table of its own, so every record in it was written by this file's agents.
  tableId = await createWriteTable(topology.emulators, baseId, 'Replica writes');
  await topology.emulators.requests(); // the log from here on
}, 120_000);

afterAll(async () => {
  await topology?.stop();
  built?.remove();
}, 60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tool calls of `tool` each replica has counted so far (0 for one that is not running). */
async function callsPerReplica(replicas: readonly Replica[], tool: string, outcome?: string) {
  return Promise.all(
    replicas.map(async (replica) =>
      replica.pid() === undefined
        ? 0
        : (await replica.metrics()).sum(TOOL_CALLS, { tool, ...(outcome ? { outcome } : {}) }),
    ),
  );
}

/**
 * Upstream requests since the last look: the 429s, and the record-creating POSTs to the write table. With a 429,
 * `timeline` shows when the requests before the first one reached the emulator (to tell a burst from a miscount).
 */
async function upstreamSinceLastLook() {
  const requests = await topology.emulators.requests();
  return {
    tooMany: requests.filter((r) => r.status === 429).length,
    timeline: timelineOfFirst429(requests),
    creates: requests.filter((r) => r.method === 'POST' && r.path === `/v0/${baseId}/${tableId}`).length,
  };
}

async function agents(count: number, url = topology.lb.mcpUrl): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) => connectAgent(url, { name: `agent-${i}`, token: topology.token })),
  );
}

const describeCall = (c: BatchCall) =>
  `${c.names[0]}: ${c.toolError ? `${c.toolError.kind} ${c.toolError.message}` : c.transportError}`;

describe('three replicas as compose runs them (bearer token, one store token), behind deploy/haproxy.cfg', () => {
  it(`${AGENTS} agents writing 10-record batches into one base: no upstream 429, every acknowledged record stored once, calls on all three replicas`, async () => {
    const clients = await agents(AGENTS);
    const before = await callsPerReplica(topology.replicas, CREATE_TOOL, 'ok');
    const until = performance.now() + WRITE_SECONDS * 1000;
    const calls = await writeBatches({
      clients,
      baseId,
      tableId,
      tag: 'steady',
      keepGoing: () => performance.now() < until,
    });
    everyCall.push(...calls);
    await Promise.all(clients.map((client) => client.close()));

    const upstream = await upstreamSinceLastLook();
    expect(upstream.tooMany, upstream.timeline).toBe(0);
    expect(calls.filter((c) => !c.ok).map(describeCall)).toEqual([]);
    expect(calls.length).toBeGreaterThanOrEqual(AGENTS);
    // One upstream write per acknowledged call: nothing was sent twice.
    expect(upstream.creates).toBe(calls.length);
    const result = await tally(topology.emulators, baseId, tableId, calls);
    expect(result.acknowledgedNotOnce).toEqual([]);
    expect(result.strangers).toEqual([]);
    const after = await callsPerReplica(topology.replicas, CREATE_TOOL, 'ok');
    const served = after.map((n, i) => n - before[i]!);
    expect(
      served.every((n) => n > 0),
      `calls per replica: ${served.join(', ')}`,
    ).toBe(true);
    expect(served.reduce((a, b) => a + b, 0)).toBe(calls.length);
  }, 60_000);

  it('kill -9 of a replica under load: HAProxy routes around it; only the calls it held fail, saying the connection dropped; nothing lost or duplicated', async () => {
    const victim = topology.replicas[1]!;
    const survivors = topology.replicas.filter((r) => r !== victim);
    const clients = await agents(AGENTS);
    let stopAt = Number.POSITIVE_INFINITY;
    const load = writeBatches({
      clients,
      baseId,
      tableId,
      tag: 'kill',
      keepGoing: () => performance.now() < stopAt,
    });
    try {
      // Killed while it holds calls (waiting for the shared budget, or out at the store): they are the ones at risk.
      await waitFor(
        'calls in flight on the victim',
        async () => (await victim.metrics()).sum(IN_FLIGHT) >= 2,
        {
          timeoutMs: 15_000,
          everyMs: 50,
        },
      );
      await victim.kill();
    } finally {
      // Whatever happened above, the agents stop.
      stopAt = performance.now() + 20_000;
    }
    const killedAt = performance.now();
    const survivorsBefore = await callsPerReplica(survivors, CREATE_TOOL, 'ok');
    await waitFor(
      'HAProxy marks the killed replica down',
      async () => (await topology.lb.servers()).find((s) => s.port === victim.port)?.up === false,
      { timeoutMs: 20_000 },
    );
    // Some more load after HAProxy stopped sending to it.
    stopAt = performance.now() + 2_500;
    const calls = await load;
    everyCall.push(...calls);
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));

    const upstream = await upstreamSinceLastLook();
    expect(upstream.tooMany, upstream.timeline).toBe(0);
    const failed = calls.filter((c) => !c.ok);
    // It held calls, so some failed; each had started before the kill, and says its connection dropped (the agent
    // cannot know whether the records were created: the tally below allows once or not at all, never twice).
    const failures = `${failed.length} failed calls, ms from the kill (start..end):\n${failed
      .map(
        (c) =>
          `${(c.startedAt - killedAt).toFixed(0)}..${(c.endedAt - killedAt).toFixed(0)} ${describeCall(c)}`,
      )
      .join('\n')}`;
    expect(failed.length, failures).toBeGreaterThan(0);
    expect(failed.length, failures).toBeLessThanOrEqual(AGENTS);
    for (const call of failed) {
      expect(call.startedAt, describeCall(call)).toBeLessThan(killedAt);
      expect(call.toolError, describeCall(call)).toBeUndefined();
      expect(call.transportError).toMatch(
        /other side closed|socket hang up|ECONNRESET|terminated|502|Bad Gateway/i,
      );
    }
    // Every call that started after the kill worked: the load balancer sent it to a live replica.
    const later = calls.filter((c) => c.startedAt > killedAt);
    expect(later.length).toBeGreaterThan(0);
    expect(later.filter((c) => !c.ok).map(describeCall)).toEqual([]);
    const survivorsAfter = await callsPerReplica(survivors, CREATE_TOOL, 'ok');
    expect(survivorsAfter.every((n, i) => n > survivorsBefore[i]!)).toBe(true);

    // A failed call reached the store at most once; an acknowledged one exactly once.
    expect(upstream.creates).toBeGreaterThanOrEqual(calls.length - failed.length);
    expect(upstream.creates).toBeLessThanOrEqual(calls.length);
    const result = await tally(topology.emulators, baseId, tableId, everyCall);
    expect(result.acknowledgedNotOnce).toEqual([]);
    expect(result.unacknowledgedDuplicated).toEqual([]);
    expect(result.strangers).toEqual([]);
  }, 90_000);

  it('a Redis restart under load: every replica says not ready and fails calls at once with a clear error, then recovers without a restart', async () => {
    const live = topology.replicas.filter((r) => r.pid() !== undefined);
    expect(live.length).toBeGreaterThanOrEqual(2);
    const pids = live.map((r) => r.pid());
    // One client straight at each replica too, to see each replica's own answer during the outage.
    const direct = await Promise.all(
      live.map((r) => connectAgent(`${r.origin}/mcp`, { name: r.name, token: topology.token })),
    );
    const clients = await agents(AGENTS);
    let stopAt = Number.POSITIVE_INFINITY;
    const load = writeBatches({
      clients,
      baseId,
      tableId,
      tag: 'redis',
      keepGoing: () => performance.now() < stopAt,
    });
    let recoveredAt = Number.POSITIVE_INFINITY;
    const duringOutage: { replica: string; ms: number; result?: Record<string, unknown>; error?: string }[] =
      [];
    const notReady: unknown[] = [];
    try {
      await sleep(1_500);
      const restart = topology.redis.restart({ downForMs: 1_500 });
      // Redis is down for 1.5 s (and a little longer, until each replica reconnects).
      for (const replica of live) {
        notReady.push(
          await waitFor(
            `${replica.name} /readyz 503`,
            async () => {
              const probe = await replica.readyz();
              return probe.status === 503 ? probe.body : undefined;
            },
            { timeoutMs: 5_000, everyMs: 25 },
          ),
        );
      }
      await Promise.all(
        direct.map(async (client, i) => {
          const started = performance.now();
          try {
            const result = await client.callTool({
              name: CREATE_TOOL,
              arguments: {
                mode: 'execute',
                base_id: baseId,
                table_id_or_name: tableId,
                request_body: JSON.stringify({ records: [{ fields: { Name: `redis down ${i}` } }] }),
              },
            });
            duringOutage.push({
              replica: live[i]!.name,
              ms: performance.now() - started,
              result: result as Record<string, unknown>,
            });
          } catch (error) {
            duringOutage.push({
              replica: live[i]!.name,
              ms: performance.now() - started,
              error: describeError(error),
            });
          }
        }),
      );
      await restart;
      for (const [i, replica] of live.entries()) {
        await waitFor(`${replica.name} ready again`, async () => (await replica.readyz()).status === 200, {
          timeoutMs: 15_000,
        });
        expect(replica.pid()).toBe(pids[i]);
      }
      await waitFor(
        'HAProxy sees the replicas up again',
        async () => {
          const servers = await topology.lb.servers();
          return live.every((r) => servers.find((s) => s.port === r.port)?.up === true);
        },
        { timeoutMs: 20_000 },
      );
      recoveredAt = performance.now();
      await sleep(2_000);
    } finally {
      stopAt = 0;
    }
    const calls = await load;
    everyCall.push(...calls);
    await Promise.all([...clients, ...direct].map((client) => client.close().catch(() => undefined)));

    const upstream = await upstreamSinceLastLook();
    expect(upstream.tooMany, upstream.timeline).toBe(0);
    // /readyz named what is missing.
    for (const body of notReady) {
      expect(body).toMatchObject({ status: 'not_ready', checks: [{ name: 'redis', status: 'failed' }] });
    }
    // Each replica's own answer during the outage: a tool error at once, naming Redis and the setting; not sent.
    expect(duringOutage).toHaveLength(live.length);
    for (const outcome of duringOutage) {
      expect(outcome.error, outcome.replica).toBeUndefined();
      const structured = outcome.result?.structuredContent as { error?: { kind: string; message: string } };
      expect(outcome.result?.isError, outcome.replica).toBe(true);
      expect(structured.error?.kind).toBe('upstream_unavailable');
      expect(structured.error?.message).toMatch(/\(Redis, SWITCHBOARD_REDIS_URL\) cannot be reached/);
      expect(structured.error?.message).toMatch(/this call was not sent/);
      // Not a hang: the budget's Redis commands fail at once while it is down (a bound, not a timing figure).
      expect(outcome.ms, outcome.replica).toBeLessThan(10_000);
    }
    // Through the load balancer, a call failed either with that error or, while HAProxy had every replica out of
    // rotation, with its 503; once HAProxy took them back, every call worked.
    for (const call of calls.filter((c) => !c.ok)) {
      if (call.toolError) {
        expect(call.toolError.kind, describeCall(call)).toBe('upstream_unavailable');
        expect(call.toolError.message, describeCall(call)).toMatch(/Redis/);
      } else {
        expect(call.transportError, describeCall(call)).toMatch(/503|No server is available/);
      }
    }
    const afterRecovery = calls.filter((c) => c.startedAt > recoveredAt);
    expect(afterRecovery.length).toBeGreaterThan(0);
    expect(afterRecovery.filter((c) => !c.ok).map(describeCall)).toEqual([]);

    const result = await tally(topology.emulators, baseId, tableId, everyCall);
    expect(result.acknowledgedNotOnce).toEqual([]);
    expect(result.unacknowledgedDuplicated).toEqual([]);
    // The calls refused during the outage were not sent, so nothing of theirs is stored.
    expect(result.strangers).toEqual([]);
  }, 90_000);
});

describe('per-user OAuth through the load balancer, state in Redis', () => {
  let users: { id: string; name: string }[];
  const userNamed = (name: string) => users.find((u) => u.name === name)!.id;

  beforeAll(async () => {
    // The same three ports, restarted for per-user sign-in: no shared bearer or store token, the sealing key from
    // the environment (every replica must open what another sealed), and the load balancer's origin as the public
    // URL (the issuer and resource a person signs in for, whichever replica answers).
    const env = {
      SWITCHBOARD_HTTP_TOKEN: undefined,
      STORE_ACCESS_TOKEN: undefined,
      STORE_OAUTH_CLIENT_ID: SANDBOX_OAUTH_CLIENT_ID,
      STORE_OAUTH_CLIENT_SECRET: SANDBOX_OAUTH_CLIENT_SECRET,
      SWITCHBOARD_SECRET_KEY: Buffer.alloc(32, 14).toString('base64'),
      SWITCHBOARD_PUBLIC_URL: topology.lb.origin,
    };
    await Promise.all(
      topology.replicas.map(async (replica) => {
        await replica.stop();
        await replica.start({ env, metricsPort: await freePort() });
      }),
    );
    await waitFor(
      'HAProxy sees the restarted replicas up',
      async () => (await topology.lb.servers()).every((s) => s.up),
      { timeoutMs: 30_000 },
    );
    users = (await topology.emulators.control('GET', '/state/users')).items as { id: string; name: string }[];
  }, 90_000);

  it('a person signs in through the load balancer, and their calls work on every replica', async () => {
    const grace = userNamed('Grace Hopper');
    const provider = new PersonProvider(grace);
    const person = await connectPerson(topology.lb.mcpUrl, provider);
    try {
      expect(provider.signIns).toBe(1);
      const tool = 'StoreApi.RetrieveUserIdAndScopes';
      const before = await callsPerReplica(topology.replicas, tool, 'ok');
      for (let i = 0; i < 6; i++) {
        const result = await person.callTool({ name: tool, arguments: {} });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        expect((result.structuredContent as { id: string }).id).toBe(grace);
      }
      const after = await callsPerReplica(topology.replicas, tool, 'ok');
      const served = after.map((n, i) => n - before[i]!);
      expect(
        served.every((n) => n > 0),
        `calls per replica: ${served.join(', ')}`,
      ).toBe(true);
      const bases = await person.callTool({ name: 'StoreApi.ListStoreBases', arguments: {} });
      expect(
        ((bases.structuredContent as { bases: { name: string }[] }).bases ?? []).map((b) => b.name).sort(),
      ).toEqual(['Product Roadmap', 'Sales CRM']);
    } finally {
      await person.close();
    }
  }, 60_000);

  it('a store token renewal happens exactly once across the replicas', async () => {
    const alan = userNamed('Alan Turing');
    // Signed in while the store hands out 60-second tokens (inside our 5-minute renewal margin), so the first calls
    // must renew it; the renewed token lives an hour, so one renewal is all any replica needs.
    await topology.emulators.control('PUT', '/oauth/config', { accessTokenTtlSeconds: 60 });
    const provider = new PersonProvider(alan, 'http://127.0.0.1:54002/callback');
    let person: Client;
    try {
      person = await connectPerson(topology.lb.mcpUrl, provider);
    } finally {
      await topology.emulators.control('PUT', '/oauth/config', { accessTokenTtlSeconds: 3600 });
    }
    try {
      await topology.emulators.requests();
      const tool = 'StoreApi.RetrieveUserIdAndScopes';
      const before = await callsPerReplica(topology.replicas, tool, 'ok');
      // At once, so the replicas need the renewal at the same moment.
      const together = await Promise.all(
        Array.from({ length: 6 }, () => person.callTool({ name: tool, arguments: {} })),
      );
      for (const result of together) {
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        expect((result.structuredContent as { id: string }).id).toBe(alan);
      }
      const after = await callsPerReplica(topology.replicas, tool, 'ok');
      const served = after.map((n, i) => n - before[i]!);
      expect(served.filter((n) => n > 0).length, `calls per replica: ${served.join(', ')}`).toBeGreaterThan(
        1,
      );
      const renewals = (await topology.emulators.requests()).filter(
        (r) => r.method === 'POST' && r.path === '/oauth2/v1/token',
      );
      expect(renewals).toHaveLength(1);
      expect(String(renewals[0]?.body)).toContain('grant_type=refresh_token');
      expect(renewals[0]?.status).toBe(200);
      // A second renewal would have presented a rotated-away refresh token, and the store would revoke the grant.
      const { grants } = (await topology.emulators.control('GET', '/oauth/grants')) as {
        grants: { userId: string; revoked: boolean }[];
      };
      expect(grants.filter((g) => g.userId === alan).every((g) => !g.revoked)).toBe(true);
    } finally {
      await person.close();
    }
  }, 60_000);
});
