// withOutputSchemas and the published outputSchema (runtime/outputSchemas.ts): a table must name every tool of its
// service exactly once, mistakes fail at start-up naming the tools; the schema a tools/list entry carries is the
// success shape plus the branches all results share (a cut result, schema mode where the tool has it, errors),
// compacted. End to end through the SDK clients: test/e2e/output-schemas.test.ts.

import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { READ_ONLY } from '../../src/runtime/hints.js';
import {
  compactOutputSchema,
  lazyTable,
  publishedOutputSchema,
  withOutputSchemas,
} from '../../src/runtime/outputSchemas.js';
import { schemaModeShape } from '../../src/runtime/schemaMode.js';
import { defineTool, type ToolDefinition } from '../../src/runtime/tool.js';
import { buildToolSet } from '../../src/runtime/toolset.js';

const tool = (name: string, input: z.ZodObject = z.strictObject({})): ToolDefinition<unknown> =>
  defineTool({ name, title: name, description: name, input, hints: READ_ONLY, run: async () => ({}) });

const ajv = new Ajv2020({ strict: false });

describe('withOutputSchemas', () => {
  const tools = [tool('GetThing'), tool('ListThings')];
  const thing = z.looseObject({ id: z.string() });

  it('attaches each entry to its tool', () => {
    const wired = withOutputSchemas(tools, {
      GetThing: thing,
      ListThings: z.looseObject({ items: z.array(thing) }),
    });
    expect(wired.map((t) => t.output !== undefined)).toEqual([true, true]);
    expect(wired[0]!.output?.()).toBe(thing);
  });

  it('refuses a table that misses a tool, naming it', () => {
    expect(() => withOutputSchemas(tools, { GetThing: thing })).toThrow(/No output schema for ListThings/);
  });

  it('refuses an entry for no tool of the list, naming it and the tools', () => {
    expect(() => withOutputSchemas(tools, { GetThing: thing, ListThings: thing, GetThings: thing })).toThrow(
      /unknown tools: GetThings\..*GetThing, ListThings/,
    );
  });
});

describe('the published outputSchema', () => {
  const success = z.looseObject({
    id: z.string(),
    when: z.iso.datetime(),
    count: z.int(),
    note: z.string().nullable(),
    kind: z.literal('thing'),
  });

  it('is an object whose anyOf holds the success shape, a cut result and the error shape', () => {
    const [wired] = withOutputSchemas([tool('GetThing')], { GetThing: success });
    const schema = publishedOutputSchema(wired!)!;
    expect(schema).toEqual({
      type: 'object',
      anyOf: [
        {
          properties: {
            id: { type: 'string' },
            // format and pattern go: a client validating formats would refuse the upstream's own spelling.
            when: { type: 'string' },
            count: { type: 'integer' },
            note: { type: ['string', 'null'] },
            kind: { const: 'thing' },
          },
          required: ['id', 'when', 'count', 'note', 'kind'],
        },
        // The shared branches name only the keys that tell their kind of result apart (docs/output-schemas.md).
        { required: ['truncated'] },
        { properties: { error: { required: ['kind', 'message'] } }, required: ['error'] },
      ],
    });
    const validate = ajv.compile(schema);
    expect(validate({ id: 'a', when: '2026-01-01', count: 1, note: null, kind: 'thing', extra: true })).toBe(
      true,
    );
    expect(validate({ id: 'a' })).toBe(false);
    expect(validate({ truncated: { note: 'Cut.', next: 'Page on.' }, id: 'a' })).toBe(true);
    expect(validate({ error: { kind: 'not_found', message: 'No thing.' } })).toBe(true);
    expect(validate({ error: { kind: 'not_found' } })).toBe(false);
  });

  it('adds schema mode’s answer for tools that take `mode`, and only for them', () => {
    const [plain, schemaMode] = withOutputSchemas(
      [tool('GetThing'), tool('CreateThing', z.strictObject({ ...schemaModeShape }))],
      { GetThing: success, CreateThing: success },
    );
    const answer = { tool: 'Svc.CreateThing', request_body: { required: true, content: {} } };
    expect(ajv.compile(publishedOutputSchema(schemaMode!)!)(answer)).toBe(true);
    expect(ajv.compile(publishedOutputSchema(plain!)!)(answer)).toBe(false);
  });

  it('joins a union of success shapes into its branches', () => {
    const [wired] = withOutputSchemas([tool('GetThing')], {
      GetThing: z.union([success, z.looseObject({ status: z.literal('needs_confirmation') })]),
    });
    const schema = publishedOutputSchema(wired!)!;
    expect((schema.anyOf as unknown[]).length).toBe(4);
    expect(ajv.compile(schema)({ status: 'needs_confirmation' })).toBe(true);
  });

  it('puts the budget’s note under `_truncated` where the result has a `truncated` field of its own', () => {
    const [wired] = withOutputSchemas([tool('GetThing')], {
      GetThing: z.looseObject({ truncated: z.boolean() }),
    });
    const validate = ajv.compile(publishedOutputSchema(wired!)!);
    expect(validate({ _truncated: { note: 'Cut.', next: 'Narrower.' } })).toBe(true);
  });

  it('refuses a success shape that is not an object', () => {
    const [wired] = withOutputSchemas([tool('GetThing')], { GetThing: z.array(z.string()) as never });
    expect(() => publishedOutputSchema(wired!)).toThrow(/must describe an object/);
  });

  it('is absent for a tool without one, and carried by its tools/list entry', () => {
    expect(publishedOutputSchema(tool('GetThing'))).toBeUndefined();
    const [wired] = withOutputSchemas([tool('GetThing')], { GetThing: success });
    const toolSet = buildToolSet([
      {
        definition: { id: 'svc', prefix: 'Svc', title: 'Svc', instructions: '', tools: [wired!] },
        context: undefined,
      },
    ]);
    expect(toolSet.listEntries[0]!.outputSchema).toEqual(publishedOutputSchema(wired!));
  });
});

describe('compactOutputSchema', () => {
  it('drops open-object noise and the bounds z.int() adds, and keeps what says something', () => {
    expect(
      compactOutputSchema({
        type: 'object',
        properties: {
          tags: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} },
          n: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
          size: { type: 'integer', minimum: 0, maximum: 100 },
          state: { type: 'string', enum: ['a', 'b'] },
          closed: { type: 'object', additionalProperties: false },
        },
        additionalProperties: {},
      }),
    ).toEqual({
      type: 'object',
      properties: {
        tags: { type: 'object' },
        n: { type: 'integer' },
        size: { type: 'integer', minimum: 0, maximum: 100 },
        state: { enum: ['a', 'b'] },
        closed: { type: 'object', additionalProperties: false },
      },
    });
  });
});

describe('a lazy table (lazyTable)', () => {
  it('is built on the first schema asked for, and checked then', () => {
    let built = 0;
    const table = lazyTable(() => {
      built++;
      return { GetThing: z.looseObject({ id: z.string() }) };
    });
    const [wired] = withOutputSchemas([tool('GetThing')], table);
    expect(built).toBe(0);
    expect(wired!.output?.()).toBe(table().GetThing);
    expect(built).toBe(1);
    const [missing] = withOutputSchemas([tool('GetThing'), tool('ListThings')], table);
    expect(() => missing!.output?.()).toThrow(/No output schema for ListThings/);
  });
});
