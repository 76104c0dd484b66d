// For the call-event consumers' tests: the store emulator on a loopback socket, Switchboard's store server over
// Streamable HTTP in this process (so the test sees the process's call events), and the SDK's MCP client, direct
// and in the discovery mode. Also a recorder of the events, and one seeded record to read.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type CallEvent, callEvents } from '../../src/runtime/callEvents.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { serveHttp } from '../../src/runtime/transports.js';
import { createStoreRuntime, storeConfigFromEnv } from '../../src/services/store/service.js';
import { type StoreEmulatorHandle, startStore } from '../e2e/storeHarness.js';

export const CLIENT_NAME = 'observability-test';

export interface ObservedStore {
  upstream: StoreEmulatorHandle;
  /** Connected to /mcp. */
  client: Client;
  /** Connected to /mcp/discovery (search_tools and call_tool). */
  discovery: Client;
  /** A seeded record, with the ids a call needs. */
  record: { baseId: string; tableId: string; recordId: string };
  /** A second base, for calls that must not share the first one's rate limit. */
  otherBaseId: string;
  close(): Promise<void>;
}

export interface ObservedStoreOptions {
  /** The token the emulator accepts and the server sends. */
  token?: string;
  /** SWITCHBOARD_HTTP_TOKEN: the bearer clients must send. */
  bearerToken?: string;
  /** The server's client-side rate limits (the store's 250 ms per base); default off. */
  clientRateLimits?: boolean;
  /** The protocol the clients speak: 2026-07-28 (default) or the 2025 era's initialize handshake. */
  era?: 'modern' | 'legacy';
}

export const MODERN = '2026-07-28';

export async function startObservedStore(options: ObservedStoreOptions = {}): Promise<ObservedStore> {
  const upstream = await startStore(options.token ? { token: options.token } : {});
  const env = upstream.env({ SWITCHBOARD_CLIENT_RATE_LIMITS: options.clientRateLimits ? 'on' : 'off' });
  const runtime = createStoreRuntime(storeConfigFromEnv({ ...env } as NodeJS.ProcessEnv));
  const server = await serveHttp(
    buildToolSet([runtime]),
    { host: '127.0.0.1', port: 0 },
    options.bearerToken ? { bearerToken: options.bearerToken } : {},
  );
  const headers: Record<string, string> = options.bearerToken
    ? { authorization: `Bearer ${options.bearerToken}` }
    : {};
  const connect = async (url: string) => {
    const client = new Client(
      { name: CLIENT_NAME, version: '1.2.3' },
      // The SDK client speaks the 2025 era unless told otherwise.
      { versionNegotiation: { mode: options.era === 'legacy' ? 'legacy' : { pin: MODERN } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
  };
  const client = await connect(server.url);
  const discovery = await connect(`${server.url}/discovery`);
  const bases = await upstream.state<{ id: string; name: string }>('bases');
  const base = bases.find((b) => b.name === 'Sales CRM')!;
  const other = bases.find((b) => b.name === 'Product Roadmap')!;
  const [record] = await upstream.state<{ id: string; tableId: string }>('records', `&base=${base.id}`);
  return {
    upstream,
    client,
    discovery,
    record: { baseId: base.id, tableId: record!.tableId, recordId: record!.id },
    otherBaseId: other.id,
    async close() {
      await client.close();
      await discovery.close();
      await server.close();
      await upstream.close();
    },
  };
}

/** Every call event from now until `stop()`, correlated (upstream requests carry their call's id). */
export function recordEvents(): { events: CallEvent[]; stop(): void } {
  const events: CallEvent[] = [];
  const stop = callEvents.subscribe((event) => events.push(event), { correlate: true });
  return { events, stop };
}

/** The events of one type, typed. */
export function ofType<T extends CallEvent['type']>(
  events: readonly CallEvent[],
  type: T,
): Extract<CallEvent, { type: T }>[] {
  return events.filter((event): event is Extract<CallEvent, { type: T }> => event.type === type);
}
