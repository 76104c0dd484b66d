/**
 * The Track API's routes (v1, v2 and the root unsubscribe), registered once for the US host (the root) and once
 * under /eu for the EU host. Each route validates its body with the shared zod schema, answers in the
 * endpoint's own error envelope, and hands validated input to the store. Auth and region checks happen before
 * any route runs (see app.ts).
 */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { EmulatorEnv } from '../../../emulation/env.js';
import { batchBody, byteLength, LIMITS, MESSAGING_BODIES, smallerThanMessage } from '../schemas.js';
import { identifierKinds, looksLikeEmail, parsePathIdentifier, usesKind } from './identifiers.js';
import { flattenIssues, issueMessages, PARSE_OPTIONS } from './issues.js';
import { applyOperation, checkObjectRelationships, mergeRef, splitPersonAttributes } from './operations.js';
import type { JsonObject, PersonKind, PersonRef, Region } from './records.js';
import type { MessagingStore } from './store.js';
import { bodyBytes, fail, readJson, send, success, v1Errors, v2Errors } from './wire.js';

export const EU_PATH_PREFIX = '/eu';

const FORM_IGNORED_KEYS = new Set(['form_id', 'form_name', 'form_type', 'form_url', 'form_url_param']);
const PUSH_EVENTS = ['opened', 'converted', 'delivered'] as const;
const SEGMENT_ID_TYPES: readonly PersonKind[] = ['id', 'email', 'cio_id'];
const MAX_INT32 = 2_147_483_647;

/** The batch schema's own item rule (an entity operation of 32 KB or less), so one contract checks both. */
const batchItem = batchBody.shape.batch.element;

export interface RouteDeps {
  store: MessagingStore;
  region: Region;
  environmentId: number;
  /** Unix seconds now, from the emulator's clock. */
  now(): number;
}

type Handler = (c: Context<EmulatorEnv>) => Response | Promise<Response>;

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function registerTrackRoutes(app: Hono<EmulatorEnv>, deps: RouteDeps): void {
  const { store, now } = deps;

  function on(method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, handler: Handler): void {
    for (const prefix of ['', EU_PATH_PREFIX]) app.on(method, `${prefix}${path}`, handler);
  }

  /** The person named in the path, or the v1 400 that explains why the identifier is unusable. */
  function pathPerson(c: Context<EmulatorEnv>): PersonRef | Response {
    const parsed = parsePathIdentifier(c.req.param('identifier') ?? '', store.identifyBy);
    return parsed.ok ? parsed.value : send(c, 400, v1Errors([parsed.error]));
  }

  /** Reads and validates a v1 body; the 400 carries one message per problem. */
  async function v1Body<S extends z.ZodType>(
    c: Context<EmulatorEnv>,
    schema: S,
  ): Promise<z.output<S> | Response> {
    const body = await readJson(c);
    if (!body.ok) return send(c, 400, v1Errors([body.error]));
    const parsed = schema.safeParse(body.value, PARSE_OPTIONS);
    if (!parsed.success) return send(c, 400, v1Errors(issueMessages(flattenIssues(parsed.error.issues))));
    return parsed.data;
  }

  // ---- v1: account -----------------------------------------------------------------------------------------

  on('GET', '/api/v1/accounts/region', (c) => {
    // The account's host as this listener plays it: the root for US, root + /eu for EU.
    const origin = new URL(c.req.url).origin;
    return send(c, 200, {
      url: deps.region === 'eu' ? `${origin}${EU_PATH_PREFIX}` : origin,
      region: deps.region,
      environment_id: deps.environmentId,
    });
  });

  // ---- v1: people --------------------------------------------------------------------------------------------

  on('PUT', '/api/v1/customers/:identifier', async (c) => {
    const ref = pathPerson(c);
    if (ref instanceof Response) return ref;
    const data = await v1Body(c, MESSAGING_BODIES.identify);
    if (data instanceof Response) return data;
    const rels = data.cio_relationships;
    const items = rels
      ? checkObjectRelationships(store, rels.relationships, 'cio_relationships.relationships')
      : [];
    if (!Array.isArray(items)) return send(c, 400, v1Errors(issueMessages([items])));
    store.identify(
      {
        ref,
        ...splitPersonAttributes(data as JsonObject),
        ...(rels
          ? { relationships: { action: rels.action === 'delete_relationships' ? 'delete' : 'add', items } }
          : {}),
      },
      now(),
    );
    return success(c);
  });

  on('DELETE', '/api/v1/customers/:identifier', (c) => {
    const ref = pathPerson(c);
    if (ref instanceof Response) return ref;
    // Unknown people are not an error upstream: deleting is idempotent.
    store.deletePerson(ref);
    return success(c);
  });

  on('PUT', '/api/v1/customers/:identifier/devices', async (c) => {
    const ref = pathPerson(c);
    if (ref instanceof Response) return ref;
    const data = await v1Body(c, MESSAGING_BODIES.device);
    if (data instanceof Response) return data;
    const { id, platform, last_used, attributes } = data.device;
    store.upsertDevice(ref, { token: id, platform, lastUsed: last_used, attributes }, now());
    return success(c);
  });

  on('DELETE', '/api/v1/customers/:identifier/devices/:device_id', (c) => {
    const ref = pathPerson(c);
    if (ref instanceof Response) return ref;
    store.deleteDevice(ref, c.req.param('device_id') ?? '');
    return success(c);
  });

  on('POST', '/api/v1/customers/:identifier/suppress', (c) => {
    const ref = pathPerson(c);
    if (ref instanceof Response) return ref;
    store.suppress(ref, now());
    return success(c);
  });

  on('POST', '/api/v1/customers/:identifier/unsuppress', (c) => {
    const ref = pathPerson(c);
    if (ref instanceof Response) return ref;
    store.unsuppress(ref);
    return success(c);
  });

  // ---- v1: events --------------------------------------------------------------------------------------------

  on('POST', '/api/v1/customers/:identifier/events', async (c) => {
    const ref = pathPerson(c);
    if (ref instanceof Response) return ref;
    const data = await v1Body(c, MESSAGING_BODIES.event);
    if (data instanceof Response) return data;
    // Upstream trims event names; a name of only spaces is then no name at all.
    const name = data.name.trim();
    if (name === '') return send(c, 400, v1Errors(['name: must not be blank']));
    store.trackEvent(
      ref,
      { name, type: data.type ?? 'event', id: data.id, timestamp: data.timestamp, data: data.data ?? {} },
      now(),
      'v1',
    );
    return success(c);
  });

  on('POST', '/api/v1/events', async (c) => {
    const data = await v1Body(c, MESSAGING_BODIES.anonymousEvent);
    if (data instanceof Response) return data;
    const name = data.name.trim();
    if (name === '') return send(c, 400, v1Errors(['name: must not be blank']));
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
    store.trackAnonymous(
      anonymousId,
      { name, type: data.type ?? 'event', id: data.id, timestamp: data.timestamp, data: data.data ?? {} },
      now(),
    );
    return success(c);
  });

  // ---- v1: forms ---------------------------------------------------------------------------------------------

  on('POST', '/api/v1/forms/:form_id/submit', async (c) => {
    const formId = c.req.param('form_id') ?? '';
    const body = await readJson(c);
    if (!body.ok) return send(c, 400, v1Errors([body.error]));
    // Upstream adds the form connection even when the submission itself is refused (e.g. no email field).
    if (isPlainObject(body.value)) store.ensureForm(formId, now());
    const parsed = MESSAGING_BODIES.form.safeParse(body.value, PARSE_OPTIONS);
    if (!parsed.success) return send(c, 400, v1Errors(issueMessages(flattenIssues(parsed.error.issues))));
    const fields = parsed.data.data;
    const kind: 'id' | 'email' = fields.email !== undefined ? 'email' : 'id';
    const value = fields[kind] ?? '';
    const problems: string[] = [];
    if (!usesKind(store.identifyBy, kind)) {
      problems.push(
        `data.${kind}: this workspace identifies people by ${identifierKinds(store.identifyBy).join(' or ')}`,
      );
    } else if (kind === 'email' && !looksLikeEmail(value)) {
      problems.push('data.email: must be an email address');
    } else if (value === '') {
      problems.push(`data.${kind}: must not be empty`);
    } else if (byteLength(value) > LIMITS.identifierBytes) {
      problems.push(`data.${kind}: must be at most ${LIMITS.identifierBytes} bytes (UTF-8)`);
    }
    const attributes: JsonObject = {};
    for (const [key, field] of Object.entries(fields)) {
      if (key === kind || FORM_IGNORED_KEYS.has(key)) continue;
      attributes[key] = field;
    }
    // Form fields become attributes, so the attribute limits apply to them as to identify.
    const names = Object.keys(attributes);
    if (names.length > LIMITS.attributesPerCall) {
      problems.push(`data: at most ${LIMITS.attributesPerCall} attributes per call; got ${names.length}`);
    }
    for (const name of names) {
      if (byteLength(name) > LIMITS.attributeNameBytes) {
        problems.push(`data.${name}: attribute name longer than ${LIMITS.attributeNameBytes} bytes`);
      } else if (byteLength(String(attributes[name])) > LIMITS.attributeValueBytes) {
        problems.push(`data.${name}: attribute value longer than ${LIMITS.attributeValueBytes} bytes`);
      }
    }
    if (problems.length > 0) return send(c, 400, v1Errors(problems));
    store.submitForm(formId, { ref: { kind, value }, attributes }, fields, now());
    return c.body(null, 204);
  });

  // ---- v1: merge ---------------------------------------------------------------------------------------------

  on('POST', '/api/v1/merge_customers', async (c) => {
    const body = await readJson(c);
    if (!body.ok) return fail(c, 'merge', 400, body.error);
    const parsed = MESSAGING_BODIES.merge.safeParse(body.value, PARSE_OPTIONS);
    if (!parsed.success) {
      return fail(c, 'merge', 400, issueMessages(flattenIssues(parsed.error.issues)).join('; '));
    }
    const primary = mergeRef(store, parsed.data.primary, 'primary');
    if (typeof primary === 'string') return fail(c, 'merge', 400, primary);
    const secondary = mergeRef(store, parsed.data.secondary, 'secondary');
    if (typeof secondary === 'string') return fail(c, 'merge', 400, secondary);
    // A missing primary (or secondary) makes the merge a no-op, still 200 upstream; the store records it.
    store.merge(primary, secondary, now(), 'v1');
    return success(c);
  });

  // ---- v1: metrics (no auth) ---------------------------------------------------------------------------------

  on('POST', '/api/v1/metrics', async (c) => {
    const data = await v1Body(c, MESSAGING_BODIES.metrics);
    if (data instanceof Response) return data;
    const { delivery_id, metric, timestamp, ...fields } = data;
    store.recordMetric({ deliveryId: delivery_id, metric, timestamp, fields, source: 'metrics' }, now());
    return success(c);
  });

  on('POST', '/api/v1/push/events', async (c) => {
    const body = await readJson(c);
    if (!body.ok) return send(c, 400, v1Errors([body.error]));
    if (!isPlainObject(body.value)) return send(c, 400, v1Errors(['the request body must be a JSON object']));
    const { delivery_id, event, timestamp, ...fields } = body.value;
    const problems: string[] = [];
    if (typeof delivery_id !== 'string' || delivery_id === '') problems.push('delivery_id: is required');
    if (typeof event !== 'string' || !(PUSH_EVENTS as readonly string[]).includes(event)) {
      problems.push(`event: must be one of ${PUSH_EVENTS.map((e) => `"${e}"`).join(', ')}`);
    }
    if (
      timestamp !== undefined &&
      (typeof timestamp !== 'number' || !Number.isInteger(timestamp) || timestamp < 0)
    ) {
      problems.push('timestamp: must be a unix time in seconds');
    }
    if (fields.device_id !== undefined && typeof fields.device_id !== 'string') {
      problems.push('device_id: must be a string');
    }
    if (problems.length > 0) return send(c, 400, v1Errors(problems));
    store.recordMetric(
      {
        deliveryId: String(delivery_id),
        metric: String(event),
        timestamp: typeof timestamp === 'number' ? timestamp : undefined,
        fields,
        source: 'push_events',
      },
      now(),
    );
    return success(c);
  });

  // ---- v1: manual segments -----------------------------------------------------------------------------------

  function segmentRoute(action: 'add' | 'remove'): Handler {
    return async (c) => {
      const rawId = c.req.param('segment_id') ?? '';
      if (!/^\d+$/.test(rawId) || Number(rawId) > MAX_INT32) {
        return send(c, 400, v1Errors([`segment_id must be an integer; got "${rawId}"`]));
      }
      const segmentId = Number(rawId);
      const idType = (c.req.query('id_type') ?? 'id') as PersonKind;
      if (!SEGMENT_ID_TYPES.includes(idType)) {
        return send(c, 400, v1Errors(['id_type must be one of "id", "email", "cio_id"']));
      }
      if (!usesKind(store.identifyBy, idType)) {
        return send(
          c,
          400,
          v1Errors([`id_type ${idType}: this workspace does not identify people by ${idType}`]),
        );
      }
      const data = await v1Body(c, MESSAGING_BODIES.segmentMembers);
      if (data instanceof Response) return data;
      const segment = store.segment(segmentId);
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
      store.changeSegmentMembers(segmentId, action, idType, data.ids, now());
      return success(c);
    };
  }

  on('POST', '/api/v1/segments/:segment_id/add_customers', segmentRoute('add'));
  on('POST', '/api/v1/segments/:segment_id/remove_customers', segmentRoute('remove'));

  // ---- root: global unsubscribe (no auth) --------------------------------------------------------------------

  on('POST', '/unsubscribe/:delivery_id', async (c) => {
    const mediaType = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json') {
      return send(c, 400, v1Errors(['this endpoint requires the header Content-Type: application/json']));
    }
    const deliveryId = c.req.param('delivery_id') ?? '';
    if (!store.delivery(deliveryId)) return send(c, 400, v1Errors([`delivery ${deliveryId} does not exist`]));
    const body = await readJson(c);
    if (!body.ok) return send(c, 400, v1Errors([body.error]));
    if (!isPlainObject(body.value)) return send(c, 400, v1Errors(['the request body must be a JSON object']));
    const { unsubscribe } = body.value;
    if (unsubscribe !== undefined && typeof unsubscribe !== 'boolean') {
      return send(c, 400, v1Errors(['unsubscribe: must be a boolean']));
    }
    // true unsubscribes, false resubscribes (customerio-node's TrackClient.unsubscribe); absent changes nothing.
    if (typeof unsubscribe === 'boolean') store.unsubscribe(deliveryId, unsubscribe, now());
    return success(c);
  });

  // ---- v2 ------------------------------------------------------------------------------------------------------

  on('POST', '/api/v2/entity', async (c) => {
    const size = await bodyBytes(c);
    // "Must be smaller than 32kb": exactly 32,768 bytes is already too large.
    if (size >= LIMITS.entityRequestBytes) {
      const message = smallerThanMessage('the request', size, LIMITS.entityRequestBytes);
      return fail(c, 'v2', 400, message, 'too_large');
    }
    const body = await readJson(c);
    if (!body.ok) return fail(c, 'v2', 400, body.error);
    const parsed = MESSAGING_BODIES.entity.safeParse(body.value, PARSE_OPTIONS);
    if (!parsed.success) return send(c, 400, v2Errors(flattenIssues(parsed.error.issues)));
    const problems = applyOperation(store, parsed.data, now());
    if (problems.length > 0) return send(c, 400, v2Errors(problems));
    return success(c);
  });

  on('POST', '/api/v2/batch', async (c) => {
    const size = await bodyBytes(c);
    const whole = (
      status: 400,
      message: string,
      reason: 'invalid' | 'required' | 'too_large',
      field = '',
    ) => {
      store.recordBatch({ bytes: size, operations: 0, accepted: 0, failed: [], status }, now());
      return fail(c, 'v2', status, message, reason, field);
    };
    // "Must be smaller than 500kb": exactly 512,000 bytes is already too large.
    if (size >= LIMITS.batchRequestBytes) {
      return whole(400, smallerThanMessage('the batch', size, LIMITS.batchRequestBytes), 'too_large');
    }
    const body = await readJson(c);
    if (!body.ok) return whole(400, body.error, 'invalid');
    if (!isPlainObject(body.value)) return whole(400, 'the request body must be a JSON object', 'invalid');
    const items = body.value.batch;
    if (items === undefined) return whole(400, 'is required', 'required', 'batch');
    if (!Array.isArray(items)) return whole(400, 'must be an array of entity operations', 'invalid', 'batch');
    if (items.length === 0) return whole(400, 'must contain at least 1 operation', 'invalid', 'batch');

    const at = now();
    const errors: { batch_index: number; reason: string; field: string; message: string }[] = [];
    const failed: number[] = [];
    store.transaction(() => {
      for (const [index, item] of items.entries()) {
        const parsed = batchItem.safeParse(item, PARSE_OPTIONS);
        const problems = parsed.success
          ? applyOperation(store, parsed.data, at)
          : flattenIssues(parsed.error.issues);
        if (problems.length === 0) continue;
        failed.push(index);
        for (const p of problems) errors.push({ batch_index: index, ...p });
      }
    });
    const status = failed.length > 0 ? 207 : 200;
    store.recordBatch(
      { bytes: size, operations: items.length, accepted: items.length - failed.length, failed, status },
      at,
    );
    return failed.length > 0 ? send(c, 207, { errors }) : success(c);
  });
}
