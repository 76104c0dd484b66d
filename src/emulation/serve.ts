/**
 * Serves an emulator app on a real loopback socket (ephemeral port by default) and shuts it down promptly.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

/** Anything with a fetch handler node-server can call: a Hono app of any Env, or a bare handler object. */
export type FetchApp = { fetch: Parameters<typeof serve>[0]['fetch'] };

export interface ServeOptions {
  host?: string;
  port?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** In-flight requests get this long to finish on close before their sockets are cut. */
const CLOSE_GRACE_MS = 1000;

export function startHttpServer(app: FetchApp, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }) as Server;
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.once('listening', () => {
      server.off('error', onError);
      const address = server.address() as AddressInfo;
      const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${urlHost}:${address.port}`,
        port: address.port,
        close() {
          closing ??= new Promise<void>((done) => {
            const timer = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
            timer.unref();
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            // Keep-alive sockets would otherwise hold close() open until they time out.
            server.closeIdleConnections();
          });
          return closing;
        },
      });
    });
  });
}

/** An emulator with its app and its own teardown (the database). */
export interface ClosableEmulator {
  app: FetchApp;
  close(): void;
}

/**
 * Serves an emulator on a socket. Its `close` stops the server and then the emulator; if the socket cannot be
 * opened (e.g. the port is taken), the emulator is closed before the error is passed on.
 */
export async function serveEmulator(
  emulator: ClosableEmulator,
  options: ServeOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  let server: RunningServer;
  try {
    server = await startHttpServer(emulator.app, options);
  } catch (e) {
    emulator.close();
    throw e;
  }
  return {
    url: server.url,
    close: async () => {
      await server.close();
      emulator.close();
    },
  };
}

/** An emulator serving on a socket: its root URL, the emulator, and the close that stops both. */
export interface StartedEmulator<E> {
  url: string;
  emulator: E;
  close(): Promise<void>;
}

/**
 * Builds an emulator and serves it, as each service's `start…Emulator` does: `host` and `port` are the socket's
 * (loopback and an ephemeral port unless given), every other option goes to `create`.
 */
export async function startEmulator<Options extends object, E extends ClosableEmulator>(
  create: (options: Options) => E,
  options: Options & ServeOptions,
): Promise<StartedEmulator<E>> {
  const { host, port, ...emulatorOptions } = options;
  // The options without host and port are the emulator's own; TypeScript cannot see that through the generic.
  const emulator = create(emulatorOptions as Options);
  const server = await serveEmulator(emulator, { host, port });
  return { url: server.url, emulator, close: server.close };
}
