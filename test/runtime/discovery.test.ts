// The discovery mode (runtime/discovery.ts, ranking in runtime/toolSearch.ts): what it lists and what that costs,
// search_tools over the set it is a view of (filters and name style included), the ranking's vocabulary, and
// call_tool giving exactly what a direct call gives (success, argument error, upstream error with its hint,
// cancellation, the caller's identity), against the IssueDesk emulator on a loopback socket.

import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CALL_TOOL, discoveryToolSet, SEARCH_TOOLS, toolSearchIndex } from '../../src/runtime/discovery.js';
import { READ_ONLY } from '../../src/runtime/hints.js';
import { runToolCall, type ToolCallOptions } from '../../src/runtime/mcpServer.js';
import { toolListCost } from '../../src/runtime/tokens.js';
import { defineTool, type Principal, type ServiceRuntime } from '../../src/runtime/tool.js';
import { buildVocabulary, queryUnits } from '../../src/runtime/toolSearch.js';
import { buildToolSet, type ToolSet } from '../../src/runtime/toolset.js';
import {
  type RunningIssueDeskEmulator,
  startIssueDeskEmulator,
} from '../../src/services/issuedesk/emulator/app.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';
import { SERVICES } from '../../src/services/registry.js';

// Runtimes from an empty environment: listing and searching never call an upstream.
const runtimes = SERVICES.map((service) =>
  service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' }),
);
const all = buildToolSet(runtimes);
const notAborted = new AbortController().signal;

function call(
  toolSet: ToolSet,
  name: string,
  args: unknown,
  options: ToolCallOptions = { signal: notAborted },
): Promise<CallToolResult> {
  const tool = toolSet.byName.get(name);
  if (!tool) throw new Error(`${name} is not in the set`);
  return runToolCall(toolSet, tool, args, options);
}

interface Found {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  annotations?: Record<string, boolean>;
}

async function search(view: ToolSet, args: Record<string, unknown>): Promise<Found[]> {
  const result = await call(view, SEARCH_TOOLS, args);
  expect(result.isError, JSON.stringify(result.content)).toBeUndefined();
  return (result.structuredContent as { tools: Found[] }).tools;
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

describe('what the discovery mode lists', () => {
  it('search_tools and call_tool only, unprefixed in either name style, with instructions on using them', () => {
    for (const nameStyle of ['dotted', 'underscore'] as const) {
      const view = discoveryToolSet(buildToolSet(runtimes, { nameStyle }));
      expect(view.listEntries.map((entry) => entry.name)).toEqual([SEARCH_TOOLS, CALL_TOOL]);
      expect(view.instructions).toMatch(
        /^Discovery mode: the 126 tools of IssueDesk, MessagingTrackApi and StoreApi/,
      );
      expect(view.instructions).toContain(`${SEARCH_TOOLS} {query, limit?}`);
      expect(view.instructions).toContain(`${CALL_TOOL} {name, arguments}`);
      // The services' own notes follow, their tool names in the served style.
      expect(view.instructions).toContain(
        nameStyle === 'dotted' ? 'IssueDesk.SearchIssues' : 'IssueDesk_SearchIssues',
      );
    }
  });

  it('costs at most 1,200 o200k tokens: the two definitions and the instructions', async () => {
    const view = discoveryToolSet(all);
    const cost = await toolListCost(view.listEntries, view.instructions);
    process.stdout.write(
      `discovery mode over 126 tools: ${cost.total} o200k tokens (tools ${cost.tools}, instructions ${cost.instructions})\n`,
    );
    expect(cost.total).toBeLessThanOrEqual(1200);
  });

  it('publishes input schemas with exactly the parameters, and required ones, that it validates', async () => {
    for (const tool of discoveryToolSet(all).tools) {
      const zodSchema = z.toJSONSchema((await tool.load()).input, { io: 'input' }) as {
        properties: Record<string, unknown>;
        required?: string[];
      };
      const published = tool.listEntry.inputSchema;
      expect(Object.keys(published.properties ?? {})).toEqual(Object.keys(zodSchema.properties));
      expect(published.required ?? []).toEqual(zodSchema.required ?? []);
    }
  });

  it('is one view per tool set, so its search index is built once', () => {
    expect(discoveryToolSet(all)).toBe(discoveryToolSet(all));
  });

  it('marks call_tool read-only exactly when every tool behind it is', () => {
    const annotations = (toolSet: ToolSet) =>
      discoveryToolSet(toolSet).byName.get(CALL_TOOL)?.listEntry.annotations;
    expect(annotations(buildToolSet(runtimes, { readOnly: true }))?.readOnlyHint).toBe(true);
    expect(annotations(all)?.readOnlyHint).not.toBe(true);
    expect(discoveryToolSet(all).byName.get(SEARCH_TOOLS)?.listEntry.annotations?.readOnlyHint).toBe(true);
  });
});

describe('search_tools', () => {
  it('returns the best five by default, each as tools/list would show it', async () => {
    const found = await search(discoveryToolSet(all), { query: 'close the ticket about the broken login' });
    expect(found).toHaveLength(5);
    expect(found.slice(0, 3).map((tool) => tool.name)).toContain('IssueDesk.UpdateIssueStatus');
    for (const tool of found) {
      const { name, title, description, inputSchema, annotations } = all.byName.get(tool.name)!.listEntry;
      expect(tool).toEqual({ name, title, description, inputSchema, annotations });
    }
  });

  it('finds only tools of the set it is a view of: --read-only, --tools, the name style', async () => {
    const readOnly = buildToolSet(runtimes, { readOnly: true });
    for (const tool of await search(discoveryToolSet(readOnly), { query: 'delete the record', limit: 20 })) {
      expect(readOnly.byName.get(tool.name)?.definition.hints.readOnlyHint).toBe(true);
    }
    const only = buildToolSet(runtimes, { only: ['StoreApi.ListStoreRecords', 'IssueDesk.GetIssue'] });
    const names = (await search(discoveryToolSet(only), { query: 'delete a row', limit: 20 })).map(
      (t) => t.name,
    );
    expect(names).toEqual(['StoreApi.ListStoreRecords']);
    const underscored = discoveryToolSet(buildToolSet(runtimes, { nameStyle: 'underscore' }));
    const [first] = await search(underscored, { query: 'delete one record from a table', limit: 1 });
    expect(first?.name).toBe('StoreApi_DeleteStoreRecord');
  });

  it('takes a limit from 1 to 20, and refuses others as any tool refuses a bad argument', async () => {
    const view = discoveryToolSet(all);
    expect(await search(view, { query: 'list', limit: 20 })).toHaveLength(20);
    expect(await search(view, { query: 'list', limit: 1 })).toHaveLength(1);
    for (const args of [{ query: 'list', limit: 21 }, { query: 'list', limit: 0 }, { query: '  ' }, {}]) {
      const refused = await call(view, SEARCH_TOOLS, args);
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as { error: { kind: string } }).error.kind).toBe('invalid_arguments');
    }
  });

  it('says so, with a hint, when nothing matches', async () => {
    const result = await call(discoveryToolSet(all), SEARCH_TOOLS, { query: 'zyxxy quorbl' });
    expect(result.structuredContent).toEqual({ tools: [], hint: expect.stringContaining('No tool matched') });
  });
});

describe('ranking', () => {
  const index = toolSearchIndex(all);
  const top = (query: string, n = 3) => index.search(query, n).map((hit) => all.tools[hit.index]!.specName);
  const unitsOf = (query: string) => index.explain(query, 0).units.map((unit) => unit.text);

  it.each([
    // The words people use: ticket for issue, row for record, column for field, sheet for table, customer.
    ['reopen the ticket about invoices', 'IssueDesk.UpdateIssueStatus'],
    ['remove a row from the sheet', 'StoreApi.DeleteStoreRecord'],
    ['rename a column', 'StoreApi.UpdateStoreFieldDetails'],
    ['list my spreadsheets', 'StoreApi.ListStoreBases'],
    ['find a customer by email in the help desk', 'IssueDesk.SearchContacts'],
    ['opt out the recipient of a newsletter', 'MessagingTrackApi.GlobalUnsubscribeUser'],
    // A phrase of the vocabulary is one word: "log out".
    ['log out a user everywhere', 'StoreApi.LogoutEnterpriseUser'],
    // A tool's own name, camelCase split, alone or in a sentence.
    ['ListStoreRecords', 'StoreApi.ListStoreRecords'],
    ['how do I call StoreApi.DeleteStoreRecord', 'StoreApi.DeleteStoreRecord'],
  ])('"%s" finds %s in the top 3', (query, tool) => {
    expect(top(query)).toContain(tool);
  });

  it('counts names of the user data (capitalised, quoted) less than the words of the task', () => {
    // "Contacts" is the table's name here, not the support desk's contacts.
    expect(top('rename the Contacts table', 1)).toEqual(['StoreApi.UpdateStoreTable']);
    expect(top("delete the 'Support contacts' view", 1)).toEqual(['StoreApi.DeleteStoreView']);
  });

  it('prefers the tool whose name the task accounts for: a plain record over a bulk data table', () => {
    expect(top('delete a record', 1)).toEqual(['StoreApi.DeleteStoreRecord']);
    expect(top('delete rows of the data table by primary key', 1)).toEqual([
      'StoreApi.DeleteRecordsByPrimaryKeys',
    ]);
  });

  it('orders ties by the list order, and leaves out tools that match nothing', () => {
    expect(index.search('zyxxy', 5)).toEqual([]);
    const hits = index.search('list', 126);
    expect(hits.length).toBeLessThan(126);
    for (let i = 1; i < hits.length; i++) {
      const [a, b] = [hits[i - 1]!, hits[i]!];
      expect(a.score > b.score || (a.score === b.score && a.index < b.index)).toBe(true);
    }
  });

  it('reads an email address as "email" and a store identifier as what it names, never as their pieces', () => {
    expect(unitsOf('delete a@co.com, b@co.com')).toEqual(['delet', 'email', 'email']);
    expect(top('delete a@co.com and b@co.com from the enterprise', 1)).toEqual([
      'StoreApi.DeleteUsersByEmail',
    ]);
    // A prefix, then a capital or a digit: recQ7, tbl8x, appMarketing. Words that start alike stay words.
    expect(unitsOf('show recQ7 of tbl8x in appMarketing')).toEqual(['show', 'record', 'tabl', 'bas']);
    expect(unitsOf('apple records')).toEqual(['appl', 'record']);
    // Only their kind is a hint, so they count as names of the user's data do.
    expect(queryUnits('show recQ7', undefined, new Map([['rec', 'record']]))[1]).toMatchObject({
      text: 'record',
      weight: 0.5,
    });
  });

  it('finds a tool by its search terms (words its listed text does not have), which tools/list never shows', () => {
    const terms = (name: string) =>
      all.catalog?.find((service) => name.startsWith(`${service.prefix}.`))?.searchTerms[name.split('.')[1]!];
    expect(terms('IssueDesk.WhoAmI')).toContain('healthcheck');
    expect(JSON.stringify(all.byName.get('IssueDesk.WhoAmI')!.listEntry)).not.toContain('healthcheck');
    expect(top('healthcheck', 1)).toEqual(['IssueDesk.WhoAmI']);
    expect(top('so a campaign fires when someone upgrades', 1)).toEqual([
      'MessagingTrackApi.SendCustomerEvent',
    ]);
  });

  it('search terms name only tools of their own service, and give every tool some', () => {
    for (const service of all.catalog ?? []) {
      const names = all.tools.filter((tool) => tool.specName.startsWith(`${service.prefix}.`));
      expect(Object.keys(service.searchTerms).sort(), service.id).toEqual(
        names.map((tool) => tool.definition.name).sort(),
      );
      for (const prefix of Object.keys(service.identifierPrefixes)) expect(prefix).toMatch(/^[a-z]{3}$/);
    }
  });

  it("counts an upstream's product name in full, capitalised or not", () => {
    const weights = (query: string) => queryUnits(query).map((unit) => [unit.text, unit.weight]);
    expect(weights('update a person in Customer.io')).toContainEqual(['customer io', 1]);
    expect(weights('list bases in Airtable')).toContainEqual(['airtabl', 1]);
    expect(weights('list bases in Marketing')).toContainEqual(['market', 0.5]);
  });

  it('refuses a vocabulary that makes one word a synonym of two', () => {
    expect(() => buildVocabulary(['record = row', 'line = rows'])).toThrow(
      'Vocabulary: "rows" is a synonym in the groups of both "record" and "line"',
    );
  });
});

describe('call_tool gives what a direct call gives', () => {
  let emulator: RunningIssueDeskEmulator;
  let inner: ToolSet;
  let view: ToolSet;
  const requests = async () =>
    ((await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as { requests: unknown[] }).requests
      .length;

  beforeAll(async () => {
    emulator = await startIssueDeskEmulator({ db: ':memory:' });
    inner = buildToolSet([
      createIssueDeskRuntime({ baseUrl: emulator.url, token: () => emulator.token, clientRateLimits: false }),
    ]);
    view = discoveryToolSet(inner);
  });
  afterAll(async () => {
    await emulator.close();
  });

  const through = (name: string, args: unknown, options?: ToolCallOptions) =>
    call(view, CALL_TOOL, { name, arguments: args }, options);

  it.each([
    ['a success', { lookup_by: 'id', value: '1' }, undefined],
    ['an argument error', { lookup_by: 'nope' }, 'invalid_arguments'],
    ['an upstream error', { lookup_by: 'id', value: '987654' }, 'not_found'],
  ])('%s', async (_case, args, kind) => {
    const direct = await call(inner, 'IssueDesk.GetIssue', args);
    const viaCallTool = await through('IssueDesk.GetIssue', args);
    expect(viaCallTool).toEqual(direct);
    if (kind === undefined) {
      expect(direct.isError).toBeUndefined();
      expect(direct.structuredContent).toHaveProperty('issue');
    } else {
      expect((direct.structuredContent as { error: { kind: string } }).error.kind).toBe(kind);
    }
  });

  it('an upstream error with its hint: a token the upstream rejects', async () => {
    const rejected = buildToolSet([
      createIssueDeskRuntime({
        baseUrl: emulator.url,
        token: () => 'not-the-token',
        clientRateLimits: false,
      }),
    ]);
    const direct = await call(rejected, 'IssueDesk.WhoAmI', {});
    expect(direct.isError).toBe(true);
    expect(text(direct)).toContain('Hint:');
    expect(
      await call(discoveryToolSet(rejected), CALL_TOOL, { name: 'IssueDesk.WhoAmI', arguments: {} }),
    ).toEqual(direct);
  });

  it('a cancelled call is cancelled the same way', async () => {
    const cancelled = { signal: AbortSignal.abort('notifications/cancelled') };
    const direct = await call(inner, 'IssueDesk.WhoAmI', {}, cancelled);
    expect(direct).toEqual({
      content: [{ type: 'text', text: 'IssueDesk.WhoAmI was cancelled.' }],
      isError: true,
    });
    expect(await through('IssueDesk.WhoAmI', {}, cancelled)).toEqual(direct);
  });

  it('refuses a tool outside the served set without calling upstream, naming the closest and search_tools', async () => {
    const readOnly = discoveryToolSet(
      buildToolSet(
        [
          createIssueDeskRuntime({
            baseUrl: emulator.url,
            token: () => emulator.token,
            clientRateLimits: false,
          }),
        ],
        { readOnly: true },
      ),
    );
    const before = await requests();
    const refused = await call(readOnly, CALL_TOOL, {
      name: 'IssueDesk.UpdateIssueStatus',
      arguments: { state: 'closed', lookup_by: 'id', value: '1' },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('No tool named "IssueDesk.UpdateIssueStatus" is served here.');
    expect(text(refused)).toContain(`Hint: Find the tool with ${SEARCH_TOOLS}`);
    expect(await requests()).toBe(before);

    const typo = await through('IssueDesk.GetIsue', { lookup_by: 'id', value: '1' });
    expect(text(typo)).toContain('- name: not a served tool; closest: IssueDesk.GetIssue');
  });

  it('runs as the caller, in the caller’s name style', async () => {
    const echo: ServiceRuntime = {
      definition: {
        id: 'echo',
        prefix: 'Echo',
        title: 'Echo',
        instructions: 'Echo: who calls.',
        tools: [
          defineTool({
            name: 'WhoCalls',
            title: 'Who calls',
            description: 'Says who calls, and how.',
            input: z.object({}),
            hints: READ_ONLY,
            run: async (_args, _ctx, { principal, toolName, nameStyle }) => ({
              principal,
              toolName,
              nameStyle,
            }),
          }),
        ],
      },
      context: undefined,
    };
    const echoes = buildToolSet([echo], { nameStyle: 'underscore' });
    const principal: Principal = { subject: 'usr1', grantId: 'grant-1' };
    const options = { signal: notAborted, principal };
    const direct = await call(echoes, 'Echo_WhoCalls', {}, options);
    expect(direct.structuredContent).toEqual({
      principal,
      toolName: 'Echo_WhoCalls',
      nameStyle: 'underscore',
    });
    expect(
      await call(discoveryToolSet(echoes), CALL_TOOL, { name: 'Echo_WhoCalls', arguments: {} }, options),
    ).toEqual(direct);
  });
});
