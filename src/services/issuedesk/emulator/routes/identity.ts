/** The identity area: GetMe, the organization behind the API token. */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { ISSUEDESK_OPERATIONS } from '../../endpoints.js';
import { orgToWire } from '../wire.js';
import { type Ctx, createArea, dataResponse, type RouteDeps } from './common.js';

export function identityRoutes({ database }: RouteDeps): Hono<EmulatorEnv> {
  const area = createArea();

  function getMe(c: Ctx) {
    return dataResponse(c, orgToWire(database.org()));
  }

  return route(area, ISSUEDESK_OPERATIONS.GetMe, getMe);
}
