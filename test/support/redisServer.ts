// A real Redis for tests: Debian's redis-server (installed by .ci/run), started on a free loopback port with no
// persistence, and stopped by the test that started it. Nothing here mocks Redis.

import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL after 3 s). */
  stop(): Promise<void>;
  /** Stops and starts it again on the same port, empty (no persistence): a Redis outage and recovery. */
  restart(options?: { downForMs?: number }): Promise<void>;
}

/** A port nobody listens on right now, on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start within 10 s on port ${port}:\n${seen}`));
    }, 10_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(
        new Error(
          `redis-server could not be started (${error.message}); install it with "apt-get install redis-server" (.ci/run does).`,
        ),
      );
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code} before it was ready:\n${seen}`));
    });
  });
}

function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts redis-server on a free loopback port. Call `stop()` in afterAll. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child = await launch(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => terminate(child),
    async restart({ downForMs = 0 } = {}) {
      await terminate(child);
      if (downForMs > 0) await new Promise((resolve) => setTimeout(resolve, downForMs));
      child = await launch(port);
    },
  };
}
