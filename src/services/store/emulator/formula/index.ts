// Airtable's formula language for the StoreApi emulator: `filterByFormula` on record lists and computed
// formula fields. Compile once per formula (syntax, field and function names, argument counts are
// checked then), evaluate once per record. docs/store-formulas.md describes the language as implemented.

import { parseFormula } from '../../formula/parser.js';
import { type CheckedFormula, checkFormula, type FieldResolver } from './compile.js';
import { type EvaluationContext, evaluateExpr } from './evaluate.js';
import type { FormulaValue } from './values.js';

export { FormulaSyntaxError, type FormulaSyntaxReason } from '../../formula/errors.js';
export { MAX_NESTING } from '../../formula/parser.js';
export { cellToFormulaValue, formulaValueToCell } from './cells.js';
export type { FieldResolver } from './compile.js';
export type { EvaluationContext } from './evaluate.js';
export { SUPPORTED_FUNCTIONS } from './functions.js';
export { FormulaErrorValue, type FormulaValue, isTruthy } from './values.js';

export interface CompiledFormula {
  source: string;
  /** Ids of the fields the formula references, in first-use order, deduplicated. */
  referencedFieldIds: string[];
  /** Static guess of the result type as Airtable names it for a formula field's `options.result.type`:
   * 'number', 'singleLineText', 'checkbox', 'date', 'dateTime' or 'multipleLookupValues'. */
  resultType: string;
  evaluate(ctx: EvaluationContext): FormulaValue;
}

/** Parses and checks a formula; throws FormulaSyntaxError (unknown field/function names, wrong arg counts, bad syntax). */
export function compileFormula(source: string, fields: FieldResolver): CompiledFormula {
  const checked: CheckedFormula = checkFormula(parseFormula(source), fields);
  return {
    source,
    referencedFieldIds: checked.referencedFieldIds,
    resultType: checked.resultType,
    evaluate: (ctx) => evaluateExpr(checked.expr, ctx),
  };
}
