// Both protocol revisions the SDK serves, spoken as raw JSON-RPC so the test does not depend on what the SDK
// client negotiates: the 2025-11-25 era (initialize handshake) over HTTP and stdio, and the SDK client's own
// (2026-07-28) everywhere else in the suite.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { type RunningHttpServer, serveHttp } from '../../src/runtime/transports.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';
import { CLI, postMcp, ROOT } from './harness.js';

const LEGACY = '2025-11-25';
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: LEGACY,
    capabilities: {},
    clientInfo: { name: 'legacy-client', version: '1.0.0' },
  },
};

describe(`protocol revision ${LEGACY}`, () => {
  let server: RunningHttpServer;
  beforeAll(async () => {
    const runtime = createIssueDeskRuntime({ token: () => undefined });
    server = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 });
  });
  afterAll(() => server.close());

  const post = (body: unknown, headers: Record<string, string> = {}) => postMcp(server.url, body, headers);

  it('over HTTP: initialize negotiates it, then tools/list works statelessly', async () => {
    const init = await post(initialize);
    expect(init.status).toBe(200);
    expect(init.body.result?.protocolVersion).toBe(LEGACY);
    expect(String(init.body.result?.instructions)).toMatch(/IssueDesk/);
    const list = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-protocol-version': LEGACY },
    );
    expect(list.body.result?.tools).toHaveLength(13);
  });

  it('over stdio: initialize, initialized, tools/list', async () => {
    const child = spawn(process.execPath, [...CLI, 'serve', 'issuedesk'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const lines = createInterface({ input: child.stdout! });
    const replies: Record<number, { result?: Record<string, unknown> }> = {};
    const waiting = new Map<number, () => void>();
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { id?: number; result?: Record<string, unknown> };
      if (typeof message.id === 'number') {
        replies[message.id] = message;
        waiting.get(message.id)?.();
      }
    });
    const request = (message: { id: number }) =>
      new Promise<{ result?: Record<string, unknown> }>((resolve) => {
        waiting.set(message.id, () => resolve(replies[message.id]!));
        child.stdin!.write(`${JSON.stringify(message)}\n`);
      });
    try {
      const init = await request(initialize);
      expect(init.result?.protocolVersion).toBe(LEGACY);
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const list = await request({ jsonrpc: '2.0', id: 2, method: 'tools/list' } as { id: number });
      const names = ((list.result?.tools ?? []) as { name: string }[]).map((tool) => tool.name);
      expect(names).toContain('IssueDesk.SearchIssues');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
