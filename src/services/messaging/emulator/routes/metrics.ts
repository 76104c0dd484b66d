/**
 * Delivery metrics (v1, no credentials): metrics for any channel, and push events (customerio-node's
 * trackPush). Metrics of unknown deliveries are kept too; the upstream only says it received them.
 */
import type { Context, Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { MESSAGING_OPERATIONS } from '../../endpoints.js';
import { MESSAGING_BODIES } from '../../schemas.js';
import { v1Errors } from '../errors.js';
import { readJson, send, success } from '../wire.js';
import { area, isPlainObject, type RouteDeps, v1Body } from './common.js';

const PUSH_EVENTS = ['opened', 'converted', 'delivered'] as const;

export function metricRoutes(deps: RouteDeps): Hono<EmulatorEnv> {
  const { database, now } = deps;

  async function metrics(c: Context<EmulatorEnv>): Promise<Response> {
    const body = await v1Body(c, MESSAGING_BODIES.metrics);
    if (!body.ok) return body.error;
    const { delivery_id, metric, timestamp, ...fields } = body.value;
    database.deliveries.recordMetric(
      { deliveryId: delivery_id, metric, timestamp, fields, source: 'metrics' },
      now(),
    );
    return success(c);
  }

  async function pushMetrics(c: Context<EmulatorEnv>): Promise<Response> {
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
    database.deliveries.recordMetric(
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
  }

  const app = area();
  route(app, MESSAGING_OPERATIONS.metrics, metrics);
  route(app, MESSAGING_OPERATIONS.pushMetrics, pushMetrics);
  return app;
}
