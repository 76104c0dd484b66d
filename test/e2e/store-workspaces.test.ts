// The nine workspace tools end to end: the SDK's MCP client -> Switchboard over Streamable HTTP -> the store
// emulator on loopback. Each tool's result, the exact upstream request the emulator logged, and the emulator's
// state afterwards; the schema-mode tools in both modes; refusals (a non-empty workspace, the onlyOwners invite
// restriction, a move across organisations, a body the tool checks before sending) surfaced as tool errors.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestBodyDocument } from '../../src/runtime/schemaMode.js';
import type { WorkspaceAdminDoc } from '../../src/services/store/emulator/admin/model.js';
import { ALL_SCOPES } from '../../src/services/store/emulator/auth.js';
import { ADMIN_SEED } from '../../src/services/store/emulator/seed/admin.js';
import { STORE_BODIES, type StoreBodyName } from '../../src/services/store/schemas/index.js';
import { type Connected, errorOf } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore, storeTools } from './storeHarness.js';

const T = (name: string) => `StoreApi.${name}`;
const json = (value: unknown) => JSON.stringify(value);
const WS = '/v0/meta/workspaces';

const SCHEMA_MODE: Record<string, StoreBodyName> = {
  CreateStoreWorkspace: 'createWorkspace',
  AddWorkspaceCollaborator: 'addWorkspaceCollaborators',
  UpdateWorkspaceCollaboratorPermission: 'updateWorkspaceCollaborator',
  MoveStoreBase: 'moveBase',
};

const ALAN_TOKEN = 'pat_e2e_alan_all_scopes';

interface BaseItem {
  id: string;
  name: string;
  workspaceId: string;
}

describe('StoreApi workspace tools end to end', () => {
  let upstream: StoreEmulatorHandle;
  let mcp: Connected;
  let rootAccount: string;
  let sandbox: string;
  let research: string;
  let partner: string;
  let user: { owner: string; margaret: string; alan: string };
  let support: string;
  /** The workspace the tests create, fill and finally delete. */
  let created: string;

  const { ok, exec, lastRequest } = storeTools(
    () => mcp,
    () => upstream,
  );
  const workspaceDoc = (id: string) => upstream.stateItem<WorkspaceAdminDoc>('workspace_admin', id);
  const baseNamed = async (name: string) =>
    (await upstream.state<BaseItem>('bases')).find((b) => b.name === name)!;

  beforeAll(async () => {
    // The data plane's seed is deterministic, so Alan's id is known before his token is made.
    const probe = await startStore();
    const alanId = probe.emulator.store.schema().userByEmail.get('alan@sandbox.example.com')!.id;
    await probe.close();
    upstream = await startStore({ tokens: [{ token: ALAN_TOKEN, userId: alanId, scopes: ALL_SCOPES }] });
    mcp = await connectStore('http', upstream.env());
    const state = upstream.emulator.admin.state;
    const snapshot = upstream.emulator.store.schema();
    rootAccount = state.list('account').find((a) => a.name === ADMIN_SEED.rootAccount)!.id;
    const workspace = (name: string) => snapshot.workspaces.find((w) => w.name === name)!.id;
    sandbox = workspace('Sandbox Workspace');
    research = workspace(ADMIN_SEED.workspaces.research);
    partner = workspace(ADMIN_SEED.workspaces.partner);
    const byEmail = (email: string) => snapshot.userByEmail.get(email)!.id;
    user = {
      owner: byEmail('owner@sandbox.example.com'),
      margaret: byEmail(ADMIN_SEED.users.margaret.email),
      alan: alanId,
    };
    support = state.list('group').find((g) => g.name === ADMIN_SEED.groups.support)!.id;
  });
  afterAll(async () => {
    await mcp?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.clearLog());

  it('schema mode: the four body-taking tools return their body schema and call nothing', async () => {
    for (const [tool, body] of Object.entries(SCHEMA_MODE)) {
      const result = await ok(tool, { mode: 'get_request_schema' });
      expect(result.tool, tool).toBe(T(tool));
      expect(result.request_body, tool).toEqual(requestBodyDocument(STORE_BODIES[body]));
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('CreateStoreWorkspace creates a workspace owned by the caller', async () => {
    const result = await exec(
      'CreateStoreWorkspace',
      {},
      { enterpriseAccountId: rootAccount, name: 'E2E Space' },
    );
    created = result.id as string;
    expect(created).toMatch(/^wsp/);
    const request = await lastRequest();
    expect(request).toMatchObject({
      method: 'POST',
      path: WS,
      body: { enterpriseAccountId: rootAccount, name: 'E2E Space' },
      status: 200,
    });
    const doc = await workspaceDoc(created);
    expect(doc?.users[user.owner]?.permissionLevel).toBe('owner');
    expect(doc?.inviteCreationRestriction).toBe('unrestricted');
  });

  it('AddWorkspaceCollaborator refuses two collaborators in one call before sending', async () => {
    const two = await mcp.call(T('AddWorkspaceCollaborator'), {
      mode: 'execute',
      workspace_id: created,
      request_body: json({
        collaborators: [
          { user: { id: user.margaret }, permissionLevel: 'edit' },
          { group: { id: support }, permissionLevel: 'read' },
        ],
      }),
    });
    expect(two.isError).toBe(true);
    expect(errorOf(two).kind).toBe('invalid_arguments');
    expect(errorOf(two).issues).toEqual([
      {
        field: 'request_body.collaborators',
        problem: expect.stringMatching(/exactly one collaborator per request.*got 2/),
      },
    ]);
    expect(await upstream.requests()).toEqual([]);
    const doc = await workspaceDoc(created);
    expect(Object.keys(doc!.users)).toEqual([user.owner]);
    expect(doc?.groups).toEqual({});
  });

  it('AddWorkspaceCollaborator adds a user and a group; GetWorkspaceCollaborators shows them', async () => {
    // One collaborator per call, as the upstream takes them.
    const added = [
      { user: { id: user.margaret }, permissionLevel: 'edit' },
      { group: { id: support }, permissionLevel: 'read' },
    ];
    for (const collaborator of added) {
      await exec('AddWorkspaceCollaborator', { workspace_id: created }, { collaborators: [collaborator] });
      const add = await lastRequest();
      expect(add).toMatchObject({ method: 'POST', path: `${WS}/${created}/collaborators`, status: 200 });
      expect(add.body).toEqual({ collaborators: [collaborator] });
    }
    const doc = await workspaceDoc(created);
    expect(doc?.users[user.margaret]?.permissionLevel).toBe('edit');
    expect(doc?.groups[support]?.permissionLevel).toBe('read');

    const info = await ok('GetWorkspaceCollaborators', {
      workspace_identifier: created,
      include_additional_information: ['collaborators', 'inviteLinks'],
    });
    const get = await lastRequest();
    expect(get).toMatchObject({ method: 'GET', path: `${WS}/${created}`, status: 200 });
    expect(get.query).toEqual({ 'include[]': ['collaborators', 'inviteLinks'] });
    expect(info).toMatchObject({
      id: created,
      name: 'E2E Space',
      baseIds: [],
      workspaceRestrictions: {
        inviteCreationRestriction: 'unrestricted',
        shareCreationRestriction: 'unrestricted',
      },
      inviteLinks: { workspaceInviteLinks: [], baseInviteLinks: [] },
    });
    const individual = (info.individualCollaborators as { workspaceCollaborators: { userId: string }[] })
      .workspaceCollaborators;
    expect(individual.map((c) => c.userId)).toEqual([user.owner, user.margaret]);
    expect(info.groupCollaborators).toMatchObject({
      workspaceCollaborators: [{ groupId: support, name: 'Support', permissionLevel: 'read' }],
    });
  });

  it('UpdateWorkspaceCollaboratorPermission changes a level; RemoveWorkspaceCollaborator removes one', async () => {
    await exec(
      'UpdateWorkspaceCollaboratorPermission',
      { workspace_id: created, collaborator_id: user.margaret },
      { permissionLevel: 'comment' },
    );
    const patch = await lastRequest();
    expect(patch).toMatchObject({
      method: 'PATCH',
      path: `${WS}/${created}/collaborators/${user.margaret}`,
      body: { permissionLevel: 'comment' },
      status: 200,
    });
    expect((await workspaceDoc(created))?.users[user.margaret]?.permissionLevel).toBe('comment');

    await ok('RemoveWorkspaceCollaborator', { workspace_id: created, collaborator_identifier: support });
    expect(await lastRequest()).toMatchObject({
      method: 'DELETE',
      path: `${WS}/${created}/collaborators/${support}`,
      status: 200,
    });
    expect((await workspaceDoc(created))?.groups).toEqual({});
  });

  it('DeleteWorkspaceInvite withdraws an outstanding invite', async () => {
    const invite = (await workspaceDoc(sandbox))!.invites[0]!;
    await ok('DeleteWorkspaceInvite', { workspace_id: sandbox, invite_id: invite.id });
    expect(await lastRequest()).toMatchObject({
      method: 'DELETE',
      path: `${WS}/${sandbox}/invites/${invite.id}`,
      status: 200,
    });
    expect((await workspaceDoc(sandbox))?.invites).toEqual([]);
  });

  it('UpdateWorkspaceRestrictions sends only the restrictions given', async () => {
    await ok('UpdateWorkspaceRestrictions', {
      workspace_id: created,
      share_creation_restriction: 'onlyOwners',
    });
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${WS}/${created}/updateRestrictions`,
      body: { shareCreationRestriction: 'onlyOwners' },
      status: 200,
    });
    expect(await workspaceDoc(created)).toMatchObject({
      inviteCreationRestriction: 'unrestricted',
      shareCreationRestriction: 'onlyOwners',
    });
    // Neither restriction: refused before sending.
    const empty = await mcp.call(T('UpdateWorkspaceRestrictions'), { workspace_id: created });
    expect(empty.isError).toBe(true);
    expect(errorOf(empty).kind).toBe('invalid_arguments');
    expect(errorOf(empty).issues?.map((i) => i.field)).toContain('invite_creation_restriction');
    expect(await upstream.requests()).toEqual([]);
  });

  it('MoveStoreBase moves a base from the path workspace to targetWorkspaceId, at targetIndex', async () => {
    const calendar = await baseNamed('Content Calendar');
    const crm = await baseNamed('Sales CRM');
    upstream.clearLog();
    await exec(
      'MoveStoreBase',
      { target_workspace_id: sandbox },
      { baseId: calendar.id, targetWorkspaceId: created },
    );
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${WS}/${sandbox}/moveBase`,
      body: { baseId: calendar.id, targetWorkspaceId: created },
      status: 200,
    });
    await exec(
      'MoveStoreBase',
      { target_workspace_id: sandbox },
      { baseId: crm.id, targetWorkspaceId: created, targetIndex: 0 },
    );
    expect((await lastRequest()).body).toEqual({
      baseId: crm.id,
      targetWorkspaceId: created,
      targetIndex: 0,
    });
    expect((await baseNamed('Content Calendar')).workspaceId).toBe(created);
    expect((await baseNamed('Sales CRM')).workspaceId).toBe(created);
    const info = await ok('GetWorkspaceCollaborators', { workspace_identifier: created });
    expect(info.baseIds).toEqual([crm.id, calendar.id]);
  });

  it('refusals come back as tool errors: a non-empty workspace, onlyOwners, another organisation', async () => {
    const notEmpty = await mcp.call(T('DeleteWorkspace'), { workspace_id: created });
    expect(notEmpty.isError).toBe(true);
    expect(errorOf(notEmpty)).toMatchObject({ status: 422, upstream_code: 'WORKSPACE_NOT_EMPTY' });
    expect(errorOf(notEmpty).message).toMatch(/move them to another workspace or delete them first/);

    // Alan edits the Research Workspace, whose invites are for owners only.
    const alan = await connectStore('http', upstream.env({ STORE_ACCESS_TOKEN: ALAN_TOKEN }));
    try {
      const restricted = await alan.call(T('AddWorkspaceCollaborator'), {
        mode: 'execute',
        workspace_id: research,
        request_body: json({ collaborators: [{ user: { id: user.margaret }, permissionLevel: 'read' }] }),
      });
      expect(restricted.isError).toBe(true);
      expect(errorOf(restricted)).toMatchObject({
        kind: 'forbidden',
        status: 403,
        upstream_code: 'INVALID_PERMISSIONS',
      });
      expect(errorOf(restricted).message).toMatch(/onlyOwners/);
    } finally {
      await alan.close();
    }
    expect((await workspaceDoc(research))?.users[user.margaret]).toBeUndefined();

    // Even owning the Partner Workspace, the sandbox owner may not move a base into another organisation.
    upstream.emulator.admin.state.update('workspace', partner, (doc) => {
      doc.users[user.owner] = {
        permissionLevel: 'owner',
        createdTime: new Date().toISOString(),
        grantedByUserId: user.owner,
      };
    });
    const roadmap = await baseNamed('Product Roadmap');
    upstream.clearLog();
    const crossing = await mcp.call(T('MoveStoreBase'), {
      mode: 'execute',
      target_workspace_id: sandbox,
      request_body: json({ baseId: roadmap.id, targetWorkspaceId: partner }),
    });
    expect(errorOf(crossing)).toMatchObject({ status: 422, upstream_code: 'INVALID_REQUEST_UNKNOWN' });
    expect(errorOf(crossing).message).toMatch(/another enterprise organisation/);
    expect((await lastRequest()).path).toBe(`${WS}/${sandbox}/moveBase`);
    expect((await baseNamed('Product Roadmap')).workspaceId).toBe(sandbox);
  });

  it('DeleteWorkspace deletes a workspace once its bases are gone', async () => {
    for (const name of ['Sales CRM', 'Content Calendar']) {
      const base = await baseNamed(name);
      await exec(
        'MoveStoreBase',
        { target_workspace_id: created },
        { baseId: base.id, targetWorkspaceId: sandbox },
      );
    }
    upstream.clearLog();
    await ok('DeleteWorkspace', { workspace_id: created });
    expect(await lastRequest()).toMatchObject({ method: 'DELETE', path: `${WS}/${created}`, status: 200 });
    expect(await workspaceDoc(created)).toBeUndefined();
    expect((await upstream.state<{ id: string }>('workspaces')).map((w) => w.id)).not.toContain(created);
  });
});
