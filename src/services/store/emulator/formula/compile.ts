// Turns a parsed formula into an executable tree: field names resolved to ids, function names to their
// table entries, argument counts checked. Every unknown field is reported at once, in Airtable's words
// ("Unknown field names: a, b"); the emulator adds its own prefix. Also guesses the result type the API
// reports for a formula field.

import { FormulaSyntaxError } from '../../formula/errors.js';
import type { Operator } from '../../formula/lexer.js';
import type { FormulaNode } from '../../formula/parser.js';
import { FUNCTIONS, type FunctionDef, mergeResultTypes } from './functions.js';
import type { FormulaValue } from './values.js';

export interface FieldResolver {
  /** Resolves `{Name}` / bare `Name` / a field id like `fldXXXXXXXXXXXXXX` to a field, or undefined if unknown. */
  resolve(nameOrId: string): { id: string; name: string; type: string } | undefined;
}

export type Expr =
  | { kind: 'value'; value: FormulaValue }
  | { kind: 'field'; id: string }
  | { kind: 'call'; def: FunctionDef; args: Expr[] }
  | { kind: 'negate'; operand: Expr }
  | { kind: 'binary'; operands: Expr[]; ops: Operator[] };

export interface CheckedFormula {
  expr: Expr;
  referencedFieldIds: string[];
  resultType: string;
}

const NUMBER_FIELDS = new Set(['number', 'percent', 'currency', 'rating', 'duration', 'autoNumber', 'count']);
const DATE_TIME_FIELDS = new Set(['dateTime', 'createdTime', 'lastModifiedTime']);
const ARRAY_FIELDS = new Set([
  'multipleSelects',
  'multipleRecordLinks',
  'multipleAttachments',
  'multipleCollaborators',
  'multipleLookupValues',
  'lookup',
]);

function fieldResultType(type: string): string {
  if (NUMBER_FIELDS.has(type)) return 'number';
  if (DATE_TIME_FIELDS.has(type)) return 'dateTime';
  if (type === 'date' || type === 'checkbox') return type;
  if (ARRAY_FIELDS.has(type)) return 'multipleLookupValues';
  return 'singleLineText';
}

function arityText(def: FunctionDef): string {
  const { minArgs: min, maxArgs: max } = def;
  const plural = (n: number): string => `${n} argument${n === 1 ? '' : 's'}`;
  if (max === 0) return 'no arguments';
  if (max === Number.POSITIVE_INFINITY) return `at least ${plural(min)}`;
  if (min === max) return plural(min);
  return `${min} to ${plural(max)}`;
}

export function checkFormula(tree: FormulaNode, fields: FieldResolver): CheckedFormula {
  const unknownFields: string[] = [];
  const unknownFunctions: string[] = [];
  const argumentProblems: string[] = [];
  const referenced: string[] = [];

  const visit = (node: FormulaNode): { expr: Expr; type: string } => {
    switch (node.kind) {
      case 'number':
        return { expr: { kind: 'value', value: node.value }, type: 'number' };
      case 'string':
        return { expr: { kind: 'value', value: node.value }, type: 'singleLineText' };
      case 'boolean':
        return { expr: { kind: 'value', value: node.value }, type: 'checkbox' };
      case 'field': {
        const field = fields.resolve(node.name);
        if (!field) {
          if (!unknownFields.includes(node.name)) unknownFields.push(node.name);
          return { expr: { kind: 'value', value: null }, type: 'blank' };
        }
        if (!referenced.includes(field.id)) referenced.push(field.id);
        return { expr: { kind: 'field', id: field.id }, type: fieldResultType(field.type) };
      }
      case 'negate':
        return { expr: { kind: 'negate', operand: visit(node.operand).expr }, type: 'number' };
      case 'binary': {
        const operands = node.operands.map((operand) => visit(operand).expr);
        const last = node.ops[node.ops.length - 1]!;
        const type = last === '&' ? 'singleLineText' : '+-*/'.includes(last) ? 'number' : 'checkbox';
        return { expr: { kind: 'binary', operands, ops: node.ops }, type };
      }
      case 'call': {
        const visited = node.args.map(visit);
        const def = FUNCTIONS.get(node.name);
        if (!def) {
          if (!unknownFunctions.includes(node.name)) unknownFunctions.push(node.name);
          return { expr: { kind: 'value', value: null }, type: 'blank' };
        }
        const count = node.args.length;
        if (count < def.minArgs || count > def.maxArgs) {
          argumentProblems.push(`${def.name} expects ${arityText(def)} but got ${count}`);
        } else if (def.fieldArgs && node.args.some((a) => a.kind !== 'field')) {
          argumentProblems.push(`${def.name} accepts only field references as arguments`);
        }
        const types = visited.map((v) => v.type);
        const type = typeof def.resultType === 'string' ? def.resultType : def.resultType(types);
        return { expr: { kind: 'call', def, args: visited.map((v) => v.expr) }, type };
      }
    }
  };

  const { expr, type } = visit(tree);
  if (unknownFields.length > 0) {
    throw new FormulaSyntaxError('unknown_field', `Unknown field names: ${unknownFields.join(', ')}`);
  }
  if (unknownFunctions.length > 0) {
    throw new FormulaSyntaxError(
      'unknown_function',
      `Unknown function names: ${unknownFunctions.join(', ')}`,
    );
  }
  if (argumentProblems.length > 0) {
    throw new FormulaSyntaxError('arguments', argumentProblems.join('; '));
  }
  const merged = mergeResultTypes([type]);
  return { expr, referencedFieldIds: referenced, resultType: merged === 'blank' ? 'singleLineText' : merged };
}
