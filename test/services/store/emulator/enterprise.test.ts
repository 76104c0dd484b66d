// Enterprise accounts, users and user groups in the store emulator: account information and descendants, moving
// groups and workspaces within an organisation, looking users up, changing them (names, email, state,
// membership, admin access), logging them out, deleting them and removing them from the enterprise, and reading a
// user group — each with its state change, its scope refusal, and the refusals of callers who administer
// another account (Partner Co's Pat), none (Ada) or only the descendant (Émilie).
import { beforeEach, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../../../src/services/store/emulator/auth.js';
import { ADMIN_SEED } from '../../../../src/services/store/emulator/seed/admin.js';
import { call, makeEmulator, NOW, type TestEmulator } from './helpers.js';

const PAT = 'pat_partner_admin';
const ADA = 'pat_ada_not_admin';
const EMILIE = 'pat_emilie_descendant_admin';
const NO_SCOPES = 'pat_owner_records_only';

/** Ids of the seeded administration plane, read once from a probe emulator (the seed is deterministic). */
function seededIds() {
  const probe = makeEmulator();
  const { state, store } = { state: probe.admin.state, store: probe.store };
  const user = (name: string) => {
    const found = store.schema().users.find((u) => u.name === name);
    if (!found) throw new Error(`no user ${name}`);
    return found.id;
  };
  const account = (name: string) => {
    const found = state.list('account').find((a) => a.name === name);
    if (!found) throw new Error(`no account ${name}`);
    return found.id;
  };
  const group = (name: string) => {
    const found = state.list('group').find((g) => g.name === name);
    if (!found) throw new Error(`no group ${name}`);
    return found.id;
  };
  const workspace = (name: string) => {
    const found = store.schema().workspaces.find((w) => w.name === name);
    if (!found) throw new Error(`no workspace ${name}`);
    return found.id;
  };
  const base = (name: string) => {
    const found = store.schema().bases.find((b) => b.name === name);
    if (!found) throw new Error(`no base ${name}`);
    return found.id;
  };
  const dashboard = state.list('interface').find((i) => i.name === 'Roadmap Dashboard')?.id ?? '';
  return {
    owner: user('Sandbox Owner'),
    ada: user('Ada Lovelace'),
    grace: user('Grace Hopper'),
    alan: user('Alan Turing'),
    katherine: user(ADMIN_SEED.users.katherine.name),
    margaret: user(ADMIN_SEED.users.margaret.name),
    bot: user(ADMIN_SEED.users.bot.name),
    emilie: user(ADMIN_SEED.users.europe.name),
    pat: user(ADMIN_SEED.users.partner.name),
    root: account(ADMIN_SEED.rootAccount),
    europe: account(ADMIN_SEED.descendantAccount),
    partner: account(ADMIN_SEED.otherOrganisation),
    engineering: group(ADMIN_SEED.groups.engineering),
    support: group(ADMIN_SEED.groups.support),
    euTeam: group(ADMIN_SEED.groups.europe),
    partnerAdmins: group(ADMIN_SEED.groups.partner),
    sandboxWorkspace: store.schema().workspaces[0]?.id ?? '',
    research: workspace(ADMIN_SEED.workspaces.research),
    europeWorkspace: workspace(ADMIN_SEED.workspaces.europe),
    partnerWorkspace: workspace(ADMIN_SEED.workspaces.partner),
    roadmap: base('Product Roadmap'),
    crm: base('Sales CRM'),
    calendar: base('Content Calendar'),
    dashboard,
  };
}

const ids = seededIds();
const ent = (accountId: string, rest = '') => `/v0/meta/enterpriseAccounts/${accountId}${rest}`;

let emulator: TestEmulator;
beforeEach(() => {
  emulator = makeEmulator({
    tokens: [
      { token: PAT, userId: ids.pat, scopes: ALL_SCOPES },
      { token: ADA, userId: ids.ada, scopes: ALL_SCOPES },
      { token: EMILIE, userId: ids.emilie, scopes: ALL_SCOPES },
      { token: NO_SCOPES, userId: ids.owner, scopes: ['data.records:read'] },
    ],
  });
});

const state = () => emulator.admin.state;
const profile = (userId: string) => state().profile(userId);

function expectModelNotFound(reply: { status: number; body: { error: { type: string } } }) {
  expect(reply.status).toBe(403);
  expect(reply.body.error.type).toBe('INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND');
}

describe('GET enterprise account', () => {
  it('describes the root account with its own groups, users, workspaces and domains', async () => {
    const reply = await call(emulator, 'GET', ent(ids.root));
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(ids.root);
    expect(reply.body.rootEnterpriseAccountId).toBe(ids.root);
    expect(reply.body.descendantEnterpriseAccountIds).toEqual([ids.europe]);
    expect(reply.body.groupIds).toEqual([ids.engineering, ids.support]);
    expect(reply.body.userIds).toContain(ids.owner);
    expect(reply.body.userIds).toContain(ids.katherine);
    expect(reply.body.userIds).not.toContain(ids.emilie);
    expect(reply.body.workspaceIds).toEqual([ids.sandboxWorkspace, ids.research]);
    expect(reply.body.emailDomains).toContainEqual({ emailDomain: ADMIN_SEED.domain, isSsoRequired: false });
    expect(typeof reply.body.createdTime).toBe('string');
    expect(reply.body).not.toHaveProperty('aggregated');
    expect(reply.body).not.toHaveProperty('descendants');
  });

  it('adds aggregated and per-descendant lists when asked', async () => {
    const reply = await call(emulator, 'GET', `${ent(ids.root)}?include[]=aggregated&include[]=descendants`);
    expect(reply.status).toBe(200);
    expect(reply.body.aggregated.userIds).toContain(ids.emilie);
    expect(reply.body.aggregated.userIds).toContain(ids.owner);
    expect(reply.body.aggregated.groupIds).toContain(ids.euTeam);
    expect(reply.body.aggregated.workspaceIds).toContain(ids.europeWorkspace);
    expect(reply.body.descendants[ids.europe].workspaceIds).toEqual([ids.europeWorkspace]);
    expect(reply.body.descendants[ids.europe].userIds).toEqual([ids.emilie]);
  });

  it('refuses an unknown include value naming include', async () => {
    const reply = await call(emulator, 'GET', `${ent(ids.root)}?include[]=everything`);
    expect(reply.status).toBe(422);
    expect(reply.body.error.message).toContain('include');
  });

  it('refuses a token without enterprise.account:read, a non-admin and an unknown account', async () => {
    expectModelNotFound(await call(emulator, 'GET', ent(ids.root), { token: NO_SCOPES }));
    expectModelNotFound(await call(emulator, 'GET', ent(ids.root), { token: ADA }));
    expectModelNotFound(await call(emulator, 'GET', ent('entDoesNotExist00')));
    expect((await call(emulator, 'GET', ent(ids.root), { token: null })).status).toBe(401);
  });

  it('lets a descendant admin read the descendant but not the root, and Pat only Partner Co', async () => {
    const europe = await call(emulator, 'GET', ent(ids.europe), { token: EMILIE });
    expect(europe.status).toBe(200);
    expect(europe.body.rootEnterpriseAccountId).toBe(ids.root);
    expect(europe.body.descendantEnterpriseAccountIds).toEqual([]);
    expectModelNotFound(await call(emulator, 'GET', ent(ids.root), { token: EMILIE }));
    expect((await call(emulator, 'GET', ent(ids.partner), { token: PAT })).status).toBe(200);
    expectModelNotFound(await call(emulator, 'GET', ent(ids.root), { token: PAT }));
  });
});

describe('POST descendants', () => {
  it('creates a descendant of a root account with Enterprise Hub', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, '/descendants'), {
      body: { name: 'Sandbox Asia' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.id).toMatch(/^ent/);
    expect(reply.body.name).toBe('Sandbox Asia');
    expect(reply.body.rootEnterpriseAccountId).toBe(ids.root);
    expect(reply.body.parentEnterpriseAccountId).toBe(ids.root);
    expect(reply.body.createdTime).toBe(NOW);
    expect(reply.body.userIds).toEqual([]);
    const stored = state().account(reply.body.id);
    expect(stored?.parentEnterpriseAccountId).toBe(ids.root);
    const root = await call(emulator, 'GET', ent(ids.root));
    expect(root.body.descendantEnterpriseAccountIds).toEqual([ids.europe, reply.body.id]);
  });

  it('refuses an organisation without Enterprise Hub (Pat on Partner Co)', async () => {
    const reply = await call(emulator, 'POST', ent(ids.partner, '/descendants'), {
      token: PAT,
      body: { name: 'Partner Labs' },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.error.message).toContain('Enterprise Hub');
    expect(state().organisation(ids.partner)).toHaveLength(1);
  });

  it('refuses descendants of a descendant', async () => {
    const reply = await call(emulator, 'POST', ent(ids.europe, '/descendants'), {
      token: EMILIE,
      body: { name: 'Nordics' },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.error.message).toContain('Enterprise Hub');
  });

  it('refuses a missing or duplicate name, a non-admin and a token without enterprise.account:write', async () => {
    const missing = await call(emulator, 'POST', ent(ids.root, '/descendants'), { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toContain('name');
    const duplicate = await call(emulator, 'POST', ent(ids.root, '/descendants'), {
      body: { name: ADMIN_SEED.descendantAccount },
    });
    expect(duplicate.status).toBe(422);
    expect(duplicate.body.error.message).toContain('already used');
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, '/descendants'), { token: ADA, body: { name: 'X' } }),
    );
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, '/descendants'), { token: NO_SCOPES, body: { name: 'X' } }),
    );
    expect(state().list('account')).toHaveLength(3);
  });
});

describe('POST moveGroups', () => {
  it('moves groups of the path account to the target and reports the others per item', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, '/moveGroups'), {
      body: {
        groupIds: [ids.engineering, ids.euTeam, 'ugpDoesNotExist0'],
        targetEnterpriseAccountId: ids.europe,
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.movedGroups).toEqual([{ id: ids.engineering }]);
    expect(reply.body.errors.map((e: { id: string }) => e.id)).toEqual([ids.euTeam, 'ugpDoesNotExist0']);
    expect(reply.body.errors[0].type).toBe('NOT_FOUND');
    expect(state().get('group', ids.engineering)?.enterpriseAccountId).toBe(ids.europe);
    expect(state().get('group', ids.engineering)?.updatedTime).toBe(NOW);
    expect(state().get('group', ids.euTeam)?.enterpriseAccountId).toBe(ids.europe);
  });

  it('refuses a target in another organisation naming the same organisation', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, '/moveGroups'), {
      body: { groupIds: [ids.engineering], targetEnterpriseAccountId: ids.partner },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.error.message).toContain('same organisation');
    expect(state().get('group', ids.engineering)?.enterpriseAccountId).toBe(ids.root);
  });

  it('refuses an organisation without Enterprise Hub', async () => {
    state().update('account', ids.root, (a) => {
      a.enterpriseHub = false;
    });
    const reply = await call(emulator, 'POST', ent(ids.root, '/moveGroups'), {
      body: { groupIds: [ids.engineering], targetEnterpriseAccountId: ids.europe },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.error.message).toContain('Enterprise Hub');
  });

  it('needs the caller to administer both accounts', async () => {
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.europe, '/moveGroups'), {
        token: EMILIE,
        body: { groupIds: [ids.euTeam], targetEnterpriseAccountId: ids.root },
      }),
    );
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, '/moveGroups'), {
        token: ADA,
        body: { groupIds: [ids.engineering], targetEnterpriseAccountId: ids.europe },
      }),
    );
    expect(state().get('group', ids.euTeam)?.enterpriseAccountId).toBe(ids.europe);
  });

  it('refuses an invalid body naming the field and a token without enterprise.groups:manage', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, '/moveGroups'), {
      body: { targetEnterpriseAccountId: ids.europe },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.error.message).toContain('groupIds');
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, '/moveGroups'), {
        token: NO_SCOPES,
        body: { groupIds: [ids.engineering], targetEnterpriseAccountId: ids.europe },
      }),
    );
  });
});

describe('POST moveWorkspaces', () => {
  it('needs a replacement owner when no owner belongs to the target account', async () => {
    const without = await call(emulator, 'POST', ent(ids.root, '/moveWorkspaces'), {
      body: { workspaceIds: [ids.research], targetEnterpriseAccountId: ids.europe },
    });
    expect(without.status).toBe(200);
    expect(without.body.movedWorkspaces).toEqual([]);
    expect(without.body.errors).toEqual([
      expect.objectContaining({ id: ids.research, type: 'REPLACEMENT_OWNER_REQUIRED' }),
    ]);
    expect(state().workspaceAdmin(ids.research)?.enterpriseAccountId).toBe(ids.root);

    const reply = await call(emulator, 'POST', ent(ids.root, '/moveWorkspaces'), {
      body: {
        workspaceIds: [ids.research, ids.partnerWorkspace],
        targetEnterpriseAccountId: ids.europe,
        replacementOwnerId: ids.emilie,
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.movedWorkspaces).toEqual([{ id: ids.research }]);
    expect(reply.body.errors).toEqual([
      expect.objectContaining({ id: ids.partnerWorkspace, type: 'NOT_FOUND' }),
    ]);
    const moved = state().workspaceAdmin(ids.research);
    expect(moved?.enterpriseAccountId).toBe(ids.europe);
    expect(moved?.users[ids.emilie]?.permissionLevel).toBe('owner');
    expect(moved?.users[ids.grace]?.permissionLevel).toBe('owner');
  });

  it('moves a descendant workspace to the root when its owner is in the root organisation scope', async () => {
    const reply = await call(emulator, 'POST', ent(ids.europe, '/moveWorkspaces'), {
      body: { workspaceIds: [ids.europeWorkspace], targetEnterpriseAccountId: ids.root },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.movedWorkspaces).toEqual([{ id: ids.europeWorkspace }]);
    expect(state().workspaceAdmin(ids.europeWorkspace)?.enterpriseAccountId).toBe(ids.root);
    expect(Object.keys(state().workspaceAdmin(ids.europeWorkspace)?.users ?? {})).toEqual([ids.emilie]);
  });

  it('refuses a replacement owner outside the target account naming replacementOwnerId', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, '/moveWorkspaces'), {
      body: {
        workspaceIds: [ids.research],
        targetEnterpriseAccountId: ids.europe,
        replacementOwnerId: ids.pat,
      },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.error.message).toContain('replacementOwnerId');
  });

  it('refuses another organisation, a missing Hub, a descendant admin and a missing scope', async () => {
    const other = await call(emulator, 'POST', ent(ids.root, '/moveWorkspaces'), {
      body: { workspaceIds: [ids.research], targetEnterpriseAccountId: ids.partner },
    });
    expect(other.status).toBe(422);
    expect(other.body.error.message).toContain('same organisation');
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.europe, '/moveWorkspaces'), {
        token: EMILIE,
        body: { workspaceIds: [ids.europeWorkspace], targetEnterpriseAccountId: ids.root },
      }),
    );
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, '/moveWorkspaces'), {
        token: NO_SCOPES,
        body: { workspaceIds: [ids.research], targetEnterpriseAccountId: ids.europe },
      }),
    );
    state().update('account', ids.root, (a) => {
      a.enterpriseHub = false;
    });
    const noHub = await call(emulator, 'POST', ent(ids.europe, '/moveWorkspaces'), {
      body: { workspaceIds: [ids.europeWorkspace], targetEnterpriseAccountId: ids.root },
    });
    expect(noHub.status).toBe(403);
    expect(noHub.body.error.message).toContain('Enterprise Hub');
    const invalid = await call(emulator, 'POST', ent(ids.root, '/moveWorkspaces'), {
      body: { workspaceIds: [], targetEnterpriseAccountId: ids.europe },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.message).toContain('workspaceIds');
    expect(state().workspaceAdmin(ids.europeWorkspace)?.enterpriseAccountId).toBe(ids.europe);
  });
});

describe('the size of a move', () => {
  it('takes up to 100 ids: 101 group or workspace ids are a 422 naming the list, and nothing moves', async () => {
    const many = (first: string) => [first, ...Array.from({ length: 100 }, (_, i) => `ugpPadding${i}`)];
    const groups = await call(emulator, 'POST', ent(ids.root, '/moveGroups'), {
      body: { groupIds: many(ids.engineering), targetEnterpriseAccountId: ids.europe },
    });
    expect(groups.status).toBe(422);
    expect(groups.body.error.message).toContain('groupIds');
    expect(state().get('group', ids.engineering)?.enterpriseAccountId).toBe(ids.root);
    const workspaces = await call(emulator, 'POST', ent(ids.root, '/moveWorkspaces'), {
      body: { workspaceIds: many(ids.research), targetEnterpriseAccountId: ids.europe },
    });
    expect(workspaces.status).toBe(422);
    expect(workspaces.body.error.message).toContain('workspaceIds');
    expect(state().workspaceAdmin(ids.research)?.enterpriseAccountId).toBe(ids.root);
    // 100 is within the limit: the known group moves, the unknown ids are reported per item.
    const hundred = await call(emulator, 'POST', ent(ids.root, '/moveGroups'), {
      body: { groupIds: many(ids.engineering).slice(0, 100), targetEnterpriseAccountId: ids.europe },
    });
    expect(hundred.status).toBe(200);
    expect(hundred.body.movedGroups).toEqual([{ id: ids.engineering }]);
    expect(hundred.body.errors).toHaveLength(99);
  });
});

describe('GET users', () => {
  it('finds users by id and email with the UserInfo fields', async () => {
    const reply = await call(
      emulator,
      'GET',
      `${ent(ids.root, '/users')}?id[]=${ids.ada}&email[]=${encodeURIComponent('ALAN@sandbox.example.com')}&id[]=usrDoesNotExist00`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.users.map((u: { id: string }) => u.id)).toEqual([ids.ada, ids.alan]);
    const [ada, alan] = reply.body.users;
    expect(ada).toMatchObject({
      email: 'ada@sandbox.example.com',
      name: 'Ada Lovelace',
      state: 'provisioned',
      isManaged: true,
      isAdmin: false,
      isServiceAccount: false,
      invitedToAirtableByUserId: ids.owner,
      groups: [{ id: ids.engineering }],
    });
    expect(alan.isManaged).toBe(false);
    expect(alan.groups).toEqual([{ id: ids.support }]);
    expect(ada).not.toHaveProperty('collaborations');
  });

  it('computes collaborations from workspaces, bases and interfaces when included', async () => {
    const reply = await call(
      emulator,
      'GET',
      `${ent(ids.root, '/users')}?id[]=${ids.alan}&include[]=collaborations`,
    );
    expect(reply.status).toBe(200);
    const { collaborations } = reply.body.users[0];
    expect(collaborations.workspaceCollaborations).toEqual([
      expect.objectContaining({
        workspaceId: ids.research,
        permissionLevel: 'edit',
        grantedByUserId: ids.grace,
      }),
    ]);
    expect(collaborations.baseCollaborations).toEqual([
      expect.objectContaining({
        baseId: ids.calendar,
        permissionLevel: 'create',
        grantedByUserId: ids.owner,
      }),
    ]);
    expect(collaborations.interfaceCollaborations).toEqual([
      expect.objectContaining({ baseId: ids.roadmap, interfaceId: ids.dashboard, permissionLevel: 'read' }),
    ]);
  });

  it('names a granter for a base grant made outside the administration plane (a string, never null)', async () => {
    // A data-plane grant without the administration plane's bookkeeping: the workspace's owner stands in.
    emulator.store.setPermission(ids.roadmap, ids.alan, 'comment');
    const workspaceId = emulator.store.schema().baseById.get(ids.roadmap)!.workspaceId;
    const reply = await call(
      emulator,
      'GET',
      `${ent(ids.root, '/users')}?id[]=${ids.alan}&include[]=collaborations`,
    );
    expect(reply.status).toBe(200);
    const { baseCollaborations } = reply.body.users[0].collaborations;
    expect(baseCollaborations).toContainEqual(
      expect.objectContaining({
        baseId: ids.roadmap,
        permissionLevel: 'comment',
        grantedByUserId: emulator.admin.state.ownersOf(workspaceId)[0],
      }),
    );
    for (const c of baseCollaborations) expect(typeof c.grantedByUserId).toBe('string');
  });

  it('shows aggregated and per-descendant details for a descendant user seen from the root', async () => {
    const reply = await call(
      emulator,
      'GET',
      `${ent(ids.root, '/users')}?id[]=${ids.emilie}&include[]=aggregated&include[]=descendants`,
    );
    expect(reply.status).toBe(200);
    const [emilie] = reply.body.users;
    expect(emilie.groups).toEqual([]);
    expect(emilie.aggregated.groups).toEqual([{ id: ids.euTeam }]);
    expect(emilie.descendants[ids.europe]).toMatchObject({
      isAdmin: true,
      isManaged: true,
      groups: [{ id: ids.euTeam }],
    });
  });

  it('needs an id or an email, stays within the account, and checks scope and admin', async () => {
    const none = await call(emulator, 'GET', ent(ids.root, '/users'));
    expect(none.status).toBe(422);
    expect(none.body.error.message).toMatch(/id\[\]|email\[\]/);
    const fromEurope = await call(emulator, 'GET', `${ent(ids.europe, '/users')}?id[]=${ids.ada}`, {
      token: EMILIE,
    });
    expect(fromEurope.body.users).toEqual([]);
    expectModelNotFound(
      await call(emulator, 'GET', `${ent(ids.root, '/users')}?id[]=${ids.ada}`, { token: ADA }),
    );
    expectModelNotFound(
      await call(emulator, 'GET', `${ent(ids.root, '/users')}?id[]=${ids.ada}`, { token: NO_SCOPES }),
    );
  });
});

describe('GET users/{userId}', () => {
  it('returns one user, 404 outside the account, 403 for a non-admin', async () => {
    const reply = await call(emulator, 'GET', ent(ids.root, `/users/${ids.margaret}`));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: ids.margaret,
      isAdmin: true,
      email: ADMIN_SEED.users.margaret.email,
    });
    expect((await call(emulator, 'GET', ent(ids.root, `/users/${ids.pat}`))).status).toBe(404);
    const unknown = await call(emulator, 'GET', ent(ids.root, '/users/usrDoesNotExist00'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.type).toBe('NOT_FOUND');
    expectModelNotFound(await call(emulator, 'GET', ent(ids.root, `/users/${ids.ada}`), { token: ADA }));
    expectModelNotFound(
      await call(emulator, 'GET', ent(ids.root, `/users/${ids.ada}`), { token: NO_SCOPES }),
    );
  });
});

describe('PATCH users/{userId}', () => {
  it('changes names, email within the enterprise domains and state', async () => {
    const reply = await call(emulator, 'PATCH', ent(ids.root, `/users/${ids.ada}`), {
      body: {
        firstName: 'Augusta Ada',
        lastName: 'King',
        email: 'ada.king@sandbox.example.com',
        state: 'deactivated',
      },
    });
    // The upstream documents "an empty response on success"; the change shows on GET users/{userId}.
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    const after = await call(emulator, 'GET', ent(ids.root, `/users/${ids.ada}`));
    expect(after.body).toMatchObject({ id: ids.ada, name: 'Augusta Ada King', state: 'deactivated' });
    expect(emulator.store.schema().userById.get(ids.ada)).toMatchObject({
      name: 'Augusta Ada King',
      email: 'ada.king@sandbox.example.com',
    });
    expect(profile(ids.ada)).toMatchObject({
      firstName: 'Augusta Ada',
      lastName: 'King',
      state: 'deactivated',
    });
  });

  it('refuses an email outside the enterprise domains, a taken email and state for unmanaged users', async () => {
    const outside = await call(emulator, 'PATCH', ent(ids.root, `/users/${ids.ada}`), {
      body: { email: 'ada@gmail.example' },
    });
    expect(outside.status).toBe(422);
    expect(outside.body.error.message).toContain('email');
    expect(outside.body.error.message).toContain(ADMIN_SEED.domain);
    const taken = await call(emulator, 'PATCH', ent(ids.root, `/users/${ids.ada}`), {
      body: { email: 'grace@sandbox.example.com' },
    });
    expect(taken.status).toBe(422);
    const unmanaged = await call(emulator, 'PATCH', ent(ids.root, `/users/${ids.alan}`), {
      body: { state: 'deactivated' },
    });
    expect(unmanaged.status).toBe(422);
    expect(unmanaged.body.error.message).toContain('state');
    expect(profile(ids.alan)?.state).toBe('provisioned');
    expect(emulator.store.schema().userById.get(ids.ada)?.email).toBe('ada@sandbox.example.com');
  });

  it('refuses invalid bodies naming the field, users outside the account and missing rights', async () => {
    const empty = await call(emulator, 'PATCH', ent(ids.root, `/users/${ids.ada}`), { body: {} });
    expect(empty.status).toBe(422);
    const badState = await call(emulator, 'PATCH', ent(ids.root, `/users/${ids.ada}`), {
      body: { state: 'gone' },
    });
    expect(badState.status).toBe(422);
    expect(badState.body.error.message).toContain('state');
    expect(
      (await call(emulator, 'PATCH', ent(ids.root, `/users/${ids.pat}`), { body: { firstName: 'P' } }))
        .status,
    ).toBe(404);
    expectModelNotFound(
      await call(emulator, 'PATCH', ent(ids.root, `/users/${ids.ada}`), {
        token: ADA,
        body: { firstName: 'A' },
      }),
    );
    expectModelNotFound(
      await call(emulator, 'PATCH', ent(ids.root, `/users/${ids.ada}`), {
        token: NO_SCOPES,
        body: { firstName: 'A' },
      }),
    );
  });
});

describe('PATCH users', () => {
  it('changes each user and reports the ones it could not change', async () => {
    const reply = await call(emulator, 'PATCH', ent(ids.root, '/users'), {
      body: {
        users: [
          { id: ids.ada, firstName: 'Augusta' },
          { email: 'alan@sandbox.example.com', state: 'deactivated' },
          { id: 'usrDoesNotExist00', lastName: 'Nobody' },
          { email: 'grace@sandbox.example.com', state: 'deactivated' },
        ],
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toHaveLength(2);
    expect(reply.body.errors[0]).toMatchObject({ email: 'alan@sandbox.example.com' });
    expect(reply.body.errors[0].message).toContain('state');
    expect(reply.body.errors[1]).toMatchObject({ id: 'usrDoesNotExist00', type: 'NOT_FOUND' });
    expect(profile(ids.ada)?.firstName).toBe('Augusta');
    expect(emulator.store.schema().userById.get(ids.ada)?.name).toBe('Augusta Lovelace');
    expect(profile(ids.grace)?.state).toBe('deactivated');
    expect(profile(ids.alan)?.state).toBe('provisioned');
  });

  it('refuses an item naming neither id nor email and a missing scope', async () => {
    const reply = await call(emulator, 'PATCH', ent(ids.root, '/users'), {
      body: { users: [{ firstName: 'X' }] },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.error.message).toContain('users');
    expectModelNotFound(
      await call(emulator, 'PATCH', ent(ids.root, '/users'), {
        token: NO_SCOPES,
        body: { users: [{ id: ids.ada, firstName: 'X' }] },
      }),
    );
  });
});

describe('DELETE users/{userId}', () => {
  it('deletes a managed user from groups, grants, the profile and the data plane', async () => {
    expect(emulator.store.directPermissionOf(ids.roadmap, ids.ada)).toBe('edit');
    const reply = await call(emulator, 'DELETE', ent(ids.root, `/users/${ids.ada}`));
    expect(reply.status).toBe(200);
    // delete-user-by-id: "This endpoint returns an empty response on success."
    expect(reply.body).toEqual({});
    expect(emulator.store.schema().userById.has(ids.ada)).toBe(false);
    expect(emulator.store.directPermissionOf(ids.roadmap, ids.ada)).toBe('none');
    expect(state().get('base', ids.roadmap)?.userGrants[ids.ada]).toBeUndefined();
    expect(
      state()
        .get('group', ids.engineering)
        ?.members.map((m) => m.userId),
    ).not.toContain(ids.ada);
    expect(profile(ids.ada)).toBeUndefined();
  });

  it('refuses unmanaged users, oneself, sole owners, users outside the account and non-admins', async () => {
    // The documented refusals of delete-user-by-id: 403 INVALID_PERMISSIONS in the upstream's words.
    const unmanaged = await call(emulator, 'DELETE', ent(ids.root, `/users/${ids.alan}`));
    expect(unmanaged.status).toBe(403);
    expect(unmanaged.body.error).toEqual({
      type: 'INVALID_PERMISSIONS',
      message: 'User is not managed by the enterprise account',
    });
    const self = await call(emulator, 'DELETE', ent(ids.root, `/users/${ids.owner}`));
    expect(self.status).toBe(403);
    expect(self.body.error.message).toBe('Cannot perform action on self');
    const soleOwner = await call(emulator, 'DELETE', ent(ids.root, `/users/${ids.grace}`));
    expect(soleOwner.status).toBe(403);
    expect(soleOwner.body.error.message).toBe(
      'Cannot delete sole owner of a workspace with other collaborators',
    );
    expect(emulator.store.schema().userById.has(ids.grace)).toBe(true);
    expect((await call(emulator, 'DELETE', ent(ids.root, `/users/${ids.pat}`))).status).toBe(404);
    expectModelNotFound(await call(emulator, 'DELETE', ent(ids.root, `/users/${ids.grace}`), { token: ADA }));
    expectModelNotFound(
      await call(emulator, 'DELETE', ent(ids.root, `/users/${ids.grace}`), { token: NO_SCOPES }),
    );
    expect(emulator.store.schema().userById.has(ids.alan)).toBe(true);
    expect(emulator.store.schema().userById.has(ids.grace)).toBe(true);
  });
});

describe('DELETE users?email[]=', () => {
  it('deletes managed users by email and reports the others', async () => {
    const query = ['ada@sandbox.example.com', 'alan@sandbox.example.com', 'nobody@sandbox.example.com']
      .map((e) => `email[]=${encodeURIComponent(e)}`)
      .join('&');
    const reply = await call(emulator, 'DELETE', `${ent(ids.root, '/users')}?${query}`);
    expect(reply.status).toBe(200);
    expect(reply.body.deletedUsers).toEqual([{ id: ids.ada, email: 'ada@sandbox.example.com' }]);
    expect(reply.body.errors).toEqual([
      expect.objectContaining({ email: 'alan@sandbox.example.com', type: 'USER_NOT_MANAGED' }),
      expect.objectContaining({ email: 'nobody@sandbox.example.com', type: 'NOT_FOUND' }),
    ]);
    expect(emulator.store.schema().userById.has(ids.ada)).toBe(false);
    expect(emulator.store.schema().userById.has(ids.alan)).toBe(true);
  });

  it('needs at least one email and the scope', async () => {
    const none = await call(emulator, 'DELETE', ent(ids.root, '/users'));
    expect(none.status).toBe(422);
    expect(none.body.error.message).toContain('email');
    expectModelNotFound(
      await call(emulator, 'DELETE', `${ent(ids.root, '/users')}?email[]=ada@sandbox.example.com`, {
        token: NO_SCOPES,
      }),
    );
  });
});

describe('POST users/claim', () => {
  it('claims users of the enterprise domains and releases managed ones', async () => {
    emulator.store.insertUser({
      id: 'usrNewcomer000001',
      email: 'newbie@sandbox.example.com',
      name: 'New Bie',
    });
    emulator.store.insertUser({
      id: 'usrOutsider000001',
      email: 'someone@elsewhere.example',
      name: 'Out Sider',
    });
    const reply = await call(emulator, 'POST', ent(ids.root, '/users/claim'), {
      body: {
        users: [
          { id: ids.alan, state: 'managed' },
          { email: 'grace@sandbox.example.com', state: 'unmanaged' },
          { email: 'newbie@sandbox.example.com', state: 'managed' },
          { id: 'usrOutsider000001', state: 'managed' },
          { id: ids.pat, state: 'managed' },
          { id: ids.margaret, state: 'unmanaged' },
        ],
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toEqual([
      expect.objectContaining({ id: 'usrOutsider000001', type: 'INVALID_EMAIL_DOMAIN' }),
      expect.objectContaining({ id: ids.pat, type: 'USER_IN_OTHER_ENTERPRISE_ACCOUNT' }),
      expect.objectContaining({ id: ids.margaret, type: 'USER_IS_ADMIN' }),
    ]);
    expect(profile(ids.alan)?.isManaged).toBe(true);
    expect(profile(ids.grace)?.isManaged).toBe(false);
    expect(profile('usrNewcomer000001')).toMatchObject({ isManaged: true, enterpriseAccountId: ids.root });
    expect(profile('usrOutsider000001')).toBeUndefined();
    expect(profile(ids.margaret)?.isManaged).toBe(true);
  });

  it('answers the documented 422 for an item with neither id nor email', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, '/users/claim'), {
      body: { users: [{ state: 'managed' }] },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.error).toEqual({
      type: 'INVALID_REQUEST_UNKNOWN',
      message: 'Invalid request: either ID or email must be specified. Check your request data.',
    });
  });

  it('refuses an invalid state naming it, a non-admin and a missing scope', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, '/users/claim'), {
      body: { users: [{ id: ids.alan, state: 'owned' }] },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.error.message).toContain('state');
    const body = { users: [{ id: ids.alan, state: 'managed' }] };
    expectModelNotFound(await call(emulator, 'POST', ent(ids.root, '/users/claim'), { token: ADA, body }));
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, '/users/claim'), { token: NO_SCOPES, body }),
    );
    expect(profile(ids.alan)?.isManaged).toBe(false);
  });
});

describe('POST users/grantAdminAccess and revokeAdminAccess', () => {
  it('grants admin access to managed provisioned users only', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, '/users/grantAdminAccess'), {
      body: {
        users: [
          { email: 'ada@sandbox.example.com' },
          { id: ids.alan },
          { id: ids.katherine },
          { id: ids.pat },
        ],
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toEqual([
      expect.objectContaining({ id: ids.alan, type: 'USER_NOT_MANAGED' }),
      expect.objectContaining({ id: ids.katherine, type: 'USER_NOT_PROVISIONED' }),
      expect.objectContaining({ id: ids.pat, type: 'NOT_FOUND' }),
    ]);
    expect(profile(ids.ada)?.isAdmin).toBe(true);
    expect(profile(ids.alan)?.isAdmin).toBe(false);
    // Ada can now administer the root account.
    expect((await call(emulator, 'GET', ent(ids.root), { token: ADA })).status).toBe(200);
  });

  it('revokes admin access but never the caller’s own', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, '/users/revokeAdminAccess'), {
      body: { users: [{ id: ids.margaret }, { id: ids.owner }] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toEqual([
      expect.objectContaining({ id: ids.owner, type: 'CANNOT_REVOKE_OWN_ADMIN_ACCESS' }),
    ]);
    expect(profile(ids.margaret)?.isAdmin).toBe(false);
    expect(profile(ids.owner)?.isAdmin).toBe(true);
  });

  it('refuses an empty list naming users, a non-admin and a missing scope', async () => {
    const empty = await call(emulator, 'POST', ent(ids.root, '/users/grantAdminAccess'), {
      body: { users: [] },
    });
    expect(empty.status).toBe(422);
    expect(empty.body.error.message).toContain('users');
    const body = { users: [{ id: ids.ada }] };
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, '/users/grantAdminAccess'), { token: ADA, body }),
    );
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, '/users/revokeAdminAccess'), { token: NO_SCOPES, body }),
    );
    expect(profile(ids.ada)?.isAdmin).toBe(false);
  });
});

describe('POST users/{userId}/logout', () => {
  it('records the logout time with or without a body', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, `/users/${ids.grace}/logout`));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expect(profile(ids.grace)?.loggedOutTime).toBe(NOW);
    emulator.clock.advance(60_000);
    const withBody = await call(emulator, 'POST', ent(ids.root, `/users/${ids.grace}/logout`), { body: {} });
    expect(withBody.status).toBe(200);
    expect(profile(ids.grace)?.loggedOutTime).toBe('2025-06-15T12:01:00.000Z');
  });

  it('refuses bad JSON, unknown users, non-admins and a missing scope', async () => {
    const bad = await call(emulator, 'POST', ent(ids.root, `/users/${ids.grace}/logout`), {
      rawBody: '{nope',
    });
    expect(bad.status).toBe(400);
    expect((await call(emulator, 'POST', ent(ids.root, '/users/usrDoesNotExist00/logout'))).status).toBe(404);
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, `/users/${ids.grace}/logout`), { token: ADA }),
    );
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, `/users/${ids.grace}/logout`), { token: NO_SCOPES }),
    );
    expect(profile(ids.grace)?.loggedOutTime).toBeNull();
  });
});

describe('POST users/{userId}/remove', () => {
  it('needs a replacement owner for a sole owner, naming replacementOwnerId', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, `/users/${ids.grace}/remove`), { body: {} });
    expect(reply.status).toBe(422);
    expect(reply.body.error.message).toContain('replacementOwnerId');
    expect(state().workspaceAdmin(ids.research)?.users[ids.grace]?.permissionLevel).toBe('owner');
  });

  it('reports a dry run without changing anything', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, `/users/${ids.grace}/remove`), {
      body: { isDryRun: true, replacementOwnerId: ids.alan },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.wasUserRemovedAsAdmin).toBe(false);
    expect(reply.body.shared.workspaces).toEqual([
      {
        permissionLevel: 'owner',
        userId: ids.alan,
        workspaceId: ids.research,
        workspaceName: ADMIN_SEED.workspaces.research,
      },
    ]);
    expect(reply.body.unshared.workspaces).toEqual([
      expect.objectContaining({
        workspaceId: ids.research,
        formerPermissionLevel: 'owner',
        userId: ids.grace,
      }),
    ]);
    expect(reply.body.unshared.bases.map((b: { baseId: string }) => b.baseId)).toEqual([
      ids.roadmap,
      ids.crm,
    ]);
    expect(reply.body.unshared.bases[1]).toMatchObject({
      baseName: 'Sales CRM',
      formerPermissionLevel: 'edit',
    });
    expect(state().workspaceAdmin(ids.research)?.users[ids.grace]?.permissionLevel).toBe('owner');
    expect(state().workspaceAdmin(ids.research)?.users[ids.alan]?.permissionLevel).toBe('edit');
    expect(emulator.store.directPermissionOf(ids.crm, ids.grace)).toBe('edit');
  });

  it('unshares the user, hands sole-owned workspaces to the replacement and keeps the user', async () => {
    const reply = await call(emulator, 'POST', ent(ids.root, `/users/${ids.grace}/remove`), {
      body: { replacementOwnerId: ids.alan },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.shared.workspaces).toHaveLength(1);
    const research = state().workspaceAdmin(ids.research);
    expect(research?.users[ids.grace]).toBeUndefined();
    expect(research?.users[ids.alan]?.permissionLevel).toBe('owner');
    expect(emulator.store.directPermissionOf(ids.roadmap, ids.grace)).toBe('none');
    expect(emulator.store.directPermissionOf(ids.crm, ids.grace)).toBe('none');
    expect(state().get('base', ids.crm)?.userGrants[ids.grace]).toBeUndefined();
    expect(emulator.store.schema().userById.has(ids.grace)).toBe(true);
  });

  it('unshares interfaces and revokes admin access', async () => {
    const alan = await call(emulator, 'POST', ent(ids.root, `/users/${ids.alan}/remove`), { body: {} });
    expect(alan.status).toBe(200);
    expect(alan.body.unshared.interfaces).toEqual([
      expect.objectContaining({
        interfaceId: ids.dashboard,
        interfaceName: 'Roadmap Dashboard',
        formerPermissionLevel: 'read',
      }),
    ]);
    expect(state().get('interface', ids.dashboard)?.users[ids.alan]).toBeUndefined();
    const margaret = await call(emulator, 'POST', ent(ids.root, `/users/${ids.margaret}/remove`), {
      body: { isDryRun: null, replacementOwnerId: null },
    });
    expect(margaret.status).toBe(200);
    expect(margaret.body.wasUserRemovedAsAdmin).toBe(true);
    expect(profile(ids.margaret)?.isAdmin).toBe(false);
  });

  it('reaches descendant accounts only with removeFromDescendants', async () => {
    const rootOnly = await call(emulator, 'POST', ent(ids.root, `/users/${ids.emilie}/remove`), { body: {} });
    expect(rootOnly.status).toBe(200);
    expect(rootOnly.body.unshared.workspaces).toEqual([]);
    expect(rootOnly.body.wasUserRemovedAsAdmin).toBe(false);
    const all = await call(emulator, 'POST', ent(ids.root, `/users/${ids.emilie}/remove`), {
      body: { removeFromDescendants: true, replacementOwnerId: ids.owner },
    });
    expect(all.status).toBe(200);
    expect(all.body.wasUserRemovedAsAdmin).toBe(true);
    expect(all.body.unshared.workspaces).toEqual([
      expect.objectContaining({ workspaceId: ids.europeWorkspace, formerPermissionLevel: 'owner' }),
    ]);
    expect(state().workspaceAdmin(ids.europeWorkspace)?.users[ids.owner]?.permissionLevel).toBe('owner');
    expect(profile(ids.emilie)?.isAdmin).toBe(false);
  });

  it('refuses oneself, an invalid body naming the field, an unknown user and missing rights', async () => {
    const self = await call(emulator, 'POST', ent(ids.root, `/users/${ids.owner}/remove`), { body: {} });
    expect(self.status).toBe(403);
    expect(self.body.error).toEqual({
      type: 'INVALID_PERMISSIONS',
      message: 'You are not permitted to perform this operation on yourself',
    });
    const invalid = await call(emulator, 'POST', ent(ids.root, `/users/${ids.alan}/remove`), {
      body: { isDryRun: 'yes' },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.message).toContain('isDryRun');
    const badReplacement = await call(emulator, 'POST', ent(ids.root, `/users/${ids.grace}/remove`), {
      body: { replacementOwnerId: ids.katherine },
    });
    expect(badReplacement.status).toBe(422);
    expect(badReplacement.body.error.message).toContain('replacementOwnerId');
    expect(
      (await call(emulator, 'POST', ent(ids.root, '/users/usrDoesNotExist00/remove'), { body: {} })).status,
    ).toBe(404);
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, `/users/${ids.alan}/remove`), { token: ADA, body: {} }),
    );
    expectModelNotFound(
      await call(emulator, 'POST', ent(ids.root, `/users/${ids.alan}/remove`), {
        token: NO_SCOPES,
        body: {},
      }),
    );
    expect(state().workspaceAdmin(ids.research)?.users[ids.alan]?.permissionLevel).toBe('edit');
  });

  it('is recorded in the audit trail', async () => {
    const before = emulator.admin.trail.count();
    await call(emulator, 'POST', ent(ids.root, `/users/${ids.alan}/remove`), { body: {} });
    expect(emulator.admin.trail.count()).toBe(before + 1);
  });
});

describe('GET /v0/meta/groups/{groupId}', () => {
  it('describes the group with its members and, when asked, its collaborations', async () => {
    const reply = await call(emulator, 'GET', `/v0/meta/groups/${ids.engineering}?include[]=collaborations`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: ids.engineering,
      name: ADMIN_SEED.groups.engineering,
      enterpriseAccountId: ids.root,
      mappedUserLicenseType: null,
    });
    expect(reply.body.members).toContainEqual(
      expect.objectContaining({
        userId: ids.ada,
        email: 'ada@sandbox.example.com',
        firstName: 'Ada',
        lastName: 'Lovelace',
        role: 'member',
      }),
    );
    expect(reply.body.members.find((m: { userId: string }) => m.userId === ids.owner).role).toBe('manager');
    expect(reply.body.collaborations.baseCollaborations).toEqual([
      expect.objectContaining({ baseId: ids.roadmap, permissionLevel: 'read', grantedByUserId: ids.owner }),
    ]);
    const plain = await call(emulator, 'GET', `/v0/meta/groups/${ids.support}`);
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('collaborations');
  });

  it("leaves out a member whose user is gone: a member's email is a string, never null", async () => {
    // The API takes a deleted user out of every group; a membership left dangling (the user row removed
    // straight from the store) must not surface as email null.
    emulator.store.deleteUser(ids.ada);
    const reply = await call(emulator, 'GET', `/v0/meta/groups/${ids.engineering}`);
    expect(reply.status).toBe(200);
    expect(reply.body.members.map((m: { userId: string }) => m.userId)).not.toContain(ids.ada);
    expect(reply.body.members.length).toBeGreaterThan(0);
    for (const m of reply.body.members) expect(typeof m.email).toBe('string');
  });

  it('shows a group to its members, not to other users, and checks the scope and include', async () => {
    expect((await call(emulator, 'GET', `/v0/meta/groups/${ids.engineering}`, { token: ADA })).status).toBe(
      200,
    );
    expectModelNotFound(await call(emulator, 'GET', `/v0/meta/groups/${ids.support}`, { token: ADA }));
    expectModelNotFound(await call(emulator, 'GET', `/v0/meta/groups/${ids.engineering}`, { token: PAT }));
    expect((await call(emulator, 'GET', `/v0/meta/groups/${ids.euTeam}`, { token: EMILIE })).status).toBe(
      200,
    );
    expectModelNotFound(await call(emulator, 'GET', '/v0/meta/groups/ugpDoesNotExist0'));
    expectModelNotFound(
      await call(emulator, 'GET', `/v0/meta/groups/${ids.engineering}`, { token: NO_SCOPES }),
    );
    const bad = await call(emulator, 'GET', `/v0/meta/groups/${ids.engineering}?include[]=members`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toContain('include');
  });
});
