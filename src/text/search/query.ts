// The query language of issue search (see issueSearch.ts for the language): a lexer, a recursive-descent
// parser and a normalisation step that analyses each word the way documents are analysed (analyzer.ts), drops
// what analyses to nothing, flattens nested groups and checks where NOT may stand. Every way a query can be
// wrong is a QuerySyntaxError that says where and how to fix it.

import { analyzeQueryText, type QueryTerm } from './analyzer.js';

export type { QueryTerm };

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

const MAX_NESTING = 32;

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
