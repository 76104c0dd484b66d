/**
 * GET /v0/meta/whoami: the token's user id, its email only with user.email:read, and its scopes only for OAuth
 * tokens (a personal access token's scopes are not listed, as upstream). No scope is needed.
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import { respond } from '../errors.js';
import { type Ctx, createArea, type RouteDeps, route } from './common.js';

export function identityArea(deps: RouteDeps): Hono<EmulatorEnv> {
  const area = createArea();

  function getUserIdAndScopes(c: Ctx) {
    const principal = deps.access.require(c, undefined);
    if (!principal.ok) return respond(c, principal.error);
    const { userId, scopes, kind } = principal.value;
    const user = deps.store.schema().userById.get(userId);
    return c.json({
      id: userId,
      ...(kind === 'oauth' ? { scopes: [...scopes] } : {}),
      ...(scopes.has('user.email:read') && user ? { email: user.email } : {}),
    });
  }

  route(area, STORE_OPERATIONS.GetUserIdAndScopes, getUserIdAndScopes);
  return area;
}
