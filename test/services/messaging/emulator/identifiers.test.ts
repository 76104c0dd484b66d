// Path identifiers arrive percent-encoded and are decoded exactly once: `a/b`, `%2F`, an email with `+`, non-ASCII
// ids, and dot segments, which URL parsing resolves before any route sees them (so they never reach a person).
import { afterAll, describe, expect, it } from 'vitest';
import { call, makeEmulator, person, state } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const put = (encoded: string, body: unknown = {}) =>
  call(emulator, 'PUT', `/api/v1/customers/${encoded}`, { body });

describe('percent-encoded path identifiers', () => {
  it.each([
    ['a/b', 'a%2Fb'],
    ['literally %2F', 'literally%20%252F'],
    ['../admin', '..%2Fadmin'],
    ['a/b?x=1#frag', 'a%2Fb%3Fx%3D1%23frag'],
    ['café-ü', 'caf%C3%A9-%C3%BC'],
    ['100%', '100%25'],
  ])('%s is one id, decoded once', async (id, encoded) => {
    expect((await put(encoded, { marker: id })).status).toBe(200);
    const [stored] = await state(emulator, 'people', `id=${encodeURIComponent(id)}`);
    expect(stored).toMatchObject({ id, attributes: { marker: id } });
    // Sub-resources of the same person route too.
    await call(emulator, 'POST', `/api/v1/customers/${encoded}/events`, { body: { name: 'e' } });
    expect(await state(emulator, 'events', `person=${stored.cio_id}`)).toHaveLength(1);
  });

  it('an email with +, encoded or raw, is the same person (never a space)', async () => {
    await put('ada%2Btest%40example.com', { n: 1 });
    await put('ada+test@example.com', { n: 2 });
    const stored = await person(emulator, 'ada+test@example.com');
    expect(stored).toMatchObject({ email: 'ada+test@example.com', attributes: { n: 2 } });
    expect(await state(emulator, 'people', 'email=ada test@example.com')).toEqual([]);
  });

  it('a device id is decoded the same way', async () => {
    await call(emulator, 'PUT', '/api/v1/customers/dev-owner/devices', {
      body: { device: { id: 'tok/with/slashes', platform: 'ios' } },
    });
    expect((await state(emulator, 'devices', 'person=dev-owner')).map((d) => d.id)).toEqual([
      'tok/with/slashes',
    ]);
    await call(emulator, 'DELETE', '/api/v1/customers/dev-owner/devices/tok%2Fwith%2Fslashes');
    expect(await state(emulator, 'devices', 'person=dev-owner')).toEqual([]);
  });

  it('dot segments are resolved by URL parsing, so they never name a person or reach another route', async () => {
    const before = await person(emulator, 'user-1');
    for (const path of [
      '/api/v1/customers/..',
      '/api/v1/customers/%2e%2e',
      '/api/v1/customers/user-1/devices/..',
      '/api/v1/customers/user-1/devices/%2E%2E',
    ]) {
      const res = await call(emulator, 'DELETE', path);
      expect(res.status, path).toBe(404);
    }
    expect(await person(emulator, 'user-1')).toMatchObject({ cio_id: before.cio_id });
    expect(await state(emulator, 'people', 'id=..')).toEqual([]);
  });

  it('cio_ needs something after the prefix', async () => {
    const res = await put('cio_');
    expect(res.status).toBe(400);
    expect(res.body.meta.errors[0]).toMatch(/cio_ must be followed/);
  });

  it('an unusable identifier is the answer even when the body is unusable too', async () => {
    for (const [method, path] of [
      ['PUT', '/api/v1/customers/cio_'],
      ['PUT', '/api/v1/customers/cio_/devices'],
      ['POST', '/api/v1/customers/cio_/events'],
    ] as const) {
      const res = await call(emulator, method, path, { rawBody: '{not json' });
      expect(res.status, path).toBe(400);
      expect(res.body.meta.errors, path).toEqual([expect.stringMatching(/cio_ must be followed/)]);
    }
  });
});
