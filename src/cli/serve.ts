// `switchboard serve`: builds the tool set for the chosen services (against real upstreams, or against in-process
// emulators in sandbox mode) and serves it over stdio or HTTP.

import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { log } from '../runtime/log.js';
import type { ServiceRuntime } from '../runtime/tool.js';
import { buildToolSet, type ToolNameStyle } from '../runtime/toolset.js';
import { serveHttp, serveStdio } from '../runtime/transports.js';
import { type RunningEmulator, resolveServices } from '../services/registry.js';
import { printBanner } from './banner.js';

export interface ServeOptions {
  transport: 'stdio' | 'http';
  host: string;
  port: number;
  sandbox: boolean;
  dataDir?: string;
  reset: boolean;
  seed?: number;
  readOnly: boolean;
  tools?: string;
  toolNames: ToolNameStyle;
  allowedHosts?: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export async function runServe(names: string[], options: ServeOptions): Promise<void> {
  const services = resolveServices(names);
  const env = process.env;
  const bearerToken = env.SWITCHBOARD_HTTP_TOKEN || undefined;
  if (options.transport === 'http' && !LOOPBACK.has(options.host) && !bearerToken) {
    throw new Error(
      `Refusing to serve on ${options.host} without protection: these tools act with organisation-wide credentials. ` +
        'Set SWITCHBOARD_HTTP_TOKEN (clients then send "Authorization: Bearer <token>"), or bind to 127.0.0.1.',
    );
  }

  const emulators: { id: string; emulator: RunningEmulator }[] = [];
  const runtimes: ServiceRuntime[] = [];
  if (options.sandbox) {
    const dataDir = options.dataDir ?? env.SWITCHBOARD_DATA_DIR ?? join(homedir(), '.switchboard', 'sandbox');
    if (dataDir !== ':memory:') mkdirSync(dataDir, { recursive: true });
    for (const service of services) {
      const emulator = await service.startEmulator({
        db: dataDir === ':memory:' ? ':memory:' : join(dataDir, `${service.id}.db`),
        reset: options.reset,
        ...(options.seed !== undefined ? { seed: options.seed } : {}),
      });
      emulators.push({ id: service.id, emulator });
      runtimes.push(service.runtimeForEmulator(emulator, env));
    }
  } else {
    for (const service of services) runtimes.push(service.runtimeFromEnv(env));
  }

  const toolSet = buildToolSet(runtimes, {
    nameStyle: options.toolNames,
    readOnly: options.readOnly,
    ...(options.tools ? { only: options.tools.split(',') } : {}),
  });

  const closers: (() => Promise<void>)[] = emulators.map(
    ({ emulator }) =>
      () =>
        emulator.close(),
  );
  if (options.transport === 'stdio') {
    const handle = serveStdio(toolSet);
    closers.unshift(() => handle.close());
    log('info', 'serving MCP over stdio', {
      tools: toolSet.tools.length,
      sandbox: options.sandbox,
      emulators: Object.fromEntries(emulators.map(({ id, emulator }) => [id, emulator.url])),
    });
  } else {
    const server = await serveHttp(
      toolSet,
      { host: options.host, port: options.port },
      {
        ...(bearerToken ? { bearerToken } : {}),
        ...(options.allowedHosts
          ? { allowedHosts: options.allowedHosts.split(',').map((h) => h.trim()) }
          : {}),
      },
    );
    closers.unshift(() => server.close());
    printBanner({
      url: server.url,
      toolSet,
      sandbox: options.sandbox,
      emulators,
      bearer: Boolean(bearerToken),
    });
  }

  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    for (const close of closers) await close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  if (options.transport === 'stdio') process.stdin.once('end', shutdown);
}
