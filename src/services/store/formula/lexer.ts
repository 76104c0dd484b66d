// Splits an Airtable formula into tokens. Field references come out already unescaped: `{Unit \} Price}`
// is the field "Unit } Price"; strings likewise lose their quotes and escapes. Positions are 0-based
// offsets into the source, for syntax errors.

import { syntaxError } from './errors.js';

export type Operator = '+' | '-' | '*' | '/' | '&' | '=' | '!=' | '<' | '>' | '<=' | '>=';

export type Token =
  | { kind: 'number'; value: number; pos: number }
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'field'; name: string; pos: number }
  | { kind: 'ident'; name: string; pos: number }
  | { kind: 'op'; op: Operator; pos: number }
  | { kind: '(' | ')' | ','; pos: number }
  | { kind: 'eof'; pos: number };

const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const IDENT = /[\p{L}_][\p{L}\p{N}_]*/uy;
const WHITESPACE = /\s/;
const SMART_QUOTES = new Set(['\u2018', '\u2019', '\u201c', '\u201d']);

const STRING_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', "'": "'", '\\': '\\' };

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (WHITESPACE.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === '{') {
      const { name, end } = readFieldName(source, i);
      tokens.push({ kind: 'field', name, pos: start });
      i = end;
    } else if (c === '"' || c === "'") {
      const { value, end } = readString(source, i);
      tokens.push({ kind: 'string', value, pos: start });
      i = end;
    } else if (/[0-9.]/.test(c)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(source);
      if (!m) throw syntaxError(i, `unexpected character "${c}"`);
      tokens.push({ kind: 'number', value: Number(m[0]), pos: start });
      i += m[0].length;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c, pos: start });
      i++;
    } else if ('+-*/&='.includes(c)) {
      tokens.push({ kind: 'op', op: c as Operator, pos: start });
      i++;
    } else if (c === '<' || c === '>' || c === '!') {
      const two = source.slice(i, i + 2);
      if (two === '<=' || two === '>=' || two === '!=') {
        tokens.push({ kind: 'op', op: two, pos: start });
        i += 2;
      } else if (c === '!') {
        throw syntaxError(i, 'unexpected character "!" (the only operator with "!" is "!=")');
      } else {
        tokens.push({ kind: 'op', op: c, pos: start });
        i++;
      }
    } else {
      IDENT.lastIndex = i;
      const m = IDENT.exec(source);
      if (m) {
        tokens.push({ kind: 'ident', name: m[0], pos: start });
        i += m[0].length;
      } else if (SMART_QUOTES.has(c)) {
        throw syntaxError(i, `curly quote ${c} is not a string delimiter; use straight quotes (" or ')`);
      } else {
        throw syntaxError(i, `unexpected character "${c}"`);
      }
    }
  }
  tokens.push({ kind: 'eof', pos: source.length });
  return tokens;
}

function readFieldName(source: string, open: number): { name: string; end: number } {
  let name = '';
  let i = open + 1;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '}') {
      if (name === '') throw syntaxError(open, 'empty field reference {}');
      return { name, end: i + 1 };
    }
    // Airtable escapes a closing brace inside a name as \}; a backslash before anything else is literal.
    if (c === '\\' && (source[i + 1] === '}' || source[i + 1] === '\\')) {
      name += source[i + 1];
      i += 2;
      continue;
    }
    name += c;
    i++;
  }
  throw syntaxError(open, 'unclosed field reference (missing "}")');
}

function readString(source: string, open: number): { value: string; end: number } {
  const quote = source[open]!;
  let value = '';
  let i = open + 1;
  while (i < source.length) {
    const c = source[i]!;
    if (c === quote) return { value, end: i + 1 };
    if (c === '\\' && i + 1 < source.length) {
      const next = source[i + 1]!;
      // An unknown escape keeps its backslash, so regex patterns written "\d+" or "\\d+" both work.
      value += STRING_ESCAPES[next] ?? `\\${next}`;
      i += 2;
      continue;
    }
    value += c;
    i++;
  }
  throw syntaxError(open, `unclosed string (missing ${quote})`);
}
