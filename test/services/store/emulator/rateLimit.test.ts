// The per-base rate limit: 5 requests in any one second per base; the sixth starts a 30-second penalty in
// which every request to that base gets 429 RATE_LIMIT_REACHED (other bases unaffected), then the base starts
// afresh. Driven by a manual clock; the request log shows the 429s; settings change at
// /_emulator/base-rate-limit.
import { afterAll, describe, expect, it } from 'vitest';
import { call, ids, makeEmulator } from './helpers.js';

const emulator = makeEmulator({ baseRateLimit: { perSecond: 5, penaltyMs: 30_000 } });
afterAll(() => emulator.close());

const roadmap = ids(emulator, 'Product Roadmap', 'Features');
const crm = ids(emulator, 'Sales CRM', 'Deals');
const get = (base = roadmap.base, table = roadmap.table) =>
  call(emulator, 'GET', `/v0/${base}/${table}?maxRecords=1`);

describe('per-base rate limit', () => {
  it('allows 5 requests per second and puts the base in a 30 s penalty on the sixth', async () => {
    for (let i = 0; i < 5; i++) expect((await get()).status).toBe(200);
    const sixth = await get();
    expect(sixth.status).toBe(429);
    expect(sixth.body).toEqual({
      error: { type: 'RATE_LIMIT_REACHED', message: 'Rate limit exceeded. Please try again later' },
    });
    // Other bases and base-less endpoints are not affected.
    expect((await get(crm.base, crm.table)).status).toBe(200);
    expect((await call(emulator, 'GET', '/v0/meta/whoami')).status).toBe(200);
    // Every endpoint with this base in its path is refused during the penalty, even after the window has passed.
    emulator.clock.advance(1_500);
    expect((await get()).status).toBe(429);
    expect((await call(emulator, 'GET', `/v0/meta/bases/${roadmap.base}/tables`)).status).toBe(429);
    emulator.clock.advance(27_000);
    expect((await get()).status).toBe(429);
    emulator.clock.advance(1_600);
    expect((await get()).status).toBe(200);
  });

  it('uses a sliding one-second window', async () => {
    emulator.clock.advance(60_000);
    for (let i = 0; i < 4; i++) expect((await get(crm.base, crm.table)).status).toBe(200);
    emulator.clock.advance(600);
    expect((await get(crm.base, crm.table)).status).toBe(200);
    emulator.clock.advance(500);
    // The first four are now more than a second old: four more fit.
    for (let i = 0; i < 4; i++) expect((await get(crm.base, crm.table)).status).toBe(200);
    expect((await get(crm.base, crm.table)).status).toBe(429);
  });

  it('shows the 429s in the request log', async () => {
    const res = await call(emulator, 'GET', '/_emulator/requests');
    const statuses = res.body.requests.map((r: { status: number }) => r.status);
    expect(statuses).toContain(429);
    const refused = res.body.requests.find((r: { status: number; path: string }) => r.status === 429);
    expect(refused.path).toContain(roadmap.base);
  });

  it('is configured at /_emulator/base-rate-limit and cleared by DELETE', async () => {
    const state = await call(emulator, 'GET', '/_emulator/base-rate-limit');
    expect(state.body).toMatchObject({ enabled: true, perSecond: 5, penaltyMs: 30_000 });
    expect(state.body.penalized.map((p: { baseId: string }) => p.baseId)).toEqual([crm.base]);
    const cleared = await call(emulator, 'DELETE', '/_emulator/base-rate-limit');
    expect(cleared.body.penalized).toEqual([]);
    expect((await get(crm.base, crm.table)).status).toBe(200);
    const updated = await call(emulator, 'PUT', '/_emulator/base-rate-limit', {
      body: { perSecond: 2, penaltyMs: 1000 },
    });
    expect(updated.body).toMatchObject({ enabled: true, perSecond: 2, penaltyMs: 1000 });
    emulator.clock.advance(5_000);
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);
    emulator.clock.advance(1_001);
    expect((await get()).status).toBe(200);
    const off = await call(emulator, 'PUT', '/_emulator/base-rate-limit', { body: { enabled: false } });
    expect(off.body.enabled).toBe(false);
    for (let i = 0; i < 20; i++) expect((await get()).status).toBe(200);
    const bad = await call(emulator, 'PUT', '/_emulator/base-rate-limit', { body: { perSecond: 0 } });
    expect(bad.status).toBe(400);
  });

  it('can be switched off entirely by the option', () => {
    const quiet = makeEmulator({ baseRateLimit: false });
    expect(quiet.baseRateLimiter.config.enabled).toBe(false);
    quiet.close();
  });
});
