// Interop: the upstream's official client (`airtable` on npm) and the third-party `airtable-mcp-server`, both
// unchanged but for their base URL, against our data-store emulator. What they do must work and show in the
// emulator's state; their error handling must see the upstream's errors.

import { Client as McpClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import Airtable from 'airtable';
import { AirtableService, createServer } from 'airtable-mcp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StoreEmulatorHandle, startStore } from '../e2e/storeHarness.js';

interface Table {
  id: string;
  name: string;
  fields: { id: string; name: string; type: string }[];
  views: { id: string; name: string }[];
}

const COMPUTED = new Set([
  'formula',
  'rollup',
  'count',
  'multipleLookupValues',
  'autoNumber',
  'createdTime',
  'lastModifiedTime',
  'createdBy',
  'lastModifiedBy',
]);

let upstream: StoreEmulatorHandle;
let baseId: string;
let deals: Table;

beforeAll(async () => {
  upstream = await startStore();
  const auth = { authorization: `Bearer ${upstream.token}` };
  const { bases } = (await (await fetch(`${upstream.url}/v0/meta/bases`, { headers: auth })).json()) as {
    bases: { id: string; name: string }[];
  };
  baseId = bases.find((base) => base.name === 'Sales CRM')!.id;
  const { tables } = (await (
    await fetch(`${upstream.url}/v0/meta/bases/${baseId}/tables`, { headers: auth })
  ).json()) as {
    tables: Table[];
  };
  deals = tables.find((table) => table.name === 'Deals')!;
});
afterAll(() => upstream?.close());

describe('airtable.js against the emulator', () => {
  const base = () =>
    new Airtable({ apiKey: upstream.token, endpointUrl: upstream.url, noRetryIfRateLimited: true }).base(
      baseId,
    );

  it('select with filterByFormula, sort, fields and paging, then find', async () => {
    const table = base()(deals.name);
    const all = await table.select({ pageSize: 7 }).all();
    const stored = await upstream.state<{ id: string }>('records', `&table=${deals.id}`);
    expect(all).toHaveLength(stored.length);
    expect(stored.length).toBeGreaterThan(7);

    const primary = deals.fields[0]!.name;
    const sorted = await table
      .select({ sort: [{ field: primary, direction: 'desc' }], fields: [primary] })
      .all();
    const names = sorted.map((record) => String(record.get(primary) ?? ''));
    expect(names).toEqual([...names].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
    expect(Object.keys(sorted[0]!.fields)).toEqual([primary]);

    const first = all[0]!;
    const filtered = await table.select({ filterByFormula: `RECORD_ID() = '${first.id}'` }).all();
    expect(filtered.map((record) => record.id)).toEqual([first.id]);
    const found = await table.find(first.id);
    expect(found.id).toBe(first.id);
  });

  it('select through a view applies its order', async () => {
    const view = deals.views[0]!;
    const viaView = await base()(deals.name).select({ view: view.name }).all();
    expect(viaView.length).toBeGreaterThan(0);
  });

  it('create, update, replace and destroy in batches, with typecast', async () => {
    const table = base()(deals.name);
    const primary = deals.fields[0]!.name;
    const select = deals.fields.find((f) => f.type === 'singleSelect')!.name;
    // typecast turns the text into a select option, creating the option if it is new.
    const created = await table.create(
      Array.from({ length: 3 }, (_, i) => ({
        fields: { [primary]: `Interop ${i}`, [select]: 'Interop stage' },
      })),
      { typecast: true },
    );
    expect(created).toHaveLength(3);
    expect(created[0]!.get(select)).toBe('Interop stage');
    const updated = await table.update(
      created.map((record) => ({ id: record.id, fields: { [primary]: `${record.get(primary)}!` } })),
    );
    expect(updated.map((record) => record.get(primary))).toEqual(['Interop 0!', 'Interop 1!', 'Interop 2!']);
    const replaced = await table.replace([{ id: created[0]!.id, fields: { [primary]: 'Replaced' } }]);
    // Only computed fields may remain besides the one given: a replace clears every other writable cell.
    const writable = new Set(deals.fields.filter((f) => !COMPUTED.has(f.type)).map((f) => f.name));
    const kept = Object.keys(replaced[0]!.fields).filter((name) => writable.has(name));
    expect(kept).toEqual([primary]);
    expect((await table.find(created[1]!.id)).get(select)).toBe('Interop stage');
    expect(replaced[0]!.get(primary)).toBe('Replaced');
    const destroyed = await table.destroy(created.map((record) => record.id));
    expect(destroyed.map((record) => record.id)).toEqual(created.map((record) => record.id));
    const stored = await upstream.state<{ id: string }>('records', `&table=${deals.id}`);
    expect(stored.map((record) => record.id)).not.toContain(created[0]!.id);
  });

  it('its errors carry the upstream status and type', async () => {
    const table = base()(deals.name);
    await expect(table.find('recDoesNotExist00')).rejects.toMatchObject({ statusCode: 404 });
    await expect(table.create([{ fields: { 'No such field': 1 } }])).rejects.toMatchObject({
      statusCode: 422,
      error: 'UNKNOWN_FIELD_NAME',
    });
    await expect(table.select({ filterByFormula: 'NOT_A_FUNCTION(' }).all()).rejects.toMatchObject({
      statusCode: 422,
      error: 'INVALID_FILTER_BY_FORMULA',
    });
    const wrongToken = new Airtable({ apiKey: 'patWrong', endpointUrl: upstream.url }).base(baseId);
    await expect(wrongToken(deals.name).select().all()).rejects.toMatchObject({ statusCode: 401 });
  });
});

describe('airtable-mcp-server against the emulator', () => {
  let client: McpClientV1;
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: Record<string, unknown>;
    };
    if (result.isError) throw new Error(`${name}: ${result.content.map((c) => c.text).join('')}`);
    return result.structuredContent ?? JSON.parse(result.content[0]!.text);
  };

  beforeAll(async () => {
    // Its upload call goes to the content host by a fixed URL; the fetch it is given sends that to us too.
    const toEmulator: typeof fetch = (input, init) =>
      fetch(String(input).replace('https://content.airtable.com', upstream.url), init);
    const server = createServer({
      airtableService: new AirtableService(upstream.token, upstream.url, toEmulator),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new McpClientV1({ name: 'interop', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  });
  afterAll(() => client?.close());

  it('schema tools: list_bases, list_tables, describe_table, create_table, update_table, create_field, update_field', async () => {
    const bases = await call('list_bases', {});
    expect(JSON.stringify(bases)).toContain(baseId);
    const tables = await call('list_tables', { baseId });
    expect(JSON.stringify(tables)).toContain(deals.id);
    const described = await call('describe_table', { baseId, tableId: deals.id });
    expect(JSON.stringify(described)).toContain(deals.fields[0]!.id);
    const table = await call('create_table', {
      baseId,
      name: 'MCP interop',
      fields: [{ name: 'Title', type: 'singleLineText' }],
    });
    const tableId = (table as { table: { id: string } }).table.id;
    expect(tableId).toMatch(/^tbl/);
    await call('update_table', { baseId, tableId, name: 'MCP interop 2' });
    const { field } = (await call('create_field', {
      baseId,
      tableId,
      nested: { field: { name: 'Notes', type: 'multilineText' } },
    })) as { field: { id: string } };
    await call('update_field', { baseId, tableId, fieldId: field.id, description: 'from the MCP server' });
    const fields = await upstream.state<{ id: string; description?: string }>('fields', `&table=${tableId}`);
    expect(fields.find((f) => f.id === field.id)?.description).toBe('from the MCP server');
  });

  it('record tools: create_record, get_record, list_records, search_records, update_records, delete_records', async () => {
    const primary = deals.fields[0]!.name;
    const created = (await call('create_record', {
      baseId,
      tableId: deals.id,
      fields: { [primary]: 'From MCP' },
    })) as { id: string };
    const got = await call('get_record', { baseId, tableId: deals.id, recordId: created.id });
    expect(JSON.stringify(got)).toContain('From MCP');
    const listed = await call('list_records', { baseId, tableId: deals.id, maxRecords: 500 });
    expect(JSON.stringify(listed)).toContain(created.id);
    const searched = await call('search_records', { baseId, tableId: deals.id, searchTerm: 'From MCP' });
    expect(JSON.stringify(searched)).toContain(created.id);
    await call('update_records', {
      baseId,
      tableId: deals.id,
      records: [{ id: created.id, fields: { [primary]: 'Edited' } }],
    });
    const record = await upstream.get<{ fields: Record<string, unknown> }>(
      `/_emulator/state/records/${created.id}`,
    );
    expect(JSON.stringify(record)).toContain('Edited');
    await call('delete_records', { baseId, tableId: deals.id, recordIds: [created.id] });
    expect(await upstream.get(`/_emulator/state/records/${created.id}`).catch(() => 'gone')).toBe('gone');
  });

  it('comment tools: create_comment, list_comments', async () => {
    const [record] = await upstream.state<{ id: string }>('records', `&table=${deals.id}`);
    const { comment } = (await call('create_comment', {
      baseId,
      tableId: deals.id,
      recordId: record!.id,
      text: 'Hello from airtable-mcp-server',
    })) as { comment: { id: string } };
    expect(comment.id).toMatch(/^com/);
    const listed = await call('list_comments', { baseId, tableId: deals.id, recordId: record!.id });
    expect(JSON.stringify(listed)).toContain('Hello from airtable-mcp-server');
  });
});
