// GET /metrics for Prometheus, in either of two places. On the MCP port it is guarded like /mcp (Host/Origin, then
// the static bearer token); with per-user OAuth it is not served there at all, because a scrape is a machine and
// the tokens there are people's (a person's sign-in should not open the whole server's figures). With
// `--metrics-port` it is served on a port of its own on the same host, unprotected and only there: that port is
// for the scraper's network, kept off the public listener by the operator's firewall or pod network.
// What the figures are is src/runtime/metrics.ts's business; this module only serves its text.

import { createServer, type Server } from 'node:http';
import { log } from './log.js';

export const METRICS_PATH = '/metrics';

/** The exposition text and its content type (prom-client's registry gives both). */
export type MetricsSource = () => Promise<{ contentType: string; body: string }>;

/** The scrape's answer; a failure to collect is a 500 that says so, with the details in the log only. */
export async function metricsResponse(source: MetricsSource): Promise<Response> {
  try {
    const { contentType, body } = await source();
    return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
  } catch (error) {
    log('error', 'metrics could not be collected', {
      error: error instanceof Error ? error.message : String(error),
    });
    return new Response('metrics could not be collected; see the server log\n', {
      status: 500,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  }
}

export interface RunningMetricsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** `/metrics` alone on `listen` (`--metrics-port`): no auth, no Host check (scrapers come by IP); 404 elsewhere. */
export function serveMetricsPort(
  listen: { host: string; port: number },
  source: MetricsSource,
): Promise<RunningMetricsServer> {
  const server: Server = createServer(async (request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(path === METRICS_PATH ? 405 : 404, {
        'content-type': 'text/plain; charset=utf-8',
        ...(path === METRICS_PATH ? { allow: 'GET, HEAD' } : {}),
      });
      response.end(
        path === METRICS_PATH ? 'Method Not Allowed\n' : `Not Found: this port serves ${METRICS_PATH}\n`,
      );
      return;
    }
    const answer = await metricsResponse(source);
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(request.method === 'HEAD' ? undefined : await answer.text());
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `Port ${listen.port} on ${listen.host} is already in use; choose another with --metrics-port (0 picks a free one).`,
            )
          : error,
      );
    });
    server.listen(listen.port, listen.host, () => {
      const { port } = server.address() as { port: number };
      const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
      resolve({
        url: `http://${host}:${port}${METRICS_PATH}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
