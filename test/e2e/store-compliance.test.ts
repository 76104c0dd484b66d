// The eight compliance tools end to end: the SDK's MCP client -> Switchboard over Streamable HTTP -> the store
// emulator on loopback, on a manual clock so the asynchronous tasks finish when the test says. Each tool's
// result, the exact upstream request the emulator logged, and the emulator's state afterwards; the schema-mode
// tools in both modes; refusals surfaced as tool errors (an unknown base's 404, a token without the scope, an
// audit log request for a period past retention ending in error) and bad arguments refused before sending.
// One emulator and one client for the file: the tests run in order and build on each other.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ManualClock, manualClock } from '../../src/emulation/clock.js';
import { requestBodyDocument } from '../../src/runtime/schemaMode.js';
import type { AuditLogTaskDoc, ExportDoc } from '../../src/services/store/emulator/admin/model.js';
import {
  TASK_DONE_AFTER_MS,
  TASK_PROCESSING_AFTER_MS,
} from '../../src/services/store/emulator/admin/tasks.js';
import { ALL_SCOPES } from '../../src/services/store/emulator/auth.js';
import { ADMIN_SEED } from '../../src/services/store/emulator/seed/admin.js';
import { STORE_BODIES, type StoreBodyName } from '../../src/services/store/schemas/index.js';
import { type Connected, errorOf } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore, storeTools } from './storeHarness.js';

const T = (name: string) => `StoreApi.${name}`;
const json = (value: unknown) => JSON.stringify(value);
const ENT = '/v0/meta/enterpriseAccounts';
const NOW = '2025-06-15T12:00:00.000Z';
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

const SCHEMA_MODE: Record<string, StoreBodyName> = {
  CreateAuditLogRequest: 'createAuditLogRequest',
  CreateEdiscoveryExport: 'createEdiscoveryExport',
};

/** The owner, but a token without any of the compliance scopes. */
const NO_COMPLIANCE_TOKEN = 'pat_e2e_no_compliance_scopes';

// biome-ignore lint/suspicious/noExplicitAny: tool results are asserted field by field.
type Loose = any;

describe('StoreApi audit log, eDiscovery and change event tools end to end', () => {
  let upstream: StoreEmulatorHandle;
  let clock: ManualClock;
  let mcp: Connected;
  let limited: Connected;
  let root: string;
  let owner: string;
  let roadmap: string;
  let features: string;
  let auditTaskId: string;
  let exportId: string;

  const { call, ok, exec, lastRequest } = storeTools(
    () => mcp,
    () => upstream,
  );

  beforeAll(async () => {
    clock = manualClock(NOW);
    upstream = await startStore({
      clock,
      tokens: [
        {
          token: NO_COMPLIANCE_TOKEN,
          scopes: ALL_SCOPES.filter((s) => !/auditLogs|exports|changeEvents/.test(s)),
        },
      ],
    });
    mcp = await connectStore('http', upstream.env());
    limited = await connectStore('http', upstream.env({ STORE_ACCESS_TOKEN: NO_COMPLIANCE_TOKEN }));
    const { state, store } = upstream.emulator.admin.deps;
    root = state.list('account').find((a) => a.name === ADMIN_SEED.rootAccount)!.id;
    owner = store.schema().userByEmail.get('owner@sandbox.example.com')!.id;
    roadmap = store.schema().bases.find((b) => b.name === 'Product Roadmap')!.id;
    features = store
      .schema()
      .tablesOfBase.get(roadmap)!
      .find((t) => t.row.name === 'Features')!.row.id;
  });
  afterAll(async () => {
    await limited?.close();
    await mcp?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.clearLog());

  it('schema mode: CreateAuditLogRequest and CreateEdiscoveryExport return their body schema and call nothing', async () => {
    for (const [tool, body] of Object.entries(SCHEMA_MODE)) {
      const result = await ok(tool, { mode: 'get_request_schema' });
      expect(result.tool, tool).toBe(T(tool));
      expect(result.request_body, tool).toEqual(requestBodyDocument(STORE_BODIES[body]));
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('GetAuditLogEvents reads the seeded history, filters it and pages both ways', async () => {
    const all = await ok('GetAuditLogEvents', { enterprise_account_id: root });
    expect(all.events.map((e: Loose) => e.action)).toEqual([
      'deleteBlockInstallation',
      'updateShare',
      'addBaseCollaborators',
      'updateUser',
    ]);
    expect((await lastRequest()).path).toBe(`${ENT}/${root}/auditLogEvents`);

    const first = await ok('GetAuditLogEvents', {
      enterprise_account_id: root,
      page_size: 2,
      sort_order: 'ascending',
    });
    expect(first.events.map((e: Loose) => e.action)).toEqual(['updateUser', 'addBaseCollaborators']);
    expect(first.pagination.previous).toBeUndefined();
    expect((await lastRequest()).query).toEqual({ pageSize: '2', sortOrder: 'ascending' });
    const second = await ok('GetAuditLogEvents', {
      enterprise_account_id: root,
      page_size: 2,
      sort_order: 'ascending',
      next_page_token: first.pagination.next,
    });
    expect(second.events.map((e: Loose) => e.action)).toEqual(['updateShare', 'deleteBlockInstallation']);
    expect(second.pagination.next).toBeUndefined();
    expect((await lastRequest()).query).toMatchObject({ next: first.pagination.next });
    const back = await ok('GetAuditLogEvents', {
      enterprise_account_id: root,
      page_size: 2,
      sort_order: 'ascending',
      previous_event_marker: second.pagination.previous,
    });
    expect(back.events.map((e: Loose) => e.id)).toEqual(first.events.map((e: Loose) => e.id));
    expect((await lastRequest()).query).toMatchObject({ previous: second.pagination.previous });

    const filtered = await ok('GetAuditLogEvents', {
      enterprise_account_id: root,
      event_category: 'sharing',
      event_type: 'updateShare',
      filter_by_originating_user_id: owner,
      model_identifier: roadmap,
      start_time: iso(Date.parse(NOW) - 50 * DAY),
      end_time: NOW,
    });
    expect(filtered.events).toHaveLength(1);
    expect(filtered.events[0]).toMatchObject({
      action: 'updateShare',
      actor: { type: 'user', user: { id: owner, email: 'owner@sandbox.example.com' } },
      modelId: roadmap,
      payloadVersion: '1.0',
      context: { enterpriseAccountId: root, baseId: roadmap },
    });
    expect((await lastRequest()).query).toEqual({
      category: 'sharing',
      eventType: 'updateShare',
      originatingUserId: owner,
      modelId: roadmap,
      startTime: iso(Date.parse(NOW) - 50 * DAY),
      endTime: NOW,
    });
  });

  it('a record created with CreateStoreRecords shows up in GetAuditLogEvents and GetStoreChangeEvents', async () => {
    clock.advance(60_000);
    const created = await exec(
      'CreateStoreRecords',
      { base_id: roadmap, table_id_or_name: features },
      { records: [{ fields: { Name: 'Compliance e2e' } }] },
    );
    expect(created.records[0].id).toMatch(/^rec/);
    await upstream.clearLog();

    const audit = await ok('GetAuditLogEvents', { enterprise_account_id: root, event_type: 'createRecords' });
    expect(audit.events).toHaveLength(1);
    expect(audit.events[0]).toMatchObject({
      action: 'createRecords',
      modelId: features,
      modelType: 'table',
      timestamp: iso(Date.parse(NOW) + 60_000),
      payload: { records: [{ fields: { Name: 'Compliance e2e' } }] },
    });

    const changes = await ok('GetStoreChangeEvents', { enterprise_account_id: root, page_size_limit: 2 });
    expect(changes.events[0]).toMatchObject({
      type: 'base_modified',
      objectId: roadmap,
      objectType: 'base',
      actor: { type: 'user', user: { id: owner } },
      eventTimestamp: iso(Date.parse(NOW) + 60_000),
    });
    expect(changes.events).toHaveLength(2);
    expect(changes.offset).toEqual(expect.any(String));
    expect((await upstream.requests()).at(-1)).toMatchObject({
      method: 'GET',
      path: `${ENT}/${root}/changeEvents`,
      query: { pageSize: '2' },
    });
    const rest = await ok('GetStoreChangeEvents', {
      enterprise_account_id: root,
      page_size_limit: 2,
      pagination_offset: changes.offset,
      start_time: iso(Date.parse(NOW) - 10 * DAY),
    });
    expect(rest.events).toHaveLength(1);
    expect(rest.offset).toBeUndefined();
    expect((await lastRequest()).query).toEqual({
      pageSize: '2',
      offset: changes.offset,
      startTime: iso(Date.parse(NOW) - 10 * DAY),
    });
  });

  it('CreateAuditLogRequest, then RetrieveAuditLog follows it to done and its file holds the period', async () => {
    const task = await exec(
      'CreateAuditLogRequest',
      { enterprise_account_id: root },
      { timePeriod: '2025-05' },
    );
    expect(task).toMatchObject({
      id: expect.stringMatching(/^alt/),
      state: 'pending',
      timePeriod: '2025-05',
    });
    auditTaskId = task.id;
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${ENT}/${root}/auditLogs`,
      body: { timePeriod: '2025-05' },
      status: 200,
    });
    const docs = await upstream.state<AuditLogTaskDoc>('audit_log_requests');
    expect(docs.find((d) => d.id === task.id)).toMatchObject({
      enterpriseAccountId: root,
      createdByUserId: owner,
    });

    const read = () => ok('RetrieveAuditLog', { enterprise_account_id: root, audit_log_task_id: task.id });
    clock.advance(TASK_PROCESSING_AFTER_MS);
    expect((await read()).state).toBe('processing');
    clock.advance(TASK_DONE_AFTER_MS - TASK_PROCESSING_AFTER_MS);
    const done = await read();
    expect(done.state).toBe('done');
    expect(Date.parse(done.data.expirationTime)).toBeGreaterThan(clock.now().getTime());
    expect((await upstream.requests()).at(-1)!.path).toBe(`${ENT}/${root}/auditLogs/${task.id}`);
    const [url] = done.data.logFileUrls as string[];
    expect(url).toBe(`${upstream.url}/_emulator/downloads/${task.id}-1.json`);
    const file = (await (await fetch(url!)).json()) as Loose;
    expect(file.events.map((e: Loose) => e.action)).toEqual(['updateShare', 'deleteBlockInstallation']);
  });

  it('an audit log request for a period past retention ends in error; a bad period is refused before sending', async () => {
    const old = await exec(
      'CreateAuditLogRequest',
      { enterprise_account_id: root },
      { timePeriod: '2024-01' },
    );
    clock.advance(TASK_PROCESSING_AFTER_MS);
    const failed = await ok('RetrieveAuditLog', { enterprise_account_id: root, audit_log_task_id: old.id });
    // The upstream's error state: the message as `errorMessage`, a string.
    expect(failed).toMatchObject({ state: 'error', errorMessage: expect.stringContaining('retention') });
    expect(failed.error).toBeUndefined();
    expect(failed.data).toBeUndefined();
    await upstream.clearLog();

    const refused = await call('CreateAuditLogRequest', {
      mode: 'execute',
      enterprise_account_id: root,
      request_body: json({ timePeriod: '2025-13' }),
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(errorOf(refused))).toContain('timePeriod');
    expect(await upstream.requests()).toEqual([]);
  });

  it('RetrieveAuditLogRequests lists them newest first with a numeric offset', async () => {
    const page = await ok('RetrieveAuditLogRequests', {
      enterprise_account_id: root,
      audit_log_page_size: 1,
    });
    expect(page.auditLogs).toHaveLength(1);
    expect(page.auditLogs[0].timePeriod).toBe('2024-01');
    expect(page.offset).toBe(1);
    expect((await lastRequest()).query).toEqual({ pageSize: '1' });
    const next = await ok('RetrieveAuditLogRequests', {
      enterprise_account_id: root,
      audit_log_page_size: 1,
      pagination_offset: page.offset,
    });
    expect(next.auditLogs.map((t: Loose) => t.id)).toEqual([auditTaskId]);
    expect(next.offset).toBeUndefined();
    expect((await lastRequest()).query).toEqual({ pageSize: '1', offset: '1' });
  });

  it('CreateEdiscoveryExport, GetEdiscoveryExportsStatus by state, GetEdiscoveryExportStatus when done', async () => {
    const started = await exec(
      'CreateEdiscoveryExport',
      { enterprise_account_id: root },
      { baseId: roadmap, includeCsvFormat: true },
    );
    expect(started).toMatchObject({
      id: expect.stringMatching(/^ett/),
      state: 'pending',
      user: { id: owner, email: 'owner@sandbox.example.com', name: 'Sandbox Owner' },
      request: { baseId: roadmap, includeCsvFormat: true, shouldSendEmailOnCompletion: false },
    });
    exportId = started.id;
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${ENT}/${root}/exports`,
      body: { baseId: roadmap, includeCsvFormat: true },
    });
    expect((await upstream.state<ExportDoc>('ediscovery_exports')).map((e) => e.id)).toEqual([exportId]);

    const pending = await ok('GetEdiscoveryExportsStatus', {
      enterprise_account_id: root,
      ediscovery_export_state: 'pending',
      result_page_size: 5,
      pagination_offset: 0,
    });
    expect(pending.exports.map((e: Loose) => e.id)).toEqual([exportId]);
    expect((await lastRequest()).query).toEqual({ state: 'pending', pageSize: '5', offset: '0' });
    clock.advance(TASK_DONE_AFTER_MS);
    const none = await ok('GetEdiscoveryExportsStatus', {
      enterprise_account_id: root,
      ediscovery_export_state: 'pending',
    });
    expect(none.exports).toEqual([]);

    const done = await ok('GetEdiscoveryExportStatus', {
      enterprise_account_id: root,
      enterprise_task_id: exportId,
    });
    expect(done.state).toBe('done');
    expect(done.data).toEqual({
      expirationTime: expect.any(String),
      jsonDownloadUrl: `${upstream.url}/_emulator/downloads/${exportId}.json`,
      csvZipDownloadUrl: `${upstream.url}/_emulator/downloads/${exportId}.csv.zip`,
    });
    expect((await upstream.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${ENT}/${root}/exports`,
      `GET ${ENT}/${root}/exports/${exportId}`,
    ]);
    const file = (await (await fetch(done.data.jsonDownloadUrl)).json()) as Loose;
    expect(file.base).toMatchObject({ id: roadmap, name: 'Product Roadmap' });
    const exported = file.tables.find((t: Loose) => t.id === features);
    expect(exported.records.map((r: Loose) => r.fields.Name)).toContain('Compliance e2e');
    const zip = await fetch(done.data.csvZipDownloadUrl);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(Buffer.from(await zip.arrayBuffer()).readUInt32LE(0)).toBe(0x04034b50);
  });

  it('an unknown base is the upstream 404; a token without the scope gets 403; bad arguments never leave', async () => {
    const unknown = await call('CreateEdiscoveryExport', {
      mode: 'execute',
      enterprise_account_id: root,
      request_body: json({ baseId: 'appNoSuchBase0001' }),
    });
    expect(unknown.isError).toBe(true);
    expect(errorOf(unknown)).toMatchObject({ status: 404, upstream_code: 'NOT_FOUND' });
    expect(await lastRequest()).toMatchObject({ path: `${ENT}/${root}/exports`, status: 404 });
    expect((await upstream.state<ExportDoc>('ediscovery_exports')).map((e) => e.id)).toEqual([exportId]);

    for (const [tool, args] of [
      ['GetAuditLogEvents', { enterprise_account_id: root }],
      ['GetStoreChangeEvents', { enterprise_account_id: root }],
      ['GetEdiscoveryExportStatus', { enterprise_account_id: root, enterprise_task_id: exportId }],
    ] as const) {
      const refused = await call(tool, args, limited);
      expect(refused.isError, tool).toBe(true);
      expect(errorOf(refused)).toMatchObject({
        status: 403,
        upstream_code: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
      });
    }
    expect((await upstream.requests()).map((r) => r.status)).toEqual([403, 403, 403]);

    const tooMany = await call('GetAuditLogEvents', { enterprise_account_id: root, page_size: 1001 });
    expect(tooMany.isError).toBe(true);
    expect(errorOf(tooMany).issues?.map((i) => i.field)).toEqual(['page_size']);
    const backwards = await call('GetStoreChangeEvents', {
      enterprise_account_id: root,
      start_time: NOW,
      end_time: iso(Date.parse(NOW) - DAY),
    });
    expect(backwards.isError).toBe(true);
    expect(errorOf(backwards).issues?.map((i) => i.field)).toEqual(['end_time']);
    expect(await upstream.requests()).toEqual([]);
  });
});
