// A 2025-era tools/call over HTTP is answered by a kept MCP server (src/runtime/legacyExchange.ts) instead of one
// built for the request. Spoken raw, so that the same JSON-RPC id can come from several clients at once: each
// answer must be its own, a server whose client hung up must not serve again, and what the kept servers do not take
// must get the SDK's own answer, as before.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyExchangeRequest } from '../../src/runtime/legacyExchange.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { type RunningHttpServer, serveHttp } from '../../src/runtime/transports.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';
import { type Emulator, postMcp, type RawReply, startEmulator } from './harness.js';

const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

/** A raw POST under the 2025 revision by default; `reply` is the JSON-RPC answer. */
async function post(url: string, body: unknown, headers = LEGACY, signal?: AbortSignal) {
  const answer = await postMcp(url, body, headers, signal ? { signal } : {});
  return { ...answer, reply: answer.body as Reply };
}

type Reply = RawReply & { result?: { structuredContent?: Record<string, unknown>; isError?: boolean } };

const getIssue = (id: number | string, issueId: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'IssueDesk.GetIssue', arguments: { lookup_by: 'id', value: issueId } },
});

describe('2025 tools/call over HTTP, by kept servers', () => {
  let emulator: Emulator;
  let server: RunningHttpServer;
  let issueIds: string[];

  beforeAll(async () => {
    emulator = await startEmulator();
    const runtime = createIssueDeskRuntime({
      baseUrl: emulator.url,
      token: () => emulator.token,
      clientRateLimits: false,
    });
    server = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 });
    issueIds = (await emulator.state<{ id: string }>('issues')).slice(0, 12).map((issue) => issue.id);
  });
  afterAll(async () => {
    await server?.close();
    await emulator?.close();
  });

  it('answers calls sent at once with the same JSON-RPC id each with its own result, under its own id', async () => {
    for (const id of [1, 'same']) {
      const answers = await Promise.all(issueIds.map((issueId) => post(server.url, getIssue(id, issueId))));
      answers.forEach((answer, k) => {
        expect(answer.status).toBe(200);
        expect(answer.type).toBe('application/json');
        const { reply } = answer;
        expect(reply.id).toBe(id);
        expect(reply.result?.isError, JSON.stringify(reply)).toBeUndefined();
        expect((reply.result?.structuredContent?.issue as { id?: string } | undefined)?.id).toBe(issueIds[k]);
      });
    }
  });

  it('answers an unknown tool with the same JSON-RPC error as before, and keeps serving', async () => {
    const { reply: unknown } = await post(server.url, {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'IssueDesk.NoSuchTool', arguments: {} },
    });
    expect(unknown).toMatchObject({ id: 5, error: { code: -32602 } });
    expect(unknown.error?.message).toContain('Unknown tool "IssueDesk.NoSuchTool"');
    const { reply: next } = await post(server.url, getIssue(6, issueIds[0]!));
    expect(next.result?.isError).toBeUndefined();
  });

  it('does not serve again from a server whose client hung up: later calls are answered', async () => {
    await emulator.faults([
      { method: 'GET', path: '/issues/:id', kind: 'latency', latencyMs: 1_500, times: 4 },
    ]);
    await Promise.all(
      issueIds.slice(0, 4).map(async (issueId, k) => {
        const abort = new AbortController();
        const call = post(server.url, getIssue(100 + k, issueId), LEGACY, abort.signal).catch(
          () => undefined,
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        abort.abort();
        await call;
      }),
    );
    // The hung-up calls run to their end meanwhile; every call after them gets its own answer.
    const answers = await Promise.all(
      issueIds.map((issueId, k) => post(server.url, getIssue(200 + k, issueId))),
    );
    for (const [k, answer] of answers.entries()) {
      const { reply } = answer;
      expect(reply.id).toBe(200 + k);
      expect(reply.result?.isError, JSON.stringify(reply)).toBeUndefined();
    }
  });

  it('leaves to the SDK what it would answer otherwise: progress, other versions, notifications, bad messages', () => {
    const call = getIssue(1, 'x');
    expect(legacyExchangeRequest(call, '2025-11-25')).toEqual(call);
    expect(legacyExchangeRequest(call, '2025-06-18')).toEqual(call);
    // Progress needs the SDK's SSE answer; the 2026 revision, an unknown one or none, the SDK's checks.
    const withProgress = { ...call, params: { ...call.params, _meta: { progressToken: 't' } } };
    expect(legacyExchangeRequest(withProgress, '2025-11-25')).toBeUndefined();
    for (const version of ['2026-07-28', '1999-01-01', null]) {
      expect(legacyExchangeRequest(call, version), String(version)).toBeUndefined();
    }
    expect(legacyExchangeRequest({ jsonrpc: '2.0', method: 'tools/call' }, '2025-11-25')).toBeUndefined();
    expect(legacyExchangeRequest({ ...call, jsonrpc: '1.0' }, '2025-11-25')).toBeUndefined();
    expect(legacyExchangeRequest([call], '2025-11-25')).toBeUndefined();
    expect(legacyExchangeRequest({ ...call, method: 'tools/list' }, '2025-11-25')).toBeUndefined();
  });

  it('still answers a call that asks for progress as an SSE stream, and an unknown version with 400', async () => {
    const withProgress = getIssue(7, issueIds[0]!);
    (withProgress.params as Record<string, unknown>)._meta = { progressToken: 'p1' };
    const streamed = await post(server.url, withProgress);
    expect(streamed.type).toBe('text/event-stream');
    expect(streamed.reply.id).toBe(7);
    const refused = await post(server.url, getIssue(8, issueIds[0]!), {
      'mcp-protocol-version': '1999-01-01',
    });
    expect(refused.status).toBe(400);
  });
});
