// Parses a formula into a syntax tree, with Airtable's operator precedence, loosest first:
//
//   comparison  = != < > <= >=
//   concat      &
//   additive    + -
//   term        * /
//   unary       -
//   primary     number, string, {field}, bare field name, TRUE/FALSE, NAME(args), (expr)
//
// A run of operators of one level is kept as one flat node rather than a left-leaning tree, so that
// `a & b & c & ...` over a long formula does not make the evaluator recurse once per operator; only
// parentheses, calls and unary minus nest, and that nesting is capped so hostile input gets a syntax
// error instead of a stack overflow.

import { syntaxError } from './errors.js';
import { type Operator, type Token, tokenize } from './lexer.js';

export type FormulaNode =
  | { kind: 'number'; value: number; pos: number }
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'boolean'; value: boolean; pos: number }
  /** `name` as written; `braced` is false for a bare word. */
  | { kind: 'field'; name: string; braced: boolean; pos: number }
  /** `name` upper-cased: function names are case-insensitive. */
  | { kind: 'call'; name: string; args: FormulaNode[]; pos: number }
  | { kind: 'negate'; operand: FormulaNode; pos: number }
  /** operands[0] ops[0] operands[1] ops[1] ... evaluated left to right. */
  | { kind: 'binary'; operands: FormulaNode[]; ops: Operator[]; pos: number };

export const MAX_NESTING = 200;

const LEVELS: readonly (readonly Operator[])[] = [
  ['=', '!=', '<', '>', '<=', '>='],
  ['&'],
  ['+', '-'],
  ['*', '/'],
];

export function parseFormula(source: string): FormulaNode {
  return new Parser(tokenize(source)).parseAll();
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parseAll(): FormulaNode {
    if (this.peek().kind === 'eof') throw syntaxError(0, 'the formula is empty');
    const node = this.parseExpression();
    const rest = this.peek();
    if (rest.kind !== 'eof') throw syntaxError(rest.pos, `unexpected ${describe(rest)}`);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private next(): Token {
    const token = this.tokens[this.index]!;
    if (token.kind !== 'eof') this.index++;
    return token;
  }

  private enter(pos: number): void {
    this.depth++;
    if (this.depth > MAX_NESTING) {
      throw syntaxError(pos, `the formula is nested more than ${MAX_NESTING} levels deep`);
    }
  }

  private parseExpression(): FormulaNode {
    this.enter(this.peek().pos);
    const node = this.parseLevel(0);
    this.depth--;
    return node;
  }

  private parseLevel(level: number): FormulaNode {
    const ops = LEVELS[level];
    if (!ops) return this.parseUnary();
    const first = this.parseLevel(level + 1);
    const operands = [first];
    const found: Operator[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'op' || !ops.includes(token.op)) break;
      this.next();
      found.push(token.op);
      operands.push(this.parseLevel(level + 1));
    }
    return found.length === 0 ? first : { kind: 'binary', operands, ops: found, pos: first.pos };
  }

  private parseUnary(): FormulaNode {
    const token = this.peek();
    if (token.kind === 'op' && token.op === '-') {
      this.next();
      this.enter(token.pos);
      const operand = this.parseUnary();
      this.depth--;
      return { kind: 'negate', operand, pos: token.pos };
    }
    return this.parsePrimary();
  }

  private parsePrimary(): FormulaNode {
    const token = this.next();
    switch (token.kind) {
      case 'number':
        return { kind: 'number', value: token.value, pos: token.pos };
      case 'string':
        return { kind: 'string', value: token.value, pos: token.pos };
      case 'field':
        return { kind: 'field', name: token.name, braced: true, pos: token.pos };
      case 'ident':
        return this.parseIdentifier(token.name, token.pos);
      case '(': {
        const inner = this.parseExpression();
        this.expect(')', token.pos, 'unclosed parenthesis (missing ")")');
        return inner;
      }
      default:
        throw syntaxError(token.pos, `expected a value but found ${describe(token)}`);
    }
  }

  private parseIdentifier(name: string, pos: number): FormulaNode {
    if (this.peek().kind === '(') {
      const open = this.next();
      const args: FormulaNode[] = [];
      if (this.peek().kind !== ')') {
        for (;;) {
          args.push(this.parseExpression());
          if (this.peek().kind !== ',') break;
          this.next();
        }
      }
      this.expect(')', open.pos, `unclosed argument list of ${name.toUpperCase()} (missing ")")`);
      return { kind: 'call', name: name.toUpperCase(), args, pos };
    }
    const upper = name.toUpperCase();
    if (upper === 'TRUE' || upper === 'FALSE') return { kind: 'boolean', value: upper === 'TRUE', pos };
    return { kind: 'field', name, braced: false, pos };
  }

  private expect(kind: ')', openPos: number, unclosed: string): void {
    const token = this.peek();
    if (token.kind === kind) {
      this.next();
      return;
    }
    if (token.kind === 'eof') throw syntaxError(openPos, unclosed);
    throw syntaxError(token.pos, `expected "${kind}" but found ${describe(token)}`);
  }
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'eof':
      return 'the end of the formula';
    case 'number':
      return `the number ${token.value}`;
    case 'string':
      return `the string ${JSON.stringify(token.value)}`;
    case 'field':
      return `the field reference {${token.name}}`;
    case 'ident':
      return `"${token.name}"`;
    case 'op':
      return `"${token.op}"`;
    default:
      return `"${token.kind}"`;
  }
}
