/**
 * Builds the Hono app skeleton every emulator shares. Middleware order matters and is fixed here:
 * request id -> request log -> faults -> database scope -> service auth -> rate limits -> service routes, plus
 * the /_emulator control API, unknown-path 404s and a catch-all 500 in the service's own error envelope.
 */
import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { type Clock, systemClock } from './clock.js';
import { type EmulatorEnv, type ErrorBodyFn, isControlPath } from './env.js';
import { FaultInjector, faultMiddleware } from './faults.js';
import { type InspectableService, mountInspection } from './inspection.js';
import { RateLimiter, rateLimitMiddleware } from './rateLimit.js';
import { RequestLog, requestLogMiddleware } from './requestLog.js';
import { type RequestScopeOptions, requestScopeMiddleware } from './requestScope.js';

export type Authenticate = (c: Context<EmulatorEnv>) => Response | undefined;

export interface EmulatorAppOptions {
  errorBody: ErrorBodyFn;
  service: InspectableService;
  /** The upstream's published per-minute limits by route label; applied only once enabled. */
  rateLimits: Record<string, number>;
  /** Returns a response to refuse the request, undefined to let it through. Never called for /_emulator. */
  authenticate?: Authenticate;
  clock?: Clock;
  requestLogCapacity?: number;
  /** Paths whose request bodies carry credentials (an OAuth token endpoint): the request log redacts them. */
  redactRequestBody?: (path: string) => boolean;
  /** Where unexpected exceptions are reported; defaults to one line on stderr (stdout may carry MCP). */
  onUnexpectedError?: (error: unknown, c: Context<EmulatorEnv>) => void;
  /**
   * The emulator's database: each request then runs as one unit of work on it (requestScope.ts), which is what
   * lets several processes share a sandbox file. After the faults, so injected latency holds no lock.
   */
  database?: RequestScopeOptions;
}

export interface EmulatorApp {
  app: Hono<EmulatorEnv>;
  log: RequestLog;
  faults: FaultInjector;
  rateLimiter: RateLimiter;
  clock: Clock;
}

function reportToStderr(error: unknown, c: Context<EmulatorEnv>): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`emulator: unexpected error on ${c.req.method} ${c.req.path}: ${message}\n`);
}

export function createEmulatorApp(options: EmulatorAppOptions): EmulatorApp {
  const clock = options.clock ?? systemClock;
  const log = new RequestLog(options.requestLogCapacity);
  const faults = new FaultInjector();
  const rateLimiter = new RateLimiter(options.rateLimits, { clock });
  const { errorBody } = options;
  const onUnexpectedError = options.onUnexpectedError ?? reportToStderr;
  const app = new Hono<EmulatorEnv>();

  app.use('*', async (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    c.header('x-request-id', requestId);
    await next();
    if (c.res.type !== 'error' && !c.res.headers.has('x-request-id'))
      c.res.headers.set('x-request-id', requestId);
  });
  app.use('*', requestLogMiddleware(log, clock, options.redactRequestBody));
  app.use('*', faultMiddleware(faults, errorBody));
  if (options.database) app.use('*', requestScopeMiddleware(options.database, errorBody));
  const { authenticate } = options;
  if (authenticate) {
    app.use('*', async (c, next) => {
      if (isControlPath(c.req.path)) return next();
      const refusal = authenticate(c);
      if (refusal) return refusal;
      return next();
    });
  }
  app.use('*', rateLimitMiddleware(rateLimiter, errorBody));

  mountInspection(app, { log, faults, rateLimiter, service: options.service });

  app.notFound((c) => {
    if (isControlPath(c.req.path)) {
      return c.json({ error: `Unknown emulator endpoint ${c.req.method} ${c.req.path}` }, 404);
    }
    const body = errorBody(404, `Not found: ${c.req.method} ${c.req.path}`, {
      requestId: c.get('requestId'),
      code: 'not_found',
    });
    return c.json(body as object, 404);
  });

  app.onError((error, c) => {
    onUnexpectedError(error, c);
    // Never echo the exception: it could carry stack traces or internals the real API would not reveal.
    const body = errorBody(500, 'Internal server error', { requestId: c.get('requestId') ?? randomUUID() });
    return c.json(body as object, 500);
  });

  return { app, log, faults, rateLimiter, clock };
}
