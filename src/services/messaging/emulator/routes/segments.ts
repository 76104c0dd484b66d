/** Manual segments (v1): add people to one, remove people from one, by one kind of identifier (id_type). */
import type { Context, Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { MESSAGING_OPERATIONS } from '../../endpoints.js';
import { MESSAGING_BODIES } from '../../schemas.js';
import { v1Errors } from '../errors.js';
import { usesKind } from '../identifiers.js';
import type { PersonKind } from '../records.js';
import { send, success } from '../wire.js';
import { area, type RouteDeps, v1Body } from './common.js';

const SEGMENT_ID_TYPES: readonly PersonKind[] = ['id', 'email', 'cio_id'];
const MAX_INT32 = 2_147_483_647;

export function segmentRoutes(deps: RouteDeps): Hono<EmulatorEnv> {
  const { database, now } = deps;

  /** Both operations check the same things in the same order; only the change differs. */
  async function changeMembers(c: Context<EmulatorEnv>, action: 'add' | 'remove'): Promise<Response> {
    const rawId = c.req.param('segment_id') ?? '';
    if (!/^\d+$/.test(rawId) || Number(rawId) > MAX_INT32) {
      return send(c, 400, v1Errors([`segment_id must be an integer; got "${rawId}"`]));
    }
    const segmentId = Number(rawId);
    const idType = (c.req.query('id_type') ?? 'id') as PersonKind;
    if (!SEGMENT_ID_TYPES.includes(idType)) {
      return send(c, 400, v1Errors(['id_type must be one of "id", "email", "cio_id"']));
    }
    if (!usesKind(database.identifyBy, idType)) {
      return send(
        c,
        400,
        v1Errors([`id_type ${idType}: this workspace does not identify people by ${idType}`]),
      );
    }
    const body = await v1Body(c, MESSAGING_BODIES.segmentMembers);
    if (!body.ok) return body.error;
    const segment = database.segments.segment(segmentId);
    if (!segment) return send(c, 400, v1Errors([`segment ${segmentId} does not exist`]));
    if (segment.type !== 'manual') {
      return send(
        c,
        400,
        v1Errors([
          `segment ${segmentId} is data-driven; only manual segments can be changed through the API`,
        ]),
      );
    }
    database.segments.changeMembers(segmentId, action, idType, body.value.ids, now());
    return success(c);
  }

  function add_to_segment(c: Context<EmulatorEnv>): Promise<Response> {
    return changeMembers(c, 'add');
  }

  function remove_from_segment(c: Context<EmulatorEnv>): Promise<Response> {
    return changeMembers(c, 'remove');
  }

  const app = area();
  route(app, MESSAGING_OPERATIONS.add_to_segment, add_to_segment);
  route(app, MESSAGING_OPERATIONS.remove_from_segment, remove_from_segment);
  return app;
}
