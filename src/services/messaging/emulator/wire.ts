/**
 * The Track API's wire shapes on success: `{}` bodies with the upstream's exact content type, and reading JSON
 * bodies (the size cap is checked in app.ts before any route runs). Error bodies are in errors.ts.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { EmulatorEnv } from '../../../emulation/env.js';
import { err, ok, type Result } from '../../../emulation/result.js';
import { byteLength } from '../schemas.js';

/** As recorded from the live API: `{}` with this content type (customerio-node test fixtures). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Bodies above this are refused (413) before parsing. It sits far above every documented limit (batch: under
 * 500 KB) so that oversized batches still get the documented 400 from the route; it only guards the emulator.
 */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

export function send(c: Context<EmulatorEnv>, status: ContentfulStatusCode, body: unknown): Response {
  return c.body(JSON.stringify(body), status, { 'content-type': JSON_CONTENT_TYPE });
}

export function success(c: Context<EmulatorEnv>): Response {
  return send(c, 200, {});
}

/**
 * The body as JSON, whatever its Content-Type (only /unsubscribe checks that, as its docs require): empty means
 * {} (several endpoints have none), anything unparsable is a 400 whose message carries the parser's reason.
 * Hono's `validator('json')` was weighed for this and not used: it leaves the body unread unless the
 * Content-Type is JSON, refuses an empty body, and answers malformed JSON with its own fixed message, in no
 * Track envelope, so each of those answers would change.
 */
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
