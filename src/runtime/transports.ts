// Serving a ToolSet over stdio or Streamable HTTP. Both protocol revisions the SDK serves (2026-07-28 and the
// 2025-11-25 era) are accepted on both transports. Over HTTP every request gets a fresh, cheap server (the tool
// list and schemas are prepared once in the ToolSet).

import { serve as serveNode } from '@hono/node-server';
import {
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
import type { ToolSet } from './toolset.js';

export function serveStdio(toolSet: ToolSet): { close(): Promise<void> } {
  return sdkServeStdio(() => createMcpServer(toolSet), {
    onerror: (error) => log('warn', 'stdio transport error', { error: error.message }),
  });
}

export interface HttpOptions {
  /** Extra hostnames accepted in Host and Origin headers, besides the localhost ones. */
  allowedHosts?: readonly string[];
  /** When set, requests must carry `Authorization: Bearer <token>`. */
  bearerToken?: string;
}

export const MCP_PATH = '/mcp';

/**
 * Largest tools/call body accepted over HTTP. The SDK's default (4 MiB) is below what the store's attachment
 * upload needs: a 5 MB file is about 7 MB of base64 inside the JSON-RPC request.
 */
export const MAX_HTTP_REQUEST_BYTES = 8 * 1024 * 1024;

export function createHttpApp(toolSet: ToolSet, options: HttpOptions = {}) {
  const handler = createMcpHandler(() => createMcpServer(toolSet), {
    maxRequestBodySize: MAX_HTTP_REQUEST_BYTES,
    onerror: (error) => log('debug', 'mcp http request rejected', { error: error.message }),
  });
  const hosts = [...localhostAllowedHostnames(), ...(options.allowedHosts ?? [])];
  const origins = [...localhostAllowedOrigins(), ...(options.allowedHosts ?? [])];
  const app = new Hono();
  app.get('/', (c) =>
    c.json({ name: SERVER_NAME, version: SERVER_VERSION, mcp: MCP_PATH, tools: toolSet.tools.length }),
  );
  app.all(MCP_PATH, async (c) => {
    // DNS-rebinding protection: a web page must not be able to reach this server through a hostile hostname.
    const rejected =
      hostHeaderValidationResponse(c.req.raw, hosts) ?? originValidationResponse(c.req.raw, origins);
    if (rejected) return rejected;
    if (options.bearerToken && c.req.header('authorization') !== `Bearer ${options.bearerToken}`) {
      return c.json({ error: 'unauthorized', error_description: 'A valid bearer token is required.' }, 401, {
        'www-authenticate': 'Bearer',
      });
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
  const { app, close } = createHttpApp(toolSet, options);
  return new Promise((resolve, reject) => {
    const server = serveNode({ fetch: app.fetch, hostname: listen.host, port: listen.port }, (info) => {
      const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
      resolve({
        url: `http://${host}:${info.port}${MCP_PATH}`,
        port: info.port,
        close: async () => {
          await close();
          await new Promise<void>((done) => {
            server.close(() => done());
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          });
        },
      });
    });
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
