/** Events (v1): a person's event, and an anonymous visitor's (or an invite, addressed by data.recipient). */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { MESSAGING_OPERATIONS } from '../../endpoints.js';
import { MESSAGING_BODIES } from '../../schemas.js';
import { v1Errors } from '../errors.js';
import type { EventInput } from '../state/events.js';
import { send, success } from '../wire.js';
import { area, personAndBody, type RouteDeps, v1Body } from './common.js';

/** Upstream trims event names; a name of only spaces is then no name at all. */
const BLANK_NAME = 'name: must not be blank';

/** The event a v1 body describes (a person's or an anonymous one), or undefined when its name is blank. */
function eventOf(data: z.output<typeof MESSAGING_BODIES.event>): EventInput | undefined {
  const name = data.name.trim();
  if (name === '') return undefined;
  return { name, type: data.type ?? 'event', id: data.id, timestamp: data.timestamp, data: data.data ?? {} };
}

export function eventRoutes(deps: RouteDeps): Hono<EmulatorEnv> {
  const { database, now } = deps;

  async function track(c: Context<EmulatorEnv>): Promise<Response> {
    const request = await personAndBody(c, database, MESSAGING_BODIES.event);
    if (!request.ok) return request.error;
    const event = eventOf(request.value.body);
    if (!event) return send(c, 400, v1Errors([BLANK_NAME]));
    database.events.track(request.value.ref, event, now(), 'v1');
    return success(c);
  }

  async function trackAnonymous(c: Context<EmulatorEnv>): Promise<Response> {
    const body = await v1Body(c, MESSAGING_BODIES.anonymousEvent);
    if (!body.ok) return body.error;
    const data = body.value;
    const event = eventOf(data);
    if (!event) return send(c, 400, v1Errors([BLANK_NAME]));
    const anonymousId =
      data.anonymous_id === undefined || data.anonymous_id === '' ? null : data.anonymous_id;
    const recipient = data.data?.recipient;
    if (anonymousId === null && (recipient === undefined || recipient === '')) {
      return send(
        c,
        400,
        v1Errors(['anonymous_id is required, unless data.recipient is set (that makes it an invite event)']),
      );
    }
    database.events.trackAnonymous(anonymousId, event, now());
    return success(c);
  }

  const app = area();
  route(app, MESSAGING_OPERATIONS.track, track);
  route(app, MESSAGING_OPERATIONS.trackAnonymous, trackAnonymous);
  return app;
}
