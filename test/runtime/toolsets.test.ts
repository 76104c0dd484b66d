// Toolsets: the services' tables (every tool in exactly one toolset), selection by `--toolsets` (service.toolset,
// a whole service, a bare name only one service has; case ignored), its union with `--tools` and the
// `--read-only` filter over both, its errors, and the subsets an HTTP path cuts from a prepared tool set
// (chooseToolsets, narrowToolSet, toolSetsByPath): within what the process serves, with no entry built again.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DESTROY, READ_ONLY } from '../../src/runtime/hints.js';
import { defineTool, type ServiceRuntime, type ToolHints } from '../../src/runtime/tool.js';
import {
  buildToolSet,
  chooseToolsets,
  narrowToolSet,
  servedToolsets,
  ToolSelectionError,
  type ToolSet,
  type ToolSetOptions,
} from '../../src/runtime/toolset.js';
import { toolSetsByPath } from '../../src/runtime/transports.js';
import { SERVICES } from '../../src/services/registry.js';

// Only definitions are read: selection never calls an upstream.
const runtimes: ServiceRuntime[] = SERVICES.map((service) => ({
  definition: service.definition,
  context: service.id,
}));
const names = (toolSet: ToolSet) => toolSet.tools.map((tool) => tool.name);
/** The message of the ToolSelectionError that `run` throws. */
const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolSelectionError);
    return (error as Error).message;
  }
  throw new Error('did not fail');
};
const select = (options: ToolSetOptions) => buildToolSet(runtimes, options);

describe('the toolset tables', () => {
  it.each(SERVICES.map((service) => [service.id, service] as const))(
    '%s: every tool in exactly one toolset, and no toolset names a tool the service lacks',
    (_id, service) => {
      const toolsets = service.definition.toolsets ?? {};
      const tools = service.definition.tools.map((tool) => tool.name);
      const placed = Object.values(toolsets).flatMap((toolset) => toolset.tools);
      expect([...placed].sort()).toEqual([...tools].sort());
      expect(new Set(placed).size).toBe(placed.length);
    },
  );

  it('names are lowercase words, never a service id nor "discovery" (both are HTTP path words)', () => {
    const ids = SERVICES.map((service) => service.id);
    for (const service of SERVICES) {
      const toolsets = Object.entries(service.definition.toolsets ?? {});
      expect(toolsets.length, service.id).toBeGreaterThan(0);
      for (const [name, toolset] of toolsets) {
        expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
        expect(ids).not.toContain(name);
        expect(name).not.toBe('discovery');
        expect(toolset.tools.length, name).toBeGreaterThan(0);
        expect(toolset.description.length, name).toBeLessThanOrEqual(100);
      }
    }
  });

  it('docs/toolsets.md lists each toolset with its tool count and description', () => {
    const doc = readFileSync(new URL('../../docs/toolsets.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z]+\.[a-z]+)` \| (\d+) \| (.+) \|$/gm)].map((m) =>
      m.slice(1).join(' | '),
    );
    const expected = SERVICES.flatMap((service) =>
      Object.entries(service.definition.toolsets ?? {}).map(
        ([name, toolset]) => `${service.id}.${name} | ${toolset.tools.length} | ${toolset.description}`,
      ),
    );
    expect(rows).toEqual(expected);
  });

  it('the store has the groups the issue names, and the messaging and issue desk ones', () => {
    const keys = (id: string) => Object.keys(SERVICES.find((s) => s.id === id)?.definition.toolsets ?? {});
    expect(keys('store')).toEqual([
      'records',
      'comments',
      'bases',
      'schema',
      'webhooks',
      'sharing',
      'workspaces',
      'enterprise',
      'audit',
      'scim',
      'bulk',
    ]);
    expect(keys('messaging')).toEqual(['people', 'events', 'segments', 'objects', 'batch']);
    expect(keys('issuedesk')).toEqual(['issues', 'directory']);
  });
});

describe('--toolsets', () => {
  const records = [
    'StoreApi.UploadAttachmentToStore',
    'StoreApi.DeleteMultipleRecords',
    'StoreApi.ListStoreRecords',
    'StoreApi.UpdateStoreRecords',
    'StoreApi.CreateStoreRecords',
    'StoreApi.BulkUpdateStore',
    'StoreApi.DeleteStoreRecord',
    'StoreApi.StoreGetRecord',
    'StoreApi.UpdateStoreRecord',
    'StoreApi.ModifyStoreEntry',
  ];

  it('service.toolset keeps exactly its tools, in the service tool order', () => {
    const toolSet = select({ toolsets: ['store.records'] });
    expect(names(toolSet)).toEqual(records);
    expect(toolSet.listEntries.map((entry) => entry.name)).toEqual(records);
    expect([...toolSet.byName.keys()]).toEqual(records);
  });

  it('a bare toolset name, any case and spacing, means the one service that has it', () => {
    expect(names(select({ toolsets: [' Records '] }))).toEqual(records);
    expect(names(select({ toolsets: ['people'] }))).toEqual(
      names(select({ toolsets: ['messaging.people'] })),
    );
  });

  it('a service id selects the whole service', () => {
    expect(names(select({ toolsets: ['issuedesk'] }))).toHaveLength(13);
    expect(names(select({ toolsets: ['messaging', 'issuedesk.issues'] }))).toHaveLength(17 + 6);
  });

  it('keeps service order, then tool order, whatever the order of the selectors', () => {
    const one = names(select({ toolsets: ['store.comments', 'messaging.batch', 'store.records'] }));
    const other = names(select({ toolsets: ['store.records', 'store.comments', 'messaging.batch'] }));
    expect(one).toEqual(other);
    expect(one[0]).toBe('MessagingTrackApi.BatchProcessRequests');
    expect(one.slice(1, 11)).toEqual(records);
    expect(one.slice(11)).toEqual([
      'StoreApi.GetRecordComments',
      'StoreApi.AddRecordComment',
      'StoreApi.DeleteCommentFromRecord',
      'StoreApi.UpdateRecordComment',
    ]);
  });

  it('with --tools: the union, a named tool joining the toolsets in its served place', () => {
    const toolSet = select({ toolsets: ['store.comments'], only: ['IssueDesk.WhoAmI', 'ListStoreBases'] });
    expect(names(toolSet)).toEqual([
      'IssueDesk.WhoAmI',
      'StoreApi.GetRecordComments',
      'StoreApi.AddRecordComment',
      'StoreApi.DeleteCommentFromRecord',
      'StoreApi.UpdateRecordComment',
      'StoreApi.ListStoreBases',
    ]);
  });

  it('--read-only filters the union', () => {
    const toolSet = select({ toolsets: ['store.records'], only: ['IssueDesk.GetIssue'], readOnly: true });
    expect(names(toolSet)).toEqual([
      'IssueDesk.GetIssue',
      'StoreApi.ListStoreRecords',
      'StoreApi.StoreGetRecord',
    ]);
  });

  it('--read-only with a tool named in --tools that is not read-only is still refused', () => {
    expect(refusal(() => select({ toolsets: ['store.records'], only: ['AddMessage'], readOnly: true }))).toBe(
      'IssueDesk.AddMessage is not read-only, so --read-only leaves it out.',
    );
  });

  it('--read-only with a toolset of writes only is refused, naming it', () => {
    expect(refusal(() => select({ toolsets: ['messaging.events'], readOnly: true }))).toBe(
      'messaging.events has no read-only tools, so --read-only leaves nothing of it: drop it from --toolsets, or drop --read-only.',
    );
  });

  it('sends the instructions of the services that have a tool in the set, in the chosen name style', () => {
    const toolSet = select({ toolsets: ['messaging.batch'], nameStyle: 'underscore' });
    expect(names(toolSet)).toEqual(['MessagingTrackApi_BatchProcessRequests']);
    expect(toolSet.instructions).toMatch(/^MessagingTrackApi \(/);
    expect(toolSet.instructions).not.toMatch(/IssueDesk|StoreApi/);
  });

  it('an unknown toolset is refused with the closest ones and where the list is', () => {
    expect(refusal(() => select({ toolsets: ['store.recrds'] }))).toBe(
      'Unknown toolset "store.recrds" in --toolsets. Closest: store.records. `switchboard toolsets` lists them all.',
    );
    expect(refusal(() => select({ toolsets: ['comment'] }))).toMatch(/Closest: store\.comments\./);
    expect(refusal(() => select({ toolsets: ['stor'] }))).toMatch(
      /^Unknown toolset "stor".*Closest: store\b/,
    );
    expect(refusal(() => select({ toolsets: ['zzzzzzzz'] }))).toBe(
      'Unknown toolset "zzzzzzzz" in --toolsets. Toolsets look like issuedesk.issues (or a service alone: issuedesk, messaging, store). `switchboard toolsets` lists them all.',
    );
  });

  it('a selection naming nothing is refused rather than meaning every tool', () => {
    expect(refusal(() => select({ toolsets: ['', ' '] }))).toBe(
      '--toolsets names no toolset. Give at least one, comma-separated (e.g. issuedesk.issues). `switchboard toolsets` lists them all.',
    );
  });
});

describe('a bare toolset name two services have', () => {
  const tool = (name: string, hints: ToolHints) =>
    defineTool<null, z.ZodObject>({
      name,
      title: name,
      description: name,
      input: z.object({}),
      hints,
      run: async () => ({}),
    });
  const service = (id: string, prefix: string): ServiceRuntime => ({
    context: null,
    definition: {
      id,
      prefix,
      title: prefix,
      instructions: prefix,
      tools: [tool('Read', READ_ONLY), tool('Drop', DESTROY)],
      toolsets: {
        reading: { description: 'Reads', tools: ['Read'] },
        dropping: { description: 'Drops', tools: ['Drop'] },
      },
    },
  });

  it('must be given with its service', () => {
    const services = [service('alpha', 'Alpha'), service('beta', 'Beta')];
    expect(refusal(() => buildToolSet(services, { toolsets: ['reading'] }))).toBe(
      '"reading" in --toolsets is a toolset of several services (alpha.reading, beta.reading); give it with its service.',
    );
    expect(names(buildToolSet(services, { toolsets: ['beta.reading'] }))).toEqual(['Beta.Read']);
  });
});

describe('subsets of a prepared tool set (the HTTP paths)', () => {
  const whole = select({ toolsets: ['store.records', 'store.comments', 'messaging'] });

  it('are cut from the same prepared entries: nothing is built again', () => {
    const subset = narrowToolSet(whole, chooseToolsets(whole, ['store.comments'], 'the path'));
    expect(names(subset)).toEqual([
      'StoreApi.GetRecordComments',
      'StoreApi.AddRecordComment',
      'StoreApi.DeleteCommentFromRecord',
      'StoreApi.UpdateRecordComment',
    ]);
    for (const tool of subset.tools) expect(tool).toBe(whole.byName.get(tool.name));
    expect(subset.listEntries[0]).toBe(whole.byName.get('StoreApi.GetRecordComments')!.listEntry);
    expect(subset.instructions).toMatch(/^StoreApi \(/);
  });

  it('have one key for one choice, whatever the order, case or repetition', () => {
    const key = (selectors: string[]) => chooseToolsets(whole, selectors, 'the path').key;
    expect(key(['store.comments', 'STORE.records', 'records'])).toBe('store.records,store.comments');
    expect(key(['messaging', 'store.records'])).toBe('messaging,store.records');
  });

  it('stay within what the process serves, naming what it does serve', () => {
    expect(refusal(() => chooseToolsets(whole, ['store.webhooks'], 'the path /mcp/store.webhooks'))).toBe(
      "store.webhooks is not served by this server. This server's toolsets: messaging.people, messaging.events, messaging.segments, messaging.objects, messaging.batch, store.records, store.comments (or a whole service: messaging, store).",
    );
    expect(refusal(() => chooseToolsets(whole, ['issuedesk'], 'the path /mcp/issuedesk'))).toMatch(
      /^issuedesk is not served by this server\./,
    );
    expect(refusal(() => chooseToolsets(whole, ['store.recrds'], 'the path /mcp/store.recrds'))).toMatch(
      /^Unknown toolset "store\.recrds" in the path \/mcp\/store\.recrds\. Closest: store\.records\. This server's toolsets: /,
    );
  });

  it('servedToolsets lists the toolsets with a served tool, in service and table order', () => {
    expect(servedToolsets(whole).map((toolset) => [toolset.name, toolset.tools.length])).toEqual([
      ['messaging.people', 9],
      ['messaging.events', 4],
      ['messaging.segments', 2],
      ['messaging.objects', 1],
      ['messaging.batch', 1],
      ['store.records', 10],
      ['store.comments', 4],
    ]);
  });
});

describe('toolSetsByPath', () => {
  const whole = select({});
  const byPath = toolSetsByPath(whole);

  it('/mcp is the whole set; /mcp/<selectors> a subset, one object per normalised choice', () => {
    expect(byPath('/mcp')).toBe(whole);
    const subset = byPath('/mcp/store.records,store.comments');
    expect(subset).not.toBeInstanceOf(ToolSelectionError);
    expect((subset as ToolSet).tools).toHaveLength(14);
    expect(byPath('/mcp/store.comments,records')).toBe(subset);
    expect(byPath('/mcp/store.comments%2Cstore.records')).toBe(subset);
  });

  it('/discovery after /mcp or a selection serves the discovery mode over that set, one view per set', async () => {
    /** What search_tools of a discovery view finds for "delete", at most 20. */
    const found = async (view: ToolSet) => {
      const search = await view.byName.get('search_tools')!.load();
      const call = {
        signal: new AbortController().signal,
        toolName: 'search_tools',
        nameStyle: 'dotted' as const,
      };
      const result = (await search.run({ query: 'delete', limit: 20 }, undefined, call)) as {
        tools: { name: string }[];
      };
      return result.tools.map((tool) => tool.name);
    };
    const everything = byPath('/mcp/discovery') as ToolSet;
    expect(names(everything)).toEqual(['search_tools', 'call_tool']);
    expect((await found(everything)).some((name) => name.startsWith('MessagingTrackApi.'))).toBe(true);
    const records = byPath('/mcp/store.records/discovery') as ToolSet;
    expect(names(records)).toEqual(['search_tools', 'call_tool']);
    const inRecords = await found(records);
    expect(inRecords).toContain('StoreApi.DeleteStoreRecord');
    for (const name of inRecords) expect(name).toMatch(/^StoreApi\./);
    for (const name of inRecords)
      expect((byPath('/mcp/store.records') as ToolSet).byName.has(name)).toBe(true);
    expect(byPath('/mcp/records/discovery')).toBe(records);
  });

  it('with `discovery`, /mcp serves the discovery mode and the toolset paths stay as they are', () => {
    const discovering = toolSetsByPath(whole, { discovery: true });
    expect(names(discovering('/mcp') as ToolSet)).toEqual(['search_tools', 'call_tool']);
    expect((discovering('/mcp/store.records') as ToolSet).tools).toHaveLength(10);
  });

  it('anything else under /mcp/ is an error naming the toolsets', () => {
    for (const path of [
      '/mcp/',
      '/mcp/nope',
      '/mcp/store.records/extra',
      '/mcp/%E0%A4%A',
      '/mcp/discovery/discovery',
      '/mcp/store/discovery/x',
    ]) {
      const answer = byPath(path);
      expect(answer, path).toBeInstanceOf(ToolSelectionError);
      expect((answer as Error).message, path).toContain('store.records');
    }
  });
});
