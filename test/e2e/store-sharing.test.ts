// The 16 StoreApi sharing tools end to end: the SDK's MCP client -> Switchboard over Streamable HTTP -> the
// data-store emulator on loopback. Each tool's result, the exact upstream request the emulator logged, and the
// emulator's state afterwards; the six schema-mode tools in both modes; refusals (a workspace restriction, too
// little access, unknown ids, a body refused before sending) surfaced as tool errors.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestBodyDocument } from '../../src/runtime/schemaMode.js';
import { ALL_SCOPES } from '../../src/services/store/emulator/auth.js';
import { buildSeedData, DEFAULT_SEED } from '../../src/services/store/emulator/seed/seed.js';
import { STORE_BODIES, type StoreBodyName } from '../../src/services/store/schemas/index.js';
import { type Connected, errorOf } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore } from './storeHarness.js';

const T = (name: string) => `StoreApi.${name}`;
const json = (value: unknown) => JSON.stringify(value);

const SCHEMA_MODE: Record<string, StoreBodyName> = {
  ManageStoreBlockInstallation: 'manageBlockInstallation',
  AddBaseCollaborator: 'addBaseCollaborators',
  UpdateCollaboratorPermission: 'updateBaseCollaborator',
  AddCollaboratorToStoreInterface: 'addInterfaceCollaborator',
  UpdateCollaboratorPermissions: 'updateInterfaceCollaborator',
  ManageStoreSharing: 'manageShare',
};

/** What a tool answers for the upstream's empty `{}`. */
const EMPTY = { success: true, status: 200 };

const ADA_TOKEN = 'pat_e2e_ada';
const ada = buildSeedData({ seed: DEFAULT_SEED, scale: 0, now: new Date() }).users[1]!;

interface Named {
  id: string;
  name: string;
}
interface Share {
  id: string;
  baseId: string;
  state: string;
  type: string;
}

let upstream: StoreEmulatorHandle;
let mcp: Connected;
let roadmap: string;
let crm: string;
let workspaceId: string;
let margaret: string;
let alan: string;

const ok = async (tool: string, args: Record<string, unknown> = {}) => {
  const result = await mcp.call(T(tool), args);
  if (result.isError) throw new Error(`${tool}: ${result.text}`);
  return result.structured;
};
const exec = (tool: string, args: Record<string, unknown>, body: unknown) =>
  ok(tool, { mode: 'execute', ...args, request_body: json(body) });
/** The upstream requests since the last look, as method, path, query and body. */
const logged = async () =>
  (await upstream.requests()).map((r) => ({ method: r.method, path: r.path, query: r.query, body: r.body }));
const admin = () => upstream.emulator.admin.state;

beforeAll(async () => {
  upstream = await startStore({ tokens: [{ token: ADA_TOKEN, userId: ada.id, scopes: ALL_SCOPES }] });
  mcp = await connectStore('http', upstream.env());
  const bases = await upstream.state<Named & { workspaceId: string }>('bases');
  roadmap = bases.find((b) => b.name === 'Product Roadmap')!.id;
  crm = bases.find((b) => b.name === 'Sales CRM')!.id;
  workspaceId = bases[0]!.workspaceId;
  const users = await upstream.state<{ id: string; email: string }>('users');
  margaret = users.find((u) => u.email.startsWith('margaret@'))!.id;
  alan = users.find((u) => u.email.startsWith('alan@'))!.id;
});
afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
});
beforeEach(() => upstream.clearLog());

describe('StoreApi sharing tools end to end', () => {
  it('schema mode: each of the 6 tools returns its body schema and calls nothing', async () => {
    for (const [tool, body] of Object.entries(SCHEMA_MODE)) {
      const result = await ok(tool, { mode: 'get_request_schema' });
      expect(result.tool, tool).toBe(T(tool));
      expect(result.request_body, tool).toEqual(requestBodyDocument(STORE_BODIES[body]));
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('GetBaseCollaborators: collaborators, invite links and interfaces as asked', async () => {
    const result = await ok('GetBaseCollaborators', {
      base_id: roadmap,
      fields_to_include: ['collaborators', 'inviteLinks', 'interfaces'],
    });
    expect(result).toMatchObject({
      id: roadmap,
      name: 'Product Roadmap',
      permissionLevel: 'create',
      workspaceId,
    });
    const individual = result.individualCollaborators as { baseCollaborators: { email: string }[] };
    expect(individual.baseCollaborators.map((c) => c.email)).toEqual([
      'owner@sandbox.example.com',
      'ada@sandbox.example.com',
      'grace@sandbox.example.com',
    ]);
    const invites = result.inviteLinks as { baseInviteLinks: { invitedEmail: string }[] };
    expect(invites.baseInviteLinks.map((i) => i.invitedEmail)).toEqual(['contractor@example.org']);
    const interfaces = Object.values(
      result.interfaces as Record<string, Named & { firstPublishTime: string | null }>,
    );
    expect(interfaces.map((i) => i.name)).toEqual(['Roadmap Dashboard']);
    expect(interfaces[0]!.firstPublishTime).toEqual(expect.any(String));
    expect(await logged()).toEqual([
      {
        method: 'GET',
        path: `/v0/meta/bases/${roadmap}`,
        query: { 'include[]': ['collaborators', 'inviteLinks', 'interfaces'] },
        body: null,
      },
    ]);
  });

  it('ListBaseBlockInstallations, ManageStoreBlockInstallation, DeleteStoreBlockInstallation', async () => {
    // The upstream answers a bare array, which the tool result carries as {items}.
    const listed = await ok('ListBaseBlockInstallations', { base_id: roadmap });
    const installations = listed.items as (Named & { state: string })[];
    expect(installations.map((b) => [b.name, b.state])).toEqual([
      ['Chart', 'enabled'],
      ['Page designer', 'disabled'],
    ]);
    const designer = installations[1]!.id;
    const managed = await exec(
      'ManageStoreBlockInstallation',
      { store_base_id: roadmap, block_installation_id: designer },
      { state: 'enabled' },
    );
    expect(managed).toEqual(EMPTY);
    const deleted = await ok('DeleteStoreBlockInstallation', {
      store_base_id: roadmap,
      block_installation_id: designer,
    });
    expect(deleted).toEqual(EMPTY);
    expect(await logged()).toEqual([
      { method: 'GET', path: `/v0/meta/bases/${roadmap}/blockInstallations`, query: {}, body: null },
      {
        method: 'PATCH',
        path: `/v0/meta/bases/${roadmap}/blockInstallations/${designer}`,
        query: {},
        body: { state: 'enabled' },
      },
      {
        method: 'DELETE',
        path: `/v0/meta/bases/${roadmap}/blockInstallations/${designer}`,
        query: {},
        body: null,
      },
    ]);
    const stored = await upstream.state<{ id: string; state: string; deletedTime: string | null }>(
      'block_installations',
    );
    expect(stored.find((b) => b.id === designer)).toMatchObject({
      state: 'enabled',
      deletedTime: expect.any(String),
    });
  });

  it('AddBaseCollaborator, UpdateCollaboratorPermission, RemoveBaseCollaborator', async () => {
    const added = await exec(
      'AddBaseCollaborator',
      { base_id: crm },
      { collaborators: [{ user: { id: margaret }, permissionLevel: 'edit' }] },
    );
    expect(added).toEqual(EMPTY);
    expect(upstream.emulator.store.directPermissionOf(crm, margaret)).toBe('edit');
    const updated = await exec(
      'UpdateCollaboratorPermission',
      { base_identifier: crm, collaborator_id: margaret },
      { permissionLevel: 'comment' },
    );
    expect(updated).toEqual(EMPTY);
    expect(upstream.emulator.store.directPermissionOf(crm, margaret)).toBe('comment');
    const grants = await upstream.state<{ id: string; userGrants: Record<string, unknown> }>('base_admin');
    expect(grants.find((b) => b.id === crm)!.userGrants[margaret]).toMatchObject({
      grantedByUserId: expect.stringMatching(/^usr/),
    });
    const removed = await ok('RemoveBaseCollaborator', { base_id: crm, collaborator_id: margaret });
    expect(removed).toEqual(EMPTY);
    expect(upstream.emulator.store.directPermissionOf(crm, margaret)).toBe('none');
    expect(await logged()).toEqual([
      {
        method: 'POST',
        path: `/v0/meta/bases/${crm}/collaborators`,
        query: {},
        body: { collaborators: [{ user: { id: margaret }, permissionLevel: 'edit' }] },
      },
      {
        method: 'PATCH',
        path: `/v0/meta/bases/${crm}/collaborators/${margaret}`,
        query: {},
        body: { permissionLevel: 'comment' },
      },
      { method: 'DELETE', path: `/v0/meta/bases/${crm}/collaborators/${margaret}`, query: {}, body: null },
    ]);
  });

  it('GetInterfaceInfo and the interface collaborator and invite tools', async () => {
    const dashboard = (await upstream.state<Named>('interfaces')).find(
      (i) => i.name === 'Roadmap Dashboard',
    )!.id;
    const info = await ok('GetInterfaceInfo', {
      store_base_id: roadmap,
      interface_id: dashboard,
      include_elements: ['collaborators', 'inviteLinks'],
    });
    expect(info).toMatchObject({ id: dashboard, baseId: roadmap, name: 'Roadmap Dashboard' });
    const invite = (info.inviteLinks as { id: string }[])[0]!.id;
    // Grouped by where the access comes from: Alan holds only the interface; the owner the whole base.
    type Lists = Record<'baseCollaborators' | 'interfaceCollaborators', { userId: string }[]>;
    const individual = info.individualCollaborators as Lists;
    expect(individual.interfaceCollaborators.map((c) => c.userId)).toEqual([alan]);
    expect(individual.baseCollaborators.map((c) => c.userId)).not.toContain(alan);
    expect(individual.baseCollaborators.length).toBeGreaterThan(0);

    const added = await exec(
      'AddCollaboratorToStoreInterface',
      { store_base_id: roadmap, page_bundle_id: dashboard },
      { collaborators: [{ user: { id: margaret }, permissionLevel: 'read' }] },
    );
    expect(added).toEqual(EMPTY);
    await exec(
      'UpdateCollaboratorPermissions',
      { base_identifier: roadmap, interface_page_bundle_id: dashboard, collaborator_id: margaret },
      { permissionLevel: 'edit' },
    );
    await ok('RemoveInterfaceCollaborator', {
      base_id: roadmap,
      interface_page_bundle_id: dashboard,
      collaborator_id: alan,
    });
    await ok('DeleteInterfaceInvite', {
      base_identifier: roadmap,
      page_bundle_id: dashboard,
      invite_id: invite,
    });

    const stored = (
      await upstream.state<
        Named & { users: Record<string, { permissionLevel: string }>; invites: unknown[] }
      >('interfaces')
    ).find((i) => i.id === dashboard)!;
    expect(Object.keys(stored.users)).toEqual([margaret]);
    expect(stored.users[margaret]!.permissionLevel).toBe('edit');
    expect(stored.invites).toEqual([]);
    const path = `/v0/meta/bases/${roadmap}/interfaces/${dashboard}`;
    expect(await logged()).toEqual([
      { method: 'GET', path, query: { 'include[]': ['collaborators', 'inviteLinks'] }, body: null },
      {
        method: 'POST',
        path: `${path}/collaborators`,
        query: {},
        body: { collaborators: [{ user: { id: margaret }, permissionLevel: 'read' }] },
      },
      {
        method: 'PATCH',
        path: `${path}/collaborators/${margaret}`,
        query: {},
        body: { permissionLevel: 'edit' },
      },
      { method: 'DELETE', path: `${path}/collaborators/${alan}`, query: {}, body: null },
      { method: 'DELETE', path: `${path}/invites/${invite}`, query: {}, body: null },
    ]);
  });

  it('DeleteBaseInvite withdraws an outstanding base invite', async () => {
    const doc = (await upstream.state<{ id: string; invites: { id: string }[] }>('base_admin')).find(
      (b) => b.id === roadmap,
    )!;
    const invite = doc.invites[0]!.id;
    expect(await ok('DeleteBaseInvite', { base_id: roadmap, invite_id: invite })).toEqual(EMPTY);
    expect(await logged()).toEqual([
      { method: 'DELETE', path: `/v0/meta/bases/${roadmap}/invites/${invite}`, query: {}, body: null },
    ]);
    const after = (await upstream.state<{ id: string; invites: unknown[] }>('base_admin')).find(
      (b) => b.id === roadmap,
    )!;
    expect(after.invites).toEqual([]);
  });

  it('ListBaseShares, ManageStoreSharing, DeleteStoreShare', async () => {
    const listed = await ok('ListBaseShares', { base_identifier: roadmap });
    const shares = listed.shares as { shareId: string; state: string; type: string }[];
    expect(shares.map((s) => [s.type, s.state])).toEqual([
      ['base', 'enabled'],
      ['view', 'disabled'],
      ['blockInstallation', 'enabled'],
    ]);
    const [base, view] = shares;
    const managed = await exec(
      'ManageStoreSharing',
      { store_base_id: roadmap, share_identifier: view!.shareId },
      { state: 'enabled' },
    );
    expect(managed).toEqual(EMPTY);
    expect(await ok('DeleteStoreShare', { store_base_id: roadmap, share_id: base!.shareId })).toEqual(EMPTY);
    const stored = (await upstream.state<Share>('shares')).filter((s) => s.baseId === roadmap);
    expect(stored.map((s) => [s.id, s.state])).toEqual([
      [view!.shareId, 'enabled'],
      [shares[2]!.shareId, 'enabled'],
    ]);
    expect(await logged()).toEqual([
      { method: 'GET', path: `/v0/meta/bases/${roadmap}/shares`, query: {}, body: null },
      {
        method: 'PATCH',
        path: `/v0/meta/bases/${roadmap}/shares/${view!.shareId}`,
        query: {},
        body: { state: 'enabled' },
      },
      { method: 'DELETE', path: `/v0/meta/bases/${roadmap}/shares/${base!.shareId}`, query: {}, body: null },
    ]);
  });
});

describe('StoreApi sharing refusals as tool errors', () => {
  let asAda: Connected;
  beforeAll(async () => {
    asAda = await connectStore('http', upstream.env({ STORE_ACCESS_TOKEN: ADA_TOKEN }));
  });
  afterAll(() => asAda?.close());

  it('a workspace that lets only owners share refuses a creator who is no owner', async () => {
    const share = (await upstream.state<Share>('shares')).find(
      (s) => s.baseId === roadmap && s.type === 'view',
    )!;
    // Disabled first by the owner, then Ada (made a creator) tries to turn it back on.
    await exec(
      'ManageStoreSharing',
      { store_base_id: roadmap, share_identifier: share.id },
      { state: 'disabled' },
    );
    upstream.emulator.store.setPermission(roadmap, ada.id, 'create');
    admin().update('workspace', workspaceId, (w) => {
      w.shareCreationRestriction = 'onlyOwners';
    });
    try {
      await upstream.clearLog();
      const refused = await asAda.call(T('ManageStoreSharing'), {
        mode: 'execute',
        store_base_id: roadmap,
        share_identifier: share.id,
        request_body: json({ state: 'enabled' }),
      });
      expect(refused.isError).toBe(true);
      expect(errorOf(refused)).toMatchObject({
        kind: 'forbidden',
        status: 403,
        upstream_code: 'INVALID_PERMISSIONS',
      });
      expect(errorOf(refused).message).toContain('shareCreationRestriction');
      expect((await logged()).map((r) => `${r.method} ${r.path}`)).toEqual([
        `PATCH /v0/meta/bases/${roadmap}/shares/${share.id}`,
      ]);
      expect(admin().get('share', share.id)!.state).toBe('disabled');
    } finally {
      admin().update('workspace', workspaceId, (w) => {
        w.shareCreationRestriction = 'unrestricted';
      });
      upstream.emulator.store.setPermission(roadmap, ada.id, 'edit');
    }
  });

  it('too little access, unknown ids, and a body refused before sending', async () => {
    const notCreator = await asAda.call(T('AddBaseCollaborator'), {
      mode: 'execute',
      base_id: crm,
      request_body: json({ collaborators: [{ user: { id: margaret }, permissionLevel: 'read' }] }),
    });
    expect(errorOf(notCreator)).toMatchObject({ kind: 'forbidden', status: 403 });

    const unknown = await mcp.call(T('DeleteStoreShare'), {
      store_base_id: roadmap,
      share_id: 'shrUnknown0000000',
    });
    expect(unknown.isError).toBe(true);
    expect(errorOf(unknown)).toMatchObject({ status: 404 });

    const lastCreator = await mcp.call(T('RemoveBaseCollaborator'), {
      base_id: crm,
      collaborator_id: (await upstream.state<{ id: string }>('users'))[0]!.id,
    });
    expect(errorOf(lastCreator)).toMatchObject({ status: 422, upstream_code: 'CANNOT_REMOVE_LAST_CREATOR' });
    await upstream.clearLog();

    // Two collaborators in one interface request: the schema refuses it before anything is sent.
    const two = await mcp.call(T('AddCollaboratorToStoreInterface'), {
      mode: 'execute',
      store_base_id: roadmap,
      page_bundle_id: 'pbdAnything000000',
      request_body: json({
        collaborators: [
          { user: { id: margaret }, permissionLevel: 'read' },
          { user: { id: alan }, permissionLevel: 'read' },
        ],
      }),
    });
    expect(errorOf(two)).toMatchObject({ kind: 'invalid_arguments' });
    expect(await upstream.requests()).toEqual([]);

    // Likewise two in one base request: the upstream adds one at a time, so the tool refuses before sending.
    const twoOnBase = await mcp.call(T('AddBaseCollaborator'), {
      mode: 'execute',
      base_id: crm,
      request_body: json({
        collaborators: [
          { user: { id: margaret }, permissionLevel: 'read' },
          { user: { id: alan }, permissionLevel: 'read' },
        ],
      }),
    });
    expect(twoOnBase.isError).toBe(true);
    expect(errorOf(twoOnBase).kind).toBe('invalid_arguments');
    expect(errorOf(twoOnBase).issues).toEqual([
      {
        field: 'request_body.collaborators',
        problem: expect.stringMatching(/exactly one collaborator per request.*got 2/),
      },
    ]);
    expect(await upstream.requests()).toEqual([]);
    expect(upstream.emulator.store.directPermissionOf(crm, margaret)).toBe('none');
    expect(upstream.emulator.store.directPermissionOf(crm, alan)).toBe('none');
  });
});
