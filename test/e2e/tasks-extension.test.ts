// The `io.modelcontextprotocol/tasks` extension (protocol revision 2026-07-28) for the store's export jobs, end to
// end over stdio (the CLI as a child process) and Streamable HTTP against the store emulator on a manual clock.
// Spoken as raw JSON-RPC (lines; POSTs with the 2026-07-28 headers MCP-Protocol-Version, Mcp-Method and Mcp-Name)
// with the per-request `_meta` envelope, because no official SDK client speaks the extension: the SDK v2 client's
// 2026 codec refuses a tools/call result with `resultType: "task"` ("Unsupported result type"), which the last
// block here holds. Held: server/discover declares
// the extension; tools/list is the same whatever the request declares; a job tool called by a request that declares
// the extension answers a task (`resultType: "task"`), and tasks/get reaches `completed` with the final result
// inlined, equal to what the status tool shows; without the declaration the call answers as before; tasks/cancel
// stops the polling upstream (the emulator's request log); tasks/* without the declaration is -32021; another caller
// (two principals through an auth gate of the test's own, as in tasks.test.ts) cannot see the task. 2025-11-25 is
// tested in tasks.test.ts.

import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/emulation/clock.js';
import type { RunningHttpServer } from '../../src/runtime/transports.js';
import { TASK_DONE_AFTER_MS } from '../../src/services/store/emulator/admin/tasks.js';
import { CLI, ROOT } from './harness.js';
import type { StoreEmulatorHandle } from './storeHarness.js';
import {
  JOBS,
  type Job,
  type JobsSandbox,
  serveForTwoPeople,
  startJobsSandbox,
  until,
} from './tasksHarness.js';

const MODERN = '2026-07-28';
const EXTENSION = 'io.modelcontextprotocol/tasks';

// biome-ignore lint/suspicious/noExplicitAny: results are asserted field by field, not typed.
type Structured = any;
interface Reply {
  result?: Structured;
  error?: { code: number; message: string; data?: Structured };
}

/** The field Streamable HTTP's Mcp-Name header mirrors, per method (SEP-2243, SEP-2663). */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

let nextId = 1;

interface RequestOptions {
  /** Declare the tasks extension in this request's client capabilities (default true). */
  extension?: boolean;
  /** HTTP only: the bearer token. */
  token?: string;
}

/** One 2026-07-28 request: the `_meta` envelope declares the tasks extension unless `extension` is false. */
function request(method: string, params: Record<string, unknown>, extension: boolean) {
  return {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'tasks-extension-e2e', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': extension ? { extensions: { [EXTENSION]: {} } } : {},
      },
    },
  };
}

/** One request as a raw POST, with the 2026-07-28 standard headers (Streamable HTTP). */
async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  { extension = true, token }: RequestOptions = {},
): Promise<Reply> {
  const field = NAME_FIELD[method];
  const name = field ? params[field] : undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(request(method, params, extension)),
  });
  const text = await response.text();
  const trimmed = text.trimStart();
  // A JSON body, or SSE frames: the response is the frame that carries an id.
  const messages: (Reply & { id?: unknown })[] = trimmed.startsWith('{')
    ? [JSON.parse(trimmed)]
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:') && line.length > 5)
        .map((line) => JSON.parse(line.slice(5)));
  const reply = messages.find((message) => message.id !== undefined);
  if (!reply) throw new Error(`no JSON-RPC response to ${method} (HTTP ${response.status}): ${text}`);
  return reply;
}

/** Sends one request and returns its response, over one transport. */
type Speak = (method: string, params?: Record<string, unknown>, options?: RequestOptions) => Promise<Reply>;

/** `serve store` as a child process (the CLI), spoken to in JSON-RPC lines. */
function stdioSpeaker(env: Record<string, string>): { speak: Speak; close(): void } {
  const child = spawn(process.execPath, [...CLI, 'serve', 'store'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      SWITCHBOARD_LOG_LEVEL: 'warn',
      SWITCHBOARD_CREDENTIALS_FILE: join(tmpdir(), 'switchboard-e2e-no-saved-login.json'),
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Shown only when a test fails (test/setup/quietOutput.ts).
  child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const waiting = new Map<unknown, (reply: Reply) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Reply & { id?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  const speak: Speak = (method, params = {}, { extension = true } = {}) => {
    const message = request(method, params, extension);
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to ${method} over stdio`)), 15_000);
      waiting.set(message.id, (reply) => {
        clearTimeout(timer);
        waiting.delete(message.id);
        resolve(reply);
      });
      child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  };
  return { speak, close: () => child.kill() };
}

describe('store export jobs as tasks through the io.modelcontextprotocol/tasks extension (2026-07-28)', () => {
  let sandbox: JobsSandbox;
  let upstream: StoreEmulatorHandle;
  let clock: ManualClock;
  let http: RunningHttpServer;
  let root: string;
  const toolSet = () => sandbox.toolSet();
  const argumentsOf = (job: Job) => sandbox.argumentsOf(job);
  const jobPath = (job: Job) => sandbox.jobPath(job);

  beforeAll(async () => {
    sandbox = await startJobsSandbox();
    ({ upstream, clock, http, root } = sandbox);
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  const upstreamLog = async () => (await upstream.requests()).map((r) => `${r.method} ${r.path}`);

  describe.each(['HTTP', 'stdio'] as const)('over %s', (transport) => {
    let speak: Speak;
    let close: () => void = () => undefined;
    beforeAll(() => {
      if (transport === 'HTTP') {
        speak = (method, params, options) => rpc(http.url, method, params, options);
      } else {
        const stdio = stdioSpeaker({ ...upstream.env() } as Record<string, string>);
        speak = stdio.speak;
        close = stdio.close;
      }
    });
    afterAll(() => close());

    it('server/discover declares the extension (and not the 2025 `tasks` capability)', async () => {
      const { result } = await speak('server/discover');
      expect(result.capabilities.extensions).toEqual({ [EXTENSION]: {} });
      expect(result.capabilities.tasks).toBeUndefined();
    });

    it('tools/list is the same whether or not the request declares the extension, with no `execution`', async () => {
      const withExtension = await speak('tools/list');
      const without = await speak('tools/list', {}, { extension: false });
      const tools = (reply: Reply) => JSON.stringify(reply.result.tools);
      expect(tools(withExtension)).toBe(tools(without));
      expect(withExtension.result.tools.filter((tool: Structured) => 'execution' in tool)).toEqual([]);
    });

    it.each(JOBS)(
      '$tool answers a task; tasks/get completes it with what $status shows',
      async (job) => {
        await upstream.clearLog();
        const created = await speak('tools/call', { name: job.tool, arguments: argumentsOf(job) });
        expect(created.error).toBeUndefined();
        const task = created.result;
        expect(task).toMatchObject({
          resultType: 'task',
          status: 'working',
          ttlMs: 60 * 60 * 1000,
          pollIntervalMs: 2_000,
        });
        expect(task.taskId).toMatch(/^[0-9a-f-]{36}$/);
        expect(task.content).toBeUndefined();
        const get = () => speak('tasks/get', { taskId: task.taskId });
        // The task creates the job after answering: once it has, the emulator's clock finishes the job, and the
        // task's next status request sees it done.
        await until('the job to be created', async () =>
          /^Upstream job \w+ (created|is)/.test((await get()).result.statusMessage ?? ''),
        );
        clock.advance(TASK_DONE_AFTER_MS);
        let final: Structured;
        await until('the task to complete', async () => {
          final = (await get()).result;
          return final.status !== 'working';
        });
        expect(final).toMatchObject({ resultType: 'complete', taskId: task.taskId, status: 'completed' });
        expect(final.ttlMs).toBe(60 * 60 * 1000);
        const result = final.result;
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent.state).toBe('done');
        // Exactly what the status tool shows for the finished job.
        const jobId = result.structuredContent.id as string;
        const plain = await speak('tools/call', {
          name: job.status,
          arguments: { enterprise_account_id: root, [job.idArgument]: jobId },
        });
        expect(plain.result.resultType).toBe('complete');
        expect(result.content).toEqual(plain.result.content);
        expect(result.structuredContent).toEqual(plain.result.structuredContent);
        // The job was created once, then only read.
        const requests = await upstreamLog();
        expect(requests.filter((r) => r.startsWith('POST'))).toEqual([`POST ${jobPath(job)}`]);
        expect(requests.filter((r) => !r.startsWith('POST')).length).toBeGreaterThanOrEqual(2);
        expect(new Set(requests.filter((r) => !r.startsWith('POST')))).toEqual(
          new Set([`GET ${jobPath(job)}/${jobId}`]),
        );
      },
      30_000,
    );

    it.each(JOBS)(
      '$tool called without the extension declared returns the pending job, and nothing polls it',
      async (job) => {
        await upstream.clearLog();
        const { result } = await speak(
          'tools/call',
          { name: job.tool, arguments: argumentsOf(job) },
          { extension: false },
        );
        expect(result.resultType).toBe('complete');
        expect(result.taskId).toBeUndefined();
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent.state).toBe('pending');
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(await upstreamLog()).toEqual([`POST ${jobPath(job)}`]);
      },
    );

    it('a job the upstream refuses completes the task with the tool error (isError), not `failed`', async () => {
      const job = JOBS[1];
      const { result: task } = await speak('tools/call', {
        name: job.tool,
        arguments: { ...argumentsOf(job), enterprise_account_id: 'entNoSuchAccount0' },
      });
      expect(task.resultType).toBe('task');
      let final: Structured;
      await until('the task to end', async () => {
        final = (await speak('tasks/get', { taskId: task.taskId })).result;
        return final.status !== 'working';
      });
      // ext-tasks: `failed` is for JSON-RPC errors only; a tool result with isError completes the task.
      expect(final.status).toBe('completed');
      expect(final.error).toBeUndefined();
      expect(final.result.isError).toBe(true);
      expect(final.result.content[0].text).toMatch(/404|not found/i);
    });

    it('a tool that does not start a job answers in place even when the request declares the extension', async () => {
      const { result } = await speak('tools/call', {
        name: JOBS[0].status,
        arguments: { enterprise_account_id: root, audit_log_task_id: 'alt00000000000000' },
      });
      expect(result.resultType).toBe('complete');
      expect(result.taskId).toBeUndefined();
      expect(Array.isArray(result.content)).toBe(true);
    });

    it('tasks/cancel stops the polling: no status request reaches the upstream after it', async () => {
      const job = JOBS[0];
      await upstream.clearLog();
      const { result: task } = await speak('tools/call', {
        name: job.tool,
        arguments: argumentsOf(job),
      });
      expect(task.resultType).toBe('task');
      // The job stays pending (the clock stands still): wait for the task's first status request.
      await until('a status request', async () =>
        (await upstream.requests()).some((r) => r.method === 'GET'),
      );
      const ack = await speak('tasks/cancel', { taskId: task.taskId });
      expect(ack.error).toBeUndefined();
      // An empty acknowledgement (the SDK stamps resultType and its serverInfo _meta).
      expect(Object.keys(ack.result).filter((key) => key !== '_meta')).toEqual(['resultType']);
      expect(ack.result.resultType).toBe('complete');
      await upstream.clearLog();
      // The next status request was due 1.5 s after the first, and the ones after sooner than 4 s.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(await upstream.requests()).toEqual([]);
      const { result: got } = await speak('tasks/get', { taskId: task.taskId });
      expect(got.status).toBe('cancelled');
      expect(got.result).toBeUndefined();
      expect(got.statusMessage).toMatch(/cancelled/);
      // Cancelling a task that has ended is acknowledged, and changes nothing.
      expect((await speak('tasks/cancel', { taskId: task.taskId })).error).toBeUndefined();
      // tasks/update: these tasks never wait for input, so there is nothing to answer; acknowledged.
      const update = await speak('tasks/update', { taskId: task.taskId, inputResponses: {} });
      expect(update.error).toBeUndefined();
      expect(update.result.resultType).toBe('complete');
    }, 30_000);

    it('answers tasks/* without the extension declared with -32021, an unknown task with -32602, 2025-only methods with -32601', async () => {
      for (const method of ['tasks/get', 'tasks/cancel']) {
        const { error } = await speak(method, { taskId: 'no-such-task' }, { extension: false });
        expect(error?.code).toBe(-32021);
        expect(error?.data).toEqual({ requiredCapabilities: { extensions: { [EXTENSION]: {} } } });
      }
      const { error } = await speak('tasks/get', { taskId: 'no-such-task' });
      expect(error?.code).toBe(-32602);
      expect(error?.message).toMatch(/Task not found/);
      // 2025-11-25's tasks/result and tasks/list are not part of the extension.
      for (const method of ['tasks/result', 'tasks/list']) {
        const { error } = await speak(method, { taskId: 'no-such-task' });
        expect(error?.code, method).toBe(-32601);
      }
    });
  });

  describe('with per-user OAuth: a task is its principal only', () => {
    let gated: RunningHttpServer;
    beforeAll(async () => {
      gated = await serveForTwoPeople(toolSet(), 'tasks-extension-e2e');
    });
    afterAll(async () => {
      await gated?.close();
    });

    it('another principal cannot get, update or cancel it', async () => {
      const job = JOBS[1];
      const alice = { token: 'alice-token' };
      const bob = { token: 'bob-token' };
      const { result: task } = await rpc(
        gated.url,
        'tools/call',
        { name: job.tool, arguments: argumentsOf(job) },
        alice,
      );
      expect(task.resultType).toBe('task');
      const taskId = task.taskId as string;
      try {
        expect((await rpc(gated.url, 'tasks/get', { taskId }, alice)).result.status).toBe('working');
        for (const [method, params] of [
          ['tasks/get', { taskId }],
          ['tasks/update', { taskId, inputResponses: {} }],
          ['tasks/cancel', { taskId }],
        ] as const) {
          const { error } = await rpc(gated.url, method, params, bob);
          expect(error?.code, method).toBe(-32602);
          expect(error?.message, method).toMatch(/Task not found/);
        }
        expect((await rpc(gated.url, 'tasks/get', { taskId }, alice)).result.status).toBe('working');
        expect((await rpc(gated.url, 'tasks/cancel', { taskId }, alice)).error).toBeUndefined();
        expect((await rpc(gated.url, 'tasks/get', { taskId }, alice)).result.status).toBe('cancelled');
      } finally {
        // Whatever failed, the task stops polling the upstream the other tests read.
        await rpc(gated.url, 'tasks/cancel', { taskId }, alice);
      }
    });
  });

  describe('the SDK v2 client pinned to 2026-07-28 (it does not speak the extension)', () => {
    const connect = async (declare: boolean) => {
      const client = new Client(
        { name: 'tasks-extension-e2e', version: '1.0.0' },
        {
          ...(declare ? { capabilities: { extensions: { [EXTENSION]: {} } } } : {}),
          versionNegotiation: { mode: { pin: MODERN } },
        },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      return client;
    };

    it('without the extension: the pending job, as before, and nothing polls it', async () => {
      const client = await connect(false);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
        expect((client.getServerCapabilities() as Structured).extensions).toEqual({ [EXTENSION]: {} });
        const job = JOBS[1];
        await upstream.clearLog();
        const result = (await client.callTool({ name: job.tool, arguments: argumentsOf(job) })) as Structured;
        expect(result.structuredContent.state).toBe('pending');
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(await upstreamLog()).toEqual([`POST ${jobPath(job)}`]);
      } finally {
        await client.close();
      }
    });

    it('declaring the extension, its codec refuses the task answer (why this file speaks raw JSON-RPC)', async () => {
      const client = await connect(true);
      try {
        const job = JOBS[0];
        await expect(client.callTool({ name: job.tool, arguments: argumentsOf(job) })).rejects.toThrow(
          /Unsupported result type 'task'/,
        );
      } finally {
        await client.close();
      }
    });
  });
});
