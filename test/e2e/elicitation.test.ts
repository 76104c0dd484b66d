// Confirmation by elicitation (runtime/confirmation.ts), end to end with the SDK's client: an uncertain IssueDesk
// lookup becomes a question whose answer completes the call, and a destructive StoreApi tool asks first, on
// 2025-11-25 (elicitation/create over stdio) and on 2026-07-28 (input_required over HTTP). Clients without the
// elicitation capability, 2025 calls over stateless HTTP, and --no-confirm-destructive keep today's behaviour.

import { Client, type ElicitResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildToolSet, type ToolSetOptions } from '../../src/runtime/toolset.js';
import { type RunningHttpServer, serveHttp } from '../../src/runtime/transports.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';
import { createStoreRuntime, storeConfigFromEnv } from '../../src/services/store/service.js';
import { cliTransport, type Emulator, startEmulator } from './harness.js';
import { type StoreEmulatorHandle, startStore } from './storeHarness.js';

const MODERN = '2026-07-28';
type Era = 'legacy' | 'modern';

interface Asked {
  message: string;
  requestedSchema: { properties: Record<string, { oneOf?: { const: string; title: string }[] }> };
}
type Answer = (asked: Asked) => ElicitResult;

interface TestClient {
  client: Client;
  /** Every question the server asked, in order. */
  asked: Asked[];
  call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; structured: Structured }>;
  close(): Promise<void>;
}
// biome-ignore lint/suspicious/noExplicitAny: results are asserted field by field, not typed.
type Structured = any;

/** An SDK client in `era`, with an elicitation handler giving `answer` when there is one, else no such capability. */
async function connectWith(
  transport: StdioClientTransport | StreamableHTTPClientTransport,
  era: Era,
  answer?: Answer,
  closeExtra?: () => Promise<void>,
): Promise<TestClient> {
  const asked: Asked[] = [];
  const client = new Client(
    { name: 'elicitation-e2e', version: '1.0.0' },
    {
      ...(answer ? { capabilities: { elicitation: { form: {} } } } : {}),
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
    },
  );
  if (answer) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as unknown as Asked;
      asked.push(params);
      return answer(params);
    });
  }
  await client.connect(transport);
  return {
    client,
    asked,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      return { isError: result.isError === true, structured: result.structuredContent ?? {} };
    },
    async close() {
      await client.close();
      await closeExtra?.();
    },
  };
}

async function httpTransport(
  runtime: Parameters<typeof buildToolSet>[0][number],
  options: ToolSetOptions = {},
  path = '',
): Promise<{ transport: StreamableHTTPClientTransport; server: RunningHttpServer }> {
  const server = await serveHttp(buildToolSet([runtime], options), { host: '127.0.0.1', port: 0 });
  return { transport: new StreamableHTTPClientTransport(new URL(`${server.url}${path}`)), server };
}

const accept = (content: Record<string, string | boolean>): ElicitResult => ({ action: 'accept', content });
/** Picks the offered candidate at `index`. */
const pickAt =
  (index: number): Answer =>
  (asked) =>
    accept({ candidate: asked.requestedSchema.properties.candidate!.oneOf![index]!.const });

interface Issue {
  id: string;
  number: number;
  title: string;
  state: string;
  created_at: string;
}

describe('IssueDesk: an uncertain lookup asks which one', () => {
  let emulator: Emulator;
  let word: string;
  const env = () => ({ ISSUEDESK_BASE_URL: emulator.url, ISSUEDESK_API_TOKEN: emulator.token });
  const stdio = (era: Era, answer?: Answer) =>
    connectWith(
      cliTransport(['serve', 'issuedesk'], { SWITCHBOARD_CLIENT_RATE_LIMITS: 'off', ...env() }),
      era,
      answer,
    );
  const http = async (era: Era, answer?: Answer) => {
    const runtime = createIssueDeskRuntime({
      baseUrl: emulator.url,
      token: () => emulator.token,
      clientRateLimits: false,
    });
    const { transport, server } = await httpTransport(runtime);
    return connectWith(transport, era, answer, () => server.close());
  };
  const update = (state: string) => ({ state, lookup_by: 'search', value: word });

  beforeAll(async () => {
    emulator = await startEmulator();
    const issues = (await emulator.get<{ items: Issue[] }>('/_emulator/state/issues?limit=10000')).items;
    word = mostCommonTitleWord(issues.filter((i) => Date.parse(i.created_at) > Date.now() - 25 * 86_400_000));
  });
  afterAll(() => emulator?.close());
  beforeEach(() => emulator.clearLog());

  const completes = (how: string, connectClient: () => Promise<TestClient>) =>
    it(`${how}: the picked candidate completes the call`, async () => {
      const mcp = await connectClient();
      try {
        const result = await mcp.call('IssueDesk.UpdateIssueStatus', update('on_hold'));
        expect(mcp.asked).toHaveLength(1);
        const offered = mcp.asked[0]!.requestedSchema.properties.candidate!.oneOf!;
        expect(offered.length).toBeGreaterThan(1);
        const picked = offered[1]!.const;
        const issue = await emulator.get<Issue>(`/_emulator/state/issues/${picked}`);
        expect(offered[1]!.title).toBe(`#${issue.number} ${issue.title}`);
        expect(mcp.asked[0]!.message).toContain(JSON.stringify(word));

        expect(result.isError).toBe(false);
        expect(result.structured).toMatchObject({ status: 'done', issue: { id: picked, state: 'on_hold' } });
        expect(issue.state).toBe('on_hold');
        const patches = (await emulator.requests()).filter((r) => r.method === 'PATCH');
        expect(patches.map((r) => r.path)).toEqual([`/issues/${picked}`]);
      } finally {
        await mcp.close();
      }
    });
  completes('2025-11-25 over stdio (elicitation/create)', () => stdio('legacy', pickAt(1)));
  completes('2026-07-28 over HTTP (input_required)', () => http('modern', pickAt(1)));

  it.each<[string, () => Promise<TestClient>]>([
    ['2025-11-25 over stdio', () => stdio('legacy', () => ({ action: 'decline' }))],
    ['2026-07-28 over HTTP', () => http('modern', () => ({ action: 'cancel' }))],
  ])('%s: declining the question changes nothing and says so', async (_how, connectClient) => {
    const mcp = await connectClient();
    try {
      const result = await mcp.call('IssueDesk.UpdateIssueStatus', update('closed'));
      expect(mcp.asked).toHaveLength(1);
      expect(result.isError).toBe(true);
      expect(result.structured.error).toMatchObject({ kind: 'declined' });
      expect(result.structured.error.message).toMatch(/declined.*nothing was done/);
      expect((await emulator.requests()).some((r) => r.method === 'PATCH')).toBe(false);
    } finally {
      await mcp.close();
    }
  });

  it.each<[string, () => Promise<TestClient>]>([
    ['2025-11-25 over stdio, no elicitation capability', () => stdio('legacy')],
    ['2026-07-28 over HTTP, no elicitation capability', () => http('modern')],
    // Stateless 2025 HTTP: the per-request server never saw initialize and cannot send a request mid-call.
    ['2025-11-25 over stateless HTTP, even with elicitation', () => http('legacy', pickAt(0))],
  ])('%s: needs_confirmation comes back unchanged', async (_how, connectClient) => {
    const mcp = await connectClient();
    try {
      const result = await mcp.call('IssueDesk.UpdateIssueStatus', update('on_hold'));
      expect(mcp.asked).toHaveLength(0);
      expect(result.isError).toBe(false);
      expect(result.structured.status).toBe('needs_confirmation');
      expect(result.structured.candidates[0].next_call.arguments).toMatchObject({ lookup_by: 'id' });
      expect((await emulator.requests()).some((r) => r.method === 'PATCH')).toBe(false);
    } finally {
      await mcp.close();
    }
  });
});

interface StoreRecord {
  id: string;
  baseId: string;
  tableId: string;
}

describe('StoreApi: a destructive tool asks first', () => {
  let upstream: StoreEmulatorHandle;
  let records: StoreRecord[];
  let next = 0;
  /** A seeded record no other test has deleted. */
  const freshRecord = () => records[next++]!;
  const stdio = (era: Era, answer?: Answer, flags: string[] = []) =>
    connectWith(
      cliTransport(['serve', 'store', ...flags], {
        SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
        ...upstream.env(),
      }),
      era,
      answer,
    );
  const http = async (era: Era, answer?: Answer, options: ToolSetOptions = {}, path = '') => {
    const runtime = createStoreRuntime(storeConfigFromEnv({ ...upstream.env() } as NodeJS.ProcessEnv));
    const { transport, server } = await httpTransport(runtime, options, path);
    return connectWith(transport, era, answer, () => server.close());
  };
  const deleteArgs = (record: StoreRecord) => ({
    store_base_id: record.baseId,
    table_identifier: record.tableId,
    record_id: record.id,
  });
  const stored = (record: StoreRecord) => upstream.stateItem<StoreRecord>('records', record.id);

  beforeAll(async () => {
    upstream = await startStore();
    records = await upstream.state<StoreRecord>('records');
  });
  afterAll(() => upstream?.close());

  it.each<[string, Era, 'stdio' | 'http']>([
    ['2025-11-25 over stdio', 'legacy', 'stdio'],
    ['2026-07-28 over HTTP', 'modern', 'http'],
  ])('%s: declining leaves the record, accepting deletes it', async (_how, era, transport) => {
    const answers: ElicitResult[] = [{ action: 'decline' }, accept({ confirm: true })];
    const answer = () => answers.shift()!;
    const mcp = transport === 'stdio' ? await stdio(era, answer) : await http(era, answer);
    try {
      const record = freshRecord();
      const declined = await mcp.call('StoreApi.DeleteStoreRecord', deleteArgs(record));
      expect(declined.isError).toBe(true);
      expect(declined.structured.error).toMatchObject({ kind: 'declined' });
      expect(mcp.asked[0]!.message).toContain('StoreApi.DeleteStoreRecord');
      expect(mcp.asked[0]!.message).toContain(record.id);
      expect(await stored(record)).toMatchObject({ id: record.id });

      const accepted = await mcp.call('StoreApi.DeleteStoreRecord', deleteArgs(record));
      expect(accepted.isError).toBe(false);
      expect(accepted.structured).toEqual({ id: record.id, deleted: true });
      expect(mcp.asked).toHaveLength(2);
      expect(await stored(record)).toBeUndefined();

      // Tools that are not destructive never ask.
      const bases = await mcp.call('StoreApi.ListStoreBases', {});
      expect(bases.isError).toBe(false);
      expect(mcp.asked).toHaveLength(2);
    } finally {
      await mcp.close();
    }
  });

  it('the discovery mode: call_tool, marked destructive for the tools behind it, does not ask before a read', async () => {
    const mcp = await http('modern', () => ({ action: 'decline' }), {}, '/discovery');
    try {
      const result = await mcp.call('call_tool', { name: 'StoreApi.ListStoreBases', arguments: {} });
      expect(result.isError).toBe(false);
      expect(result.structured.bases.length).toBeGreaterThan(0);
      expect(mcp.asked).toHaveLength(0);
    } finally {
      await mcp.close();
    }
  });

  it.each<[string, () => Promise<TestClient>]>([
    ['2025-11-25 over stdio, no elicitation capability', () => stdio('legacy')],
    ['2026-07-28 over HTTP, no elicitation capability', () => http('modern')],
    [
      '--no-confirm-destructive over stdio (2025-11-25)',
      () => stdio('legacy', () => ({ action: 'decline' }), ['--no-confirm-destructive']),
    ],
    [
      'confirmDestructive false over HTTP (2026-07-28)',
      () => http('modern', () => ({ action: 'decline' }), { confirmDestructive: false }),
    ],
  ])('%s: the destructive tool runs as it always did', async (_how, connectClient) => {
    const mcp = await connectClient();
    try {
      const record = freshRecord();
      const result = await mcp.call('StoreApi.DeleteStoreRecord', deleteArgs(record));
      expect(mcp.asked).toHaveLength(0);
      expect(result.structured).toEqual({ id: record.id, deleted: true });
      expect(await stored(record)).toBeUndefined();
    } finally {
      await mcp.close();
    }
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
