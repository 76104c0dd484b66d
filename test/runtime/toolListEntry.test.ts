// What a tools/list entry publishes (runtime/toolset.ts, listEntry and compactSchema; runtime/hints.ts): the
// schema without what a model does not need, titles only where they add a word, and annotations only where
// they differ from MCP's defaults. Arguments are still validated with zod's exact rules.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CREATE,
  DESTROY,
  effectiveHints,
  MCP_DEFAULT_HINTS,
  MIXED,
  publishedHints,
  READ_ONLY,
  UPDATE,
} from '../../src/runtime/hints.js';
import { defineTool, type ServiceRuntime, type ToolHints } from '../../src/runtime/tool.js';
import { buildToolSet, titleAddsNothing } from '../../src/runtime/toolset.js';
import { validateArguments } from '../../src/runtime/validate.js';

const input = z.strictObject({
  name: z.string().min(1).describe('Any text'),
  code: z.string().min(2),
  count: z.int().positive().optional(),
  skip: z.int().min(0).optional(),
  level: z.int().optional(),
  body: z.record(z.string(), z.unknown()).optional(),
  either: z.union([z.string().min(1), z.int().positive()]).optional(),
  // Parameter names that are JSON Schema keywords are data, never rewritten.
  minLength: z.string().optional(),
  pattern: z.iso.datetime().optional(),
  options: z
    .record(z.string(), z.unknown())
    .default({ minLength: 1, additionalProperties: false })
    .describe('Free-form'),
});

const tool = (name: string, title: string, hints: ToolHints = READ_ONLY) =>
  defineTool<string, typeof input>({
    name,
    title,
    description: `${name}.`,
    input,
    hints,
    run: async () => ({}),
  });

const service: ServiceRuntime = {
  definition: {
    id: 'svc',
    prefix: 'Svc',
    title: 'Svc',
    instructions: 'Svc.',
    tools: [
      tool('ListThings', 'List things'),
      tool('DeleteStoreThing', 'Delete a thing', DESTROY),
      tool('StoreGetThing', 'Get one thing'),
      tool('ModifyStoreEntry', 'Replace thing', UPDATE),
      tool('BatchThings', 'Batch of operations', MIXED),
      tool('AddThing', 'Add thing', CREATE),
    ],
  },
  context: 'ctx',
};
const toolSet = buildToolSet([service]);
const entry = (name: string) => toolSet.byName.get(`Svc.${name}`)!.listEntry;
const properties = entry('ListThings').inputSchema.properties as Record<string, Record<string, unknown>>;

describe('published input schemas', () => {
  it('leave out minLength 1 but keep other lengths', () => {
    expect(properties.name).toEqual({ type: 'string', description: 'Any text' });
    expect(properties.code).toEqual({ type: 'string', minLength: 2 });
  });

  it('publish a positive integer as minimum 1, without the safe-integer bounds z.int() adds', () => {
    expect(properties.count).toEqual({ type: 'integer', minimum: 1 });
    expect(properties.skip).toEqual({ type: 'integer', minimum: 0 });
    expect(properties.level).toEqual({ type: 'integer' });
  });

  it('publish a free-form object as a plain object, its default as given', () => {
    expect(properties.body).toEqual({ type: 'object' });
    expect(properties.options).toEqual({
      type: 'object',
      default: { minLength: 1, additionalProperties: false },
      description: 'Free-form',
    });
  });

  it('compact the branches of a union', () => {
    expect(properties.either).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer', minimum: 1 }] });
  });

  it('leave parameter names alone, even those spelled like keywords', () => {
    expect(properties.minLength).toEqual({ type: 'string' });
    expect(properties.pattern).toMatchObject({ type: 'string', format: 'date-time' });
    expect(properties.pattern?.pattern).toBeUndefined();
  });

  it('leave additionalProperties out, while the arguments are still checked with the exact rules', () => {
    const schema = entry('ListThings').inputSchema;
    expect(schema.additionalProperties).toBeUndefined();
    expect(schema.required).toEqual(['name', 'code']);
    const refused = validateArguments(input, { name: '', code: 'ab', count: 0, extra: 1 }, 'Svc.ListThings');
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      const fields = refused.error.issues?.map((issue) => issue.field);
      expect(fields).toEqual(expect.arrayContaining(['name', 'count', 'extra']));
      expect(refused.error.issues).toContainEqual({
        field: 'name',
        problem: 'must not be empty; got an empty string',
      });
      expect(refused.error.issues).toContainEqual({
        field: 'extra',
        problem: 'unknown parameter; check the spelling against the input schema',
      });
    }
  });
});

describe('published titles', () => {
  it('are left out where they only spell out the name', () => {
    expect(entry('ListThings').title).toBeUndefined();
    expect(entry('DeleteStoreThing').title).toBeUndefined();
    expect(entry('AddThing').title).toBeUndefined();
    // Fewer words than the name (no "Store") still add nothing.
    expect(titleAddsNothing('Get the thing', 'StoreGetThing')).toBe(true);
  });

  it('are published where they add a word', () => {
    expect(entry('StoreGetThing').title).toBe('Get one thing');
    expect(entry('ModifyStoreEntry').title).toBe('Replace thing');
    expect(entry('BatchThings').title).toBe('Batch of operations');
  });

  it('are compared by words, articles and case aside', () => {
    expect(titleAddsNothing('Who am I', 'WhoAmI')).toBe(true);
    expect(titleAddsNothing('Get a SCIM group', 'FetchScimGroup')).toBe(false);
    expect(titleAddsNothing('Get eDiscovery export', 'GetEdiscoveryExportStatus')).toBe(true);
    expect(titleAddsNothing('Add or update person', 'UpdateOrAddPerson')).toBe(true);
    expect(titleAddsNothing('Delete person', 'DeleteCustomer')).toBe(false);
  });
});

describe('published annotations', () => {
  it('hold only the hints that differ from MCP defaults', () => {
    expect(publishedHints(READ_ONLY)).toEqual({ readOnlyHint: true });
    expect(publishedHints(CREATE)).toEqual({ destructiveHint: false });
    expect(publishedHints(UPDATE)).toEqual({ destructiveHint: false, idempotentHint: true });
    expect(publishedHints(DESTROY)).toEqual({ idempotentHint: true });
    expect(publishedHints(MIXED)).toEqual({});
    expect(publishedHints({ ...READ_ONLY, openWorldHint: false })).toEqual({
      readOnlyHint: true,
      openWorldHint: false,
    });
    expect(entry('ListThings').annotations).toEqual({ readOnlyHint: true });
    expect(entry('BatchThings').annotations).toEqual({});
  });

  it('read back, with the defaults filled in, as the hints that were set', () => {
    for (const hints of [CREATE, UPDATE, DESTROY, MIXED]) {
      expect(effectiveHints(publishedHints(hints))).toEqual(hints);
    }
    // On a read-only tool only readOnlyHint and openWorldHint mean something.
    expect(effectiveHints(publishedHints(READ_ONLY))).toMatchObject({
      readOnlyHint: true,
      openWorldHint: true,
    });
    expect(effectiveHints(undefined)).toEqual(MCP_DEFAULT_HINTS);
  });
});
