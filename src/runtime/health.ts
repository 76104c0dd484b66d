// The probes an orchestrator or load balancer asks: GET /healthz (the process serves HTTP: restart it if not) and
// GET /readyz (send it traffic: every readiness check passes and it is not shutting down). Both answer anyone, with
// no MCP auth and no Host/Origin check: probes come by IP (`Host: 10.0.0.5:8787`), from machines that hold no token,
// and what they read is no secret (a status, check names, failure reasons with credentials masked). A page that
// rebinds a name to this server learns only whether it is up.

import type { Hono } from 'hono';
import { type ReadinessCheck, runReadinessChecks } from './readiness.js';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';

export interface HealthOptions {
  /** What must pass before the server takes traffic (Redis, where configured); none: always ready. */
  readiness?: readonly ReadinessCheck[];
  /** True once a shutdown began: /readyz answers 503 so the load balancer stops sending first. */
  shuttingDown?: () => boolean;
}

/** Probes are never cached by anything between: each answer is the state now. */
const PROBE_HEADERS = { 'cache-control': 'no-store' };

export function mountHealth(app: Hono, options: HealthOptions = {}): void {
  const checks = options.readiness ?? [];
  app.get(HEALTH_PATH, (c) => c.json({ status: 'ok' }, 200, PROBE_HEADERS));
  app.get(READY_PATH, async (c) => {
    if (options.shuttingDown?.()) return c.json({ status: 'shutting_down' }, 503, PROBE_HEADERS);
    const report = await runReadinessChecks(checks);
    const body = {
      status: report.ready ? 'ready' : 'not_ready',
      checks: report.checks.map((outcome) =>
        outcome.ok
          ? { name: outcome.name, status: 'ok' }
          : { name: outcome.name, status: 'failed', reason: outcome.reason },
      ),
    };
    return c.json(body, report.ready ? 200 : 503, PROBE_HEADERS);
  });
}
