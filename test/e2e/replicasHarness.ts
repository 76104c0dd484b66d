// The replicated deployment on real parts, all on loopback: Debian's redis-server, the upstream emulators
// (`switchboard emulate all`, the store's 5 requests/s per base on), three `switchboard serve all --transport http
// --redis-url ...` replicas sharing that Redis, and HAProxy round-robin in front of them, configured by
// deploy/haproxy.cfg itself (the file the compose file uses; its addresses come from environment variables), so the
// tested topology and the packaged one cannot drift. Used by test/e2e/replicas.test.ts (correctness) and by
// bench/replicas.ts (throughput); it imports nothing from vitest.
//
// Every process started here is stopped by `stop()` (SIGTERM, then SIGKILL), and killed when this process exits,
// so a failed or interrupted run leaves nothing listening.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
// The configuration, and the environment it reads (the variable of each `server` line, taken from the file itself).
import { HAPROXY, HAPROXY_CONFIG, loadBalancerEnv } from '../deploy/haproxy.js';
import { freePort, type RedisServer, startRedis } from '../support/redisServer.js';
import type { PersonProvider } from './oauthSignIn.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CREATE_TOOL = 'StoreApi.CreateStoreRecords';

// ---- processes ---------------------------------------------------------------------------------------------------

const running = new Set<ChildProcess>();
// A test runner that dies (or a bench stopped with Ctrl+C) must not leave servers behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

interface Started {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process exits or `timeoutMs` passes. */
  ready: Promise<RegExpExecArray>;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
}

function launch(
  command: string,
  args: string[],
  env: Record<string, string>,
  pattern: RegExp,
  options: { forward?: boolean; timeoutMs?: number } = {},
): Started {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const ready = new Promise<RegExpExecArray>((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(
      () =>
        reject(new Error(`${command} ${args.join(' ')}: no ${pattern} within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    let matched = false;
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      // Shown only when a test fails (test/setup/quietOutput.ts); the bench passes forward: false.
      if (options.forward !== false) process.stderr.write(chunk);
      const match = matched ? null : pattern.exec(output);
      if (match) {
        matched = true;
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${command} could not be started: ${error.message}`));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited (${code}) before it was ready:\n${output}`));
    });
  });
  // The rejection above is for callers awaiting `ready`; one that is no longer awaited must not be unhandled.
  ready.catch(() => undefined);
  return { child, output: () => output, ready, exited };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code or signal once it has exited. */
async function terminate(started: Started, graceMs = 5_000): Promise<number | string> {
  const { child } = started;
  if (child.exitCode === null && child.signalCode === null) {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.kill('SIGTERM');
    const code = await started.exited;
    clearTimeout(timer);
    return code;
  }
  return started.exited;
}

/** Polls `probe` until it gives a value (not undefined or false); throws, naming `what`, after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  { timeoutMs = 15_000, everyMs = 100 } = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (performance.now() > deadline) {
      throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

// ---- the program -------------------------------------------------------------------------------------------------

/**
 * The CLI built from the current sources into a temporary folder laid out like the package (as
 * test/e2e/bundle.test.ts does): the test never runs a stale dist/, and a `npm run build` meanwhile cannot replace
 * the files under running replicas (they load chunks lazily).
 */
export function buildCli(): { main: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-replicas-build-'));
  symlinkSync(join(ROOT, 'package.json'), join(folder, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), join(folder, 'dist/cli')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return {
    main: join(folder, 'dist/cli/main.js'),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

// ---- the emulators -----------------------------------------------------------------------------------------------

export interface LoggedUpstreamRequest {
  seq: number;
  /** When the emulator received it (ISO, milliseconds). */
  time: string;
  durationMs: number;
  method: string;
  path: string;
  status: number;
  body: unknown;
}

export interface Emulators {
  /** ISSUEDESK_*, MESSAGING_*, STORE_* as `emulate` prints them, for `serve`. */
  env: Record<string, string>;
  storeUrl: string;
  storeToken: string;
  /** A store API request with the emulator's token (it counts against the base's limit like any other). */
  store(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
  /** A control request under /_emulator/ of the store emulator. */
  control(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
  /** The store emulator's request log since the last call (the first call: since start). */
  requests(): Promise<LoggedUpstreamRequest[]>;
  /** Every record of one table, as the emulator holds it (no API request, so nothing counts against the limit). */
  records(baseId: string, tableId: string): Promise<{ id: string; fields: Record<string, unknown> }[]>;
  stop(): Promise<void>;
}

async function json(response: Response, what: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: ${response.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

export async function startEmulators(main: string, options: { forward?: boolean } = {}): Promise<Emulators> {
  const started = launch(
    process.execPath,
    [main, 'emulate', 'all', '--port', '0'],
    { PATH: process.env.PATH ?? '' },
    /# then: switchboard serve/,
    options,
  );
  await started.ready;
  const env = Object.fromEntries(
    [...started.output().matchAll(/^export ([A-Z_]+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]),
  );
  const storeUrl = env.STORE_BASE_URL;
  const storeToken = env.STORE_ACCESS_TOKEN;
  if (!storeUrl || !storeToken) throw new Error(`emulate printed no STORE_* settings:\n${started.output()}`);
  const send = async (url: string, method: string, body: unknown, headers: Record<string, string>) =>
    json(
      await fetch(url, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
      `${method} ${url}`,
    );
  let mark = 0;
  return {
    env,
    storeUrl,
    storeToken,
    store: (method, path, body) =>
      send(`${storeUrl}${path}`, method, body, { authorization: `Bearer ${storeToken}` }),
    control: (method, path, body) => send(`${storeUrl}/_emulator${path}`, method, body, {}),
    async requests() {
      const { requests } = (await json(
        await fetch(`${storeUrl}/_emulator/requests?since=${mark}`),
        'request log',
      )) as { requests: LoggedUpstreamRequest[] };
      if (requests.length > 0) mark = requests.at(-1)!.seq;
      return requests;
    },
    async records(baseId, tableId) {
      const out: { id: string; fields: Record<string, unknown> }[] = [];
      for (let offset = 0; ; offset += 10_000) {
        const page = (await json(
          await fetch(
            `${storeUrl}/_emulator/state/records?base=${baseId}&table=${tableId}&limit=10000&offset=${offset}`,
          ),
          'records',
        )) as { total: number; items: { id: string; fields: Record<string, unknown> }[] };
        out.push(...page.items);
        if (out.length >= page.total || page.items.length === 0) return out;
      }
    },
    stop: async () => {
      await terminate(started);
    },
  };
}

/**
 * When the requests around the first 429 reached the emulator, one a line with the gap to the one before: shows
 * whether requests were sent too close together or arrived bunched (a process starved of CPU sends late, then
 * several at once). Empty when there was no 429.
 */
export function timelineOfFirst429(requests: readonly LoggedUpstreamRequest[]): string {
  const first = requests.findIndex((r) => r.status === 429);
  if (first < 0) return '';
  return requests
    .slice(Math.max(0, first - 8), first + 3)
    .map((r, i, all) => {
      const gap = i === 0 ? 0 : Date.parse(r.time) - Date.parse(all[i - 1]!.time);
      return `${r.time} +${gap} ms ${r.method} ${r.path} ${r.status} (${r.durationMs} ms)`;
    })
    .join('\n');
}

// ---- the replicas ------------------------------------------------------------------------------------------------

/** One scraped /metrics page: the sum of a metric's samples whose labels include `labels`. */
export interface MetricsPage {
  text: string;
  sum(name: string, labels?: Record<string, string>): number;
}

export function parseMetrics(text: string): MetricsPage {
  const samples = text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
      if (!match) return undefined;
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    })
    .filter((sample) => sample !== undefined);
  return {
    text,
    sum: (name, labels = {}) =>
      samples
        .filter(
          (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
        )
        .reduce((total, s) => total + s.value, 0),
  };
}

export interface Replica {
  readonly name: string;
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** Its process id while it runs. */
  pid(): number | undefined;
  output(): string;
  /**
   * Starts it (again, on the same port) with extra environment (undefined unsets a variable) and flags; resolves
   * once it serves.
   */
  start(extra?: { env?: Record<string, string | undefined>; metricsPort?: number }): Promise<void>;
  /** SIGTERM, as an orchestrator stops it; resolves with its exit code. */
  stop(): Promise<number | string>;
  /** SIGKILL: no chance to finish anything. Resolves once it is gone. */
  kill(): Promise<void>;
  readyz(): Promise<{ status: number; body: unknown }>;
  metrics(): Promise<MetricsPage>;
}

export interface ReplicaSettings {
  main: string;
  redisUrl: string;
  /** The upstreams' settings (the emulators'), and whatever else every replica gets. */
  env: Record<string, string>;
  forward?: boolean;
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function replica(name: string, port: number, settings: ReplicaSettings): Replica {
  const origin = `http://127.0.0.1:${port}`;
  let current: Started | undefined;
  let dataDir: string | undefined;
  // With per-user sign-in, /metrics is served on a port of its own only (--metrics-port), unprotected; with the
  // shared bearer token it is on the MCP port, protected like /mcp.
  let metricsOrigin = origin;
  let bearer: string | undefined;
  return {
    name,
    port,
    origin,
    pid: () =>
      current && current.child.exitCode === null && current.child.signalCode === null
        ? current.child.pid
        : undefined,
    output: () => current?.output() ?? '',
    async start(extra = {}) {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      metricsOrigin = extra.metricsPort ? `http://127.0.0.1:${extra.metricsPort}` : origin;
      // A data folder of its own: whatever replicas share must come through Redis, never through a common file.
      dataDir = mkdtempSync(join(tmpdir(), `switchboard-${name}-`));
      const env = definedOnly({
        PATH: process.env.PATH ?? '',
        SWITCHBOARD_LOG_LEVEL: 'warn',
        SWITCHBOARD_DATA_DIR: dataDir,
        // Never a saved `switchboard login store` of the machine's user.
        SWITCHBOARD_CREDENTIALS_FILE: join(dataDir, 'no-saved-login.json'),
        ...settings.env,
        ...extra.env,
      });
      bearer = extra.metricsPort ? undefined : env.SWITCHBOARD_HTTP_TOKEN;
      current = launch(
        process.execPath,
        [
          settings.main,
          'serve',
          'all',
          '--transport',
          'http',
          '--host',
          '127.0.0.1',
          '--port',
          String(port),
          '--redis-url',
          settings.redisUrl,
          // As deploy/compose.yaml runs them: every request comes through HAProxy, which sets X-Forwarded-*.
          '--trust-proxy',
          ...(extra.metricsPort ? ['--metrics-port', String(extra.metricsPort)] : []),
        ],
        env,
        /MCP endpoint \(Streamable HTTP\): (\S+)/,
        { forward: settings.forward ?? true },
      );
      await current.ready;
    },
    async stop() {
      if (!current) return 'not started';
      const code = await terminate(current, 15_000);
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      dataDir = undefined;
      return code;
    },
    async kill() {
      if (!current || current.child.exitCode !== null || current.child.signalCode !== null) return;
      current.child.kill('SIGKILL');
      await current.exited;
    },
    async readyz() {
      const response = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(5_000) });
      return { status: response.status, body: await response.json().catch(() => undefined) };
    },
    async metrics() {
      const response = await fetch(`${metricsOrigin}/metrics`, {
        signal: AbortSignal.timeout(5_000),
        ...(bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {}),
      });
      if (!response.ok) throw new Error(`${name} /metrics: ${response.status} ${await response.text()}`);
      return parseMetrics(await response.text());
    },
  };
}

// ---- the load balancer -------------------------------------------------------------------------------------------

/** A server as HAProxy sees it (`show servers state`): UP when its health checks pass. */
export interface BackendServer {
  backend: string;
  name: string;
  port: number;
  up: boolean;
}

export interface LoadBalancer {
  origin: string;
  mcpUrl: string;
  output(): string;
  /** HAProxy's view of its servers, asked through its master CLI. */
  servers(): Promise<BackendServer[]>;
  stop(): Promise<void>;
}

/** One command on HAProxy's master CLI (`-S <socket>`), sent to its worker (`@1`). */
function askHaproxy(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = connectSocket(socket);
    let answer = '';
    connection.setTimeout(5_000, () => connection.destroy(new Error(`HAProxy CLI: no answer to ${command}`)));
    connection.on('data', (chunk) => {
      answer += chunk.toString();
      // The answer ends with an empty line; the master does not always close the connection after it.
      if (answer.endsWith('\n\n')) {
        connection.destroy();
        resolve(answer);
      }
    });
    connection.once('end', () => resolve(answer));
    connection.once('error', reject);
    connection.write(`@1 ${command}\n`);
  });
}

/**
 * HAProxy with deploy/haproxy.cfg in front of `replicas`, its variables set by test/deploy/haproxy.ts's
 * loadBalancerEnv. Started here rather than with that file's startLoadBalancer because these tests ask HAProxy which
 * servers its health checks hold up or down (a replica killed, then every replica back after a Redis outage), which
 * its master CLI answers exactly where its log lines would have to be matched by position. Resolves once every
 * replica is up.
 */
export async function startLoadBalancer(
  replicas: readonly Replica[],
  options: { forward?: boolean } = {},
): Promise<LoadBalancer> {
  if (!existsSync(HAPROXY_CONFIG)) {
    throw new Error(
      `${HAPROXY_CONFIG} does not exist: the load balancer's configuration is part of deploy/.`,
    );
  }
  const port = await freePort();
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-haproxy-'));
  const socket = join(folder, 'master.sock');
  // The configuration as it is, with its variables set; -db keeps HAProxy in the foreground (a child we can stop),
  // and the master CLI (-W -S, flags only, not configuration) lets us ask what its health checks concluded.
  const started = launch(
    HAPROXY,
    ['-f', HAPROXY_CONFIG, '-db', '-W', '-S', socket],
    {
      PATH: process.env.PATH ?? '',
      ...(await loadBalancerEnv(
        port,
        replicas.map((r) => `127.0.0.1:${r.port}`),
      )),
    },
    /Loading success/,
    options,
  );
  await started.ready;
  const origin = `http://127.0.0.1:${port}`;
  const servers = async () => {
    const state = await askHaproxy(socket, 'show servers state');
    return state
      .split('\n')
      .filter((line) => /^\d+ /.test(line))
      .map((line) => {
        const f = line.split(' ');
        // be_id be_name srv_id srv_name srv_addr srv_op_state ... srv_port (the 19th field)
        return { backend: f[1]!, name: f[3]!, port: Number(f[18]), up: f[5] === '2' };
      });
  };
  const lb: LoadBalancer = {
    origin,
    mcpUrl: `${origin}/mcp`,
    output: started.output,
    servers,
    stop: async () => {
      await terminate(started);
      rmSync(folder, { recursive: true, force: true });
    },
  };
  try {
    // Listening, and its health checks have found every replica ready.
    await waitFor('HAProxy sees every replica up', async () => {
      const all = (await servers()).filter((s) => replicas.some((r) => r.port === s.port));
      return all.length === replicas.length && all.every((s) => s.up);
    });
  } catch (error) {
    await lb.stop();
    throw error;
  }
  return lb;
}

// ---- the whole topology ------------------------------------------------------------------------------------------

export interface Topology {
  /** The bearer token the replicas require (SWITCHBOARD_HTTP_TOKEN), as deploy/compose.yaml sets one. */
  token: string;
  redis: RedisServer;
  emulators: Emulators;
  replicas: Replica[];
  lb: LoadBalancer;
  /** Stops everything that is still running, even after a failure half-way through the start. */
  stop(): Promise<void>;
}

export interface TopologyOptions {
  main: string;
  /** Replica and emulator output forwarded to this process's stderr (the test's held output); default true. */
  forward?: boolean;
}

export async function startTopology(options: TopologyOptions): Promise<Topology> {
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const close of stops.reverse()) await close().catch(() => undefined);
    stops.length = 0;
  };
  const token = randomBytes(24).toString('hex');
  try {
    const redis = await startRedis();
    stops.push(() => redis.stop());
    const emulators = await startEmulators(options.main, { forward: options.forward ?? true });
    stops.push(() => emulators.stop());
    const ports = [await freePort(), await freePort(), await freePort()];
    const replicas = ports.map((port, i) =>
      replica(`replica${i + 1}`, port, {
        main: options.main,
        redisUrl: redis.url,
        env: { ...emulators.env, SWITCHBOARD_HTTP_TOKEN: token },
        forward: options.forward ?? true,
      }),
    );
    for (const r of replicas) stops.push(() => r.stop());
    await Promise.all(replicas.map((r) => r.start()));
    const lb = await startLoadBalancer(replicas, { forward: options.forward ?? true });
    stops.push(() => lb.stop());
    return { token, redis, emulators, replicas, lb, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// ---- agents ------------------------------------------------------------------------------------------------------

/** An MCP client of the SDK at `url`, sending the deployment's bearer token when given one. */
export async function connectAgent(
  url: string,
  options: { name?: string; token?: string } = {},
): Promise<Client> {
  const client = new Client({ name: options.name ?? 'replicas-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(options.token ? { requestInit: { headers: { authorization: `Bearer ${options.token}` } } } : {}),
    }),
  );
  return client;
}

/** One CreateStoreRecords call of an agent: the ten names it asked for and what became of them. */
export interface BatchCall {
  agent: number;
  names: string[];
  startedAt: number;
  endedAt: number;
  /** Acknowledged: the tool answered with the created records. */
  ok: boolean;
  /** Ids the upstream gave the records (when acknowledged). */
  ids: string[];
  /** A tool error: its kind and message. */
  toolError?: { kind: string; message: string };
  /** No tool result at all (the connection or the load balancer failed): the client's error message. */
  transportError?: string;
}

export interface WriteLoad {
  clients: readonly Client[];
  baseId: string;
  tableId: string;
  /** Prefix of every record name, unique per run, so records of one run are told apart. */
  tag: string;
  /** Keeps going while this says so; checked before each call. */
  keepGoing(): boolean;
  /** Called as each call ends. */
  onCall?(call: BatchCall): void;
  /** How long an agent waits after a failed call before its next one; default 500 ms. */
  pauseAfterFailureMs?: number;
}

/** An error as a line, with its cause (fetch's "fetch failed" says why only there). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${describeError(error.cause)})` : '';
  const code = (error as { code?: unknown }).code;
  return `${error.name}${code ? ` ${String(code)}` : ''}: ${error.message}${cause}`;
}

/** Each client creates 10-record batches, one call at a time, until `keepGoing()` says stop. */
export async function writeBatches(load: WriteLoad): Promise<BatchCall[]> {
  const calls: BatchCall[] = [];
  await Promise.all(
    load.clients.map(async (client, agent) => {
      for (let batch = 0; load.keepGoing(); batch++) {
        const names = Array.from({ length: 10 }, (_, i) => `${load.tag} a${agent} b${batch} r${i}`);
        const startedAt = performance.now();
        const call: BatchCall = { agent, names, startedAt, endedAt: startedAt, ok: false, ids: [] };
        try {
          const result = await client.callTool({
            name: CREATE_TOOL,
            arguments: {
              mode: 'execute',
              base_id: load.baseId,
              table_id_or_name: load.tableId,
              request_body: JSON.stringify({ records: names.map((Name) => ({ fields: { Name } })) }),
            },
          });
          const structured = (result.structuredContent ?? {}) as {
            records?: { id: string }[];
            error?: { kind: string; message: string };
          };
          if (result.isError) {
            call.toolError = structured.error ?? { kind: 'unknown', message: JSON.stringify(result.content) };
          } else {
            call.ok = true;
            call.ids = (structured.records ?? []).map((r) => r.id);
          }
        } catch (error) {
          call.transportError = describeError(error);
        }
        call.endedAt = performance.now();
        calls.push(call);
        load.onCall?.(call);
        // As an agent told to try again shortly would; a failing loop also must not starve the shared machine.
        if (!call.ok) await new Promise((resolve) => setTimeout(resolve, load.pauseAfterFailureMs ?? 500));
      }
    }),
  );
  return calls;
}

/** A table of its own in `baseId` for one run's writes, with one text field, Name; its id. */
export async function createWriteTable(emulators: Emulators, baseId: string, name: string): Promise<string> {
  const table = await emulators.store('POST', `/v0/meta/bases/${baseId}/tables`, {
    name,
    fields: [{ name: 'Name', type: 'singleLineText' }],
  });
  return table.id as string;
}

/** The base named `name`, as the emulator's token sees it. */
export async function baseNamed(emulators: Emulators, name: string): Promise<string> {
  const { bases } = (await emulators.store('GET', '/v0/meta/bases')) as {
    bases: { id: string; name: string }[];
  };
  const base = bases.find((b) => b.name === name);
  if (!base) throw new Error(`no base named ${name}: ${bases.map((b) => b.name).join(', ')}`);
  return base.id;
}

/**
 * How the writes ended up at the store: for each name the agents sent, how many records carry it; and the names of
 * records in the table that no agent sent.
 */
export async function tally(
  emulators: Emulators,
  baseId: string,
  tableId: string,
  calls: readonly BatchCall[],
) {
  const stored = await emulators.records(baseId, tableId);
  const counts = new Map<string, number>();
  for (const record of stored) {
    const name = String(record.fields.Name ?? '');
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const sent = new Set(calls.flatMap((c) => c.names));
  const acknowledged = calls.filter((c) => c.ok).flatMap((c) => c.names);
  const unacknowledged = calls.filter((c) => !c.ok).flatMap((c) => c.names);
  return {
    stored: stored.length,
    /** Acknowledged names not stored exactly once (lost: 0; duplicated: more). */
    acknowledgedNotOnce: acknowledged
      .filter((n) => counts.get(n) !== 1)
      .map((n) => `${n} x${counts.get(n) ?? 0}`),
    /** Names of failed calls stored more than once (their outcome is unknown, but never twice). */
    unacknowledgedDuplicated: unacknowledged.filter((n) => (counts.get(n) ?? 0) > 1),
    /** Names of failed calls that were stored after all. */
    unacknowledgedStored: unacknowledged.filter((n) => counts.get(n) === 1).length,
    /** Records no agent asked for. */
    strangers: [...counts.keys()].filter((n) => !sent.has(n)),
  };
}

// ---- a person signing in with per-user OAuth ---------------------------------------------------------------------

/** Connects an MCP client as `provider`'s person, signing in first when the server asks for it (401). */
export async function connectPerson(url: string, provider: PersonProvider): Promise<Client> {
  const transportFor = () => new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const first = transportFor();
  const client = new Client({ name: 'replicas-person', version: '1.0.0' });
  try {
    await client.connect(first);
    return client;
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !provider.callback) throw error;
  }
  await first.finishAuth(provider.callback.searchParams);
  const signedIn = new Client({ name: 'replicas-person', version: '1.0.0' });
  await signedIn.connect(transportFor());
  return signedIn;
}
