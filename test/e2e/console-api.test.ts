// The sandbox console's API (src/console/, docs/console.md) against a real `serve --sandbox --transport http`:
// tool calls made by the SDK client on both protocol revisions show in the timeline feed with the upstream requests
// they caused and no credential; faults set through the console make the next call fail; the playground runs a
// tool through the MCP server path; state tables mark what changed; and the console is refused to foreign origins,
// and not served where anyone but the machine's user could reach it unprotected. The page itself is tested in a
// browser by the console's own browser tests.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleAvailability } from '../../src/console/availability.js';
import { CallFeed, type ConsoleCall } from '../../src/console/feed.js';
import { connectHttp, spawnCli, startEmulator } from './harness.js';

const MODERN = '2026-07-28';
/** The issue desk emulator's sandbox token (services/issuedesk/emulator): what must never reach the page. */
const SANDBOX_TOKEN = 'pylon_sandbox_token';
const READY =
  /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)[\s\S]*Console \(watch and steer the sandbox in a browser\): (http:\/\/127\.0\.0\.1:\d+\/)/;

function sandbox(
  extra: string[] = [],
  env: Record<string, string> = {},
  ready = READY,
  services = ['issuedesk'],
) {
  return spawnCli(
    [
      'serve',
      ...services,
      '--sandbox',
      '--transport',
      'http',
      '--port',
      '0',
      '--data-dir',
      ':memory:',
      ...extra,
    ],
    env,
    ready,
  );
}

/** The timeline feed as a page reads it: the backlog, then each call as it changes (replaced by id). */
function openFeed(consoleUrl: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const calls = new Map<string, ConsoleCall>();
  let text = '';
  let backlog = false;
  const reading = (async () => {
    const response = await fetch(`${consoleUrl}console/api/events`, {
      headers,
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += value;
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (event === 'backlog') {
          backlog = true;
          for (const call of (JSON.parse(data) as { calls: ConsoleCall[] }).calls) calls.set(call.id, call);
        } else if (event === 'call') {
          const call = JSON.parse(data) as ConsoleCall;
          calls.set(call.id, call);
        }
      }
    }
  })().catch(() => undefined);
  return {
    calls,
    text: () => text,
    hasBacklog: () => backlog,
    /** The call that matches, once it has ended and its upstream requests are in (at least `requests`). */
    async ended(match: (call: ConsoleCall) => boolean, requests = 1): Promise<ConsoleCall> {
      let found: ConsoleCall | undefined;
      await expect
        .poll(
          () => {
            found = [...calls.values()].find(
              (call) => match(call) && call.outcome !== 'running' && call.upstream.length >= requests,
            );
            return found !== undefined;
          },
          { timeout: 15_000 },
        )
        .toBe(true);
      return found as ConsoleCall;
    },
    async close() {
      controller.abort();
      await reading;
    },
  };
}

async function connect(mcpUrl: string, era: 'legacy' | 'modern', name: string): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: MODERN } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  return client;
}

/**
 * The console API of the console at `consoleUrl()` (read per request: it is known once the server has started):
 * `api` as it is, `send` a JSON body from the console's own origin, as its page does.
 */
function consoleApi(consoleUrl: () => string) {
  const api = (path: string, init: RequestInit = {}) => fetch(`${consoleUrl()}console/api${path}`, init);
  const send = (method: string, path: string, body?: unknown) =>
    api(path, {
      method,
      headers: { 'content-type': 'application/json', origin: new URL(consoleUrl()).origin },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { api, send };
}

describe('the sandbox console API', () => {
  let proc: ReturnType<typeof sandbox>;
  let mcpUrl: string;
  let consoleUrl: string;
  const { api, send } = consoleApi(() => consoleUrl);

  beforeAll(async () => {
    proc = sandbox([], {}, READY, ['issuedesk', 'store']);
    const [, mcp, page] = await proc.ready;
    mcpUrl = mcp as string;
    consoleUrl = page as string;
  });
  afterAll(async () => {
    await proc?.stop();
  });

  it('says it shows this process only, and what it serves', async () => {
    const info = (await (await api('/info')).json()) as {
      processOnly: boolean;
      note: string;
      servers: { prefix: string; service: string; toolCount: number }[];
      emulators: { service: string }[];
      feedCapacity: number;
    };
    expect(info.processOnly).toBe(true);
    expect(info.note).toMatch(/this server process only/);
    expect(info.servers).toEqual([
      expect.objectContaining({ prefix: 'IssueDesk', service: 'issuedesk', toolCount: 13 }),
      expect.objectContaining({ prefix: 'StoreApi', service: 'store', toolCount: 96 }),
    ]);
    expect(info.emulators.map((e) => e.service)).toEqual(['issuedesk', 'store']);
    expect(info.feedCapacity).toBeGreaterThan(0);
    // A browser gets the page at /; anything else keeps the server's JSON description there.
    const page = await fetch(consoleUrl, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<html');
    expect(((await (await fetch(consoleUrl)).json()) as { mcp: string }).mcp).toBe('/mcp');
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`shows an SDK client's tool call (${era === 'legacy' ? '2025-11-25' : MODERN}) with the upstream requests it caused, and no credential`, async () => {
      const feed = openFeed(consoleUrl);
      const client = await connect(mcpUrl, era, `feed-test-${era}`);
      try {
        // The token in an argument reaches the emulator in the request body: neither may show it.
        const text = `Checked with ${SANDBOX_TOKEN} (${era})`;
        const result = await client.callTool({
          name: 'IssueDesk.AddMessage',
          arguments: { issue_id: '1', body: text },
        });
        expect(result.isError).toBeFalsy();
        const call = await feed.ended(
          (c) => c.tool === 'IssueDesk.AddMessage' && JSON.stringify(c.arguments).includes(`(${era})`),
        );
        // 2026-07-28 names the client in every request; a 2025 client over stateless HTTP names itself only in
        // its initialize, another request to another server instance, so its calls have no name to show.
        expect(call.client).toBe(era === 'modern' ? `feed-test-${era}` : null);
        expect(call).toMatchObject({ service: 'IssueDesk', outcome: 'ok', errorKind: null, parentId: null });
        expect(call.durationMs).toBeGreaterThan(0);
        expect(call.arguments).toEqual({ issue_id: '1', body: `Checked with [redacted] (${era})` });
        expect(call.result).not.toBeNull();
        const post = call.upstream.find((request) => request.method === 'POST');
        expect(post).toMatchObject({
          path: expect.stringMatching(/^\/issues\/[^/]+\/note$/),
          emulator: 'issuedesk',
        });
        expect(post?.status).toBeGreaterThanOrEqual(200);
        expect(post?.status).toBeLessThan(300);
        expect(JSON.stringify(post?.body)).toContain('[redacted]');
        expect(feed.hasBacklog()).toBe(true);
        expect(feed.text()).not.toContain(SANDBOX_TOKEN);
        expect(feed.text()).not.toMatch(/Bearer\s+[^[]/);
      } finally {
        await client.close();
        await feed.close();
      }
    });
  }

  it("shows a discovery-mode call_tool with the tool it ran under it, and that tool's requests", async () => {
    const feed = openFeed(consoleUrl);
    const client = await connect(`${mcpUrl}/discovery`, 'modern', 'discovery-test');
    try {
      const result = await client.callTool({
        name: 'call_tool',
        arguments: { name: 'IssueDesk.GetIssue', arguments: { lookup_by: 'id', value: '7' } },
      });
      expect(result.isError).toBeFalsy();
      const inner = await feed.ended((c) => c.tool === 'IssueDesk.GetIssue' && c.client === 'discovery-test');
      const outer = feed.calls.get(inner.parentId ?? '');
      expect(outer).toMatchObject({ tool: 'call_tool', service: 'switchboard', parentId: null });
      expect(inner.upstream[0]).toMatchObject({ method: 'GET', path: '/issues/7', status: 200 });
    } finally {
      await client.close();
      await feed.close();
    }
  });

  it('sends a page that opens later the calls before it as its backlog', async () => {
    const feed = openFeed(consoleUrl);
    try {
      await expect.poll(() => feed.hasBacklog(), { timeout: 10_000 }).toBe(true);
      expect([...feed.calls.values()].some((call) => call.client === 'feed-test-modern')).toBe(true);
    } finally {
      await feed.close();
    }
    // Cleared, the next page starts empty.
    const cleared = (await (await send('DELETE', '/events')).json()) as { cleared: number };
    expect(cleared.cleared).toBeGreaterThan(0);
    const empty = openFeed(consoleUrl);
    try {
      await expect.poll(() => empty.hasBacklog(), { timeout: 10_000 }).toBe(true);
      expect(empty.calls.size).toBe(0);
    } finally {
      await empty.close();
    }
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`a fault set through the console makes the next call fail, marked in the feed (${era})`, async () => {
      const value = era === 'legacy' ? '2' : '6';
      const set = await send('PUT', '/emulators/issuedesk/faults', {
        rules: [{ kind: 'error', status: 403, path: '/issues/:id', times: 1 }],
      });
      expect(set.status).toBe(200);
      expect(((await set.json()) as { rules: unknown[] }).rules).toHaveLength(1);
      const feed = openFeed(consoleUrl);
      const client = await connect(mcpUrl, era, `fault-test-${era}`);
      try {
        const failed = await client.callTool({
          name: 'IssueDesk.GetIssue',
          arguments: { lookup_by: 'id', value },
        });
        expect(failed.isError).toBe(true);
        const call = await feed.ended(
          (c) => JSON.stringify(c.arguments) === JSON.stringify({ lookup_by: 'id', value }),
        );
        expect(call).toMatchObject({ outcome: 'tool_error', errorKind: 'forbidden' });
        expect(call.upstream[0]).toMatchObject({
          method: 'GET',
          path: `/issues/${value}`,
          status: 403,
          fault: 'error',
        });
        // The rule was for one request: the next call goes through.
        const again = await client.callTool({
          name: 'IssueDesk.GetIssue',
          arguments: { lookup_by: 'id', value },
        });
        expect(again.isError).toBeFalsy();
        expect(
          ((await (await api('/emulators/issuedesk/faults')).json()) as { rules: unknown[] }).rules,
        ).toEqual([]);
      } finally {
        await client.close();
        await feed.close();
      }
    });
  }

  it('marks an upstream 429 and shows the retry after it', async () => {
    await send('PUT', '/emulators/issuedesk/faults', {
      rules: [{ kind: 'rate_limit', retryAfterSeconds: 1, path: '/issues/:id', times: 1 }],
    });
    const feed = openFeed(consoleUrl);
    const client = await connect(mcpUrl, 'legacy', 'rate-limit-test');
    try {
      const result = await client.callTool({
        name: 'IssueDesk.GetIssue',
        arguments: { lookup_by: 'id', value: '3' },
      });
      expect(result.isError).toBeFalsy();
      const call = await feed.ended((c) => JSON.stringify(c.arguments).includes('"3"'), 2);
      expect(call.upstream.map((r) => [r.status, r.rateLimited, r.fault])).toEqual([
        [429, true, 'rate_limit'],
        [200, false, null],
      ]);
    } finally {
      await client.close();
      await feed.close();
    }
  });

  it('marks the time the client-side rate limiter held a request', async () => {
    const records = (await (await api('/state/store/records?limit=1')).json()) as {
      rows: { values: { id: string; baseId: string; tableId: string } }[];
    };
    const record = records.rows[0]?.values;
    expect(record).toBeDefined();
    const feed = openFeed(consoleUrl);
    const client = await connect(mcpUrl, 'modern', 'rate-wait-test');
    try {
      // Requests to one base leave 250 ms apart (the store's 5 per second): of three at once, two are held.
      const args = {
        store_base_id: record?.baseId,
        table_identifier: record?.tableId,
        record_id: record?.id,
      };
      const results = await Promise.all(
        [1, 2, 3].map(() => client.callTool({ name: 'StoreApi.StoreGetRecord', arguments: args })),
      );
      expect(results.every((result) => !result.isError)).toBe(true);
      await expect
        .poll(
          () =>
            [...feed.calls.values()].filter(
              (call) => call.client === 'rate-wait-test' && call.upstream.length === 1,
            ).length,
          { timeout: 15_000 },
        )
        .toBe(3);
      const held = [...feed.calls.values()]
        .filter((call) => call.client === 'rate-wait-test')
        .flatMap((call) => call.upstream)
        .filter((request) => (request.rateLimitWaitMs ?? 0) > 0);
      expect(held.length).toBeGreaterThanOrEqual(1);
      expect(held[0]).toMatchObject({ method: 'GET', status: 200, rateLimited: false, emulator: 'store' });
    } finally {
      await client.close();
      await feed.close();
    }
  });

  it('refuses a control body the emulator refuses, in the console error shape', async () => {
    const refused = await send('PUT', '/emulators/issuedesk/faults', { rules: [{ kind: 'latency' }] });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/latencyMs/);
    const unknown = await api('/emulators/nowhere/faults');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(/issuedesk/);
    const kinds = (await (await api('/emulators/issuedesk/fault-kinds')).json()) as {
      kinds: { kind: string }[];
    };
    expect(kinds.kinds.map((k) => k.kind)).toEqual(['latency', 'error', 'rate_limit', 'drop']);
    const limits = (await (await api('/emulators/issuedesk/rate-limits')).json()) as { enabled: boolean };
    expect(limits.enabled).toBe(false);
  });

  it('runs a tool through the MCP server as sandbox-console, and the run shows in the feed', async () => {
    const tools = (await (await api('/tools')).json()) as {
      tools: { name: string; inputSchema: { properties?: object }; schemaMode: boolean }[];
    };
    expect(tools.tools).toHaveLength(13 + 96);
    expect(
      tools.tools.find((tool) => tool.name === 'IssueDesk.GetIssue')?.inputSchema.properties,
    ).toHaveProperty('lookup_by');
    const feed = openFeed(consoleUrl);
    try {
      const response = await send('POST', '/run', {
        tool: 'IssueDesk.GetIssue',
        arguments: { lookup_by: 'id', value: '4' },
      });
      expect(response.status).toBe(200);
      const run = (await response.json()) as {
        callId: string;
        result: { isError?: boolean; structuredContent: unknown };
      };
      expect(run.result.isError).toBeFalsy();
      expect(run.result.structuredContent).toMatchObject({ issue: { number: 4 } });
      const call = await feed.ended((c) => c.id === run.callId);
      expect(call).toMatchObject({ client: 'sandbox-console', tool: 'IssueDesk.GetIssue', outcome: 'ok' });
      expect(call.upstream[0]).toMatchObject({ method: 'GET', path: '/issues/4', status: 200 });
      const bad = await send('POST', '/run', { tool: 'IssueDesk.NoSuchTool', arguments: {} });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/NoSuchTool/);
    } finally {
      await feed.close();
    }
  });

  it('marks the rows a call changed since a marker, and reseeds', async () => {
    const overview = (await (await api('/state')).json()) as {
      emulators: { service: string; collections: { name: string; count: number }[] }[];
    };
    const messages = () => overview.emulators[0]?.collections.find((c) => c.name === 'messages')?.count;
    expect(messages()).toBeGreaterThan(0);
    const { marker } = (await (await send('POST', '/state/mark')).json()) as { marker: string };
    const client = await connect(mcpUrl, 'legacy', 'state-test');
    try {
      expect(
        (
          await client.callTool({
            name: 'IssueDesk.AddMessage',
            arguments: { issue_id: '5', body: 'Marked change' },
          })
        ).isError,
      ).toBeFalsy();
    } finally {
      await client.close();
    }
    const table = (await (
      await api(`/state/issuedesk/messages?changedSince=${marker}&limit=10000`)
    ).json()) as {
      columns: string[];
      rows: { id: string; values: Record<string, unknown>; changed: boolean }[];
      marker: string;
      total: number;
    };
    const changed = table.rows.filter((row) => row.changed);
    expect(changed).toHaveLength(1);
    expect(JSON.stringify(changed[0]?.values)).toContain('Marked change');
    expect(table.columns).toContain('id');
    // The marker a read returns is "now": nothing has changed since it.
    const later = (await (
      await api(`/state/issuedesk/messages?changedSince=${table.marker}&limit=10000`)
    ).json()) as {
      rows: { changed: boolean }[];
    };
    expect(later.rows.some((row) => row.changed)).toBe(false);
    const stale = await api('/state/issuedesk/messages?changedSince=not-a-marker');
    expect(stale.status).toBe(400);
    // Reseeding drops what the agent added.
    const reset = await send('POST', '/emulators/issuedesk/reset', {});
    expect(reset.status).toBe(200);
    const after = (await (await api('/state')).json()) as typeof overview;
    expect(after.emulators[0]?.collections.find((c) => c.name === 'messages')?.count).toBeLessThan(
      table.total,
    );
  });

  it('runs a schema-mode tool in both modes, and the record it created is marked in the state tables', async () => {
    type Run = { callId: string; result: { isError?: boolean; structuredContent: Record<string, unknown> } };
    const tools = (await (await api('/tools')).json()) as { tools: { name: string; schemaMode: boolean }[] };
    const schemaMode = (name: string) => tools.tools.find((tool) => tool.name === name)?.schemaMode;
    expect(schemaMode('StoreApi.CreateStoreRecords')).toBe(true);
    expect(schemaMode('IssueDesk.GetIssue')).toBe(false);
    const tables = (await (await api('/state/store/tables')).json()) as {
      rows: { values: { id: string; baseId: string; name: string } }[];
    };
    const teams = tables.rows.find((row) => row.values.name === 'Teams')?.values;
    expect(teams).toBeDefined();
    const { marker } = (await (await send('POST', '/state/mark')).json()) as { marker: string };
    const target = { base_id: teams?.baseId, table_id_or_name: teams?.id };
    const feed = openFeed(consoleUrl);
    try {
      const schema = (await (
        await send('POST', '/run', {
          tool: 'StoreApi.CreateStoreRecords',
          arguments: { ...target, mode: 'get_request_schema' },
        })
      ).json()) as Run;
      expect(schema.result.isError).toBeFalsy();
      expect(JSON.stringify(schema.result.structuredContent)).toContain('records');
      const created = (await (
        await send('POST', '/run', {
          tool: 'StoreApi.CreateStoreRecords',
          arguments: {
            ...target,
            mode: 'execute',
            request_body: JSON.stringify({ records: [{ fields: { Name: 'Console team' } }] }),
          },
        })
      ).json()) as Run;
      expect(created.result.isError).toBeFalsy();
      const call = await feed.ended((c) => c.id === created.callId);
      expect(call.upstream[0]).toMatchObject({
        method: 'POST',
        path: `/v0/${teams?.baseId}/${teams?.id}`,
        status: 200,
        emulator: 'store',
        body: { records: [{ fields: { Name: 'Console team' } }] },
      });
      // Schema mode asks nothing of the upstream: its call is in the feed with no request under it.
      await expect.poll(() => feed.calls.get(schema.callId)?.outcome).toBe('ok');
      expect(feed.calls.get(schema.callId)?.upstream).toEqual([]);
    } finally {
      await feed.close();
    }
    const records = (await (await api(`/state/store/records?changedSince=${marker}&limit=10000`)).json()) as {
      rows: { values: { fields?: { Name?: string } }; changed: boolean }[];
    };
    expect(records.rows.filter((row) => row.changed).map((row) => row.values.fields?.Name)).toEqual([
      'Console team',
    ]);
  });

  it('refuses a foreign Origin like /mcp does', async () => {
    const evil = { origin: 'http://evil.example' };
    expect((await api('/info', { headers: evil })).status).toBe(403);
    const fault = await api('/emulators/issuedesk/faults', {
      method: 'PUT',
      headers: { ...evil, 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ kind: 'drop' }] }),
    });
    expect(fault.status).toBe(403);
    expect(((await (await api('/emulators/issuedesk/faults')).json()) as { rules: unknown[] }).rules).toEqual(
      [],
    );
    expect((await fetch(consoleUrl, { headers: { ...evil, accept: 'text/html' } })).status).toBe(403);
    expect((await fetch(`${consoleUrl}console/api/events`, { headers: evil })).status).toBe(403);
  });
});

describe('where the console is served', () => {
  it('is not served unprotected where others reach the server (behind a proxy), and the banner says why', async () => {
    const proc = sandbox(
      ['--trust-proxy'],
      {},
      /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)[\s\S]*Console: not served: (.*)/,
    );
    try {
      const [, mcp, reason] = await proc.ready;
      expect(reason).toMatch(/proxy/);
      const origin = new URL(mcp as string).origin;
      expect((await fetch(`${origin}/console/api/info`)).status).toBe(404);
      const root = await fetch(`${origin}/`, { headers: { accept: 'text/html' } });
      expect(root.headers.get('content-type')).toContain('application/json');
    } finally {
      await proc.stop();
    }
  });

  it('a non-loopback address without protection gets no console; with the bearer token of /mcp it does', () => {
    const base = { sandbox: true, transport: 'http' as const };
    expect(consoleAvailability({ ...base, host: '0.0.0.0', protection: 'none' })).toMatchObject({
      served: false,
      reason: expect.stringMatching(/0\.0\.0\.0/),
    });
    expect(consoleAvailability({ ...base, host: '0.0.0.0', protection: 'bearer' })).toEqual({ served: true });
    expect(consoleAvailability({ ...base, host: '127.0.0.1', protection: 'none' })).toEqual({ served: true });
    expect(
      consoleAvailability({ ...base, sandbox: false, host: '127.0.0.1', protection: 'none' }).served,
    ).toBe(false);
  });

  it('behind the bearer token of /mcp, the API needs it too', async () => {
    const token = 'console-test-bearer-token';
    const proc = sandbox([], { SWITCHBOARD_HTTP_TOKEN: token });
    try {
      const [, , page] = await proc.ready;
      expect((await fetch(`${page}console/api/info`)).status).toBe(401);
      const allowed = await fetch(`${page}console/api/info`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(allowed.status).toBe(200);
      // The page's own code carries no data: the Host and Origin checks are its guard.
      expect((await fetch(page as string, { headers: { accept: 'text/html' } })).status).toBe(200);
      // A page left open does not hold up a graceful stop: its event stream is ended first.
      const feed = openFeed(page as string, { authorization: `Bearer ${token}` });
      await expect.poll(() => feed.hasBacklog(), { timeout: 10_000 }).toBe(true);
      await proc.stop();
      expect(proc.stderr()).not.toMatch(/still in flight/);
      await feed.close();
    } finally {
      await proc.stop();
    }
  });
});

describe('the call id header', () => {
  it('goes only to the emulators a console watches, and only while it listens', async () => {
    const watched = await startEmulator();
    const other = await startEmulator();
    const toWatched = await connectHttp({
      ISSUEDESK_BASE_URL: watched.url,
      ISSUEDESK_API_TOKEN: watched.token,
    });
    const toOther = await connectHttp({ ISSUEDESK_BASE_URL: other.url, ISSUEDESK_API_TOKEN: other.token });
    const feed = new CallFeed([{ service: 'issuedesk', url: watched.url }]);
    type Logged = { callId?: string };
    try {
      feed.start();
      await toWatched.call('IssueDesk.GetIssue', { lookup_by: 'id', value: '1' });
      await toOther.call('IssueDesk.GetIssue', { lookup_by: 'id', value: '1' });
      const [call] = feed.backlog();
      expect(((await watched.requests()) as Logged[]).map((entry) => entry.callId)).toEqual([call?.id]);
      expect(((await other.requests()) as Logged[]).map((entry) => entry.callId)).toEqual([undefined]);
      feed.close();
      await toWatched.call('IssueDesk.GetIssue', { lookup_by: 'id', value: '1' });
      expect(((await watched.requests()) as Logged[]).map((entry) => entry.callId)).toEqual([undefined]);
      // Only a call id as Switchboard makes them is kept.
      await fetch(`${watched.url}/issues/1`, {
        headers: { authorization: `Bearer ${watched.token}`, 'x-switchboard-call-id': 'not <a> call id' },
      });
      expect(((await watched.requests()) as Logged[]).map((entry) => entry.callId)).toEqual([undefined]);
    } finally {
      feed.close();
      await toWatched.close();
      await toOther.close();
      await watched.close();
      await other.close();
    }
  });
});

describe("the store's per-base rate limit through the console", () => {
  // A process of its own: the agent's client holds a base for the upstream's 30-second penalty after a 429.
  let proc: ReturnType<typeof sandbox>;
  let mcpUrl: string;
  let consoleUrl: string;
  let storeUrl: string;
  const { api, send } = consoleApi(() => consoleUrl);
  /** What the store emulator's own control endpoint reports. */
  const emulatorSays = async () =>
    (await (await fetch(`${storeUrl}/_emulator/base-rate-limit`)).json()) as {
      enabled: boolean;
      perSecond: number;
      penaltyMs: number;
      penalized: { baseId: string }[];
    };

  beforeAll(async () => {
    proc = sandbox([], {}, READY, ['issuedesk', 'store']);
    const [, mcp, page] = await proc.ready;
    mcpUrl = mcp as string;
    consoleUrl = page as string;
    const info = (await (await api('/info')).json()) as { emulators: { service: string; url: string }[] };
    storeUrl = info.emulators.find((emulator) => emulator.service === 'store')?.url as string;
  });
  afterAll(async () => {
    await proc?.stop();
  });

  it('reads it with what the upstream enforces, and refuses what the emulator refuses', async () => {
    const limits = (await (await api('/emulators/store/upstream-limits')).json()) as {
      limits: { name: string; upstream: string; fields: { name: string }[]; settings: unknown }[];
    };
    expect(limits.limits).toHaveLength(1);
    expect(limits.limits[0]).toMatchObject({
      name: 'base-rate-limit',
      upstream: expect.stringContaining('per base: 5 requests per second, as the upstream enforces'),
      settings: { enabled: true, perSecond: 5, penaltyMs: 30_000, penalized: [] },
    });
    expect(limits.limits[0]?.fields.map((field) => field.name)).toEqual([
      'enabled',
      'perSecond',
      'penaltyMs',
    ]);
    // The issue desk's upstream has no limit of its own beyond the shared per-route ones.
    expect(await (await api('/emulators/issuedesk/upstream-limits')).json()).toEqual({ limits: [] });
    const none = await send('PUT', '/emulators/issuedesk/upstream-limits/base-rate-limit', { perSecond: 2 });
    expect(none.status).toBe(404);
    const unknown = await send('PUT', '/emulators/store/upstream-limits/per-table', { perSecond: 2 });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(
      /base-rate-limit/,
    );
    const refused = await send('PUT', '/emulators/store/upstream-limits/base-rate-limit', { perSecond: 0 });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/perSecond/);
    expect((await emulatorSays()).perSecond).toBe(5);
  });

  it("set through the console, the emulator enforces it: an agent's burst on one base gets its 429, marked in the feed", async () => {
    const set = await send('PUT', '/emulators/store/upstream-limits/base-rate-limit', {
      enabled: true,
      perSecond: 1,
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ enabled: true, perSecond: 1, penaltyMs: 30_000 });
    expect(await emulatorSays()).toMatchObject({ enabled: true, perSecond: 1 });

    const records = (await (await api('/state/store/records?limit=10000')).json()) as {
      rows: { values: { id: string; baseId: string; tableId: string } }[];
    };
    // One record on each of two bases: one per protocol revision (the client then holds that base).
    const onBases = new Map<string, { id: string; baseId: string; tableId: string }>();
    for (const row of records.rows)
      if (!onBases.has(row.values.baseId)) onBases.set(row.values.baseId, row.values);
    const targets = [...onBases.values()];
    expect(targets.length).toBeGreaterThanOrEqual(2);

    for (const [index, era] of (['legacy', 'modern'] as const).entries()) {
      const record = targets[index] as { id: string; baseId: string; tableId: string };
      const name = `base-burst-${era}`;
      const feed = openFeed(consoleUrl);
      const client = await connect(mcpUrl, era, name);
      try {
        // The client spaces requests to a base 250 ms apart (the upstream's 5 per second): the second is over 1.
        const args = { store_base_id: record.baseId, table_identifier: record.tableId, record_id: record.id };
        const results = await Promise.all(
          [1, 2].map(() => client.callTool({ name: 'StoreApi.StoreGetRecord', arguments: args })),
        );
        expect(results.filter((result) => result.isError)).toHaveLength(1);
        // The 429 is the emulator's own per-base limit, not a fault rule.
        const limited = await feed.ended((call) =>
          call.upstream.some((r) => r.status === 429 && r.path.startsWith(`/v0/${record.baseId}/`)),
        );
        expect(limited.client).toBe(era === 'modern' ? name : null);
        expect(limited.upstream.find((r) => r.status === 429)).toMatchObject({
          method: 'GET',
          path: `/v0/${record.baseId}/${record.tableId}/${record.id}`,
          rateLimited: true,
          fault: null,
          emulator: 'store',
        });
        expect(limited.outcome).toBe('tool_error');
        expect((await emulatorSays()).penalized.map((entry) => entry.baseId)).toContain(record.baseId);
      } finally {
        await client.close();
        await feed.close();
      }
    }

    // Clearing through the console ends the penalties and keeps the settings.
    const cleared = await send('DELETE', '/emulators/store/upstream-limits/base-rate-limit');
    expect(await cleared.json()).toMatchObject({ perSecond: 1, penalized: [] });
    expect(await emulatorSays()).toMatchObject({ perSecond: 1, penalized: [] });
  });
});
