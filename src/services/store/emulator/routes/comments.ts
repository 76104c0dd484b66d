/**
 * The record comments endpoints: GET and POST .../{recordId}/comments, PATCH and DELETE
 * .../comments/{rowCommentId}. Reading needs data.recordComments:read and read access to the base; writing
 * needs data.recordComments:write and at least comment access; editing and deleting are for the author only.
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import type { Principal } from '../auth.js';
import { addComment, COMMENTS_MAX_PAGE_SIZE, editComment, listComments, removeComment } from '../comments.js';
import { errors, respond, type StoreError } from '../errors.js';
import type { RecordRow } from '../model.js';
import { type Ctx, isReservedBaseSegment, param, type RouteDeps, readBody, route } from './common.js';
import { resolveTable } from './records.js';

export const COMMENTS_READ_SCOPE = 'data.recordComments:read';
export const COMMENTS_WRITE_SCOPE = 'data.recordComments:write';

export function registerCommentRoutes(app: Hono<EmulatorEnv>, deps: RouteDeps): void {
  const { store, clock } = deps;

  const target = (
    c: Ctx,
    write: boolean,
  ): Result<{ principal: Principal; record: RecordRow }, StoreError> => {
    const principal = deps.access.require(c, write ? COMMENTS_WRITE_SCOPE : COMMENTS_READ_SCOPE);
    if (!principal.ok) return principal;
    const baseId = param(c, 'baseId');
    const base = deps.access.base(
      principal.value,
      baseId,
      write ? 'comment' : 'read',
      'comment on records in this base',
    );
    if (!base.ok) return base;
    const table = resolveTable(store, baseId, param(c, 'table'));
    if (!table) return err(errors.modelNotFound());
    const recordId = param(c, 'recordId');
    const record = store.record(table.row.id, recordId);
    if (!record) return err(errors.recordNotFound(recordId));
    return ok({ principal: principal.value, record });
  };

  const path = '/v0/:baseId/:table/:recordId/comments';

  route(app, 'GET', path, (c) => {
    if (isReservedBaseSegment(param(c, 'baseId'))) return respond(c, errors.routeNotFound());
    const t = target(c, false);
    if (!t.ok) return respond(c, t.error);
    const rawSize = c.req.query('pageSize');
    const pageSize =
      rawSize === undefined ? COMMENTS_MAX_PAGE_SIZE : /^\d{1,4}$/.test(rawSize) ? Number(rawSize) : 0;
    if (pageSize < 1 || pageSize > COMMENTS_MAX_PAGE_SIZE) {
      return respond(
        c,
        errors.invalidRequest(`pageSize must be an integer from 1 to ${COMMENTS_MAX_PAGE_SIZE}.`),
      );
    }
    const page = listComments(store, t.value.record.id, pageSize, c.req.query('offset'));
    return page.ok ? c.json(page.value) : respond(c, page.error);
  });

  route(app, 'POST', path, async (c) => {
    if (isReservedBaseSegment(param(c, 'baseId'))) return respond(c, errors.routeNotFound());
    const t = target(c, true);
    if (!t.ok) return respond(c, t.error);
    const body = await readBody(c, 'createComment');
    if (!body.ok) return respond(c, body.error);
    const parent = typeof body.value.parentCommentId === 'string' ? body.value.parentCommentId : undefined;
    const created = addComment(
      store,
      t.value.record.id,
      t.value.principal.userId,
      String(body.value.text),
      parent,
      clock.now().toISOString(),
    );
    return created.ok ? c.json(created.value) : respond(c, created.error);
  });

  route(app, 'PATCH', `${path}/:commentId`, async (c) => {
    if (isReservedBaseSegment(param(c, 'baseId'))) return respond(c, errors.routeNotFound());
    const t = target(c, true);
    if (!t.ok) return respond(c, t.error);
    const body = await readBody(c, 'updateComment');
    if (!body.ok) return respond(c, body.error);
    const edited = editComment(
      store,
      t.value.record.id,
      param(c, 'commentId'),
      t.value.principal.userId,
      String(body.value.text),
      clock.now().toISOString(),
    );
    return edited.ok ? c.json(edited.value) : respond(c, edited.error);
  });

  route(app, 'DELETE', `${path}/:commentId`, (c) => {
    if (isReservedBaseSegment(param(c, 'baseId'))) return respond(c, errors.routeNotFound());
    const t = target(c, true);
    if (!t.ok) return respond(c, t.error);
    const removed = removeComment(store, t.value.record.id, param(c, 'commentId'), t.value.principal.userId);
    return removed.ok ? c.json(removed.value) : respond(c, removed.error);
  });
}
