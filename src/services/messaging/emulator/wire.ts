/**
 * The Track API's wire shapes: `{}` success bodies with the upstream's exact content type, the three error
 * envelopes (v1 `meta.errors`, merge `meta.error`, v2 `errors[]`), and reading JSON bodies under the size cap.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { EmulatorEnv } from '../../../emulation/env.js';
import { err, ok, type Result } from '../../../emulation/result.js';
import { byteLength } from '../schemas.js';
import type { FieldIssue } from './issues.js';

/** As recorded from the live API: `{}` with this content type (customerio-node test fixtures). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Bodies above this are refused (413) before parsing. It sits far above every documented limit (batch: under
 * 500 KB) so that oversized batches still get the documented 400 from the route; it only guards the emulator.
 */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

export type Envelope = 'v1' | 'merge' | 'v2';

export function send(c: Context<EmulatorEnv>, status: ContentfulStatusCode, body: unknown): Response {
  return c.body(JSON.stringify(body), status, { 'content-type': JSON_CONTENT_TYPE });
}

export function success(c: Context<EmulatorEnv>): Response {
  return send(c, 200, {});
}

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

/** Which envelope a path's errors use, for problems found before a route runs (size cap, 404s). */
export function envelopeOf(path: string): Envelope {
  if (/^(\/eu)?\/api\/v2\//.test(path)) return 'v2';
  if (/^(\/eu)?\/api\/v1\/merge_customers$/.test(path)) return 'merge';
  return 'v1';
}

/** The body as JSON: empty means {} (several endpoints have none), anything unparsable is a 400. */
export async function readJson(c: Context<EmulatorEnv>): Promise<Result<unknown, string>> {
  const text = await c.req.text();
  if (text.trim() === '') return ok({});
  try {
    return ok(JSON.parse(text) as unknown);
  } catch (e) {
    return err(`the request body is not valid JSON: ${(e as Error).message}`);
  }
}

export async function bodyBytes(c: Context<EmulatorEnv>): Promise<number> {
  return byteLength(await c.req.text());
}
