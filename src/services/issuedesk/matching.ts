// How IssueDesk turns a search or a fuzzy name into one object, and the single result shape it returns when it
// cannot be sure (`needs_confirmation`).
//
// The rule (the same for issues, users, teams and contacts):
// - an exact match (an ID, an exact title, name or email, unique) always acts;
// - otherwise, with auto_accept_matches true, the best candidate acts when its confidence is at least
//   ACCEPT_THRESHOLD and it leads the runner-up by at least ACCEPT_MARGIN;
// - otherwise nothing is done and the candidates come back, each with the exact call to make next.
// Confidence is in [0, 1]. For fuzzy names it is the name similarity (src/text/fuzzy.ts). For keyword search it
// is coverage × relative score: the share of query terms the issue contains, times its BM25 score over the
// best score, so the top hit that contains every term has confidence 1 and the others are measured against it.

import { ToolError } from '../../runtime/errors.js';
import type { ToolCall } from '../../runtime/tool.js';

export const ACCEPT_THRESHOLD = 0.8;
export const ACCEPT_MARGIN = 0.15;
/** How many candidates a needs_confirmation result lists. */
export const MAX_CANDIDATES = 5;

export interface Candidate<T> {
  item: T;
  id: string;
  /** `title` for issues, `name` for people and teams. */
  label: { title: string } | { name: string; email?: string };
  score: number;
  exact: boolean;
}

export type Decision<T> =
  | { kind: 'accepted'; candidate: Candidate<T>; how: 'exact' | 'auto_accepted' }
  | { kind: 'ambiguous'; candidates: Candidate<T>[] }
  | { kind: 'none' };

export function decide<T>(candidates: readonly Candidate<T>[], autoAccept: boolean): Decision<T> {
  if (candidates.length === 0) return { kind: 'none' };
  const exact = candidates.filter((candidate) => candidate.exact);
  if (exact.length === 1) return { kind: 'accepted', candidate: exact[0]!, how: 'exact' };
  const best = candidates[0];
  if (autoAccept && exact.length === 0 && best && whyNotClear(candidates) === undefined) {
    return { kind: 'accepted', candidate: best, how: 'auto_accepted' };
  }
  return { kind: 'ambiguous', candidates: candidates.slice(0, MAX_CANDIDATES) };
}

/**
 * Why auto-accept would not take the best candidate (best first in `candidates`): its confidence is too low or
 * its lead too small; undefined when it would.
 */
function whyNotClear<T>(candidates: readonly Candidate<T>[]): string | undefined {
  const [best, second] = candidates;
  if (!best) return 'there is no candidate';
  if (best.score < ACCEPT_THRESHOLD) {
    return `the best confidence is ${round(best.score)}, below the ${ACCEPT_THRESHOLD} auto-accept needs`;
  }
  if (second !== undefined && best.score - second.score < ACCEPT_MARGIN) {
    return `the best leads the next by ${round(best.score - second.score)}, less than the ${ACCEPT_MARGIN} auto-accept needs`;
  }
  return undefined;
}

/** What to do next, fitting the arguments given: auto-accept is suggested only where it would decide. */
function nextStep<T>(candidates: readonly Candidate<T>[], lookup: LookupContext, exactTies: boolean): string {
  const pick = 'Pick one and make its next_call';
  const narrower = `or give a more specific \`${lookup.parameter}\``;
  if (exactTies) return `${pick}; auto_accept_matches never chooses between exact matches.`;
  const reason = whyNotClear(candidates);
  if (lookup.args.auto_accept_matches === true) {
    return `auto_accept_matches was true, but no candidate is a clear best match (${reason}). ${pick}, ${narrower}.`;
  }
  if (reason === undefined) {
    return `${pick}; the first is a clear best match, which auto_accept_matches true would have accepted.`;
  }
  return `${pick}, ${narrower}; auto_accept_matches true would not decide here (${reason}).`;
}

/** For search tools, which never ask: the candidate to present as accepted, if the rule accepts one. */
export function acceptedMatch<T>(
  candidates: readonly Candidate<T>[],
  autoAccept: boolean,
): { item: T; match: { how: 'exact' | 'auto_accepted'; score: number } } | undefined {
  const decision = decide(candidates, autoAccept);
  if (decision.kind !== 'accepted') return undefined;
  return {
    item: decision.candidate.item,
    match: { how: decision.how, score: round(decision.candidate.score) },
  };
}

export interface LookupContext {
  /** The parameter whose value was searched, e.g. `value` or `user_value`. */
  parameter: string;
  /** The parameter that says how to look up, e.g. `lookup_by`; in next calls it becomes `id`. */
  lookupByParameter: string;
  query: string;
  /** The arguments of this call, reused for the next call with the lookup pinned to one ID. */
  args: Record<string, unknown>;
  call: ToolCall;
  /** Noun for messages: "issue", "user", "team". */
  noun: string;
}

/** The one result shape every IssueDesk tool returns when a lookup is not certain: nothing was done. */
export function needsConfirmation<T>(candidates: readonly Candidate<T>[], lookup: LookupContext) {
  const tool = lookup.call.toolName;
  const exactTies = candidates.filter((candidate) => candidate.exact).length > 1;
  return {
    status: 'needs_confirmation' as const,
    message:
      `${candidates.length} ${lookup.noun}${candidates.length === 1 ? '' : 's'} could match ${JSON.stringify(lookup.query)}` +
      `${exactTies ? ' (several match exactly)' : ', none with certainty'}; nothing was done. ` +
      nextStep(candidates, lookup, exactTies),
    parameter: lookup.parameter,
    query: lookup.query,
    candidates: candidates.map((candidate) => ({
      id: candidate.id,
      ...candidate.label,
      score: round(candidate.score),
      next_call: {
        tool,
        arguments: pinnedArguments(lookup, candidate.id),
      },
    })),
  };
}

/** This call's arguments with the lookup pinned to one ID; auto-accept no longer matters for an ID. */
function pinnedArguments(lookup: LookupContext, id: string): Record<string, unknown> {
  const { auto_accept_matches: _ignored, ...rest } = lookup.args;
  return { ...rest, [lookup.lookupByParameter]: 'id', [lookup.parameter]: id };
}

export function noMatch(
  lookup: Pick<LookupContext, 'noun' | 'parameter' | 'query'>,
  hint: string,
): ToolError {
  return new ToolError({
    kind: 'not_found',
    message: `No ${lookup.noun} matches ${JSON.stringify(lookup.query)} (\`${lookup.parameter}\`).`,
    hint,
    retryable: false,
  });
}

export function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}

/** Case-, space- and accent-insensitive form used for exact comparisons. */
export function normalize(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}
