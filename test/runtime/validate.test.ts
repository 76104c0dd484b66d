// Validation messages, kind by kind: a missing value says "required"; a wrong one says what was given (its type
// and a short quote) next to the rule it broke, for types, enums, ranges, lengths, formats, unknown keys, unions
// and the schemas' own refinements. Also request_body in schema mode: JSON text, or the body itself.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseRequestBody, schemaModeShape } from '../../src/runtime/schemaMode.js';
import { validateArguments } from '../../src/runtime/validate.js';
import { ISSUEDESK_TOOLS } from '../../src/services/issuedesk/tools.js';
import { MESSAGING_BODIES } from '../../src/services/messaging/schemas.js';
import { STORE_BODIES } from '../../src/services/store/schemas/index.js';
import { describeIssues, describeValue, REPORT_INPUT } from '../../src/text/zodIssues.js';

/** The problems validateArguments reports for `args`, as `field: problem` lines. */
function problems(schema: z.ZodObject, args: unknown): string[] {
  const result = validateArguments(schema, args, 'Test.Tool');
  if (result.ok) return [];
  return result.error.issues!.map((issue) => `${issue.field}: ${issue.problem}`);
}

/** The problems of one parameter `value` against `schema`. */
const problemsOf = (schema: z.ZodType, value: unknown) =>
  value === undefined
    ? problems(z.strictObject({ v: schema }), {})
    : problems(z.strictObject({ v: schema }), { v: value });

describe('types: missing says required, wrong says what was given', () => {
  it('a missing value is required, with its type', () => {
    expect(problemsOf(z.number(), undefined)).toEqual(['v: required (number)']);
    expect(problemsOf(z.int(), undefined)).toEqual(['v: required (integer)']);
    expect(problemsOf(z.record(z.string(), z.unknown()), undefined)).toEqual(['v: required (object)']);
  });

  it('a wrong type names the expected type and quotes the value', () => {
    expect(problemsOf(z.number(), 'three')).toEqual(['v: must be a number; got string "three"']);
    expect(problemsOf(z.int(), 1.5)).toEqual(['v: must be an integer; got number 1.5']);
    expect(problemsOf(z.string(), 7)).toEqual(['v: must be a string; got number 7']);
    expect(problemsOf(z.boolean(), null)).toEqual(['v: must be a boolean; got null']);
    expect(problemsOf(z.string(), { a: 1 })).toEqual(['v: must be a string; got object {"a":1}']);
    expect(problemsOf(z.object({}), [1, 2])).toEqual(['v: must be an object; got array of 2 [1,2]']);
    expect(problemsOf(z.string(), '')).toEqual([]);
    expect(problemsOf(z.number(), '')).toEqual(['v: must be a number; got an empty string']);
  });

  it('quotes are short: about 40 characters, cut with an ellipsis, never half a character', () => {
    const long = 'x'.repeat(500);
    expect(problemsOf(z.number(), long)).toEqual([`v: must be a number; got string "${'x'.repeat(40)}…"`]);
    const big = { records: Array.from({ length: 50 }, (_, i) => ({ fields: { Name: `Row ${i}` } })) };
    const [line] = problemsOf(z.string(), big);
    expect(line).toBe('v: must be a string; got object {"records":[{"fields":{"Name":"Row 0"}},…');
    // 39 ASCII characters and then an emoji: the cut falls inside the emoji's surrogate pair, so the pair goes.
    expect(describeValue(`${'a'.repeat(39)}😀😀`)).toBe(`string "${'a'.repeat(39)}…"`);
  });
});

describe('enums and literals', () => {
  const lookupBy = z.enum(['id', 'search']);

  it('lists the allowed values, quotes the given one and suggests the closest', () => {
    expect(problemsOf(lookupBy, 'idd')).toEqual([
      'v: must be one of "id", "search"; got string "idd"; did you mean "id"?',
    ]);
    expect(problemsOf(lookupBy, 'keywords')).toEqual([
      'v: must be one of "id", "search"; got string "keywords"',
    ]);
    expect(problemsOf(lookupBy, 3)).toEqual(['v: must be one of "id", "search"; got number 3']);
    expect(problemsOf(z.literal('person'), 'persn')).toEqual([
      'v: must be "person"; got string "persn"; did you mean "person"?',
    ]);
  });

  it('a missing enum value is required, with its values', () => {
    expect(problemsOf(lookupBy, undefined)).toEqual(['v: required: one of "id", "search"']);
  });

  it('long value lists are cut after 12', () => {
    const many = z.enum(Array.from({ length: 20 }, (_, i) => `value${i}`) as [string, ...string[]]);
    const [line] = problemsOf(many, 'nope');
    expect(line).toContain('"value11", … (8 more); got string "nope"');
  });
});

describe('ranges and lengths: the bound and what was given', () => {
  it('numbers', () => {
    const pageSize = z.int().min(1).max(100);
    expect(problemsOf(pageSize, 0)).toEqual(['v: must be at least 1; got number 0']);
    expect(problemsOf(pageSize, 250)).toEqual(['v: must be at most 100; got number 250']);
    expect(problemsOf(z.number().positive(), 0)).toEqual(['v: must be greater than 0; got number 0']);
    expect(problemsOf(z.number().lt(10), 10)).toEqual(['v: must be less than 10; got number 10']);
    expect(problemsOf(z.number().multipleOf(5), 7)).toEqual(['v: must be a multiple of 5; got number 7']);
  });

  it('string lengths', () => {
    expect(problemsOf(z.string().max(5), 'abcdefg')).toEqual([
      'v: must have at most 5 characters; got 7 ("abcdefg")',
    ]);
    expect(problemsOf(z.string().min(3), 'ab')).toEqual(['v: must have at least 3 characters; got 2 ("ab")']);
    expect(problemsOf(z.string().length(2), 'usa')).toEqual([
      'v: must have exactly 2 characters; got 3 ("usa")',
    ]);
    expect(problemsOf(z.string().min(1), '')).toEqual(['v: must not be empty; got an empty string']);
  });

  it('array lengths', () => {
    expect(problemsOf(z.array(z.string()).max(2), ['a', 'b', 'c'])).toEqual([
      'v: must have at most 2 items; got 3',
    ]);
    expect(problemsOf(z.array(z.string()).min(2), ['a'])).toEqual(['v: must have at least 2 items; got 1']);
    expect(problemsOf(z.array(z.string()).min(1), [])).toEqual(['v: must not be empty; got an empty array']);
  });
});

describe('formats: the format and the quoted value', () => {
  it('date-time, date, email, URL', () => {
    expect(problemsOf(z.iso.datetime({ offset: true }), 'yesterday')).toEqual([
      'v: must be an ISO 8601 date-time such as 2026-03-01T12:00:00Z; got string "yesterday"',
    ]);
    expect(problemsOf(z.iso.date(), '2026-13-45')).toEqual([
      'v: must be a date YYYY-MM-DD such as 2026-03-01; got string "2026-13-45"',
    ]);
    expect(problemsOf(z.email(), 'ada-at-example')).toEqual([
      'v: must be an email address such as ada@example.com; got string "ada-at-example"',
    ]);
    expect(problemsOf(z.url(), 'not a url')).toEqual([
      'v: must be a URL such as https://example.com; got string "not a url"',
    ]);
  });

  it('patterns and prefixes', () => {
    expect(problemsOf(z.string().regex(/^rec[A-Za-z0-9]{14}$/), 'recX')).toEqual([
      'v: must match the pattern /^rec[A-Za-z0-9]{14}$/; got string "recX"',
    ]);
    expect(problemsOf(z.string().startsWith('tbl'), 'Tasks')).toEqual([
      'v: must start with "tbl"; got string "Tasks"',
    ]);
  });
});

describe('unknown keys: named, with the closest known one', () => {
  const schema = z.strictObject({
    maximum_records: z.int().optional(),
    lookup_by: z.string().optional(),
    body: z.strictObject({ fields: z.record(z.string(), z.unknown()).optional() }).optional(),
  });

  it('suggests a near spelling, also across snake_case and camelCase', () => {
    expect(problems(schema, { maximun_records: 3 })).toEqual([
      'maximun_records: unknown parameter; did you mean "maximum_records"?',
    ]);
    expect(problems(schema, { lookupBy: 'id' })).toEqual([
      'lookupBy: unknown parameter; did you mean "lookup_by"?',
    ]);
  });

  it('names keys nested in objects, and says when nothing is close', () => {
    expect(problems(schema, { body: { fileds: {} } })).toEqual([
      'body.fileds: unknown field; did you mean "fields"?',
    ]);
    expect(problems(schema, { colour: 'red' })).toEqual([
      'colour: unknown parameter; check the spelling against the input schema',
    ]);
  });

  it('in a request body, under request_body, through arrays and union variants', () => {
    const found = parseRequestBody(
      JSON.stringify({ records: [{ fileds: { Name: 'x' } }] }),
      STORE_BODIES.createRecords,
      'StoreApi.CreateStoreRecords',
    );
    expect(found.ok).toBe(false);
    expect(found.ok ? [] : found.error.issues).toContainEqual({
      field: 'request_body.records.0.fileds',
      problem: 'unknown field; did you mean "fields"?',
    });
  });
});

describe('unions', () => {
  it('a value of no variant type names every type', () => {
    expect(problemsOf(z.union([z.string(), z.number()]), true)).toEqual([
      'v: must be a string or a number; got boolean true',
    ]);
    expect(problemsOf(z.union([z.string(), z.number()]), undefined)).toEqual([
      'v: required (string or number)',
    ]);
  });

  it('a value every variant refuses for itself names each alternative; variants of its type come first', () => {
    const state = z.union([
      z.enum(['new', 'closed']),
      z.string().regex(/^[a-z][a-z0-9_]*$/, 'a status slug: lowercase letters, digits, _'),
    ]);
    expect(problemsOf(state, 'Not A Slug!')).toEqual([
      'v: must be one of "new", "closed" or a status slug: lowercase letters, digits, _; got string "Not A Slug!"',
    ]);
    expect(problemsOf(state, 'Closed')).toEqual([
      'v: must be one of "new", "closed" or a status slug: lowercase letters, digits, _; got string "Closed"; did you mean "closed"?',
    ]);
    // A number has the type of neither string variant; the string variants still say what would do.
    expect(problemsOf(z.union([z.enum(['a', 'b']), z.int()]), 'c')).toEqual([
      'v: must be one of "a", "b"; got string "c"',
    ]);
    expect(problemsOf(z.union([z.iso.date(), z.literal('')]), 'today')).toEqual([
      'v: must be "" or a date YYYY-MM-DD such as 2026-03-01; got string "today"',
    ]);
  });

  it('otherwise the closest variant speaks, with its own keys known', () => {
    const shape = z.union([
      z.strictObject({ kind: z.literal('user'), id: z.string() }),
      z.strictObject({ kind: z.literal('group'), group_id: z.string(), members: z.array(z.string()) }),
    ]);
    expect(problemsOf(shape, { kind: 'user', idd: 'u1' })).toEqual([
      'v.id: required (string)',
      'v.idd: unknown field; did you mean "id"?',
    ]);
  });

  it('discriminated unions: a missing or unknown discriminator lists the values', () => {
    const operation = z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('person'), name: z.string() }),
      z.strictObject({ type: z.literal('object'), object_id: z.string() }),
    ]);
    expect(problemsOf(operation, {})).toEqual(['v.type: required: one of "person", "object"']);
    expect(problemsOf(operation, { type: 'persn' })).toEqual([
      'v.type: must be one of "person", "object"; got string "persn"; did you mean "person"?',
    ]);
    expect(problemsOf(operation, { type: 'person', nam: 'Ada' })).toEqual([
      'v.name: required (string)',
      'v.nam: unknown field; did you mean "name"?',
    ]);
  });
});

describe("the schemas' own messages", () => {
  it('keep their words and gain the value given', () => {
    expect(
      problemsOf(
        z.string().refine((v) => v.startsWith('rec'), 'a record id (rec…)'),
        'tbl1',
      ),
    ).toEqual(['v: a record id (rec…); got string "tbl1"']);
    expect(problemsOf(z.string().regex(/^[a-z]+$/, { error: 'lower-case letters only' }), 'ABC')).toEqual([
      'v: lower-case letters only; got string "ABC"',
    ]);
    expect(
      problemsOf(
        z.string().refine(() => false),
        'x',
      ),
    ).toEqual(['v: invalid value; got string "x"']);
  });

  it('are left alone where they already say what was given, or the value is a whole object', () => {
    const counted = z
      .array(z.number())
      .max(2, { error: (issue) => `at most 2; got ${(issue.input as []).length}` });
    expect(problemsOf(counted, [1, 2, 3])).toEqual(['v: at most 2; got 3']);
    const quoted = z
      .string()
      .refine(() => false, { error: (issue) => `unknown zone ${JSON.stringify(issue.input)}` });
    expect(problemsOf(quoted, 'Mars/Base')).toEqual(['v: unknown zone "Mars/Base"']);
    const whole = z.object({ a: z.string().optional() }).refine((o) => o.a !== undefined, 'give a');
    expect(problemsOf(whole, {})).toEqual(['v: give a']);
  });

  it('a missing value with a custom type message is still required', () => {
    expect(problemsOf(z.iso.date({ error: 'a date like 2026-12-25' }), undefined)).toEqual([
      'v: required (string): a date like 2026-12-25',
    ]);
  });
});

describe('the three examples agents met', () => {
  it('IssueDesk.UpdateIssueStatus with lookup_by "idd"', () => {
    const tool = ISSUEDESK_TOOLS.find((t) => t.name === 'UpdateIssueStatus')!;
    expect(problems(tool.input, { state: 'closed', lookup_by: 'idd', value: '12' })).toEqual([
      'lookup_by: must be one of "id", "search"; got string "idd"; did you mean "id"?',
    ]);
  });

  it('IssueDesk.UpdateIssueStatus with a state that is neither built in nor a slug', () => {
    const tool = ISSUEDESK_TOOLS.find((t) => t.name === 'UpdateIssueStatus')!;
    const [line] = problems(tool.input, { state: 'Not A Slug!', lookup_by: 'id', value: '12' });
    expect(line).toMatch(
      /^state: must be one of "new", .*"closed" or a status slug.*; got string "Not A Slug!"$/,
    );
  });

  it('a request body with created_at "yesterday"', () => {
    const parsed = MESSAGING_BODIES.identify.safeParse({ created_at: 'yesterday' }, REPORT_INPUT);
    expect(parsed.success).toBe(false);
    expect(describeIssues(parsed.error!.issues, 'request_body', MESSAGING_BODIES.identify)).toEqual([
      { field: 'request_body.created_at', problem: 'must be an integer; got string "yesterday"' },
    ]);
  });

  it('validateArguments names every wrong field in its message', () => {
    const result = validateArguments(
      z.strictObject({ a: z.number(), b: z.string() }),
      { a: 'x', c: 1 },
      'Test.Tool',
    );
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error.message).toBe('Invalid arguments for Test.Tool (a, b, c).');
  });
});

describe('request_body: JSON text or the body itself', () => {
  const input = z.strictObject({ ...schemaModeShape });
  const body = z.strictObject({ name: z.string(), tags: z.array(z.string()).optional() });

  it('an object is taken as its JSON text and checked and returned exactly', () => {
    const given = { name: 'Ada', tags: ['a', 'ü'] };
    const args = validateArguments(input, { mode: 'execute', request_body: given }, 'T');
    expect(args.ok).toBe(true);
    const text = args.ok ? args.value.request_body : undefined;
    expect(parseRequestBody(text, body, 'T')).toEqual({ ok: true, value: given });
  });

  it('an array too; the body schema then decides', () => {
    const args = validateArguments(input, { mode: 'execute', request_body: [{ name: 'Ada' }] }, 'T');
    const parsed = parseRequestBody(args.ok ? args.value.request_body : undefined, body, 'T');
    expect(parsed.ok ? [] : parsed.error.issues).toEqual([
      { field: 'request_body', problem: 'must be an object; got array of 1 [{"name":"Ada"}]' },
    ]);
  });

  it('an invalid object is refused naming the field; null counts as not given; a number is refused', () => {
    const args = validateArguments(input, { mode: 'execute', request_body: { name: 5 } }, 'T');
    const parsed = parseRequestBody(args.ok ? args.value.request_body : undefined, body, 'T');
    expect(parsed.ok ? [] : parsed.error.issues).toEqual([
      { field: 'request_body.name', problem: 'must be a string; got number 5' },
    ]);
    const nothing = validateArguments(input, { mode: 'execute', request_body: null }, 'T');
    expect(nothing.ok && nothing.value.request_body).toBeUndefined();
    expect(problems(input, { mode: 'execute', request_body: 5 })).toEqual([
      'request_body: JSON text of the request body; got number 5',
    ]);
  });

  it('is published as a string that says how the two modes work', () => {
    const published = z.toJSONSchema(input, { io: 'input' }) as {
      properties: Record<string, { type?: string; description?: string }>;
      required?: string[];
    };
    expect(published.properties.request_body!.type).toBe('string');
    expect(published.properties.request_body!.description).toMatch(/JSON.*get_request_schema first/);
    expect(published.required).toEqual(['mode']);
  });
});
