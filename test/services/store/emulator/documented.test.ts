// The emulator against the documented Airtable Web API (upstream-apis.md C, the samples in
// store-samples/, and the public API reference): record shapes and the omission of empty cells, tables by id
// and by (encoded) name, fields[] / sort[] / view / maxRecords / filterByFormula, cellFormat=string per field
// type, returnFieldsByFieldId, recordMetadata, writes (typecast, PUT vs PATCH, upsert), comments, the schema
// shapes, webhooks, whoami and the error bodies. Each test pins one upstream behaviour a client relies on.
import { afterAll, describe, expect, it } from 'vitest';
import { call, ids, type Loose, makeEmulator, q, users } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const deals = ids(emulator, 'Sales CRM', 'Deals');
const companies = ids(emulator, 'Sales CRM', 'Companies');
const features = ids(emulator, 'Product Roadmap', 'Features');
const teams = ids(emulator, 'Product Roadmap', 'Teams');
const posts = ids(emulator, 'Content Calendar', 'Posts');

const STRING = 'cellFormat=string&timeZone=America/New_York&userLocale=en-us';
const get = (path: string) => call(emulator, 'GET', path);
const listDeals = (query = '') => get(`/v0/${deals.base}/${deals.table}${query ? `?${query}` : ''}`);
const listFeatures = (query = '') => get(`/v0/${features.base}/${features.table}${query ? `?${query}` : ''}`);
const fields = (records: Loose[], name: string) => records.map((r) => r.fields[name]);

/** Every record of the table, read through the API page by page (the offsets followed to the end). */
async function all(base: string, table: string, query = ''): Promise<Loose[]> {
  const out: Loose[] = [];
  let offset: string | undefined;
  do {
    const sep = query ? '&' : '';
    const res = await get(`/v0/${base}/${table}?${query}${offset ? `${sep}offset=${q(offset)}` : ''}`);
    expect(res.status).toBe(200);
    out.push(...res.body.records);
    offset = res.body.offset;
  } while (offset);
  return out;
}

describe('record shape and addressing', () => {
  it('answers {records} with no offset key on the last page, each record exactly {id, createdTime, fields}', async () => {
    const res = await get(`/v0/${posts.base}/${posts.table}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['records']);
    expect(res.body.records).toHaveLength(40);
    for (const r of res.body.records) {
      expect(Object.keys(r).sort()).toEqual(['createdTime', 'fields', 'id']);
      expect(r.id).toMatch(/^rec[A-Za-z0-9]{14}$/);
      expect(new Date(r.createdTime).toISOString()).toBe(r.createdTime);
    }
  });

  it('serves the same records for the table id, its name and its URL-encoded name', async () => {
    const byId = await get(`/v0/${deals.base}/${deals.table}?maxRecords=5`);
    const byName = await get(`/v0/${deals.base}/Deals?maxRecords=5`);
    const encoded = await get(`/v0/${deals.base}/${q('Deals')}?maxRecords=5`);
    expect(byName.body).toEqual(byId.body);
    expect(encoded.body).toEqual(byId.body);
  });

  it('accepts a trailing slash on list and get', async () => {
    const plain = await listDeals('maxRecords=3');
    const slashed = await get(`/v0/${deals.base}/${deals.table}/?maxRecords=3`);
    expect(slashed.status).toBe(200);
    expect(slashed.body).toEqual(plain.body);
    const id = plain.body.records[0].id;
    const one = await get(`/v0/${deals.base}/${deals.table}/${id}/`);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(id);
  });

  it('reads a record by id even through another table of the same base (airtable.js#117)', async () => {
    const company = emulator.store.records(companies.table)[0]!;
    const res = await get(`/v0/${deals.base}/${deals.table}/${company.id}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(company.id);
  });

  it('reads one record as {id, createdTime, fields}, equal to its listed form', async () => {
    const listed = (await listDeals('maxRecords=1')).body.records[0];
    const one = await get(`/v0/${deals.base}/Deals/${listed.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(listed);
  });

  it('leaves empty cells out of fields: "" , [], false and null all read back as absent keys', async () => {
    const created = await call(emulator, 'POST', `/v0/${deals.base}/${deals.table}`, {
      body: { fields: { Name: 'Empty cells', Won: true, Stage: 'Lead', Contact: [] } },
    });
    expect(created.status).toBe(200);
    const patched = await call(emulator, 'PATCH', `/v0/${deals.base}/${deals.table}/${created.body.id}`, {
      body: { fields: { Name: '', Won: false, Stage: null } },
    });
    expect(patched.status).toBe(200);
    const read = await get(`/v0/${deals.base}/${deals.table}/${created.body.id}`);
    for (const key of ['Name', 'Won', 'Stage', 'Contact', 'Amount'])
      expect(read.body.fields).not.toHaveProperty(key);
    expect(read.body.fields['Deal #']).toEqual(expect.any(Number));
  });
});

describe('tables and fields with special characters in their names', () => {
  let tableId = '';
  const NAME = 'Launch Plan Q3';
  const FIELDS = ['Item', 'Cost (USD)', 'Done?', 'Owner / Team', 'Due: date', '#tag'];

  it('creates the table, writes by odd field names and lists it by its URL-encoded name', async () => {
    const made = await call(emulator, 'POST', `/v0/meta/bases/${features.base}/tables`, {
      body: {
        name: NAME,
        fields: [
          { name: 'Item', type: 'singleLineText' },
          { name: 'Cost (USD)', type: 'number', options: { precision: 2 } },
          { name: 'Done?', type: 'checkbox', options: { color: 'greenBright', icon: 'check' } },
          { name: 'Owner / Team', type: 'singleLineText' },
          { name: 'Due: date', type: 'date', options: { dateFormat: { name: 'iso', format: 'YYYY-MM-DD' } } },
          { name: '#tag', type: 'singleLineText' },
        ],
      },
    });
    expect(made.status).toBe(200);
    tableId = made.body.id;
    expect(made.body.fields.map((f: Loose) => f.name)).toEqual(FIELDS);
    const write = await call(emulator, 'POST', `/v0/${features.base}/${q(NAME)}`, {
      body: {
        records: [
          {
            fields: {
              Item: 'a',
              'Cost (USD)': 12.5,
              'Done?': true,
              'Owner / Team': 'x/y',
              'Due: date': '2025-07-01',
              '#tag': 't1',
            },
          },
          { fields: { Item: 'b', 'Cost (USD)': 3, 'Due: date': '2025-06-01' } },
          { fields: { Item: 'c', 'Cost (USD)': 40, 'Due: date': '2025-08-01' } },
        ],
      },
    });
    expect(write.status).toBe(200);
    const res = await get(`/v0/${features.base}/${q(NAME)}`);
    expect(res.status).toBe(200);
    expect(fields(res.body.records, 'Item')).toEqual(['a', 'b', 'c']);
    expect(res.body.records[0].fields).toEqual({
      Item: 'a',
      'Cost (USD)': 12.5,
      'Done?': true,
      'Owner / Team': 'x/y',
      'Due: date': '2025-07-01',
      '#tag': 't1',
    });
  });

  it('addresses tables named with /, ?, #, % and emoji by their URL-encoded names', async () => {
    for (const name of ['R&D / Ops', 'Q?#1', '100% Done', 'Ünïcödé 📣']) {
      const made = await call(emulator, 'POST', `/v0/meta/bases/${features.base}/tables`, {
        body: { name, fields: [{ name: 'Name', type: 'singleLineText' }] },
      });
      expect(made.status, name).toBe(200);
      const written = await call(emulator, 'POST', `/v0/${features.base}/${q(name)}`, {
        body: { fields: { Name: name } },
      });
      expect(written.status, name).toBe(200);
      const listed = await get(`/v0/${features.base}/${q(name)}`);
      expect(fields(listed.body.records, 'Name'), name).toEqual([name]);
      const one = await get(`/v0/${features.base}/${q(name)}/${written.body.id}`);
      expect(one.body.id, name).toBe(written.body.id);
    }
  });

  it('projects fields[] whose names hold #, ?, /, : and parentheses', async () => {
    const query = ['#tag', 'Done?', 'Owner / Team'].map((n) => `fields%5B%5D=${q(n)}`).join('&');
    const res = await get(`/v0/${features.base}/${tableId}?${query}`);
    expect(res.status).toBe(200);
    expect(res.body.records[0].fields).toEqual({ '#tag': 't1', 'Done?': true, 'Owner / Team': 'x/y' });
    expect(res.body.records[1].fields).toEqual({});
  });

  it('filters and sorts on fields with special characters', async () => {
    const res = await get(
      `/v0/${features.base}/${tableId}?filterByFormula=${q('{Cost (USD)} > 5')}&sort%5B0%5D%5Bfield%5D=${q('Due: date')}&sort%5B0%5D%5Bdirection%5D=desc`,
    );
    expect(res.status).toBe(200);
    expect(fields(res.body.records, 'Item')).toEqual(['c', 'a']);
  });
});

describe('fields[], views, sort and maxRecords', () => {
  it('returns only the fields[] asked for, by name or by id, keyed by id with returnFieldsByFieldId', async () => {
    const res = await listDeals(
      `fields%5B%5D=${deals.field('Amount')}&fields%5B%5D=Name&returnFieldsByFieldId=true&maxRecords=10`,
    );
    expect(res.status).toBe(200);
    for (const r of res.body.records) {
      expect(Object.keys(r.fields).sort()).toEqual([deals.field('Amount'), deals.field('Name')].sort());
    }
  });

  it('still returns fields hidden in the view (only fields[] narrows the fields)', async () => {
    const res = await listFeatures(`view=${q('Approved backlog')}`);
    expect(res.status).toBe(200);
    const withDescription = res.body.records.filter((r: Loose) => r.fields.Description !== undefined);
    expect(withDescription.length).toBeGreaterThan(0);
  });

  it('pages a view addressed by id with maxRecords: pageSize records, then the rest up to maxRecords', async () => {
    const view = deals.view('Big deals');
    const one = await listDeals(`view=${view}&pageSize=4&maxRecords=6`);
    expect(one.body.records).toHaveLength(4);
    expect(one.body.offset).toEqual(expect.any(String));
    const two = await listDeals(`view=${view}&pageSize=4&maxRecords=6&offset=${q(one.body.offset)}`);
    expect(two.body.records).toHaveLength(2);
    expect(two.body.offset).toBeUndefined();
    const amounts = [...fields(one.body.records, 'Amount'), ...fields(two.body.records, 'Amount')];
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
    const byName = await listDeals(`view=${q('Big deals')}&maxRecords=6`);
    expect(byName.body.records.map((r: Loose) => r.id)).toEqual(
      [...one.body.records, ...two.body.records].map((r: Loose) => r.id),
    );
  });

  it('sorts currency ascending and descending', async () => {
    const withAmount = `filterByFormula=${q('{Amount} > 0')}`;
    const asc = await all(deals.base, deals.table, `${withAmount}&sort%5B0%5D%5Bfield%5D=Amount`);
    const amounts = fields(asc, 'Amount') as number[];
    expect(amounts).toEqual([...amounts].sort((a, b) => a - b));
    const desc = await listDeals(
      `${withAmount}&sort%5B0%5D%5Bfield%5D=Amount&sort%5B0%5D%5Bdirection%5D=desc&maxRecords=10`,
    );
    const top = fields(desc.body.records, 'Amount') as number[];
    expect(top[0]).toBe(Math.max(...amounts));
    expect(top).toEqual([...top].sort((a, b) => b - a));
  });

  it('sorts dates both ways (a field named by id in sort[0][field])', async () => {
    const filter = `filterByFormula=${q('NOT({Close date} = BLANK())')}`;
    const asc = await all(
      deals.base,
      deals.table,
      `${filter}&sort%5B0%5D%5Bfield%5D=${deals.field('Close date')}`,
    );
    const dates = fields(asc, 'Close date') as string[];
    expect(dates.every((d) => typeof d === 'string')).toBe(true);
    expect(dates).toEqual([...dates].sort());
    const desc = await all(
      deals.base,
      deals.table,
      `${filter}&sort%5B0%5D%5Bfield%5D=Close%20date&sort%5B0%5D%5Bdirection%5D=desc`,
    );
    expect(fields(desc, 'Close date')).toEqual([...dates].sort().reverse());
  });

  it('sorts text ascending and descending', async () => {
    const asc = await all(companies.base, companies.table, 'sort%5B0%5D%5Bfield%5D=Name');
    const names = fields(asc, 'Name') as string[];
    expect(names[0]).toBe('Acme Corp');
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    const desc = await all(
      companies.base,
      companies.table,
      'sort%5B0%5D%5Bfield%5D=Name&sort%5B0%5D%5Bdirection%5D=desc',
    );
    expect(fields(desc, 'Name')).toEqual([...names].reverse());
  });

  it('sorts a link field by the linked records primary field and a collaborator by name', async () => {
    const text = 'cellFormat=string&timeZone=UTC&userLocale=en-us';
    const byCompany = await all(
      deals.base,
      deals.table,
      `${text}&filterByFormula=${q('{Company}')}&sort%5B0%5D%5Bfield%5D=Company`,
    );
    const companyNames = fields(byCompany, 'Company') as string[];
    expect(companyNames).toEqual([...companyNames].sort((a, b) => a.localeCompare(b)));
    const byOwner = await all(
      deals.base,
      deals.table,
      `${text}&filterByFormula=${q('{Owner}')}&sort%5B0%5D%5Bfield%5D=Owner&sort%5B0%5D%5Bdirection%5D=desc`,
    );
    const owners = fields(byOwner, 'Owner') as string[];
    expect(owners).toEqual([...owners].sort((a, b) => b.localeCompare(a)));
  });

  it('takes the list parameters by field id in a POST listRecords body', async () => {
    const res = await call(emulator, 'POST', `/v0/${deals.base}/${deals.table}/listRecords`, {
      body: {
        fields: [deals.field('Name'), deals.field('Amount')],
        sort: [{ field: deals.field('Amount'), direction: 'desc' }],
        filterByFormula: `{${deals.field('Amount')}} > 0`,
        returnFieldsByFieldId: true,
        maxRecords: 5,
      },
    });
    expect(res.status).toBe(200);
    const amounts = res.body.records.map((r: Loose) => r.fields[deals.field('Amount')]);
    expect(amounts).toHaveLength(5);
    expect(amounts).toEqual([...amounts].sort((a: number, b: number) => b - a));
    expect(Object.keys(res.body.records[0].fields).sort()).toEqual(
      [deals.field('Amount'), deals.field('Name')].sort(),
    );
  });

  it('caps the whole listing at maxRecords with no offset when it fits in one page', async () => {
    const res = await listDeals('maxRecords=150');
    expect(res.body.records).toHaveLength(100);
    const rest = await listDeals(`maxRecords=150&offset=${q(res.body.offset)}`);
    expect(rest.body.records.length).toBe(emulator.store.records(deals.table).length - 100);
    const five = await listDeals('maxRecords=5&pageSize=10');
    expect(five.body.records).toHaveLength(5);
    expect(five.body).not.toHaveProperty('offset');
  });
});

describe('filterByFormula', () => {
  const filter = async (formula: string, base = deals.base, table = deals.table) => {
    const records = await all(base, table, `filterByFormula=${q(formula)}`);
    return records;
  };
  const stored = () => emulator.store.records(deals.table);

  it('takes field ids in braces exactly like field names', async () => {
    const byName = await filter("{Stage} = 'Proposal'");
    const byId = await filter(`{${deals.field('Stage')}} = 'Proposal'`);
    expect(byName.length).toBeGreaterThan(0);
    expect(byId.map((r) => r.id)).toEqual(byName.map((r) => r.id));
    expect(byName.every((r) => r.fields.Stage === 'Proposal')).toBe(true);
  });

  it('FIND and SEARCH are case-sensitive; a miss is 0 for FIND and blank for SEARCH', async () => {
    const search = await filter("SEARCH('Deal 00', {Name})");
    expect(fields(search, 'Name')).toEqual([
      'Deal 001',
      'Deal 002',
      'Deal 003',
      'Deal 004',
      'Deal 005',
      'Deal 006',
      'Deal 007',
      'Deal 008',
      'Deal 009',
    ]);
    expect(await filter("SEARCH('deal', {Name})")).toEqual([]);
    expect(await filter("FIND('deal', {Name})")).toEqual([]);
    const named = stored().filter((r) => r.cells[deals.field('Name')] !== undefined).length;
    expect(await filter("FIND('zzz', {Name}) = 0")).toHaveLength(stored().length);
    expect(await filter("SEARCH('zzz', {Name}) = BLANK()")).toHaveLength(stored().length);
    expect(named).toBeGreaterThan(0);
  });

  it('reads a checkbox as 1/0 and TRUE()/FALSE()', async () => {
    const won = stored().filter((r) => r.cells[deals.field('Won')] === true).length;
    expect(won).toBeGreaterThan(0);
    expect(await filter('{Won} = 1')).toHaveLength(won);
    expect(await filter('{Won} = TRUE()')).toHaveLength(won);
    expect(await filter('NOT({Won})')).toHaveLength(stored().length - won);
  });

  it('finds blank cells with = BLANK() and = ""', async () => {
    const blank = stored().filter((r) => r.cells[deals.field('Close date')] === undefined).length;
    expect(blank).toBeGreaterThan(0);
    expect(await filter('{Close date} = BLANK()')).toHaveLength(blank);
    const noProbability = stored().filter((r) => r.cells[deals.field('Probability')] === undefined).length;
    expect(await filter("{Probability} = ''")).toHaveLength(noProbability);
  });

  it('compares percent cells as fractions and ratings as numbers', async () => {
    const high = await filter('{Probability} >= 0.5');
    expect(high.length).toBeGreaterThan(0);
    expect(high.every((r) => r.fields.Probability >= 0.5)).toBe(true);
    const fit = await filter('{Fit} >= 4');
    expect(fit.every((r) => r.fields.Fit >= 4)).toBe(true);
  });

  it('reads a link cell as the linked records primary field text', async () => {
    const company = (await get(`/v0/${companies.base}/${companies.table}?maxRecords=1`)).body.records[0];
    const res = await filter(`{Company} = '${company.fields.Name}'`);
    expect(res.map((r) => r.id).sort()).toEqual([...company.fields.Deals].sort());
  });

  it('reads a multiple select as its options joined by ", "', async () => {
    const res = await filter("FIND('UX', {Tags})", features.base, features.table);
    expect(res.length).toBeGreaterThan(0);
    expect(res.every((r) => r.fields.Tags.includes('UX'))).toBe(true);
    const joined = await filter("FIND(', ', {Tags})", features.base, features.table);
    expect(joined.every((r) => r.fields.Tags.length >= 2)).toBe(true);
  });

  it('compares dates with IS_BEFORE and YEAR()', async () => {
    const before = await filter("IS_BEFORE({Close date}, '2025-05-01')");
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((r) => r.fields['Close date'] < '2025-05-01')).toBe(true);
    const y2025 = await filter('YEAR({Close date}) = 2025');
    expect(y2025.every((r) => r.fields['Close date'].startsWith('2025-'))).toBe(true);
  });

  it('keeps records whose formula is a non-empty string and drops 0, "" and blank results', async () => {
    expect(await filter('{Name}')).toHaveLength(
      stored().filter((r) => r.cells[deals.field('Name')] !== undefined).length,
    );
    expect(await filter('0')).toEqual([]);
    expect(await filter("''")).toEqual([]);
    expect(await filter('{Close date}')).toHaveLength(
      stored().filter((r) => r.cells[deals.field('Close date')] !== undefined).length,
    );
  });

  it('selects the same records whatever the cellFormat and timeZone of the response', async () => {
    const formula = q('HOUR(CREATED_TIME()) = 12');
    const json = await all(deals.base, deals.table, `filterByFormula=${formula}`);
    const text = await all(
      deals.base,
      deals.table,
      `filterByFormula=${formula}&cellFormat=string&timeZone=Asia/Tokyo&userLocale=en-us`,
    );
    expect(json.length).toBeGreaterThan(0);
    expect(text.map((r) => r.id)).toEqual(json.map((r) => r.id));
  });

  it('uses MOD on the auto number', async () => {
    const res = await filter('MOD({Deal #}, 10) = 0');
    expect((fields(res, 'Deal #') as number[]).every((n) => n % 10 === 0)).toBe(true);
    expect(res.length).toBe(Math.floor(stored().length / 10));
  });
});

describe('cellFormat=string', () => {
  const pair = async (base: string, table: string, id: string, zone = 'America/New_York') => {
    const json = await get(`/v0/${base}/${table}/${id}`);
    const text = await get(
      `/v0/${base}/${table}/${id}?cellFormat=string&timeZone=${q(zone)}&userLocale=en-us`,
    );
    expect(text.status).toBe(200);
    return { j: json.body.fields, s: text.body.fields };
  };

  it('formats currency with symbol and 2 decimals, percent as %, a us date as M/D/YYYY', async () => {
    const row = emulator.store
      .records(deals.table)
      .find(
        (r) =>
          r.cells[deals.field('Probability')] !== undefined &&
          r.cells[deals.field('Close date')] !== undefined,
      )!;
    const { j, s } = await pair(deals.base, deals.table, row.id);
    expect(s.Amount).toBe(
      `$${j.Amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`,
    );
    expect(s.Probability).toBe(`${Math.round(j.Probability * 100)}%`);
    const [y, m, d] = (j['Close date'] as string).split('-').map(Number);
    expect(s['Close date']).toBe(`${m}/${d}/${y}`);
  });

  it('shows a checkbox as "checked", collaborators by name, links by primary field', async () => {
    const row = emulator.store.records(deals.table).find((r) => r.cells[deals.field('Won')] === true)!;
    const { j, s } = await pair(deals.base, deals.table, row.id);
    expect(s.Won).toBe('checked');
    expect(s.Owner).toBe(j.Owner.name);
    const company = await get(`/v0/${companies.base}/${companies.table}/${j.Company[0]}`);
    expect(s.Company).toBe(company.body.fields.Name);
  });

  it('joins multiple collaborators and multiple selects with ", "', async () => {
    const row = emulator.store.records(features.table).find((r) => {
      const rv = r.cells[features.field('Reviewers')];
      const tags = r.cells[features.field('Tags')];
      return Array.isArray(rv) && rv.length > 1 && Array.isArray(tags) && tags.length > 1;
    })!;
    const { j, s } = await pair(features.base, features.table, row.id);
    expect(s.Reviewers).toBe(j.Reviewers.map((u: Loose) => u.name).join(', '));
    expect(s.Tags).toBe(j.Tags.join(', '));
  });

  it('shows a number with its field precision (1 decimal), even for whole numbers', async () => {
    const made = await call(emulator, 'POST', `/v0/${features.base}/${features.table}`, {
      body: { fields: { Name: 'Precision', Estimate: 12 } },
    });
    const { s } = await pair(features.base, features.table, made.body.id);
    expect(s.Estimate).toBe('12.0');
  });

  it('formats dates in the userLocale (friendly format under fr)', async () => {
    const row = emulator.store.records(posts.table)[0]!;
    const res = await get(
      `/v0/${posts.base}/${posts.table}/${row.id}?cellFormat=string&timeZone=Europe/Paris&userLocale=fr`,
    );
    expect(res.status).toBe(200);
    expect(res.body.fields['Publish at']).toMatch(
      /janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre/,
    );
  });

  it('formats a rollup with its result precision', async () => {
    for (const team of emulator.store.records(teams.table)) {
      const { j, s } = await pair(teams.base, teams.table, team.id);
      if (j['Total estimate'] === undefined) continue;
      expect(s['Total estimate']).toBe((j['Total estimate'] as number).toFixed(1));
    }
  });

  it('shows a client-zone created time in the request timeZone, a fixed-zone dateTime in its own zone', async () => {
    const row = emulator.store.records(posts.table)[0]!;
    const ny = await pair(posts.base, posts.table, row.id, 'America/New_York');
    const tokyo = await pair(posts.base, posts.table, row.id, 'Asia/Tokyo');
    // "Publish at" is pinned to America/New_York: the reader's zone does not move it.
    expect(tokyo.s['Publish at']).toBe(ny.s['Publish at']);
    const at = new Date(ny.j['Publish at']);
    const day = at.toLocaleDateString('en-US', {
      timeZone: 'America/New_York',
      month: 'long',
      day: 'numeric',
      year: 'numeric',
    });
    const time = at
      .toLocaleTimeString('en-US', { timeZone: 'America/New_York', hour: 'numeric', minute: '2-digit' })
      .replace(' ', '')
      .toLowerCase();
    expect(ny.s['Publish at']).toBe(`${day} ${time}`);
  });

  it('combines with returnFieldsByFieldId and fields[]', async () => {
    const res = await listDeals(
      `${STRING}&returnFieldsByFieldId=true&fields%5B%5D=Amount&fields%5B%5D=Stage&maxRecords=3`,
    );
    expect(res.status).toBe(200);
    for (const r of res.body.records) {
      for (const [k, v] of Object.entries(r.fields)) {
        expect([deals.field('Amount'), deals.field('Stage')]).toContain(k);
        expect(typeof v).toBe('string');
      }
    }
  });
});

describe('recordMetadata', () => {
  it('adds commentCount to every record, 0 where there are none', async () => {
    const records = await all(deals.base, deals.table, 'recordMetadata%5B%5D=commentCount');
    expect(records.every((r) => typeof r.commentCount === 'number')).toBe(true);
    expect(records.some((r) => r.commentCount === 0)).toBe(true);
    expect(records.some((r) => r.commentCount > 0)).toBe(true);
    const plain = await listDeals('maxRecords=1');
    expect(plain.body.records[0]).not.toHaveProperty('commentCount');
  });
});

describe('writes', () => {
  const path = `/v0/${features.base}/${features.table}`;

  it('creates a record from an empty fields object', async () => {
    const res = await call(emulator, 'POST', path, { body: { fields: {} } });
    expect(res.status).toBe(200);
    expect(res.body.id).toMatch(/^rec/);
    expect(res.body.fields).not.toHaveProperty('Name');
  });

  it('refuses a numeric string in a number field without typecast and converts it with typecast', async () => {
    const bad = await call(emulator, 'POST', path, { body: { fields: { Name: 'tc', Estimate: '42' } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.type).toBe('INVALID_VALUE_FOR_COLUMN');
    const good = await call(emulator, 'POST', path, {
      body: { fields: { Name: 'tc', Estimate: '42' }, typecast: true },
    });
    expect(good.status).toBe(200);
    expect(good.body.fields.Estimate).toBe(42);
  });

  it('typecast links a record by its primary field text', async () => {
    const acme = emulator.store
      .records(companies.table)
      .find((r) => r.cells[companies.field('Name')] === 'Acme Corp')!;
    const res = await call(emulator, 'POST', `/v0/${deals.base}/${deals.table}`, {
      body: { fields: { Name: 'Typecast link', Company: ['Acme Corp'] }, typecast: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.fields.Company).toEqual([acme.id]);
  });

  it('reads offset-less dateTime text in the field time zone and offsets as given (field-model: Date and time)', async () => {
    const write = async (value: string) => {
      const res = await call(emulator, 'POST', `/v0/${posts.base}/${posts.table}`, {
        body: { fields: { Title: 'zone', 'Publish at': value } },
      });
      expect(res.status, value).toBe(200);
      return res.body.fields['Publish at'];
    };
    // "Publish at" is pinned to America/New_York (EDT, UTC-4, in September).
    expect(await write('2020-09-08')).toBe('2020-09-08T04:00:00.000Z');
    expect(await write('2020-09-05T07:00:00')).toBe('2020-09-05T11:00:00.000Z');
    expect(await write('2020-09-05T07:00:00.000Z')).toBe('2020-09-05T07:00:00.000Z');
    expect(await write('2020-09-08T00:00:00-07:00')).toBe('2020-09-08T07:00:00.000Z');
  });

  it('writes multiple collaborators as an array of user ids (field-model write format)', async () => {
    const [a, b] = users(emulator);
    const res = await call(emulator, 'POST', path, {
      body: { fields: { Name: 'ids', Reviewers: [a!.id, b!.id] } },
    });
    expect(res.status).toBe(200);
    expect(res.body.fields.Reviewers.map((u: Loose) => u.id)).toEqual([a!.id, b!.id]);
  });

  it('takes a JSON-serialised Date (ISO date-time) in a date field, as airtable.js documents', async () => {
    const res = await call(emulator, 'POST', path, {
      body: { fields: { Name: 'Date object', 'Target date': new Date('2025-07-04T00:00:00.000Z') } },
    });
    expect(res.status).toBe(200);
    expect(res.body.fields['Target date']).toBe('2025-07-04');
  });

  it('refuses an unknown select option without typecast; typecast adds it to the field choices', async () => {
    const bad = await call(emulator, 'POST', path, { body: { fields: { Status: 'Parked' } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.type).toBe('INVALID_MULTIPLE_CHOICE_OPTIONS');
    const good = await call(emulator, 'POST', path, {
      body: { fields: { Status: 'Parked' }, typecast: true },
    });
    expect(good.body.fields.Status).toBe('Parked');
    const schema = await get(`/v0/meta/bases/${features.base}/tables`);
    const status = schema.body.tables
      .find((t: Loose) => t.id === features.table)
      .fields.find((f: Loose) => f.name === 'Status');
    expect(status.options.choices.map((c: Loose) => c.name)).toContain('Parked');
    expect(status.options.choices.find((c: Loose) => c.name === 'Parked').id).toMatch(/^sel/);
  });

  it('refuses an unknown field with UNKNOWN_FIELD_NAME and a computed field with INVALID_VALUE_FOR_COLUMN', async () => {
    const unknown = await call(emulator, 'POST', path, { body: { fields: { Nope: 1 } } });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({
      error: { type: 'UNKNOWN_FIELD_NAME', message: 'Unknown field name: "Nope"' },
    });
    const computed = await call(emulator, 'POST', path, { body: { fields: { Score: 1 } } });
    expect(computed.status).toBe(422);
    expect(computed.body).toEqual({
      error: {
        type: 'INVALID_VALUE_FOR_COLUMN',
        message: 'Field "Score" cannot accept a value because the field is computed',
      },
    });
  });

  it('PATCH answers every field of the record, PUT clears the cells it was not given', async () => {
    const made = await call(emulator, 'POST', path, {
      body: { fields: { Name: 'PvP', Estimate: 3, Status: 'Idea', Tags: ['UX'] } },
    });
    const patched = await call(emulator, 'PATCH', path, {
      body: { records: [{ id: made.body.id, fields: { [features.field('Estimate')]: 4 } }] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.records[0].fields).toMatchObject({
      Name: 'PvP',
      Estimate: 4,
      Status: 'Idea',
      Tags: ['UX'],
    });
    const put = await call(emulator, 'PUT', path, {
      body: { records: [{ id: made.body.id, fields: { Name: 'PvP' } }] },
    });
    expect(put.status).toBe(200);
    const f = put.body.records[0].fields;
    expect(f.Name).toBe('PvP');
    for (const key of ['Estimate', 'Status', 'Tags']) expect(f).not.toHaveProperty(key);
    expect(f['Feature #']).toBe(made.body.fields['Feature #']);
  });

  it('upserts on a field id: creates then updates, naming created and updated records', async () => {
    const body = (amount: number) => ({
      performUpsert: { fieldsToMergeOn: [deals.field('Name')] },
      records: [
        { fields: { Name: 'Upsert key 1', Amount: amount } },
        { fields: { Name: 'Upsert key 2', Amount: amount } },
      ],
    });
    const first = await call(emulator, 'PATCH', `/v0/${deals.base}/${deals.table}`, { body: body(100) });
    expect(first.status).toBe(200);
    expect(first.body.createdRecords).toEqual(first.body.records.map((r: Loose) => r.id));
    expect(first.body.updatedRecords).toEqual([]);
    const second = await call(emulator, 'PATCH', `/v0/${deals.base}/${deals.table}`, { body: body(200) });
    expect(second.body.createdRecords).toEqual([]);
    expect(second.body.updatedRecords).toEqual(first.body.createdRecords);
    expect(second.body.records.map((r: Loose) => r.fields.Amount)).toEqual([200, 200]);
  });

  it('refuses more than 3 fieldsToMergeOn', async () => {
    const res = await call(emulator, 'PATCH', `/v0/${deals.base}/${deals.table}`, {
      body: {
        performUpsert: { fieldsToMergeOn: ['Name', 'Amount', 'Stage', 'Close date'] },
        records: [{ fields: { Name: 'x', Amount: 1, Stage: 'Lead', 'Close date': '2025-01-01' } }],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
  });

  it('deletes by records[] and answers {records: [{id, deleted: true}]}; the records are gone', async () => {
    const made = await call(emulator, 'POST', path, {
      body: { records: [{ fields: { Name: 'del 1' } }, { fields: { Name: 'del 2' } }] },
    });
    const [a, b] = made.body.records.map((r: Loose) => r.id);
    const res = await call(emulator, 'DELETE', `${path}?records%5B%5D=${a}&records%5B%5D=${b}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      records: [
        { id: a, deleted: true },
        { id: b, deleted: true },
      ],
    });
    expect((await get(`${path}/${a}`)).status).toBe(404);
  });

  it('refuses deleting more than 10 records in one request', async () => {
    const eleven = emulator.store
      .records(features.table)
      .slice(0, 11)
      .map((r) => `records%5B%5D=${r.id}`);
    const res = await call(emulator, 'DELETE', `${path}?${eleven.join('&')}`);
    expect(res.status).toBe(422);
    expect(emulator.store.records(features.table).length).toBeGreaterThan(11);
  });
});

describe('comments', () => {
  const record = emulator.store.records(deals.table)[5]!;
  const path = `/v0/${deals.base}/${deals.table}/${record.id}/comments`;

  it('creates, edits and deletes a comment in the Comment.json shape', async () => {
    const t0 = emulator.clock.now().toISOString();
    const made = await call(emulator, 'POST', path, { body: { text: 'Review review' } });
    expect(made.status).toBe(200);
    const sampleKeys = ['author', 'createdTime', 'id', 'lastUpdatedTime', 'text'];
    expect(Object.keys(made.body).sort()).toEqual(sampleKeys);
    expect(made.body.author).toMatchObject({ id: expect.stringMatching(/^usr/), email: expect.any(String) });
    expect(made.body.createdTime).toBe(t0);
    expect(made.body.lastUpdatedTime).toBeNull();
    emulator.clock.advance(60_000);
    const edited = await call(emulator, 'PATCH', `${path}/${made.body.id}`, { body: { text: 'Edited' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: made.body.id, text: 'Edited', createdTime: t0 });
    expect(edited.body.lastUpdatedTime).toBe(emulator.clock.now().toISOString());
    const listed = await get(path);
    expect(listed.body.comments[0]).toEqual(edited.body);
    const deleted = await call(emulator, 'DELETE', `${path}/${made.body.id}`);
    expect(deleted.body).toEqual({ id: made.body.id, deleted: true });
    const after = await get(path);
    expect(after.body.comments.map((c: Loose) => c.id)).not.toContain(made.body.id);
  });

  it('lists comments newest first under {comments, offset}', async () => {
    const seeded = emulator.store.records(deals.table)[0]!;
    const res = await get(`/v0/${deals.base}/Deals/${seeded.id}/comments`);
    expect(res.status).toBe(200);
    expect(res.body.comments.length).toBeGreaterThan(0);
    const times = res.body.comments.map((c: Loose) => c.createdTime);
    expect(times).toEqual([...times].sort().reverse());
    const reply = res.body.comments.find((c: Loose) => c.text.includes('@['));
    if (reply)
      expect(Object.values(reply.mentioned)[0]).toMatchObject({ type: 'user', id: expect.any(String) });
  });
});

describe('schema', () => {
  it('lists bases as Bases.json: {bases: [{id, name, permissionLevel}]}', async () => {
    const res = await get('/v0/meta/bases');
    expect(res.status).toBe(200);
    expect(res.body.bases.map((b: Loose) => b.name)).toEqual(
      expect.arrayContaining(['Product Roadmap', 'Sales CRM', 'Content Calendar']),
    );
    for (const b of res.body.bases) {
      expect(Object.keys(b).sort()).toEqual(['id', 'name', 'permissionLevel']);
      expect(b.id).toMatch(/^app[A-Za-z0-9]{14}$/);
    }
  });

  it('reads the base schema as BaseSchema.json: tables {id, name, description?, primaryFieldId, fields, views}', async () => {
    const res = await get(`/v0/meta/bases/${deals.base}/tables`);
    expect(res.status).toBe(200);
    expect(res.body.tables.map((t: Loose) => t.name)).toEqual(['Companies', 'Contacts', 'Deals']);
    for (const t of res.body.tables) {
      expect(t.id).toMatch(/^tbl[A-Za-z0-9]{14}$/);
      expect(t.primaryFieldId).toBe(t.fields[0].id);
      for (const f of t.fields) {
        expect(f.id).toMatch(/^fld[A-Za-z0-9]{14}$/);
        for (const k of Object.keys(f)) expect(['id', 'name', 'type', 'description', 'options']).toContain(k);
      }
      for (const v of t.views) {
        expect(v.id).toMatch(/^viw[A-Za-z0-9]{14}$/);
        expect(Object.keys(v).sort()).toEqual(['id', 'name', 'type']);
      }
    }
  });

  it('shows a createdTime field with its result options and a formula with isValid and referencedFieldIds', async () => {
    const res = await get(`/v0/meta/bases/${deals.base}/tables`);
    const table = res.body.tables.find((t: Loose) => t.name === 'Deals');
    const weighted = table.fields.find((f: Loose) => f.name === 'Weighted amount');
    expect(weighted.options).toMatchObject({
      isValid: true,
      referencedFieldIds: [deals.field('Amount'), deals.field('Probability')],
      result: { type: 'number' },
    });
    expect(weighted.options.formula).toContain(`{${deals.field('Amount')}}`);
    const created = table.fields.find((f: Loose) => f.name === 'Created');
    expect(created.options.result.type).toBe('dateTime');
  });

  it('reads one view in the ViewSchema.json shape with include[]=visibleFieldIds', async () => {
    const res = await get(
      `/v0/meta/bases/${features.base}/views/${features.view("Ada's view")}?include%5B%5D=visibleFieldIds`,
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'id',
      'name',
      'personalForUserId',
      'type',
      'visibleFieldIds',
    ]);
    expect(res.body.personalForUserId).toMatch(/^usr/);
  });
});

describe('webhooks and whoami', () => {
  it('creates a webhook {id, macSecretBase64, expirationTime} and lists it in the Webhook.json shape', async () => {
    const specification = {
      options: { filters: { dataTypes: ['tableData'], recordChangeScope: deals.table } },
    };
    const made = await call(emulator, 'POST', `/v0/bases/${deals.base}/webhooks`, {
      body: { specification },
    });
    expect(made.status).toBe(200);
    expect(Object.keys(made.body).sort()).toEqual(['expirationTime', 'id', 'macSecretBase64']);
    expect(made.body.id).toMatch(/^ach[A-Za-z0-9]{14}$/);
    expect(made.body.expirationTime).toBe(
      new Date(emulator.clock.now().getTime() + 7 * 86_400_000).toISOString(),
    );
    const listed = await get(`/v0/bases/${deals.base}/webhooks`);
    const hook = listed.body.webhooks.find((w: Loose) => w.id === made.body.id);
    expect(hook).toMatchObject({
      areNotificationsEnabled: false,
      cursorForNextPayload: 1,
      isHookEnabled: true,
      lastSuccessfulNotificationTime: null,
      notificationUrl: null,
      lastNotificationResult: null,
      expirationTime: made.body.expirationTime,
    });
    expect(hook.specification.options.filters).toMatchObject(specification.options.filters);
    expect(JSON.stringify(hook)).not.toContain('macSecretBase64');
  });

  it('answers whoami with the user id', async () => {
    const res = await get('/v0/meta/whoami');
    expect(res.status).toBe(200);
    expect(res.body.id).toMatch(/^usr[A-Za-z0-9]{14}$/);
    expect(res.body).not.toHaveProperty('scopes');
  });
});

describe('error bodies', () => {
  it('401 AUTHENTICATION_REQUIRED without a token', async () => {
    const res = await call(emulator, 'GET', `/v0/${deals.base}/${deals.table}`, { token: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: { type: 'AUTHENTICATION_REQUIRED', message: 'Authentication required' },
    });
  });

  it('403 INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND for an unknown base or table name', async () => {
    for (const path of [`/v0/appAAAAAAAAAAAAAA/Deals`, `/v0/${deals.base}/${q('No such table')}`]) {
      const res = await get(path);
      expect(res.status).toBe(403);
      expect(res.body.error.type).toBe('INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND');
    }
  });

  it('404 for an unknown record id and for an unknown route', async () => {
    const rec = await get(`/v0/${deals.base}/${deals.table}/recAAAAAAAAAAAAAA`);
    expect(rec.status).toBe(404);
    expect(rec.body.error.type).toBe('NOT_FOUND');
    const route = await get('/v1/nothing');
    expect(route.status).toBe(404);
    expect(route.body).toEqual({ error: 'NOT_FOUND' });
  });

  it('422 INVALID_REQUEST_UNKNOWN for pageSize 101 and for cellFormat=string without userLocale', async () => {
    expect((await listDeals('pageSize=101')).body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
    const res = await listDeals('cellFormat=string&timeZone=UTC');
    expect(res.status).toBe(422);
    expect(res.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
  });

  it('414 for a URL over 16,000 characters; a 15,000-character URL (airtable.js switches to POST above it) passes', async () => {
    const prefix = `/v0/${deals.base}/${deals.table}?filterByFormula=`;
    const formula = (n: number) => q(`LEN("${'x'.repeat(n)}") > 0`);
    const ok = await get(`${prefix}${formula(15_000 - prefix.length - 40)}`);
    expect(ok.status).toBe(200);
    const over = await get(`${prefix}${formula(16_100)}`);
    expect(over.status).toBe(414);
    expect(over.body.error.type).toEqual(expect.any(String));
  });
});
