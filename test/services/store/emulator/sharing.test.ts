// Who may use a base and how it is shared: the base's collaborators, invite links and interfaces, base and
// interface collaborators added, changed and removed (with the workspace's invite restriction and the last-creator
// rule), invites withdrawn, extensions turned on, off and deleted, shares listed, toggled (with the share
// restriction) and deleted. Each endpoint: success with the state change, scope and access refusals, unknown
// ids and invalid bodies. A collaborator added here really reaches the base's records with her own token.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../../../src/services/store/emulator/auth.js';
import { call, ids, type Loose, makeEmulator, NOW, READ_ONLY_TOKEN, type TestEmulator } from './helpers.js';

// User ids are deterministic for the default seed: read them once from a throwaway emulator.
const probe = makeEmulator();
const [owner, ada, grace, alan, katherine, margaret, , , pat] = probe.store.schema().users.map((u) => u.id);
probe.close();

const ADA = 'pat_ada_all';
const GRACE = 'pat_grace_all';
const ALAN = 'pat_alan_all';
const MARGARET = 'pat_margaret_admin';
const PAT = 'pat_partner_admin';
/** The owner, with every scope but the ones this family needs. */
const NO_SHARING = 'pat_owner_no_sharing';
/** The owner, allowed to read collaborators but not to manage shares. */
const READ_ONLY_ADMIN = 'pat_owner_workspaces_read';

const MODEL_NOT_FOUND = 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND';

let emulator: TestEmulator;
let roadmap: string;
let crm: string;
let calendar: string;
let workspaceId: string;

beforeEach(() => {
  emulator = makeEmulator({
    tokens: [
      { token: READ_ONLY_TOKEN, scopes: ['data.records:read', 'schema.bases:read'] },
      { token: ADA, userId: ada!, scopes: ALL_SCOPES },
      { token: GRACE, userId: grace!, scopes: ALL_SCOPES },
      { token: ALAN, userId: alan!, scopes: ALL_SCOPES },
      { token: MARGARET, userId: margaret!, scopes: ALL_SCOPES },
      { token: PAT, userId: pat!, scopes: ALL_SCOPES },
      {
        token: NO_SHARING,
        scopes: ALL_SCOPES.filter(
          (s) =>
            ![
              'workspacesAndBases:read',
              'workspacesAndBases:write',
              'workspacesAndBases.shares:manage',
            ].includes(s),
        ),
      },
      { token: READ_ONLY_ADMIN, scopes: ['workspacesAndBases:read'] },
    ],
  });
  roadmap = ids(emulator, 'Product Roadmap', 'Features').base;
  crm = ids(emulator, 'Sales CRM', 'Deals').base;
  calendar = ids(emulator, 'Content Calendar', 'Posts').base;
  workspaceId = emulator.store.schema().baseById.get(roadmap)!.workspaceId;
});
afterEach(() => emulator.close());

const state = () => emulator.admin.state;
const groupId = (name: string) =>
  state()
    .list('group')
    .find((g) => g.name === name)!.id;
const interfaceId = (name: string) =>
  state()
    .list('interface')
    .find((i) => i.name === name)!.id;
const restrict = (what: 'inviteCreationRestriction' | 'shareCreationRestriction') =>
  state().update('workspace', workspaceId, (w) => {
    w[what] = 'onlyOwners';
  });
const lastAudit = (): Loose => emulator.admin.collection('audit_events')?.[0];

function expectError(res: { status: number; body: Loose }, status: number, type: string, text?: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.type).toBe(type);
  if (text) expect(res.body.error.message).toMatch(text);
}

describe('GET /v0/meta/bases/{baseId}: collaborators, invite links, interfaces', () => {
  it('answers the base alone without include, with the caller’s level', async () => {
    const res = await call(emulator, 'GET', `/v0/meta/bases/${roadmap}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: roadmap,
      name: 'Product Roadmap',
      createdTime: expect.any(String),
      permissionLevel: 'create',
      workspaceId,
    });
    const asAda = await call(emulator, 'GET', `/v0/meta/bases/${roadmap}`, { token: ADA });
    expect(asAda.body.permissionLevel).toBe('edit');
  });

  it('includes individual and group collaborators of the base and its workspace', async () => {
    const res = await call(emulator, 'GET', `/v0/meta/bases/${roadmap}?include[]=collaborators`);
    expect(res.status).toBe(200);
    expect(res.body.inviteLinks).toBeUndefined();
    expect(res.body.interfaces).toBeUndefined();
    const individual = res.body.individualCollaborators;
    expect(individual.baseCollaborators.map((c: Loose) => [c.userId, c.email, c.permissionLevel])).toEqual([
      [owner, 'owner@sandbox.example.com', 'create'],
      [ada, 'ada@sandbox.example.com', 'edit'],
      [grace, 'grace@sandbox.example.com', 'read'],
    ]);
    expect(individual.baseCollaborators[1]).toEqual({
      userId: ada,
      email: 'ada@sandbox.example.com',
      permissionLevel: 'edit',
      createdTime: expect.any(String),
      grantedByUserId: owner,
    });
    expect(individual.workspaceCollaborators).toEqual([
      expect.objectContaining({ userId: owner, permissionLevel: 'owner', grantedByUserId: owner }),
    ]);
    expect(res.body.groupCollaborators.baseCollaborators).toEqual([
      {
        groupId: groupId('Engineering'),
        name: 'Engineering',
        permissionLevel: 'read',
        createdTime: expect.any(String),
        grantedByUserId: owner,
      },
    ]);
    expect(res.body.groupCollaborators.workspaceCollaborators).toEqual([]);
  });

  it('includes invite links and interfaces in the upstream’s shapes', async () => {
    const res = await call(
      emulator,
      'GET',
      `/v0/meta/bases/${roadmap}?include[]=inviteLinks&include[]=interfaces`,
    );
    expect(res.status).toBe(200);
    expect(res.body.individualCollaborators).toBeUndefined();
    expect(res.body.inviteLinks.baseInviteLinks).toEqual([
      {
        id: expect.stringMatching(/^inv/),
        createdTime: expect.any(String),
        invitedEmail: 'contractor@example.org',
        permissionLevel: 'comment',
        referredByUserId: owner,
        restrictedToEmailDomains: [],
        type: 'singleUse',
      },
    ]);
    expect(res.body.inviteLinks.workspaceInviteLinks.map((i: Loose) => i.invitedEmail)).toEqual([
      'newhire@sandbox.example.com',
    ]);
    const dashboard = interfaceId('Roadmap Dashboard');
    expect(Object.keys(res.body.interfaces)).toEqual([dashboard]);
    const entry = res.body.interfaces[dashboard];
    // get-base-collaborators: each interface has firstPublishTime, a time or null (never published).
    expect(entry).toMatchObject({
      id: dashboard,
      name: 'Roadmap Dashboard',
      firstPublishTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const crmInterfaces = (await call(emulator, 'GET', `/v0/meta/bases/${crm}?include[]=interfaces`)).body
      .interfaces;
    expect(crmInterfaces[interfaceId('Pipeline Review')]).toMatchObject({
      name: 'Pipeline Review',
      firstPublishTime: null,
    });
    expect(entry.individualCollaborators).toEqual([
      expect.objectContaining({ userId: alan, permissionLevel: 'read' }),
    ]);
    expect(entry.groupCollaborators).toEqual([
      expect.objectContaining({ groupId: groupId('Support'), name: 'Support', permissionLevel: 'comment' }),
    ]);
    expect(entry.inviteLinks).toEqual([
      expect.objectContaining({ invitedEmail: 'stakeholder@example.org', type: 'singleUse' }),
    ]);
  });

  it('lets an admin of the base’s enterprise read it with permissionLevel none; refuses outsiders', async () => {
    const asMargaret = await call(emulator, 'GET', `/v0/meta/bases/${roadmap}?include[]=collaborators`, {
      token: MARGARET,
    });
    expect(asMargaret.status).toBe(200);
    expect(asMargaret.body.permissionLevel).toBe('none');
    // Alan holds nothing on the roadmap base (only its interface); Pat administers another organisation.
    expectError(
      await call(emulator, 'GET', `/v0/meta/bases/${roadmap}`, { token: ALAN }),
      403,
      MODEL_NOT_FOUND,
    );
    expectError(
      await call(emulator, 'GET', `/v0/meta/bases/${roadmap}`, { token: PAT }),
      403,
      MODEL_NOT_FOUND,
    );
  });

  it('refuses a token without workspacesAndBases:read, no token, an unknown base, an unknown include', async () => {
    expectError(
      await call(emulator, 'GET', `/v0/meta/bases/${roadmap}`, { token: NO_SHARING }),
      403,
      MODEL_NOT_FOUND,
    );
    expectError(
      await call(emulator, 'GET', `/v0/meta/bases/${roadmap}`, { token: null }),
      401,
      'AUTHENTICATION_REQUIRED',
    );
    expectError(await call(emulator, 'GET', '/v0/meta/bases/appUnknown0000000'), 403, MODEL_NOT_FOUND);
    expectError(
      await call(emulator, 'GET', `/v0/meta/bases/${roadmap}?include[]=everything`),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /include: unknown value "everything"/,
    );
  });

  it('leaves DELETE /v0/meta/bases/{baseId} to the schema routes', async () => {
    const res = await call(emulator, 'DELETE', `/v0/meta/bases/${calendar}`);
    expect(res.status).toBe(200);
    expect(emulator.store.schema().baseById.has(calendar)).toBe(false);
  });
});

describe('block installations', () => {
  const path = (base: string, id = '') => `/v0/meta/bases/${base}/blockInstallations${id ? `/${id}` : ''}`;
  const installation = (name: string) =>
    state()
      .list('blockInstallation')
      .find((b) => b.name === name)!;

  it('lists the base’s installations as a bare array, not deleted ones', async () => {
    const res = await call(emulator, 'GET', path(roadmap));
    expect(res.status).toBe(200);
    // list-block-installations answers an array of installations, not an object holding one.
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((b: Loose) => [b.name, b.state])).toEqual([
      ['Chart', 'enabled'],
      ['Page designer', 'disabled'],
    ]);
    expect(res.body[0]).toEqual({
      id: installation('Chart').id,
      name: 'Chart',
      state: 'enabled',
      createdTime: expect.any(String),
      createdByUserId: owner,
      blockId: 'blkChart000000001',
    });
    // The CRM's only installation is deleted.
    expect((await call(emulator, 'GET', path(crm))).body).toEqual([]);
    expect((await call(emulator, 'GET', path(roadmap), { token: GRACE })).status).toBe(200);
    expectError(await call(emulator, 'GET', path(roadmap), { token: NO_SHARING }), 403, MODEL_NOT_FOUND);
  });

  it('turns an installation off and on (PATCH, an empty answer), recording an audit event', async () => {
    const chart = installation('Chart');
    const res = await call(emulator, 'PATCH', path(roadmap, chart.id), { body: { state: 'disabled' } });
    expect(res.status).toBe(200);
    // manage-block-installation: "This endpoint returns an empty response on success."
    expect(res.body).toEqual({});
    expect(state().get('blockInstallation', chart.id)!.state).toBe('disabled');
    expect(lastAudit()).toMatchObject({ action: 'updateBlockInstallation', model_id: chart.id });
    await call(emulator, 'PATCH', path(roadmap, chart.id), { body: { state: 'enabled' } });
    expect(state().get('blockInstallation', chart.id)!.state).toBe('enabled');
  });

  it('refuses PATCH with a bad body, unknown, deleted or foreign ids, too little access or scope', async () => {
    const chart = installation('Chart');
    expectError(
      await call(emulator, 'PATCH', path(roadmap, chart.id), { body: { state: 'off' } }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /state/,
    );
    expectError(
      await call(emulator, 'PATCH', path(roadmap, 'bliUnknown0000000'), { body: { state: 'enabled' } }),
      404,
      'NOT_FOUND',
      /bliUnknown0000000/,
    );
    const pivot = installation('Old pivot table');
    expectError(
      await call(emulator, 'PATCH', path(crm, pivot.id), { body: { state: 'enabled' } }),
      404,
      'NOT_FOUND',
    );
    // An installation of the roadmap, addressed through another base.
    expectError(
      await call(emulator, 'PATCH', path(calendar, chart.id), { body: { state: 'disabled' } }),
      404,
      'NOT_FOUND',
    );
    // Ada edits the roadmap but is no creator.
    expectError(
      await call(emulator, 'PATCH', path(roadmap, chart.id), { token: ADA, body: { state: 'disabled' } }),
      403,
      'INVALID_PERMISSIONS',
      /manage extensions/,
    );
    expectError(
      await call(emulator, 'PATCH', path(roadmap, chart.id), {
        token: READ_ONLY_ADMIN,
        body: { state: 'disabled' },
      }),
      403,
      MODEL_NOT_FOUND,
    );
    expect(state().get('blockInstallation', chart.id)!.state).toBe('enabled');
  });

  it('deletes recoverably: kept with its deletion time, no longer listed nor managed', async () => {
    const chart = installation('Chart');
    const res = await call(emulator, 'DELETE', path(roadmap, chart.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(state().get('blockInstallation', chart.id)!.deletedTime).toBe(NOW);
    const list = (await call(emulator, 'GET', path(roadmap))).body;
    expect(list.map((b: Loose) => b.name)).toEqual(['Page designer']);
    expectError(await call(emulator, 'DELETE', path(roadmap, chart.id)), 404, 'NOT_FOUND');
    expectError(
      await call(emulator, 'DELETE', path(roadmap, chart.id), { token: ADA }),
      403,
      'INVALID_PERMISSIONS',
    );
  });
});

describe('base collaborators', () => {
  const path = (base: string, id = '') => `/v0/meta/bases/${base}/collaborators${id ? `/${id}` : ''}`;

  it('adds users and groups: direct grants in the data plane, grant metadata and groups in the admin doc', async () => {
    const engineering = groupId('Engineering');
    // One collaborator per request, as upstream.
    const user = await call(emulator, 'POST', path(calendar), {
      body: { collaborators: [{ user: { id: margaret }, permissionLevel: 'edit' }] },
    });
    expect(user.status, JSON.stringify(user.body)).toBe(200);
    expect(user.body).toEqual({});
    expect(emulator.store.directPermissionOf(calendar, margaret!)).toBe('edit');
    expect(lastAudit()).toMatchObject({ action: 'addBaseCollaborators', model_id: calendar });
    const group = await call(emulator, 'POST', path(calendar), {
      body: { collaborators: [{ group: { id: engineering }, permissionLevel: 'comment' }] },
    });
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    expect(group.body).toEqual({});
    const doc = state().get('base', calendar)!;
    expect(doc.userGrants[margaret!]).toEqual({ createdTime: NOW, grantedByUserId: owner });
    expect(doc.groups[engineering]).toEqual({
      permissionLevel: 'comment',
      createdTime: NOW,
      grantedByUserId: owner,
    });
    // Grace is in Engineering: the group grant raises her access to the base.
    expect(emulator.store.permissionOf(calendar, grace!)).toBe('comment');
    const listed = (await call(emulator, 'GET', `/v0/meta/bases/${calendar}?include[]=collaborators`)).body;
    expect(listed.individualCollaborators.baseCollaborators).toContainEqual(
      expect.objectContaining({ userId: margaret, permissionLevel: 'edit', createdTime: NOW }),
    );
    expect(listed.groupCollaborators.baseCollaborators).toContainEqual(
      expect.objectContaining({ groupId: engineering, permissionLevel: 'comment' }),
    );
    expect(lastAudit()).toMatchObject({ action: 'addBaseCollaborators', model_id: calendar });
  });

  it('a collaborator added here reads records with her own token; removing her restores the 403', async () => {
    const records = `/v0/${calendar}/Posts`;
    expectError(await call(emulator, 'GET', records, { token: GRACE }), 403, MODEL_NOT_FOUND);
    const added = await call(emulator, 'POST', path(calendar), {
      body: { collaborators: [{ user: { id: grace }, permissionLevel: 'read' }] },
    });
    expect(added.status).toBe(200);
    const read = await call(emulator, 'GET', records, { token: GRACE });
    expect(read.status).toBe(200);
    expect(read.body.records.length).toBeGreaterThan(0);
    // Read access does not let her write.
    expectError(
      await call(emulator, 'POST', records, { token: GRACE, body: { fields: { Title: 'x' } } }),
      403,
      'INVALID_PERMISSIONS',
    );
    const removed = await call(emulator, 'DELETE', path(calendar, grace!));
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    expect(state().get('base', calendar)!.userGrants[grace!]).toBeUndefined();
    expectError(await call(emulator, 'GET', records, { token: GRACE }), 403, MODEL_NOT_FOUND);
  });

  it('refuses unknown, deactivated and existing collaborators and foreign groups, changing nothing', async () => {
    const cases: [unknown[], RegExp][] = [
      [[{ user: { id: 'usrUnknown0000000' }, permissionLevel: 'read' }], /usrUnknown0000000/],
      [[{ group: { id: 'ugpUnknown0000000' }, permissionLevel: 'read' }], /ugpUnknown0000000/],
      [[{ user: { id: katherine }, permissionLevel: 'read' }], /deactivated/],
      [[{ user: { id: ada }, permissionLevel: 'edit' }], /already a collaborator/],
      [[{ group: { id: groupId('Support') }, permissionLevel: 'edit' }], /already a collaborator/],
      [[{ group: { id: groupId('Partner Admins') }, permissionLevel: 'read' }], /another organisation/],
    ];
    const before = structuredClone(state().get('base', calendar)!);
    const audited = emulator.admin.collection('audit_events')!.length;
    for (const [collaborators, message] of cases) {
      const res = await call(emulator, 'POST', path(calendar), { body: { collaborators } });
      expectError(res, 422, 'INVALID_REQUEST_UNKNOWN', message);
      expect(res.body.error.message).toMatch(/collaborators\[0\]\./);
    }
    expect(emulator.store.directPermissionOf(calendar, katherine!)).toBe('none');
    // Ada, already a reader, was offered edit: her level is unchanged.
    expect(emulator.store.directPermissionOf(calendar, ada!)).toBe('read');
    expect(state().get('base', calendar)).toEqual(before);
    expect(Object.keys(state().get('base', calendar)!.groups)).toEqual([groupId('Support')]);
    expect(emulator.admin.collection('audit_events')).toHaveLength(audited);
  });

  it('refuses two collaborators in one request with the upstream’s 403, before the body’s checks, adding none', async () => {
    const pairs: unknown[][] = [
      // Two valid, distinct entries: a user and a group.
      [
        { user: { id: margaret }, permissionLevel: 'read' },
        { group: { id: groupId('Engineering') }, permissionLevel: 'comment' },
      ],
      // The same user twice (formerly "named more than once").
      [
        { user: { id: margaret }, permissionLevel: 'read' },
        { user: { id: margaret }, permissionLevel: 'edit' },
      ],
      // A valid entry before an unknown one.
      [
        { user: { id: margaret }, permissionLevel: 'read' },
        { user: { id: 'usrUnknown0000000' }, permissionLevel: 'read' },
      ],
      // Entries the schema would refuse (no owner level on a base): the count is checked first.
      [
        { user: { id: margaret }, permissionLevel: 'owner' },
        { user: { id: grace }, permissionLevel: 'owner' },
      ],
    ];
    const before = structuredClone(state().get('base', calendar)!);
    const audited = emulator.admin.collection('audit_events')!.length;
    for (const collaborators of pairs) {
      const res = await call(emulator, 'POST', path(calendar), { body: { collaborators } });
      expectError(
        res,
        403,
        'INVALID_PERMISSIONS',
        /^This route currently supports adding only one collaborator at a time$/,
      );
    }
    expect(emulator.store.directPermissionOf(calendar, margaret!)).toBe('none');
    expect(emulator.store.directPermissionOf(calendar, grace!)).toBe('none');
    expect(state().get('base', calendar)).toEqual(before);
    expect(Object.keys(state().get('base', calendar)!.groups)).toEqual([groupId('Support')]);
    expect(emulator.admin.collection('audit_events')).toHaveLength(audited);
    // One of them alone is accepted.
    const one = await call(emulator, 'POST', path(calendar), {
      body: { collaborators: [{ user: { id: margaret }, permissionLevel: 'read' }] },
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(emulator.store.directPermissionOf(calendar, margaret!)).toBe('read');
  });

  it('refuses invalid bodies with 422 naming the problem', async () => {
    expectError(
      await call(emulator, 'POST', path(calendar), {
        body: { collaborators: [{ user: { id: margaret }, permissionLevel: 'owner' }] },
      }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /permissionLevel/,
    );
    expectError(
      await call(emulator, 'POST', path(calendar), { body: { collaborators: [] } }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /collaborators/,
    );
    expectError(
      await call(emulator, 'POST', path(calendar), {
        body: {
          collaborators: [
            { user: { id: margaret }, group: { id: groupId('Support') }, permissionLevel: 'read' },
          ],
        },
      }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /not both/,
    );
    expectError(
      await call(emulator, 'POST', path(calendar), { rawBody: '{nope' }),
      400,
      'INVALID_REQUEST_BODY',
    );
  });

  it('respects the workspace’s inviteCreationRestriction: a creator who is no owner is refused', async () => {
    emulator.store.setPermission(calendar, ada!, 'create');
    restrict('inviteCreationRestriction');
    const body = { collaborators: [{ user: { id: margaret }, permissionLevel: 'read' }] };
    expectError(
      await call(emulator, 'POST', path(calendar), { token: ADA, body }),
      403,
      'INVALID_PERMISSIONS',
      /inviteCreationRestriction is onlyOwners/,
    );
    expect(emulator.store.directPermissionOf(calendar, margaret!)).toBe('none');
    // The sandbox owner owns the workspace.
    expect((await call(emulator, 'POST', path(calendar), { body })).status).toBe(200);
  });

  it('refuses callers who are no creators, tokens without the scope, outsiders', async () => {
    const body = { collaborators: [{ user: { id: margaret }, permissionLevel: 'read' }] };
    expectError(
      await call(emulator, 'POST', path(roadmap), { token: ADA, body }),
      403,
      'INVALID_PERMISSIONS',
      /add collaborators/,
    );
    expectError(
      await call(emulator, 'POST', path(roadmap), { token: READ_ONLY_ADMIN, body }),
      403,
      MODEL_NOT_FOUND,
    );
    expectError(await call(emulator, 'POST', path(roadmap), { token: PAT, body }), 403, MODEL_NOT_FOUND);
    // An admin of the base's enterprise may manage it without collaborating on it.
    expect((await call(emulator, 'POST', path(roadmap), { token: MARGARET, body })).status).toBe(200);
  });

  it('changes a user’s and a group’s level (PATCH)', async () => {
    const res = await call(emulator, 'PATCH', path(roadmap, ada!), { body: { permissionLevel: 'comment' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(emulator.store.directPermissionOf(roadmap, ada!)).toBe('comment');
    expect(state().get('base', roadmap)!.userGrants[ada!]).toEqual({
      createdTime: NOW,
      grantedByUserId: owner,
    });
    const engineering = groupId('Engineering');
    await call(emulator, 'PATCH', path(roadmap, engineering), { body: { permissionLevel: 'edit' } });
    expect(state().get('base', roadmap)!.groups[engineering]!.permissionLevel).toBe('edit');
    expect(emulator.store.permissionOf(roadmap, grace!)).toBe('edit');
    expect(lastAudit()).toMatchObject({ action: 'updateBaseCollaborator', model_id: roadmap });
  });

  it('refuses PATCH for non-collaborators, bad levels, and the last creator stepping down', async () => {
    expectError(
      await call(emulator, 'PATCH', path(roadmap, alan!), { body: { permissionLevel: 'read' } }),
      404,
      'NOT_FOUND',
      new RegExp(alan!),
    );
    expectError(
      await call(emulator, 'PATCH', path(roadmap, 'ugpUnknown0000000'), {
        body: { permissionLevel: 'read' },
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call(emulator, 'PATCH', path(roadmap, ada!), { body: { permissionLevel: 'owner' } }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /permissionLevel/,
    );
    expectError(
      await call(emulator, 'PATCH', path(roadmap, owner!), { body: { permissionLevel: 'edit' } }),
      422,
      'CANNOT_REMOVE_LAST_CREATOR',
    );
    expect(emulator.store.directPermissionOf(roadmap, owner!)).toBe('create');
    // With another creator, the owner may step down.
    await call(emulator, 'PATCH', path(roadmap, ada!), { body: { permissionLevel: 'create' } });
    expect(
      (await call(emulator, 'PATCH', path(roadmap, owner!), { body: { permissionLevel: 'edit' } })).status,
    ).toBe(200);
    expectError(
      await call(emulator, 'PATCH', path(roadmap, grace!), {
        token: GRACE,
        body: { permissionLevel: 'create' },
      }),
      403,
      'INVALID_PERMISSIONS',
    );
  });

  it('removes users and groups (DELETE), refusing unknown ones and the last creator', async () => {
    const engineering = groupId('Engineering');
    expect((await call(emulator, 'DELETE', path(roadmap, engineering))).status).toBe(200);
    expect(state().get('base', roadmap)!.groups[engineering]).toBeUndefined();
    expect((await call(emulator, 'DELETE', path(roadmap, ada!))).status).toBe(200);
    expect(emulator.store.directPermissionOf(roadmap, ada!)).toBe('none');
    expectError(await call(emulator, 'DELETE', path(roadmap, ada!)), 404, 'NOT_FOUND');
    expectError(await call(emulator, 'DELETE', path(roadmap, owner!)), 422, 'CANNOT_REMOVE_LAST_CREATOR');
    // The calendar has two creators (the owner and Alan): one of them may go.
    expect((await call(emulator, 'DELETE', path(calendar, owner!))).status).toBe(200);
    expectError(await call(emulator, 'DELETE', path(calendar, alan!)), 422, 'CANNOT_REMOVE_LAST_CREATOR');
    expectError(
      await call(emulator, 'DELETE', path(crm, grace!), { token: NO_SHARING }),
      403,
      MODEL_NOT_FOUND,
    );
    expect(lastAudit()).toMatchObject({ action: 'removeBaseCollaborator', model_id: calendar });
  });
});

describe('base invites', () => {
  it('withdraws an outstanding base invite; unknown ones and workspace invites are 404', async () => {
    const invite = state().get('base', roadmap)!.invites[0]!;
    const path = `/v0/meta/bases/${roadmap}/invites/${invite.id}`;
    expectError(await call(emulator, 'DELETE', path, { token: ADA }), 403, 'INVALID_PERMISSIONS');
    expectError(await call(emulator, 'DELETE', path, { token: READ_ONLY_ADMIN }), 403, MODEL_NOT_FOUND);
    const res = await call(emulator, 'DELETE', path);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(state().get('base', roadmap)!.invites).toEqual([]);
    expect(lastAudit()).toMatchObject({ action: 'deleteBaseInvite', model_id: invite.id });
    expectError(await call(emulator, 'DELETE', path), 404, 'NOT_FOUND', new RegExp(invite.id));
    const workspaceInvite = state().workspaceAdmin(workspaceId)!.invites[0]!;
    expectError(
      await call(emulator, 'DELETE', `/v0/meta/bases/${roadmap}/invites/${workspaceInvite.id}`),
      404,
      'NOT_FOUND',
    );
    expect(state().workspaceAdmin(workspaceId)!.invites).toHaveLength(1);
  });
});

describe('interfaces', () => {
  const base = (pbd: string, b = roadmap) => `/v0/meta/bases/${b}/interfaces/${pbd}`;
  const collaborators = (pbd: string, id = '') => `${base(pbd)}/collaborators${id ? `/${id}` : ''}`;

  it('describes an interface, with collaborators and invite links on request', async () => {
    const dashboard = interfaceId('Roadmap Dashboard');
    const plain = await call(emulator, 'GET', base(dashboard));
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({
      id: dashboard,
      baseId: roadmap,
      name: 'Roadmap Dashboard',
      createdTime: expect.any(String),
      permissionLevel: 'create',
    });
    const full = await call(
      emulator,
      'GET',
      `${base(dashboard)}?include[]=collaborators&include[]=inviteLinks`,
    );
    // get-interface groups collaborators by where their access comes from: the base, the interface alone, the
    // workspace.
    expect(Object.keys(full.body.individualCollaborators)).toEqual([
      'baseCollaborators',
      'interfaceCollaborators',
      'workspaceCollaborators',
    ]);
    expect(full.body.individualCollaborators.interfaceCollaborators).toEqual([
      {
        userId: alan,
        email: 'alan@sandbox.example.com',
        permissionLevel: 'read',
        createdTime: expect.any(String),
        grantedByUserId: owner,
      },
    ]);
    // The same base and workspace lists as GET /v0/meta/bases/{baseId}?include[]=collaborators.
    const ofBase = (await call(emulator, 'GET', `/v0/meta/bases/${roadmap}?include[]=collaborators`)).body;
    expect(full.body.individualCollaborators.baseCollaborators).toEqual(
      ofBase.individualCollaborators.baseCollaborators,
    );
    expect(full.body.individualCollaborators.workspaceCollaborators).toEqual(
      ofBase.individualCollaborators.workspaceCollaborators,
    );
    expect(full.body.individualCollaborators.baseCollaborators.map((u: Loose) => u.userId)).toContain(owner);
    expect(full.body.groupCollaborators).toEqual({
      baseCollaborators: ofBase.groupCollaborators.baseCollaborators,
      interfaceCollaborators: [
        expect.objectContaining({ groupId: groupId('Support'), name: 'Support', permissionLevel: 'comment' }),
      ],
      workspaceCollaborators: ofBase.groupCollaborators.workspaceCollaborators,
    });
    expect(full.body.inviteLinks).toEqual([
      expect.objectContaining({
        invitedEmail: 'stakeholder@example.org',
        permissionLevel: 'read',
        referredByUserId: owner,
      }),
    ]);
    const onlyInvites = await call(emulator, 'GET', `${base(dashboard)}?include[]=inviteLinks`);
    expect(onlyInvites.body.individualCollaborators).toBeUndefined();
    expect(onlyInvites.body.inviteLinks).toHaveLength(1);
  });

  it('lets interface-only collaborators read it at their interface level; refuses others', async () => {
    const dashboard = interfaceId('Roadmap Dashboard');
    // Alan: read on his own, comment through Support; he cannot reach the base itself.
    const asAlan = await call(emulator, 'GET', base(dashboard), { token: ALAN });
    expect(asAlan.status).toBe(200);
    expect(asAlan.body.permissionLevel).toBe('comment');
    expect((await call(emulator, 'GET', base(dashboard), { token: GRACE })).body.permissionLevel).toBe(
      'read',
    );
    expect((await call(emulator, 'GET', base(dashboard), { token: MARGARET })).body.permissionLevel).toBe(
      'none',
    );
    expectError(await call(emulator, 'GET', base(dashboard), { token: PAT }), 403, MODEL_NOT_FOUND);
    expectError(await call(emulator, 'GET', base(dashboard), { token: NO_SHARING }), 403, MODEL_NOT_FOUND);
    expectError(
      await call(emulator, 'GET', base('pbdUnknown0000000')),
      404,
      'NOT_FOUND',
      /pbdUnknown0000000/,
    );
    // An interface of the CRM, addressed through the roadmap.
    expectError(await call(emulator, 'GET', base(interfaceId('Pipeline Review'))), 404, 'NOT_FOUND');
    expectError(
      await call(emulator, 'GET', `${base(dashboard)}?include[]=interfaces`),
      422,
      'INVALID_REQUEST_UNKNOWN',
    );
  });

  it('adds one user or group per request', async () => {
    const dashboard = interfaceId('Roadmap Dashboard');
    const res = await call(emulator, 'POST', collaborators(dashboard), {
      body: { collaborators: [{ user: { id: margaret }, permissionLevel: 'edit' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(state().get('interface', dashboard)!.users[margaret!]).toEqual({
      permissionLevel: 'edit',
      createdTime: NOW,
      grantedByUserId: owner,
    });
    const engineering = groupId('Engineering');
    await call(emulator, 'POST', collaborators(dashboard), {
      body: { collaborators: [{ group: { id: engineering }, permissionLevel: 'read' }] },
    });
    expect(state().get('interface', dashboard)!.groups[engineering]!.permissionLevel).toBe('read');
    expect(lastAudit()).toMatchObject({ action: 'addInterfaceCollaborator', model_id: dashboard });
    // Margaret now reads the interface at her interface level.
    expect((await call(emulator, 'GET', base(dashboard), { token: MARGARET })).body.permissionLevel).toBe(
      'edit',
    );
  });

  it('refuses two collaborators at once, unknown, existing and base collaborators, create level', async () => {
    const dashboard = interfaceId('Roadmap Dashboard');
    const post = (body: unknown) => call(emulator, 'POST', collaborators(dashboard), { body });
    expectError(
      await post({
        collaborators: [
          { user: { id: margaret }, permissionLevel: 'read' },
          { user: { id: katherine }, permissionLevel: 'read' },
        ],
      }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /exactly one collaborator/,
    );
    expectError(
      await post({ collaborators: [{ user: { id: margaret }, permissionLevel: 'create' }] }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /permissionLevel/,
    );
    expectError(
      await post({ collaborators: [{ user: { id: 'usrUnknown0000000' }, permissionLevel: 'read' }] }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /usrUnknown0000000/,
    );
    expectError(
      await post({ collaborators: [{ group: { id: 'ugpUnknown0000000' }, permissionLevel: 'read' }] }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /ugpUnknown0000000/,
    );
    expectError(
      await post({ collaborators: [{ user: { id: alan }, permissionLevel: 'edit' }] }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /already a collaborator on this interface/,
    );
    expectError(
      await post({ collaborators: [{ group: { id: groupId('Support') }, permissionLevel: 'edit' }] }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /already a collaborator on this interface/,
    );
    expectError(
      await post({ collaborators: [{ user: { id: ada }, permissionLevel: 'read' }] }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /whole base/,
    );
    expectError(
      await call(emulator, 'POST', collaborators('pbdUnknown0000000'), {
        body: { collaborators: [{ user: { id: margaret }, permissionLevel: 'read' }] },
      }),
      404,
      'NOT_FOUND',
    );
    expect(Object.keys(state().get('interface', dashboard)!.users)).toEqual([alan]);
  });

  it('respects the inviteCreationRestriction and the caller’s access', async () => {
    const dashboard = interfaceId('Roadmap Dashboard');
    const body = { collaborators: [{ user: { id: margaret }, permissionLevel: 'read' }] };
    expectError(
      await call(emulator, 'POST', collaborators(dashboard), { token: ADA, body }),
      403,
      'INVALID_PERMISSIONS',
      /add collaborators/,
    );
    emulator.store.setPermission(roadmap, ada!, 'create');
    restrict('inviteCreationRestriction');
    expectError(
      await call(emulator, 'POST', collaborators(dashboard), { token: ADA, body }),
      403,
      'INVALID_PERMISSIONS',
      /inviteCreationRestriction is onlyOwners/,
    );
    expect(state().get('interface', dashboard)!.users[margaret!]).toBeUndefined();
    expectError(
      await call(emulator, 'POST', collaborators(dashboard), { token: READ_ONLY_ADMIN, body }),
      403,
      MODEL_NOT_FOUND,
    );
    expect((await call(emulator, 'POST', collaborators(dashboard), { body })).status).toBe(200);
  });

  it('changes and removes interface collaborators; unknown ones are 404', async () => {
    const dashboard = interfaceId('Roadmap Dashboard');
    const support = groupId('Support');
    const patched = await call(emulator, 'PATCH', collaborators(dashboard, alan!), {
      body: { permissionLevel: 'edit' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({});
    expect(state().get('interface', dashboard)!.users[alan!]).toEqual({
      permissionLevel: 'edit',
      createdTime: NOW,
      grantedByUserId: owner,
    });
    await call(emulator, 'PATCH', collaborators(dashboard, support), { body: { permissionLevel: 'read' } });
    expect(state().get('interface', dashboard)!.groups[support]!.permissionLevel).toBe('read');
    expectError(
      await call(emulator, 'PATCH', collaborators(dashboard, alan!), { body: { permissionLevel: 'create' } }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /permissionLevel/,
    );
    expectError(
      await call(emulator, 'PATCH', collaborators(dashboard, margaret!), {
        body: { permissionLevel: 'read' },
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call(emulator, 'PATCH', collaborators(dashboard, alan!), {
        token: GRACE,
        body: { permissionLevel: 'read' },
      }),
      403,
      'INVALID_PERMISSIONS',
    );

    expect((await call(emulator, 'DELETE', collaborators(dashboard, support))).status).toBe(200);
    expect((await call(emulator, 'DELETE', collaborators(dashboard, alan!))).status).toBe(200);
    const doc = state().get('interface', dashboard)!;
    expect(doc.users).toEqual({});
    expect(doc.groups).toEqual({});
    expect(lastAudit()).toMatchObject({ action: 'removeInterfaceCollaborator', model_id: dashboard });
    expectError(await call(emulator, 'DELETE', collaborators(dashboard, alan!)), 404, 'NOT_FOUND');
    // Alan no longer reaches the interface.
    expectError(await call(emulator, 'GET', base(dashboard), { token: ALAN }), 403, MODEL_NOT_FOUND);
  });

  it('withdraws an interface invite; unknown invites and interfaces are 404', async () => {
    const dashboard = interfaceId('Roadmap Dashboard');
    const invite = state().get('interface', dashboard)!.invites[0]!;
    const path = `${base(dashboard)}/invites/${invite.id}`;
    expectError(await call(emulator, 'DELETE', path, { token: ADA }), 403, 'INVALID_PERMISSIONS');
    const res = await call(emulator, 'DELETE', path);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(state().get('interface', dashboard)!.invites).toEqual([]);
    expect(lastAudit()).toMatchObject({ action: 'deleteInterfaceInvite', model_id: invite.id });
    expectError(await call(emulator, 'DELETE', path), 404, 'NOT_FOUND', new RegExp(invite.id));
    const baseInvite = state().get('base', roadmap)!.invites[0]!;
    expectError(
      await call(emulator, 'DELETE', `${base(dashboard)}/invites/${baseInvite.id}`),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call(emulator, 'DELETE', `${base('pbdUnknown0000000')}/invites/${baseInvite.id}`),
      404,
      'NOT_FOUND',
    );
  });
});

describe('shares', () => {
  const path = (b: string, id = '') => `/v0/meta/bases/${b}/shares${id ? `/${id}` : ''}`;
  const shares = (b: string) =>
    state()
      .list('share')
      .filter((s) => s.baseId === b);

  it('lists the base’s shares in the upstream’s shape', async () => {
    const res = await call(emulator, 'GET', path(roadmap));
    expect(res.status).toBe(200);
    const [base, view, block] = res.body.shares;
    expect(res.body.shares.map((s: Loose) => [s.type, s.state])).toEqual([
      ['base', 'enabled'],
      ['view', 'disabled'],
      ['blockInstallation', 'enabled'],
    ]);
    expect(base).toEqual({
      shareId: shares(roadmap)[0]!.id,
      shareTokenPrefix: expect.stringMatching(/^shr/),
      state: 'enabled',
      type: 'base',
      createdByUserId: owner,
      createdTime: expect.any(String),
      isPasswordProtected: false,
      restrictedToEmailDomains: [],
      restrictedToEnterpriseMembers: false,
    });
    expect(view.viewId).toMatch(/^viw/);
    expect(block).toMatchObject({
      blockInstallationId: expect.stringMatching(/^bli/),
      restrictedToEmailDomains: ['sandbox.example.com'],
      effectiveEmailDomainAllowList: ['sandbox.example.com'],
      restrictedToEnterpriseMembers: true,
    });
    expect((await call(emulator, 'GET', path(calendar))).body.shares).toHaveLength(1);
  });

  it('needs workspacesAndBases.shares:manage and creator access', async () => {
    expectError(await call(emulator, 'GET', path(roadmap), { token: READ_ONLY_ADMIN }), 403, MODEL_NOT_FOUND);
    expectError(
      await call(emulator, 'GET', path(roadmap), { token: ADA }),
      403,
      'INVALID_PERMISSIONS',
      /shares/,
    );
    expectError(await call(emulator, 'GET', path(roadmap), { token: PAT }), 403, MODEL_NOT_FOUND);
    expect((await call(emulator, 'GET', path(roadmap), { token: MARGARET })).status).toBe(200);
  });

  it('turns a share off and on (PATCH), answering an empty body', async () => {
    const share = shares(roadmap)[0]!;
    const res = await call(emulator, 'PATCH', path(roadmap, share.id), { body: { state: 'disabled' } });
    expect(res.status).toBe(200);
    // manage-share: "This endpoint returns an empty response on success."
    expect(res.body).toEqual({});
    expect(state().get('share', share.id)!.state).toBe('disabled');
    expect(lastAudit()).toMatchObject({ action: 'updateShare', model_id: share.id });
    await call(emulator, 'PATCH', path(roadmap, share.id), { body: { state: 'enabled' } });
    expect(state().get('share', share.id)!.state).toBe('enabled');
  });

  it('respects shareCreationRestriction: enabling needs a workspace owner, disabling does not', async () => {
    const [enabled, disabled] = shares(roadmap);
    emulator.store.setPermission(roadmap, ada!, 'create');
    restrict('shareCreationRestriction');
    expectError(
      await call(emulator, 'PATCH', path(roadmap, disabled!.id), { token: ADA, body: { state: 'enabled' } }),
      403,
      'INVALID_PERMISSIONS',
      /shareCreationRestriction is onlyOwners/,
    );
    expect(state().get('share', disabled!.id)!.state).toBe('disabled');
    expect(
      (await call(emulator, 'PATCH', path(roadmap, enabled!.id), { token: ADA, body: { state: 'disabled' } }))
        .status,
    ).toBe(200);
    // The sandbox owner owns the workspace.
    expect(
      (await call(emulator, 'PATCH', path(roadmap, disabled!.id), { body: { state: 'enabled' } })).status,
    ).toBe(200);
    expect(state().get('share', disabled!.id)!.state).toBe('enabled');
  });

  it('refuses PATCH with a bad body, unknown or foreign shares', async () => {
    const share = shares(roadmap)[0]!;
    expectError(
      await call(emulator, 'PATCH', path(roadmap, share.id), { body: { state: 'on' } }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /state/,
    );
    expectError(
      await call(emulator, 'PATCH', path(roadmap, share.id), { body: { state: 'enabled', extra: 1 } }),
      422,
      'INVALID_REQUEST_UNKNOWN',
      /extra/,
    );
    expectError(
      await call(emulator, 'PATCH', path(roadmap, 'shrUnknown0000000'), { body: { state: 'enabled' } }),
      404,
      'NOT_FOUND',
      /shrUnknown0000000/,
    );
    expectError(
      await call(emulator, 'PATCH', path(calendar, share.id), { body: { state: 'disabled' } }),
      404,
      'NOT_FOUND',
    );
  });

  it('deletes a share for good', async () => {
    const share = shares(calendar)[0]!;
    expectError(
      await call(emulator, 'DELETE', path(calendar, share.id), { token: ADA }),
      403,
      'INVALID_PERMISSIONS',
    );
    const res = await call(emulator, 'DELETE', path(calendar, share.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(state().get('share', share.id)).toBeUndefined();
    expect(lastAudit()).toMatchObject({ action: 'deleteShare', model_id: share.id });
    expectError(await call(emulator, 'DELETE', path(calendar, share.id)), 404, 'NOT_FOUND');
    expect((await call(emulator, 'GET', path(calendar))).body.shares).toEqual([]);
  });
});
