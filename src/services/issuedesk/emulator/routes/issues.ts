/**
 * The issues area: GetIssues (a required time window of at most 30 days, newest first), GetIssue by id or
 * number, UpdateIssue, CreateIssueNote (internal notes only), GetIssueMessages, and GetIssueStatuses.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { decodeCursor, encodeCursor, parseLimit } from '../../../../emulation/pagination.js';
import { ISSUEDESK_OPERATIONS } from '../../endpoints.js';
import { errors } from '../errors.js';
import { parseIssuePatch, parseIssueWindow, parseNoteInput } from '../requestBodies.js';
import { issueToWire, messageToWire, statusToWire } from '../wire.js';
import {
  applied,
  type Ctx,
  createArea,
  dataResponse,
  found,
  listResponse,
  originOf,
  param,
  Refusal,
  type RouteDeps,
  readJsonObject,
  valid,
} from './common.js';

export function issuesRoutes({ database, clock }: RouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const now = () => clock.now().getTime();
  const issueOf = (c: Ctx) => found(database.findIssue(param(c, 'id')), errors.issueNotFound);

  function getIssues(c: Ctx) {
    const window = valid(parseIssueWindow(c.req.query('start_time'), c.req.query('end_time')));
    const limit = valid(parseLimit(c.req.query('limit')));
    const rawCursor = c.req.query('cursor');
    let after: { createdAt: number; id: string } | undefined;
    if (rawCursor !== undefined && rawCursor !== '') {
      const key = decodeCursor('issues', rawCursor, ['number', 'string']);
      if (!key) throw new Refusal(errors.invalidCursor());
      after = { createdAt: key[0] as number, id: key[1] as string };
    }
    const page = database.issuesInWindow(window.startMs, window.endMs, after, limit);
    const last = page.items.at(-1);
    const next = page.hasMore && last ? encodeCursor('issues', [last.createdAt, last.id]) : null;
    const origin = originOf(c);
    return listResponse(
      c,
      page.items.map((issue) => issueToWire(issue, origin)),
      next,
    );
  }

  function getIssue(c: Ctx) {
    return dataResponse(c, issueToWire(issueOf(c), originOf(c)));
  }

  // The issue is looked up before the body is read: an unknown issue is a 404 whatever the body.
  async function updateIssue(c: Ctx) {
    issueOf(c);
    const patch = valid(parseIssuePatch(await readJsonObject(c)));
    const updated = applied(database.updateIssue(param(c, 'id'), patch, now()));
    return dataResponse(c, issueToWire(updated, originOf(c)));
  }

  async function createIssueNote(c: Ctx) {
    issueOf(c);
    const note = valid(parseNoteInput(await readJsonObject(c)));
    const created = applied(database.addNote(param(c, 'id'), note, now(), randomUUID));
    return dataResponse(c, { id: created.id, issue_id: created.issueId });
  }

  function getIssueMessages(c: Ctx) {
    const issue = issueOf(c);
    const limit = valid(parseLimit(c.req.query('limit')));
    const rawCursor = c.req.query('cursor');
    let after: { timestamp: number; pos: number } | undefined;
    if (rawCursor !== undefined && rawCursor !== '') {
      const key = decodeCursor('messages', rawCursor, ['string', 'number', 'number']);
      // A cursor from another issue's messages is as meaningless here as a made-up one.
      if (!key || key[0] !== issue.id) throw new Refusal(errors.invalidCursor());
      after = { timestamp: key[1] as number, pos: key[2] as number };
    }
    const page = database.messagesOfIssue(issue.id, after, limit);
    const last = page.items.at(-1);
    const next = page.hasMore && last ? encodeCursor('messages', [issue.id, last.timestamp, last.pos]) : null;
    return listResponse(c, page.items.map(messageToWire), next);
  }

  function getIssueStatuses(c: Ctx) {
    return listResponse(c, database.statuses().map(statusToWire), null);
  }

  route(area, ISSUEDESK_OPERATIONS.GetIssues, getIssues);
  route(area, ISSUEDESK_OPERATIONS.GetIssue, getIssue);
  route(area, ISSUEDESK_OPERATIONS.UpdateIssue, updateIssue);
  route(area, ISSUEDESK_OPERATIONS.CreateIssueNote, createIssueNote);
  route(area, ISSUEDESK_OPERATIONS.GetIssueMessages, getIssueMessages);
  return route(area, ISSUEDESK_OPERATIONS.GetIssueStatuses, getIssueStatuses);
}
