// MCP tasks (2025-11-25) for the store's export jobs, end to end through the official SDK v1 client's experimental
// tasks API (callToolStream, getTask, getTaskResult, listTasks, cancelTask) over stdio (the CLI as a child process)
// and Streamable HTTP, against the store emulator on a manual clock (a test finishes a job by advancing it). Held:
// the capability and the tools' execution.taskSupport; a task-augmented call returns a task that completes when
// the upstream job is done, its result being what the status tool shows; tasks/list; a plain call, and the SDK v2
// client (no task support) on 2025-11-25, get today's result; cancellation stops the polling upstream; another
// caller's task is invisible (HTTP, two principals through an auth gate of the test's own that maps two bearer
// tokens to two people, as the OAuth authorization server's gate does). 2026-07-28 has no core tasks: a client
// there that does not declare the io.modelcontextprotocol/tasks extension gets today's results (the SDK v2 client
// pinned to it); the extension itself is tested in tasks-extension.test.ts.

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
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

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

// biome-ignore lint/suspicious/noExplicitAny: results are asserted field by field, not typed.
type Structured = any;

describe('store export jobs as MCP tasks', () => {
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

  /** The SDK v1 client (2025-11-25, with the experimental tasks API). */
  async function connectV1(transport: StdioClientTransportV1 | StreamableHTTPClientTransportV1) {
    const client = new ClientV1({ name: 'tasks-e2e', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    return client;
  }

  const transports: [string, () => StdioClientTransportV1 | StreamableHTTPClientTransportV1][] = [
    [
      'stdio',
      () => {
        const transport = new StdioClientTransportV1({
          command: process.execPath,
          args: [...CLI, 'serve', 'store'],
          cwd: ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            SWITCHBOARD_LOG_LEVEL: 'warn',
            SWITCHBOARD_CREDENTIALS_FILE: join(tmpdir(), 'switchboard-e2e-no-saved-login.json'),
            ...upstream.env(),
          } as Record<string, string>,
          stderr: 'pipe',
        });
        transport.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
        return transport;
      },
    ],
    ['HTTP', () => new StreamableHTTPClientTransportV1(new URL(http.url))],
  ];

  describe.each(transports)('2025-11-25 over %s (SDK v1 client)', (_label, transport) => {
    let client: ClientV1;
    beforeAll(async () => {
      client = await connectV1(transport());
    }, 30_000);
    afterAll(async () => {
      await client?.close();
    });

    it('declares the tasks capability, and execution.taskSupport "optional" on the two job tools only', async () => {
      expect(client.getServerCapabilities()?.tasks).toEqual(TASKS_CAPABILITY);
      const { tools } = await client.listTools();
      const withTasks = tools.filter((tool) => tool.execution !== undefined).map((tool) => tool.name);
      expect(withTasks.sort()).toEqual(JOBS.map((job) => job.tool).sort());
      for (const job of JOBS) {
        expect(tools.find((tool) => tool.name === job.tool)?.execution).toEqual({ taskSupport: 'optional' });
      }
    });

    it.each(JOBS)(
      '$tool as a task completes when the job is done, with what $status shows, and is listed',
      async (job) => {
        await upstream.clearLog();
        const statuses: string[] = [];
        let taskId = '';
        let result: Structured;
        const stream = client.experimental.tasks.callToolStream(
          { name: job.tool, arguments: argumentsOf(job) },
          undefined,
          { task: { ttl: 120_000 } },
        );
        for await (const message of stream) {
          if (message.type === 'taskCreated') {
            taskId = message.task.taskId;
            statuses.push(message.task.status);
            expect(message.task.ttl).toBe(120_000);
            // The task creates the job after answering: once it has, the emulator's clock finishes the job, and
            // the task's next status request sees it done.
            const created = message.task.taskId;
            await until('the job to be created', async () =>
              /^Upstream job \w+ (created|is)/.test(
                (await client.experimental.tasks.getTask(created)).statusMessage ?? '',
              ),
            );
            clock.advance(TASK_DONE_AFTER_MS);
          } else if (message.type === 'taskStatus') statuses.push(message.task.status);
          else if (message.type === 'result') result = message.result;
          else throw message.error;
        }
        expect(statuses[0]).toBe('working');
        expect(statuses.at(-1)).toBe('completed');
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent.state).toBe('done');
        expect(result._meta?.[RELATED_TASK]).toEqual({ taskId });
        // Exactly what the status tool shows for the finished job.
        const jobId = result.structuredContent.id as string;
        const plain = await client.callTool({
          name: job.status,
          arguments: { enterprise_account_id: root, [job.idArgument]: jobId },
        });
        expect(result.content).toEqual(plain.content);
        expect(result.structuredContent).toEqual(plain.structuredContent);
        // The job was created once, then only read.
        const requests = (await upstream.requests()).map((r) => `${r.method} ${r.path}`);
        expect(requests.filter((r) => r.startsWith('POST'))).toEqual([`POST ${jobPath(job)}`]);
        expect(requests.filter((r) => !r.startsWith('POST')).length).toBeGreaterThanOrEqual(2);
        expect(new Set(requests.filter((r) => !r.startsWith('POST')))).toEqual(
          new Set([`GET ${jobPath(job)}/${jobId}`]),
        );
        const { tasks } = await client.experimental.tasks.listTasks();
        expect(tasks.find((task) => task.taskId === taskId)?.status).toBe('completed');
      },
      30_000,
    );

    it.each(JOBS)('$tool called without a task returns the pending job, as before', async (job) => {
      await upstream.clearLog();
      const result = (await client.callTool({ name: job.tool, arguments: argumentsOf(job) })) as Structured;
      expect(result.task).toBeUndefined();
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.state).toBe('pending');
      expect((await upstream.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
        `POST ${jobPath(job)}`,
      ]);
    });

    it('tasks/cancel stops the polling: no status request reaches the upstream after it', async () => {
      const job = JOBS[0];
      await upstream.clearLog();
      const { task } = await client.request(
        {
          method: 'tools/call',
          params: { name: job.tool, arguments: argumentsOf(job), task: { ttl: 60_000 } },
        },
        CreateTaskResultSchema,
      );
      // The job stays pending (the clock stands still): wait for the task's first status request.
      await until('a status request', async () =>
        (await upstream.requests()).some((r) => r.method === 'GET'),
      );
      const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
      expect(cancelled.status).toBe('cancelled');
      await upstream.clearLog();
      // The next status request was due 1.5 s after the first, and the ones after sooner than 4 s.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(await upstream.requests()).toEqual([]);
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
      const result = (await client.experimental.tasks.getTaskResult(
        task.taskId,
        CallToolResultSchema,
      )) as Structured;
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/cancelled/);
      // MCP: a terminal task cannot be cancelled again (-32602).
      await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/terminal status/);
    }, 30_000);

    it('refuses a task for a tool without taskSupport with -32601, as MCP says', async () => {
      const call = client.request(
        {
          method: 'tools/call',
          params: {
            name: JOBS[0].status,
            arguments: { enterprise_account_id: root, audit_log_task_id: 'alt00000000000000' },
            task: {},
          },
        },
        CreateTaskResultSchema,
      );
      await expect(call).rejects.toThrow(/does not run as a task/);
    });

    it('answers an unknown task id with -32602', async () => {
      await expect(client.experimental.tasks.getTask('no-such-task')).rejects.toThrow(/Task not found/);
    });
  });

  describe("2025-11-25 over HTTP with per-user OAuth: a task is its principal's only", () => {
    let gated: RunningHttpServer;
    beforeAll(async () => {
      gated = await serveForTwoPeople(toolSet(), 'tasks-e2e');
    });
    afterAll(async () => {
      await gated?.close();
    });
    const as = (token: string) =>
      connectV1(
        new StreamableHTTPClientTransportV1(new URL(gated.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );

    it('another principal cannot get, list, read or cancel it', async () => {
      const alice = await as('alice-token');
      const bob = await as('bob-token');
      try {
        const job = JOBS[1];
        const { task } = await alice.request(
          { method: 'tools/call', params: { name: job.tool, arguments: argumentsOf(job), task: {} } },
          CreateTaskResultSchema,
        );
        // No ttl asked: the cap, one hour.
        expect(task.ttl).toBe(60 * 60 * 1000);
        expect((await alice.experimental.tasks.getTask(task.taskId)).status).toBe('working');
        expect((await alice.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(
          task.taskId,
        );
        await expect(bob.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
        await expect(bob.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(
          /Task not found/,
        );
        await expect(bob.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/Task not found/);
        expect((await bob.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(
          task.taskId,
        );
        expect((await alice.experimental.tasks.cancelTask(task.taskId)).status).toBe('cancelled');
      } finally {
        await alice.close();
        await bob.close();
      }
    });
  });

  describe("2025-11-25 over HTTP, SDK v2 client (no task support): today's result", () => {
    it.each(JOBS)('$tool returns the pending job, and nothing polls it', async (job) => {
      const client = new Client({ name: 'tasks-e2e-v2', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
        await upstream.clearLog();
        const result = (await client.callTool({ name: job.tool, arguments: argumentsOf(job) })) as Structured;
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent.state).toBe('pending');
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect((await upstream.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
          `POST ${jobPath(job)}`,
        ]);
      } finally {
        await client.close();
      }
    });
  });

  // The extension itself: tasks-extension.test.ts.
  describe('2026-07-28 over HTTP (SDK v2 client, not declaring the tasks extension): no 2025 tasks', () => {
    let client: Client;
    beforeAll(async () => {
      client = new Client(
        { name: 'tasks-e2e', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    });
    afterAll(async () => {
      await client?.close();
    });

    it('advertises the tasks extension, not the 2025 capability, and nothing on the job tools', async () => {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const capabilities = client.getServerCapabilities() as Structured;
      expect(capabilities.tasks).toBeUndefined();
      expect(capabilities.extensions?.['io.modelcontextprotocol/tasks']).toEqual({});
      const { tools } = await client.listTools();
      expect(tools.filter((tool) => tool.execution !== undefined)).toEqual([]);
    });

    it.each(JOBS)('$tool with a `task` field returns the pending job, and nothing polls it', async (job) => {
      await upstream.clearLog();
      const result = (await client.callTool({
        name: job.tool,
        arguments: argumentsOf(job),
        task: { ttl: 60_000 },
      } as Parameters<Client['callTool']>[0])) as Structured;
      expect(result.task).toBeUndefined();
      expect(result.structuredContent.state).toBe('pending');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await upstream.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
        `POST ${jobPath(job)}`,
      ]);
    });

    it.each(['tasks/get', 'tasks/cancel'])(
      'answers %s from a client not declaring the extension with -32021',
      async (method) => {
        await expect(
          client.request({ method, params: { taskId: 'task-1' } }, z.looseObject({})),
        ).rejects.toMatchObject({ code: -32021 });
      },
    );
  });
});
