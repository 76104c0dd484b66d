// The call event stream end to end: the SDK's MCP client calls StoreApi tools over Streamable HTTP against the
// store emulator, and the events the process emits carry one correlation id from the tool call to every upstream
// request it caused, with path templates (never ids) and the right outcomes.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CallEvent, CallEventStream, callEvents } from '../../src/runtime/callEvents.js';
import {
  CLIENT_NAME,
  MODERN,
  type ObservedStore,
  ofType,
  recordEvents,
  startObservedStore,
} from './observabilityHarness.js';

let store: ObservedStore;
let recorder: ReturnType<typeof recordEvents>;

beforeAll(async () => {
  store = await startObservedStore();
});
afterAll(async () => {
  await store?.close();
});
beforeEach(async () => {
  recorder = recordEvents();
  await store.upstream.clearFaults();
  return () => recorder.stop();
});

const getRecord = (client = store.client, signal?: AbortSignal) =>
  client.callTool(
    {
      name: 'StoreApi.StoreGetRecord',
      arguments: {
        store_base_id: store.record.baseId,
        table_identifier: store.record.tableId,
        record_id: store.record.recordId,
      },
    },
    signal ? { signal } : undefined,
  );

describe('call events', () => {
  it('without a listener that asks to correlate, upstream requests carry no call id (no async context kept)', async () => {
    recorder.stop(); // the default recorder correlates
    const events: CallEvent[] = [];
    const stop = callEvents.subscribe((event) => events.push(event));
    try {
      expect(callEvents.correlated).toBe(false);
      expect((await getRecord()).isError).toBeFalsy();
      const [request] = ofType(events, 'upstream_request_started');
      expect(request?.callId).toBeUndefined();
      expect(ofType(events, 'tool_call_ended')).toHaveLength(1);
    } finally {
      stop();
    }
  });

  it('a tool call and its upstream request share one correlation id, with the path template', async () => {
    const result = await getRecord();
    expect(result.isError).toBeFalsy();
    const { events } = recorder;
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_started',
      'upstream_request_started',
      'upstream_request_ended',
      'tool_call_ended',
    ]);
    const [started] = ofType(events, 'tool_call_started');
    expect(started).toMatchObject({
      service: 'StoreApi',
      tool: 'StoreApi.StoreGetRecord',
      specName: 'StoreApi.StoreGetRecord',
      parentCallId: undefined,
      request: {
        transport: 'http',
        clientName: CLIENT_NAME,
        clientVersion: '1.2.3',
        protocolVersion: MODERN,
      },
    });
    expect(started!.callId).toMatch(/^[0-9a-f-]{36}$/);
    const [upstream] = ofType(events, 'upstream_request_started');
    expect(upstream).toMatchObject({
      callId: started!.callId,
      service: 'StoreApi',
      method: 'GET',
      pathTemplate: '/v0/{baseId}/{tableIdOrName}/{recordId}',
      serverAddress: '127.0.0.1',
      attempt: 0,
    });
    expect(JSON.stringify(upstream)).not.toContain(store.record.recordId);
    const [answered] = ofType(events, 'upstream_request_ended');
    expect(answered).toMatchObject({
      request: upstream,
      status: 200,
      errorKind: undefined,
      cancelled: false,
    });
    const [ended] = ofType(events, 'tool_call_ended');
    expect(ended).toMatchObject({ call: started, outcome: 'ok', errorKind: undefined });
    expect(ended!.durationMs).toBeGreaterThanOrEqual(answered!.durationMs);
  });

  it('a 429 and its retry: two attempts of the same call, and a rate-limited event', async () => {
    await store.upstream.faults([{ path: '/v0/*', kind: 'rate_limit', retryAfterSeconds: 0, times: 1 }]);
    const result = await getRecord();
    expect(result.isError).toBeFalsy();
    const [call] = ofType(recorder.events, 'tool_call_started');
    const attempts = ofType(recorder.events, 'upstream_request_ended');
    expect(attempts.map((a) => [a.request.attempt, a.status, a.errorKind])).toEqual([
      [0, 429, 'rate_limited'],
      [1, 200, undefined],
    ]);
    expect(attempts.every((a) => a.request.callId === call!.callId)).toBe(true);
    const [limited] = ofType(recorder.events, 'upstream_rate_limited');
    expect(limited).toMatchObject({
      request: attempts[0]!.request,
      keyTemplate: 'base:{baseId}',
      retryAfterSeconds: 0,
    });
  });

  it('tool errors carry their kind; a failure before any upstream request causes none', async () => {
    const missing = await store.client.callTool({
      name: 'StoreApi.StoreGetRecord',
      arguments: {
        store_base_id: store.record.baseId,
        table_identifier: store.record.tableId,
        record_id: 'recDoesNotExist00',
      },
    });
    expect(missing.isError).toBe(true);
    const invalid = await store.client.callTool({ name: 'StoreApi.StoreGetRecord', arguments: {} });
    expect(invalid.isError).toBe(true);
    const ended = ofType(recorder.events, 'tool_call_ended');
    expect(ended.map((e) => [e.outcome, e.errorKind])).toEqual([
      ['tool_error', 'not_found'],
      ['tool_error', 'invalid_arguments'],
    ]);
    expect(ofType(recorder.events, 'upstream_request_ended').map((e) => e.status)).toEqual([404]);
  });

  it('a name the server does not have is a protocol error, without a tool name of ours', async () => {
    await expect(store.client.callTool({ name: 'StoreApi.NoSuchTool', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
    const [started] = ofType(recorder.events, 'tool_call_started');
    expect(started).toMatchObject({ specName: undefined, tool: 'StoreApi.NoSuchTool', service: 'unknown' });
    const [ended] = ofType(recorder.events, 'tool_call_ended');
    expect(ended).toMatchObject({ outcome: 'protocol_error', protocolErrorCode: -32602 });
  });

  it("discovery: call_tool's inner call is a child of it, and the upstream request is the inner call's", async () => {
    const result = await store.discovery.callTool({
      name: 'call_tool',
      arguments: {
        name: 'StoreApi.StoreGetRecord',
        arguments: {
          store_base_id: store.record.baseId,
          table_identifier: store.record.tableId,
          record_id: store.record.recordId,
        },
      },
    });
    expect(result.isError).toBeFalsy();
    const [outer, inner] = ofType(recorder.events, 'tool_call_started');
    expect(outer).toMatchObject({ tool: 'call_tool', service: 'switchboard', parentCallId: undefined });
    expect(inner).toMatchObject({ tool: 'StoreApi.StoreGetRecord', parentCallId: outer!.callId });
    // The inner call inherits what the request said about the caller.
    expect(inner!.request).toBe(outer!.request);
    const [upstream] = ofType(recorder.events, 'upstream_request_started');
    expect(upstream!.callId).toBe(inner!.callId);
    const ended = ofType(recorder.events, 'tool_call_ended');
    expect(ended.map((e) => [e.call.tool, e.outcome])).toEqual([
      ['StoreApi.StoreGetRecord', 'ok'],
      ['call_tool', 'ok'],
    ]);
  });

  it('a call the client cancels ends cancelled, and so does the upstream attempt under way', async () => {
    await store.upstream.faults([{ path: '/v0/*', kind: 'latency', latencyMs: 5_000, times: 1 }]);
    const controller = new AbortController();
    const sent = new Promise<void>((resolve) => {
      const stop = callEvents.subscribe((event) => {
        if (event.type === 'upstream_request_started') {
          stop();
          resolve();
        }
      });
    });
    const call = getRecord(store.client, controller.signal);
    await sent;
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => ofType(recorder.events, 'tool_call_ended').length, { timeout: 10_000 }).toBe(1);
    const [ended] = ofType(recorder.events, 'tool_call_ended');
    expect(ended).toMatchObject({ outcome: 'cancelled', errorKind: undefined });
    const [attempt] = ofType(recorder.events, 'upstream_request_ended');
    expect(attempt).toMatchObject({ cancelled: true, status: undefined });
  });

  it('a consumer that throws does not fail the call or stop the others', async () => {
    const stopBroken = callEvents.subscribe(() => {
      throw new Error('broken consumer');
    });
    const after: CallEvent[] = [];
    const stopAfter = callEvents.subscribe((event) => after.push(event));
    try {
      const result = await getRecord();
      expect(result.isError).toBeFalsy();
      expect(after.map((e) => e.type)).toEqual(recorder.events.map((e) => e.type));
      expect(after).toHaveLength(4);
    } finally {
      stopBroken();
      stopAfter();
    }
  });

  it('no listener: the stream is inactive and a call emits nothing', async () => {
    recorder.stop();
    expect(callEvents.active).toBe(false);
    const stream = new CallEventStream();
    const stop = stream.subscribe(() => undefined);
    expect(stream.active).toBe(true);
    stop();
    expect(stream.active).toBe(false);
    const result = await getRecord();
    expect(result.isError).toBeFalsy();
    expect(recorder.events).toEqual([]);
  });
});

describe('call events with the client-side rate limiter on', () => {
  let limited: ObservedStore;
  beforeAll(async () => {
    limited = await startObservedStore({ clientRateLimits: true });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('a request held by the limiter is a wait event of its call, keyed by the template', async () => {
    const args = {
      store_base_id: limited.record.baseId,
      table_identifier: limited.record.tableId,
      record_id: limited.record.recordId,
    };
    // Three calls on one base at once: the store's limit sends them 250 ms apart, so the later ones wait.
    await Promise.all(
      [1, 2, 3].map(() => limited.client.callTool({ name: 'StoreApi.StoreGetRecord', arguments: args })),
    );
    const waits = ofType(recorder.events, 'rate_limit_waited');
    expect(waits.length).toBeGreaterThanOrEqual(1);
    const calls = ofType(recorder.events, 'tool_call_started').map((e) => e.callId);
    for (const wait of waits) {
      expect(wait).toMatchObject({ service: 'StoreApi', keyTemplate: 'base:{baseId}' });
      expect(calls).toContain(wait.callId);
    }
  });
});
