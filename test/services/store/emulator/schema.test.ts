// The metadata endpoints: bases (list with offset pages, create with tables and a Grid view each, delete),
// the base schema (with include[]=visibleFieldIds), tables (create, rename, describe), fields (create, a link's
// inverse in the linked table, duplicate names, description limits, update) and views (list, read, delete,
// the last view refused), in the shapes of the upstream samples.
import { afterAll, describe, expect, it } from 'vitest';
import { call, ids, type Loose, makeEmulator } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const features = ids(emulator, 'Product Roadmap', 'Features');
const teams = ids(emulator, 'Product Roadmap', 'Teams');
const workspaceId = emulator.store.schema().workspaces[0]!.id;

describe('bases', () => {
  it('lists bases as {id, name, permissionLevel}', async () => {
    const res = await call(emulator, 'GET', '/v0/meta/bases');
    expect(res.status).toBe(200);
    expect(res.body.bases[0]).toEqual({
      id: features.base,
      name: 'Product Roadmap',
      permissionLevel: 'create',
    });
    expect(res.body.offset).toBeUndefined();
  });

  it('creates a base with its tables, fields and a Grid view each', async () => {
    const res = await call(emulator, 'POST', '/v0/meta/bases', {
      body: {
        name: 'Apartment Hunting',
        workspaceId,
        tables: [
          {
            name: 'Apartments',
            description: 'Apartments to track.',
            fields: [
              { name: 'Name', type: 'singleLineText', description: 'Name of the apartment' },
              { name: 'Pictures', type: 'multipleAttachments', options: { isReversed: false } },
              { name: 'Rent', type: 'currency', options: { precision: 0, symbol: '€' } },
            ],
          },
          { name: 'Districts', fields: [{ name: 'Name', type: 'singleLineText' }] },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toMatch(/^app[A-Za-z0-9]{14}$/);
    const [apartments, districts] = res.body.tables;
    expect(apartments).toEqual({
      id: expect.stringMatching(/^tbl/),
      name: 'Apartments',
      description: 'Apartments to track.',
      primaryFieldId: apartments.fields[0].id,
      fields: [
        {
          id: expect.stringMatching(/^fld/),
          name: 'Name',
          type: 'singleLineText',
          description: 'Name of the apartment',
        },
        {
          id: expect.stringMatching(/^fld/),
          name: 'Pictures',
          type: 'multipleAttachments',
          options: { isReversed: false },
        },
        {
          id: expect.stringMatching(/^fld/),
          name: 'Rent',
          type: 'currency',
          options: { precision: 0, symbol: '€' },
        },
      ],
      views: [{ id: expect.stringMatching(/^viw/), name: 'Grid view', type: 'grid' }],
    });
    expect(districts.name).toBe('Districts');
    const listed = await call(emulator, 'GET', '/v0/meta/bases');
    expect(listed.body.bases.at(-1)).toEqual({
      id: res.body.id,
      name: 'Apartment Hunting',
      permissionLevel: 'create',
    });
    const records = await call(emulator, 'POST', `/v0/${res.body.id}/Apartments`, {
      body: { fields: { Name: 'Loft', Rent: 1200 } },
    });
    expect(records.status).toBe(200);
  });

  it('refuses an unknown workspace (403), computed field types and bad primary fields (422)', async () => {
    const table = { name: 'T', fields: [{ name: 'Name', type: 'singleLineText' }] };
    const unknown = await call(emulator, 'POST', '/v0/meta/bases', {
      body: { name: 'X', workspaceId: 'wspAAAAAAAAAAAAAA', tables: [table] },
    });
    expect(unknown.status).toBe(403);
    const formula = await call(emulator, 'POST', '/v0/meta/bases', {
      body: {
        name: 'X',
        workspaceId,
        tables: [{ name: 'T', fields: [{ name: 'F', type: 'formula', options: { formula: '1' } }] }],
      },
    });
    expect(formula.status).toBe(422);
    expect(formula.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
    expect(formula.body.error.message).toContain('formula');
    const checkboxFirst = await call(emulator, 'POST', '/v0/meta/bases', {
      body: {
        name: 'X',
        workspaceId,
        tables: [
          {
            name: 'T',
            fields: [{ name: 'Done', type: 'checkbox', options: { icon: 'check', color: 'greenBright' } }],
          },
        ],
      },
    });
    expect(checkboxFirst.status).toBe(422);
  });

  it('pages the base list with an offset', async () => {
    for (let i = 0; i < 100; i++) {
      const res = await call(emulator, 'POST', '/v0/meta/bases', {
        body: {
          name: `Bulk ${i}`,
          workspaceId,
          tables: [{ name: 'T', fields: [{ name: 'Name', type: 'singleLineText' }] }],
        },
      });
      expect(res.status).toBe(200);
    }
    const first = await call(emulator, 'GET', '/v0/meta/bases');
    expect(first.body.bases).toHaveLength(100);
    const second = await call(
      emulator,
      'GET',
      `/v0/meta/bases?offset=${encodeURIComponent(first.body.offset)}`,
    );
    expect(second.body.bases.length).toBeGreaterThan(0);
    expect(second.body.offset).toBeUndefined();
    const all = [...first.body.bases, ...second.body.bases].map((b: Loose) => b.id);
    expect(new Set(all).size).toBe(all.length);
    expect((await call(emulator, 'GET', '/v0/meta/bases?offset=junk')).status).toBe(422);
  });

  it('deletes a base', async () => {
    const created = await call(emulator, 'POST', '/v0/meta/bases', {
      body: {
        name: 'Doomed',
        workspaceId,
        tables: [{ name: 'T', fields: [{ name: 'Name', type: 'singleLineText' }] }],
      },
    });
    const res = await call(emulator, 'DELETE', `/v0/meta/bases/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.body.id, deleted: true });
    expect((await call(emulator, 'GET', `/v0/meta/bases/${created.body.id}/tables`)).status).toBe(403);
    expect((await call(emulator, 'GET', `/v0/${created.body.id}/T`)).status).toBe(403);
  });
});

describe('tables', () => {
  it('reads the base schema; visibleFieldIds only with include[]=visibleFieldIds and only for grid views', async () => {
    const plain = await call(emulator, 'GET', `/v0/meta/bases/${features.base}/tables`);
    expect(plain.status).toBe(200);
    const table = plain.body.tables.find((t: Loose) => t.id === features.table);
    expect(table.views.every((v: Loose) => v.visibleFieldIds === undefined)).toBe(true);
    const team = table.fields.find((f: Loose) => f.name === 'Team');
    expect(team).toEqual({
      id: features.field('Team'),
      name: 'Team',
      type: 'multipleRecordLinks',
      options: {
        linkedTableId: teams.table,
        isReversed: false,
        prefersSingleRecordLink: true,
        inverseLinkFieldId: teams.field('Features'),
      },
    });
    const withIds = await call(
      emulator,
      'GET',
      `/v0/meta/bases/${features.base}/tables?include[]=visibleFieldIds`,
    );
    const views = withIds.body.tables.find((t: Loose) => t.id === features.table).views;
    const backlog = views.find((v: Loose) => v.name === 'Approved backlog');
    expect(backlog.visibleFieldIds).not.toContain(features.field('Description'));
    expect(backlog.visibleFieldIds).toContain(features.field('Name'));
    expect(views.find((v: Loose) => v.type === 'kanban').visibleFieldIds).toBeUndefined();
  });

  it('creates a table (with a link whose inverse lands in the linked table) and answers the table', async () => {
    const res = await call(emulator, 'POST', `/v0/meta/bases/${features.base}/tables`, {
      body: {
        name: 'Releases',
        fields: [
          { name: 'Version', type: 'singleLineText' },
          { name: 'Features', type: 'multipleRecordLinks', options: { linkedTableId: features.table } },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.views).toEqual([{ id: expect.stringMatching(/^viw/), name: 'Grid view', type: 'grid' }]);
    const link = res.body.fields[1];
    const schema = await call(emulator, 'GET', `/v0/meta/bases/${features.base}/tables`);
    const inverse = schema.body.tables
      .find((t: Loose) => t.id === features.table)
      .fields.find((f: Loose) => f.id === link.options.inverseLinkFieldId);
    expect(inverse).toEqual({
      id: link.options.inverseLinkFieldId,
      name: 'Releases',
      type: 'multipleRecordLinks',
      options: {
        linkedTableId: res.body.id,
        isReversed: false,
        prefersSingleRecordLink: false,
        inverseLinkFieldId: link.id,
      },
    });
    const dup = await call(emulator, 'POST', `/v0/meta/bases/${features.base}/tables`, {
      body: { name: 'releases', fields: [{ name: 'Name', type: 'singleLineText' }] },
    });
    expect(dup.status).toBe(422);
    expect(dup.body.error.type).toBe('DUPLICATE_OR_EMPTY_TABLE_NAME');
  });

  it('renames and describes a table, by id or name', async () => {
    const res = await call(emulator, 'PATCH', `/v0/meta/bases/${teams.base}/tables/Teams`, {
      body: { name: 'Squads', description: 'Renamed.' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: teams.table, name: 'Squads', description: 'Renamed.' });
    const records = await call(emulator, 'GET', `/v0/${teams.base}/Squads?maxRecords=1`);
    expect(records.status).toBe(200);
    const cleared = await call(emulator, 'PATCH', `/v0/meta/bases/${teams.base}/tables/${teams.table}`, {
      body: { name: 'Teams', description: '' },
    });
    expect(cleared.body.description).toBeUndefined();
    expect(
      (await call(emulator, 'PATCH', `/v0/meta/bases/${teams.base}/tables/${teams.table}`, { body: {} }))
        .status,
    ).toBe(422);
    expect(
      (
        await call(emulator, 'PATCH', `/v0/meta/bases/${teams.base}/tables/tblAAAAAAAAAAAAAA`, {
          body: { name: 'x' },
        })
      ).status,
    ).toBe(403);
  });
});

describe('fields', () => {
  const fieldsPath = `/v0/meta/bases/${features.base}/tables/${features.table}/fields`;

  it('creates a field and answers the field', async () => {
    const res = await call(emulator, 'POST', fieldsPath, {
      body: {
        name: 'Risk',
        type: 'singleSelect',
        description: 'How risky',
        options: { choices: [{ name: 'Low' }, { name: 'High', color: 'redBright' }] },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^fld/),
      name: 'Risk',
      type: 'singleSelect',
      description: 'How risky',
      options: {
        choices: [
          { id: expect.stringMatching(/^sel/), name: 'Low' },
          { id: expect.stringMatching(/^sel/), name: 'High', color: 'redBright' },
        ],
      },
    });
    const write = await call(emulator, 'POST', `/v0/${features.base}/${features.table}`, {
      body: { fields: { Risk: 'High' } },
    });
    expect(write.body.fields.Risk).toBe('High');
  });

  it('refuses a duplicate name, an empty or too long description, and an unsupported type', async () => {
    const dup = await call(emulator, 'POST', fieldsPath, {
      body: { name: 'status', type: 'singleLineText' },
    });
    expect(dup.status).toBe(422);
    expect(dup.body.error.type).toBe('DUPLICATE_OR_EMPTY_FIELD_NAME');
    const empty = await call(emulator, 'POST', fieldsPath, {
      body: { name: 'D1', type: 'singleLineText', description: '' },
    });
    expect(empty.status).toBe(422);
    const long = await call(emulator, 'POST', fieldsPath, {
      body: { name: 'D2', type: 'singleLineText', description: 'x'.repeat(20_001) },
    });
    expect(long.status).toBe(422);
    const atLimit = await call(emulator, 'POST', fieldsPath, {
      body: { name: 'D3', type: 'singleLineText', description: 'x'.repeat(20_000) },
    });
    expect(atLimit.status).toBe(200);
    for (const type of ['formula', 'autoNumber', 'rollup', 'createdTime']) {
      const res = await call(emulator, 'POST', fieldsPath, { body: { name: `C ${type}`, type } });
      expect(res.status, type).toBe(422);
      expect(res.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
      expect(res.body.error.message).toContain(type);
    }
    const nonsense = await call(emulator, 'POST', fieldsPath, { body: { name: 'N', type: 'hologram' } });
    expect(nonsense.status).toBe(422);
    expect(nonsense.body.error.message).toContain('hologram');
  });

  it('updates a field name and/or description', async () => {
    const field = features.field('Support phone');
    const res = await call(emulator, 'PATCH', `${fieldsPath}/${field}`, {
      body: { name: 'Hotline', description: 'Call us' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: field, name: 'Hotline', type: 'phoneNumber', description: 'Call us' });
    expect((await call(emulator, 'PATCH', `${fieldsPath}/${field}`, { body: {} })).status).toBe(422);
    const dup = await call(emulator, 'PATCH', `${fieldsPath}/${field}`, { body: { name: 'Name' } });
    expect(dup.body.error.type).toBe('DUPLICATE_OR_EMPTY_FIELD_NAME');
    expect(
      (await call(emulator, 'PATCH', `${fieldsPath}/fldAAAAAAAAAAAAAA`, { body: { name: 'x' } })).status,
    ).toBe(403);
    const extra = await call(emulator, 'PATCH', `${fieldsPath}/${field}`, { body: { type: 'email' } });
    expect(extra.status).toBe(422);
  });

  it('takes any description up to 20,000 characters on update: "" clears it, 20,001 is refused', async () => {
    const field = features.field('Spec URL');
    const set = await call(emulator, 'PATCH', `${fieldsPath}/${field}`, { body: { description: 'Where' } });
    expect(set.body.description).toBe('Where');
    const cleared = await call(emulator, 'PATCH', `${fieldsPath}/${field}`, { body: { description: '' } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ id: field, name: 'Spec URL', type: 'url' });
    const schema = await call(emulator, 'GET', `/v0/meta/bases/${features.base}/tables`);
    const listed = (schema.body.tables as Loose[])
      .flatMap((t) => t.fields as Loose[])
      .find((f) => f.id === field);
    expect(listed).not.toHaveProperty('description');
    const atLimit = 'x'.repeat(20_000);
    expect(
      (await call(emulator, 'PATCH', `${fieldsPath}/${field}`, { body: { description: atLimit } })).body
        .description,
    ).toBe(atLimit);
    const over = await call(emulator, 'PATCH', `${fieldsPath}/${field}`, {
      body: { description: `${atLimit}x` },
    });
    expect(over.status).toBe(422);
    expect(over.body.error.message).toContain('20000');
  });
});

describe('views', () => {
  it('lists the views of a base and reads one, in the ViewSchema shape', async () => {
    const list = await call(emulator, 'GET', `/v0/meta/bases/${features.base}/views`);
    expect(list.status).toBe(200);
    expect(list.body.views.map((v: Loose) => v.name)).toContain('Kanban');
    const personal = await call(
      emulator,
      'GET',
      `/v0/meta/bases/${features.base}/views/${features.view("Ada's view")}?include[]=visibleFieldIds`,
    );
    expect(personal.body).toEqual({
      id: features.view("Ada's view"),
      name: "Ada's view",
      type: 'grid',
      personalForUserId: emulator.store.schema().users[1]!.id,
      visibleFieldIds: expect.arrayContaining([features.field('Name')]),
    });
    expect(
      (await call(emulator, 'GET', `/v0/meta/bases/${features.base}/views/viwAAAAAAAAAAAAAA`)).status,
    ).toBe(403);
  });

  it('deletes a view but never the last view of a table', async () => {
    const res = await call(
      emulator,
      'DELETE',
      `/v0/meta/bases/${features.base}/views/${features.view('Kanban')}`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: features.view('Kanban'), deleted: true });
    const gone = await call(emulator, 'GET', `/v0/${features.base}/${features.table}?view=Kanban`);
    expect(gone.body.error.type).toBe('VIEW_NAME_NOT_FOUND');
    const last = await call(
      emulator,
      'DELETE',
      `/v0/meta/bases/${teams.base}/views/${teams.view('Grid view')}`,
    );
    expect(last.status).toBe(422);
    expect(last.body.error).toEqual({
      type: 'CANNOT_DELETE_LAST_VIEW',
      message: 'View "Grid view" is the last view of its table and cannot be deleted',
    });
  });
});
