// End-to-end harness for StoreApi: the data-store emulator on a loopback socket, and Switchboard's store server
// reached by the SDK's MCP client over stdio (the CLI as a child process) or Streamable HTTP.

import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { serveHttp } from '../../src/runtime/transports.js';
import { type StoreEmulatorOptions, startStoreEmulator } from '../../src/services/store/emulator/app.js';
import { createStoreRuntime, storeConfigFromEnv } from '../../src/services/store/service.js';
import { type Connected, connectCli, connectClient, inspector, type Transport } from './harness.js';

export interface StoreEnv {
  STORE_BASE_URL: string;
  STORE_ACCESS_TOKEN?: string;
  /** `off` lets a test drive the emulator's own rate limit. */
  SWITCHBOARD_CLIENT_RATE_LIMITS?: string;
}

export async function startStore(options: StoreEmulatorOptions = {}) {
  // The emulator's 5 requests/s per base is switched off unless a test asks for it: most tests are about
  // behaviour, and the client-side limiter would otherwise pace them.
  const running = await startStoreEmulator({ db: ':memory:', baseRateLimit: false, ...options });
  return {
    url: running.url,
    token: running.token,
    emulator: running.emulator,
    close: running.close,
    env: (extra: Partial<StoreEnv> = {}): StoreEnv => ({
      STORE_BASE_URL: running.url,
      STORE_ACCESS_TOKEN: running.token,
      SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
      ...extra,
    }),
    ...inspector(running.url),
  };
}

export type StoreEmulatorHandle = Awaited<ReturnType<typeof startStore>>;

export async function connectStore(kind: Transport, env: StoreEnv): Promise<Connected> {
  if (kind === 'stdio') return connectCli(['serve', 'store'], { ...env });
  const runtime = createStoreRuntime(storeConfigFromEnv({ ...env } as NodeJS.ProcessEnv));
  const server = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 });
  return connectClient(new StreamableHTTPClientTransport(new URL(server.url)), () => server.close());
}
