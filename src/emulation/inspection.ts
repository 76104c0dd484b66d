/**
 * The /_emulator/ control API: request log, state inspection, reseeding, faults and rate limits.
 * It needs no auth and is never part of an emulated upstream; its errors use a plain `{ error }` body.
 */
import type { Context, Hono } from 'hono';
import { CONTROL_PREFIX, type EmulatorEnv } from './env.js';
import { type FaultInjector, type FaultRule, parseFaultRules } from './faults.js';
import { parseRateLimitUpdate, type RateLimiter } from './rateLimit.js';
import type { RequestLog } from './requestLog.js';
import { err, ok, type Result } from './result.js';

export interface ResetOptions {
  seed?: number;
  scale?: number;
}

export interface SeedSettings {
  seed: number;
  scale: number;
}

/**
 * The seed and scale a reset builds with: those asked for, else those the emulator started with; a scale above
 * `maxScale` is refused before anything is replaced, so a typo cannot hang the emulator.
 */
export function resetSettings(
  options: ResetOptions,
  configured: SeedSettings,
  maxScale: number,
): Result<SeedSettings, string> {
  const seed = options.seed ?? configured.seed;
  const scale = options.scale ?? configured.scale;
  if (scale > maxScale) return err(`scale must be at most ${maxScale}`);
  return ok({ seed, scale });
}

export interface CollectionQuery {
  offset: number;
  limit: number;
  /** Every other query parameter, for service-specific filters. */
  params: Record<string, string>;
}

export interface CollectionPage {
  total: number;
  items: unknown[];
}

/** What a service exposes to the control API; undefined means "no such collection or item" (404). */
export interface InspectableService {
  summary(): unknown;
  collectionNames(): readonly string[];
  collection(name: string, query: CollectionQuery): CollectionPage | undefined;
  item(name: string, id: string): unknown | undefined;
  reset(options: ResetOptions): Result<unknown, string>;
}

export interface InspectionDeps {
  log: RequestLog;
  faults: FaultInjector;
  rateLimiter: RateLimiter;
  service: InspectableService;
}

const MAX_COLLECTION_PAGE = 10_000;
const DEFAULT_COLLECTION_PAGE = 1_000;

function controlError(c: Context, status: 400 | 404, message: string): Response {
  return c.json({ error: message }, status);
}

/** Optional JSON body of a control request: empty means {}, anything unparsable is a 400 with the parser's reason. */
export async function readOptionalJson(c: Context): Promise<Result<unknown, string>> {
  const text = await c.req.text();
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, error: `Request body is not valid JSON: ${(e as Error).message}` };
  }
}

function nonNegativeInt(raw: string | undefined, fallback: number): number | undefined {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

export function mountInspection(app: Hono<EmulatorEnv>, deps: InspectionDeps): void {
  const { log, faults, rateLimiter, service } = deps;
  const base = CONTROL_PREFIX;

  app.get(`${base}/requests`, (c) => {
    const since = nonNegativeInt(c.req.query('since'), 0);
    if (since === undefined)
      return controlError(c, 400, 'since must be a non-negative integer sequence number');
    return c.json({ requests: log.since(since), last_seq: log.lastSeq });
  });

  app.delete(`${base}/requests`, (c) => c.json({ cleared: log.clear(), last_seq: log.lastSeq }));

  app.get(`${base}/state`, (c) => c.json(service.summary() as object));

  app.get(`${base}/state/:collection`, (c) => {
    const name = c.req.param('collection');
    const { offset: rawOffset, limit: rawLimit, ...params } = c.req.query();
    const offset = nonNegativeInt(rawOffset, 0);
    const limit = nonNegativeInt(rawLimit, DEFAULT_COLLECTION_PAGE);
    if (offset === undefined) return controlError(c, 400, 'offset must be a non-negative integer');
    if (limit === undefined || limit < 1 || limit > MAX_COLLECTION_PAGE) {
      return controlError(c, 400, `limit must be an integer from 1 to ${MAX_COLLECTION_PAGE}`);
    }
    const page = service.collection(name, { offset, limit, params });
    if (!page) {
      return controlError(
        c,
        404,
        `Unknown collection "${name}". Known: ${service.collectionNames().join(', ')}`,
      );
    }
    return c.json({ collection: name, total: page.total, offset, limit, items: page.items });
  });

  app.get(`${base}/state/:collection/:id`, (c) => {
    const name = c.req.param('collection');
    if (!service.collectionNames().includes(name)) {
      return controlError(
        c,
        404,
        `Unknown collection "${name}". Known: ${service.collectionNames().join(', ')}`,
      );
    }
    const item = service.item(name, c.req.param('id'));
    if (item === undefined) return controlError(c, 404, `No ${name} item with id "${c.req.param('id')}"`);
    return c.json(item as object);
  });

  app.post(`${base}/reset`, async (c) => {
    const body = await readOptionalJson(c);
    if (!body.ok) return controlError(c, 400, body.error);
    const value = body.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return controlError(c, 400, 'Body must be a JSON object like {"seed": 1, "scale": 240}');
    }
    const { seed, scale } = value as Record<string, unknown>;
    if (seed !== undefined && (typeof seed !== 'number' || !Number.isInteger(seed))) {
      return controlError(c, 400, 'seed must be an integer');
    }
    if (scale !== undefined && (typeof scale !== 'number' || !Number.isInteger(scale) || scale < 0)) {
      return controlError(c, 400, 'scale must be a non-negative integer');
    }
    const result = service.reset({
      ...(seed === undefined ? {} : { seed }),
      ...(scale === undefined ? {} : { scale }),
    });
    if (!result.ok) return controlError(c, 400, result.error);
    rateLimiter.reset();
    return c.json({ reset: true, state: result.value });
  });

  app.get(`${base}/faults`, (c) => c.json({ rules: faults.list() }));

  // PUT replaces the list; POST adds to it (same body), leaving the active rules and their counts as they are.
  const withFaultRules =
    (apply: (rules: FaultRule[]) => void) =>
    async (c: Context<EmulatorEnv>): Promise<Response> => {
      const body = await readOptionalJson(c);
      if (!body.ok) return controlError(c, 400, body.error);
      const rules = parseFaultRules(body.value);
      if (!rules.ok) return controlError(c, 400, `Invalid fault rules: ${rules.error}`);
      apply(rules.value);
      return c.json({ rules: faults.list() });
    };
  app.put(
    `${base}/faults`,
    withFaultRules((rules) => faults.set(rules)),
  );
  app.post(
    `${base}/faults`,
    withFaultRules((rules) => faults.add(rules)),
  );

  app.delete(`${base}/faults`, (c) => {
    faults.clear();
    return c.json({ rules: faults.list() });
  });

  app.get(`${base}/rate-limits`, (c) => c.json(rateLimiter.config));

  app.put(`${base}/rate-limits`, async (c) => {
    const body = await readOptionalJson(c);
    if (!body.ok) return controlError(c, 400, body.error);
    const update = parseRateLimitUpdate(body.value);
    if (!update.ok) return controlError(c, 400, `Invalid rate-limit settings: ${update.error}`);
    return c.json(rateLimiter.configure(update.value));
  });
}
