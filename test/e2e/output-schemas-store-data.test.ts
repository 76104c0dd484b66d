// The output schemas of the StoreApi's data toolsets (records, comments, bases, schema, webhooks, sharing) against
// what the tools return: the SDK's MCP client (on 2025-11-25 and on 2026-07-28) -> Switchboard over Streamable
// HTTP -> the data-store emulator on loopback. Every tool of those toolsets is called successfully (list tools
// with items to return; schema-mode tools in execute mode), in an order that keeps each call valid (create, then
// change, then delete what was created), and each structuredContent is validated by ajv's 2020-12 build against
// the tool's schema converted as tools/list publishes it. The set of tools validated must equal the toolsets'
// tools, so none can be skipped silently. The upstream's own sample answers are checked against the same schemas.

import { existsSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputJsonSchema } from '../../src/runtime/outputSchemas.js';
import { STORE_DATA_OUTPUT_SCHEMAS } from '../../src/services/store/outputSchemas/data.js';
import { STORE_TOOLSETS } from '../../src/services/store/toolsets.js';
import { SHARED_DIR } from '../setup/notes.js';
import type { Connected, Revision } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore, storeTools } from './storeHarness.js';

const DATA_TOOLSETS = ['records', 'comments', 'bases', 'schema', 'webhooks', 'sharing'] as const;
const DATA_TOOLS = DATA_TOOLSETS.flatMap((name) => STORE_TOOLSETS[name].tools as readonly string[]);

const ajv = new Ajv2020({ allErrors: true, strict: false });
/** Each tool's success schema converted exactly as tools/list publishes it (runtime/outputSchemas.ts). */
const validators = new Map(
  Object.entries(STORE_DATA_OUTPUT_SCHEMAS()).map(([tool, schema]) => [
    tool,
    ajv.compile(outputJsonSchema(schema)),
  ]),
);
function problemsOf(tool: string, result: unknown): string[] {
  const validate = validators.get(tool);
  if (!validate) return [`${tool} has no output schema`];
  if (validate(result)) return [];
  // Upstream ids in a path (a map keyed by id) differ per run: written as <id>.
  const path = (at: string) => (at || '/').replace(/\/[a-z]{3}[A-Za-z0-9]{14}(?=\/|$)/g, '/<id>');
  return (validate.errors ?? []).map((e) => `${path(e.instancePath)} ${e.message}`);
}

// biome-ignore lint/suspicious/noExplicitAny: results are read field by field to build the next call.
type Structured = any;

const REVISIONS: readonly Revision[] = ['2025-11-25', '2026-07-28'];

/** Switchboard's store server over Streamable HTTP, reached by an SDK client speaking `revision`. */
const connectAt = (revision: Revision, upstream: StoreEmulatorHandle): Promise<Connected> =>
  connectStore('http', upstream.env(), revision);

describe.each(REVISIONS)('StoreApi data toolsets on %s: every result fits its output schema', (revision) => {
  let upstream: StoreEmulatorHandle;
  let mcp: Connected;
  /** Every successful result, by tool: a tool called more than once has each of its results checked. */
  const results = new Map<string, Structured[]>();

  const { ok, exec } = storeTools(
    () => mcp,
    () => upstream,
    (tool, structured) => results.set(tool, [...(results.get(tool) ?? []), structured]),
  );
  const seededBase = async (name: string): Promise<string> => {
    const bases = await upstream.state<{ id: string; name: string }>('bases');
    return bases.find((b) => b.name === name)!.id;
  };

  beforeAll(async () => {
    upstream = await startStore();
    mcp = await connectAt(revision, upstream);
  });
  afterAll(async () => {
    await mcp?.close();
    await upstream?.close();
  });

  let baseId: string;
  let tableId: string;
  const recordIds: string[] = [];

  it('bases and schema: whoami, list, create a base, its schema, tables and fields', async () => {
    await ok('RetrieveUserIdAndScopes');
    await ok('ListStoreBases');
    const [seeded] = await upstream.state<{ workspaceId: string }>('bases');
    const base = await exec(
      'CreateStoreBase',
      {},
      {
        name: 'Output schemas',
        workspaceId: seeded!.workspaceId,
        tables: [
          {
            name: 'Tasks',
            fields: [
              { name: 'Name', type: 'singleLineText' },
              { name: 'Points', type: 'number', options: { precision: 0 } },
              { name: 'Files', type: 'multipleAttachments' },
            ],
          },
        ],
      },
    );
    baseId = base.id;
    const schema = await ok('GetStoreBaseSchema', {
      store_base_id: baseId,
      fields_to_include: ['visibleFieldIds'],
    });
    tableId = schema.tables[0].id;
    const table = await exec(
      'CreateStoreTable',
      { store_base_id: baseId },
      { name: 'Notes', description: 'Scratch', fields: [{ name: 'Title', type: 'singleLineText' }] },
    );
    await exec(
      'UpdateStoreTable',
      { store_base_id: baseId, table_id_or_name: table.id },
      { name: 'Notes 2' },
    );
    const field = await exec(
      'CreateStoreField',
      { store_base_id: baseId, table_id: tableId },
      { name: 'Status', type: 'singleSelect', options: { choices: [{ name: 'Todo' }, { name: 'Done' }] } },
    );
    await ok('UpdateStoreFieldDetails', {
      store_base_id: baseId,
      store_table_id: tableId,
      field_column_id: field.id,
      new_field_description: 'Where it stands',
    });
  });

  it('records: create, get, list, update, replace, upsert', async () => {
    const created = await exec(
      'CreateStoreRecords',
      { base_id: baseId, table_id_or_name: 'Tasks' },
      {
        records: [
          { fields: { Name: 'One', Points: 1, Status: 'Todo' } },
          { fields: { Name: 'Two', Points: 2 } },
          { fields: { Name: 'Three', Points: 3 } },
        ],
      },
    );
    recordIds.push(...created.records.map((r: { id: string }) => r.id));
    // The body's other form, `fields`: one record, answered as the record itself.
    await exec(
      'CreateStoreRecords',
      { base_id: baseId, table_id_or_name: 'Tasks' },
      { fields: { Name: 'Solo' } },
    );
    await ok('StoreGetRecord', { store_base_id: baseId, table_identifier: tableId, record_id: recordIds[0] });
    const listed = await ok('ListStoreRecords', {
      base_id: baseId,
      table_id_or_name: 'Tasks',
      page_size: 2,
      record_metadata_fields: ['commentCount'],
    });
    expect(listed.records.length).toBe(2);
    await exec(
      'UpdateStoreRecord',
      { base_id: baseId, table_id_or_name: 'Tasks', store_record_id: recordIds[0] },
      { fields: { Points: 10 } },
    );
    await exec(
      'ModifyStoreEntry',
      { base_id: baseId, table_identifier: 'Tasks', record_identifier: recordIds[1] },
      { fields: { Name: 'Two again' } },
    );
    await exec(
      'UpdateStoreRecords',
      { store_base_id: baseId, store_table_id_or_name: 'Tasks' },
      { records: [{ id: recordIds[2], fields: { Status: 'Done' } }] },
    );
    const upserted = await exec(
      'UpdateStoreRecords',
      { store_base_id: baseId, store_table_id_or_name: 'Tasks' },
      {
        performUpsert: { fieldsToMergeOn: ['Name'] },
        records: [{ fields: { Name: 'One', Points: 11 } }, { fields: { Name: 'Four', Points: 4 } }],
      },
    );
    recordIds.push(...upserted.createdRecords);
    await exec(
      'BulkUpdateStore',
      { base_id: baseId, table_identifier: 'Tasks' },
      { records: [{ id: recordIds[3], fields: { Name: 'Four', Points: 44 } }] },
    );
  });

  it('comments, an attachment, then record deletes', async () => {
    const where = { base_identifier: baseId, table_identifier: 'Tasks', record_identifier: recordIds[0] };
    const comment = await exec('AddRecordComment', where, { text: 'Looks good' });
    const reply = await exec('AddRecordComment', where, { text: 'Agreed', parentCommentId: comment.id });
    const listed = await ok('GetRecordComments', {
      base_id: baseId,
      table_identifier: 'Tasks',
      record_id: recordIds[0],
    });
    expect(listed.comments.length).toBe(2);
    await exec(
      'UpdateRecordComment',
      { base_identifier: baseId, table_id_or_name: 'Tasks', record_id: recordIds[0], comment_id: comment.id },
      { text: 'Looks great' },
    );
    await ok('DeleteCommentFromRecord', {
      store_base_id: baseId,
      table_id_or_name: 'Tasks',
      record_id: recordIds[0],
      comment_id_to_delete: reply.id,
    });
    await exec(
      'UploadAttachmentToStore',
      { store_base_id: baseId, store_record_id: recordIds[0], attachment_field_id_or_name: 'Files' },
      { contentType: 'text/plain', file: Buffer.from('hello').toString('base64'), filename: 'hello.txt' },
    );
    // Listed again now that a record has comments and an attachment.
    await ok('ListStoreRecords', {
      base_id: baseId,
      table_id_or_name: 'Tasks',
      record_metadata_fields: ['commentCount'],
    });
    await ok('DeleteStoreRecord', {
      store_base_id: baseId,
      table_identifier: 'Tasks',
      record_id: recordIds[3],
    });
    await ok('DeleteMultipleRecords', {
      base_id: baseId,
      table_identifier: 'Tasks',
      record_ids_to_delete: [recordIds[1], recordIds[2]],
    });
  });

  it('webhooks: create, list, payloads of a change, toggle, refresh, delete', async () => {
    const hook = await exec(
      'CreateStoreWebhook',
      { base_id: baseId },
      { specification: { options: { filters: { dataTypes: ['tableData'] } } } },
    );
    await exec(
      'CreateStoreRecords',
      { base_id: baseId, table_id_or_name: 'Tasks' },
      { records: [{ fields: { Name: 'Hooked' } }] },
    );
    await ok('ListWebhooksForBase', { base_identifier: baseId });
    const payloads = await ok('ListWebhookPayloads', { base_id: baseId, webhook_id: hook.id });
    expect(payloads.payloads.length).toBeGreaterThan(0);
    await exec(
      'ToggleWebhookNotifications',
      { store_base_id: baseId, webhook_id: hook.id },
      { enable: false },
    );
    await ok('RefreshWebhookLifespan', { base_identifier: baseId, webhook_id: hook.id });
    await ok('DeleteStoreWebhook', { store_base_id: baseId, webhook_id: hook.id });
  });

  it('views of a seeded base: list, get, delete', async () => {
    const roadmap = await seededBase('Product Roadmap');
    const { views } = await ok('ListStoreBaseViews', {
      store_base_id: roadmap,
      fields_to_include: ['visibleFieldIds'],
    });
    const grid = views.find((v: { type: string }) => v.type === 'grid');
    await ok('GetStoreViewMetadata', {
      base_identifier: roadmap,
      view_identifier: grid.id,
      include_fields: ['visibleFieldIds'],
    });
    await ok('DeleteStoreView', { store_base_id: roadmap, view_identifier: views.at(-1).id });
  });

  it('sharing: collaborators, invites, interfaces, shares, extensions', async () => {
    const roadmap = await seededBase('Product Roadmap');
    const crm = await seededBase('Sales CRM');
    const users = await upstream.state<{ id: string; email: string }>('users');
    const margaret = users.find((u) => u.email.startsWith('margaret@'))!.id;
    const alan = users.find((u) => u.email.startsWith('alan@'))!.id;

    const base = await ok('GetBaseCollaborators', {
      base_id: roadmap,
      fields_to_include: ['collaborators', 'inviteLinks', 'interfaces'],
    });
    await ok('GetBaseCollaborators', { base_id: crm });
    await exec(
      'AddBaseCollaborator',
      { base_id: crm },
      { collaborators: [{ user: { id: margaret }, permissionLevel: 'edit' }] },
    );
    await exec(
      'UpdateCollaboratorPermission',
      { base_identifier: crm, collaborator_id: margaret },
      { permissionLevel: 'comment' },
    );
    await ok('RemoveBaseCollaborator', { base_id: crm, collaborator_id: margaret });
    await ok('DeleteBaseInvite', { base_id: roadmap, invite_id: base.inviteLinks.baseInviteLinks[0].id });

    const dashboard = Object.keys(base.interfaces)[0]!;
    const info = await ok('GetInterfaceInfo', {
      store_base_id: roadmap,
      interface_id: dashboard,
      include_elements: ['collaborators', 'inviteLinks'],
    });
    await exec(
      'AddCollaboratorToStoreInterface',
      { store_base_id: roadmap, page_bundle_id: dashboard },
      { collaborators: [{ user: { id: margaret }, permissionLevel: 'read' }] },
    );
    await exec(
      'UpdateCollaboratorPermissions',
      { base_identifier: roadmap, interface_page_bundle_id: dashboard, collaborator_id: margaret },
      { permissionLevel: 'edit' },
    );
    await ok('RemoveInterfaceCollaborator', {
      base_id: roadmap,
      interface_page_bundle_id: dashboard,
      collaborator_id: alan,
    });
    await ok('DeleteInterfaceInvite', {
      base_identifier: roadmap,
      page_bundle_id: dashboard,
      invite_id: info.inviteLinks[0].id,
    });

    const { shares } = await ok('ListBaseShares', { base_identifier: roadmap });
    await exec(
      'ManageStoreSharing',
      { store_base_id: roadmap, share_identifier: shares[1].shareId },
      { state: 'enabled' },
    );
    await ok('DeleteStoreShare', { store_base_id: roadmap, share_id: shares[0].shareId });

    const { items: installations } = await ok('ListBaseBlockInstallations', { base_id: roadmap });
    const installation = installations[0].id;
    await exec(
      'ManageStoreBlockInstallation',
      { store_base_id: roadmap, block_installation_id: installation },
      { state: 'disabled' },
    );
    await ok('DeleteStoreBlockInstallation', { store_base_id: roadmap, block_installation_id: installation });
  });

  it('the base built here is deleted last', async () => {
    await ok('DeleteStoreBase', { base_id: baseId });
  });

  it('every result fits its schema', () => {
    expect([...results.keys()].sort()).toEqual([...DATA_TOOLS].sort());
    const misfits: Record<string, string[]> = {};
    for (const [tool, structured] of results) {
      const problems = new Set(structured.flatMap((result) => problemsOf(tool, result)));
      if (problems.size > 0) misfits[tool] = [...problems].sort();
    }
    expect(misfits).toEqual({});
  });
});

describe('StoreApi data toolsets: the schema table', () => {
  it('has one entry for each tool of the data toolsets, and no other', () => {
    expect(Object.keys(STORE_DATA_OUTPUT_SCHEMAS()).sort()).toEqual([...DATA_TOOLS].sort());
  });
});

/** The upstream's own sample bodies (../shared/reference/store-samples), as each tool would return them. */
const SAMPLES = `${SHARED_DIR}reference/store-samples/`;
describe.skipIf(!existsSync(SAMPLES))(
  "StoreApi data toolsets: the upstream's sample answers fit the schemas",
  () => {
    const sample = (name: string) => JSON.parse(readFileSync(`${SAMPLES}${name}.json`, 'utf8')) as Structured;
    it.each([
      ['ListStoreBases', () => sample('Bases')],
      ['GetStoreBaseSchema', () => sample('BaseSchema')],
      ['CreateStoreTable', () => sample('TableSchema')],
      ['GetStoreViewMetadata', () => sample('ViewSchema')],
      ['AddRecordComment', () => sample('Comment')],
      ['GetBaseCollaborators', () => sample('BaseCollaborators')],
      ['ListBaseShares', () => sample('BaseShares')],
      ['ListWebhooksForBase', () => ({ webhooks: [sample('Webhook')] })],
      [
        'ListWebhookPayloads',
        () => ({ cursor: 5, mightHaveMore: false, payloads: [sample('WebhookPayload')] }),
      ],
    ])('%s', (tool, body) => {
      expect(problemsOf(tool, body())).toEqual([]);
    });
  },
);
