// The IssueDesk service: its tools, the instructions sent once per session, and its wiring from configuration.

import { withOutputSchemas } from '../../runtime/outputSchemas.js';
import { serviceTools } from '../../runtime/prebuiltTools.js';
import type { RateBudget } from '../../runtime/rateLimiter.js';
import type { SharedState } from '../../runtime/sharedState/redis.js';
import type { ServiceDefinition, ServiceRuntime } from '../../runtime/tool.js';
import {
  commonEmulatorOptions,
  emulatorCredential,
  type ServiceEntry,
  sharedStateOf,
} from '../serviceEntry.js';
import { DEFAULT_BASE_URL, IssueDeskClient, TOKEN_ENV } from './client.js';
import type { IssueDeskContext } from './resolve.js';
import { ISSUEDESK_SEARCH_TERMS } from './searchTerms.js';
import { ISSUEDESK_TOOLSETS } from './toolsets.js';

export const ISSUEDESK_INSTRUCTIONS = `IssueDesk (customer-support issue desk: issues, contacts, users, teams).
- Find issues with IssueDesk.SearchIssues (keywords are ANDed; also OR, NOT or -word, "phrase", parentheses) or IssueDesk.ListIssues (time window, filters).
- An uncertain lookup changes nothing: it returns status "needs_confirmation" with candidates, each with a ready next_call. auto_accept_matches true accepts a clear best match (confidence >= 0.8, 0.15 ahead of the next); exact matches always act.
- Lists page with next_cursor: pass it as cursor.`;

export const ISSUEDESK: ServiceDefinition<IssueDeskContext> = {
  id: 'issuedesk',
  prefix: 'IssueDesk',
  title: 'IssueDesk',
  instructions: ISSUEDESK_INSTRUCTIONS,
  // The definitions load on the first call in the built program (runtime/prebuiltTools.ts).
  tools: await serviceTools('IssueDesk', async () => {
    const [{ ISSUEDESK_TOOLS }, { ISSUEDESK_OUTPUT_SCHEMAS }] = await Promise.all([
      import('./tools.js'),
      import('./outputSchemas.js'),
    ]);
    return withOutputSchemas(ISSUEDESK_TOOLS, ISSUEDESK_OUTPUT_SCHEMAS);
  }),
  toolsets: ISSUEDESK_TOOLSETS,
  searchTerms: ISSUEDESK_SEARCH_TERMS,
};

export interface IssueDeskConfig {
  baseUrl?: string;
  /** Read on every call. */
  token: () => string | undefined;
  clientRateLimits?: boolean;
  /** The client-side limiter (tests pass one on a virtual clock); default Pylon's published limits. */
  rateLimiter?: RateBudget;
  /** Replicas' shared state (SWITCHBOARD_REDIS_URL): the rate budgets live there. */
  sharedState?: SharedState;
  timeoutMs?: number;
  now?: () => Date;
}

export function issueDeskConfigFromEnv(env: NodeJS.ProcessEnv = process.env): IssueDeskConfig {
  return {
    baseUrl: env.ISSUEDESK_BASE_URL || DEFAULT_BASE_URL,
    token: () => env[TOKEN_ENV] || undefined,
    clientRateLimits: env.SWITCHBOARD_CLIENT_RATE_LIMITS !== 'off',
    ...(env.SWITCHBOARD_TIMEOUT_MS ? { timeoutMs: Number(env.SWITCHBOARD_TIMEOUT_MS) } : {}),
  };
}

export function createIssueDeskRuntime(config: IssueDeskConfig): ServiceRuntime<IssueDeskContext> {
  const upstream = new IssueDeskClient({
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    token: config.token,
    ...(config.clientRateLimits !== undefined ? { clientRateLimits: config.clientRateLimits } : {}),
    ...(config.rateLimiter ? { rateLimiter: config.rateLimiter } : {}),
    ...(config.sharedState ? { sharedState: config.sharedState } : {}),
    ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
  });
  return {
    definition: ISSUEDESK,
    context: { upstream, now: config.now ?? (() => new Date()) },
  };
}

/** How the CLI serves, emulates and checks this service (src/services/registry.ts lists it). */
export const ISSUEDESK_SERVICE: ServiceEntry = {
  id: 'issuedesk',
  title: 'IssueDesk (Pylon API)',
  definition: ISSUEDESK,
  credentialFlags: [{ flag: 'token', description: 'API token the emulator accepts' }],
  envForEmulator: (emulator) => ({
    ISSUEDESK_BASE_URL: emulator.url,
    [TOKEN_ENV]: emulatorCredential(emulator, 'token'),
  }),
  missingCredentials: (env) =>
    env[TOKEN_ENV]
      ? undefined
      : {
          variables: [TOKEN_ENV],
          hint: `Set ${TOKEN_ENV} to an API token (the issue desk's Settings → API Tokens) and restart, or run with --sandbox to use the local emulator.`,
        },
  runtimeFromEnv: (env, options) =>
    createIssueDeskRuntime({ ...issueDeskConfigFromEnv(env), ...sharedStateOf(options) }),
  startEmulator: async (options) => {
    // Loaded on demand: a server talking to the real upstream never needs the emulator or SQLite.
    const { startIssueDeskEmulator } = await import('./emulator/app.js');
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
  runtimeForEmulator: (emulator, env, options) =>
    createIssueDeskRuntime({
      ...issueDeskConfigFromEnv(env),
      ...sharedStateOf(options),
      baseUrl: emulator.url,
      token: () => emulator.credentials.token,
      // Client-side rate limits as configured (SWITCHBOARD_CLIENT_RATE_LIMITS, on by default), as against the
      // real upstream: the sandbox shows the pacing an agent will meet in production.
    }),
};
