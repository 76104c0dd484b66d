// MCP protocol rules Switchboard holds itself to, on top of what the SDK checks: the one list of protocol revisions
// it serves, JSON-RPC message shape for the raw stdio lines, and request params checked before the SDK's own
// parse (which answers a bad param with -32603 and a raw schema dump; MCP and JSON-RPC say -32602, naming the field).

import {
  type JSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  parseJSONRPCMessage,
  type Result,
  SdkError,
  SdkErrorCode,
  Server,
  type ServerContext,
  type StandardSchemaV1,
  specTypeSchemas,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';

/**
 * Every protocol revision Switchboard serves, newest first: 2026-07-28 (stateless, the version in each request's
 * `_meta`) and the 2025 revisions that open with `initialize`. The one list that the -32022 error data,
 * `server/discover` and the legacy "unsupported MCP-Protocol-Version" answer all report, and the one the
 * `initialize` handshake negotiates within. (The SDK also speaks 2024-11-05 and 2024-10-07, the HTTP+SSE era; an
 * `initialize` asking for those is offered 2025-11-25.)
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  '2026-07-28',
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
];

/** The revisions whose requests carry their version in `_meta` instead of negotiating it with `initialize`. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter(
  (version) => version >= '2026-07-28',
);

/** The only served revision with JSON-RPC batches: 2025-06-18 removed them, and 2026-07-28 has none. */
export const BATCH_PROTOCOL_VERSION = '2025-03-26';

/** The -32022 answer to a request whose `_meta` names a revision not served, listing the ones that are. */
export function unsupportedVersionError(requested: string): {
  code: number;
  message: string;
  data: unknown;
} {
  const error = new UnsupportedProtocolVersionError({
    supported: [...SUPPORTED_PROTOCOL_VERSIONS],
    requested,
  });
  return {
    code: error.code,
    message: `${error.message} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    data: error.data,
  };
}

/** Whether a message claims the 2026-07-28 per-request envelope: its `_meta` names a protocol version. */
export function claimsProtocolVersion(message: unknown): boolean {
  const params = isObject(message) ? message.params : undefined;
  const meta = isObject(params) ? params._meta : undefined;
  return isObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON-RPC error response. `id` is null where the request's id could not be read (JSON-RPC 2.0 §5). */
export interface JsonRpcErrorReply {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string; data?: unknown };
}

export function errorReply(
  id: string | number | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcErrorReply {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** The id of a would-be request, when it can be read (a string or a number). */
export function readableId(value: unknown): string | number | null {
  const id = isObject(value) ? value.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * Checks one parsed JSON value as a JSON-RPC 2.0 message as MCP uses it. Returns the -32600 answer that says what
 * is wrong with it, or undefined when the SDK will take it.
 */
export function invalidMessage(value: unknown): JsonRpcErrorReply | undefined {
  const invalid = (problem: string, id: string | number | null = readableId(value)) =>
    errorReply(id, ProtocolErrorCode.InvalidRequest, `Invalid Request: ${problem}`);
  if (!isObject(value)) {
    return invalid(`a JSON-RPC message is an object, got ${describeJson(value)}`, null);
  }
  if (value.jsonrpc !== '2.0') {
    return invalid(
      'jsonrpc' in value
        ? `"jsonrpc" must be "2.0", got ${describeJson(value.jsonrpc)}`
        : '"jsonrpc": "2.0" is missing',
    );
  }
  if ('id' in value && typeof value.id !== 'string' && typeof value.id !== 'number') {
    return invalid(`"id" must be a string or a number, got ${describeJson(value.id)}`, null);
  }
  if ('method' in value) {
    if (typeof value.method !== 'string')
      return invalid(`"method" must be a string, got ${describeJson(value.method)}`);
    if ('params' in value && !isObject(value.params)) {
      return invalid(`"params" must be an object, got ${describeJson(value.params)}`);
    }
  } else if (!('result' in value) && !('error' in value)) {
    return invalid('a request or notification needs "method"; a response needs "result" or "error"');
  }
  try {
    parseJSONRPCMessage(value);
  } catch {
    // Our checks above name the usual mistakes; this catches the rest the SDK would otherwise drop without a word.
    return invalid('not a JSON-RPC 2.0 request, notification or response');
  }
  return undefined;
}

/** A short, safe description of a JSON value for an error message: its type, and a quote when it is short. */
export function describeJson(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  const quote = text.length > 40 ? `${text.slice(0, 37)}...` : text;
  return `${typeof value} ${quote}`;
}

// The requests whose params the SDK parses with a schema before our handlers run (ping and server/discover take none).
const PARAMS_SCHEMAS: Readonly<Record<string, StandardSchemaV1>> = {
  initialize: specTypeSchemas.InitializeRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'tools/call': specTypeSchemas.CallToolRequest,
};

/** The -32602 error for a request whose params do not fit, naming each field and what is wrong with it. */
async function checkParams(method: string, request: JSONRPCRequest): Promise<void> {
  const schema = PARAMS_SCHEMAS[method];
  if (schema) {
    const outcome = await schema['~standard'].validate({ method, params: request.params ?? {} });
    if (outcome.issues) {
      const problems = outcome.issues.slice(0, 5).map(describeIssue).join('; ');
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for ${method}: ${problems}.`);
    }
  }
  if (method === 'tools/list') {
    const cursor = (request.params as { cursor?: unknown } | undefined)?.cursor;
    if (cursor !== undefined) {
      // tools/list is one page: any cursor is one this server never issued (MCP pagination: invalid cursor, -32602).
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid params for tools/list: cursor ${describeJson(cursor)} was not issued by this server; tools/list returns every tool in one page, so call it without a cursor.`,
      );
    }
  }
}

function describeIssue(issue: StandardSchemaV1.Issue): string {
  const path = (issue.path ?? [])
    .map((segment) => (typeof segment === 'object' ? segment.key : segment))
    .filter((segment, index) => !(index === 0 && segment === 'params'))
    .map(String)
    .join('.');
  const field = path === '' ? 'params' : path;
  // zod says "Invalid input: expected string, received undefined"; a missing field reads better as "missing".
  const typeMismatch = /expected (\w+), received (\w+)/.exec(issue.message);
  if (typeMismatch) {
    return typeMismatch[2] === 'undefined'
      ? `${field} is missing (expected ${typeMismatch[1]})`
      : `${field} must be ${typeMismatch[1]}, got ${typeMismatch[2]}`;
  }
  return `${field}: ${issue.message.replace(/^Invalid input: /, '')}`;
}

/**
 * The SDK's low-level Server with Switchboard's protocol rules: request params checked before the SDK parses them
 * (so a bad param is -32602 naming the field, not -32603 with a schema dump), and `server/discover` reporting the
 * same supported-version list as every other answer. `_wrapHandler` is the SDK's documented hook for subclasses
 * wrapping registered handlers (the SDK's own Server uses it for tools/call); it also runs for the handlers the SDK
 * registers itself (initialize, server/discover). It runs during the base constructor, so it uses no instance state.
 */
export class ProtocolServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const inner = super._wrapHandler(method, handler);
    if (method === 'server/discover') {
      return async (request, ctx) => ({
        ...(await inner(request, ctx)),
        supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      });
    }
    if (!(method in PARAMS_SCHEMAS)) return inner;
    return async (request, ctx) => {
      await checkParams(method, request);
      if (method === 'tools/call' && this.taskCall) {
        // A task-augmented call answers with a CreateTaskResult, which the SDK's tools/call wrapper (`inner`)
        // refuses as "not a CallToolResult": it has no task runtime (runtime/tasks.ts).
        const created = await this.taskCall(request, ctx);
        if (created) return created;
      }
      return inner(request, ctx);
    };
  }

  /**
   * Answers a tools/call that becomes a task (2025-11-25 tasks, or the 2026-07-28 tasks extension's
   * `resultType: "task"`) with its CreateTaskResult; undefined for any other call, which goes on to the tools/call
   * handler. Set by runtime/tasks.ts on servers whose tools offer tasks.
   */
  taskCall?: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result | undefined>;
}

/** Whether a request's abort came from its connection closing, not from a `notifications/cancelled`. */
export function isDisconnect(reason: unknown): boolean {
  return reason instanceof SdkError && reason.code === SdkErrorCode.ConnectionClosed;
}

/**
 * The signal a tool call runs with. 2026-07-28: closing a request's response stream is its cancellation (Streamable
 * HTTP, Cancellation), and so is `notifications/cancelled` on stdio: the SDK's signal as it is. 2025 revisions:
 * only `notifications/cancelled` cancels; a dropped connection does not (stateless HTTP cannot even carry a
 * `notifications/cancelled` for the request), so the call runs to completion, which matters for writes.
 */
export function toolCallSignal(
  requestSignal: AbortSignal,
  era: 'legacy' | 'modern' | undefined,
): { signal: AbortSignal; dispose(): void } {
  if (era !== 'legacy') return { signal: requestSignal, dispose: () => undefined };
  const controller = new AbortController();
  const forward = () => {
    if (!isDisconnect(requestSignal.reason)) controller.abort(requestSignal.reason);
  };
  if (requestSignal.aborted) forward();
  else requestSignal.addEventListener('abort', forward, { once: true });
  return { signal: controller.signal, dispose: () => requestSignal.removeEventListener('abort', forward) };
}

/** Why a tool call was cancelled, for the log. */
export function cancellationReason(reason: unknown): string {
  if (isDisconnect(reason)) return 'the client closed the request';
  if (typeof reason === 'string' && reason !== '') return reason;
  return 'notifications/cancelled';
}
