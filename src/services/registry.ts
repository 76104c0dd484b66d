// The services Switchboard knows, each with how to build its runtime from the environment and how to start its
// emulator. The CLI (`serve`, `emulate`, `npm start`) works only through this table, so adding a service is one
// entry here.

import type { ServiceRuntime } from '../runtime/tool.js';
import { createIssueDeskRuntime, issueDeskConfigFromEnv } from './issuedesk/service.js';
import { createMessagingRuntime, messagingConfigFromEnv } from './messaging/service.js';
import { createStoreRuntime, storeConfigFromEnv } from './store/service.js';
import type { TokenSource } from './store/upstream.js';

export interface EmulatorOptions {
  host?: string;
  port?: number;
  /** SQLite file, or ':memory:'. */
  db?: string;
  seed?: number;
  scale?: number;
  reset?: boolean;
  /** Service-specific credential flags, by option name, e.g. { token } for the issue desk. */
  credentials?: Record<string, string | undefined>;
}

export interface RunningEmulator {
  url: string;
  /** What a client must present, by flag name, for the start-up banner. */
  credentials: Record<string, string>;
  close(): Promise<void>;
}

/** Per-call credentials a runtime can take besides its configuration. */
export interface RuntimeOptions {
  /**
   * The calling person's own token (HTTP with per-user OAuth, src/runtime/auth/). Only services whose entry sets
   * `takesUserToken` use it; the others keep their organisation-wide credentials.
   */
  userToken?: TokenSource;
}

export interface ServiceEntry {
  id: string;
  title: string;
  /** Credential flags `emulate` accepts for this service. */
  credentialFlags: readonly { flag: string; description: string }[];
  /** Whether each person's calls run with their own token when per-user OAuth is on. */
  takesUserToken?: boolean;
  runtimeFromEnv(env: NodeJS.ProcessEnv, options?: RuntimeOptions): ServiceRuntime;
  startEmulator(options: EmulatorOptions): Promise<RunningEmulator>;
  /** The runtime wired to a running emulator (sandbox mode). */
  runtimeForEmulator(
    emulator: RunningEmulator,
    env: NodeJS.ProcessEnv,
    options?: RuntimeOptions,
  ): ServiceRuntime;
}

/** The options every emulator takes, without the unset ones. */
function commonEmulatorOptions(options: EmulatorOptions) {
  return {
    ...(options.host ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.db ? { db: options.db } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.scale !== undefined ? { scale: options.scale } : {}),
    ...(options.reset ? { reset: true } : {}),
  };
}

export const SERVICES: readonly ServiceEntry[] = [
  {
    id: 'issuedesk',
    title: 'IssueDesk (Pylon API)',
    credentialFlags: [{ flag: 'token', description: 'API token the emulator accepts' }],
    runtimeFromEnv: (env) => createIssueDeskRuntime(issueDeskConfigFromEnv(env)) as ServiceRuntime,
    startEmulator: async (options) => {
      // Loaded on demand: a server talking to the real upstream never needs the emulator or SQLite.
      const { startIssueDeskEmulator } = await import('./issuedesk/emulator/app.js');
      const running = await startIssueDeskEmulator({
        ...commonEmulatorOptions(options),
        ...(options.credentials?.token ? { token: options.credentials.token } : {}),
      });
      return { url: running.url, credentials: { token: running.token }, close: running.close };
    },
    runtimeForEmulator: (emulator, env) =>
      createIssueDeskRuntime({
        ...issueDeskConfigFromEnv(env),
        baseUrl: emulator.url,
        token: () => emulator.credentials.token,
        // The emulator applies no rate limits unless asked to, so ours would only slow the sandbox down.
        clientRateLimits: false,
      }) as ServiceRuntime,
  },
  {
    id: 'messaging',
    title: 'MessagingTrackApi (Customer.io Track API)',
    credentialFlags: [
      { flag: 'site-id', description: 'site id the emulator accepts' },
      { flag: 'api-key', description: 'Track API key the emulator accepts' },
      { flag: 'region', description: "the emulated account's region, us or eu" },
    ],
    runtimeFromEnv: (env) => createMessagingRuntime(messagingConfigFromEnv(env)) as ServiceRuntime,
    startEmulator: async (options) => {
      const { startMessagingEmulator } = await import('./messaging/emulator/app.js');
      const region = options.credentials?.region;
      if (region !== undefined && region !== 'us' && region !== 'eu') {
        throw new Error(`--region must be us or eu; got "${region}".`);
      }
      const running = await startMessagingEmulator({
        ...commonEmulatorOptions(options),
        ...(options.credentials?.siteId ? { siteId: options.credentials.siteId } : {}),
        ...(options.credentials?.apiKey ? { apiKey: options.credentials.apiKey } : {}),
        ...(region ? { region } : {}),
      });
      return {
        url: running.url,
        credentials: { 'site-id': running.siteId, 'api-key': running.apiKey, region: running.region },
        close: running.close,
      };
    },
    runtimeForEmulator: (emulator, env) =>
      createMessagingRuntime({
        ...messagingConfigFromEnv(env),
        // `auto` against the emulator's US root: the region endpoint points at the account's host, as upstream.
        region: 'auto',
        baseUrl: emulator.url,
        siteId: () => emulator.credentials['site-id'],
        apiKey: () => emulator.credentials['api-key'],
        clientRateLimits: false,
      }) as ServiceRuntime,
  },
  {
    id: 'store',
    title: 'StoreApi (Airtable Web API)',
    credentialFlags: [{ flag: 'token', description: 'access token the emulator accepts, with every scope' }],
    takesUserToken: true,
    runtimeFromEnv: (env, options) =>
      createStoreRuntime(
        storeConfigFromEnv(env, options?.userToken ? { userToken: options.userToken } : {}),
      ) as ServiceRuntime,
    startEmulator: async (options) => {
      const { startStoreEmulator } = await import('./store/emulator/app.js');
      const running = await startStoreEmulator({
        ...commonEmulatorOptions(options),
        ...(options.credentials?.token ? { token: options.credentials.token } : {}),
      });
      return { url: running.url, credentials: { token: running.token }, close: running.close };
    },
    runtimeForEmulator: (emulator, env, options) =>
      createStoreRuntime({
        ...storeConfigFromEnv(env),
        baseUrl: emulator.url,
        contentUrl: emulator.url,
        // With per-user OAuth, each person's own token (from the emulator's OAuth); else the all-scopes one.
        token: options?.userToken ?? (() => emulator.credentials.token),
        // Kept on: the emulator enforces the upstream's 5 requests/s per base and its 30 s penalty.
        clientRateLimits: true,
      }) as ServiceRuntime,
  },
];

export function findService(id: string): ServiceEntry | undefined {
  return SERVICES.find((service) => service.id === id);
}

/** Expands `all` and checks names; throws with the list of known services. */
export function resolveServices(names: readonly string[]): ServiceEntry[] {
  const wanted = names.length === 0 || names.includes('all') ? SERVICES.map((s) => s.id) : names;
  return [...new Set(wanted)].map((name) => {
    const service = findService(name);
    if (!service) {
      throw new Error(`Unknown service "${name}". Known: ${SERVICES.map((s) => s.id).join(', ')}, all.`);
    }
    return service;
  });
}
