// IssueDesk against the issue-desk emulator with its per-minute limits on: a burst of 30 calls to a 10-per-minute
// endpoint meets no upstream 429. The client's limiter is the real one over Pylon's published table; it and the
// emulator read one manual clock, so the minute passes without the test waiting for it.

import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/emulation/clock.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { serveHttp } from '../../src/runtime/transports.js';
import { issueDeskRateLimiter } from '../../src/services/issuedesk/client.js';
import {
  type RunningIssueDeskEmulator,
  startIssueDeskEmulator,
} from '../../src/services/issuedesk/emulator/app.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';
import { type Connected, connectClient, errorOf, inspector } from './harness.js';

const clock = manualClock('2026-03-02T12:00:00Z');
let upstream: RunningIssueDeskEmulator;
let inspect: ReturnType<typeof inspector>;
let mcp: Connected;
const slept: number[] = [];

beforeAll(async () => {
  upstream = await startIssueDeskEmulator({ clock });
  inspect = inspector(upstream.url);
  // Sleeping moves the shared clock instead of waiting; nothing else moves it but the test.
  const rateLimiter = issueDeskRateLimiter({
    now: () => clock.now().getTime(),
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      slept.push(ms);
      clock.advance(ms);
    },
  });
  const runtime = createIssueDeskRuntime({
    baseUrl: upstream.url,
    token: () => upstream.token,
    rateLimiter,
    now: () => clock.now(),
  });
  const server = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 });
  mcp = await connectClient(new StreamableHTTPClientTransport(new URL(server.url)), () => server.close());
});

afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
});

/** One ListIssues call over the last hour: exactly one GET /issues upstream. */
const listLastHour = () => {
  const end = clock.now();
  const start = new Date(end.getTime() - 3600_000);
  return mcp.call('IssueDesk.ListIssues', { start_time: start.toISOString(), end_time: end.toISOString() });
};

describe('IssueDesk: Pylon per-minute limits with the emulator enforcing them', () => {
  it('a burst of 30 calls to GET /issues (10/min) sees no 429: 10 go, 20 are refused before sending', async () => {
    await inspect.send('PUT', '/_emulator/rate-limits', { enabled: true });
    const config = await inspect.get<{ enabled: boolean; mode: string; limits: Record<string, number> }>(
      '/_emulator/rate-limits',
    );
    expect(config).toMatchObject({ enabled: true, mode: 'sliding', limits: { 'GET /issues': 10 } });
    await inspect.clearLog();

    const burst = await Promise.all(Array.from({ length: 30 }, listLastHour));
    const requests = await inspect.requests();
    expect(requests.filter((r) => r.status === 429)).toEqual([]);
    expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(
      Array.from({ length: 10 }, () => 'GET /issues 200'),
    );
    const served = burst.filter((r) => !r.isError);
    const refused = burst.filter((r) => r.isError).map(errorOf);
    expect(served).toHaveLength(10);
    expect(refused).toHaveLength(20);
    for (const error of refused) {
      expect(error).toMatchObject({ kind: 'rate_limited', retry_after_seconds: 61 });
      expect(error.status).toBeUndefined();
      expect(error.message).toMatch(/Client-side rate limit for GET \/issues \(10 per 60 s\)/);
    }

    // A minute later (but not yet a minute and the slack second after the first ten), the next burst: ten wait
    // the remaining second and go, twenty would wait past maxWait and are refused at once.
    clock.advance(60_000);
    const again = await Promise.all(Array.from({ length: 30 }, listLastHour));
    expect(again.filter((r) => !r.isError)).toHaveLength(10);
    expect(again.filter((r) => r.isError).map((r) => errorOf(r).kind)).toEqual(
      Array.from({ length: 20 }, () => 'rate_limited'),
    );
    expect(slept).toEqual([1_000]);
    const later = await inspect.requests();
    expect(later.filter((r) => r.status === 429)).toEqual([]);
    expect(later).toHaveLength(10);
  });
});
