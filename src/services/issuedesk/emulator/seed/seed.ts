/**
 * Deterministic seed data for the issue-desk emulator: the same (seed, scale, now) always gives the same org,
 * people, teams, issues and conversations. Issues spread over the 60 days before `now`.
 */
import { createRng, type Rng } from '../../../../emulation/rng.js';
import {
  type AccountRecord,
  BUILT_IN_STATES,
  type ContactRecord,
  type IssueDeskData,
  type IssueRecord,
  type IssueSource,
  type IssueStatusRecord,
  type MessageRecord,
  type TeamRecord,
  type ThreadRecord,
  type UserRecord,
} from '../records.js';
import {
  AGENT_REPLIES,
  BROWSERS,
  CHANNELS,
  COMPANIES,
  CONTACT_FIRST_NAMES,
  CONTACT_LAST_NAMES,
  CSAT_COMMENTS,
  CUSTOMER_FOLLOW_UPS,
  IDENTITY_PROVIDERS,
  INTERNAL_NOTES,
  ISSUE_TAGS,
  MONTHS,
  ORG_DOMAIN,
  ORG_NAME,
  PLANS,
  PRIORITIES,
  REPORTS,
  SEED_TOPICS,
  type SeedTopic,
  TEAM_NAMES,
  USER_NAMES,
} from './seedVocabulary.js';

export const DEFAULT_SEED = 1;
export const DEFAULT_SCALE = 240;
export const CONTACT_COUNT = 40;
export const SEED_SPAN_DAYS = 60;

export const CUSTOM_STATUSES: readonly IssueStatusRecord[] = [
  {
    slug: 'investigating',
    label: 'Investigating',
    category: 'waiting_on_you',
    isDefault: false,
    isArchived: false,
  },
  {
    slug: 'pending_release',
    label: 'Pending release',
    category: 'on_hold',
    isDefault: false,
    isArchived: false,
  },
];

const BUILT_IN_LABELS: Record<(typeof BUILT_IN_STATES)[number], string> = {
  new: 'New',
  waiting_on_you: 'Waiting on you',
  waiting_on_customer: 'Waiting on customer',
  on_hold: 'On hold',
  closed: 'Closed',
};

export const ISSUE_STATUSES: readonly IssueStatusRecord[] = [
  ...BUILT_IN_STATES.map((slug) => ({
    slug,
    label: BUILT_IN_LABELS[slug],
    category: slug,
    isDefault: true,
    isArchived: false,
  })),
  ...CUSTOM_STATUSES,
];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const SOURCE_WEIGHTS: readonly (readonly [IssueSource, number])[] = [
  ['email', 35],
  ['slack', 25],
  ['chat_widget', 15],
  ['form', 10],
  ['microsoft_teams', 5],
  ['manual', 4],
  ['phone', 3],
  ['discord', 2],
  ['whatsapp', 1],
];

/** Fresh issues are mostly open; older ones mostly closed. */
const RECENT_STATE_WEIGHTS: readonly (readonly [string, number])[] = [
  ['new', 30],
  ['waiting_on_you', 22],
  ['waiting_on_customer', 15],
  ['investigating', 12],
  ['on_hold', 6],
  ['pending_release', 5],
  ['closed', 10],
];
const OLDER_STATE_WEIGHTS: readonly (readonly [string, number])[] = [
  ['new', 4],
  ['waiting_on_you', 10],
  ['waiting_on_customer', 12],
  ['investigating', 6],
  ['on_hold', 8],
  ['pending_release', 6],
  ['closed', 54],
];

export interface SeedOptions {
  seed?: number;
  scale?: number;
  /** The moment the data is "seeded at"; issues fall in the 60 days before it. */
  now: Date;
}

function fill(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => vars[key] ?? whole);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function slugEmailPart(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '');
}

function firstName(name: string): string {
  return name.split(' ')[0] ?? name;
}

/** Whole seconds, as upstream timestamps carry no fraction. */
function toSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

function buildUsers(rng: Rng, roleIds: { admin: string; member: string }): UserRecord[] {
  return USER_NAMES.map((name, i) => {
    const [first = name, last = ''] = name.split(' ');
    const primary = `${slugEmailPart(first)}.${slugEmailPart(last)}@${ORG_DOMAIN}`;
    const emails = i % 5 === 0 ? [primary, `${slugEmailPart(first)}@${ORG_DOMAIN}`] : [primary];
    const id = rng.uuid();
    return {
      id,
      name,
      emails,
      avatarUrl: `https://avatars.${ORG_DOMAIN}/users/${id}.png`,
      roleId: i < 2 ? roleIds.admin : roleIds.member,
      status: 'active',
    };
  });
}

function buildContacts(rng: Rng, accounts: readonly AccountRecord[]): ContactRecord[] {
  const names = new Set<string>();
  while (names.size < CONTACT_COUNT)
    names.add(`${rng.pick(CONTACT_FIRST_NAMES)} ${rng.pick(CONTACT_LAST_NAMES)}`);
  return [...names].map((name, i) => {
    const account = rng.pick(accounts);
    const [first = name, last = ''] = name.split(' ');
    const primary = `${slugEmailPart(first)}.${slugEmailPart(last)}@${account.domain}`;
    // A handful of contacts write from two addresses, so email search must look at all of them.
    const emails =
      i % 8 === 3
        ? [primary, `${slugEmailPart(first)[0] ?? ''}${slugEmailPart(last)}@mail.${account.domain}`]
        : [primary];
    return {
      id: rng.uuid(),
      name,
      emails,
      accountId: account.id,
      avatarUrl: null,
      portalRole: rng.weighted([
        ['member', 80],
        ['admin', 12],
        ['no_access', 8],
      ] as const),
      phoneNumbers: rng.chance(0.3)
        ? [`+1-555-${String(rng.int(100, 999))}-${String(rng.int(1000, 9999))}`]
        : [],
    };
  });
}

function buildTeams(rng: Rng, users: readonly UserRecord[]): TeamRecord[] {
  return TEAM_NAMES.map((name) => ({
    id: rng.uuid(),
    name,
    memberIds: rng.sample(users, rng.int(2, 5)).map((u) => u.id),
  }));
}

interface IssueContext {
  rng: Rng;
  contacts: readonly ContactRecord[];
  users: readonly UserRecord[];
  teams: readonly TeamRecord[];
  accounts: ReadonlyMap<string, AccountRecord>;
  nowMs: number;
  scale: number;
}

function topicVars(
  rng: Rng,
  requester: ContactRecord,
  company: string,
  scale: number,
): Record<string, string> {
  return {
    idp: rng.pick(IDENTITY_PROVIDERS),
    browser: rng.pick(BROWSERS),
    plan: rng.pick(PLANS),
    report: rng.pick(REPORTS),
    channel: rng.pick(CHANNELS),
    month: rng.pick(MONTHS),
    day: String(rng.int(1, 28)),
    company,
    first: firstName(requester.name),
    code: String(rng.int(1000, 99999)),
    n: String(rng.int(2, Math.max(3, Math.min(scale, 400)))),
    m: String(rng.int(2, 40)),
    endpoint: `https://hooks.${requester.emails[0]?.split('@')[1] ?? 'example.com'}/events`,
  };
}

function buildBody(rng: Rng, topic: SeedTopic, vars: Record<string, string>): string {
  const esc = (t: string) => escapeHtml(fill(t, vars));
  const parts = [
    `<p>Hi ${rng.pick(['team', 'there', 'support team', 'all'])},</p>`,
    `<p>${esc(rng.pick(topic.summaries))}</p>`,
  ];
  for (const detail of rng.sample(topic.details, rng.int(1, 2))) parts.push(`<p>${esc(detail)}</p>`);
  if (topic.steps.length > 0 && rng.chance(0.6)) {
    const steps = rng.pick(topic.steps);
    parts.push('<p>Steps to reproduce:</p>', `<ol>${steps.map((s) => `<li>${esc(s)}</li>`).join('')}</ol>`);
  }
  if (rng.chance(0.5)) {
    parts.push(
      `<ul><li>Workspace: ${esc(vars.company ?? '')}</li><li>Plan: ${esc(vars.plan ?? '')}</li>` +
        `<li>Browser: ${esc(vars.browser ?? '')}</li></ul>`,
    );
  }
  parts.push(`<p>${esc(rng.pick(topic.asks))}</p>`, `<p>Thanks,<br>${esc(vars.first ?? '')}</p>`);
  return parts.join('\n');
}

function buildIssue(
  ctx: IssueContext,
  number: number,
  createdAt: number,
  out: { threads: ThreadRecord[]; messages: MessageRecord[] },
): IssueRecord {
  const { rng, nowMs } = ctx;
  const topic = rng.pick(SEED_TOPICS);
  const requester = rng.pick(ctx.contacts);
  const account = requester.accountId ? ctx.accounts.get(requester.accountId) : undefined;
  const vars = topicVars(rng, requester, account?.name ?? 'our company', ctx.scale);
  const ageDays = (nowMs - createdAt) / DAY;
  const state = rng.weighted(ageDays < 5 ? RECENT_STATE_WEIGHTS : OLDER_STATE_WEIGHTS);
  const source = rng.weighted(SOURCE_WEIGHTS);

  const ownTeam = ctx.teams.find((t) => t.name === topic.team);
  const team = rng.weighted([
    [ownTeam, 70],
    [rng.pick(ctx.teams), 12],
    [undefined, 18],
  ] as const);
  const assigned = state === 'new' ? rng.chance(0.3) : rng.chance(0.88);
  let assignee: UserRecord | undefined;
  if (assigned) {
    const pool = team && rng.chance(0.8) ? ctx.users.filter((u) => team.memberIds.includes(u.id)) : ctx.users;
    assignee = rng.pick(pool.length > 0 ? pool : ctx.users);
  }

  const tags = new Set(rng.sample(topic.tags, rng.int(1, topic.tags.length)));
  if (rng.chance(0.1)) tags.add('urgent');
  if (rng.chance(0.05)) tags.add(rng.pick(ISSUE_TAGS));

  const id = rng.uuid();
  const bodyHtml = buildBody(rng, topic, vars);
  const latest = nowMs - 1000;
  const clamp = (t: number) => toSecond(Math.min(t, latest));
  const agent = assignee ?? rng.pick(ctx.users);
  const issueMessages: MessageRecord[] = [];
  const addMessage = (m: Omit<MessageRecord, 'id' | 'issueId' | 'fileUrls'>) => {
    issueMessages.push({ id: rng.uuid(), issueId: id, fileUrls: [], ...m });
  };

  // Public messages in the conversation, from the requester or from the agent on the issue.
  const fromCustomer = (html: string, timestamp: number) =>
    addMessage({
      isPrivate: false,
      html,
      source,
      authorUserId: null,
      authorContactId: requester.id,
      authorName: requester.name,
      threadId: null,
      timestamp,
    });
  const fromAgent = (html: string, timestamp: number) =>
    addMessage({
      isPrivate: false,
      html,
      source,
      authorUserId: agent.id,
      authorContactId: null,
      authorName: agent.name,
      threadId: null,
      timestamp,
    });

  fromCustomer(bodyHtml, createdAt);
  let t = createdAt;
  let firstResponseAt: number | null = null;
  let touches = 0;
  if (state !== 'new') {
    t = clamp(t + rng.int(5 * MINUTE, 8 * HOUR));
    firstResponseAt = t;
    touches++;
    fromAgent(fill(rng.pick(AGENT_REPLIES), { first: vars.first ?? '' }), t);
    if (rng.chance(0.4)) {
      t = clamp(t + rng.int(10 * MINUTE, 20 * HOUR));
      fromCustomer(rng.pick(CUSTOMER_FOLLOW_UPS), t);
      if (rng.chance(0.6)) {
        t = clamp(t + rng.int(10 * MINUTE, 6 * HOUR));
        touches++;
        fromAgent(fill(rng.pick(AGENT_REPLIES), { first: vars.first ?? '' }), t);
      }
    }
  }
  if (rng.chance(0.25)) {
    t = clamp(t + rng.int(2 * MINUTE, 3 * HOUR));
    const noter = rng.pick(ctx.users);
    const thread: ThreadRecord = { id: rng.uuid(), issueId: id, name: 'Internal notes', createdAt: t };
    out.threads.push(thread);
    touches++;
    addMessage({
      isPrivate: true,
      html: fill(rng.pick(INTERNAL_NOTES), { ...vars, n: String(rng.int(1, Math.max(1, number))) }),
      source: 'app',
      authorUserId: noter.id,
      authorContactId: null,
      authorName: noter.name,
      threadId: thread.id,
      timestamp: t,
    });
  }
  const latestMessageAt = t;
  const resolvedAt = state === 'closed' ? clamp(t + rng.int(10 * MINUTE, 2 * DAY)) : null;
  out.messages.push(...issueMessages);

  const customFields: IssueRecord['customFields'] = {};
  if (rng.chance(0.7)) {
    const value = rng.weighted([
      [PRIORITIES[0], 25],
      [PRIORITIES[1], 40],
      [PRIORITIES[2], 25],
      [PRIORITIES[3], 10],
    ] as const);
    customFields.priority = { slug: 'priority', value };
  }

  return {
    id,
    number,
    title: fill(rng.pick(topic.titles), vars),
    bodyHtml,
    state,
    type: rng.chance(0.7) ? 'ticket' : 'conversation',
    source,
    createdAt,
    updatedAt: Math.max(latestMessageAt, resolvedAt ?? 0),
    latestMessageAt,
    firstResponseAt,
    resolvedAt,
    tags: [...tags],
    customFields,
    accountId: requester.accountId,
    assigneeId: assignee?.id ?? null,
    requesterId: requester.id,
    teamId: team?.id ?? null,
    customerPortalVisible: rng.chance(0.6),
    attachmentUrls: rng.chance(0.15)
      ? [`https://files.${ORG_DOMAIN}/attachments/${rng.uuid()}/screenshot.png`]
      : [],
    numberOfTouches: touches,
    csatResponses:
      state === 'closed' && rng.chance(0.3)
        ? [{ score: rng.int(1, 5), comment: rng.pick(CSAT_COMMENTS) }]
        : [],
    chatPageUrl:
      source === 'chat_widget' ? `https://app.${account?.domain ?? 'example.com'}/settings/billing` : null,
  };
}

export function buildSeedData(options: SeedOptions): IssueDeskData {
  const seed = options.seed ?? DEFAULT_SEED;
  const scale = options.scale ?? DEFAULT_SCALE;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  if (!Number.isInteger(scale) || scale < 0)
    throw new RangeError(`scale must be a non-negative integer, got ${scale}`);
  const nowMs = toSecond(options.now.getTime());
  const rng = createRng(seed);
  // Separate streams: changing how issues are generated must not reshuffle people or teams.
  const peopleRng = rng.fork();
  const issueRng = rng.fork();

  const org = { id: peopleRng.uuid(), name: ORG_NAME };
  const roleIds = { admin: peopleRng.uuid(), member: peopleRng.uuid() };
  const accounts: AccountRecord[] = COMPANIES.map((c) => ({
    id: peopleRng.uuid(),
    name: c.name,
    domain: c.domain,
  }));
  const users = buildUsers(peopleRng, roleIds);
  const contacts = buildContacts(peopleRng, accounts);
  const teams = buildTeams(peopleRng, users);

  const earliest = nowMs - SEED_SPAN_DAYS * DAY;
  const newest = nowMs - 10 * MINUTE;
  const createdTimes: number[] = [];
  for (let i = 0; i < scale; i++) createdTimes.push(toSecond(issueRng.int(earliest, newest)));
  createdTimes.sort((a, b) => a - b);

  const ctx: IssueContext = {
    rng: issueRng,
    contacts,
    users,
    teams,
    accounts: new Map(accounts.map((a) => [a.id, a])),
    nowMs,
    scale,
  };
  const threads: ThreadRecord[] = [];
  const messages: MessageRecord[] = [];
  const issues = createdTimes.map((createdAt, i) => buildIssue(ctx, i + 1, createdAt, { threads, messages }));

  return {
    org,
    seed,
    scale,
    statuses: [...ISSUE_STATUSES],
    accounts,
    contacts,
    users,
    teams,
    issues,
    threads,
    messages,
  };
}
