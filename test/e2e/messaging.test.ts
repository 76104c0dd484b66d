// Every MessagingTrackApi tool end to end, in both modes: the SDK's MCP client -> Switchboard (over stdio and
// over HTTP) -> the Track API emulator on loopback. Each test checks the result, the exact upstream request the
// emulator logged, and the emulator's state afterwards.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestBodyDocument } from '../../src/runtime/schemaMode.js';
import { MESSAGING_BODIES, type MessagingBodyName } from '../../src/services/messaging/schemas.js';
import type { Connected, Transport } from './harness.js';
import { connectMessaging, type MessagingEmulatorHandle, startMessaging } from './messagingHarness.js';

interface Person {
  cio_id: string;
  id?: string | null;
  email?: string | null;
  attributes: Record<string, unknown>;
}

const SCHEMA_MODE: Record<string, MessagingBodyName> = {
  UpdateOrAddPerson: 'identify',
  AddDeviceToCustomerProfile: 'device',
  SendCustomerEvent: 'event',
  TrackAnonymousEvent: 'anonymousEvent',
  SubmitFormResponse: 'form',
  MergeCustomerProfiles: 'merge',
  ReportCustomMetrics: 'metrics',
  AddPeopleToSegment: 'segmentMembers',
  RemoveUserFromSegment: 'segmentMembers',
  ManageEntity: 'entity',
  BatchProcessRequests: 'batch',
};

const T = (name: string) => `MessagingTrackApi.${name}`;
const json = (value: unknown) => JSON.stringify(value);

describe.each<Transport>(['stdio', 'http'])('MessagingTrackApi end to end over %s', (transport) => {
  let upstream: MessagingEmulatorHandle;
  let mcp: Connected;
  const person = async (key: string) =>
    await upstream.get<Person>(`/_emulator/state/people/${encodeURIComponent(key)}`);
  const personOrNull = async (key: string) => person(key).catch(() => null);

  beforeAll(async () => {
    upstream = await startMessaging();
    mcp = await connectMessaging(transport, upstream.env());
    // The first call resolves the region once (MESSAGING_REGION=auto); later tests see only their own requests.
    expect((await mcp.call(T('GetTrackApiRegion'))).isError).toBe(false);
  });
  afterAll(async () => {
    await mcp?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.clearLog());

  describe('schema mode', () => {
    it.each(Object.entries(SCHEMA_MODE))(
      '%s returns its request body schema and calls nothing',
      async (tool, body) => {
        const result = await mcp.call(T(tool), { mode: 'get_request_schema' });
        expect(result.isError).toBe(false);
        expect(result.structured.request_body).toEqual(requestBodyDocument(MESSAGING_BODIES[body]));
        expect(await upstream.requests()).toEqual([]);
      },
    );
  });

  it('GetTrackApiRegion returns the region and address of the credentials', async () => {
    const result = await mcp.call(T('GetTrackApiRegion'));
    expect(result.structured).toMatchObject({ region: 'us', url: upstream.url });
    expect((await upstream.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/accounts/region',
    ]);
  });

  it('UpdateOrAddPerson creates, then updates through the msg_ internal id', async () => {
    const created = await mcp.call(T('UpdateOrAddPerson'), {
      mode: 'execute',
      person_identifier: `e2e-${transport}-1`,
      request_body: json({ email: `e2e-${transport}-1@example.com`, plan: 'basic', seats: 3 }),
    });
    expect(created.structured).toEqual({ success: true, status: 200 });
    const stored = await person(`e2e-${transport}-1`);
    expect(stored.attributes).toMatchObject({ plan: 'basic', seats: 3 });
    const [put] = await upstream.requests();
    expect(put).toMatchObject({ method: 'PUT', path: `/api/v1/customers/e2e-${transport}-1`, status: 200 });
    expect(put!.body).toEqual({ email: `e2e-${transport}-1@example.com`, plan: 'basic', seats: 3 });

    const updated = await mcp.call(T('UpdateOrAddPerson'), {
      mode: 'execute',
      person_identifier: `msg_${stored.cio_id}`,
      request_body: json({ plan: 'pro' }),
    });
    expect(updated.isError).toBe(false);
    expect((await upstream.requests())[0]!.path).toBe(`/api/v1/customers/cio_${stored.cio_id}`);
    expect((await person(`e2e-${transport}-1`)).attributes.plan).toBe('pro');
  });

  it('AddDeviceToCustomerProfile and RemoveCustomerDevice', async () => {
    const who = `dev-${transport}`;
    await mcp.call(T('UpdateOrAddPerson'), { mode: 'execute', person_identifier: who, request_body: '{}' });
    const added = await mcp.call(T('AddDeviceToCustomerProfile'), {
      mode: 'execute',
      unique_person_identifier: who,
      request_body: json({
        device: { id: `tok-${transport}`, platform: 'ios', attributes: { app_version: '2.0' } },
      }),
    });
    expect(added.structured).toEqual({ success: true, status: 200 });
    const devices = await upstream.state<{ id: string; platform: string }>('devices', `&person=${who}`);
    expect(devices.map((d) => [d.id, d.platform])).toEqual([[`tok-${transport}`, 'ios']]);

    const removed = await mcp.call(T('RemoveCustomerDevice'), {
      customer_identifier: who,
      device_unique_id: `tok-${transport}`,
    });
    expect(removed.structured).toEqual({ success: true, status: 200 });
    expect(await upstream.state('devices', `&person=${who}`)).toEqual([]);
    expect((await upstream.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT /api/v1/customers/${who}`,
      `PUT /api/v1/customers/${who}/devices`,
      `DELETE /api/v1/customers/${who}/devices/tok-${transport}`,
    ]);
  });

  it('SendCustomerEvent records an event for the person', async () => {
    const who = `evt-${transport}`;
    await mcp.call(T('UpdateOrAddPerson'), { mode: 'execute', person_identifier: who, request_body: '{}' });
    const sent = await mcp.call(T('SendCustomerEvent'), {
      mode: 'execute',
      customer_identifier: who,
      request_body: json({ name: 'purchase', data: { amount: 42 } }),
    });
    expect(sent.structured).toEqual({ success: true, status: 200 });
    const events = await upstream.state<{ name: string; data: unknown }>('events', `&person=${who}`);
    expect(events).toEqual([expect.objectContaining({ name: 'purchase', data: { amount: 42 } })]);
  });

  it('TrackAnonymousEvent, then folded into the person identified with that anonymous_id', async () => {
    const anon = `anon-${transport}`;
    const tracked = await mcp.call(T('TrackAnonymousEvent'), {
      mode: 'execute',
      request_body: json({ name: 'viewed_pricing', anonymous_id: anon }),
    });
    expect(tracked.structured).toEqual({ success: true, status: 200 });
    expect(await upstream.state('anonymous_events', `&anonymous_id=${anon}`)).toHaveLength(1);
    await mcp.call(T('UpdateOrAddPerson'), {
      mode: 'execute',
      person_identifier: `known-${transport}`,
      request_body: json({ anonymous_id: anon }),
    });
    expect(await upstream.state('anonymous_events', `&anonymous_id=${anon}`)).toEqual([]);
    const events = await upstream.state<{ name: string }>('events', `&person=known-${transport}`);
    expect(events.map((e) => e.name)).toContain('viewed_pricing');
  });

  it('SubmitFormResponse creates the form connection and the person (upstream answers 204)', async () => {
    const form = `signup-${transport}`;
    const submitted = await mcp.call(T('SubmitFormResponse'), {
      mode: 'execute',
      form_identifier: form,
      request_body: json({ data: { email: `form-${transport}@example.com`, company: 'Analytical' } }),
    });
    expect(submitted.structured).toEqual({ success: true, status: 204 });
    expect((await upstream.state<{ id: string }>('forms')).map((f) => f.id)).toContain(form);
    expect((await person(`form-${transport}@example.com`)).attributes.company).toBe('Analytical');
  });

  it('MergeCustomerProfiles folds the secondary into the primary and deletes it', async () => {
    const [primary, secondary] = [`prim-${transport}`, `sec-${transport}`];
    await mcp.call(T('UpdateOrAddPerson'), {
      mode: 'execute',
      person_identifier: primary,
      request_body: json({ plan: 'pro' }),
    });
    await mcp.call(T('UpdateOrAddPerson'), {
      mode: 'execute',
      person_identifier: secondary,
      request_body: json({ plan: 'basic', city: 'Lyon' }),
    });
    const merged = await mcp.call(T('MergeCustomerProfiles'), {
      mode: 'execute',
      request_body: json({ primary: { id: primary }, secondary: { id: secondary } }),
    });
    expect(merged.structured).toEqual({ success: true, status: 200 });
    expect((await person(primary)).attributes).toMatchObject({ plan: 'pro', city: 'Lyon' });
    expect(await personOrNull(secondary)).toBeNull();
  });

  it('ReportCustomMetrics records the metric for the delivery, sent without credentials', async () => {
    const [delivery] = await upstream.state<{ id: string }>('deliveries');
    const reported = await mcp.call(T('ReportCustomMetrics'), {
      mode: 'execute',
      request_body: json({ delivery_id: delivery!.id, metric: 'clicked', href: 'https://example.com/x' }),
    });
    expect(reported.structured).toEqual({ success: true, status: 200 });
    const metrics = await upstream.state<{ delivery_id: string; metric: string }>(
      'metrics',
      `&delivery_id=${delivery!.id}`,
    );
    expect(metrics.map((m) => m.metric)).toContain('clicked');
    const [request] = await upstream.requests();
    expect(request).toMatchObject({ method: 'POST', path: '/api/v1/metrics', auth: 'none' });
  });

  it('AddPeopleToSegment and RemoveUserFromSegment, with the identifier types', async () => {
    const emails = [`seg-a-${transport}@example.com`, `seg-b-${transport}@example.com`];
    for (const email of emails) {
      await mcp.call(T('UpdateOrAddPerson'), {
        mode: 'execute',
        person_identifier: email,
        request_body: '{}',
      });
    }
    await upstream.clearLog();
    const added = await mcp.call(T('AddPeopleToSegment'), {
      mode: 'execute',
      segment_identifier: 1,
      identifier_type: 'email',
      request_body: json({ ids: emails }),
    });
    expect(added.structured).toEqual({ success: true, status: 200 });
    const members = async () =>
      (await upstream.state<{ cio_id: string }>('segment_members', '&segment_id=1')).map((m) => m.cio_id);
    const cioIds = await Promise.all(emails.map(async (email) => (await person(email)).cio_id));
    expect(await members()).toEqual(expect.arrayContaining(cioIds));

    const removed = await mcp.call(T('RemoveUserFromSegment'), {
      mode: 'execute',
      segment_identifier: 1,
      identification_type: 'msg_id',
      request_body: json({ ids: [cioIds[0]] }),
    });
    expect(removed.structured).toEqual({ success: true, status: 200 });
    expect(await members()).not.toContain(cioIds[0]);
    expect(await members()).toContain(cioIds[1]);
    const requests = await upstream.requests();
    expect(requests.map((r) => [r.path, r.query.id_type])).toEqual([
      ['/api/v1/segments/1/add_customers', 'email'],
      ['/api/v1/segments/1/remove_customers', 'cio_id'],
    ]);
  });

  it('ManageEntity creates an object related to a person', async () => {
    const who = `rel-${transport}`;
    await mcp.call(T('UpdateOrAddPerson'), { mode: 'execute', person_identifier: who, request_body: '{}' });
    const result = await mcp.call(T('ManageEntity'), {
      mode: 'execute',
      request_body: json({
        type: 'object',
        identifiers: { object_type_id: '1', object_id: `acme-${transport}` },
        action: 'identify',
        attributes: { name: 'Acme' },
        cio_relationships: [{ identifiers: { id: who }, relationship_attributes: { role: 'admin' } }],
      }),
    });
    expect(result.structured).toEqual({ success: true, status: 200 });
    const objects = await upstream.state<{ object_id: string; attributes: unknown }>(
      'objects',
      '&object_type_id=1',
    );
    expect(objects.find((o) => o.object_id === `acme-${transport}`)?.attributes).toEqual({ name: 'Acme' });
    const relationships = await upstream.state<{ object_id: string }>('relationships', `&person=${who}`);
    expect(relationships.map((r) => r.object_id)).toEqual([`acme-${transport}`]);
  });

  it('BatchProcessRequests applies a batch; a 207 lists the failed items and keeps the rest', async () => {
    const ok = await mcp.call(T('BatchProcessRequests'), {
      mode: 'execute',
      request_body: json({
        batch: [
          {
            type: 'person',
            identifiers: { id: `b1-${transport}` },
            action: 'identify',
            attributes: { n: 1 },
          },
          {
            type: 'person',
            identifiers: { id: `b2-${transport}` },
            action: 'identify',
            attributes: { n: 2 },
          },
        ],
      }),
    });
    expect(ok.structured).toEqual({ success: true, status: 200, accepted: 2 });
    expect((await person(`b2-${transport}`)).attributes.n).toBe(2);

    // The phone is well-formed JSON but not E.164: only the upstream can refuse it, item by item.
    const partial = await mcp.call(T('BatchProcessRequests'), {
      mode: 'execute',
      request_body: json({
        batch: [
          {
            type: 'person',
            identifiers: { id: `b3-${transport}` },
            action: 'identify',
            attributes: { n: 3 },
          },
          { type: 'person', identifiers: { phone: 'not-a-phone' }, action: 'identify', attributes: { n: 4 } },
        ],
      }),
    });
    expect(partial.isError).toBe(false);
    expect(partial.structured).toMatchObject({
      success: false,
      status: 207,
      partial: true,
      accepted: 1,
      failed: [
        expect.objectContaining({ batch_index: 1, operation: { type: 'person', action: 'identify' } }),
      ],
    });
    expect((await person(`b3-${transport}`)).attributes.n).toBe(3);
  });

  it('SuppressCustomerProfile deletes and blocks; UnsuppressCustomerProfile unblocks without restoring', async () => {
    const who = `sup-${transport}`;
    await mcp.call(T('UpdateOrAddPerson'), {
      mode: 'execute',
      person_identifier: who,
      request_body: json({ a: 1 }),
    });
    expect(
      (await mcp.call(T('SuppressCustomerProfile'), { unique_person_identifier: who })).structured,
    ).toEqual({
      success: true,
      status: 200,
    });
    expect(await personOrNull(who)).toBeNull();
    await mcp.call(T('UpdateOrAddPerson'), {
      mode: 'execute',
      person_identifier: who,
      request_body: json({ a: 2 }),
    });
    expect(await personOrNull(who)).toBeNull();

    expect((await mcp.call(T('UnsuppressCustomerProfile'), { customer_identifier: who })).isError).toBe(
      false,
    );
    expect(await personOrNull(who)).toBeNull();
    await mcp.call(T('UpdateOrAddPerson'), {
      mode: 'execute',
      person_identifier: who,
      request_body: json({ b: 1 }),
    });
    expect((await person(who)).attributes).toEqual({ b: 1 });
  });

  it('DeleteCustomer removes the person', async () => {
    const who = `del-${transport}`;
    await mcp.call(T('UpdateOrAddPerson'), { mode: 'execute', person_identifier: who, request_body: '{}' });
    expect((await mcp.call(T('DeleteCustomer'), { customer_identifier: who })).structured).toEqual({
      success: true,
      status: 200,
    });
    expect(await personOrNull(who)).toBeNull();
    expect((await upstream.requests()).at(-1)).toMatchObject({
      method: 'DELETE',
      path: `/api/v1/customers/${who}`,
    });
  });

  it('GlobalUnsubscribeUser sets unsubscribed on the delivery’s person, without credentials', async () => {
    const deliveries = await upstream.state<{ id: string; person: string }>('deliveries');
    const delivery = deliveries[transport === 'stdio' ? 1 : 2]!;
    const result = await mcp.call(T('GlobalUnsubscribeUser'), {
      delivery_id_for_unsubscription: delivery.id,
      set_unsubscribed_attribute: true,
    });
    expect(result.structured).toEqual({ success: true, status: 200 });
    expect((await person(delivery.person)).attributes.unsubscribed).toBe(true);
    const [request] = await upstream.requests();
    expect(request).toMatchObject({
      path: `/unsubscribe/${delivery.id}`,
      body: { unsubscribe: true },
      auth: 'none',
    });

    const unknown = await mcp.call(T('GlobalUnsubscribeUser'), {
      delivery_id_for_unsubscription: 'no-such-delivery',
    });
    expect(unknown.isError).toBe(true);
    expect(unknown.structured.error).toMatchObject({ kind: 'invalid_request', status: 400 });
  });
});
