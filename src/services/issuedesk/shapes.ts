// Compact, agent-friendly shapes of Pylon objects: what an agent needs to decide and act, without the dozens
// of metric fields the upstream returns.

import { htmlToPlainText } from '../../text/html.js';
import type { PylonContact, PylonIssue, PylonTeam, PylonUser } from './client.js';

export interface IssueSummary {
  id: string;
  number: number;
  title: string;
  state: string;
  assignee: { id: string; email?: string } | null;
  team: { id: string } | null;
  tags: string[];
  created_at: string;
  link?: string;
}

export function issueSummary(issue: PylonIssue): IssueSummary {
  return {
    id: issue.id,
    number: issue.number,
    title: issue.title,
    state: issue.state,
    assignee: issue.assignee?.id ? compactRef(issue.assignee) : null,
    team: issue.team?.id ? { id: issue.team.id } : null,
    tags: issue.tags ?? [],
    created_at: issue.created_at,
    ...(issue.link ? { link: issue.link } : {}),
  };
}

/** The full view for GetIssue: the summary plus the body as plain text and the few other useful fields. */
export function issueDetail(issue: PylonIssue): IssueSummary & Record<string, unknown> {
  return {
    ...issueSummary(issue),
    body: htmlToPlainText(issue.body_html ?? ''),
    ...(issue.requester?.id ? { requester: compactRef(issue.requester) } : {}),
    ...(issue.account?.id ? { account_id: issue.account.id } : {}),
    ...(issue.type ? { type: issue.type } : {}),
    ...(issue.source ? { source: issue.source } : {}),
    ...(issue.updated_at ? { updated_at: issue.updated_at } : {}),
    ...(issue.latest_message_time ? { latest_message_time: issue.latest_message_time } : {}),
  };
}

export function userSummary(user: PylonUser): Record<string, unknown> {
  return {
    id: user.id,
    name: user.name,
    ...(user.email ? { email: user.email } : {}),
    ...(user.status ? { status: user.status } : {}),
  };
}

export function contactSummary(contact: PylonContact): Record<string, unknown> {
  const others = (contact.emails ?? []).filter((email) => email !== contact.email);
  return {
    id: contact.id,
    name: contact.name ?? null,
    email: contact.email ?? null,
    ...(others.length > 0 ? { other_emails: others } : {}),
    ...(contact.account?.id ? { account_id: contact.account.id } : {}),
  };
}

export function teamSummary(team: PylonTeam): Record<string, unknown> {
  return { id: team.id, name: team.name, member_count: team.users?.length ?? 0 };
}

function compactRef(ref: { id: string; email?: string }): { id: string; email?: string } {
  return ref.email ? { id: ref.id, email: ref.email } : { id: ref.id };
}
