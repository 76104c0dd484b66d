// OpenTelemetry traces from real tool calls (the SDK's MCP client against the store emulator): one span per tool
// call continuing the caller's trace from `_meta.traceparent`, one child span per upstream attempt; captured with the
// SDK's InMemorySpanExporter, and once sent over OTLP/HTTP to a receiver on loopback.

import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shutdownTracing, startTracing, tracesUrl, tracingRequested } from '../../src/runtime/tracing.js';
import { connectCli, ROOT } from '../e2e/harness.js';
import { type ObservedStore, startObservedStore } from './observabilityHarness.js';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
const RECORD_PATH = '/v0/{baseId}/{tableIdOrName}/{recordId}';

let store: ObservedStore;

beforeAll(async () => {
  store = await startObservedStore();
});
afterAll(async () => {
  await shutdownTracing();
  await store?.close();
});

const recordArgs = () => ({
  store_base_id: store.record.baseId,
  table_identifier: store.record.tableId,
  record_id: store.record.recordId,
});

const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);

describe('traces with the in-memory exporter', () => {
  const exporter = new InMemorySpanExporter();
  beforeAll(async () => {
    expect(await startTracing({ spanProcessor: new SimpleSpanProcessor(exporter) })).toBe(true);
  });
  afterEach(async () => {
    exporter.reset();
    await store.upstream.clearFaults();
  });

  it("a call continues the caller's trace; each upstream attempt is a child span of it", async () => {
    await store.upstream.faults([{ path: '/v0/*', kind: 'rate_limit', retryAfterSeconds: 0, times: 1 }]);
    const result = await store.client.callTool({
      name: 'StoreApi.StoreGetRecord',
      arguments: recordArgs(),
      _meta: { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE' },
    });
    expect(result.isError).toBeFalsy();
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(3);
    const [call] = byName(spans, 'tools/call StoreApi.StoreGetRecord');
    expect(call).toBeDefined();
    expect(call!.kind).toBe(SpanKind.SERVER);
    expect(call!.spanContext().traceId).toBe(CALLER_TRACE);
    expect(call!.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(call!.parentSpanContext?.isRemote).toBe(true);
    expect(call!.spanContext().traceState?.get('congo')).toBe('t61rcWkgMzE');
    expect(call!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'StoreApi.StoreGetRecord',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'switchboard.outcome': 'ok',
    });
    expect(call!.status.code).toBe(SpanStatusCode.UNSET);

    const attempts = byName(spans, `GET ${RECORD_PATH}`);
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) {
      expect(attempt.kind).toBe(SpanKind.CLIENT);
      expect(attempt.spanContext().traceId).toBe(CALLER_TRACE);
      expect(attempt.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);
      expect(attempt.attributes).toMatchObject({
        'http.request.method': 'GET',
        'url.template': RECORD_PATH,
        'server.address': '127.0.0.1',
        'switchboard.call.id': call!.attributes['switchboard.call.id'],
      });
    }
    const [refused, retried] = attempts.sort(
      (a, b) =>
        Number(a.attributes['http.request.resend_count'] ?? 0) -
        Number(b.attributes['http.request.resend_count'] ?? 0),
    );
    expect(refused!.attributes).toMatchObject({ 'http.response.status_code': 429, 'error.type': '429' });
    expect(refused!.status.code).toBe(SpanStatusCode.ERROR);
    expect(refused!.events.map((e) => e.name)).toEqual(['switchboard.upstream.rate_limited']);
    expect(retried!.attributes).toMatchObject({
      'http.response.status_code': 200,
      'http.request.resend_count': 1,
    });
    expect(retried!.attributes['error.type']).toBeUndefined();
  });

  it('without a traceparent a call starts its own trace; a tool error marks its span', async () => {
    const result = await store.client.callTool({
      name: 'StoreApi.StoreGetRecord',
      arguments: { ...recordArgs(), record_id: 'recDoesNotExist00' },
    });
    expect(result.isError).toBe(true);
    const [call] = byName(exporter.getFinishedSpans(), 'tools/call StoreApi.StoreGetRecord');
    expect(call!.parentSpanContext).toBeUndefined();
    expect(call!.spanContext().traceId).not.toBe(CALLER_TRACE);
    expect(call!.attributes).toMatchObject({
      'error.type': 'tool_error',
      'switchboard.error.kind': 'not_found',
      'switchboard.outcome': 'tool_error',
    });
    expect(call!.status.code).toBe(SpanStatusCode.ERROR);
    const [attempt] = byName(exporter.getFinishedSpans(), `GET ${RECORD_PATH}`);
    expect(attempt!.attributes['error.type']).toBe('404');
  });

  it("discovery: call_tool's span, the inner call's span under it, the upstream request under that", async () => {
    await store.discovery.callTool({
      name: 'call_tool',
      arguments: { name: 'StoreApi.StoreGetRecord', arguments: recordArgs() },
      _meta: { traceparent: TRACEPARENT },
    });
    const spans = exporter.getFinishedSpans();
    const [outer] = byName(spans, 'tools/call call_tool');
    const [inner] = byName(spans, 'tools/call StoreApi.StoreGetRecord');
    const [attempt] = byName(spans, `GET ${RECORD_PATH}`);
    expect(outer!.kind).toBe(SpanKind.SERVER);
    expect(outer!.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(inner!.kind).toBe(SpanKind.INTERNAL);
    expect(inner!.parentSpanContext?.spanId).toBe(outer!.spanContext().spanId);
    expect(attempt!.parentSpanContext?.spanId).toBe(inner!.spanContext().spanId);
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([CALLER_TRACE]));
  });

  it('a name the server does not have: a `tools/call` span with the JSON-RPC error, not the caller text', async () => {
    await expect(store.client.callTool({ name: 'NoSuchTool.AtAll', arguments: {} })).rejects.toThrow();
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('tools/call');
    expect(span!.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(span!.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(JSON.stringify(span!.attributes)).not.toContain('NoSuchTool');
  });

  it('stops on shutdown: later calls make no spans', async () => {
    await shutdownTracing();
    await store.client.callTool({ name: 'StoreApi.StoreGetRecord', arguments: recordArgs() });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('settings', () => {
  it('tracing is asked for by an OTLP endpoint, and not when the SDK is switched off', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      true,
    );
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      tracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://other:4318/custom',
      }),
    ).toBe('http://other:4318/custom');
  });

  it('without an endpoint nothing starts', async () => {
    expect(await startTracing({ env: {} })).toBe(false);
  });

  it('no module but tracing.ts loads OpenTelemetry, and it only by dynamic import (cold start)', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts')) {
          const text = readFileSync(path, 'utf8');
          // A value import (not `import type`) of any OpenTelemetry package, at the top of a module.
          if (/^import\s+(?!type\b)[^;]*from\s+'@opentelemetry\//m.test(text)) offenders.push(path);
        }
      }
    };
    walk(join(ROOT, 'src'));
    expect(offenders).toEqual([]);
  });
});

describe('export over OTLP/HTTP', () => {
  let receiver: Server;
  const received: { path: string; contentType: string | undefined; body: unknown }[] = [];

  beforeAll(async () => {
    receiver = createServer(async (request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      let raw = Buffer.concat(chunks);
      if (request.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      received.push({
        path: request.url ?? '',
        contentType: request.headers['content-type'],
        body: JSON.parse(raw.toString('utf8')),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  });

  interface OtlpBody {
    resourceSpans: {
      resource: { attributes: { key: string; value: { stringValue?: string } }[] };
      scopeSpans: { spans: { name: string }[] }[];
    }[];
  }
  const resourceSpans = () => received.flatMap((r) => (r.body as OtlpBody).resourceSpans);
  const spanNames = () =>
    resourceSpans().flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => s.name)));

  it('sends the spans to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces under service.name switchboard', async () => {
    const address = receiver.address() as { port: number };
    const started = await startTracing({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${address.port}` },
    });
    expect(started).toBe(true);
    const result = await store.client.callTool({ name: 'StoreApi.StoreGetRecord', arguments: recordArgs() });
    expect(result.isError).toBeFalsy();
    // The batch is sent on shutdown (the flush a stopping server does).
    await shutdownTracing();
    expect(received.length).toBeGreaterThanOrEqual(1);
    expect(received[0]!.path).toBe('/v1/traces');
    expect(received[0]!.contentType).toMatch(/application\/json/);
    const serviceNames = resourceSpans().map(
      (rs) => rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue,
    );
    expect(new Set(serviceNames)).toEqual(new Set(['switchboard']));
    expect(spanNames().sort()).toEqual([`GET ${RECORD_PATH}`, 'tools/call StoreApi.StoreGetRecord']);
  });

  it('`switchboard serve` over stdio traces when the endpoint is set, and sends them as it stops', async () => {
    received.length = 0;
    const address = receiver.address() as { port: number };
    const mcp = await connectCli(['serve', 'issuedesk', '--sandbox', '--data-dir', ':memory:'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${address.port}`,
      OTEL_SERVICE_NAME: 'switchboard-under-test',
    });
    const result = await mcp.call('IssueDesk.WhoAmI');
    expect(result.isError).toBe(false);
    // Closing the client ends the server's stdin: the server stops and sends what it buffered.
    await mcp.close();
    for (let waited = 0; received.length === 0 && waited < 10_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(spanNames()).toEqual(expect.arrayContaining(['tools/call IssueDesk.WhoAmI', 'GET /me']));
    const serviceNames = resourceSpans().map(
      (rs) => rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue,
    );
    // OTEL_SERVICE_NAME names the service over our default.
    expect(new Set(serviceNames)).toEqual(new Set(['switchboard-under-test']));
    // A child process through tsx, with the sandbox seeded: seconds on a loaded machine.
  }, 60_000);
});
