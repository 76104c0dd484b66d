// Ranking for issue search: BM25 (minisearch) over title and body, the title weighing double, computed from
// statistics built here for the query's terms only (buildIndex), then narrowed to the documents that truly
// match (phrases are checked for adjacency) and ordered by score, ties by id.

import MiniSearch, { type AsPlainObject, type Query } from 'minisearch';
import {
  analyzeFolded,
  countTerms,
  countTermsAscii,
  type PreparedField,
  prefixKeys,
  prepareField,
} from './analyzer.js';
import { parseQuery, type QueryNode, type QueryTerm } from './query.js';

export interface SearchDoc {
  id: string;
  title: string;
  /** Plain text. */
  body: string;
}

export interface SearchHit {
  id: string;
  score: number;
  /** Query terms (lower case, accents removed, as written in the query) that occur in the doc. */
  matchedTerms: string[];
  /** Fraction (0..1) of the query's positive (not excluded) terms occurring in the title or body. */
  coverage: number;
}
const TITLE_BOOST = 2;
const DEFAULT_LIMIT = 20;

/** A document that holds at least one query term; its term arrays are built only when needed. */
class MatchedDoc {
  private termLists: [string[], string[]] | undefined;
  private termSet: Set<string> | undefined;

  constructor(private readonly fields: readonly [PreparedField, PreparedField]) {}

  private lists(): [string[], string[]] {
    this.termLists ??= [
      this.fields[0].terms ?? analyzeFolded(this.fields[0].text).terms,
      this.fields[1].terms ?? analyzeFolded(this.fields[1].text).terms,
    ];
    return this.termLists;
  }

  has(term: string): boolean {
    this.termSet ??= new Set([...this.lists()[0], ...this.lists()[1]]);
    return this.termSet.has(term);
  }

  hasPhrase(terms: readonly QueryTerm[]): boolean {
    const sequence = terms.map((t) => t.term);
    const [title, body] = this.lists();
    // A phrase does not run from the end of the title into the body.
    return containsSequence(title, sequence) || containsSequence(body, sequence);
  }
}

function collectTerms(node: QueryNode, out: Set<string>): void {
  switch (node.type) {
    case 'term':
      out.add(node.term);
      return;
    case 'phrase':
      for (const t of node.terms) out.add(t.term);
      return;
    case 'not':
      collectTerms(node.child, out);
      return;
    default:
      for (const child of node.children) collectTerms(child, out);
  }
}

/** Translates the tree into minisearch's query tree. minisearch can only treat a phrase as the AND
 * of its words, which matches more documents than the phrase does. So each subtree is compiled as a
 * superset of what it should match when it counts positively, and as a subset (a phrase becomes
 * "nothing") under a NOT; the result is then a superset of the true matches, which the adjacency
 * check narrows. Returns undefined for "matches nothing". */
function toMiniSearch(node: QueryNode, mode: 'superset' | 'subset'): Query | undefined {
  switch (node.type) {
    case 'term':
      return node.term;
    case 'phrase': {
      if (mode === 'subset') return undefined;
      return { combineWith: 'AND', queries: [...new Set(node.terms.map((t) => t.term))] };
    }
    case 'or': {
      const queries = node.children.map((c) => toMiniSearch(c, mode)).filter((q) => q !== undefined);
      return queries.length === 0 ? undefined : { combineWith: 'OR', queries };
    }
    case 'and': {
      const positives: Query[] = [];
      const negatives: Query[] = [];
      for (const child of node.children) {
        if (child.type === 'not') {
          const excluded = toMiniSearch(child.child, mode === 'superset' ? 'subset' : 'superset');
          if (excluded !== undefined) negatives.push(excluded);
        } else {
          const included = toMiniSearch(child, mode);
          if (included === undefined) return undefined;
          positives.push(included);
        }
      }
      const included: Query =
        positives.length === 1 && positives[0] !== undefined
          ? positives[0]
          : { combineWith: 'AND', queries: positives };
      return negatives.length === 0
        ? included
        : { combineWith: 'AND_NOT', queries: [included, ...negatives] };
    }
    case 'not':
      // validate() guarantees a NOT only sits inside an AND, which handles it above.
      return undefined;
  }
}

function hasPhrase(node: QueryNode): boolean {
  switch (node.type) {
    case 'term':
      return false;
    case 'phrase':
      return true;
    case 'not':
      return hasPhrase(node.child);
    default:
      return node.children.some(hasPhrase);
  }
}

function containsSequence(tokens: readonly string[], sequence: readonly string[]): boolean {
  const first = sequence[0] ?? '';
  outer: for (let i = tokens.indexOf(first); i >= 0; i = tokens.indexOf(first, i + 1)) {
    for (let j = 1; j < sequence.length; j++) {
      if (tokens[i + j] !== sequence[j]) continue outer;
    }
    return true;
  }
  return false;
}

function matches(node: QueryNode, doc: MatchedDoc): boolean {
  switch (node.type) {
    case 'term':
      return doc.has(node.term);
    case 'phrase':
      return doc.hasPhrase(node.terms);
    case 'not':
      return !matches(node.child, doc);
    case 'and':
      return node.children.every((child) => matches(child, doc));
    case 'or':
      return node.children.some((child) => matches(child, doc));
  }
}

/** BM25 statistics for the query's terms only, in the shape minisearch serialises its index to.
 *
 * Letting minisearch tokenise and index every document itself costs about a second for 10,000
 * issues, nearly all of it spent inserting words no query asks about. BM25 needs little: the
 * document count, each field's average length, and for each query term the documents and fields
 * holding it with its frequency and the field's length. Built here and loaded with
 * MiniSearch.loadJS (public API), minisearch then scores, boosts and combines as if it had indexed
 * everything, with one difference: a field's length is its word count, stop words included, where
 * minisearch counts distinct terms. */
function buildIndex(
  docs: readonly SearchDoc[],
  queryTerms: ReadonlySet<string>,
): { index: AsPlainObject; matched: Map<number, MatchedDoc> } {
  const keys = prefixKeys(queryTerms);
  const postings = new Map<string, [Record<string, number>, Record<string, number>]>();
  for (const term of queryTerms) postings.set(term, [{}, {}]);
  const documentIds: Record<string, number> = {};
  const fieldLength: Record<string, number[]> = {};
  const matched = new Map<number, MatchedDoc>();
  const totalLength = [0, 0];
  const counts = new Map<string, number>();

  docs.forEach((doc, i) => {
    const fields = [prepareField(doc.title), prepareField(doc.body)] as const;
    let found = false;
    fields.forEach((field, f) => {
      totalLength[f] = (totalLength[f] ?? 0) + field.length;
      counts.clear();
      if (field.terms) countTerms(field.terms, queryTerms, counts);
      else countTermsAscii(field.text, keys, queryTerms, counts);
      for (const [term, count] of counts) {
        const perField = postings.get(term)?.[f];
        if (perField !== undefined) perField[i] = count;
        found = true;
      }
    });
    if (!found) return;
    documentIds[i] = i;
    fieldLength[i] = [fields[0].length, fields[1].length];
    matched.set(i, new MatchedDoc(fields));
  });

  const index: AsPlainObject = {
    documentCount: docs.length,
    nextId: docs.length,
    documentIds,
    fieldIds: { title: 0, body: 1 },
    fieldLength,
    averageFieldLength: totalLength.map((total) => total / docs.length),
    storedFields: {},
    dirtCount: 0,
    index: [...postings].map(([term, [title, body]]) => [term, { 0: title, 1: body }]),
    serializationVersion: 2,
  };
  return { index, matched };
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Ranks docs against the query: BM25 score descending, ties by id ascending, at most `limit`
 * (default 20) hits. Throws QuerySyntaxError for an invalid query, even when docs is empty. */
export function rankDocuments(
  docs: readonly SearchDoc[],
  query: string,
  opts: { limit?: number } = {},
): SearchHit[] {
  const parsed = parseQuery(query);
  const limit = opts.limit === undefined || Number.isNaN(opts.limit) ? DEFAULT_LIMIT : Math.floor(opts.limit);
  if (docs.length === 0 || limit <= 0) return [];
  const miniQuery = toMiniSearch(parsed.root, 'superset');
  if (miniQuery === undefined) return [];

  const queryTerms = new Set<string>();
  collectTerms(parsed.root, queryTerms);
  const { index, matched } = buildIndex(docs, queryTerms);
  // Positions in `docs` serve as minisearch ids, so caller ids need not be unique.
  const search = MiniSearch.loadJS<unknown>(index, {
    fields: ['title', 'body'],
    searchOptions: { boost: { title: TITLE_BOOST }, prefix: false, fuzzy: false },
    // Query leaves are already analysed single terms: nothing may change them.
    tokenize: (text) => [text],
    processTerm: (term) => term,
  });

  const verify = hasPhrase(parsed.root);
  const candidates: { i: number; doc: MatchedDoc; score: number }[] = [];
  for (const result of search.search(miniQuery)) {
    // SearchResult.id is typed `any` by minisearch; it is the numeric position we indexed under.
    const i = result.id as number;
    const doc = matched.get(i);
    if (doc === undefined || (verify && !matches(parsed.root, doc))) continue;
    candidates.push({ i, doc, score: result.score });
  }
  candidates.sort((a, b) => b.score - a.score || compareIds(docs[a.i]?.id ?? '', docs[b.i]?.id ?? ''));

  const positive = parsed.positiveTerms;
  return candidates.slice(0, limit).map(({ i, doc, score }) => {
    const matchedTerms = positive.filter((t) => doc.has(t.term)).map((t) => t.text);
    return {
      id: docs[i]?.id ?? '',
      score,
      matchedTerms,
      coverage: matchedTerms.length / positive.length,
    };
  });
}
