/**
 * v2 batch: many entity operations (under 500 KB), each applied or refused on its own; refused ones come back
 * as a 207 listing them by index. Every batch is recorded, refused whole or not, for inspection.
 */
import type { Context, Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { MESSAGING_OPERATIONS } from '../../endpoints.js';
import { batchBody, LIMITS, smallerThanMessage } from '../../schemas.js';
import { applyOperation } from '../entityOperations.js';
import { fail } from '../errors.js';
import { flattenIssues, PARSE_OPTIONS } from '../issues.js';
import { bodyBytes, readJson, send, success } from '../wire.js';
import { area, isPlainObject, type RouteDeps } from './common.js';

/** The batch schema's own item rule (an entity operation of 32 KB or less), so one contract checks both. */
const batchItem = batchBody.shape.batch.element;

export function batchRoutes(deps: RouteDeps): Hono<EmulatorEnv> {
  const { database, now } = deps;
  const { envelope } = MESSAGING_OPERATIONS.batch;

  async function batch(c: Context<EmulatorEnv>): Promise<Response> {
    const size = await bodyBytes(c);
    const whole = (
      status: 400,
      message: string,
      reason: 'invalid' | 'required' | 'too_large',
      field = '',
    ) => {
      database.history.recordBatch({ bytes: size, operations: 0, accepted: 0, failed: [], status }, now());
      return fail(c, envelope, status, message, reason, field);
    };
    // "Must be smaller than 500kb": exactly 512,000 bytes is already too large.
    if (size >= LIMITS.batchRequestBytes) {
      return whole(400, smallerThanMessage('the batch', size, LIMITS.batchRequestBytes), 'too_large');
    }
    const body = await readJson(c);
    if (!body.ok) return whole(400, body.error, 'invalid');
    if (!isPlainObject(body.value)) return whole(400, 'the request body must be a JSON object', 'invalid');
    const items = body.value.batch;
    if (items === undefined) return whole(400, 'is required', 'required', 'batch');
    if (!Array.isArray(items)) return whole(400, 'must be an array of entity operations', 'invalid', 'batch');
    if (items.length === 0) return whole(400, 'must contain at least 1 operation', 'invalid', 'batch');

    const at = now();
    const errors: { batch_index: number; reason: string; field: string; message: string }[] = [];
    const failed: number[] = [];
    database.transaction(() => {
      for (const [index, item] of items.entries()) {
        const parsed = batchItem.safeParse(item, PARSE_OPTIONS);
        const problems = parsed.success
          ? applyOperation(database, parsed.data, at)
          : flattenIssues(parsed.error.issues);
        if (problems.length === 0) continue;
        failed.push(index);
        for (const p of problems) errors.push({ batch_index: index, ...p });
      }
    });
    const status = failed.length > 0 ? 207 : 200;
    database.history.recordBatch(
      { bytes: size, operations: items.length, accepted: items.length - failed.length, failed, status },
      at,
    );
    return failed.length > 0 ? send(c, 207, { errors }) : success(c);
  }

  return route(area(), MESSAGING_OPERATIONS.batch, batch);
}
