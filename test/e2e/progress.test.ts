// Progress and cancellation of calls that make many upstream requests, through the SDK client over stdio and
// Streamable HTTP on both protocol revisions: `notifications/progress` arrive, increasing, when the client gave a
// progress token and never otherwise; a cancelled call sends no further upstream request.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { type RunningHttpServer, serveHttp } from '../../src/runtime/transports.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';
import { CLI, type Emulator, ROOT, startEmulator, type Transport } from './harness.js';

const MODERN = '2026-07-28';
type Era = 'legacy' | 'modern';

/**
 * ListIssues with a filter nothing matches reads upstream pages until its window or its budget (5) ends; each page
 * is slowed by the emulator's latency fault beyond the progress throttle's interval, so every page is reported.
 */
const LIST = { name: 'IssueDesk.ListIssues', arguments: { tags: ['no-such-tag-anywhere'] } };
const PAGE_LATENCY_MS = 300;

interface Session {
  client: Client;
  /** Every `notifications/progress` the client received, whatever the SDK does with it. */
  progressMessages: unknown[];
  close(): Promise<void>;
}

let emulator: Emulator;
let http: RunningHttpServer;

beforeAll(async () => {
  // Enough issues in the default window that no page is the last one.
  emulator = await startEmulator({ scale: 3000 });
  const runtime = createIssueDeskRuntime({
    baseUrl: emulator.url,
    token: () => emulator.token,
    clientRateLimits: false,
  });
  http = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await http?.close();
  await emulator?.close();
});

afterEach(async () => {
  await emulator.clearFaults();
});

async function open(kind: Transport, era: Era, path = ''): Promise<Session> {
  const client = new Client(
    { name: 'progress-e2e', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: MODERN } } },
  );
  const transport =
    kind === 'http'
      ? new StreamableHTTPClientTransport(new URL(`${http.url}${path}`))
      : new StdioClientTransport({
          command: process.execPath,
          args: [...CLI, 'serve', 'issuedesk'],
          cwd: ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            SWITCHBOARD_LOG_LEVEL: 'warn',
            SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
            ISSUEDESK_BASE_URL: emulator.url,
            ISSUEDESK_API_TOKEN: emulator.token,
          },
          stderr: 'pipe',
        });
  if (transport instanceof StdioClientTransport) {
    transport.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  }
  await client.connect(transport);
  // Watch what arrives before the SDK's own dispatch, which drops progress for requests without a handler.
  const progressMessages: unknown[] = [];
  // Both transports deliver messages the same way; their declared `onmessage` types differ only in the extra.
  const wire = transport as unknown as { onmessage?: (message: unknown, extra?: unknown) => void };
  const dispatch = wire.onmessage;
  wire.onmessage = (message, extra) => {
    if ((message as { method?: string }).method === 'notifications/progress') progressMessages.push(message);
    dispatch?.(message, extra);
  };
  return { client, progressMessages, close: () => client.close() };
}

const cases: [Transport, Era][] = [
  ['stdio', 'legacy'],
  ['stdio', 'modern'],
  ['http', 'legacy'],
  ['http', 'modern'],
];

describe.each(cases)('progress over %s (%s era)', (kind, era) => {
  let session: Session;
  beforeAll(async () => {
    session = await open(kind, era);
  });
  afterAll(() => session?.close());

  it('reports each upstream page of a multi-page call, increasing', async () => {
    await emulator.faults([{ method: 'GET', path: '/issues', kind: 'latency', latencyMs: PAGE_LATENCY_MS }]);
    await emulator.clearLog();
    session.progressMessages.length = 0;
    const reports: { progress: number; total?: number; message?: string }[] = [];
    const result = await session.client.callTool(LIST, {
      onprogress: (update) => reports.push(update),
    });
    expect(result.isError).not.toBe(true);
    const pages = (await emulator.requests()).filter((r) => r.path === '/issues').length;
    expect(pages).toBeGreaterThanOrEqual(3);
    // One notification per page, counting pages: 1, 2, 3, ... as the wire carries them.
    const sent = session.progressMessages.map((m) => (m as { params: { progress: number } }).params.progress);
    expect(sent).toEqual(Array.from({ length: pages }, (_, i) => i + 1));
    // The SDK client hands each to `onprogress` one microtask later, while the response, read in the same chunk,
    // removes the handler at once: a last notification that arrives with the response can miss it (the client's
    // _onnotification / _onresponse). So the callbacks see the same reports, but possibly not the last.
    expect(reports.map((r) => r.progress)).toEqual(sent.slice(0, reports.length));
    expect(reports.length).toBeGreaterThanOrEqual(pages - 1);
    expect(reports[0]?.message).toMatch(/issues scanned/);
  });

  it('reports the pages of a search walk, its last report with the total', async () => {
    await emulator.faults([{ method: 'GET', path: '/issues', kind: 'latency', latencyMs: PAGE_LATENCY_MS }]);
    await emulator.clearLog();
    session.progressMessages.length = 0;
    const reports: { progress: number; total?: number }[] = [];
    const result = await session.client.callTool(
      { name: 'IssueDesk.SearchIssues', arguments: { query: 'login' } },
      { onprogress: (update) => reports.push(update) },
    );
    expect(result.isError).not.toBe(true);
    const pages = (await emulator.requests()).filter((r) => r.path === '/issues').length;
    expect(pages).toBeGreaterThanOrEqual(2);
    const sent = session.progressMessages.map(
      (m) => (m as { params: { progress: number; total?: number } }).params,
    );
    expect(sent.map((p) => p.progress)).toEqual(Array.from({ length: pages }, (_, i) => i + 1));
    expect(sent.at(-1)?.total).toBe(pages);
    // The callbacks: the same reports, but possibly not the last (see the test above).
    expect(reports.map((r) => r.progress)).toEqual(sent.slice(0, reports.length).map((p) => p.progress));
    expect(reports.length).toBeGreaterThanOrEqual(pages - 1);
  });

  it('sends no progress when the call carries no progress token', async () => {
    await emulator.faults([{ method: 'GET', path: '/issues', kind: 'latency', latencyMs: PAGE_LATENCY_MS }]);
    session.progressMessages.length = 0;
    const result = await session.client.callTool(LIST);
    expect(result.isError).not.toBe(true);
    expect(session.progressMessages).toEqual([]);
  });
});

// 2025 revisions over stateless HTTP cannot carry `notifications/cancelled` for a request (there is no session),
// and a dropped connection does not cancel there (runtime/protocol.ts toolCallSignal): no cancellation to test.
const cancellable: [Transport, Era][] = [
  ['stdio', 'legacy'],
  ['stdio', 'modern'],
  ['http', 'modern'],
];

describe.each(cancellable)('cancellation over %s (%s era)', (kind, era) => {
  let session: Session;
  beforeAll(async () => {
    session = await open(kind, era);
  });
  afterAll(() => session?.close());

  it('a call cancelled after its first page requests no further page', async () => {
    await emulator.faults([{ method: 'GET', path: '/issues', kind: 'latency', latencyMs: PAGE_LATENCY_MS }]);
    await emulator.clearLog();
    const controller = new AbortController();
    // Cancelled as soon as the first page is reported: the server is then waiting on (at most) the second.
    const call = session.client.callTool(LIST, {
      signal: controller.signal,
      onprogress: () => controller.abort(new Error('the test cancels')),
    });
    await expect(call).rejects.toThrow();
    // Long enough for the remaining pages of a call that went on (they would take 3 more page latencies).
    await new Promise((resolve) => setTimeout(resolve, PAGE_LATENCY_MS * 4));
    const pages = (await emulator.requests()).filter((r) => r.path === '/issues');
    // The first page, and the second only if its request was already under way when the cancellation came.
    expect(pages.length).toBeGreaterThanOrEqual(1);
    expect(pages.length).toBeLessThanOrEqual(2);
  });
});

describe.each(['legacy', 'modern'] as const)(
  'progress through discovery call_tool over http (%s era)',
  (era) => {
    let session: Session;
    beforeAll(async () => {
      session = await open('http', era, '/discovery');
    });
    afterAll(() => session?.close());

    it("reports the inner tool's pages as a direct call does", async () => {
      await emulator.faults([
        { method: 'GET', path: '/issues', kind: 'latency', latencyMs: PAGE_LATENCY_MS },
      ]);
      const reports: number[] = [];
      const result = await session.client.callTool(
        { name: 'call_tool', arguments: { name: LIST.name, arguments: LIST.arguments } },
        { onprogress: (update) => reports.push(update.progress) },
      );
      expect(result.isError).not.toBe(true);
      expect(reports.length).toBeGreaterThanOrEqual(3);
      expect(reports).toEqual(Array.from({ length: reports.length }, (_, i) => i + 1));
    });
  },
);

describe('HTTP answers to a 2025-era call', () => {
  const post = (meta?: Record<string, unknown>) =>
    fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { ...LIST, ...(meta ? { _meta: meta } : {}) },
      }),
    });

  it('are one JSON body without a progress token, and an SSE stream carrying progress with one', async () => {
    await emulator.faults([{ method: 'GET', path: '/issues', kind: 'latency', latencyMs: PAGE_LATENCY_MS }]);
    const plain = await post();
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await plain.json()) as { result?: unknown }).toHaveProperty('result');

    const streamed = await post({ progressToken: 'p-1' });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await streamed.text())
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)) as { method?: string; params?: Record<string, unknown> });
    const progress = frames.filter((frame) => frame.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]?.params).toMatchObject({ progressToken: 'p-1', progress: 1 });
  });
});
