// Every StoreApi tool of the data part end to end: the SDK's MCP client -> Switchboard (over stdio and over
// HTTP) -> the data-store emulator on loopback. Each transport builds its own base through the tools and works
// in it, checking results, the upstream requests the emulator logged, and the emulator's state.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestBodyDocument } from '../../src/runtime/schemaMode.js';
import { STORE_BODIES, type StoreBodyName } from '../../src/services/store/schemas/index.js';
import type { Connected, Transport } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore } from './storeHarness.js';

const T = (name: string) => `StoreApi.${name}`;
const json = (value: unknown) => JSON.stringify(value);

const SCHEMA_MODE: Record<string, StoreBodyName> = {
  UploadAttachmentToStore: 'uploadAttachment',
  UpdateStoreRecords: 'updateRecords',
  CreateStoreRecords: 'createRecords',
  BulkUpdateStore: 'replaceRecords',
  UpdateStoreRecord: 'updateRecord',
  ModifyStoreEntry: 'replaceRecord',
  AddRecordComment: 'createComment',
  UpdateRecordComment: 'updateComment',
  CreateStoreTable: 'createTable',
  UpdateStoreTable: 'updateTable',
  CreateStoreField: 'createField',
  CreateStoreBase: 'createBase',
  CreateStoreWebhook: 'createWebhook',
  ToggleWebhookNotifications: 'toggleWebhookNotifications',
};

interface StoreRecord {
  id: string;
  createdTime: string;
  fields: Record<string, unknown>;
}
interface Field {
  id: string;
  name: string;
  type: string;
}
interface Table {
  id: string;
  name: string;
  primaryFieldId: string;
  fields: Field[];
  views: { id: string; name: string; type: string }[];
}

describe.each<Transport>(['stdio', 'http'])('StoreApi end to end over %s', (transport) => {
  let upstream: StoreEmulatorHandle;
  let mcp: Connected;
  // The base this transport builds and works in.
  let baseId: string;
  let tasks: Table;
  const records: Record<string, StoreRecord> = {};

  const ok = async (tool: string, args: Record<string, unknown> = {}) => {
    const result = await mcp.call(T(tool), args);
    if (result.isError) throw new Error(`${tool}: ${result.text}`);
    return result.structured;
  };
  const exec = (tool: string, args: Record<string, unknown>, body: unknown) =>
    ok(tool, { mode: 'execute', ...args, request_body: json(body) });
  const paths = async () => (await upstream.requests()).map((r) => `${r.method} ${r.path}`);

  beforeAll(async () => {
    upstream = await startStore();
    mcp = await connectStore(transport, upstream.env());
  });
  afterAll(async () => {
    await mcp?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.clearLog());

  it('schema mode: each of the 14 tools returns its body schema and calls nothing', async () => {
    for (const [tool, body] of Object.entries(SCHEMA_MODE)) {
      const result = await ok(tool, { mode: 'get_request_schema' });
      expect(result.request_body, tool).toEqual(requestBodyDocument(STORE_BODIES[body]));
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('RetrieveUserIdAndScopes and ListStoreBases describe the token and what it reaches', async () => {
    // A personal access token: the upstream names its user and email (user.email:read), but lists scopes only
    // for OAuth tokens.
    const me = await ok('RetrieveUserIdAndScopes');
    expect(me).toEqual({ id: expect.stringMatching(/^usr/), email: 'owner@sandbox.example.com' });
    const bases = (await ok('ListStoreBases')).bases as { id: string; name: string }[];
    expect(bases.length).toBeGreaterThanOrEqual(3);
    expect(await paths()).toEqual(['GET /v0/meta/whoami', 'GET /v0/meta/bases']);
  });

  it('CreateStoreBase, then GetStoreBaseSchema shows its tables and fields', async () => {
    const [seeded] = await upstream.state<{ workspaceId: string }>('bases');
    const created = await exec(
      'CreateStoreBase',
      {},
      {
        name: `E2E ${transport}`,
        workspaceId: seeded!.workspaceId,
        tables: [
          {
            name: 'Tasks',
            fields: [
              { name: 'Name', type: 'singleLineText' },
              { name: 'Points', type: 'number', options: { precision: 0 } },
              {
                name: 'Status',
                type: 'singleSelect',
                options: { choices: [{ name: 'Todo' }, { name: 'Doing' }, { name: 'Done' }] },
              },
              { name: 'Files', type: 'multipleAttachments' },
            ],
          },
        ],
      },
    );
    baseId = created.id as string;
    expect(baseId).toMatch(/^app/);
    const schema = await ok('GetStoreBaseSchema', {
      store_base_id: baseId,
      fields_to_include: ['visibleFieldIds'],
    });
    tasks = (schema.tables as Table[])[0]!;
    expect(tasks.fields.map((f) => [f.name, f.type])).toEqual([
      ['Name', 'singleLineText'],
      ['Points', 'number'],
      ['Status', 'singleSelect'],
      ['Files', 'multipleAttachments'],
    ]);
    const requests = await upstream.requests();
    expect(requests.map((r) => r.path)).toEqual(['/v0/meta/bases', `/v0/meta/bases/${baseId}/tables`]);
    expect(requests[1]!.query).toEqual({ 'include[]': 'visibleFieldIds' });
  });

  it('CreateStoreTable, UpdateStoreTable, CreateStoreField, UpdateStoreFieldDetails', async () => {
    const table = await exec(
      'CreateStoreTable',
      { store_base_id: baseId },
      {
        name: 'Notes',
        fields: [{ name: 'Title', type: 'singleLineText' }],
      },
    );
    expect(table).toMatchObject({ name: 'Notes' });
    const renamed = await exec(
      'UpdateStoreTable',
      { store_base_id: baseId, table_id_or_name: table.id },
      { name: 'Notes 2', description: 'Renamed by e2e' },
    );
    expect(renamed).toMatchObject({ id: table.id, name: 'Notes 2', description: 'Renamed by e2e' });
    const field = await exec(
      'CreateStoreField',
      { store_base_id: baseId, table_id: tasks.id },
      { name: 'Due', type: 'date', options: { dateFormat: { name: 'iso' } } },
    );
    expect(field).toMatchObject({ name: 'Due', type: 'date' });
    const described = await ok('UpdateStoreFieldDetails', {
      store_base_id: baseId,
      store_table_id: tasks.id,
      field_column_id: field.id,
      new_field_description: 'When it is due',
    });
    expect(described).toMatchObject({ id: field.id, description: 'When it is due' });
    const fields = await upstream.state<{ id: string; name: string; description?: string }>(
      'fields',
      `&table=${tasks.id}`,
    );
    expect(fields.find((f) => f.id === field.id)?.description).toBe('When it is due');
    expect((await upstream.requests()).map((r) => r.method)).toEqual(['POST', 'PATCH', 'POST', 'PATCH']);
  });

  it('CreateStoreRecords, StoreGetRecord and ListStoreRecords with filter, sort, fields and paging', async () => {
    const created = await exec(
      'CreateStoreRecords',
      { base_id: baseId, table_id_or_name: 'Tasks' },
      {
        records: [
          { fields: { Name: 'Write spec', Points: 3, Status: 'Done' } },
          { fields: { Name: 'Build emulator', Points: 8, Status: 'Doing' } },
          { fields: { Name: 'Ship', Points: 5, Status: 'Todo' } },
        ],
      },
    );
    for (const record of created.records as StoreRecord[]) records[record.fields.Name as string] = record;
    expect(Object.keys(records)).toHaveLength(3);

    const one = await ok('StoreGetRecord', {
      store_base_id: baseId,
      table_identifier: tasks.id,
      record_id: records.Ship!.id,
    });
    expect(one).toMatchObject({ id: records.Ship!.id, fields: { Name: 'Ship', Points: 5, Status: 'Todo' } });

    const listed = await ok('ListStoreRecords', {
      base_id: baseId,
      table_id_or_name: 'Tasks',
      filter_by_formula: '{Points} >= 5',
      sort_order: json([{ field: 'Points', direction: 'asc' }]),
      specific_fields: 'Name, Points',
    });
    // Created as Write spec (3), Build emulator (8), Ship (5): the order below comes from the sort.
    expect((listed.records as StoreRecord[]).map((r) => r.fields)).toEqual([
      { Name: 'Ship', Points: 5 },
      { Name: 'Build emulator', Points: 8 },
    ]);
    const list = (await upstream.requests()).at(-1)!;
    expect(list.query).toMatchObject({
      filterByFormula: '{Points} >= 5',
      'sort[0][field]': 'Points',
      'sort[0][direction]': 'asc',
      'fields[]': ['Name', 'Points'],
      pageSize: '100',
    });

    const page1 = await ok('ListStoreRecords', { base_id: baseId, table_id_or_name: 'Tasks', page_size: 2 });
    expect((page1.records as unknown[]).length).toBe(2);
    const page2 = await ok('ListStoreRecords', {
      base_id: baseId,
      table_id_or_name: 'Tasks',
      page_size: 2,
      pagination_offset: page1.offset,
    });
    expect((page2.records as unknown[]).length).toBe(1);
    expect(page2.offset).toBeUndefined();
  });

  it('ListStoreRecords: string cells need a time zone and locale; a very long formula goes by POST', async () => {
    const refused = await mcp.call(T('ListStoreRecords'), {
      base_id: baseId,
      table_id_or_name: 'Tasks',
      cell_format_method: 'string',
    });
    expect(refused.isError).toBe(true);
    const fields = (refused.structured.error as { issues: { field: string }[] }).issues.map((i) => i.field);
    expect(fields.sort()).toEqual(['output_time_zone', 'user_locale']);
    expect(await upstream.requests()).toEqual([]);

    const strings = await ok('ListStoreRecords', {
      base_id: baseId,
      table_id_or_name: 'Tasks',
      cell_format_method: 'string',
      output_time_zone: 'Europe/Paris',
      user_locale: 'en-gb',
      filter_by_formula: '{Name} = "Ship"',
    });
    expect((strings.records as StoreRecord[])[0]!.fields.Points).toBe('5');

    // 1,600 alternatives make a URL far over 16,000 characters.
    const longFormula = `OR(${Array.from({ length: 1600 }, (_, i) => `{Name}="n${i}"`).join(',')},{Name}="Ship")`;
    const long = await ok('ListStoreRecords', {
      base_id: baseId,
      table_id_or_name: 'Tasks',
      filter_by_formula: longFormula,
      output_time_zone: 'UTC',
    });
    expect((long.records as StoreRecord[]).map((r) => r.fields.Name)).toEqual(['Ship']);
    const post = (await upstream.requests()).at(-1)!;
    expect(post).toMatchObject({
      method: 'POST',
      path: `/v0/${baseId}/Tasks/listRecords`,
      query: { timeZone: 'UTC' },
    });
    expect(post.body).toMatchObject({ filterByFormula: longFormula, pageSize: 100 });
  });

  it('UpdateStoreRecord patches; ModifyStoreEntry replaces and clears what it does not name', async () => {
    const { id } = records['Write spec']!;
    await exec(
      'UpdateStoreRecord',
      { base_id: baseId, table_id_or_name: tasks.id, store_record_id: id },
      {
        fields: { Points: 4 },
      },
    );
    expect(await upstream.get<{ fields: unknown }>(`/_emulator/state/records/${id}`)).toMatchObject({
      fields: expect.objectContaining({}),
    });
    let now = await ok('StoreGetRecord', { store_base_id: baseId, table_identifier: 'Tasks', record_id: id });
    expect(now.fields).toEqual({ Name: 'Write spec', Points: 4, Status: 'Done' });
    await exec(
      'ModifyStoreEntry',
      { base_id: baseId, table_identifier: 'Tasks', record_identifier: id },
      {
        fields: { Name: 'Write spec v2' },
      },
    );
    now = await ok('StoreGetRecord', { store_base_id: baseId, table_identifier: 'Tasks', record_id: id });
    expect(now.fields).toEqual({ Name: 'Write spec v2' });
    expect((await upstream.requests()).map((r) => r.method)).toEqual(['PATCH', 'GET', 'PUT', 'GET']);
  });

  it('UpdateStoreRecords patches many and upserts; BulkUpdateStore replaces many', async () => {
    const patched = await exec(
      'UpdateStoreRecords',
      { store_base_id: baseId, store_table_id_or_name: 'Tasks' },
      {
        records: [{ id: records.Ship!.id, fields: { Status: 'Doing' } }],
      },
    );
    expect((patched.records as StoreRecord[])[0]!.fields).toMatchObject({ Name: 'Ship', Status: 'Doing' });
    const upserted = await exec(
      'UpdateStoreRecords',
      { store_base_id: baseId, store_table_id_or_name: 'Tasks' },
      {
        performUpsert: { fieldsToMergeOn: ['Name'] },
        records: [{ fields: { Name: 'Ship', Points: 13 } }, { fields: { Name: 'Celebrate', Points: 1 } }],
      },
    );
    expect((upserted.updatedRecords as string[]).length).toBe(1);
    expect((upserted.createdRecords as string[]).length).toBe(1);
    records.Celebrate = (upserted.records as StoreRecord[]).find((r) => r.fields.Name === 'Celebrate')!;

    const replaced = await exec(
      'BulkUpdateStore',
      { base_id: baseId, table_identifier: 'Tasks' },
      {
        records: [{ id: records['Build emulator']!.id, fields: { Name: 'Build emulator', Points: 21 } }],
      },
    );
    expect((replaced.records as StoreRecord[])[0]!.fields).toEqual({ Name: 'Build emulator', Points: 21 });
    expect((await upstream.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
      `PATCH /v0/${baseId}/Tasks`,
      `PATCH /v0/${baseId}/Tasks`,
      `PUT /v0/${baseId}/Tasks`,
    ]);
  });

  it('11 records in one write are refused before anything is sent', async () => {
    const result = await mcp.call(T('CreateStoreRecords'), {
      mode: 'execute',
      base_id: baseId,
      table_id_or_name: 'Tasks',
      request_body: json({ records: Array.from({ length: 11 }, (_, i) => ({ fields: { Name: `n${i}` } })) }),
    });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('at most 10 records');
    expect(await upstream.requests()).toEqual([]);
  });

  it('comments: AddRecordComment, GetRecordComments, UpdateRecordComment, DeleteCommentFromRecord', async () => {
    const where = { base_identifier: baseId, table_identifier: 'Tasks', record_identifier: records.Ship!.id };
    const comment = await exec('AddRecordComment', where, { text: 'Looks good' });
    expect(comment).toMatchObject({ text: 'Looks good' });
    const reply = await exec('AddRecordComment', where, { text: 'Agreed', parentCommentId: comment.id });
    expect(reply.parentCommentId).toBe(comment.id);
    const listed = await ok('GetRecordComments', {
      base_id: baseId,
      table_identifier: 'Tasks',
      record_id: records.Ship!.id,
    });
    expect((listed.comments as { text: string }[]).map((c) => c.text)).toEqual(['Agreed', 'Looks good']);
    const edited = await exec(
      'UpdateRecordComment',
      {
        base_identifier: baseId,
        table_id_or_name: 'Tasks',
        record_id: records.Ship!.id,
        comment_id: comment.id,
      },
      { text: 'Looks great' },
    );
    expect(edited.text).toBe('Looks great');
    const deleted = await ok('DeleteCommentFromRecord', {
      store_base_id: baseId,
      table_id_or_name: 'Tasks',
      record_id: records.Ship!.id,
      comment_id_to_delete: reply.id,
    });
    expect(deleted).toEqual({ id: reply.id, deleted: true });
    const left = await upstream.state<{ id: string; text: string }>(
      'comments',
      `&record=${records.Ship!.id}`,
    );
    expect(left.map((c) => c.text)).toEqual(['Looks great']);
  });

  it('UploadAttachmentToStore stores the file; its url serves the same bytes', async () => {
    const bytes = Buffer.from(`hello from ${transport}`);
    const result = await exec(
      'UploadAttachmentToStore',
      { store_base_id: baseId, store_record_id: records.Ship!.id, attachment_field_id_or_name: 'Files' },
      { contentType: 'text/plain', file: bytes.toString('base64'), filename: 'hello.txt' },
    );
    const filesField = tasks.fields.find((f) => f.name === 'Files')!;
    const [attachment] = (result.fields as Record<string, { url: string; filename: string; size: number }[]>)[
      filesField.id
    ]!;
    expect(attachment).toMatchObject({ filename: 'hello.txt', size: bytes.length });
    const served = await fetch(attachment!.url);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(bytes);
  });

  it('DeleteStoreRecord and DeleteMultipleRecords', async () => {
    const one = await ok('DeleteStoreRecord', {
      store_base_id: baseId,
      table_identifier: 'Tasks',
      record_id: records.Celebrate!.id,
    });
    expect(one).toEqual({ id: records.Celebrate!.id, deleted: true });
    const ids = [records.Ship!.id, records['Write spec']!.id];
    const many = await ok('DeleteMultipleRecords', {
      base_id: baseId,
      table_identifier: 'Tasks',
      record_ids_to_delete: ids,
    });
    expect(many.records).toEqual(ids.map((id) => ({ id, deleted: true })));
    expect((await upstream.requests()).at(-1)!.query).toEqual({ 'records[]': ids });
    const left = await upstream.state<{ id: string }>('records', `&table=${tasks.id}`);
    expect(left.map((r) => r.id)).toEqual([records['Build emulator']!.id]);
  });

  it('views: ListStoreBaseViews, GetStoreViewMetadata, DeleteStoreView (on a seeded base)', async () => {
    const bases = (await ok('ListStoreBases')).bases as { id: string; name: string }[];
    const roadmap = bases.find((b) => b.name === 'Product Roadmap')!;
    const views = (await ok('ListStoreBaseViews', { store_base_id: roadmap.id })).views as {
      id: string;
      name: string;
    }[];
    expect(views.length).toBeGreaterThan(1);
    const view = await ok('GetStoreViewMetadata', {
      base_identifier: roadmap.id,
      view_identifier: views[1]!.id,
      include_fields: ['visibleFieldIds'],
    });
    expect(view).toMatchObject({ id: views[1]!.id, name: views[1]!.name });
    expect(Array.isArray(view.visibleFieldIds) || view.type !== 'grid').toBe(true);
    const deleted = await ok('DeleteStoreView', { store_base_id: roadmap.id, view_identifier: views[1]!.id });
    expect(deleted).toEqual({ id: views[1]!.id, deleted: true });
    const after = (await ok('ListStoreBaseViews', { store_base_id: roadmap.id })).views as { id: string }[];
    expect(after.map((v) => v.id)).not.toContain(views[1]!.id);
  });

  it('webhooks: create, list, payloads from a real change, toggle, refresh, delete', async () => {
    const hook = await exec(
      'CreateStoreWebhook',
      { base_id: baseId },
      {
        specification: { options: { filters: { dataTypes: ['tableData'] } } },
      },
    );
    expect(hook.id).toMatch(/^ach/);
    expect(typeof hook.macSecretBase64).toBe('string');
    await exec(
      'CreateStoreRecords',
      { base_id: baseId, table_id_or_name: 'Tasks' },
      {
        records: [{ fields: { Name: 'Hooked' } }],
      },
    );
    const listed = (await ok('ListWebhooksForBase', { base_identifier: baseId })).webhooks as {
      id: string;
    }[];
    expect(listed.map((w) => w.id)).toEqual([hook.id]);
    const payloads = await ok('ListWebhookPayloads', {
      base_id: baseId,
      webhook_id: hook.id,
      pagination_cursor: 1,
    });
    const [payload] = payloads.payloads as {
      changedTablesById: Record<string, { createdRecordsById?: object }>;
    }[];
    expect(Object.keys(payload!.changedTablesById[tasks.id]!.createdRecordsById ?? {})).toHaveLength(1);
    expect(payloads.cursor).toBe(2);
    const toggled = await exec(
      'ToggleWebhookNotifications',
      { store_base_id: baseId, webhook_id: hook.id },
      {
        enable: false,
      },
    );
    expect(toggled).toEqual({ success: true, status: 200 });
    const refreshed = await ok('RefreshWebhookLifespan', { base_identifier: baseId, webhook_id: hook.id });
    expect(Date.parse(refreshed.expirationTime as string)).toBeGreaterThan(Date.now() + 6 * 24 * 3600 * 1000);
    expect(await ok('DeleteStoreWebhook', { store_base_id: baseId, webhook_id: hook.id })).toEqual({
      success: true,
      status: 200,
    });
    expect((await ok('ListWebhooksForBase', { base_identifier: baseId })).webhooks).toEqual([]);
  });

  it('DeleteStoreBase removes the base', async () => {
    expect(await ok('DeleteStoreBase', { base_id: baseId })).toEqual({ id: baseId, deleted: true });
    expect(await upstream.get(`/_emulator/state/bases/${baseId}`).catch(() => 'gone')).toBe('gone');
    const bases = (await ok('ListStoreBases')).bases as { id: string }[];
    expect(bases.map((b) => b.id)).not.toContain(baseId);
  });
});
