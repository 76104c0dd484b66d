// Workspaces in the store emulator's administration plane: create and delete, read collaborators and invite
// links, add, change and remove collaborators (restrictions, level caps, the last owner), withdraw invites, move
// bases within one organisation (order included), and restrictions; base access really following workspace
// grants through the records API; every refusal with the upstream's status and a message naming the reason.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../../../src/services/store/emulator/auth.js';
import { ADMIN_SEED } from '../../../../src/services/store/emulator/seed/admin.js';
import { call, ids, type Loose, makeEmulator, NOW, type TestEmulator } from './helpers.js';

const WS = '/v0/meta/workspaces';
const MODEL_NOT_FOUND = 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND';

// The seed is deterministic: learn the user ids once to give tokens to seeded people.
const people = (() => {
  const probe = makeEmulator();
  try {
    const byEmail = (email: string) => {
      const user = probe.store.schema().userByEmail.get(email);
      if (!user) throw new Error(`no user ${email}`);
      return user.id;
    };
    return {
      owner: byEmail('owner@sandbox.example.com'),
      ada: byEmail('ada@sandbox.example.com'),
      grace: byEmail('grace@sandbox.example.com'),
      alan: byEmail('alan@sandbox.example.com'),
      katherine: byEmail(ADMIN_SEED.users.katherine.email),
      margaret: byEmail(ADMIN_SEED.users.margaret.email),
      emilie: byEmail(ADMIN_SEED.users.europe.email),
      pat: byEmail(ADMIN_SEED.users.partner.email),
    };
  } finally {
    probe.close();
  }
})();

const TOKENS = {
  grace: 'pat_grace_all',
  alan: 'pat_alan_all',
  ada: 'pat_ada_all',
  margaret: 'pat_margaret_all',
  katherine: 'pat_katherine_all',
  emilie: 'pat_emilie_all',
  pat: 'pat_pat_all',
  /** The sandbox owner without any workspacesAndBases scope. */
  noWorkspaces: 'pat_owner_records_only',
  /** The sandbox owner with workspacesAndBases:read only. */
  readOnly: 'pat_owner_ws_read',
  /** The sandbox owner with workspacesAndBases:read and :write, not :manage. */
  writeOnly: 'pat_owner_ws_write',
} as const;

let emulator: TestEmulator;
let sandbox: string;
let research: string;
let europe: string;
let partner: string;
let group: { engineering: string; support: string; europe: string; partner: string };
let base: { roadmap: string; crm: string; calendar: string };

beforeEach(() => {
  const all = (token: string, userId: string) => ({ token, userId, scopes: ALL_SCOPES });
  emulator = makeEmulator({
    tokens: [
      all(TOKENS.grace, people.grace),
      all(TOKENS.alan, people.alan),
      all(TOKENS.ada, people.ada),
      all(TOKENS.margaret, people.margaret),
      all(TOKENS.katherine, people.katherine),
      all(TOKENS.emilie, people.emilie),
      all(TOKENS.pat, people.pat),
      {
        token: TOKENS.noWorkspaces,
        scopes: ALL_SCOPES.filter((s) => !s.startsWith('workspacesAndBases')),
      },
      { token: TOKENS.readOnly, scopes: ['workspacesAndBases:read'] },
      { token: TOKENS.writeOnly, scopes: ['workspacesAndBases:read', 'workspacesAndBases:write'] },
    ],
  });
  const snapshot = emulator.store.schema();
  const workspace = (name: string) => snapshot.workspaces.find((w) => w.name === name)!.id;
  sandbox = workspace('Sandbox Workspace');
  research = workspace(ADMIN_SEED.workspaces.research);
  europe = workspace(ADMIN_SEED.workspaces.europe);
  partner = workspace(ADMIN_SEED.workspaces.partner);
  const groupId = (name: string) => emulator.admin.state.list('group').find((g) => g.name === name)!.id;
  group = {
    engineering: groupId(ADMIN_SEED.groups.engineering),
    support: groupId(ADMIN_SEED.groups.support),
    europe: groupId(ADMIN_SEED.groups.europe),
    partner: groupId(ADMIN_SEED.groups.partner),
  };
  const baseId = (name: string) => snapshot.bases.find((b) => b.name === name)!.id;
  base = {
    roadmap: baseId('Product Roadmap'),
    crm: baseId('Sales CRM'),
    calendar: baseId('Content Calendar'),
  };
});
afterEach(() => emulator.close());

const admin = (workspaceId: string) => emulator.admin.state.workspaceAdmin(workspaceId)!;
const rootAccount = () =>
  emulator.admin.state.list('account').find((a) => a.name === ADMIN_SEED.rootAccount)!.id;
const accountNamed = (name: string) => emulator.admin.state.list('account').find((a) => a.name === name)!.id;
const expectError = (reply: Loose, status: number, type: string, message?: RegExp) => {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.error.type).toBe(type);
  if (message) expect(reply.body.error.message).toMatch(message);
};
const auditEvents = (action: string) =>
  emulator.admin.trail.db.prepare('SELECT * FROM audit_events WHERE action = ? ORDER BY seq').all(action) as {
    model_id: string;
    actor_user_id: string;
    context: string;
    account_id: string;
  }[];
const createWorkspace = async (name: string, token?: string) => {
  const reply = await call(emulator, 'POST', WS, {
    body: { enterpriseAccountId: rootAccount(), name },
    ...(token ? { token } : {}),
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.id as string;
};

describe('POST /v0/meta/workspaces', () => {
  it('creates the workspace with the caller as its owner and both restrictions unrestricted', async () => {
    const reply = await call(emulator, 'POST', WS, {
      body: { enterpriseAccountId: rootAccount(), name: 'Marketing' },
    });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['id']);
    const id = reply.body.id as string;
    expect(id).toMatch(/^wsp[A-Za-z0-9]{14}$/);
    expect(emulator.store.schema().workspaceById.get(id)).toEqual({
      id,
      name: 'Marketing',
      createdTime: NOW,
    });
    expect(admin(id)).toEqual({
      id,
      enterpriseAccountId: rootAccount(),
      inviteCreationRestriction: 'unrestricted',
      shareCreationRestriction: 'unrestricted',
      users: {
        [people.owner]: { permissionLevel: 'owner', createdTime: NOW, grantedByUserId: people.owner },
      },
      groups: {},
      invites: [],
    });
    const [event] = auditEvents('createWorkspace').filter((e) => e.model_id === id);
    expect(event).toMatchObject({ actor_user_id: people.owner, account_id: rootAccount() });
    // The new workspace reads back empty, its owner listed.
    const read = await call(emulator, 'GET', `${WS}/${id}?include[]=collaborators`);
    expect(read.body.baseIds).toEqual([]);
    expect(read.body.individualCollaborators.workspaceCollaborators).toEqual([
      expect.objectContaining({ userId: people.owner, permissionLevel: 'owner' }),
    ]);
  });

  it('lets any member of the organisation create in any of its accounts, and nobody else', async () => {
    // Émilie belongs to the descendant account: the root account is in her organisation.
    const fromEurope = await createWorkspace('EU projects', TOKENS.emilie);
    expect(admin(fromEurope).users[people.emilie]?.permissionLevel).toBe('owner');
    expect(admin(fromEurope).enterpriseAccountId).toBe(rootAccount());

    const outsider = await call(emulator, 'POST', WS, {
      token: TOKENS.pat,
      body: { enterpriseAccountId: rootAccount(), name: 'Intrusion' },
    });
    expectError(outsider, 403, 'INVALID_PERMISSIONS', /only members of its organisation/);
    const deactivated = await call(emulator, 'POST', WS, {
      token: TOKENS.katherine,
      body: { enterpriseAccountId: rootAccount(), name: 'Ghost' },
    });
    // A deactivated user's token stops working altogether.
    expectError(deactivated, 401, 'AUTHENTICATION_REQUIRED');
    // Pat may create in his own organisation.
    const own = await call(emulator, 'POST', WS, {
      token: TOKENS.pat,
      body: { enterpriseAccountId: accountNamed(ADMIN_SEED.otherOrganisation), name: 'Partner two' },
    });
    expect(own.status).toBe(200);
    expect(emulator.store.schema().workspaces.map((w) => w.name)).not.toContain('Intrusion');
  });

  it('answers model-not-found for an unknown account or a token without workspacesAndBases:manage', async () => {
    const unknown = await call(emulator, 'POST', WS, {
      body: { enterpriseAccountId: 'entNoSuchAccount01', name: 'X' },
    });
    expectError(unknown, 403, MODEL_NOT_FOUND);
    for (const token of [TOKENS.noWorkspaces, TOKENS.writeOnly]) {
      const reply = await call(emulator, 'POST', WS, {
        token,
        body: { enterpriseAccountId: rootAccount(), name: 'X' },
      });
      expectError(reply, 403, MODEL_NOT_FOUND);
    }
    expect((await call(emulator, 'POST', WS, { token: null, body: {} })).status).toBe(401);
    expect(emulator.store.schema().workspaces).toHaveLength(4);
  });

  it('refuses invalid bodies with 422 naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ enterpriseAccountId: rootAccount() }, /name/],
      [{ enterpriseAccountId: rootAccount(), name: '   ' }, /name/],
      [{ name: 'No account' }, /enterpriseAccountId/],
      [{ enterpriseAccountId: rootAccount(), name: 'X', color: 'blue' }, /color/],
    ];
    for (const [body, message] of cases) {
      const reply = await call(emulator, 'POST', WS, { body });
      expectError(reply, 422, 'INVALID_REQUEST_UNKNOWN', message);
    }
    const broken = await call(emulator, 'POST', WS, { rawBody: '{"name":' });
    expect(broken.status).toBe(400);
  });
});

describe('DELETE /v0/meta/workspaces/{workspaceId}', () => {
  it('deletes an empty workspace and its administration document', async () => {
    const id = await createWorkspace('Short-lived');
    const reply = await call(emulator, 'DELETE', `${WS}/${id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expect(emulator.store.schema().workspaceById.has(id)).toBe(false);
    expect(emulator.admin.state.workspaceAdmin(id)).toBeUndefined();
    expect(auditEvents('deleteWorkspace').map((e) => e.model_id)).toContain(id);
    // Gone: another delete cannot find it.
    expectError(await call(emulator, 'DELETE', `${WS}/${id}`), 403, MODEL_NOT_FOUND);
  });

  it('refuses a workspace that still holds bases, saying to move or delete them', async () => {
    const reply = await call(emulator, 'DELETE', `${WS}/${sandbox}`);
    expectError(reply, 422, 'WORKSPACE_NOT_EMPTY', /3 bases: move them .* or delete them first/);
    expect(emulator.store.schema().workspaceById.has(sandbox)).toBe(true);
    expect(emulator.store.schema().bases.filter((b) => b.workspaceId === sandbox)).toHaveLength(3);
    expect(admin(sandbox)).toBeDefined();
  });

  it('is for owners only, under workspacesAndBases:manage', async () => {
    // Alan edits the Research Workspace: he sees it, but may not delete it.
    expectError(
      await call(emulator, 'DELETE', `${WS}/${research}`, { token: TOKENS.alan }),
      403,
      'INVALID_PERMISSIONS',
      /delete this workspace: only its owners/,
    );
    // The sandbox owner does not collaborate on it at all: it does not exist for him.
    expectError(await call(emulator, 'DELETE', `${WS}/${research}`), 403, MODEL_NOT_FOUND);
    expectError(await call(emulator, 'DELETE', `${WS}/wspNoSuchWorkspac`), 403, MODEL_NOT_FOUND);
    const id = await createWorkspace('Scoped');
    expectError(
      await call(emulator, 'DELETE', `${WS}/${id}`, { token: TOKENS.writeOnly }),
      403,
      MODEL_NOT_FOUND,
    );
    expect(emulator.store.schema().workspaceById.has(id)).toBe(true);
    // Grace owns Research, which is empty: she may.
    expect((await call(emulator, 'DELETE', `${WS}/${research}`, { token: TOKENS.grace })).status).toBe(200);
  });
});

describe('GET /v0/meta/workspaces/{workspaceId}', () => {
  it('describes the workspace: name, creation time, bases in order, restrictions; nothing else unasked', async () => {
    const reply = await call(emulator, 'GET', `${WS}/${sandbox}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      id: sandbox,
      name: 'Sandbox Workspace',
      createdTime: emulator.store.schema().workspaceById.get(sandbox)!.createdTime,
      baseIds: [base.roadmap, base.crm, base.calendar],
      workspaceRestrictions: {
        inviteCreationRestriction: 'unrestricted',
        shareCreationRestriction: 'unrestricted',
      },
    });
  });

  it('includes collaborators (workspace and base, individual and group) and invite links on request', async () => {
    const reply = await call(
      emulator,
      'GET',
      `${WS}/${sandbox}?include[]=collaborators&include[]=inviteLinks`,
    );
    expect(reply.status).toBe(200);
    const body = reply.body;
    expect(body.individualCollaborators.workspaceCollaborators).toEqual([
      {
        userId: people.owner,
        email: 'owner@sandbox.example.com',
        permissionLevel: 'owner',
        createdTime: expect.any(String),
        grantedByUserId: people.owner,
      },
    ]);
    // Ada edits the roadmap directly; the seed says the owner granted it.
    expect(body.individualCollaborators.baseCollaborators).toContainEqual({
      baseId: base.roadmap,
      userId: people.ada,
      email: 'ada@sandbox.example.com',
      permissionLevel: 'edit',
      createdTime: expect.any(String),
      grantedByUserId: people.owner,
    });
    // Alan has no grant on the roadmap, so he is not listed for it.
    expect(
      body.individualCollaborators.baseCollaborators.filter(
        (c: Loose) => c.baseId === base.roadmap && c.userId === people.alan,
      ),
    ).toEqual([]);
    expect(body.groupCollaborators.workspaceCollaborators).toEqual([]);
    expect(body.groupCollaborators.baseCollaborators).toContainEqual({
      baseId: base.roadmap,
      groupId: group.engineering,
      name: ADMIN_SEED.groups.engineering,
      permissionLevel: 'read',
      createdTime: expect.any(String),
      grantedByUserId: people.owner,
    });
    // The sample's older name for the individual collaborators.
    expect(body.collaborators).toEqual(body.individualCollaborators);
    expect(body.inviteLinks.workspaceInviteLinks).toEqual([
      {
        id: expect.stringMatching(/^inv/),
        type: 'singleUse',
        invitedEmail: `newhire@${ADMIN_SEED.domain}`,
        permissionLevel: 'edit',
        referredByUserId: people.owner,
        restrictedToEmailDomains: [],
        createdTime: expect.any(String),
      },
    ]);
    expect(body.inviteLinks.baseInviteLinks).toEqual([
      expect.objectContaining({
        baseId: base.roadmap,
        invitedEmail: 'contractor@example.org',
        permissionLevel: 'comment',
      }),
    ]);
    // Only what was asked for.
    const linksOnly = await call(emulator, 'GET', `${WS}/${sandbox}?include[]=inviteLinks`);
    expect(linksOnly.body.inviteLinks).toBeDefined();
    expect(linksOnly.body.individualCollaborators).toBeUndefined();
    expect(linksOnly.body.groupCollaborators).toBeUndefined();
  });

  it('leaves out collaborators whose user or group is gone, never answering null for them', async () => {
    // The upstream "does not include deleted collaborators". The API cleans grants up when it deletes a user or
    // a group; grants left dangling (here written straight into the state) must not surface as null names.
    const grant = { ...admin(sandbox).users[people.owner]!, permissionLevel: 'edit' as const };
    emulator.admin.state.update('workspace', sandbox, (w) => {
      w.users.usrGoneGoneGone00 = grant;
      w.groups.ugpGoneGoneGone00 = grant;
    });
    emulator.admin.state.update('base', base.roadmap, (b) => {
      b.groups.ugpGoneGoneGone00 = { ...grant, permissionLevel: 'read' };
    });
    const reply = await call(emulator, 'GET', `${WS}/${sandbox}?include[]=collaborators`);
    expect(reply.status).toBe(200);
    const { individualCollaborators, groupCollaborators } = reply.body;
    expect(individualCollaborators.workspaceCollaborators.map((c: Loose) => c.userId)).toEqual([
      people.owner,
    ]);
    expect(groupCollaborators.workspaceCollaborators).toEqual([]);
    expect(groupCollaborators.baseCollaborators.map((c: Loose) => c.groupId)).not.toContain(
      'ugpGoneGoneGone00',
    );
    for (const c of [
      ...individualCollaborators.workspaceCollaborators,
      ...individualCollaborators.baseCollaborators,
    ])
      expect(typeof c.email).toBe('string');
    for (const c of groupCollaborators.baseCollaborators) expect(typeof c.name).toBe('string');
  });

  it('shows an invite link in one shape, keys in one order, whichever route lists it', async () => {
    const fromWorkspace = await call(emulator, 'GET', `${WS}/${sandbox}?include[]=inviteLinks`);
    const fromBase = await call(emulator, 'GET', `/v0/meta/bases/${base.roadmap}?include[]=inviteLinks`);
    expect(fromBase.status).toBe(200);
    const [workspaceInvite] = fromWorkspace.body.inviteLinks.workspaceInviteLinks;
    expect(fromBase.body.inviteLinks.workspaceInviteLinks).toEqual([workspaceInvite]);
    expect(Object.keys(fromBase.body.inviteLinks.workspaceInviteLinks[0])).toEqual(
      Object.keys(workspaceInvite),
    );
    // A base's own invites too, under the workspace route with the base's id in front.
    const [baseInvite] = fromBase.body.inviteLinks.baseInviteLinks;
    const listed = fromWorkspace.body.inviteLinks.baseInviteLinks.find((i: Loose) => i.id === baseInvite.id);
    expect(listed).toEqual({ baseId: base.roadmap, ...baseInvite });
    expect(Object.keys(listed)).toEqual(['baseId', ...Object.keys(baseInvite)]);
  });

  it('shows the Research Workspace to its collaborators with its onlyOwners restriction', async () => {
    const reply = await call(emulator, 'GET', `${WS}/${research}?include[]=collaborators`, {
      token: TOKENS.alan,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.workspaceRestrictions).toEqual({
      inviteCreationRestriction: 'onlyOwners',
      shareCreationRestriction: 'unrestricted',
    });
    expect(
      reply.body.individualCollaborators.workspaceCollaborators.map((c: Loose) => [
        c.userId,
        c.permissionLevel,
      ]),
    ).toEqual([
      [people.grace, 'owner'],
      [people.alan, 'edit'],
    ]);
  });

  it('refuses unknown includes, missing scopes, and workspaces the caller does not collaborate on', async () => {
    expectError(
      await call(emulator, 'GET', `${WS}/${sandbox}?include[]=bases`),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /include: "bases"/,
    );
    expectError(
      await call(emulator, 'GET', `${WS}/${sandbox}`, { token: TOKENS.noWorkspaces }),
      403,
      MODEL_NOT_FOUND,
    );
    expect((await call(emulator, 'GET', `${WS}/${sandbox}`, { token: TOKENS.readOnly })).status).toBe(200);
    expectError(await call(emulator, 'GET', `${WS}/${research}`), 403, MODEL_NOT_FOUND);
    expectError(await call(emulator, 'GET', `${WS}/${partner}`), 403, MODEL_NOT_FOUND);
    expectError(await call(emulator, 'GET', `${WS}/wspNoSuchWorkspac`), 403, MODEL_NOT_FOUND);
  });
});

describe('workspace collaborators', () => {
  const add = (workspaceId: string, collaborators: unknown[], token?: string) =>
    call(emulator, 'POST', `${WS}/${workspaceId}/collaborators`, {
      body: { collaborators },
      ...(token ? { token } : {}),
    });

  it('adds users and groups, recording who granted what when', async () => {
    // One collaborator per request, as upstream: a user, then a group a minute later.
    emulator.clock.advance(60_000);
    const userReply = await add(sandbox, [{ user: { id: people.margaret }, permissionLevel: 'read' }]);
    expect(userReply.status, userReply.text).toBe(200);
    expect(userReply.body).toEqual({});
    const userAt = emulator.clock.now().toISOString();
    emulator.clock.advance(60_000);
    const groupReply = await add(sandbox, [{ group: { id: group.support }, permissionLevel: 'comment' }]);
    expect(groupReply.status, groupReply.text).toBe(200);
    expect(groupReply.body).toEqual({});
    const groupAt = emulator.clock.now().toISOString();
    expect(groupAt).not.toBe(userAt);
    expect(admin(sandbox).users[people.margaret]).toEqual({
      permissionLevel: 'read',
      createdTime: userAt,
      grantedByUserId: people.owner,
    });
    expect(admin(sandbox).groups[group.support]).toEqual({
      permissionLevel: 'comment',
      createdTime: groupAt,
      grantedByUserId: people.owner,
    });
    const read = await call(emulator, 'GET', `${WS}/${sandbox}?include[]=collaborators`);
    expect(read.body.groupCollaborators.workspaceCollaborators).toEqual([
      expect.objectContaining({ groupId: group.support, name: 'Support', permissionLevel: 'comment' }),
    ]);
    const events = auditEvents('addWorkspaceCollaborators');
    expect(events).toHaveLength(2);
    for (const event of events) {
      expect(event.model_id).toBe(sandbox);
      expect(JSON.parse(event.context)).toMatchObject({ workspaceId: sandbox });
    }
  });

  it('flows into base access: a workspace reader reads its bases with her own token until removed', async () => {
    const teams = ids(emulator, 'Product Roadmap', 'Teams');
    const list = () => call(emulator, 'GET', `/v0/${teams.base}/${teams.table}`, { token: TOKENS.margaret });
    // Margaret has no grant on the roadmap: she cannot see it.
    expectError(await list(), 403, MODEL_NOT_FOUND);

    expect((await add(sandbox, [{ user: { id: people.margaret }, permissionLevel: 'read' }])).status).toBe(
      200,
    );
    const listed = await list();
    expect(listed.status).toBe(200);
    expect(listed.body.records.length).toBeGreaterThan(0);
    expect(emulator.store.permissionOf(base.roadmap, people.margaret)).toBe('read');
    // Read only: writing is refused.
    const write = await call(emulator, 'POST', `/v0/${teams.base}/${teams.table}`, {
      token: TOKENS.margaret,
      body: { fields: { Name: 'Nope' } },
    });
    expect(write.status).toBe(403);

    const removed = await call(emulator, 'DELETE', `${WS}/${sandbox}/collaborators/${people.margaret}`);
    expect(removed.status).toBe(200);
    expect(admin(sandbox).users[people.margaret]).toBeUndefined();
    expectError(await list(), 403, MODEL_NOT_FOUND);
    expect(emulator.store.permissionOf(base.roadmap, people.margaret)).toBe('none');
  });

  it('flows into base access through groups too', async () => {
    // Alan (Support) has nothing on the CRM; Support as workspace editors gives him edit there.
    expect(emulator.store.permissionOf(base.crm, people.alan)).toBe('none');
    expect((await add(sandbox, [{ group: { id: group.support }, permissionLevel: 'edit' }])).status).toBe(
      200,
    );
    expect(emulator.store.permissionOf(base.crm, people.alan)).toBe('edit');
    await call(emulator, 'DELETE', `${WS}/${sandbox}/collaborators/${group.support}`);
    expect(emulator.store.permissionOf(base.crm, people.alan)).toBe('none');
  });

  it("honours the Research Workspace's onlyOwners invite restriction", async () => {
    const refused = await add(research, [{ user: { id: people.ada }, permissionLevel: 'read' }], TOKENS.alan);
    expectError(refused, 403, 'INVALID_PERMISSIONS', /inviteCreationRestriction is onlyOwners/);
    expect(admin(research).users[people.ada]).toBeUndefined();

    const byOwner = await add(
      research,
      [{ user: { id: people.ada }, permissionLevel: 'read' }],
      TOKENS.grace,
    );
    expect(byOwner.status).toBe(200);
    expect(admin(research).users[people.ada]?.grantedByUserId).toBe(people.grace);

    // Lifted, Alan (an editor) may invite up to his own level, never above it.
    await call(emulator, 'POST', `${WS}/${research}/updateRestrictions`, {
      token: TOKENS.grace,
      body: { inviteCreationRestriction: 'unrestricted' },
    });
    const asEditor = await add(
      research,
      [{ user: { id: people.margaret }, permissionLevel: 'edit' }],
      TOKENS.alan,
    );
    expect(asEditor.status).toBe(200);
    expectError(
      await add(research, [{ user: { id: people.owner }, permissionLevel: 'create' }], TOKENS.alan),
      403,
      'INVALID_PERMISSIONS',
      /at most your own level \(edit\)/,
    );
  });

  it('takes an owner to grant owner', async () => {
    expect((await add(sandbox, [{ user: { id: people.ada }, permissionLevel: 'create' }])).status).toBe(200);
    expectError(
      await add(sandbox, [{ user: { id: people.margaret }, permissionLevel: 'owner' }], TOKENS.ada),
      403,
      'INVALID_PERMISSIONS',
      /grant owner access to this workspace: only its owners/,
    );
    expect(admin(sandbox).users[people.margaret]).toBeUndefined();
    expect(
      (await add(sandbox, [{ user: { id: people.margaret }, permissionLevel: 'create' }], TOKENS.ada)).status,
    ).toBe(200);
    expect((await add(sandbox, [{ user: { id: people.alan }, permissionLevel: 'owner' }])).status).toBe(200);
    expect(emulator.admin.state.ownersOf(sandbox)).toEqual([people.owner, people.alan]);
  });

  it('refuses unknown ids, existing collaborators and groups of another organisation, adding none', async () => {
    const cases: [unknown[], RegExp][] = [
      [
        [{ user: { id: 'usrNoSuchUser0001' }, permissionLevel: 'read' }],
        /collaborators\[0\]\.user\.id: there is no user/,
      ],
      [
        [{ group: { id: 'ugpNoSuchGroup001' }, permissionLevel: 'read' }],
        /collaborators\[0\]\.group\.id: there is no user group/,
      ],
      [[{ user: { id: people.owner }, permissionLevel: 'edit' }], /already a collaborator/],
      [[{ group: { id: group.partner }, permissionLevel: 'read' }], /another enterprise organisation/],
    ];
    const before = structuredClone(admin(sandbox));
    for (const [collaborators, message] of cases) {
      expectError(await add(sandbox, collaborators), 422, 'INVALID_REQUEST_UNKNOWN', message);
    }
    // Nothing of a refused request was kept.
    expect(admin(sandbox)).toEqual(before);
    expect(Object.keys(admin(sandbox).users)).toEqual([people.owner]);
    expect(admin(sandbox).users[people.owner]?.permissionLevel).toBe('owner');
    expect(auditEvents('addWorkspaceCollaborators')).toEqual([]);
    // A group of a descendant account is of the same organisation.
    expect((await add(sandbox, [{ group: { id: group.europe }, permissionLevel: 'read' }])).status).toBe(200);
  });

  it('refuses two collaborators in one request with the upstream’s 403, before the body’s checks, adding none', async () => {
    const pairs: unknown[][] = [
      // Two valid, distinct entries: a user and a group.
      [
        { user: { id: people.margaret }, permissionLevel: 'read' },
        { group: { id: group.support }, permissionLevel: 'comment' },
      ],
      // The same user twice (formerly "named more than once").
      [
        { user: { id: people.ada }, permissionLevel: 'read' },
        { user: { id: people.ada }, permissionLevel: 'edit' },
      ],
      // A valid entry before an unknown group.
      [
        { user: { id: people.ada }, permissionLevel: 'read' },
        { group: { id: 'ugpNoSuchGroup001' }, permissionLevel: 'read' },
      ],
      // Entries the schema would refuse (no admin level): the count is checked first.
      [
        { user: { id: people.ada }, permissionLevel: 'admin' },
        { user: { id: people.margaret }, permissionLevel: 'admin' },
      ],
    ];
    const before = structuredClone(admin(sandbox));
    for (const collaborators of pairs) {
      expectError(
        await add(sandbox, collaborators),
        403,
        'INVALID_PERMISSIONS',
        /^This route currently supports adding only one collaborator at a time$/,
      );
    }
    expect(admin(sandbox)).toEqual(before);
    expect(Object.keys(admin(sandbox).users)).toEqual([people.owner]);
    expect(admin(sandbox).groups[group.support]).toBeUndefined();
    expect(auditEvents('addWorkspaceCollaborators')).toEqual([]);
    // One of them alone is accepted.
    expect((await add(sandbox, [{ user: { id: people.margaret }, permissionLevel: 'read' }])).status).toBe(
      200,
    );
    expect(admin(sandbox).users[people.margaret]?.permissionLevel).toBe('read');
  });

  it('refuses invalid bodies, missing scopes and strangers', async () => {
    const invalid: [unknown, RegExp][] = [
      [{ collaborators: [] }, /collaborators/],
      [{ collaborators: [{ user: { id: people.ada }, permissionLevel: 'admin' }] }, /permissionLevel/],
      [
        {
          collaborators: [
            { user: { id: people.ada }, group: { id: group.support }, permissionLevel: 'read' },
          ],
        },
        /not both/,
      ],
      [{}, /collaborators/],
    ];
    for (const [body, message] of invalid) {
      const reply = await call(emulator, 'POST', `${WS}/${sandbox}/collaborators`, { body });
      expectError(reply, 422, 'INVALID_REQUEST_UNKNOWN', message);
    }
    expectError(
      await add(sandbox, [{ user: { id: people.ada }, permissionLevel: 'read' }], TOKENS.readOnly),
      403,
      MODEL_NOT_FOUND,
    );
    expectError(
      await add(research, [{ user: { id: people.ada }, permissionLevel: 'read' }]),
      403,
      MODEL_NOT_FOUND,
    );
    expect(admin(sandbox).users[people.ada]).toBeUndefined();
  });

  it('changes a permission level (PATCH)', async () => {
    const reply = await call(emulator, 'PATCH', `${WS}/${research}/collaborators/${people.alan}`, {
      token: TOKENS.grace,
      body: { permissionLevel: 'comment' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expect(admin(research).users[people.alan]?.permissionLevel).toBe('comment');
    // Groups too.
    await add(sandbox, [{ group: { id: group.support }, permissionLevel: 'read' }]);
    const groupReply = await call(emulator, 'PATCH', `${WS}/${sandbox}/collaborators/${group.support}`, {
      body: { permissionLevel: 'create' },
    });
    expect(groupReply.status).toBe(200);
    expect(admin(sandbox).groups[group.support]?.permissionLevel).toBe('create');
  });

  it('refuses demoting or removing the last owner until someone else owns the workspace', async () => {
    const demote = () =>
      call(emulator, 'PATCH', `${WS}/${research}/collaborators/${people.grace}`, {
        token: TOKENS.grace,
        body: { permissionLevel: 'create' },
      });
    expectError(await demote(), 422, 'CANNOT_REMOVE_LAST_OWNER', /make someone else an owner first/);
    expectError(
      await call(emulator, 'DELETE', `${WS}/${research}/collaborators/${people.grace}`, {
        token: TOKENS.grace,
      }),
      422,
      'CANNOT_REMOVE_LAST_OWNER',
    );
    expect(admin(research).users[people.grace]?.permissionLevel).toBe('owner');

    const promote = await call(emulator, 'PATCH', `${WS}/${research}/collaborators/${people.alan}`, {
      token: TOKENS.grace,
      body: { permissionLevel: 'owner' },
    });
    expect(promote.status).toBe(200);
    expect((await demote()).status).toBe(200);
    expect(emulator.admin.state.ownersOf(research)).toEqual([people.alan]);
    // And now Alan is the last one.
    expectError(
      await call(emulator, 'DELETE', `${WS}/${research}/collaborators/${people.alan}`, {
        token: TOKENS.alan,
      }),
      422,
      'CANNOT_REMOVE_LAST_OWNER',
    );
  });

  it('keeps lower levels from changing others or raising themselves, but lets anyone leave', async () => {
    expectError(
      await call(emulator, 'PATCH', `${WS}/${research}/collaborators/${people.grace}`, {
        token: TOKENS.alan,
        body: { permissionLevel: 'read' },
      }),
      403,
      'INVALID_PERMISSIONS',
      /needs owner or creator access/,
    );
    expectError(
      await call(emulator, 'PATCH', `${WS}/${research}/collaborators/${people.alan}`, {
        token: TOKENS.alan,
        body: { permissionLevel: 'create' },
      }),
      403,
      'INVALID_PERMISSIONS',
      /at most your own level/,
    );
    expectError(
      await call(emulator, 'DELETE', `${WS}/${research}/collaborators/${people.grace}`, {
        token: TOKENS.alan,
      }),
      403,
      'INVALID_PERMISSIONS',
    );
    expect(admin(research).users[people.alan]?.permissionLevel).toBe('edit');
    const leave = await call(emulator, 'DELETE', `${WS}/${research}/collaborators/${people.alan}`, {
      token: TOKENS.alan,
    });
    expect(leave.status).toBe(200);
    expect(admin(research).users[people.alan]).toBeUndefined();
  });

  it('answers 404 for someone who is not a collaborator, and checks the body and scope', async () => {
    expectError(
      await call(emulator, 'PATCH', `${WS}/${sandbox}/collaborators/${people.ada}`, {
        body: { permissionLevel: 'read' },
      }),
      404,
      'NOT_FOUND',
      new RegExp(people.ada),
    );
    expectError(
      await call(emulator, 'DELETE', `${WS}/${sandbox}/collaborators/usrNoSuchUser0001`),
      404,
      'NOT_FOUND',
    );
    await add(sandbox, [{ user: { id: people.ada }, permissionLevel: 'read' }]);
    expectError(
      await call(emulator, 'PATCH', `${WS}/${sandbox}/collaborators/${people.ada}`, {
        body: { permissionLevel: 'superuser' },
      }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /permissionLevel/,
    );
    expectError(
      await call(emulator, 'PATCH', `${WS}/${sandbox}/collaborators/${people.ada}`, {
        token: TOKENS.readOnly,
        body: { permissionLevel: 'edit' },
      }),
      403,
      MODEL_NOT_FOUND,
    );
    expectError(
      await call(emulator, 'DELETE', `${WS}/${sandbox}/collaborators/${people.ada}`, {
        token: TOKENS.readOnly,
      }),
      403,
      MODEL_NOT_FOUND,
    );
    expect(admin(sandbox).users[people.ada]?.permissionLevel).toBe('read');
  });
});

describe('DELETE /v0/meta/workspaces/{workspaceId}/invites/{inviteId}', () => {
  it('withdraws an outstanding invite; a second try or an unknown id is 404', async () => {
    const [invite] = admin(sandbox).invites;
    const reply = await call(emulator, 'DELETE', `${WS}/${sandbox}/invites/${invite!.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expect(admin(sandbox).invites).toEqual([]);
    expect(auditEvents('deleteWorkspaceInvite').map((e) => e.model_id)).toEqual([invite!.id]);
    expectError(
      await call(emulator, 'DELETE', `${WS}/${sandbox}/invites/${invite!.id}`),
      404,
      'NOT_FOUND',
      /invite/,
    );
    expectError(
      await call(emulator, 'DELETE', `${WS}/${sandbox}/invites/invNoSuchInvite01`),
      404,
      'NOT_FOUND',
    );
  });

  it('is for the sender and creators or owners, under workspacesAndBases:write', async () => {
    const [invite] = admin(sandbox).invites;
    await call(emulator, 'POST', `${WS}/${sandbox}/collaborators`, {
      body: { collaborators: [{ user: { id: people.ada }, permissionLevel: 'edit' }] },
    });
    expectError(
      await call(emulator, 'DELETE', `${WS}/${sandbox}/invites/${invite!.id}`, { token: TOKENS.ada }),
      403,
      'INVALID_PERMISSIONS',
      /only its sender/,
    );
    expectError(
      await call(emulator, 'DELETE', `${WS}/${sandbox}/invites/${invite!.id}`, { token: TOKENS.readOnly }),
      403,
      MODEL_NOT_FOUND,
    );
    expectError(
      await call(emulator, 'DELETE', `${WS}/${sandbox}/invites/${invite!.id}`, { token: TOKENS.grace }),
      403,
      MODEL_NOT_FOUND,
    );
    expect(admin(sandbox).invites).toHaveLength(1);
    expect(
      (await call(emulator, 'DELETE', `${WS}/${sandbox}/invites/${invite!.id}`, { token: TOKENS.writeOnly }))
        .status,
    ).toBe(200);
  });
});

describe('POST /v0/meta/workspaces/{workspaceId}/moveBase', () => {
  const move = (from: string, body: unknown, token?: string) =>
    call(emulator, 'POST', `${WS}/${from}/moveBase`, { body, ...(token ? { token } : {}) });
  const baseIdsOf = async (workspaceId: string, token?: string) =>
    (await call(emulator, 'GET', `${WS}/${workspaceId}`, token ? { token } : {})).body.baseIds;

  it('moves a base, last by default or at targetIndex, and reorders within a workspace', async () => {
    const target = await createWorkspace('Archive');
    const first = await move(sandbox, { baseId: base.calendar, targetWorkspaceId: target });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({});
    expect(emulator.store.schema().baseById.get(base.calendar)?.workspaceId).toBe(target);
    expect(await baseIdsOf(target)).toEqual([base.calendar]);
    expect(await baseIdsOf(sandbox)).toEqual([base.roadmap, base.crm]);

    // The CRM was created before the calendar, yet goes last unless placed.
    expect((await move(sandbox, { baseId: base.crm, targetWorkspaceId: target })).status).toBe(200);
    expect(await baseIdsOf(target)).toEqual([base.calendar, base.crm]);
    expect(
      (await move(sandbox, { baseId: base.roadmap, targetWorkspaceId: target, targetIndex: 1 })).status,
    ).toBe(200);
    expect(await baseIdsOf(target)).toEqual([base.calendar, base.roadmap, base.crm]);
    // Within the same workspace, targetIndex reorders.
    expect((await move(target, { baseId: base.crm, targetWorkspaceId: target, targetIndex: 0 })).status).toBe(
      200,
    );
    expect(await baseIdsOf(target)).toEqual([base.crm, base.calendar, base.roadmap]);
    expect(await baseIdsOf(sandbox)).toEqual([]);
    // A base created there later goes last.
    const created = await call(emulator, 'POST', '/v0/meta/bases', {
      body: {
        name: 'Later',
        workspaceId: target,
        tables: [{ name: 'T', fields: [{ name: 'Name', type: 'singleLineText' }] }],
      },
    });
    expect(created.status, created.text).toBe(200);
    expect(await baseIdsOf(target)).toEqual([base.crm, base.calendar, base.roadmap, created.body.id]);
    expect(auditEvents('moveBase').map((e) => e.model_id)).toEqual([sandbox, sandbox, sandbox, target]);
    // The emptied workspace may go now.
    expect((await call(emulator, 'DELETE', `${WS}/${sandbox}`)).status).toBe(200);
  });

  it('forgets the order on /_emulator/reset', async () => {
    expect(
      (await move(sandbox, { baseId: base.calendar, targetWorkspaceId: sandbox, targetIndex: 0 })).status,
    ).toBe(200);
    expect(await baseIdsOf(sandbox)).toEqual([base.calendar, base.roadmap, base.crm]);
    expect((await call(emulator, 'POST', '/_emulator/reset', { body: {} })).status).toBe(200);
    expect(await baseIdsOf(sandbox)).toEqual([base.roadmap, base.crm, base.calendar]);
  });

  it("changes base access with the workspace: the target's collaborators reach it", async () => {
    // Grace (owner of Research, onlyOwners) lets the sandbox owner create there; Alan edits Research.
    const invited = await call(emulator, 'POST', `${WS}/${research}/collaborators`, {
      token: TOKENS.grace,
      body: { collaborators: [{ user: { id: people.owner }, permissionLevel: 'create' }] },
    });
    expect(invited.status).toBe(200);
    expect(emulator.store.permissionOf(base.crm, people.alan)).toBe('none');
    expect((await move(sandbox, { baseId: base.crm, targetWorkspaceId: research })).status).toBe(200);
    expect(emulator.store.permissionOf(base.crm, people.alan)).toBe('edit');
    expect(await baseIdsOf(research, TOKENS.alan)).toEqual([base.crm]);
  });

  it('refuses a target in another organisation, naming it', async () => {
    // Even an owner of both may not move a base across organisations.
    emulator.admin.state.update('workspace', partner, (doc) => {
      doc.users[people.owner] = { permissionLevel: 'owner', createdTime: NOW, grantedByUserId: people.pat };
    });
    const reply = await move(sandbox, { baseId: base.roadmap, targetWorkspaceId: partner });
    expectError(reply, 422, 'INVALID_REQUEST_UNKNOWN', /belongs to another enterprise organisation/);
    expect(emulator.store.schema().baseById.get(base.roadmap)?.workspaceId).toBe(sandbox);
    // The descendant account's workspace is of the same organisation.
    emulator.admin.state.update('workspace', europe, (doc) => {
      doc.users[people.owner] = {
        permissionLevel: 'create',
        createdTime: NOW,
        grantedByUserId: people.emilie,
      };
    });
    expect((await move(sandbox, { baseId: base.roadmap, targetWorkspaceId: europe })).status).toBe(200);
  });

  it('needs owner or creator access on both sides, under workspacesAndBases:manage', async () => {
    // No access at all to the target: it does not exist for the caller.
    expectError(
      await move(sandbox, { baseId: base.roadmap, targetWorkspaceId: partner }),
      403,
      MODEL_NOT_FOUND,
    );
    // Read access to the target is not enough.
    await call(emulator, 'POST', `${WS}/${research}/collaborators`, {
      token: TOKENS.grace,
      body: { collaborators: [{ user: { id: people.owner }, permissionLevel: 'read' }] },
    });
    expectError(
      await move(sandbox, { baseId: base.roadmap, targetWorkspaceId: research }),
      403,
      'INVALID_PERMISSIONS',
      /move bases into workspace/,
    );
    // Alan edits Research: not enough to move its bases out.
    expectError(
      await move(research, { baseId: base.roadmap, targetWorkspaceId: sandbox }, TOKENS.alan),
      403,
      'INVALID_PERMISSIONS',
      /move bases out of this workspace/,
    );
    expectError(
      await move(sandbox, { baseId: base.roadmap, targetWorkspaceId: sandbox }, TOKENS.writeOnly),
      403,
      MODEL_NOT_FOUND,
    );
    expect(emulator.store.schema().bases.every((b) => b.workspaceId === sandbox)).toBe(true);
  });

  it('refuses a base not in the path workspace, an unknown target, a bad index and invalid bodies', async () => {
    const target = await createWorkspace('Target');
    const cases: [string, unknown, RegExp][] = [
      [target, { baseId: base.roadmap, targetWorkspaceId: sandbox }, /baseId: .* is not a base of workspace/],
      [sandbox, { baseId: 'appNoSuchBase0001', targetWorkspaceId: target }, /is not a base of workspace/],
      [
        sandbox,
        { baseId: base.roadmap, targetWorkspaceId: 'wspNoSuchWorkspac' },
        /targetWorkspaceId: there is no workspace/,
      ],
      [
        sandbox,
        { baseId: base.roadmap, targetWorkspaceId: target, targetIndex: 1 },
        /targetIndex: .* from 0 to 0/,
      ],
      [sandbox, { baseId: base.roadmap, targetWorkspaceId: target, targetIndex: -1 }, /targetIndex/],
      [sandbox, { targetWorkspaceId: target }, /baseId/],
      [sandbox, { baseId: base.roadmap }, /targetWorkspaceId/],
    ];
    for (const [from, body, message] of cases) {
      expectError(await move(from, body), 422, 'INVALID_REQUEST_UNKNOWN', message);
    }
    expect(emulator.store.schema().bases.every((b) => b.workspaceId === sandbox)).toBe(true);
  });
});

describe('POST /v0/meta/workspaces/{workspaceId}/updateRestrictions', () => {
  const update = (workspaceId: string, body: unknown, token?: string) =>
    call(emulator, 'POST', `${WS}/${workspaceId}/updateRestrictions`, { body, ...(token ? { token } : {}) });

  it('sets either restriction or both, leaving the other as it was', async () => {
    const reply = await update(research, { shareCreationRestriction: 'onlyOwners' }, TOKENS.grace);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expect(admin(research)).toMatchObject({
      inviteCreationRestriction: 'onlyOwners',
      shareCreationRestriction: 'onlyOwners',
    });
    expect(emulator.admin.state.mayCreateIn(research, people.alan, 'share')).toBe(false);
    expect(emulator.admin.state.mayCreateIn(research, people.grace, 'share')).toBe(true);
    await update(
      research,
      { inviteCreationRestriction: 'unrestricted', shareCreationRestriction: 'unrestricted' },
      TOKENS.grace,
    );
    const read = await call(emulator, 'GET', `${WS}/${research}`, { token: TOKENS.alan });
    expect(read.body.workspaceRestrictions).toEqual({
      inviteCreationRestriction: 'unrestricted',
      shareCreationRestriction: 'unrestricted',
    });
    expect(auditEvents('updateWorkspaceRestrictions')).toHaveLength(2);
  });

  it('is for owners only and checks the body and scope', async () => {
    expectError(
      await update(research, { inviteCreationRestriction: 'unrestricted' }, TOKENS.alan),
      403,
      'INVALID_PERMISSIONS',
      /only its owners/,
    );
    expectError(await update(research, { inviteCreationRestriction: 'unrestricted' }), 403, MODEL_NOT_FOUND);
    expectError(
      await update(sandbox, { inviteCreationRestriction: 'onlyOwners' }, TOKENS.readOnly),
      403,
      MODEL_NOT_FOUND,
    );
    expectError(
      await update(research, {}, TOKENS.grace),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /inviteCreationRestriction/,
    );
    expectError(
      await update(research, { shareCreationRestriction: 'everyone' }, TOKENS.grace),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /shareCreationRestriction/,
    );
    expect(admin(research).inviteCreationRestriction).toBe('onlyOwners');
    expect(admin(research).shareCreationRestriction).toBe('unrestricted');
  });
});
