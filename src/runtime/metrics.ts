// Prometheus metrics, as a consumer of the call events (callEvents.ts): tool calls by tool and outcome, their
// latency, upstream requests by service and status, their latency, upstream 429s, client-side rate-limit waits,
// calls in flight, and prom-client's default process metrics. Each CallMetrics has its own registry (never
// prom-client's global one), so a test can make its own and read only what its calls did.
//
// Labels are bounded and carry no secret: tool labels are the served set's dotted names (a name the server does not
// have is counted as `unknown_tool`), services are our own names, statuses are HTTP codes or our error kinds, and
// rate-limit keys are templates (`base:{baseId}`). No id, no argument, no URL, no client-chosen text.
//
// Loaded only by an HTTP server (serve.ts): prom-client costs tens of milliseconds to load, which a stdio server's
// cold start should not pay for numbers nobody can scrape.

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type CallEvent, type CallEventStream, callEvents } from './callEvents.js';

/** Seconds: from a schema-mode answer (microseconds) to an upstream near its timeout. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds: from the store's 250 ms spacing to the issue desk's minute windows. */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

/** A label value that is one of our own identifiers; anything else is counted under `other`. */
const PLAIN_LABEL = /^[A-Za-z0-9_.:{}/ -]{1,120}$/;
const label = (value: string): string => (PLAIN_LABEL.test(value) ? value : 'other');

export interface MetricsText {
  contentType: string;
  body: string;
}

export interface CallMetricsOptions {
  /** prom-client's default process metrics (CPU, memory, event loop lag, GC, handles); default on. */
  defaultMetrics?: boolean;
}

export class CallMetrics {
  readonly registry = new Registry();
  private readonly toolCalls: Counter<'tool' | 'outcome' | 'error_kind'>;
  private readonly toolCallSeconds: Histogram<'tool'>;
  private readonly inFlight: Gauge;
  private readonly upstreamRequests: Counter<'service' | 'status'>;
  private readonly upstreamSeconds: Histogram<'service'>;
  private readonly upstream429s: Counter<'service'>;
  private readonly rateLimitWaits: Counter<'service' | 'key'>;
  private readonly rateLimitWaitSeconds: Histogram<'service'>;
  private unsubscribe: (() => void) | undefined;

  constructor(options: CallMetricsOptions = {}) {
    const registers = [this.registry];
    this.toolCalls = new Counter({
      name: 'switchboard_tool_calls_total',
      help: 'Tool calls by tool (the spec name) and outcome (ok, tool_error, protocol_error, cancelled); error_kind is the tool error kind.',
      labelNames: ['tool', 'outcome', 'error_kind'],
      registers,
    });
    this.toolCallSeconds = new Histogram({
      name: 'switchboard_tool_call_duration_seconds',
      help: 'Tool call latency, from the request to its result, by tool.',
      labelNames: ['tool'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.inFlight = new Gauge({
      name: 'switchboard_tool_calls_in_flight',
      help: 'Tool calls under way (a discovery call_tool and the call it runs count once).',
      registers,
    });
    this.upstreamRequests = new Counter({
      name: 'switchboard_upstream_requests_total',
      help: 'Upstream HTTP requests (each attempt) by service and status: the HTTP code, or timeout, network or cancelled when no answer came.',
      labelNames: ['service', 'status'],
      registers,
    });
    this.upstreamSeconds = new Histogram({
      name: 'switchboard_upstream_request_duration_seconds',
      help: 'Upstream HTTP request latency (each attempt, without rate-limit waits), by service.',
      labelNames: ['service'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.upstream429s = new Counter({
      name: 'switchboard_upstream_rate_limited_total',
      help: 'Upstream 429 answers by service.',
      labelNames: ['service'],
      registers,
    });
    this.rateLimitWaits = new Counter({
      name: 'switchboard_rate_limit_waits_total',
      help: 'Requests the client-side rate limiter held before sending, by service and limit key template.',
      labelNames: ['service', 'key'],
      registers,
    });
    this.rateLimitWaitSeconds = new Histogram({
      name: 'switchboard_rate_limit_wait_seconds',
      help: 'How long the client-side rate limiter held a request before sending, by service.',
      labelNames: ['service'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Starts counting `stream`'s events (the process's stream by default). */
  listen(stream: CallEventStream = callEvents): this {
    this.unsubscribe ??= stream.subscribe(this.record);
    return this;
  }

  /** Stops counting; the registry keeps what it counted. */
  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** The Prometheus text exposition of everything counted, with its content type. */
  async text(): Promise<MetricsText> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private readonly record = (event: CallEvent): void => {
    switch (event.type) {
      // Every call counts, the discovery mode's call_tool and the tool it runs alike: a nested call's parent is
      // known only while traces correlate (callEvents.ts), and the count must not depend on that.
      case 'tool_call_started':
        this.inFlight.inc();
        return;
      case 'tool_call_ended': {
        const { call } = event;
        this.inFlight.dec();
        const tool = call.specName === undefined ? 'unknown_tool' : label(call.specName);
        this.toolCalls.inc(
          event.errorKind === undefined
            ? { tool, outcome: event.outcome }
            : { tool, outcome: event.outcome, error_kind: label(event.errorKind) },
        );
        this.toolCallSeconds.observe({ tool }, event.durationMs / 1000);
        return;
      }
      case 'upstream_request_ended': {
        const service = label(event.request.service);
        const status =
          event.status !== undefined
            ? String(event.status)
            : event.cancelled
              ? 'cancelled'
              : event.errorKind === 'timeout'
                ? 'timeout'
                : 'network';
        this.upstreamRequests.inc({ service, status });
        this.upstreamSeconds.observe({ service }, event.durationMs / 1000);
        return;
      }
      case 'upstream_rate_limited':
        this.upstream429s.inc({ service: label(event.request.service) });
        return;
      case 'rate_limit_waited': {
        const service = label(event.service);
        this.rateLimitWaits.inc({ service, key: label(event.keyTemplate) });
        this.rateLimitWaitSeconds.observe({ service }, event.waitedMs / 1000);
        return;
      }
      case 'upstream_request_started':
        return;
    }
  };
}

let processMetrics: CallMetrics | undefined;

/**
 * The process's metrics, counting from now on; the same object on every call. An HTTP server starts them before it
 * serves (serve.ts), so a scrape reads totals since the process began.
 */
export function startMetrics(): CallMetrics {
  processMetrics ??= new CallMetrics().listen();
  return processMetrics;
}

/** What `GET /metrics` answers: the process's metrics as Prometheus text (started on first use if not yet). */
export async function metricsText(): Promise<MetricsText> {
  return startMetrics().text();
}
