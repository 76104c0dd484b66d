/**
 * A local emulator of the Customer.io Track API (v1 and v2), the upstream of the MessagingTrackApi tools: same
 * paths, HTTP Basic auth (site id : Track API key), `{}` success bodies, error envelopes, size limits and the
 * documented state rules, over a seeded SQLite database, plus the /_emulator controls.
 *
 * This file builds the app: the checks made before any route runs (credentials and region, the account-wide
 * rate limit, the body size cap) and the areas of routes (routes/<area>.ts, each a Hono sub-app whose routes
 * come from the endpoint table), mounted once per regional host. One listener plays both hosts: the root is
 * track.customer.io, the same paths under /eu are track-eu.customer.io. As upstream, an EU account's traffic to
 * the US host is redirected (307) and a US account's traffic to the EU host fails (401); the region lookup
 * works on both.
 */
import type { Hono } from 'hono';
import { credentialCheck, parseAuthorization, secretHint } from '../../../emulation/authorization.js';
import { type Clock, systemClock } from '../../../emulation/clock.js';
import { createEmulatorApp, type EmulatorApp } from '../../../emulation/emulatorApp.js';
import { type EmulatorEnv, isControlPath } from '../../../emulation/env.js';
import { type InspectableService, type ResetOptions, resetSettings } from '../../../emulation/inspection.js';
import { ok } from '../../../emulation/result.js';
import type { SeedingReport } from '../../../emulation/seeding.js';
import { type ServeOptions, type StartedEmulator, startEmulator } from '../../../emulation/serve.js';
import { openDatabase, startupDone } from '../../../emulation/sqlite.js';
import { MESSAGING_OPERATIONS, TRACK_FAIR_USE, type TrackOperation } from '../endpoints.js';
import { COLLECTION_NAMES } from './collections.js';
import { MessagingDatabase } from './database.js';
import { envelopeOf, errorBody, fail, unauthorized } from './errors.js';
import { EU_PATH_PREFIX, hostOf, isRequestFor } from './paths.js';
import type { IdentifyBy, Region } from './records.js';
import { batchRoutes } from './routes/batch.js';
import type { RouteDeps } from './routes/common.js';
import { deviceRoutes } from './routes/devices.js';
import { entityRoutes } from './routes/entities.js';
import { eventRoutes } from './routes/events.js';
import { formRoutes } from './routes/forms.js';
import { metricRoutes } from './routes/metrics.js';
import { peopleRoutes } from './routes/people.js';
import { regionRoutes } from './routes/region.js';
import { segmentRoutes } from './routes/segments.js';
import { buildSeedData, DEFAULT_SCALE, DEFAULT_SEED } from './seed/seed.js';
import { MAX_BODY_BYTES } from './wire.js';

export { EU_PATH_PREFIX } from './paths.js';
export { MAX_BODY_BYTES } from './wire.js';

export const DEFAULT_MESSAGING_SITE_ID = 'sandbox_site';
export const DEFAULT_MESSAGING_API_KEY = 'sandbox_track_key';

/** Largest dataset (people) a seed or /_emulator/reset will build, so a typo cannot hang the emulator. */
export const MAX_SCALE = 200_000;

/**
 * The Track API publishes one account-wide fair-use rate rather than per-endpoint limits (TRACK_FAIR_USE in
 * endpoints.ts), "not strictly enforced". The emulator counts every upstream request under this one label, per
 * minute; off unless enabled via /_emulator.
 */
export const TRACK_RATE_LIMIT_LABEL = 'ALL /*';
export const TRACK_RATE_LIMIT_PER_MINUTE = TRACK_FAIR_USE.limit * (60_000 / TRACK_FAIR_USE.intervalMs);
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
  database: MessagingDatabase;
  siteId: string;
  apiKey: string;
  region: Region;
  /** Request log, fault switches and rate limiter, for tests that drive them directly. */
  controls: Omit<EmulatorApp, 'app'>;
  /** Whether this start seeded the database or kept its data, and the seed that data was made with. */
  seeding: SeedingReport;
  close(): void;
}

/** Operations the upstream serves without Authorization (`security: []` in its OpenAPI). */
const ANONYMOUS_OPERATIONS: readonly TrackOperation[] = Object.values(MESSAGING_OPERATIONS).filter(
  (operation: TrackOperation) => operation.anonymous,
);

/** The areas of routes, each a sub-app built over the same dependencies. */
const AREAS: readonly ((deps: RouteDeps) => Hono<EmulatorEnv>)[] = [
  regionRoutes,
  peopleRoutes,
  deviceRoutes,
  eventRoutes,
  formRoutes,
  metricRoutes,
  segmentRoutes,
  entityRoutes,
  batchRoutes,
];

/** Where each regional host's paths start on this listener: the US host at the root, the EU host under /eu. */
export const HOST_PREFIXES = ['/', EU_PATH_PREFIX] as const;

/** A stable workspace number per site id (the upstream's environment_id is an integer). */
function environmentIdOf(siteId: string): number {
  let h = 0x811c9dc5;
  for (const ch of siteId) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  return 1 + (h % 99_999);
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
  const database = new MessagingDatabase(db, { identifyBy });
  const fresh = database.seedIfEmpty(
    () => buildSeedData({ ...configured, now: clock.now() }),
    opts.reset === true,
  );
  const seeding: SeedingReport = { fresh, seed: database.seedInfo()?.seed };
  const areCredentials = credentialCheck(`${siteId}:${apiKey}`);
  const environmentId = environmentIdOf(siteId);

  const service: InspectableService = {
    summary: () => ({
      counts: database.counts(),
      region,
      identify_by: identifyBy,
      site_id: siteId,
      api_key_hint: secretHint(apiKey),
      environment_id: environmentId,
      ...database.seedInfo(),
    }),
    collectionNames: () => COLLECTION_NAMES,
    collection: (name, query) => database.list(name, query.params, query.offset, query.limit),
    item: (name, id) => database.item(name, id),
    reset: (options: ResetOptions) => {
      const settings = resetSettings(options, configured, MAX_SCALE);
      if (!settings.ok) return settings;
      database.replaceAll(buildSeedData({ ...settings.value, now: clock.now() }));
      return ok(service.summary());
    },
  };

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
      if (ANONYMOUS_OPERATIONS.some((operation) => isRequestFor(operation, c.req.method, path))) {
        return undefined;
      }
      const auth = parseAuthorization(c.req.header('authorization'));
      if (auth.scheme !== 'basic') return unauthorized(c);
      if (!areCredentials(`${auth.username}:${auth.password}`)) return unauthorized(c);
      if (isRequestFor(MESSAGING_OPERATIONS.getRegion, c.req.method, path)) return undefined;
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
    return fail(c, envelopeOf(hostOf(c.req.path).path), 429, message, 'invalid');
  });

  // A hard cap far above the documented limits, checked before any JSON parsing.
  app.use('*', async (c, next) => {
    if (isControlPath(c.req.path)) return next();
    const declared = Number(c.req.header('content-length') ?? '0');
    const size = declared > MAX_BODY_BYTES ? declared : Buffer.byteLength(await c.req.text(), 'utf8');
    if (size > MAX_BODY_BYTES) {
      const message = `the request body is ${size} bytes; the most this API accepts is ${MAX_BODY_BYTES}`;
      return fail(c, envelopeOf(hostOf(c.req.path).path), 413, message, 'too_large');
    }
    return next();
  });

  const deps: RouteDeps = {
    database,
    region,
    environmentId,
    now: () => Math.floor(clock.now().getTime() / 1000),
  };
  for (const area of AREAS.map((build) => build(deps))) {
    for (const prefix of HOST_PREFIXES) app.route(prefix, area);
  }

  const controls = { log: emulator.log, faults: emulator.faults, rateLimiter: emulator.rateLimiter, clock };
  startupDone(db);
  return { app, database, siteId, apiKey, region, controls, seeding, close: () => db.close() };
}

export interface RunningMessagingEmulator extends StartedEmulator<MessagingEmulator> {
  /** The US host's root, without a trailing slash. */
  url: string;
  /** The EU host's root: url + '/eu'. */
  euUrl: string;
  /** The root of the account's region (url or euUrl). */
  accountUrl: string;
  siteId: string;
  apiKey: string;
  region: Region;
}

/** Starts the emulator on a loopback socket (ephemeral port unless `port` is given). */
export async function startMessagingEmulator(
  opts: MessagingEmulatorOptions & ServeOptions = {},
): Promise<RunningMessagingEmulator> {
  const { url, emulator, close } = await startEmulator(createMessagingEmulator, opts);
  const euUrl = `${url}${EU_PATH_PREFIX}`;
  return {
    url,
    euUrl,
    accountUrl: emulator.region === 'eu' ? euUrl : url,
    siteId: emulator.siteId,
    apiKey: emulator.apiKey,
    region: emulator.region,
    emulator,
    close,
  };
}
