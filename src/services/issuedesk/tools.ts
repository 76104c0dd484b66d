// The 13 IssueDesk tools, exactly as spec/issuedesk.md names them. The four plain list/read tools are declarative
// endpoint rows run by the generic executor; the others are hand-designed handlers that combine lookups
// (matching.ts, resolve.ts) with one upstream action.

import { z } from 'zod';
import { endpointTool } from '../../runtime/endpoint.js';
import { invalidArguments } from '../../runtime/errors.js';
import { READ_ONLY, UPDATE } from '../../runtime/hints.js';
import { type OutcomeCheck, type ToolDefinition, toolsFor, withOutcomeChecks } from '../../runtime/tool.js';
import { styledToolName } from '../../runtime/toolNames.js';
import { plainTextToHtml } from '../../text/html.js';
import type { PylonContact, PylonFilter, PylonIssue, PylonTeam, PylonUser } from './client.js';
import { ISSUEDESK_OPERATIONS } from './endpoints.js';
import {
  decodeCursor,
  encodeCursor,
  nextSlice,
  sliceOf,
  toRfc3339,
  type WindowCursor,
} from './issueWindow.js';
import { acceptedMatch, type Candidate, normalize, round } from './matching.js';
import {
  fetchSearchCorpus,
  type IssueDeskContext,
  rankContacts,
  rankIssues,
  rankUsers,
  resolveIssue,
  resolveTeam,
  resolveUser,
  SEARCH_WINDOW_DAYS,
} from './resolve.js';
import { contactSummary, issueDetail, issueSummary, teamSummary, userSummary } from './shapes.js';

export const BUILTIN_STATES = ['new', 'waiting_on_you', 'waiting_on_customer', 'on_hold', 'closed'] as const;

// Pylon also accepts workspace-defined status slugs; they pass through and Pylon rejects unknown ones.
const state = z
  .union([
    z.enum(BUILTIN_STATES),
    z.string().regex(/^[a-z][a-z0-9_]*$/, 'a status slug: lowercase letters, digits, _'),
  ])
  .describe('Or a custom status slug');
// The name says it; the instructions give the threshold, once.
const autoAccept = z.boolean().default(false);
// The name says it, and the result's next_cursor says what to pass (the instructions too).
const cursor = z.string().min(1).optional();
const issueLookupBy = z.enum(['id', 'search']).describe('id: an issue ID or number; search: keywords');
// What the value is, its lookup_by parameter says.
const issueValue = z.string().min(1);
const rfc3339 = z.iso.datetime({ offset: true });

const tool = toolsFor<IssueDeskContext>();

/** ListIssues reads upstream pages until it has this many matches (or the window ends). */
const LIST_TARGET = 50;
/** ... but never more than this many GetIssues calls per tool call (Pylon allows 10 a minute). */
const LIST_MAX_REQUESTS = 5;
const LIST_PAGE_SIZE = 100;

const whoAmI = endpointTool({
  name: 'WhoAmI',
  title: 'Who am I',
  description: "The token's organization; a cheap connection check.",
  input: z.strictObject({}),
  hints: READ_ONLY,
  endpoint: { operation: ISSUEDESK_OPERATIONS.GetMe },
  client: (ctx: IssueDeskContext) => ctx.upstream.http,
  shape: ({ body }) => {
    const me = (body as { data?: Record<string, unknown> }).data ?? {};
    return {
      organization: { id: me.id ?? null, name: me.name ?? null },
      // GET /me documents only the organization; an email of the token's account passes through if present.
      ...(me.email ? { email: me.email } : {}),
      token: 'organization API token (admin scope)',
    };
  },
});

const listIssues = tool.define({
  name: 'ListIssues',
  title: 'List issues',
  description: 'Issues created in a time window, newest first, matching all filters given.',
  input: z.strictObject({
    state: state.optional(),
    assignee_id: z.string().min(1).optional(),
    team_id: z.string().min(1).optional(),
    tags: z.array(z.string().min(1)).optional().describe('Issue has all of these'),
    start_time: rfc3339.optional().describe('Default: 7 days before end_time'),
    end_time: rfc3339.optional().describe('Default: now'),
    cursor,
  }),
  hints: READ_ONLY,
  run: async (args, ctx, call) => {
    let position: WindowCursor;
    if (args.cursor) {
      position = decodeCursor(args.cursor);
      // The cursor carries its window; a different window alongside it is a mistake worth naming.
      for (const [field, value, expected] of [
        ['start_time', args.start_time, position.start],
        ['end_time', args.end_time, position.end],
      ] as const) {
        if (value !== undefined && Date.parse(value) !== expected) {
          throw invalidArguments(
            `\`${field}\` differs from the window of \`cursor\`.`,
            [
              {
                field,
                problem: `the cursor pages ${toRfc3339(position.start)} to ${toRfc3339(position.end)}`,
              },
            ],
            'Leave the time window out when passing a cursor, or drop the cursor to start a new listing.',
          );
        }
      }
    } else {
      const end = args.end_time ? Date.parse(args.end_time) : ctx.now().getTime();
      const start = args.start_time ? Date.parse(args.start_time) : end - 7 * 24 * 3600 * 1000;
      if (!(start < end)) {
        throw invalidArguments('`start_time` must be before `end_time`.', [
          { field: 'start_time', problem: `${toRfc3339(start)} is not before ${toRfc3339(end)}` },
        ]);
      }
      position = { start, end, sliceEnd: end };
    }
    const matches = (issue: PylonIssue) =>
      (!args.state || issue.state === args.state) &&
      (!args.assignee_id || issue.assignee?.id === args.assignee_id) &&
      (!args.team_id || issue.team?.id === args.team_id) &&
      (args.tags ?? []).every((tag) => (issue.tags ?? []).includes(tag));

    const found: PylonIssue[] = [];
    let scanned = 0;
    let next: WindowCursor | undefined = position;
    for (let requests = 0; next && requests < LIST_MAX_REQUESTS && found.length < LIST_TARGET; requests++) {
      // A cancelled call asks for no further page.
      call.signal.throwIfAborted();
      const slice = sliceOf(next);
      const page = await ctx.upstream.listIssues(
        { start: toRfc3339(slice.start), end: toRfc3339(slice.end) },
        next.upstream,
        LIST_PAGE_SIZE,
        call.signal,
      );
      scanned += page.data.length;
      found.push(...page.data.filter(matches));
      next = page.cursor
        ? { ...next, upstream: page.cursor }
        : nextSlice({ start: next.start, end: next.end, sliceEnd: next.sliceEnd });
      call.progress?.(requests + 1, undefined, `${scanned} issues scanned, ${found.length} matching`);
    }
    return {
      issues: found.map(issueSummary),
      count: found.length,
      scanned,
      window: { start_time: toRfc3339(position.start), end_time: toRfc3339(position.end) },
      next_cursor: next ? encodeCursor(next) : null,
    };
  },
});

const getIssue = tool.define({
  name: 'GetIssue',
  title: 'Get issue',
  description: 'One issue, body as plain text, by ID/number or best search match.',
  input: z.strictObject({
    lookup_by: issueLookupBy,
    value: issueValue,
    auto_accept_matches: autoAccept,
  }),
  hints: READ_ONLY,
  run: async (args, ctx, call) => {
    const found = await resolveIssue(ctx, call, args);
    if (found.kind === 'confirm') return found.result;
    // A search hit came from the list endpoint; fetch it for the full, current record.
    const issue =
      found.match.how === 'id'
        ? found.item
        : await ctx.upstream.getIssue(found.item.id, 'value', call.signal);
    return { status: 'done', match: found.match, issue: issueDetail(issue) };
  },
});

const searchIssues = tool.define({
  name: 'SearchIssues',
  title: 'Search issues',
  description: `Ranks issues of the last ${SEARCH_WINDOW_DAYS} days by keywords; an accepted match comes in full.`,
  input: z.strictObject({
    query: z.string().min(1).describe('e.g. sso login, (saml OR okta) -resolved, "export timeout"'),
    auto_accept_matches: autoAccept,
  }),
  hints: READ_ONLY,
  run: async (args, ctx, call) => {
    const corpus = await fetchSearchCorpus(ctx, call);
    const ranked = rankIssues(corpus.issues, args.query, 'query');
    const result: Record<string, unknown> = {
      query: args.query,
      results: ranked.map((candidate) => ({
        ...issueSummary(candidate.item),
        score: round(candidate.score),
      })),
      searched: { issues: corpus.issues.length, ...corpus.window, complete: corpus.complete },
    };
    const accepted = acceptedMatch(ranked, args.auto_accept_matches);
    if (accepted) result.accepted = { match: accepted.match, issue: issueDetail(accepted.item) };
    return result;
  },
});

const assignIssue = tool.define({
  name: 'AssignIssue',
  title: 'Assign issue',
  description: 'Assigns an issue (by ID/number or search) to a user (by ID or name).',
  input: z.strictObject({
    issue_lookup_by: issueLookupBy,
    issue_value: issueValue,
    user_lookup_by: z
      .enum(['id', 'name'])
      .describe('id: user_value is a user ID; name: a (partial) name or email'),
    user_value: z.string().min(1),
    auto_accept_matches: autoAccept,
  }),
  hints: UPDATE,
  run: async (args, ctx, call) => {
    const issue = await resolveIssue(ctx, call, args, { lookupBy: 'issue_lookup_by', value: 'issue_value' });
    if (issue.kind === 'confirm') return issue.result;
    const user = await resolveUser(ctx, call, args, { lookupBy: 'user_lookup_by', value: 'user_value' });
    if (user.kind === 'confirm') return user.result;
    const updated = await ctx.upstream.updateIssue(issue.item.id, { assignee_id: user.item.id }, call.signal);
    return {
      status: 'done',
      issue: issueSummary(updated),
      assignee: 'name' in user.item ? userSummary(user.item as PylonUser) : { id: user.item.id },
      previous_assignee: issue.item.assignee?.id ? issue.item.assignee : null,
      matches: { issue: issue.match, user: user.match },
    };
  },
});

const updateIssueStatus = tool.define({
  name: 'UpdateIssueStatus',
  title: 'Update issue status',
  description: 'Sets the state of one issue, found by ID/number or by search.',
  input: z.strictObject({
    state,
    lookup_by: issueLookupBy,
    value: issueValue,
    auto_accept_matches: autoAccept,
  }),
  hints: UPDATE,
  run: async (args, ctx, call) => {
    const issue = await resolveIssue(ctx, call, args);
    if (issue.kind === 'confirm') return issue.result;
    const updated = await ctx.upstream.updateIssue(issue.item.id, { state: args.state }, call.signal);
    return {
      status: 'done',
      issue: issueSummary(updated),
      previous_state: issue.item.state,
      match: issue.match,
    };
  },
});

const addMessage = tool.define({
  name: 'AddMessage',
  title: 'Add internal note',
  description: 'Adds an internal note to an issue; the customer does not see it.',
  input: z.strictObject({
    issue_id: z.string().min(1).describe('Issue ID or number'),
    body: z.string().trim().min(1).describe('Plain text unless as_html'),
    as_html: z.boolean().default(false).describe('body is already HTML'),
  }),
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: async (args, ctx, call) => {
    const html = args.as_html ? args.body : plainTextToHtml(args.body);
    const note = await ctx.upstream.addNote(args.issue_id, html, call.signal);
    return { status: 'done', note: { id: note.id, issue_id: note.issue_id }, body_html: html };
  },
});

const listContacts = endpointTool({
  name: 'ListContacts',
  title: 'List contacts',
  description: 'Contacts (customers), 100 per page.',
  input: z.strictObject({ cursor }),
  hints: READ_ONLY,
  endpoint: { operation: ISSUEDESK_OPERATIONS.GetContacts, query: { cursor: 'cursor' } },
  client: (ctx: IssueDeskContext) => ctx.upstream.http,
  shape: ({ body }) => listShape(body, 'contacts', (item) => contactSummary(item as PylonContact)),
});

const searchContacts = tool.define({
  name: 'SearchContacts',
  title: 'Search contacts',
  description: 'Contacts by email (a query with @, whole or part) or fuzzy name, best first.',
  input: z.strictObject({
    query: z.string().trim().min(1).describe('Name, partial name, or email'),
    auto_accept_matches: autoAccept,
  }),
  hints: READ_ONLY,
  run: async (args, ctx, call) => {
    // An email (or part of one) goes to the upstream's email filter; a name needs the whole list, fuzzy-ranked.
    const byEmail = args.query.includes('@');
    const filter: PylonFilter = {
      field: 'email',
      operator: 'string_contains',
      value: args.query.toLowerCase(),
    };
    const { items: contacts, complete } = byEmail
      ? await ctx.upstream.walk((c) => ctx.upstream.searchContacts(filter, c, call.signal), 5, call)
      : await ctx.upstream.walkContacts(call);
    const ranked = byEmail ? rankEmailMatches(contacts, args.query) : rankContacts(contacts, args.query);
    return searchResult(ranked, args.auto_accept_matches, args.query, 'contact', complete, contactSummary);
  },
});

const listUsers = endpointTool({
  name: 'ListUsers',
  title: 'List users',
  description: 'Users (agents) of the workspace, with their IDs.',
  input: z.strictObject({
    cursor,
    limit: z.number().int().min(1).max(100).default(20),
  }),
  hints: READ_ONLY,
  endpoint: { operation: ISSUEDESK_OPERATIONS.GetUsers, query: { cursor: 'cursor', limit: 'limit' } },
  client: (ctx: IssueDeskContext) => ctx.upstream.http,
  shape: ({ body }) => listShape(body, 'users', (item) => userSummary(item as PylonUser)),
});

const searchUsers = tool.define({
  name: 'SearchUsers',
  title: 'Search users',
  description: 'Users by fuzzy name, partial name or email, best first.',
  input: z.strictObject({
    query: z.string().trim().min(1).describe('Name, partial name, or email'),
    auto_accept_matches: autoAccept,
  }),
  hints: READ_ONLY,
  run: async (args, ctx, call) => {
    const { items, complete } = await ctx.upstream.walkUsers(call);
    return searchResult(
      rankUsers(items, args.query),
      args.auto_accept_matches,
      args.query,
      'user',
      complete,
      userSummary,
    );
  },
});

const listTeams = endpointTool({
  name: 'ListTeams',
  title: 'List teams',
  description: 'Teams with their IDs and member counts.',
  input: z.strictObject({ cursor }),
  hints: READ_ONLY,
  endpoint: { operation: ISSUEDESK_OPERATIONS.GetTeams, query: { cursor: 'cursor' } },
  client: (ctx: IssueDeskContext) => ctx.upstream.http,
  shape: ({ body }) => listShape(body, 'teams', (item) => teamSummary(item as PylonTeam)),
});

const getTeamAndAssignment = tool.define({
  name: 'GetTeamAndAssignment',
  title: 'Get team and members',
  description: 'One team (by ID or fuzzy name) with its members.',
  input: z.strictObject({
    lookup_by: z.enum(['id', 'name']).describe('id: value is a team ID; name: a (partial) team name'),
    value: z.string().min(1),
    auto_accept_matches: autoAccept,
  }),
  hints: READ_ONLY,
  run: async (args, ctx, call) => {
    const found = await resolveTeam(ctx, call, args);
    if (found.kind === 'confirm') return found.result;
    const team = await ctx.upstream.getTeam(found.item.id, 'value', call.signal);
    // Team members come as {id, email}; names make the result usable for AssignIssue by name.
    const { items: users } = await ctx.upstream.walkUsers(call);
    const names = new Map(users.map((user) => [user.id, user.name]));
    const members = (team.users ?? []).map((member) => ({
      id: member.id,
      name: names.get(member.id) ?? null,
      ...(member.email ? { email: member.email } : {}),
    }));
    return {
      status: 'done',
      match: found.match,
      team: { id: team.id, name: team.name, members },
      assignment: {
        team_id: team.id,
        note: `To hand an issue to a member, call ${styledToolName('IssueDesk.AssignIssue', call.nameStyle)} with user_lookup_by "id" and one of the member ids.`,
      },
    };
  },
});

function listShape(body: unknown, key: string, shape: (item: unknown) => unknown) {
  const envelope = body as {
    data?: unknown[];
    pagination?: { cursor?: string | null; has_next_page?: boolean };
  };
  const items = Array.isArray(envelope?.data) ? envelope.data : [];
  const more = envelope?.pagination?.has_next_page === true && Boolean(envelope.pagination.cursor);
  return {
    [key]: items.map(shape),
    count: items.length,
    next_cursor: more ? envelope.pagination?.cursor : null,
  };
}

function rankEmailMatches(contacts: readonly PylonContact[], query: string) {
  const wanted = normalize(query);
  const ranked = rankContacts(contacts, query);
  // The upstream filter already matched these by email; a contact it returned must stay listed even when the
  // fuzzy score of a partial email is low.
  const seen = new Set(ranked.map((candidate) => candidate.id));
  for (const contact of contacts) {
    if (seen.has(contact.id)) continue;
    ranked.push({
      item: contact,
      id: contact.id,
      label: { name: contact.name ?? '', ...(contact.email ? { email: contact.email } : {}) },
      score: 0.5,
      exact: [contact.email, ...(contact.emails ?? [])].some((email) => email && normalize(email) === wanted),
    });
  }
  return ranked.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}

function searchResult<T>(
  ranked: Candidate<T>[],
  autoAcceptMatches: boolean,
  query: string,
  noun: string,
  complete: boolean,
  shape: (item: T) => Record<string, unknown>,
) {
  const result: Record<string, unknown> = {
    query,
    matches: ranked.slice(0, 10).map((candidate) => ({
      ...shape(candidate.item),
      score: round(candidate.score),
      ...(candidate.exact ? { exact: true } : {}),
    })),
    ...(complete ? {} : { note: `Only the first pages of ${noun}s were searched; the list is longer.` }),
  };
  const accepted = acceptedMatch(ranked, autoAcceptMatches);
  if (accepted) result.accepted = { match: accepted.match, [noun]: shape(accepted.item) };
  return result;
}

/** How to tell whether a call that is not safe to repeat took effect, when it failed after it was sent. */
const ISSUEDESK_OUTCOME_CHECKS: Readonly<Record<string, OutcomeCheck>> = {
  // The spec's tools do not read notes back; the issue's page in the issue desk shows them.
  AddMessage: {
    how: 'No IssueDesk tool reads notes back: open the issue in the issue desk (IssueDesk.GetIssue gives its link) to see whether the note is there before adding it again, or leave it if a duplicate note would be worse than a missing one.',
  },
};

export const ISSUEDESK_TOOLS: readonly ToolDefinition<IssueDeskContext>[] = withOutcomeChecks(
  [
    whoAmI,
    listIssues,
    getIssue,
    searchIssues,
    assignIssue,
    updateIssueStatus,
    addMessage,
    listContacts,
    searchContacts,
    listUsers,
    searchUsers,
    listTeams,
    getTeamAndAssignment,
  ],
  ISSUEDESK_OUTCOME_CHECKS,
);
