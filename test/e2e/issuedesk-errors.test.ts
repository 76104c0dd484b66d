// Failures, end to end: each becomes an isError result that names the problem and the next step; nothing
// crashes, and the secret never shows.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Connected, connectHttp, connectStdio, type Emulator, startEmulator } from './harness.js';

interface ErrorPayload {
  kind: string;
  status?: number;
  retryable: boolean;
  retry_after_seconds?: number;
  hint?: string;
  message: string;
}

describe('IssueDesk failures', () => {
  let emulator: Emulator;
  let mcp: Connected;

  beforeAll(async () => {
    emulator = await startEmulator();
    mcp = await connectHttp({
      ISSUEDESK_BASE_URL: emulator.url,
      ISSUEDESK_API_TOKEN: emulator.token,
      SWITCHBOARD_TIMEOUT_MS: '400',
    });
  });
  afterAll(async () => {
    await mcp?.close();
    await emulator?.close();
  });
  beforeEach(async () => {
    await emulator.clearFaults();
    await emulator.clearLog();
  });

  const whoAmI = async () => {
    const result = await mcp.call('IssueDesk.WhoAmI');
    return { ...result, error: result.structured.error as ErrorPayload };
  };

  it('429 with Retry-After: retried after the wait, then succeeds', async () => {
    await emulator.faults([{ path: '/me', kind: 'rate_limit', retryAfterSeconds: 1, times: 1 }]);
    const result = await whoAmI();
    expect(result.isError).toBe(false);
    const log = await emulator.requests();
    expect(log.map((r) => r.status)).toEqual([429, 200]);
  });

  it('429 that persists: a rate_limited error with the wait to respect', async () => {
    await emulator.faults([{ path: '/me', kind: 'rate_limit', retryAfterSeconds: 30 }]);
    const result = await whoAmI();
    expect(result.isError).toBe(true);
    expect(result.error).toMatchObject({
      kind: 'rate_limited',
      status: 429,
      retryable: true,
      retry_after_seconds: 30,
    });
    expect(result.text).toMatch(/30 s/);
  });

  it('5xx on a read: retried; when it persists, upstream_unavailable', async () => {
    await emulator.faults([{ path: '/me', kind: 'error', status: 503, times: 1 }]);
    expect((await whoAmI()).isError).toBe(false);
    await emulator.clearLog();
    await emulator.faults([{ path: '/me', kind: 'error', status: 500 }]);
    const result = await whoAmI();
    expect(result.error).toMatchObject({ kind: 'upstream_unavailable', status: 500, retryable: true });
    expect((await emulator.requests()).length).toBe(3);
  });

  it('5xx on a note is not re-sent: the note may already exist', async () => {
    await emulator.faults([{ method: 'POST', kind: 'error', status: 500 }]);
    const result = await mcp.call('IssueDesk.AddMessage', { issue_id: '1', body: 'hello' });
    expect(result.isError).toBe(true);
    expect(result.structured.error).toMatchObject({ kind: 'outcome_unknown', status: 500, retryable: false });
    expect((result.structured.error as ErrorPayload).hint).toMatch(/may have taken effect/);
    expect((await emulator.requests()).filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('a slow upstream times out', async () => {
    await emulator.faults([{ path: '/me', kind: 'latency', latencyMs: 1500 }]);
    const result = await whoAmI();
    expect(result.error).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('a dropped connection is a network error', async () => {
    await emulator.faults([{ path: '/me', kind: 'drop' }]);
    const result = await whoAmI();
    expect(result.error).toMatchObject({ kind: 'network', retryable: true });
  });

  it('a wrong token: unauthorized, with the secret masked and a hint naming the variable', async () => {
    const wrong = 'pylon_wrong_token_for_test';
    const other = await connectHttp({ ISSUEDESK_BASE_URL: emulator.url, ISSUEDESK_API_TOKEN: wrong });
    try {
      const result = await other.call('IssueDesk.WhoAmI');
      expect(result.isError).toBe(true);
      expect(result.structured.error).toMatchObject({ kind: 'unauthorized', status: 401 });
      expect(result.text).toMatch(/ISSUEDESK_API_TOKEN/);
      expect(JSON.stringify(result)).not.toContain(wrong);
    } finally {
      await other.close();
    }
  });
});

describe('IssueDesk without a token', () => {
  let emulator: Emulator;
  let mcp: Connected;
  beforeAll(async () => {
    emulator = await startEmulator();
    mcp = await connectStdio({ ISSUEDESK_BASE_URL: emulator.url });
  });
  afterAll(async () => {
    await mcp?.close();
    await emulator?.close();
  });

  it('starts, lists its tools, and each call names the missing secret without calling upstream', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools).toHaveLength(13);
    for (const [name, args] of [
      ['IssueDesk.WhoAmI', {}],
      ['IssueDesk.SearchIssues', { query: 'login' }],
    ] as const) {
      const result = await mcp.call(name, args);
      expect(result.isError).toBe(true);
      expect(result.structured.error).toMatchObject({ kind: 'missing_secret', retryable: false });
      expect(result.text).toMatch(/ISSUEDESK_API_TOKEN/);
    }
    expect(await emulator.requests()).toEqual([]);
  });
});
