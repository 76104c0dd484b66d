// Socket limits of the HTTP transport. Node's defaults suit neither side of an MCP endpoint: a request body may
// trickle in for 5 minutes (requestTimeout 300 s), a silent new connection is held 60-90 s (headersTimeout 60 s,
// checked every 30 s), and there is no cap on connections. A request here is one small JSON-RPC message; what takes
// long is the answer (a tool call), and Node's request timeout covers receiving the request only: its clock stops
// when the last byte of the body has arrived, so a tool call may answer as late as it needs.
// Kept free of imports so that the CLI can show the defaults without loading the server.

export interface HttpLimits {
  /** Longest time to receive a whole request, headers and body (Node's requestTimeout); then 408 and close. */
  requestTimeoutMs: number;
  /** Longest time to receive a request's headers (Node's headersTimeout); it also ends a connection left silent. */
  headersTimeoutMs: number;
  /** How long a keep-alive connection may sit idle between requests (Node's keepAliveTimeout). */
  keepAliveTimeoutMs: number;
  /** Most connections open at once (Node's maxConnections); a connection over it is closed as it arrives. */
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
  // Each open tool call holds a connection; this leaves room for upstream sockets and SQLite files under the
  // common 1024 open-file limit.
  maxConnections: 512,
};

/** The limits with defaults filled in, and made consistent: Node refuses a headers timeout over the request timeout. */
export function resolveHttpLimits(limits: Partial<HttpLimits> = {}): HttpLimits {
  const resolved = { ...DEFAULT_HTTP_LIMITS, ...dropUndefined(limits) };
  return { ...resolved, headersTimeoutMs: Math.min(resolved.headersTimeoutMs, resolved.requestTimeoutMs) };
}

/**
 * Options for `http.createServer`. Node checks the two timeouts on a timer (every 30 s by default, which is what
 * stretches 60 s to 90); checking at a quarter of the shorter one keeps a cut close to its limit.
 */
export function nodeServerOptions(limits: HttpLimits) {
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

function dropUndefined(limits: Partial<HttpLimits>): Partial<HttpLimits> {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}
