// Which error envelope a problem found before any route runs is answered in (emulator/errors.ts): the operation's
// own (endpoints.ts), on either regional host; for a path that is no operation, the one its API version's
// operations share (v2), else v1. Shown with the account-wide rate limit, which counts every path.

import { afterAll, describe, expect, it } from 'vitest';
import { TRACK_RATE_LIMIT_LABEL } from '../../../../src/services/messaging/emulator/app.js';
import { basic, call, makeEmulator } from './helpers.js';

const us = makeEmulator();
const eu = makeEmulator({ region: 'eu', siteId: 'eu_site', apiKey: 'eu_key' });
const EU_AUTH = basic('eu_site', 'eu_key');
afterAll(() => {
  us.close();
  eu.close();
});

/** Lets one upstream request through per window, so every later one is refused with 429. */
async function exhaustRateLimit(emulator: ReturnType<typeof makeEmulator>, auth?: string): Promise<void> {
  await call(emulator, 'PUT', '/_emulator/rate-limits', {
    body: { enabled: true, limits: { [TRACK_RATE_LIMIT_LABEL]: 1 } },
  });
  const first = await call(emulator, 'GET', '/api/v1/accounts/region', auth ? { auth } : {});
  expect(first.status).toBe(200);
}

describe('the envelope of a 429', () => {
  it('is each operation’s own on the US host, and by API version on paths that are no operation', async () => {
    await exhaustRateLimit(us);
    const merge = await call(us, 'POST', '/api/v1/merge_customers', { body: {} });
    expect(merge.status).toBe(429);
    expect(merge.body).toEqual({ meta: { error: expect.stringMatching(/Rate limit exceeded/) } });
    const entity = await call(us, 'POST', '/api/v2/entity', { body: {} });
    expect(entity.body.errors[0]).toMatchObject({ reason: 'invalid', field: '' });
    const unknownV2 = await call(us, 'POST', '/api/v2/not-an-operation', { body: {} });
    expect(unknownV2.status).toBe(429);
    expect(unknownV2.body.errors[0].message).toMatch(/Rate limit exceeded/);
    const unknownV1 = await call(us, 'POST', '/api/v1/merge_customers/extra', { body: {} });
    expect(unknownV1.body).toEqual({ meta: { errors: [expect.stringMatching(/Rate limit exceeded/)] } });
    const v1 = await call(us, 'PUT', '/api/v1/customers/someone', { body: {} });
    expect(v1.body).toEqual({ meta: { errors: [expect.stringMatching(/Rate limit exceeded/)] } });
  });

  it('is the same on the EU host', async () => {
    await exhaustRateLimit(eu, EU_AUTH);
    const merge = await call(eu, 'POST', '/eu/api/v1/merge_customers', { auth: EU_AUTH, body: {} });
    expect(merge.status).toBe(429);
    expect(merge.body).toEqual({ meta: { error: expect.stringMatching(/Rate limit exceeded/) } });
    const batch = await call(eu, 'POST', '/eu/api/v2/batch', { auth: EU_AUTH, body: {} });
    expect(batch.status).toBe(429);
    expect(batch.body.errors[0].message).toMatch(/Rate limit exceeded/);
  });
});
