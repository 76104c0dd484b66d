/**
 * The Track API's error catalogue: its three error envelopes (v1 `{meta:{errors:[...]}}`, merge_customers'
 * `{meta:{error}}`, v2 `{errors:[{reason, field, message}]}`), which envelope a path answers in (each
 * operation's `envelope` in endpoints.ts), and the 401 the upstream sends without a body.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { EmulatorEnv, ErrorBodyFn } from '../../../emulation/env.js';
import { type Envelope, MESSAGING_OPERATIONS } from '../endpoints.js';
import type { FieldIssue } from './issues.js';
import { operationsAt } from './paths.js';
import { send } from './wire.js';

export type { Envelope } from '../endpoints.js';

export function v1Errors(messages: readonly string[]): { meta: { errors: string[] } } {
  return { meta: { errors: [...messages] } };
}

export function mergeError(message: string): { meta: { error: string } } {
  return { meta: { error: message } };
}

export function v2Errors(issues: readonly FieldIssue[]): { errors: FieldIssue[] } {
  return { errors: [...issues] };
}

/** One problem in the envelope the endpoint uses. */
export function fail(
  c: Context<EmulatorEnv>,
  envelope: Envelope,
  status: ContentfulStatusCode,
  message: string,
  reason: FieldIssue['reason'] = 'invalid',
  field = '',
): Response {
  if (envelope === 'merge') return send(c, status, mergeError(message));
  if (envelope === 'v2') return send(c, status, v2Errors([{ reason, field, message }]));
  return send(c, status, v1Errors([message]));
}

/** `/api/v2` for `/api/v2/...`: the API version a path is under, if any. */
function versionOf(path: string): string | undefined {
  return /^\/api\/v\d+(?=\/)/.exec(path)?.[0];
}

/**
 * The envelope each API version's operations all share (v2: all `v2`); v1 has none, as merge_customers answers
 * in its own.
 */
const VERSION_ENVELOPES: ReadonlyMap<string, Envelope> = (() => {
  const seen = new Map<string, Set<Envelope>>();
  for (const { path, envelope } of Object.values(MESSAGING_OPERATIONS)) {
    const version = versionOf(path);
    if (version) seen.set(version, (seen.get(version) ?? new Set()).add(envelope));
  }
  const shared = new Map<string, Envelope>();
  for (const [version, envelopes] of seen) {
    const [only] = envelopes;
    if (envelopes.size === 1 && only) shared.set(version, only);
  }
  return shared;
})();

/**
 * Which envelope a host-relative path's errors use, for problems found before a route runs (size cap, rate
 * limit): its operation's; for a path that is no operation, the one its API version's operations share; else v1,
 * which every Track client can read.
 */
export function envelopeOf(path: string): Envelope {
  const [operation] = operationsAt(path);
  if (operation) return operation.envelope;
  const version = versionOf(path);
  return (version && VERSION_ENVELOPES.get(version)) || 'v1';
}

/**
 * What the shared emulator kit answers itself (faults, unknown paths, unexpected errors) is in the v1 envelope,
 * which every Track client can read.
 */
export const errorBody: ErrorBodyFn = (_status, message) => v1Errors([message]);

/**
 * 401 has no body schema upstream; an empty body is what every client (customerio-node parses any non-empty
 * body as JSON) handles cleanly.
 */
export function unauthorized(c: Context<EmulatorEnv>): Response {
  return c.body(null, 401);
}
