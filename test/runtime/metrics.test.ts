// Prometheus metrics fed by the call events: real tool calls through the SDK's MCP client against the store
// emulator, then the registry's text exposition parsed and the series counted.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEvents } from '../../src/runtime/callEvents.js';
import { CallMetrics, metricsText, startMetrics } from '../../src/runtime/metrics.js';
import { type ObservedStore, startObservedStore } from './observabilityHarness.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (format 0.0.4). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels are exactly `labels`; undefined when there is none. */
function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const found = samples.filter(
    (s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted,
  );
  if (found.length > 1) throw new Error(`${name} ${wanted}: ${found.length} samples`);
  return found[0]?.value;
}

let store: ObservedStore;

beforeAll(async () => {
  store = await startObservedStore();
});
afterAll(async () => {
  await store?.close();
});

const recordArgs = () => ({
  store_base_id: store.record.baseId,
  table_identifier: store.record.tableId,
  record_id: store.record.recordId,
});
const getRecord = (args: Record<string, unknown> = recordArgs()) =>
  store.client.callTool({ name: 'StoreApi.StoreGetRecord', arguments: args });

describe('metrics from real calls', () => {
  it('counts tool calls by tool and outcome, upstream requests by status, 429s, and latencies', async () => {
    const metrics = new CallMetrics().listen();
    try {
      await getRecord();
      await getRecord();
      await getRecord({ ...recordArgs(), record_id: 'recDoesNotExist00' });
      await getRecord({});
      await expect(store.client.callTool({ name: 'StoreApi.NoSuchTool', arguments: {} })).rejects.toThrow();
      await store.upstream.faults([{ path: '/v0/*', kind: 'rate_limit', retryAfterSeconds: 0, times: 1 }]);
      await getRecord();
      await store.discovery.callTool({
        name: 'call_tool',
        arguments: { name: 'StoreApi.StoreGetRecord', arguments: recordArgs() },
      });

      const { contentType, body } = await metrics.text();
      expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      const samples = parseExposition(body);
      const calls = (labels: Record<string, string>) =>
        sampleValue(samples, 'switchboard_tool_calls_total', labels);
      const tool = 'StoreApi.StoreGetRecord';
      expect(calls({ tool, outcome: 'ok' })).toBe(4);
      expect(calls({ tool, outcome: 'tool_error', error_kind: 'not_found' })).toBe(1);
      expect(calls({ tool, outcome: 'tool_error', error_kind: 'invalid_arguments' })).toBe(1);
      expect(calls({ tool: 'unknown_tool', outcome: 'protocol_error' })).toBe(1);
      expect(calls({ tool: 'call_tool', outcome: 'ok' })).toBe(1);
      expect(sampleValue(samples, 'switchboard_tool_call_duration_seconds_count', { tool })).toBe(6);
      expect(
        sampleValue(samples, 'switchboard_tool_call_duration_seconds_bucket', { tool, le: '+Inf' }),
      ).toBe(6);

      const upstream = (status: string) =>
        sampleValue(samples, 'switchboard_upstream_requests_total', { service: 'StoreApi', status });
      expect(upstream('200')).toBe(4);
      expect(upstream('404')).toBe(1);
      expect(upstream('429')).toBe(1);
      expect(
        sampleValue(samples, 'switchboard_upstream_request_duration_seconds_count', { service: 'StoreApi' }),
      ).toBe(6);
      expect(sampleValue(samples, 'switchboard_upstream_rate_limited_total', { service: 'StoreApi' })).toBe(
        1,
      );
      expect(sampleValue(samples, 'switchboard_tool_calls_in_flight')).toBe(0);
      // No rate limiter on this server: nothing waited.
      expect(samples.some((s) => s.name === 'switchboard_rate_limit_waits_total')).toBe(false);
      // prom-client's default process metrics ride along.
      expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);
      expect(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
    } finally {
      metrics.close();
      await store.upstream.clearFaults();
    }
  });

  it('calls in flight: call_tool and the tool it runs count each while they run, none after', async () => {
    const metrics = new CallMetrics({ defaultMetrics: false }).listen();
    // Resolves once the inner call's upstream request is on its way: the calls are then in flight.
    let sent!: () => void;
    const underway = new Promise<void>((resolve) => {
      sent = resolve;
    });
    const stop = callEvents.subscribe((event) => {
      if (event.type === 'upstream_request_started') sent();
    });
    try {
      await store.upstream.faults([{ path: '/v0/*', kind: 'latency', latencyMs: 300, times: 1 }]);
      const call = store.discovery.callTool({
        name: 'call_tool',
        arguments: { name: 'StoreApi.StoreGetRecord', arguments: recordArgs() },
      });
      await underway;
      const during = parseExposition((await metrics.text()).body);
      expect(sampleValue(during, 'switchboard_tool_calls_in_flight')).toBe(2);
      await call;
      const after = parseExposition((await metrics.text()).body);
      expect(sampleValue(after, 'switchboard_tool_calls_in_flight')).toBe(0);
    } finally {
      stop();
      metrics.close();
      await store.upstream.clearFaults();
    }
  });

  it('the process metrics behind metricsText() count from startMetrics() on', async () => {
    const started = startMetrics();
    expect(startMetrics()).toBe(started);
    await getRecord();
    const { contentType, body } = await metricsText();
    expect(contentType).toMatch(/^text\/plain/);
    const samples = parseExposition(body);
    expect(
      sampleValue(samples, 'switchboard_tool_calls_total', {
        tool: 'StoreApi.StoreGetRecord',
        outcome: 'ok',
      }),
    ).toBe(1);
  });
});

describe('rate-limit waits', () => {
  let limited: ObservedStore;
  beforeAll(async () => {
    limited = await startObservedStore({ clientRateLimits: true });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('are counted by service and key template, with their durations', async () => {
    const metrics = new CallMetrics({ defaultMetrics: false }).listen();
    try {
      const args = {
        store_base_id: limited.record.baseId,
        table_identifier: limited.record.tableId,
        record_id: limited.record.recordId,
      };
      // Three calls on one base at once: the store's limit sends them 250 ms apart, so the later ones wait.
      await Promise.all(
        [1, 2, 3].map(() => limited.client.callTool({ name: 'StoreApi.StoreGetRecord', arguments: args })),
      );
      const samples = parseExposition((await metrics.text()).body);
      const waits = sampleValue(samples, 'switchboard_rate_limit_waits_total', {
        service: 'StoreApi',
        key: 'base:{baseId}',
      });
      expect(waits).toBeGreaterThanOrEqual(1);
      expect(sampleValue(samples, 'switchboard_rate_limit_wait_seconds_count', { service: 'StoreApi' })).toBe(
        waits,
      );
      // The key is the template: the base's id is in no label.
      expect(
        samples.some((s) => Object.values(s.labels).some((v) => v.includes(limited.record.baseId))),
      ).toBe(false);
    } finally {
      metrics.close();
    }
  });
});
