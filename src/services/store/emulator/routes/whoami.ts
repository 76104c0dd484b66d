/**
 * GET /v0/meta/whoami: the token's user id, its email only with user.email:read, and its scopes only for OAuth
 * tokens (a personal access token's scopes are not listed, as upstream). No scope is needed.
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { respond } from '../errors.js';
import { type RouteDeps, route } from './common.js';

export function registerWhoamiRoutes(app: Hono<EmulatorEnv>, deps: RouteDeps): void {
  route(app, 'GET', '/v0/meta/whoami', (c) => {
    const principal = deps.access.require(c, undefined);
    if (!principal.ok) return respond(c, principal.error);
    const { userId, scopes, kind } = principal.value;
    const user = deps.store.schema().userById.get(userId);
    return c.json({
      id: userId,
      ...(kind === 'oauth' ? { scopes: [...scopes] } : {}),
      ...(scopes.has('user.email:read') && user ? { email: user.email } : {}),
    });
  });
}
