// The sixteen enterprise account, user and group tools end to end: the SDK's MCP client -> Switchboard over
// Streamable HTTP -> the store emulator on loopback. Each tool's result, the exact upstream request the
// emulator logged, and the emulator's state afterwards; the schema-mode tools in both modes; refusals (a move to
// another organisation, Partner Co without Enterprise Hub, a sole owner removed without a replacement) surfaced
// as tool errors. One emulator and one client for the file: the tests run in order and build on each other.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestBodyDocument } from '../../src/runtime/schemaMode.js';
import type {
  EnterpriseAccountDoc,
  UserGroupDoc,
  UserProfileDoc,
  WorkspaceAdminDoc,
} from '../../src/services/store/emulator/admin/model.js';
import { ALL_SCOPES } from '../../src/services/store/emulator/auth.js';
import { ADMIN_SEED } from '../../src/services/store/emulator/seed/admin.js';
import { STORE_BODIES, type StoreBodyName } from '../../src/services/store/schemas/index.js';
import { type Connected, errorOf } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore, storeTools } from './storeHarness.js';

const T = (name: string) => `StoreApi.${name}`;
const json = (value: unknown) => JSON.stringify(value);
const ENT = '/v0/meta/enterpriseAccounts';

const SCHEMA_MODE: Record<string, StoreBodyName> = {
  CreateDescendantEnterpriseAccount: 'createDescendantAccount',
  BatchMoveUserGroupsBetweenAccounts: 'moveUserGroups',
  MoveWorkspacesBetweenEnterpriseAccounts: 'moveWorkspaces',
  BatchManageEnterpriseUsers: 'manageEnterpriseUsers',
  BatchManageUserMembership: 'manageUserMembership',
  GrantAdminAccess: 'grantAdminAccess',
  RevokeAdminAccess: 'revokeAdminAccess',
  RemoveUserFromEnterprise: 'removeUserFromEnterprise',
};

const PAT_TOKEN = 'pat_e2e_partner_admin';

describe('StoreApi enterprise account, user and group tools end to end', () => {
  let upstream: StoreEmulatorHandle;
  let mcp: Connected;
  /** Pat, admin of Partner Co (an organisation without Enterprise Hub). */
  let patMcp: Connected;
  let account: { root: string; europe: string; partner: string };
  let user: Record<
    'owner' | 'ada' | 'grace' | 'alan' | 'katherine' | 'margaret' | 'bot' | 'emilie' | 'pat',
    string
  >;
  let group: { engineering: string; support: string };
  let research: string;
  let roadmap: string;

  const { call, ok, exec, lastRequest } = storeTools(
    () => mcp,
    () => upstream,
  );
  const profile = (id: string) => upstream.stateItem<UserProfileDoc>('user_profiles', id);
  const workspaceDoc = (id: string) => upstream.stateItem<WorkspaceAdminDoc>('workspace_admin', id);
  const userRow = (id: string) =>
    upstream.stateItem<{ id: string; email: string; name: string }>('users', id);

  beforeAll(async () => {
    // The seed is deterministic, so Pat's id is known before his token is made.
    const probe = await startStore();
    const patId = probe.emulator.store.schema().userByEmail.get(ADMIN_SEED.users.partner.email)!.id;
    await probe.close();
    upstream = await startStore({ tokens: [{ token: PAT_TOKEN, userId: patId, scopes: ALL_SCOPES }] });
    mcp = await connectStore('http', upstream.env());
    patMcp = await connectStore('http', upstream.env({ STORE_ACCESS_TOKEN: PAT_TOKEN }));
    const state = upstream.emulator.admin.state;
    const snapshot = upstream.emulator.store.schema();
    const accountNamed = (name: string) => state.list('account').find((a) => a.name === name)!.id;
    account = {
      root: accountNamed(ADMIN_SEED.rootAccount),
      europe: accountNamed(ADMIN_SEED.descendantAccount),
      partner: accountNamed(ADMIN_SEED.otherOrganisation),
    };
    const byEmail = (email: string) => snapshot.userByEmail.get(email)!.id;
    user = {
      owner: byEmail('owner@sandbox.example.com'),
      ada: byEmail('ada@sandbox.example.com'),
      grace: byEmail('grace@sandbox.example.com'),
      alan: byEmail('alan@sandbox.example.com'),
      katherine: byEmail(ADMIN_SEED.users.katherine.email),
      margaret: byEmail(ADMIN_SEED.users.margaret.email),
      bot: byEmail(ADMIN_SEED.users.bot.email),
      emilie: byEmail(ADMIN_SEED.users.europe.email),
      pat: patId,
    };
    const groupNamed = (name: string) => state.list('group').find((g) => g.name === name)!.id;
    group = {
      engineering: groupNamed(ADMIN_SEED.groups.engineering),
      support: groupNamed(ADMIN_SEED.groups.support),
    };
    research = snapshot.workspaces.find((w) => w.name === ADMIN_SEED.workspaces.research)!.id;
    roadmap = snapshot.bases.find((b) => b.name === 'Product Roadmap')!.id;
  });
  afterAll(async () => {
    await patMcp?.close();
    await mcp?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.clearLog());

  it('schema mode: the eight body-taking tools return their body schema and call nothing', async () => {
    for (const [tool, body] of Object.entries(SCHEMA_MODE)) {
      const result = await ok(tool, { mode: 'get_request_schema' });
      expect(result.tool, tool).toBe(T(tool));
      expect(result.request_body, tool).toEqual(requestBodyDocument(STORE_BODIES[body]));
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('GetEnterpriseInfo describes the root account with aggregated and descendant lists', async () => {
    const info = await ok('GetEnterpriseInfo', {
      enterprise_account_id: account.root,
      fields_to_include: ['aggregated', 'descendants'],
    });
    expect(info.id).toBe(account.root);
    expect(info.descendantEnterpriseAccountIds).toEqual([account.europe]);
    expect(info.groupIds).toEqual([group.engineering, group.support]);
    expect((info.aggregated as { userIds: string[] }).userIds).toContain(user.emilie);
    expect(info.descendants).toHaveProperty(account.europe);
    const request = await lastRequest();
    expect(request).toMatchObject({ method: 'GET', path: `${ENT}/${account.root}`, status: 200 });
    expect(request.query).toEqual({ 'include[]': ['aggregated', 'descendants'] });
  });

  it('CreateDescendantEnterpriseAccount creates a descendant of the root', async () => {
    const created = await exec(
      'CreateDescendantEnterpriseAccount',
      { enterprise_account_id: account.root },
      { name: 'E2E Asia' },
    );
    expect(created.id).toMatch(/^ent/);
    expect(created).toMatchObject({ name: 'E2E Asia', rootEnterpriseAccountId: account.root });
    const request = await lastRequest();
    expect(request).toMatchObject({
      method: 'POST',
      path: `${ENT}/${account.root}/descendants`,
      body: { name: 'E2E Asia' },
      status: 200,
    });
    const stored = (await upstream.state<EnterpriseAccountDoc>('enterprise_accounts')).find(
      (a) => a.id === created.id,
    );
    expect(stored?.parentEnterpriseAccountId).toBe(account.root);
  });

  it('CreateDescendantEnterpriseAccount on Partner Co (no Enterprise Hub) is a tool error', async () => {
    const refused = await call(
      'CreateDescendantEnterpriseAccount',
      {
        mode: 'execute',
        enterprise_account_id: account.partner,
        request_body: json({ name: 'Partner Labs' }),
      },
      patMcp,
    );
    expect(refused.isError).toBe(true);
    expect(errorOf(refused)).toMatchObject({ status: 403, upstream_code: 'INVALID_PERMISSIONS' });
    expect(errorOf(refused).message).toMatch(/Enterprise Hub/);
    expect((await lastRequest()).path).toBe(`${ENT}/${account.partner}/descendants`);
    const partnerOrg = (await upstream.state<EnterpriseAccountDoc>('enterprise_accounts')).filter(
      (a) => a.rootEnterpriseAccountId === account.partner,
    );
    expect(partnerOrg).toHaveLength(1);
  });

  it('BatchMoveUserGroupsBetweenAccounts moves a group; moving to another organisation is refused', async () => {
    const moved = await exec(
      'BatchMoveUserGroupsBetweenAccounts',
      { target_enterprise_account_id: account.root },
      { groupIds: [group.support, 'ugpDoesNotExist0'], targetEnterpriseAccountId: account.europe },
    );
    expect(moved.movedGroups).toEqual([{ id: group.support }]);
    expect(moved.errors).toEqual([expect.objectContaining({ id: 'ugpDoesNotExist0', type: 'NOT_FOUND' })]);
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${ENT}/${account.root}/moveGroups`,
      body: { groupIds: [group.support, 'ugpDoesNotExist0'], targetEnterpriseAccountId: account.europe },
      status: 200,
    });
    const groups = await upstream.state<UserGroupDoc>('user_groups');
    expect(groups.find((g) => g.id === group.support)?.enterpriseAccountId).toBe(account.europe);

    const crossing = await call('BatchMoveUserGroupsBetweenAccounts', {
      mode: 'execute',
      target_enterprise_account_id: account.root,
      request_body: json({ groupIds: [group.engineering], targetEnterpriseAccountId: account.partner }),
    });
    expect(crossing.isError).toBe(true);
    expect(errorOf(crossing)).toMatchObject({ status: 422, upstream_code: 'INVALID_REQUEST_UNKNOWN' });
    expect(errorOf(crossing).message).toMatch(/same organisation/);
  });

  it('GetStoreUserInfo finds users by id and email with their collaborations', async () => {
    const result = await ok('GetStoreUserInfo', {
      enterprise_account_id: account.root,
      user_ids: [user.ada],
      user_emails: ['alan@sandbox.example.com'],
      include_fields: ['collaborations'],
    });
    const users = result.users as {
      id: string;
      collaborations: { baseCollaborations: { baseId: string }[] };
    }[];
    expect(users.map((u) => u.id)).toEqual([user.ada, user.alan]);
    expect(users[0]!.collaborations.baseCollaborations.map((b) => b.baseId)).toContain(roadmap);
    const request = await lastRequest();
    expect(request).toMatchObject({ method: 'GET', path: `${ENT}/${account.root}/users`, status: 200 });
    expect(request.query).toEqual({
      'include[]': 'collaborations',
      'email[]': 'alan@sandbox.example.com',
      'id[]': user.ada,
    });
  });

  it('GetUserInformation returns one user', async () => {
    const result = await ok('GetUserInformation', {
      enterprise_account_id: account.root,
      user_id: user.margaret,
    });
    expect(result).toMatchObject({ id: user.margaret, isAdmin: true, isManaged: true, state: 'provisioned' });
    expect(await lastRequest()).toMatchObject({
      method: 'GET',
      path: `${ENT}/${account.root}/users/${user.margaret}`,
      status: 200,
    });
  });

  it('ManageEnterpriseAccountUser renames a user; an email outside the domains is a tool error', async () => {
    const result = await ok('ManageEnterpriseAccountUser', {
      enterprise_account_id: account.root,
      user_id: user.ada,
      user_first_name: 'Augusta Ada',
      user_last_name: 'King',
    });
    // The upstream answers with an empty body, which the tool reports as success and the status.
    expect(result).toEqual({ success: true, status: 200 });
    expect(await lastRequest()).toMatchObject({
      method: 'PATCH',
      path: `${ENT}/${account.root}/users/${user.ada}`,
      body: { firstName: 'Augusta Ada', lastName: 'King' },
      status: 200,
    });
    expect((await userRow(user.ada))?.name).toBe('Augusta Ada King');
    expect(await profile(user.ada)).toMatchObject({ firstName: 'Augusta Ada', lastName: 'King' });

    const refused = await call('ManageEnterpriseAccountUser', {
      enterprise_account_id: account.root,
      user_id: user.ada,
      update_user_email: 'ada@elsewhere.example',
    });
    expect(refused.isError).toBe(true);
    expect(errorOf(refused)).toMatchObject({ status: 422 });
    expect(errorOf(refused).message).toMatch(/email domains/);
    expect((await userRow(user.ada))?.email).toBe('ada@sandbox.example.com');
  });

  it('BatchManageEnterpriseUsers changes several users and reports the rest', async () => {
    const result = await exec(
      'BatchManageEnterpriseUsers',
      { enterprise_account_id: account.root },
      {
        users: [
          { id: user.grace, lastName: 'Hopper-Murray' },
          { email: 'nobody@sandbox.example.com', state: 'deactivated' },
        ],
      },
    );
    expect(result.errors).toEqual([
      expect.objectContaining({ email: 'nobody@sandbox.example.com', type: 'NOT_FOUND' }),
    ]);
    expect(await lastRequest()).toMatchObject({
      method: 'PATCH',
      path: `${ENT}/${account.root}/users`,
      body: {
        users: [
          { id: user.grace, lastName: 'Hopper-Murray' },
          { email: 'nobody@sandbox.example.com', state: 'deactivated' },
        ],
      },
      status: 200,
    });
    expect((await profile(user.grace))?.lastName).toBe('Hopper-Murray');
    expect((await userRow(user.grace))?.name).toBe('Grace Hopper-Murray');
  });

  it('BatchManageUserMembership claims an unmanaged user', async () => {
    expect((await profile(user.alan))?.isManaged).toBe(false);
    const result = await exec(
      'BatchManageUserMembership',
      { enterprise_account_id: account.root },
      { users: [{ id: user.alan, state: 'managed' }] },
    );
    expect(result.errors).toEqual([]);
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${ENT}/${account.root}/users/claim`,
      body: { users: [{ id: user.alan, state: 'managed' }] },
      status: 200,
    });
    expect((await profile(user.alan))?.isManaged).toBe(true);
  });

  it('GrantAdminAccess and RevokeAdminAccess change admin access; revoking one’s own is reported', async () => {
    const granted = await exec(
      'GrantAdminAccess',
      { enterprise_account_id: account.root },
      { users: [{ email: 'ada@sandbox.example.com' }] },
    );
    expect(granted.errors).toEqual([]);
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${ENT}/${account.root}/users/grantAdminAccess`,
      body: { users: [{ email: 'ada@sandbox.example.com' }] },
      status: 200,
    });
    expect((await profile(user.ada))?.isAdmin).toBe(true);

    const revoked = await exec(
      'RevokeAdminAccess',
      { enterprise_account_id: account.root },
      { users: [{ id: user.ada }, { id: user.owner }] },
    );
    expect(revoked.errors).toEqual([
      expect.objectContaining({ id: user.owner, type: 'CANNOT_REVOKE_OWN_ADMIN_ACCESS' }),
    ]);
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${ENT}/${account.root}/users/revokeAdminAccess`,
      body: { users: [{ id: user.ada }, { id: user.owner }] },
    });
    expect((await profile(user.ada))?.isAdmin).toBe(false);
    expect((await profile(user.owner))?.isAdmin).toBe(true);
  });

  it('LogoutEnterpriseUser ends the user’s sessions', async () => {
    const result = await ok('LogoutEnterpriseUser', {
      enterprise_account_id: account.root,
      enterprise_user_id: user.grace,
      logout_request_body: {},
    });
    // The upstream's empty answer reaches the agent as a plain success.
    expect(result).toMatchObject({ success: true, status: 200 });
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${ENT}/${account.root}/users/${user.grace}/logout`,
      body: {},
      status: 200,
    });
    expect((await profile(user.grace))?.loggedOutTime).toEqual(expect.any(String));
  });

  it('RemoveUserFromEnterprise: a dry run reports, a sole owner needs a replacement, then it unshares', async () => {
    const dry = await exec(
      'RemoveUserFromEnterprise',
      { enterprise_account_id: account.root, user_id: user.grace },
      { isDryRun: true, replacementOwnerId: user.alan },
    );
    expect(dry.shared).toEqual({
      workspaces: [
        {
          permissionLevel: 'owner',
          userId: user.alan,
          workspaceId: research,
          workspaceName: ADMIN_SEED.workspaces.research,
        },
      ],
    });
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${ENT}/${account.root}/users/${user.grace}/remove`,
      body: { isDryRun: true, replacementOwnerId: user.alan },
      status: 200,
    });
    expect((await workspaceDoc(research))?.users[user.grace]?.permissionLevel).toBe('owner');

    const refused = await call('RemoveUserFromEnterprise', {
      mode: 'execute',
      enterprise_account_id: account.root,
      user_id: user.grace,
      request_body: json({}),
    });
    expect(refused.isError).toBe(true);
    expect(errorOf(refused)).toMatchObject({ status: 422 });
    expect(errorOf(refused).message).toMatch(/replacementOwnerId/);
    await upstream.clearLog();

    const removed = await exec(
      'RemoveUserFromEnterprise',
      { enterprise_account_id: account.root, user_id: user.grace },
      { replacementOwnerId: user.alan },
    );
    expect(removed.wasUserRemovedAsAdmin).toBe(false);
    expect((removed.unshared as { bases: { baseId: string }[] }).bases.map((b) => b.baseId)).toContain(
      roadmap,
    );
    expect((await lastRequest()).status).toBe(200);
    const doc = await workspaceDoc(research);
    expect(doc?.users[user.grace]).toBeUndefined();
    expect(doc?.users[user.alan]?.permissionLevel).toBe('owner');
  });

  it('MoveWorkspacesBetweenEnterpriseAccounts moves a workspace with a replacement owner', async () => {
    const moved = await exec(
      'MoveWorkspacesBetweenEnterpriseAccounts',
      { enterprise_account_id: account.root },
      {
        workspaceIds: [research],
        targetEnterpriseAccountId: account.europe,
        replacementOwnerId: user.emilie,
      },
    );
    expect(moved).toEqual({ movedWorkspaces: [{ id: research }], errors: [] });
    expect(await lastRequest()).toMatchObject({
      method: 'POST',
      path: `${ENT}/${account.root}/moveWorkspaces`,
      body: {
        workspaceIds: [research],
        targetEnterpriseAccountId: account.europe,
        replacementOwnerId: user.emilie,
      },
      status: 200,
    });
    const doc = await workspaceDoc(research);
    expect(doc?.enterpriseAccountId).toBe(account.europe);
    expect(doc?.users[user.emilie]?.permissionLevel).toBe('owner');
  });

  it('DeleteEnterpriseUser deletes a managed user', async () => {
    const result = await ok('DeleteEnterpriseUser', {
      enterprise_account_id: account.root,
      user_id: user.katherine,
    });
    // The upstream answers nothing on success (delete-user-by-id).
    expect(result).toEqual({ success: true, status: 200 });
    expect(await lastRequest()).toMatchObject({
      method: 'DELETE',
      path: `${ENT}/${account.root}/users/${user.katherine}`,
      status: 200,
    });
    expect(await userRow(user.katherine)).toBeUndefined();
    expect(await profile(user.katherine)).toBeUndefined();
  });

  it('DeleteUsersByEmail deletes managed users by email and reports unknown ones', async () => {
    const result = await ok('DeleteUsersByEmail', {
      enterprise_account_id: account.root,
      email_addresses: [ADMIN_SEED.users.bot.email, 'nobody@sandbox.example.com'],
    });
    expect(result.deletedUsers).toEqual([{ id: user.bot, email: ADMIN_SEED.users.bot.email }]);
    expect(result.errors).toEqual([
      expect.objectContaining({ email: 'nobody@sandbox.example.com', type: 'NOT_FOUND' }),
    ]);
    const request = await lastRequest();
    expect(request).toMatchObject({ method: 'DELETE', path: `${ENT}/${account.root}/users`, status: 200 });
    expect(request.query).toEqual({ 'email[]': [ADMIN_SEED.users.bot.email, 'nobody@sandbox.example.com'] });
    expect(await userRow(user.bot)).toBeUndefined();
  });

  it('GetUserGroupInfo describes a group with its members and collaborations', async () => {
    const result = await ok('GetUserGroupInfo', {
      user_group_id: group.engineering,
      include_additional_info: ['collaborations'],
    });
    expect(result).toMatchObject({
      id: group.engineering,
      name: ADMIN_SEED.groups.engineering,
      enterpriseAccountId: account.root,
    });
    expect((result.members as { userId: string }[]).map((m) => m.userId)).toContain(user.owner);
    expect(
      (result.collaborations as { baseCollaborations: { baseId: string }[] }).baseCollaborations,
    ).toEqual([expect.objectContaining({ baseId: roadmap, permissionLevel: 'read' })]);
    const request = await lastRequest();
    expect(request).toMatchObject({
      method: 'GET',
      path: `/v0/meta/groups/${group.engineering}`,
      status: 200,
    });
    expect(request.query).toEqual({ 'include[]': 'collaborations' });
  });
});
