// Protocol edges, spoken raw so that no SDK client smooths them over: JSON-RPC lines to a spawned `serve` over
// stdio, HTTP requests with fetch, and plain sockets for the connection limits. Each block is one finding of
// issue 11 (D15-D20).

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { connect as connectSocket, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../src/runtime/protocol.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import {
  type HttpOptions,
  MAX_HTTP_REQUEST_BYTES,
  type RunningHttpServer,
  serveHttp,
} from '../../src/runtime/transports.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';
import {
  CLI,
  type Emulator,
  postMcp as post,
  type RawReply,
  ROOT,
  spawnCli,
  startEmulator,
} from './harness.js';

const MODERN = '2026-07-28';
const META = (version = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientCapabilities': {},
});
const initialize = (id: number, protocolVersion: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'edge-client', version: '1.0.0' } },
});

type Reply = RawReply;

type StdioServer = ReturnType<typeof stdioServer>;

/** `serve issuedesk --sandbox` as a child process, spoken to line by line. */
function stdioServer() {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [...CLI, 'serve', 'issuedesk', '--sandbox', '--data-dir', ':memory:'],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        SWITCHBOARD_LOG_LEVEL: 'info',
        SWITCHBOARD_CREDENTIALS_FILE: join(tmpdir(), 'switchboard-e2e-no-saved-login.json'),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      // Shown only when a test fails (test/setup/quietOutput.ts).
      process.stderr.write(chunk);
      stderr += chunk.toString();
      if (stderr.includes('serving MCP over stdio')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  const unread: unknown[] = [];
  let wake: (() => void) | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    unread.push(JSON.parse(line));
    wake?.();
  });
  /** The next line the server writes. */
  const next = async <T = Reply>(): Promise<T> => {
    const deadline = Date.now() + 15_000;
    while (unread.length === 0) {
      if (Date.now() > deadline) throw new Error('no reply from the stdio server');
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 250);
      });
    }
    return unread.shift() as T;
  };
  return {
    /** Resolves once the server reads its stdin (its startup log line), before any message was sent. */
    ready,
    /** Writes one raw line (a message, or anything else) and reads the line that answers it. */
    async send<T = Reply>(line: unknown): Promise<T> {
      child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
      return next<T>();
    },
    write(line: unknown): void {
      child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
    },
    next,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

describe('over stdio', () => {
  // Each test gets its own connection (the era is per connection); started together, as starting is the slow part.
  let modern: StdioServer;
  let legacy2025: StdioServer;
  let batches: StdioServer;
  beforeAll(async () => {
    [modern, legacy2025, batches] = [stdioServer(), stdioServer(), stdioServer()];
    await Promise.all([modern.ready, legacy2025.ready, batches.ready]);
  });
  afterAll(async () => {
    await Promise.all([modern, legacy2025, batches].map((server) => server?.stop()));
  });

  it("D15: server/discover works after a ping, every request's version is checked, and no request flips the era", async () => {
    const server = modern;
    // A ping first (2025 clients may ping before initialize) settles nothing.
    expect(await server.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).toMatchObject({ id: 1, result: {} });
    const discover = await server.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'server/discover',
      params: { _meta: META() },
    });
    expect(discover.result?.supportedVersions).toEqual(SUPPORTED_PROTOCOL_VERSIONS);

    // A request without _meta after discover: refused, and the connection stays 2026-07-28.
    const bare = await server.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(bare.error?.code).toBe(-32602);
    expect(bare.error?.message).toMatch(/_meta/);
    const listed = await server.send({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/list',
      params: { _meta: META() },
    });
    expect(listed.result?.tools).toHaveLength(13);

    // Every request's version is checked, not just the first one's.
    const old = await server.send({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/list',
      params: { _meta: META('1999-01-01') },
    });
    expect(old.error).toMatchObject({
      code: -32022,
      data: { supported: SUPPORTED_PROTOCOL_VERSIONS, requested: '1999-01-01' },
    });
    const again = await server.send({
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/list',
      params: { _meta: META() },
    });
    expect(again.result?.tools).toHaveLength(13);
  });

  it('D16: a malformed line, a non-JSON-RPC object and a non-string method each get their error', async () => {
    const server = legacy2025;
    expect(await server.send('{"jsonrpc":"2.0","id":1,')).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    const notRpc = await server.send({ hello: 'world' });
    expect(notRpc).toMatchObject({ id: null, error: { code: -32600 } });
    expect(notRpc.error?.message).toMatch(/jsonrpc/);
    const badMethod = await server.send({ jsonrpc: '2.0', id: 7, method: 7 });
    expect(badMethod).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(badMethod.error?.message).toMatch(/"method" must be a string/);
  });

  it('D15/D16: after a ping, initialize still opens 2025-11-25, which refuses batches with -32600', async () => {
    const server = legacy2025;
    expect(await server.send({ jsonrpc: '2.0', id: 10, method: 'ping' })).toMatchObject({ result: {} });
    const early = await server.send([{ jsonrpc: '2.0', id: 11, method: 'ping' }]);
    expect(early).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await server.send(initialize(12, '2025-11-25'))).result?.protocolVersion).toBe('2025-11-25');
    server.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect((await server.send({ jsonrpc: '2.0', id: 13, method: 'tools/list' })).result?.tools).toHaveLength(
      13,
    );
    const refused = await server.send([
      { jsonrpc: '2.0', id: 14, method: 'ping' },
      { jsonrpc: '2.0', id: 15, method: 'tools/list' },
    ]);
    expect(refused).toMatchObject({ id: null, error: { code: -32600 } });
    expect(refused.error?.message).toMatch(/2025-11-25/);
  });

  it('D16: under 2025-03-26 a batch is answered as a batch', async () => {
    const server = batches;
    expect((await server.send(initialize(1, '2025-03-26'))).result?.protocolVersion).toBe('2025-03-26');
    server.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const replies = await server.send<Reply[]>([
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      { jsonrpc: '2.0', id: 4, method: 7 },
    ]);
    expect(Array.isArray(replies)).toBe(true);
    const byId = new Map(replies.map((reply) => [reply.id, reply]));
    expect(replies).toHaveLength(3); // the notification gets no answer
    expect(byId.get(2)?.result).toEqual({});
    expect(byId.get(3)?.result?.tools).toHaveLength(13);
    expect(byId.get(4)?.error?.code).toBe(-32600);
  });
});

/** The headers a 2026-07-28 request carries (Streamable HTTP, Request Metadata). */
const modernHeaders = (method: string, name?: string, version = MODERN) => ({
  'mcp-protocol-version': version,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});
const legacy = (version = '2025-11-25') => ({ 'mcp-protocol-version': version });

describe('over HTTP', () => {
  let emulator: Emulator;
  let server: RunningHttpServer;
  const started: RunningHttpServer[] = [];

  const serve = async (options: HttpOptions = {}) => {
    const runtime = createIssueDeskRuntime({
      baseUrl: emulator.url,
      token: () => emulator.token,
      clientRateLimits: false,
    });
    const running = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 }, options);
    started.push(running);
    return running;
  };

  beforeAll(async () => {
    emulator = await startEmulator();
    server = await serve();
  });
  afterAll(async () => {
    for (const running of started) await running.close();
    await emulator?.close();
  });

  describe('D17: legacy revisions, Accept, and one list of versions', () => {
    it('initialize without its params is -32602 naming the missing fields, not -32603 with a schema dump', async () => {
      const { body } = await post(server.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
      expect(body.error?.code).toBe(-32602);
      for (const field of ['protocolVersion', 'capabilities', 'clientInfo'])
        expect(body.error?.message).toContain(field);
      expect(body.error?.message).not.toMatch(/invalid_type|"path"/);
    });

    it('tools/list with a cursor it never issued is -32602, whatever its type', async () => {
      for (const cursor of [123, 'bogus']) {
        const { body } = await post(
          server.url,
          { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor } },
          legacy(),
        );
        expect(body.error?.code, String(cursor)).toBe(-32602);
        expect(body.error?.message).toMatch(/cursor/);
      }
    });

    it('batches only under 2025-03-26 (or no MCP-Protocol-Version, which means 2025-03-26)', async () => {
      const batch = [
        { jsonrpc: '2.0', id: 3, method: 'ping' },
        { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      ];
      for (const version of ['2025-06-18', '2025-11-25']) {
        const refused = await post(server.url, batch, legacy(version));
        expect(refused.status, version).toBe(400);
        expect(refused.body.error?.code).toBe(-32600);
      }
      for (const headers of [legacy('2025-03-26'), {}]) {
        const served = await post(server.url, batch, headers);
        expect(served.status).toBe(200);
        expect(served.messages.map((message) => message.id).sort()).toEqual([3, 4]);
      }
    });

    it('Accept: */* is accepted; a 2026-07-28 request is held to the same Accept rule as a legacy one', async () => {
      const ping = { jsonrpc: '2.0', id: 5, method: 'ping' };
      expect((await post(server.url, ping, { ...legacy(), accept: '*/*' })).body.result).toEqual({});
      expect(
        (await post(server.url, ping, { ...legacy(), accept: 'application/*, text/*' })).body.result,
      ).toEqual({});
      expect((await post(server.url, ping, { ...legacy(), accept: 'application/json' })).status).toBe(406);

      const discover = { jsonrpc: '2.0', id: 6, method: 'server/discover', params: { _meta: META() } };
      const headers = modernHeaders('server/discover');
      expect((await post(server.url, discover, { ...headers, accept: '*/*' })).status).toBe(200);
      expect((await post(server.url, discover, { ...headers, accept: 'application/json' })).status).toBe(406);
      expect(
        (await post(server.url, discover, { ...headers, accept: 'text/event-stream;q=0, */*' })).status,
      ).toBe(406);
    });

    it('-32022, server/discover and the legacy 400 name the same supported versions', async () => {
      const discover = await post(
        server.url,
        { jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: META() } },
        modernHeaders('server/discover'),
      );
      expect(discover.body.result?.supportedVersions).toEqual(SUPPORTED_PROTOCOL_VERSIONS);

      const unsupported = await post(
        server.url,
        { jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: META('1999-01-01') } },
        modernHeaders('tools/list', undefined, '1999-01-01'),
      );
      expect(unsupported.status).toBe(400);
      expect(unsupported.body).toMatchObject({
        id: 8,
        error: { code: -32022, data: { supported: SUPPORTED_PROTOCOL_VERSIONS, requested: '1999-01-01' } },
      });

      const legacy400 = await post(
        server.url,
        { jsonrpc: '2.0', id: 9, method: 'ping' },
        legacy('1999-01-01'),
      );
      expect(legacy400.status).toBe(400);
      expect(legacy400.body.error?.message).toContain(
        `supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );

      // initialize negotiates within the same list: an unknown revision is offered the newest 2025 one.
      const init = await post(server.url, initialize(10, '2024-11-05'));
      expect(init.body.result?.protocolVersion).toBe('2025-11-25');
    });
  });

  describe('D18: a client that goes away during a tool call', () => {
    /** Server log lines written while `run` runs. */
    async function logsOf(run: (lines: string[]) => Promise<void>): Promise<string[]> {
      const lines: string[] = [];
      const write = process.stderr.write;
      const level = process.env.SWITCHBOARD_LOG_LEVEL;
      process.env.SWITCHBOARD_LOG_LEVEL = 'info';
      process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        lines.push(String(chunk));
        return write.call(process.stderr, chunk, ...rest);
      }) as typeof process.stderr.write;
      try {
        await run(lines);
      } finally {
        process.stderr.write = write;
        if (level === undefined) delete process.env.SWITCHBOARD_LOG_LEVEL;
        else process.env.SWITCHBOARD_LOG_LEVEL = level;
      }
      return lines;
    }

    /**
     * UpdateIssueStatus reads the issue, then writes it. The read is held up upstream for 2 s, and the client hangs
     * up 0.5 s into the call: while the read is still waiting.
     */
    async function callAndHangUp(body: unknown, headers: Record<string, string>) {
      await emulator.faults([
        { method: 'GET', path: '/issues/:id', kind: 'latency', latencyMs: 2_000, times: 1 },
      ]);
      const abort = new AbortController();
      const call = post(server.url, body, headers, { signal: abort.signal }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
      abort.abort();
      await call;
    }

    /** The upstream writes since the last look, gathered over several looks. */
    const patches: string[] = [];
    const newPatches = async () => {
      for (const r of await emulator.requests()) if (r.method === 'PATCH') patches.push(r.path);
      return patches;
    };

    const issueOf = async (index: number) => {
      const issues = await emulator.state<{ id: string; state: string }>('issues');
      return issues[index]!;
    };
    const updateStatus = (issueId: string) => ({
      name: 'IssueDesk.UpdateIssueStatus',
      arguments: { state: 'closed', lookup_by: 'id', value: issueId },
    });

    it('2025-11-25: a dropped connection is not a cancellation; the write still happens, and nothing is called a crash', async () => {
      const issue = await issueOf(3);
      await emulator.clearLog();
      patches.length = 0;
      const lines = await logsOf(async (log) => {
        await callAndHangUp(
          { jsonrpc: '2.0', id: 11, method: 'tools/call', params: updateStatus(issue.id) },
          legacy(),
        );
        await expect.poll(newPatches, { timeout: 10_000 }).toEqual([`/issues/${issue.id}`]);
        await expect.poll(() => log.some((line) => line.includes('result was not delivered'))).toBe(true);
      });
      expect(lines.join('')).not.toMatch(/tool crashed/);
    });

    it('2026-07-28: closing the response stream cancels the call, logged as a cancellation', async () => {
      const issue = await issueOf(4);
      await emulator.clearLog();
      patches.length = 0;
      const lines = await logsOf(async (log) => {
        await callAndHangUp(
          {
            jsonrpc: '2.0',
            id: 12,
            method: 'tools/call',
            params: { ...updateStatus(issue.id), _meta: META() },
          },
          modernHeaders('tools/call', 'IssueDesk.UpdateIssueStatus'),
        );
        await expect
          .poll(() => log.some((line) => line.includes('tool call cancelled')), { timeout: 10_000 })
          .toBe(true);
      });
      const cancelled = lines
        .map((line) => JSON.parse(line))
        .find((entry) => entry.msg === 'tool call cancelled');
      expect(cancelled).toMatchObject({ level: 'info', tool: 'IssueDesk.UpdateIssueStatus' });
      expect(JSON.stringify(cancelled)).not.toMatch(/\bat \S+:\d+/); // no stack
      expect(lines.join('')).not.toMatch(/tool crashed/);
      // The call stopped at the read: the write never went out.
      expect(await newPatches()).toEqual([]);
    });
  });

  describe("D19: GET / is for this server's own hostnames only", () => {
    it('refuses a foreign Host or Origin, like the MCP endpoint', async () => {
      const root = new URL('/', server.url);
      const ok = await fetch(root);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ name: 'switchboard', tools: 13 });
      const foreignHost = await rawRequest(
        root,
        'GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n',
      );
      expect(foreignHost).toMatch(/^HTTP\/1\.1 403/);
      expect(foreignHost).not.toContain('switchboard');
      const foreignOrigin = await fetch(root, { headers: { origin: 'http://evil.example' } });
      expect(foreignOrigin.status).toBe(403);
    });
  });

  describe('D20: socket limits that fit an MCP endpoint', () => {
    const SHORT = { requestTimeoutMs: 1_000, headersTimeoutMs: 1_000, keepAliveTimeoutMs: 500 };

    it('cuts a request body that trickles in', async () => {
      const limited = await serve({ limits: SHORT });
      const socket = await openSocket(limited.url);
      const port = new URL(limited.url).port;
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          'Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{',
      );
      // One byte every 100 ms would take 100 s to finish the body.
      let sent = 1;
      const drip = setInterval(() => {
        if (!socket.destroyed && sent < 999) {
          socket.write(' ');
          sent += 1;
        }
      }, 100);
      try {
        const answer = await untilClosed(socket);
        expect(answer).toMatch(/^HTTP\/1\.1 408/);
        expect(sent).toBeLessThan(999);
      } finally {
        clearInterval(drip);
      }
    });

    it('answers a body over 8 MiB with 413, whether it declares its length or comes in chunks', async () => {
      const port = new URL(server.url).port;
      const head =
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        'Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n';
      const declared = await openSocket(server.url);
      declared.write(`${head}Content-Length: ${MAX_HTTP_REQUEST_BYTES + 1}\r\n\r\n{`);
      expect(await firstData(declared)).toMatch(/^HTTP\/1\.1 413[\s\S]*Request body must not exceed/);
      declared.destroy();
      // Chunked, without a length: read up to the limit, then refused.
      const chunked = await openSocket(server.url);
      const answered = untilClosed(chunked);
      chunked.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
      const piece = Buffer.alloc(1024 * 1024, 0x20);
      for (let i = 0; i < 9 && !chunked.destroyed; i++) {
        chunked.write(`${piece.length.toString(16)}\r\n`);
        chunked.write(piece);
        chunked.write('\r\n');
      }
      chunked.end();
      expect(await answered).toMatch(/^HTTP\/1\.1 413[\s\S]*Request body must not exceed/);
    });

    it('closes a connection that never sends a request, and an idle keep-alive one', async () => {
      const limited = await serve({ limits: SHORT });
      const silent = await openSocket(limited.url);
      expect(await untilClosed(silent)).toMatch(/^HTTP\/1\.1 408/);

      const idle = await openSocket(limited.url);
      const port = new URL(limited.url).port;
      idle.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      expect(await untilClosed(idle)).toMatch(/^HTTP\/1\.1 200/);
    });

    it('lets a tool call answer long after the request timeout, over SSE (2025) and JSON (2026-07-28)', async () => {
      const limited = await serve({ limits: SHORT });
      // Twice the request timeout upstream: the answer comes long after the request was received.
      await emulator.faults([{ path: '/me', kind: 'latency', latencyMs: 2_000, times: 2 }]);
      const [legacyCall, modernCall] = await Promise.all([
        post(
          limited.url,
          {
            jsonrpc: '2.0',
            id: 13,
            method: 'tools/call',
            params: { name: 'IssueDesk.WhoAmI', arguments: {} },
          },
          legacy(),
        ),
        post(
          limited.url,
          {
            jsonrpc: '2.0',
            id: 14,
            method: 'tools/call',
            params: { name: 'IssueDesk.WhoAmI', arguments: {}, _meta: META() },
          },
          modernHeaders('tools/call', 'IssueDesk.WhoAmI'),
        ),
      ]);
      expect(legacyCall.body.result?.structuredContent).toHaveProperty('organization');
      expect(modernCall.body.result?.structuredContent).toHaveProperty('organization');
    });

    it("takes the limits from the serve command's flags", async () => {
      const cli = spawnCli(
        [
          'serve',
          'issuedesk',
          '--sandbox',
          '--data-dir',
          ':memory:',
          '--transport',
          'http',
          '--port',
          '0',
        ].concat(['--request-timeout', '1', '--headers-timeout', '1', '--max-connections', '1']),
        { SWITCHBOARD_LOG_LEVEL: 'warn' },
        /(http:\/\/127\.0\.0\.1:\d+\/mcp)/,
      );
      try {
        const [, url] = await cli.ready;
        const silent = await openSocket(url!);
        const closedSilent = untilClosed(silent);
        const overCap = await openSocket(url!);
        expect(await untilClosed(overCap)).toBe('');
        expect(await closedSilent).toMatch(/^HTTP\/1\.1 408/);
      } finally {
        await cli.stop();
      }
    });

    it('refuses connections over the cap, and takes new ones once there is room', async () => {
      const limited = await serve({ limits: { maxConnections: 2 } });
      const port = new URL(limited.url).port;
      const get = (connection: string) =>
        `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: ${connection}\r\n\r\n`;
      const held = [await openSocket(limited.url), await openSocket(limited.url)];
      for (const socket of held) {
        socket.write(get('keep-alive'));
        expect(await firstData(socket)).toMatch(/^HTTP\/1\.1 200/);
      }
      const third = await openSocket(limited.url);
      third.write(get('close'));
      expect(await untilClosed(third)).toBe('');

      held[0]!.destroy();
      await expect
        .poll(async () => rawRequest(new URL('/', limited.url), get('close')).catch(() => ''), {
          timeout: 5_000,
        })
        .toMatch(/^HTTP\/1\.1 200/);
      held[1]!.destroy();
    });
  });
});

function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectSocket({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection. */
function untilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on('error', () => undefined); // a reset is a close too
    socket.once('close', () => resolve(received));
  });
}

function firstData(socket: Socket): Promise<string> {
  return new Promise((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString())));
}

/** One request written as is (a fetch would set its own Host), answered until the server closes. */
async function rawRequest(url: URL, request: string): Promise<string> {
  const socket = await openSocket(url.href);
  socket.write(request);
  return untilClosed(socket);
}
