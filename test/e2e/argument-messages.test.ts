// What a model reads when its arguments are wrong, through the SDK's MCP client over Streamable HTTP against the
// three emulators: a wrong value is quoted back with the rule it broke (never "required"), nothing is sent
// upstream; request_body may be the body itself instead of its JSON text, and is then sent exactly as given;
// every schema-mode tool says in its own definition how `mode` works.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Connected, connectHttp, type Emulator, errorOf, startEmulator } from './harness.js';
import { connectMessaging, type MessagingEmulatorHandle, startMessaging } from './messagingHarness.js';
import { connectStore, type StoreEmulatorHandle, startStore } from './storeHarness.js';

describe('argument errors quote what was given, and request_body takes an object', () => {
  let issuedesk: Emulator;
  let messaging: MessagingEmulatorHandle;
  let store: StoreEmulatorHandle;
  const mcp: Record<'issuedesk' | 'messaging' | 'store', Connected> = {} as never;

  beforeAll(async () => {
    [issuedesk, messaging, store] = await Promise.all([startEmulator(), startMessaging(), startStore()]);
    [mcp.issuedesk, mcp.messaging, mcp.store] = await Promise.all([
      connectHttp({ ISSUEDESK_BASE_URL: issuedesk.url, ISSUEDESK_API_TOKEN: issuedesk.token }),
      connectMessaging('http', messaging.env({ MESSAGING_REGION: 'us' })),
      connectStore('http', store.env()),
    ]);
  });
  afterAll(async () => {
    await Promise.all(Object.values(mcp).map((client) => client.close()));
    await Promise.all([issuedesk?.close(), messaging?.close(), store?.close()]);
  });
  beforeEach(async () => {
    await Promise.all([issuedesk.clearLog(), messaging.clearLog(), store.clearLog()]);
  });

  const nothingSent = async () => {
    expect(await issuedesk.requests()).toEqual([]);
    expect(await messaging.requests()).toEqual([]);
    expect(await store.requests()).toEqual([]);
  };

  it('IssueDesk.UpdateIssueStatus with lookup_by "idd": the allowed values, the value given, the closest', async () => {
    const result = await mcp.issuedesk.call('IssueDesk.UpdateIssueStatus', {
      state: 'closed',
      lookup_by: 'idd',
      value: '1',
    });
    expect(result.isError).toBe(true);
    expect(errorOf(result)).toMatchObject({
      kind: 'invalid_arguments',
      issues: [
        {
          field: 'lookup_by',
          problem: 'must be one of "id", "search"; got string "idd"; did you mean "id"?',
        },
      ],
    });
    await nothingSent();
  });

  it('StoreApi.ListStoreRecords with maximum_records "three": the type expected and the value given', async () => {
    const result = await mcp.store.call('StoreApi.ListStoreRecords', {
      base_id: 'appAAAAAAAAAAAAAA',
      table_id_or_name: 'Tasks',
      maximum_records: 'three',
    });
    expect(errorOf(result).issues).toEqual([
      { field: 'maximum_records', problem: 'must be an integer; got string "three"' },
    ]);
    // A mistyped parameter name gets the closest real one.
    const typo = await mcp.store.call('StoreApi.ListStoreRecords', {
      base_id: 'appAAAAAAAAAAAAAA',
      table_id_or_name: 'Tasks',
      maximun_records: 3,
    });
    expect(errorOf(typo).issues).toEqual([
      { field: 'maximun_records', problem: 'unknown parameter; did you mean "maximum_records"?' },
    ]);
    await nothingSent();
  });

  it('a request_body with "created_at": "yesterday", as JSON text and as an object', async () => {
    for (const request_body of [JSON.stringify({ created_at: 'yesterday' }), { created_at: 'yesterday' }]) {
      const result = await mcp.messaging.call('MessagingTrackApi.UpdateOrAddPerson', {
        mode: 'execute',
        person_identifier: 'user-1',
        request_body,
      });
      expect(result.isError).toBe(true);
      expect(errorOf(result).issues).toEqual([
        { field: 'request_body.created_at', problem: 'must be an integer; got string "yesterday"' },
      ]);
    }
    await nothingSent();
  });

  it('request_body as an object is accepted and sent exactly as given', async () => {
    const body = {
      email: 'zoe@example.com',
      first_name: 'Zoë',
      plan: 'pro',
      created_at: 1767225600,
      seats: 12.5,
      beta: true,
    };
    const result = await mcp.messaging.call('MessagingTrackApi.UpdateOrAddPerson', {
      mode: 'execute',
      person_identifier: 'user-object-body',
      request_body: body,
    });
    expect(result.isError, result.text).toBe(false);
    const sent = await messaging.requests();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'PUT', path: '/api/v1/customers/user-object-body' });
    expect(sent[0]!.body).toEqual(body);
  });

  it('an invalid object is still refused before sending, naming the field and the closest key', async () => {
    const result = await mcp.store.call('StoreApi.CreateStoreRecords', {
      mode: 'execute',
      base_id: 'appAAAAAAAAAAAAAA',
      table_id_or_name: 'Tasks',
      request_body: { records: [{ fileds: { Name: 'x' } }] },
    });
    expect(result.isError).toBe(true);
    expect(errorOf(result).issues).toContainEqual({
      field: 'request_body.records.0.fileds',
      problem: 'unknown field; did you mean "fields"?',
    });
    const notText = await mcp.store.call('StoreApi.CreateStoreRecords', {
      mode: 'execute',
      base_id: 'appAAAAAAAAAAAAAA',
      table_id_or_name: 'Tasks',
      request_body: 42,
    });
    expect(errorOf(notText).issues).toEqual([
      { field: 'request_body', problem: 'JSON text of the request body; got number 42' },
    ]);
    await nothingSent();
  });

  it('every schema-mode tool says how mode works in its own definition; request_body stays a string', async () => {
    let schemaModeTools = 0;
    for (const client of Object.values(mcp)) {
      const { tools } = await client.client.listTools();
      for (const tool of tools) {
        const properties = (tool.inputSchema.properties ?? {}) as Record<
          string,
          { type?: string; description?: string; enum?: string[] }
        >;
        if (!properties.mode) continue;
        schemaModeTools++;
        expect(properties.mode.enum, tool.name).toEqual(['get_request_schema', 'execute']);
        expect(properties.request_body, tool.name).toEqual({
          type: 'string',
          description: 'JSON; get_request_schema first',
        });
      }
    }
    expect(schemaModeTools).toBe(53);
  });
});
