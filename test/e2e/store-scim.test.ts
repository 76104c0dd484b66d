// The twelve SCIM tools end to end: the SDK's MCP client -> Switchboard over Streamable HTTP -> the store
// emulator on loopback. Each tool's result, the exact upstream request the emulator logged (method, path, query,
// body) and the emulator's state afterwards; the six body-taking tools in both modes; refusals (an invalid
// filter, a group name in use, the sole owner of a shared workspace, the caller itself) surfaced as tool errors
// carrying the SCIM detail. One emulator and one client for the file: the tests run in order and build on each
// other.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestBodyDocument } from '../../src/runtime/schemaMode.js';
import type { UserGroupDoc, UserProfileDoc } from '../../src/services/store/emulator/admin/model.js';
import { ADMIN_SEED } from '../../src/services/store/emulator/seed/admin.js';
import { STORE_BODIES, type StoreBodyName } from '../../src/services/store/schemas/index.js';
import { type Connected, errorOf } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore, storeTools } from './storeHarness.js';

const T = (name: string) => `StoreApi.${name}`;
const json = (value: unknown) => JSON.stringify(value);

const USER_URI = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_URI = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_URI = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST_URI = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

const SCHEMA_MODE: Record<string, StoreBodyName> = {
  CreateScimGroup: 'createScimGroup',
  UpdateGroupDetails: 'patchScimGroup',
  UpdateGroupAttributes: 'replaceScimGroup',
  CreateScimUser: 'createScimUser',
  UpdateScimUserRecord: 'patchScimUser',
  UpdateUserAttributes: 'replaceScimUser',
};

interface ScimUser {
  id: string;
  userName: string;
  name: { givenName: string; familyName: string };
  active: boolean;
  title?: string;
  externalId?: string;
}

describe('StoreApi SCIM tools end to end', () => {
  let upstream: StoreEmulatorHandle;
  let mcp: Connected;
  let user: Record<'owner' | 'ada' | 'grace' | 'alan', string>;
  let support: string;
  // Made by the tests, in order.
  let created: string;
  let design: string;

  const { call, ok, exec, lastRequest } = storeTools(
    () => mcp,
    () => upstream,
  );
  const profile = (id: string) => upstream.stateItem<UserProfileDoc>('user_profiles', id);
  const groupDoc = (id: string) => upstream.stateItem<UserGroupDoc>('user_groups', id);
  const userRow = (id: string) =>
    upstream.stateItem<{ id: string; email: string; name: string }>('users', id);

  beforeAll(async () => {
    upstream = await startStore();
    mcp = await connectStore('http', upstream.env());
    const snapshot = upstream.emulator.store.schema();
    const byEmail = (email: string) => snapshot.userByEmail.get(email)!.id;
    user = {
      owner: byEmail('owner@sandbox.example.com'),
      ada: byEmail('ada@sandbox.example.com'),
      grace: byEmail('grace@sandbox.example.com'),
      alan: byEmail('alan@sandbox.example.com'),
    };
    support = upstream.emulator.admin.state
      .list('group')
      .find((g) => g.name === ADMIN_SEED.groups.support)!.id;
  });
  afterAll(async () => {
    await mcp?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.clearLog());

  it('schema mode: the six body-taking tools return their body schema and call nothing', async () => {
    for (const [tool, body] of Object.entries(SCHEMA_MODE)) {
      const result = await ok(tool, { mode: 'get_request_schema' });
      expect(result.tool, tool).toBe(T(tool));
      expect(result.request_body, tool).toEqual(requestBodyDocument(STORE_BODIES[body]));
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('ListScimUsers pages and filters the enterprise directory', async () => {
    const page = await ok('ListScimUsers', { start_index: 2, user_count_limit: 3 });
    expect(page).toMatchObject({ schemas: [LIST_URI], totalResults: 8, startIndex: 2, itemsPerPage: 3 });
    expect((page.Resources as ScimUser[])[0]!.userName).toBe('ada@sandbox.example.com');
    expect(await lastRequest()).toMatchObject({
      method: 'GET',
      path: '/scim/v2/Users',
      query: { startIndex: '2', count: '3' },
      status: 200,
    });
    const filter = 'userName eq "GRACE@sandbox.example.com" or title pr';
    const filtered = await ok('ListScimUsers', { user_filter: filter });
    expect((filtered.Resources as ScimUser[]).map((u) => u.userName)).toEqual([
      'grace@sandbox.example.com',
      ADMIN_SEED.users.margaret.email,
    ]);
    expect((await lastRequest()).query).toEqual({ filter });
  });

  it('ListScimUsers surfaces an invalid filter as a tool error with the SCIM detail', async () => {
    const result = await call('ListScimUsers', { user_filter: 'userName eq grace' });
    expect(result.isError).toBe(true);
    const error = errorOf(result);
    expect(error.status).toBe(400);
    expect(error.upstream_code).toBe('invalidFilter');
    expect(error.message).toMatch(/double-quoted string/);
    expect((await lastRequest()).status).toBe(400);
  });

  it('CreateScimUser provisions an active managed user', async () => {
    const body = {
      schemas: [USER_URI],
      userName: 'mary@sandbox.example.com',
      name: { givenName: 'Mary', familyName: 'Jackson' },
      title: 'Engineer',
      externalId: 'okta-1',
    };
    const result = await exec('CreateScimUser', {}, body);
    created = result.id as string;
    expect(created).toMatch(/^usr/);
    expect(result).toMatchObject({ userName: 'mary@sandbox.example.com', active: true, title: 'Engineer' });
    expect(await lastRequest()).toMatchObject({ method: 'POST', path: '/scim/v2/Users', body, status: 201 });
    expect(await userRow(created)).toEqual({
      id: created,
      email: 'mary@sandbox.example.com',
      name: 'Mary Jackson',
    });
    expect(await profile(created)).toMatchObject({
      state: 'provisioned',
      isManaged: true,
      firstName: 'Mary',
    });
  });

  it('GetScimUser reads one user', async () => {
    const result = await ok('GetScimUser', { user_id: created });
    expect(result).toMatchObject({
      schemas: [USER_URI],
      id: created,
      externalId: 'okta-1',
      meta: { resourceType: 'User', location: `/scim/v2/Users/${created}` },
    });
    expect(await lastRequest()).toMatchObject({
      method: 'GET',
      path: `/scim/v2/Users/${created}`,
      status: 200,
    });
  });

  it('UpdateScimUserRecord patches the user: a new family name, then deactivation', async () => {
    const body = {
      schemas: [PATCH_URI],
      Operations: [
        { op: 'replace', path: 'name.familyName', value: 'Jackson-Smith' },
        { op: 'replace', path: 'active', value: false },
      ],
    };
    const result = await exec('UpdateScimUserRecord', { user_id: created }, body);
    expect(result).toMatchObject({ name: { familyName: 'Jackson-Smith' }, active: false });
    expect(await lastRequest()).toMatchObject({ method: 'PATCH', path: `/scim/v2/Users/${created}`, body });
    expect(await profile(created)).toMatchObject({ state: 'deactivated', lastName: 'Jackson-Smith' });
    expect((await userRow(created))?.name).toBe('Mary Jackson-Smith');
  });

  it('UpdateUserAttributes replaces the user: reactivated, renamed, title dropped', async () => {
    const body = {
      schemas: [USER_URI],
      userName: 'mary.jackson@sandbox.example.com',
      name: { givenName: 'Mary', familyName: 'Jackson' },
      active: true,
    };
    const result = await exec('UpdateUserAttributes', { user_id: created }, body);
    expect(result).toMatchObject({ userName: 'mary.jackson@sandbox.example.com', active: true });
    expect(result.title).toBeUndefined();
    expect(await lastRequest()).toMatchObject({ method: 'PUT', path: `/scim/v2/Users/${created}`, body });
    expect(await userRow(created)).toMatchObject({ email: 'mary.jackson@sandbox.example.com' });
    expect(await profile(created)).toMatchObject({ state: 'provisioned' });
  });

  it('ListScimGroups filters and limits the groups', async () => {
    const all = await ok('ListScimGroups', { group_count: 2 });
    expect(all).toMatchObject({ schemas: [LIST_URI], totalResults: 3, itemsPerPage: 2 });
    expect(await lastRequest()).toMatchObject({
      method: 'GET',
      path: '/scim/v2/Groups',
      query: { count: '2' },
    });
    const filter = `members[value eq "${user.alan}"]`;
    const filtered = await ok('ListScimGroups', { filter_criteria: filter });
    expect((filtered.Resources as { id: string }[]).map((g) => g.id)).toEqual([support]);
    expect((await lastRequest()).query).toEqual({ filter });
  });

  it('CreateScimGroup creates an empty group; a name in use is a tool error', async () => {
    const body = { schemas: [GROUP_URI], displayName: 'Design' };
    const result = await exec('CreateScimGroup', {}, body);
    design = result.id as string;
    expect(result).toMatchObject({ displayName: 'Design', members: [] });
    expect(await lastRequest()).toMatchObject({ method: 'POST', path: '/scim/v2/Groups', body, status: 201 });
    expect(await groupDoc(design)).toMatchObject({ name: 'Design', members: [] });

    const again = await call('CreateScimGroup', { mode: 'execute', request_body: json(body) });
    expect(again.isError).toBe(true);
    expect(errorOf(again)).toMatchObject({ status: 409, upstream_code: 'uniqueness' });
    expect(errorOf(again).message).toContain(design);
  });

  it('FetchScimGroup reads one group', async () => {
    const result = await ok('FetchScimGroup', { scim_group_id: support });
    expect(result).toMatchObject({ id: support, displayName: 'Support', members: [{ value: user.alan }] });
    expect(await lastRequest()).toMatchObject({ method: 'GET', path: `/scim/v2/Groups/${support}` });
  });

  it('UpdateGroupDetails adds members and renames the group', async () => {
    const body = {
      schemas: [PATCH_URI],
      Operations: [
        { op: 'add', path: 'members', value: [{ value: created }, { value: user.ada }] },
        { op: 'replace', path: 'displayName', value: 'Product Design' },
      ],
    };
    const result = await exec('UpdateGroupDetails', { group_id: design }, body);
    expect(result).toMatchObject({
      displayName: 'Product Design',
      members: [{ value: created }, { value: user.ada, display: 'Ada Lovelace' }],
    });
    expect(await lastRequest()).toMatchObject({ method: 'PATCH', path: `/scim/v2/Groups/${design}`, body });
    expect((await groupDoc(design))?.members.map((m) => m.userId)).toEqual([created, user.ada]);
  });

  it('UpdateGroupAttributes replaces the name and the member list', async () => {
    const body = { schemas: [GROUP_URI], displayName: 'Design', members: [{ value: user.grace }] };
    const result = await exec('UpdateGroupAttributes', { group_id: design }, body);
    expect(result).toMatchObject({ displayName: 'Design', members: [{ value: user.grace }] });
    expect(await lastRequest()).toMatchObject({ method: 'PUT', path: `/scim/v2/Groups/${design}`, body });
    expect(await groupDoc(design)).toMatchObject({ name: 'Design', members: [{ userId: user.grace }] });
  });

  it('DeleteScimGroup deletes the group and keeps its users', async () => {
    const result = await ok('DeleteScimGroup', { group_id: design });
    expect(result).toMatchObject({ success: true, status: 204 });
    expect(await lastRequest()).toMatchObject({
      method: 'DELETE',
      path: `/scim/v2/Groups/${design}`,
      status: 204,
    });
    expect(await groupDoc(design)).toBeUndefined();
    expect(await userRow(user.grace)).toBeDefined();
  });

  it('DeleteScimUser refuses the caller and a sole owner of a shared workspace, as tool errors saying why', async () => {
    const self = await call('DeleteScimUser', { scim_user_id: user.owner });
    expect(self.isError).toBe(true);
    expect(errorOf(self).status).toBe(422);
    expect(errorOf(self).message).toMatch(/Cannot perform deletion operation on own account/);
    const sole = await call('DeleteScimUser', { scim_user_id: user.grace });
    expect(sole.isError).toBe(true);
    expect(errorOf(sole).status).toBe(422);
    expect(errorOf(sole).message).toMatch(
      /Cannot delete the sole owner of a workspace containing multiple collaborators/,
    );
    expect(await userRow(user.owner)).toBeDefined();
    expect(await userRow(user.grace)).toBeDefined();
    expect((await upstream.requests()).map((r) => [r.method, r.path, r.status])).toEqual([
      ['DELETE', `/scim/v2/Users/${user.owner}`, 422],
      ['DELETE', `/scim/v2/Users/${user.grace}`, 422],
    ]);
  });

  it('DeleteScimUser deletes a user everywhere', async () => {
    const result = await ok('DeleteScimUser', { scim_user_id: created });
    expect(result).toMatchObject({ success: true, status: 204 });
    expect(await lastRequest()).toMatchObject({
      method: 'DELETE',
      path: `/scim/v2/Users/${created}`,
      status: 204,
    });
    expect(await userRow(created)).toBeUndefined();
    expect(await profile(created)).toBeUndefined();
    const gone = await call('GetScimUser', { user_id: created });
    expect(errorOf(gone)).toMatchObject({ status: 404, kind: 'not_found' });
  });
});
