// The StoreApi service: its tools, the instructions sent once per session, and its wiring from configuration.

import {
  type ServiceDefinition,
  type ServiceRuntime,
  type ToolDefinition,
  withOutcomeChecks,
} from '../../runtime/tool.js';
import { savedStoreLoginFromEnv } from './credentials.js';
import { STORE_OUTCOME_CHECKS } from './outcomeChecks.js';
import { BULK_TABLE_TOOLS } from './tools/bulkTables.js';
import { COLLABORATION_TOOLS } from './tools/collaboration.js';
import { ENTERPRISE_TOOLS } from './tools/enterprise.js';
import { IDENTITY_TOOLS } from './tools/identity.js';
import { RECORD_TOOLS } from './tools/records.js';
import { SCHEMA_TOOLS } from './tools/schema.js';
import { SCIM_TOOLS } from './tools/scim.js';
import type { StoreContext } from './tools/shared.js';
import { WEBHOOK_TOOLS } from './tools/webhooks.js';
import { WORKSPACE_TOOLS } from './tools/workspaces.js';
import { DEFAULT_BASE_URL, StoreApi, TOKEN_ENV, type TokenSource } from './upstream.js';

export const STORE_TOOLS: readonly ToolDefinition<StoreContext>[] = withOutcomeChecks(
  [
    ...RECORD_TOOLS,
    ...SCHEMA_TOOLS,
    ...WEBHOOK_TOOLS,
    ...IDENTITY_TOOLS,
    ...SCIM_TOOLS,
    ...COLLABORATION_TOOLS,
    ...ENTERPRISE_TOOLS,
    ...WORKSPACE_TOOLS,
    ...BULK_TABLE_TOOLS,
  ],
  STORE_OUTCOME_CHECKS,
);

export const STORE_INSTRUCTIONS = `StoreApi (hosted data store: bases, tables, fields, views, records, comments, webhooks; sharing, workspaces, enterprise administration, SCIM, bulk data tables). Tools mirror the upstream endpoints one to one.
- Tools with mode and request_body: call with mode "get_request_schema" first for the body's JSON Schema (with examples), then mode "execute" with request_body as JSON text. Bodies are checked before sending.
- Ids: bases app…, tables tbl…, fields fld…, views viw…, records rec…, comments com…, webhooks ach…. Tables, fields and views also go by name, but ids survive renames. StoreApi.ListStoreBases and StoreApi.GetStoreBaseSchema list them.
- More ids: workspaces wsp…, users usr… (SCIM users too), user groups ugp… (SCIM groups too), enterprise accounts ent…, invites inv…, shares shr…, interfaces pbd…, block installations (extensions) bli…, data tables dtb…. Enterprise, SCIM and bulk-table tools need an enterprise admin's token.
- Writes take at most 10 records per call; split larger writes. Lists page with offset: pass the returned offset back.
- Calls keep to 5 requests per second per base (the upstream blocks a base for 30 s beyond that).`;

export const STORE: ServiceDefinition<StoreContext> = {
  id: 'store',
  prefix: 'StoreApi',
  title: 'StoreApi',
  instructions: STORE_INSTRUCTIONS,
  tools: STORE_TOOLS,
};

export interface StoreConfig {
  baseUrl?: string;
  contentUrl?: string;
  token: TokenSource;
  clientRateLimits?: boolean;
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
  return { definition, context: { api: new StoreApi(config) } };
}
