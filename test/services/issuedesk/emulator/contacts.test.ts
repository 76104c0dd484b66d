// POST /contacts/search: every field and operator, nesting, paging and the 400s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Loose, makeEmulator } from './helpers.js';

const emulator = makeEmulator();
let contacts: Loose[];
beforeAll(async () => {
  contacts = (await call(emulator, 'GET', '/contacts')).body.data;
});
afterAll(() => emulator.close());

async function search(body: unknown) {
  return call(emulator, 'POST', '/contacts/search', { body });
}

async function searchIds(filter: unknown): Promise<string[]> {
  const res = await search({ filter });
  expect(res.status).toBe(200);
  expect(res.body.pagination).toBeDefined();
  return res.body.data.map((c: { id: string }) => c.id);
}

function idsWhere(pred: (c: Loose) => boolean): string[] {
  return contacts.filter(pred).map((c) => c.id);
}

describe('POST /contacts/search', () => {
  it('seeds some contacts with two emails', () => {
    expect(contacts.filter((c) => c.emails.length === 2).length).toBeGreaterThanOrEqual(3);
  });

  it('id: equals, in, not_in', async () => {
    const [a, b] = contacts;
    expect(await searchIds({ field: 'id', operator: 'equals', value: a.id })).toEqual([a.id]);
    expect(await searchIds({ field: 'id', operator: 'in', values: [b.id, a.id, 'nope'] })).toEqual([
      a.id,
      b.id,
    ]);
    const rest = await searchIds({ field: 'id', operator: 'not_in', values: [a.id] });
    expect(rest).toHaveLength(39);
    expect(rest).not.toContain(a.id);
  });

  it('email: case-insensitive equals on any address, string_contains, in, not_in', async () => {
    const two = contacts.find((c) => c.emails.length === 2);
    const secondary = two.emails[1];
    expect(await searchIds({ field: 'email', operator: 'equals', value: secondary.toUpperCase() })).toEqual([
      two.id,
    ]);
    const domain = contacts[0].email.split('@')[1];
    expect(
      await searchIds({ field: 'email', operator: 'string_contains', value: `@${domain.toUpperCase()}` }),
    ).toEqual(idsWhere((c) => c.emails.some((e: string) => e.endsWith(`@${domain}`))));
    expect(
      await searchIds({ field: 'email', operator: 'in', values: [secondary, contacts[0].email] }),
    ).toEqual(idsWhere((c) => c.id === two.id || c.id === contacts[0].id));
    expect(await searchIds({ field: 'email', operator: 'not_in', values: [secondary] })).not.toContain(
      two.id,
    );
  });

  it('name: equals and string_contains ignore case', async () => {
    const target = contacts[5];
    expect(await searchIds({ field: 'name', operator: 'equals', value: target.name.toLowerCase() })).toEqual([
      target.id,
    ]);
    const first = target.name.split(' ')[0];
    expect(
      await searchIds({ field: 'name', operator: 'string_contains', value: first.toUpperCase() }),
    ).toEqual(idsWhere((c) => c.name.toLowerCase().includes(first.toLowerCase())));
  });

  it('account_id: equals, in, not_in', async () => {
    const account = contacts[0].account.id;
    const inAccount = idsWhere((c) => c.account?.id === account);
    expect(await searchIds({ field: 'account_id', operator: 'equals', value: account })).toEqual(inAccount);
    expect(await searchIds({ field: 'account_id', operator: 'in', values: [account] })).toEqual(inAccount);
    expect(await searchIds({ field: 'account_id', operator: 'not_in', values: [account] })).toEqual(
      idsWhere((c) => c.account?.id !== account),
    );
  });

  it('combines with and/or up to depth 3', async () => {
    const account = contacts[0].account.id;
    const letter = contacts[0].name[0].toLowerCase();
    const filter = {
      operator: 'or',
      subfilters: [
        {
          operator: 'and',
          subfilters: [
            { field: 'account_id', operator: 'equals', value: account },
            { field: 'name', operator: 'string_contains', value: letter },
          ],
        },
        { field: 'id', operator: 'equals', value: contacts[39].id },
      ],
    };
    const expected = idsWhere(
      (c) => (c.account?.id === account && c.name.toLowerCase().includes(letter)) || c.id === contacts[39].id,
    );
    expect(expected.length).toBeGreaterThan(1);
    expect(await searchIds(filter)).toEqual(expected);
  });

  it('pages search results with cursor and limit', async () => {
    const filter = { field: 'email', operator: 'string_contains', value: '.' };
    const first = await search({ filter, limit: 15 });
    expect(first.body.data).toHaveLength(15);
    expect(first.body.pagination.has_next_page).toBe(true);
    const second = await search({ filter, limit: 15, cursor: first.body.pagination.cursor });
    const third = await search({ filter, limit: 15, cursor: second.body.pagination.cursor });
    expect(third.body.data).toHaveLength(10);
    expect(third.body.pagination).toEqual({ cursor: null, has_next_page: false });
    const all = [...first.body.data, ...second.body.data, ...third.body.data].map((c) => c.id);
    expect(new Set(all).size).toBe(40);
  });

  it.each([
    [{}, /filter is required/],
    [{ filter: null }, /filter is required/],
    [{ filter: 'email' }, /filter must be an object/],
    [{ filter: { field: 'email', value: 'x' } }, /filter\.operator is required/],
    [{ filter: { field: 'email', operator: 'like', value: 'x' } }, /unknown operator "like"/],
    [
      { filter: { field: 'phone', operator: 'equals', value: 'x' } },
      /cannot be filtered by "phone"; supported fields: id, email, name, account_id/,
    ],
    [
      { filter: { field: 'name', operator: 'in', values: ['x'] } },
      /"in" is not supported for field "name"; use one of equals, string_contains/,
    ],
    [{ filter: { field: 'id', operator: 'string_contains', value: 'x' } }, /not supported for field "id"/],
    [{ filter: { field: 'email', operator: 'equals' } }, /filter\.value must be a string/],
    [
      { filter: { field: 'email', operator: 'in', value: 'x' } },
      /filter\.values must be an array of strings/,
    ],
    [{ filter: { operator: 'and', subfilters: [] } }, /subfilters must be a non-empty array/],
    [{ filter: { operator: 'or' } }, /subfilters must be a non-empty array/],
    [
      { filter: { operator: 'and', subfilters: [{ field: 'x', operator: 'equals', value: 'y' }] } },
      /filter\.subfilters\[0\]\.field/,
    ],
    [
      { filter: { field: 'email', operator: 'equals', value: 'x', subfilters: [] } },
      /only allowed when operator is "and" or "or"/,
    ],
    [{ filter: { field: 'email', operator: 'equals', value: 'x' }, limit: 0 }, /limit/],
    [{ filter: { field: 'email', operator: 'equals', value: 'x' }, limit: 1000 }, /limit/],
    [{ filter: { field: 'email', operator: 'equals', value: 'x' }, cursor: 'garbage' }, /Invalid cursor/],
  ])('rejects %j with 400', async (body, message) => {
    const res = await search(body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatch(message);
  });

  it('rejects trees deeper than 3 and accepts exactly 3', async () => {
    const leaf = { field: 'email', operator: 'string_contains', value: '@' };
    const depth3 = { operator: 'and', subfilters: [{ operator: 'or', subfilters: [leaf] }] };
    expect((await search({ filter: depth3 })).status).toBe(200);
    const depth4 = { operator: 'and', subfilters: [depth3] };
    const res = await search({ filter: depth4 });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatch(/maximum depth of 3/);
  });
});
