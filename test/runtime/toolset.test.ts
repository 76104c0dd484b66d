// The tool set (runtime/toolset.ts): --tools selection over the real 126 tools (a mistyped name gets the closest
// tools, not all 126; a selection that names nothing is refused instead of meaning "every tool"), then filters,
// name styles, tools/list entries and selection errors over two small services made for these tests.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CREATE, DESTROY, READ_ONLY, UPDATE } from '../../src/runtime/hints.js';
import { defineTool, type ServiceRuntime, type ToolHints } from '../../src/runtime/tool.js';
import {
  buildToolSet,
  ToolSelectionError,
  type ToolSet,
  type ToolSetOptions,
} from '../../src/runtime/toolset.js';
import { SERVICES } from '../../src/services/registry.js';

// Runtimes from an empty environment: selection never calls an upstream.
const runtimes = SERVICES.map((service) =>
  service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' }),
);
const select = (only: string[], nameStyle: 'dotted' | 'underscore' = 'dotted') => {
  try {
    buildToolSet(runtimes, { only, nameStyle });
  } catch (error) {
    expect(error).toBeInstanceOf(ToolSelectionError);
    return (error as Error).message;
  }
  throw new Error(`selecting ${JSON.stringify(only)} did not fail`);
};
/** The names after "Closest:". */
const closest = (message: string) => /Closest: (.*?)\. All/.exec(message)?.[1]?.split(', ') ?? [];

describe('--tools with a name that is no tool', () => {
  it('suggests the tools holding its words (ListRecords -> StoreApi.ListStoreRecords), not the whole list', () => {
    const message = select(['ListRecords']);
    expect(message).toMatch(/^Unknown tool "ListRecords" in --tools\. Closest: /);
    expect(closest(message)[0]).toBe('StoreApi.ListStoreRecords');
    expect(message).toContain('All 126 are listed in docs/tools.md.');
    expect(message).not.toContain('IssueDesk.AddMessage');
  });

  it('suggests at most five, closest first, for typos, case and a service prefix', () => {
    expect(closest(select(['whoami']))).toEqual(['IssueDesk.WhoAmI']);
    expect(closest(select(['IssueDesk.GetIsue']))[0]).toBe('IssueDesk.GetIssue');
    expect(closest(select(['StoreApi_ListRecord']))[0]).toBe('StoreApi.ListStoreRecords');
    expect(closest(select(['List'])).length).toBe(5);
  });

  it('names suggestions in the chosen style', () => {
    expect(closest(select(['whoami'], 'underscore'))).toEqual(['IssueDesk_WhoAmI']);
  });

  it('says so when nothing is close, with what names look like', () => {
    const message = select(['Nope']);
    expect(message).toMatch(/No tool has a similar name; names look like IssueDesk\.WhoAmI/);
  });
});

describe('--tools naming nothing', () => {
  it.each([[['']], [[' ', '', ' ']]])('is refused: %j', (only) => {
    expect(select(only)).toBe(
      '--tools names no tool. Give at least one, comma-separated (e.g. --tools IssueDesk.WhoAmI), or leave --tools out to serve all 126 tools.',
    );
  });

  it('a name among blanks still selects it', () => {
    const toolSet = buildToolSet(runtimes, { only: ['', ' IssueDesk.WhoAmI ', ''] });
    expect(toolSet.tools.map((tool) => tool.name)).toEqual(['IssueDesk.WhoAmI']);
  });
});

// The tool set over two small services of its own, so each rule shows on tools made for it: filters, name
// styles, what a tools/list entry holds, and the errors of a selection.
const tool = (name: string, hints: ToolHints, description = `The ${name} tool.`, input = z.object({})) =>
  defineTool<string, z.ZodObject>({
    name,
    title: `${name} title`,
    description,
    input,
    hints,
    run: async () => ({}),
  });

const alpha: ServiceRuntime = {
  definition: {
    id: 'alpha',
    prefix: 'Alpha',
    title: 'Alpha',
    instructions: '  Alpha: start with Alpha.ListThings, never Alpha.Nothing.  ',
    tools: [
      tool(
        'ListThings',
        READ_ONLY,
        'Lists things; then call Alpha.DeleteThing or Beta.ListThings.',
        z.object({
          since: z.iso.datetime().describe('Changed since; see Alpha.ListThings'),
          limit: z.number().int().min(1).max(100).default(20),
        }),
      ),
      tool('DeleteThing', DESTROY),
      tool('Shared', READ_ONLY),
    ],
  },
  context: 'alpha-context',
};
const beta: ServiceRuntime = {
  definition: {
    id: 'beta',
    prefix: 'Beta',
    title: 'Beta',
    instructions: 'Beta: see Beta.ListThings.',
    tools: [tool('ListThings', READ_ONLY), tool('CreateThing', CREATE), tool('Shared', UPDATE)],
  },
  context: 'beta-context',
};
const names = (toolSet: ToolSet) => toolSet.tools.map((t) => t.name);

describe('buildToolSet: every tool, filters', () => {
  it('serves every tool of every service, in service order, with its context', () => {
    const toolSet = buildToolSet([alpha, beta]);
    expect(names(toolSet)).toEqual([
      'Alpha.ListThings',
      'Alpha.DeleteThing',
      'Alpha.Shared',
      'Beta.ListThings',
      'Beta.CreateThing',
      'Beta.Shared',
    ]);
    expect(toolSet.byName.get('Beta.CreateThing')?.context).toBe('beta-context');
    expect(toolSet.listEntries.map((entry) => entry.name)).toEqual(names(toolSet));
    expect(toolSet.instructions).toBe(
      'Alpha: start with Alpha.ListThings, never Alpha.Nothing.\n\nBeta: see Beta.ListThings.',
    );
  });

  it('--read-only keeps the read-only tools only', () => {
    expect(names(buildToolSet([alpha, beta], { readOnly: true }))).toEqual([
      'Alpha.ListThings',
      'Alpha.Shared',
      'Beta.ListThings',
    ]);
  });

  it('--tools takes dotted, underscored and unambiguous bare names, and keeps the served order', () => {
    const toolSet = buildToolSet([alpha, beta], {
      only: ['CreateThing', 'Alpha_DeleteThing', 'Alpha.ListThings'],
    });
    expect(names(toolSet)).toEqual(['Alpha.ListThings', 'Alpha.DeleteThing', 'Beta.CreateThing']);
    expect([...toolSet.byName.keys()]).toEqual(names(toolSet));
  });

  it('sends the instructions of the services that still have a tool', () => {
    expect(buildToolSet([alpha, beta], { only: ['Beta.CreateThing'] }).instructions).toBe(
      'Beta: see Beta.ListThings.',
    );
  });
});

describe('buildToolSet: name styles', () => {
  const underscored = buildToolSet([alpha, beta], { nameStyle: 'underscore' });

  it('names tools Prefix_Name, keeping the spec name beside it', () => {
    const entry = underscored.byName.get('Alpha_ListThings');
    expect(entry?.specName).toBe('Alpha.ListThings');
    expect(underscored.nameStyle).toBe('underscore');
    expect(underscored.byName.has('Alpha.ListThings')).toBe(false);
  });

  it('rewrites known tool names in descriptions, parameter descriptions and instructions, and nothing else', () => {
    const entry = underscored.byName.get('Alpha_ListThings')!.listEntry;
    expect(entry.description).toBe('Lists things; then call Alpha_DeleteThing or Beta_ListThings.');
    const since = (entry.inputSchema.properties as Record<string, { description?: string }>).since;
    expect(since?.description).toBe('Changed since; see Alpha_ListThings');
    expect(underscored.instructions).toBe(
      'Alpha: start with Alpha_ListThings, never Alpha.Nothing.\n\nBeta: see Beta_ListThings.',
    );
    expect(underscored.rewriteToolNames('Call Beta.CreateThing, not example.com')).toBe(
      'Call Beta_CreateThing, not example.com',
    );
  });

  it('leaves the texts as written in the dotted style', () => {
    const dotted = buildToolSet([alpha, beta]);
    expect(dotted.byName.get('Alpha.ListThings')!.listEntry.description).toBe(
      'Lists things; then call Alpha.DeleteThing or Beta.ListThings.',
    );
    expect(dotted.rewriteToolNames('Beta.CreateThing')).toBe('Beta.CreateThing');
  });
});

describe('buildToolSet: tools/list entries', () => {
  const entry = buildToolSet([alpha, beta]).byName.get('Alpha.ListThings')!.listEntry;

  it('hold name, title, description, the input JSON Schema and the annotations that differ from the defaults', () => {
    expect(Object.keys(entry)).toEqual(['name', 'title', 'description', 'inputSchema', 'annotations']);
    expect(entry.title).toBe('ListThings title');
    // READ_ONLY: destructive and idempotent mean nothing on a read, and openWorldHint true is the default.
    expect(entry.annotations).toEqual({ readOnlyHint: true });
    expect(entry.inputSchema.type).toBe('object');
  });

  it('publish the input form (defaults optional), without $schema, and a format without its long pattern', () => {
    const schema = entry.inputSchema as Record<string, unknown> & {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.$schema).toBeUndefined();
    expect(schema.required).toEqual(['since']);
    expect(schema.properties.since).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schema.properties.since?.pattern).toBeUndefined();
    expect(schema.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
  });
});

describe('buildToolSet: selection errors', () => {
  const refusal = (options: ToolSetOptions) => {
    try {
      buildToolSet([alpha, beta], options);
    } catch (error) {
      expect(error).toBeInstanceOf(ToolSelectionError);
      return (error as Error).message;
    }
    throw new Error(`${JSON.stringify(options)} did not fail`);
  };

  it('a bare name two services share must be given in full', () => {
    expect(refusal({ only: ['Shared'] })).toBe(
      '"Shared" in --tools names several tools (Alpha.Shared, Beta.Shared); use the full name.',
    );
    expect(names(buildToolSet([alpha, beta], { only: ['Beta.Shared'] }))).toEqual(['Beta.Shared']);
  });

  it('--read-only with a tool that is not read-only says why it is left out', () => {
    expect(refusal({ readOnly: true, only: ['Alpha.DeleteThing'] })).toBe(
      'Alpha.DeleteThing is not read-only, so --read-only leaves it out.',
    );
  });

  it('an unknown name gets the closest tools of its service, in the chosen style', () => {
    expect(refusal({ only: ['Beta_CreateThng'], nameStyle: 'underscore' })).toBe(
      'Unknown tool "Beta_CreateThng" in --tools. Closest: Beta_CreateThing. All 6 are listed in docs/tools.md.',
    );
  });
});
