// `switchboard emulate`: runs upstream emulators alone, for people testing their own code against these APIs.

import { join } from 'node:path';
import { resolveServices } from '../services/registry.js';
import { exportLines } from './banner.js';

export interface EmulateOptions {
  host: string;
  port: number;
  db?: string;
  seed: number;
  scale?: number;
  reset: boolean;
  /** The services' credential flags (their entries' `credentialFlags`), as commander names them: `siteId`. */
  [credentialFlag: string]: unknown;
}

/** `site-id` → `siteId`, the name commander gives the option. */
function optionName(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

export async function runEmulate(names: string[], options: EmulateOptions): Promise<void> {
  const services = resolveServices(names);
  const closers: (() => Promise<void>)[] = [];
  const env: Record<string, string> = {};
  for (const [index, service] of services.entries()) {
    // One service: --db is its file. Several: --db is a folder holding one file per service.
    const db =
      !options.db || options.db === ':memory:'
        ? ':memory:'
        : services.length === 1
          ? options.db
          : join(options.db, `${service.id}.db`);
    const emulator = await service.startEmulator({
      host: options.host,
      port: options.port === 0 ? 0 : options.port + index,
      db,
      seed: options.seed,
      reset: options.reset,
      ...(options.scale !== undefined ? { scale: options.scale } : {}),
      credentials: Object.fromEntries(
        service.credentialFlags.map(({ flag }) => {
          const value = options[optionName(flag)];
          return [optionName(flag), typeof value === 'string' ? value : undefined];
        }),
      ),
    });
    closers.push(() => emulator.close());
    Object.assign(env, service.envForEmulator(emulator));
    process.stderr.write(
      `${service.title} emulator listening on ${emulator.url}\n  inspect: ${emulator.url}/_emulator/requests, ${emulator.url}/_emulator/state\n`,
    );
  }
  // On stdout, and all of it shell syntax, so `switchboard emulate > emulators.env &` then `. ./emulators.env`
  // works as well as pasting.
  process.stdout.write(
    [
      '# The environment that points `switchboard serve` at these emulators (paste it, or source this output):',
      ...exportLines(env),
      `# then: switchboard serve ${services.map((service) => service.id).join(' ')}`,
      '',
    ].join('\n'),
  );
  const shutdown = async () => {
    for (const close of closers) await close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
