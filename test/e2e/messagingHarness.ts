// End-to-end harness for MessagingTrackApi: the Track API emulator on a loopback socket, and Switchboard's
// messaging server reached by the SDK's MCP client over stdio (the CLI as a child process) or Streamable HTTP.

import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { serveHttp } from '../../src/runtime/transports.js';
import {
  type MessagingEmulatorOptions,
  startMessagingEmulator,
} from '../../src/services/messaging/emulator/app.js';
import { createMessagingRuntime, messagingConfigFromEnv } from '../../src/services/messaging/service.js';
import { type Connected, connectCli, connectClient, inspector, type Transport } from './harness.js';

export interface MessagingEnv {
  MESSAGING_BASE_URL: string;
  MESSAGING_SITE_ID?: string;
  MESSAGING_API_KEY?: string;
  MESSAGING_REGION?: string;
}

export async function startMessaging(options: MessagingEmulatorOptions = {}) {
  const running = await startMessagingEmulator({ db: ':memory:', ...options });
  return {
    url: running.url,
    euUrl: running.euUrl,
    siteId: running.siteId,
    apiKey: running.apiKey,
    emulator: running.emulator,
    close: running.close,
    /** The environment a server needs to reach this emulator with its credentials. */
    env: (extra: Partial<MessagingEnv> = {}): MessagingEnv => ({
      MESSAGING_BASE_URL: running.url,
      MESSAGING_SITE_ID: running.siteId,
      MESSAGING_API_KEY: running.apiKey,
      MESSAGING_REGION: 'auto',
      ...extra,
    }),
    ...inspector(running.url),
  };
}

export type MessagingEmulatorHandle = Awaited<ReturnType<typeof startMessaging>>;

export async function connectMessaging(kind: Transport, env: MessagingEnv): Promise<Connected> {
  if (kind === 'stdio') {
    return connectCli(['serve', 'messaging'], { SWITCHBOARD_CLIENT_RATE_LIMITS: 'off', ...env });
  }
  const runtime = createMessagingRuntime({
    ...messagingConfigFromEnv({ ...env } as NodeJS.ProcessEnv),
    clientRateLimits: false,
  });
  const server = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 });
  return connectClient(new StreamableHTTPClientTransport(new URL(server.url)), () => server.close());
}
