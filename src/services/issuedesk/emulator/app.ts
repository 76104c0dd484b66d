/**
 * A local emulator of the Pylon API (the upstream of the IssueDesk tools): same paths, bearer auth, envelopes,
 * cursor pagination, validation rules and error bodies, over a seeded SQLite database, plus the /_emulator
 * controls. This module builds the app and mounts the areas (routes/<area>.ts), one sub-app each, whose routes
 * are the operations of endpoints.ts.
 */
import { credentialCheck, parseAuthorization } from '../../../emulation/authorization.js';
import { type Clock, systemClock } from '../../../emulation/clock.js';
import { createEmulatorApp, type EmulatorApp } from '../../../emulation/emulatorApp.js';
import { honoPath } from '../../../emulation/operations.js';
import type { SeedingReport } from '../../../emulation/seeding.js';
import { type ServeOptions, type StartedEmulator, startEmulator } from '../../../emulation/serve.js';
import { openDatabase, startupDone } from '../../../emulation/sqlite.js';
import { ISSUEDESK_OPERATIONS } from '../endpoints.js';
import { IssueDeskDatabase } from './database.js';
import { errorBody, errors, respond } from './errors.js';
import { issueDeskInspection } from './inspection.js';
import type { RouteDeps } from './routes/common.js';
import { contactsRoutes } from './routes/contacts.js';
import { identityRoutes } from './routes/identity.js';
import { issuesRoutes } from './routes/issues.js';
import { teamsRoutes } from './routes/teams.js';
import { usersRoutes } from './routes/users.js';
import { buildSeedData, DEFAULT_SCALE, DEFAULT_SEED } from './seed/seed.js';

export const DEFAULT_ISSUEDESK_TOKEN = 'pylon_sandbox_token';

/**
 * The upstream's published limits (endpoints.ts) by route label (`GET /issues/:id`), per minute: the emulator's
 * rate-limit window is a minute. Enforced only once enabled through /_emulator/rate-limits.
 */
export const ISSUEDESK_RATE_LIMITS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.values(ISSUEDESK_OPERATIONS).map((operation) => [
    `${operation.method} ${honoPath(operation.path)}`,
    (operation.rateLimit.limit * 60_000) / operation.rateLimit.intervalMs,
  ]),
);

/** The areas of the API, one sub-app each; their names are the tool groups' (identity, issues, ...). */
const AREAS = [identityRoutes, issuesRoutes, contactsRoutes, usersRoutes, teamsRoutes] as const;

export interface IssueDeskEmulatorOptions {
  /** SQLite file path, or ':memory:' (the default). */
  db?: string;
  seed?: number;
  scale?: number;
  token?: string;
  clock?: Clock;
  /** Reseed a file database even if it already holds data. */
  reset?: boolean;
}

export interface IssueDeskEmulator {
  app: EmulatorApp['app'];
  database: IssueDeskDatabase;
  token: string;
  /** Request log, fault switches and rate limiter, for tests that drive them directly. */
  controls: Omit<EmulatorApp, 'app'>;
  /** Whether this start seeded the database or kept its data, and the seed that data was made with. */
  seeding: SeedingReport;
  close(): void;
}

export function createIssueDeskEmulator(opts: IssueDeskEmulatorOptions = {}): IssueDeskEmulator {
  const token = opts.token ?? DEFAULT_ISSUEDESK_TOKEN;
  if (token.trim() === '' || /\s/.test(token))
    throw new Error('The emulator token must be non-empty and contain no spaces');
  const clock = opts.clock ?? systemClock;
  const configured = { seed: opts.seed ?? DEFAULT_SEED, scale: opts.scale ?? DEFAULT_SCALE };
  const db = openDatabase(opts.db ?? ':memory:');
  const database = new IssueDeskDatabase(db);
  const fresh = database.seedIfEmpty(
    () => buildSeedData({ ...configured, now: clock.now() }),
    opts.reset === true,
  );
  const seeding: SeedingReport = { fresh, seed: database.seedInfo()?.seed };
  const isToken = credentialCheck(token);

  const emulator = createEmulatorApp({
    errorBody,
    service: issueDeskInspection({ database, token, clock, configured }),
    rateLimits: ISSUEDESK_RATE_LIMITS,
    clock,
    // No caches to refresh: every read goes to the database.
    database: { db },
    authenticate: (c) => {
      const auth = parseAuthorization(c.req.header('authorization'));
      if (auth.scheme !== 'bearer') return respond(c, errors.bearerSchemeRequired());
      if (!isToken(auth.token)) return respond(c, errors.invalidApiToken());
      return undefined;
    },
  });
  const { app } = emulator;
  const deps: RouteDeps = { database, clock };
  for (const area of AREAS) app.route('/', area(deps));

  const controls = { log: emulator.log, faults: emulator.faults, rateLimiter: emulator.rateLimiter, clock };
  startupDone(db);
  return { app, database, token, controls, seeding, close: () => db.close() };
}

export interface RunningIssueDeskEmulator extends StartedEmulator<IssueDeskEmulator> {
  token: string;
}

/** Starts the emulator on a loopback socket (ephemeral port unless `port` is given). */
export async function startIssueDeskEmulator(
  opts: IssueDeskEmulatorOptions & ServeOptions = {},
): Promise<RunningIssueDeskEmulator> {
  const { url, emulator, close } = await startEmulator(createIssueDeskEmulator, opts);
  return { url, token: emulator.token, emulator, close };
}
