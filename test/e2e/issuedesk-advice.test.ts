// What IssueDesk writes for the agent to act on next, end to end: the CLI over stdio with --tool-names underscore
// (the SDK's client, the emulator on loopback). Instructions, tool descriptions, error hints and suggested next
// calls name tools the way this client calls them; needs_confirmation advice fits the arguments given; a note
// cut off after the upstream stored it is reported as of unknown outcome, with how to check.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Connected, connectCli, type Emulator, errorOf, startEmulator } from './harness.js';

const DOTTED = /\bIssueDesk\.[A-Z][A-Za-z]+/;

interface Issue {
  id: string;
  number: number;
  title: string;
  created_at: string;
}

describe('IssueDesk with --tool-names underscore, over stdio', () => {
  let emulator: Emulator;
  let mcp: Connected;
  let recent: Issue[];

  beforeAll(async () => {
    emulator = await startEmulator();
    mcp = await connectCli(['serve', 'issuedesk', '--tool-names', 'underscore'], {
      ISSUEDESK_BASE_URL: emulator.url,
      ISSUEDESK_API_TOKEN: emulator.token,
      SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
    });
    const issues = await emulator.state<Issue>('issues');
    recent = issues
      .filter((issue) => Date.parse(issue.created_at) > Date.now() - 20 * 24 * 3600 * 1000)
      .sort((a, b) => a.number - b.number);
  });
  afterAll(async () => {
    await mcp?.close();
    await emulator?.close();
  });
  beforeEach(async () => {
    await emulator.clearFaults();
    await emulator.clearLog();
  });

  it('the instructions and tools/list name tools only the underscored way', async () => {
    const instructions = mcp.client.getInstructions() ?? '';
    expect(instructions).toContain('IssueDesk_SearchIssues');
    expect(instructions).toContain('IssueDesk_ListIssues');
    expect(instructions).not.toMatch(DOTTED);
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('IssueDesk_GetIssue');
    expect(JSON.stringify(tools)).not.toMatch(DOTTED);
  });

  it('an error hint names the tools to use the underscored way', async () => {
    const result = await mcp.call('IssueDesk_GetIssue', { lookup_by: 'id', value: '987654321' });
    expect(errorOf(result)).toMatchObject({ kind: 'not_found', status: 404 });
    expect(errorOf(result).hint).toBe(
      'No issue has that ID or number. Find it with IssueDesk_SearchIssues or IssueDesk_ListIssues.',
    );
    expect(result.text).not.toMatch(DOTTED);
  });

  it('a result that suggests the next call names it the underscored way', async () => {
    const [team] = await emulator.state<{ id: string }>('teams');
    const result = await mcp.call('IssueDesk_GetTeamAndAssignment', { lookup_by: 'id', value: team!.id });
    expect(result.isError).toBe(false);
    expect((result.structured.assignment as { note: string }).note).toContain('call IssueDesk_AssignIssue');
  });

  it('needs_confirmation with auto_accept_matches true does not advise setting it; the next calls are underscored', async () => {
    // Two issues whose titles a search cannot tell apart: neither is a clear best match.
    const [a, b] = recent;
    await patchIssue(emulator, a!.id, { title: 'Webhook retries stall on large payloads' });
    await patchIssue(emulator, b!.id, { title: 'Webhook retries stall on large payloads (EU)' });
    await emulator.clearLog();
    const result = await mcp.call('IssueDesk_UpdateIssueStatus', {
      state: 'on_hold',
      lookup_by: 'search',
      value: 'webhook retries stall',
      auto_accept_matches: true,
    });
    expect(result.isError).toBe(false);
    expect(result.structured.status).toBe('needs_confirmation');
    const message = result.structured.message as string;
    expect(message).toMatch(/auto_accept_matches was true, but no candidate is a clear best match/);
    expect(message).toMatch(/leads the next by [0-9.]+, less than the 0\.15 auto-accept needs/);
    expect(message).not.toMatch(/call again with auto_accept_matches true/);
    const candidates = result.structured.candidates as { id: string; next_call: { tool: string } }[];
    expect(candidates.slice(0, 2).map((c) => c.id)).toEqual(expect.arrayContaining([a!.id, b!.id]));
    expect(candidates[0]!.next_call.tool).toBe('IssueDesk_UpdateIssueStatus');
    // Nothing was changed.
    expect((await emulator.requests()).filter((r) => r.method === 'PATCH')).toEqual([]);
  });

  it('a note stored upstream, then cut off: outcome_unknown, not retryable, with how to check; stored once', async () => {
    const issue = recent[2]!;
    const body = `Customer confirmed the fix works ${Date.now()}`;
    await emulator.faults([{ method: 'POST', path: '/issues/*', kind: 'drop', when: 'after', times: 1 }]);
    const result = await mcp.call('IssueDesk_AddMessage', { issue_id: issue.id, body });
    expect(result.isError).toBe(true);
    expect(result.structured.error).toMatchObject({ kind: 'outcome_unknown', retryable: false });
    const hint = errorOf(result).hint!;
    expect(hint).toMatch(/^IssueDesk_AddMessage may have taken effect/);
    expect(hint).toContain('IssueDesk_GetIssue gives its link');
    expect(result.text).not.toMatch(DOTTED);
    expect((await emulator.requests()).filter((r) => r.method === 'POST')).toHaveLength(1);
    const notes = await emulator.state<{ message_html?: string }>('messages', `&issue_id=${issue.id}`);
    expect(notes.filter((note) => note.message_html?.includes(body))).toHaveLength(1);
  });
});

/** Test set-up through the upstream API itself, as any API user would change an issue. */
async function patchIssue(emulator: Emulator, id: string, changes: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emulator.url}/issues/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(changes),
  });
  expect(response.status).toBe(200);
}
