// zod's issues in words that name the field and say how to fix it. One walk over the issues (paths, unknown
// keys, unions: a discriminator missing or unknown, every variant refusing the value, else the variant that
// came closest) and a wording that says each problem it finds. Three wordings share the walk: the tools'
// (describeIssues: what was given, its type and a short quote, and the fix; a missing value says "required", a
// wrong one never does), zod's own messages (formatZodIssues, for emulator control endpoints and upstreams
// that quote them), and the messaging emulator's, in the upstream's words (in its slice). Pure, no I/O and no
// MCP, so that the runtime and the emulators may both use it.

import { distance } from 'fastest-levenshtein';
import { z } from 'zod';

export type Issue = z.core.$ZodIssue;
type InvalidUnion = z.core.$ZodIssueInvalidUnion;
type UnknownKeys = z.core.$ZodIssueUnrecognizedKeys;

/**
 * Options for every parse whose issues are worded here. zod v4 leaves the offending value out of its issues
 * unless asked; without it a wrong value cannot be told from a missing one, nor quoted back.
 */
export const REPORT_INPUT = { reportInput: true } as const;

/** A problem with one field, in the tools' words. */
export interface FieldProblem {
  field: string;
  problem: string;
}

/** Where a list of issues sits: their paths start below `root` (a name, e.g. `request_body`) and `prefix`. */
export interface Place {
  root: string | undefined;
  /** Where the issues' paths start, below `root`. */
  prefix: readonly PropertyKey[];
  /** The schema of the value at `prefix`, when known. */
  schema: Schema | undefined;
}

/** How one user of the walk says each problem. Parts left out are worded by `value`, from zod's issue as is. */
export interface Wording<Line> {
  /** A problem with a value. */
  value(issue: Issue, place: Place): Line;
  /**
   * One key an object does not take; `known` are the other keys it takes, where the schema is known. Left out:
   * zod's issue is worded once for all its keys.
   */
  unknownKey?(key: string, issue: UnknownKeys, place: Place, known: readonly string[]): Line;
  /** Unions. Left out: zod's one issue for the whole union ("Invalid input") is worded as it is. */
  union?: {
    /** A discriminated union whose discriminator is missing or unknown: zod gives no variant's issues. */
    discriminator(issue: InvalidUnion, place: Place): Line;
    /**
     * Every variant refused the value: one line for all of them, or undefined to report the problems of the
     * variant that came closest. `variantPlace(i)` is where the issues of variant `i` sit.
     */
    alternatives(issue: InvalidUnion, place: Place, variantPlace: (index: number) => Place): Line | undefined;
  };
}

export const TOP: Place = { root: undefined, prefix: [], schema: undefined };

/** The whole path of an issue: root, prefix, then the issue's own path. */
export function pathOf(place: Place, issue: Issue): PropertyKey[] {
  return [...(place.root ? [place.root] : []), ...place.prefix, ...issue.path];
}

/** One line per problem, in the order zod found them. */
export function walkIssues<Line>(
  issues: readonly Issue[],
  wording: Wording<Line>,
  place: Place = TOP,
): Line[] {
  return issues.flatMap((issue): Line[] => {
    if (issue.code === 'unrecognized_keys' && wording.unknownKey) {
      const known = knownKeys(schemaAt(place.schema, issue.path)).filter((key) => !issue.keys.includes(key));
      return issue.keys.map((key) => wording.unknownKey!(key, issue, place, known));
    }
    if (issue.code === 'invalid_union' && wording.union) return walkUnion(issue, wording, place);
    return [wording.value(issue, place)];
  });
}

function walkUnion<Line>(issue: InvalidUnion, wording: Wording<Line>, place: Place): Line[] {
  const union = wording.union!;
  if (issue.errors.length === 0) return [union.discriminator(issue, place)];
  const at = schemaAt(place.schema, issue.path);
  const unionSchema = at.length === 1 ? unwrap(at[0]) : undefined;
  const variants = unionSchema ? defOf(unionSchema).options : undefined;
  const variantPlace = (index: number): Place => ({
    root: place.root,
    prefix: [...place.prefix, ...issue.path],
    schema: variants && variants.length === issue.errors.length ? variants[index] : undefined,
  });
  const one = union.alternatives(issue, place, variantPlace);
  if (one !== undefined) return [one];
  // Otherwise the closest variant (fewest problems) is nearly always the one meant: report its problems.
  let best = 0;
  issue.errors.forEach((branch, index) => {
    if (branch.length < issue.errors[best]!.length) best = index;
  });
  return walkIssues(issue.errors[best]!, wording, variantPlace(best));
}

// zod's own messages, each after its field (`rules[0].kind: Invalid option: ...`), issues as zod gives them.

/** The field of a path the way code writes it: `rules[0].kind`. */
function indexedField(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, part) =>
      typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part),
    '',
  );
}

const ZOD_WORDING: Wording<string> = {
  value(issue, place) {
    const field = indexedField(pathOf(place, issue));
    return field ? `${field}: ${issue.message}` : issue.message;
  },
};

/** zod's messages in one line, `field: message` per problem, `; ` between them; `root` names the value. */
export function formatZodIssues(error: z.ZodError, root = ''): string {
  return walkIssues(error.issues, ZOD_WORDING, { ...TOP, root }).join('; ');
}

// The tools' wording.

/**
 * Field-named problems from zod issues (parsed with REPORT_INPUT). `root` names the value itself (e.g.
 * `request_body`); `schema`, the schema that was parsed, lets an unknown key be matched to the closest known one.
 */
export function describeIssues(issues: readonly Issue[], root?: string, schema?: Schema): FieldProblem[] {
  return walkIssues(issues, EXPLAINED, { root, prefix: [], schema });
}

/** The field of a path as the tools name it: `request_body.fields.0`, or `(arguments)` for them all. */
function dottedField(path: readonly PropertyKey[]): string {
  return path.length > 0 ? path.map(String).join('.') : '(arguments)';
}

const EXPLAINED: Wording<FieldProblem> = {
  value(issue, place) {
    return {
      field: dottedField(pathOf(place, issue)),
      problem: render(withListedValues(ruleOf(issue, place), issue, place), issue.input),
    };
  },
  unknownKey(key, issue, place, known) {
    const path = pathOf(place, issue);
    const what = path.length > 0 ? 'unknown field' : 'unknown parameter';
    const near = closestName(key, known);
    return {
      field: dottedField([...path, key]),
      problem: near
        ? `${what}; did you mean ${JSON.stringify(near)}?`
        : `${what}; check the spelling against the ${place.root ? 'schema' : 'input schema'}`,
    };
  },
  union: {
    discriminator(issue, place) {
      return { field: dottedField(pathOf(place, issue)), problem: explainDiscriminator(issue) };
    },
    alternatives(issue, place, variantPlace) {
      const problem = explainAlternatives(issue, variantPlace);
      return problem === undefined ? undefined : { field: dottedField(pathOf(place, issue)), problem };
    },
  },
};

/** A discriminated union whose discriminator is missing or unknown; the path already ends at the discriminator. */
function explainDiscriminator(issue: InvalidUnion): string {
  if (isCustomMessage(issue)) return issue.message;
  const input: unknown = issue.input;
  const options = 'options' in issue && Array.isArray(issue.options) ? (issue.options as unknown[]) : [];
  const key = 'discriminator' in issue ? String(issue.discriminator) : undefined;
  const given =
    key !== undefined && input !== null && typeof input === 'object'
      ? (input as Record<string, unknown>)[key]
      : undefined;
  if (options.length === 0) return issue.message;
  const near = typeof given === 'string' ? closestName(given, options.filter(isString)) : undefined;
  return render(
    {
      required: `required: ${listValues(options)}`,
      rule: `must be ${listValues(options)}`,
      given: describeValue(given),
      ...(near ? { tail: `; did you mean ${JSON.stringify(near)}?` } : {}),
    },
    given,
  );
}

/**
 * Where every variant refused the value itself, not something inside it (a string that is neither one of the
 * listed values nor a slug; a number where a string or an array goes): one line with every alternative.
 */
function explainAlternatives(
  issue: InvalidUnion,
  variantPlace: (index: number) => Place,
): string | undefined {
  const input: unknown = issue.input;
  const refusals = issue.errors.map((branch, index) => ({ issue: branch[0]!, index, count: branch.length }));
  const refusedItself = refusals.every(
    (r) =>
      r.count === 1 &&
      r.issue.path.length === 0 &&
      r.issue.code !== 'invalid_union' &&
      r.issue.code !== 'unrecognized_keys',
  );
  if (!refusedItself) return undefined;
  // Variants whose type the value has are closer than those whose type it has not.
  const typed = refusals.filter((r) => r.issue.code !== 'invalid_type');
  const closer = typed.length > 0 ? typed : refusals;
  if (typed.length === 0) {
    const types = [...new Set(closer.map((r) => expectedType(r.issue, variantPlace(r.index))))];
    return render(
      {
        required: `required (${types.join(' or ')})`,
        rule: `must be ${types.map(withArticle).join(' or ')}`,
        given: describeValue(input),
      },
      input,
    );
  }
  const rules = closer.map((r) => ruleOf(r.issue, variantPlace(r.index)));
  if (rules.length === 1) return render(rules[0]!, input);
  const alternatives = [
    ...new Set(rules.map((rule, i) => (i > 0 ? rule.rule.replace(/^must be /, '') : rule.rule))),
  ];
  const rule = alternatives.join(' or ');
  const tail = rules.find((r) => r.tail)?.tail;
  return render(
    {
      required: `required; ${rule}`,
      rule,
      ...(rules.some((r) => r.given) ? { given: describeValue(input) } : {}),
      ...(tail ? { tail } : {}),
    },
    input,
  );
}

/**
 * Where one variant of a union alone took the value's type (a slug pattern beside an enum of built-in values),
 * zod reports that variant's problem only; the values the other variants list are added, with the closest one.
 */
function withListedValues(rule: Rule, issue: Issue, place: Place): Rule {
  const at = schemaAt(place.schema, issue.path);
  const union = at.length === 1 ? unwrap(at[0]) : undefined;
  if (!union || defOf(union).type !== 'union' || issue.input === undefined) return rule;
  const values = (defOf(union).options ?? []).flatMap(listedValues);
  if (values.length === 0) return rule;
  const near =
    typeof issue.input === 'string' ? closestName(issue.input, values.filter(isString)) : undefined;
  const tail = rule.tail ?? (near ? `; did you mean ${JSON.stringify(near)}?` : undefined);
  return {
    required: rule.required,
    rule: `must be ${listValues(values)} or ${rule.rule.replace(/^must be /, '')}`,
    given: rule.given ?? describeValue(issue.input),
    ...(tail ? { tail } : {}),
  };
}

/** The values an enum or literal schema allows; none for other kinds. */
function listedValues(schema: Schema): unknown[] {
  const inner = unwrap(schema);
  if (!inner) return [];
  const def = defOf(inner);
  if (def.type === 'enum') return Object.values(def.entries ?? {});
  if (def.type === 'literal') return [...(def.values ?? [])];
  return [];
}

/** One problem with a value, in parts, so that the alternatives of a union can be said in one line. */
interface Rule {
  /** What a missing value is told. */
  required: string;
  /** The rule the given value broke, e.g. `must be one of "id", "search"`. */
  rule: string;
  /** The value given, described; absent where the rule's own words already say it. */
  given?: string;
  /** Advice after the value, e.g. `; did you mean "id"?`. */
  tail?: string;
}

function render(rule: Rule, input: unknown): string {
  if (input === undefined) return rule.required;
  return `${rule.rule}${rule.given ? `; got ${rule.given}` : ''}${rule.tail ?? ''}`;
}

/** The rule of an issue about the value itself (every kind but unknown keys and unions). */
function ruleOf(issue: Issue, place: Place): Rule {
  const input: unknown = issue.input;
  const given = describeValue(input);
  if (isCustomMessage(issue)) {
    // The schema's author said what is wrong; keep their words, and add the value where they do not give it.
    const type = issue.code === 'invalid_type' ? ` (${expectedType(issue, place)})` : '';
    return {
      required: `required${type}: ${issue.message}`,
      rule: issue.message,
      ...(saysGiven(issue.message, input) ? {} : { given }),
    };
  }
  switch (issue.code) {
    case 'invalid_type': {
      const type = expectedType(issue, place);
      return { required: `required (${type})`, rule: `must be ${withArticle(type)}`, given };
    }
    case 'invalid_value': {
      const allowed = listValues(issue.values);
      const near = typeof input === 'string' ? closestName(input, issue.values.filter(isString)) : undefined;
      return {
        required: `required: ${allowed}`,
        rule: `must be ${allowed}`,
        given,
        ...(near ? { tail: `; did you mean ${JSON.stringify(near)}?` } : {}),
      };
    }
    case 'too_small':
    case 'too_big': {
      const rule = sizeRule(issue);
      return { required: `required; ${rule}`, rule, given: describeSize(issue.origin, input) };
    }
    case 'invalid_format': {
      const rule = formatRule(issue);
      return { required: `required; ${rule}`, rule, given };
    }
    case 'not_multiple_of': {
      const rule = `must be a multiple of ${issue.divisor}`;
      return { required: `required; ${rule}`, rule, given };
    }
    case 'custom':
      // A refinement without a message of its own.
      return { required: 'required', rule: 'invalid value', given };
    default:
      // invalid_key and invalid_element (map and record keys, set elements): zod's own words, and the value.
      return { required: `required: ${issue.message}`, rule: issue.message, given };
  }
}

/** The JSON type a value should have had; zod says "number" for an integer, the published schema "integer". */
function expectedType(issue: Issue, place: Place): string {
  if (issue.code !== 'invalid_type') return 'value';
  if (issue.expected === 'number' && isInteger(schemaAt(place.schema, issue.path))) return 'integer';
  return TYPE_NAMES[issue.expected] ?? issue.expected;
}

/** zod's type names in JSON's words, the ones the published schema uses. */
const TYPE_NAMES: Readonly<Record<string, string>> = { int: 'integer', record: 'object', tuple: 'array' };

function withArticle(type: string): string {
  if (type === 'null') return 'null';
  if (type === 'never' || type === 'undefined') return 'left out';
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** True where the schema's author wrote the message; zod's own (English) wording is replaced by ours. */
function isCustomMessage(issue: Issue): boolean {
  const localeError = z.config().localeError;
  if (!localeError) return true;
  const standard = localeError(issue as unknown as z.core.$ZodRawIssue);
  return (typeof standard === 'string' ? standard : standard?.message) !== issue.message;
}

/** What a length counts, by the origin zod names; numbers and dates have none. */
const UNITS: Readonly<Record<string, string>> = {
  string: 'character',
  array: 'item',
  set: 'item',
  file: 'byte',
};

function sizeRule(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const big = issue.code === 'too_big';
  const bound = big ? issue.maximum : issue.minimum;
  const exact = 'exact' in issue && issue.exact === true;
  const inclusive = issue.inclusive !== false;
  const unit = UNITS[issue.origin];
  const bounded = inclusive ? (big ? 'at most' : 'at least') : undefined;
  if (unit === undefined) {
    const relation = exact ? 'exactly' : (bounded ?? (big ? 'less than' : 'greater than'));
    return `must be ${relation} ${bound}`;
  }
  if (!big && !exact && inclusive && Number(bound) === 1) return 'must not be empty';
  const relation = exact ? 'exactly' : (bounded ?? (big ? 'fewer than' : 'more than'));
  return `must have ${relation} ${bound} ${unit}${Number(bound) === 1 ? '' : 's'}`;
}

function describeSize(origin: string, input: unknown): string {
  if (typeof input === 'string' && origin === 'string') {
    return input === '' ? 'an empty string' : `${input.length} (${quote(input)})`;
  }
  if (Array.isArray(input)) return input.length === 0 ? 'an empty array' : `${input.length}`;
  if (input instanceof Set) return `${input.size}`;
  return describeValue(input);
}

/** What each string format looks like, with an example a model can copy. */
const FORMATS: Readonly<Record<string, string>> = {
  datetime: 'an ISO 8601 date-time such as 2026-03-01T12:00:00Z',
  date: 'a date YYYY-MM-DD such as 2026-03-01',
  time: 'a time HH:MM[:SS] such as 14:30',
  duration: 'an ISO 8601 duration such as P3D',
  email: 'an email address such as ada@example.com',
  url: 'a URL such as https://example.com',
  uuid: 'a UUID',
  guid: 'a UUID',
  e164: 'a phone number in E.164 form such as +14155550123',
  base64: 'base64 text',
  base64url: 'base64url text',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  cidrv4: 'an IPv4 CIDR range',
  cidrv6: 'an IPv6 CIDR range',
  hostname: 'a host name',
  lowercase: 'lowercase',
  uppercase: 'uppercase',
};

function formatRule(issue: z.core.$ZodIssueInvalidStringFormat): string {
  const detail = issue as z.core.$ZodIssueInvalidStringFormat & {
    prefix?: string;
    suffix?: string;
    includes?: string;
  };
  switch (issue.format) {
    case 'regex':
      return `must match the pattern ${issue.pattern ?? '(see the schema)'}`;
    case 'starts_with':
      return `must start with ${JSON.stringify(detail.prefix)}`;
    case 'ends_with':
      return `must end with ${JSON.stringify(detail.suffix)}`;
    case 'includes':
      return `must contain ${JSON.stringify(detail.includes)}`;
    default: {
      const known = FORMATS[issue.format] ?? (issue.format.startsWith('uuid') ? FORMATS.uuid : undefined);
      return `must be ${known ?? `a valid ${issue.format}`}`;
    }
  }
}

/**
 * Whether an author's message already says what was given ("...; got 12", or the value quoted), or is about a
 * whole object or array, whose parts the message names: then the value is not added.
 */
function saysGiven(message: string, input: unknown): boolean {
  if (input !== null && typeof input === 'object') return true;
  return /\bgot\b/.test(message) || (typeof input === 'string' && message.includes(JSON.stringify(input)));
}

const QUOTE_CHARS = 40;

/** The type of a value and a short quote of it: `string "three"`, `number 5`, `object {"a":1,…`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return value === '' ? 'an empty string' : `string ${quote(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${String(value)}`;
  }
  if (Array.isArray(value)) {
    return value.length === 0 ? 'an empty array' : `array of ${value.length} ${shortJson(value)}`;
  }
  if (typeof value === 'object') return `object ${shortJson(value)}`;
  return typeof value;
}

function quote(text: string): string {
  return JSON.stringify(cut(text));
}

function shortJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // Arguments arrive as JSON, so this is only reached for values built in code (a cycle, a bigint).
  }
  return cut(text ?? String(value));
}

/** The first QUOTE_CHARS characters, never half a surrogate pair. */
function cut(text: string): string {
  if (text.length <= QUOTE_CHARS) return text;
  let end = QUOTE_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

const MAX_LISTED = 12;

function listValues(values: readonly unknown[]): string {
  if (values.length === 1) return JSON.stringify(values[0]);
  const shown = values.slice(0, MAX_LISTED).map((value) => JSON.stringify(value));
  const more = values.length > MAX_LISTED ? `, … (${values.length - MAX_LISTED} more)` : '';
  return `one of ${shown.join(', ')}${more}`;
}

const isString = (value: unknown): value is string => typeof value === 'string';

/**
 * The known name a mistyped one most likely meant: equal once case, `_`, `-` and spaces are ignored
 * (createdAt for created_at), or within a third of its length in edits (maximun_records, idd).
 */
function closestName(given: string, known: readonly string[]): string | undefined {
  const plain = (name: string) => name.toLowerCase().replace(/[\s_-]/g, '');
  const wanted = plain(given);
  // Under three characters every other short name is one edit away: only a case or separator slip counts.
  const budget = wanted.length < 3 ? 0 : Math.max(1, Math.floor(wanted.length / 3));
  let best: string | undefined;
  let bestEdits = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const edits = distance(wanted, plain(name));
    if (edits < bestEdits) {
      best = name;
      bestEdits = edits;
    }
  }
  return bestEdits <= budget ? best : undefined;
}

// Walking a schema to find the keys an object at some path takes. zod v4 keeps each kind's parts in its `def`;
// only the few fields read here are declared.
export type Schema = z.core.$ZodType;
interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  out?: Schema;
  getter?: () => Schema;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  element?: Schema;
  items?: Schema[];
  rest?: Schema | null;
  valueType?: Schema;
  options?: Schema[];
  left?: Schema;
  right?: Schema;
  /** An enum's values by key, a literal's values. */
  entries?: Record<string, unknown>;
  values?: unknown[];
  /** Number formats (`safeint`, `int32`...): on z.int() itself, or on the def of an `.int()` check. */
  format?: string;
  checks?: Schema[];
}

const defOf = (schema: Schema): Def => schema._zod.def as unknown as Def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/** The schema under optional/default/pipe/lazy wrappers. */
function unwrap(schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let depth = 0; current && depth < 32; depth++) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type)) current = def.innerType;
    else if (def.type === 'pipe') current = def.in && defOf(def.in).type === 'transform' ? def.out : def.in;
    else if (def.type === 'lazy') current = def.getter?.();
    else return current;
  }
  return current;
}

/** The schemas a value at `path` below `schema` may have (several where a union is crossed). */
function schemaAt(schema: Schema | undefined, path: readonly PropertyKey[]): Schema[] {
  let current = schema ? [schema] : [];
  for (const key of path) {
    current = current.flatMap((candidate) => childrenOf(candidate, key));
  }
  return current;
}

function childrenOf(schema: Schema, key: PropertyKey): Schema[] {
  const inner = unwrap(schema);
  if (!inner) return [];
  const def = defOf(inner);
  const found = (child: Schema | null | undefined) => (child ? [child] : []);
  switch (def.type) {
    case 'object':
      return found(def.shape?.[String(key)] ?? def.catchall);
    case 'array':
      return found(def.element);
    case 'tuple':
      return found(def.items?.[Number(key)] ?? def.rest);
    case 'record':
      return found(def.valueType);
    case 'union':
      return (def.options ?? []).flatMap((option) => childrenOf(option, key));
    case 'intersection':
      return [
        ...(def.left ? childrenOf(def.left, key) : []),
        ...(def.right ? childrenOf(def.right, key) : []),
      ];
    default:
      return [];
  }
}

/** True where every candidate is a number schema restricted to integers (z.int(), .int(), int32...). */
function isInteger(schemas: readonly Schema[]): boolean {
  return (
    schemas.length > 0 &&
    schemas.every((schema) => {
      const inner = unwrap(schema);
      if (!inner || defOf(inner).type !== 'number') return false;
      const def = defOf(inner);
      const formats = [def.format, ...(def.checks ?? []).map((check) => defOf(check).format)];
      return formats.some((format) => format !== undefined && /int/.test(format));
    })
  );
}

/** Every key the object schemas among `schemas` name. */
function knownKeys(schemas: readonly Schema[]): string[] {
  const keys = new Set<string>();
  const visit = (schema: Schema) => {
    const inner = unwrap(schema);
    if (!inner) return;
    const def = defOf(inner);
    if (def.type === 'object') for (const key of Object.keys(def.shape ?? {})) keys.add(key);
    else if (def.type === 'union') for (const option of def.options ?? []) visit(option);
    else if (def.type === 'intersection') for (const side of [def.left, def.right]) if (side) visit(side);
  };
  for (const schema of schemas) visit(schema);
  return [...keys];
}
