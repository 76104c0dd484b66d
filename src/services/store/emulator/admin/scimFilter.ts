/**
 * SCIM 2.0 filters and attribute paths (RFC 7644 §3.4.2.2 and §3.5.2), over the SCIM resources the emulator
 * serves (plain JSON objects, as routes/scim.ts builds them).
 *
 * A filter is parsed once into a tree and compiled into closures, so evaluating it over thousands of resources
 * costs one small function call per comparison: literals are lower-cased and dates parsed at compile time, and
 * each attribute path becomes a getter. The grammar is the RFC's: comparisons `eq ne co sw ew gt ge lt le`,
 * presence `pr`, `and` (binding tighter than `or`), `not ( … )`, parentheses, and value paths over multi-valued
 * attributes (`emails[type eq "work" and value co "@example.com"]`). Attribute names and operators are
 * case-insensitive; string comparisons follow each attribute's caseExact (userName, emails, names are not case
 * exact; id, externalId and member values are). Attribute paths may carry their schema URI
 * (`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department`).
 *
 * Anything the parser cannot read, or an attribute the resource type does not have, is a ScimFilterError whose
 * scimType is `invalidFilter` (for filters) or `invalidPath` (for PATCH paths) and whose message says what to fix.
 *
 * Why not a package: scim2-parse-filter, scim-query-filter-parser and scim-patch know no schema, so none can
 * apply caseExact, compare dateTimes as instants, or refuse unknown, complex or write-only attributes, and
 * their errors name no position or fix ("Failed to parse!", "[(EOT)] is not json"); scim2-parse-filter also
 * accepts `not` without parentheses, which RFC 7644 does not.
 */
import { SCIM_ENTERPRISE_USER_URI, SCIM_GROUP_URI, SCIM_USER_URI } from '../../schemas/scim.js';

export type ScimResourceType = 'User' | 'Group';

export type ScimAttributeType = 'string' | 'boolean' | 'dateTime' | 'reference' | 'complex';

export interface ScimAttribute {
  /** The canonical (schema) spelling. */
  name: string;
  type: ScimAttributeType;
  multiValued: boolean;
  caseExact: boolean;
  mutability: 'readWrite' | 'readOnly' | 'writeOnly';
  /** Sub-attributes of a complex attribute, keyed by lower-cased name. */
  subAttributes?: ReadonlyMap<string, ScimAttribute>;
}

export interface ScimSchemaDef {
  resourceType: ScimResourceType;
  coreUri: string;
  /** Core attributes, keyed by lower-cased name. */
  core: ReadonlyMap<string, ScimAttribute>;
  /** Extension schemas: canonical URI and its attributes (kept in the resource under the URI). */
  extensions: readonly { uri: string; attributes: ReadonlyMap<string, ScimAttribute> }[];
}

export class ScimFilterError extends Error {
  constructor(
    message: string,
    readonly scimType: 'invalidFilter' | 'invalidPath',
  ) {
    super(message);
    this.name = 'ScimFilterError';
  }
}

// ---- attribute definitions (RFC 7643 §4 and §8.7.1, as far as the emulator keeps them) ---------------------

type Spec = [
  name: string,
  type: ScimAttributeType,
  options?: { multi?: boolean; caseExact?: boolean; mutability?: ScimAttribute['mutability']; subs?: Spec[] },
];

function attributes(specs: Spec[]): ReadonlyMap<string, ScimAttribute> {
  return new Map(
    specs.map(([name, type, options = {}]) => {
      const attribute: ScimAttribute = {
        name,
        type,
        multiValued: options.multi ?? false,
        caseExact: options.caseExact ?? false,
        mutability: options.mutability ?? 'readWrite',
        ...(options.subs ? { subAttributes: attributes(options.subs) } : {}),
      };
      return [name.toLowerCase(), attribute];
    }),
  );
}

const multiValue = (extra: Spec[] = []): Spec[] => [
  ['value', 'string'],
  ['display', 'string'],
  ['type', 'string'],
  ['primary', 'boolean'],
  ...extra,
];

const META: Spec = [
  'meta',
  'complex',
  {
    mutability: 'readOnly',
    subs: [
      ['resourceType', 'string', { caseExact: true }],
      ['created', 'dateTime'],
      ['lastModified', 'dateTime'],
      ['location', 'reference', { caseExact: true }],
      ['version', 'string', { caseExact: true }],
    ],
  },
];

export const SCIM_USER_SCHEMA: ScimSchemaDef = {
  resourceType: 'User',
  coreUri: SCIM_USER_URI,
  core: attributes([
    ['id', 'string', { caseExact: true, mutability: 'readOnly' }],
    ['externalId', 'string', { caseExact: true }],
    ['userName', 'string'],
    [
      'name',
      'complex',
      {
        subs: [
          ['formatted', 'string'],
          ['familyName', 'string'],
          ['givenName', 'string'],
          ['middleName', 'string'],
          ['honorificPrefix', 'string'],
          ['honorificSuffix', 'string'],
        ],
      },
    ],
    ['displayName', 'string'],
    ['nickName', 'string'],
    ['profileUrl', 'reference'],
    ['title', 'string'],
    ['userType', 'string'],
    ['preferredLanguage', 'string'],
    ['locale', 'string'],
    ['timezone', 'string'],
    ['active', 'boolean'],
    ['password', 'string', { caseExact: true, mutability: 'writeOnly' }],
    ['emails', 'complex', { multi: true, subs: multiValue() }],
    ['phoneNumbers', 'complex', { multi: true, subs: multiValue() }],
    ['ims', 'complex', { multi: true, subs: multiValue() }],
    ['photos', 'complex', { multi: true, subs: multiValue() }],
    [
      'addresses',
      'complex',
      {
        multi: true,
        subs: [
          ['formatted', 'string'],
          ['streetAddress', 'string'],
          ['locality', 'string'],
          ['region', 'string'],
          ['postalCode', 'string'],
          ['country', 'string'],
          ['type', 'string'],
          ['primary', 'boolean'],
        ],
      },
    ],
    [
      'groups',
      'complex',
      {
        multi: true,
        mutability: 'readOnly',
        subs: [
          ['value', 'string', { caseExact: true }],
          ['$ref', 'reference', { caseExact: true }],
          ['display', 'string'],
          ['type', 'string'],
        ],
      },
    ],
    ['entitlements', 'complex', { multi: true, subs: multiValue() }],
    ['roles', 'complex', { multi: true, subs: multiValue() }],
    META,
  ]),
  extensions: [
    {
      uri: SCIM_ENTERPRISE_USER_URI,
      attributes: attributes([
        ['employeeNumber', 'string'],
        ['costCenter', 'string'],
        ['organization', 'string'],
        ['division', 'string'],
        ['department', 'string'],
        [
          'manager',
          'complex',
          {
            subs: [
              ['value', 'string', { caseExact: true }],
              ['$ref', 'reference', { caseExact: true }],
              ['displayName', 'string'],
            ],
          },
        ],
      ]),
    },
  ],
};

export const SCIM_GROUP_SCHEMA: ScimSchemaDef = {
  resourceType: 'Group',
  coreUri: SCIM_GROUP_URI,
  core: attributes([
    ['id', 'string', { caseExact: true, mutability: 'readOnly' }],
    ['externalId', 'string', { caseExact: true }],
    ['displayName', 'string'],
    [
      'members',
      'complex',
      {
        multi: true,
        subs: [
          ['value', 'string', { caseExact: true }],
          ['$ref', 'reference', { caseExact: true }],
          ['display', 'string'],
          ['type', 'string'],
        ],
      },
    ],
    META,
  ]),
  extensions: [],
};

export function scimSchemaOf(resourceType: ScimResourceType): ScimSchemaDef {
  return resourceType === 'User' ? SCIM_USER_SCHEMA : SCIM_GROUP_SCHEMA;
}

// ---- tokens -----------------------------------------------------------------------------------------------

type TokenKind = 'word' | 'string' | '(' | ')' | '[' | ']';

interface Token {
  kind: TokenKind;
  text: string;
  /** The string literal's value, for `string` tokens. */
  value?: string;
  pos: number;
}

function tokenize(text: string, scimType: ScimFilterError['scimType']): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i++;
      continue;
    }
    if (ch === '(' || ch === ')' || ch === '[' || ch === ']') {
      tokens.push({ kind: ch, text: ch, pos: i });
      i++;
      continue;
    }
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) {
        throw new ScimFilterError(
          `The string starting at position ${i + 1} has no closing double quote.`,
          scimType,
        );
      }
      const raw = text.slice(i, j + 1);
      let value: string;
      try {
        value = JSON.parse(raw) as string;
      } catch {
        throw new ScimFilterError(`The string ${raw} at position ${i + 1} has an invalid escape.`, scimType);
      }
      tokens.push({ kind: 'string', text: raw, value, pos: i });
      i = j + 1;
      continue;
    }
    let j = i;
    while (j < text.length && !/[\s()[\]"]/.test(text[j] as string)) j++;
    tokens.push({ kind: 'word', text: text.slice(i, j), pos: i });
    i = j;
  }
  return tokens;
}

// ---- attribute paths -----------------------------------------------------------------------------------------

/** An attribute path resolved against a schema: where the attribute lives and which sub-attribute is meant. */
export interface ResolvedAttribute {
  /** The extension URI holding the attribute in the resource, or undefined for a core attribute. */
  container: string | undefined;
  attribute: ScimAttribute;
  sub: ScimAttribute | undefined;
  /** The canonical path, e.g. `name.givenName` or `urn:…:enterprise:2.0:User:department`. */
  path: string;
}

function unknownAttribute(
  text: string,
  def: ScimSchemaDef,
  scimType: ScimFilterError['scimType'],
): ScimFilterError {
  const known = [...def.core.values()]
    .filter((a) => a.mutability !== 'writeOnly')
    .map((a) => a.name)
    .join(', ');
  return new ScimFilterError(
    `"${text}" is not an attribute of a SCIM ${def.resourceType}; ${def.resourceType} attributes are ${known}${
      def.extensions.length > 0 ? ` and those of ${def.extensions.map((e) => e.uri).join(', ')}` : ''
    }.`,
    scimType,
  );
}

/**
 * Resolves `[URI ":"] name ["." sub]` against the schema (names case-insensitive). With `within`, the path is
 * a sub-attribute name inside a value filter (`emails[type eq "work"]`).
 */
export function resolveAttribute(
  text: string,
  def: ScimSchemaDef,
  scimType: ScimFilterError['scimType'],
  within?: ResolvedAttribute,
): ResolvedAttribute {
  if (within) {
    const sub = within.attribute.subAttributes?.get(text.toLowerCase());
    if (!sub) {
      const subs = [...(within.attribute.subAttributes?.values() ?? [])].map((a) => a.name).join(', ');
      throw new ScimFilterError(
        `"${text}" is not a sub-attribute of ${within.attribute.name}; use one of ${subs}.`,
        scimType,
      );
    }
    return { ...within, sub, path: `${within.path}.${sub.name}` };
  }
  let rest = text;
  let attributesOf = def.core;
  let container: string | undefined;
  if (/^urn:/i.test(text)) {
    const lower = text.toLowerCase();
    const extension = def.extensions.find((e) => lower.startsWith(`${e.uri.toLowerCase()}:`));
    if (extension) {
      rest = text.slice(extension.uri.length + 1);
      attributesOf = extension.attributes;
      container = extension.uri;
    } else if (lower.startsWith(`${def.coreUri.toLowerCase()}:`)) {
      rest = text.slice(def.coreUri.length + 1);
    } else {
      throw new ScimFilterError(
        `"${text}" names a schema a SCIM ${def.resourceType} does not have; use ${[def.coreUri, ...def.extensions.map((e) => e.uri)].join(' or ')} followed by ":" and an attribute name.`,
        scimType,
      );
    }
  }
  const [name = '', subName, ...more] = rest.split('.');
  const attribute = attributesOf.get(name.toLowerCase());
  if (!attribute || more.length > 0 || name === '') throw unknownAttribute(text, def, scimType);
  const prefix = container ? `${container}:` : '';
  if (subName === undefined)
    return { container, attribute, sub: undefined, path: `${prefix}${attribute.name}` };
  const sub = attribute.subAttributes?.get(subName.toLowerCase());
  if (!sub) {
    throw new ScimFilterError(
      attribute.subAttributes
        ? `"${subName}" is not a sub-attribute of ${attribute.name}; use one of ${[...attribute.subAttributes.values()].map((a) => a.name).join(', ')}.`
        : `${attribute.name} has no sub-attributes; write ${prefix}${attribute.name} alone.`,
      scimType,
    );
  }
  return { container, attribute, sub, path: `${prefix}${attribute.name}.${sub.name}` };
}

// ---- compiled filters -----------------------------------------------------------------------------------------

export type ScimPredicate = (resource: unknown) => boolean;

type Literal = string | boolean | number | null;

const COMPARE_OPS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);

/** A getter for the attribute's raw value(s): one value, an array of values, or undefined. */
function getterOf(resolved: ResolvedAttribute, relative: boolean): (resource: unknown) => unknown {
  const { container, attribute, sub } = resolved;
  if (relative) {
    const key = sub?.name ?? attribute.name;
    return (element) => (element as Record<string, unknown> | null)?.[key];
  }
  const name = attribute.name;
  const top: (r: unknown) => unknown = container
    ? (r) => ((r as Record<string, unknown>)[container] as Record<string, unknown> | undefined)?.[name]
    : (r) => (r as Record<string, unknown>)[name];
  // A complex attribute compared without a sub-attribute compares its `value` (RFC 7644 §3.4.2.2).
  const subName = sub?.name ?? (attribute.type === 'complex' ? 'value' : undefined);
  if (subName === undefined) return top;
  if (!attribute.multiValued) {
    return (r) => (top(r) as Record<string, unknown> | null | undefined)?.[subName];
  }
  return (r) => {
    const items = top(r);
    if (!Array.isArray(items)) return undefined;
    const out: unknown[] = [];
    for (const item of items) {
      const v = (item as Record<string, unknown> | null)?.[subName];
      if (v !== undefined && v !== null) out.push(v);
    }
    return out;
  };
}

function present(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.some(present);
  if (typeof value === 'object') return Object.values(value).some(present);
  return true;
}

/** True when `test` holds for the value or, for a multi-valued attribute, for any of its values. */
function any(get: (r: unknown) => unknown, test: (v: unknown) => boolean): ScimPredicate {
  return (r) => {
    const value = get(r);
    if (Array.isArray(value)) {
      for (const v of value) if (test(v)) return true;
      return false;
    }
    return test(value);
  };
}

function describeLiteral(literal: Literal): string {
  return typeof literal === 'string' ? JSON.stringify(literal) : String(literal);
}

function compileComparison(
  resolved: ResolvedAttribute,
  op: string,
  literal: Literal,
  relative: boolean,
  scimType: ScimFilterError['scimType'],
): ScimPredicate {
  const target = resolved.sub ?? resolved.attribute;
  const fail = (why: string) =>
    new ScimFilterError(`${resolved.path} ${op} ${describeLiteral(literal)}: ${why}`, scimType);
  if (target.mutability === 'writeOnly') throw fail(`${target.name} cannot be used in a filter.`);
  let effective = target;
  if (target.type === 'complex') {
    const value = target.subAttributes?.get('value');
    if (!value) {
      const subs = [...(target.subAttributes?.values() ?? [])].map((a) => `${target.name}.${a.name}`);
      throw fail(`${target.name} is complex; compare one of its sub-attributes (${subs.join(', ')}).`);
    }
    effective = value;
  }
  const get = getterOf(resolved, relative);
  if (literal === null) {
    if (op !== 'eq' && op !== 'ne') throw fail('null can only be compared with eq or ne.');
    const isPresent: ScimPredicate = (r) => present(get(r));
    return op === 'eq' ? (r) => !isPresent(r) : isPresent;
  }
  if (effective.type === 'boolean') {
    if (typeof literal !== 'boolean') {
      throw fail(`${effective.name} is a boolean; compare it with true or false (no quotes).`);
    }
    if (op !== 'eq' && op !== 'ne') throw fail(`${effective.name} is a boolean; use eq, ne or pr.`);
    const eq = any(get, (v) => v === literal);
    return op === 'eq' ? eq : (r) => !eq(r);
  }
  if (typeof literal !== 'string') {
    throw fail(`${effective.name} is a ${effective.type}; compare it with a quoted string.`);
  }
  if (effective.type === 'dateTime' && op !== 'co' && op !== 'sw' && op !== 'ew') {
    const when = Date.parse(literal);
    if (Number.isNaN(when)) throw fail('not a date and time; write one like "2025-01-31T00:00:00Z".');
    const cmp = (v: unknown): number => (typeof v === 'string' ? Date.parse(v) - when : Number.NaN);
    return orderPredicate(get, op, cmp);
  }
  const caseExact = effective.caseExact;
  const lit = caseExact ? literal : literal.toLowerCase();
  const norm = caseExact
    ? (v: unknown) => (typeof v === 'string' ? v : undefined)
    : (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : undefined);
  switch (op) {
    case 'eq':
    case 'ne': {
      const eq = any(get, (v) => norm(v) === lit);
      return op === 'eq' ? eq : (r) => !eq(r);
    }
    case 'co':
      return any(get, (v) => norm(v)?.includes(lit) === true);
    case 'sw':
      return any(get, (v) => norm(v)?.startsWith(lit) === true);
    case 'ew':
      return any(get, (v) => norm(v)?.endsWith(lit) === true);
    default:
      return orderPredicate(get, op, (v) => {
        const s = norm(v);
        return s === undefined ? Number.NaN : s < lit ? -1 : s > lit ? 1 : 0;
      });
  }
}

function orderPredicate(
  get: (r: unknown) => unknown,
  op: string,
  cmp: (v: unknown) => number,
): ScimPredicate {
  switch (op) {
    case 'eq':
      return any(get, (v) => cmp(v) === 0);
    case 'ne': {
      const eq = any(get, (v) => cmp(v) === 0);
      return (r) => !eq(r);
    }
    case 'gt':
      return any(get, (v) => cmp(v) > 0);
    case 'ge':
      return any(get, (v) => cmp(v) >= 0);
    case 'lt':
      return any(get, (v) => cmp(v) < 0);
    default:
      return any(get, (v) => cmp(v) <= 0);
  }
}

// ---- the parser -------------------------------------------------------------------------------------------

class Parser {
  #i = 0;

  constructor(
    readonly text: string,
    readonly tokens: Token[],
    readonly def: ScimSchemaDef,
    readonly scimType: ScimFilterError['scimType'],
  ) {}

  peek(): Token | undefined {
    return this.tokens[this.#i];
  }

  next(): Token | undefined {
    return this.tokens[this.#i++];
  }

  fail(message: string, token?: Token): ScimFilterError {
    const where = token ? ` at position ${token.pos + 1} ("${token.text}")` : ' at the end of the filter';
    return new ScimFilterError(`${message}${where}.`, this.scimType);
  }

  isWord(token: Token | undefined, word: string): boolean {
    return token?.kind === 'word' && token.text.toLowerCase() === word;
  }

  expect(kind: TokenKind, what: string): Token {
    const token = this.next();
    if (token?.kind !== kind) throw this.fail(`Expected ${what}`, token);
    return token;
  }

  /** FILTER := and-expr ("or" and-expr)* */
  or(within?: ResolvedAttribute): ScimPredicate {
    const parts = [this.and(within)];
    while (this.isWord(this.peek(), 'or')) {
      this.next();
      parts.push(this.and(within));
    }
    if (parts.length === 1) return parts[0] as ScimPredicate;
    return (r) => {
      for (const p of parts) if (p(r)) return true;
      return false;
    };
  }

  and(within?: ResolvedAttribute): ScimPredicate {
    const parts = [this.unary(within)];
    while (this.isWord(this.peek(), 'and')) {
      this.next();
      parts.push(this.unary(within));
    }
    if (parts.length === 1) return parts[0] as ScimPredicate;
    return (r) => {
      for (const p of parts) if (!p(r)) return false;
      return true;
    };
  }

  unary(within?: ResolvedAttribute): ScimPredicate {
    const token = this.peek();
    if (!token) throw this.fail('Expected an attribute, "not" or "("');
    if (this.isWord(token, 'not')) {
      this.next();
      const open = this.peek();
      if (open?.kind !== '(') throw this.fail('"not" must be followed by a parenthesised filter', open);
      const inner = this.group(within);
      return (r) => !inner(r);
    }
    if (token.kind === '(') return this.group(within);
    if (token.kind !== 'word') throw this.fail('Expected an attribute name', token);
    return this.attributeExpression(within);
  }

  group(within?: ResolvedAttribute): ScimPredicate {
    this.expect('(', '"("');
    const inner = this.or(within);
    this.expect(')', 'a closing ")"');
    return inner;
  }

  attributeExpression(within?: ResolvedAttribute): ScimPredicate {
    const token = this.next() as Token;
    if (['and', 'or', 'not', ...COMPARE_OPS, 'pr'].includes(token.text.toLowerCase())) {
      throw this.fail('Expected an attribute name', token);
    }
    let resolved: ResolvedAttribute;
    try {
      resolved = resolveAttribute(token.text, this.def, this.scimType, within);
    } catch (error) {
      if (error instanceof ScimFilterError) throw this.fail(error.message.replace(/\.$/, ''), token);
      throw error;
    }
    if (this.peek()?.kind === '[') {
      if (within) throw this.fail('Value filters cannot be nested', this.peek());
      return this.valuePath(resolved);
    }
    const opToken = this.next();
    const op = opToken?.kind === 'word' ? opToken.text.toLowerCase() : '';
    if (op === 'pr') {
      const get = getterOf(resolved, within !== undefined);
      return (r) => present(get(r));
    }
    if (!COMPARE_OPS.has(op)) {
      throw this.fail(
        `Expected an operator after ${resolved.path} (eq, ne, co, sw, ew, gt, ge, lt, le or pr)`,
        opToken,
      );
    }
    const literal = this.literal(op);
    return compileComparison(resolved, op, literal, within !== undefined, this.scimType);
  }

  literal(op: string): Literal {
    const token = this.next();
    if (token?.kind === 'string') return token.value as string;
    if (token?.kind === 'word') {
      const word = token.text.toLowerCase();
      if (word === 'true') return true;
      if (word === 'false') return false;
      if (word === 'null') return null;
      if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(token.text)) return Number(token.text);
    }
    throw this.fail(
      `Expected a value after "${op}": a double-quoted string, true, false or null (strings need double quotes)`,
      token,
    );
  }

  /** attrPath "[" valFilter "]": true when any element of the multi-valued attribute matches. */
  valuePath(resolved: ResolvedAttribute): ScimPredicate {
    if (resolved.attribute.type !== 'complex' || resolved.sub) {
      throw this.fail(`${resolved.path} is not a complex attribute; only those take a [filter]`, this.peek());
    }
    this.expect('[', '"["');
    const inner = this.or(resolved);
    this.expect(']', 'a closing "]"');
    const { container, attribute } = resolved;
    const elements = (r: unknown): unknown => {
      const holder = container ? (r as Record<string, unknown>)[container] : r;
      return (holder as Record<string, unknown> | undefined)?.[attribute.name];
    };
    return (r) => {
      const value = elements(r);
      if (Array.isArray(value)) {
        for (const element of value) if (inner(element)) return true;
        return false;
      }
      return value !== undefined && value !== null && inner(value);
    };
  }

  end(): void {
    const token = this.peek();
    if (token) throw this.fail('Unexpected text; combine expressions with "and" or "or"', token);
  }
}

export interface ScimFilter {
  /** The filter as given. */
  readonly text: string;
  /** Whether a SCIM resource (as the emulator serves it) matches. */
  matches(resource: unknown): boolean;
}

/**
 * Parses and compiles a SCIM filter for a resource type; throws ScimFilterError (`invalidFilter`) naming the
 * problem. Compile once, then call `matches` per resource.
 */
export function parseScimFilter(text: string, resourceType: ScimResourceType): ScimFilter {
  if (text.trim() === '') throw new ScimFilterError('The filter is empty.', 'invalidFilter');
  const parser = new Parser(
    text,
    tokenize(text, 'invalidFilter'),
    scimSchemaOf(resourceType),
    'invalidFilter',
  );
  const predicate = parser.or();
  parser.end();
  return { text, matches: predicate };
}

/** The resources a filter keeps, in order. */
export function filterScimResources<T>(resources: readonly T[], filter: ScimFilter | undefined): T[] {
  if (!filter) return [...resources];
  const out: T[] = [];
  for (const resource of resources) if (filter.matches(resource)) out.push(resource);
  return out;
}

// ---- PATCH paths -----------------------------------------------------------------------------------------------

/** A PATCH operation's target: `attr`, `attr.sub`, `attr[filter]` or `attr[filter].sub`. */
export interface ScimPath {
  container: string | undefined;
  attribute: ScimAttribute;
  /** The sub-attribute after the attribute or after its value filter. */
  sub: ScimAttribute | undefined;
  /** Selects elements of a multi-valued attribute; each element is tested on its own. */
  filter: ScimPredicate | undefined;
  /** For `attr[sub eq "literal"]` filters: the sub-attribute and value, so a missing element can be created. */
  equality: { sub: string; value: string | boolean } | undefined;
  path: string;
}

/** Parses a PATCH `path`; throws ScimFilterError (`invalidPath`) naming the problem. */
export function parseScimPath(text: string, resourceType: ScimResourceType): ScimPath {
  const def = scimSchemaOf(resourceType);
  const trimmed = text.trim();
  const open = trimmed.indexOf('[');
  if (open < 0) {
    if (/[\s()\]"]/.test(trimmed) || trimmed === '') {
      throw new ScimFilterError(`"${text}" is not an attribute path.`, 'invalidPath');
    }
    const resolved = resolveAttribute(trimmed, def, 'invalidPath');
    return {
      container: resolved.container,
      attribute: resolved.attribute,
      sub: resolved.sub,
      filter: undefined,
      equality: undefined,
      path: resolved.path,
    };
  }
  const close = trimmed.lastIndexOf(']');
  if (close < open) throw new ScimFilterError(`"${text}" has "[" without a closing "]".`, 'invalidPath');
  const resolved = resolveAttribute(trimmed.slice(0, open), def, 'invalidPath');
  if (resolved.sub || resolved.attribute.type !== 'complex') {
    throw new ScimFilterError(
      `"${text}": only complex attributes (such as emails or members) take a [filter].`,
      'invalidPath',
    );
  }
  const inside = trimmed.slice(open + 1, close);
  const parser = new Parser(inside, tokenize(inside, 'invalidPath'), def, 'invalidPath');
  const filter = parser.or(resolved);
  parser.end();
  const after = trimmed.slice(close + 1);
  let sub: ScimAttribute | undefined;
  if (after !== '') {
    if (!after.startsWith('.')) {
      throw new ScimFilterError(`"${text}": after "]" only ".subAttribute" may follow.`, 'invalidPath');
    }
    sub = resolveAttribute(after.slice(1), def, 'invalidPath', resolved).sub;
  }
  // `type eq "work"` (the common form): remember it so add/replace can create the element when none matches.
  const eq = /^\s*([A-Za-z$][\w$]*)\s+eq\s+("(?:[^"\\]|\\.)*"|true|false)\s*$/i.exec(inside);
  let equality: ScimPath['equality'];
  if (eq) {
    const subAttribute = resolved.attribute.subAttributes?.get((eq[1] as string).toLowerCase());
    const raw = eq[2] as string;
    const value = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw.toLowerCase() === 'true';
    if (subAttribute) equality = { sub: subAttribute.name, value };
  }
  return {
    container: resolved.container,
    attribute: resolved.attribute,
    sub,
    filter,
    equality,
    path: `${resolved.path}[${inside.trim()}]${sub ? `.${sub.name}` : ''}`,
  };
}
