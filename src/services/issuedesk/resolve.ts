// Finding the one issue, user or team a tool should act on: by ID directly, or by keyword search (BM25) and
// fuzzy name matching, decided by the rule in matching.ts.

import { invalidArguments } from '../../runtime/errors.js';
import type { ToolCall } from '../../runtime/tool.js';
import { rankByName } from '../../text/fuzzy.js';
import { htmlToSearchText } from '../../text/html.js';
import { QuerySyntaxError, rankDocuments } from '../../text/issueSearch.js';
import type {
  IssueDeskClient,
  PagingCall,
  PylonContact,
  PylonIssue,
  PylonTeam,
  PylonUser,
} from './client.js';
import {
  type Candidate,
  decide,
  type LookupContext,
  needsConfirmation,
  noMatch,
  normalize,
  round,
} from './matching.js';

export interface IssueDeskContext {
  upstream: IssueDeskClient;
  now: () => Date;
}

/** Keyword search ranks the issues created in this many recent days (one upstream window). */
export const SEARCH_WINDOW_DAYS = 30;
/** Upper bound on GET /issues pages per search (999 issues each), so a search costs at most this much quota. */
export const SEARCH_MAX_PAGES = 10;
const SEARCH_PAGE_SIZE = 999;

export interface SearchCorpus {
  issues: PylonIssue[];
  complete: boolean;
  window: { start_time: string; end_time: string };
}

export async function fetchSearchCorpus(ctx: IssueDeskContext, call: PagingCall): Promise<SearchCorpus> {
  const end = ctx.now();
  const start = new Date(end.getTime() - SEARCH_WINDOW_DAYS * 24 * 3600 * 1000);
  const window = { start: start.toISOString(), end: end.toISOString() };
  const { items, complete } = await ctx.upstream.walk(
    (cursor) => ctx.upstream.listIssues(window, cursor, SEARCH_PAGE_SIZE, call.signal),
    SEARCH_MAX_PAGES,
    call,
  );
  return { issues: items, complete, window: { start_time: window.start, end_time: window.end } };
}

/** Ranks issues for a query; `field` names the tool parameter in syntax errors. */
export function rankIssues(
  issues: readonly PylonIssue[],
  query: string,
  field: string,
  limit = 20,
): Candidate<PylonIssue>[] {
  const byId = new Map(issues.map((issue) => [issue.id, issue]));
  let hits: ReturnType<typeof rankDocuments>;
  try {
    hits = rankDocuments(
      issues.map((issue) => ({
        id: issue.id,
        title: issue.title,
        body: htmlToSearchText(issue.body_html ?? ''),
      })),
      query,
      { limit },
    );
  } catch (error) {
    if (error instanceof QuerySyntaxError) {
      throw invalidArguments(`\`${field}\` is not a valid search query: ${error.message}`, [
        { field, problem: error.message },
      ]);
    }
    throw error;
  }
  const top = hits[0]?.score ?? 0;
  const wanted = normalize(query);
  // An exact title match acts even when ranking put it below the cut; bring it into the candidates.
  const listed = new Set(hits.map((hit) => hit.id));
  for (const issue of issues) {
    if (!listed.has(issue.id) && normalize(issue.title) === wanted) {
      hits.push({ id: issue.id, score: 0, matchedTerms: [], coverage: 0 });
    }
  }
  return hits.map((hit) => {
    const issue = byId.get(hit.id)!;
    return {
      item: issue,
      id: issue.id,
      label: { title: `#${issue.number} ${issue.title}` },
      score: top > 0 ? hit.coverage * (hit.score / top) : 0,
      exact: normalize(issue.title) === wanted,
    };
  });
}

export type Resolution<T> =
  | { kind: 'found'; item: T; match: { how: 'id' } | { how: 'exact' | 'auto_accepted'; score: number } }
  | { kind: 'confirm'; result: ReturnType<typeof needsConfirmation> };

/** Which arguments of a tool hold a lookup: how to look up, and the value. */
export interface LookupParameters {
  lookupBy: string;
  value: string;
}

const DEFAULT_LOOKUP: LookupParameters = { lookupBy: 'lookup_by', value: 'value' };

function lookupContext(
  call: ToolCall,
  args: Record<string, unknown>,
  params: LookupParameters,
  noun: string,
): LookupContext & { by: string; autoAccept: boolean } {
  return {
    call,
    args,
    noun,
    parameter: params.value,
    lookupByParameter: params.lookupBy,
    query: String(args[params.value]),
    by: String(args[params.lookupBy]),
    autoAccept: args.auto_accept_matches === true,
  };
}

export async function resolveIssue(
  ctx: IssueDeskContext,
  call: ToolCall,
  args: Record<string, unknown>,
  params: LookupParameters = DEFAULT_LOOKUP,
): Promise<Resolution<PylonIssue>> {
  const lookup = lookupContext(call, args, params, 'issue');
  const { by, query: value, autoAccept } = lookup;
  if (by === 'id') {
    return {
      kind: 'found',
      item: await ctx.upstream.getIssue(value, lookup.parameter, call.signal),
      match: { how: 'id' },
    };
  }
  const corpus = await fetchSearchCorpus(ctx, call);
  return settle(
    rankIssues(corpus.issues, value, lookup.parameter),
    autoAccept,
    lookup,
    `Search covers issues created in the last ${SEARCH_WINDOW_DAYS} days; for older ones use the issue ID or number, or IssueDesk.ListIssues with a time window.`,
  );
}

export function rankUsers(users: readonly PylonUser[], query: string): Candidate<PylonUser>[] {
  const wanted = normalize(query);
  return rankByName(query, users, (user) => [
    user.name,
    ...(user.emails ?? (user.email ? [user.email] : [])),
  ]).map((hit) => ({
    item: hit.item,
    id: hit.item.id,
    label: { name: hit.item.name, ...(hit.item.email ? { email: hit.item.email } : {}) },
    score: hit.score,
    exact:
      normalize(hit.item.name) === wanted ||
      (hit.item.email !== undefined && normalize(hit.item.email) === wanted),
  }));
}

export async function resolveUser(
  ctx: IssueDeskContext,
  call: ToolCall,
  args: Record<string, unknown>,
  params: LookupParameters,
): Promise<Resolution<PylonUser | { id: string }>> {
  const lookup = lookupContext(call, args, params, 'user');
  const { by, query: value, autoAccept } = lookup;
  if (by === 'id') return { kind: 'found', item: { id: value }, match: { how: 'id' } };
  const { items } = await ctx.upstream.walkUsers(call);
  return settle(
    rankUsers(items, value),
    autoAccept,
    lookup,
    'IssueDesk.ListUsers lists every user with their IDs.',
  );
}

export async function resolveTeam(
  ctx: IssueDeskContext,
  call: ToolCall,
  args: Record<string, unknown>,
): Promise<Resolution<PylonTeam | { id: string }>> {
  const lookup = lookupContext(call, args, DEFAULT_LOOKUP, 'team');
  if (lookup.by === 'id') return { kind: 'found', item: { id: lookup.query }, match: { how: 'id' } };
  const { items } = await ctx.upstream.walkTeams(call);
  return settle(
    rankTeams(items, lookup.query),
    lookup.autoAccept,
    lookup,
    'IssueDesk.ListTeams lists every team.',
  );
}

export function rankTeams(teams: readonly PylonTeam[], query: string): Candidate<PylonTeam>[] {
  const wanted = normalize(query);
  return rankByName(query, teams, (team) => [team.name]).map((hit) => ({
    item: hit.item,
    id: hit.item.id,
    label: { name: hit.item.name },
    score: hit.score,
    exact: normalize(hit.item.name) === wanted,
  }));
}

export function rankContacts(contacts: readonly PylonContact[], query: string): Candidate<PylonContact>[] {
  const wanted = normalize(query);
  const keys = (contact: PylonContact) => [
    ...(contact.name ? [contact.name] : []),
    ...new Set([...(contact.email ? [contact.email] : []), ...(contact.emails ?? [])]),
  ];
  return rankByName(query, contacts, keys).map((hit) => ({
    item: hit.item,
    id: hit.item.id,
    label: { name: hit.item.name ?? '', ...(hit.item.email ? { email: hit.item.email } : {}) },
    score: hit.score,
    exact: keys(hit.item).some((key) => normalize(key) === wanted),
  }));
}

/** Applies the decision rule to ranked candidates. */
function settle<T>(
  candidates: Candidate<T>[],
  autoAccept: boolean,
  lookup: LookupContext,
  notFoundHint: string,
): Resolution<T> {
  const decision = decide(candidates, autoAccept);
  if (decision.kind === 'none') throw noMatch(lookup, notFoundHint);
  if (decision.kind === 'ambiguous')
    return { kind: 'confirm', result: needsConfirmation(decision.candidates, lookup) };
  return {
    kind: 'found',
    item: decision.candidate.item,
    match: { how: decision.how, score: round(decision.candidate.score) },
  };
}
