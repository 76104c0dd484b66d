/**
 * State of the emulated issue desk in SQLite. Knows nothing of HTTP: callers pass validated inputs and get
 * records or StateErrors back. Every statement is prepared once, when the database is opened.
 */

import { err, ok, type Result } from '../../../emulation/result.js';
import { json, num, numOrNull, parseJson, type Row, str, strOrNull } from '../../../emulation/rows.js';
import { type SqliteDatabase, seedIfEmpty, writeTransaction } from '../../../emulation/sqlite.js';
import type {
  AccountRecord,
  ContactRecord,
  CustomFieldValue,
  IssueDeskData,
  IssueRecord,
  IssueStatusRecord,
  IssueType,
  IssueView,
  MessageRecord,
  MessageView,
  OrgRecord,
  StateError,
  ThreadRecord,
  UserRecord,
} from './records.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS accounts (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, domain TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS contacts (
  pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, email TEXT,
  emails TEXT NOT NULL, account_id TEXT REFERENCES accounts(id), avatar_url TEXT,
  portal_role TEXT NOT NULL, phone_numbers TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS users (
  pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, email TEXT,
  emails TEXT NOT NULL, avatar_url TEXT, role_id TEXT NOT NULL, status TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS teams (pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS team_members (
  team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  PRIMARY KEY (team_id, user_id)
);
CREATE TABLE IF NOT EXISTS issue_statuses (
  pos INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE, label TEXT NOT NULL, category TEXT NOT NULL,
  is_default INTEGER NOT NULL, is_archived INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS issues (
  id TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE, title TEXT NOT NULL, body_html TEXT NOT NULL,
  state TEXT NOT NULL REFERENCES issue_statuses(slug), type TEXT NOT NULL, source TEXT NOT NULL,
  created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL, latest_message_ms INTEGER,
  first_response_ms INTEGER, resolved_ms INTEGER, tags TEXT NOT NULL, custom_fields TEXT NOT NULL,
  account_id TEXT REFERENCES accounts(id), assignee_id TEXT REFERENCES users(id),
  requester_id TEXT REFERENCES contacts(id), team_id TEXT REFERENCES teams(id),
  customer_portal_visible INTEGER NOT NULL, attachment_urls TEXT NOT NULL, number_of_touches INTEGER NOT NULL,
  csat_responses TEXT NOT NULL, chat_page_url TEXT
);
CREATE INDEX IF NOT EXISTS issues_by_created ON issues(created_ms, id);
CREATE TABLE IF NOT EXISTS threads (
  id TEXT PRIMARY KEY, issue_id TEXT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  name TEXT NOT NULL, created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS threads_by_issue ON threads(issue_id, created_ms);
CREATE TABLE IF NOT EXISTS messages (
  pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
  issue_id TEXT NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  is_private INTEGER NOT NULL, html TEXT NOT NULL, source TEXT NOT NULL,
  author_user_id TEXT REFERENCES users(id), author_contact_id TEXT REFERENCES contacts(id),
  author_name TEXT NOT NULL, thread_id TEXT REFERENCES threads(id), timestamp_ms INTEGER NOT NULL,
  file_urls TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_issue ON messages(issue_id, timestamp_ms, pos);
`;

/** Tables in an order that respects foreign keys when emptying them. */
const TABLES_CHILD_FIRST = [
  'messages',
  'threads',
  'issues',
  'issue_statuses',
  'team_members',
  'teams',
  'users',
  'contacts',
  'accounts',
  'meta',
] as const;

const ISSUE_SELECT = `
SELECT i.*, u.email AS assignee_email, c.email AS requester_email
FROM issues i LEFT JOIN users u ON u.id = i.assignee_id LEFT JOIN contacts c ON c.id = i.requester_id`;

const MESSAGE_SELECT = `
SELECT m.*, COALESCE(u.email, c.email) AS author_email
FROM messages m LEFT JOIN users u ON u.id = m.author_user_id LEFT JOIN contacts c ON c.id = m.author_contact_id`;

function toIssueView(row: Row): IssueView {
  return {
    id: str(row, 'id'),
    number: num(row, 'number'),
    title: str(row, 'title'),
    bodyHtml: str(row, 'body_html'),
    state: str(row, 'state'),
    type: str(row, 'type') as IssueType,
    source: str(row, 'source') as IssueRecord['source'],
    createdAt: num(row, 'created_ms'),
    updatedAt: num(row, 'updated_ms'),
    latestMessageAt: numOrNull(row, 'latest_message_ms'),
    firstResponseAt: numOrNull(row, 'first_response_ms'),
    resolvedAt: numOrNull(row, 'resolved_ms'),
    tags: parseJson<string[]>(row.tags, []),
    customFields: parseJson<Record<string, CustomFieldValue>>(row.custom_fields, {}),
    accountId: strOrNull(row, 'account_id'),
    assigneeId: strOrNull(row, 'assignee_id'),
    requesterId: strOrNull(row, 'requester_id'),
    teamId: strOrNull(row, 'team_id'),
    customerPortalVisible: num(row, 'customer_portal_visible') === 1,
    attachmentUrls: parseJson<string[]>(row.attachment_urls, []),
    numberOfTouches: num(row, 'number_of_touches'),
    csatResponses: parseJson<IssueRecord['csatResponses']>(row.csat_responses, []),
    chatPageUrl: strOrNull(row, 'chat_page_url'),
    assigneeEmail: strOrNull(row, 'assignee_email'),
    requesterEmail: strOrNull(row, 'requester_email'),
  };
}

function issueParams(issue: IssueRecord): Row {
  return {
    id: issue.id,
    number: issue.number,
    title: issue.title,
    body_html: issue.bodyHtml,
    state: issue.state,
    type: issue.type,
    source: issue.source,
    created_ms: issue.createdAt,
    updated_ms: issue.updatedAt,
    latest_message_ms: issue.latestMessageAt,
    first_response_ms: issue.firstResponseAt,
    resolved_ms: issue.resolvedAt,
    tags: json(issue.tags),
    custom_fields: json(issue.customFields),
    account_id: issue.accountId,
    assignee_id: issue.assigneeId,
    requester_id: issue.requesterId,
    team_id: issue.teamId,
    customer_portal_visible: issue.customerPortalVisible ? 1 : 0,
    attachment_urls: json(issue.attachmentUrls),
    number_of_touches: issue.numberOfTouches,
    csat_responses: json(issue.csatResponses),
    chat_page_url: issue.chatPageUrl,
  };
}

function toMessageView(row: Row): MessageView {
  return {
    pos: num(row, 'pos'),
    id: str(row, 'id'),
    issueId: str(row, 'issue_id'),
    isPrivate: num(row, 'is_private') === 1,
    html: str(row, 'html'),
    source: str(row, 'source'),
    authorUserId: strOrNull(row, 'author_user_id'),
    authorContactId: strOrNull(row, 'author_contact_id'),
    authorName: str(row, 'author_name'),
    authorEmail: strOrNull(row, 'author_email'),
    threadId: strOrNull(row, 'thread_id'),
    timestamp: num(row, 'timestamp_ms'),
    fileUrls: parseJson<string[]>(row.file_urls, []),
  };
}

function messageParams(m: MessageRecord): Row {
  return {
    id: m.id,
    issue_id: m.issueId,
    is_private: m.isPrivate ? 1 : 0,
    html: m.html,
    source: m.source,
    author_user_id: m.authorUserId,
    author_contact_id: m.authorContactId,
    author_name: m.authorName,
    thread_id: m.threadId,
    timestamp_ms: m.timestamp,
    file_urls: json(m.fileUrls),
  };
}

function toContact(row: Row): ContactRecord & { pos: number } {
  return {
    pos: num(row, 'pos'),
    id: str(row, 'id'),
    name: str(row, 'name'),
    emails: parseJson<string[]>(row.emails, []),
    accountId: strOrNull(row, 'account_id'),
    avatarUrl: strOrNull(row, 'avatar_url'),
    portalRole: str(row, 'portal_role') as ContactRecord['portalRole'],
    phoneNumbers: parseJson<string[]>(row.phone_numbers, []),
  };
}

function toUser(row: Row): UserRecord & { pos: number } {
  return {
    pos: num(row, 'pos'),
    id: str(row, 'id'),
    name: str(row, 'name'),
    emails: parseJson<string[]>(row.emails, []),
    avatarUrl: strOrNull(row, 'avatar_url'),
    roleId: str(row, 'role_id'),
    status: str(row, 'status'),
  };
}

function toStatus(row: Row): IssueStatusRecord {
  return {
    slug: str(row, 'slug'),
    label: str(row, 'label'),
    category: str(row, 'category') as IssueStatusRecord['category'],
    isDefault: num(row, 'is_default') === 1,
    isArchived: num(row, 'is_archived') === 1,
  };
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

export type Positioned<T> = T & { pos: number };

export interface TeamMember {
  id: string;
  email: string | null;
}

export interface TeamView {
  pos: number;
  id: string;
  name: string;
  users: TeamMember[];
}

/** Fields a caller may change on an issue; absent = unchanged, null = remove (assignee and team only). */
export interface IssuePatch {
  state?: string;
  title?: string;
  assigneeId?: string | null;
  teamId?: string | null;
  accountId?: string;
  requesterId?: string;
  tags?: string[];
  customFields?: CustomFieldValue[];
  customerPortalVisible?: boolean;
  type?: IssueType;
}

export interface NoteInput {
  bodyHtml: string;
  threadId?: string;
  messageId?: string;
  threadName?: string;
  userId?: string;
  attachmentUrls?: string[];
}

export interface IssueDeskCounts {
  issues: number;
  messages: number;
  contacts: number;
  users: number;
  teams: number;
}

/** Who internal notes are attributed to when no user_id is given: the API token itself. */
export const TOKEN_AUTHOR_NAME = 'Sandbox API token';

const DEFAULT_THREAD_NAME = 'Internal notes';

function notFound(message: string): { ok: false; error: StateError } {
  return err({ kind: 'not_found', message });
}

function invalid(message: string): { ok: false; error: StateError } {
  return err({ kind: 'invalid', message });
}

/** Positive integers only: an issue number is never zero, signed, or written with leading zeros. */
const ISSUE_NUMBER = /^[1-9]\d{0,15}$/;

export class IssueDeskDatabase {
  readonly db: SqliteDatabase;
  readonly #s;

  constructor(db: SqliteDatabase) {
    this.db = db;
    db.exec(SCHEMA);
    const p = (sql: string) => db.prepare(sql);
    this.#s = {
      metaGet: p('SELECT value FROM meta WHERE key = ?').pluck(),
      metaSet: p(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      count: {
        issues: p('SELECT COUNT(*) FROM issues').pluck(),
        messages: p('SELECT COUNT(*) FROM messages').pluck(),
        contacts: p('SELECT COUNT(*) FROM contacts').pluck(),
        users: p('SELECT COUNT(*) FROM users').pluck(),
        teams: p('SELECT COUNT(*) FROM teams').pluck(),
      },
      deleteAll: TABLES_CHILD_FIRST.map((t) => p(`DELETE FROM ${t}`)),
      insertAccount: p('INSERT INTO accounts (id, name, domain) VALUES (@id, @name, @domain)'),
      insertContact:
        p(`INSERT INTO contacts (id, name, email, emails, account_id, avatar_url, portal_role, phone_numbers)
        VALUES (@id, @name, @email, @emails, @account_id, @avatar_url, @portal_role, @phone_numbers)`),
      insertUser: p(`INSERT INTO users (id, name, email, emails, avatar_url, role_id, status)
        VALUES (@id, @name, @email, @emails, @avatar_url, @role_id, @status)`),
      insertTeam: p('INSERT INTO teams (id, name) VALUES (?, ?)'),
      insertMember: p('INSERT INTO team_members (team_id, user_id, pos) VALUES (?, ?, ?)'),
      insertStatus: p(
        'INSERT INTO issue_statuses (slug, label, category, is_default, is_archived) VALUES (?, ?, ?, ?, ?)',
      ),
      insertIssue:
        p(`INSERT INTO issues (id, number, title, body_html, state, type, source, created_ms, updated_ms,
          latest_message_ms, first_response_ms, resolved_ms, tags, custom_fields, account_id, assignee_id,
          requester_id, team_id, customer_portal_visible, attachment_urls, number_of_touches, csat_responses,
          chat_page_url)
        VALUES (@id, @number, @title, @body_html, @state, @type, @source, @created_ms, @updated_ms,
          @latest_message_ms, @first_response_ms, @resolved_ms, @tags, @custom_fields, @account_id, @assignee_id,
          @requester_id, @team_id, @customer_portal_visible, @attachment_urls, @number_of_touches, @csat_responses,
          @chat_page_url)`),
      updateIssue:
        p(`UPDATE issues SET title = @title, state = @state, type = @type, updated_ms = @updated_ms,
          resolved_ms = @resolved_ms, tags = @tags, custom_fields = @custom_fields, account_id = @account_id,
          assignee_id = @assignee_id, requester_id = @requester_id, team_id = @team_id,
          customer_portal_visible = @customer_portal_visible
        WHERE id = @id`),
      touchIssue: p('UPDATE issues SET updated_ms = ? WHERE id = ?'),
      insertThread: p(
        'INSERT INTO threads (id, issue_id, name, created_ms) VALUES (@id, @issue_id, @name, @created_ms)',
      ),
      insertMessage: p(`INSERT INTO messages (id, issue_id, is_private, html, source, author_user_id,
          author_contact_id, author_name, thread_id, timestamp_ms, file_urls)
        VALUES (@id, @issue_id, @is_private, @html, @source, @author_user_id, @author_contact_id, @author_name,
          @thread_id, @timestamp_ms, @file_urls)`),
      statuses: p('SELECT * FROM issue_statuses ORDER BY pos'),
      issueById: p(`${ISSUE_SELECT} WHERE i.id = ?`),
      issueByNumber: p(`${ISSUE_SELECT} WHERE i.number = ?`),
      issuesWindowFirst: p(`${ISSUE_SELECT} WHERE i.created_ms >= @start AND i.created_ms <= @end
        ORDER BY i.created_ms DESC, i.id DESC LIMIT @limit`),
      issuesWindowAfter: p(`${ISSUE_SELECT} WHERE i.created_ms >= @start AND i.created_ms <= @end
        AND (i.created_ms, i.id) < (@after_ms, @after_id)
        ORDER BY i.created_ms DESC, i.id DESC LIMIT @limit`),
      issuesByNumber: p(`${ISSUE_SELECT} ORDER BY i.number LIMIT ? OFFSET ?`),
      threadOfIssue: p('SELECT * FROM threads WHERE id = ? AND issue_id = ?'),
      threadsOfIssue: p('SELECT * FROM threads WHERE issue_id = ? ORDER BY created_ms, id'),
      defaultThread: p('SELECT * FROM threads WHERE issue_id = ? ORDER BY created_ms, id LIMIT 1'),
      messageById: p(`${MESSAGE_SELECT} WHERE m.id = ?`),
      messagesFirst: p(`${MESSAGE_SELECT} WHERE m.issue_id = @issue_id
        ORDER BY m.timestamp_ms, m.pos LIMIT @limit`),
      messagesAfter:
        p(`${MESSAGE_SELECT} WHERE m.issue_id = @issue_id AND (m.timestamp_ms, m.pos) > (@after_ms, @after_pos)
        ORDER BY m.timestamp_ms, m.pos LIMIT @limit`),
      messagesAll: p(`${MESSAGE_SELECT} ORDER BY m.pos LIMIT ? OFFSET ?`),
      messagesOfIssueAll: p(
        `${MESSAGE_SELECT} WHERE m.issue_id = ? ORDER BY m.timestamp_ms, m.pos LIMIT ? OFFSET ?`,
      ),
      messagesOfIssueCount: p('SELECT COUNT(*) FROM messages WHERE issue_id = ?').pluck(),
      contactsAfter: p('SELECT * FROM contacts WHERE pos > ? ORDER BY pos LIMIT ?'),
      contactsAll: p('SELECT * FROM contacts ORDER BY pos'),
      contactById: p('SELECT * FROM contacts WHERE id = ?'),
      accountById: p('SELECT * FROM accounts WHERE id = ?'),
      usersAfter: p('SELECT * FROM users WHERE pos > ? ORDER BY pos LIMIT ?'),
      userById: p('SELECT * FROM users WHERE id = ?'),
      teamsAfter: p('SELECT * FROM teams WHERE pos > ? ORDER BY pos LIMIT ?'),
      teamById: p('SELECT * FROM teams WHERE id = ?'),
      teamsAll: p('SELECT * FROM teams ORDER BY pos'),
      usersAll: p('SELECT * FROM users ORDER BY pos'),
      teamMembers: p(`SELECT u.id, u.email FROM team_members m JOIN users u ON u.id = m.user_id
        WHERE m.team_id = ? ORDER BY m.pos`),
    };
  }

  /** True until data has been written (a fresh file or an in-memory database). */
  isEmpty(): boolean {
    return this.#s.metaGet.get('org') === undefined;
  }

  /** Seeds with what `build` makes if the database is empty, or always when `reset` (sqlite.ts seedIfEmpty). */
  seedIfEmpty(build: () => IssueDeskData, reset: boolean): boolean {
    return seedIfEmpty(this.db, {
      reset,
      isEmpty: () => this.isEmpty(),
      seed: () => this.replaceAll(build()),
    });
  }

  /** Replaces everything with `data` in one transaction: either all of it lands or none. */
  replaceAll(data: IssueDeskData): void {
    const s = this.#s;
    writeTransaction(this.db, () => {
      for (const del of s.deleteAll) del.run();
      s.metaSet.run('org', json(data.org));
      s.metaSet.run('seed', json({ seed: data.seed, scale: data.scale }));
      for (const st of data.statuses) {
        s.insertStatus.run(st.slug, st.label, st.category, st.isDefault ? 1 : 0, st.isArchived ? 1 : 0);
      }
      for (const a of data.accounts) s.insertAccount.run({ id: a.id, name: a.name, domain: a.domain });
      for (const c of data.contacts) {
        s.insertContact.run({
          id: c.id,
          name: c.name,
          email: c.emails[0] ?? null,
          emails: json(c.emails),
          account_id: c.accountId,
          avatar_url: c.avatarUrl,
          portal_role: c.portalRole,
          phone_numbers: json(c.phoneNumbers),
        });
      }
      for (const u of data.users) {
        s.insertUser.run({
          id: u.id,
          name: u.name,
          email: u.emails[0] ?? null,
          emails: json(u.emails),
          avatar_url: u.avatarUrl,
          role_id: u.roleId,
          status: u.status,
        });
      }
      for (const t of data.teams) {
        s.insertTeam.run(t.id, t.name);
        for (const [i, userId] of t.memberIds.entries()) s.insertMember.run(t.id, userId, i);
      }
      for (const issue of data.issues) s.insertIssue.run(issueParams(issue));
      for (const t of data.threads) {
        s.insertThread.run({ id: t.id, issue_id: t.issueId, name: t.name, created_ms: t.createdAt });
      }
      for (const m of data.messages) s.insertMessage.run(messageParams(m));
    });
  }

  org(): OrgRecord {
    return parseJson<OrgRecord>(this.#s.metaGet.get('org'), { id: '', name: '' });
  }

  seedInfo(): { seed: number; scale: number } | undefined {
    const raw = this.#s.metaGet.get('seed');
    return raw === undefined
      ? undefined
      : parseJson<{ seed: number; scale: number }>(raw, { seed: 0, scale: 0 });
  }

  counts(): IssueDeskCounts {
    const c = this.#s.count;
    return {
      issues: Number(c.issues.get()),
      messages: Number(c.messages.get()),
      contacts: Number(c.contacts.get()),
      users: Number(c.users.get()),
      teams: Number(c.teams.get()),
    };
  }

  statuses(): IssueStatusRecord[] {
    return (this.#s.statuses.all() as Row[]).map(toStatus);
  }

  /** Slugs an issue may be moved to: every status that is not archived. */
  settableStates(): string[] {
    return this.statuses()
      .filter((st) => !st.isArchived)
      .map((st) => st.slug);
  }

  /** Looks an issue up by its ID, or by its number when the value is a plain positive integer. */
  findIssue(idOrNumber: string): IssueView | undefined {
    const byId = this.#s.issueById.get(idOrNumber) as Row | undefined;
    if (byId) return toIssueView(byId);
    if (!ISSUE_NUMBER.test(idOrNumber)) return undefined;
    const byNumber = this.#s.issueByNumber.get(Number(idOrNumber)) as Row | undefined;
    return byNumber ? toIssueView(byNumber) : undefined;
  }

  /** Issues created within [startMs, endMs], newest first, continuing after `after` when given. */
  issuesInWindow(
    startMs: number,
    endMs: number,
    after: { createdAt: number; id: string } | undefined,
    limit: number,
  ): Page<IssueView> {
    const params = { start: startMs, end: endMs, limit: limit + 1 };
    const rows = (
      after
        ? this.#s.issuesWindowAfter.all({ ...params, after_ms: after.createdAt, after_id: after.id })
        : this.#s.issuesWindowFirst.all(params)
    ) as Row[];
    return { items: rows.slice(0, limit).map(toIssueView), hasMore: rows.length > limit };
  }

  issuesByNumber(offset: number, limit: number): IssueView[] {
    return (this.#s.issuesByNumber.all(limit, offset) as Row[]).map(toIssueView);
  }

  updateIssue(idOrNumber: string, patch: IssuePatch, nowMs: number): Result<IssueView, StateError> {
    // Read and written under one write lock: another process's change to other fields is never overwritten.
    return writeTransaction(this.db, () => this.#updateIssue(idOrNumber, patch, nowMs));
  }

  #updateIssue(idOrNumber: string, patch: IssuePatch, nowMs: number): Result<IssueView, StateError> {
    const current = this.findIssue(idOrNumber);
    if (!current) return notFound('Issue not found');
    // A body with nothing to change (only nulls or unknown fields) is not an update, so updated_at stays.
    if (Object.keys(patch).length === 0) return ok(current);
    const next: IssueRecord = { ...current };

    if (patch.state !== undefined) {
      const states = this.settableStates();
      if (!states.includes(patch.state)) {
        return invalid(`Invalid state "${patch.state}". Valid states: ${states.join(', ')}`);
      }
      next.state = patch.state;
      // Resolution follows closing: set when an issue is closed, cleared when it is reopened.
      if (patch.state === 'closed' && current.state !== 'closed') next.resolvedAt = nowMs;
      if (patch.state !== 'closed') next.resolvedAt = null;
    }
    if (patch.title !== undefined) next.title = patch.title;
    if (patch.assigneeId !== undefined) {
      if (patch.assigneeId !== null && !this.#s.userById.get(patch.assigneeId)) {
        return invalid(
          `User not found: "${patch.assigneeId}" (assignee_id must be a user ID, or "" to unassign)`,
        );
      }
      next.assigneeId = patch.assigneeId;
    }
    if (patch.teamId !== undefined) {
      if (patch.teamId !== null && !this.#s.teamById.get(patch.teamId)) {
        return invalid(
          `Team not found: "${patch.teamId}" (team_id must be a team ID, or "" to remove the team)`,
        );
      }
      next.teamId = patch.teamId;
    }
    if (patch.accountId !== undefined) {
      if (!this.#s.accountById.get(patch.accountId))
        return invalid(`Account not found: "${patch.accountId}"`);
      next.accountId = patch.accountId;
    }
    if (patch.requesterId !== undefined) {
      if (!this.#s.contactById.get(patch.requesterId))
        return invalid(`Contact not found: "${patch.requesterId}"`);
      next.requesterId = patch.requesterId;
    }
    if (patch.tags !== undefined) next.tags = [...new Set(patch.tags)];
    if (patch.customFields !== undefined) {
      const fields = { ...current.customFields };
      for (const f of patch.customFields) {
        // A field sent with neither value nor values is unset, as upstream documents.
        if (f.value === undefined && f.values === undefined) delete fields[f.slug];
        else fields[f.slug] = f;
      }
      next.customFields = fields;
    }
    if (patch.customerPortalVisible !== undefined) next.customerPortalVisible = patch.customerPortalVisible;
    if (patch.type !== undefined) {
      if (current.type === 'ticket' && patch.type === 'conversation') {
        return invalid('Cannot change the type of a ticket back to conversation');
      }
      next.type = patch.type;
    }
    next.updatedAt = nowMs;
    this.#s.updateIssue.run(issueParams(next));
    return ok(this.findIssue(current.id) as IssueView);
  }

  /** Adds an internal note; `newId` mints IDs so the caller decides between random and reproducible ones. */
  addNote(
    issueIdOrNumber: string,
    note: NoteInput,
    nowMs: number,
    newId: () => string,
  ): Result<MessageView, StateError> {
    // One write lock for the checks and the writes: two processes adding the first note of an issue at once
    // make one default thread, not two.
    return writeTransaction(this.db, () => this.#addNote(issueIdOrNumber, note, nowMs, newId));
  }

  #addNote(
    issueIdOrNumber: string,
    note: NoteInput,
    nowMs: number,
    newId: () => string,
  ): Result<MessageView, StateError> {
    const issue = this.findIssue(issueIdOrNumber);
    if (!issue) return notFound('Issue not found');
    let author: (UserRecord & { pos: number }) | undefined;
    if (note.userId !== undefined) {
      const row = this.#s.userById.get(note.userId) as Row | undefined;
      if (!row) return invalid(`User not found: "${note.userId}"`);
      author = toUser(row);
    }
    let threadId: string | undefined;
    if (note.threadId !== undefined) {
      if (!this.#s.threadOfIssue.get(note.threadId, issue.id)) {
        return invalid(`Thread not found on this issue: "${note.threadId}"`);
      }
      threadId = note.threadId;
    } else if (note.messageId !== undefined) {
      const row = this.#s.messageById.get(note.messageId) as Row | undefined;
      const target = row ? toMessageView(row) : undefined;
      if (!target || target.issueId !== issue.id)
        return invalid(`Message not found on this issue: "${note.messageId}"`);
      if (!target.isPrivate || target.threadId === null) {
        return invalid(
          `Message "${note.messageId}" is not an internal note; notes can only reply to internal notes`,
        );
      }
      threadId = target.threadId;
    }
    const message: MessageRecord = {
      id: newId(),
      issueId: issue.id,
      isPrivate: true,
      html: note.bodyHtml,
      source: 'api',
      authorUserId: author?.id ?? null,
      authorContactId: null,
      authorName: author?.name ?? TOKEN_AUTHOR_NAME,
      threadId: null,
      timestamp: nowMs,
      fileUrls: note.attachmentUrls ?? [],
    };
    writeTransaction(this.db, () => {
      if (threadId === undefined) {
        const existing = this.#s.defaultThread.get(issue.id) as Row | undefined;
        if (existing) threadId = str(existing, 'id');
        else {
          threadId = newId();
          this.#s.insertThread.run({
            id: threadId,
            issue_id: issue.id,
            name: note.threadName ?? DEFAULT_THREAD_NAME,
            created_ms: nowMs,
          });
        }
      }
      message.threadId = threadId;
      this.#s.insertMessage.run(messageParams(message));
      this.#s.touchIssue.run(nowMs, issue.id);
    });
    return ok(toMessageView(this.#s.messageById.get(message.id) as Row));
  }

  message(id: string): MessageView | undefined {
    const row = this.#s.messageById.get(id) as Row | undefined;
    return row ? toMessageView(row) : undefined;
  }

  /** Messages of one issue, oldest first, continuing after the (timestamp, pos) of the last one served. */
  messagesOfIssue(
    issueId: string,
    after: { timestamp: number; pos: number } | undefined,
    limit: number,
  ): Page<MessageView> {
    const rows = (
      after
        ? this.#s.messagesAfter.all({
            issue_id: issueId,
            after_ms: after.timestamp,
            after_pos: after.pos,
            limit: limit + 1,
          })
        : this.#s.messagesFirst.all({ issue_id: issueId, limit: limit + 1 })
    ) as Row[];
    return { items: rows.slice(0, limit).map(toMessageView), hasMore: rows.length > limit };
  }

  /** For inspection: all messages in insertion order, or one issue's in conversation order. */
  messages(offset: number, limit: number, issueId?: string): { total: number; items: MessageView[] } {
    if (issueId !== undefined) {
      return {
        total: Number(this.#s.messagesOfIssueCount.get(issueId)),
        items: (this.#s.messagesOfIssueAll.all(issueId, limit, offset) as Row[]).map(toMessageView),
      };
    }
    return {
      total: this.counts().messages,
      items: (this.#s.messagesAll.all(limit, offset) as Row[]).map(toMessageView),
    };
  }

  contactsAfter(afterPos: number, limit: number): Page<Positioned<ContactRecord>> {
    const rows = this.#s.contactsAfter.all(afterPos, limit + 1) as Row[];
    return { items: rows.slice(0, limit).map(toContact), hasMore: rows.length > limit };
  }

  /** Every contact in list order; search filters run over this (contact counts stay small). */
  allContacts(): Positioned<ContactRecord>[] {
    return (this.#s.contactsAll.all() as Row[]).map(toContact);
  }

  contact(id: string): Positioned<ContactRecord> | undefined {
    const row = this.#s.contactById.get(id) as Row | undefined;
    return row ? toContact(row) : undefined;
  }

  account(id: string): AccountRecord | undefined {
    const row = this.#s.accountById.get(id) as Row | undefined;
    return row ? { id: str(row, 'id'), name: str(row, 'name'), domain: str(row, 'domain') } : undefined;
  }

  usersAfter(afterPos: number, limit: number): Page<Positioned<UserRecord>> {
    const rows = this.#s.usersAfter.all(afterPos, limit + 1) as Row[];
    return { items: rows.slice(0, limit).map(toUser), hasMore: rows.length > limit };
  }

  user(id: string): Positioned<UserRecord> | undefined {
    const row = this.#s.userById.get(id) as Row | undefined;
    return row ? toUser(row) : undefined;
  }

  #teamView(row: Row): TeamView {
    const id = str(row, 'id');
    const users = (this.#s.teamMembers.all(id) as Row[]).map((m) => ({
      id: str(m, 'id'),
      email: strOrNull(m, 'email'),
    }));
    return { pos: num(row, 'pos'), id, name: str(row, 'name'), users };
  }

  teamsAfter(afterPos: number, limit: number): Page<TeamView> {
    const rows = this.#s.teamsAfter.all(afterPos, limit + 1) as Row[];
    return { items: rows.slice(0, limit).map((r) => this.#teamView(r)), hasMore: rows.length > limit };
  }

  team(id: string): TeamView | undefined {
    const row = this.#s.teamById.get(id) as Row | undefined;
    return row ? this.#teamView(row) : undefined;
  }

  allTeams(): TeamView[] {
    return (this.#s.teamsAll.all() as Row[]).map((r) => this.#teamView(r));
  }

  allUsers(): Positioned<UserRecord>[] {
    return (this.#s.usersAll.all() as Row[]).map(toUser);
  }

  threadsOfIssue(issueId: string): ThreadRecord[] {
    return (this.#s.threadsOfIssue.all(issueId) as Row[]).map((r) => ({
      id: str(r, 'id'),
      issueId: str(r, 'issue_id'),
      name: str(r, 'name'),
      createdAt: num(r, 'created_ms'),
    }));
  }
}
