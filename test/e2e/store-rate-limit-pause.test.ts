// StoreApi after an upstream 429: the base is in the upstream's 30-second penalty, so the server sends nothing
// more to it until the penalty is over. Calls to that base answer rate_limited with the remaining wait without
// reaching the upstream; other bases carry on.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, errorOf } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore } from './storeHarness.js';

let upstream: StoreEmulatorHandle;
let mcp: Connected;
let blocked: string;
let other: string;

beforeAll(async () => {
  upstream = await startStore();
  // The upstream's documented limit and penalty, on (the harness starts with it off).
  await upstream.send('PUT', '/_emulator/base-rate-limit', {
    enabled: true,
    perSecond: 5,
    penaltyMs: 30_000,
  });
  const bases = await upstream.state<{ id: string; name: string }>('bases');
  blocked = bases.find((b) => b.name === 'Sales CRM')!.id;
  other = bases.find((b) => b.name === 'Product Roadmap')!.id;
  mcp = await connectStore('http', upstream.env({ SWITCHBOARD_CLIENT_RATE_LIMITS: 'on' }));
});
afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
});

const schemaOf = (base: string) => mcp.call('StoreApi.GetStoreBaseSchema', { store_base_id: base });
const onBase = (base: string) => (r: { path: string }) => r.path.includes(base);

describe('StoreApi: a 429 pauses its base for the penalty', () => {
  it('after one 429, calls to that base are refused without sending, with the wait; another base is served', async () => {
    // Someone else's burst (another script on the same base) puts the base into its penalty.
    for (let i = 0; i < 6; i++) {
      await fetch(`${upstream.url}/v0/meta/bases/${blocked}/tables`, {
        headers: { authorization: `Bearer ${upstream.token}` },
      });
    }
    await upstream.clearLog();

    const first = await schemaOf(blocked);
    expect(errorOf(first)).toMatchObject({ kind: 'rate_limited', status: 429, retry_after_seconds: 30 });

    const next = await Promise.all([schemaOf(blocked), schemaOf(blocked), schemaOf(blocked)]);
    for (const result of next) {
      const error = errorOf(result);
      expect(error.kind).toBe('rate_limited');
      // Refused here, not by the upstream: no status, and the wait left of the penalty.
      expect(error.status).toBeUndefined();
      expect(error.retry_after_seconds).toBeGreaterThanOrEqual(1);
      expect(error.retry_after_seconds).toBeLessThanOrEqual(30);
      expect(error.message).toMatch(new RegExp(`429.*base:${blocked}`));
      expect(error.hint).toMatch(/Wait about \d+ s/);
    }

    const elsewhere = await schemaOf(other);
    expect(elsewhere.isError).toBe(false);

    const requests = await upstream.requests();
    // One request reached the blocked base (the 429); the three after it never left.
    expect(requests.filter(onBase(blocked)).map((r) => r.status)).toEqual([429]);
    expect(requests.filter(onBase(other)).map((r) => r.status)).toEqual([200]);
  });
});
