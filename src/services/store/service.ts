// The StoreApi service: its tools, the instructions sent once per session, and its wiring from configuration.

import { existsSync } from 'node:fs';
import type { SharedState } from '../../runtime/sharedState/redis.js';
import type { ServiceDefinition, ServiceRuntime } from '../../runtime/tool.js';
import {
  commonEmulatorOptions,
  emulatorCredential,
  type ServiceEntry,
  sharedStateOf,
} from '../serviceEntry.js';
import { DEFAULT_BASE_URL, StoreClient, TOKEN_ENV, type TokenSource } from './client.js';
import { savedStoreLoginFromEnv, storeCredentialsPath } from './credentials.js';
import { STORE_LOGIN } from './login.js';
import { STORE_PER_USER_AUTH } from './perUserAuth.js';
import { STORE_IDENTIFIER_PREFIXES, STORE_SEARCH_TERMS } from './searchTerms.js';
import { STORE_PREFIX, STORE_TOOL_ENTRIES } from './toolEntries.js';
import type { StoreContext } from './tools/shared.js';
import { STORE_TOOLSETS } from './toolsets.js';

export const STORE_INSTRUCTIONS = `StoreApi (hosted data store: bases, tables, fields, views, records, comments, webhooks; sharing, workspaces, enterprise administration, SCIM, bulk data tables).
- Tools with mode: first call mode "get_request_schema" for the body's JSON Schema (with examples), then "execute" with request_body as JSON text, checked before sending.
- Ids: bases app…, tables tbl…, fields fld…, views viw…, records rec…, comments com…, webhooks ach…, workspaces wsp…, users usr… (SCIM users too), user groups ugp… (SCIM groups too), enterprise accounts ent…, invites inv…, shares shr…, interfaces pbd…, extensions bli…, data tables dtb…. Tables, fields and views also go by name, but ids survive renames; StoreApi.GetStoreBaseSchema lists them.
- Enterprise, SCIM and bulk-table tools need an enterprise admin's token. Writes take at most 10 records per call. Lists page with offset: pass the returned offset back.
- Calls are paced to 5 per second per base.`;

export const STORE: ServiceDefinition<StoreContext> = {
  id: 'store',
  prefix: STORE_PREFIX,
  title: 'StoreApi',
  instructions: STORE_INSTRUCTIONS,
  tools: STORE_TOOL_ENTRIES,
  toolsets: STORE_TOOLSETS,
  searchTerms: STORE_SEARCH_TERMS,
  identifierPrefixes: STORE_IDENTIFIER_PREFIXES,
};

export interface StoreConfig {
  baseUrl?: string;
  contentUrl?: string;
  token: TokenSource;
  clientRateLimits?: boolean;
  /** Replicas' shared state (SWITCHBOARD_REDIS_URL): the per-base budgets live there. */
  sharedState?: SharedState;
  timeoutMs?: number;
  /** Sandbox only: what the emulator says of its seeded data, added to the server instructions. */
  sandboxInstructions?: string;
}

/**
 * Where a call's store token comes from besides STORE_ACCESS_TOKEN, which wins when set:
 * - `userToken`: the calling person's own token, over HTTP with per-user OAuth (src/runtime/auth/);
 * - `savedToken`: the token `switchboard login store` saved for the one person using stdio.
 */
export interface StoreTokenSources {
  userToken?: TokenSource;
  savedToken?: TokenSource;
}

export function storeConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  sources: StoreTokenSources = {},
): StoreConfig {
  const baseUrl = env.STORE_BASE_URL ? env.STORE_BASE_URL.replace(/\/+$/, '') : undefined;
  // The saved login (`switchboard login store`) is the default, but never beside per-user tokens: a caller who
  // has not connected must get "connect first", not the operator's own account. Passing `savedToken` (even
  // undefined) replaces the default.
  const savedToken =
    'savedToken' in sources
      ? sources.savedToken
      : sources.userToken
        ? undefined
        : savedStoreLoginFromEnv(env, baseUrl ?? DEFAULT_BASE_URL).token;
  return {
    ...(baseUrl ? { baseUrl } : {}),
    ...(env.STORE_CONTENT_URL ? { contentUrl: env.STORE_CONTENT_URL.replace(/\/+$/, '') } : {}),
    // Read per call, so a rotated token is used without a restart.
    token: async (call) =>
      env[TOKEN_ENV] || (await sources.userToken?.(call)) || (await savedToken?.(call)) || undefined,
    clientRateLimits: env.SWITCHBOARD_CLIENT_RATE_LIMITS !== 'off',
    ...(env.SWITCHBOARD_TIMEOUT_MS ? { timeoutMs: Number(env.SWITCHBOARD_TIMEOUT_MS) } : {}),
  };
}

export function createStoreRuntime(config: StoreConfig): ServiceRuntime<StoreContext> {
  // In the sandbox the instructions also name seeded ids a client could not otherwise find (data tables).
  const definition = config.sandboxInstructions
    ? { ...STORE, instructions: `${STORE_INSTRUCTIONS}\n- ${config.sandboxInstructions}` }
    : STORE;
  return { definition, context: { api: new StoreClient(config) } };
}

/** How the CLI serves, emulates, logs in to and checks this service (src/services/registry.ts lists it). */
export const STORE_SERVICE: ServiceEntry = {
  id: 'store',
  title: 'StoreApi (Airtable Web API)',
  definition: STORE,
  credentialFlags: [{ flag: 'token', description: 'access token the emulator accepts, with every scope' }],
  takesUserToken: true,
  perUserAuth: STORE_PER_USER_AUTH,
  login: STORE_LOGIN,
  envForEmulator: (emulator) => ({
    STORE_BASE_URL: emulator.url,
    [TOKEN_ENV]: emulatorCredential(emulator, 'token'),
  }),
  // Besides the variable, a token comes from each person's own sign-in (per-user OAuth) or from the login
  // `switchboard login store` saved (storeConfigFromEnv reads that file per call).
  missingCredentials: (env, options) =>
    env[TOKEN_ENV] || options?.perUserTokens || existsSync(storeCredentialsPath(env))
      ? undefined
      : {
          variables: [TOKEN_ENV],
          hint: `Run \`switchboard login store\` once to connect your account through the browser, or set ${TOKEN_ENV} to a personal access token and restart, or run with --sandbox to use the local emulator.`,
        },
  runtimeFromEnv: (env, options) =>
    createStoreRuntime({
      ...storeConfigFromEnv(env, options?.userToken ? { userToken: options.userToken } : {}),
      ...sharedStateOf(options),
    }),
  startEmulator: async (options) => {
    // Loaded on demand: a server talking to the real upstream never needs the emulator or SQLite.
    const { startStoreEmulator } = await import('./emulator/app.js');
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
      ...sharedStateOf(options),
      baseUrl: emulator.url,
      contentUrl: emulator.url,
      // The seeded enterprise account and bulk data table ids, which no endpoint lists.
      ...(emulator.instructions ? { sandboxInstructions: emulator.instructions } : {}),
      // With per-user OAuth, each person's own token (from the emulator's OAuth); else the all-scopes one.
      token: options?.userToken ?? (() => emulator.credentials.token),
      // Client-side rate limits as configured (SWITCHBOARD_CLIENT_RATE_LIMITS), as in production; the emulator
      // enforces the upstream's 5 requests/s per base and its 30 s penalty, so with them off a burst trips it.
    }),
};
