// Every IssueDesk tool end to end: the SDK's MCP client -> Switchboard (over stdio and over HTTP) -> the Pylon
// emulator on loopback. Each test checks the tool's result and the upstream calls the emulator logged.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Connected, connect, type Emulator, startEmulator, type Transport } from './harness.js';

interface Issue {
  id: string;
  number: number;
  title: string;
  state: string;
  created_at: string;
  tags?: string[];
  assignee?: { id: string } | null;
  team?: { id: string } | null;
}
interface User {
  id: string;
  name: string;
  email: string;
}
interface Team {
  id: string;
  name: string;
  users: { id: string; email: string }[];
}
interface Contact {
  id: string;
  name: string;
  email: string;
}

const DAY = 24 * 3600 * 1000;

describe.each<Transport>(['stdio', 'http'])('IssueDesk end to end over %s', (transport) => {
  let emulator: Emulator;
  let mcp: Connected;
  let issues: Issue[];
  let users: User[];
  let teams: Team[];
  let contacts: Contact[];

  beforeAll(async () => {
    emulator = await startEmulator();
    mcp = await connect(transport, { ISSUEDESK_BASE_URL: emulator.url, ISSUEDESK_API_TOKEN: emulator.token });
    const all = async <T>(name: string) =>
      (await emulator.get<{ items: T[] }>(`/_emulator/state/${name}?limit=10000`)).items;
    issues = await all<Issue>('issues');
    users = await all<User>('users');
    teams = await all<Team>('teams');
    contacts = await all<Contact>('contacts');
    await emulator.clearLog();
  });
  afterAll(async () => {
    await mcp?.close();
    await emulator?.close();
  });
  // Each test reads only the upstream calls it caused.
  beforeEach(() => emulator.clearLog());

  const recent = () => issues.filter((issue) => Date.parse(issue.created_at) > Date.now() - 25 * DAY);

  it('lists 13 tools and sends the server instructions once', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools).toHaveLength(13);
    expect(mcp.client.getInstructions()).toMatch(/needs_confirmation/);
  });

  it('WhoAmI returns the organization of the token', async () => {
    const result = await mcp.call('IssueDesk.WhoAmI');
    const state = await emulator.get<{ org: { id: string; name: string } }>('/_emulator/state');
    expect(result.isError).toBe(false);
    expect(result.structured.organization).toEqual({ id: state.org.id, name: state.org.name });
    expect(JSON.parse(result.text)).toEqual(result.structured);
    const log = await emulator.requests();
    expect(log.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /me']);
  });

  it('ListIssues defaults to the last 7 days, newest first', async () => {
    const result = await mcp.call('IssueDesk.ListIssues');
    const listed = result.structured.issues as Issue[];
    const expected = issues.filter((issue) => Date.parse(issue.created_at) >= Date.now() - 7 * DAY - 60_000);
    expect(listed.length).toBe(expected.length);
    expect(listed.length).toBeGreaterThan(0);
    const times = listed.map((issue) => Date.parse(issue.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const [request] = await emulator.requests();
    expect(request?.path).toBe('/issues');
    const window =
      Date.parse(String(request?.query.end_time)) - Date.parse(String(request?.query.start_time));
    expect(window).toBe(7 * DAY);
  });

  it('ListIssues filters by state, team and all given tags', async () => {
    const sample = recent().find((issue) => (issue.tags ?? []).length >= 2 && issue.team)!;
    expect(sample).toBeDefined();
    const args = {
      state: sample.state,
      team_id: sample.team!.id,
      tags: sample.tags!.slice(0, 2),
      start_time: new Date(Date.now() - 30 * DAY).toISOString(),
    };
    const result = await mcp.call('IssueDesk.ListIssues', args);
    const listed = result.structured.issues as Issue[];
    expect(listed.map((issue) => issue.id)).toContain(sample.id);
    for (const issue of listed) {
      expect(issue.state).toBe(sample.state);
      expect(issue.team?.id).toBe(sample.team!.id);
      for (const tag of args.tags) expect(issue.tags).toContain(tag);
    }
  });

  it('ListIssues reads a 60-day window as 30-day slices and pages through all of it exactly once', async () => {
    const start = new Date(Date.now() - 60 * DAY).toISOString();
    const end = new Date().toISOString();
    const seen: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const result = await mcp.call('IssueDesk.ListIssues', {
        start_time: start,
        end_time: end,
        ...(cursor ? { cursor } : {}),
      });
      expect(result.isError).toBe(false);
      seen.push(...(result.structured.issues as Issue[]).map((issue) => issue.id));
      cursor = (result.structured.next_cursor as string | null) ?? undefined;
      calls++;
    } while (cursor && calls < 50);
    const expected = issues
      .filter((issue) => issue.created_at >= start && issue.created_at <= end)
      .map((i) => i.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual(expected.sort());
    const windows = new Set(
      (await emulator.requests()).map(
        (r) => Date.parse(String(r.query.end_time)) - Date.parse(String(r.query.start_time)),
      ),
    );
    for (const window of windows) expect(window).toBeLessThanOrEqual(30 * DAY);
  });

  it('ListIssues refuses a cursor combined with a different window', async () => {
    const first = await mcp.call('IssueDesk.ListIssues', {
      start_time: new Date(Date.now() - 40 * DAY).toISOString(),
    });
    const cursor = first.structured.next_cursor as string;
    expect(cursor).toBeTruthy();
    await emulator.clearLog();
    const mixed = await mcp.call('IssueDesk.ListIssues', { cursor, start_time: '2026-01-01T00:00:00Z' });
    expect(mixed.isError).toBe(true);
    expect(mixed.text).toMatch(/start_time/);
    const garbage = await mcp.call('IssueDesk.ListIssues', { cursor: 'bm90LWEtY3Vyc29y' });
    expect(garbage.structured.error).toMatchObject({ kind: 'invalid_arguments' });
    expect(await emulator.requests()).toEqual([]);
  });

  it('ListIssues refuses start after end, naming the field', async () => {
    const result = await mcp.call('IssueDesk.ListIssues', {
      start_time: '2026-01-10T00:00:00Z',
      end_time: '2026-01-01T00:00:00Z',
    });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/start_time/);
    expect(await emulator.requests()).toEqual([]);
  });

  it('GetIssue by number returns the body as plain text', async () => {
    const target = issues[0]!;
    const result = await mcp.call('IssueDesk.GetIssue', { lookup_by: 'id', value: String(target.number) });
    expect(result.isError).toBe(false);
    const issue = result.structured.issue as Issue & { body: string };
    expect(issue.id).toBe(target.id);
    expect(issue.body.length).toBeGreaterThan(20);
    expect(issue.body).not.toMatch(/<\/?(p|ul|li|div)>/);
    expect((await emulator.requests()).map((r) => r.path)).toEqual([`/issues/${target.number}`]);
  });

  it('GetIssue by search acts on an exact title match', async () => {
    // Seeded titles repeat (as real ones do); give one issue a title of its own through the upstream API.
    const target = recent()[3]!;
    const title = 'Invoice PDF renders blank for Safari users';
    await patchIssue(emulator, target.id, { title });
    await emulator.clearLog();
    const result = await mcp.call('IssueDesk.GetIssue', { lookup_by: 'search', value: title.toUpperCase() });
    expect(result.structured.status).toBe('done');
    expect((result.structured.issue as Issue).id).toBe(target.id);
    expect(result.structured.match).toMatchObject({ how: 'exact' });
    const log = await emulator.requests();
    expect(log.map((r) => r.path)).toEqual(['/issues', `/issues/${target.id}`]);
  });

  it('a keyword search with one clear hit asks without auto_accept_matches and acts with it', async () => {
    const target = recent()[4]!;
    await patchIssue(emulator, target.id, { title: 'Kanban board freezes when dragging archived cards' });
    await emulator.clearLog();
    const args = { state: 'waiting_on_customer', lookup_by: 'search', value: 'kanban archived freezes' };
    const asked = await mcp.call('IssueDesk.UpdateIssueStatus', args);
    expect(asked.structured.status).toBe('needs_confirmation');
    expect((asked.structured.candidates as { id: string }[])[0]!.id).toBe(target.id);
    const acted = await mcp.call('IssueDesk.UpdateIssueStatus', { ...args, auto_accept_matches: true });
    expect(acted.structured).toMatchObject({ status: 'done', match: { how: 'auto_accepted', score: 1 } });
    expect((acted.structured.issue as Issue).id).toBe(target.id);
    const patches = (await emulator.requests()).filter((r) => r.method === 'PATCH');
    expect(patches.map((r) => r.body)).toEqual([{ state: 'waiting_on_customer' }]);
  });

  it('an uncertain search changes nothing and returns candidates with a ready next_call', async () => {
    const word = mostCommonTitleWord(recent());
    const result = await mcp.call('IssueDesk.UpdateIssueStatus', {
      state: 'on_hold',
      lookup_by: 'search',
      value: word,
    });
    expect(result.isError).toBe(false);
    expect(result.structured.status).toBe('needs_confirmation');
    const candidates = result.structured.candidates as {
      id: string;
      title: string;
      score: number;
      next_call: { tool: string; arguments: Record<string, unknown> };
    }[];
    expect(candidates.length).toBeGreaterThan(1);
    expect(candidates.length).toBeLessThanOrEqual(5);
    for (const candidate of candidates) {
      expect(candidate.score).toBeGreaterThanOrEqual(0);
      expect(candidate.score).toBeLessThanOrEqual(1);
    }
    const scores = candidates.map((c) => c.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const log = await emulator.requests();
    expect(log.some((r) => r.method === 'PATCH')).toBe(false);

    // Making the suggested call does the work.
    const next = candidates[1]!.next_call;
    expect(next.tool).toBe('IssueDesk.UpdateIssueStatus');
    expect(next.arguments).toEqual({ state: 'on_hold', lookup_by: 'id', value: candidates[1]!.id });
    const done = await mcp.call(next.tool, next.arguments);
    expect(done.structured.status).toBe('done');
    expect((done.structured.issue as Issue).state).toBe('on_hold');
    const stored = await emulator.get<Issue>(`/_emulator/state/issues/${candidates[1]!.id}`);
    expect(stored.state).toBe('on_hold');
    expect((await emulator.requests()).filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });

  it('SearchIssues ranks by keywords and honours NOT', async () => {
    const word = mostCommonTitleWord(recent());
    const result = await mcp.call('IssueDesk.SearchIssues', { query: word });
    const results = result.structured.results as (Issue & { score: number })[];
    expect(results.length).toBeGreaterThan(1);
    expect(results[0]!.score).toBe(1);
    const excluded = results[0]!.title.split(/\W+/).find((w) => w.length > 4 && w.toLowerCase() !== word)!;
    const without = await mcp.call('IssueDesk.SearchIssues', { query: `${word} NOT ${excluded}` });
    const ids = (without.structured.results as Issue[]).map((issue) => issue.id);
    expect(ids).not.toContain(results[0]!.id);
    const log = await emulator.requests();
    expect(log.every((r) => r.method === 'GET' && r.path === '/issues')).toBe(true);
  });

  it('SearchIssues rejects a query with nothing to rank', async () => {
    const result = await mcp.call('IssueDesk.SearchIssues', { query: 'NOT sso' });
    expect(result.isError).toBe(true);
    expect((result.structured.error as { kind: string }).kind).toBe('invalid_arguments');
    expect(result.text).toMatch(/query/);
  });

  it('AssignIssue assigns by issue number and exact user name', async () => {
    const target = issues[5]!;
    const user = users[2]!;
    const result = await mcp.call('IssueDesk.AssignIssue', {
      issue_lookup_by: 'id',
      issue_value: String(target.number),
      user_lookup_by: 'name',
      user_value: user.name.toUpperCase(),
    });
    expect(result.structured.status).toBe('done');
    expect(result.structured.assignee).toMatchObject({ id: user.id, name: user.name });
    const log = await emulator.requests();
    const patch = log.find((r) => r.method === 'PATCH')!;
    expect(patch.path).toBe(`/issues/${target.id}`);
    expect(patch.body).toEqual({ assignee_id: user.id });
    expect((await emulator.get<Issue>(`/_emulator/state/issues/${target.id}`)).assignee?.id).toBe(user.id);
  });

  it('AssignIssue with a fuzzy, ambiguous name asks first, and auto_accept acts on a clear typo', async () => {
    const target = issues[6]!;
    const first = users[0]!.name.split(' ')[0]!.slice(0, 2);
    const ask = await mcp.call('IssueDesk.AssignIssue', {
      issue_lookup_by: 'id',
      issue_value: target.id,
      user_lookup_by: 'name',
      user_value: first,
    });
    expect(ask.structured.status).toBe('needs_confirmation');
    expect(ask.structured.parameter).toBe('user_value');

    const user = users[3]!;
    const typo = `${user.name.slice(0, -2)}${user.name.slice(-1)}${user.name.slice(-2, -1)}`;
    const act = await mcp.call('IssueDesk.AssignIssue', {
      issue_lookup_by: 'id',
      issue_value: target.id,
      user_lookup_by: 'name',
      user_value: typo,
      auto_accept_matches: true,
    });
    expect(act.structured.status).toBe('done');
    expect((act.structured.assignee as User).id).toBe(user.id);
    expect((act.structured.matches as { user: { how: string } }).user.how).toBe('auto_accepted');
  });

  it('UpdateIssueStatus by id reports the previous state', async () => {
    const target = issues[7]!;
    const result = await mcp.call('IssueDesk.UpdateIssueStatus', {
      state: 'closed',
      lookup_by: 'id',
      value: target.id,
    });
    expect(result.structured).toMatchObject({ status: 'done', previous_state: target.state });
    expect((result.structured.issue as Issue).state).toBe('closed');
  });

  it('UpdateIssueStatus passes a custom status slug and reports the upstream refusal of an unknown one', async () => {
    const target = issues[8]!;
    const bad = await mcp.call('IssueDesk.UpdateIssueStatus', {
      state: 'no_such_status',
      lookup_by: 'id',
      value: target.id,
    });
    expect(bad.isError).toBe(true);
    expect(bad.structured.error).toMatchObject({ kind: 'invalid_request', status: 400, retryable: false });
    expect((bad.structured.error as { hint: string }).hint).toMatch(/custom status slugs must exist/);
    const invalid = await mcp.call('IssueDesk.UpdateIssueStatus', {
      state: 'Not A Slug!',
      lookup_by: 'id',
      value: target.id,
    });
    expect(invalid.isError).toBe(true);
    expect(invalid.text).toMatch(/state/);
  });

  it('AddMessage escapes plain text into an internal note', async () => {
    const target = issues[9]!;
    const result = await mcp.call('IssueDesk.AddMessage', {
      issue_id: String(target.number),
      body: 'Customer says <b>A & B</b>\n\nNext step: call',
    });
    expect(result.structured.status).toBe('done');
    const [request] = await emulator.requests();
    expect(request).toMatchObject({ method: 'POST', path: `/issues/${target.number}/note` });
    const html = (request!.body as { body_html: string }).body_html;
    expect(html).toBe('<p>Customer says &lt;b&gt;A &amp; B&lt;/b&gt;</p><p>Next step: call</p>');
    const stored = await emulator.get<{ messages: { body_html: string }[] }>(
      `/_emulator/state/issues/${target.id}`,
    );
    expect(stored.messages.map((m) => m.body_html)).toContain(html);
  });

  it('AddMessage sends HTML as is when as_html is true', async () => {
    const target = issues[9]!;
    await mcp.call('IssueDesk.AddMessage', {
      issue_id: target.id,
      body: '<p><b>Escalated</b></p>',
      as_html: true,
    });
    const [request] = await emulator.requests();
    expect((request!.body as { body_html: string }).body_html).toBe('<p><b>Escalated</b></p>');
  });

  it('ListContacts pages with the upstream cursor', async () => {
    const first = await mcp.call('IssueDesk.ListContacts');
    const listed = first.structured.contacts as Contact[];
    expect(listed.length).toBe(Math.min(100, contacts.length));
    expect(listed[0]).toHaveProperty('email');
    const log = await emulator.requests();
    expect(log.map((r) => r.path)).toEqual(['/contacts']);
  });

  it('SearchContacts finds by email through the search endpoint and by fuzzy name through the list', async () => {
    const target = contacts[4]!;
    const byEmail = await mcp.call('IssueDesk.SearchContacts', { query: target.email });
    expect((byEmail.structured.matches as Contact[])[0]!.id).toBe(target.id);
    expect(byEmail.structured.accepted).toMatchObject({ match: { how: 'exact' } });
    const search = (await emulator.requests()).find((r) => r.path === '/contacts/search')!;
    expect(search.body).toMatchObject({
      filter: { field: 'email', operator: 'string_contains', value: target.email.toLowerCase() },
    });

    const byName = await mcp.call('IssueDesk.SearchContacts', {
      query: target.name.split(' ').reverse().join(' '),
    });
    expect((byName.structured.matches as Contact[])[0]!.id).toBe(target.id);
    expect((await emulator.requests()).map((r) => r.path)).toContain('/contacts');
  });

  it('ListUsers passes limit and cursor', async () => {
    const first = await mcp.call('IssueDesk.ListUsers', { limit: 5 });
    expect((first.structured.users as User[]).length).toBe(5);
    const cursor = first.structured.next_cursor as string;
    expect(cursor).toBeTruthy();
    const second = await mcp.call('IssueDesk.ListUsers', { limit: 5, cursor });
    const ids = [...(first.structured.users as User[]), ...(second.structured.users as User[])].map(
      (u) => u.id,
    );
    expect(new Set(ids).size).toBe(10);
    const log = await emulator.requests();
    expect(log[0]?.query).toMatchObject({ limit: '5' });
    expect(log[1]?.query).toMatchObject({ limit: '5', cursor });
  });

  it('ListUsers rejects a limit out of range before calling upstream', async () => {
    const result = await mcp.call('IssueDesk.ListUsers', { limit: 0 });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/limit/);
    expect(await emulator.requests()).toEqual([]);
  });

  it('SearchUsers ranks fuzzy matches with scores', async () => {
    const user = users[1]!;
    const result = await mcp.call('IssueDesk.SearchUsers', { query: user.name.split(' ')[1]! });
    const matches = result.structured.matches as (User & { score: number })[];
    expect(matches[0]!.id).toBe(user.id);
    expect(matches[0]!.score).toBeGreaterThan(0.5);
    expect(matches[0]!.score).toBeLessThan(1);
  });

  it('ListTeams lists teams with member counts', async () => {
    const result = await mcp.call('IssueDesk.ListTeams');
    const listed = result.structured.teams as (Team & { member_count: number })[];
    expect(listed.map((t) => t.name).sort()).toEqual(teams.map((t) => t.name).sort());
    for (const team of listed) {
      expect(team.member_count).toBe(teams.find((t) => t.id === team.id)!.users.length);
    }
  });

  it('GetTeamAndAssignment finds a team by fuzzy name and names its members', async () => {
    const team = teams[1]!;
    const result = await mcp.call('IssueDesk.GetTeamAndAssignment', {
      lookup_by: 'name',
      value: team.name.toLowerCase(),
    });
    expect(result.structured.status).toBe('done');
    const got = result.structured.team as { id: string; members: { id: string; name: string }[] };
    expect(got.id).toBe(team.id);
    expect(got.members.map((m) => m.id).sort()).toEqual(team.users.map((u) => u.id).sort());
    for (const member of got.members) expect(member.name).toBe(users.find((u) => u.id === member.id)!.name);
    const log = await emulator.requests();
    expect(log.map((r) => r.path)).toContain(`/teams/${team.id}`);
  });

  it('hostile identifiers stay inside their path segment and come back as not found', async () => {
    for (const value of ['../me', 'a/b', '?x=1', '%2F', '#frag']) {
      const result = await mcp.call('IssueDesk.GetIssue', { lookup_by: 'id', value });
      expect(result.isError, value).toBe(true);
      expect(result.structured.error, value).toMatchObject({ kind: 'not_found', status: 404 });
    }
    const paths = (await emulator.requests()).map((r) => r.path);
    expect(paths).toHaveLength(5);
    for (const path of paths) expect(path).toMatch(/^\/issues\/[^/]+$/);
    const dots = await mcp.call('IssueDesk.GetIssue', { lookup_by: 'id', value: '..' });
    expect(dots.structured.error).toMatchObject({ kind: 'invalid_arguments' });
    expect(await emulator.requests()).toEqual([]);
  });

  it('calling a tool the server does not have is a protocol error', async () => {
    await expect(mcp.client.callTool({ name: 'IssueDesk.DeleteEverything', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
  });

  it('unknown parameters and wrong types are refused with the field named', async () => {
    const result = await mcp.call('IssueDesk.GetIssue', { lookupBy: 'id', value: 1 });
    expect(result.isError).toBe(true);
    const issues = (result.structured.error as { issues: { field: string }[] }).issues.map((i) => i.field);
    expect(issues).toEqual(expect.arrayContaining(['lookupBy', 'value', 'lookup_by']));
  });
});

function mostCommonTitleWord(issues: readonly Issue[]): string {
  const counts = new Map<string, number>();
  for (const issue of issues) {
    for (const word of new Set(issue.title.toLowerCase().split(/\W+/))) {
      if (word.length >= 5) counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
}

/** Test set-up through the upstream API itself, as any API user would change an issue. */
async function patchIssue(emulator: Emulator, id: string, changes: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emulator.url}/issues/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(changes),
  });
  expect(response.status).toBe(200);
}
