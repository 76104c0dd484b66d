// SCIM 2.0 in the store emulator (`/scim/v2/Users`, `/scim/v2/Groups`): list responses with paging and filters,
// reading, creating, replacing, patching and deleting users and groups — each with its state change in both
// planes, SCIM error bodies for unknown ids, bad bodies, bad filters, bad paths and conflicts, the refusals of
// DeleteScimUser, the token-scope and non-admin refusals, and the caller's organisation bounding what it sees.
// Also the filter evaluator on its own: every operator, and 10,000 users well under 50 ms.
import { beforeEach, describe, expect, it } from 'vitest';
import {
  parseScimFilter,
  parseScimPath,
  ScimFilterError,
} from '../../../../src/services/store/emulator/admin/scimFilter.js';
import { ALL_SCOPES } from '../../../../src/services/store/emulator/auth.js';
import { ADMIN_SEED } from '../../../../src/services/store/emulator/seed/admin.js';
import { call, type Loose, makeEmulator, NOW, type Reply, type TestEmulator } from './helpers.js';

const USER_URI = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_URI = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE_URI = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_URI = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST_URI = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR_URI = 'urn:ietf:params:scim:api:messages:2.0:Error';
const SCIM_SCOPE = 'enterprise.scim.usersAndGroups:manage';

const NO_SCIM = 'pat_owner_without_scim';
const ADA = 'pat_ada_not_admin';
const MARGARET = 'pat_margaret_admin';
const EMILIE = 'pat_emilie_descendant_admin';
const PAT = 'pat_partner_admin';

/** Ids of the seeded planes, read once from a probe emulator (the seed is deterministic). */
function seededIds() {
  const probe = makeEmulator();
  const { state, store } = { state: probe.admin.state, store: probe.store };
  const user = (name: string) => store.schema().users.find((u) => u.name === name)?.id ?? '';
  const group = (name: string) => state.list('group').find((g) => g.name === name)?.id ?? '';
  const ids = {
    owner: user('Sandbox Owner'),
    ada: user('Ada Lovelace'),
    grace: user('Grace Hopper'),
    alan: user('Alan Turing'),
    katherine: user(ADMIN_SEED.users.katherine.name),
    margaret: user(ADMIN_SEED.users.margaret.name),
    bot: user(ADMIN_SEED.users.bot.name),
    emilie: user(ADMIN_SEED.users.europe.name),
    pat: user(ADMIN_SEED.users.partner.name),
    root: state.list('account').find((a) => a.name === ADMIN_SEED.rootAccount)?.id ?? '',
    europe: state.list('account').find((a) => a.name === ADMIN_SEED.descendantAccount)?.id ?? '',
    engineering: group(ADMIN_SEED.groups.engineering),
    support: group(ADMIN_SEED.groups.support),
    euTeam: group(ADMIN_SEED.groups.europe),
    partnerAdmins: group(ADMIN_SEED.groups.partner),
    research: store.schema().workspaces.find((w) => w.name === ADMIN_SEED.workspaces.research)?.id ?? '',
    roadmap: store.schema().bases.find((b) => b.name === 'Product Roadmap')?.id ?? '',
    calendar: store.schema().bases.find((b) => b.name === 'Content Calendar')?.id ?? '',
    dashboard: state.list('interface').find((i) => i.name === 'Roadmap Dashboard')?.id ?? '',
  };
  probe.close();
  for (const [key, value] of Object.entries(ids)) if (!value) throw new Error(`seed has no ${key}`);
  return ids;
}

const ids = seededIds();
const scim = [SCIM_SCOPE];

let emulator: TestEmulator;
beforeEach(() => {
  emulator = makeEmulator({
    tokens: [
      { token: NO_SCIM, scopes: ALL_SCOPES.filter((s) => s !== SCIM_SCOPE) },
      { token: ADA, userId: ids.ada, scopes: scim },
      { token: MARGARET, userId: ids.margaret, scopes: scim },
      { token: EMILIE, userId: ids.emilie, scopes: scim },
      { token: PAT, userId: ids.pat, scopes: scim },
    ],
  });
});

const get = (path: string, token?: string) => call(emulator, 'GET', path, token ? { token } : {});
const send = (method: string, path: string, body: unknown, token?: string) =>
  call(emulator, method, path, { body, ...(token ? { token } : {}) });
const patch = (path: string, operations: unknown[], token?: string) =>
  send('PATCH', path, { schemas: [PATCH_URI], Operations: operations }, token);
const userNames = (reply: Reply) => (reply.body.Resources as Loose[]).map((r) => r.userName);
const state = () => emulator.admin.state;
const storeUser = (id: string) => emulator.store.schema().userById.get(id);

/** A SCIM error body of that status (and scimType, when given); returns its detail. */
function expectScimError(reply: Reply, status: number, scimType?: string): string {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get('content-type')).toContain('application/scim+json');
  expect(reply.body.schemas).toEqual([ERROR_URI]);
  expect(reply.body.status).toBe(String(status));
  if (scimType) expect(reply.body.scimType).toBe(scimType);
  expect(typeof reply.body.detail).toBe('string');
  return reply.body.detail as string;
}

const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER_URI],
  userName,
  name: { givenName: 'Mary', familyName: 'Jackson' },
  ...extra,
});

describe('who may call', () => {
  it('needs a token (401), the SCIM scope (403) and an enterprise admin (403) for every endpoint', async () => {
    const endpoints: [string, string][] = [
      ['GET', '/scim/v2/Users'],
      ['POST', '/scim/v2/Users'],
      ['GET', `/scim/v2/Users/${ids.ada}`],
      ['PUT', `/scim/v2/Users/${ids.ada}`],
      ['PATCH', `/scim/v2/Users/${ids.ada}`],
      ['DELETE', `/scim/v2/Users/${ids.ada}`],
      ['GET', '/scim/v2/Groups'],
      ['POST', '/scim/v2/Groups'],
      ['GET', `/scim/v2/Groups/${ids.support}`],
      ['PUT', `/scim/v2/Groups/${ids.support}`],
      ['PATCH', `/scim/v2/Groups/${ids.support}`],
      ['DELETE', `/scim/v2/Groups/${ids.support}`],
    ];
    for (const [method, path] of endpoints) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const none = await call(emulator, method, path, { token: null, body });
      expect(none.status, `${method} ${path}`).toBe(401);
      const noScope = await call(emulator, method, path, { token: NO_SCIM, body });
      expect(noScope.status, `${method} ${path}`).toBe(403);
      expect(noScope.body.error.type).toBe('INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND');
      const notAdmin = await call(emulator, method, path, { token: ADA, body });
      expect(notAdmin.status, `${method} ${path}`).toBe(403);
    }
    // Nothing changed.
    expect(storeUser(ids.ada)).toBeDefined();
    expect(state().get('group', ids.support)).toBeDefined();
  });

  it("a descendant's admin sees its own account only; another organisation's admin sees its own", async () => {
    const europe = await get('/scim/v2/Users', EMILIE);
    expect(userNames(europe)).toEqual([ADMIN_SEED.users.europe.email]);
    expect((await get('/scim/v2/Groups', EMILIE)).body.Resources.map((g: Loose) => g.id)).toEqual([
      ids.euTeam,
    ]);
    expectScimError(await get(`/scim/v2/Users/${ids.owner}`, EMILIE), 404);
    expectScimError(await get(`/scim/v2/Groups/${ids.engineering}`, EMILIE), 404);
    expect(userNames(await get('/scim/v2/Users', PAT))).toEqual([ADMIN_SEED.users.partner.email]);
    expectScimError(await send('DELETE', `/scim/v2/Users/${ids.ada}`, undefined, PAT), 404);
    expect(storeUser(ids.ada)).toBeDefined();
  });
});

describe('GET /scim/v2/Users', () => {
  it("lists the organisation's users as a ListResponse of SCIM users", async () => {
    const reply = await get('/scim/v2/Users');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/scim+json');
    expect(reply.body.schemas).toEqual([LIST_URI]);
    // The root's users and its descendant's; not Partner Co's Pat.
    expect(reply.body.totalResults).toBe(8);
    expect(reply.body.startIndex).toBe(1);
    expect(reply.body.itemsPerPage).toBe(8);
    const resources = reply.body.Resources as Loose[];
    expect(resources.map((r) => r.id)).not.toContain(ids.pat);
    expect(resources.map((r) => r.id)).toContain(ids.emilie);
    const ada = resources.find((r) => r.id === ids.ada);
    expect(ada).toMatchObject({
      schemas: [USER_URI],
      id: ids.ada,
      userName: 'ada@sandbox.example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      active: true,
      emails: [{ value: 'ada@sandbox.example.com', type: 'work', primary: true }],
      meta: { resourceType: 'User', location: `/scim/v2/Users/${ids.ada}` },
    });
    expect(Date.parse(ada.meta.created)).not.toBeNaN();
    expect(ada.groups).toEqual([
      { value: ids.engineering, display: 'Engineering', $ref: `/scim/v2/Groups/${ids.engineering}` },
    ]);
    expect(resources.find((r) => r.id === ids.katherine).active).toBe(false);
    expect(resources.find((r) => r.id === ids.grace).externalId).toBe('E-1002');
    expect(resources.find((r) => r.id === ids.margaret).title).toBe('IT lead');
  });

  it('shows changes made since the last list (users, their groups, group names)', async () => {
    const find = async (id: string) =>
      ((await get('/scim/v2/Users')).body.Resources as Loose[]).find((r) => r.id === id);
    expect((await find(ids.alan)).groups.map((g: Loose) => g.display)).toEqual(['Support']);
    await patch(`/scim/v2/Users/${ids.alan}`, [{ op: 'replace', path: 'title', value: 'Mathematician' }]);
    expect((await find(ids.alan)).title).toBe('Mathematician');
    await patch(`/scim/v2/Groups/${ids.support}`, [
      { op: 'replace', path: 'displayName', value: 'Helpdesk' },
    ]);
    expect((await find(ids.alan)).groups.map((g: Loose) => g.display)).toEqual(['Helpdesk']);
    await patch(`/scim/v2/Groups/${ids.engineering}`, [
      { op: 'add', path: 'members', value: [{ value: ids.alan }] },
    ]);
    expect((await find(ids.alan)).groups.map((g: Loose) => g.display)).toEqual(['Engineering', 'Helpdesk']);
    // A change made outside SCIM (the data plane renaming the user) shows too.
    emulator.store.updateUser({ id: ids.alan, email: 'alan.t@sandbox.example.com', name: 'Alan Turing' });
    expect((await find(ids.alan)).userName).toBe('alan.t@sandbox.example.com');
  });

  it('pages with 1-based startIndex and count, and refuses counts that are not non-negative integers', async () => {
    const all = (await get('/scim/v2/Users')).body.Resources.map((r: Loose) => r.id);
    const page = await get('/scim/v2/Users?startIndex=2&count=3');
    expect(page.body).toMatchObject({ totalResults: 8, startIndex: 2, itemsPerPage: 3 });
    expect(page.body.Resources.map((r: Loose) => r.id)).toEqual(all.slice(1, 4));
    const tail = await get('/scim/v2/Users?startIndex=7&count=5');
    expect(tail.body.Resources.map((r: Loose) => r.id)).toEqual(all.slice(6));
    expect((await get('/scim/v2/Users?count=0')).body).toMatchObject({ totalResults: 8, itemsPerPage: 0 });
    expect((await get('/scim/v2/Users?startIndex=50')).body).toMatchObject({
      totalResults: 8,
      itemsPerPage: 0,
    });
    // startIndex below 1 reads as 1 (RFC 7644 §3.4.2.4).
    expect((await get('/scim/v2/Users?startIndex=0&count=1')).body.Resources[0].id).toBe(all[0]);
    expect(expectScimError(await get('/scim/v2/Users?count=-1'), 400, 'invalidValue')).toMatch(/count/);
    expect(expectScimError(await get('/scim/v2/Users?startIndex=two'), 400, 'invalidValue')).toMatch(
      /startIndex/,
    );
    expectScimError(await get('/scim/v2/Users?count=1.5'), 400, 'invalidValue');
  });

  it('filters with every operator, and/or/not, parentheses and value paths, case-insensitively where RFC 7643 says', async () => {
    const cases: [string, string[]][] = [
      ['userName eq "ADA@sandbox.example.com"', ['ada@sandbox.example.com']],
      ['userName EQ "alan@sandbox.example.com"', ['alan@sandbox.example.com']],
      [`${USER_URI}:userName eq "grace@sandbox.example.com"`, ['grace@sandbox.example.com']],
      ['emails co "@EU.sandbox"', [ADMIN_SEED.users.europe.email]],
      ['emails.value sw "sync-"', [ADMIN_SEED.users.bot.email]],
      ['emails.value ew "@sandbox.example.com" and active eq false', [ADMIN_SEED.users.katherine.email]],
      ['name.familyName eq "hopper" or externalId eq "E-1002"', ['grace@sandbox.example.com']],
      // externalId is case exact.
      ['externalId eq "e-1002"', []],
      ['not (active eq true)', [ADMIN_SEED.users.katherine.email]],
      ['active ne true', [ADMIN_SEED.users.katherine.email]],
      ['title pr', [ADMIN_SEED.users.margaret.email]],
      ['externalId pr', ['grace@sandbox.example.com']],
      [
        '(userName sw "a" or userName sw "g") and not (name.givenName eq "Alan")',
        ['ada@sandbox.example.com', 'grace@sandbox.example.com'],
      ],
      ['emails[type eq "work" and value sw "mar"]', [ADMIN_SEED.users.margaret.email]],
      [`id eq "${ids.alan}"`, ['alan@sandbox.example.com']],
      [
        'groups.display eq "engineering"',
        ['owner@sandbox.example.com', 'ada@sandbox.example.com', 'grace@sandbox.example.com'],
      ],
      ['userName gt "s" and userName lt "t"', [ADMIN_SEED.users.bot.email]],
      ['meta.created gt "2100-01-01T00:00:00Z"', []],
      [
        `meta.created le "${NOW}"`,
        (await get('/scim/v2/Users')).body.Resources.map((r: Loose) => r.userName),
      ],
    ];
    for (const [filter, expected] of cases) {
      const reply = await get(`/scim/v2/Users?filter=${encodeURIComponent(filter)}`);
      expect(reply.status, `${filter}: ${reply.text}`).toBe(200);
      expect(userNames(reply), filter).toEqual(expected);
      expect(reply.body.totalResults, filter).toBe(expected.length);
    }
    // Filtering happens before paging: totalResults counts the matches.
    const paged = await get(`/scim/v2/Users?filter=${encodeURIComponent('userName co "a"')}&count=1`);
    expect(paged.body.itemsPerPage).toBe(1);
    expect(paged.body.totalResults).toBeGreaterThan(1);
  });

  it('refuses unparsable filters and unknown attributes with 400 invalidFilter naming the problem', async () => {
    const cases: [string, RegExp][] = [
      ['userName eq', /Expected a value/],
      ['userName eq ada@sandbox.example.com', /double-quoted/],
      ['nickname2 eq "x"', /not an attribute of a SCIM User/],
      ['userName xx "a"', /Expected an operator/],
      ['userName eq "a" and', /Expected an attribute/],
      ['(userName eq "a"', /closing "\)"/],
      ['userName eq "a")', /Unexpected text/],
      ['active eq "true"', /boolean/],
      ['name eq "Ada"', /complex/],
      ['emails[type eq "work"', /closing "\]"/],
      ['userName eq "unterminated', /no closing double quote/],
      ['password eq "x"', /cannot be used in a filter/],
      ['not active eq true', /parenthesised/],
      ['', /empty/],
    ];
    for (const [filter, detail] of cases) {
      const reply = await get(`/scim/v2/Users?filter=${encodeURIComponent(filter)}`);
      expect(expectScimError(reply, 400, 'invalidFilter'), filter).toMatch(detail);
    }
  });

  it('honours attributes and excludedAttributes', async () => {
    const only = await get(
      `/scim/v2/Users?attributes=userName,name.givenName&filter=${encodeURIComponent('userName sw "ada"')}`,
    );
    expect(only.body.Resources).toEqual([
      { schemas: [USER_URI], id: ids.ada, userName: 'ada@sandbox.example.com', name: { givenName: 'Ada' } },
    ]);
    const without = await get(`/scim/v2/Users/${ids.ada}?excludedAttributes=emails,groups,meta`);
    expect(without.body.emails).toBeUndefined();
    expect(without.body.groups).toBeUndefined();
    expect(without.body.meta).toBeUndefined();
    expect(without.body.userName).toBe('ada@sandbox.example.com');
    expectScimError(await get('/scim/v2/Users?attributes=shoeSize'), 400, 'invalidValue');
  });
});

describe('SCIM filters on their own', () => {
  const user = (i: number) => ({
    schemas: [USER_URI],
    id: `usr${i}`,
    userName: `user${String(i).padStart(5, '0')}@sandbox.example.com`,
    name: { givenName: `User${i}`, familyName: ['Smith', 'Jones', 'Chen'][i % 3] },
    active: i % 10 !== 0,
    externalId: `X-${i}`,
    emails: [{ value: `user${i}@sandbox.example.com`, type: 'work', primary: true }],
    meta: { resourceType: 'User', created: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString() },
  });

  // Correctness over a large population; the time it takes is measured by `npm run bench`, never asserted here.
  it('evaluates a parsed filter over 10,000 users', () => {
    const users = Array.from({ length: 10_000 }, (_, i) => user(i + 1));
    const filters: [string, number][] = [
      ['userName sw "user01"', 1000],
      [
        'emails co "99" and active eq true',
        users.filter((u) => u.emails[0]!.value.includes('99') && u.active).length,
      ],
      // X-5000 is a Chen too; X-5001 is not.
      ['name.familyName eq "chen" or externalId eq "X-5001"', 3334],
      ['not (active eq true) and (emails[type eq "work" and value ew "0@sandbox.example.com"])', 1000],
    ];
    for (const [text, expected] of filters) {
      const filter = parseScimFilter(text, 'User');
      let matched = 0;
      for (const u of users) if (filter.matches(u)) matched++;
      expect(matched, text).toBe(expected);
    }
  });

  it('compares dates as instants, and `ne` and `pr` on missing values', () => {
    const u = user(1);
    const at = (text: string) => parseScimFilter(text, 'User').matches(u);
    expect(at(`meta.created eq "${u.meta.created.replace('.000Z', 'Z')}"`)).toBe(true);
    expect(at('meta.created lt "2024-01-01T00:02:00+00:00"')).toBe(true);
    expect(at('meta.created ge "2024-01-02T00:00:00Z"')).toBe(false);
    expect(at('title ne "Engineer"')).toBe(true);
    expect(at('title pr')).toBe(false);
    expect(at('title eq null')).toBe(true);
    // `and` binds tighter than `or`.
    expect(at('userName eq "nobody" or active eq true and title pr')).toBe(false);
    expect(at('(userName eq "nobody" or active eq true) and externalId pr')).toBe(true);
    expect(() => parseScimFilter('meta.created gt "yesterday"', 'User')).toThrow(/date and time/);
    expect(() => parseScimFilter('members eq "usr1"', 'User')).toThrow(ScimFilterError);
    expect(parseScimFilter('members eq "usr1"', 'Group').matches({ members: [{ value: 'usr1' }] })).toBe(
      true,
    );
    // Member ids are case exact.
    expect(
      parseScimFilter('members.value eq "USR1"', 'Group').matches({ members: [{ value: 'usr1' }] }),
    ).toBe(false);
    expect(
      parseScimFilter(`${ENTERPRISE_URI}:department eq "research"`, 'User').matches({
        [ENTERPRISE_URI]: { department: 'Research' },
      }),
    ).toBe(true);
  });

  it('parses PATCH paths, with filters and sub-attributes', () => {
    const path = parseScimPath('emails[type eq "work"].value', 'User');
    expect(path.attribute.name).toBe('emails');
    expect(path.sub?.name).toBe('value');
    expect(path.equality).toEqual({ sub: 'type', value: 'work' });
    expect(path.filter?.({ type: 'WORK' })).toBe(true);
    expect(parseScimPath('NAME.GIVENNAME', 'User').sub?.name).toBe('givenName');
    expect(parseScimPath(`${ENTERPRISE_URI}:manager.value`, 'User').container).toBe(ENTERPRISE_URI);
    expect(() => parseScimPath('emails[type eq "work"', 'User')).toThrow(/closing/);
    try {
      parseScimPath('shoeSize', 'User');
      expect.unreachable();
    } catch (error) {
      expect((error as ScimFilterError).scimType).toBe('invalidPath');
    }
  });
});

describe('GET /scim/v2/Users/{id}', () => {
  it('returns one user; unknown ids and users of other organisations are a SCIM 404', async () => {
    const reply = await get(`/scim/v2/Users/${ids.grace}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/scim+json');
    expect(reply.body).toMatchObject({
      id: ids.grace,
      userName: 'grace@sandbox.example.com',
      externalId: 'E-1002',
    });
    expect(expectScimError(await get('/scim/v2/Users/usrNope0000000000'), 404)).toContain(
      'usrNope0000000000',
    );
    expectScimError(await get(`/scim/v2/Users/${ids.pat}`), 404);
  });
});

describe('POST /scim/v2/Users', () => {
  it('creates an active managed user in the caller account, with its SCIM attributes', async () => {
    const reply = await send(
      'POST',
      '/scim/v2/Users',
      newUser('mary@sandbox.example.com', {
        schemas: [USER_URI, ENTERPRISE_URI],
        externalId: 'okta-123',
        title: 'Engineer',
        emails: [
          { value: 'mary@sandbox.example.com', type: 'work', primary: true },
          { value: 'm@home.example', type: 'home' },
        ],
        [ENTERPRISE_URI]: { department: 'Research', employeeNumber: '42', costCenter: null },
        password: 'never stored',
      }),
    );
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toContain('application/scim+json');
    const id = reply.body.id as string;
    expect(id).toMatch(/^usr/);
    expect(reply.headers.get('location')).toBe(`/scim/v2/Users/${id}`);
    expect(reply.body).toMatchObject({
      schemas: [USER_URI, ENTERPRISE_URI],
      userName: 'mary@sandbox.example.com',
      name: { givenName: 'Mary', familyName: 'Jackson' },
      active: true,
      externalId: 'okta-123',
      title: 'Engineer',
      [ENTERPRISE_URI]: { department: 'Research', employeeNumber: '42' },
      meta: { resourceType: 'User', created: NOW, lastModified: NOW, location: `/scim/v2/Users/${id}` },
    });
    expect(reply.body.emails).toHaveLength(2);
    expect(reply.body.password).toBeUndefined();
    expect(reply.body[ENTERPRISE_URI].costCenter).toBeUndefined();
    expect(storeUser(id)).toEqual({ id, email: 'mary@sandbox.example.com', name: 'Mary Jackson' });
    const profile = state().profile(id)!;
    expect(profile).toMatchObject({
      enterpriseAccountId: ids.root,
      firstName: 'Mary',
      lastName: 'Jackson',
      state: 'provisioned',
      isManaged: true,
      isAdmin: false,
      createdTime: NOW,
    });
    expect(profile.scim).toMatchObject({ externalId: 'okta-123', title: 'Engineer' });
    expect(JSON.stringify(profile)).not.toContain('never stored');
    // Listed and readable, and audited as a SCIM creation.
    expect(
      userNames(await get(`/scim/v2/Users?filter=${encodeURIComponent('externalId eq "okta-123"')}`)),
    ).toEqual(['mary@sandbox.example.com']);
    const events = emulator.admin.collection('audit_events') as Loose[];
    expect(events.some((e) => e.action === 'scimCreateUser' && e.model_id === id)).toBe(true);
  });

  it('accepts application/scim+json, refuses other content types (415), and a descendant admin creates in its account', async () => {
    const scimType = await call(emulator, 'POST', '/scim/v2/Users', {
      body: newUser('nina@eu.sandbox.example.com'),
      headers: { 'content-type': 'application/scim+json; charset=utf-8' },
      token: EMILIE,
    });
    expect(scimType.status, scimType.text).toBe(201);
    expect(state().profile(scimType.body.id)?.enterpriseAccountId).toBe(ids.europe);
    // The domain requires SSO, and the new user says so.
    expect(state().profile(scimType.body.id)?.isSsoRequired).toBe(true);
    const text = await call(emulator, 'POST', '/scim/v2/Users', {
      body: newUser('otto@sandbox.example.com'),
      headers: { 'content-type': 'text/plain' },
    });
    expect(expectScimError(text, 415)).toMatch(/application\/scim\+json/);
    expect(emulator.store.schema().userByEmail.get('otto@sandbox.example.com')).toBeUndefined();
  });

  it('refuses a userName already taken (409 uniqueness) or outside the enterprise domains (400)', async () => {
    const taken = await send('POST', '/scim/v2/Users', newUser('ADA@sandbox.example.com'));
    expect(expectScimError(taken, 409, 'uniqueness')).toContain(ids.ada);
    // Someone else's organisation's user is taken too.
    expectScimError(
      await send('POST', '/scim/v2/Users', newUser(ADMIN_SEED.users.partner.email)),
      409,
      'uniqueness',
    );
    const outside = await send('POST', '/scim/v2/Users', newUser('mary@gmail.example'));
    expect(expectScimError(outside, 400, 'invalidValue')).toMatch(/sandbox\.example\.com/);
    expect(emulator.store.schema().users).toHaveLength(9);
  });

  it('turns body validation failures into SCIM 400s with the detail', async () => {
    const noSchemas = await send('POST', '/scim/v2/Users', { userName: 'mary@sandbox.example.com' });
    expect(expectScimError(noSchemas, 400, 'invalidSyntax')).toMatch(/schemas/);
    const unknownMember = await send(
      'POST',
      '/scim/v2/Users',
      newUser('mary@sandbox.example.com', { shoeSize: 9 }),
    );
    expect(expectScimError(unknownMember, 400, 'invalidSyntax')).toMatch(/shoeSize/);
    const badEmail = await send('POST', '/scim/v2/Users', newUser('not-an-email'));
    expect(expectScimError(badEmail, 400, 'invalidValue')).toMatch(/userName/);
    const badActive = await send(
      'POST',
      '/scim/v2/Users',
      newUser('mary@sandbox.example.com', { active: 'yes' }),
    );
    expect(expectScimError(badActive, 400, 'invalidValue')).toMatch(/active/);
    const notJson = await call(emulator, 'POST', '/scim/v2/Users', { rawBody: '{"userName":' });
    expectScimError(notJson, 400, 'invalidSyntax');
    expectScimError(await call(emulator, 'POST', '/scim/v2/Users', {}), 400, 'invalidSyntax');
    expect(emulator.store.schema().users).toHaveLength(9);
  });
});

describe('PUT /scim/v2/Users/{id}', () => {
  it("replaces the user's attributes; active left out keeps the state", async () => {
    const reply = await send('PUT', `/scim/v2/Users/${ids.margaret}`, {
      schemas: [USER_URI],
      userName: 'margaret.h@sandbox.example.com',
      name: { givenName: 'Maggie', familyName: 'Hamilton' },
      externalId: 'okta-9',
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      id: ids.margaret,
      userName: 'margaret.h@sandbox.example.com',
      name: { givenName: 'Maggie', familyName: 'Hamilton' },
      active: true,
      externalId: 'okta-9',
      emails: [{ value: 'margaret.h@sandbox.example.com', type: 'work', primary: true }],
    });
    // The title was left out of the replacement: gone.
    expect(reply.body.title).toBeUndefined();
    expect(storeUser(ids.margaret)).toMatchObject({
      email: 'margaret.h@sandbox.example.com',
      name: 'Maggie Hamilton',
    });
    expect(state().profile(ids.margaret)).toMatchObject({
      firstName: 'Maggie',
      state: 'provisioned',
      isAdmin: true,
    });
    expect(state().profile(ids.margaret)?.scim.title).toBeUndefined();
  });

  it('active false deactivates and true reactivates', async () => {
    const off = await send(
      'PUT',
      `/scim/v2/Users/${ids.ada}`,
      newUser('ada@sandbox.example.com', { active: false }),
    );
    expect(off.body.active).toBe(false);
    expect(state().profile(ids.ada)?.state).toBe('deactivated');
    // A deactivated user inherits nothing (the Engineering group's read on the roadmap).
    expect(state().inheritedPermission(ids.roadmap, ids.ada)).toBe('none');
    const on = await send(
      'PUT',
      `/scim/v2/Users/${ids.katherine}`,
      newUser(ADMIN_SEED.users.katherine.email, { active: true }),
    );
    expect(on.body.active).toBe(true);
    expect(state().profile(ids.katherine)?.state).toBe('provisioned');
  });

  it('refuses an unknown id (404), a taken userName (409) and an invalid body (400)', async () => {
    expectScimError(
      await send('PUT', '/scim/v2/Users/usrNope0000000000', newUser('x@sandbox.example.com')),
      404,
    );
    const taken = await send('PUT', `/scim/v2/Users/${ids.ada}`, newUser('grace@sandbox.example.com'));
    expectScimError(taken, 409, 'uniqueness');
    expect(storeUser(ids.ada)?.email).toBe('ada@sandbox.example.com');
    expectScimError(
      await send('PUT', `/scim/v2/Users/${ids.ada}`, { schemas: [USER_URI] }),
      400,
      'invalidValue',
    );
  });

  it('refuses to deactivate the admin whose token is used', async () => {
    const reply = await send(
      'PUT',
      `/scim/v2/Users/${ids.owner}`,
      newUser('owner@sandbox.example.com', { active: false }),
    );
    expect(expectScimError(reply, 400, 'invalidValue')).toMatch(/token/);
    expect(state().profile(ids.owner)?.state).toBe('provisioned');
  });
});

describe('PATCH /scim/v2/Users/{id}', () => {
  it('applies add, replace and remove operations in order', async () => {
    const reply = await patch(`/scim/v2/Users/${ids.margaret}`, [
      { op: 'replace', path: 'name.givenName', value: 'Maggie' },
      { op: 'replace', path: 'userName', value: 'maggie@sandbox.example.com' },
      { op: 'remove', path: 'title' },
      { op: 'add', path: 'externalId', value: 'okta-7' },
      { op: 'replace', path: 'emails[type eq "work"].value', value: 'maggie@sandbox.example.com' },
      { op: 'add', path: 'emails[type eq "home"].value', value: 'maggie@home.example' },
      { op: 'add', path: `${ENTERPRISE_URI}:department`, value: 'IT' },
      { op: 'replace', path: 'NAME.familyName', value: 'H.' },
      { op: 'replace', path: 'externalId', value: 'okta-8' },
    ]);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      userName: 'maggie@sandbox.example.com',
      name: { givenName: 'Maggie', familyName: 'H.' },
      externalId: 'okta-8',
      emails: [
        { value: 'maggie@sandbox.example.com', type: 'work', primary: true },
        { value: 'maggie@home.example', type: 'home' },
      ],
      [ENTERPRISE_URI]: { department: 'IT' },
    });
    expect(reply.body.schemas).toContain(ENTERPRISE_URI);
    expect(reply.body.title).toBeUndefined();
    expect(storeUser(ids.margaret)).toMatchObject({ email: 'maggie@sandbox.example.com', name: 'Maggie H.' });
    expect(state().profile(ids.margaret)).toMatchObject({ firstName: 'Maggie', lastName: 'H.' });
    expect(state().profile(ids.margaret)?.scim).toMatchObject({ externalId: 'okta-8' });
    // Removing the home email by filter leaves the work one.
    const removed = await patch(`/scim/v2/Users/${ids.margaret}`, [
      { op: 'remove', path: 'emails[type eq "home"]' },
    ]);
    expect(removed.body.emails).toEqual([
      { value: 'maggie@sandbox.example.com', type: 'work', primary: true },
    ]);
  });

  it('active false deactivates, true reactivates (strings from Azure AD too)', async () => {
    const off = await patch(`/scim/v2/Users/${ids.ada}`, [{ op: 'replace', path: 'active', value: false }]);
    expect(off.body.active).toBe(false);
    expect(state().profile(ids.ada)?.state).toBe('deactivated');
    const on = await patch(`/scim/v2/Users/${ids.ada}`, [{ op: 'replace', path: 'active', value: 'True' }]);
    expect(on.body.active).toBe(true);
    expect(state().profile(ids.ada)?.state).toBe('provisioned');
  });

  it('refuses paths it cannot apply (400 invalidPath, mutability, noTarget) and changes nothing', async () => {
    const before = structuredClone(state().profile(ids.grace));
    const cases: [unknown[], string, RegExp][] = [
      [[{ op: 'replace', path: 'shoeSize', value: 9 }], 'invalidPath', /shoeSize/],
      [[{ op: 'replace', path: 'name.nickname', value: 'x' }], 'invalidPath', /sub-attribute of name/],
      [[{ op: 'replace', path: 'emails[type eq "work"', value: 'x' }], 'invalidPath', /closing/],
      [[{ op: 'replace', path: 'emails.value', value: 'x@sandbox.example.com' }], 'invalidPath', /filter/],
      [[{ op: 'add', path: 'groups', value: [{ value: ids.support }] }], 'mutability', /read-only/],
      [[{ op: 'replace', path: 'id', value: 'usrOther' }], 'mutability', /read-only/],
      [
        [{ op: 'replace', path: 'phoneNumbers[type eq "work" and primary eq true].value', value: '+1' }],
        'noTarget',
        /matches no value/,
      ],
      [[{ op: 'remove', path: 'userName' }], 'invalidValue', /userName is required/],
      [[{ op: 'remove', path: 'active' }], 'invalidValue', /active/],
      [[{ op: 'replace', path: 'active', value: 'maybe' }], 'invalidValue', /active/],
      // A good operation before a bad one does not apply either.
      [
        [
          { op: 'replace', path: 'name.givenName', value: 'Changed' },
          { op: 'replace', path: 'nope', value: 1 },
        ],
        'invalidPath',
        /nope/,
      ],
    ];
    for (const [operations, scimType, detail] of cases) {
      const reply = await patch(`/scim/v2/Users/${ids.grace}`, operations);
      expect(expectScimError(reply, 400, scimType), JSON.stringify(operations)).toMatch(detail);
    }
    expect(state().profile(ids.grace)).toEqual(before);
    expect(storeUser(ids.grace)?.email).toBe('grace@sandbox.example.com');
  });

  it('refuses an invalid body, an unknown id, a taken userName and deactivating the caller', async () => {
    const badOp = await patch(`/scim/v2/Users/${ids.ada}`, [{ op: 'Replace', path: 'active', value: false }]);
    expect(expectScimError(badOp, 400, 'invalidValue')).toMatch(/Operations\[0\]\.op/);
    const noSchemas = await send('PATCH', `/scim/v2/Users/${ids.ada}`, {
      Operations: [{ op: 'remove', path: 'title' }],
    });
    expectScimError(noSchemas, 400, 'invalidSyntax');
    expectScimError(await patch('/scim/v2/Users/usrNope0000000000', [{ op: 'remove', path: 'title' }]), 404);
    const taken = await patch(`/scim/v2/Users/${ids.ada}`, [
      { op: 'replace', path: 'userName', value: 'Alan@sandbox.example.com' },
    ]);
    expectScimError(taken, 409, 'uniqueness');
    const self = await patch(
      `/scim/v2/Users/${ids.margaret}`,
      [{ op: 'replace', path: 'active', value: false }],
      MARGARET,
    );
    expect(expectScimError(self, 400, 'invalidValue')).toMatch(/token/);
    expect(state().profile(ids.margaret)?.state).toBe('provisioned');
  });
});

describe('DELETE /scim/v2/Users/{id}', () => {
  it('deletes the user everywhere and answers 204', async () => {
    expect(emulator.store.directPermissionOf(ids.roadmap, ids.ada)).not.toBe('none');
    const reply = await call(emulator, 'DELETE', `/scim/v2/Users/${ids.ada}`);
    expect(reply.status, reply.text).toBe(204);
    expect(reply.text).toBe('');
    expect(storeUser(ids.ada)).toBeUndefined();
    expect(state().profile(ids.ada)).toBeUndefined();
    expect(
      state()
        .get('group', ids.engineering)
        ?.members.map((m) => m.userId),
    ).not.toContain(ids.ada);
    expect(emulator.store.directPermissionOf(ids.roadmap, ids.ada)).toBe('none');
    expectScimError(await get(`/scim/v2/Users/${ids.ada}`), 404);
    expectScimError(await call(emulator, 'DELETE', `/scim/v2/Users/${ids.ada}`), 404);
  });

  it('refuses the admin whose token is used', async () => {
    const reply = await call(emulator, 'DELETE', `/scim/v2/Users/${ids.margaret}`, { token: MARGARET });
    // delete-scim-user documents this refusal: 422 with this detail.
    expect(expectScimError(reply, 422)).toBe('Cannot perform deletion operation on own account');
    expect(storeUser(ids.margaret)).toBeDefined();
    // Another admin may.
    expect((await call(emulator, 'DELETE', `/scim/v2/Users/${ids.margaret}`)).status).toBe(204);
  });

  it('refuses the sole owner of a workspace with other collaborators until someone else owns it', async () => {
    const refused = await call(emulator, 'DELETE', `/scim/v2/Users/${ids.grace}`);
    expect(expectScimError(refused, 422)).toBe(
      'Cannot delete the sole owner of a workspace containing multiple collaborators',
    );
    expect(storeUser(ids.grace)).toBeDefined();
    state().update('workspace', ids.research, (w) => {
      w.users[ids.alan] = { permissionLevel: 'owner', createdTime: NOW, grantedByUserId: ids.grace };
    });
    expect((await call(emulator, 'DELETE', `/scim/v2/Users/${ids.grace}`)).status).toBe(204);
    expect(state().workspaceAdmin(ids.research)?.users[ids.grace]).toBeUndefined();
    expect(storeUser(ids.grace)).toBeUndefined();
  });
});

describe('GET /scim/v2/Groups', () => {
  it("lists the organisation's groups with their members", async () => {
    const reply = await get('/scim/v2/Groups');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/scim+json');
    expect(reply.body).toMatchObject({
      schemas: [LIST_URI],
      totalResults: 3,
      startIndex: 1,
      itemsPerPage: 3,
    });
    const groups = reply.body.Resources as Loose[];
    expect(groups.map((g) => g.displayName)).toEqual(['Engineering', 'Support', 'EU Team']);
    const support = groups[1];
    expect(support).toMatchObject({
      schemas: [GROUP_URI],
      id: ids.support,
      displayName: 'Support',
      members: [{ value: ids.alan, display: 'Alan Turing' }],
      meta: { resourceType: 'Group', location: `/scim/v2/Groups/${ids.support}` },
    });
    expect(Date.parse(support.meta.created)).not.toBeNaN();
    expect(Date.parse(support.meta.lastModified)).not.toBeNaN();
  });

  it('filters, pages with count, and refuses bad filters', async () => {
    const names = async (filter: string) =>
      (await get(`/scim/v2/Groups?filter=${encodeURIComponent(filter)}`)).body.Resources.map(
        (g: Loose) => g.displayName,
      );
    expect(await names('displayName eq "engineering"')).toEqual(['Engineering']);
    expect(await names(`members[value eq "${ids.alan}"]`)).toEqual(['Support']);
    expect(await names(`members eq "${ids.ada}"`)).toEqual(['Engineering']);
    expect(await names('displayName sw "e" and not (displayName co "team")')).toEqual(['Engineering']);
    expect(await names(`id eq "${ids.partnerAdmins}"`)).toEqual([]);
    const one = await get('/scim/v2/Groups?count=1');
    expect(one.body).toMatchObject({ totalResults: 3, itemsPerPage: 1 });
    expect(
      expectScimError(
        await get(`/scim/v2/Groups?filter=${encodeURIComponent('userName eq "x"')}`),
        400,
        'invalidFilter',
      ),
    ).toMatch(/not an attribute of a SCIM Group/);
    expectScimError(await get('/scim/v2/Groups?count=many'), 400, 'invalidValue');
  });
});

describe('POST /scim/v2/Groups', () => {
  it('creates an empty group in the caller account', async () => {
    const reply = await send('POST', '/scim/v2/Groups', { schemas: [GROUP_URI], displayName: 'Design' });
    expect(reply.status, reply.text).toBe(201);
    const id = reply.body.id as string;
    expect(id).toMatch(/^ugp/);
    expect(reply.headers.get('location')).toBe(`/scim/v2/Groups/${id}`);
    expect(reply.body).toMatchObject({
      schemas: [GROUP_URI],
      displayName: 'Design',
      members: [],
      meta: { resourceType: 'Group', created: NOW, lastModified: NOW, location: `/scim/v2/Groups/${id}` },
    });
    expect(state().get('group', id)).toMatchObject({
      name: 'Design',
      enterpriseAccountId: ids.root,
      members: [],
    });
  });

  it('refuses a name in use (409), members in the body and a missing name (400)', async () => {
    const taken = await send('POST', '/scim/v2/Groups', { schemas: [GROUP_URI], displayName: 'engineering' });
    expect(expectScimError(taken, 409, 'uniqueness')).toContain(ids.engineering);
    const members = await send('POST', '/scim/v2/Groups', {
      schemas: [GROUP_URI],
      displayName: 'Design',
      members: [{ value: ids.ada }],
    });
    expect(expectScimError(members, 400, 'invalidSyntax')).toMatch(/members/);
    const noName = await send('POST', '/scim/v2/Groups', { schemas: [GROUP_URI] });
    expect(expectScimError(noName, 400, 'invalidValue')).toMatch(/displayName/);
    expect(state().list('group')).toHaveLength(4);
    // Another organisation may use the same name.
    expect(
      (await send('POST', '/scim/v2/Groups', { schemas: [GROUP_URI], displayName: 'Engineering' }, PAT))
        .status,
    ).toBe(201);
  });
});

describe('GET /scim/v2/Groups/{id}', () => {
  it('returns one group; unknown and foreign ids are a SCIM 404; excludedAttributes=members drops them', async () => {
    const reply = await get(`/scim/v2/Groups/${ids.engineering}`);
    expect(reply.status).toBe(200);
    expect(reply.body.members.map((m: Loose) => m.value)).toEqual([ids.owner, ids.ada, ids.grace]);
    const lean = await get(`/scim/v2/Groups/${ids.engineering}?excludedAttributes=members`);
    expect(lean.body.members).toBeUndefined();
    expect(lean.body.displayName).toBe('Engineering');
    expect(expectScimError(await get('/scim/v2/Groups/ugpNope0000000000'), 404)).toContain(
      'ugpNope0000000000',
    );
    expectScimError(await get(`/scim/v2/Groups/${ids.partnerAdmins}`), 404);
  });
});

describe('PATCH /scim/v2/Groups/{id}', () => {
  it('adds and removes members and renames, in order, keeping existing members as they were', async () => {
    const reply = await patch(`/scim/v2/Groups/${ids.engineering}`, [
      {
        op: 'add',
        path: 'members',
        value: [{ value: ids.alan }, { value: ids.margaret }, { value: ids.ada }],
      },
      { op: 'remove', path: `members[value eq "${ids.ada}"]` },
      { op: 'remove', path: 'members', value: [{ value: ids.grace }] },
      { op: 'replace', path: 'displayName', value: 'Platform' },
    ]);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.displayName).toBe('Platform');
    expect(reply.body.members).toEqual([
      { value: ids.owner, display: 'Sandbox Owner' },
      { value: ids.alan, display: 'Alan Turing' },
      { value: ids.margaret, display: ADMIN_SEED.users.margaret.name },
    ]);
    const doc = state().get('group', ids.engineering)!;
    expect(doc.name).toBe('Platform');
    expect(doc.updatedTime).toBe(NOW);
    expect(doc.members.map((m) => [m.userId, m.role])).toEqual([
      [ids.owner, 'manager'],
      [ids.alan, 'member'],
      [ids.margaret, 'member'],
    ]);
    expect(doc.members.find((m) => m.userId === ids.alan)?.createdTime).toBe(NOW);
    // Ada left the group, so its read grant on the roadmap no longer reaches her; Alan's does.
    expect(
      state()
        .groupsOf(ids.ada)
        .map((g) => g.id),
    ).not.toContain(ids.engineering);
    expect(
      state()
        .groupsOf(ids.alan)
        .map((g) => g.id),
    ).toContain(ids.engineering);
  });

  it('refuses unknown users, foreign users, bad paths and a name in use, changing nothing', async () => {
    const before = structuredClone(state().get('group', ids.support));
    const unknown = await patch(`/scim/v2/Groups/${ids.support}`, [
      { op: 'add', path: 'members', value: [{ value: 'usrNope0000000000' }] },
    ]);
    expect(expectScimError(unknown, 400, 'invalidValue')).toContain('usrNope0000000000');
    const foreign = await patch(`/scim/v2/Groups/${ids.support}`, [
      { op: 'add', path: 'members', value: [{ value: ids.pat }] },
    ]);
    expectScimError(foreign, 400, 'invalidValue');
    const path = await patch(`/scim/v2/Groups/${ids.support}`, [
      { op: 'replace', path: 'owners', value: [] },
    ]);
    expectScimError(path, 400, 'invalidPath');
    const name = await patch(`/scim/v2/Groups/${ids.support}`, [
      { op: 'add', path: 'members', value: [{ value: ids.ada }] },
      { op: 'replace', path: 'displayName', value: 'EU Team' },
    ]);
    expectScimError(name, 409, 'uniqueness');
    const empty = await patch(`/scim/v2/Groups/${ids.support}`, [{ op: 'remove', path: 'displayName' }]);
    expectScimError(empty, 400, 'invalidValue');
    const badBody = await send('PATCH', `/scim/v2/Groups/${ids.support}`, {
      schemas: [PATCH_URI],
      Operations: [],
    });
    expect(expectScimError(badBody, 400, 'invalidValue')).toMatch(/Operations/);
    expectScimError(
      await patch('/scim/v2/Groups/ugpNope0000000000', [{ op: 'remove', path: 'members' }]),
      404,
    );
    expect(state().get('group', ids.support)).toEqual(before);
  });
});

describe('PUT /scim/v2/Groups/{id}', () => {
  it('replaces the name and the whole member list', async () => {
    const reply = await send('PUT', `/scim/v2/Groups/${ids.engineering}`, {
      schemas: [GROUP_URI],
      displayName: 'Research',
      members: [{ value: ids.grace }, { value: ids.katherine }],
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.displayName).toBe('Research');
    expect(reply.body.members.map((m: Loose) => m.value)).toEqual([ids.grace, ids.katherine]);
    const doc = state().get('group', ids.engineering)!;
    expect(doc.members.map((m) => m.userId)).toEqual([ids.grace, ids.katherine]);
    // Grace was a member before: her membership keeps its date.
    expect(doc.members[0]?.createdTime).not.toBe(NOW);
    // Without members, the group is emptied; without displayName, it keeps its name.
    const emptied = await send('PUT', `/scim/v2/Groups/${ids.engineering}`, { schemas: [GROUP_URI] });
    expect(emptied.body).toMatchObject({ displayName: 'Research', members: [] });
  });

  it('refuses an unknown id, a name in use, an unknown member and an invalid body', async () => {
    expectScimError(await send('PUT', '/scim/v2/Groups/ugpNope0000000000', { schemas: [GROUP_URI] }), 404);
    expectScimError(
      await send('PUT', `/scim/v2/Groups/${ids.support}`, {
        schemas: [GROUP_URI],
        displayName: 'Engineering',
      }),
      409,
      'uniqueness',
    );
    const member = await send('PUT', `/scim/v2/Groups/${ids.support}`, {
      schemas: [GROUP_URI],
      members: [{ value: 'usrNope0000000000' }],
    });
    expectScimError(member, 400, 'invalidValue');
    const display = await send('PUT', `/scim/v2/Groups/${ids.support}`, {
      schemas: [GROUP_URI],
      members: [{ value: ids.ada, display: 'Ada' }],
    });
    expectScimError(display, 400, 'invalidSyntax');
    expect(
      state()
        .get('group', ids.support)
        ?.members.map((m) => m.userId),
    ).toEqual([ids.alan]);
  });
});

describe('DELETE /scim/v2/Groups/{id}', () => {
  it('deletes the group and its grants; its users stay', async () => {
    expect(state().get('base', ids.calendar)?.groups[ids.support]).toBeDefined();
    expect(state().get('interface', ids.dashboard)?.groups[ids.support]).toBeDefined();
    state().update('workspace', ids.research, (w) => {
      w.groups[ids.support] = { permissionLevel: 'read', createdTime: NOW, grantedByUserId: ids.owner };
    });
    const reply = await call(emulator, 'DELETE', `/scim/v2/Groups/${ids.support}`);
    expect(reply.status, reply.text).toBe(204);
    expect(state().get('group', ids.support)).toBeUndefined();
    expect(state().get('base', ids.calendar)?.groups[ids.support]).toBeUndefined();
    expect(state().get('interface', ids.dashboard)?.groups[ids.support]).toBeUndefined();
    expect(state().workspaceAdmin(ids.research)?.groups[ids.support]).toBeUndefined();
    expect(storeUser(ids.alan)).toBeDefined();
    expect(state().profile(ids.alan)).toBeDefined();
    expectScimError(await get(`/scim/v2/Groups/${ids.support}`), 404);
    expectScimError(await call(emulator, 'DELETE', `/scim/v2/Groups/${ids.support}`), 404);
    expectScimError(await call(emulator, 'DELETE', `/scim/v2/Groups/${ids.partnerAdmins}`), 404);
    expect(state().get('group', ids.partnerAdmins)).toBeDefined();
  });
});

describe('10,000 users', () => {
  it('lists and filters a large directory through the endpoint', async () => {
    const large = makeEmulator({ syntheticUsers: 10_000 });
    try {
      const reply = await call(
        large,
        'GET',
        `/scim/v2/Users?filter=${encodeURIComponent('userName sw "user01"')}&count=100`,
      );
      expect(reply.status).toBe(200);
      expect(reply.body.totalResults).toBe(1000);
      expect(reply.body.itemsPerPage).toBe(100);
      const inactive = await call(
        large,
        'GET',
        `/scim/v2/Users?filter=${encodeURIComponent('active eq false and externalId sw "X-"')}&count=0`,
      );
      expect(inactive.body.totalResults).toBe(1000);
    } finally {
      large.close();
    }
  });
});
