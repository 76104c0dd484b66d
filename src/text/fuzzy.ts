// Fuzzy matching of a typed name against the names and emails of users, teams and contacts, with
// a confidence in [0, 1] that callers use to decide between auto-accepting, asking, or failing.
//
// Both strings are normalised first: NFKD, diacritics removed, lower case, apostrophes removed,
// every other run of non-letters/digits becomes one space. Then:
//
//   exact      normalised strings equal                        -> 1 (the only way to reach 1)
//   charSim    1 - dist(a, b) / max(|a|, |b|) on the space-free strings, dist = Levenshtein with an
//              adjacent transposition counted as one edit; the max of the as-typed and the
//              token-sorted spellings, so word order does not matter
//   token      each query token is paired (greedily, best first, one-to-one) with a candidate token:
//                equal                       m = 1
//                prefix of it ("smi"/smith)  m = 0.8 + 0.2 * |q| / |c|
//                otherwise                   m = charSim(q, c) if >= 0.5, else 0
//              tokenScore = sum(m) / #query tokens          (unmatched query words pull it down)
//              coverage   = (sum(m) / #candidate tokens + covered chars / candidate chars) / 2
//                           where an equal token covers |c| chars, a prefix |q|, a fuzzy one m * |c|
//              partial    = tokenScore * (0.7 + 0.3 * coverage)
//   score      min(0.98, max(charSim, partial))
//
// So a one-typo full name lands near 0.9, a whole surname of a two-word name near 0.85, a short
// prefix 0.7-0.8, a reordered full name at 0.98. An email candidate ("jsmith@acme.com") also
// scores its local part as if it were the name, times 0.95, so "jsmith" or "john smith" find it;
// its domain alone is not a name and only counts through charSim on the whole address.

import { distance } from 'fastest-levenshtein';

export interface FuzzyCandidate<T> {
  item: T;
  /** In [0, 1]; 1 only for an exact (normalised) match. */
  score: number;
  /** The key (as returned by `keys`) that gave the best score. */
  matchedOn: string;
}

const MAX_INEXACT = 0.98;
const EMAIL_LOCAL_FACTOR = 0.95;
const PARTIAL_BASE = 0.7;
const PREFIX_BASE = 0.8;
const MIN_FUZZY_TOKEN = 0.5;
const DEFAULT_LIMIT = 10;
const DEFAULT_MIN_SCORE = 0.3;

interface Prepared {
  normalised: string;
  tokens: string[];
  compact: string;
  sortedCompact: string;
}

function normalise(text: string): string {
  let s = text.toLowerCase();
  // Only non-ASCII text can hold diacritics or compatibility forms; skipping NFKD for plain
  // ASCII keeps ranking thousands of contacts cheap.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching anything outside ASCII is the intent
  if (/[^\x00-\x7f]/.test(s)) s = s.normalize('NFKD').replace(/\p{M}/gu, '');
  return s
    .replace(/['\u2019]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function prepare(text: string): Prepared {
  const normalised = normalise(text);
  const tokens = normalised === '' ? [] : normalised.split(' ');
  return {
    normalised,
    tokens,
    compact: tokens.join(''),
    sortedCompact: [...tokens].sort().join(''),
  };
}

/** Levenshtein, except that adjacent swaps ("jonh"/"john"), the commonest typing slip, cost one edit
 * instead of two. The swap count is an upper bound of the true restricted edit distance, so taking
 * the minimum never under-counts. */
function editDistance(a: string, b: string): number {
  const lev = distance(a, b);
  if (lev < 2 || a.length !== b.length) return lev;
  let edits = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i]) i++;
    edits++;
    if (edits >= lev) return lev;
  }
  return edits;
}

function charSim(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 0;
  return 1 - editDistance(a, b) / longest;
}

interface TokenPair {
  q: number;
  c: number;
  m: number;
  covered: number;
}

function tokenPair(q: string, c: string, qi: number, ci: number): TokenPair | undefined {
  if (q === c) return { q: qi, c: ci, m: 1, covered: c.length };
  if (c.startsWith(q)) {
    return { q: qi, c: ci, m: PREFIX_BASE + (1 - PREFIX_BASE) * (q.length / c.length), covered: q.length };
  }
  const m = charSim(q, c);
  return m >= MIN_FUZZY_TOKEN ? { q: qi, c: ci, m, covered: m * c.length } : undefined;
}

function partialScore(query: Prepared, candidate: Prepared): number {
  const pairs: TokenPair[] = [];
  query.tokens.forEach((q, qi) => {
    candidate.tokens.forEach((c, ci) => {
      const pair = tokenPair(q, c, qi, ci);
      if (pair) pairs.push(pair);
    });
  });
  // Ties (same m) go to the earlier tokens so the result does not depend on sort stability quirks.
  pairs.sort((x, y) => y.m - x.m || x.q - y.q || x.c - y.c);
  const usedQ = new Set<number>();
  const usedC = new Set<number>();
  let mSum = 0;
  let coveredChars = 0;
  for (const pair of pairs) {
    if (usedQ.has(pair.q) || usedC.has(pair.c)) continue;
    usedQ.add(pair.q);
    usedC.add(pair.c);
    mSum += pair.m;
    coveredChars += pair.covered;
  }
  const tokenScore = mSum / query.tokens.length;
  const coverage = (mSum / candidate.tokens.length + coveredChars / candidate.compact.length) / 2;
  return tokenScore * (PARTIAL_BASE + (1 - PARTIAL_BASE) * coverage);
}

function wholeSimilarity(query: Prepared, candidate: Prepared): number {
  return Math.max(
    charSim(query.compact, candidate.compact),
    charSim(query.sortedCompact, candidate.sortedCompact),
  );
}

function scoreName(query: Prepared, candidate: Prepared): number {
  if (query.compact === '' || candidate.compact === '') return 0;
  if (query.normalised === candidate.normalised) return 1;
  return Math.min(MAX_INEXACT, Math.max(wholeSimilarity(query, candidate), partialScore(query, candidate)));
}

const EMAIL = /^([^\s@]+)@[^\s@]+$/;

function scorePrepared(query: Prepared, rawCandidate: string): number {
  const candidate = prepare(rawCandidate);
  if (query.compact === '' || candidate.compact === '') return 0;
  if (query.normalised === candidate.normalised) return 1;
  const local = EMAIL.exec(rawCandidate.trim())?.[1];
  if (local === undefined) return scoreName(query, candidate);
  const whole = Math.min(MAX_INEXACT, wholeSimilarity(query, candidate));
  return Math.max(whole, EMAIL_LOCAL_FACTOR * scoreName(query, prepare(local)));
}

/** Similarity in [0, 1] of a typed name to a candidate name or email; 1 only when both normalise to
 * the same string, 0 when either has no letters or digits. */
export function nameSimilarity(query: string, candidate: string): number {
  return scorePrepared(prepare(query), candidate);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Best-matching key per item, sorted by score (desc) then matched key (asc), keeping scores >=
 * minScore (default 0.3), at most limit (default 10) results. */
export function rankByName<T>(
  query: string,
  items: readonly T[],
  keys: (item: T) => string[],
  opts: { limit?: number; minScore?: number } = {},
): FuzzyCandidate<T>[] {
  const limit = opts.limit === undefined || Number.isNaN(opts.limit) ? DEFAULT_LIMIT : opts.limit;
  const minScore = opts.minScore ?? DEFAULT_MIN_SCORE;
  const prepared = prepare(query);
  const results: FuzzyCandidate<T>[] = [];
  for (const item of items) {
    let best: FuzzyCandidate<T> | undefined;
    for (const key of keys(item)) {
      // Keys usually come straight from API records, where an email typed as string can still be
      // null at runtime; such a key is skipped rather than crashing the whole lookup.
      if (typeof key !== 'string' || key === '') continue;
      const score = scorePrepared(prepared, key);
      if (
        best === undefined ||
        score > best.score ||
        (score === best.score && compareStrings(key, best.matchedOn) < 0)
      ) {
        best = { item, score, matchedOn: key };
      }
    }
    if (best !== undefined && best.score >= minScore) results.push(best);
  }
  results.sort((a, b) => b.score - a.score || compareStrings(a.matchedOn, b.matchedOn));
  return results.slice(0, Math.max(0, Math.floor(limit)));
}
