// --tools selection in the tool set: a mistyped name gets the closest tools (not all 126), and a selection that
// names nothing is refused instead of meaning "every tool".

import { describe, expect, it } from 'vitest';
import { buildToolSet, ToolSelectionError } from '../../src/runtime/toolset.js';
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
