// The MessagingTrackApi service: its tools, the instructions sent once per session, and its wiring from
// configuration (secrets, region, host).

import { withOutputSchemas } from '../../runtime/outputSchemas.js';
import { serviceTools } from '../../runtime/prebuiltTools.js';
import type { ServiceDefinition, ServiceRuntime } from '../../runtime/tool.js';
import {
  commonEmulatorOptions,
  emulatorCredential,
  type ServiceEntry,
  sharedStateOf,
} from '../serviceEntry.js';
import {
  API_KEY_ENV,
  MessagingClient,
  type MessagingClientOptions,
  type RegionSetting,
  SITE_ID_ENV,
} from './client.js';
import { MESSAGING_SEARCH_TERMS } from './searchTerms.js';
import type { MessagingContext } from './tools.js';
import { MESSAGING_TOOLSETS } from './toolsets.js';

export const MESSAGING_INSTRUCTIONS = `MessagingTrackApi (customer-messaging tracking API: people, devices, events, forms, segments, objects, batches).
- Tools with mode: first call mode "get_request_schema" for the body's JSON Schema (with examples), then "execute" with request_body as JSON text, checked before sending.
- People are identified by id, email, or internal id written msg_<id> (cio_id in request bodies); which work depends on workspace settings.
- Suppress, delete and merge cannot be undone.`;

export const MESSAGING: ServiceDefinition<MessagingContext> = {
  id: 'messaging',
  prefix: 'MessagingTrackApi',
  title: 'MessagingTrackApi',
  instructions: MESSAGING_INSTRUCTIONS,
  // The definitions load on the first call in the built program (runtime/prebuiltTools.ts).
  tools: await serviceTools('MessagingTrackApi', async () => {
    const [{ MESSAGING_TOOLS }, { MESSAGING_OUTPUT_SCHEMAS }] = await Promise.all([
      import('./tools.js'),
      import('./outputSchemas.js'),
    ]);
    return withOutputSchemas(MESSAGING_TOOLS, MESSAGING_OUTPUT_SCHEMAS);
  }),
  toolsets: MESSAGING_TOOLSETS,
  searchTerms: MESSAGING_SEARCH_TERMS,
};

/** The client's options as configuration gives them (a fetch of their own is for tests that build a client). */
export type MessagingConfig = Omit<MessagingClientOptions, 'fetch'>;

const REGIONS: readonly RegionSetting[] = ['us', 'eu', 'auto'];

export function messagingConfigFromEnv(env: NodeJS.ProcessEnv = process.env): MessagingConfig {
  const region = (env.MESSAGING_REGION || 'auto').toLowerCase() as RegionSetting;
  if (!REGIONS.includes(region)) {
    throw new Error(`MESSAGING_REGION must be us, eu or auto; got "${env.MESSAGING_REGION}".`);
  }
  return {
    region,
    ...(env.MESSAGING_BASE_URL ? { baseUrl: env.MESSAGING_BASE_URL.replace(/\/+$/, '') } : {}),
    siteId: () => env[SITE_ID_ENV] || undefined,
    apiKey: () => env[API_KEY_ENV] || undefined,
    clientRateLimits: env.SWITCHBOARD_CLIENT_RATE_LIMITS !== 'off',
    ...(env.SWITCHBOARD_TIMEOUT_MS ? { timeoutMs: Number(env.SWITCHBOARD_TIMEOUT_MS) } : {}),
  };
}

export function createMessagingRuntime(config: MessagingConfig): ServiceRuntime<MessagingContext> {
  return {
    definition: MESSAGING,
    context: { track: new MessagingClient(config) },
  };
}

/** How the CLI serves, emulates and checks this service (src/services/registry.ts lists it). */
export const MESSAGING_SERVICE: ServiceEntry = {
  id: 'messaging',
  title: 'MessagingTrackApi (Customer.io Track API)',
  definition: MESSAGING,
  credentialFlags: [
    { flag: 'site-id', description: 'site id the emulator accepts' },
    { flag: 'api-key', description: 'Track API key the emulator accepts' },
    { flag: 'region', description: "the emulated account's region", choices: ['us', 'eu'] },
  ],
  envForEmulator: (emulator) => ({
    MESSAGING_BASE_URL: emulator.url,
    // `auto` asks the emulator's region endpoint, which points at the account's region (an eu account too).
    MESSAGING_REGION: 'auto',
    [SITE_ID_ENV]: emulatorCredential(emulator, 'site-id'),
    [API_KEY_ENV]: emulatorCredential(emulator, 'api-key'),
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
  runtimeFromEnv: (env, options) =>
    createMessagingRuntime({ ...messagingConfigFromEnv(env), ...sharedStateOf(options) }),
  startEmulator: async (options) => {
    // Loaded on demand: a server talking to the real upstream never needs the emulator or SQLite.
    const { startMessagingEmulator } = await import('./emulator/app.js');
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
  runtimeForEmulator: (emulator, env, options) =>
    createMessagingRuntime({
      ...messagingConfigFromEnv(env),
      ...sharedStateOf(options),
      // `auto` against the emulator's US root: the region endpoint points at the account's host, as upstream.
      region: 'auto',
      baseUrl: emulator.url,
      siteId: () => emulator.credentials['site-id'],
      apiKey: () => emulator.credentials['api-key'],
      // Client-side rate limits as configured (SWITCHBOARD_CLIENT_RATE_LIMITS), as in production.
    }),
};
