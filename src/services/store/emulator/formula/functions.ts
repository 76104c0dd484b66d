// The function table: every formula function with its argument counts (checked when a formula is
// compiled), its documentation line (docs/store-formulas.md lists the same names; a test holds the two
// together), a static guess of its result type, and its implementation.
//
// Arguments arrive evaluated, and an error in any of them (even inside an array) is returned as the
// result before the function runs, unless the function is marked to see errors (ISERROR) or is lazy
// (IF and SWITCH evaluate only the branch they take).

import {
  addToDate,
  dayNumber,
  dayNumberToCivil,
  diffDates,
  fromWall,
  isValidTimeZone,
  parseDateUnit,
  startOf,
  toWall,
} from './dates.js';
import { defaultFormat, formatDate, parseDateText } from './dateText.js';
import { compileRegex, RegexError, regexExtract, regexReplace, regexTest } from './regex.js';
import {
  compareValues,
  FormulaErrorValue,
  type FormulaValue,
  firstError,
  flatten,
  formulaError,
  parseNumericText,
  TaggedDate,
  toNumber,
  toText,
  truthy,
} from './values.js';

/** Text results longer than this are errors, so REPT, SUBSTITUTE and & cannot exhaust memory. */
export const MAX_TEXT_LENGTH = 1_000_000;
const MAX_WORKDAYS = 100_000;

export type FunctionCategory = 'Text' | 'Logical' | 'Numeric' | 'Date' | 'Array' | 'Record';

/** What the functions may read about the record and the moment of evaluation. */
export interface FunctionEnv {
  now: number;
  /** A valid IANA zone: the context's, or UTC. */
  zone: string;
  recordId: string;
  createdTime: Date;
  lastModifiedTime: Date | undefined;
}

export type Thunk = () => FormulaValue;

/** 'blank' marks BLANK()/ERROR(), which give way to the other branch when IF or SWITCH merge types. */
export type ResultTypeRule = string | ((argTypes: readonly string[]) => string);

export type FunctionImpl =
  | { kind: 'eager'; seesErrors?: boolean; fn: (args: FormulaValue[], env: FunctionEnv) => FormulaValue }
  | { kind: 'lazy'; fn: (args: Thunk[], env: FunctionEnv) => FormulaValue };

export interface FunctionDef {
  name: string;
  category: FunctionCategory;
  signature: string;
  returns: string;
  minArgs: number;
  maxArgs: number;
  resultType: ResultTypeRule;
  /** The arguments must be field references; they name fields rather than supply values. */
  fieldArgs?: boolean;
  impl: FunctionImpl;
}

// --- Argument helpers ----------------------------------------------------------------------------------

function arg(args: readonly FormulaValue[], i: number): FormulaValue {
  return args[i] ?? null;
}

function text(args: readonly FormulaValue[], i: number): string {
  return toText(arg(args, i));
}

function num(args: readonly FormulaValue[], i: number): number {
  return toNumber(arg(args, i));
}

function int(args: readonly FormulaValue[], i: number, fallback: number): number {
  return i < args.length ? Math.trunc(num(args, i)) : fallback;
}

function textResult(value: string): FormulaValue {
  return value.length > MAX_TEXT_LENGTH
    ? formulaError(`text result longer than ${MAX_TEXT_LENGTH} characters`)
    : value;
}

/** Rounds away binary noise (0.1 * 3) where a function promises a multiple of something. */
function tidy(n: number): number {
  return Number.isFinite(n) ? Number(n.toPrecision(15)) : n;
}

/** Moves the decimal point by `places` without the binary error of multiplying (1.005 * 100). */
function shift(n: number, places: number): number {
  const [mantissa, exponent = '0'] = String(n).split('e');
  return Number(`${mantissa}e${Number(exponent) + places}`);
}

function roundWith(mode: (n: number) => number): (args: FormulaValue[]) => FormulaValue {
  return (args) => {
    const value = num(args, 0);
    const places = int(args, 1, 0);
    const shifted = shift(value, places);
    // Beyond what a double holds (or for NaN), rounding changes nothing.
    if (!Number.isFinite(shifted)) return value;
    return shift(mode(shifted), -places) || 0;
  };
}

/** The numbers among aggregated values: blanks, '' and non-numeric text are left out. */
function numbers(values: readonly FormulaValue[]): number[] {
  const out: number[] = [];
  for (const v of flatten(values)) {
    if (v === null || v === '') continue;
    if (typeof v === 'string') {
      const n = parseNumericText(v);
      if (n !== undefined) out.push(n);
    } else if (!(v instanceof FormulaErrorValue) && !Array.isArray(v)) {
      out.push(toNumber(v));
    }
  }
  return out;
}

function extreme(pick: 1 | -1): (args: FormulaValue[]) => FormulaValue {
  return (args) => {
    const present = flatten(args).filter((v) => v !== null && v !== '');
    // A rollup MAX over dates is a date, not a number of milliseconds.
    if (present.length > 0 && present.every((v) => v instanceof Date)) {
      let best = present[0] as Date;
      for (const v of present as Date[]) if ((v.getTime() - best.getTime()) * pick > 0) best = v;
      return best;
    }
    const values = numbers(args);
    if (values.length === 0) return 0;
    let best = values[0]!;
    for (const v of values) if ((v - best) * pick > 0 || Number.isNaN(v)) best = v;
    return best;
  };
}

function asArray(value: FormulaValue): FormulaValue[] {
  if (Array.isArray(value)) return value;
  return value === null ? [] : [value];
}

function regexCall(fn: (args: FormulaValue[]) => FormulaValue): (args: FormulaValue[]) => FormulaValue {
  return (args) => {
    try {
      return fn(args);
    } catch (error) {
      if (error instanceof RegexError) return formulaError(`regular expression: ${error.message}`);
      throw error;
    }
  };
}

// --- Date helpers --------------------------------------------------------------------------------------

function dateArg(value: FormulaValue, env: FunctionEnv): Date | FormulaErrorValue {
  if (value instanceof Date) {
    return Number.isNaN(value.getTime()) ? formulaError('invalid date') : value;
  }
  if (Array.isArray(value) && value.length === 1) return dateArg(value[0]!, env);
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value);
  if (typeof value === 'string' || Array.isArray(value)) {
    const ms = parseDateText(toText(value), undefined, env.zone, env.now);
    return ms === undefined ? formulaError(`cannot read "${toText(value)}" as a date`) : new Date(ms);
  }
  return formulaError(value === null ? 'a date is blank' : 'expected a date');
}

function zoneOf(date: Date, env: FunctionEnv): string {
  return date instanceof TaggedDate && date.timeZone ? date.timeZone : env.zone;
}

/** A new instant that keeps the time zone and locale SET_TIMEZONE / SET_LOCALE gave `like`. */
function sameTags(like: Date, ms: number): Date {
  return like instanceof TaggedDate ? new TaggedDate(ms, like.timeZone, like.locale) : new Date(ms);
}

type DateFn = (dates: Date[], args: FormulaValue[], env: FunctionEnv) => FormulaValue;

/** Reads the first `count` arguments as dates before calling `fn`. */
function withDates(count: number, fn: DateFn): (args: FormulaValue[], env: FunctionEnv) => FormulaValue {
  return (args, env) => {
    const dates: Date[] = [];
    for (let i = 0; i < count; i++) {
      const d = dateArg(arg(args, i), env);
      if (d instanceof FormulaErrorValue) return d;
      dates.push(d);
    }
    return fn(dates, args, env);
  };
}

function unitArg(args: readonly FormulaValue[], i: number, fallback: string) {
  const raw = i < args.length && arg(args, i) !== null ? text(args, i) : fallback;
  return { raw, unit: parseDateUnit(raw) };
}

function wallPart(part: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second') {
  return withDates(1, ([d], _args, env) => toWall(d!.getTime(), zoneOf(d!, env))[part]);
}

function calendarDay(date: Date, env: FunctionEnv): number {
  const w = toWall(date.getTime(), zoneOf(date, env));
  return dayNumber(w.year, w.month, w.day);
}

/** The weekday (0 = Sunday) of a day number: 1970-01-01 was a Thursday. */
function weekdayOfDay(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

const NO_HOLIDAYS: ReadonlySet<number> = new Set();

function isWorkday(day: number, holidays: ReadonlySet<number>): boolean {
  const weekday = weekdayOfDay(day);
  return weekday !== 0 && weekday !== 6 && !holidays.has(day);
}

/** Holidays as calendar days: dates, or text of dates separated by commas ('2024-12-25, 2024-12-26'). */
function holidayArg(value: FormulaValue, env: FunctionEnv): Set<number> | FormulaErrorValue {
  const days = new Set<number>();
  for (const item of flatten([value])) {
    if (item === null || item === '') continue;
    const parts = typeof item === 'string' ? item.split(',').map((p) => p.trim()) : [item];
    for (const part of parts) {
      if (part === '') continue;
      const d = dateArg(part, env);
      if (d instanceof FormulaErrorValue) return d;
      days.add(calendarDay(d, env));
    }
  }
  return days;
}

function startDayOffset(args: readonly FormulaValue[], i: number): number | FormulaErrorValue {
  const raw = i < args.length ? text(args, i).trim().toLowerCase() : '';
  if (raw === '' || raw === 'sunday') return 0;
  if (raw === 'monday') return 1;
  return formulaError(`the start of the week must be "Sunday" or "Monday", not "${raw}"`);
}

// --- Result-type rules ---------------------------------------------------------------------------------

const TEXT = 'singleLineText';
const NUMBER = 'number';
const CHECKBOX = 'checkbox';
const DATE_TIME = 'dateTime';
const ARRAY = 'multipleLookupValues';

export function mergeResultTypes(types: readonly string[]): string {
  const present = [...new Set(types.filter((t) => t !== 'blank'))];
  if (present.length === 0) return 'blank';
  if (present.length === 1) return present[0]!;
  if (present.every((t) => t === 'date' || t === DATE_TIME)) return DATE_TIME;
  return TEXT;
}

const dateLike = (types: readonly string[]): string =>
  types[0] === 'date' || types[0] === DATE_TIME ? types[0] : DATE_TIME;

// --- The table -----------------------------------------------------------------------------------------

type EagerFn = (args: FormulaValue[], env: FunctionEnv) => FormulaValue;

interface FunctionSpec {
  /** `NAME(arg, [optional], ...)`; the name is read from here. */
  signature: string;
  returns: string;
  /** Minimum and maximum argument counts. */
  args: readonly [number, number];
  type: ResultTypeRule;
  fn?: EagerFn;
  lazy?: (args: Thunk[], env: FunctionEnv) => FormulaValue;
  seesErrors?: boolean;
  fieldArgs?: boolean;
}

function inCategory(category: FunctionCategory, specs: readonly FunctionSpec[]): FunctionDef[] {
  return specs.map((spec) => {
    let impl: FunctionImpl;
    if (spec.lazy) impl = { kind: 'lazy', fn: spec.lazy };
    else if (spec.fn) impl = { kind: 'eager', seesErrors: spec.seesErrors ?? false, fn: spec.fn };
    else throw new Error(`${spec.signature} has no implementation`);
    return {
      name: spec.signature.slice(0, spec.signature.indexOf('(')),
      category,
      signature: spec.signature,
      returns: spec.returns,
      minArgs: spec.args[0],
      maxArgs: spec.args[1],
      resultType: spec.type,
      fieldArgs: spec.fieldArgs ?? false,
      impl,
    };
  });
}

const MANY = Number.POSITIVE_INFINITY;
const TEXT_TOO_LONG = `text result longer than ${MAX_TEXT_LENGTH} characters`;

const TEXT_FUNCTIONS = inCategory('Text', [
  {
    signature: 'CONCATENATE(text, ...)',
    returns: 'the texts joined, arrays flattened',
    args: [1, MANY],
    type: TEXT,
    fn: (args) => textResult(flatten(args).map(toText).join('')),
  },
  {
    signature: 'FIND(stringToFind, whereToSearch, [startFromPosition])',
    returns:
      'the 1-based position of the first occurrence (case-sensitive), 0 if none; startFromPosition is a 0-based offset',
    args: [2, 3],
    type: NUMBER,
    fn: (args) => text(args, 1).indexOf(text(args, 0), Math.max(0, int(args, 2, 0))) + 1,
  },
  {
    signature: 'SEARCH(stringToFind, whereToSearch, [startFromPosition])',
    returns: 'like FIND (case-sensitive too), but blank rather than 0 when not found',
    args: [2, 3],
    type: NUMBER,
    fn: (args) => {
      const at = text(args, 1).indexOf(text(args, 0), Math.max(0, int(args, 2, 0)));
      return at === -1 ? null : at + 1;
    },
  },
  {
    signature: 'LEFT(string, howMany)',
    returns: 'the first howMany characters',
    args: [2, 2],
    type: TEXT,
    fn: (args) => text(args, 0).slice(0, Math.max(0, int(args, 1, 0))),
  },
  {
    signature: 'RIGHT(string, howMany)',
    returns: 'the last howMany characters',
    args: [2, 2],
    type: TEXT,
    fn: (args) => {
      const s = text(args, 0);
      const n = int(args, 1, 0);
      return n <= 0 ? '' : s.slice(Math.max(0, s.length - n));
    },
  },
  {
    signature: 'MID(string, whereToStart, count)',
    returns: 'count characters from the 1-based position whereToStart',
    args: [3, 3],
    type: TEXT,
    fn: (args) => {
      const start = Math.max(1, int(args, 1, 1)) - 1;
      return text(args, 0).slice(start, start + Math.max(0, int(args, 2, 0)));
    },
  },
  {
    signature: 'LEN(string)',
    returns: 'the number of characters (UTF-16 code units)',
    args: [1, 1],
    type: NUMBER,
    fn: (args) => text(args, 0).length,
  },
  {
    signature: 'LOWER(string)',
    returns: 'the text in lower case',
    args: [1, 1],
    type: TEXT,
    fn: (args) => text(args, 0).toLowerCase(),
  },
  {
    signature: 'UPPER(string)',
    returns: 'the text in upper case',
    args: [1, 1],
    type: TEXT,
    fn: (args) => text(args, 0).toUpperCase(),
  },
  {
    signature: 'TRIM(string)',
    returns: 'the text without leading and trailing whitespace',
    args: [1, 1],
    type: TEXT,
    fn: (args) => text(args, 0).trim(),
  },
  {
    signature: 'SUBSTITUTE(string, old_text, new_text, [index])',
    returns: 'every occurrence of old_text replaced, or only the index-th (1-based) when index is given',
    args: [3, 4],
    type: TEXT,
    fn: (args) => {
      const s = text(args, 0);
      const from = text(args, 1);
      const to = text(args, 2);
      if (from === '') return s;
      const pieces = s.split(from);
      if (args.length < 4) {
        const length = s.length + (pieces.length - 1) * (to.length - from.length);
        return length > MAX_TEXT_LENGTH ? formulaError(TEXT_TOO_LONG) : pieces.join(to);
      }
      const index = int(args, 3, 1);
      if (index < 1 || index >= pieces.length) return s;
      return textResult(pieces.slice(0, index).join(from) + to + pieces.slice(index).join(from));
    },
  },
  {
    signature: 'REPLACE(string, start_character, number_of_characters, replacement)',
    returns: 'the text with number_of_characters characters from the 1-based start_character replaced',
    args: [4, 4],
    type: TEXT,
    fn: (args) => {
      const s = text(args, 0);
      const start = Math.max(1, int(args, 1, 1)) - 1;
      const count = Math.max(0, int(args, 2, 0));
      return textResult(s.slice(0, start) + text(args, 3) + s.slice(start + count));
    },
  },
  {
    signature: 'REPT(string, number)',
    returns: 'the text repeated number times',
    args: [2, 2],
    type: TEXT,
    fn: (args) => {
      const s = text(args, 0);
      const n = int(args, 1, 0);
      if (n <= 0 || s === '') return '';
      return s.length * n > MAX_TEXT_LENGTH ? formulaError(TEXT_TOO_LONG) : s.repeat(n);
    },
  },
  {
    signature: 'T(value)',
    returns: 'the value if it is text (an array of texts joined with ", "), blank otherwise',
    args: [1, 1],
    type: TEXT,
    fn: (args) => {
      const v = arg(args, 0);
      if (typeof v === 'string') return v;
      if (Array.isArray(v)) {
        const items = flatten(v);
        if (items.length > 0 && items.every((item) => typeof item === 'string')) return toText(items);
      }
      return null;
    },
  },
  {
    signature: 'ENCODE_URL_COMPONENT(component_string)',
    returns: 'the text percent-encoded for use in a URL (encodeURIComponent)',
    args: [1, 1],
    type: TEXT,
    fn: (args) => {
      try {
        return encodeURIComponent(text(args, 0));
      } catch {
        return formulaError('text holds an unpaired surrogate');
      }
    },
  },
  {
    signature: 'REGEX_MATCH(string, regex)',
    returns: 'whether the RE2 regular expression matches anywhere in the text',
    args: [2, 2],
    type: CHECKBOX,
    fn: regexCall((args) => regexTest(compileRegex(text(args, 1)), text(args, 0))),
  },
  {
    signature: 'REGEX_EXTRACT(string, regex)',
    returns: 'the first substring that matches; an error when nothing matches',
    args: [2, 2],
    type: TEXT,
    fn: regexCall((args) => {
      const found = regexExtract(compileRegex(text(args, 1)), text(args, 0));
      return found ?? formulaError('the regular expression matches nothing');
    }),
  },
  {
    signature: 'REGEX_REPLACE(string, regex, replacement)',
    returns: 'the text with every match replaced ($1, $2... insert groups)',
    args: [3, 3],
    type: TEXT,
    fn: regexCall((args) =>
      regexReplace(compileRegex(text(args, 1)), text(args, 0), text(args, 2), MAX_TEXT_LENGTH),
    ),
  },
]);

const LOGICAL_FUNCTIONS = inCategory('Logical', [
  {
    signature: 'IF(expression, value1, [value2])',
    returns:
      'value1 when the expression is truthy, else value2 (blank when omitted); only that branch is evaluated',
    args: [2, 3],
    type: (types) => mergeResultTypes([types[1] ?? 'blank', types[2] ?? 'blank']),
    lazy: (args) => {
      const condition = args[0]!();
      const error = firstError(condition);
      if (error) return error;
      if (truthy(condition)) return args[1]!();
      return args[2] ? args[2]() : null;
    },
  },
  {
    signature: 'SWITCH(expression, pattern, result, [pattern, result, ...], [default])',
    returns:
      'the result of the first pattern equal (=) to the expression, else the default (blank when omitted)',
    args: [3, MANY],
    type: (types) =>
      mergeResultTypes(types.filter((_, i) => i > 0 && (i % 2 === 0 || i === types.length - 1))),
    lazy: (args, env) => {
      const value = args[0]!();
      const error = firstError(value);
      if (error) return error;
      let i = 1;
      for (; i + 1 < args.length; i += 2) {
        const pattern = args[i]!();
        const patternError = firstError(pattern);
        if (patternError) return patternError;
        if (compareValues('=', value, pattern, env.zone)) return args[i + 1]!();
      }
      return i < args.length ? args[i]!() : null;
    },
  },
  {
    signature: 'AND(expression, ...)',
    returns: 'true if every argument (arrays flattened) is truthy',
    args: [1, MANY],
    type: CHECKBOX,
    fn: (args) => {
      const values = flatten(args);
      return values.length > 0 && values.every(truthy);
    },
  },
  {
    signature: 'OR(expression, ...)',
    returns: 'true if any argument (arrays flattened) is truthy',
    args: [1, MANY],
    type: CHECKBOX,
    fn: (args) => flatten(args).some(truthy),
  },
  {
    signature: 'XOR(expression, ...)',
    returns: 'true if an odd number of the arguments (arrays flattened) are truthy',
    args: [1, MANY],
    type: CHECKBOX,
    fn: (args) => flatten(args).filter(truthy).length % 2 === 1,
  },
  {
    signature: 'NOT(expression)',
    returns: 'the opposite truth value',
    args: [1, 1],
    type: CHECKBOX,
    fn: (args) => !truthy(arg(args, 0)),
  },
  {
    signature: 'BLANK()',
    returns: 'blank (null)',
    args: [0, 0],
    type: 'blank',
    fn: () => null,
  },
  {
    signature: 'ERROR([message])',
    returns: 'the error value #ERROR!',
    args: [0, 1],
    type: 'blank',
    fn: (args) => formulaError(args.length > 0 ? text(args, 0) : 'ERROR()'),
  },
  {
    signature: 'ISERROR(expression)',
    returns: 'true if the expression is (or holds) an error',
    args: [1, 1],
    type: CHECKBOX,
    seesErrors: true,
    fn: (args) => firstError(arg(args, 0)) !== undefined,
  },
  {
    signature: 'TRUE()',
    returns: 'true (1 in arithmetic and text)',
    args: [0, 0],
    type: CHECKBOX,
    fn: () => true,
  },
  {
    signature: 'FALSE()',
    returns: 'false (0 in arithmetic and text)',
    args: [0, 0],
    type: CHECKBOX,
    fn: () => false,
  },
]);

function maxMinType(types: readonly string[]): string {
  return types.length > 0 && types.every((t) => t === 'date' || t === DATE_TIME) ? DATE_TIME : NUMBER;
}

function multiple(round: (n: number) => number): EagerFn {
  return (args) => {
    const significance = Math.abs(args.length > 1 ? num(args, 1) : 1);
    if (significance === 0) return 0;
    return tidy(round(tidy(num(args, 0) / significance)) * significance) || 0;
  };
}

const NUMERIC_FUNCTIONS = inCategory('Numeric', [
  {
    signature: 'ABS(value)',
    returns: 'the absolute value',
    args: [1, 1],
    type: NUMBER,
    fn: (args) => Math.abs(num(args, 0)),
  },
  {
    signature: 'AVERAGE(number, ...)',
    returns:
      'the mean of the numeric values (arrays flattened, blanks and text skipped); an error when there are none',
    args: [1, MANY],
    type: NUMBER,
    fn: (args) => {
      const values = numbers(args);
      if (values.length === 0) return formulaError('AVERAGE of no numbers');
      return values.reduce((a, b) => a + b, 0) / values.length;
    },
  },
  {
    signature: 'CEILING(value, [significance])',
    returns: 'the smallest multiple of significance (default 1) not below value',
    args: [1, 2],
    type: NUMBER,
    fn: multiple(Math.ceil),
  },
  {
    signature: 'COUNT(value, ...)',
    returns: 'how many values are numbers (arrays flattened)',
    args: [1, MANY],
    type: NUMBER,
    fn: (args) => flatten(args).filter((v) => typeof v === 'number').length,
  },
  {
    signature: 'COUNTA(value, ...)',
    returns: 'how many values are neither blank nor "" (arrays flattened)',
    args: [1, MANY],
    type: NUMBER,
    fn: (args) => flatten(args).filter((v) => v !== null && v !== '').length,
  },
  {
    signature: 'COUNTALL(value, ...)',
    returns: 'how many values there are, blanks included (arrays flattened)',
    args: [1, MANY],
    type: NUMBER,
    fn: (args) => flatten(args).length,
  },
  {
    signature: 'EVEN(value)',
    returns: 'the value rounded away from zero to an even integer',
    args: [1, 1],
    type: NUMBER,
    fn: (args) => {
      const v = num(args, 0);
      return (v < 0 ? -1 : 1) * Math.ceil(Math.abs(v) / 2) * 2 || 0;
    },
  },
  {
    signature: 'EXP(power)',
    returns: 'e raised to the power',
    args: [1, 1],
    type: NUMBER,
    fn: (args) => Math.exp(num(args, 0)),
  },
  {
    signature: 'FLOOR(value, [significance])',
    returns: 'the largest multiple of significance (default 1) not above value',
    args: [1, 2],
    type: NUMBER,
    fn: multiple(Math.floor),
  },
  {
    signature: 'INT(value)',
    returns: 'the greatest integer not above value',
    args: [1, 1],
    type: NUMBER,
    fn: (args) => Math.floor(num(args, 0)) || 0,
  },
  {
    signature: 'LOG(number, [base])',
    returns: 'the logarithm in base (default 10)',
    args: [1, 2],
    type: NUMBER,
    fn: (args) => {
      const value = num(args, 0);
      const base = args.length > 1 ? num(args, 1) : 10;
      if (base === 10) return Math.log10(value);
      if (base === 2) return Math.log2(value);
      return tidy(Math.log(value) / Math.log(base));
    },
  },
  {
    signature: 'MAX(number, ...)',
    returns: 'the largest number (arrays flattened; the latest date when all are dates); 0 when none',
    args: [1, MANY],
    type: maxMinType,
    fn: extreme(1),
  },
  {
    signature: 'MIN(number, ...)',
    returns: 'the smallest number (arrays flattened; the earliest date when all are dates); 0 when none',
    args: [1, MANY],
    type: maxMinType,
    fn: extreme(-1),
  },
  {
    signature: 'MOD(value, divisor)',
    returns: 'the remainder, with the sign of value (JavaScript %); an error when divisor is 0',
    args: [2, 2],
    type: NUMBER,
    fn: (args) => {
      const divisor = num(args, 1);
      return divisor === 0 ? formulaError('MOD by zero') : num(args, 0) % divisor;
    },
  },
  {
    signature: 'ODD(value)',
    returns: 'the value rounded away from zero to an odd integer',
    args: [1, 1],
    type: NUMBER,
    fn: (args) => {
      const v = num(args, 0);
      return (v < 0 ? -1 : 1) * (Math.ceil((Math.abs(v) + 1) / 2) * 2 - 1);
    },
  },
  {
    signature: 'POWER(base, power)',
    returns: 'base raised to power',
    args: [2, 2],
    type: NUMBER,
    fn: (args) => num(args, 0) ** num(args, 1),
  },
  {
    signature: 'ROUND(value, [precision])',
    returns: 'rounded to precision decimals (default 0, may be negative); ties go up, toward +infinity',
    args: [1, 2],
    type: NUMBER,
    fn: roundWith(Math.round),
  },
  {
    signature: 'ROUNDDOWN(value, [precision])',
    returns: 'rounded toward zero to precision decimals',
    args: [1, 2],
    type: NUMBER,
    fn: roundWith(Math.trunc),
  },
  {
    signature: 'ROUNDUP(value, [precision])',
    returns: 'rounded away from zero to precision decimals',
    args: [1, 2],
    type: NUMBER,
    fn: roundWith((n) => (n < 0 ? -Math.ceil(-n) : Math.ceil(n))),
  },
  {
    signature: 'SQRT(value)',
    returns: 'the square root (NaN for a negative value)',
    args: [1, 1],
    type: NUMBER,
    fn: (args) => Math.sqrt(num(args, 0)),
  },
  {
    signature: 'SUM(number, ...)',
    returns: 'the total of the numeric values (arrays flattened, blanks and text skipped)',
    args: [1, MANY],
    type: NUMBER,
    fn: (args) => numbers(args).reduce((a, b) => a + b, 0),
  },
  {
    signature: 'VALUE(text)',
    returns:
      'the number in the text, ignoring $ € £ ¥, commas and spaces ("%" divides by 100); blank when there is none',
    args: [1, 1],
    type: NUMBER,
    fn: (args) => {
      const v = arg(args, 0);
      if (v === null) return null;
      if (typeof v !== 'string' && !Array.isArray(v)) return toNumber(v);
      let s = toText(v).replace(/[\s,$€£¥]/g, '');
      const percent = s.endsWith('%');
      if (percent) s = s.slice(0, -1);
      const n = s === '' ? undefined : parseNumericText(s);
      if (n === undefined) return null;
      return percent ? n / 100 : n;
    },
  },
]);

const DATE_FUNCTIONS = inCategory('Date', [
  {
    signature: 'DATEADD(date, count, units)',
    returns:
      'the date moved by count units (days and longer move the wall clock in the zone; fractional days and months round)',
    args: [3, 3],
    type: dateLike,
    fn: withDates(1, ([d], args, env) => {
      const count = num(args, 1);
      if (!Number.isFinite(count)) return formulaError('DATEADD count is not a number');
      const { raw, unit } = unitArg(args, 2, '');
      if (!unit) return formulaError(`unknown time unit "${raw}"`);
      return sameTags(d!, addToDate(d!.getTime(), count, unit, zoneOf(d!, env)));
    }),
  },
  {
    signature: 'DATESTR(date)',
    returns: 'the date as YYYY-MM-DD text',
    args: [1, 1],
    type: TEXT,
    fn: withDates(1, ([d], _args, env) => formatDate(d!.getTime(), 'YYYY-MM-DD', zoneOf(d!, env))),
  },
  {
    signature: 'DATETIME_DIFF(date1, date2, [units])',
    returns: 'date1 - date2 in whole units (default seconds), truncated toward zero',
    args: [2, 3],
    type: NUMBER,
    fn: withDates(2, ([a, b], args, env) => {
      const { raw, unit } = unitArg(args, 2, 'seconds');
      if (!unit) return formulaError(`unknown time unit "${raw}"`);
      return diffDates(a!.getTime(), b!.getTime(), unit, zoneOf(a!, env));
    }),
  },
  {
    signature: 'DATETIME_FORMAT(date, [output_format])',
    returns: 'the date as text in a moment.js format (see the token list)',
    args: [1, 2],
    type: TEXT,
    fn: withDates(1, ([d], args, env) => {
      const zone = zoneOf(d!, env);
      const format = args.length > 1 && arg(args, 1) !== null ? text(args, 1) : defaultFormat(zone);
      return textResult(formatDate(d!.getTime(), format, zone));
    }),
  },
  {
    signature: 'DATETIME_PARSE(date, [input_format], [locale])',
    returns: 'the date read from text: ISO 8601, common US forms, or the given moment.js format',
    args: [1, 3],
    type: DATE_TIME,
    fn: (args, env) => {
      const v = arg(args, 0);
      if (v instanceof Date) return v;
      const format = args.length > 1 && arg(args, 1) !== null ? text(args, 1) : undefined;
      const ms = parseDateText(toText(v), format, env.zone, env.now);
      return ms === undefined ? formulaError(`cannot read "${toText(v)}" as a date`) : new Date(ms);
    },
  },
  {
    signature: 'DAY(date)',
    returns: 'the day of the month, 1-31',
    args: [1, 1],
    type: NUMBER,
    fn: wallPart('day'),
  },
  {
    signature: 'HOUR(datetime)',
    returns: 'the hour, 0-23',
    args: [1, 1],
    type: NUMBER,
    fn: wallPart('hour'),
  },
  {
    signature: 'IS_AFTER(date1, date2)',
    returns: 'true if date1 is later than date2',
    args: [2, 2],
    type: CHECKBOX,
    fn: withDates(2, ([a, b]) => a!.getTime() > b!.getTime()),
  },
  {
    signature: 'IS_BEFORE(date1, date2)',
    returns: 'true if date1 is earlier than date2',
    args: [2, 2],
    type: CHECKBOX,
    fn: withDates(2, ([a, b]) => a!.getTime() < b!.getTime()),
  },
  {
    signature: 'IS_SAME(date1, date2, [unit])',
    returns: 'true if both fall in the same unit (the same instant when no unit)',
    args: [2, 3],
    type: CHECKBOX,
    fn: withDates(2, ([a, b], args, env) => {
      if (args.length < 3 || arg(args, 2) === null) return a!.getTime() === b!.getTime();
      const { raw, unit } = unitArg(args, 2, '');
      if (!unit) return formulaError(`unknown time unit "${raw}"`);
      const zone = zoneOf(a!, env);
      return startOf(a!.getTime(), unit, zone) === startOf(b!.getTime(), unit, zone);
    }),
  },
  {
    signature: 'MINUTE(datetime)',
    returns: 'the minute, 0-59',
    args: [1, 1],
    type: NUMBER,
    fn: wallPart('minute'),
  },
  {
    signature: 'MONTH(date)',
    returns: 'the month, 1-12',
    args: [1, 1],
    type: NUMBER,
    fn: wallPart('month'),
  },
  {
    signature: 'NOW()',
    returns: 'the current date and time',
    args: [0, 0],
    type: DATE_TIME,
    fn: (_args, env) => new Date(env.now),
  },
  {
    signature: 'SECOND(datetime)',
    returns: 'the second, 0-59',
    args: [1, 1],
    type: NUMBER,
    fn: wallPart('second'),
  },
  {
    signature: 'SET_LOCALE(date, locale_modifier)',
    returns: 'the date, tagged with a locale for DATETIME_FORMAT (names stay English whatever the locale)',
    args: [2, 2],
    type: dateLike,
    fn: withDates(
      1,
      ([d], args) =>
        new TaggedDate(d!.getTime(), d instanceof TaggedDate ? d.timeZone : undefined, text(args, 1)),
    ),
  },
  {
    signature: 'SET_TIMEZONE(date, tz_identifier)',
    returns: 'the date, tagged with an IANA time zone that the other date functions then read it in',
    args: [2, 2],
    type: dateLike,
    fn: withDates(1, ([d], args) => {
      const zone = text(args, 1).trim();
      if (!isValidTimeZone(zone)) return formulaError(`unknown time zone "${zone}"`);
      return new TaggedDate(d!.getTime(), zone, d instanceof TaggedDate ? d.locale : undefined);
    }),
  },
  {
    signature: 'TIMESTR(datetime)',
    returns: 'the time as HH:mm:ss text',
    args: [1, 1],
    type: TEXT,
    fn: withDates(1, ([d], _args, env) => formatDate(d!.getTime(), 'HH:mm:ss', zoneOf(d!, env))),
  },
  {
    signature: 'TODAY()',
    returns: 'the start of the current day in the zone',
    args: [0, 0],
    type: 'date',
    fn: (_args, env) => new Date(startOf(env.now, 'day', env.zone)),
  },
  {
    signature: 'TONOW(date)',
    returns: 'the number of whole days between the date and now, without sign',
    args: [1, 1],
    type: NUMBER,
    fn: withDates(1, ([d], _args, env) => Math.abs(diffDates(env.now, d!.getTime(), 'day', zoneOf(d!, env)))),
  },
  {
    signature: 'FROMNOW(date)',
    returns: 'the same as TONOW',
    args: [1, 1],
    type: NUMBER,
    fn: withDates(1, ([d], _args, env) => Math.abs(diffDates(d!.getTime(), env.now, 'day', zoneOf(d!, env)))),
  },
  {
    signature: 'WEEKDAY(date, [startDayOfWeek])',
    returns: 'the day of the week, 0-6, counted from Sunday (or from Monday with "Monday")',
    args: [1, 2],
    type: NUMBER,
    fn: withDates(1, ([d], args, env) => {
      const offset = startDayOffset(args, 1);
      if (offset instanceof FormulaErrorValue) return offset;
      return (toWall(d!.getTime(), zoneOf(d!, env)).weekday + 7 - offset) % 7;
    }),
  },
  {
    signature: 'WEEKNUM(date, [startDayOfWeek])',
    returns: 'the week of the year: week 1 holds January 1st, weeks start on Sunday (or "Monday")',
    args: [1, 2],
    type: NUMBER,
    fn: withDates(1, ([d], args, env) => {
      const offset = startDayOffset(args, 1);
      if (offset instanceof FormulaErrorValue) return offset;
      const w = toWall(d!.getTime(), zoneOf(d!, env));
      const jan1 = dayNumber(w.year, 1, 1);
      const jan1Weekday = (weekdayOfDay(jan1) + 7 - offset) % 7;
      return Math.floor((dayNumber(w.year, w.month, w.day) - jan1 + jan1Weekday) / 7) + 1;
    }),
  },
  {
    signature: 'WORKDAY(startDate, numDays, [holidays])',
    returns: 'the date numDays working days (Monday to Friday, not holidays) after startDate',
    args: [2, 3],
    type: 'date',
    fn: withDates(1, ([d], args, env) => {
      const holidays = holidayArg(arg(args, 2), env);
      if (holidays instanceof FormulaErrorValue) return holidays;
      const n = int(args, 1, 0);
      if (Math.abs(n) > MAX_WORKDAYS) return formulaError(`WORKDAY is limited to ${MAX_WORKDAYS} days`);
      let day = calendarDay(d!, env);
      const step = n < 0 ? -1 : 1;
      for (let remaining = Math.abs(n); remaining > 0; ) {
        day += step;
        if (isWorkday(day, holidays)) remaining--;
      }
      return sameTags(d!, fromWall(dayNumberToCivil(day), zoneOf(d!, env)));
    }),
  },
  {
    signature: 'WORKDAY_DIFF(startDate, endDate, [holidays])',
    returns: 'the working days from startDate to endDate, both counted; negative when endDate is earlier',
    args: [2, 3],
    type: NUMBER,
    fn: withDates(2, ([a, b], args, env) => {
      const holidays = holidayArg(arg(args, 2), env);
      if (holidays instanceof FormulaErrorValue) return holidays;
      const from = calendarDay(a!, env);
      const to = calendarDay(b!, env);
      const lo = Math.min(from, to);
      const hi = Math.max(from, to);
      const fullWeeks = Math.floor((hi - lo + 1) / 7);
      let count = fullWeeks * 5;
      for (let day = lo + fullWeeks * 7; day <= hi; day++) if (isWorkday(day, NO_HOLIDAYS)) count++;
      for (const day of holidays) if (day >= lo && day <= hi && isWorkday(day, NO_HOLIDAYS)) count--;
      return to >= from ? count : -count;
    }),
  },
  {
    signature: 'YEAR(date)',
    returns: 'the year',
    args: [1, 1],
    type: NUMBER,
    fn: wallPart('year'),
  },
]);

function uniqueKey(value: FormulaValue): string {
  if (value instanceof Date) return `d:${value.getTime()}`;
  if (Array.isArray(value)) return `a:[${value.map(uniqueKey).join(',')}]`;
  if (value instanceof FormulaErrorValue) return `e:${value.code}`;
  return `${typeof value}:${String(value)}`;
}

const ARRAY_FUNCTIONS = inCategory('Array', [
  {
    signature: 'ARRAYCOMPACT(values)',
    returns: 'the array without blank and "" items',
    args: [1, 1],
    type: ARRAY,
    fn: (args) => asArray(arg(args, 0)).filter((v) => v !== null && v !== ''),
  },
  {
    signature: 'ARRAYFLATTEN(values)',
    returns: 'the array with nested arrays spliced in',
    args: [1, 1],
    type: ARRAY,
    fn: (args) => flatten(asArray(arg(args, 0))),
  },
  {
    signature: 'ARRAYJOIN(values, [separator])',
    returns: 'the items as text joined with separator (default ", ")',
    args: [1, 2],
    type: TEXT,
    fn: (args) => {
      const separator = args.length > 1 ? text(args, 1) : ', ';
      return textResult(
        flatten(asArray(arg(args, 0)))
          .map(toText)
          .join(separator),
      );
    },
  },
  {
    signature: 'ARRAYUNIQUE(values)',
    returns: 'the array without repeated items, first occurrences kept',
    args: [1, 1],
    type: ARRAY,
    fn: (args) => {
      const seen = new Set<string>();
      return asArray(arg(args, 0)).filter((v) => {
        const key = uniqueKey(v);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    },
  },
  {
    signature: 'ARRAYSLICE(values, start, [end])',
    returns: 'the items from start to end, 1-based and inclusive; negative positions count from the end',
    args: [2, 3],
    type: ARRAY,
    fn: (args) => {
      const items = asArray(arg(args, 0));
      const n = items.length;
      const start = int(args, 1, 1);
      const end = args.length > 2 && arg(args, 2) !== null ? int(args, 2, n) : n;
      const from = start < 0 ? n + start : start - 1;
      const to = end < 0 ? n + end + 1 : end;
      return items.slice(Math.max(0, from), Math.max(0, to));
    },
  },
]);

const RECORD_FUNCTIONS = inCategory('Record', [
  {
    signature: 'RECORD_ID()',
    returns: 'the id of the record',
    args: [0, 0],
    type: TEXT,
    fn: (_args, env) => env.recordId,
  },
  {
    signature: 'CREATED_TIME()',
    returns: 'when the record was created',
    args: [0, 0],
    type: DATE_TIME,
    fn: (_args, env) => env.createdTime,
  },
  {
    signature: 'LAST_MODIFIED_TIME([{field}, ...])',
    returns:
      "when the record was last modified (times per field are not kept: the record's, whatever the fields)",
    args: [0, MANY],
    type: DATE_TIME,
    fieldArgs: true,
    lazy: (_args, env) => env.lastModifiedTime ?? env.createdTime,
  },
]);

export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map(
  [
    ...TEXT_FUNCTIONS,
    ...LOGICAL_FUNCTIONS,
    ...NUMERIC_FUNCTIONS,
    ...DATE_FUNCTIONS,
    ...ARRAY_FUNCTIONS,
    ...RECORD_FUNCTIONS,
  ].map((def) => [def.name, def]),
);

/** Upper-case names of every function, sorted. */
export const SUPPORTED_FUNCTIONS: readonly string[] = [...FUNCTIONS.keys()].sort();
