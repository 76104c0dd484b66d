// The 17 MessagingTrackApi tools: one declarative row each, run by the generic endpoint executor. Rows with a
// `requestBody` are schema-mode tools (the spec's [M]); their body schemas live in schemas.ts. Each row names its
// upstream operation in endpoints.ts, and takes from it whether the upstream wants credentials (`anonymous`).

import { z } from 'zod';
import { endpointTool, isEmptyBody, type RequestBodyLoader } from '../../runtime/endpoint.js';
import { CREATE, DESTROY, MIXED, READ_ONLY, UPDATE } from '../../runtime/hints.js';
import type { UpstreamResponse } from '../../runtime/http.js';
import {
  type OutcomeCheck,
  type ServiceDefinition,
  type ToolCall,
  type ToolDefinition,
  withOutcomeChecks,
} from '../../runtime/tool.js';
import type { MessagingClient } from './client.js';
import { MESSAGING_OPERATIONS } from './endpoints.js';

type MessagingBodies = typeof import('./schemas.js').MESSAGING_BODIES;

/** The request body schema `name`, loaded with the body schemas on the first call that needs it, not at start. */
function messagingBody(name: keyof MessagingBodies): RequestBodyLoader {
  return async () => (await import('./schemas.js')).MESSAGING_BODIES[name];
}

export interface MessagingContext {
  track: MessagingClient;
}

/** The spec's internal-id prefix `msg_` is the upstream's `cio_`; ids and emails pass as they are. */
export function toUpstreamIdentifier(value: unknown): string {
  const text = String(value);
  return text.startsWith('msg_') ? `cio_${text.slice(4)}` : text;
}

/** The spec's identifier type `msg_id` is the upstream's `cio_id`. */
function toUpstreamIdType(value: unknown): string {
  return value === 'msg_id' ? 'cio_id' : String(value);
}

const person = (description: string) => z.string().min(1).describe(description);
const PERSON = 'id, email, or msg_<id>';
const idType = z.enum(['id', 'email', 'msg_id']).default('id');

// The call's signal reaches the region lookup too: a call cancelled while it runs sends nothing more.
const client = (ctx: MessagingContext, call: ToolCall) => ctx.track.client(call.signal);

/** 200 `{}` and 204 become an explicit success; a batch answered 207 lists what failed without failing. */
function batchShape(response: UpstreamResponse, _args: unknown, requestBody: unknown): unknown {
  const operations = ((requestBody as { batch?: unknown[] } | undefined)?.batch ?? []) as Record<
    string,
    unknown
  >[];
  if (response.status !== 207) {
    return isEmptyBody(response.body)
      ? { success: true, status: response.status, accepted: operations.length }
      : response.body;
  }
  const errors = ((response.body as { errors?: unknown[] } | undefined)?.errors ?? []) as Record<
    string,
    unknown
  >[];
  const failedIndexes = new Set(errors.map((error) => error.batch_index));
  return {
    success: false,
    status: 207,
    partial: true,
    accepted: operations.filter((_op, index) => !failedIndexes.has(index)).length,
    failed: errors.map((error) => {
      const operation = typeof error.batch_index === 'number' ? operations[error.batch_index] : undefined;
      return {
        ...error,
        ...(operation ? { operation: { type: operation.type, action: operation.action } } : {}),
      };
    }),
    hint: 'The other operations were applied; fix the failed ones and send only those again.',
  };
}

const tools = [
  endpointTool({
    name: 'GetTrackApiRegion',
    title: 'Get tracking region',
    description: "The credentials' region and API address.",
    input: z.object({}),
    hints: READ_ONLY,
    endpoint: { operation: MESSAGING_OPERATIONS.getRegion },
    client: (ctx: MessagingContext) => ctx.track.lookupClient(),
    // With MESSAGING_REGION=auto this answer is the region lookup itself: later calls reuse it.
    shape: ({ body }, _args, _body, ctx) => {
      ctx.track.rememberRegion(body);
      return body;
    },
  }),
  endpointTool({
    name: 'UpdateOrAddPerson',
    title: 'Add or update person',
    description: 'Add or update a person and their attributes.',
    input: z.object({
      person_identifier: person(`${PERSON}; msg_<id> to change id or email`).optional(),
    }),
    requestBody: messagingBody('identify'),
    hints: UPDATE,
    endpoint: {
      operation: MESSAGING_OPERATIONS.identify,
      pathParams: { identifier: 'person_identifier' },
      encode: { person_identifier: toUpstreamIdentifier },
    },
    client,
  }),
  endpointTool({
    name: 'DeleteCustomer',
    title: 'Delete person',
    description: 'Delete a person and all their data.',
    input: z.object({ customer_identifier: person(PERSON) }),
    hints: DESTROY,
    endpoint: {
      operation: MESSAGING_OPERATIONS.delete,
      pathParams: { identifier: 'customer_identifier' },
      encode: { customer_identifier: toUpstreamIdentifier },
    },
    client,
  }),
  endpointTool({
    name: 'AddDeviceToCustomerProfile',
    title: 'Add or update device',
    description: "Add or update a device on a person's profile.",
    input: z.object({ unique_person_identifier: person(PERSON).optional() }),
    requestBody: messagingBody('device'),
    hints: UPDATE,
    endpoint: {
      operation: MESSAGING_OPERATIONS.add_device,
      pathParams: { identifier: 'unique_person_identifier' },
      encode: { unique_person_identifier: toUpstreamIdentifier },
    },
    client,
  }),
  endpointTool({
    name: 'RemoveCustomerDevice',
    title: 'Remove device',
    description: "Remove a device from a person's profile.",
    input: z.object({
      customer_identifier: person(PERSON),
      device_unique_id: z.string().min(1).describe('Device token'),
    }),
    hints: DESTROY,
    endpoint: {
      operation: MESSAGING_OPERATIONS.delete_device,
      pathParams: { identifier: 'customer_identifier', device_id: 'device_unique_id' },
      encode: { customer_identifier: toUpstreamIdentifier },
    },
    client,
  }),
  endpointTool({
    name: 'SuppressCustomerProfile',
    title: 'Suppress person',
    description: 'Permanently delete a person and block their identifiers until unsuppressed.',
    input: z.object({ unique_person_identifier: person(PERSON) }),
    hints: DESTROY,
    endpoint: {
      operation: MESSAGING_OPERATIONS.suppress,
      pathParams: { identifier: 'unique_person_identifier' },
      encode: { unique_person_identifier: toUpstreamIdentifier },
      idempotent: true,
    },
    client,
  }),
  endpointTool({
    name: 'UnsuppressCustomerProfile',
    title: 'Unsuppress person',
    description: 'Unblock suppressed identifiers; the deleted profile is not restored.',
    input: z.object({ customer_identifier: person(PERSON) }),
    hints: UPDATE,
    endpoint: {
      operation: MESSAGING_OPERATIONS.unsuppress,
      pathParams: { identifier: 'customer_identifier' },
      encode: { customer_identifier: toUpstreamIdentifier },
      idempotent: true,
    },
    client,
  }),
  endpointTool({
    name: 'GlobalUnsubscribeUser',
    title: 'Global unsubscribe',
    description: 'Globally unsubscribe the recipient of a delivery.',
    input: z.object({
      // The names say what these are.
      delivery_id_for_unsubscription: z.string().min(1),
      set_unsubscribed_attribute: z.boolean().optional(),
    }),
    hints: UPDATE,
    endpoint: {
      operation: MESSAGING_OPERATIONS.unsubscribe,
      anonymous: MESSAGING_OPERATIONS.unsubscribe.anonymous,
      pathParams: { delivery_id: 'delivery_id_for_unsubscription' },
      // The upstream wants a JSON body (and its content type) even when nothing is set.
      body: (args) =>
        args.set_unsubscribed_attribute === undefined ? {} : { unsubscribe: args.set_unsubscribed_attribute },
      idempotent: true,
    },
    client,
  }),
  endpointTool({
    name: 'SendCustomerEvent',
    title: 'Send event',
    description: 'Send an event (or page or screen view) for a person.',
    input: z.object({ customer_identifier: person(PERSON).optional() }),
    requestBody: messagingBody('event'),
    hints: CREATE,
    endpoint: {
      operation: MESSAGING_OPERATIONS.track,
      pathParams: { identifier: 'customer_identifier' },
      encode: { customer_identifier: toUpstreamIdentifier },
    },
    client,
  }),
  endpointTool({
    name: 'TrackAnonymousEvent',
    title: 'Track an anonymous event',
    description: 'Log an event for a visitor not yet identified.',
    input: z.object({}),
    requestBody: messagingBody('anonymousEvent'),
    hints: CREATE,
    endpoint: { operation: MESSAGING_OPERATIONS.trackAnonymous },
    client,
  }),
  endpointTool({
    name: 'SubmitFormResponse',
    title: 'Submit a form response',
    description: 'Record a form response; an unknown form id creates the form.',
    input: z.object({
      form_identifier: z.string().min(1).optional().describe('Form id; any traceable value'),
    }),
    requestBody: messagingBody('form'),
    hints: CREATE,
    endpoint: {
      operation: MESSAGING_OPERATIONS.submitForm,
      pathParams: { form_id: 'form_identifier' },
    },
    client,
  }),
  endpointTool({
    name: 'MergeCustomerProfiles',
    title: 'Merge two people',
    description: 'Merge a secondary person into a primary one (irreversible).',
    input: z.object({}),
    requestBody: messagingBody('merge'),
    hints: DESTROY,
    endpoint: { operation: MESSAGING_OPERATIONS.merge, idempotent: true },
    client,
  }),
  endpointTool({
    name: 'ReportCustomMetrics',
    title: 'Report delivery metric',
    description: 'Report a delivery metric from a channel the platform does not track.',
    input: z.object({}),
    requestBody: messagingBody('metrics'),
    hints: CREATE,
    endpoint: { operation: MESSAGING_OPERATIONS.metrics, anonymous: MESSAGING_OPERATIONS.metrics.anonymous },
    client,
  }),
  endpointTool({
    name: 'AddPeopleToSegment',
    title: 'Add people to a segment',
    description: 'Add people to a manual segment.',
    input: z.object({
      segment_identifier: z.int().positive().optional(),
      identifier_type: idType.describe('What request_body ids are'),
    }),
    requestBody: messagingBody('segmentMembers'),
    hints: UPDATE,
    endpoint: {
      operation: MESSAGING_OPERATIONS.add_to_segment,
      pathParams: { segment_id: 'segment_identifier' },
      query: { id_type: 'identifier_type' },
      encode: { identifier_type: toUpstreamIdType },
      idempotent: true,
    },
    client,
  }),
  endpointTool({
    name: 'RemoveUserFromSegment',
    title: 'Remove people from a segment',
    description: 'Remove people from a manual segment.',
    input: z.object({
      segment_identifier: z.int().positive().optional(),
      identification_type: idType.describe('What request_body ids are'),
    }),
    requestBody: messagingBody('segmentMembers'),
    hints: UPDATE,
    endpoint: {
      operation: MESSAGING_OPERATIONS.remove_from_segment,
      pathParams: { segment_id: 'segment_identifier' },
      query: { id_type: 'identification_type' },
      encode: { identification_type: toUpstreamIdType },
      idempotent: true,
    },
    client,
  }),
  endpointTool({
    name: 'ManageEntity',
    title: 'Change person or object',
    description: 'One v2 operation on a person, object or delivery, incl. relationships.',
    input: z.object({}),
    requestBody: messagingBody('entity'),
    hints: MIXED,
    endpoint: { operation: MESSAGING_OPERATIONS.entity },
    client,
  }),
  endpointTool({
    name: 'BatchProcessRequests',
    title: 'Batch of operations',
    description: 'Many v2 operations at once; reports failed items without failing the rest.',
    input: z.object({}),
    requestBody: messagingBody('batch'),
    hints: MIXED,
    endpoint: { operation: MESSAGING_OPERATIONS.batch },
    client,
    shape: batchShape,
  }),
] satisfies ToolDefinition<MessagingContext>[];

/**
 * The Track API writes only: nothing a call records can be read back through it, so an unknown outcome cannot
 * be checked. What is safe instead is said per tool; the upstream drops an event whose ULID `id` it has seen.
 */
const unchecked = (what: string, again: string): OutcomeCheck => ({
  how: `The tracking API cannot read ${what} back, so it cannot be checked. ${again}`,
});
const eventAgain =
  'If request_body carried an `id` (a ULID), sending the same body again is safe: the upstream drops the repeat. Without one, sending again may record the event twice; do so only if a duplicate is harmless.';
const v2Again =
  'Operations that set state (identify, delete, devices, suppress, unsuppress, merge, relationships) are safe to send again; event, screen and page operations are recorded again unless they carry the same ULID `id`, so send those again only if a duplicate is harmless.';

const MESSAGING_OUTCOME_CHECKS: Readonly<Record<string, OutcomeCheck>> = {
  SendCustomerEvent: unchecked('events', eventAgain),
  TrackAnonymousEvent: unchecked('events', eventAgain),
  SubmitFormResponse: unchecked(
    'form submissions',
    'Submitting again may record the submission twice; do so only if a duplicate is harmless.',
  ),
  ReportCustomMetrics: unchecked(
    'delivery metrics',
    'Reporting again may count the metric twice; do so only if a double count is harmless.',
  ),
  ManageEntity: unchecked('what it changed', v2Again),
  BatchProcessRequests: unchecked(
    'what it changed',
    `${v2Again} Send again only the operations that are safe to repeat.`,
  ),
};

export const MESSAGING_TOOLS: readonly ToolDefinition<MessagingContext>[] = withOutcomeChecks(
  tools,
  MESSAGING_OUTCOME_CHECKS,
);

export type MessagingService = ServiceDefinition<MessagingContext>;
