/**
 * The record comments endpoints: GET and POST .../{recordId}/comments, PATCH and DELETE
 * .../comments/{rowCommentId}. Reading needs data.recordComments:read and read access to the base; writing
 * needs data.recordComments:write and at least comment access; editing and deleting are for the author only.
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import type { Principal } from '../auth.js';
import {
  addComment,
  COMMENTS_MAX_PAGE_SIZE,
  listComments as commentsPage,
  editComment,
  removeComment,
} from '../comments.js';
import { errors, respond, type StoreError } from '../errors.js';
import type { RecordRow } from '../model.js';
import {
  type Ctx,
  createArea,
  isReservedBaseSegment,
  param,
  type RouteDeps,
  readBody,
  reply,
  route,
} from './common.js';
import { resolveTable } from './records.js';

export const COMMENTS_READ_SCOPE = 'data.recordComments:read';
export const COMMENTS_WRITE_SCOPE = 'data.recordComments:write';

export function commentsArea(deps: RouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { store, clock } = deps;

  /**
   * The caller and the record in the path, checked in the upstream's order: a reserved `baseId` segment (another
   * route family's path) is an unknown route; then token and scope, access to the base, table and record.
   */
  const target = (
    c: Ctx,
    write: boolean,
  ): Result<{ principal: Principal; record: RecordRow }, StoreError> => {
    const baseId = param(c, 'baseId');
    if (isReservedBaseSegment(baseId)) return err(errors.routeNotFound());
    const principal = deps.access.require(c, write ? COMMENTS_WRITE_SCOPE : COMMENTS_READ_SCOPE);
    if (!principal.ok) return principal;
    const base = deps.access.base(
      principal.value,
      baseId,
      write ? 'comment' : 'read',
      'comment on records in this base',
    );
    if (!base.ok) return base;
    const table = resolveTable(store, baseId, param(c, 'tableIdOrName'));
    if (!table) return err(errors.modelNotFound());
    const recordId = param(c, 'recordId');
    const record = store.record(table.row.id, recordId);
    if (!record) return err(errors.recordNotFound(recordId));
    return ok({ principal: principal.value, record });
  };

  function listComments(c: Ctx) {
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
    const page = commentsPage(store, t.value.record.id, pageSize, c.req.query('offset'));
    return reply(c, page);
  }

  async function createComment(c: Ctx) {
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
    return reply(c, created);
  }

  async function updateComment(c: Ctx) {
    const t = target(c, true);
    if (!t.ok) return respond(c, t.error);
    const body = await readBody(c, 'updateComment');
    if (!body.ok) return respond(c, body.error);
    const edited = editComment(
      store,
      t.value.record.id,
      param(c, 'rowCommentId'),
      t.value.principal.userId,
      String(body.value.text),
      clock.now().toISOString(),
    );
    return reply(c, edited);
  }

  function deleteComment(c: Ctx) {
    const t = target(c, true);
    if (!t.ok) return respond(c, t.error);
    const removed = removeComment(
      store,
      t.value.record.id,
      param(c, 'rowCommentId'),
      t.value.principal.userId,
    );
    return reply(c, removed);
  }

  route(area, STORE_OPERATIONS.ListComments, listComments);
  route(area, STORE_OPERATIONS.CreateComment, createComment);
  route(area, STORE_OPERATIONS.UpdateComment, updateComment);
  route(area, STORE_OPERATIONS.DeleteComment, deleteComment);
  return area;
}
