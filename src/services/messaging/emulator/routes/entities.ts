/**
 * v2 entity: one operation on a person, object or delivery (32 KB at most), answered in the v2 envelope. The
 * operation itself is applied by entityOperations.ts, which the batch route shares.
 */
import type { Context, Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { MESSAGING_OPERATIONS } from '../../endpoints.js';
import { LIMITS, MESSAGING_BODIES, smallerThanMessage } from '../../schemas.js';
import { applyOperation } from '../entityOperations.js';
import { fail, v2Errors } from '../errors.js';
import { flattenIssues, PARSE_OPTIONS } from '../issues.js';
import { bodyBytes, readJson, send, success } from '../wire.js';
import { area, type RouteDeps } from './common.js';

export function entityRoutes(deps: RouteDeps): Hono<EmulatorEnv> {
  const { database, now } = deps;
  const { envelope } = MESSAGING_OPERATIONS.entity;

  async function entity(c: Context<EmulatorEnv>): Promise<Response> {
    const size = await bodyBytes(c);
    // "Must be smaller than 32kb": exactly 32,768 bytes is already too large.
    if (size >= LIMITS.entityRequestBytes) {
      const message = smallerThanMessage('the request', size, LIMITS.entityRequestBytes);
      return fail(c, envelope, 400, message, 'too_large');
    }
    const body = await readJson(c);
    if (!body.ok) return fail(c, envelope, 400, body.error);
    const parsed = MESSAGING_BODIES.entity.safeParse(body.value, PARSE_OPTIONS);
    if (!parsed.success) return send(c, 400, v2Errors(flattenIssues(parsed.error.issues)));
    const problems = applyOperation(database, parsed.data, now());
    if (problems.length > 0) return send(c, 400, v2Errors(problems));
    return success(c);
  }

  return route(area(), MESSAGING_OPERATIONS.entity, entity);
}
