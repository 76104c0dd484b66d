// Track API emulator plumbing: Basic auth, the no-auth endpoints, regional hosts (307 to EU, 401 on the wrong
// host), success and error bodies, the body-size cap, the account-wide rate limit, faults and unknown paths.
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_MESSAGING_API_KEY,
  DEFAULT_MESSAGING_SITE_ID,
  MAX_BODY_BYTES,
  TRACK_RATE_LIMIT_LABEL,
} from '../../../../src/services/messaging/emulator/app.js';
import { AUTH, basic, call, makeEmulator, state } from './helpers.js';

const us = makeEmulator();
const eu = makeEmulator({ region: 'eu', siteId: 'eu_site', apiKey: 'eu_key' });
const EU_AUTH = basic('eu_site', 'eu_key');
afterAll(() => {
  us.close();
  eu.close();
});

describe('HTTP Basic auth (site id : Track API key)', () => {
  it('accepts the right pair and answers {} with the upstream content type', async () => {
    const res = await call(us, 'PUT', '/api/v1/customers/auth-ok', { body: { plan: 'pro' } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{}');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it.each([
    ['no Authorization header', null],
    ['a wrong key', basic(DEFAULT_MESSAGING_SITE_ID, 'wrong')],
    ['a wrong site id', basic('other_site', DEFAULT_MESSAGING_API_KEY)],
    ['the key as a bearer token', `Bearer ${DEFAULT_MESSAGING_API_KEY}`],
    ['Basic without a colon', `Basic ${Buffer.from('sandbox_site').toString('base64')}`],
    ['garbage', 'Basic !!!'],
  ])('refuses %s with an empty 401', async (_label, auth) => {
    const res = await call(us, 'PUT', '/api/v1/customers/auth-refused', { body: {}, auth });
    expect(res.status).toBe(401);
    expect(res.text).toBe('');
    expect(await call(us, 'GET', '/_emulator/state/people/auth-refused')).toMatchObject({ status: 404 });
  });

  it('refuses every authenticated endpoint, v1 and v2, and unknown paths, without credentials', async () => {
    const paths: [string, string][] = [
      ['GET', '/api/v1/accounts/region'],
      ['DELETE', '/api/v1/customers/user-1'],
      ['PUT', '/api/v1/customers/user-1/devices'],
      ['DELETE', '/api/v1/customers/user-1/devices/x'],
      ['POST', '/api/v1/customers/user-1/suppress'],
      ['POST', '/api/v1/customers/user-1/unsuppress'],
      ['POST', '/api/v1/customers/user-1/events'],
      ['POST', '/api/v1/events'],
      ['POST', '/api/v1/forms/f/submit'],
      ['POST', '/api/v1/merge_customers'],
      ['POST', '/api/v1/segments/1/add_customers'],
      ['POST', '/api/v1/segments/1/remove_customers'],
      ['POST', '/api/v2/entity'],
      ['POST', '/api/v2/batch'],
      ['GET', '/api/v1/no-such-endpoint'],
    ];
    for (const [method, path] of paths) {
      const body = method === 'GET' ? undefined : {};
      expect((await call(us, method, path, { body, auth: null })).status, `${method} ${path}`).toBe(401);
    }
    expect(await call(us, 'GET', '/_emulator/state/people/user-1')).toMatchObject({ status: 200 });
  });

  it('accepts the scheme name in any letter case', async () => {
    const res = await call(us, 'GET', '/api/v1/accounts/region', { auth: AUTH.replace('Basic', 'bASIC') });
    expect(res.status).toBe(200);
  });

  it('serves metrics, push events and unsubscribe without credentials, and ignores wrong ones', async () => {
    const [delivery] = await state(us, 'deliveries', 'limit=1');
    for (const auth of [null, basic('nobody', 'nothing')]) {
      expect(
        (await call(us, 'POST', '/api/v1/metrics', { auth, body: { delivery_id: 'd1', metric: 'opened' } }))
          .status,
      ).toBe(200);
      expect(
        (
          await call(us, 'POST', '/api/v1/push/events', {
            auth,
            body: { delivery_id: 'd1', event: 'opened' },
          })
        ).status,
      ).toBe(200);
      expect(
        (await call(us, 'POST', `/unsubscribe/${delivery.id}`, { auth, body: { unsubscribe: false } }))
          .status,
      ).toBe(200);
    }
  });
});

describe('regions: one listener plays track.customer.io (root) and track-eu.customer.io (/eu)', () => {
  it('the region lookup works on both hosts and points at the account host', async () => {
    for (const path of ['/api/v1/accounts/region', '/eu/api/v1/accounts/region']) {
      const usRes = await call(us, 'GET', path);
      expect(usRes.status).toBe(200);
      expect(usRes.body).toEqual({
        url: 'http://localhost',
        region: 'us',
        environment_id: expect.any(Number),
      });
      const euRes = await call(eu, 'GET', path, { auth: EU_AUTH });
      expect(euRes.status).toBe(200);
      expect(euRes.body).toEqual({
        url: 'http://localhost/eu',
        region: 'eu',
        environment_id: expect.any(Number),
      });
    }
  });

  it('computes the url from the request origin', async () => {
    const res = await us.app.request('http://track.test:8123/api/v1/accounts/region', {
      headers: { authorization: AUTH },
    });
    expect(((await res.json()) as { url: string }).url).toBe('http://track.test:8123');
  });

  it('redirects EU-account traffic sent to the US host (307, same path and query, still encoded)', async () => {
    const path = '/api/v1/segments/1/add_customers?id_type=email';
    const res = await call(eu, 'POST', path, { auth: EU_AUTH, body: { ids: ['a@example.com'] } });
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toBe(`http://localhost/eu${path}`);
    const encoded = await call(eu, 'PUT', '/api/v1/customers/a%2Fb', { auth: EU_AUTH, body: {} });
    expect(encoded.headers.get('location')).toBe('http://localhost/eu/api/v1/customers/a%2Fb');
    expect(await state(eu, 'people', 'id=a/b')).toEqual([]);
  });

  it('serves EU-account traffic on the EU host', async () => {
    const res = await call(eu, 'PUT', '/eu/api/v1/customers/eu-person', {
      auth: EU_AUTH,
      body: { city: 'Dublin' },
    });
    expect(res.status).toBe(200);
    expect((await state(eu, 'people', 'id=eu-person'))[0].attributes).toEqual({ city: 'Dublin' });
    expect((await call(eu, 'POST', '/eu/api/v2/entity', { auth: EU_AUTH, body: {} })).status).toBe(400);
  });

  it('still refuses wrong credentials on the US host of an EU account (401, not a redirect)', async () => {
    expect((await call(eu, 'PUT', '/api/v1/customers/x', { body: {} })).status).toBe(401);
  });

  it('fails US-account traffic sent to the EU host with 401', async () => {
    const res = await call(us, 'PUT', '/eu/api/v1/customers/us-on-eu', { body: {} });
    expect(res.status).toBe(401);
    expect(res.text).toBe('');
    expect(await state(us, 'people', 'id=us-on-eu')).toEqual([]);
  });

  it('keeps the control API at the root only', async () => {
    expect((await call(us, 'GET', '/_emulator/state')).status).toBe(200);
    expect((await call(us, 'GET', '/eu/_emulator/state', { auth: null })).status).toBe(401);
  });
});

describe('errors common to every route', () => {
  it('unknown paths are 404 in the v1 envelope', async () => {
    const res = await call(us, 'GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ meta: { errors: [expect.stringContaining('/api/v1/nothing-here')] } });
  });

  it('refuses bodies over the 5 MB hard cap with 413, in the endpoint envelope', async () => {
    const big = { blob: 'x'.repeat(MAX_BODY_BYTES) };
    const v1 = await call(us, 'PUT', '/api/v1/customers/too-big', { body: big });
    expect(v1.status).toBe(413);
    expect(v1.body.meta.errors[0]).toMatch(/bytes/);
    const v2 = await call(us, 'POST', '/api/v2/batch', { body: big });
    expect(v2.status).toBe(413);
    expect(v2.body.errors[0]).toMatchObject({ reason: 'too_large', field: '' });
    const merge = await call(us, 'POST', '/api/v1/merge_customers', { body: big });
    expect(merge.status).toBe(413);
    expect(merge.body.meta.error).toMatch(/bytes/);
    expect(await state(us, 'people', 'id=too-big')).toEqual([]);
  });

  it('injected faults answer in the v1 envelope', async () => {
    const emulator = makeEmulator();
    try {
      await call(emulator, 'PUT', '/_emulator/faults', {
        body: { rules: [{ kind: 'error', status: 503, path: '/api/v1/customers/:id', times: 1 }] },
      });
      const res = await call(emulator, 'PUT', '/api/v1/customers/f1', { body: {} });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ meta: { errors: ['Injected fault: upstream error'] } });
      expect((await call(emulator, 'PUT', '/api/v1/customers/f1', { body: {} })).status).toBe(200);
    } finally {
      emulator.close();
    }
  });
});

describe('the account-wide rate limit', () => {
  it('is registered, off by default, and counts every upstream request under one label once enabled', async () => {
    const emulator = makeEmulator();
    try {
      const config = await call(emulator, 'GET', '/_emulator/rate-limits');
      expect(config.body).toMatchObject({ enabled: false, limits: { [TRACK_RATE_LIMIT_LABEL]: 6000 } });
      for (let i = 0; i < 5; i++)
        expect((await call(emulator, 'GET', '/api/v1/accounts/region')).status).toBe(200);

      await call(emulator, 'PUT', '/_emulator/rate-limits', {
        body: { enabled: true, limits: { [TRACK_RATE_LIMIT_LABEL]: 3 } },
      });
      expect((await call(emulator, 'GET', '/api/v1/accounts/region')).status).toBe(200);
      expect((await call(emulator, 'PUT', '/api/v1/customers/rl', { body: {} })).status).toBe(200);
      // No auth needed, still counted: the limit is per account, across v1 and v2.
      expect(
        (
          await call(emulator, 'POST', '/api/v1/metrics', {
            auth: null,
            body: { delivery_id: 'd', metric: 'opened' },
          })
        ).status,
      ).toBe(200);
      const limited = await call(emulator, 'POST', '/api/v2/entity', { body: {} });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.body.errors[0].message).toMatch(/Rate limit exceeded/);
      const v1 = await call(emulator, 'GET', '/api/v1/accounts/region');
      expect(v1.body).toEqual({ meta: { errors: [expect.stringMatching(/Rate limit exceeded/)] } });
      // The control API is never limited.
      expect((await call(emulator, 'GET', '/_emulator/state')).status).toBe(200);

      emulator.clock.advance(61_000);
      expect((await call(emulator, 'GET', '/api/v1/accounts/region')).status).toBe(200);
    } finally {
      emulator.close();
    }
  });
});
