// Replicas (issue 14): three `serve all` replicas on one Redis behind HAProxy (deploy/haproxy.cfg), with the store
// emulator's 5 requests/s per base on: eight agents create 10-record batches in one base for 60 s through the load
// balancer. Printed: records per second against the 50 the upstream allows (5 requests/s x 10 records; the target
// is at least 80%), upstream 429s (the aim is none), failed calls, how the calls spread over the replicas, and the
// call latency (mostly the wait for the base's shared budget). Then the same load for a shorter time straight at one
// replica, for comparison with one process. The topology is the test's (test/e2e/replicasHarness.ts), from dist/.

import {
  type BatchCall,
  baseNamed,
  CREATE_TOOL,
  connectAgent,
  createWriteTable,
  startTopology,
  type Topology,
  tally,
  timelineOfFirst429,
  writeBatches,
} from '../test/e2e/replicasHarness.js';
import { CLI, stats } from './support.js';

const AGENTS = 8;
const SECONDS = 60;
const DIRECT_SECONDS = 15;
/** What the upstream allows one base: 5 requests/s of at most 10 records each. */
const UPSTREAM_RECORDS_PER_SECOND = 50;

async function run(
  topology: Topology,
  url: string,
  baseId: string,
  tableId: string,
  tag: string,
  seconds: number,
) {
  const clients = await Promise.all(
    Array.from({ length: AGENTS }, () => connectAgent(url, { token: topology.token })),
  );
  await topology.emulators.requests(); // the request log from here on
  const started = performance.now();
  const until = started + seconds * 1000;
  const calls: BatchCall[] = await writeBatches({
    clients,
    baseId,
    tableId,
    tag,
    keepGoing: () => performance.now() < until,
  });
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(clients.map((client) => client.close()));
  const requests = await topology.emulators.requests();
  const timeline = timelineOfFirst429(requests);
  if (timeline)
    console.log(`  upstream requests around the first 429 (arrival at the emulator):\n${timeline}`);
  const acknowledged = calls.filter((c) => c.ok);
  const latency = stats(acknowledged.map((c) => c.endedAt - c.startedAt));
  // Why calls failed, counted by reason (the reason's first 160 characters).
  const reasons = new Map<string, number>();
  for (const call of calls.filter((c) => !c.ok)) {
    const reason = (
      call.toolError ? `${call.toolError.kind}: ${call.toolError.message}` : `${call.transportError}`
    ).slice(0, 160);
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  for (const [reason, count] of reasons) console.log(`  ${count} x failed: ${reason}`);
  return {
    calls,
    elapsed,
    recordsPerSecond: (acknowledged.length * 10) / elapsed,
    tooMany: requests.filter((r) => r.status === 429).length,
    failed: calls.length - acknowledged.length,
    latency,
  };
}

const percent = (recordsPerSecond: number) =>
  `${((100 * recordsPerSecond) / UPSTREAM_RECORDS_PER_SECOND).toFixed(1)}%`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export async function benchReplicas() {
  console.log(
    '\nReplicas: 3 x `serve all --redis-url` behind HAProxy (deploy/haproxy.cfg), store emulator at 5 requests/s per base',
  );
  const topology = await startTopology({ main: CLI, forward: false });
  try {
    const baseId = await baseNamed(topology.emulators, 'Product Roadmap');
    const tableId = await createWriteTable(topology.emulators, baseId, 'Bench replica writes');
    await topology.emulators.requests();
    const perReplica = async () =>
      Promise.all(
        topology.replicas.map(async (r) =>
          (await r.metrics()).sum('switchboard_tool_calls_total', { tool: CREATE_TOOL }),
        ),
      );

    const before = await perReplica();
    const lb = await run(topology, topology.lb.mcpUrl, baseId, tableId, 'lb', SECONDS);
    const after = await perReplica();
    const spread = after.map((n, i) => n - before[i]!).join('/');
    const check = await tally(topology.emulators, baseId, tableId, lb.calls);
    console.log(
      `${AGENTS} agents, ${CREATE_TOOL} (10 records per call), one base, through HAProxy for ${lb.elapsed.toFixed(1)} s: ` +
        `${lb.recordsPerSecond.toFixed(1)} records/s = ${percent(lb.recordsPerSecond)} of the ${UPSTREAM_RECORDS_PER_SECOND} the upstream allows (target >= 80%); ` +
        `${lb.tooMany} upstream 429s; ${lb.failed} failed calls of ${lb.calls.length}`,
    );
    console.log(
      `  calls per replica ${spread}; call latency p50 ${seconds(lb.latency.p50)}, p99 ${seconds(lb.latency.p99)}; ` +
        `acknowledged records not stored exactly once: ${check.acknowledgedNotOnce.length}`,
    );

    if (lb.tooMany > 0) {
      // The base is penalised for 30 s (and the replicas pause it as long): a figure now would measure the penalty.
      console.log('  (no figure straight at one replica: the 429 above penalised the base for 30 s)');
      return;
    }
    const one = topology.replicas[0]!;
    const direct = await run(topology, `${one.origin}/mcp`, baseId, tableId, 'direct', DIRECT_SECONDS);
    console.log(
      `  the same ${AGENTS} agents straight at one replica for ${direct.elapsed.toFixed(1)} s: ` +
        `${direct.recordsPerSecond.toFixed(1)} records/s = ${percent(direct.recordsPerSecond)}; ${direct.tooMany} upstream 429s; ` +
        `${direct.failed} failed calls; latency p50 ${seconds(direct.latency.p50)}`,
    );
  } finally {
    await topology.stop();
  }
}
