// The value model of the formula engine and the coercions every operator and function shares, so that
// one rule decides what a blank, a boolean, a date or a lookup array means in each context:
//
//   to text       blank ''  · number without trailing zeros ('1.5', '-0' -> '0') · boolean '1'/'0'
//                 · date ISO 8601 in UTC · array: items as text joined with ', '
//   to number     blank 0 · '' 0 · numeric text its number, other text NaN · boolean 1/0
//                 · date its epoch milliseconds · one-item array its item · longer array NaN
//   truthiness    false for blank, 0, NaN, '', false, an empty array; true otherwise (errors propagate)
//   comparison    see compareValues
//
// Errors are values (FormulaErrorValue) that operators and functions pass on rather than throw.

import { parseDateText } from './dateText.js';

export type FormulaValue = string | number | boolean | Date | null | FormulaValue[] | FormulaErrorValue;

export class FormulaErrorValue {
  constructor(
    readonly code: string,
    readonly message?: string,
  ) {}
}

/** A date tagged by SET_TIMEZONE / SET_LOCALE; an untagged Date is read in the evaluation's zone. */
export class TaggedDate extends Date {
  constructor(
    time: number,
    readonly timeZone: string | undefined,
    readonly locale: string | undefined,
  ) {
    super(time);
  }
}

export function formulaError(message: string): FormulaErrorValue {
  return new FormulaErrorValue('#ERROR!', message);
}

export function isError(value: FormulaValue): value is FormulaErrorValue {
  return value instanceof FormulaErrorValue;
}

/** The first error in a value, looking inside arrays (a lookup of a failing formula holds errors). */
export function firstError(value: FormulaValue): FormulaErrorValue | undefined {
  if (value instanceof FormulaErrorValue) return value;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = firstError(item);
      if (found) return found;
    }
  }
  return undefined;
}

export function flatten(values: readonly FormulaValue[]): FormulaValue[] {
  const out: FormulaValue[] = [];
  const walk = (items: readonly FormulaValue[]): void => {
    for (const item of items) {
      if (Array.isArray(item)) walk(item);
      else out.push(item);
    }
  };
  walk(values);
  return out;
}

export function numberToText(n: number): string {
  return Object.is(n, -0) ? '0' : String(n);
}

export function toText(value: FormulaValue): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return numberToText(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  if (Array.isArray(value)) return value.map(toText).join(', ');
  return value.code;
}

const NUMERIC_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** The number a text spells, '' as 0, or undefined when it is not a plain number. */
export function parseNumericText(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return 0;
  return NUMERIC_TEXT.test(trimmed) ? Number(trimmed) : undefined;
}

export function toNumber(value: FormulaValue): number {
  if (value === null) return 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') return parseNumericText(value) ?? Number.NaN;
  if (value instanceof Date) return value.getTime();
  if (Array.isArray(value)) {
    if (value.length === 0) return 0;
    if (value.length === 1) return toNumber(value[0]!);
    return parseNumericText(toText(value)) ?? Number.NaN;
  }
  return Number.NaN;
}

/** Truthiness of a non-error value (callers deal with errors first). */
export function truthy(value: FormulaValue): boolean {
  if (value === null) return false;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return value !== '';
  if (typeof value === 'boolean') return value;
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  if (Array.isArray(value)) return value.length > 0;
  return false;
}

export function isTruthy(value: FormulaValue): boolean {
  return firstError(value) === undefined && truthy(value);
}

export function isBlank(value: FormulaValue): boolean {
  return value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

export type ComparisonOperator = '=' | '!=' | '<' | '>' | '<=' | '>=';

type Comparable = { kind: 'number'; a: number; b: number } | { kind: 'text'; a: string; b: string };

/**
 * Compares two non-error values the way Airtable's operators do:
 *   - arrays compare as their text ('a, b');
 *   - blank equals blank, '', 0 and false, and orders as '' against text and 0 against numbers;
 *   - a date against a date, or against text that reads as a date (as the date functions read it, in
 *     the evaluation's zone), compares by instant; against other text, as text;
 *   - a number or boolean against numeric text (or another number) compares numerically; against other
 *     text, as text;
 *   - text against text compares case-sensitively, by UTF-16 code units.
 */
export function compareValues(
  op: ComparisonOperator,
  left: FormulaValue,
  right: FormulaValue,
  zone = 'UTC',
): boolean {
  const c = comparable(scalar(left), scalar(right), zone);
  return c.kind === 'number' ? holds(op, c.a, c.b) : holds(op, c.a, c.b);
}

function holds<T extends number | string>(op: ComparisonOperator, a: T, b: T): boolean {
  switch (op) {
    case '=':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    case '>=':
      return a >= b;
  }
}

type Scalar = string | number | boolean | Date | null;

function scalar(value: FormulaValue): Scalar {
  if (Array.isArray(value)) return value.length === 0 ? null : toText(value);
  if (value instanceof FormulaErrorValue) return value.code;
  return value;
}

function comparable(a: Scalar, b: Scalar, zone: string): Comparable {
  if (a instanceof Date || b instanceof Date) {
    const am = dateSide(a, zone);
    const bm = dateSide(b, zone);
    if (am !== undefined && bm !== undefined) return { kind: 'number', a: am, b: bm };
    return { kind: 'text', a: toText(a), b: toText(b) };
  }
  const aNumeric = typeof a === 'number' || typeof a === 'boolean';
  const bNumeric = typeof b === 'number' || typeof b === 'boolean';
  if (aNumeric || bNumeric) {
    const an = numericSide(a);
    const bn = numericSide(b);
    if (an !== undefined && bn !== undefined) return { kind: 'number', a: an, b: bn };
    return { kind: 'text', a: toText(a), b: toText(b) };
  }
  return { kind: 'text', a: a ?? '', b: b ?? '' };
}

function dateSide(value: Scalar, zone: string): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (value === null || value === '') return 0;
  if (typeof value === 'string') return parseDateText(value, undefined, zone, 0);
  if (typeof value === 'number') return value;
  return undefined;
}

function numericSide(value: Scalar): number | undefined {
  if (value === null) return 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') return parseNumericText(value);
  return undefined;
}
