/** The users area (the desk's agents): GetUsers pages by position, GetUser reads one by id. */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { ISSUEDESK_OPERATIONS } from '../../endpoints.js';
import { errors } from '../errors.js';
import { userToWire } from '../wire.js';
import { type Ctx, createArea, dataResponse, found, param, positionList, type RouteDeps } from './common.js';

export function usersRoutes({ database }: RouteDeps): Hono<EmulatorEnv> {
  const area = createArea();

  function getUsers(c: Ctx) {
    return positionList(
      c,
      'users',
      (afterPos: number, limit: number) => database.usersAfter(afterPos, limit),
      userToWire,
    );
  }

  function getUser(c: Ctx) {
    return dataResponse(c, userToWire(found(database.user(param(c, 'id')), errors.userNotFound)));
  }

  route(area, ISSUEDESK_OPERATIONS.GetUsers, getUsers);
  return route(area, ISSUEDESK_OPERATIONS.GetUser, getUser);
}
