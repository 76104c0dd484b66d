// Writing records: create (single and batch, the response mirroring the request), update (PATCH merges, PUT
// clears what is not given), upsert (0, 1 or several matches), delete, the 10-records limit, unknown fields and
// records, bad JSON, and the inverse side of record links kept in step.
import { afterAll, describe, expect, it } from 'vitest';
import { call, ids, type Loose, makeEmulator } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const features = ids(emulator, 'Product Roadmap', 'Features');
const teams = ids(emulator, 'Product Roadmap', 'Teams');
const contacts = ids(emulator, 'Sales CRM', 'Contacts');
const path = `/v0/${features.base}/${features.table}`;

describe('create', () => {
  it('creates one record from {fields} and answers with the record itself', async () => {
    const res = await call(emulator, 'POST', path, { body: { fields: { Name: 'Solo', Estimate: 2 } } });
    expect(res.status).toBe(200);
    expect(res.body.id).toMatch(/^rec[A-Za-z0-9]{14}$/);
    expect(res.body.createdTime).toBe(emulator.clock.now().toISOString());
    expect(res.body.fields).toMatchObject({
      Name: 'Solo',
      Estimate: 2,
      'Last modified': res.body.createdTime,
    });
    expect(res.body.records).toBeUndefined();
    expect(emulator.store.record(features.table, res.body.id)).toBeDefined();
  });

  it('creates a batch from {records} and answers {records} in order, keyed by id on request', async () => {
    const res = await call(emulator, 'POST', path, {
      body: {
        records: [
          { fields: { Name: 'First' } },
          { fields: { [features.field('Name')]: 'Second', Status: 'Idea' } },
        ],
        returnFieldsByFieldId: true,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.records.map((r: Loose) => r.fields[features.field('Name')])).toEqual(['First', 'Second']);
    expect(res.body.records[1].fields[features.field('Status')]).toBe('Idea');
    const numbers = res.body.records.map((r: Loose) => r.fields[features.field('Feature #')]);
    expect(numbers[1]).toBe(numbers[0] + 1);
  });

  it('refuses more than 10 records, or none, with INVALID_RECORDS', async () => {
    const expected = {
      error: {
        type: 'INVALID_RECORDS',
        message:
          "You must provide an array of up to 10 record objects, each with an 'id' ID field and a 'fields' object for cell values.",
      },
    };
    const eleven = Array.from({ length: 11 }, (_, i) => ({ fields: { Name: `N${i}` } }));
    const before = emulator.store.records(features.table).length;
    for (const records of [eleven, []]) {
      const res = await call(emulator, 'POST', path, { body: { records } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(expected);
    }
    const patch = await call(emulator, 'PATCH', path, { body: { records: [{ fields: { Name: 'no id' } }] } });
    expect(patch.body).toEqual(expected);
    const del = await call(
      emulator,
      'DELETE',
      `${path}?${eleven.map((_, i) => `records[]=rec${String(i).padStart(14, 'A')}`).join('&')}`,
    );
    expect(del.body).toEqual(expected);
    expect(emulator.store.records(features.table).length).toBe(before);
  });

  it('refuses an unknown field name, a computed field and a malformed body', async () => {
    const unknown = await call(emulator, 'POST', path, { body: { fields: { Name: 'x', Colour: 'red' } } });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({
      error: { type: 'UNKNOWN_FIELD_NAME', message: 'Unknown field name: "Colour"' },
    });
    const computed = await call(emulator, 'POST', path, { body: { fields: { Name: 'x', Score: 3 } } });
    expect(computed.body).toEqual({
      error: {
        type: 'INVALID_VALUE_FOR_COLUMN',
        message: 'Field "Score" cannot accept a value because the field is computed',
      },
    });
    const json = await call(emulator, 'POST', path, { rawBody: '{"fields": ' });
    expect(json.status).toBe(400);
    expect(json.body.error.type).toBe('INVALID_REQUEST_BODY');
    const shape = await call(emulator, 'POST', path, { body: { fields: { Name: 'x' }, records: [] } });
    expect(shape.status).toBe(422);
    const both = await call(emulator, 'POST', path, {
      body: { fields: { Name: 'x' }, records: [{ fields: {} }] },
    });
    expect(both.status).toBe(422);
    expect(both.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
    expect(both.body.error.message).toMatch(
      /^Invalid request: parameter validation failed\. Check your request data\. /,
    );
    const missing = await call(emulator, 'POST', path);
    expect(missing.status).toBe(422);
  });

  it('fails the whole batch when one record is invalid', async () => {
    const before = emulator.store.records(features.table).length;
    const res = await call(emulator, 'POST', path, {
      body: { records: [{ fields: { Name: 'ok' } }, { fields: { Estimate: 'many' } }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({
      type: 'INVALID_VALUE_FOR_COLUMN',
      message: 'Field "Estimate" cannot accept the provided value',
    });
    expect(emulator.store.records(features.table).length).toBe(before);
  });
});

describe('paths', () => {
  it('accepts a trailing slash, as airtable.js writes to /v0/{baseId}/{table}/', async () => {
    const created = await call(emulator, 'POST', `${path}/`, { body: { fields: { Name: 'Slash' } } });
    expect(created.status).toBe(200);
    const patched = await call(emulator, 'PATCH', `${path}/`, {
      body: { records: [{ id: created.body.id, fields: { Name: 'Slashed' } }] },
    });
    expect(patched.body.records[0].fields.Name).toBe('Slashed');
    expect((await call(emulator, 'GET', `${path}/${created.body.id}/`)).status).toBe(200);
  });
});

describe('update and replace', () => {
  const create = async (fields: Record<string, unknown>) =>
    (await call(emulator, 'POST', path, { body: { fields } })).body as Loose;

  it('PATCH merges: cells not given stay', async () => {
    const rec = await create({ Name: 'Merge me', Estimate: 3, Status: 'Idea' });
    const res = await call(emulator, 'PATCH', `${path}/${rec.id}`, {
      body: { fields: { Status: 'Planned' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.fields).toMatchObject({ Name: 'Merge me', Estimate: 3, Status: 'Planned' });
    const many = await call(emulator, 'PATCH', path, {
      body: { records: [{ id: rec.id, fields: { Estimate: 4 } }] },
    });
    expect(many.body.records[0].fields).toMatchObject({ Name: 'Merge me', Estimate: 4, Status: 'Planned' });
  });

  it('PUT replaces: cells not given are cleared', async () => {
    const rec = await create({ Name: 'Replace me', Estimate: 3, Status: 'Idea', Tags: ['UX'] });
    const res = await call(emulator, 'PUT', `${path}/${rec.id}`, { body: { fields: { Name: 'Replaced' } } });
    expect(res.status).toBe(200);
    expect(res.body.fields.Name).toBe('Replaced');
    for (const gone of ['Estimate', 'Status', 'Tags']) expect(res.body.fields[gone]).toBeUndefined();
    const many = await call(emulator, 'PUT', path, {
      body: { records: [{ id: rec.id, fields: { Estimate: 9 } }] },
    });
    expect(many.body.records[0].fields.Name).toBeUndefined();
    expect(many.body.records[0].fields.Estimate).toBe(9);
  });

  it('records who changed what: lastModifiedTime moves, createdTime does not', async () => {
    const rec = await create({ Name: 'Clock' });
    emulator.clock.advance(60_000);
    const res = await call(emulator, 'PATCH', `${path}/${rec.id}`, { body: { fields: { Estimate: 1 } } });
    expect(res.body.fields.Created).toBe(rec.fields.Created);
    expect(res.body.fields['Last modified']).toBe(emulator.clock.now().toISOString());
  });

  it('answers 404 for an unknown record id and changes nothing', async () => {
    const rec = await create({ Name: 'Untouched' });
    const one = await call(emulator, 'PATCH', `${path}/recAAAAAAAAAAAAAA`, {
      body: { fields: { Name: 'x' } },
    });
    expect(one.status).toBe(404);
    expect(one.body.error.type).toBe('NOT_FOUND');
    const many = await call(emulator, 'PATCH', path, {
      body: {
        records: [
          { id: rec.id, fields: { Name: 'changed' } },
          { id: 'recAAAAAAAAAAAAAA', fields: {} },
        ],
      },
    });
    expect(many.status).toBe(404);
    expect(emulator.store.record(features.table, rec.id)?.cells[features.field('Name')]).toBe('Untouched');
  });
});

describe('upsert', () => {
  const upsert = (records: unknown[], method = 'PATCH', fieldsToMergeOn = ['Email']) =>
    call(emulator, method, `/v0/${contacts.base}/${contacts.table}`, {
      body: { performUpsert: { fieldsToMergeOn }, records },
    });

  it('creates when nothing matches and updates when one record matches', async () => {
    const created = await upsert([{ fields: { Email: 'new.person@example.com', Name: 'New Person' } }]);
    expect(created.status).toBe(200);
    expect(created.body.createdRecords).toHaveLength(1);
    expect(created.body.updatedRecords).toEqual([]);
    const id = created.body.createdRecords[0];
    const updated = await upsert([
      { fields: { Email: 'new.person@example.com', Title: 'CTO' } },
      { fields: { Email: 'another@example.com', Name: 'Another' } },
    ]);
    expect(updated.body.updatedRecords).toEqual([id]);
    expect(updated.body.createdRecords).toHaveLength(1);
    expect(updated.body.records[0]).toMatchObject({ id, fields: { Name: 'New Person', Title: 'CTO' } });
  });

  it('PUT upserts replace the matched record', async () => {
    await upsert([{ fields: { Email: 'put@example.com', Name: 'Put', Title: 'Engineer' } }]);
    const res = await upsert([{ fields: { Email: 'put@example.com', Name: 'Put again' } }], 'PUT');
    expect(res.body.updatedRecords).toHaveLength(1);
    expect(res.body.records[0].fields.Title).toBeUndefined();
  });

  it('fails when several records match, or a merge field is missing or of the wrong type', async () => {
    await upsert([{ fields: { Email: 'twin@example.com', Name: 'Twin 1' } }]);
    await call(emulator, 'POST', `/v0/${contacts.base}/${contacts.table}`, {
      body: { fields: { Email: 'twin@example.com', Name: 'Twin 2' } },
    });
    const twice = await upsert([{ fields: { Email: 'twin@example.com', Title: 'CEO' } }]);
    expect(twice.status).toBe(422);
    expect(twice.body.error.message).toContain('2 records match on Email');
    const missing = await upsert([{ fields: { Name: 'No email' } }]);
    expect(missing.status).toBe(422);
    const wrongType = await upsert([{ fields: { VIP: true } }], 'PATCH', ['VIP']);
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.error.message).toContain('"VIP" is a checkbox field');
    const unknown = await upsert([{ fields: { Email: 'a@b.co' } }], 'PATCH', ['Nope']);
    expect(unknown.body.error.type).toBe('UNKNOWN_FIELD_NAME');
  });

  it('treats records with an id as plain updates', async () => {
    const row = emulator.store.records(contacts.table)[0]!;
    const res = await upsert([{ id: row.id, fields: { Title: 'Buyer' } }]);
    expect(res.body.updatedRecords).toEqual([row.id]);
    const unknown = await upsert([{ id: 'recAAAAAAAAAAAAAA', fields: { Title: 'Buyer' } }]);
    expect(unknown.status).toBe(404);
  });
});

describe('delete', () => {
  it('deletes a batch via records[] and one record by path', async () => {
    const made = await call(emulator, 'POST', path, {
      body: { records: [{ fields: { Name: 'd1' } }, { fields: { Name: 'd2' } }, { fields: { Name: 'd3' } }] },
    });
    const [a, b, c] = made.body.records.map((r: Loose) => r.id);
    const many = await call(emulator, 'DELETE', `${path}?records[]=${a}&records%5B%5D=${b}`);
    expect(many.status).toBe(200);
    expect(many.body).toEqual({
      records: [
        { id: a, deleted: true },
        { id: b, deleted: true },
      ],
    });
    const one = await call(emulator, 'DELETE', `${path}/${c}`);
    expect(one.body).toEqual({ id: c, deleted: true });
    for (const id of [a, b, c]) expect(emulator.store.record(features.table, id)).toBeUndefined();
    const again = await call(emulator, 'DELETE', `${path}/${c}`);
    expect(again.status).toBe(404);
  });
});

describe('record links', () => {
  const teamRow = (id: string) => emulator.store.record(teams.table, id)!;
  const teamsOf = (teamId: string) =>
    (teamRow(teamId).cells[teams.field('Features')] as string[] | undefined) ?? [];

  it('keeps the inverse link field in step on create, change and delete', async () => {
    const [platform, growth] = emulator.store.records(teams.table);
    const rec = await call(emulator, 'POST', path, {
      body: { fields: { Name: 'Linked', Team: [platform!.id] } },
    });
    expect(teamsOf(platform!.id)).toContain(rec.body.id);
    await call(emulator, 'PATCH', `${path}/${rec.body.id}`, { body: { fields: { Team: [growth!.id] } } });
    expect(teamsOf(platform!.id)).not.toContain(rec.body.id);
    expect(teamsOf(growth!.id)).toContain(rec.body.id);
    const teamView = await call(emulator, 'GET', `/v0/${teams.base}/${teams.table}/${growth!.id}`);
    expect(teamView.body.fields.Features).toContain(rec.body.id);
    expect(teamView.body.fields['Feature count']).toBe(teamView.body.fields.Features.length);
    await call(emulator, 'DELETE', `${path}/${rec.body.id}`);
    expect(teamsOf(growth!.id)).not.toContain(rec.body.id);
  });

  it('updates the other side when the link is written from the inverse field', async () => {
    const feature = (await call(emulator, 'POST', path, { body: { fields: { Name: 'From the team side' } } }))
      .body;
    const team = emulator.store.records(teams.table)[2]!;
    const current = teamsOf(team.id);
    await call(emulator, 'PATCH', `/v0/${teams.base}/${teams.table}/${team.id}`, {
      body: { fields: { Features: [...current, feature.id] } },
    });
    const read = await call(emulator, 'GET', `${path}/${feature.id}`);
    expect(read.body.fields.Team).toEqual([team.id]);
  });

  it('refuses a record id that does not exist in the linked table', async () => {
    const res = await call(emulator, 'POST', path, { body: { fields: { Team: ['recAAAAAAAAAAAAAA'] } } });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({
      type: 'ROW_DOES_NOT_EXIST',
      message: 'Record ID recAAAAAAAAAAAAAA does not exist',
    });
    const text = await call(emulator, 'POST', path, { body: { fields: { Team: ['Platform'] } } });
    expect(text.body.error.type).toBe('INVALID_VALUE_FOR_COLUMN');
  });
});
