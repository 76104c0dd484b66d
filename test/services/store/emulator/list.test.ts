// Listing records: pages and offsets (through more than 100 records), maxRecords, views (their filter and
// order), fields[] and sort[] in every encoding clients use, filterByFormula, cellFormat=string with its
// required timeZone and userLocale, returnFieldsByFieldId, recordMetadata, POST listRecords, the 414 for long
// URLs, reading one record, and the omission of empty cells.
import { afterAll, describe, expect, it } from 'vitest';
import { call, ids, type Loose, makeEmulator, q } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const deals = ids(emulator, 'Sales CRM', 'Deals');
const features = ids(emulator, 'Product Roadmap', 'Features');
const list = (query: string, base = deals.base, table = deals.table) =>
  call(emulator, 'GET', `/v0/${base}/${table}${query ? `?${query}` : ''}`);
const names = (records: Loose[]) => records.map((r) => r.fields.Name);

describe('paging', () => {
  it('pages through more than 100 records with the offset, each record once, in creation order', async () => {
    const first = await list('');
    expect(first.status).toBe(200);
    expect(first.body.records).toHaveLength(100);
    expect(first.body.offset).toMatch(/^itr[A-Za-z0-9]{14}\/rec[A-Za-z0-9]{14}$/);
    const second = await list(`offset=${q(first.body.offset)}`);
    expect(second.body.records).toHaveLength(20);
    expect(second.body.offset).toBeUndefined();
    const seen = [...first.body.records, ...second.body.records].map((r: Loose) => r.id);
    expect(new Set(seen).size).toBe(120);
    expect(seen).toEqual(emulator.store.records(deals.table).map((r) => r.id));
  });

  it('honours pageSize and maxRecords across pages', async () => {
    const one = await list('pageSize=7&maxRecords=10');
    expect(one.body.records).toHaveLength(7);
    const two = await list(`pageSize=7&maxRecords=10&offset=${q(one.body.offset)}`);
    expect(two.body.records).toHaveLength(3);
    expect(two.body.offset).toBeUndefined();
    const small = await list('maxRecords=3');
    expect(small.body.records).toHaveLength(3);
    expect(small.body.offset).toBeUndefined();
  });

  it('refuses a pageSize over 100 or not a positive integer', async () => {
    for (const size of ['101', '0', 'ten', '-1']) {
      const res = await list(`pageSize=${size}`);
      expect(res.status, size).toBe(422);
      expect(res.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
      expect(res.body.error.message).toContain('pageSize must be an integer from 1 to 100');
    }
    expect((await list('maxRecords=0')).status).toBe(422);
  });

  it('answers a garbage, foreign or expired offset with LIST_RECORDS_ITERATOR_NOT_AVAILABLE', async () => {
    const expected = { error: { type: 'LIST_RECORDS_ITERATOR_NOT_AVAILABLE' } };
    const garbage = await list('offset=nonsense');
    expect(garbage.status).toBe(422);
    expect(garbage.body).toEqual(expected);
    const first = await list('pageSize=5');
    // An offset of another query (a different filter) is not accepted.
    const other = await list(`pageSize=5&filterByFormula=${q('{Won}')}&offset=${q(first.body.offset)}`);
    expect(other.body).toEqual(expected);
    const forged = await list(`offset=${q(first.body.offset.replace(/\/rec.*/, '/recAAAAAAAAAAAAAA'))}`);
    expect(forged.body).toEqual(expected);
    emulator.clock.advance(11 * 60 * 1000);
    const expired = await list(`pageSize=5&offset=${q(first.body.offset)}`);
    expect(expired.body).toEqual(expected);
  });

  it('keeps a listing stable while records are deleted between pages', async () => {
    const first = await list('pageSize=50');
    const victim = emulator.store.records(deals.table)[60]!;
    const del = await call(emulator, 'DELETE', `/v0/${deals.base}/${deals.table}/${victim.id}`);
    expect(del.status).toBe(200);
    const second = await list(`pageSize=50&offset=${q(first.body.offset)}`);
    expect(second.body.records).toHaveLength(49);
    expect(second.body.records.map((r: Loose) => r.id)).not.toContain(victim.id);
  });
});

describe('views, sorts and fields', () => {
  it('applies a view by name or id: its filter and its order', async () => {
    const byName = await list(`view=${q('Big deals')}`);
    const byId = await list(`view=${deals.view('Big deals')}`);
    expect(byName.body.records.length).toBeGreaterThan(0);
    expect(byId.body.records).toEqual(byName.body.records);
    const amounts = byName.body.records.map((r: Loose) => r.fields.Amount);
    expect(amounts.every((a: number) => a >= 50000)).toBe(true);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
  });

  it('sorts text descending (the creation order is ascending, so this one could only pass by sorting)', async () => {
    const res = await list(`sort%5B0%5D%5Bfield%5D=Name&sort%5B0%5D%5Bdirection%5D=desc&maxRecords=5`);
    const names: string[] = res.body.records.map((r: Loose) => r.fields.Name);
    expect(names).toEqual(['Deal 120', 'Deal 119', 'Deal 118', 'Deal 117', 'Deal 116']);
  });

  it('sorts selects by their option order', async () => {
    const res = await list(`view=Pipeline&fields%5B%5D=Stage`);
    const stages: string[] = res.body.records.map((r: Loose) => r.fields.Stage ?? '');
    const order = ['', 'Lead', 'Qualified', 'Proposal', 'Negotiation', 'Closed won', 'Closed lost'];
    const ranks = stages.map((s) => order.indexOf(s));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('intersects a view with filterByFormula, and lets sort override the view order', async () => {
    const res = await list(
      `view=${q('Big deals')}&filterByFormula=${q("{Stage} = 'Lead'")}&sort%5B0%5D%5Bfield%5D=Name&sort%5B0%5D%5Bdirection%5D=asc`,
    );
    expect(res.status).toBe(200);
    for (const r of res.body.records) {
      expect(r.fields.Stage).toBe('Lead');
      expect(r.fields.Amount).toBeGreaterThanOrEqual(50000);
    }
    const got = names(res.body.records);
    expect(got).toEqual([...got].sort());
  });

  it('refuses an unknown view with VIEW_NAME_NOT_FOUND', async () => {
    const res = await list('view=Nope');
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({ type: 'VIEW_NAME_NOT_FOUND', message: 'View "Nope" not found' });
  });

  it('sorts on several fields, descending, with sort[i][field] encoded or not', async () => {
    const plain = await list(
      'sort[0][field]=Stage&sort[0][direction]=desc&sort[1][field]=Amount&maxRecords=30',
    );
    const encoded = await list(
      'sort%5B0%5D%5Bfield%5D=Stage&sort%5B0%5D%5Bdirection%5D=desc&sort%5B1%5D%5Bfield%5D=Amount&maxRecords=30',
    );
    expect(plain.status).toBe(200);
    expect(encoded.body).toEqual(plain.body);
    const rows = plain.body.records.map((r: Loose) => [r.fields.Stage, r.fields.Amount]);
    for (let i = 1; i < rows.length; i++) {
      if (rows[i][0] === rows[i - 1][0]) expect(rows[i][1]).toBeGreaterThanOrEqual(rows[i - 1][1]);
    }
    expect(rows[0][0]).toBe('Closed lost');
  });

  it('refuses sorting on an unknown field or in an unknown direction', async () => {
    const field = await list('sort[0][field]=Nope');
    expect(field.body.error).toEqual({ type: 'UNKNOWN_FIELD_NAME', message: 'Unknown field name: "Nope"' });
    const direction = await list('sort[0][field]=Name&sort[0][direction]=up');
    expect(direction.status).toBe(422);
    expect(direction.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
  });

  it('returns only fields[] (by name or id, either encoding), and refuses unknown ones', async () => {
    const a = await list(`fields%5B%5D=Name&fields%5B%5D=${deals.field('Amount')}&maxRecords=5`);
    const b = await list(`fields=Name&fields=${deals.field('Amount')}&maxRecords=5`);
    expect(a.body).toEqual(b.body);
    for (const r of a.body.records) {
      expect(Object.keys(r.fields).every((k) => k === 'Name' || k === 'Amount')).toBe(true);
    }
    const bad = await list('fields%5B%5D=Nope');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toEqual({ type: 'UNKNOWN_FIELD_NAME', message: 'Unknown field name: "Nope"' });
  });

  it('keys fields by id with returnFieldsByFieldId', async () => {
    const res = await list('returnFieldsByFieldId=true&maxRecords=1');
    const keys = Object.keys(res.body.records[0].fields);
    expect(keys.every((k) => k.startsWith('fld'))).toBe(true);
    expect(res.body.records[0].fields[deals.field('Name')]).toBeDefined();
  });
});

describe('filterByFormula', () => {
  const count = async (formula: string) => {
    const res = await list(`filterByFormula=${q(formula)}`);
    expect(res.status, formula).toBe(200);
    return res.body.records as Loose[];
  };

  it('filters with comparisons, functions, field names and field ids', async () => {
    const won = await count('{Won}');
    expect(won.every((r) => r.fields.Won === true && r.fields.Stage === 'Closed won')).toBe(true);
    const big = await count(`AND({Amount} > 80000, {${deals.field('Stage')}} != 'Closed lost')`);
    expect(big.length).toBeGreaterThan(0);
    expect(big.every((r) => r.fields.Amount > 80000 && r.fields.Stage !== 'Closed lost')).toBe(true);
    const named = await count("FIND('100', {Name}) > 0");
    expect(named.map((r) => r.fields.Name)).toEqual(['Deal 100']);
    const recent = await count("IS_AFTER({Close date}, '2025-06-01')");
    expect(recent.every((r) => r.fields['Close date'] > '2025-06-01')).toBe(true);
    const none = await count('FALSE()');
    expect(none).toEqual([]);
  });

  it('filters on lookups through links and on record ids', async () => {
    const company = await call(emulator, 'GET', `/v0/${deals.base}/Companies?maxRecords=1`);
    const name = company.body.records[0].fields.Name;
    const ofCompany = await count(`FIND('${name}', ARRAYJOIN({Company}))`);
    expect(ofCompany.length).toBe(company.body.records[0].fields.Deals.length);
    const target = emulator.store.records(deals.table)[3]!;
    const one = await count(`RECORD_ID() = '${target.id}'`);
    expect(one.map((r) => r.id)).toEqual([target.id]);
  });

  it('refuses a formula that does not compile with INVALID_FILTER_BY_FORMULA', async () => {
    const unknownField = await list(`filterByFormula=${q('{Nope} = 1')}`);
    expect(unknownField.status).toBe(422);
    expect(unknownField.body.error).toEqual({
      type: 'INVALID_FILTER_BY_FORMULA',
      message: 'The formula for filtering records is invalid: Unknown field names: Nope',
    });
    const syntax = await list(`filterByFormula=${q('AND({Won},')}`);
    expect(syntax.body.error.type).toBe('INVALID_FILTER_BY_FORMULA');
    expect(syntax.body.error.message).toMatch(/^The formula for filtering records is invalid: /);
    const fn = await list(`filterByFormula=${q('NOPE({Won})')}`);
    expect(fn.body.error.message).toContain('Unknown function names: NOPE');
  });
});

describe('cell formats and metadata', () => {
  it('requires timeZone and userLocale for cellFormat=string', async () => {
    for (const query of [
      'cellFormat=string',
      'cellFormat=string&timeZone=UTC',
      'cellFormat=string&userLocale=en-us',
    ]) {
      const res = await list(query);
      expect(res.status, query).toBe(422);
      expect(res.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
      expect(res.body.error.message).toContain('requires both timeZone and userLocale');
    }
    expect((await list('cellFormat=string&timeZone=Mars/Base&userLocale=en-us')).status).toBe(422);
    expect((await list('cellFormat=xml')).status).toBe(422);
  });

  it('formats every cell as text with cellFormat=string', async () => {
    const row = emulator.store.records(features.table).find((r) => r.cells[features.field('Spec')])!;
    const res = await call(
      emulator,
      'GET',
      `/v0/${features.base}/${features.table}/${row.id}?cellFormat=string&timeZone=America/New_York&userLocale=en-us`,
    );
    expect(res.status).toBe(200);
    const json = await call(emulator, 'GET', `/v0/${features.base}/${features.table}/${row.id}`);
    const f = res.body.fields;
    const j = json.body.fields;
    for (const value of Object.values(f)) expect(typeof value).toBe('string');
    expect(f.Team).toBe('Platform');
    expect(f.Spec).toBe(`${j.Spec[0].filename} (${j.Spec[0].url})`);
    expect(f.Budget).toBe(`$${j.Budget.toLocaleString('en-US', { minimumFractionDigits: 2 })}`);
    if (j.Progress !== undefined) expect(f.Progress).toBe(`${Math.round(j.Progress * 100)}%`);
    expect(f['Feature #']).toBe(String(j['Feature #']));
    if (j.Approved) expect(f.Approved).toBe('checked');
    // Kickoff's field shows every reader UTC; Created follows the reader's zone ('client').
    if (j.Kickoff) expect(f.Kickoff).toBe(`${j.Kickoff.slice(0, 10)} ${j.Kickoff.slice(11, 16)}`);
    const created = new Date(j.Created);
    const local = created.toLocaleString('en-US', {
      timeZone: 'America/New_York',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    const localDate = created.toLocaleDateString('en-CA', { timeZone: 'America/New_York' });
    expect(f.Created).toBe(`${localDate} ${local}`);
  });

  it('adds commentCount with recordMetadata[]=commentCount, and refuses other metadata', async () => {
    const res = await list('recordMetadata%5B%5D=commentCount&maxRecords=21');
    const counts = res.body.records.map((r: Loose) => r.commentCount);
    expect(counts.every((n: unknown) => typeof n === 'number')).toBe(true);
    expect(counts[0]).toBeGreaterThan(0);
    expect((await list('recordMetadata%5B%5D=likes')).status).toBe(422);
  });

  it('leaves empty cells out of records', async () => {
    const created = await call(emulator, 'POST', `/v0/${features.base}/${features.table}`, {
      body: { fields: { Name: 'Sparse', Description: '', Tags: [], Approved: false, Owner: null } },
    });
    expect(created.status).toBe(200);
    const keys = Object.keys(created.body.fields);
    for (const empty of ['Description', 'Tags', 'Approved', 'Owner', 'Team', 'Team lead'])
      expect(keys).not.toContain(empty);
    expect(created.body.fields.Name).toBe('Sparse');
  });
});

describe('POST listRecords, URL length and single records', () => {
  it('takes the same parameters in a JSON body, with timeZone and userLocale allowed in the query', async () => {
    const viaGet = await list(
      'view=Big%20deals&fields%5B%5D=Name&fields%5B%5D=Amount&pageSize=5&sort%5B0%5D%5Bfield%5D=Name',
    );
    const viaPost = await call(emulator, 'POST', `/v0/${deals.base}/${deals.table}/listRecords`, {
      body: { view: 'Big deals', fields: ['Name', 'Amount'], pageSize: 5, sort: [{ field: 'Name' }] },
    });
    expect(viaPost.status).toBe(200);
    expect(viaPost.body.records).toEqual(viaGet.body.records);
    // Offsets work across the two.
    const next = await call(emulator, 'POST', `/v0/${deals.base}/${deals.table}/listRecords`, {
      body: {
        view: 'Big deals',
        fields: ['Name', 'Amount'],
        pageSize: 5,
        sort: [{ field: 'Name' }],
        offset: viaGet.body.offset,
      },
    });
    expect(next.body.records[0].id).not.toBe(viaGet.body.records[0].id);
    const stringFormat = await call(
      emulator,
      'POST',
      `/v0/${deals.base}/${deals.table}/listRecords?timeZone=Europe/Paris&userLocale=fr`,
      { body: { cellFormat: 'string', maxRecords: 1 } },
    );
    expect(stringFormat.status).toBe(200);
    expect(typeof stringFormat.body.records[0].fields.Amount).toBe('string');
    const unknown = await call(emulator, 'POST', `/v0/${deals.base}/${deals.table}/listRecords`, {
      body: { pageSize: 5, filter: 'x' },
    });
    expect(unknown.status).toBe(422);
    const badJson = await call(emulator, 'POST', `/v0/${deals.base}/${deals.table}/listRecords`, {
      rawBody: '{',
    });
    expect(badJson.status).toBe(400);
  });

  it('answers 414 for URLs of 16,000 characters or more, and POST listRecords takes the same filter', async () => {
    const ids = emulator.store
      .records(deals.table)
      .slice(0, 5)
      .map((r) => r.id);
    const formula = `OR(${ids.map((id) => `RECORD_ID()='${id}'`).join(',')}, ${Array(700).fill("{Name}='x'").join(',')})`;
    const res = await list(`filterByFormula=${q(formula)}`);
    expect(res.status).toBe(414);
    expect(res.body.error.type).toBe('URI_TOO_LONG');
    const post = await call(emulator, 'POST', `/v0/${deals.base}/${deals.table}/listRecords`, {
      body: { filterByFormula: formula },
    });
    expect(post.status).toBe(200);
    expect(post.body.records.map((r: Loose) => r.id).sort()).toEqual([...ids].sort());
  });

  it('reads one record, and answers 404 NOT_FOUND for an unknown one', async () => {
    const row = emulator.store.records(deals.table)[0]!;
    const one = await call(emulator, 'GET', `/v0/${deals.base}/Deals/${row.id}?returnFieldsByFieldId=1`);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(row.id);
    expect(one.body.createdTime).toBe(row.createdTime);
    expect(one.body.fields[deals.field('Name')]).toBe(row.cells[deals.field('Name')]);
    const missing = await call(emulator, 'GET', `/v0/${deals.base}/Deals/recAAAAAAAAAAAAAA`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: { type: 'NOT_FOUND', message: 'Could not find record recAAAAAAAAAAAAAA' },
    });
  });

  it('addresses a table by name, URL-encoded', async () => {
    const res = await call(emulator, 'GET', `/v0/${features.base}/${q('Features')}?maxRecords=1`);
    expect(res.status).toBe(200);
  });
});
