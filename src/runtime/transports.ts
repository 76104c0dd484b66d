// Serving a ToolSet over stdio or Streamable HTTP. Both protocol revisions the SDK serves (2026-07-28 and the
// 2025-11-25 era) are accepted on both transports. Over HTTP every request gets a fresh, cheap server (the tool
// list and schemas are prepared once in the ToolSet).

import { timingSafeEqual } from 'node:crypto';
import { serve as serveNode } from '@hono/node-server';
import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { Hono } from 'hono';
import { log } from './log.js';
import { createMcpServer, SERVER_NAME, SERVER_VERSION } from './mcpServer.js';
import type { Principal } from './tool.js';
import type { ToolSet } from './toolset.js';

export function serveStdio(toolSet: ToolSet): { close(): Promise<void> } {
  return sdkServeStdio(() => createMcpServer(toolSet), {
    onerror: (error) => log('warn', 'stdio transport error', { error: error.message }),
  });
}

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
   * the port is 0).
   */
  auth?: HttpAuthGate | ((boundUrl: URL) => HttpAuthGate | Promise<HttpAuthGate>);
}

export const MCP_PATH = '/mcp';

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

/** Constant-time comparison of a presented Authorization header with the expected one. */
function sameCredential(presented: string | undefined, expected: string): boolean {
  const a = Buffer.from(presented ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createHttpApp(
  toolSet: ToolSet,
  options: Omit<HttpOptions, 'auth'> & { auth?: HttpAuthGate } = {},
) {
  const gate = options.auth;
  const handler = createMcpHandler(
    (ctx) => {
      const principal = ctx.authInfo && gate?.principalOf ? gate.principalOf(ctx.authInfo) : undefined;
      return createMcpServer(toolSet, principal ? { principal } : {});
    },
    {
      maxRequestBodySize: MAX_HTTP_REQUEST_BYTES,
      onerror: (error) => log('debug', 'mcp http request rejected', { error: error.message }),
    },
  );
  const extraHosts = [...(options.allowedHosts ?? []), ...(gate?.allowedHosts ?? [])];
  const hosts = [...localhostAllowedHostnames(), ...extraHosts];
  const origins = [...localhostAllowedOrigins(), ...extraHosts];
  const app = new Hono();
  app.get('/', (c) =>
    c.json({ name: SERVER_NAME, version: SERVER_VERSION, mcp: MCP_PATH, tools: toolSet.tools.length }),
  );
  gate?.mount?.(app);
  app.all(MCP_PATH, async (c) => {
    // DNS-rebinding protection: a web page must not be able to reach this server through a hostile hostname.
    const rejected =
      hostHeaderValidationResponse(c.req.raw, hosts) ?? originValidationResponse(c.req.raw, origins);
    if (rejected) return rejected;
    if (
      options.bearerToken &&
      !sameCredential(c.req.header('authorization'), `Bearer ${options.bearerToken}`)
    ) {
      return c.json({ error: 'unauthorized', error_description: 'A valid bearer token is required.' }, 401, {
        'www-authenticate': 'Bearer',
      });
    }
    if (gate) {
      const verified = await gate.authenticate(c.req.raw);
      // Told apart by shape: @hono/node-server may replace the global Response class the answer was made with.
      if (!isAuthInfo(verified)) return verified;
      return handler.fetch(c.req.raw, { authInfo: verified });
    }
    return handler.fetch(c.req.raw);
  });
  return { app, close: () => handler.close() };
}

export interface RunningHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function serveHttp(
  toolSet: ToolSet,
  listen: { host: string; port: number },
  options: HttpOptions = {},
): Promise<RunningHttpServer> {
  // The app is built once the server listens: an auth gate may need the bound URL (port 0 picks one).
  let app: ReturnType<typeof createHttpApp> | undefined;
  const notReady = () => new Response('Starting', { status: 503, headers: { 'retry-after': '1' } });
  return new Promise((resolve, reject) => {
    const server = serveNode(
      {
        fetch: (request: Request, env: unknown) => (app ? app.app.fetch(request, env) : notReady()),
        hostname: listen.host,
        port: listen.port,
      },
      (info) => {
        const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
        const bound = new URL(`http://${host}:${info.port}`);
        const close = async () => {
          await app?.close();
          await new Promise<void>((done) => {
            server.close(() => done());
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          });
        };
        Promise.resolve(typeof options.auth === 'function' ? options.auth(bound) : options.auth)
          .then((auth) => {
            const { auth: _factory, ...rest } = options;
            app = createHttpApp(toolSet, { ...rest, ...(auth ? { auth } : {}) });
            resolve({ url: `${bound.origin}${MCP_PATH}`, port: info.port, close });
          })
          .catch(async (error: unknown) => {
            await close().catch(() => undefined);
            reject(error);
          });
      },
    );
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
