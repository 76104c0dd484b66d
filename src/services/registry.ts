// The services Switchboard knows, each with how to build its runtime from the environment and how to start its
// emulator. The CLI (`serve`, `emulate`, `npm start`) works only through this table, so adding a service is one
// entry here.

import { existsSync } from 'node:fs';
import type { SeedingReport } from '../emulation/seeding.js';
import type { ServiceRuntime } from '../runtime/tool.js';
import { createIssueDeskRuntime, issueDeskConfigFromEnv } from './issuedesk/service.js';
import { TOKEN_ENV as ISSUEDESK_TOKEN_ENV } from './issuedesk/upstream.js';
import { createMessagingRuntime, messagingConfigFromEnv } from './messaging/service.js';
import { API_KEY_ENV, SITE_ID_ENV } from './messaging/upstream.js';
import { storeCredentialsPath } from './store/credentials.js';
import { createStoreRuntime, storeConfigFromEnv } from './store/service.js';
import { TOKEN_ENV as STORE_TOKEN_ENV, type TokenSource } from './store/upstream.js';

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
  /** Whether the emulator seeded its database on this start or kept earlier data (`--seed` then has no effect). */
  seeding?: SeedingReport;
  /** Sandbox: facts about the seeded data a client cannot look up through the API, for the server instructions. */
  instructions?: string;
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

/** Credentials `serve` would start without, so that every call of the service fails until they are set. */
export interface MissingCredentials {
  /** The unset environment variables. */
  variables: string[];
  /** How to supply them. */
  hint: string;
}

export interface ServiceEntry {
  id: string;
  title: string;
  /** Credential flags `emulate` accepts for this service. */
  credentialFlags: readonly { flag: string; description: string }[];
  /**
   * The environment that points `runtimeFromEnv` (so `serve` without --sandbox) at a running emulator of this
   * service: its address and the credentials it accepts, by variable name. `emulate` prints it.
   */
  envForEmulator(emulator: RunningEmulator): Record<string, string>;
  /**
   * What `runtimeFromEnv` lacks to make any call: undefined when its credentials are set, or will come from
   * elsewhere (a saved login, or each person's own token when `perUserTokens`).
   */
  missingCredentials(
    env: NodeJS.ProcessEnv,
    options?: { perUserTokens?: boolean },
  ): MissingCredentials | undefined;
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
    envForEmulator: (emulator) => ({
      ISSUEDESK_BASE_URL: emulator.url,
      [ISSUEDESK_TOKEN_ENV]: emulator.credentials.token!,
    }),
    missingCredentials: (env) =>
      env[ISSUEDESK_TOKEN_ENV]
        ? undefined
        : {
            variables: [ISSUEDESK_TOKEN_ENV],
            hint: `Set ${ISSUEDESK_TOKEN_ENV} to an API token (the issue desk's Settings → API Tokens) and restart, or run with --sandbox to use the local emulator.`,
          },
    runtimeFromEnv: (env) => createIssueDeskRuntime(issueDeskConfigFromEnv(env)) as ServiceRuntime,
    startEmulator: async (options) => {
      // Loaded on demand: a server talking to the real upstream never needs the emulator or SQLite.
      const { startIssueDeskEmulator } = await import('./issuedesk/emulator/app.js');
      const running = await startIssueDeskEmulator({
        ...commonEmulatorOptions(options),
        ...(options.credentials?.token ? { token: options.credentials.token } : {}),
      });
      return {
        url: running.url,
        credentials: { token: running.token },
        seeding: running.emulator.seeding,
        close: running.close,
      };
    },
    runtimeForEmulator: (emulator, env) =>
      createIssueDeskRuntime({
        ...issueDeskConfigFromEnv(env),
        baseUrl: emulator.url,
        token: () => emulator.credentials.token,
        // Client-side rate limits as configured (SWITCHBOARD_CLIENT_RATE_LIMITS, on by default), as against the
        // real upstream: the sandbox shows the pacing an agent will meet in production.
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
    envForEmulator: (emulator) => ({
      MESSAGING_BASE_URL: emulator.url,
      // `auto` asks the emulator's region endpoint, which points at the account's region (an eu account too).
      MESSAGING_REGION: 'auto',
      [SITE_ID_ENV]: emulator.credentials['site-id']!,
      [API_KEY_ENV]: emulator.credentials['api-key']!,
    }),
    missingCredentials: (env) => {
      const variables = [SITE_ID_ENV, API_KEY_ENV].filter((name) => !env[name]);
      return variables.length === 0
        ? undefined
        : {
            variables,
            hint: `Set ${SITE_ID_ENV} (the workspace's site id) and ${API_KEY_ENV} (its Track API key) and restart, or run with --sandbox to use the local emulator.`,
          };
    },
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
        seeding: running.emulator.seeding,
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
        // Client-side rate limits as configured (SWITCHBOARD_CLIENT_RATE_LIMITS), as in production.
      }) as ServiceRuntime,
  },
  {
    id: 'store',
    title: 'StoreApi (Airtable Web API)',
    credentialFlags: [{ flag: 'token', description: 'access token the emulator accepts, with every scope' }],
    takesUserToken: true,
    envForEmulator: (emulator) => ({
      STORE_BASE_URL: emulator.url,
      [STORE_TOKEN_ENV]: emulator.credentials.token!,
    }),
    // Besides the variable, a token comes from each person's own sign-in (per-user OAuth) or from the login
    // `switchboard login store` saved (storeConfigFromEnv reads that file per call).
    missingCredentials: (env, options) =>
      env[STORE_TOKEN_ENV] || options?.perUserTokens || existsSync(storeCredentialsPath(env))
        ? undefined
        : {
            variables: [STORE_TOKEN_ENV],
            hint: `Run \`switchboard login store\` once to connect your account through the browser, or set ${STORE_TOKEN_ENV} to a personal access token and restart, or run with --sandbox to use the local emulator.`,
          },
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
      const instructions = running.emulator.sandboxInstructions();
      return {
        url: running.url,
        credentials: { token: running.token },
        seeding: running.emulator.seeding,
        ...(instructions ? { instructions } : {}),
        close: running.close,
      };
    },
    runtimeForEmulator: (emulator, env, options) =>
      createStoreRuntime({
        ...storeConfigFromEnv(env),
        baseUrl: emulator.url,
        contentUrl: emulator.url,
        // The seeded enterprise account and bulk data table ids, which no endpoint lists.
        ...(emulator.instructions ? { sandboxInstructions: emulator.instructions } : {}),
        // With per-user OAuth, each person's own token (from the emulator's OAuth); else the all-scopes one.
        token: options?.userToken ?? (() => emulator.credentials.token),
        // Client-side rate limits as configured (SWITCHBOARD_CLIENT_RATE_LIMITS), as in production; the emulator
        // enforces the upstream's 5 requests/s per base and its 30 s penalty, so with them off a burst trips it.
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
