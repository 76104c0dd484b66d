// End-to-end harness for StoreApi: the data-store emulator on a loopback socket, and Switchboard's store server
// reached by the SDK's MCP client over stdio (the CLI as a child process) or Streamable HTTP.

import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { serveHttp } from '../../src/runtime/transports.js';
import { type StoreEmulatorOptions, startStoreEmulator } from '../../src/services/store/emulator/app.js';
import { createStoreRuntime, storeConfigFromEnv } from '../../src/services/store/service.js';
import {
  type Connected,
  connectCli,
  connectClient,
  inspector,
  type Revision,
  type Transport,
} from './harness.js';

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

export async function connectStore(kind: Transport, env: StoreEnv, revision?: Revision): Promise<Connected> {
  if (kind === 'stdio') return connectCli(['serve', 'store'], { ...env });
  const runtime = createStoreRuntime(storeConfigFromEnv({ ...env } as NodeJS.ProcessEnv));
  const server = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 });
  return connectClient(
    new StreamableHTTPClientTransport(new URL(server.url)),
    () => server.close(),
    revision,
  );
}

/** Structured tool results, read field by field in assertions. */
// biome-ignore lint/suspicious/noExplicitAny: results are asserted field by field, not typed.
type Structured = any;

/**
 * Calling StoreApi tools in the end-to-end files: `call` (any result), `ok` (the structured result, or a thrown
 * error naming the tool), `exec` (schema mode's execute with a JSON body) and `lastRequest` (the one upstream
 * request the emulator logged). Getters, because the files connect in beforeAll. `onSuccess` sees every result
 * `ok` and `exec` return (the output-schema tests collect them).
 */
export function storeTools(
  mcp: () => Connected,
  upstream: () => StoreEmulatorHandle,
  onSuccess?: (tool: string, structured: Structured) => void,
) {
  const call = (tool: string, args: Record<string, unknown> = {}, client = mcp()) =>
    client.call(`StoreApi.${tool}`, args);
  const ok = async (tool: string, args: Record<string, unknown> = {}): Promise<Structured> => {
    const result = await call(tool, args);
    if (result.isError) throw new Error(`${tool}: ${result.text}`);
    onSuccess?.(tool, result.structured);
    return result.structured;
  };
  const exec = (tool: string, args: Record<string, unknown>, body: unknown) =>
    ok(tool, { mode: 'execute', ...args, request_body: JSON.stringify(body) });
  const lastRequest = async () => {
    const requests = await upstream().requests();
    if (requests.length !== 1) throw new Error(`expected one upstream request, saw ${requests.length}`);
    return requests[0]!;
  };
  return { call, ok, exec, lastRequest };
}
