// The discovery mode end to end, through the SDK's client against the sandbox: `serve --sandbox --discovery` over
// stdio and over HTTP lists search_tools and call_tool only; search_tools finds the tool for a task in plain words;
// call_tool returns exactly what a direct call of the same tool returns (HTTP: `/mcp` in discovery mode against
// `/mcp/issuedesk`, the same process's full set); with --read-only, a write tool is neither found nor run, and
// nothing changes upstream. `/mcp/discovery` serves the same mode.

import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectCli, connectClient, spawnCli } from './harness.js';

interface Found {
  name: string;
  annotations?: { readOnlyHint?: boolean };
}

const SANDBOX = ['serve', 'issuedesk', '--sandbox', '--data-dir', ':memory:', '--discovery'];

const listNames = async (mcp: Connected) => (await mcp.client.listTools()).tools.map((tool) => tool.name);

async function search(mcp: Connected, query: string, limit?: number): Promise<Found[]> {
  const result = await mcp.call('search_tools', { query, ...(limit ? { limit } : {}) });
  expect(result.isError, result.text).toBe(false);
  return (result.structured as { tools: Found[] }).tools;
}

describe('serve --sandbox --discovery over stdio', () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectCli(SANDBOX);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('lists search_tools and call_tool, with instructions on using them', async () => {
    expect(await listNames(mcp)).toEqual(['search_tools', 'call_tool']);
    expect(mcp.client.getInstructions()).toMatch(/^Discovery mode: the 13 tools of IssueDesk/);
  });

  it('finds the tool for a task in plain words, and runs it through call_tool', async () => {
    const found = await search(mcp, 'close the ticket about the broken login', 3);
    expect(found.map((tool) => tool.name)).toContain('IssueDesk.UpdateIssueStatus');
    const issue = await mcp.call('call_tool', {
      name: 'IssueDesk.GetIssue',
      arguments: { lookup_by: 'id', value: '1' },
    });
    expect(issue.isError).toBe(false);
    expect(issue.structured).toHaveProperty('issue');
    // The tool's own argument errors, not call_tool's.
    const wrong = await mcp.call('call_tool', {
      name: 'IssueDesk.GetIssue',
      arguments: { lookup_by: 'nope' },
    });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toMatch(/^IssueDesk\.GetIssue failed \(invalid_arguments\)/);
  });

  it('does not take the tools directly: only the two are served', async () => {
    await expect(
      mcp.client.callTool({ name: 'IssueDesk.GetIssue', arguments: { lookup_by: 'id', value: '1' } }),
    ).rejects.toThrow(/Unknown tool/);
  });
});

describe('serve --sandbox --discovery --read-only over stdio', () => {
  it('neither finds nor runs a write tool', async () => {
    const mcp = await connectCli([...SANDBOX, '--read-only']);
    try {
      for (const tool of await search(mcp, 'close the ticket about the broken login', 20)) {
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      }
      const refused = await mcp.call('call_tool', {
        name: 'IssueDesk.UpdateIssueStatus',
        arguments: { state: 'closed', lookup_by: 'id', value: '1' },
      });
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain('No tool named "IssueDesk.UpdateIssueStatus" is served here.');
      expect(refused.text).toContain('search_tools');
      // Still open: the refused call changed nothing.
      const issue = await mcp.call('call_tool', {
        name: 'IssueDesk.GetIssue',
        arguments: { lookup_by: 'id', value: '1' },
      });
      expect((issue.structured.issue as { state: string }).state).not.toBe('closed');
    } finally {
      await mcp.close();
    }
  });
});

describe('serve --sandbox --discovery over HTTP', () => {
  let proc: ReturnType<typeof spawnCli>;
  let url: string;
  const open: Connected[] = [];
  const connectPath = async (path: string) => {
    const mcp = await connectClient(new StreamableHTTPClientTransport(new URL(`${url}${path}`)));
    open.push(mcp);
    return mcp;
  };

  beforeAll(async () => {
    // The banner says the endpoint is in discovery mode, before it names the endpoint.
    proc = spawnCli(
      [...SANDBOX, '--transport', 'http', '--port', '0'],
      {},
      /in discovery mode: search_tools finds them[\s\S]*MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+)\/mcp/,
    );
    url = (await proc.ready)[1]!;
  });
  afterAll(async () => {
    for (const mcp of open) await mcp.close();
    await proc?.stop();
  });

  it('/mcp lists the two tools; call_tool gives what a direct call on /mcp/issuedesk gives', async () => {
    const discovery = await connectPath('/mcp');
    expect(await listNames(discovery)).toEqual(['search_tools', 'call_tool']);
    const direct = await connectPath('/mcp/issuedesk');
    expect(await listNames(direct)).toContain('IssueDesk.GetIssue');
    for (const args of [
      { lookup_by: 'id', value: '2' },
      { lookup_by: 'id', value: '987654' },
      { lookup_by: 'nope' },
    ]) {
      const viaCallTool = await discovery.client.callTool({
        name: 'call_tool',
        arguments: { name: 'IssueDesk.GetIssue', arguments: args },
      });
      const directly = await direct.client.callTool({ name: 'IssueDesk.GetIssue', arguments: args });
      expect(viaCallTool).toEqual(directly);
    }
  });

  it('/mcp/discovery serves the same mode', async () => {
    const mcp = await connectPath('/mcp/discovery');
    expect(await listNames(mcp)).toEqual(['search_tools', 'call_tool']);
    const found = await search(mcp, 'who is on the billing team', 3);
    expect(found.map((tool) => tool.name)).toContain('IssueDesk.GetTeamAndAssignment');
  });
});
