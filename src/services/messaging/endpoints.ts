// Every Track API operation the MessagingTrackApi tools, the region lookup and the emulator use, once, keyed by
// the upstream's own operationId (reference/openapi/messaging-track-upstream.openapi.json; its docs link each
// one as `#operation/<id>`). Tool rows, MessagingClient and the emulator's routes all read this table.
//
// Two facts per row are Track's own, beyond the shared Operation shape:
// - `envelope`: which of the upstream's three error envelopes the endpoint answers in (v1 `meta.errors`,
//   merge_customers' `meta.error`, v2 `errors[]`); the emulator answers in it, and derives the envelope of a
//   problem found before any route runs (size cap, rate limit) from it.
// - `anonymous`: the upstream serves it without credentials (`security: []` in its OpenAPI).
//
// No row has a `rateLimit`: the Track API publishes one fair-use rate for the whole account (all of v1 and v2
// together), not a limit per endpoint; it is TRACK_FAIR_USE below.

import { defineOperations, type Operation } from '../../runtime/operation.js';

export type Envelope = 'v1' | 'merge' | 'v2';

export interface TrackOperation extends Operation {
  envelope: Envelope;
  anonymous?: true;
}

export const MESSAGING_OPERATIONS = defineOperations({
  getRegion: { method: 'GET', path: '/api/v1/accounts/region', envelope: 'v1' },
  identify: { method: 'PUT', path: '/api/v1/customers/{identifier}', envelope: 'v1' },
  delete: { method: 'DELETE', path: '/api/v1/customers/{identifier}', envelope: 'v1' },
  add_device: { method: 'PUT', path: '/api/v1/customers/{identifier}/devices', envelope: 'v1' },
  delete_device: {
    method: 'DELETE',
    path: '/api/v1/customers/{identifier}/devices/{device_id}',
    envelope: 'v1',
  },
  suppress: { method: 'POST', path: '/api/v1/customers/{identifier}/suppress', envelope: 'v1' },
  unsuppress: { method: 'POST', path: '/api/v1/customers/{identifier}/unsuppress', envelope: 'v1' },
  unsubscribe: { method: 'POST', path: '/unsubscribe/{delivery_id}', envelope: 'v1', anonymous: true },
  track: { method: 'POST', path: '/api/v1/customers/{identifier}/events', envelope: 'v1' },
  trackAnonymous: { method: 'POST', path: '/api/v1/events', envelope: 'v1' },
  submitForm: { method: 'POST', path: '/api/v1/forms/{form_id}/submit', envelope: 'v1' },
  merge: { method: 'POST', path: '/api/v1/merge_customers', envelope: 'merge' },
  metrics: { method: 'POST', path: '/api/v1/metrics', envelope: 'v1', anonymous: true },
  // No tool calls it (the spec has none); the emulator serves it, as customerio-node's trackPush uses it.
  pushMetrics: { method: 'POST', path: '/api/v1/push/events', envelope: 'v1', anonymous: true },
  add_to_segment: { method: 'POST', path: '/api/v1/segments/{segment_id}/add_customers', envelope: 'v1' },
  remove_from_segment: {
    method: 'POST',
    path: '/api/v1/segments/{segment_id}/remove_customers',
    envelope: 'v1',
  },
  entity: { method: 'POST', path: '/api/v2/entity', envelope: 'v2' },
  batch: { method: 'POST', path: '/api/v2/batch', envelope: 'v2' },
}) satisfies Readonly<Record<string, TrackOperation>>;

export type MessagingOperationName = keyof typeof MESSAGING_OPERATIONS;

/**
 * The upstream's fair-use rate, for the whole account across v1 and v2: 100 requests/s in the API overview docs
 * (the OpenAPI says 1000/s; the stricter figure is kept), "not strictly enforced". The tools' client keeps under
 * it and the emulator can enforce it, both as one account-wide budget.
 */
export const TRACK_FAIR_USE = { limit: 100, intervalMs: 1000 } as const;
