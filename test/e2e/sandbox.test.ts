// `npm start`'s sandbox keeps its data: a change made through the tools survives a restart, and --reset
// reseeds.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { connectClient, spawnCli } from './harness.js';

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-sandbox-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function withSandbox<T>(
  extra: string[],
  use: (call: Awaited<ReturnType<typeof connectClient>>['call']) => Promise<T>,
) {
  const proc = spawnCli(
    [
      'serve',
      'issuedesk',
      '--sandbox',
      '--transport',
      'http',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      ...extra,
    ],
    {},
    /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
  );
  try {
    const [, url] = await proc.ready;
    const mcp = await connectClient(new StreamableHTTPClientTransport(new URL(url!)));
    try {
      return await use(mcp.call);
    } finally {
      await mcp.close();
    }
  } finally {
    await proc.stop();
  }
}

describe('sandbox persistence', () => {
  it('keeps changes across restarts and reseeds with --reset', async () => {
    const original = await withSandbox([], async (call) => {
      const before = await call('IssueDesk.GetIssue', { lookup_by: 'id', value: '1' });
      const state = (before.structured.issue as { state: string }).state;
      const target = state === 'on_hold' ? 'closed' : 'on_hold';
      const done = await call('IssueDesk.UpdateIssueStatus', { state: target, lookup_by: 'id', value: '1' });
      expect(done.structured.status).toBe('done');
      return { state, target };
    });
    await withSandbox([], async (call) => {
      const again = await call('IssueDesk.GetIssue', { lookup_by: 'id', value: '1' });
      expect((again.structured.issue as { state: string }).state).toBe(original.target);
    });
    await withSandbox(['--reset'], async (call) => {
      const reset = await call('IssueDesk.GetIssue', { lookup_by: 'id', value: '1' });
      expect((reset.structured.issue as { state: string }).state).toBe(original.state);
    });
    // Three sandbox starts in a row through tsx: seconds each while the rest of the suite loads both cores.
  }, 60_000);
});
