// Toolsets end to end, through the SDK's client: `serve --toolsets` over stdio lists exactly the toolset; over HTTP
// `/mcp/<toolsets>` lists and calls a subset of the process's tools (the emulator's log shows the call), refuses
// a tool outside it, and answers 404 naming the toolsets for a path that serves none; every guard of `/mcp` holds
// on the sub-paths (the static bearer token through the CLI, per-user OAuth with its 401 challenge naming the
// one resource); `switchboard toolsets --json` reports every tool once, with token costs.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { type RunningHttpServer, serveHttp } from '../../src/runtime/transports.js';
import { createStoreRuntime, storeConfigFromEnv } from '../../src/services/store/service.js';
import { STORE_TOOLSETS } from '../../src/services/store/toolsets.js';
import { authHarness, jsonRpcText } from '../runtime/authHarness.js';
import { type Connected, connectCli, connectClient, spawnCli } from './harness.js';
import { type StoreEmulatorHandle, startStore } from './storeHarness.js';

const RECORDS = STORE_TOOLSETS.records.tools.map((name) => `StoreApi.${name}`);
const COMMENTS = STORE_TOOLSETS.comments.tools.map((name) => `StoreApi.${name}`);
const sorted = (names: readonly string[]) => [...names].sort();

const listNames = async (mcp: Connected) => (await mcp.client.listTools()).tools.map((tool) => tool.name);

describe('serve --toolsets over stdio', () => {
  it('lists exactly the records toolset', async () => {
    const mcp = await connectCli([
      'serve',
      'store',
      '--sandbox',
      '--data-dir',
      ':memory:',
      '--toolsets',
      'store.records',
    ]);
    try {
      const names = await listNames(mcp);
      expect(sorted(names)).toEqual(sorted(RECORDS));
      expect(names).toHaveLength(10);
    } finally {
      await mcp.close();
    }
  });
});

describe('serve --toolsets refusals', () => {
  it('an unknown toolset stops the start, naming the closest and the list', async () => {
    const proc = spawnCli(['serve', 'store', '--toolsets', 'store.recrds'], {}, /never/);
    await expect(proc.ready).rejects.toThrow(
      /switchboard: Unknown toolset "store\.recrds" in --toolsets\. Closest: store\.records\. `switchboard toolsets` lists them all\./,
    );
  });
});

describe('HTTP endpoint paths', () => {
  let upstream: StoreEmulatorHandle;
  let server: RunningHttpServer;
  let baseId: string;
  let tableName: string;

  beforeAll(async () => {
    upstream = await startStore();
    const runtime = createStoreRuntime(storeConfigFromEnv({ ...upstream.env() } as NodeJS.ProcessEnv));
    server = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 });
    const [base] = await upstream.state<{ id: string }>('bases');
    baseId = base!.id;
    const tables = (await (
      await fetch(`${upstream.url}/v0/meta/bases/${baseId}/tables`, {
        headers: { authorization: `Bearer ${upstream.token}` },
      })
    ).json()) as { tables: { name: string }[] };
    tableName = tables.tables[0]!.name;
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
  });

  const connectPath = (path: string) =>
    connectClient(new StreamableHTTPClientTransport(new URL(`${server.url}${path}`)));

  it('/mcp/store.records lists the records tools and calls one; a tool outside the subset is refused', async () => {
    const mcp = await connectPath('/store.records');
    try {
      expect(sorted(await listNames(mcp))).toEqual(sorted(RECORDS));
      await upstream.clearLog();
      const listed = await mcp.call('StoreApi.ListStoreRecords', {
        base_id: baseId,
        table_id_or_name: tableName,
        page_size: 1,
      });
      expect(listed.isError, listed.text).toBe(false);
      expect(listed.structured.records).toHaveLength(1);
      const requests = await upstream.requests();
      expect(requests.map((r) => `${r.method} ${r.path.split('?')[0]} ${r.status}`)).toEqual([
        `GET /v0/${baseId}/${encodeURIComponent(tableName)} 200`,
      ]);
      await expect(mcp.call('StoreApi.ListStoreBases')).rejects.toThrow(
        /Unknown tool "StoreApi\.ListStoreBases"/,
      );
    } finally {
      await mcp.close();
    }
  });

  it('/mcp/store.records,store.comments serves both; /mcp still serves every tool', async () => {
    const both = await connectPath('/store.comments,store.records');
    const whole = await connectPath('');
    try {
      expect(await listNames(both)).toEqual(
        (await listNames(whole)).filter((name) => RECORDS.includes(name) || COMMENTS.includes(name)),
      );
      expect(await listNames(both)).toHaveLength(14);
      expect(await listNames(whole)).toHaveLength(96);
    } finally {
      await both.close();
      await whole.close();
    }
  });

  it('/mcp/store.records/discovery: two tools that find and run the records tools only', async () => {
    const mcp = await connectPath('/store.records/discovery');
    try {
      expect(await listNames(mcp)).toEqual(['search_tools', 'call_tool']);
      const found = await mcp.call('search_tools', { query: 'list the rows of a table', limit: 20 });
      const names = (found.structured.tools as { name: string }[]).map((tool) => tool.name);
      expect(names[0]).toBe('StoreApi.ListStoreRecords');
      for (const name of names) expect(RECORDS).toContain(name);
      const listed = await mcp.call('call_tool', {
        name: 'StoreApi.ListStoreRecords',
        arguments: { base_id: baseId, table_id_or_name: tableName, page_size: 1 },
      });
      expect(listed.isError, listed.text).toBe(false);
      expect(listed.structured.records).toHaveLength(1);
      const outside = await mcp.call('call_tool', { name: 'StoreApi.ListStoreBases', arguments: {} });
      expect(outside.isError).toBe(true);
      expect(outside.text).toContain('No tool named "StoreApi.ListStoreBases" is served here.');
    } finally {
      await mcp.close();
    }
  });

  it('/mcp/discovery: the discovery mode over every tool', async () => {
    const mcp = await connectPath('/discovery');
    try {
      expect(await listNames(mcp)).toEqual(['search_tools', 'call_tool']);
      const found = await mcp.call('search_tools', { query: 'create a webhook' });
      expect((found.structured.tools as { name: string }[])[0]?.name).toBe('StoreApi.CreateStoreWebhook');
    } finally {
      await mcp.close();
    }
  });

  it('the same endpoints spelled with /mcp last (for clients that keep only such paths) serve the same sets', async () => {
    const origin = new URL(server.url).origin;
    const connectUrl = (path: string) =>
      connectClient(new StreamableHTTPClientTransport(new URL(`${origin}${path}`)));
    const cases: [string, string][] = [
      ['/store.records/mcp', '/mcp/store.records'],
      ['/store.records/discovery/mcp', '/mcp/store.records/discovery'],
      ['/discovery/mcp', '/mcp/discovery'],
    ];
    for (const [mirrored, canonical] of cases) {
      const a = await connectUrl(mirrored);
      const b = await connectUrl(canonical);
      try {
        const names = await listNames(a);
        expect(names.length, mirrored).toBeGreaterThan(0);
        expect(names, mirrored).toEqual(await listNames(b));
      } finally {
        await a.close();
        await b.close();
      }
    }
    const unknown = await fetch(`${origin}/store.recrds/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(unknown.status).toBe(404);
  });

  it('a path that serves nothing is 404, naming the toolsets', async () => {
    for (const path of [
      '/mcp/store.recrds',
      '/mcp/issuedesk.issues',
      '/mcp/',
      '/mcp/store.records/x',
      '/mcp/store.recrds/discovery',
      '/mcp/discovery/store.records',
    ]) {
      const response = await fetch(new URL(path, server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status, path).toBe(404);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(body.error).toBe('not_found');
      expect(body.error_description, path).toContain('store.records, store.comments, store.bases');
    }
  });

  it('GET / lists the toolset paths', async () => {
    const root = (await (await fetch(new URL('/', server.url))).json()) as {
      toolsets: { name: string; path: string; tools: number }[];
    };
    expect(root.toolsets[0]).toEqual({ name: 'store.records', path: '/mcp/store.records', tools: 10 });
    expect(root.toolsets.reduce((sum, toolset) => sum + toolset.tools, 0)).toBe(96);
  });
});

describe('guards on the sub-paths', () => {
  it('a bearer-protected sub-path refuses without the token and serves with it (the CLI, with its banner)', async () => {
    const proc = spawnCli(
      ['serve', 'store', '--sandbox', '--data-dir', ':memory:', '--transport', 'http', '--port', '0'],
      { SWITCHBOARD_HTTP_TOKEN: 'team-secret-123456' },
      /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)\n\s+Paths: \/mcp\/<toolset>.*\(e\.g\. \/mcp\/store\.records;.*\/mcp\/discovery or/,
    );
    try {
      const [, url] = await proc.ready;
      const subPath = new URL(`${url}/store.records`);
      for (const target of [subPath, new URL(`${url}/no-such-toolset`)]) {
        const refused = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        // Guarded before the path is looked at: an unknown path tells a stranger nothing either.
        expect(refused.status, target.pathname).toBe(401);
      }
      const anonymous = new Client({ name: 't', version: '1' });
      await expect(anonymous.connect(new StreamableHTTPClientTransport(subPath))).rejects.toThrow();
      const mcp = await connectClient(
        new StreamableHTTPClientTransport(subPath, {
          requestInit: { headers: { authorization: 'Bearer team-secret-123456' } },
        }),
      );
      expect(sorted(await listNames(mcp))).toEqual(sorted(RECORDS));
      await mcp.close();
    } finally {
      await proc.stop();
    }
  });

  it('per-user OAuth: the sub-path challenges like /mcp, and a token for the one resource works there', async () => {
    const auth = authHarness();
    const challenge = async (path: string) => {
      const response = await auth.mcpInit({}, path);
      return { status: response.status, header: response.headers.get('www-authenticate') };
    };
    const root = await challenge('/mcp');
    expect(root.status).toBe(401);
    expect(await challenge('/mcp/who')).toEqual(root);
    expect(await challenge('/mcp/nothing-here')).toEqual(root);

    const { access_token: token } = await auth.connect(await auth.registered());
    const listed = await auth.mcpInit({ authorization: `Bearer ${token}` }, '/mcp/who');
    expect(listed.status).toBe(200);
    const tools = JSON.parse(jsonRpcText(await listed.text())).result.tools as { name: string }[];
    expect(tools.map((tool) => tool.name)).toEqual(['Who.Calls']);
    const unknown = await auth.mcpInit({ authorization: `Bearer ${token}` }, '/mcp/nothing-here');
    expect(unknown.status).toBe(404);
  });
});

describe('switchboard toolsets --json', () => {
  it('reports every tool once, each toolset with its token cost, and the totals', async () => {
    const proc = spawnCli(['toolsets', '--json'], {}, /\n}\n$/, { stream: 'stdout' });
    try {
      await proc.ready;
      const report = JSON.parse(proc.stdout()) as {
        services: {
          id: string;
          tools: number;
          tokens: { tools: number; instructions: number; total: number };
          toolsets: { name: string; tools: string[]; tokens: number }[];
        }[];
        total: { tools: number; tokens: { total: number } };
      };
      expect(report.services.map((service) => service.id)).toEqual(['issuedesk', 'messaging', 'store']);
      const all = report.services.flatMap((service) => service.toolsets.flatMap((toolset) => toolset.tools));
      expect(all).toHaveLength(126);
      expect(new Set(all).size).toBe(126);
      expect(report.total.tools).toBe(126);
      const store = report.services.find((service) => service.id === 'store')!;
      expect(store.toolsets.find((toolset) => toolset.name === 'store.records')?.tools).toHaveLength(10);
      for (const service of report.services) {
        expect(service.tokens.total).toBe(service.tokens.tools + service.tokens.instructions);
        for (const toolset of service.toolsets) {
          expect(toolset.tokens, toolset.name).toBeGreaterThan(0);
          expect(toolset.tokens, toolset.name).toBeLessThan(service.tokens.tools);
        }
      }
      expect(report.total.tokens.total).toBeGreaterThan(store.tokens.total);
    } finally {
      await proc.stop();
    }
  });
});
