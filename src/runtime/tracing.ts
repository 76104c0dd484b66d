// OpenTelemetry traces, as a consumer of the call events (callEvents.ts): a span per tool call and a child span per
// upstream request attempt, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. A caller's trace continues: the `traceparent` and `tracestate` a
// 2026-07-28 request carries in `params._meta` (SEP-414) become the tool call span's remote parent.
//
// Nothing of OpenTelemetry is loaded unless tracing starts: this module imports only types at the top, and
// startTracing loads the packages on demand, so a server without an OTLP endpoint starts as fast as before.
//
// Attributes follow the OpenTelemetry semantic conventions for MCP (gen-ai/mcp.md: mcp.method.name,
// gen_ai.tool.name, gen_ai.operation.name, jsonrpc.request.id, network.transport, error.type) and for HTTP
// clients (http.request.method, url.template, server.address, http.response.status_code). Never the full URL (its
// query can hold values an agent sent), never headers or bodies, never arguments or results; the path is the
// template (`/v0/{baseId}/{tableIdOrName}`), so no identifier appears either.
//
// Spans are built from the events with explicit parents (no OpenTelemetry context manager): the call events carry
// the correlation, so tracing needs no async-context machinery of its own.

import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { BasicTracerProvider, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type CallEvent, type CallEventStream, callEvents, type ToolCallStarted } from './callEvents.js';
import { log } from './log.js';
import { VERSION } from './version.js';

type Api = typeof import('@opentelemetry/api');
type Propagator = import('@opentelemetry/core').W3CTraceContextPropagator;

export interface TracingOptions {
  /** Where the OTEL_* settings are read (the exporter itself reads process.env, as the SDK does). */
  env?: NodeJS.ProcessEnv;
  /**
   * Replaces the OTLP exporter: tests pass the SDK's InMemorySpanExporter behind a SimpleSpanProcessor. Given, tracing
   * starts whatever the environment says.
   */
  spanProcessor?: SpanProcessor;
  /** The stream to trace; the process's by default. */
  stream?: CallEventStream;
}

/** Whether the environment asks for traces: an OTLP endpoint set, and the SDK not switched off. */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * The OTLP/HTTP traces URL, as the exporter would read it from the environment (the signal's own endpoint as it is,
 * or the general one with `v1/traces` added), but from `env`: the settings that decided to trace also say where.
 */
export function tracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (specific) return specific;
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!general) return undefined;
  return `${general.endsWith('/') ? general : `${general}/`}v1/traces`;
}

/**
 * A package's exports from `import()`. Node gives a CommonJS package's named exports on the namespace; the esbuild
 * bundle (dist/) gives them only as `default`. Whichever holds `name` is the one.
 */
function exportsOf<T extends object>(namespace: T, name: keyof T): T {
  if (namespace[name] !== undefined) return namespace;
  return (namespace as T & { default: T }).default;
}

interface Running {
  provider: BasicTracerProvider;
  unsubscribe: () => void;
}

let running: Running | undefined;

/**
 * Starts exporting traces when the environment asks for them (or a span processor is given); resolves whether it
 * did. Once per process: a second start while running changes nothing.
 */
export async function startTracing(options: TracingOptions = {}): Promise<boolean> {
  const env = options.env ?? process.env;
  if (running) return true;
  if (!options.spanProcessor && !tracingRequested(env)) return false;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol && protocol !== 'http/json' && protocol !== 'http/protobuf') {
    log(
      'warn',
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported; traces are sent as OTLP/HTTP JSON`,
      {
        hint: 'Point OTEL_EXPORTER_OTLP_ENDPOINT at the collector’s OTLP/HTTP port (4318 by default), or unset the protocol.',
      },
    );
  }
  const [api, core, sdk, resources] = await Promise.all([
    import('@opentelemetry/api').then((m) => exportsOf(m, 'trace')),
    import('@opentelemetry/core').then((m) => exportsOf(m, 'W3CTraceContextPropagator')),
    import('@opentelemetry/sdk-trace-base').then((m) => exportsOf(m, 'BasicTracerProvider')),
    import('@opentelemetry/resources').then((m) => exportsOf(m, 'resourceFromAttributes')),
  ]);
  let processor = options.spanProcessor;
  if (!processor) {
    const otlp = exportsOf(await import('@opentelemetry/exporter-trace-otlp-http'), 'OTLPTraceExporter');
    processor = new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter({ url: tracesUrl(env) }));
  }
  // Export failures reach our log (stderr), not the SDK's silent default.
  api.diag.setLogger(
    {
      error: (message) => log('error', `OpenTelemetry: ${message}`),
      warn: (message) => log('warn', `OpenTelemetry: ${message}`),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: api.DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  // Ours first, then what the environment says (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) over it.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'switchboard', 'service.version': VERSION }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.BasicTracerProvider({ resource, spanProcessors: [processor] });
  const spans = new CallSpans(
    api,
    provider.getTracer('switchboard', VERSION),
    new core.W3CTraceContextPropagator(),
  );
  const unsubscribe = (options.stream ?? callEvents).subscribe(spans.record, { correlate: true });
  running = { provider, unsubscribe };
  return true;
}

/**
 * Stops tracing and sends what is still buffered (bounded by the exporter's timeout). For process shutdown, after
 * the server stopped taking calls; safe to call when tracing never started, and more than once.
 */
export async function shutdownTracing(): Promise<void> {
  const current = running;
  if (!current) return;
  running = undefined;
  current.unsubscribe();
  await current.provider.shutdown().catch((error: unknown) => {
    log('warn', 'OpenTelemetry: could not send the last traces', {
      error: error instanceof Error ? error.message : String(error),
    });
  });
}

/** Longest client-chosen text (its name, its request id) kept on a span. */
const MAX_CLIENT_TEXT = 100;

/** Turns the call events into spans. */
class CallSpans {
  /** Tool call spans by correlation id, while the call runs. */
  private readonly calls = new Map<string, Span>();
  /** Upstream attempt spans by their started event, until it ends. */
  private readonly requests = new WeakMap<object, Span>();

  constructor(
    private readonly api: Api,
    private readonly tracer: Tracer,
    private readonly propagator: Propagator,
  ) {}

  readonly record = (event: CallEvent): void => {
    const { api } = this;
    switch (event.type) {
      case 'tool_call_started': {
        const parentSpan = event.parentCallId === undefined ? undefined : this.calls.get(event.parentCallId);
        const span = this.tracer.startSpan(
          // MCP conventions: `{mcp.method.name} {target}`, the target only when it is low-cardinality (ours).
          event.specName === undefined ? 'tools/call' : `tools/call ${event.tool}`,
          {
            // call_tool's inner call runs inside this process: an internal span under call_tool's.
            kind: parentSpan ? api.SpanKind.INTERNAL : api.SpanKind.SERVER,
            attributes: callAttributes(event),
          },
          parentSpan ? api.trace.setSpan(api.ROOT_CONTEXT, parentSpan) : this.remoteParent(event),
        );
        this.calls.set(event.callId, span);
        return;
      }
      case 'tool_call_ended': {
        const span = this.calls.get(event.call.callId);
        if (!span) return;
        this.calls.delete(event.call.callId);
        span.setAttribute('switchboard.outcome', event.outcome);
        if (event.outcome === 'tool_error') {
          // MCP conventions: a CallToolResult with isError is `tool_error`; the kind says which.
          span.setAttributes({
            'error.type': 'tool_error',
            'switchboard.error.kind': event.errorKind ?? 'internal',
          });
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        } else if (event.outcome === 'protocol_error') {
          const code = String(event.protocolErrorCode ?? -32603);
          span.setAttributes({ 'error.type': code, 'rpc.response.status_code': code });
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        } else if (event.outcome === 'cancelled') {
          span.setAttribute('error.type', 'cancelled');
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'cancelled by the client' });
        }
        span.end();
        return;
      }
      case 'upstream_request_started': {
        const parent = event.callId === undefined ? undefined : this.calls.get(event.callId);
        const attributes: Attributes = {
          'http.request.method': event.method,
          'url.template': event.pathTemplate,
          'server.address': event.serverAddress,
          'server.port': event.serverPort,
          'switchboard.upstream.service': event.service,
        };
        if (event.attempt > 0) attributes['http.request.resend_count'] = event.attempt;
        if (event.callId !== undefined) attributes['switchboard.call.id'] = event.callId;
        const span = this.tracer.startSpan(
          // HTTP client conventions: `{method} {url.template}`.
          `${event.method} ${event.pathTemplate}`,
          { kind: api.SpanKind.CLIENT, attributes },
          parent ? api.trace.setSpan(api.ROOT_CONTEXT, parent) : api.ROOT_CONTEXT,
        );
        this.requests.set(event, span);
        return;
      }
      case 'upstream_request_ended': {
        const span = this.requests.get(event.request);
        if (!span) return;
        this.requests.delete(event.request);
        if (event.status !== undefined) span.setAttribute('http.response.status_code', event.status);
        const errorType =
          event.status !== undefined
            ? event.status >= 400
              ? String(event.status)
              : undefined
            : event.cancelled
              ? 'cancelled'
              : (event.errorCode ?? event.errorKind ?? 'network');
        if (errorType !== undefined) {
          span.setAttribute('error.type', errorType);
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        }
        span.end();
        return;
      }
      case 'upstream_rate_limited': {
        const span = this.requests.get(event.request);
        span?.addEvent('switchboard.upstream.rate_limited', {
          'switchboard.rate_limit.key': event.keyTemplate,
          ...(event.retryAfterSeconds !== undefined
            ? { 'switchboard.retry_after_seconds': event.retryAfterSeconds }
            : {}),
        });
        return;
      }
      case 'rate_limit_waited': {
        const span = event.callId === undefined ? undefined : this.calls.get(event.callId);
        span?.addEvent('switchboard.rate_limit.wait', {
          'switchboard.rate_limit.key': event.keyTemplate,
          'switchboard.rate_limit.waited_ms': Math.round(event.waitedMs),
        });
        return;
      }
    }
  };

  /** The caller's span, from the trace context in the request's `_meta`, or none. */
  private remoteParent(event: ToolCallStarted): Context {
    const { api } = this;
    const traceparent = event.request?.traceparent;
    if (traceparent === undefined) return api.ROOT_CONTEXT;
    const carrier: Record<string, string> = { traceparent };
    if (event.request?.tracestate !== undefined) carrier.tracestate = event.request.tracestate;
    return this.propagator.extract(api.ROOT_CONTEXT, carrier, api.defaultTextMapGetter);
  }
}

/** A tool call span's attributes at its start. */
function callAttributes(event: ToolCallStarted): Attributes {
  const { request } = event;
  const attributes: Attributes = {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'switchboard.call.id': event.callId,
    'switchboard.service': event.service,
  };
  // A name the server does not have is the caller's text: not recorded.
  if (event.specName !== undefined) attributes['gen_ai.tool.name'] = event.tool;
  if (event.parentCallId !== undefined) attributes['switchboard.parent_call.id'] = event.parentCallId;
  if (!request) return attributes;
  // MCP conventions: `pipe` for stdio, `tcp` for HTTP.
  attributes['network.transport'] = request.transport === 'stdio' ? 'pipe' : 'tcp';
  if (request.transport === 'http') attributes['network.protocol.name'] = 'http';
  if (request.requestId !== undefined) {
    attributes['jsonrpc.request.id'] = String(request.requestId).slice(0, MAX_CLIENT_TEXT);
  }
  if (request.protocolVersion !== undefined) attributes['mcp.protocol.version'] = request.protocolVersion;
  // mcp.session.id is left out: where a server keeps sessions, the id is what lets a client in, like a token.
  if (request.clientName !== undefined) {
    attributes['switchboard.client.name'] = request.clientName.slice(0, MAX_CLIENT_TEXT);
  }
  return attributes;
}
