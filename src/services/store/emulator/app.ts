/**
 * A local emulator of the Airtable Web API (the upstream of the StoreApi tools), data plane: records, comments,
 * attachments, bases, tables, fields and views, plus webhooks, with the upstream's paths, bearer tokens and
 * scopes, base permission levels, envelopes, limits, error types and the 5 requests/s per base rate limit with
 * its 30-second penalty, over a seeded SQLite store, plus the /_emulator controls.
 *
 * Controls beyond the shared ones: GET/PUT/DELETE /_emulator/base-rate-limit (the per-base limit), and the
 * collections bases, tables, fields, views, records (?base=&table=), comments (?record=), attachments,
 * tokens (hints only), users, workspaces and webhooks under /_emulator/state.
 *
 * OAuth 2.0 (routes/oauth.ts, oauth.ts): /oauth2/v1/authorize with a consent page where an emulated user is
 * picked, /oauth2/v1/token, and the controls under /_emulator/oauth; issued access tokens authenticate like
 * the configured ones.
 *
 * Layout: this file builds the app and mounts the areas, routes/<area>.ts (HTTP only; each a sub-app with its own
 * error handling, its handlers named after and registered from the operations of ../endpoints.ts), over state
 * classes with no HTTP (database.ts, admin/, webhooks.ts, oauth.ts); errors.ts is the upstream's error catalogue
 * and seed/ the seed.
 */
import type { Context } from 'hono';
import { type Clock, systemClock } from '../../../emulation/clock.js';
import { createEmulatorApp, type EmulatorApp } from '../../../emulation/emulatorApp.js';
import { type EmulatorEnv, type ErrorBodyFn, isControlPath } from '../../../emulation/env.js';
import type {
  CollectionPage,
  CollectionQuery,
  InspectableService,
  ResetOptions,
} from '../../../emulation/inspection.js';
import type { RateLimiter } from '../../../emulation/rateLimit.js';
import { err, ok } from '../../../emulation/result.js';
import type { SeedingReport } from '../../../emulation/seeding.js';
import { type ServeOptions, type StartedEmulator, startEmulator } from '../../../emulation/serve.js';
import { openDatabase, startupDone } from '../../../emulation/sqlite.js';
import { type AdminPlane, createAdminPlane } from './admin/plane.js';
import { auditMiddleware } from './auditMiddleware.js';
import { Access, ALL_SCOPES, type TokenGrant, tokenHint, tokenKindOf } from './auth.js';
import { type ChangeFeed, ChangeHub } from './changes.js';
import { Reader } from './compute.js';
import { StoreDatabase, type TableModel } from './database.js';
import { errorBodyOf, errors, respond, type StoreError } from './errors.js';
import { fieldJson, viewJson } from './metadata.js';
import type { JsonObject } from './model.js';
// OAuth: the authorization server's state and routes.
import { type OAuthOptions, OAuthState } from './oauth.js';
import { ListIterators, recordJson } from './query.js';
import {
  baseRateLimitConfig,
  baseRateLimitMiddleware,
  createBaseRateLimiter,
  mountBaseRateLimitControls,
} from './rateLimit.js';
import { ATTACHMENT_MAX_BASE64_CHARS } from './requestBodies.js';
import { attachmentsArea, FILE_DOWNLOAD, FILES_PREFIX, isFilePath } from './routes/attachments.js';
import { bulkTablesArea } from './routes/bulkTables.js';
import { commentsArea } from './routes/comments.js';
import type { RouteDeps } from './routes/common.js';
import { complianceArea } from './routes/compliance.js';
import { enterpriseArea } from './routes/enterprise.js';
import { identityArea } from './routes/identity.js';
import {
  CONSENT_ANSWER,
  isOAuthPath,
  isOAuthTokenPath,
  mountOAuthControls,
  oauthArea,
} from './routes/oauth.js';
import { recordsArea, resolveTable } from './routes/records.js';
import { schemaArea } from './routes/schema.js';
import { scimArea } from './routes/scim.js';
import { sharingArea } from './routes/sharing.js';
import { webhooksArea } from './routes/webhooks.js';
import { workspacesArea } from './routes/workspaces.js';
import { buildSeedData, DEFAULT_SCALE, DEFAULT_SEED, MAX_SCALE } from './seed/seed.js';
import { WebhookService } from './webhooks.js';

export { DEFAULT_SCALE, DEFAULT_SEED, MAX_SCALE } from './seed/seed.js';

export const DEFAULT_STORE_TOKEN = 'pat_sandbox_token';

/** Routes outside /_emulator that are the emulator's own and no upstream operation (docs/coverage.md lists them). */
export const EMULATOR_ONLY_ROUTES = [CONSENT_ANSWER, FILE_DOWNLOAD] as const;

/** URLs must be shorter than this (upstream-apis.md C.2); longer ones get 414. */
export const MAX_URL_LENGTH = 16_000;
/** Request bodies above this are refused with 413; the upstream publishes no figure. */
export const MAX_BODY_BYTES = 5.5 * 1024 * 1024;
/** uploadAttachment carries up to 5 MB as base64 (about 6.7 MB of text), so its bodies may be larger. */
export const MAX_UPLOAD_BODY_BYTES = ATTACHMENT_MAX_BASE64_CHARS + 64 * 1024;

export interface StoreEmulatorOptions {
  /** SQLite file path, or ':memory:' (the default). */
  db?: string;
  seed?: number;
  /** Records in the Scale base's Events table (0, the default, leaves the Scale base out). */
  scale?: number;
  /** Reseed a file database even if it already holds data. */
  reset?: boolean;
  clock?: Clock;
  /** The all-scopes token (owned by the first seeded user). */
  token?: string;
  /** Extra tokens with chosen scopes, for scope tests: { token, userId?, scopes }. */
  tokens?: readonly { token: string; userId?: string; scopes: readonly string[] }[];
  /** Synthetic audit log events on top of the seeded history; default 2 × scale (100,000 at the bench's scale). */
  auditEvents?: number;
  /** Synthetic managed users in the root enterprise account; default scale / 5 (10,000 at the bench's scale). */
  syntheticUsers?: number;
  /** Per-base rate limit; default { perSecond: 5, penaltyMs: 30_000 }; false disables. Also at /_emulator/base-rate-limit. */
  baseRateLimit?: { perSecond: number; penaltyMs: number } | false;
  /**
   * OAuth: token lifetimes (default 3600 s and 60 days; also at PUT /_emulator/oauth/config) and applications
   * besides the sandbox one (whose client id may be listed to give it more redirect URIs).
   */
  oauth?: OAuthOptions;
}

export interface StoreEmulator {
  app: EmulatorApp['app'];
  store: StoreDatabase;
  token: string;
  /** Request log, fault switches, shared rate limiter and clock, for tests that drive them directly. */
  controls: Omit<EmulatorApp, 'app'>;
  /** Every mutation's change events; the webhooks attach here. */
  changes: ChangeFeed;
  /** The per-base rate limiter (the shared limiter keyed by base; settings in the shape of baseRateLimitConfig). */
  baseRateLimiter: RateLimiter;
  webhooks: WebhookService;
  /** The administration plane: enterprise accounts, users, groups, workspaces, sharing, audit trail. */
  admin: AdminPlane;
  /** OAuth: applications, grants and issued tokens (hashes only). */
  oauth: OAuthState;
  /**
   * For a sandbox's server instructions: the ids of the all-scopes token's enterprise account and of its bulk
   * data tables, which no upstream endpoint lists (undefined when the token's user administers no account).
   */
  sandboxInstructions(): string | undefined;
  /** Whether this start seeded the database or kept its data, and the seed that data was made with. */
  seeding: SeedingReport;
  close(): void;
}

/** The upstream's envelope for answers the shared kit produces (faults, unknown routes, 500s). */
const errorBody: ErrorBodyFn = (status, message) => {
  const byStatus: Record<number, StoreError> = {
    400: { ...errors.invalidJson(), message },
    401: errors.authenticationRequired(),
    403: errors.modelNotFound(),
    404: errors.routeNotFound(),
    413: { status: 413, type: 'REQUEST_TOO_LARGE', message },
    422: errors.invalidRequest(),
    429: errors.rateLimited(),
    502: { status: 502, type: 'BAD_GATEWAY', message },
    503: { status: 503, type: 'RETRIABLE_ERROR', message },
  };
  return errorBodyOf(byStatus[status] ?? { status: 500, type: 'SERVER_ERROR', message });
};

function checkToken(token: string, what: string): void {
  if (token.trim() === '' || /\s/.test(token))
    throw new Error(`${what} must be non-empty and contain no spaces`);
}

function page<T>(items: readonly T[], query: CollectionQuery, view: (item: T) => unknown): CollectionPage {
  return { total: items.length, items: items.slice(query.offset, query.offset + query.limit).map(view) };
}

export function createStoreEmulator(opts: StoreEmulatorOptions = {}): StoreEmulator {
  const token = opts.token ?? DEFAULT_STORE_TOKEN;
  checkToken(token, 'The emulator token');
  for (const extra of opts.tokens ?? []) checkToken(extra.token, 'An extra token');
  const clock = opts.clock ?? systemClock;
  const configured = { seed: opts.seed ?? DEFAULT_SEED, scale: opts.scale ?? DEFAULT_SCALE };
  if (!Number.isInteger(configured.scale) || configured.scale < 0 || configured.scale > MAX_SCALE) {
    throw new Error(`scale must be an integer from 0 to ${MAX_SCALE}`);
  }
  const db = openDatabase(opts.db ?? ':memory:');
  const store = new StoreDatabase(db);
  const freshSeed = store.seedIfEmpty(
    () => buildSeedData({ ...configured, now: clock.now() }),
    opts.reset === true,
  );
  const hub = new ChangeHub();
  const iterators = new ListIterators(clock);
  const baseRateLimiter = createBaseRateLimiter(clock, opts.baseRateLimit ?? undefined);
  const grants: TokenGrant[] = [
    { token, scopes: ALL_SCOPES },
    ...(opts.tokens ?? []).map((t) => ({
      token: t.token,
      scopes: t.scopes,
      ...(t.userId === undefined ? {} : { userId: t.userId }),
    })),
  ];
  // OAuth: issued access tokens are looked up in the OAuth store after the configured tokens.
  const oauth = new OAuthState(db, clock, opts.oauth);
  // A reseed brings other users: grants given by the old ones go.
  if (freshSeed) oauth.reset();
  const access = new Access(store, grants, oauth);
  const admin = createAdminPlane(db, { store, hub, clock, access, iterators });
  // A large account is large everywhere: `scale` also sizes the audit log and the user directory.
  const seedAdmin = (scale = configured.scale) =>
    admin.seed({
      now: new Date(store.seedInfo()?.seededAt ?? clock.now().toISOString()),
      auditEvents: opts.auditEvents ?? 2 * scale,
      users: opts.syntheticUsers ?? Math.floor(scale / 5),
    });

  const webhooks = new WebhookService({
    db,
    clock,
    changes: hub,
    baseExists: (baseId) => store.schema().baseById.has(baseId),
    newId: () => store.newId('webhook'),
    describeUser: (userId, baseId) => {
      const user = store.schema().userById.get(userId);
      if (!user) return undefined;
      return {
        id: user.id,
        email: user.email,
        name: user.name,
        permissionLevel: store.permissionOf(baseId, userId),
      };
    },
    tableOfView: (baseId, viewId) => {
      const found = store.schema().viewById.get(viewId);
      return found && found.table.row.baseId === baseId ? found.table.row.id : undefined;
    },
  });

  const service: InspectableService = {
    summary: () => ({
      counts: { ...store.counts(), webhooks: webhooks.inspect().webhooks.length, ...admin.counts() },
      token_hint: tokenHint(token),
      tokens: grants.length,
      base_rate_limit: baseRateLimitConfig(baseRateLimiter),
      ...store.seedInfo(),
    }),
    collectionNames: () => [...COLLECTIONS, ...admin.collectionNames()],
    collection: (name, query) => inspectCollection(name, query),
    item: (name, id) => inspectItem(name, id),
    reset: (options: ResetOptions) => {
      const seed = options.seed ?? configured.seed;
      const scale = options.scale ?? configured.scale;
      if (scale > MAX_SCALE) return err(`scale must be at most ${MAX_SCALE}`);
      // One transaction: another process sharing the file sees the old data or the new, never half of each.
      store.transaction(() => {
        webhooks.reset();
        store.replaceAll(buildSeedData({ seed, scale, now: clock.now() }));
        seedAdmin(scale);
      });
      iterators.clear();
      baseRateLimiter.reset();
      oauth.reset(); // OAuth: reset clears every grant and token (lifetimes set through the control stay).
      return ok(service.summary());
    },
  };

  const COLLECTIONS = [
    'bases',
    'tables',
    'fields',
    'views',
    'records',
    'comments',
    'attachments',
    'tokens',
    'users',
    'workspaces',
    'webhooks',
  ] as const;

  const tablesFor = (params: Record<string, string>): TableModel[] => {
    const snapshot = store.schema();
    const bases = params.base ? [params.base] : snapshot.bases.map((b) => b.id);
    return bases.flatMap((baseId) => {
      const tables = snapshot.tablesOfBase.get(baseId) ?? [];
      if (!params.table) return tables;
      const one = resolveTable(store, baseId, params.table);
      return one ? [one] : [];
    });
  };

  const recordView = (table: TableModel, id: string): JsonObject | undefined => {
    const row = store.record(table.row.id, id);
    if (!row) return undefined;
    const reader = new Reader(store, store.schema(), { now: clock.now(), origin: '' });
    return {
      baseId: table.row.baseId,
      tableId: table.row.id,
      ...recordJson(reader.view(table, row), { cellFormat: 'json', returnFieldsByFieldId: false }),
    };
  };

  function inspectCollection(name: string, query: CollectionQuery): CollectionPage | undefined {
    const snapshot = store.schema();
    const { params } = query;
    switch (name) {
      case 'users':
        return page(snapshot.users, query, (u) => u);
      case 'workspaces':
        return page(snapshot.workspaces, query, (w) => w);
      case 'bases':
        return page(snapshot.bases, query, (b) => inspectBase(b.id));
      case 'tables':
        return page(tablesFor(params), query, (t) => inspectTable(t));
      case 'fields':
        return page(
          tablesFor(params).flatMap((t) => t.fields.map((f) => ({ t, f }))),
          query,
          ({ t, f }) => ({ tableId: t.row.id, ...fieldJson(f, t, snapshot) }),
        );
      case 'views':
        return page(
          tablesFor(params).flatMap((t) => t.views.map((v) => ({ t, v }))),
          query,
          ({ t, v }) => ({ tableId: t.row.id, ...viewJson(v, t, true), sorts: v.sorts, filter: v.filter }),
        );
      case 'records': {
        const tables = tablesFor(params);
        const all = tables.flatMap((t) => store.records(t.row.id).map((r) => ({ t, id: r.id })));
        return page(all, query, ({ t, id }) => recordView(t, id));
      }
      case 'comments': {
        const listed = store.allComments(params.record, query.offset, query.limit);
        return { total: listed.total, items: listed.items };
      }
      case 'attachments': {
        const listed = store.allFiles(query.offset, query.limit);
        return {
          total: listed.total,
          items: listed.items.map((f) => ({
            ...f,
            url: `${FILES_PREFIX}/${f.id}/${encodeURIComponent(f.filename)}`,
          })),
        };
      }
      case 'tokens':
        return page(grants, query, (g) => ({
          hint: tokenHint(g.token),
          userId: g.userId ?? access.owner() ?? null,
          kind: tokenKindOf(g.token),
          scopes: g.scopes,
        }));
      case 'webhooks':
        return page(webhooks.inspect().webhooks, query, (w) => w);
      default: {
        const items = admin.collection(name);
        return items ? page(items, query, (item) => item) : undefined;
      }
    }
  }

  function inspectBase(baseId: string): JsonObject | undefined {
    const snapshot = store.schema();
    const base = snapshot.baseById.get(baseId);
    if (!base) return undefined;
    const permissions: Record<string, string> = {};
    for (const user of snapshot.users) permissions[user.id] = store.permissionOf(baseId, user.id);
    return { ...base, tables: (snapshot.tablesOfBase.get(baseId) ?? []).map((t) => t.row.id), permissions };
  }

  function inspectTable(t: TableModel): JsonObject {
    return {
      ...t.row,
      fields: t.fields.length,
      views: t.views.length,
      records: store.records(t.row.id).length,
    };
  }

  function inspectItem(name: string, id: string): unknown {
    const snapshot = store.schema();
    switch (name) {
      case 'records': {
        const row = store.findRecord(id);
        const table = row ? snapshot.tableById.get(row.tableId) : undefined;
        return table ? recordView(table, id) : undefined;
      }
      case 'bases':
        return inspectBase(id);
      case 'tables': {
        const t = snapshot.tableById.get(id);
        return t ? inspectTable(t) : undefined;
      }
      case 'fields': {
        const found = snapshot.fieldById.get(id);
        return found
          ? { tableId: found.table.row.id, ...fieldJson(found.field, found.table, snapshot) }
          : undefined;
      }
      case 'views': {
        const found = snapshot.viewById.get(id);
        return found
          ? {
              tableId: found.table.row.id,
              ...viewJson(found.view, found.table, true),
              sorts: found.view.sorts,
              filter: found.view.filter,
            }
          : undefined;
      }
      case 'users':
        return snapshot.userById.get(id);
      case 'workspaces':
        return snapshot.workspaceById.get(id);
      case 'comments':
        return store.comment(id);
      case 'attachments':
        return store.file(id);
      case 'webhooks':
        return webhooks.inspect().webhooks.find((w) => w.id === id);
      default:
        return admin.item(name, id);
    }
  }

  const emulator = createEmulatorApp({
    errorBody,
    service,
    rateLimits: {},
    clock,
    database: { db, refresh: () => store.sync(), discard: () => store.dropCaches() },
    // OAuth: the token endpoint's codes, verifiers, secrets and refresh tokens never reach the request log.
    redactRequestBody: isOAuthTokenPath,
    authenticate: (c) => {
      // Attachment urls work without a token, like the upstream's signed CDN links.
      if (isFilePath(c.req.path)) return undefined;
      // OAuth: the authorization and token endpoints are how a client gets a token in the first place.
      if (isOAuthPath(c.req.path)) return undefined;
      return access.principal(c) ? undefined : respond(c, errors.authenticationRequired());
    },
  });
  const { app } = emulator;

  app.use('*', async (c, next) => {
    if (isControlPath(c.req.path) || isFilePath(c.req.path)) return next();
    const length = c.req.url.length;
    if (length >= MAX_URL_LENGTH) return respond(c, errors.uriTooLong(length, MAX_URL_LENGTH));
    return next();
  });
  app.use('*', baseRateLimitMiddleware(baseRateLimiter, errorBody));
  app.use('*', async (c: Context<EmulatorEnv>, next) => {
    if (isControlPath(c.req.path) || !c.req.raw.body) return next();
    const limit = c.req.path.endsWith('/uploadAttachment') ? MAX_UPLOAD_BODY_BYTES : MAX_BODY_BYTES;
    const declared = Number(c.req.header('content-length') ?? '0');
    const size = declared > limit ? declared : Buffer.byteLength(await c.req.text(), 'utf8');
    if (size > limit) return respond(c, errors.tooLarge(size, limit));
    return next();
  });
  mountBaseRateLimitControls(app, baseRateLimiter);
  mountOAuthControls(app, oauth); // OAuth: /_emulator/oauth/grants and /_emulator/oauth/config.
  // Before every area, so it sees every mutation.
  app.use('*', auditMiddleware({ trail: admin.trail, state: admin.state, store, access }));

  const deps: RouteDeps = { store, hub, clock, access, iterators };
  // The areas, each a sub-app with its own error handling. Order is matching order: the specific families first,
  // since the data plane's `/v0/{baseId}/...` patterns would also match their paths.
  const areas = [
    identityArea(deps),
    oauthArea({ oauth, store }), // OAuth: /oauth2/v1/authorize and /oauth2/v1/token.
    // The administration plane's families.
    scimArea(admin.deps),
    enterpriseArea(admin.deps),
    complianceArea(admin.deps),
    workspacesArea(admin.deps),
    sharingArea(admin.deps),
    bulkTablesArea(admin.deps),
    // The data plane's.
    schemaArea(deps),
    webhooksArea({
      webhooks,
      requireScope: (c, scope) => {
        const principal = access.require(c, scope);
        return principal.ok ? undefined : respond(c, principal.error);
      },
      fail: (c, status, type, message) =>
        respond(c, { status, type, ...(message === undefined ? {} : { message }) }),
      ownerTokenKind: (c) => access.principal(c)?.kind ?? 'personalAccessToken',
    }),
    attachmentsArea(deps),
    commentsArea(deps),
    recordsArea(deps),
  ];
  for (const area of areas) app.route('/', area);
  if (freshSeed) seedAdmin();

  const controls = {
    log: emulator.log,
    faults: emulator.faults,
    rateLimiter: emulator.rateLimiter,
    clock,
  };
  startupDone(db);
  return {
    app,
    store,
    token,
    controls,
    changes: hub,
    baseRateLimiter,
    webhooks,
    admin,
    oauth,
    seeding: { fresh: freshSeed, seed: store.seedInfo()?.seed },
    sandboxInstructions: () => {
      const owner = access.owner();
      const accountId = owner === undefined ? undefined : admin.state.profile(owner)?.enterpriseAccountId;
      const account = accountId ? admin.state.account(accountId) : undefined;
      if (!account) return undefined;
      const tables = admin
        .dataTables()
        .filter((t) => admin.state.sameOrganisation(t.enterpriseAccountId, account.id))
        .map(
          (t) =>
            `${t.id} "${t.name}" of account ${t.enterpriseAccountId} (primary key ${t.primaryKeyFieldName}; fields ${t.fields.map((f) => f.name).join(', ')})`,
        );
      return (
        `Sandbox data: the token in use administers enterprise account ${account.id} ("${account.name}").` +
        (tables.length > 0
          ? ` Bulk data tables (data_table_id; no endpoint lists them): ${tables.join('; ')}.`
          : '')
      );
    },
    close: () => {
      webhooks.close();
      db.close();
    },
  };
}

export interface RunningStoreEmulator extends StartedEmulator<StoreEmulator> {
  token: string;
}

/** Starts the emulator on a loopback socket (ephemeral port unless `port` is given). */
export async function startStoreEmulator(
  opts: StoreEmulatorOptions & ServeOptions = {},
): Promise<RunningStoreEmulator> {
  const { url, emulator, close } = await startEmulator(createStoreEmulator, opts);
  return { url, token: emulator.token, emulator, close };
}
