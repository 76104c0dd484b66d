/**
 * A local emulator of the Customer.io Track API (v1 and v2), the upstream of the MessagingTrackApi tools: same
 * paths, HTTP Basic auth (site id : Track API key), `{}` success bodies, error envelopes, size limits and the
 * documented state rules, over a seeded SQLite store, plus the /_emulator controls.
 *
 * One listener plays both regional hosts: the root is track.customer.io, the same paths under /eu are
 * track-eu.customer.io. As upstream, an EU account's traffic to the US host is redirected (307) and a US
 * account's traffic to the EU host fails (401); the region lookup works on both.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { parseAuthorization } from '../../../emulation/authorization.js';
import { type Clock, systemClock } from '../../../emulation/clock.js';
import { createEmulatorApp, type EmulatorApp } from '../../../emulation/emulatorApp.js';
import { type EmulatorEnv, type ErrorBodyFn, isControlPath } from '../../../emulation/env.js';
import type { InspectableService, ResetOptions } from '../../../emulation/inspection.js';
import { err, ok } from '../../../emulation/result.js';
import type { SeedingReport } from '../../../emulation/seeding.js';
import { serveEmulator } from '../../../emulation/serve.js';
import { openDatabase } from '../../../emulation/sqlite.js';
import { COLLECTION_NAMES } from './collections.js';
import type { IdentifyBy, Region } from './records.js';
import { EU_PATH_PREFIX, registerTrackRoutes } from './routes.js';
import { buildSeedData, DEFAULT_SCALE, DEFAULT_SEED } from './seed.js';
import { MessagingStore } from './store.js';
import { envelopeOf, fail, MAX_BODY_BYTES, v1Errors } from './wire.js';

export { EU_PATH_PREFIX } from './routes.js';
export { MAX_BODY_BYTES } from './wire.js';

export const DEFAULT_MESSAGING_SITE_ID = 'sandbox_site';
export const DEFAULT_MESSAGING_API_KEY = 'sandbox_track_key';

/** Largest dataset (people) a seed or /_emulator/reset will build, so a typo cannot hang the emulator. */
export const MAX_SCALE = 200_000;

/**
 * The Track API publishes one account-wide fair-use rate rather than per-endpoint limits: 100 requests/s in the
 * API overview docs (1000/s in the OpenAPI), "not strictly enforced". The emulator counts every upstream
 * request under this one label, per minute, at the stricter figure; off unless enabled via /_emulator.
 */
export const TRACK_RATE_LIMIT_LABEL = 'ALL /*';
export const TRACK_RATE_LIMIT_PER_MINUTE = 100 * 60;
export const MESSAGING_RATE_LIMITS: Readonly<Record<string, number>> = {
  [TRACK_RATE_LIMIT_LABEL]: TRACK_RATE_LIMIT_PER_MINUTE,
};

export interface MessagingEmulatorOptions {
  /** SQLite file path, or ':memory:' (the default). */
  db?: string;
  seed?: number;
  /** Number of seeded people (default 200). */
  scale?: number;
  /** Reseed a file database even if it already holds data. */
  reset?: boolean;
  siteId?: string;
  apiKey?: string;
  /** The account's region, default 'us'. */
  region?: Region;
  /** Workspace setting: which identifiers people have. Default 'email_or_id'. */
  identifyBy?: IdentifyBy;
  clock?: Clock;
}

export interface MessagingEmulator {
  app: EmulatorApp['app'];
  store: MessagingStore;
  siteId: string;
  apiKey: string;
  region: Region;
  /** Request log, fault switches and rate limiter, for tests that drive them directly. */
  controls: Omit<EmulatorApp, 'app'>;
  /** Whether this start seeded the database or kept its data, and the seed that data was made with. */
  seeding: SeedingReport;
  close(): void;
}

/** Requests the upstream serves without Authorization (`security: []` in its OpenAPI). */
const NO_AUTH_ROUTES: readonly RegExp[] = [
  /^\/api\/v1\/metrics$/,
  /^\/api\/v1\/push\/events$/,
  /^\/unsubscribe\/[^/]+$/,
];
const REGION_LOOKUP = /^\/api\/v1\/accounts\/region$/;

/** Faults, rate limits and unknown paths answer in the v1 envelope, which every Track client can read. */
const errorBody: ErrorBodyFn = (_status, message) => v1Errors([message]);

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** At most the first 4 characters, so the hint never gives most of a key away. */
function keyHint(key: string): string {
  return `${key.slice(0, Math.min(4, Math.floor(key.length / 2)))}…`;
}

/** A stable workspace number per site id (the upstream's environment_id is an integer). */
function environmentIdOf(siteId: string): number {
  let h = 0x811c9dc5;
  for (const ch of siteId) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  return 1 + (h % 99_999);
}

/** Which regional host a path addresses, and the path as that host sees it. */
function hostOf(path: string): { host: Region; path: string } {
  if (path === EU_PATH_PREFIX || path.startsWith(`${EU_PATH_PREFIX}/`)) {
    return { host: 'eu', path: path.slice(EU_PATH_PREFIX.length) || '/' };
  }
  return { host: 'us', path };
}

function checkOptions(siteId: string, apiKey: string, region: string, identifyBy: string): void {
  if (siteId === '' || /[\s:]/.test(siteId)) {
    throw new Error('The emulator site id must be non-empty, without spaces or colons');
  }
  if (apiKey === '' || /\s/.test(apiKey))
    throw new Error('The emulator API key must be non-empty, without spaces');
  if (region !== 'us' && region !== 'eu') throw new Error(`region must be us or eu; got "${region}"`);
  if (!['id', 'email', 'email_or_id'].includes(identifyBy)) {
    throw new Error(`identifyBy must be id, email or email_or_id; got "${identifyBy}"`);
  }
}

export function createMessagingEmulator(opts: MessagingEmulatorOptions = {}): MessagingEmulator {
  const siteId = opts.siteId ?? DEFAULT_MESSAGING_SITE_ID;
  const apiKey = opts.apiKey ?? DEFAULT_MESSAGING_API_KEY;
  const region = opts.region ?? 'us';
  const identifyBy = opts.identifyBy ?? 'email_or_id';
  checkOptions(siteId, apiKey, region, identifyBy);
  const clock = opts.clock ?? systemClock;
  const configured = { seed: opts.seed ?? DEFAULT_SEED, scale: opts.scale ?? DEFAULT_SCALE };
  if (configured.scale > MAX_SCALE) throw new Error(`scale must be at most ${MAX_SCALE}`);
  const db = openDatabase(opts.db ?? ':memory:');
  const store = new MessagingStore(db, { identifyBy });
  const fresh = store.seedIfEmpty(
    () => buildSeedData({ ...configured, now: clock.now() }),
    opts.reset === true,
  );
  const seeding: SeedingReport = { fresh, seed: store.seedInfo()?.seed };
  const credentialsDigest = sha256(`${siteId}:${apiKey}`);
  const environmentId = environmentIdOf(siteId);

  const service: InspectableService = {
    summary: () => ({
      counts: store.counts(),
      region,
      identify_by: identifyBy,
      site_id: siteId,
      api_key_hint: keyHint(apiKey),
      environment_id: environmentId,
      ...store.seedInfo(),
    }),
    collectionNames: () => COLLECTION_NAMES,
    collection: (name, query) => store.list(name, query.params, query.offset, query.limit),
    item: (name, id) => store.item(name, id),
    reset: (options: ResetOptions) => {
      const seed = options.seed ?? configured.seed;
      const scale = options.scale ?? configured.scale;
      if (scale > MAX_SCALE) return err(`scale must be at most ${MAX_SCALE}`);
      store.replaceAll(buildSeedData({ seed, scale, now: clock.now() }));
      return ok(service.summary());
    },
  };

  // 401 has no body schema upstream; an empty body is what every client (customerio-node parses any
  // non-empty body as JSON) handles cleanly.
  const unauthorized = (c: Context<EmulatorEnv>) => c.body(null, 401);

  const emulator = createEmulatorApp({
    errorBody,
    service,
    rateLimits: MESSAGING_RATE_LIMITS,
    clock,
    // No caches to refresh: every read goes to the database.
    database: { db },
    authenticate: (c) => {
      const { host, path } = hostOf(c.req.path);
      // The no-auth endpoints carry no credentials, so nothing tells a wrong host: both hosts serve them.
      if (c.req.method === 'POST' && NO_AUTH_ROUTES.some((re) => re.test(path))) return undefined;
      const auth = parseAuthorization(c.req.header('authorization'));
      if (auth.scheme !== 'basic') return unauthorized(c);
      if (!timingSafeEqual(sha256(`${auth.username}:${auth.password}`), credentialsDigest))
        return unauthorized(c);
      if (c.req.method === 'GET' && REGION_LOOKUP.test(path)) return undefined;
      if (region === 'eu' && host === 'us') {
        const url = new URL(c.req.url);
        return c.redirect(`${url.origin}${EU_PATH_PREFIX}${url.pathname}${url.search}`, 307);
      }
      if (region === 'us' && host === 'eu') return unauthorized(c);
      return undefined;
    },
  });
  const { app } = emulator;

  // The one account-wide limit; the shared middleware only knows per-route labels.
  app.use('*', async (c, next) => {
    if (isControlPath(c.req.path)) return next();
    const decision = emulator.rateLimiter.hit(TRACK_RATE_LIMIT_LABEL);
    if (decision.allowed) return next();
    c.header('Retry-After', String(decision.retryAfterSeconds));
    const message = `Rate limit exceeded (${decision.limit} requests per ${emulator.rateLimiter.config.windowSeconds} seconds). Please retry later.`;
    return fail(c, envelopeOf(c.req.path), 429, message, 'invalid');
  });

  // A hard cap far above the documented limits, checked before any JSON parsing.
  app.use('*', async (c, next) => {
    if (isControlPath(c.req.path)) return next();
    const declared = Number(c.req.header('content-length') ?? '0');
    const size = declared > MAX_BODY_BYTES ? declared : Buffer.byteLength(await c.req.text(), 'utf8');
    if (size > MAX_BODY_BYTES) {
      const message = `the request body is ${size} bytes; the most this API accepts is ${MAX_BODY_BYTES}`;
      return fail(c, envelopeOf(c.req.path), 413, message, 'too_large');
    }
    return next();
  });

  registerTrackRoutes(app, {
    store,
    region,
    environmentId,
    now: () => Math.floor(clock.now().getTime() / 1000),
  });

  const controls = { log: emulator.log, faults: emulator.faults, rateLimiter: emulator.rateLimiter, clock };
  return { app, store, siteId, apiKey, region, controls, seeding, close: () => db.close() };
}

export interface RunningMessagingEmulator {
  /** The US host's root, without a trailing slash. */
  url: string;
  /** The EU host's root: url + '/eu'. */
  euUrl: string;
  /** The root of the account's region (url or euUrl). */
  accountUrl: string;
  siteId: string;
  apiKey: string;
  region: Region;
  emulator: MessagingEmulator;
  close(): Promise<void>;
}

/** Starts the emulator on a loopback socket (ephemeral port unless `port` is given). */
export async function startMessagingEmulator(
  opts: MessagingEmulatorOptions & { host?: string; port?: number } = {},
): Promise<RunningMessagingEmulator> {
  const { host, port, ...emulatorOptions } = opts;
  const emulator = createMessagingEmulator(emulatorOptions);
  const server = await serveEmulator(emulator, {
    ...(host === undefined ? {} : { host }),
    ...(port === undefined ? {} : { port }),
  });
  const euUrl = `${server.url}${EU_PATH_PREFIX}`;
  return {
    url: server.url,
    euUrl,
    accountUrl: emulator.region === 'eu' ? euUrl : server.url,
    siteId: emulator.siteId,
    apiKey: emulator.apiKey,
    region: emulator.region,
    emulator,
    close: server.close,
  };
}
