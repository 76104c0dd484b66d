// The CLI as users run it: sandbox over HTTP and stdio, tool selection flags, and refusing an unprotected
// non-loopback bind.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { connectCli, connectClient, spawnCli } from './harness.js';

describe('switchboard serve', () => {
  it('--sandbox over HTTP prints the URL and a client config, and the tools work against seeded data', async () => {
    const proc = spawnCli(
      ['serve', 'issuedesk', '--sandbox', '--transport', 'http', '--port', '0', '--data-dir', ':memory:'],
      {},
      /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
    );
    try {
      const [, url] = await proc.ready;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(proc.stderr()).toMatch(/"mcpServers"/);
      expect(proc.stderr()).toMatch(/issuedesk emulator: http:\/\/127\.0\.0\.1:\d+/);
      const mcp = await connectClient(new StreamableHTTPClientTransport(new URL(url!)));
      const me = await mcp.call('IssueDesk.WhoAmI');
      expect(me.isError).toBe(false);
      const search = await mcp.call('IssueDesk.SearchIssues', { query: 'login' });
      expect((search.structured.results as unknown[]).length).toBeGreaterThan(0);
      await mcp.close();
    } finally {
      await proc.stop();
    }
  });

  it('--sandbox over stdio with --read-only and underscore names', async () => {
    const mcp = await connectCli([
      'serve',
      'issuedesk',
      '--sandbox',
      '--data-dir',
      ':memory:',
      '--read-only',
      '--tool-names',
      'underscore',
    ]);
    try {
      const { tools } = await mcp.client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toContain('IssueDesk_WhoAmI');
      expect(names).not.toContain('IssueDesk_AssignIssue');
      expect(names).not.toContain('IssueDesk_AddMessage');
      for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
      const result = await mcp.call('IssueDesk_GetIssue', { lookup_by: 'search', value: 'login' });
      expect(result.structured.status).toBe('needs_confirmation');
      const next = (result.structured.candidates as { next_call: { tool: string } }[])[0]!.next_call;
      expect(next.tool).toBe('IssueDesk_GetIssue');
    } finally {
      await mcp.close();
    }
  });

  it('serve all --sandbox serves the three servers together, against seeded emulators', async () => {
    const mcp = await connectCli(['serve', 'all', '--sandbox', '--data-dir', ':memory:']);
    try {
      const { tools } = await mcp.client.listTools();
      const prefixes = new Set(tools.map((tool) => tool.name.split('.')[0]));
      expect(prefixes).toEqual(new Set(['IssueDesk', 'MessagingTrackApi', 'StoreApi']));
      expect(tools.filter((tool) => tool.name.startsWith('MessagingTrackApi.'))).toHaveLength(17);
      expect(mcp.client.getInstructions()).toContain('get_request_schema');
      const region = await mcp.call('MessagingTrackApi.GetTrackApiRegion');
      expect(region.structured.region).toBe('us');
      // Seeded manual segment 1 and seeded person user-1.
      const added = await mcp.call('MessagingTrackApi.AddPeopleToSegment', {
        mode: 'execute',
        segment_identifier: 1,
        request_body: JSON.stringify({ ids: ['user-1'] }),
      });
      expect(added.structured).toEqual({ success: true, status: 200 });
      const bases = await mcp.call('StoreApi.ListStoreBases');
      const names = (bases.structured.bases as { name: string }[]).map((base) => base.name);
      expect(names).toEqual(expect.arrayContaining(['Product Roadmap', 'Sales CRM', 'Content Calendar']));
    } finally {
      await mcp.close();
    }
  });

  it('--tools keeps only the named tools', async () => {
    const mcp = await connectCli([
      'serve',
      'issuedesk',
      '--sandbox',
      '--data-dir',
      ':memory:',
      '--tools',
      'IssueDesk.WhoAmI,ListTeams',
    ]);
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['IssueDesk.ListTeams', 'IssueDesk.WhoAmI']);
    } finally {
      await mcp.close();
    }
  });

  it('refuses an unknown tool name in --tools, suggesting the closest ones', async () => {
    const proc = spawnCli(['serve', 'issuedesk', '--tools', 'GetIsue'], {}, /never/);
    await expect(proc.ready).rejects.toThrow(
      /Unknown tool "GetIsue" in --tools\. Closest: IssueDesk\.GetIssue\b/,
    );
  });

  it('refuses to bind a non-loopback address without SWITCHBOARD_HTTP_TOKEN', async () => {
    const proc = spawnCli(
      ['serve', 'issuedesk', '--transport', 'http', '--host', '0.0.0.0', '--port', '0'],
      {},
      /never/,
    );
    await expect(proc.ready).rejects.toThrow(/Refusing to serve on 0\.0\.0\.0.*SWITCHBOARD_HTTP_TOKEN/s);
  });

  it('with SWITCHBOARD_HTTP_TOKEN, requests without the bearer token get 401', async () => {
    const proc = spawnCli(
      ['serve', 'issuedesk', '--sandbox', '--data-dir', ':memory:', '--transport', 'http', '--port', '0'],
      { SWITCHBOARD_HTTP_TOKEN: 'team-secret-123456' },
      /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
    );
    try {
      const [, url] = await proc.ready;
      const anonymous = new Client({ name: 't', version: '1' });
      await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(url!)))).rejects.toThrow();
      const mcp = await connectClient(
        new StreamableHTTPClientTransport(new URL(url!), {
          requestInit: { headers: { authorization: 'Bearer team-secret-123456' } },
        }),
      );
      expect((await mcp.client.listTools()).tools).toHaveLength(13);
      await mcp.close();
    } finally {
      await proc.stop();
    }
  });

  it('rejects requests whose Host or Origin is not local (DNS rebinding, cross-site pages)', async () => {
    const proc = spawnCli(
      ['serve', 'issuedesk', '--sandbox', '--data-dir', ':memory:', '--transport', 'http', '--port', '0'],
      {},
      /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
    );
    try {
      const [, url] = await proc.ready;
      const { request } = await import('node:http');
      const post = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const req = request(
            url!,
            { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end('{}');
        });
      expect(await post({ host: 'evil.example' })).toBe(403);
      // A page on another site calling the local server from a browser.
      expect(await post({ origin: 'https://evil.example' })).toBe(403);
    } finally {
      await proc.stop();
    }
  });
});

describe('secrets in logs', () => {
  it('debug logs of failing and succeeding calls never contain the API token', async () => {
    const { startEmulator } = await import('./harness.js');
    const emulator = await startEmulator();
    const secret = 'pylon_secret_token_for_log_test';
    const proc = spawnCli(
      ['serve', 'issuedesk', '--transport', 'http', '--port', '0'],
      { ISSUEDESK_BASE_URL: emulator.url, ISSUEDESK_API_TOKEN: secret, SWITCHBOARD_LOG_LEVEL: 'debug' },
      /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
    );
    try {
      const [, url] = await proc.ready;
      const mcp = await connectClient(new StreamableHTTPClientTransport(new URL(url!)));
      const denied = await mcp.call('IssueDesk.WhoAmI');
      expect(denied.structured.error).toMatchObject({ kind: 'unauthorized' });
      await mcp.call('IssueDesk.GetIssue', { lookup_by: 'id', value: secret });
      await mcp.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(proc.stderr()).toMatch(/upstream call failed/);
      expect(proc.stderr()).not.toContain(secret);
    } finally {
      await proc.stop();
      await emulator.close();
    }
  });
});

describe('switchboard emulate', () => {
  it('prints its base URL and the token it accepts, and serves the Pylon API with it', async () => {
    const proc = spawnCli(
      ['emulate', 'issuedesk', '--port', '0', '--token', 'my-chosen-token'],
      {},
      /^export ISSUEDESK_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)\nexport ISSUEDESK_API_TOKEN=my-chosen-token$/m,
      { stream: 'stdout' },
    );
    try {
      const [, url] = await proc.ready;
      const ok = await fetch(`${url}/me`, { headers: { authorization: 'Bearer my-chosen-token' } });
      expect(ok.status).toBe(200);
      const denied = await fetch(`${url}/me`, { headers: { authorization: 'Bearer other' } });
      expect(denied.status).toBe(401);
    } finally {
      await proc.stop();
    }
  });

  it('emulate messaging takes --site-id, --api-key and --region, and prints them', async () => {
    const proc = spawnCli(
      ['emulate', 'messaging', '--port', '0', '--site-id', 'site-7', '--api-key', 'key-7', '--region', 'eu'],
      {},
      /^export MESSAGING_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)\nexport MESSAGING_REGION=auto\nexport MESSAGING_SITE_ID=site-7\nexport MESSAGING_API_KEY=key-7$/m,
      { stream: 'stdout' },
    );
    try {
      const [, url] = await proc.ready;
      const auth = { authorization: `Basic ${Buffer.from('site-7:key-7').toString('base64')}` };
      const region = await fetch(`${url}/api/v1/accounts/region`, { headers: auth });
      expect(await region.json()).toMatchObject({ region: 'eu', url: `${url}/eu` });
      const denied = await fetch(`${url}/eu/api/v1/accounts/region`, {
        headers: { authorization: 'Basic eDp5' },
      });
      expect(denied.status).toBe(401);
    } finally {
      await proc.stop();
    }
  });

  it('emulate store takes --token, a token with every scope, and serves the Web API with it', async () => {
    const proc = spawnCli(
      ['emulate', 'store', '--port', '0', '--token', 'patChosenToken'],
      {},
      /^export STORE_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)\nexport STORE_ACCESS_TOKEN=patChosenToken$/m,
      { stream: 'stdout' },
    );
    try {
      const [, url] = await proc.ready;
      const ok = await fetch(`${url}/v0/meta/bases`, { headers: { authorization: 'Bearer patChosenToken' } });
      expect(((await ok.json()) as { bases: unknown[] }).bases.length).toBeGreaterThanOrEqual(3);
      const denied = await fetch(`${url}/v0/meta/bases`, { headers: { authorization: 'Bearer other' } });
      expect(denied.status).toBe(401);
    } finally {
      await proc.stop();
    }
  });
});
