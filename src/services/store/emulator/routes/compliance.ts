/**
 * Compliance routes of the enterprise API: the audit log (events, and the legacy audit log requests), eDiscovery
 * exports and change events, plus the unauthenticated downloads of finished tasks' files. Every endpoint needs
 * an admin of the enterprise account in the path and the endpoint's scope; a root account's answers cover its
 * whole organisation, a descendant's only itself.
 *
 *   GET  ENT/auditLogEvents             enterprise.auditLogs:read
 *   GET  ENT/auditLogs, ENT/auditLogs/{id}, POST ENT/auditLogs   enterprise.auditLogs:read
 *   GET  ENT/exports, ENT/exports/{id}, POST ENT/exports         enterprise.exports:manage
 *   GET  ENT/changeEvents               enterprise.changeEvents:read
 *   GET  /_emulator/downloads/{file}    no token
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import { parseAuditQuery } from '../admin/auditLog.js';
import { encodeOffset, parseChangeEventQuery } from '../admin/changeEvents.js';
import { type AdminRouteDeps, requireAdmin } from '../admin/guards.js';
import {
  DOWNLOADS_PREFIX,
  TASK_PAGE_SIZE_DEFAULT,
  TASK_PAGE_SIZE_MAX,
  TASK_STATES,
  type TaskState,
} from '../admin/tasks.js';
import { errors, respond, type StoreError } from '../errors.js';
import { arrayParam, type Ctx, createArea, originOf, param, readBody, route } from './common.js';

/** The first value of a query parameter. */
function one(c: Ctx, name: string): string | undefined {
  return new URL(c.req.url).searchParams.get(name) ?? undefined;
}

/** pageSize (1 to 100, default 10) and a numeric offset (default 0) of the task lists. */
function taskPage(c: Ctx): Result<{ pageSize: number; offset: number }, StoreError> {
  const sizeRaw = one(c, 'pageSize');
  const pageSize = sizeRaw === undefined ? TASK_PAGE_SIZE_DEFAULT : Number(sizeRaw);
  if (!/^\d+$/.test(sizeRaw ?? '10') || pageSize < 1 || pageSize > TASK_PAGE_SIZE_MAX) {
    return err(errors.invalidRequest(`pageSize must be an integer from 1 to ${TASK_PAGE_SIZE_MAX}.`));
  }
  const offsetRaw = one(c, 'offset');
  const offset = offsetRaw === undefined ? 0 : Number(offsetRaw);
  if (!/^\d+$/.test(offsetRaw ?? '0') || !Number.isSafeInteger(offset)) {
    return err(errors.invalidRequest('offset must be a whole number: the offset a previous page returned.'));
  }
  return ok({ pageSize, offset });
}

/** A page of a task list under `key`, and the offset of the next page, a number, when there is one. */
function pageJson<T>(
  key: string,
  all: T[],
  page: { pageSize: number; offset: number },
  json: (item: T) => unknown,
): Record<string, unknown> {
  const end = page.offset + page.pageSize;
  return { [key]: all.slice(page.offset, end).map(json), ...(end < all.length ? { offset: end } : {}) };
}

export function complianceArea(deps: AdminRouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { clock } = deps;
  const { log, tasks, changes } = deps.compliance;

  // --- audit log events ------------------------------------------------------------------------------------

  function listAuditLogEvents(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.auditLogs:read');
    if (!admin.ok) return respond(c, admin.error);
    const query = parseAuditQuery(
      { one: (name) => one(c, name), many: (name) => arrayParam(c, name) },
      admin.value.account,
      clock.now(),
    );
    if (!query.ok) return respond(c, query.error);
    const page = log.page(query.value);
    return c.json({
      events: page.rows.map((row) => log.eventJson(row)),
      pagination: {
        ...(page.next === undefined ? {} : { next: page.next }),
        ...(page.previous === undefined ? {} : { previous: page.previous }),
      },
    });
  }

  // --- legacy audit log requests ---------------------------------------------------------------------------

  async function createAuditLogRequest(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.auditLogs:read');
    if (!admin.ok) return respond(c, admin.error);
    const body = await readBody(c, 'createAuditLogRequest');
    if (!body.ok) return respond(c, body.error);
    const created = tasks.createAuditLogTask(
      admin.value.account,
      admin.value.principal.userId,
      body.value as { timePeriod: string; filter?: string },
    );
    if (!created.ok) return respond(c, created.error);
    return c.json(tasks.auditLogJson(created.value, originOf(c)));
  }

  function listAuditLogRequests(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.auditLogs:read');
    if (!admin.ok) return respond(c, admin.error);
    const page = taskPage(c);
    if (!page.ok) return respond(c, page.error);
    const origin = originOf(c);
    const all = tasks.auditLogTasks(admin.value.account);
    return c.json(pageJson('auditLogs', all, page.value, (doc) => tasks.auditLogJson(doc, origin)));
  }

  function getAuditLogRequest(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.auditLogs:read');
    if (!admin.ok) return respond(c, admin.error);
    const doc = tasks.auditLogTask(admin.value.account, param(c, 'enterpriseAuditLogTaskId'));
    if (!doc) return respond(c, { status: 404, type: 'NOT_FOUND' });
    return c.json(tasks.auditLogJson(doc, originOf(c)));
  }

  // --- eDiscovery exports ----------------------------------------------------------------------------------

  async function createEdiscoveryExport(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.exports:manage');
    if (!admin.ok) return respond(c, admin.error);
    const body = await readBody(c, 'createEdiscoveryExport');
    if (!body.ok) return respond(c, body.error);
    const origin = originOf(c);
    const created = tasks.createExport(
      admin.value.account,
      admin.value.principal.userId,
      body.value as { baseId: string; includeCsvFormat?: boolean; shouldSendEmailOnCompletion?: boolean },
      origin,
    );
    if (!created.ok) return respond(c, created.error);
    return c.json(tasks.exportJson(created.value, origin));
  }

  function listEdiscoveryExports(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.exports:manage');
    if (!admin.ok) return respond(c, admin.error);
    const stateFilter = one(c, 'state');
    if (stateFilter !== undefined && !(TASK_STATES as readonly string[]).includes(stateFilter)) {
      return respond(c, errors.invalidRequest('state must be one of pending, processing, error, done.'));
    }
    const page = taskPage(c);
    if (!page.ok) return respond(c, page.error);
    const origin = originOf(c);
    const all = tasks
      .exports(admin.value.account)
      .filter(
        (doc) => stateFilter === undefined || tasks.exportStatus(doc).state === (stateFilter as TaskState),
      );
    return c.json(pageJson('exports', all, page.value, (doc) => tasks.exportJson(doc, origin)));
  }

  function getEdiscoveryExport(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.exports:manage');
    if (!admin.ok) return respond(c, admin.error);
    const doc = tasks.exportDoc(admin.value.account, param(c, 'enterpriseTaskId'));
    if (!doc) return respond(c, { status: 404, type: 'NOT_FOUND' });
    return c.json(tasks.exportJson(doc, originOf(c)));
  }

  // --- change events ---------------------------------------------------------------------------------------

  function listChangeEvents(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.changeEvents:read');
    if (!admin.ok) return respond(c, admin.error);
    const query = parseChangeEventQuery((name) => one(c, name), admin.value.account, clock.now());
    if (!query.ok) return respond(c, query.error);
    const page = changes.page(query.value);
    const last = page.rows.at(-1);
    return c.json({
      events: page.rows.map((row) => changes.eventJson(row)),
      ...(page.more && last ? { offset: encodeOffset(admin.value.account.id, last) } : {}),
    });
  }

  // --- downloads of finished tasks -------------------------------------------------------------------------

  function downloadTaskFile(c: Ctx) {
    const file = param(c, 'file');
    const found = tasks.download(file);
    if (!found.ok) {
      return found.status === 410
        ? respond(c, { status: 410, type: 'DOWNLOAD_EXPIRED', message: `The link to ${file} has expired.` })
        : respond(c, { status: 404, type: 'NOT_FOUND', message: `No finished task file ${file}.` });
    }
    const body = typeof found.body === 'string' ? found.body : new Uint8Array(found.body).buffer;
    return c.body(body, 200, {
      'content-type': found.type,
      'content-disposition': `attachment; filename="${found.name}"`,
    });
  }

  route(area, STORE_OPERATIONS.ListAuditLogEvents, listAuditLogEvents);
  route(area, STORE_OPERATIONS.CreateAuditLogRequest, createAuditLogRequest);
  route(area, STORE_OPERATIONS.ListAuditLogRequests, listAuditLogRequests);
  route(area, STORE_OPERATIONS.GetAuditLogRequest, getAuditLogRequest);
  route(area, STORE_OPERATIONS.CreateEdiscoveryExport, createEdiscoveryExport);
  route(area, STORE_OPERATIONS.ListEdiscoveryExports, listEdiscoveryExports);
  route(area, STORE_OPERATIONS.GetEdiscoveryExport, getEdiscoveryExport);
  route(area, STORE_OPERATIONS.ListChangeEvents, listChangeEvents);
  // Emulator-only, under /_emulator: the files finished tasks link to (no token, like the upstream's links).
  route(area, { method: 'GET', path: `${DOWNLOADS_PREFIX}/{file}` }, downloadTaskFile);
  return area;
}
