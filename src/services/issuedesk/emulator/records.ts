/**
 * The emulated issue desk's domain records, as the database keeps them (times are epoch milliseconds).
 * The wire module turns them into Pylon's JSON; seed data is built from the same types.
 */

export const BUILT_IN_STATES = ['new', 'waiting_on_you', 'waiting_on_customer', 'on_hold', 'closed'] as const;
export type BuiltInState = (typeof BUILT_IN_STATES)[number];

export const ISSUE_SOURCES = [
  'slack',
  'microsoft_teams',
  'microsoft_teams_chat',
  'chat_widget',
  'email',
  'manual',
  'form',
  'discord',
  'whatsapp',
  'sms',
  'telegram',
  'phone',
] as const;
export type IssueSource = (typeof ISSUE_SOURCES)[number];

export type IssueType = 'conversation' | 'ticket';
export type PortalRole = 'no_access' | 'member' | 'admin';

export interface OrgRecord {
  id: string;
  name: string;
}

export interface AccountRecord {
  id: string;
  name: string;
  domain: string;
}

export interface ContactRecord {
  id: string;
  name: string;
  /** The first is the primary email. */
  emails: string[];
  accountId: string | null;
  avatarUrl: string | null;
  portalRole: PortalRole;
  phoneNumbers: string[];
}

export interface UserRecord {
  id: string;
  name: string;
  /** The first is the primary email. */
  emails: string[];
  avatarUrl: string | null;
  roleId: string;
  status: string;
}

export interface TeamRecord {
  id: string;
  name: string;
  memberIds: string[];
}

export interface IssueStatusRecord {
  slug: string;
  label: string;
  /** The built-in state a custom status behaves like. */
  category: BuiltInState;
  isDefault: boolean;
  isArchived: boolean;
}

export interface CustomFieldValue {
  slug: string;
  value?: string;
  values?: string[];
}

export interface CsatResponse {
  score: number;
  comment: string;
}

export interface IssueRecord {
  id: string;
  number: number;
  title: string;
  bodyHtml: string;
  state: string;
  type: IssueType;
  source: IssueSource;
  createdAt: number;
  updatedAt: number;
  latestMessageAt: number | null;
  firstResponseAt: number | null;
  resolvedAt: number | null;
  tags: string[];
  customFields: Record<string, CustomFieldValue>;
  accountId: string | null;
  assigneeId: string | null;
  requesterId: string | null;
  teamId: string | null;
  customerPortalVisible: boolean;
  attachmentUrls: string[];
  numberOfTouches: number;
  csatResponses: CsatResponse[];
  chatPageUrl: string | null;
}

/** An issue as read back, with the emails its mini objects need. */
export interface IssueView extends IssueRecord {
  assigneeEmail: string | null;
  requesterEmail: string | null;
}

export interface ThreadRecord {
  id: string;
  issueId: string;
  name: string;
  createdAt: number;
}

export interface MessageRecord {
  id: string;
  issueId: string;
  /** Internal notes are private; replies and customer messages are not. */
  isPrivate: boolean;
  html: string;
  source: string;
  authorUserId: string | null;
  authorContactId: string | null;
  authorName: string;
  threadId: string | null;
  timestamp: number;
  fileUrls: string[];
}

/** A message as read back, with its author's email and insertion position (the paging tiebreaker). */
export interface MessageView extends MessageRecord {
  pos: number;
  authorEmail: string | null;
}

export interface IssueDeskData {
  org: OrgRecord;
  seed: number;
  scale: number;
  statuses: IssueStatusRecord[];
  accounts: AccountRecord[];
  contacts: ContactRecord[];
  users: UserRecord[];
  teams: TeamRecord[];
  issues: IssueRecord[];
  threads: ThreadRecord[];
  messages: MessageRecord[];
}

/** Why the database refused a change; errors.ts turns it into the upstream's answer. */
export type StateErrorKind = 'not_found' | 'invalid';

export interface StateError {
  kind: StateErrorKind;
  message: string;
}
