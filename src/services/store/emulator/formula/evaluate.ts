// Evaluates a checked formula against one record. Nothing here throws for bad data: a division by zero,
// an unreadable date or a failing function becomes an error value that flows on to the result.

import type { Operator } from '../../formula/lexer.js';
import type { Expr } from './compile.js';
import { isValidTimeZone } from './dates.js';
import { type FunctionEnv, MAX_TEXT_LENGTH } from './functions.js';
import { compareValues, type FormulaValue, firstError, formulaError, toNumber, toText } from './values.js';

export interface EvaluationContext {
  /** The value of a field, by id, already converted with `cellToFormulaValue`. */
  field(fieldId: string): FormulaValue;
  now: Date;
  recordId: string;
  createdTime: Date;
  lastModifiedTime?: Date;
  /** IANA zone used by date functions when no SET_TIMEZONE; default 'UTC'. */
  timeZone?: string;
}

export function evaluateExpr(expr: Expr, ctx: EvaluationContext): FormulaValue {
  const zone = ctx.timeZone && isValidTimeZone(ctx.timeZone) ? ctx.timeZone : 'UTC';
  const env: FunctionEnv = {
    now: ctx.now.getTime(),
    zone,
    recordId: ctx.recordId,
    createdTime: ctx.createdTime,
    lastModifiedTime: ctx.lastModifiedTime,
  };
  const evaluate = (e: Expr): FormulaValue => {
    switch (e.kind) {
      case 'value':
        return e.value;
      case 'field':
        return ctx.field(e.id) ?? null;
      case 'negate': {
        const v = evaluate(e.operand);
        return firstError(v) ?? -toNumber(v);
      }
      case 'binary': {
        let acc = evaluate(e.operands[0]!);
        e.ops.forEach((op, i) => {
          acc = applyOperator(op, acc, evaluate(e.operands[i + 1]!), zone);
        });
        return acc;
      }
      case 'call': {
        const impl = e.def.impl;
        try {
          if (impl.kind === 'lazy')
            return impl.fn(
              e.args.map((a) => () => evaluate(a)),
              env,
            );
          const args = e.args.map(evaluate);
          if (!impl.seesErrors) {
            for (const a of args) {
              const error = firstError(a);
              if (error) return error;
            }
          }
          return impl.fn(args, env);
        } catch (error) {
          // A fault inside one function is that record's #ERROR!, never a failed request.
          if (error instanceof Error) return formulaError(`${e.def.name}: ${error.message}`);
          throw error;
        }
      }
    }
  };
  return evaluate(expr);
}

function applyOperator(op: Operator, left: FormulaValue, right: FormulaValue, zone: string): FormulaValue {
  const error = firstError(left) ?? firstError(right);
  if (error) return error;
  switch (op) {
    case '&': {
      const joined = toText(left) + toText(right);
      return joined.length > MAX_TEXT_LENGTH
        ? formulaError(`text result longer than ${MAX_TEXT_LENGTH} characters`)
        : joined;
    }
    case '+':
      return toNumber(left) + toNumber(right);
    case '-':
      return toNumber(left) - toNumber(right);
    case '*':
      return toNumber(left) * toNumber(right);
    case '/': {
      const divisor = toNumber(right);
      return divisor === 0 ? formulaError('division by zero') : toNumber(left) / divisor;
    }
    default:
      return compareValues(op, left, right, zone);
  }
}
