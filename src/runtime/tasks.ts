// MCP tasks for the tools that start an upstream job (ToolDefinition.job): such a tools/call creates the job once,
// answers at once with a task, and this process follows the job with the service's status tool until it ends.
// Two wire forms over one task store: protocol revision 2025-11-25's experimental core tasks (the client asks with
// `task`; tasks/get, tasks/result, tasks/list, tasks/cancel), and on 2026-07-28 the `io.modelcontextprotocol/tasks`
// extension (SEP-2663: the server answers `resultType: "task"` to a client that declared the extension on that
// request; tasks/get carries the final result, tasks/update, tasks/cancel). The SDK (2.4.0) has the vocabulary and
// lets tasks/get and tasks/cancel be registered for the extension (custom-schema handlers), but no task runtime,
// so the runtime is here, on the SDK's own request handlers (docs/tasks.md).

import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  isTaskAugmentedRequestParams,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Result,
  type ServerContext,
  type Task,
  type Tool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { log } from './log.js';
import type { ProtocolServer } from './protocol.js';
import type { Principal } from './tool.js';
import type { PreparedTool, ToolSet } from './toolset.js';

/** The longest a task and its result are kept (the client's `ttl` is capped to it; also the default). */
export const MAX_TASK_TTL_MS = 60 * 60 * 1000;
/** The shortest: a smaller `ttl` could drop the result before the client asks for it. */
export const MIN_TASK_TTL_MS = 60 * 1000;
/** How often clients are asked to poll tasks/get (answered from memory: cheap). */
export const TASK_POLL_INTERVAL_MS = 2_000;
/** Tasks one caller may hold at a time (any status, until their TTL ends): tasks/list is then one page. */
export const MAX_TASKS_PER_CALLER = 100;
/** The first status request goes out this long after the job was created, then ×1.5 up to JOB_CHECK_MAX_MS. */
const JOB_CHECK_FIRST_MS = 1_000;
const JOB_CHECK_MAX_MS = 30_000;
const JOB_CHECK_GROWTH = 1.5;

/** The extension that carries tasks on 2026-07-28 (modelcontextprotocol/ext-tasks). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The `tasks` server capability (2025-11-25) when `toolSet` has a tool that runs as a task; {} otherwise. */
export function taskCapabilities(toolSet: ToolSet): { tasks?: Record<string, unknown> } {
  return jobToolsOf(toolSet).size === 0
    ? {}
    : { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
}

/**
 * tools/list's entries with `execution.taskSupport: "optional"` on the tools that run as tasks: the same list for
 * every connection of a revision (the 2026-07-28 codec drops `execution`). Worked out once per tool set.
 */
export function listedTools(toolSet: ToolSet): readonly Tool[] {
  const known = listed.get(toolSet);
  if (known) return known;
  const jobs = jobToolsOf(toolSet);
  const entries =
    jobs.size === 0
      ? toolSet.listEntries
      : toolSet.listEntries.map((entry) =>
          jobs.has(entry.name) ? { ...entry, execution: { taskSupport: 'optional' as const } } : entry,
        );
  listed.set(toolSet, entries);
  return entries;
}

const listed = new WeakMap<ToolSet, readonly Tool[]>();

interface JobTool {
  create: PreparedTool;
  status: PreparedTool;
}

const jobTools = new WeakMap<ToolSet, ReadonlyMap<string, JobTool>>();

/** The set's tools that start a job whose status tool is served beside them (only then can a task follow it). */
function jobToolsOf(toolSet: ToolSet): ReadonlyMap<string, JobTool> {
  const known = jobTools.get(toolSet);
  if (known) return known;
  const found = new Map<string, JobTool>();
  for (const create of toolSet.tools) {
    const job = create.definition.job;
    // A destructive tool asks the user first where it can (confirmation.ts), which a task's call cannot.
    if (!job || create.definition.hints.destructiveHint) continue;
    const prefix = create.specName.slice(0, create.specName.indexOf('.'));
    const status = toolSet.tools.find((tool) => tool.specName === `${prefix}.${job.statusTool}`);
    if (status) found.set(create.name, { create, status });
  }
  jobTools.set(toolSet, found);
  return found;
}

/** One tool call as the MCP server runs it (mcpServer.ts runToolCall), with the task's signal. */
export type RunTool = (tool: PreparedTool, args: unknown, signal: AbortSignal) => Promise<CallToolResult>;

export interface TaskServing {
  /** The protocol era of this server instance: tasks exist on 2025 revisions only. */
  era?: 'legacy' | 'modern';
  /** The verified caller (per-user OAuth): tasks are theirs alone. */
  principal?: Principal;
  run: RunTool;
}

/**
 * Serves tasks on `server` for the job tools of `toolSet`: the task-creating tools/call (through ProtocolServer's
 * taskCall hook) and the tasks/* methods, in the wire form of the request's revision. tasks/result and tasks/list
 * (2025-11-25 only) are registered in the SDK's spec-method form, so it parses them with its 2025-11-25 schemas and
 * answers "Method not found" on 2026-07-28. tasks/get and tasks/cancel exist on both revisions, and the SDK serves
 * them on 2026-07-28 only when registered with a params schema (its extension form), so they are.
 */
export function serveTasks(server: ProtocolServer, toolSet: ToolSet, serving: TaskServing): void {
  const jobs = jobToolsOf(toolSet);
  if (jobs.size === 0) return;
  // The extension, declared as the SDK declares its own (skills): in `extensions`, which the SDK sends on every
  // revision. Not on an instance that serves only 2025 revisions (HTTP's legacy era), which has no such extension;
  // stdio's one instance serves whichever revision the client speaks, so it declares it (2025 clients ignore it).
  if (serving.era !== 'legacy') server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  const modern = () =>
    serving.era === 'modern' || (server.getNegotiatedProtocolVersion() ?? '') >= '2026-07-28';
  const owner = (ctx: ServerContext) => ownerOf(serving.principal, ctx);
  const follow =
    (jobTool: JobTool, args: Record<string, unknown> | undefined) =>
    (signal: AbortSignal, progress: Progress) =>
      followJob(jobTool, args ?? {}, serving.run, signal, progress);
  server.taskCall = async (request, ctx) => {
    // The params passed checkParams (protocol.ts) as a CallToolRequest: a name, and arguments if any.
    const { name, arguments: args } = request.params as { name: string; arguments?: Record<string, unknown> };
    if (modern()) {
      // The extension: the server decides, but MUST NOT answer a task to a request that did not declare it.
      const jobTool = jobs.get(name);
      if (!jobTool || !declaresExtension(ctx)) return undefined;
      const task = TASKS.start(owner(ctx), MAX_TASK_TTL_MS, follow(jobTool, args));
      log('info', 'task created', { taskId: task.taskId, tool: name });
      return { resultType: 'task', ...extensionTask({ task }) };
    }
    const params = request.params;
    // 2025-11-25: a call without `task` is served as before.
    if (!isTaskAugmentedRequestParams(params) || params.task === undefined) return undefined;
    const jobTool = jobs.get(name);
    if (!jobTool) {
      // MCP 2025-11-25, tool-level negotiation: a task for a tool without taskSupport is "Method not found".
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `${name} does not run as a task (no execution.taskSupport in tools/list): call it without "task".`,
      );
    }
    const task = TASKS.start(owner(ctx), ttlOf(params.task.ttl), follow(jobTool, args));
    log('info', 'task created', { taskId: task.taskId, tool: name });
    return { task };
  };
  const handle = server.setRequestHandler.bind(server) as unknown as (
    method: string,
    handler: (request: { params?: Record<string, unknown> }, ctx: ServerContext) => Promise<Result>,
  ) => void;
  const handleWithParams = server.setRequestHandler.bind(server) as unknown as <T>(
    method: string,
    schemas: { params: z.ZodType<T> },
    handler: (params: T, ctx: ServerContext) => Promise<Result>,
  ) => void;
  /** The extension's tasks/* requests: -32021 unless this request declared it (ext-tasks, Protocol Errors). */
  const requireExtension = (ctx: ServerContext) => {
    if (!declaresExtension(ctx)) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `Missing required client capability: declare the ${TASKS_EXTENSION} extension in this request's _meta["${CLIENT_CAPABILITIES_META_KEY}"].extensions.`,
      );
    }
  };
  handleWithParams('tasks/get', { params: TASK_ID_PARAMS }, async ({ taskId }, ctx) => {
    if (!modern()) return { ...TASKS.find(owner(ctx), taskId).task };
    requireExtension(ctx);
    return extensionTask(TASKS.find(owner(ctx), taskId), true);
  });
  handleWithParams('tasks/cancel', { params: TASK_ID_PARAMS }, async ({ taskId }, ctx) => {
    if (!modern()) return { ...TASKS.cancel(owner(ctx), taskId) };
    requireExtension(ctx);
    // ext-tasks: an empty acknowledgement; a task that has already ended stays as it ended.
    if (TASKS.find(owner(ctx), taskId).task.status === 'working') TASKS.cancel(owner(ctx), taskId);
    return {};
  });
  // `inputResponses` is not in the params schema: the SDK lifts it out of the params (ctx.mcpReq.inputResponses).
  handleWithParams('tasks/update', { params: TASK_ID_PARAMS }, async ({ taskId }, ctx) => {
    if (!modern()) {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `Method not found: tasks/update belongs to the ${TASKS_EXTENSION} extension of protocol revision 2026-07-28.`,
      );
    }
    requireExtension(ctx);
    // These tasks never ask for input (never input_required), so no response is outstanding: ext-tasks says to
    // ignore responses to keys not outstanding, and to acknowledge.
    TASKS.find(owner(ctx), taskId);
    return {};
  });
  handle('tasks/result', async (request, ctx) => {
    const taskId = String(request.params?.taskId);
    const result = await TASKS.result(owner(ctx), taskId, ctx.mcpReq.signal);
    // MCP: tasks/result carries the related-task metadata, since a CallToolResult names no task.
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  });
  handle('tasks/list', async (request, ctx) => {
    const cursor = request.params?.cursor;
    if (cursor !== undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid params for tasks/list: cursor ${JSON.stringify(cursor)} was not issued by this server; tasks/list returns all your tasks in one page, so call it without a cursor.`,
      );
    }
    return { tasks: TASKS.list(owner(ctx)) };
  });
}

const TASK_ID_PARAMS = z.looseObject({ taskId: z.string() });

/** Whether this 2026-07-28 request declared the tasks extension in its per-request client capabilities. */
function declaresExtension(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: unknown } | undefined;
  const extensions = capabilities?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

/**
 * A task in the extension's wire form (`ttlMs`, `pollIntervalMs`); with `detailed`, tasks/get's DetailedTask: the
 * final result inlined when completed, the JSON-RPC error when failed. The extension keeps `failed` for JSON-RPC
 * errors only: a tool result, `isError` or not, completes the task (2025-11-25 called an `isError` result failed).
 */
function extensionTask(entry: Pick<TaskEntry, 'task' | 'outcome'>, detailed = false): Result {
  const { ttl, pollInterval, status, ...rest } = entry.task;
  const wire: Result = {
    ...rest,
    status,
    ttlMs: ttl,
    ...(pollInterval === undefined ? {} : { pollIntervalMs: pollInterval }),
  };
  const outcome = entry.outcome;
  if (!detailed || !outcome || status === 'cancelled' || status === 'working') return wire;
  if (outcome.error) {
    // ext-tasks: a failed task SHOULD say why in its statusMessage.
    return { ...wire, status: 'failed', statusMessage: outcome.error.message, error: outcome.error };
  }
  return { ...wire, status: 'completed', result: outcome.result };
}

/**
 * Whose a task is. MCP: where there is an authorization context, tasks are bound to it: over HTTP with per-user
 * OAuth the person. Otherwise the session where there is one; else the process (stdio serves one client; HTTP
 * without per-user OAuth serves everyone with the server's own credentials, so nobody's tasks are anybody else's
 * secret, and task ids are random UUIDs).
 */
function ownerOf(principal: Principal | undefined, ctx: ServerContext): string {
  if (principal) return `principal:${principal.subject}`;
  if (ctx.sessionId) return `session:${ctx.sessionId}`;
  return 'process';
}

function ttlOf(requested: unknown): number {
  if (typeof requested !== 'number' || !Number.isFinite(requested)) return MAX_TASK_TTL_MS;
  return Math.min(MAX_TASK_TTL_MS, Math.max(MIN_TASK_TTL_MS, Math.round(requested)));
}

/** How a task's work ended. */
interface Outcome {
  status: 'completed' | 'failed' | 'cancelled';
  result: CallToolResult;
  statusMessage?: string;
  /** The JSON-RPC error, when the work failed without a tool result (the extension's `failed`). */
  error?: { code: number; message: string };
}

/** Says where the work stands while it is working (the task's statusMessage). */
type Progress = (statusMessage: string) => void;

/**
 * The work of a job tool's task: the call that creates the job (once: a write, never re-sent), then the status
 * tool until the job is done or failed, backing off, every request through the service's rate-limited upstream
 * client. A result that is not a created job (schema mode, refused arguments, an upstream error) ends the task
 * with that result. Stops as soon as `signal` aborts (cancellation, TTL): no upstream request goes out after.
 */
async function followJob(
  { create, status }: JobTool,
  args: Record<string, unknown>,
  run: RunTool,
  signal: AbortSignal,
  progress: Progress,
): Promise<Outcome> {
  const created = await run(create, args, signal);
  if (created.isError) return { status: 'failed', result: created, statusMessage: summary(created) };
  // Loaded by the call that just ran: how to read the job is in the tool's definition, not in its summary.
  const { job } = await create.load();
  const statusArgs = job?.statusArguments(args, (created.structuredContent ?? {}) as Record<string, unknown>);
  if (!job || !statusArgs) return { status: 'completed', result: created };
  const jobId = String((created.structuredContent as { id?: unknown } | undefined)?.id ?? '');
  progress(`Upstream job ${jobId} created; following it with ${status.name}.`);
  let wait = JOB_CHECK_FIRST_MS;
  for (;;) {
    await pause(wait, signal);
    wait = Math.min(wait * JOB_CHECK_GROWTH, JOB_CHECK_MAX_MS);
    const polled = await run(status, statusArgs, signal);
    signal.throwIfAborted();
    if (polled.isError) {
      // A passing upstream failure (rate limit, timeout, 5xx) is tried again at the next check.
      if (isRetryable(polled)) continue;
      return { status: 'failed', result: polled, statusMessage: summary(polled) };
    }
    const state = (polled.structuredContent ?? {}) as Record<string, unknown>;
    const where = job.stateOf(state);
    if (where === 'done') return { status: 'completed', result: polled };
    if (where === 'failed') {
      return { status: 'failed', result: polled, statusMessage: `Upstream job ${jobId} ended in error.` };
    }
    progress(`Upstream job ${jobId} is ${String(state.state ?? 'running')}.`);
  }
}

/** Waits `ms`, or rejects when `signal` aborts; the timer alone never keeps the process running (a shutdown). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    timer.unref();
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function isRetryable(result: CallToolResult): boolean {
  const error = (result.structuredContent as { error?: { retryable?: unknown } } | undefined)?.error;
  return error?.retryable === true;
}

/** The first line of a result's text, short: a failed task's statusMessage. */
function summary(result: CallToolResult): string {
  const text = result.content.find((block) => block.type === 'text');
  const line = text && 'text' in text ? (text.text.split('\n')[0] ?? '') : '';
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

interface TaskEntry {
  task: Task;
  owner: string;
  outcome?: Outcome;
  controller: AbortController;
  /** Resolves when the task reaches a terminal status. */
  settled: Promise<void>;
}

/**
 * The tasks of this process, whoever created them: one store for every server instance (stateless HTTP builds a
 * server per request, so a tasks/get arrives on a different instance than its tools/call). In memory: a task
 * lives in the process that created it, until its TTL ends.
 */
class TaskStore {
  readonly #tasks = new Map<string, TaskEntry>();

  start(
    owner: string,
    ttl: number,
    work: (signal: AbortSignal, progress: Progress) => Promise<Outcome>,
  ): Task {
    let held = 0;
    for (const entry of this.#tasks.values()) if (entry.owner === owner) held += 1;
    if (held >= MAX_TASKS_PER_CALLER) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `You hold ${MAX_TASKS_PER_CALLER} tasks, the most this server keeps per caller: cancel some with tasks/cancel or wait for their TTL to end, or call the tool without "task".`,
      );
    }
    const now = new Date().toISOString();
    const task: Task = {
      taskId: randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      pollInterval: TASK_POLL_INTERVAL_MS,
    };
    const controller = new AbortController();
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const entry: TaskEntry = { task, owner, controller, settled };
    this.#tasks.set(task.taskId, entry);
    // The task and its result go when the TTL ends (MCP: counted from creation), its work with them.
    setTimeout(() => {
      controller.abort('the task expired');
      this.#tasks.delete(task.taskId);
      settle();
    }, ttl).unref();
    const progress: Progress = (message) => {
      if (entry.task.status === 'working') this.#update(entry, { statusMessage: message });
    };
    work(controller.signal, progress)
      .catch((error: unknown): Outcome => {
        if (controller.signal.aborted) return { status: 'cancelled', result: { content: [] } };
        log('error', 'task crashed', {
          taskId: task.taskId,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
        const message = 'The task failed inside the tool server; the details are in the server log.';
        return {
          status: 'failed',
          result: { content: [{ type: 'text', text: message }], isError: true },
          error: { code: ProtocolErrorCode.InternalError, message },
        };
      })
      .then((outcome) => {
        // MCP: a cancelled task stays cancelled, whatever its work did after.
        if (entry.task.status === 'working') {
          entry.outcome = outcome;
          this.#update(entry, {
            status: outcome.status,
            ...(outcome.statusMessage ? { statusMessage: outcome.statusMessage } : {}),
          });
          log('info', 'task ended', { taskId: task.taskId, status: outcome.status });
        }
        settle();
      });
    return { ...task };
  }

  /** The caller's task, or -32602 as MCP says (another caller's task is not found either). */
  find(owner: string, taskId: string): TaskEntry {
    const entry = this.#tasks.get(taskId);
    if (!entry || entry.owner !== owner) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Failed to retrieve task: Task not found (${JSON.stringify(taskId)} is no task of yours in this server process; tasks are kept until their TTL ends, in the process that created them).`,
      );
    }
    return entry;
  }

  list(owner: string): Task[] {
    return [...this.#tasks.values()]
      .filter((entry) => entry.owner === owner)
      .map((entry) => ({ ...entry.task }))
      .reverse();
  }

  cancel(owner: string, taskId: string): Task {
    const entry = this.find(owner, taskId);
    if (entry.task.status !== 'working') {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Cannot cancel task: already in terminal status '${entry.task.status}'.`,
      );
    }
    // Marked before the abort, so the work's own ending cannot overwrite it; the abort stops the polling at once.
    const seen = entry.task.statusMessage ? ` Last seen: ${entry.task.statusMessage}` : '';
    this.#update(entry, { status: 'cancelled', statusMessage: `The task was cancelled by request.${seen}` });
    entry.controller.abort('tasks/cancel');
    log('info', 'task cancelled', { taskId });
    return { ...entry.task };
  }

  /** The task's result once it is terminal (MCP: tasks/result blocks until then). */
  async result(owner: string, taskId: string, signal: AbortSignal): Promise<CallToolResult> {
    const entry = this.find(owner, taskId);
    await Promise.race([
      entry.settled,
      new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
    ]);
    // The client gave up on this tasks/result (the SDK sends nothing for it then); the task goes on.
    if (signal.aborted)
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'tasks/result was cancelled.');
    if (entry.task.status === 'cancelled') {
      return {
        content: [
          {
            type: 'text',
            text: `${entry.task.statusMessage ?? 'The task was cancelled.'} The server stopped following the upstream job; the job itself is not cancelled upstream and may still finish, which its status tool shows.`,
          },
        ],
        isError: true,
      };
    }
    if (!entry.outcome) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'Failed to retrieve task: Task has expired (its TTL ended before it finished).',
      );
    }
    return entry.outcome.result;
  }

  #update(entry: TaskEntry, change: Partial<Task>): void {
    entry.task = { ...entry.task, ...change, lastUpdatedAt: new Date().toISOString() };
  }
}

const TASKS = new TaskStore();
