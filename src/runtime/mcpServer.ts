// The MCP server over a prepared ToolSet. Built on the SDK's low-level Server so that tools/list serves the
// prepared entries and a server instance costs almost nothing: stateless HTTP builds one per request.

import {
  type CacheHint,
  type CallToolRequest,
  type CallToolResult,
  CLIENT_INFO_META_KEY,
  type Implementation,
  isInputRequiredResult,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  type CallRequestInfo,
  callEvents,
  observeToolCall,
  type ToolCallOutcome,
  unknownToolCalled,
} from './callEvents.js';
import { callWithConfirmation } from './confirmation.js';
import { type ErrorKind, isToolError } from './errors.js';
import { prepareUpstreamClient } from './http.js';
import { SWITCHBOARD, serviceIcons, switchboardIcons } from './icons.js';
import { log } from './log.js';
import { type ProgressReport, throttledProgress } from './progress.js';
import {
  cancellationReason,
  isDisconnect,
  ProtocolServer,
  SUPPORTED_PROTOCOL_VERSIONS,
  toolCallSignal,
} from './protocol.js';
import { errorResult, successResult } from './result.js';
import { listedTools, serveTasks, taskCapabilities } from './tasks.js';
import { outcomeCheckHint, type Principal, type ToolDefinition } from './tool.js';
import type { PreparedTool, ToolSet } from './toolset.js';
import { validateArguments } from './validate.js';
import { VERSION } from './version.js';

export const SERVER_NAME = 'switchboard';
/** package.json's version, the same one `switchboard --version` prints. */
export const SERVER_VERSION = VERSION;

export interface McpServerOptions {
  /** The verified caller of this HTTP request (per-user OAuth); every tool call it makes runs as them. */
  principal?: Principal;
  /**
   * The protocol era this instance serves (the SDK's serving entries say): it decides whether a dropped connection
   * cancels a tool call (2026-07-28) or not (2025 revisions; see toolCallSignal).
   */
  era?: 'legacy' | 'modern';
}

/**
 * How long a 2026-07-28 client (or a gateway) may reuse tools/list and server/discover, and with whom. Both are
 * fixed for the life of the process (--toolsets, --read-only and the name style are read at start, and the path
 * picks the set), identical for every caller (nothing in them depends on who signed in), and the server never
 * sends list_changed: `public`, for an hour. An hour bounds how long a client may keep a list from before a
 * redeploy that changed the tools; a call of a tool that is gone gets "Unknown tool", naming tools/list.
 * 2025 revisions have no cache fields; the SDK leaves them out there.
 */
export const LIST_CACHE_HINT: CacheHint = { ttlMs: 60 * 60 * 1000, cacheScope: 'public' };

export function createMcpServer(toolSet: ToolSet, options: McpServerOptions = {}): Server {
  const server = new ProtocolServer(serverInfoOf(toolSet), {
    // `tasks` only where a tool runs as a task (2025-11-25; the 2026-07-28 codec drops it): runtime/tasks.ts.
    capabilities: { tools: {}, ...taskCapabilities(toolSet) },
    instructions: toolSet.instructions,
    supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    cacheHints: { 'tools/list': LIST_CACHE_HINT, 'server/discover': LIST_CACHE_HINT },
  });
  server.setRequestHandler('tools/list', async () => {
    warmUpAfterListing(toolSet);
    return { tools: listedTools(toolSet) as never };
  });
  serveTasks(server, toolSet, {
    ...(options.era ? { era: options.era } : {}),
    ...(options.principal ? { principal: options.principal } : {}),
    // A task's calls run as the call that created it, stopped by the task's signal (cancellation, TTL).
    run: (tool, args, signal) =>
      runToolCall(toolSet, tool, args, {
        signal,
        ...(options.principal ? { principal: options.principal } : {}),
      }),
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const tool = toolSet.byName.get(name);
    // Who is calling, for the call's events: read only while someone listens.
    const caller = callEvents.active ? callerOf(request, ctx, server) : undefined;
    if (!tool) {
      if (caller) unknownToolCalled(name, caller, ProtocolErrorCode.InvalidParams);
      // MCP: calling a tool the server does not have is a protocol error (invalid params), not a tool result.
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool "${name}"; tools/list names the tools.`,
      );
    }
    // One channel per request: a call run again after a confirmation keeps its progress increasing.
    const progress = progressOf(request, ctx);
    const run = (callArgs: unknown) =>
      runToolCall(toolSet, tool, callArgs, {
        signal: ctx.mcpReq.signal,
        ...(options.era ? { era: options.era } : {}),
        ...(options.principal ? { principal: options.principal } : {}),
        ...(caller ? { caller } : {}),
        ...progress,
      });
    // Asks the user first where the client can be asked (uncertain lookups, destructive tools): confirmation.ts.
    // Not before the discovery view's call_tool (a set without a catalog): it is marked destructive when any tool
    // behind it is, so it would ask before every call, reads included.
    const result = await callWithConfirmation(
      tool,
      args,
      ctx,
      server,
      toolSet.confirmDestructive !== false && toolSet.catalog !== undefined,
      run,
    );
    if (isInputRequiredResult(result)) return result;
    return server.projectCallToolResult(result, undefined);
  });
  return server;
}

/**
 * The call's progress channel, when the client gave a `progressToken`: reports become `notifications/progress`
 * related to this request (the SDK routes them to its response stream), throttled (progress.ts). A notification
 * that cannot be delivered (the client went away) is not the tool's failure.
 */
function progressOf(request: CallToolRequest, ctx: ServerContext): { progress?: ProgressReport } {
  const meta = (ctx.mcpReq._meta ?? request.params._meta) as { progressToken?: unknown } | undefined;
  const token = meta?.progressToken;
  if (typeof token !== 'string' && typeof token !== 'number') return {};
  const progress = throttledProgress((update) => {
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, ...update } })
      .catch(() => undefined);
  });
  return { progress };
}

const serverInfos = new WeakMap<ToolSet, Implementation>();

/**
 * The server's identity as clients show it: a set of one service's tools is that service's server (its title and
 * icon); several services, or the discovery view (search_tools and call_tool), are Switchboard's. The name stays
 * `switchboard` whatever is served: clients and logs key on it. Worked out once per tool set, since stateless
 * HTTP builds a server per request.
 */
function serverInfoOf(toolSet: ToolSet): Implementation {
  const known = serverInfos.get(toolSet);
  if (known) return known;
  const prefixes = new Set(toolSet.tools.map((tool) => tool.specName.split('.')[0]!));
  const [only] = prefixes;
  const icons = prefixes.size === 1 && only !== undefined ? serviceIcons(only) : undefined;
  const info: Implementation = {
    name: SERVER_NAME,
    version: SERVER_VERSION,
    ...(icons
      ? { title: `${only} (${SWITCHBOARD})`, icons: [...icons] }
      : { title: SWITCHBOARD, icons: [...switchboardIcons()] }),
  };
  serverInfos.set(toolSet, info);
  return info;
}

/**
 * What a tools/call request says about its caller. 2026-07-28 carries the client's identity and the trace context
 * in every request's `_meta`; a 2025 connection said who it is once, in `initialize`.
 */
function callerOf(request: CallToolRequest, ctx: ServerContext, server: Server): CallRequestInfo {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const client = (envelope?.[CLIENT_INFO_META_KEY] ?? server.getClientVersion()) as
    | Partial<Implementation>
    | undefined;
  const meta = (ctx.mcpReq._meta ?? request.params._meta) as Record<string, unknown> | undefined;
  const version = envelope?.[PROTOCOL_VERSION_META_KEY] ?? server.getNegotiatedProtocolVersion();
  return {
    // The SDK gives HTTP transports' requests an `http` context; stdio has none.
    transport: ctx.http ? 'http' : 'stdio',
    requestId: ctx.mcpReq.id,
    clientName: stringOrUndefined(client?.name),
    clientVersion: stringOrUndefined(client?.version),
    protocolVersion: stringOrUndefined(version),
    sessionId: ctx.sessionId,
    traceparent: stringOrUndefined(meta?.traceparent),
    tracestate: stringOrUndefined(meta?.tracestate),
  };
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Seconds after a first tools/list, when the modules its first call needs are loaded (warmUpAfterListing). */
const WARM_UP_DELAY_MS = 1_000;
let warmedUp = false;

/**
 * After its first tools/list a client calls a tool seconds later, if at all (a model reads the list first). The
 * process loads meanwhile what that call would otherwise wait for: each served service's tool module (the built
 * program loads them on first use, runtime/prebuiltTools.ts) and the upstream HTTP client, about 0.15 s of CPU.
 * A second later, not at once: a client that only lists (a cold-start check, a health probe) is not kept waiting
 * or made to share the CPU, and the timer does not keep the process up.
 */
function warmUpAfterListing(toolSet: ToolSet): void {
  if (warmedUp) return;
  warmedUp = true;
  setTimeout(() => {
    prepareUpstreamClient();
    const first = new Map(toolSet.tools.map((tool) => [tool.context, tool]));
    for (const tool of first.values()) tool.load().catch(() => undefined); // a failure is the call's to report
  }, WARM_UP_DELAY_MS).unref();
}

/** What a tool call runs with besides its arguments. */
export interface ToolCallOptions {
  /** The request's abort signal as the SDK gives it (toolCallSignal decides what cancels the call). */
  signal: AbortSignal;
  era?: 'legacy' | 'modern';
  /** The verified caller (per-user OAuth): the call runs with their credentials. */
  principal?: Principal;
  /** What the request says about its caller, for the call's events; set only while someone listens. */
  caller?: CallRequestInfo;
  /** Where the call reports progress, when its client asked for it. */
  progress?: ProgressReport;
}

/**
 * A value a tool's run returns when it already is the result to send: call_tool (runtime/discovery.ts) returns
 * the inner tool's own CallToolResult this way, so it reaches the client as a direct call's would, not wrapped.
 */
export class ReadyResult {
  constructor(readonly result: CallToolResult) {}
}

/**
 * One call of `tool` of `toolSet`, from arguments to the result the client gets: validation, the run, the
 * success or error result with its hints, cancellation. The one body both a direct tools/call and the discovery
 * mode's call_tool run, so the two cannot drift apart.
 */
export async function runToolCall(
  toolSet: ToolSet,
  tool: PreparedTool,
  args: unknown,
  options: ToolCallOptions,
): Promise<CallToolResult> {
  if (!callEvents.active) return executeToolCall(toolSet, tool, args, options);
  return observeToolCall(
    tool,
    options.caller,
    () => executeToolCall(toolSet, tool, args, options),
    outcomeOf,
    args,
  );
}

/** Results that report a cancellation, so a call's outcome can tell one from a failure. */
const cancellations = new WeakSet<CallToolResult>();

/** How a call ended, read from its result: the ToolError kind is in every error result (result.ts errorResult). */
function outcomeOf(result: CallToolResult): ToolCallOutcome {
  if (!result.isError) return { outcome: 'ok' };
  if (cancellations.has(result)) return { outcome: 'cancelled' };
  const error = (result.structuredContent as { error?: { kind?: unknown } } | undefined)?.error;
  const kind = typeof error?.kind === 'string' ? (error.kind as ErrorKind) : 'internal';
  return { outcome: 'tool_error', errorKind: kind };
}

async function executeToolCall(
  toolSet: ToolSet,
  tool: PreparedTool,
  args: unknown,
  options: ToolCallOptions,
): Promise<CallToolResult> {
  // The first call of a service's tool loads its tool module in the built program (runtime/prebuiltTools.ts); a
  // module that cannot load (a broken install) fails the call, not the server.
  let definition: ToolDefinition<unknown>;
  try {
    definition = await tool.load();
  } catch (error) {
    return errorResult(error, tool.name);
  }
  const parsed = validateArguments(definition.input, args, tool.name);
  if (!parsed.ok) return errorResult(presentError(parsed.error, tool, definition, toolSet), tool.name);
  const call = toolCallSignal(options.signal, options.era);
  try {
    const value = await definition.run(parsed.value, tool.context, {
      signal: call.signal,
      toolName: tool.name,
      nameStyle: toolSet.nameStyle,
      ...(options.principal ? { principal: options.principal } : {}),
      ...(options.progress ? { progress: options.progress } : {}),
    });
    if (isDisconnect(options.signal.reason)) {
      // A 2025-era call whose client went away: it ran to completion, and the SDK drops the undeliverable result.
      log('info', 'tool call completed after its client disconnected; the result was not delivered', {
        tool: tool.name,
      });
    }
    if (value instanceof ReadyResult) return value.result;
    // Awaited here, so that a failure while fitting the result to the budget is reported like one in the tool.
    return await successResult(value, {
      tool: { name: tool.name, listEntry: tool.listEntry, definition },
      args,
      maxTokens: toolSet.maxResultTokens,
    });
  } catch (error) {
    if (call.signal.aborted) {
      // A cancellation, not a crash: the SDK sends nothing more for a cancelled request, so this result is dropped.
      log('info', 'tool call cancelled', {
        tool: tool.name,
        reason: cancellationReason(call.signal.reason),
      });
      const cancelled: CallToolResult = {
        content: [{ type: 'text', text: `${tool.name} was cancelled.` }],
        isError: true,
      };
      cancellations.add(cancelled);
      return cancelled;
    }
    return errorResult(presentError(error, tool, definition, toolSet), tool.name);
  } finally {
    call.dispose();
  }
}

/**
 * A tool's failure as its caller should read it: an unknown outcome says how to check it with this tool's own
 * check (the upstream client cannot know which tool reads back what), and tool names follow the client's style.
 */
function presentError(
  error: unknown,
  tool: PreparedTool,
  definition: ToolDefinition<unknown>,
  toolSet: ToolSet,
): unknown {
  if (!isToolError(error)) return error;
  const check = definition.outcomeCheck;
  const explained =
    error.kind === 'outcome_unknown' && check
      ? error.with({ hint: outcomeCheckHint(tool.specName, check) })
      : error;
  return explained.mapText(toolSet.rewriteToolNames);
}
