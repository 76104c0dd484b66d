/** The teams area: GetTeams pages by position, GetTeam reads one by id with its members. */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { ISSUEDESK_OPERATIONS } from '../../endpoints.js';
import { errors } from '../errors.js';
import { teamToWire } from '../wire.js';
import { type Ctx, createArea, dataResponse, found, param, positionList, type RouteDeps } from './common.js';

export function teamsRoutes({ database }: RouteDeps): Hono<EmulatorEnv> {
  const area = createArea();

  function getTeams(c: Ctx) {
    return positionList(
      c,
      'teams',
      (afterPos: number, limit: number) => database.teamsAfter(afterPos, limit),
      teamToWire,
    );
  }

  function getTeam(c: Ctx) {
    return dataResponse(c, teamToWire(found(database.team(param(c, 'id')), errors.teamNotFound)));
  }

  route(area, ISSUEDESK_OPERATIONS.GetTeams, getTeams);
  return route(area, ISSUEDESK_OPERATIONS.GetTeam, getTeam);
}
