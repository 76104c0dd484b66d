// End-to-end harness: a real MCP client (the SDK's) talking to Switchboard over stdio (a child process running
// the CLI) or Streamable HTTP (a real loopback socket), with the IssueDesk emulator on another loopback socket.

import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildToolSet, type ToolNameStyle } from '../../src/runtime/toolset.js';
import { serveHttp } from '../../src/runtime/transports.js';
import { startIssueDeskEmulator } from '../../src/services/issuedesk/emulator/app.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

export type Transport = 'stdio' | 'http';

export interface CallResult {
  isError: boolean;
  structured: Record<string, unknown>;
  text: string;
}

/** The `error` object of a failed tool result, as agents see it. */
export interface ToolErrorBody {
  kind: string;
  message: string;
  hint?: string;
  status?: number;
  upstream_code?: string;
  retry_after_seconds?: number;
  issues?: { field: string; problem: string }[];
}

export const errorOf = (result: { structured: Record<string, unknown> }) =>
  result.structured.error as ToolErrorBody;

export interface Connected {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

/** The protocol revisions tests pin: 2025-11-25 is what most clients speak, 2026-07-28 the current one. */
export type Revision = '2025-11-25' | '2026-07-28';

export async function connectClient(
  transport: StdioClientTransport | StreamableHTTPClientTransport,
  closeExtra?: () => Promise<void>,
  /** Pins the revision the client negotiates (and checks it got it); unset, the SDK client's default. */
  revision?: Revision,
): Promise<Connected> {
  const client = new Client(
    { name: 'switchboard-e2e', version: '1.0.0' },
    revision === undefined
      ? {}
      : { versionNegotiation: { mode: revision === '2026-07-28' ? { pin: revision } : 'legacy' } },
  );
  await client.connect(transport);
  if (revision !== undefined && client.getNegotiatedProtocolVersion() !== revision) {
    throw new Error(`The client negotiated ${client.getNegotiatedProtocolVersion()}, not ${revision}.`);
  }
  return {
    client,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
      return {
        isError: result.isError === true,
        structured: (result.structuredContent ?? {}) as Record<string, unknown>,
        text,
      };
    },
    async close() {
      await client.close();
      await closeExtra?.();
    },
  };
}

export interface ServerEnv {
  ISSUEDESK_BASE_URL: string;
  ISSUEDESK_API_TOKEN?: string;
  SWITCHBOARD_TIMEOUT_MS?: string;
}

/**
 * The CLI as a child process over stdio, the way an MCP client launches it, for a client of a test's own making
 * (capabilities, a pinned revision); `connectCli` connects the usual one.
 */
export function cliTransport(
  args: string[],
  env: Record<string, string | undefined> = {},
): StdioClientTransport {
  const defined = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI, ...args],
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      SWITCHBOARD_LOG_LEVEL: 'warn',
      // Never a saved `switchboard login store` of the machine's user: tests say which credentials they mean.
      SWITCHBOARD_CREDENTIALS_FILE: join(tmpdir(), 'switchboard-e2e-no-saved-login.json'),
      ...defined,
    },
    stderr: 'pipe',
  });
  // Read, or a chatty server would block once the pipe fills; forwarded to this process's stderr, which the
  // test setup (test/setup/quietOutput.ts) shows only when the test fails.
  transport.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  return transport;
}

/** The CLI as a child process over stdio, the way an MCP client launches it. */
export async function connectCli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<Connected> {
  return connectClient(cliTransport(args, env));
}

/** `serve issuedesk` over stdio against the given upstream. */
export function connectStdio(env: ServerEnv): Promise<Connected> {
  return connectCli(['serve', 'issuedesk'], {
    SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
    ...env,
  });
}

/** Switchboard served over Streamable HTTP on a loopback port, in this process. */
export async function connectHttp(env: ServerEnv, nameStyle: ToolNameStyle = 'dotted'): Promise<Connected> {
  const runtime = createIssueDeskRuntime({
    baseUrl: env.ISSUEDESK_BASE_URL,
    token: () => env.ISSUEDESK_API_TOKEN,
    clientRateLimits: false,
    ...(env.SWITCHBOARD_TIMEOUT_MS ? { timeoutMs: Number(env.SWITCHBOARD_TIMEOUT_MS) } : {}),
  });
  const server = await serveHttp(buildToolSet([runtime], { nameStyle }), { host: '127.0.0.1', port: 0 });
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  return connectClient(transport, () => server.close());
}

export async function connect(kind: Transport, env: ServerEnv): Promise<Connected> {
  return kind === 'stdio' ? connectStdio(env) : connectHttp(env);
}

/** One JSON-RPC message of an MCP answer, as raw HTTP tests read it. */
export interface RawReply {
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/**
 * A raw POST to an MCP endpoint, with the Accept and Content-Type every client sends: the status, the answer's
 * content type, and its JSON-RPC messages from a JSON body or SSE frames (`body`: the first).
 */
export async function postMcp(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  init: RequestInit = {},
): Promise<{ status: number; type: string | null; messages: RawReply[]; body: RawReply }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
  const text = await response.text();
  const trimmed = text.trimStart();
  const messages: RawReply[] =
    trimmed.startsWith('{') || trimmed.startsWith('[')
      ? [JSON.parse(trimmed)].flat()
      : text
          .split('\n')
          .filter((line) => line.startsWith('data:') && line.length > 5)
          .map((line) => JSON.parse(line.slice(5)) as RawReply);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    messages,
    body: messages[0] ?? {},
  };
}

export interface LoggedRequest {
  seq: number;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  body: unknown;
  status: number;
  /** The auth scheme the request used (never the credential). */
  auth: 'bearer' | 'basic' | 'none' | 'other';
}

/** Helpers for an emulator's inspection API (`/_emulator/...`) at `url`. */
export function inspector(url: string) {
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`);
    if (!response.ok) throw new Error(`${path}: ${response.status}`);
    return (await response.json()) as T;
  };
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  };
  let mark = 0;
  const requests = async (): Promise<LoggedRequest[]> => {
    const { requests } = await get<{ requests: LoggedRequest[] }>(`/_emulator/requests?since=${mark}`);
    if (requests.length > 0) mark = Math.max(...requests.map((r) => r.seq));
    return requests;
  };
  return {
    get,
    send,
    /** Requests logged since the last call of `requests()` (or since start). */
    requests,
    async clearLog(): Promise<void> {
      await requests();
    },
    /** Every item of a state collection (up to 10,000). */
    async state<T>(collection: string, query = ''): Promise<T[]> {
      return (await get<{ items: T[] }>(`/_emulator/state/${collection}?limit=10000${query}`)).items;
    },
    /** One item of a state collection by id; undefined when there is none. */
    async stateItem<T>(collection: string, id: string): Promise<T | undefined> {
      const path = `/_emulator/state/${collection}/${encodeURIComponent(id)}`;
      const response = await fetch(`${url}${path}`);
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`${path}: ${response.status}`);
      return (await response.json()) as T;
    },
    faults: (rules: unknown[]) => send('PUT', '/_emulator/faults', { rules }),
    clearFaults: () => send('DELETE', '/_emulator/faults'),
  };
}

/** The IssueDesk emulator with helpers for its inspection API. */
export async function startEmulator(options: { scale?: number; seed?: number } = {}) {
  const running = await startIssueDeskEmulator({ db: ':memory:', ...options });
  return { url: running.url, token: running.token, close: running.close, ...inspector(running.url) };
}

export type Emulator = Awaited<ReturnType<typeof startEmulator>>;

/** Runs the CLI as a child process and resolves once `pattern` appears on stderr (or on `options.stream`). */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
  pattern: RegExp,
  options: {
    stream?: 'stderr' | 'stdout';
    /** What runs the command: the sources through tsx (CLI) unless given, e.g. a built `dist/cli/main.js`. */
    entry?: readonly string[];
  } = {},
) {
  const child = spawn(process.execPath, [...(options.entry ?? CLI), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  const ready = new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}; stderr:\n${stderr}`)),
      20_000,
    );
    const check = () => {
      const match = pattern.exec(options.stream === 'stdout' ? stdout : stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // Shown only if the test fails (test/setup/quietOutput.ts).
      process.stderr.write(chunk);
      check();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      check();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}; stderr:\n${stderr}`));
    });
  });
  return {
    child,
    ready,
    stderr: () => stderr,
    stdout: () => stdout,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Runs the CLI to its end: exit code and stderr. */
export function runCliToEnd(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the CLI did not stop within 20 s; stderr:\n${stderr}`));
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}
