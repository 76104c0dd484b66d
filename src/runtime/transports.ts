// Serving a ToolSet over stdio or Streamable HTTP, through the SDK's serving entries. 2026-07-28 and the 2025
// revisions (protocol.ts has the list) are accepted on both transports. Over HTTP every request gets a fresh, cheap
// server (the tool list and schemas are prepared once in the ToolSet). What the SDK's entries leave unchecked is
// checked here before them: stdio lines in stdio.ts, HTTP POSTs in checkMcpPost, socket limits in httpLimits.ts.
// Over HTTP, `/mcp` serves the whole set and `/mcp/<toolsets>` (`/mcp/store.records,store.comments`) a subset of
// it; `/mcp/discovery` and `/mcp/<toolsets>/discovery` serve the discovery mode over either; all behind the same
// guards (docs/toolsets.md). Beside them, for the machines that run the server (docs/operating.md): /healthz and
// /readyz (health.ts), /metrics (metricsEndpoint.ts), the graceful stop (lifecycle.ts), and behind a trusted proxy
// the forwarded host in the Host check (publicUrl.ts).

import { timingSafeEqual } from 'node:crypto';
import { type Server as HttpServer, IncomingMessage } from 'node:http';
import { serve as serveNode } from '@hono/node-server';
import {
  type AuthInfo,
  classifyInboundRequest,
  createMcpHandler,
  hostHeaderValidationResponse,
  isJsonContentType,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  ProtocolErrorCode,
  readRequestBody,
  validateHostHeader,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { type Context, Hono } from 'hono';
import { discoveryToolSet } from './discovery.js';
import { mountHealth } from './health.js';
import { type HttpLimits, nodeServerOptions, resolveHttpLimits } from './httpLimits.js';
import { legacyExchangeRequest, legacyExchanges } from './legacyExchange.js';
import { HttpLifecycle } from './lifecycle.js';
import { log } from './log.js';
import { createMcpServer, SERVER_NAME, SERVER_VERSION } from './mcpServer.js';
import {
  METRICS_PATH,
  type MetricsSource,
  metricsResponse,
  type RunningMetricsServer,
  serveMetricsPort,
} from './metricsEndpoint.js';
import {
  BATCH_PROTOCOL_VERSION,
  errorReply,
  isObject,
  MODERN_PROTOCOL_VERSIONS,
  readableId,
  unsupportedVersionError,
} from './protocol.js';
import { requestHost, trustedRequestOrigin } from './publicUrl.js';
import type { ReadinessCheck } from './readiness.js';
import type { Principal } from './tool.js';
import {
  chooseToolsets,
  narrowToolSet,
  servedToolsets,
  ToolSelectionError,
  type ToolSet,
} from './toolset.js';

/**
 * Who may use the MCP endpoint, beyond the DNS-rebinding checks: per-user OAuth (src/runtime/auth/) plugs in here.
 */
export interface HttpAuthGate {
  /** Routes served beside the MCP endpoint (discovery documents, an authorization server). */
  mount?(app: Hono): void;
  /** The verified caller of a request to the MCP endpoint, or the answer that refuses it. */
  authenticate(request: Request): Promise<AuthInfo | Response> | AuthInfo | Response;
  /** The person a verified AuthInfo stands for; their tool calls run with their own credentials. */
  principalOf?(authInfo: AuthInfo): Principal | undefined;
  /** Hostnames to accept in Host and Origin headers (e.g. the public URL's). */
  allowedHosts?: readonly string[];
}

export interface HttpOptions {
  /** Extra hostnames accepted in Host and Origin headers, besides the localhost ones. */
  allowedHosts?: readonly string[];
  /** When set, requests must carry `Authorization: Bearer <token>`. */
  bearerToken?: string;
  /**
   * An auth gate, or a function making one from the URL the server is bound to (known only once it listens, when
   * the port is 0) and, behind a trusted proxy (`trustProxy`), the public origin each request names (undefined for
   * a host not on the allow-list).
   */
  auth?:
    | HttpAuthGate
    | ((
        boundUrl: URL,
        originOf?: (request: Request) => URL | undefined,
      ) => HttpAuthGate | Promise<HttpAuthGate>);
  /** Socket limits (timeouts, connection cap); unset ones take DEFAULT_HTTP_LIMITS. */
  limits?: Partial<HttpLimits>;
  /**
   * `/mcp` serves the discovery mode of the set (`serve --discovery`), as `/mcp/discovery` always does. Give the
   * set itself, not its discovery view, so that the toolset paths can still be cut from it.
   */
  discovery?: boolean;
  /** What /readyz checks (health.ts); none: ready whenever it serves. */
  readiness?: readonly ReadinessCheck[];
  /** Prometheus text for GET /metrics (metricsEndpoint.ts); unset: no /metrics. */
  metrics?: MetricsSource;
  /** Serve /metrics on this port of the same host, unprotected, instead of on the MCP port (0 picks one). */
  metricsPort?: number;
  /**
   * Believe X-Forwarded-Proto/-Host and Forwarded (publicUrl.ts): the Host check then holds the forwarded host, and
   * an auth gate may name the forwarded origin. Only behind a proxy that sets these headers itself.
   */
  trustProxy?: boolean;
  /** Routes served beside the MCP endpoint behind its guards (the sandbox console); mounted before `/`'s JSON. */
  mount?: (app: Hono, access: GuardedAccess) => void;
}

export const MCP_PATH = '/mcp';

/**
 * What a part served beside the MCP endpoint gets (the sandbox console, src/console/): the endpoint's own guards,
 * and MCP servers built as the endpoint builds them.
 */
export interface GuardedAccess {
  /** The Host and Origin checks alone: for what carries no data (a page's code). */
  refuseForeignHost(request: Request): Response | undefined;
  /** Every guard of the MCP endpoint: Host and Origin, then the bearer token or the auth gate. */
  guard(request: Request): Promise<Response | { authInfo?: AuthInfo }>;
  /** A server over the whole set (never its discovery view) for this verified caller, as the endpoint builds one. */
  mcpServer(authInfo?: AuthInfo): ReturnType<typeof createMcpServer>;
}

/**
 * Largest tools/call body accepted over HTTP. The SDK's default (4 MiB) is below what the store's attachment
 * upload needs: a 5 MB file is about 7 MB of base64 inside the JSON-RPC request.
 */
export const MAX_HTTP_REQUEST_BYTES = 8 * 1024 * 1024;

function isAuthInfo(value: AuthInfo | Response): value is AuthInfo {
  return (
    typeof (value as Partial<AuthInfo>).token === 'string' &&
    Array.isArray((value as Partial<AuthInfo>).scopes)
  );
}

/** The SDK's Host check (hostHeaderValidationResponse, the same 403) for a host taken from elsewhere than Host. */
function foreignHostResponse(host: string | undefined, allowed: string[]): Response | undefined {
  const result = validateHostHeader(host, allowed);
  return result.ok
    ? undefined
    : Response.json(
        { jsonrpc: '2.0', error: { code: -32_000, message: result.message }, id: null },
        { status: 403 },
      );
}

/** Constant-time comparison of a presented Authorization header with the expected one. */
function sameCredential(presented: string | undefined, expected: string): boolean {
  const a = Buffer.from(presented ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** At most this many subsets (`/mcp/<toolsets>`) are kept prepared; the least recently used goes first. */
const MAX_CACHED_SUBSETS = 64;

/** A Map that keeps its `limit` most recently used entries. */
class RecentlyUsed<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly limit: number) {}
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** The last path segment that asks for the discovery mode (no toolset or service is named so: a test holds it). */
export const DISCOVERY_SEGMENT = 'discovery';

/**
 * The same endpoints spelled with `/mcp` last (`/store.records/mcp`, `/discovery/mcp`, `/store/discovery/mcp`),
 * for clients that only keep a URL's path when it ends in `/mcp` (the MCP Inspector's command line posts to
 * `/mcp` at the root otherwise): as `/mcp/...` they name the same set.
 */
export function canonicalMcpPath(pathname: string): string {
  if (pathname === MCP_PATH || pathname.startsWith(`${MCP_PATH}/`) || !pathname.endsWith(MCP_PATH))
    return pathname;
  return `${MCP_PATH}${pathname.slice(0, -MCP_PATH.length)}`;
}

/**
 * The tool set an MCP path serves: `/mcp` the whole set (its discovery view with `discovery`), `/mcp/<selectors>`
 * the subset those toolsets hold, within what the process serves, and either followed by `/discovery` the
 * discovery mode over it; a ToolSelectionError (answered 404) for any other path under `/mcp/`. Subsets are cut
 * from the prepared tools and cached per normalised selection, and paths per spelling, both bounded.
 */
export function toolSetsByPath(
  toolSet: ToolSet,
  options: { discovery?: boolean } = {},
): (pathname: string) => ToolSet | ToolSelectionError {
  const byKey = new RecentlyUsed<ToolSet>(MAX_CACHED_SUBSETS);
  const byPath = new RecentlyUsed<ToolSet>(MAX_CACHED_SUBSETS);
  const notServed = (pathname: string) =>
    new ToolSelectionError(
      `${pathname} is not an MCP endpoint of this server. ${MCP_PATH} serves every tool, ${MCP_PATH}/<toolset>[,<toolset>...] some, and either followed by /${DISCOVERY_SEGMENT} the discovery mode. Toolsets: ${
        servedToolsets(toolSet)
          .map((toolset) => toolset.name)
          .join(', ') || 'this server has no toolsets'
      }.`,
    );
  return (requested) => {
    const pathname = canonicalMcpPath(requested);
    if (pathname === MCP_PATH) return options.discovery ? discoveryToolSet(toolSet) : toolSet;
    const cached = byPath.get(pathname);
    if (cached) return cached;
    const segments = pathname.startsWith(`${MCP_PATH}/`)
      ? pathname.slice(MCP_PATH.length + 1).split('/')
      : [];
    if (segments.length === 1 && segments[0] === DISCOVERY_SEGMENT) return discoveryToolSet(toolSet);
    const discovery = segments.length === 2 && segments[1] === DISCOVERY_SEGMENT;
    // One segment of comma-separated selectors, then `/discovery` or nothing; anything else is no endpoint.
    if (segments.length === 0 || (segments.length === 2 && !discovery) || segments.length > 2) {
      return notServed(pathname);
    }
    let selectors: string[];
    try {
      selectors = decodeURIComponent(segments[0]!).split(',');
    } catch {
      return notServed(pathname);
    }
    let choice: ReturnType<typeof chooseToolsets>;
    try {
      choice = chooseToolsets(toolSet, selectors, `the path ${pathname}`);
    } catch (error) {
      if (error instanceof ToolSelectionError) return error;
      throw error;
    }
    const subset = byKey.get(choice.key) ?? narrowToolSet(toolSet, choice);
    byKey.set(choice.key, subset);
    // discoveryToolSet keeps one view (and its search index) per subset.
    const served = discovery ? discoveryToolSet(subset) : subset;
    byPath.set(pathname, served);
    return served;
  };
}

export function createHttpApp(
  toolSet: ToolSet,
  options: Omit<HttpOptions, 'auth' | 'metricsPort'> & {
    auth?: HttpAuthGate;
    /** True once a graceful shutdown began (serveHttp): /readyz then answers 503. */
    shuttingDown?: () => boolean;
  } = {},
) {
  const gate = options.auth;
  const toolSetFor = toolSetsByPath(toolSet, { discovery: options.discovery === true });
  const serverFor = (served: ToolSet, era: 'legacy' | 'modern', authInfo?: AuthInfo) => {
    const principal = authInfo && gate?.principalOf ? gate.principalOf(authInfo) : undefined;
    return createMcpServer(served, { era, ...(principal ? { principal } : {}) });
  };
  const handler = createMcpHandler(
    (ctx) => {
      // The SDK hands its factory the request only: its path says which set (the route has refused paths that
      // serve none). Without the request there is no telling, so nothing is served.
      if (!ctx.requestInfo) throw new Error('The MCP handler was called without its HTTP request.');
      const served = toolSetFor(new URL(ctx.requestInfo.url).pathname);
      if (served instanceof ToolSelectionError) throw served;
      return serverFor(served, ctx.era === 'legacy' ? 'legacy' : 'modern', ctx.authInfo);
    },
    {
      maxRequestBodySize: MAX_HTTP_REQUEST_BYTES,
      onerror: (error) => log('debug', 'mcp http request rejected', { error: error.message }),
    },
  );
  const extraHosts = [...(options.allowedHosts ?? []), ...(gate?.allowedHosts ?? [])];
  const hosts = [...localhostAllowedHostnames(), ...extraHosts];
  const origins = [...localhostAllowedOrigins(), ...extraHosts];
  // DNS-rebinding protection: a web page must not be able to reach this server through a hostile hostname.
  // Behind a trusted proxy the name checked is the one the client used (the forwarded host), not the proxy's.
  const refuseForeignHost = (request: Request) =>
    (options.trustProxy
      ? foreignHostResponse(requestHost(request, true), hosts)
      : hostHeaderValidationResponse(request, hosts)) ?? originValidationResponse(request, origins);
  /** The 401 for a request without the static bearer token, when one is set. */
  const refuseWithoutBearer = (request: Request): Response | undefined =>
    options.bearerToken &&
    !sameCredential(request.headers.get('authorization') ?? undefined, `Bearer ${options.bearerToken}`)
      ? Response.json(
          { error: 'unauthorized', error_description: 'A valid bearer token is required.' },
          { status: 401, headers: { 'www-authenticate': 'Bearer' } },
        )
      : undefined;
  const answerLegacyCall = legacyExchanges((served) => serverFor(served, 'legacy'));
  /** The SDK's handler, after the checks its entry leaves out (checkMcpPost). */
  const serveMcp = async (c: Context, served: ToolSet, authInfo?: AuthInfo): Promise<Response> => {
    const checked = await checkMcpPost(c.req.raw, incomingOf(c));
    if (checked instanceof Response) return checked;
    // A request asking for progress gets the SDK's own answer, an SSE stream, which can carry the notifications.
    if (checked.legacy && checked.parsedBody !== undefined && !asksForProgress(checked.parsedBody)) {
      // The common case, a plain tools/call without a verified caller, by a kept server (legacyExchange.ts).
      const exchange = authInfo
        ? undefined
        : legacyExchangeRequest(checked.parsedBody, checked.request.headers.get('mcp-protocol-version'));
      if (exchange) return answerLegacyCall(served, checked.request, exchange);
      const server = serverFor(served, 'legacy', authInfo);
      return serveLegacyAsJson(server, checked.request, checked.parsedBody, authInfo);
    }
    return handler.fetch(checked.request, {
      ...(authInfo ? { authInfo } : {}),
      ...(checked.parsedBody !== undefined ? { parsedBody: checked.parsedBody } : {}),
    });
  };
  /**
   * Every guard of the MCP endpoints, the same for `/mcp` and each path under it: Host and Origin, then the
   * static bearer token or the auth gate. The verified caller (with a gate), or the answer that refuses.
   */
  const guard = async (request: Request): Promise<Response | { authInfo?: AuthInfo }> => {
    const rejected = refuseForeignHost(request) ?? refuseWithoutBearer(request);
    if (rejected) return rejected;
    if (!gate) return {};
    const verified = await gate.authenticate(request);
    // Told apart by shape: @hono/node-server may replace the global Response class the answer was made with.
    return isAuthInfo(verified) ? { authInfo: verified } : verified;
  };
  const app = new Hono();
  // Before everything else, and outside every guard: see health.ts for why.
  mountHealth(app, {
    ...(options.readiness ? { readiness: options.readiness } : {}),
    ...(options.shuttingDown ? { shuttingDown: options.shuttingDown } : {}),
  });
  const metrics = options.metrics;
  if (metrics) {
    // Guarded like /mcp, but a person's OAuth token opens nothing here (metricsEndpoint.ts): with per-user sign-in
    // the figures are served on --metrics-port only.
    app.get(METRICS_PATH, async (c) => {
      const refused = refuseForeignHost(c.req.raw) ?? refuseWithoutBearer(c.req.raw);
      if (refused) return refused;
      if (gate) {
        return c.json(
          {
            error: 'forbidden',
            error_description:
              'With per-user sign-in, metrics are not served on this port: start the server with --metrics-port and scrape that.',
          },
          403,
        );
      }
      return metricsResponse(metrics);
    });
  }
  options.mount?.(app, {
    refuseForeignHost,
    guard,
    mcpServer: (authInfo) => serverFor(toolSet, 'legacy', authInfo),
  });
  app.get(
    '/',
    (c) =>
      refuseForeignHost(c.req.raw) ??
      c.json({
        name: SERVER_NAME,
        version: SERVER_VERSION,
        mcp: MCP_PATH,
        discovery: `${MCP_PATH}/${DISCOVERY_SEGMENT}`,
        tools: toolSet.tools.length,
        toolsets: servedToolsets(toolSet).map((toolset) => ({
          name: toolset.name,
          path: `${MCP_PATH}/${toolset.name}`,
          tools: toolset.tools.length,
        })),
      }),
  );
  gate?.mount?.(app);
  /** Every MCP path: the guards, then the set the path serves (404 for a path that serves none). */
  const mcpRoute = async (c: Context) => {
    // Guarded first: who may not use the server learns nothing of its paths either.
    const guarded = await guard(c.req.raw);
    if (guarded instanceof Response) return guarded;
    const served = toolSetFor(new URL(c.req.url).pathname);
    if (served instanceof ToolSelectionError) {
      return c.json({ error: 'not_found', error_description: served.message }, 404);
    }
    return serveMcp(c, served, guarded.authInfo);
  };
  app.all(MCP_PATH, mcpRoute);
  app.all(`${MCP_PATH}/*`, mcpRoute);
  // The spellings with /mcp last (canonicalMcpPath): one or two segments before it, never a well-known path.
  app.all(`/:toolsets${MCP_PATH}`, mcpRoute);
  app.all(`/:toolsets/${DISCOVERY_SEGMENT}${MCP_PATH}`, mcpRoute);
  return { app, close: () => handler.close() };
}

function jsonRpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  data?: unknown,
) {
  return Response.json(errorReply(id, code, message, data), { status });
}

const NOT_ACCEPTABLE = 'Not Acceptable: Client must accept both application/json and text/event-stream';

/**
 * What Switchboard checks on a POST to the MCP endpoint before the SDK's handler sees it, where the SDK's answer
 * falls short of the spec:
 * - Accept: every revision says a client lists both application/json and text/event-stream. The SDK checks it for
 *   2025 revisions only, by substring (so `*\/*` gets 406), and not at all for 2026-07-28. Checked here for all, as
 *   media ranges; the SDK then gets the two types spelled out.
 * - A `_meta` naming a revision not served: -32022 with the one supported list (the SDK lists 2026-07-28 alone).
 * - JSON-RPC batches: only 2025-03-26 has them (a request without MCP-Protocol-Version is taken as 2025-03-26, as
 *   2025-06-18 says); the SDK takes them under every revision.
 * The body is read here once, within the same size limit, and handed on parsed.
 */
async function checkMcpPost(
  request: Request,
  incoming?: IncomingMessage,
): Promise<Response | { request: Request; parsedBody?: unknown; legacy?: boolean }> {
  // Other methods and media types: the SDK's answers (405, 415) are right.
  if (request.method !== 'POST' || !isJsonContentType(request.headers.get('content-type')))
    return { request };
  if (!acceptsBoth(request.headers.get('accept'))) return jsonRpcError(406, -32_000, NOT_ACCEPTABLE);
  let text: string;
  try {
    const read = incoming
      ? await readIncoming(incoming, MAX_HTTP_REQUEST_BYTES)
      : await readRequestBody(request, MAX_HTTP_REQUEST_BYTES);
    if (read.tooLarge) {
      const refused = jsonRpcError(
        413,
        -32_000,
        `Payload Too Large: Request body must not exceed ${MAX_HTTP_REQUEST_BYTES} bytes`,
      );
      // The rest of the body is not read: the connection ends with this answer.
      refused.headers.set('connection', 'close');
      return refused;
    }
    text = read.text;
  } catch {
    return jsonRpcError(400, ProtocolErrorCode.ParseError, 'Parse error: the request body could not be read');
  }
  // A copy of the request for the SDK, only where the request itself will not do (made per call, it is not free).
  // Keeps the client's abort signal: on 2026-07-28 a closed response stream is the request's cancellation.
  const forward = (withBody?: string) => {
    const headers = new Headers(request.headers);
    headers.set('accept', 'application/json, text/event-stream');
    headers.delete('content-length'); // the body is handed on parsed, or as text, measured anew
    return new Request(request.url, {
      method: 'POST',
      headers,
      signal: request.signal,
      ...(withBody !== undefined ? { body: withBody } : {}),
    });
  };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { request: forward(text) }; // the SDK answers the parse error from the text
  }
  // Parsed, the body goes on as parsedBody (the SDK then never reads the request's): no second stream to build,
  // and when the client spelled both types out (as clients do) the request itself goes on, with nothing copied.
  const accept = request.headers.get('accept') ?? '';
  const forwarded =
    accept.includes('application/json') && accept.includes('text/event-stream') ? request : forward();
  const protocolVersionHeader = request.headers.get('mcp-protocol-version') ?? undefined;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    body,
    ...(protocolVersionHeader ? { protocolVersionHeader } : {}),
  });
  if (route.kind === 'modern') {
    const version = route.classification.revision;
    if (version === undefined || !MODERN_PROTOCOL_VERSIONS.includes(version)) {
      const error = unsupportedVersionError(version ?? 'unknown');
      return jsonRpcError(400, error.code, error.message, readableId(body), error.data);
    }
  }
  if (route.kind === 'legacy' && Array.isArray(body)) {
    const version = protocolVersionHeader ?? BATCH_PROTOCOL_VERSION;
    if (version !== BATCH_PROTOCOL_VERSION) {
      return jsonRpcError(
        400,
        ProtocolErrorCode.InvalidRequest,
        `Invalid Request: JSON-RPC batches are not supported by protocol revision ${version} (only ${BATCH_PROTOCOL_VERSION} has them); send one message per POST.`,
      );
    }
    if (body.some((message) => isObject(message) && message.method === 'initialize')) {
      // 2025-03-26, Lifecycle: the initialization request MUST NOT be part of a JSON-RPC batch.
      return jsonRpcError(
        400,
        ProtocolErrorCode.InvalidRequest,
        'Invalid Request: initialize cannot be part of a batch.',
      );
    }
  }
  return { request: forwarded, parsedBody: body, legacy: route.kind === 'legacy' };
}

/**
 * A 2025-era POST, served as the SDK's stateless fallback serves it (a fresh server and transport per request,
 * closed when the client hangs up) but answered with one JSON body instead of an SSE stream: Streamable HTTP lets
 * the server choose either for a POST, and most clients still speak 2025-11-25. No stream to build, frame and
 * parse on either side is most of what a small call costs. Nothing is sent before a result, so a request that asks
 * for progress (asksForProgress) is not served here.
 */
async function serveLegacyAsJson(
  server: ReturnType<typeof createMcpServer>,
  request: Request,
  parsedBody: unknown,
  authInfo: AuthInfo | undefined,
): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  // A hang-up closes the exchange; a 2025 call still runs to its end (toolCallSignal), and the log says its
  // result was not delivered. An answered exchange is not closed: with its one request answered, server and
  // transport hold nothing but themselves, and closing them only made (and threw away) a "Connection closed"
  // error per call, a tenth of what this path costs.
  const teardown = () => {
    transport.close().catch(() => undefined);
    server.close().catch(() => undefined);
  };
  request.signal.addEventListener('abort', teardown, { once: true });
  try {
    return await transport.handleRequest(request, { parsedBody, ...(authInfo ? { authInfo } : {}) });
  } catch (error) {
    teardown();
    throw error;
  } finally {
    request.signal.removeEventListener('abort', teardown);
  }
}

/** Whether a POST body (one message or a batch) has a request carrying a `progressToken` in its `_meta`. */
function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    const meta = (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta?.progressToken !== undefined;
  });
}

/**
 * Node's request under a Hono request (@hono/node-server passes it as `env.incoming`), when its body has not been
 * touched: read straight from it, a body costs no web stream on the way (a quarter of a millisecond per call).
 */
function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage && !incoming.readableDidRead && !incoming.readableEnded
    ? incoming
    : undefined;
}

/** A request body as text, up to `limit` bytes (the same answer as the SDK's readRequestBody). */
function readIncoming(
  incoming: IncomingMessage,
  limit: number,
): Promise<{ text: string; tooLarge?: false } | { tooLarge: true }> {
  if (Number(incoming.headers['content-length']) > limit) return Promise.resolve({ tooLarge: true });
  // Listeners rather than `for await`: a body is one chunk nearly always, and the async iterator's promises and
  // reads cost more than the chunk (this is on every call's path).
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = () => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // The rest is let go unread (no listener) and the 413 closes the connection (checkMcpPost): destroying the
      // request here would cut the socket before that answer.
      settle();
      resolve({ tooLarge: true });
    };
    const onEnd = () => {
      settle();
      resolve({ text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8') });
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    // Closed before its end (the client went away): as the iterator did, a failure to read.
    const onClose = () => onError(new Error('the request was closed before its body ended'));
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** Whether an Accept header admits both JSON and SSE. A missing one does not: MCP requires clients to send it. */
function acceptsBoth(header: string | null): boolean {
  return header !== null && accepts(header, 'application/json') && accepts(header, 'text/event-stream');
}

/** RFC 9110, Accept: the most specific media range that matches decides, and q=0 means "not acceptable". */
function accepts(header: string, type: string): boolean {
  const anySubtype = `${type.split('/')[0]}/*`;
  let best: { specificity: number; q: number } | undefined;
  for (const part of header.toLowerCase().split(',')) {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const specificity = range === type ? 3 : range === anySubtype ? 2 : range === '*/*' ? 1 : 0;
    if (specificity === 0 || (best && best.specificity >= specificity)) continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    best = { specificity, q: Number.isFinite(weight) ? weight : 1 };
  }
  return best !== undefined && best.q > 0;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  /** Where /metrics is served apart (`metricsPort`), when it is. */
  metricsUrl?: string;
  /** Closes at once: connections are cut, calls in flight with them. */
  close(): Promise<void>;
  /**
   * The graceful stop (lifecycle.ts): no new connections, a 503 for new requests on open ones, calls in flight
   * given up to `graceMs` to finish, then `close`. Resolves with how many requests were still unfinished.
   */
  drain(graceMs: number): Promise<{ unfinished: number }>;
}

export async function serveHttp(
  toolSet: ToolSet,
  listen: { host: string; port: number },
  options: HttpOptions = {},
): Promise<RunningHttpServer> {
  // The app is built once the server listens: an auth gate may need the bound URL (port 0 picks one).
  let app: ReturnType<typeof createHttpApp> | undefined;
  let gate: HttpAuthGate | undefined;
  let lifecycle: HttpLifecycle | undefined;
  let metricsServer: RunningMetricsServer | undefined;
  const notReady = () => new Response('Starting', { status: 503, headers: { 'retry-after': '1' } });
  const limits = resolveHttpLimits(options.limits);
  // Behind a trusted proxy: the public origin a request names, from the names this server answers to (the gate's
  // among them, read once it exists).
  const originOf = options.trustProxy
    ? (request: Request) =>
        trustedRequestOrigin(request, [
          ...localhostAllowedHostnames(),
          ...(options.allowedHosts ?? []),
          ...(gate?.allowedHosts ?? []),
        ])
    : undefined;
  return new Promise((resolve, reject) => {
    const server = serveNode(
      {
        // Not draining (every request but those of a shutdown), the app's answer goes out untouched.
        fetch: (request: Request, env: unknown) => {
          if (!app) return notReady();
          if (!lifecycle?.draining) return app.app.fetch(request, env);
          const draining = lifecycle;
          return (
            draining.refuse(request) ??
            Promise.resolve(app.app.fetch(request, env)).then((response) => draining.answer(response))
          );
        },
        hostname: listen.host,
        port: listen.port,
        serverOptions: nodeServerOptions(limits),
      },
      (info) => {
        const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
        const bound = new URL(`http://${host}:${info.port}`);
        const tracked = lifecycle as HttpLifecycle;
        let closing: Promise<void> | undefined;
        const close = () =>
          (closing ??= (async () => {
            await app?.close();
            await tracked.closeConnections();
            await metricsServer?.close();
          })());
        const drain = async (graceMs: number) => {
          tracked.beginDrain();
          void tracked.stopAccepting();
          log('info', 'shutting down: no new connections; waiting for requests in flight', {
            inFlight: tracked.inFlight,
            graceMs,
          });
          const unfinished = await tracked.settle(graceMs);
          if (unfinished > 0) {
            log('warn', 'requests still in flight after the shutdown grace period are cut', {
              unfinished,
              graceMs,
              hint: 'allow longer with --shutdown-grace',
            });
          }
          await close();
          return { unfinished };
        };
        Promise.resolve(typeof options.auth === 'function' ? options.auth(bound, originOf) : options.auth)
          .then(async (auth) => {
            gate = auth;
            const { auth: _factory, limits: _limits, metricsPort, metrics, ...rest } = options;
            // With a port of their own, the figures are served there only.
            const apart = metrics && metricsPort !== undefined;
            if (apart)
              metricsServer = await serveMetricsPort({ host: listen.host, port: metricsPort }, metrics);
            app = createHttpApp(toolSet, {
              ...rest,
              ...(auth ? { auth } : {}),
              ...(metrics && !apart ? { metrics } : {}),
              shuttingDown: () => tracked.draining,
            });
            resolve({
              url: `${bound.origin}${MCP_PATH}`,
              port: info.port,
              ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
              close,
              drain,
            });
          })
          .catch(async (error: unknown) => {
            await close().catch(() => undefined);
            reject(error);
          });
      },
    );
    lifecycle = new HttpLifecycle(server as HttpServer);
    // Set before the first connection is accepted: listen() only binds once this synchronous code has run.
    server.maxConnections = limits.maxConnections;
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `Port ${listen.port} on ${listen.host} is already in use; choose another with --port (0 picks a free one).`,
            )
          : error,
      );
    });
  });
}
