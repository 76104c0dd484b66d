// The MessagingTrackApi service: its tools, the instructions sent once per session, and its wiring from
// configuration (secrets, region, host).

import type { ServiceDefinition, ServiceRuntime } from '../../runtime/tool.js';
import { MESSAGING_TOOLS, type MessagingContext } from './tools.js';
import { API_KEY_ENV, type RegionSetting, SITE_ID_ENV, TrackApi } from './upstream.js';

export const MESSAGING_INSTRUCTIONS = `MessagingTrackApi (customer-messaging tracking API: people, devices, events, forms, segments, objects, batches). Tools mirror the upstream endpoints one to one.
- Tools with mode and request_body: call with mode "get_request_schema" first to get the body's JSON Schema (with examples), then mode "execute" with request_body as JSON text. Bodies are checked before sending; nothing invalid is sent.
- People are identified by id, email, or internal id written msg_<id> (request bodies use the upstream name cio_id). Which ones work depends on workspace settings.
- Success without data returns {"success": true}. Suppress, delete and merge cannot be undone.`;

export const MESSAGING: ServiceDefinition<MessagingContext> = {
  id: 'messaging',
  prefix: 'MessagingTrackApi',
  title: 'MessagingTrackApi',
  instructions: MESSAGING_INSTRUCTIONS,
  tools: MESSAGING_TOOLS,
};

export interface MessagingConfig {
  region: RegionSetting;
  baseUrl?: string;
  siteId: () => string | undefined;
  apiKey: () => string | undefined;
  clientRateLimits?: boolean;
  timeoutMs?: number;
}

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
    context: { track: new TrackApi(config) },
  };
}
