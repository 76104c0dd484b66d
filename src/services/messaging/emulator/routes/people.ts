/**
 * People (v1): identify, delete, suppress, unsuppress, merge (merge_customers answers in its own envelope) and
 * the global unsubscribe, which needs no credentials and sets a delivery's person's `unsubscribed`.
 */
import type { Context, Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { MESSAGING_OPERATIONS } from '../../endpoints.js';
import { MESSAGING_BODIES } from '../../schemas.js';
import { checkObjectRelationships, mergeRef, splitPersonAttributes } from '../entityOperations.js';
import { fail, v1Errors } from '../errors.js';
import { flattenIssues, issueMessages, PARSE_OPTIONS } from '../issues.js';
import type { JsonObject } from '../records.js';
import { readJson, send, success } from '../wire.js';
import { area, isPlainObject, pathPerson, personAndBody, type RouteDeps } from './common.js';

export function peopleRoutes(deps: RouteDeps): Hono<EmulatorEnv> {
  const { database, now } = deps;

  async function identify(c: Context<EmulatorEnv>): Promise<Response> {
    const request = await personAndBody(c, database, MESSAGING_BODIES.identify);
    if (!request.ok) return request.error;
    const { ref, body: data } = request.value;
    const rels = data.cio_relationships;
    const items = rels
      ? checkObjectRelationships(database, rels.relationships, 'cio_relationships.relationships')
      : undefined;
    if (items && !items.ok) return send(c, 400, v1Errors(issueMessages([items.error])));
    database.profiles.identify(
      {
        ref,
        ...splitPersonAttributes(data as JsonObject),
        ...(rels && items
          ? {
              relationships: {
                action: rels.action === 'delete_relationships' ? 'delete' : 'add',
                items: items.value,
              },
            }
          : {}),
      },
      now(),
    );
    return success(c);
  }

  // `delete` is a reserved word; the handler of operation `delete` takes the upstream's title for it.
  function deleteCustomer(c: Context<EmulatorEnv>): Response {
    const ref = pathPerson(c, database);
    if (!ref.ok) return ref.error;
    // Unknown people are not an error upstream: deleting is idempotent.
    database.people.deletePerson(ref.value);
    return success(c);
  }

  function suppress(c: Context<EmulatorEnv>): Response {
    const ref = pathPerson(c, database);
    if (!ref.ok) return ref.error;
    database.people.suppress(ref.value, now());
    return success(c);
  }

  function unsuppress(c: Context<EmulatorEnv>): Response {
    const ref = pathPerson(c, database);
    if (!ref.ok) return ref.error;
    database.people.unsuppress(ref.value);
    return success(c);
  }

  async function merge(c: Context<EmulatorEnv>): Promise<Response> {
    const { envelope } = MESSAGING_OPERATIONS.merge;
    const body = await readJson(c);
    if (!body.ok) return fail(c, envelope, 400, body.error);
    const parsed = MESSAGING_BODIES.merge.safeParse(body.value, PARSE_OPTIONS);
    if (!parsed.success) {
      return fail(c, envelope, 400, issueMessages(flattenIssues(parsed.error.issues)).join('; '));
    }
    const primary = mergeRef(database, parsed.data.primary, 'primary');
    if (!primary.ok) return fail(c, envelope, 400, primary.error);
    const secondary = mergeRef(database, parsed.data.secondary, 'secondary');
    if (!secondary.ok) return fail(c, envelope, 400, secondary.error);
    // A missing primary (or secondary) makes the merge a no-op, still 200 upstream; the database records it.
    database.profiles.merge(primary.value, secondary.value, now(), 'v1');
    return success(c);
  }

  async function unsubscribe(c: Context<EmulatorEnv>): Promise<Response> {
    const mediaType = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json') {
      return send(c, 400, v1Errors(['this endpoint requires the header Content-Type: application/json']));
    }
    const deliveryId = c.req.param('delivery_id') ?? '';
    if (!database.deliveries.delivery(deliveryId)) {
      return send(c, 400, v1Errors([`delivery ${deliveryId} does not exist`]));
    }
    const body = await readJson(c);
    if (!body.ok) return send(c, 400, v1Errors([body.error]));
    if (!isPlainObject(body.value)) return send(c, 400, v1Errors(['the request body must be a JSON object']));
    const { unsubscribe } = body.value;
    if (unsubscribe !== undefined && typeof unsubscribe !== 'boolean') {
      return send(c, 400, v1Errors(['unsubscribe: must be a boolean']));
    }
    // true unsubscribes, false resubscribes (customerio-node's TrackClient.unsubscribe); absent changes nothing.
    if (typeof unsubscribe === 'boolean') database.deliveries.unsubscribe(deliveryId, unsubscribe, now());
    return success(c);
  }

  const app = area();
  route(app, MESSAGING_OPERATIONS.identify, identify);
  route(app, MESSAGING_OPERATIONS.delete, deleteCustomer);
  route(app, MESSAGING_OPERATIONS.suppress, suppress);
  route(app, MESSAGING_OPERATIONS.unsuppress, unsuppress);
  route(app, MESSAGING_OPERATIONS.merge, merge);
  route(app, MESSAGING_OPERATIONS.unsubscribe, unsubscribe);
  return app;
}
