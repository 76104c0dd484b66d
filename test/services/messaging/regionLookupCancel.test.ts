// The `auto` region lookup runs with the calling tool call's signal: a cancelled call stops waiting for it, and a
// call that shared that lookup (concurrent calls wait on one) is not failed by the other's cancellation.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { MessagingClient } from '../../../src/services/messaging/client.js';
import { type MessagingEmulatorHandle, startMessaging } from '../../e2e/messagingHarness.js';

let upstream: MessagingEmulatorHandle;
beforeAll(async () => {
  upstream = await startMessaging();
});
afterAll(() => upstream?.close());

it('a cancelled call stops waiting for the lookup; a call sharing it still gets its client', async () => {
  // The lookup is slow; the call that starts it is cancelled while it runs.
  await upstream.faults([
    { method: 'GET', path: '/api/v1/accounts/region', kind: 'latency', latencyMs: 600 },
  ]);
  const track = new MessagingClient({
    region: 'auto',
    baseUrl: upstream.url,
    siteId: () => upstream.siteId,
    apiKey: () => upstream.apiKey,
    clientRateLimits: false,
  });
  const cancelled = new AbortController();
  const first = track.client(cancelled.signal);
  const second = track.client(new AbortController().signal);
  cancelled.abort(new Error('the test cancels'));
  await expect(first).rejects.toThrow('the test cancels');
  // The second call asked again, on its own signal, and got the account's host.
  const client = await second;
  expect(client).toBeDefined();
  const lookups = (await upstream.requests()).filter((r) => r.path === '/api/v1/accounts/region');
  expect(lookups.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
  await upstream.clearFaults();
});
