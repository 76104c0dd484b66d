// Keyword search over issues: parses the query language below and ranks documents with BM25
// (minisearch) over title and body, the title weighing double.
//
// Query language:
//   login error          both words must occur (AND is the default; an explicit AND is allowed)
//   refund OR chargeback either word; OR binds looser than AND: "a b OR c" means "(a b) OR c"
//   crash -android       excludes issues containing "android"; "NOT android" is the same
//   (refund OR chargeback) -duplicate      parentheses group
//   "out of memory"      the words must occur next to each other, in this order
// Case and accents are ignored, and simple English endings are folded, so "crash" also finds
// "crashes", "crashed" and "crashing". Punctuation separates words ("e-mail" is the phrase
// "e mail"). Lowercase "and", "or", "not" and other very common words ("the", "of", "to"...)
// are ignored. A query must contain at least one word that is not excluded; "OR -a" is not
// allowed, exclude from the whole group instead: "(a OR b) -c".
//
// Tokenising, stemming and stop words are applied identically to documents and query here, and
// minisearch receives ready-made statistics for the query's terms (see buildIndex). The token
// arrays kept for matching documents let phrases be checked for true adjacency and make coverage
// exact.

import MiniSearch, { type AsPlainObject, type Query } from 'minisearch';

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

export interface QueryTerm {
  /** Index key: folded and stemmed. */
  term: string;
  /** The word as written in the query, folded (lower case, no accents) but not stemmed. */
  text: string;
}

/** Parsed query. A `not` node only ever appears as a child of an `and` node that also has at least
 * one child that is not a `not`, so every query has something to rank. */
export type QueryNode =
  | ({ type: 'term' } & QueryTerm)
  | { type: 'phrase'; terms: QueryTerm[] }
  | { type: 'and'; children: QueryNode[] }
  | { type: 'or'; children: QueryNode[] }
  | { type: 'not'; child: QueryNode };

export interface ParsedQuery {
  root: QueryNode;
  /** Distinct (by `term`) terms not under a NOT, in query order; the denominator of coverage. */
  positiveTerms: QueryTerm[];
}

export class QuerySyntaxError extends Error {
  override name = 'QuerySyntaxError';
}

const TITLE_BOOST = 2;
const DEFAULT_LIMIT = 20;
const MAX_NESTING = 32;

// Words too common to discriminate between issues. Lowercase "and", "or", "not" are ordinary words
// (not operators) and, like the rest, carry too little meaning to rank on.
const STOP_WORDS = new Set(
  `a an and are as at be but by for from if in into is it its not of on
   or so than that the then this to was were with`.split(/\s+/),
);

// ---------------------------------------------------------------------------------------------
// Text analysis

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching "anything outside ASCII" is the intent
const NON_ASCII = /[^\x00-\x7f]/;
const ASCII_SEPARATORS = /[^a-z0-9]+/;
const UNICODE_SEPARATORS = /[^\p{L}\p{N}]+/u;
const COMBINING_MARKS = /\p{M}/gu;
const APOSTROPHES = /['\u2019]/g;

function fold(text: string): string {
  let s = text.toLowerCase();
  // NFKD is by far the slowest step and plain ASCII text (most issues) has nothing to fold.
  // Lower-cased again after NFKD: compatibility forms such as fullwidth "Ａ" decompose to capitals.
  if (NON_ASCII.test(s)) s = s.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase();
  // "don't" must stay one word rather than become "don" + "t".
  return s.includes("'") || s.includes('\u2019') ? s.replace(APOSTROPHES, '') : s;
}

function splitWords(folded: string): string[] {
  return folded.split(NON_ASCII.test(folded) ? UNICODE_SEPARATORS : ASCII_SEPARATORS);
}

const DOUBLE_CONSONANT = /([b-df-hj-np-tv-z])\1$/;
const VOWEL = /[aeiouy]/;
const LOWER_LATIN = /^[a-z]+$/;

/** A deliberately small suffix stripper (plural -s/-es/-ies, -ed, -ing, final -e) so that crash,
 * crashes, crashed and crashing, or update, updates, updated and updating, share one index term.
 * Porter-style rules beyond these misfire on product names and error codes more often than they
 * help recall in support tickets. Words of 3 letters or fewer, and anything that is not plain a-z
 * (numbers, ids like "v2", other scripts), are left alone. */
export function stem(word: string): string {
  if (word.length <= 3 || !LOWER_LATIN.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);

  let verbal = false;
  if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ing') && w.length >= 6 && VOWEL.test(w.slice(0, -3))) {
    w = w.slice(0, -3);
    verbal = true;
  } else if (w.endsWith('ed') && w.length >= 5 && VOWEL.test(w.slice(0, -2))) {
    w = w.slice(0, -2);
    verbal = true;
  }
  // shipping -> shipp -> ship, but billing -> bill and missed -> miss keep their double letter.
  if (verbal && DOUBLE_CONSONANT.test(w) && !/(?:ll|ss|zz|ff)$/.test(w)) w = w.slice(0, -1);
  // update/updated/updating all become "updat"; closing and close both become "clos".
  if (w.endsWith('e') && w.length >= 4) w = w.slice(0, -1);
  return w;
}

// Vocabularies repeat heavily across issues, so stemming is memoised; the cap keeps a long-running
// server from growing the cache without bound on ever-new tokens (ids, hashes).
const STEM_CACHE_LIMIT = 50_000;
const stemCache = new Map<string, string>();

function cachedStem(word: string): string {
  let stemmed = stemCache.get(word);
  if (stemmed === undefined) {
    stemmed = stem(word);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(word, stemmed);
  }
  return stemmed;
}

function analyzeQueryText(text: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  for (const word of splitWords(fold(text))) {
    if (word === '' || STOP_WORDS.has(word)) continue;
    terms.push({ term: cachedStem(word), text: word });
  }
  return terms;
}

// ---------------------------------------------------------------------------------------------
// Lexer

type Token =
  | { kind: 'word' | 'phrase'; text: string; pos: number }
  | { kind: 'or' | 'and' | 'not' | 'minus' | 'lparen' | 'rparen'; pos: number };

// A Map, not an object literal: a word like "constructor" must not be found on Object.prototype.
const OPERATOR_WORDS = new Map<string, 'or' | 'and' | 'not'>([
  ['OR', 'or'],
  ['AND', 'and'],
  ['NOT', 'not'],
]);
const WHITESPACE = /\s/;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

function isWordBoundary(ch: string): boolean {
  return ch === '(' || ch === ')' || ch === '"' || WHITESPACE.test(ch);
}

/** 1-based, counted in characters as a person would count them (emoji = 1). */
function column(query: string, index: number): number {
  return [...query.slice(0, index)].length + 1;
}

function lex(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const ch = query[i] ?? '';
    if (WHITESPACE.test(ch)) {
      i++;
    } else if (ch === '(' || ch === ')') {
      tokens.push({ kind: ch === '(' ? 'lparen' : 'rparen', pos: i });
      i++;
    } else if (ch === '"') {
      const end = query.indexOf('"', i + 1);
      if (end < 0) {
        throw new QuerySyntaxError(
          `Unclosed quote: the " at position ${column(query, i)} has no closing ". ` +
            'Close the phrase with another " or remove the quote.',
        );
      }
      tokens.push({ kind: 'phrase', text: query.slice(i + 1, end), pos: i });
      i = end + 1;
    } else if (ch === '-' && startsTerm(query, i + 1)) {
      tokens.push({ kind: 'minus', pos: i });
      i++;
    } else {
      const start = i;
      while (i < query.length && !isWordBoundary(query[i] ?? '')) i++;
      const text = query.slice(start, i);
      const operator = OPERATOR_WORDS.get(text);
      tokens.push(operator ? { kind: operator, pos: start } : { kind: 'word', text, pos: start });
    }
  }
  return tokens;
}

/** "-" negates only when glued to a term, a group or a phrase: "a - b" and "--verbose" keep their
 * dash as punctuation instead of turning into (double) negations. */
function startsTerm(query: string, index: number): boolean {
  const next = query.codePointAt(index);
  if (next === undefined) return false;
  const ch = String.fromCodePoint(next);
  return ch === '(' || ch === '"' || LETTER_OR_DIGIT.test(ch);
}

// ---------------------------------------------------------------------------------------------
// Parser: or := and (OR and)* ; and := unary (AND? unary)* ; unary := (NOT | -) primary | primary ;
// primary := ( or ) | phrase | word

type RawNode =
  | { type: 'word' | 'phrase'; text: string }
  | { type: 'and' | 'or'; children: RawNode[] }
  | { type: 'not'; child: RawNode };

class Parser {
  private index = 0;
  private depth = 0;

  constructor(
    private readonly query: string,
    private readonly tokens: Token[],
  ) {}

  parse(): RawNode {
    const node = this.parseOr();
    const extra = this.peek();
    if (extra !== undefined) {
      // parseOr only stops early at a ")" it was not expecting.
      throw new QuerySyntaxError(
        `Unbalanced parentheses: the ")" at position ${this.at(extra)} has no matching "(". ` +
          'Remove it or add a "(" before it.',
      );
    }
    return node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }

  private at(token: Token): number {
    return column(this.query, token.pos);
  }

  private parseOr(): RawNode {
    const branches = [this.parseAnd()];
    for (let token = this.peek(); token?.kind === 'or'; token = this.peek()) {
      this.index++;
      const next = this.peek();
      if (next === undefined || next.kind === 'rparen' || next.kind === 'or' || next.kind === 'and') {
        throw new QuerySyntaxError(
          `"OR" at position ${this.at(token)} has nothing after it. ` +
            'OR goes between two alternatives, e.g. "refund OR chargeback".',
        );
      }
      branches.push(this.parseAnd());
    }
    return branches.length === 1 && branches[0] ? branches[0] : { type: 'or', children: branches };
  }

  private parseAnd(): RawNode {
    const items: RawNode[] = [];
    for (let token = this.peek(); token !== undefined; token = this.peek()) {
      if (token.kind === 'rparen' || token.kind === 'or') break;
      if (token.kind === 'and') {
        this.index++;
        const next = this.peek();
        if (items.length === 0 || next === undefined || ['rparen', 'or', 'and'].includes(next.kind)) {
          throw new QuerySyntaxError(
            `"AND" at position ${this.at(token)} needs a term on both sides, e.g. "login AND error" ` +
              '(AND is also the default: "login error" means the same).',
          );
        }
        continue;
      }
      items.push(this.parseUnary());
    }
    if (items.length === 0) throw this.emptyOperandError();
    return items.length === 1 && items[0] ? items[0] : { type: 'and', children: items };
  }

  private emptyOperandError(): QuerySyntaxError {
    const token = this.peek();
    const previous = this.tokens[this.index - 1];
    if (token?.kind === 'or') {
      return new QuerySyntaxError(
        `"OR" at position ${this.at(token)} has nothing before it. ` +
          'OR goes between two alternatives, e.g. "refund OR chargeback".',
      );
    }
    if (token === undefined && previous?.kind === 'lparen') {
      return new QuerySyntaxError(
        `Unbalanced parentheses: the "(" at position ${this.at(previous)} is never closed. ` +
          'Add a ")" after the group or remove the "(".',
      );
    }
    if (token?.kind === 'rparen' && previous?.kind === 'lparen') {
      return new QuerySyntaxError(
        `Empty parentheses at position ${this.at(previous)}. Put search terms inside them or remove them.`,
      );
    }
    if (token?.kind === 'rparen') {
      return new QuerySyntaxError(
        `Unbalanced parentheses: the ")" at position ${this.at(token)} has no matching "(". ` +
          'Remove it or add a "(" before it.',
      );
    }
    return new QuerySyntaxError(
      'The query is empty. Give at least one word to search for, e.g. "login error".',
    );
  }

  private parseUnary(): RawNode {
    const token = this.peek();
    if (token?.kind !== 'not' && token?.kind !== 'minus') return this.parsePrimary();
    this.index++;
    const operator = token.kind === 'not' ? '"NOT"' : '"-"';
    const next = this.peek();
    if (next?.kind === 'not' || next?.kind === 'minus') {
      throw new QuerySyntaxError(
        `Double negation at position ${this.at(token)}: ${operator} is followed by another NOT or "-". ` +
          'Remove one of them.',
      );
    }
    if (next === undefined || next.kind === 'rparen' || next.kind === 'or' || next.kind === 'and') {
      throw new QuerySyntaxError(
        `${operator} at position ${this.at(token)} is not followed by anything to exclude, ` +
          'e.g. "login NOT sso" or "login -sso".',
      );
    }
    return { type: 'not', child: this.parsePrimary() };
  }

  private parsePrimary(): RawNode {
    const token = this.peek();
    if (token === undefined) throw this.emptyOperandError();
    this.index++;
    switch (token.kind) {
      case 'word':
      case 'phrase':
        return { type: token.kind, text: token.text };
      case 'lparen': {
        if (++this.depth > MAX_NESTING) {
          throw new QuerySyntaxError(
            `Parentheses are nested more than ${MAX_NESTING} levels deep at position ${this.at(token)}. ` +
              'Simplify the query.',
          );
        }
        const inner = this.parseOr();
        const close = this.peek();
        if (close?.kind !== 'rparen') {
          throw new QuerySyntaxError(
            `Unbalanced parentheses: the "(" at position ${this.at(token)} is never closed. ` +
              'Add a ")" after the group or remove the "(".',
          );
        }
        this.index++;
        this.depth--;
        return inner;
      }
      default:
        // parseAnd/parseUnary never hand over an operator or ")"; kept as a guard, not a code path.
        throw new QuerySyntaxError(`Unexpected "${token.kind}" at position ${this.at(token)}.`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Normalisation: analyse words, drop what analyses to nothing, flatten, validate NOT placement.

function nodeKey(node: QueryNode): string {
  switch (node.type) {
    case 'term':
      return `t:${node.term}`;
    case 'phrase':
      return `p:${node.terms.map((t) => t.term).join(' ')}`;
    case 'not':
      return `n(${nodeKey(node.child)})`;
    default:
      return `${node.type}(${node.children.map(nodeKey).join(',')})`;
  }
}

function normalise(raw: RawNode): QueryNode | undefined {
  switch (raw.type) {
    case 'word':
    case 'phrase': {
      const terms = analyzeQueryText(raw.text);
      if (terms.length === 0) return undefined;
      if (terms.length === 1 && terms[0]) return { type: 'term', ...terms[0] };
      return { type: 'phrase', terms };
    }
    case 'not': {
      // Excluding a word that is never indexed (stop word, punctuation) excludes nothing.
      const child = normalise(raw.child);
      return child && { type: 'not', child };
    }
    default: {
      const seen = new Set<string>();
      const children: QueryNode[] = [];
      for (const rawChild of raw.children) {
        const child = normalise(rawChild);
        if (child === undefined) continue;
        // (a b) c is a b c; same for OR. Flattening also lets "(-a -b) c" find its positive term.
        for (const flat of child.type === raw.type ? child.children : [child]) {
          const key = nodeKey(flat);
          if (!seen.has(key)) {
            seen.add(key);
            children.push(flat);
          }
        }
      }
      if (children.length <= 1) return children[0];
      return { type: raw.type, children };
    }
  }
}

function onlyExcludesError(where: 'root' | 'nested'): QuerySyntaxError {
  return new QuerySyntaxError(
    where === 'root'
      ? 'The query only excludes terms (NOT / -term), so there is nothing to rank. ' +
          'Add at least one term to search for, e.g. "invoice -draft".'
      : 'A group in parentheses only excludes terms (NOT / -term). ' +
          'Put a term to search for inside it, or move the exclusions out of the group.',
  );
}

function validate(node: QueryNode, where: 'root' | 'nested'): void {
  switch (node.type) {
    case 'not':
      throw onlyExcludesError(where);
    case 'or':
      for (const child of node.children) {
        if (child.type === 'not') {
          throw new QuerySyntaxError(
            'An excluded term cannot be an alternative of OR (as in "a OR NOT b"). ' +
              'Exclude it from the whole group instead, e.g. "(a OR b) NOT c".',
          );
        }
        validate(child, 'nested');
      }
      return;
    case 'and':
      if (node.children.every((child) => child.type === 'not')) throw onlyExcludesError(where);
      for (const child of node.children) {
        if (child.type !== 'not') {
          validate(child, 'nested');
        } else if (child.child.type === 'not') {
          throw new QuerySyntaxError('Double negation, as in "-(-term)": remove one of the two exclusions.');
        } else {
          validate(child.child, 'nested');
        }
      }
      return;
    default:
      return;
  }
}

function collectPositiveTerms(node: QueryNode, out: Map<string, QueryTerm>): void {
  switch (node.type) {
    case 'term':
      if (!out.has(node.term)) out.set(node.term, { term: node.term, text: node.text });
      return;
    case 'phrase':
      for (const t of node.terms) if (!out.has(t.term)) out.set(t.term, t);
      return;
    case 'not':
      return;
    default:
      for (const child of node.children) collectPositiveTerms(child, out);
  }
}

/** Parses the query language described at the top of this module. Throws QuerySyntaxError, and
 * only that, for anything it cannot turn into a searchable query. */
export function parseQuery(query: string): ParsedQuery {
  if (typeof query !== 'string' || query.trim() === '') {
    throw new QuerySyntaxError(
      'The query is empty. Give at least one word to search for, e.g. "login error".',
    );
  }
  const raw = new Parser(query, lex(query)).parse();
  const root = normalise(raw);
  if (root === undefined) {
    throw new QuerySyntaxError(
      'The query has no searchable words: it has only punctuation, symbols or very common words ' +
        '(like "the" or "of"). Use at least one other word or number.',
    );
  }
  validate(root, 'root');
  const positive = new Map<string, QueryTerm>();
  collectPositiveTerms(root, positive);
  return { root, positiveTerms: [...positive.values()] };
}

// ---------------------------------------------------------------------------------------------
// Ranking

interface FieldAnalysis {
  terms: string[];
  /** Words in the field, stop words included: BM25's field length. */
  length: number;
}

function analyzeFolded(folded: string): FieldAnalysis {
  const terms: string[] = [];
  let length = 0;
  for (const word of splitWords(folded)) {
    if (word === '') continue;
    length++;
    if (!STOP_WORDS.has(word)) terms.push(cachedStem(word));
  }
  return { terms, length };
}

interface PreparedField {
  /** fold()ed text. */
  text: string;
  length: number;
  /** Set only for non-ASCII text, which is analysed in full up front. */
  terms?: string[];
}

const SEPARATOR = 0;
const WORD_CHAR = 1;
const APOSTROPHE = 2;
const NOT_ASCII = 3;
/** Character class of every UTF-16 code unit of lower-cased text, for the hot loop in prepareField:
 * a table lookup runs about twice as fast there as range comparisons. */
const CHAR_CLASS = (() => {
  const table = new Uint8Array(0x10000).fill(NOT_ASCII);
  table.fill(SEPARATOR, 0, 0x80);
  table.fill(WORD_CHAR, 0x61, 0x7b); // a-z
  table.fill(WORD_CHAR, 0x30, 0x3a); // 0-9
  table[0x27] = APOSTROPHE;
  return table;
})();

function isAsciiWordChar(c: number): boolean {
  return CHAR_CLASS[c] === WORD_CHAR;
}

/** fold() plus the field's word count in one pass over ASCII text (nearly every issue), without
 * building a string per word; other text goes through the general analyser. */
function prepareField(raw: string): PreparedField {
  const text = raw.toLowerCase();
  const end = text.length;
  let length = 0;
  let previous = SEPARATOR;
  let apostrophes = false;
  for (let i = 0; i < end; i++) {
    // Every UTF-16 code unit is below 0x10000, so the lookup always hits the table.
    const kind = CHAR_CLASS[text.charCodeAt(i)]!;
    if (kind > WORD_CHAR) {
      if (kind === NOT_ASCII) {
        const folded = fold(raw);
        const analysis = analyzeFolded(folded);
        return { text: folded, length: analysis.length, terms: analysis.terms };
      }
      // fold() deletes apostrophes, so one neither starts nor ends a word ("don't" is one word).
      apostrophes = true;
      continue;
    }
    // kind and previous are 0 or 1 here: counts each separator-to-word transition.
    length += kind & (previous ^ 1);
    previous = kind;
  }
  return { text: apostrophes ? text.replace(APOSTROPHES, '') : text, length };
}

/** A string every word stemming to `term` starts with: stem() only ever cuts a suffix, or (for
 * words of 5+ letters, giving stems of 3+) replaces "ies"/"ied" with "y". */
function prefixKey(term: string): string {
  return term.length >= 3 && term.endsWith('y') ? term.slice(0, -1) : term;
}

/** Keys such that no key starts with another, so each word in a text is found by at most one. */
function prefixKeys(terms: Iterable<string>): string[] {
  const kept: string[] = [];
  for (const key of [...new Set([...terms].map(prefixKey))].sort((a, b) => a.length - b.length)) {
    if (!kept.some((shorter) => key.startsWith(shorter))) kept.push(key);
  }
  return kept;
}

/** Counts the words of ASCII `text` whose term is in `terms`, looking only at words that start with
 * one of `keys` instead of analysing every word. */
function countTermsAscii(
  text: string,
  keys: readonly string[],
  terms: ReadonlySet<string>,
  counts: Map<string, number>,
): void {
  for (const key of keys) {
    let start = text.indexOf(key);
    while (start >= 0) {
      let end = start + key.length;
      if (start === 0 || !isAsciiWordChar(text.charCodeAt(start - 1))) {
        while (end < text.length && isAsciiWordChar(text.charCodeAt(end))) end++;
        const word = text.slice(start, end);
        const term = STOP_WORDS.has(word) ? undefined : cachedStem(word);
        if (term !== undefined && terms.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
      }
      start = text.indexOf(key, end);
    }
  }
}

function countTerms(
  terms: readonly string[],
  wanted: ReadonlySet<string>,
  counts: Map<string, number>,
): void {
  for (const term of terms) {
    if (wanted.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
}

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
