// The hot path of a shared HTTP server: a 2025-era tools/call answered with one JSON body (transports.ts,
// serveLegacyAsJson). The SDK's stateless answer builds a server and a web-standard transport for every request and
// drops both after it. Keeping them took about 0.3 ms off a call's p50 at one client and 0.5 ms off the server's
// CPU per call (measured side by side with the build before, one client calling StoreGetRecord).
// Here the servers are kept: each serves one request at a time through an in-memory transport (the SDK's Transport
// interface), goes back to a pool when it has answered, and is closed instead when its client hangs up, as the
// per-request server would be. What a request meets is unchanged: the same createMcpServer, the same handlers, and a
// server that never saw the client's `initialize` (nor did the per-request one: stateless, it answered one request).
// Only requests the SDK's transport would pass on unchanged come here (legacyExchangeRequest); the rest, and every
// request with a verified caller (whose server is built for that person), take the SDK's own path.

import {
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type Transport,
} from '@modelcontextprotocol/server';
import { log } from './log.js';
import type { createMcpServer } from './mcpServer.js';
import { MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from './protocol.js';
import type { ToolSet } from './toolset.js';

type McpServer = ReturnType<typeof createMcpServer>;
type JSONRPCResponse = Extract<JSONRPCMessage, { result: unknown } | { error: unknown }>;

/** At most this many idle servers are kept per tool set: the concurrency a busy replica sees, not more. */
const MAX_IDLE_PER_SET = 64;

/**
 * The JSON-RPC request a POST body holds when this path may answer it: one `tools/call` request (no batch, no
 * notification) without a progress token (progress needs the SDK's SSE answer) under a 2025 MCP-Protocol-Version
 * this server supports; anything else, including what the SDK would refuse, is left to the SDK (undefined).
 */
export function legacyExchangeRequest(
  parsedBody: unknown,
  protocolVersionHeader: string | null,
): JSONRPCRequest | undefined {
  if (
    protocolVersionHeader === null ||
    !SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersionHeader) ||
    MODERN_PROTOCOL_VERSIONS.includes(protocolVersionHeader)
  ) {
    return undefined;
  }
  if (!isJSONRPCRequest(parsedBody) || parsedBody.method !== 'tools/call') return undefined;
  const meta = (parsedBody.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta;
  return meta?.progressToken === undefined ? parsedBody : undefined;
}

/** An in-memory transport carrying one request at a time to its server and the response back. */
class ExchangeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #answer: ((response: JSONRPCResponse | undefined) => void) | undefined;

  async start(): Promise<void> {}

  /** Closed when its client hung up: the request in hand gets no answer (undefined), and the server is told. */
  async close(): Promise<void> {
    const answer = this.#answer;
    this.#answer = undefined;
    answer?.(undefined);
    this.onclose?.();
  }

  /**
   * The server's messages: the response to the request in hand is its answer. Notifications and requests to the
   * client cannot reach a client answered with one JSON body, and are dropped, as the SDK's JSON answer drops them.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    // The server's own message, so its shape is known: a response has an id and no method (the SDK's guards would
    // parse the whole result with zod again, a tenth of a millisecond per call).
    if ('method' in message || !('id' in message)) return;
    const answer = this.#answer;
    this.#answer = undefined;
    answer?.(message as JSONRPCResponse);
  }

  exchange(request: JSONRPCRequest, extra: Parameters<NonNullable<Transport['onmessage']>>[1]) {
    return new Promise<JSONRPCResponse | undefined>((resolve) => {
      this.#answer = resolve;
      this.onmessage?.(request, extra);
    });
  }
}

interface PooledServer {
  server: McpServer;
  transport: ExchangeTransport;
}

/**
 * Answers legacyExchangeRequest's requests with kept servers of `make` (one per tool set served), returning the
 * JSON answer the SDK's stateless JSON mode would.
 */
export function legacyExchanges(make: (served: ToolSet) => McpServer) {
  const idle = new WeakMap<ToolSet, PooledServer[]>();

  const checkOut = async (served: ToolSet): Promise<PooledServer> => {
    const kept = idle.get(served)?.pop();
    if (kept) return kept;
    const server = make(served);
    const transport = new ExchangeTransport();
    await server.connect(transport);
    return { server, transport };
  };

  const checkIn = (served: ToolSet, pooled: PooledServer) => {
    const servers = idle.get(served) ?? [];
    idle.set(served, servers);
    if (servers.length < MAX_IDLE_PER_SET) servers.push(pooled);
    else pooled.server.close().catch(() => undefined);
  };

  return async (served: ToolSet, request: Request, message: JSONRPCRequest): Promise<Response> => {
    const pooled = await checkOut(served);
    // A hang-up closes this server, as it closes the per-request one: a 2025 call still runs to its end
    // (toolCallSignal) and its result is not delivered; the server is not kept.
    let hungUp = false;
    const hangUp = () => {
      hungUp = true;
      pooled.server.close().catch(() => undefined);
    };
    request.signal.addEventListener('abort', hangUp, { once: true });
    try {
      const response = await pooled.transport.exchange(message, { request });
      // Without an answer the client has gone: nothing is delivered, whatever is returned.
      if (!response) return new Response(null, { status: 204 });
      return Response.json(response, { status: 200, headers: { 'Content-Type': 'application/json' } });
    } catch (error) {
      hungUp = true;
      pooled.server.close().catch(() => undefined);
      log('debug', 'kept MCP server failed a request; it is not kept', { error: String(error) });
      throw error;
    } finally {
      request.signal.removeEventListener('abort', hangUp);
      if (!hungUp) checkIn(served, pooled);
    }
  };
}
