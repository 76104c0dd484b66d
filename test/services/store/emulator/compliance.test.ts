// Compliance in the store emulator: the enterprise audit log (retention, filters, sort order, page sizes and
// keyset paging both ways with next/previous), legacy audit log requests and eDiscovery exports (asynchronous
// tasks driven to completion on the manual clock, with their files served by the emulator), and change events
// generated from the data plane's change feed — each with its scope refusal and the refusals of callers who
// administer another account (Partner Co's Pat), none (Ada) or only the descendant (Émilie).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../../src/services/store/emulator/admin/audit.js';
import { AUDIT_RETENTION_MS } from '../../../../src/services/store/emulator/admin/auditLog.js';
import { CHANGE_EVENT_RETENTION_MS } from '../../../../src/services/store/emulator/admin/changeEvents.js';
import {
  AUDIT_EVENTS_PER_FILE,
  AUDIT_LOG_LINK_TTL_MS,
  EXPORT_LINK_TTL_MS,
  TASK_DONE_AFTER_MS,
  TASK_PROCESSING_AFTER_MS,
  zipStored,
} from '../../../../src/services/store/emulator/admin/tasks.js';
import { ALL_SCOPES } from '../../../../src/services/store/emulator/auth.js';
import { ADMIN_SEED } from '../../../../src/services/store/emulator/seed/admin.js';
import { call, ids, type Loose, makeEmulator, NOW, q, type TestEmulator } from './helpers.js';

const ADA = 'pat_ada_not_admin';
const EMILIE = 'pat_emilie_descendant_admin';
const PAT = 'pat_partner_admin';
const NO_COMPLIANCE = 'pat_owner_without_compliance_scopes';
const AUDIT_ONLY = 'pat_owner_audit_logs_only';
const DAY = 86_400_000;
const HOUR = 3_600_000;
const now = Date.parse(NOW);
const iso = (ms: number) => new Date(ms).toISOString();

/** Ids of the seeded administration plane, read once from a probe emulator (the seed is deterministic). */
function seededIds() {
  const probe = makeEmulator();
  const user = (name: string) => probe.store.schema().users.find((u) => u.name === name)?.id ?? '';
  const account = (name: string) => probe.admin.state.list('account').find((a) => a.name === name)?.id ?? '';
  const base = (name: string) => probe.store.schema().bases.find((b) => b.name === name)?.id ?? '';
  const workspace = (name: string) => probe.store.schema().workspaces.find((w) => w.name === name)?.id ?? '';
  const seeded = {
    owner: user('Sandbox Owner'),
    ada: user('Ada Lovelace'),
    grace: user('Grace Hopper'),
    bot: user(ADMIN_SEED.users.bot.name),
    emilie: user(ADMIN_SEED.users.europe.name),
    pat: user(ADMIN_SEED.users.partner.name),
    root: account(ADMIN_SEED.rootAccount),
    europe: account(ADMIN_SEED.descendantAccount),
    partner: account(ADMIN_SEED.otherOrganisation),
    roadmap: base('Product Roadmap'),
    crm: base('Sales CRM'),
    calendar: base('Content Calendar'),
    europeWorkspace: workspace(ADMIN_SEED.workspaces.europe),
    partnerWorkspace: workspace(ADMIN_SEED.workspaces.partner),
  };
  for (const [name, id] of Object.entries(seeded)) if (!id) throw new Error(`seed lacks ${name}`);
  probe.close();
  return seeded;
}

const S = seededIds();
const ent = (accountId: string, rest = '') => `/v0/meta/enterpriseAccounts/${accountId}${rest}`;
const COMPLIANCE_SCOPES = [
  'enterprise.auditLogs:read',
  'enterprise.exports:manage',
  'enterprise.changeEvents:read',
];

let emulator: TestEmulator;
beforeEach(() => {
  emulator = makeEmulator({
    tokens: [
      { token: ADA, userId: S.ada, scopes: ALL_SCOPES },
      { token: EMILIE, userId: S.emilie, scopes: ALL_SCOPES },
      { token: PAT, userId: S.pat, scopes: ALL_SCOPES },
      { token: NO_COMPLIANCE, scopes: ALL_SCOPES.filter((s) => !COMPLIANCE_SCOPES.includes(s)) },
      { token: AUDIT_ONLY, scopes: ['enterprise.auditLogs:read'] },
    ],
  });
});

const get = (path: string, token?: string) =>
  call(emulator, 'GET', path, token === undefined ? {} : { token });
const post = (path: string, body: unknown, token?: string) =>
  call(emulator, 'POST', path, token === undefined ? { body } : { body, token });

/** 200 and the body, or a failure that shows what came back. */
async function okBody(reply: Promise<{ status: number; body: Loose }>): Promise<Loose> {
  const { status, body } = await reply;
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

function record(entry: Partial<AuditEntry> & { timestamp: string }): string {
  const id = emulator.admin.trail.record({
    action: 'updateRecord',
    category: 'record',
    actorUserId: S.bot,
    modelId: 'recSomething00001',
    modelType: 'record',
    enterpriseAccountId: S.root,
    ...entry,
  });
  if (!id) throw new Error('event not recorded');
  return id;
}

const expectRefused = (reply: { status: number; body: Loose }, status: number, type: string) => {
  expect(reply.status).toBe(status);
  expect(reply.body.error.type).toBe(type);
};

describe('GET auditLogEvents', () => {
  it('answers the seeded history newest first, in the upstream shape, without what is older than 180 days', async () => {
    const body = await okBody(get(ent(S.root, '/auditLogEvents')));
    expect(body.events.map((e: Loose) => e.action)).toEqual([
      'deleteBlockInstallation',
      'updateShare',
      'addBaseCollaborators',
      'updateUser',
    ]);
    expect(body.pagination).toEqual({});
    const [first] = body.events;
    expect(first).toEqual({
      id: expect.any(String),
      timestamp: iso(now - 20 * DAY),
      action: 'deleteBlockInstallation',
      actor: {
        type: 'user',
        user: { id: S.owner, email: 'owner@sandbox.example.com', name: 'Sandbox Owner' },
      },
      modelId: expect.stringMatching(/^bli/),
      modelType: 'blockInstallation',
      payload: {},
      payloadVersion: '1.0',
      context: expect.objectContaining({
        actionId: expect.stringMatching(/^act/),
        enterpriseAccountId: S.root,
        baseId: S.roadmap,
      }),
      origin: { ipAddress: '192.0.2.10', userAgent: 'Seed/1.0' },
    });
    // Seeded at 200 and 250 days: kept in the table, never answered, even when startTime reaches back.
    expect(emulator.admin.trail.count()).toBeGreaterThanOrEqual(6);
    const wide = await okBody(
      get(ent(S.root, `/auditLogEvents?startTime=${q(iso(now - 400 * DAY))}&pageSize=100`)),
    );
    expect(wide.events.map((e: Loose) => e.action)).not.toContain('createBase');
    expect(wide.events.map((e: Loose) => e.action)).not.toContain('createWorkspace');
    expect(wide.events).toHaveLength(4);
    // The window follows the clock: 41 more days and the 120-day-old event is past retention too.
    emulator.clock.advance(AUDIT_RETENTION_MS - 120 * DAY + 1);
    const later = await okBody(get(ent(S.root, '/auditLogEvents')));
    expect(later.events.map((e: Loose) => e.action)).not.toContain('updateUser');
  });

  it('a record created through the records API is an audit event (createRecords) and a change event', async () => {
    const features = ids(emulator, 'Product Roadmap', 'Features');
    const created = await okBody(
      post(`/v0/${features.base}/${features.table}`, { records: [{ fields: { Name: 'Audited feature' } }] }),
    );
    const recordId = created.records[0].id;
    expect(recordId).toMatch(/^rec/);

    const audit = await okBody(get(ent(S.root, '/auditLogEvents?eventType=createRecords')));
    expect(audit.events).toHaveLength(1);
    expect(audit.events[0]).toMatchObject({
      timestamp: NOW,
      action: 'createRecords',
      actor: { type: 'user', user: { id: S.owner, name: 'Sandbox Owner' } },
      modelId: features.table,
      modelType: 'table',
      payload: { records: [{ fields: { Name: 'Audited feature' } }] },
      context: { enterpriseAccountId: S.root, baseId: features.base },
      origin: { personalAccessTokenId: expect.stringMatching(/^pat/) },
    });

    const changes = await okBody(get(ent(S.root, '/changeEvents')));
    expect(changes.events[0]).toEqual({
      id: expect.stringMatching(/^ace/),
      type: 'base_modified',
      actor: {
        type: 'user',
        user: { id: S.owner, email: 'owner@sandbox.example.com', name: 'Sandbox Owner' },
      },
      objectId: features.base,
      objectType: 'base',
      eventTimestamp: NOW,
      timestamp: NOW,
    });
  });

  it('pages to older events with previous and back to newer ones with next, across events sharing a timestamp', async () => {
    // 37 events by the bot (no seeded event is), three per hour: ties broken by insertion order.
    const recorded = Array.from({ length: 37 }, (_, i) =>
      record({ modelId: `m${i}`, timestamp: iso(now - (Math.floor(i / 3) + 1) * HOUR) }),
    );
    expect(new Set(recorded).size).toBe(37);
    const expected = Array.from({ length: 37 }, (_, i) => i)
      .sort((a, b) => Math.floor(a / 3) - Math.floor(b / 3) || b - a)
      .map((i) => `m${i}`);
    const filter = `originatingUserId=${S.bot}&pageSize=4`;
    // Newest first (the default), the older pages are reached with previous (the upstream's pointers go by
    // time: previous to older events, next to newer ones).
    const pages: Loose[] = [];
    let previous: string | undefined;
    do {
      const page = await okBody(
        get(ent(S.root, `/auditLogEvents?${filter}${previous ? `&previous=${q(previous)}` : ''}`)),
      );
      pages.push(page);
      previous = page.pagination.previous;
    } while (previous && pages.length < 20);
    expect(pages).toHaveLength(10);
    expect(pages.flatMap((p) => p.events.map((e: Loose) => e.modelId))).toEqual(expected);
    expect(pages[0].pagination.next).toBeUndefined();
    expect(pages.at(-1).pagination.previous).toBeUndefined();
    expect(pages.at(-1).events).toHaveLength(1);

    // Back from the last page to the first with next: the same pages, in reverse.
    const back: Loose[] = [pages.at(-1)];
    let next: string | undefined = pages.at(-1).pagination.next;
    while (next && back.length < 20) {
      const page = await okBody(get(ent(S.root, `/auditLogEvents?${filter}&next=${q(next)}`)));
      back.push(page);
      next = page.pagination.next;
    }
    expect(back.reverse().map((p) => p.events.map((e: Loose) => e.modelId))).toEqual(
      pages.map((p) => p.events.map((e: Loose) => e.modelId)),
    );
    // A page reached with next points both ways exactly like the page it stands for.
    expect(back[3].pagination).toEqual(pages[3].pagination);

    // Ascending walks the same events oldest first.
    const ascending: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await okBody(
        get(
          ent(S.root, `/auditLogEvents?${filter}&sortOrder=ascending${cursor ? `&next=${q(cursor)}` : ''}`),
        ),
      );
      ascending.push(...page.events.map((e: Loose) => e.modelId));
      cursor = page.pagination.next;
    } while (cursor);
    expect(ascending).toEqual([...expected].reverse());
  });

  it('filters by originatingUserId, eventType, modelId and category, each repeatable', async () => {
    record({ actorUserId: S.ada, action: 'updateRecord', modelId: 'recA', timestamp: iso(now - HOUR) });
    record({ actorUserId: S.grace, action: 'deleteRecord', modelId: 'recB', timestamp: iso(now - 2 * HOUR) });
    record({
      actorUserId: S.grace,
      action: 'createWorkspace',
      category: 'workspace',
      modelType: 'workspace',
      modelId: 'wspC',
      timestamp: iso(now - 3 * HOUR),
    });
    const models = async (query: string) =>
      (await okBody(get(ent(S.root, `/auditLogEvents?${query}`)))).events.map((e: Loose) => e.modelId);
    expect(await models(`originatingUserId=${S.grace}`)).toEqual(['recB', 'wspC']);
    expect(await models(`originatingUserId[]=${S.grace}&originatingUserId[]=${S.ada}`)).toEqual([
      'recA',
      'recB',
      'wspC',
    ]);
    expect(await models('eventType=deleteRecord&eventType=updateRecord')).toEqual(['recA', 'recB']);
    expect(await models('modelId[]=wspC')).toEqual(['wspC']);
    expect(await models('category=workspace')).toEqual(['wspC']);
    expect(await models(`category=record&originatingUserId=${S.grace}`)).toEqual(['recB']);
    expect(await models('eventType=nothingLikeThis')).toEqual([]);
  });

  it('startTime is inclusive, endTime exclusive', async () => {
    const at = iso(now - 5 * HOUR);
    record({ modelId: 'recAtTheEdge', timestamp: at });
    const models = async (query: string) =>
      (await okBody(get(ent(S.root, `/auditLogEvents?originatingUserId=${S.bot}&${query}`)))).events.map(
        (e: Loose) => e.modelId,
      );
    expect(await models(`startTime=${q(at)}`)).toEqual(['recAtTheEdge']);
    expect(await models(`endTime=${q(at)}`)).toEqual([]);
    expect(await models(`startTime=${q(iso(now - 6 * HOUR))}&endTime=${q(iso(now - 5 * HOUR + 1))}`)).toEqual(
      ['recAtTheEdge'],
    );
  });

  it('pageSize defaults to 10, accepts 1 to 1000 and refuses the rest', async () => {
    for (let i = 0; i < 12; i++) record({ modelId: `r${i}`, timestamp: iso(now - (i + 1) * HOUR) });
    const byDefault = await okBody(get(ent(S.root, `/auditLogEvents?originatingUserId=${S.bot}`)));
    expect(byDefault.events).toHaveLength(10);
    expect(byDefault.pagination.previous).toEqual(expect.any(String));
    expect((await okBody(get(ent(S.root, '/auditLogEvents?pageSize=1000')))).events).toHaveLength(16);
    for (const bad of ['0', '1001', 'ten', '2.5', '-1']) {
      const reply = await get(ent(S.root, `/auditLogEvents?pageSize=${bad}`));
      expectRefused(reply, 422, 'INVALID_REQUEST_UNKNOWN');
      expect(reply.body.error.message).toContain('pageSize');
    }
  });

  it('refuses an unknown sortOrder, a filter of more than 100 values, an unknown category and bad times', async () => {
    const refusals: [string, string][] = [
      ['sortOrder=asc', 'sortOrder'],
      [Array.from({ length: 101 }, (_, i) => `modelId[]=rec${i}`).join('&'), 'modelId'],
      [Array.from({ length: 101 }, (_, i) => `eventType=t${i}`).join('&'), 'eventType'],
      ['category=nonsense', 'category'],
      ['startTime=yesterday', 'startTime'],
      ['endTime=2025-13-45T00:00:00Z', 'endTime'],
      [`startTime=${q(iso(now - HOUR))}&endTime=${q(iso(now - 2 * HOUR))}`, 'endTime'],
    ];
    for (const [query, named] of refusals) {
      const reply = await get(ent(S.root, `/auditLogEvents?${query}`));
      expectRefused(reply, 422, 'INVALID_REQUEST_UNKNOWN');
      expect(reply.body.error.message, query).toContain(named);
    }
    // 100 values are fine.
    const hundred = Array.from({ length: 100 }, (_, i) => `originatingUserId=usr${i}`).join('&');
    expect((await get(ent(S.root, `/auditLogEvents?${hundred}`))).status).toBe(200);
  });

  it('refuses cursors it did not mint, or minted for another account or sort order', async () => {
    for (let i = 0; i < 3; i++) record({ modelId: `c${i}`, timestamp: iso(now - (i + 1) * HOUR) });
    const first = await okBody(get(ent(S.root, '/auditLogEvents?pageSize=1')));
    const older: string = first.pagination.previous;
    expect(older).toEqual(expect.any(String));
    const bad = [
      `next=garbage!`,
      `next=${q(Buffer.from('{"v":1}').toString('base64url'))}`,
      `previous=${q('bm90IGEgY3Vyc29y')}`,
      `next=${q(older)}&sortOrder=ascending`,
      `next=${q(older)}&previous=${q(older)}`,
    ];
    for (const query of bad) {
      expectRefused(await get(ent(S.root, `/auditLogEvents?${query}`)), 422, 'INVALID_REQUEST_UNKNOWN');
    }
    // The root's cursor is not the descendant's.
    expectRefused(
      await get(ent(S.europe, `/auditLogEvents?next=${q(older)}`), EMILIE),
      422,
      'INVALID_REQUEST_UNKNOWN',
    );
  });

  it("a root account sees its organisation's events; a descendant only its own", async () => {
    record({ enterpriseAccountId: S.europe, modelId: 'recEurope', timestamp: iso(now - HOUR) });
    record({ enterpriseAccountId: S.partner, modelId: 'recPartner', timestamp: iso(now - HOUR) });
    const rootModels = (await okBody(get(ent(S.root, '/auditLogEvents?pageSize=100')))).events.map(
      (e: Loose) => e.modelId,
    );
    expect(rootModels).toContain('recEurope');
    expect(rootModels).not.toContain('recPartner');
    const europe = await okBody(get(ent(S.europe, '/auditLogEvents'), EMILIE));
    expect(europe.events.map((e: Loose) => e.modelId)).toEqual(['recEurope']);
    expect(europe.events[0].context).toMatchObject({
      enterpriseAccountId: S.root,
      descendantEnterpriseAccountId: S.europe,
    });
    // A root admin may read the descendant's log too.
    expect((await okBody(get(ent(S.europe, '/auditLogEvents')))).events).toHaveLength(1);
    const partner = await okBody(get(ent(S.partner, '/auditLogEvents'), PAT));
    expect(partner.events.map((e: Loose) => e.modelId)).toEqual(['recPartner']);
  });

  it('an event without an actor has an anonymous one; a deleted user keeps only the id', async () => {
    emulator.admin.trail.record({
      action: 'updateShare',
      category: 'sharing',
      modelId: 'shrSystem',
      modelType: 'share',
      enterpriseAccountId: S.root,
      timestamp: iso(now - HOUR),
    });
    record({ actorUserId: 'usrGone0000000001', modelId: 'recGone', timestamp: iso(now - 2 * HOUR) });
    const body = await okBody(get(ent(S.root, '/auditLogEvents?modelId=shrSystem&modelId=recGone')));
    expect(body.events.map((e: Loose) => e.actor)).toEqual([
      { type: 'anonymous' },
      { type: 'user', user: { id: 'usrGone0000000001' } },
    ]);
  });

  it('refuses a token without the scope, non-admins, admins of other accounts and no token', async () => {
    expectRefused(
      await get(ent(S.root, '/auditLogEvents'), NO_COMPLIANCE),
      403,
      'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
    );
    expectRefused(
      await get(ent(S.root, '/auditLogEvents'), ADA),
      403,
      'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
    );
    expectRefused(
      await get(ent(S.root, '/auditLogEvents'), PAT),
      403,
      'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
    );
    expectRefused(
      await get(ent(S.root, '/auditLogEvents'), EMILIE),
      403,
      'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
    );
    expectRefused(
      await get(ent('entNoSuchAccount1', '/auditLogEvents')),
      403,
      'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
    );
    expectRefused(
      await call(emulator, 'GET', ent(S.root, '/auditLogEvents'), { token: null }),
      401,
      'AUTHENTICATION_REQUIRED',
    );
  });
});

describe('audit log requests', () => {
  const create = (body: unknown, token?: string) => post(ent(S.root, '/auditLogs'), body, token);

  it('a request moves from pending to processing to done as the clock advances, then serves its file', async () => {
    const task = await okBody(create({ timePeriod: '2025-05' }));
    expect(task).toEqual({
      id: expect.stringMatching(/^alt/),
      state: 'pending',
      createdTime: NOW,
      createdByUserId: S.owner,
      timePeriod: '2025-05',
    });
    expect(emulator.admin.state.get('auditLogTask', task.id)).toMatchObject({
      enterpriseAccountId: S.root,
      createdByUserId: S.owner,
      timePeriod: '2025-05',
      filter: null,
    });
    const read = () => okBody(get(ent(S.root, `/auditLogs/${task.id}`)));
    emulator.clock.advance(TASK_PROCESSING_AFTER_MS - 1);
    expect((await read()).state).toBe('pending');
    emulator.clock.advance(1);
    expect((await read()).state).toBe('processing');
    emulator.clock.advance(TASK_DONE_AFTER_MS - TASK_PROCESSING_AFTER_MS - 1);
    expect((await read()).state).toBe('processing');
    emulator.clock.advance(1);
    const done = await read();
    expect(done).toEqual({
      id: task.id,
      state: 'done',
      createdTime: NOW,
      createdByUserId: S.owner,
      timePeriod: '2025-05',
      data: {
        expirationTime: iso(now + TASK_DONE_AFTER_MS + AUDIT_LOG_LINK_TTL_MS),
        logFileUrls: [`http://localhost/_emulator/downloads/${task.id}-1.json`],
      },
    });

    // The file: May's events (20 and 40 days before NOW), oldest first, served without a token.
    const file = await call(emulator, 'GET', new URL(done.data.logFileUrls[0]).pathname, { token: null });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toContain('application/json');
    expect(file.body).toMatchObject({ auditLogTaskId: task.id, timePeriod: '2025-05', part: 1, parts: 1 });
    expect(file.body.events.map((e: Loose) => [e.action, e.timestamp])).toEqual([
      ['updateShare', iso(now - 40 * DAY)],
      ['deleteBlockInstallation', iso(now - 20 * DAY)],
    ]);
    expect(file.body.events[0]).toMatchObject({ payloadVersion: '1.0', actor: { type: 'user' } });

    // The links expire at data.expirationTime (the upstream: "expire after 7 days"); the request stays done.
    emulator.clock.set(done.data.expirationTime);
    const expired = await call(emulator, 'GET', new URL(done.data.logFileUrls[0]).pathname, { token: null });
    expect(expired.status).toBe(410);
    expect((await read()).state).toBe('done');

    // The request itself was audited.
    const audited = await okBody(get(ent(S.root, '/auditLogEvents?eventType=createAuditLogRequest')));
    expect(audited.events[0]).toMatchObject({
      modelId: task.id,
      modelType: 'auditLogTask',
      payload: { timePeriod: '2025-05' },
    });
  });

  it('a day, a filter by event type, and a period long enough for several files', async () => {
    const day = await okBody(create({ timePeriod: iso(now - 20 * DAY).slice(0, 10) }));
    const filtered = await okBody(create({ timePeriod: '2025-05', filter: 'updateShare' }));
    expect(filtered.filter).toBe('updateShare');
    const busyDay = iso(now - 3 * DAY).slice(0, 10);
    emulator.admin.trail.recordMany(
      Array.from({ length: AUDIT_EVENTS_PER_FILE + 5 }, (_, i) => ({
        action: 'updateRecord',
        category: 'record',
        actorUserId: S.bot,
        modelId: `rec${i}`,
        modelType: 'record',
        enterpriseAccountId: S.root,
        timestamp: iso(Date.parse(`${busyDay}T00:00:00.000Z`) + i * 1000),
      })),
    );
    const busy = await okBody(create({ timePeriod: busyDay }));
    emulator.clock.advance(TASK_DONE_AFTER_MS);
    const fileOf = async (taskId: string, n = 0) => {
      const task = await okBody(get(ent(S.root, `/auditLogs/${taskId}`)));
      expect(task.state).toBe('done');
      return (await call(emulator, 'GET', new URL(task.data.logFileUrls[n]).pathname, { token: null })).body;
    };
    expect((await fileOf(day.id)).events.map((e: Loose) => e.action)).toEqual(['deleteBlockInstallation']);
    expect((await fileOf(filtered.id)).events.map((e: Loose) => e.action)).toEqual(['updateShare']);
    const busyTask = await okBody(get(ent(S.root, `/auditLogs/${busy.id}`)));
    expect(busyTask.data.logFileUrls).toHaveLength(2);
    const second = await fileOf(busy.id, 1);
    expect(second).toMatchObject({ part: 2, parts: 2 });
    expect(second.events).toHaveLength(5);
    expect(second.events.at(-1).modelId).toBe(`rec${AUDIT_EVENTS_PER_FILE + 4}`);
    expect(
      (await call(emulator, 'GET', `/_emulator/downloads/${busy.id}-3.json`, { token: null })).status,
    ).toBe(404);
  });

  it('ends in error for a period entirely past the retention window or not yet begun', async () => {
    const old = await okBody(create({ timePeriod: '2024-11' }));
    const future = await okBody(create({ timePeriod: '2025-07' }));
    const tomorrow = await okBody(create({ timePeriod: '2025-06-16' }));
    const partly = await okBody(create({ timePeriod: '2024-12' }));
    for (const task of [old, future, tomorrow, partly]) expect(task.state).toBe('pending');
    emulator.clock.advance(TASK_PROCESSING_AFTER_MS);
    const states = async () =>
      Promise.all(
        [old, future, tomorrow, partly].map(
          async (t) => (await okBody(get(ent(S.root, `/auditLogs/${t.id}`)))) as Loose,
        ),
      );
    const [o, f, t, p] = await states();
    // The upstream's error state carries `errorMessage`, a string, and no `error`.
    expect(o).toMatchObject({ state: 'error', errorMessage: expect.stringContaining('retention') });
    expect(o.error).toBeUndefined();
    expect(o.data).toBeUndefined();
    expect(f).toMatchObject({ state: 'error', errorMessage: expect.stringContaining('had not started') });
    expect(f.error).toBeUndefined();
    expect(t.state).toBe('error');
    expect(p.state).toBe('processing');
    emulator.clock.advance(TASK_DONE_AFTER_MS);
    expect((await states()).map((x) => x.state)).toEqual(['error', 'error', 'error', 'done']);
    expect(
      (await call(emulator, 'GET', `/_emulator/downloads/${old.id}-1.json`, { token: null })).status,
    ).toBe(404);
  });

  it('refuses bodies without a valid timePeriod, naming the field', async () => {
    for (const body of [
      {},
      { timePeriod: '2025-13' },
      { timePeriod: 'May 2025' },
      { timePeriod: '2025-02-30' },
    ]) {
      const reply = await create(body);
      expectRefused(reply, 422, 'INVALID_REQUEST_UNKNOWN');
      expect(reply.body.error.message, JSON.stringify(body)).toContain('timePeriod');
    }
    const extra = await create({ timePeriod: '2025-05', color: 'red' });
    expectRefused(extra, 422, 'INVALID_REQUEST_UNKNOWN');
    expect(extra.body.error.message).toContain('color');
    expect(emulator.admin.state.list('auditLogTask')).toEqual([]);
  });

  it('lists requests newest first, pageSize and numeric offset', async () => {
    const made: string[] = [];
    for (const period of ['2025-03', '2025-04', '2025-05']) {
      made.push((await okBody(create({ timePeriod: period }))).id);
      emulator.clock.advance(1000);
    }
    const first = await okBody(get(ent(S.root, '/auditLogs?pageSize=2')));
    expect(first.auditLogs.map((t: Loose) => t.id)).toEqual([made[2], made[1]]);
    expect(first.offset).toBe(2);
    const second = await okBody(get(ent(S.root, `/auditLogs?pageSize=2&offset=${first.offset}`)));
    expect(second.auditLogs.map((t: Loose) => t.id)).toEqual([made[0]]);
    expect(second.offset).toBeUndefined();
    expect((await okBody(get(ent(S.root, '/auditLogs')))).auditLogs).toHaveLength(3);
    for (const query of ['pageSize=0', 'pageSize=101', 'offset=-1', 'offset=abc']) {
      expectRefused(await get(ent(S.root, `/auditLogs?${query}`)), 422, 'INVALID_REQUEST_UNKNOWN');
    }
    // Another organisation's admin sees none of them.
    expect((await okBody(get(ent(S.partner, '/auditLogs'), PAT))).auditLogs).toEqual([]);
  });

  it('unknown or foreign requests are 404; scope and admin refusals are 403', async () => {
    const task = await okBody(create({ timePeriod: '2025-05' }));
    expectRefused(await get(ent(S.root, '/auditLogs/altNoSuchTask0001')), 404, 'NOT_FOUND');
    expectRefused(await get(ent(S.partner, `/auditLogs/${task.id}`), PAT), 404, 'NOT_FOUND');
    expectRefused(await get(ent(S.europe, `/auditLogs/${task.id}`), EMILIE), 404, 'NOT_FOUND');
    for (const token of [NO_COMPLIANCE, ADA, PAT]) {
      expectRefused(
        await get(ent(S.root, `/auditLogs/${task.id}`), token),
        403,
        'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
      );
      expectRefused(
        await get(ent(S.root, '/auditLogs'), token),
        403,
        'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
      );
      expectRefused(
        await create({ timePeriod: '2025-05' }, token),
        403,
        'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
      );
    }
    expect(emulator.admin.state.list('auditLogTask')).toHaveLength(1);
  });
});

/** The entries of a zip of stored (uncompressed) files. */
function unzip(bytes: Buffer): Map<string, string> {
  const files = new Map<string, string>();
  let at = 0;
  while (bytes.readUInt32LE(at) === 0x04034b50) {
    const method = bytes.readUInt16LE(at + 8);
    const size = bytes.readUInt32LE(at + 18);
    const nameLength = bytes.readUInt16LE(at + 26);
    const extra = bytes.readUInt16LE(at + 28);
    expect(method).toBe(0);
    const name = bytes.subarray(at + 30, at + 30 + nameLength).toString('utf8');
    const start = at + 30 + nameLength + extra;
    files.set(name, bytes.subarray(start, start + size).toString('utf8'));
    at = start + size;
  }
  return files;
}

describe('the export archive', () => {
  it('lists each entry in the central directory with its local header’s fields, and points at that header', () => {
    const files = [
      { name: 'Features.csv', data: Buffer.from('Name\nDark mode\n') },
      { name: 'Équipes (2).csv', data: Buffer.alloc(70_000, 'x') },
      { name: 'empty.csv', data: Buffer.alloc(0) },
    ];
    const zip = Buffer.from(zipStored(files, new Date('2025-06-01T12:34:56Z')));
    expect([...unzip(zip)]).toEqual(files.map((f) => [f.name, f.data.toString('utf8')]));
    const end = zip.length - 22;
    expect(zip.readUInt32LE(end)).toBe(0x06054b50);
    expect(zip.readUInt16LE(end + 8)).toBe(files.length);
    expect(zip.readUInt16LE(end + 10)).toBe(files.length);
    let at = zip.readUInt32LE(end + 16);
    expect(at + zip.readUInt32LE(end + 12)).toBe(end);
    for (const file of files) {
      expect(zip.readUInt32LE(at)).toBe(0x02014b50);
      expect(zip.readUInt16LE(at + 4)).toBe(20);
      const local = zip.readUInt32LE(at + 42);
      expect(zip.readUInt32LE(local)).toBe(0x04034b50);
      // Version needed, flags (UTF-8 names), method, time, date, CRC-32, sizes and name length: the same bytes.
      expect(zip.subarray(at + 6, at + 30)).toEqual(zip.subarray(local + 4, local + 28));
      expect(zip.readUInt16LE(local + 6)).toBe(0x0800);
      expect(zip.readUInt32LE(local + 18)).toBe(file.data.length);
      const nameLength = zip.readUInt16LE(at + 28);
      expect(zip.subarray(at + 46, at + 46 + nameLength).toString('utf8')).toBe(file.name);
      at += 46 + nameLength;
    }
    expect(at).toBe(end);
  });
});

describe('eDiscovery exports', () => {
  const create = (body: unknown, token?: string, account = S.root) =>
    post(ent(account, '/exports'), body, token);
  const read = (id: string, token?: string, account = S.root) =>
    okBody(get(ent(account, `/exports/${id}`), token));

  it('an export moves to done on the clock and serves the base as it was when requested', async () => {
    const started = await okBody(create({ baseId: S.roadmap }));
    expect(started).toEqual({
      id: expect.stringMatching(/^ett/),
      state: 'pending',
      createdTime: NOW,
      user: { id: S.owner, email: 'owner@sandbox.example.com', name: 'Sandbox Owner' },
      request: { baseId: S.roadmap, includeCsvFormat: false, shouldSendEmailOnCompletion: false },
    });
    expect(emulator.admin.state.get('export', started.id)).toMatchObject({
      enterpriseAccountId: S.root,
      userId: S.owner,
      request: { baseId: S.roadmap },
    });
    // Edited after the request: not in the export.
    const features = ids(emulator, 'Product Roadmap', 'Features');
    await okBody(
      post(`/v0/${features.base}/${features.table}`, { records: [{ fields: { Name: 'Too late' } }] }),
    );

    emulator.clock.advance(TASK_PROCESSING_AFTER_MS);
    expect((await read(started.id)).state).toBe('processing');
    emulator.clock.advance(TASK_DONE_AFTER_MS - TASK_PROCESSING_AFTER_MS);
    const done = await read(started.id);
    expect(done.state).toBe('done');
    expect(done.data).toEqual({
      expirationTime: iso(now + TASK_DONE_AFTER_MS + EXPORT_LINK_TTL_MS),
      jsonDownloadUrl: `http://localhost/_emulator/downloads/${started.id}.json`,
    });
    const file = await call(emulator, 'GET', new URL(done.data.jsonDownloadUrl).pathname, { token: null });
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({
      exportId: started.id,
      enterpriseAccountId: S.root,
      base: { id: S.roadmap, name: 'Product Roadmap' },
      exportedTime: NOW,
    });
    const tables = emulator.store.schema().tablesOfBase.get(S.roadmap) ?? [];
    expect(file.body.tables.map((t: Loose) => t.name)).toEqual(tables.map((t) => t.row.name));
    const exportedFeatures = file.body.tables.find((t: Loose) => t.id === features.table);
    expect(exportedFeatures.records).toHaveLength(emulator.store.records(features.table).length - 1);
    expect(exportedFeatures.records.map((r: Loose) => r.fields.Name)).not.toContain('Too late');
    expect(exportedFeatures.fields[0]).toEqual({
      id: expect.stringMatching(/^fld/),
      name: 'Name',
      type: 'singleLineText',
    });
    // No CSV was asked for.
    expect(
      (await call(emulator, 'GET', `/_emulator/downloads/${started.id}.csv.zip`, { token: null })).status,
    ).toBe(404);
  });

  it('with includeCsvFormat, a zip of one CSV per table; the links expire', async () => {
    const started = await okBody(
      create({ baseId: S.crm, includeCsvFormat: true, shouldSendEmailOnCompletion: true }),
    );
    expect(started.request).toEqual({
      baseId: S.crm,
      includeCsvFormat: true,
      shouldSendEmailOnCompletion: true,
    });
    // Not finished: nothing to download yet.
    expect(
      (await call(emulator, 'GET', `/_emulator/downloads/${started.id}.csv.zip`, { token: null })).status,
    ).toBe(404);
    emulator.clock.advance(TASK_DONE_AFTER_MS);
    const done = await read(started.id);
    expect(done.data.csvZipDownloadUrl).toBe(`http://localhost/_emulator/downloads/${started.id}.csv.zip`);
    const res = await emulator.app.request(new URL(done.data.csvZipDownloadUrl).pathname);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const files = unzip(Buffer.from(await res.arrayBuffer()));
    const tables = emulator.store.schema().tablesOfBase.get(S.crm) ?? [];
    expect([...files.keys()]).toEqual(tables.map((t) => `${t.row.name}.csv`));
    const companies = tables.find((t) => t.row.name === 'Companies')!;
    const csv = files.get('Companies.csv')!.trimEnd().split('\r\n');
    expect(csv[0]).toBe(
      companies.fields.map((f) => (/[",]/.test(f.name) ? `"${f.name}"` : f.name)).join(','),
    );
    expect(csv).toHaveLength(emulator.store.records(companies.row.id).length + 1);

    emulator.clock.advance(EXPORT_LINK_TTL_MS);
    const expired = await call(emulator, 'GET', `/_emulator/downloads/${started.id}.json`, { token: null });
    expect(expired.status).toBe(410);
    expect((await read(started.id)).state).toBe('done');
  });

  it('ends in error when the base is deleted before it finishes; a finished export stays done', async () => {
    const doomed = await okBody(create({ baseId: S.crm }));
    const finished = await okBody(create({ baseId: S.calendar }));
    emulator.clock.advance(TASK_DONE_AFTER_MS);
    expect((await read(finished.id)).state).toBe('done');
    // Crm was deleted through the API while its export ran, though first noticed once the export would have
    // finished (the audit trail says when); calendar after its export had been seen done.
    emulator.clock.set(iso(now + TASK_PROCESSING_AFTER_MS + 1000));
    expect((await call(emulator, 'DELETE', `/v0/meta/bases/${S.crm}`)).status).toBe(200);
    emulator.clock.set(iso(now + TASK_DONE_AFTER_MS + 1000));
    expect((await call(emulator, 'DELETE', `/v0/meta/bases/${S.calendar}`)).status).toBe(200);
    const failed = await read(doomed.id);
    expect(failed.state).toBe('error');
    // The upstream's `error` is the message, a string.
    expect(failed.error).toEqual(expect.stringContaining(S.crm));
    expect(failed.data).toBeUndefined();
    const kept = await read(finished.id);
    expect(kept.state).toBe('done');
    const file = await call(emulator, 'GET', `/_emulator/downloads/${finished.id}.json`, { token: null });
    expect(file.body.base.id).toBe(S.calendar);
    expect(
      (await call(emulator, 'GET', `/_emulator/downloads/${doomed.id}.json`, { token: null })).status,
    ).toBe(404);
  });

  it('a base deleted after the export finished, unseen until then, leaves it done', async () => {
    const started = await okBody(create({ baseId: S.roadmap }));
    emulator.clock.advance(TASK_DONE_AFTER_MS + 1000);
    expect((await call(emulator, 'DELETE', `/v0/meta/bases/${S.roadmap}`)).status).toBe(200);
    expect((await read(started.id)).state).toBe('done');
  });

  it('a base deleted while the export is still processing fails it at once', async () => {
    const started = await okBody(create({ baseId: S.roadmap }));
    emulator.clock.advance(TASK_PROCESSING_AFTER_MS + 1000);
    expect((await read(started.id)).state).toBe('processing');
    emulator.store.deleteBase(S.roadmap);
    expect((await read(started.id)).state).toBe('error');
    emulator.clock.advance(TASK_DONE_AFTER_MS);
    expect((await read(started.id)).state).toBe('error');
  });

  it('an unknown base, or one outside the accounts the admin administers, is 404 NOT_FOUND', async () => {
    const unknown = await create({ baseId: 'appNoSuchBase0001' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { type: 'NOT_FOUND' } });
    // Calendar moved to Partner Co: the root's admin no longer reaches it, Partner Co's admin does.
    emulator.store.moveBase(S.calendar, S.partnerWorkspace);
    expect((await create({ baseId: S.calendar })).body).toEqual({ error: { type: 'NOT_FOUND' } });
    expect((await create({ baseId: S.calendar }, PAT, S.partner)).status).toBe(200);
    // The descendant's admin reaches only the descendant's bases.
    expect((await create({ baseId: S.roadmap }, EMILIE, S.europe)).status).toBe(404);
    emulator.store.moveBase(S.crm, S.europeWorkspace);
    const europe = await okBody(create({ baseId: S.crm }, EMILIE, S.europe));
    expect(europe.user.id).toBe(S.emilie);
    expect(emulator.admin.state.get('export', europe.id)?.enterpriseAccountId).toBe(S.europe);
    // The root's admin sees the descendant's export; the descendant's admin not the root's.
    const rootExport = await okBody(create({ baseId: S.roadmap }));
    const rootList = (await okBody(get(ent(S.root, '/exports')))).exports.map((e: Loose) => e.id);
    expect(rootList).toEqual([rootExport.id, europe.id]);
    const europeList = (await okBody(get(ent(S.europe, '/exports'), EMILIE))).exports.map((e: Loose) => e.id);
    expect(europeList).toEqual([europe.id]);
    expectRefused(await get(ent(S.europe, `/exports/${rootExport.id}`), EMILIE), 404, 'NOT_FOUND');
    expectRefused(await get(ent(S.root, '/exports/ettNoSuchExport01')), 404, 'NOT_FOUND');
  });

  it('an export and the audit events of a user since deleted still name them with email and name', async () => {
    // The upstream's export `user` and audit `actor.user` carry an email (and a name); deleting the user does
    // not turn them into a bare id.
    emulator.store.moveBase(S.crm, S.europeWorkspace);
    const started = await okBody(create({ baseId: S.crm }, EMILIE, S.europe));
    const emilie = emulator.store.schema().userById.get(S.emilie)!;
    const named = { id: S.emilie, email: emilie.email, name: emilie.name };
    expect(started.user).toEqual(named);
    expect((await call(emulator, 'DELETE', ent(S.root, `/users/${S.emilie}`))).status).toBe(200);
    expect(emulator.store.schema().userById.has(S.emilie)).toBe(false);
    expect((await read(started.id)).user).toEqual(named);
    const listed = (await okBody(get(ent(S.root, '/exports')))).exports;
    expect(listed.find((e: Loose) => e.id === started.id).user).toEqual(named);
    const events = (await okBody(get(ent(S.root, `/auditLogEvents?originatingUserId=${S.emilie}`)))).events;
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expect(event.actor).toEqual({ type: 'user', user: named });
  });

  it('lists by state with pageSize and numeric offset', async () => {
    const a = await okBody(create({ baseId: S.roadmap }));
    emulator.clock.advance(10_000);
    const b = await okBody(create({ baseId: S.crm }));
    const c = await okBody(create({ baseId: S.calendar }));
    const listed = async (query: string) =>
      (await okBody(get(ent(S.root, `/exports?${query}`)))).exports.map((e: Loose) => e.id);
    expect(await listed('state=processing')).toEqual([a.id]);
    expect(await listed('state=pending')).toEqual([c.id, b.id]);
    emulator.clock.advance(TASK_DONE_AFTER_MS - 10_000);
    expect(await listed('state=done')).toEqual([a.id]);
    expect(await listed('state=processing')).toEqual([c.id, b.id]);
    expect(await listed('state=error')).toEqual([]);
    const page = await okBody(get(ent(S.root, '/exports?pageSize=2')));
    expect(page.exports.map((e: Loose) => e.id)).toEqual([c.id, b.id]);
    expect(page.offset).toBe(2);
    const rest = await okBody(get(ent(S.root, '/exports?pageSize=2&offset=2')));
    expect(rest.exports.map((e: Loose) => [e.id, e.state])).toEqual([[a.id, 'done']]);
    expect(rest.offset).toBeUndefined();
    for (const query of ['state=finished', 'pageSize=101', 'pageSize=0', 'offset=1.5']) {
      expectRefused(await get(ent(S.root, `/exports?${query}`)), 422, 'INVALID_REQUEST_UNKNOWN');
    }
  });

  it('refuses invalid bodies naming the field, and tokens without the scope or admin rights', async () => {
    for (const [body, field] of [
      [{}, 'baseId'],
      [{ baseId: S.roadmap, includeCsvFormat: 'yes' }, 'includeCsvFormat'],
      [{ baseId: S.roadmap, format: 'pdf' }, 'format'],
    ] as const) {
      const reply = await create(body);
      expectRefused(reply, 422, 'INVALID_REQUEST_UNKNOWN');
      expect(reply.body.error.message).toContain(field);
    }
    // The audit log scope is not the exports scope.
    for (const token of [AUDIT_ONLY, NO_COMPLIANCE, ADA, PAT, EMILIE]) {
      expectRefused(
        await create({ baseId: S.roadmap }, token),
        403,
        'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
      );
      expectRefused(await get(ent(S.root, '/exports'), token), 403, 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND');
    }
    expect(emulator.admin.state.list('export')).toEqual([]);
  });
});

describe('GET changeEvents', () => {
  const changeEvents = (query = '', token?: string, account = S.root) =>
    okBody(get(ent(account, `/changeEvents${query ? `?${query}` : ''}`), token));

  it('answers the seeded events of the last 14 days, newest first', async () => {
    const body = await changeEvents();
    expect(body.events.map((e: Loose) => [e.objectId, e.actor.user.id, e.eventTimestamp])).toEqual([
      [S.roadmap, S.owner, iso(now - 2 * DAY)],
      [S.crm, S.ada, iso(now - 6 * DAY)],
    ]);
    expect(body.offset).toBeUndefined();
    // The 20-day-old one is past the 14 days even when startTime asks for it.
    expect((await changeEvents(`startTime=${q(iso(now - 30 * DAY))}`)).events).toHaveLength(2);
    emulator.clock.advance(CHANGE_EVENT_RETENTION_MS - 6 * DAY + 1);
    expect((await changeEvents()).events.map((e: Loose) => e.objectId)).toEqual([S.roadmap]);
  });

  it('one event per base per request, by the user who made it', async () => {
    const features = ids(emulator, 'Product Roadmap', 'Features');
    const posts = ids(emulator, 'Content Calendar', 'Posts');
    emulator.clock.advance(60_000);
    await okBody(
      post(`/v0/${features.base}/${features.table}`, {
        records: [{ fields: { Name: 'One' } }, { fields: { Name: 'Two' } }, { fields: { Name: 'Three' } }],
      }),
    );
    emulator.clock.advance(60_000);
    await okBody(post(`/v0/${posts.base}/${posts.table}`, { records: [{ fields: {} }] }));
    const body = await changeEvents();
    expect(body.events.slice(0, 2).map((e: Loose) => [e.objectId, e.eventTimestamp])).toEqual([
      [posts.base, iso(now + 120_000)],
      [features.base, iso(now + 60_000)],
    ]);
    expect(body.events).toHaveLength(4);
    // The inspection API shows the stored rows, newest first.
    const inspected = await call(emulator, 'GET', '/_emulator/state/change_events', { token: null });
    expect(inspected.status).toBe(200);
    expect(inspected.body.items[0]).toMatchObject({
      base_id: posts.base,
      actor_user_id: S.owner,
      id: body.events[0].id,
    });
    expect(emulator.admin.counts().change_events).toBe(5);
  });

  it('pages with an opaque offset and filters by time', async () => {
    const features = ids(emulator, 'Product Roadmap', 'Features');
    for (let i = 0; i < 5; i++) {
      emulator.clock.advance(60_000);
      await okBody(
        post(`/v0/${features.base}/${features.table}`, { records: [{ fields: { Name: `n${i}` } }] }),
      );
    }
    const seen: string[] = [];
    let offset: string | undefined;
    let pages = 0;
    do {
      const page = await changeEvents(`pageSize=3${offset ? `&offset=${q(offset)}` : ''}`);
      seen.push(...page.events.map((e: Loose) => e.eventTimestamp));
      offset = page.offset;
      pages++;
    } while (offset && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect([...seen].sort().reverse()).toEqual(seen);
    const window = await changeEvents(`startTime=${q(iso(now + 120_000))}&endTime=${q(iso(now + 240_000))}`);
    expect(window.events.map((e: Loose) => e.eventTimestamp)).toEqual([
      iso(now + 180_000),
      iso(now + 120_000),
    ]);
    expect((await changeEvents()).events).toHaveLength(7);

    for (const [query, type] of [
      ['offset=nonsense', 'INVALID_OFFSET_VALUE'],
      ['pageSize=101', 'INVALID_REQUEST_UNKNOWN'],
      ['pageSize=0', 'INVALID_REQUEST_UNKNOWN'],
      ['startTime=soon', 'INVALID_REQUEST_UNKNOWN'],
      [`startTime=${q(NOW)}&endTime=${q(NOW)}`, 'INVALID_REQUEST_UNKNOWN'],
    ]) {
      expectRefused(await get(ent(S.root, `/changeEvents?${query}`)), 422, type!);
    }
    // An offset is bound to its account.
    const first = await changeEvents('pageSize=1');
    expectRefused(
      await get(ent(S.europe, `/changeEvents?offset=${q(first.offset)}`), EMILIE),
      422,
      'INVALID_OFFSET_VALUE',
    );
  });

  it("a descendant sees its own bases' events; the root its whole organisation's", async () => {
    emulator.store.moveBase(S.crm, S.europeWorkspace);
    const contacts = ids(emulator, 'Sales CRM', 'Contacts');
    emulator.clock.advance(1000);
    await okBody(post(`/v0/${contacts.base}/${contacts.table}`, { records: [{ fields: {} }] }));
    const europe = await changeEvents('', EMILIE, S.europe);
    // The seeded crm event was filed under the root before the move; the new one belongs to Europe.
    expect(europe.events.map((e: Loose) => [e.objectId, e.eventTimestamp])).toEqual([
      [S.crm, iso(now + 1000)],
    ]);
    const root = await changeEvents();
    expect(root.events.map((e: Loose) => e.objectId)).toEqual([S.crm, S.roadmap, S.crm]);
    expect((await changeEvents('', PAT, S.partner)).events).toEqual([]);
  });

  it('refuses a token without the scope, non-admins and admins of other accounts', async () => {
    for (const token of [NO_COMPLIANCE, AUDIT_ONLY, ADA, PAT, EMILIE]) {
      expectRefused(
        await get(ent(S.root, '/changeEvents'), token),
        403,
        'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
      );
    }
  });
});

describe('reseeding', () => {
  it('clears tasks and change events, and seeds the change events again', async () => {
    const features = ids(emulator, 'Product Roadmap', 'Features');
    await okBody(
      post(`/v0/${features.base}/${features.table}`, { records: [{ fields: { Name: 'Gone soon' } }] }),
    );
    const task = await okBody(post(ent(S.root, '/auditLogs'), { timePeriod: '2025-05' }));
    const started = await okBody(post(ent(S.root, '/exports'), { baseId: S.roadmap }));
    expect((await okBody(get(ent(S.root, '/changeEvents')))).events).toHaveLength(3);
    const reset = await call(emulator, 'POST', '/_emulator/reset', { body: {}, token: null });
    expect(reset.status).toBe(200);
    expect(reset.body.state.counts).toMatchObject({ audit_log_requests: 0, ediscovery_exports: 0 });
    const root = emulator.admin.state.list('account').find((a) => a.name === ADMIN_SEED.rootAccount)!.id;
    expect((await okBody(get(ent(root, '/changeEvents')))).events).toHaveLength(2);
    expectRefused(await get(ent(root, `/auditLogs/${task.id}`)), 404, 'NOT_FOUND');
    expectRefused(await get(ent(root, `/exports/${started.id}`)), 404, 'NOT_FOUND');
    expect(
      (await call(emulator, 'GET', `/_emulator/downloads/${started.id}.json`, { token: null })).status,
    ).toBe(404);
  });

  it('a sandbox file keeps them across restarts, and a restart that reseeds clears them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compliance-'));
    const db = join(dir, 'store.db');
    try {
      const first = makeEmulator({ db });
      const features = ids(first, 'Product Roadmap', 'Features');
      await call(first, 'POST', `/v0/${features.base}/${features.table}`, {
        body: { records: [{ fields: {} }] },
      });
      const started = (await call(first, 'POST', ent(S.root, '/exports'), { body: { baseId: S.roadmap } }))
        .body;
      first.close();

      const again = makeEmulator({ db });
      again.clock.advance(TASK_DONE_AFTER_MS);
      expect((await call(again, 'GET', ent(S.root, '/changeEvents'))).body.events).toHaveLength(3);
      expect((await call(again, 'GET', ent(S.root, `/exports/${started.id}`))).body.state).toBe('done');
      expect(
        (await call(again, 'GET', `/_emulator/downloads/${started.id}.json`, { token: null })).status,
      ).toBe(200);
      again.close();

      const reseeded = makeEmulator({ db, reset: true });
      expect((await call(reseeded, 'GET', ent(S.root, '/changeEvents'))).body.events).toHaveLength(2);
      expect((await call(reseeded, 'GET', ent(S.root, `/exports/${started.id}`))).status).toBe(404);
      // The same requests mint the same ids after a reseed; nothing of the old export may stick to the new one.
      await call(reseeded, 'POST', `/v0/${features.base}/${features.table}`, {
        body: { records: [{ fields: {} }] },
      });
      const fresh = (await call(reseeded, 'POST', ent(S.root, '/exports'), { body: { baseId: S.crm } })).body;
      expect(fresh.id).toBe(started.id);
      reseeded.clock.advance(TASK_DONE_AFTER_MS);
      const file = await call(reseeded, 'GET', `/_emulator/downloads/${fresh.id}.json`, { token: null });
      expect(file.body.base.id).toBe(S.crm);
      reseeded.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
