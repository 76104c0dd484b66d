// Inventory: the IssueDesk tools are exactly the spec's 13, with its parameter names, types, required flags,
// defaults and enums. The expectations are transcribed below; when the spec file sits beside the repository
// (as in CI), a second test reads the spec table itself and checks the transcription.

import { describe, expect, it } from 'vitest';
import { effectiveHints, MCP_DEFAULT_HINTS } from '../../src/runtime/hints.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';
import {
  type ExpectedParams,
  expectToolInput,
  expectTranscription,
  readToolTable,
  type SpecParam,
  specAvailable,
} from './specTable.js';

type Expect = ExpectedParams;
const s = (required = false): Omit<SpecParam, 'name'> => ({ kind: 'string', required });
const auto: Omit<SpecParam, 'name'> = { kind: 'boolean', required: false, default: 'false' };

const EXPECTED: Record<string, Expect> = {
  WhoAmI: {},
  ListIssues: {
    state: { kind: 'enum', required: false },
    assignee_id: s(),
    team_id: s(),
    tags: { kind: 'array', required: false },
    start_time: { kind: 'string', required: false, default: '7 days ago' },
    end_time: { kind: 'string', required: false, default: 'now' },
    cursor: s(),
  },
  GetIssue: {
    lookup_by: { kind: 'enum', required: true, enumValues: ['id', 'search'] },
    value: s(true),
    auto_accept_matches: auto,
  },
  SearchIssues: { query: s(true), auto_accept_matches: auto },
  AssignIssue: {
    issue_lookup_by: { kind: 'enum', required: true, enumValues: ['id', 'search'] },
    issue_value: s(true),
    user_lookup_by: { kind: 'enum', required: true, enumValues: ['id', 'name'] },
    user_value: s(true),
    auto_accept_matches: auto,
  },
  UpdateIssueStatus: {
    state: { kind: 'enum', required: true },
    lookup_by: { kind: 'enum', required: true, enumValues: ['id', 'search'] },
    value: s(true),
    auto_accept_matches: auto,
  },
  AddMessage: {
    issue_id: s(true),
    body: s(true),
    as_html: { kind: 'boolean', required: false, default: 'false' },
  },
  ListContacts: { cursor: s() },
  SearchContacts: { query: s(true), auto_accept_matches: auto },
  ListUsers: { cursor: s(), limit: { kind: 'integer', required: false, default: '20' } },
  SearchUsers: { query: s(true), auto_accept_matches: auto },
  ListTeams: { cursor: s() },
  GetTeamAndAssignment: {
    lookup_by: { kind: 'enum', required: true, enumValues: ['id', 'name'] },
    value: s(true),
    auto_accept_matches: auto,
  },
};

const BUILTIN_STATES = ['new', 'waiting_on_you', 'waiting_on_customer', 'on_hold', 'closed'];

const toolSet = buildToolSet([createIssueDeskRuntime({ token: () => undefined })]);

describe('IssueDesk inventory', () => {
  it('has exactly the 13 spec tools, dotted and prefixed', () => {
    expect(toolSet.tools.map((tool) => tool.name).sort()).toEqual(
      Object.keys(EXPECTED)
        .map((name) => `IssueDesk.${name}`)
        .sort(),
    );
  });

  for (const [name, params] of Object.entries(EXPECTED)) {
    it(`${name}: parameters, types, required, defaults, enums`, () => {
      expectToolInput(name, toolSet.byName.get(`IssueDesk.${name}`)!.listEntry.inputSchema, params);
    });
  }

  it('state offers the five built-in states (and custom slugs)', () => {
    for (const tool of ['ListIssues', 'UpdateIssueStatus']) {
      const state = (
        toolSet.byName.get(`IssueDesk.${tool}`)!.listEntry.inputSchema as {
          properties: Record<string, { anyOf?: { enum?: string[] }[] }>;
        }
      ).properties.state!;
      expect(state.anyOf?.find((branch) => branch.enum)?.enum).toEqual(BUILTIN_STATES);
    }
  });

  it('WhoAmI is readOnlyHint and openWorldHint true; every tool publishes only hints that differ from the defaults', () => {
    const whoAmI = toolSet.byName.get('IssueDesk.WhoAmI')!.listEntry.annotations;
    // openWorldHint true is MCP's default, so a client reads it from its absence.
    expect(whoAmI).toEqual({ readOnlyHint: true });
    expect(effectiveHints(whoAmI)).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    for (const tool of toolSet.tools) {
      const published = tool.listEntry.annotations ?? {};
      for (const [key, value] of Object.entries(published)) {
        expect(value, `${tool.name}.${key}`).not.toBe(
          MCP_DEFAULT_HINTS[key as keyof typeof MCP_DEFAULT_HINTS],
        );
      }
      // Every hint the definition sets is what a client reads (destructive and idempotent aside on reads).
      const read = effectiveHints(published);
      const keys = tool.definition.hints.readOnlyHint
        ? (['readOnlyHint', 'openWorldHint'] as const)
        : (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const);
      for (const key of keys) expect(read[key], `${tool.name}.${key}`).toBe(tool.definition.hints[key]);
    }
  });

  it.runIf(specAvailable('issuedesk.md'))('the transcription above matches the spec table itself', () => {
    expectTranscription(readToolTable('issuedesk.md'), EXPECTED);
  });
});
