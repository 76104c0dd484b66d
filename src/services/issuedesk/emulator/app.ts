/**
 * A local emulator of the Pylon API (the upstream of the IssueDesk tools): same paths, bearer auth, envelopes,
 * cursor pagination, validation rules and error bodies, over a seeded SQLite store, plus the /_emulator controls.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { parseAuthorization } from '../../../emulation/authorization.js';
import { type Clock, systemClock } from '../../../emulation/clock.js';
import { createEmulatorApp, type EmulatorApp } from '../../../emulation/emulatorApp.js';
import type { EmulatorEnv, ErrorBodyFn } from '../../../emulation/env.js';
import type {
  CollectionPage,
  CollectionQuery,
  InspectableService,
  ResetOptions,
} from '../../../emulation/inspection.js';
import { decodeCursor, encodeCursor, parseLimit } from '../../../emulation/pagination.js';
import { err, ok, type Result } from '../../../emulation/result.js';
import type { SeedingReport } from '../../../emulation/seeding.js';
import { serveEmulator } from '../../../emulation/serve.js';
import { openDatabase } from '../../../emulation/sqlite.js';
import { PYLON_RATE_LIMITS_PER_MINUTE } from '../rateLimits.js';
import { matchesContact, parseContactFilter } from './contactFilter.js';
import type { MessageView, StoreError } from './records.js';
import {
  parseIssuePatch,
  parseIssueWindow,
  parseNoteInput,
  parseSearchContactsBody,
} from './requestBodies.js';
import { buildSeedData, DEFAULT_SCALE, DEFAULT_SEED } from './seed.js';
import { IssueDeskStore, type Page } from './store.js';
import {
  contactToWire,
  dataEnvelope,
  errorEnvelope,
  issueToWire,
  type Json,
  listEnvelope,
  messageToWire,
  orgToWire,
  statusToWire,
  teamToWire,
  userToWire,
} from './wire.js';

export const DEFAULT_ISSUEDESK_TOKEN = 'pylon_sandbox_token';

/** Largest dataset /_emulator/reset will build, so a typo cannot hang the emulator. */
export const MAX_SCALE = 200_000;

/** The upstream's published per-minute limits, with the emulator's route syntax; enforced only once enabled. */
export const ISSUEDESK_RATE_LIMITS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(PYLON_RATE_LIMITS_PER_MINUTE).map(([route, limit]) => [
    route.replace(/\{(\w+)\}/g, ':$1'),
    limit,
  ]),
);

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
  store: IssueDeskStore;
  token: string;
  /** Request log, fault switches and rate limiter, for tests that drive them directly. */
  controls: Omit<EmulatorApp, 'app'>;
  /** Whether this start seeded the database or kept its data, and the seed that data was made with. */
  seeding: SeedingReport;
  close(): void;
}

const errorBody: ErrorBodyFn = (_status, message, { requestId, code }) =>
  errorEnvelope(message, requestId, code);

function fail(
  c: Context<EmulatorEnv>,
  status: ContentfulStatusCode,
  message: string,
  code?: string,
): Response {
  return c.json(errorEnvelope(message, c.get('requestId'), code), status);
}

function storeFail(c: Context<EmulatorEnv>, error: StoreError): Response {
  return fail(c, error.kind === 'not_found' ? 404 : 400, error.message);
}

/** Reads a JSON object body; malformed JSON and non-objects are the caller's 400. */
async function readJsonObject(c: Context<EmulatorEnv>): Promise<Result<Record<string, unknown>, string>> {
  const text = await c.req.text();
  if (text.trim() === '') return err('Request body must be a JSON object');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return err('Request body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return err('Request body must be a JSON object');
  }
  return ok(parsed as Record<string, unknown>);
}

/** The first 4 characters, or fewer for short tokens, so the hint never gives most of a token away. */
function tokenHint(token: string): string {
  return `${token.slice(0, Math.min(4, Math.floor(token.length / 2)))}…`;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The emulator's origin as this client reached it, for links back to the emulator. */
function originOf(c: Context<EmulatorEnv>): string {
  return new URL(c.req.url).origin;
}

export function createIssueDeskEmulator(opts: IssueDeskEmulatorOptions = {}): IssueDeskEmulator {
  const token = opts.token ?? DEFAULT_ISSUEDESK_TOKEN;
  if (token.trim() === '' || /\s/.test(token))
    throw new Error('The emulator token must be non-empty and contain no spaces');
  const clock = opts.clock ?? systemClock;
  const configured = { seed: opts.seed ?? DEFAULT_SEED, scale: opts.scale ?? DEFAULT_SCALE };
  const db = openDatabase(opts.db ?? ':memory:');
  const store = new IssueDeskStore(db);
  const fresh = store.seedIfEmpty(
    () => buildSeedData({ ...configured, now: clock.now() }),
    opts.reset === true,
  );
  const seeding: SeedingReport = { fresh, seed: store.seedInfo()?.seed };
  const tokenDigest = sha256(token);

  const service: InspectableService = {
    summary: () => ({
      counts: store.counts(),
      org: orgToWire(store.org()),
      token_hint: tokenHint(token),
      ...store.seedInfo(),
    }),
    collectionNames: () => ['issues', 'messages', 'contacts', 'users', 'teams', 'statuses'],
    collection: (name, query) => inspectCollection(store, name, query),
    item: (name, id) => inspectItem(store, name, id),
    reset: (options: ResetOptions) => {
      const seed = options.seed ?? configured.seed;
      const scale = options.scale ?? configured.scale;
      if (scale > MAX_SCALE) return err(`scale must be at most ${MAX_SCALE}`);
      store.replaceAll(buildSeedData({ seed, scale, now: clock.now() }));
      return ok(service.summary());
    },
  };

  const emulator = createEmulatorApp({
    errorBody,
    service,
    rateLimits: ISSUEDESK_RATE_LIMITS,
    clock,
    // No caches to refresh: every read goes to the database.
    database: { db },
    authenticate: (c) => {
      const auth = parseAuthorization(c.req.header('authorization'));
      if (auth.scheme !== 'bearer') {
        return fail(
          c,
          401,
          'Token must follow Bearer authorization scheme: "Authorization: Bearer <API token>"',
          'invalid_authorization_header',
        );
      }
      if (!timingSafeEqual(sha256(auth.token), tokenDigest)) {
        return fail(c, 401, 'Invalid API token', 'invalid_api_token');
      }
      return undefined;
    },
  });
  const { app } = emulator;
  const now = () => clock.now().getTime();

  app.get('/me', (c) => c.json(dataEnvelope(orgToWire(store.org()), c.get('requestId'))));

  app.get('/issue-statuses', (c) =>
    c.json(listEnvelope(store.statuses().map(statusToWire), null, c.get('requestId'))),
  );

  app.get('/issues', (c) => {
    const window = parseIssueWindow(c.req.query('start_time'), c.req.query('end_time'));
    if (!window.ok) return fail(c, 400, window.error);
    const limit = parseLimit(c.req.query('limit'));
    if (!limit.ok) return fail(c, 400, limit.error);
    const rawCursor = c.req.query('cursor');
    let after: { createdAt: number; id: string } | undefined;
    if (rawCursor !== undefined && rawCursor !== '') {
      const key = decodeCursor('issues', rawCursor, ['number', 'string']);
      if (!key) return fail(c, 400, 'Invalid cursor');
      after = { createdAt: key[0] as number, id: key[1] as string };
    }
    const page = store.issuesInWindow(window.value.startMs, window.value.endMs, after, limit.value);
    const last = page.items.at(-1);
    const next = page.hasMore && last ? encodeCursor('issues', [last.createdAt, last.id]) : null;
    const origin = originOf(c);
    return c.json(
      listEnvelope(
        page.items.map((issue) => issueToWire(issue, origin)),
        next,
        c.get('requestId'),
      ),
    );
  });

  app.get('/issues/:id', (c) => {
    const issue = store.findIssue(c.req.param('id'));
    if (!issue) return fail(c, 404, 'Issue not found');
    return c.json(dataEnvelope(issueToWire(issue, originOf(c)), c.get('requestId')));
  });

  app.patch('/issues/:id', async (c) => {
    if (!store.findIssue(c.req.param('id'))) return fail(c, 404, 'Issue not found');
    const body = await readJsonObject(c);
    if (!body.ok) return fail(c, 400, body.error);
    const patch = parseIssuePatch(body.value);
    if (!patch.ok) return fail(c, 400, patch.error);
    const updated = store.updateIssue(c.req.param('id'), patch.value, now());
    if (!updated.ok) return storeFail(c, updated.error);
    return c.json(dataEnvelope(issueToWire(updated.value, originOf(c)), c.get('requestId')));
  });

  app.post('/issues/:id/note', async (c) => {
    if (!store.findIssue(c.req.param('id'))) return fail(c, 404, 'Issue not found');
    const body = await readJsonObject(c);
    if (!body.ok) return fail(c, 400, body.error);
    const note = parseNoteInput(body.value);
    if (!note.ok) return fail(c, 400, note.error);
    const created = store.addNote(c.req.param('id'), note.value, now(), randomUUID);
    if (!created.ok) return storeFail(c, created.error);
    return c.json(
      dataEnvelope({ id: created.value.id, issue_id: created.value.issueId }, c.get('requestId')),
    );
  });

  app.get('/issues/:id/messages', (c) => {
    const issue = store.findIssue(c.req.param('id'));
    if (!issue) return fail(c, 404, 'Issue not found');
    const limit = parseLimit(c.req.query('limit'));
    if (!limit.ok) return fail(c, 400, limit.error);
    const rawCursor = c.req.query('cursor');
    let after: { timestamp: number; pos: number } | undefined;
    if (rawCursor !== undefined && rawCursor !== '') {
      const key = decodeCursor('messages', rawCursor, ['string', 'number', 'number']);
      // A cursor from another issue's messages is as meaningless here as a made-up one.
      if (!key || key[0] !== issue.id) return fail(c, 400, 'Invalid cursor');
      after = { timestamp: key[1] as number, pos: key[2] as number };
    }
    const page = store.messagesOfIssue(issue.id, after, limit.value);
    const last = page.items.at(-1);
    const next = page.hasMore && last ? encodeCursor('messages', [issue.id, last.timestamp, last.pos]) : null;
    return c.json(listEnvelope(page.items.map(messageToWire), next, c.get('requestId')));
  });

  /** Shared by the position-ordered lists (contacts, users, teams): cursor and limit from the query. */
  function pageParams(
    c: Context<EmulatorEnv>,
    tag: string,
  ): Result<{ afterPos: number; limit: number }, string> {
    const limit = parseLimit(c.req.query('limit'));
    if (!limit.ok) return limit;
    return cursorPosition(tag, c.req.query('cursor'), limit.value);
  }

  app.post('/contacts/search', async (c) => {
    const body = await readJsonObject(c);
    if (!body.ok) return fail(c, 400, body.error);
    const request = parseSearchContactsBody(body.value);
    if (!request.ok) return fail(c, 400, request.error);
    const filter = parseContactFilter(request.value.filter);
    if (!filter.ok) return fail(c, 400, filter.error);
    const limit = parseLimit(request.value.limit);
    if (!limit.ok) return fail(c, 400, limit.error);
    const position = cursorPosition('contacts', request.value.cursor, limit.value);
    if (!position.ok) return fail(c, 400, position.error);
    const matches = store
      .allContacts()
      .filter((contact) => contact.pos > position.value.afterPos && matchesContact(filter.value, contact));
    const page = { items: matches.slice(0, limit.value), hasMore: matches.length > limit.value };
    return c.json(
      listEnvelope(page.items.map(contactToWire), nextPosCursor('contacts', page), c.get('requestId')),
    );
  });

  // Contacts, users and teams are alike on the wire: a cursor-paged list by position and a lookup by id.
  function directoryRoutes<W, T extends W & { pos: number }>(
    path: string,
    notFound: string,
    after: (afterPos: number, limit: number) => Page<T>,
    one: (id: string) => T | undefined,
    wire: (item: W) => Json,
  ): void {
    const tag = path.slice(1);
    app.get(path, (c) => {
      const params = pageParams(c, tag);
      if (!params.ok) return fail(c, 400, params.error);
      const page = after(params.value.afterPos, params.value.limit);
      return c.json(listEnvelope(page.items.map(wire), nextPosCursor(tag, page), c.get('requestId')));
    });
    app.get(`${path}/:id`, (c) => {
      const item = one(c.req.param('id'));
      if (!item) return fail(c, 404, notFound);
      return c.json(dataEnvelope(wire(item), c.get('requestId')));
    });
  }

  directoryRoutes(
    '/contacts',
    'Contact not found',
    store.contactsAfter.bind(store),
    store.contact.bind(store),
    contactToWire,
  );
  directoryRoutes(
    '/users',
    'User not found',
    store.usersAfter.bind(store),
    store.user.bind(store),
    userToWire,
  );
  directoryRoutes(
    '/teams',
    'Team not found',
    store.teamsAfter.bind(store),
    store.team.bind(store),
    teamToWire,
  );

  const controls = { log: emulator.log, faults: emulator.faults, rateLimiter: emulator.rateLimiter, clock };
  return { app, store, token, controls, seeding, close: () => db.close() };
}

function cursorPosition(
  tag: string,
  cursor: string | undefined,
  limit: number,
): Result<{ afterPos: number; limit: number }, string> {
  if (cursor === undefined || cursor === '') return ok({ afterPos: 0, limit });
  const key = decodeCursor(tag, cursor, ['number']);
  if (!key) return err('Invalid cursor');
  return ok({ afterPos: key[0] as number, limit });
}

function nextPosCursor(tag: string, page: { items: { pos: number }[]; hasMore: boolean }): string | null {
  const last = page.items.at(-1);
  return page.hasMore && last ? encodeCursor(tag, [last.pos]) : null;
}

/** Inspection adds what the wire Message lacks: its issue, and the HTML under the issue's own field name. */
function inspectMessage(m: MessageView): Record<string, unknown> {
  return { issue_id: m.issueId, ...messageToWire(m), body_html: m.html };
}

function slice<T>(items: T[], query: CollectionQuery): CollectionPage {
  return { total: items.length, items: items.slice(query.offset, query.offset + query.limit) };
}

function inspectCollection(
  store: IssueDeskStore,
  name: string,
  query: CollectionQuery,
): CollectionPage | undefined {
  switch (name) {
    case 'issues':
      return {
        total: store.counts().issues,
        items: store.issuesByNumber(query.offset, query.limit).map((issue) => issueToWire(issue, '')),
      };
    case 'messages': {
      const issueRef = query.params.issue_id;
      const issue = issueRef === undefined ? undefined : store.findIssue(issueRef);
      if (issueRef !== undefined && !issue) return { total: 0, items: [] };
      const page = store.messages(query.offset, query.limit, issue?.id);
      return {
        total: page.total,
        items: page.items.map((m) => ({ issue_id: m.issueId, ...messageToWire(m) })),
      };
    }
    case 'contacts':
      return slice(store.allContacts().map(contactToWire), query);
    case 'users':
      return slice(store.allUsers().map(userToWire), query);
    case 'teams':
      return slice(store.allTeams().map(teamToWire), query);
    case 'statuses':
      return slice(store.statuses().map(statusToWire), query);
    default:
      return undefined;
  }
}

function inspectItem(store: IssueDeskStore, name: string, id: string): unknown | undefined {
  switch (name) {
    case 'issues': {
      const issue = store.findIssue(id);
      if (!issue) return undefined;
      const messages = store.messages(0, Number.MAX_SAFE_INTEGER, issue.id).items.map(inspectMessage);
      const threads = store.threadsOfIssue(issue.id).map((t) => ({ id: t.id, name: t.name }));
      return { ...issueToWire(issue, ''), messages, threads };
    }
    case 'messages': {
      const message = store.message(id);
      return message ? inspectMessage(message) : undefined;
    }
    case 'contacts': {
      const contact = store.contact(id);
      return contact ? contactToWire(contact) : undefined;
    }
    case 'users': {
      const user = store.user(id);
      return user ? userToWire(user) : undefined;
    }
    case 'teams': {
      const team = store.team(id);
      return team ? teamToWire(team) : undefined;
    }
    case 'statuses': {
      const status = store.statuses().find((s) => s.slug === id);
      return status ? statusToWire(status) : undefined;
    }
    default:
      return undefined;
  }
}

export interface RunningIssueDeskEmulator {
  url: string;
  token: string;
  close(): Promise<void>;
  emulator: IssueDeskEmulator;
}

/** Starts the emulator on a loopback socket (ephemeral port unless `port` is given). */
export async function startIssueDeskEmulator(
  opts: IssueDeskEmulatorOptions & { host?: string; port?: number } = {},
): Promise<RunningIssueDeskEmulator> {
  const { host, port, ...emulatorOptions } = opts;
  const emulator = createIssueDeskEmulator(emulatorOptions);
  const server = await serveEmulator(emulator, {
    ...(host === undefined ? {} : { host }),
    ...(port === undefined ? {} : { port }),
  });
  return {
    url: server.url,
    token: emulator.token,
    emulator,
    close: server.close,
  };
}
