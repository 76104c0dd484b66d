// One stream of call events: each tool call, and each upstream request it causes, as a typed event carrying the
// call's correlation id. Metrics (metrics.ts), traces (tracing.ts) and later the sandbox console are consumers of
// this one stream, not instrumentations of their own: the tool-call path (mcpServer.ts runToolCall) and the
// upstream client (http.ts UpstreamClient.request) emit, and neither knows who listens.
//
// A small emitter of our own rather than node:diagnostics_channel: a subscriber that throws inside a diagnostics
// channel is rethrown on the next tick as an uncaught exception, which would take the server down over a bug in a
// metrics label, while here a consumer's failure is logged and the call goes on. The events are one typed union, so
// a consumer's switch is checked by the compiler. Emitting costs nothing when nobody listens: every emitter checks
// `callEvents.active` before it builds an event object.
//
// The correlation reaches upstream requests through AsyncLocalStorage, entered only while someone listens. Upstream
// requests leave from four places (the endpoint executor, the issue desk's client, the messaging region lookup, the
// store's error hints), each handed only the call's AbortSignal; an explicit id would have to be threaded through
// every service's client, and would still miss the ones a shared lookup makes on a call's behalf.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { ErrorKind, ToolError } from './errors.js';
import type { HttpMethod, UpstreamRequest } from './http.js';
import { log } from './log.js';

export type CallTransport = 'stdio' | 'http';

/** What the MCP request carrying a tool call says about its caller. Built only while someone listens. */
export interface CallRequestInfo {
  transport: CallTransport;
  /** The JSON-RPC id of the tools/call request. */
  requestId?: string | number;
  /** The client's self-reported name (2026-07-28 `_meta` envelope, or a 2025 connection's `initialize`): free text. */
  clientName?: string;
  clientVersion?: string;
  protocolVersion?: string;
  sessionId?: string;
  /** W3C Trace Context the caller sent in `params._meta` (2026-07-28; SEP-414). */
  traceparent?: string;
  tracestate?: string;
}

/** How a tool call ended: a result, a tool error (the result says which kind), a JSON-RPC error, or cancelled. */
export type CallOutcome = 'ok' | 'tool_error' | 'protocol_error' | 'cancelled';

export interface ToolCallOutcome {
  outcome: CallOutcome;
  /** With `tool_error`: the ToolError kind (errors.ts). */
  errorKind?: ErrorKind;
  /** With `protocol_error`: the JSON-RPC error code. */
  protocolErrorCode?: number;
}

export interface ToolCallStarted {
  type: 'tool_call_started';
  /** The correlation id: unique across processes, so logs of several replicas can be joined on it. */
  callId: string;
  /** The discovery mode's call_tool call that ran this one. */
  parentCallId: string | undefined;
  /** The tool's service prefix (`StoreApi`), or `switchboard` for the discovery mode's own tools. */
  service: string;
  /** The name the client called. */
  tool: string;
  /** The spec's dotted name; undefined when the name is no tool of the served set (then `tool` is the caller's text). */
  specName: string | undefined;
  request: CallRequestInfo | undefined;
  /** performance.now() at the start. */
  startedAt: number;
  /**
   * The arguments as the client sent them (the sandbox console shows them). Unredacted, unchecked caller input:
   * a consumer that shows or stores them passes them through secrets.ts `redactValue` first.
   */
  arguments?: unknown;
}

export interface ToolCallEnded extends ToolCallOutcome {
  type: 'tool_call_ended';
  call: ToolCallStarted;
  durationMs: number;
  /** The result the client gets (a CallToolResult), when the run returned one; redact before showing it. */
  result?: unknown;
}

export interface UpstreamRequestStarted {
  type: 'upstream_request_started';
  /** The tool call that caused it; undefined outside any call (or for a lookup shared by several). */
  callId: string | undefined;
  /** The upstream client's service (`StoreApi`). */
  service: string;
  method: HttpMethod;
  /** The path template (`/v0/{baseId}/{tableIdOrName}`): never the filled path, never the query. */
  pathTemplate: string;
  serverAddress: string;
  serverPort: number;
  /** 0 for the first try, then 1, 2 for retries. */
  attempt: number;
  startedAt: number;
}

export interface UpstreamRequestEnded {
  type: 'upstream_request_ended';
  request: UpstreamRequestStarted;
  /** The HTTP status, when an answer came. */
  status: number | undefined;
  /** The ToolError kind, when the attempt failed (an error status, a timeout, a dropped connection). */
  errorKind: ErrorKind | undefined;
  /** A network failure's code (`ECONNREFUSED`), never a message. */
  errorCode: string | undefined;
  /** The MCP client cancelled the call while this attempt was under way. */
  cancelled: boolean;
  durationMs: number;
}

/** A request held by the client-side rate limiter before it was sent. */
export interface RateLimitWaited {
  type: 'rate_limit_waited';
  callId: string | undefined;
  service: string;
  /** The limiter's key with identifiers replaced by their placeholders (`base:{baseId}`). */
  keyTemplate: string;
  waitedMs: number;
}

/** An upstream 429: the upstream said slow down. */
export interface UpstreamRateLimited {
  type: 'upstream_rate_limited';
  request: UpstreamRequestStarted;
  keyTemplate: string;
  retryAfterSeconds: number | undefined;
}

export type CallEvent =
  | ToolCallStarted
  | ToolCallEnded
  | UpstreamRequestStarted
  | UpstreamRequestEnded
  | RateLimitWaited
  | UpstreamRateLimited;

export type CallEventListener = (event: CallEvent) => void;

/**
 * Acquiring a rate-limit slot that took less than this is bookkeeping, not a wait a caller feels: the limiter's own
 * queue, or a round trip to a shared Redis. Real waits are the store's 250 ms spacing or the issue desk's seconds.
 */
export const RATE_LIMIT_WAIT_THRESHOLD_MS = 10;

export class CallEventStream {
  private listeners: readonly CallEventListener[] = [];
  /** The listeners that join upstream requests to their call (`correlate`). */
  private correlating: readonly CallEventListener[] = [];
  private readonly failed = new WeakSet<CallEventListener>();
  /** Whether anyone listens: emitters check it before they build an event. */
  active = false;
  /**
   * Whether anyone needs each upstream request (and a discovery call's inner call) tied to the tool call that
   * caused it. Only then does a call run in an AsyncLocalStorage context: on Node 20 an enabled storage puts a
   * hook on every promise the process makes, a cost counting (metrics.ts) has no need to pay. Without it,
   * `callId` of upstream events and `parentCallId` are undefined.
   */
  correlated = false;

  /**
   * Starts delivering every event to `listener`, synchronously, in order; returns the unsubscribe. `correlate`:
   * the listener needs upstream requests tied to their calls (traces do).
   */
  subscribe(listener: CallEventListener, options: { correlate?: boolean } = {}): () => void {
    this.listeners = [...this.listeners, listener];
    if (options.correlate) this.correlating = [...this.correlating, listener];
    this.refresh();
    return () => {
      this.listeners = this.listeners.filter((other) => other !== listener);
      this.correlating = this.correlating.filter((other) => other !== listener);
      this.refresh();
      // Node keeps an async hook on every promise while a storage is enabled: off again with the last one.
      if (!this.correlated && this === callEvents) currentCall.disable();
    };
  }

  private refresh(): void {
    this.active = this.listeners.length > 0;
    this.correlated = this.correlating.length > 0;
  }

  emit(event: CallEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A consumer's bug never fails a call; said once per consumer, not once per event.
        if (this.failed.has(listener)) continue;
        this.failed.add(listener);
        log('warn', 'a call event consumer failed; its later failures are not logged', {
          event: event.type,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}

/** The process's stream. */
export const callEvents = new CallEventStream();

/** The tool call the current async context runs for; entered only while someone listens. */
const currentCall = new AsyncLocalStorage<ToolCallStarted>();

/**
 * Runs one tool call between its started and ended events, with its correlation current for the upstream
 * requests it causes. `outcomeOf` reads the outcome from the result; a run that throws ended as a protocol error
 * (the SDK answers it with a JSON-RPC error). Call it only when `callEvents.active`.
 */
export async function observeToolCall<R>(
  tool: { name: string; specName: string },
  request: CallRequestInfo | undefined,
  run: () => Promise<R>,
  outcomeOf: (result: R) => ToolCallOutcome,
  args?: unknown,
): Promise<R> {
  const parent = currentCall.getStore();
  const started: ToolCallStarted = {
    type: 'tool_call_started',
    callId: crypto.randomUUID(),
    parentCallId: parent?.callId,
    service: serviceOf(tool.specName),
    tool: tool.name,
    specName: tool.specName,
    request: request ?? parent?.request,
    startedAt: performance.now(),
    ...(args === undefined ? {} : { arguments: args }),
  };
  callEvents.emit(started);
  let ended: ToolCallOutcome = { outcome: 'protocol_error', protocolErrorCode: INTERNAL_ERROR };
  let returned: { result: R } | undefined;
  try {
    const result = await (callEvents.correlated ? currentCall.run(started, run) : run());
    ended = outcomeOf(result);
    returned = { result };
    return result;
  } finally {
    callEvents.emit({
      type: 'tool_call_ended',
      call: started,
      outcome: ended.outcome,
      errorKind: ended.errorKind,
      protocolErrorCode: ended.protocolErrorCode,
      durationMs: performance.now() - started.startedAt,
      ...(returned ? { result: returned.result } : {}),
    });
  }
}

/**
 * The header that tells an upstream which tool call a request belongs to. Sent only to the origins registered
 * with `shareCallIdWith` (the sandbox console registers its in-process emulators, whose request log records it),
 * and only while a correlating listener makes the call id known: never to a real upstream.
 */
export const CALL_ID_HEADER = 'x-switchboard-call-id';

const callIdOrigins = new Map<string, number>();

/** Upstream origins (`http://127.0.0.1:4010`) that get CALL_ID_HEADER from now on; returns the undo. */
export function shareCallIdWith(origins: readonly string[]): () => void {
  for (const origin of origins) callIdOrigins.set(origin, (callIdOrigins.get(origin) ?? 0) + 1);
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    for (const origin of origins) {
      const left = (callIdOrigins.get(origin) ?? 1) - 1;
      if (left > 0) callIdOrigins.set(origin, left);
      else callIdOrigins.delete(origin);
    }
  };
}

/** The call-id header for a request to `url`, when its origin is registered and a call is current. */
export function callIdHeaderFor(url: URL): Record<string, string> | undefined {
  if (callIdOrigins.size === 0 || !callIdOrigins.has(url.origin)) return undefined;
  const callId = currentCall.getStore()?.callId;
  return callId ? { [CALL_ID_HEADER]: callId } : undefined;
}

const INTERNAL_ERROR = -32603;

/** A tools/call for a name the server does not have: a protocol error, with no tool name of ours to label it. */
export function unknownToolCalled(name: string, request: CallRequestInfo | undefined, code: number): void {
  const started: ToolCallStarted = {
    type: 'tool_call_started',
    callId: crypto.randomUUID(),
    parentCallId: currentCall.getStore()?.callId,
    service: 'unknown',
    // The caller's text, cut short: it reaches logs, never metric labels or span names (specName is unset).
    tool: name.slice(0, 200),
    specName: undefined,
    request,
    startedAt: performance.now(),
  };
  callEvents.emit(started);
  callEvents.emit({
    type: 'tool_call_ended',
    call: started,
    outcome: 'protocol_error',
    protocolErrorCode: code,
    durationMs: performance.now() - started.startedAt,
  });
}

/** `StoreApi.StoreGetRecord` -> `StoreApi`; the discovery mode's own tools have no prefix. */
function serviceOf(specName: string): string {
  const dot = specName.indexOf('.');
  return dot > 0 ? specName.slice(0, dot) : 'switchboard';
}

/** The rate-limit key function of an upstream client (UpstreamClientOptions.rateLimitKey). */
type RateKeyOf = ((request: UpstreamRequest) => string) | undefined;

/**
 * The limiter's key for `request` with every path parameter replaced by its placeholder, so it can label a
 * metric: `base:{baseId}`, not the base's id. Query and body are left out, so no key function can read values
 * from them.
 */
export function rateKeyTemplate(keyOf: RateKeyOf, request: UpstreamRequest): string {
  const fallback = `${request.method} ${request.path}`;
  if (!keyOf) return fallback;
  const params: Record<string, string> = {};
  for (const name of Object.keys(request.params ?? {})) params[name] = `{${name}}`;
  return keyOf({ method: request.method, path: request.path, params });
}

/** After the rate limiter let a request go: an event when it was held long enough to matter. */
export function rateLimitAcquired(
  service: string,
  waitedMs: number,
  keyOf: RateKeyOf,
  request: UpstreamRequest,
) {
  if (waitedMs < RATE_LIMIT_WAIT_THRESHOLD_MS) return;
  callEvents.emit({
    type: 'rate_limit_waited',
    callId: currentCall.getStore()?.callId,
    service,
    keyTemplate: rateKeyTemplate(keyOf, request),
    waitedMs,
  });
}

/** One attempt of an upstream request is being sent. Call it only when `callEvents.active`. */
export function upstreamRequestStarted(
  service: string,
  url: URL,
  request: UpstreamRequest,
  attempt: number,
): UpstreamRequestStarted {
  const started: UpstreamRequestStarted = {
    type: 'upstream_request_started',
    callId: currentCall.getStore()?.callId,
    service,
    method: request.method,
    pathTemplate: request.path,
    serverAddress: url.hostname,
    serverPort: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    attempt,
    startedAt: performance.now(),
  };
  callEvents.emit(started);
  return started;
}

/**
 * The attempt ended: with an answer (`{status}`), a failure as a ToolError (an error status included), or
 * `undefined` when the call was cancelled while it was under way. A 429 is also its own event, just before.
 */
export function upstreamRequestEnded(
  started: UpstreamRequestStarted,
  outcome: { status: number } | ToolError | undefined,
  keyOf?: RateKeyOf,
  request?: UpstreamRequest,
): void {
  const failure = outcome && 'kind' in outcome ? outcome : undefined;
  const status = outcome?.status;
  if (status === 429 && request) {
    callEvents.emit({
      type: 'upstream_rate_limited',
      request: started,
      keyTemplate: rateKeyTemplate(keyOf, request),
      retryAfterSeconds: failure?.retryAfterSeconds,
    });
  }
  callEvents.emit({
    type: 'upstream_request_ended',
    request: started,
    status,
    errorKind: failure?.kind,
    errorCode: failure && status === undefined ? failure.upstreamCode : undefined,
    cancelled: outcome === undefined,
    durationMs: performance.now() - started.startedAt,
  });
}
