// The one exception the formula engine throws: a formula that cannot be compiled. Everything that goes
// wrong while evaluating is a value instead (FormulaErrorValue), as in Airtable, so one bad record never
// fails a whole list request.

export type FormulaSyntaxReason = 'syntax' | 'unknown_field' | 'unknown_function' | 'arguments' | 'circular';

export class FormulaSyntaxError extends Error {
  override readonly name = 'FormulaSyntaxError';

  constructor(
    readonly reason: FormulaSyntaxReason,
    message: string,
    /** 0-based offset into the formula, for 'syntax' errors. */
    readonly position?: number,
  ) {
    super(message);
  }
}

export function syntaxError(position: number, what: string): FormulaSyntaxError {
  return new FormulaSyntaxError('syntax', `Syntax error at position ${position + 1}: ${what}`, position);
}
