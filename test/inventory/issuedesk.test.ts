// Inventory: the IssueDesk tools are exactly the spec's 13, with its parameter names, types, required flags,
// defaults and enums. The expectations are transcribed below; when the spec file sits beside the repository
// (as in CI), a second test reads the spec table itself and checks the transcription.

import { describe, expect, it } from 'vitest';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';
import { readToolTable, type SpecParam, specAvailable } from './specTable.js';

type Expect = Record<string, Omit<SpecParam, 'name'>>;
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

interface JsonSchema {
  type?: string;
  enum?: string[];
  anyOf?: JsonSchema[];
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
}

function kindOf(schema: JsonSchema): SpecParam['kind'] {
  if (schema.enum || schema.anyOf?.some((branch) => branch.enum)) return 'enum';
  return schema.type as SpecParam['kind'];
}

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
      const schema = toolSet.byName.get(`IssueDesk.${name}`)!.listEntry.inputSchema as JsonSchema;
      expect(schema.type).toBe('object');
      expect(schema.additionalProperties).toBe(false);
      expect(Object.keys(schema.properties ?? {}).sort()).toEqual(Object.keys(params).sort());
      expect((schema.required ?? []).sort()).toEqual(
        Object.entries(params)
          .filter(([, p]) => p.required)
          .map(([key]) => key)
          .sort(),
      );
      for (const [param, want] of Object.entries(params)) {
        const got = schema.properties![param]!;
        expect(kindOf(got), `${name}.${param} type`).toBe(want.kind);
        if (want.enumValues) expect(got.enum, `${name}.${param} enum`).toEqual(want.enumValues);
        if (want.default !== undefined && !/ago|now/.test(want.default)) {
          expect(String(got.default), `${name}.${param} default`).toBe(want.default);
        }
      }
    });
  }

  it('state offers the five built-in states (and custom slugs)', () => {
    for (const tool of ['ListIssues', 'UpdateIssueStatus']) {
      const state = (toolSet.byName.get(`IssueDesk.${tool}`)!.listEntry.inputSchema as JsonSchema).properties!
        .state!;
      expect(state.anyOf?.find((branch) => branch.enum)?.enum).toEqual(BUILTIN_STATES);
    }
  });

  it('WhoAmI is readOnlyHint and openWorldHint true, and every tool sets all four hints', () => {
    expect(toolSet.byName.get('IssueDesk.WhoAmI')!.listEntry.annotations).toMatchObject({
      readOnlyHint: true,
      openWorldHint: true,
    });
    for (const tool of toolSet.tools) {
      const hints = tool.listEntry.annotations!;
      for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof hints[key], `${tool.name}.${key}`).toBe('boolean');
      }
    }
  });

  it.runIf(specAvailable('issuedesk.md'))('the transcription above matches the spec table itself', () => {
    const table = readToolTable('issuedesk.md');
    expect([...table.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const [name, params] of table) {
      const expected = EXPECTED[name]!;
      expect(params.map((p) => p.name).sort(), name).toEqual(Object.keys(expected).sort());
      for (const param of params) {
        const want = expected[param.name]!;
        expect({ kind: param.kind, required: param.required }, `${name}.${param.name}`).toEqual({
          kind: want.kind,
          required: want.required,
        });
        if (param.enumValues) expect(want.enumValues, `${name}.${param.name} enum`).toEqual(param.enumValues);
        expect(want.default, `${name}.${param.name} default`).toBe(param.default);
      }
    }
  });
});
