// Field types: every writable type accepts its JSON form, refuses a wrong one with INVALID_VALUE_FOR_COLUMN
// naming the field, and converts text under typecast (select options and linked records created on the way);
// computed types are worked out on read and refuse writes.
import { afterAll, describe, expect, it } from 'vitest';
import { normalizeFieldOptions } from '../../../../src/services/store/emulator/fields.js';
import { call, ids, type Loose, makeEmulator, users } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const features = ids(emulator, 'Product Roadmap', 'Features');
const teams = ids(emulator, 'Product Roadmap', 'Teams');
const path = `/v0/${features.base}/${features.table}`;
const [owner, ada] = users(emulator);

async function write(fields: Record<string, unknown>, typecast = false) {
  return call(emulator, 'POST', path, { body: { fields: { Name: 'Typed', ...fields }, typecast } });
}

/** `expected` defaults to the value written; EMPTY means the cell reads back empty (left out). */
const EMPTY = Symbol('empty');

async function accepts(field: string, value: unknown, expected: unknown = value, typecast = false) {
  const res = await write({ [field]: value }, typecast);
  if (expected === EMPTY) expected = undefined;
  expect(res.status, `${field} = ${JSON.stringify(value)}: ${res.text}`).toBe(200);
  expect(res.body.fields[field]).toEqual(expected);
}

async function refuses(field: string, value: unknown, typecast = false) {
  const res = await write({ [field]: value }, typecast);
  expect(res.status, `${field} = ${JSON.stringify(value)}`).toBe(422);
  expect(res.body.error.type).toBe('INVALID_VALUE_FOR_COLUMN');
  expect(res.body.error.message).toMatch(new RegExp(`(Field "${field}" cannot accept|for field ${field}$)`));
}

describe('writable types', () => {
  it('text types: strings; not numbers unless typecast; emails must look like emails', async () => {
    await accepts('Description', '**bold** text');
    await accepts('Spec URL', 'https://example.com/spec');
    await accepts('Contact email', 'someone@example.com');
    await accepts('Support phone', '+1 (555) 010-0000');
    await refuses('Name', 42);
    await refuses('Contact email', 'not an email');
    await accepts('Name', 42, '42', true);
    await accepts('Description', true, 'true', true);
  });

  it('numbers, percent, currency, duration, rating', async () => {
    await accepts('Estimate', 2.5);
    await accepts('Progress', 0.25);
    await accepts('Budget', 1234.5);
    await accepts('Time spent', 5400);
    await accepts('Priority', 5);
    await refuses('Estimate', '2.5');
    await refuses('Priority', 6);
    await refuses('Priority', 2.5);
    await refuses('Budget', { amount: 1 });
    await accepts('Estimate', '1,234.5', 1234.5, true);
    await accepts('Budget', '$99.50', 99.5, true);
    await accepts('Progress', '50%', 0.5, true);
    await accepts('Time spent', '1:30', 5400, true);
    await accepts('Priority', '3', 3, true);
    await refuses('Estimate', 'lots', true);
  });

  it('checkbox: booleans; text under typecast', async () => {
    await accepts('Approved', true);
    await accepts('Approved', false, EMPTY);
    await refuses('Approved', 'yes');
    await accepts('Approved', 'yes', true, true);
    await accepts('Approved', 'false', EMPTY, true);
  });

  it('single and multiple selects: known options; typecast creates new ones', async () => {
    await accepts('Status', 'Planned');
    await accepts('Tags', ['UX', 'Backend']);
    const unknown = await write({ Status: 'Someday' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toEqual({
      type: 'INVALID_MULTIPLE_CHOICE_OPTIONS',
      message: 'Insufficient permissions to create new select option "Someday"',
    });
    const unknownTag = await write({ Tags: ['UX', 'Quantum'] });
    expect(unknownTag.body.error.type).toBe('INVALID_MULTIPLE_CHOICE_OPTIONS');
    await accepts('Status', 'Someday', 'Someday', true);
    await accepts('Tags', 'UX, Quantum', ['UX', 'Quantum'], true);
    const schema = await call(emulator, 'GET', `/v0/meta/bases/${features.base}/tables`);
    const table = schema.body.tables.find((t: Loose) => t.id === features.table);
    const status = table.fields.find((f: Loose) => f.name === 'Status');
    expect(status.options.choices.map((c: Loose) => c.name)).toContain('Someday');
    expect(status.options.choices.at(-1).id).toMatch(/^sel[A-Za-z0-9]{14}$/);
    await refuses('Status', ['Idea']);
  });

  it('date and dateTime: ISO 8601; other formats only under typecast', async () => {
    await accepts('Target date', '2025-07-01');
    await accepts('Kickoff', '2025-07-01T09:30:00.000Z');
    await accepts('Kickoff', '2025-07-01T09:30:00+02:00', '2025-07-01T07:30:00.000Z');
    await accepts('Kickoff', '2025-07-01', '2025-07-01T00:00:00.000Z');
    const bad = await write({ 'Target date': '07/01/2025' });
    expect(bad.body.error).toEqual({
      type: 'INVALID_VALUE_FOR_COLUMN',
      message: 'Cannot parse date value "07/01/2025" for field Target date',
    });
    // A date-time (what airtable.js sends for a JS Date) keeps its UTC date.
    await accepts('Target date', '2025-07-01T09:30:00.000Z', '2025-07-01');
    await refuses('Target date', '2025-02-30');
    await accepts('Target date', '7/1/2025', '2025-07-01', true);
    await accepts('Target date', 'July 4, 2025', '2025-07-04', true);
    await accepts('Kickoff', '7/1/2025 2:30pm', '2025-07-01T14:30:00.000Z', true);
    await refuses('Kickoff', 'soon', true);
  });

  it('collaborators: {id} or {email}; plain text under typecast', async () => {
    const ownerJson = { id: owner!.id, email: owner!.email, name: owner!.name };
    const adaJson = { id: ada!.id, email: ada!.email, name: ada!.name };
    await accepts('Owner', { id: owner!.id }, ownerJson);
    await accepts('Owner', { email: ada!.email }, adaJson);
    await accepts('Reviewers', [{ id: owner!.id }, { email: ada!.email }], [ownerJson, adaJson]);
    await refuses('Owner', { id: 'usrAAAAAAAAAAAAAA' });
    await refuses('Owner', owner!.email);
    // The field model's write format also takes plain user ids.
    await accepts('Reviewers', [owner!.id, ada!.id], [ownerJson, adaJson]);
    await accepts('Owner', owner!.email, ownerJson, true);
  });

  it('attachments: [{url, filename?}] stored as given; existing ones kept by id', async () => {
    const res = await write({
      Spec: [
        { url: 'https://example.com/files/plan.png' },
        { url: 'https://example.com/x', filename: 'x.pdf' },
      ],
    });
    expect(res.status).toBe(200);
    const [a, b] = res.body.fields.Spec;
    expect(a).toMatchObject({
      url: 'https://example.com/files/plan.png',
      filename: 'plan.png',
      type: 'image/png',
    });
    expect(a.id).toMatch(/^att[A-Za-z0-9]{14}$/);
    expect(b).toMatchObject({ filename: 'x.pdf', type: 'application/pdf' });
    const kept = await call(emulator, 'PATCH', `${path}/${res.body.id}`, {
      body: { fields: { Spec: [{ id: b.id }] } },
    });
    expect(kept.body.fields.Spec).toEqual([b]);
    await refuses('Spec', [{ id: 'attAAAAAAAAAAAAAA' }]);
    await refuses('Spec', 'https://example.com/a.png');
    await accepts(
      'Spec',
      'https://example.com/a.png',
      [expect.objectContaining({ url: 'https://example.com/a.png' })],
      true,
    );
  });

  it('barcode: {text, type?}; text under typecast', async () => {
    await accepts('SKU', { text: 'ABC-1', type: 'upce' });
    await refuses('SKU', 'ABC-1');
    await accepts('SKU', 'ABC-1', { text: 'ABC-1' }, true);
  });

  it('record links: ids of the linked table; typecast resolves primary-field text or creates the record', async () => {
    const platform = emulator.store.records(teams.table)[0]!;
    await accepts('Team', [platform.id]);
    const byName = await write({ Team: ['Platform'] }, true);
    expect(byName.body.fields.Team).toEqual([platform.id]);
    const before = emulator.store.records(teams.table).length;
    const created = await write({ Team: 'Research' }, true);
    expect(created.status).toBe(200);
    const [newTeam] = created.body.fields.Team;
    expect(emulator.store.records(teams.table).length).toBe(before + 1);
    const team = await call(emulator, 'GET', `/v0/${teams.base}/${teams.table}/${newTeam}`);
    expect(team.body.fields).toMatchObject({ Name: 'Research', Features: [created.body.id] });
    // The same new name twice in one request makes one record.
    const twice = await call(emulator, 'POST', path, {
      body: { records: [{ fields: { Team: ['Ops'] } }, { fields: { Team: ['Ops'] } }], typecast: true },
    });
    expect(twice.body.records[0].fields.Team).toEqual(twice.body.records[1].fields.Team);
  });
});

describe('computed types', () => {
  it('refuses writes to every computed field', async () => {
    for (const name of [
      'Score',
      'Summary',
      'Created',
      'Last modified',
      'Created by',
      'Last modified by',
      'Feature #',
      'Team lead',
    ]) {
      const res = await write({ [name]: 'x' });
      expect(res.status, name).toBe(422);
      expect(res.body.error).toEqual({
        type: 'INVALID_VALUE_FOR_COLUMN',
        message: `Field "${name}" cannot accept a value because the field is computed`,
      });
    }
    const count = await call(emulator, 'POST', `/v0/${teams.base}/${teams.table}`, {
      body: { fields: { 'Feature count': 1 } },
    });
    expect(count.body.error.message).toBe(
      'Field "Feature count" cannot accept a value because the field is computed',
    );
  });

  it('works out formulas, created/modified time and user, and auto numbers on read', async () => {
    const res = await write({ Name: 'Computed', Estimate: 2.5, Priority: 4, Status: 'Idea' });
    const f = res.body.fields;
    expect(f.Score).toBe(10);
    expect(f.Summary).toBe('Computed (Idea)');
    expect(f.Created).toBe(res.body.createdTime);
    expect(f['Created by']).toEqual({ id: owner!.id, email: owner!.email, name: owner!.name });
    expect(f['Last modified by']).toEqual(f['Created by']);
    expect(typeof f['Feature #']).toBe('number');
    emulator.clock.advance(5_000);
    const updated = await call(emulator, 'PATCH', `${path}/${res.body.id}`, {
      body: { fields: { Priority: 2 } },
    });
    expect(updated.body.fields.Score).toBe(5);
    expect(updated.body.fields['Last modified']).toBe(emulator.clock.now().toISOString());
  });

  it('follows links for lookups, counts and rollups', async () => {
    const team = emulator.store.records(teams.table)[1]!;
    const read = await call(emulator, 'GET', `/v0/${teams.base}/${teams.table}/${team.id}`);
    const featureIds: string[] = read.body.fields.Features;
    expect(read.body.fields['Feature count']).toBe(featureIds.length);
    let total = 0;
    for (const id of featureIds) {
      const feature = await call(emulator, 'GET', `${path}/${id}`);
      total += feature.body.fields.Estimate ?? 0;
      expect(feature.body.fields['Team lead']).toEqual([read.body.fields.Lead]);
    }
    expect(read.body.fields['Total estimate']).toBeCloseTo(total, 6);
  });

  it('shows formula errors as {error} and NaN as {specialValue}', async () => {
    const created = await call(emulator, 'POST', `/v0/meta/bases/${features.base}/tables`, {
      body: { name: 'Math', fields: [{ name: 'N', type: 'number', options: { precision: 2 } }] },
    });
    const table = created.body.id;
    const nField = created.body.fields[0].id;
    const formulaField = {
      id: emulator.store.newId('field'),
      tableId: table,
      name: 'Inverse',
      type: 'formula',
      description: null,
      options: { formula: `1 / {${nField}}` },
    };
    emulator.store.transaction(() => emulator.store.insertField(formulaField));
    const zero = await call(emulator, 'POST', `/v0/${features.base}/${table}`, {
      body: { fields: { N: 0 } },
    });
    expect(zero.body.fields.Inverse).toEqual({ error: '#ERROR!' });
    const two = await call(emulator, 'POST', `/v0/${features.base}/${table}`, { body: { fields: { N: 2 } } });
    expect(two.body.fields.Inverse).toBe(0.5);
    const schema = await call(emulator, 'GET', `/v0/meta/bases/${features.base}/tables`);
    const field = schema.body.tables
      .find((t: Loose) => t.id === table)
      .fields.find((f: Loose) => f.name === 'Inverse');
    expect(field.options).toEqual({
      formula: `1 / {${nField}}`,
      isValid: true,
      referencedFieldIds: [nField],
      result: { type: 'number' },
    });
  });
});

// The options of a new field, checked by normalizeFieldOptions itself: the shared body schemas refuse most of
// these first over HTTP, so they are read here directly. Date and time formats share one reader, and so do the
// icon and color of ratings and checkboxes; each keeps its own defaults and words.
describe('field options', () => {
  const ctx = {
    snapshot: emulator.store.schema(),
    table: undefined,
    baseId: features.base,
    newChoiceId: () => 'selTest',
  };
  const options = (type: string, raw: unknown) => normalizeFieldOptions(type, raw, ctx);
  const problem = (type: string, raw: unknown) => {
    const result = options(type, raw);
    if (result.ok) throw new Error(`${type} ${JSON.stringify(raw)} was accepted`);
    // The catalogue's INVALID_REQUEST_UNKNOWN message comes first; what follows names the problem.
    return result.error.message?.replace(
      /^Invalid request: parameter validation failed\. Check your request data\. /,
      '',
    );
  };

  it('dateFormat and timeFormat: a known name, its own format, defaults iso and 24hour', () => {
    expect(options('date', {})).toEqual({
      ok: true,
      value: { dateFormat: { name: 'iso', format: 'YYYY-MM-DD' } },
    });
    expect(
      options('dateTime', { dateFormat: { name: 'us' }, timeFormat: { name: '12hour', format: 'h:mma' } }),
    ).toEqual({
      ok: true,
      value: {
        dateFormat: { name: 'us', format: 'M/D/YYYY' },
        timeFormat: { name: '12hour', format: 'h:mma' },
        timeZone: 'utc',
      },
    });
    expect(problem('date', { dateFormat: { name: 'lunar' } })).toBe(
      'Invalid options for a date field: dateFormat.name must be one of local, friendly, us, european, iso.',
    );
    expect(problem('dateTime', { dateFormat: { name: 'us', format: 'D/M/YYYY' } })).toBe(
      'Invalid options for a dateTime field: dateFormat.format of "us" is "M/D/YYYY".',
    );
    expect(problem('dateTime', { timeFormat: { name: '36hour' } })).toBe(
      'Invalid options for a dateTime field: timeFormat.name must be 12hour or 24hour.',
    );
    expect(problem('dateTime', { timeFormat: { name: '24hour', format: 'h:mma' } })).toBe(
      'Invalid options for a dateTime field: timeFormat.format of "24hour" is "HH:mm".',
    );
  });

  it('rating and checkbox: an icon of the type’s own set and a color string, with the type’s defaults', () => {
    const rating = options('rating', {});
    expect(rating).toEqual({ ok: true, value: { color: 'yellowBright', icon: 'star', max: 5 } });
    // The order the upstream's samples show: color, icon, then max.
    expect(rating.ok && rating.value && Object.keys(rating.value)).toEqual(['color', 'icon', 'max']);
    expect(options('checkbox', { icon: 'star' })).toEqual({
      ok: true,
      value: { color: 'greenBright', icon: 'star' },
    });
    expect(problem('rating', { icon: 'check' })).toBe(
      'Invalid options for a rating field: icon must be one of star, heart, thumbsUp, flag, dot.',
    );
    expect(problem('checkbox', { icon: 'moon' })).toBe(
      'Invalid options for a checkbox field: icon must be one of check, xCheckbox, star, heart, thumbsUp, flag, dot.',
    );
    expect(problem('checkbox', { color: 7 })).toBe(
      'Invalid options for a checkbox field: color must be a string.',
    );
    // A rating's max is checked before its icon.
    expect(problem('rating', { max: 11, icon: 'moon' })).toBe(
      'Invalid options for a rating field: max must be an integer from 1 to 10.',
    );
  });
});
