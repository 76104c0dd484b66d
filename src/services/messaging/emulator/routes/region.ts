/** getRegion: the account's region and host, answered on both hosts (app.ts lets it past the region check). */
import type { Context, Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { MESSAGING_OPERATIONS } from '../../endpoints.js';
import { EU_PATH_PREFIX } from '../paths.js';
import { send } from '../wire.js';
import { area, type RouteDeps } from './common.js';

export function regionRoutes(deps: RouteDeps): Hono<EmulatorEnv> {
  function getRegion(c: Context<EmulatorEnv>): Response {
    // The account's host as this listener plays it: the root for US, root + /eu for EU.
    const origin = new URL(c.req.url).origin;
    return send(c, 200, {
      url: deps.region === 'eu' ? `${origin}${EU_PATH_PREFIX}` : origin,
      region: deps.region,
      environment_id: deps.environmentId,
    });
  }

  return route(area(), MESSAGING_OPERATIONS.getRegion, getRegion);
}
