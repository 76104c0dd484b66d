// Webhooks: 6 StoreApi tools as declarative rows over the generic executor.

import { z } from 'zod';
import { STORE_OPERATIONS } from '../endpoints.js';
import { CREATE, DESTROY, id, READ_ONLY, storeBody, storeTool, UPDATE } from './shared.js';

/** The upstream returns at most 50 payloads per call. */
const MAX_PAYLOADS = 50;

export const WEBHOOK_TOOLS = [
  storeTool({
    name: 'ListWebhooksForBase',
    title: 'List webhooks',
    description: 'Webhooks of a base with their status and expiry.',
    input: z.object({ base_identifier: id() }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.ListWebhooks,
      pathParams: { baseId: 'base_identifier' },
    },
  }),
  storeTool({
    name: 'CreateStoreWebhook',
    title: 'Create webhook',
    description: 'Watch a base for changes; returns the id and MAC secret (shown once).',
    input: z.object({ base_id: id().optional() }),
    requestBody: storeBody('createWebhook'),
    hints: CREATE,
    endpoint: { operation: STORE_OPERATIONS.CreateWebhook, pathParams: { baseId: 'base_id' } },
  }),
  storeTool({
    name: 'DeleteStoreWebhook',
    title: 'Delete webhook',
    description: 'Delete a webhook and its payloads.',
    input: z.object({ store_base_id: id(), webhook_id: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteWebhook,
      pathParams: { baseId: 'store_base_id', webhookId: 'webhook_id' },
    },
  }),
  storeTool({
    name: 'ToggleWebhookNotifications',
    title: 'Turn webhook pings on or off',
    description: 'Enable or disable the notification pings of a webhook.',
    input: z.object({ store_base_id: id().optional(), webhook_id: id().optional() }),
    requestBody: storeBody('toggleWebhookNotifications'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.EnableWebhookNotifications,
      pathParams: { baseId: 'store_base_id', webhookId: 'webhook_id' },
      idempotent: true,
    },
  }),
  storeTool({
    name: 'ListWebhookPayloads',
    title: 'List webhook payloads',
    description: 'Change payloads of a webhook; also extends its expiry.',
    input: z.object({
      base_id: id(),
      webhook_id: id(),
      maximum_number_of_messages: z.int().min(1).max(MAX_PAYLOADS).optional(),
      pagination_cursor: z.int().positive().optional().describe('cursor of the last call; starts at 1'),
    }),
    // Reading payloads also extends the webhook's life, but repeating the read changes nothing more.
    hints: { ...READ_ONLY, readOnlyHint: false },
    endpoint: {
      operation: STORE_OPERATIONS.ListWebhookPayloads,
      pathParams: { baseId: 'base_id', webhookId: 'webhook_id' },
      query: { limit: 'maximum_number_of_messages', cursor: 'pagination_cursor' },
    },
  }),
  storeTool({
    name: 'RefreshWebhookLifespan',
    title: 'Extend webhook',
    description: 'Push the expiry of an active webhook to 7 days from now.',
    input: z.object({
      base_identifier: id(),
      webhook_id: id(),
      webhook_request_body: z.record(z.string(), z.unknown()).optional().describe('JSON body, if any'),
    }),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.RefreshWebhook,
      pathParams: { baseId: 'base_identifier', webhookId: 'webhook_id' },
      body: (args) => args.webhook_request_body,
      idempotent: true,
    },
  }),
];
