// Interop: the upstream's official Node client (`customerio-node`) against our Track API emulator, unchanged
// but for the base URL. Each call must succeed and show in the emulator's state, and its errors must come back
// through the client's own error type.

import { IdentifierType, TrackClient } from 'customerio-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MessagingEmulatorHandle, startMessaging } from '../e2e/messagingHarness.js';

interface Person {
  cio_id: string;
  id?: string | null;
  email?: string | null;
  attributes: Record<string, unknown>;
}

describe('customerio-node TrackClient against the emulator', () => {
  let upstream: MessagingEmulatorHandle;
  let cio: TrackClient;
  const person = (key: string) => upstream.get<Person>(`/_emulator/state/people/${encodeURIComponent(key)}`);
  const gone = async (key: string) => (await person(key).catch(() => null)) === null;

  beforeAll(async () => {
    upstream = await startMessaging();
    cio = new TrackClient(upstream.siteId, upstream.apiKey, { url: `${upstream.url}/api/v1` });
  });
  afterAll(() => upstream?.close());

  it('identify creates and updates a person', async () => {
    await cio.identify('interop-1', {
      email: 'interop-1@example.com',
      plan: 'basic',
      created_at: 1767225600,
    });
    await cio.identify('interop-1', { plan: 'pro' });
    const stored = await person('interop-1');
    expect(stored).toMatchObject({ id: 'interop-1', email: 'interop-1@example.com' });
    expect(stored.attributes).toMatchObject({ plan: 'pro', created_at: 1767225600 });
  });

  it('track and trackAnonymous record events; the anonymous one folds in on identify', async () => {
    await cio.track('interop-1', { name: 'purchase', data: { amount: 5 } });
    await cio.trackAnonymous('anon-interop', { name: 'visited', data: { page: '/' } });
    expect(await upstream.state('anonymous_events', '&anonymous_id=anon-interop')).toHaveLength(1);
    await cio.identify('interop-1', { anonymous_id: 'anon-interop' });
    const events = await upstream.state<{ name: string }>('events', '&person=interop-1');
    expect(events.map((e) => e.name).sort()).toEqual(['purchase', 'visited']);
  });

  it('addDevice and deleteDevice', async () => {
    await cio.addDevice('interop-1', 'device-token-1', 'android', {
      app_version: '1.2.3',
      last_used: 1767225600,
    });
    const devices = await upstream.state<{ id: string; platform: string; attributes: unknown }>(
      'devices',
      '&person=interop-1',
    );
    expect(devices).toEqual([
      expect.objectContaining({
        id: 'device-token-1',
        platform: 'android',
        attributes: { app_version: '1.2.3' },
      }),
    ]);
    await cio.deleteDevice('interop-1', 'device-token-1');
    expect(await upstream.state('devices', '&person=interop-1')).toEqual([]);
  });

  it('mergeCustomers folds the secondary into the primary', async () => {
    await cio.identify('interop-2', { city: 'Oslo' });
    await cio.mergeCustomers(IdentifierType.Id, 'interop-1', IdentifierType.Id, 'interop-2');
    expect(await gone('interop-2')).toBe(true);
    expect((await person('interop-1')).attributes.city).toBe('Oslo');
  });

  it('suppress blocks the identifier, unsuppress frees it, destroy deletes', async () => {
    await cio.identify('interop-3', { a: 1 });
    await cio.suppress('interop-3');
    expect(await gone('interop-3')).toBe(true);
    expect((await upstream.state<{ identifier: string }>('suppressions')).map((s) => s.identifier)).toContain(
      'interop-3',
    );
    await cio.identify('interop-3', { a: 2 });
    expect(await gone('interop-3')).toBe(true);
    await cio.unsuppress('interop-3');
    await cio.identify('interop-3', { a: 3 });
    expect((await person('interop-3')).attributes).toEqual({ a: 3 });
    await cio.destroy('interop-3');
    expect(await gone('interop-3')).toBe(true);
  });

  it('v2 entity and batch calls', async () => {
    await cio.entity({
      type: 'object',
      identifiers: { object_type_id: '1', object_id: 'interop-co' },
      action: 'identify',
      attributes: { name: 'Interop Co' },
    });
    await cio.batch([
      { type: 'person', identifiers: { id: 'interop-4' }, action: 'identify', attributes: { from: 'batch' } },
      {
        type: 'object',
        identifiers: { object_type_id: '1', object_id: 'interop-co' },
        action: 'add_relationships',
        cio_relationships: [{ identifiers: { id: 'interop-4' } }],
      },
    ]);
    expect((await person('interop-4')).attributes.from).toBe('batch');
    const relationships = await upstream.state<{ object_id: string }>('relationships', '&person=interop-4');
    expect(relationships.map((r) => r.object_id)).toEqual(['interop-co']);
  });

  it('errors arrive as the client’s own errors, with the upstream message', async () => {
    const wrong = new TrackClient(upstream.siteId, 'not-the-key', { url: `${upstream.url}/api/v1` });
    await expect(wrong.identify('interop-5', {})).rejects.toMatchObject({ statusCode: 401 });
    await expect(cio.track('interop-1', { name: 'x'.repeat(101) })).rejects.toMatchObject({
      statusCode: 400,
    });
  });
});
