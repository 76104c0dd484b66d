/**
 * Turns database records into the JSON objects Pylon's API returns (snake_case, RFC 3339 times, mini objects),
 * and builds its success envelopes (its error envelope is in errors.ts).
 */

import type { TeamView } from './database.js';
import type {
  ContactRecord,
  IssueStatusRecord,
  IssueView,
  MessageView,
  OrgRecord,
  UserRecord,
} from './records.js';

/** RFC 3339 in UTC with whole seconds, the way upstream writes timestamps. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The issue's `link`. Upstream it opens the issue in the real product's web app (app.usepylon.com); an emulated
 * issue does not exist there, and the same number there is someone's real issue, so the emulator links to its
 * own view of the issue instead: the inspection item, which answers the issue with its messages and threads.
 * `origin` is the emulator's origin as the client reached it ('' gives a link relative to the emulator).
 */
export function issueLink(number: number, origin: string): string {
  return `${origin}/_emulator/state/issues/${number}`;
}

export type Json = Record<string, unknown>;

export function issueToWire(issue: IssueView, origin: string): Json {
  const out: Json = {
    id: issue.id,
    number: issue.number,
    title: issue.title,
    body_html: issue.bodyHtml,
    state: issue.state,
    type: issue.type,
    source: issue.source,
    link: issueLink(issue.number, origin),
    created_at: rfc3339(issue.createdAt),
    updated_at: rfc3339(issue.updatedAt),
    tags: issue.tags,
    custom_fields: issue.customFields,
    attachment_urls: issue.attachmentUrls,
    customer_portal_visible: issue.customerPortalVisible,
    author_unverified: false,
    number_of_touches: issue.numberOfTouches,
    csat_responses: issue.csatResponses,
    external_issues: [],
  };
  if (issue.latestMessageAt !== null) out.latest_message_time = rfc3339(issue.latestMessageAt);
  if (issue.firstResponseAt !== null) {
    out.first_response_time = rfc3339(issue.firstResponseAt);
    out.first_response_seconds = Math.round((issue.firstResponseAt - issue.createdAt) / 1000);
  }
  if (issue.resolvedAt !== null) {
    out.resolution_time = rfc3339(issue.resolvedAt);
    out.resolution_seconds = Math.max(0, Math.round((issue.resolvedAt - issue.createdAt) / 1000));
  }
  if (issue.accountId !== null) out.account = { id: issue.accountId };
  if (issue.assigneeId !== null) out.assignee = { id: issue.assigneeId, email: issue.assigneeEmail ?? '' };
  if (issue.requesterId !== null)
    out.requester = { id: issue.requesterId, email: issue.requesterEmail ?? '' };
  if (issue.teamId !== null) out.team = { id: issue.teamId };
  if (issue.chatPageUrl !== null) out.chat_widget_info = { page_url: issue.chatPageUrl };
  return out;
}

export function messageToWire(m: MessageView): Json {
  const author: Json = { name: m.authorName };
  if (m.authorUserId !== null) author.user = { id: m.authorUserId, email: m.authorEmail ?? '' };
  if (m.authorContactId !== null) author.contact = { id: m.authorContactId, email: m.authorEmail ?? '' };
  const out: Json = {
    id: m.id,
    message_html: m.html,
    is_private: m.isPrivate,
    source: m.source,
    timestamp: rfc3339(m.timestamp),
    author,
    file_urls: m.fileUrls,
  };
  if (m.threadId !== null) out.thread_id = m.threadId;
  return out;
}

export function contactToWire(c: ContactRecord): Json {
  const out: Json = {
    id: c.id,
    name: c.name,
    emails: c.emails,
    custom_fields: {},
    external_ids: [],
    integration_user_ids: [],
    phone_numbers: c.phoneNumbers,
    portal_role: c.portalRole,
  };
  if (c.emails[0] !== undefined) out.email = c.emails[0];
  if (c.accountId !== null) out.account = { id: c.accountId };
  if (c.avatarUrl !== null) out.avatar_url = c.avatarUrl;
  if (c.phoneNumbers[0] !== undefined) out.primary_phone_number = c.phoneNumbers[0];
  return out;
}

export function userToWire(u: UserRecord): Json {
  const out: Json = { id: u.id, name: u.name, emails: u.emails, role_id: u.roleId, status: u.status };
  if (u.emails[0] !== undefined) out.email = u.emails[0];
  if (u.avatarUrl !== null) out.avatar_url = u.avatarUrl;
  return out;
}

export function teamToWire(t: TeamView): Json {
  return { id: t.id, name: t.name, users: t.users.map((u) => ({ id: u.id, email: u.email ?? '' })) };
}

export function statusToWire(s: IssueStatusRecord): Json {
  return {
    slug: s.slug,
    label: s.label,
    category: s.category,
    is_default_status: s.isDefault,
    is_archived: s.isArchived,
  };
}

export function orgToWire(org: OrgRecord): Json {
  return { id: org.id, name: org.name };
}

export function dataEnvelope(data: unknown, requestId: string): Json {
  return { data, request_id: requestId };
}

/** Upstream sends a null cursor on the last page, though its schema calls the field a string. */
export function listEnvelope(data: unknown[], nextCursor: string | null, requestId: string): Json {
  return {
    data,
    pagination: { cursor: nextCursor, has_next_page: nextCursor !== null },
    request_id: requestId,
  };
}
