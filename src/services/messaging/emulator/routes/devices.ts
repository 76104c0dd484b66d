/** Devices (v1): add or update a person's device, and remove one. */
import type { Context, Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { MESSAGING_OPERATIONS } from '../../endpoints.js';
import { MESSAGING_BODIES } from '../../schemas.js';
import { success } from '../wire.js';
import { area, pathPerson, personAndBody, type RouteDeps } from './common.js';

export function deviceRoutes(deps: RouteDeps): Hono<EmulatorEnv> {
  const { database, now } = deps;

  async function add_device(c: Context<EmulatorEnv>): Promise<Response> {
    const request = await personAndBody(c, database, MESSAGING_BODIES.device);
    if (!request.ok) return request.error;
    const { ref, body } = request.value;
    const { id, platform, last_used, attributes } = body.device;
    database.devices.upsert(ref, { token: id, platform, lastUsed: last_used, attributes }, now());
    return success(c);
  }

  function delete_device(c: Context<EmulatorEnv>): Response {
    const ref = pathPerson(c, database);
    if (!ref.ok) return ref.error;
    database.devices.delete(ref.value, c.req.param('device_id') ?? '');
    return success(c);
  }

  const app = area();
  route(app, MESSAGING_OPERATIONS.add_device, add_device);
  route(app, MESSAGING_OPERATIONS.delete_device, delete_device);
  return app;
}
