// Stopping an HTTP server gracefully (SIGTERM from an orchestrator, SIGINT from a person): stop accepting
// connections at once, let requests in flight finish within a bound, then close what is left. Meanwhile a request
// arriving on a connection that is already open is answered 503 with `Connection: close` (the client learns to go
// elsewhere; a load balancer may retry it on another replica), and /readyz says "shutting down". Tool calls in
// flight keep every resource they use: shared resources (emulators, Redis, tracing) close only after the drain.

import type { Server as HttpServer } from 'node:http';
import { Server as NetServer } from 'node:net';

/** How long calls in flight may take to finish once a shutdown begins, unless `--shutdown-grace` says otherwise. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** Paths still answered while draining: the probes, so a load balancer sees the replica leave. */
const PROBE_PATHS = new Set(['/healthz', '/readyz']);

/** The answer to a request that arrives after the shutdown began. */
function shuttingDownResponse(): Response {
  return Response.json(
    {
      error: 'shutting_down',
      error_description:
        'This server is shutting down and takes no new requests; send it to another replica.',
    },
    { status: 503, headers: { connection: 'close', 'retry-after': '1', 'cache-control': 'no-store' } },
  );
}

/** `response` with `Connection: close`, so that Node closes the connection once it is sent. */
function closingConnection(response: Response): Response {
  try {
    response.headers.set('connection', 'close');
    return response;
  } catch {
    // Some responses have immutable headers (Response.redirect, Response.error): answered as a copy instead.
    const headers = new Headers(response.headers);
    headers.set('connection', 'close');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/**
 * The requests a Node HTTP server is answering (counted from arrival until the response is sent or the connection
 * drops, so a streamed answer counts until its end), and the drain that waits for them.
 */
export class HttpLifecycle {
  #inFlight = 0;
  #draining = false;
  #idle: (() => void)[] = [];
  #stopped: Promise<void> | undefined;

  constructor(private readonly server: HttpServer) {
    server.on('request', (_request, response) => {
      this.#inFlight++;
      response.once('close', () => {
        this.#inFlight--;
        if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
      });
    });
  }

  get draining(): boolean {
    return this.#draining;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * The fetch handler's guard while draining: the 503 for a new request (probes excepted), or undefined to serve
   * it. `answer` then marks the response so its connection closes after it.
   */
  refuse(request: Request): Response | undefined {
    if (!this.#draining) return undefined;
    return PROBE_PATHS.has(new URL(request.url).pathname) ? undefined : shuttingDownResponse();
  }

  answer(response: Response): Response {
    return this.#draining ? closingConnection(response) : response;
  }

  /**
   * Stops accepting connections; resolves once the server has closed (every connection ended). Node's own
   * `server.close()` would also cut every idle keep-alive connection at once, and a request the client is sending
   * on one at that moment would meet a reset instead of an answer. So only the listener is closed here (net.Server's
   * close), and idle connections stay until `closeConnections`; a request on one meanwhile gets the 503.
   */
  stopAccepting(): Promise<void> {
    this.#stopped ??= new Promise<void>((resolve) => {
      this.server.once('close', () => resolve());
      NetServer.prototype.close.call(this.server);
    });
    return this.#stopped;
  }

  /** Resolves when no request is in flight, or after `graceMs`, whichever is first; says how many were left. */
  async settle(graceMs: number): Promise<number> {
    if (this.#inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.#idle.push(resolve)),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
    }
    return this.#inFlight;
  }

  /** Closes every connection left (cutting what is still in flight) and resolves once the server has closed. */
  async closeConnections(): Promise<void> {
    const stopped = this.stopAccepting();
    // http.Server's close on a server no longer listening: no new effect but clearing Node's connection-checking
    // timer and idle connections; closeAllConnections ends the rest.
    this.server.close();
    this.server.closeAllConnections();
    await stopped;
  }

  beginDrain(): void {
    this.#draining = true;
  }
}
