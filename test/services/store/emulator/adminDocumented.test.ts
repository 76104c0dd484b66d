// The administration plane of the store emulator against the documented Airtable Web API, black box: what a
// client of the upstream relies on, each test pinning one documented fact. Sources: upstream-apis.md C.1, C.5,
// C.7, C.8, C.9, C.11; the Store server table of upstream-mapping.md (methods, paths, query names, scopes); the
// sample bodies in store-samples/ (BaseCollaborators, BaseShares, EnterpriseInfo, UserInfo, UserGroup,
// UserRemoved, WorkspaceCollaborators, AuditLogResponse); store-request-bodies.reference.json; the Limits of
// spec/store.md; RFC 7643/7644 for SCIM (ListResponse, filters, PATCH, DELETE, error bodies); the official
// reference pages (list-scim-users, delete-scim-user, audit-log-events, change-events, *-ediscovery-export,
// manage-user-membership, delete-user-by-id, remove-user-from-enterprise, add-workspace-collaborator) and
// pyairtable (its audit_log pages backwards through `previous` in descending order).
import { beforeEach, describe, expect, it } from 'vitest';
import { BulkTables } from '../../../../src/services/store/emulator/admin/bulkTables.js';
import { ALL_SCOPES } from '../../../../src/services/store/emulator/auth.js';
import { ADMIN_SEED } from '../../../../src/services/store/emulator/seed/admin.js';
import { call, ids, type Loose, makeEmulator, NOW, q, type Reply, type TestEmulator } from './helpers.js';

const USER_URI = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_URI = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_URI = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST_URI = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR_URI = 'urn:ietf:params:scim:api:messages:2.0:Error';
const DAY = 86_400_000;
const now = Date.parse(NOW);
const iso = (ms: number) => new Date(ms).toISOString();

/** Ids of the seeded planes, read once from a probe emulator (the seed is deterministic). */
function seededIds() {
  const probe = makeEmulator();
  const { state, store } = { state: probe.admin.state, store: probe.store };
  const user = (name: string) => store.schema().users.find((u) => u.name === name)?.id ?? '';
  const account = (name: string) => state.list('account').find((a) => a.name === name)?.id ?? '';
  const group = (name: string) => state.list('group').find((g) => g.name === name)?.id ?? '';
  const workspace = (name: string) => store.schema().workspaces.find((w) => w.name === name)?.id ?? '';
  const base = (name: string) => store.schema().bases.find((b) => b.name === name)?.id ?? '';
  const dashboard = state.list('interface').find((i) => i.name === 'Roadmap Dashboard');
  const sandboxWorkspace = store.schema().workspaces[0]?.id ?? '';
  const roadmap = base('Product Roadmap');
  const seeded = {
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
    sandboxWorkspace,
    research: workspace(ADMIN_SEED.workspaces.research),
    europeWorkspace: workspace(ADMIN_SEED.workspaces.europe),
    partnerWorkspace: workspace(ADMIN_SEED.workspaces.partner),
    roadmap,
    crm: base('Sales CRM'),
    calendar: base('Content Calendar'),
    dashboard: dashboard?.id ?? '',
    dashboardInvite: dashboard?.invites[0]?.id ?? '',
    roadmapInvite: state.get('base', roadmap)?.invites[0]?.id ?? '',
    workspaceInvite: state.get('workspace', sandboxWorkspace)?.invites[0]?.id ?? '',
    chart: state.list('blockInstallation').find((b) => b.name === 'Chart')?.id ?? '',
    baseShare: state.list('share').find((s) => s.baseId === roadmap && s.type === 'base')?.id ?? '',
    dataTable: new BulkTables(probe.admin.deps.db).tables()[0]?.id ?? '',
  };
  probe.close();
  for (const [name, id] of Object.entries(seeded)) if (!id) throw new Error(`seed lacks ${name}`);
  return seeded;
}

const S = seededIds();
const ent = (accountId: string, rest = '') => `/v0/meta/enterpriseAccounts/${accountId}${rest}`;
const without = (scope: string) => `pat_without_${scope}`;
const SCIM_SCOPE = 'enterprise.scim.usersAndGroups:manage';
const ADA = 'pat_ada_not_admin';
const MARGARET = 'pat_margaret_admin';
const PAT = 'pat_partner_admin';

let emulator: TestEmulator;
beforeEach(() => {
  emulator = makeEmulator({
    tokens: [
      ...ALL_SCOPES.map((scope) => ({
        token: without(scope),
        scopes: ALL_SCOPES.filter((s) => s !== scope),
      })),
      { token: ADA, userId: S.ada, scopes: ALL_SCOPES },
      { token: MARGARET, userId: S.margaret, scopes: ALL_SCOPES },
      { token: PAT, userId: S.pat, scopes: ALL_SCOPES },
    ],
  });
});

const get = (path: string, token?: string) => call(emulator, 'GET', path, token ? { token } : {});
const send = (method: string, path: string, body?: unknown, token?: string) =>
  call(emulator, method, path, { ...(body === undefined ? {} : { body }), ...(token ? { token } : {}) });
const keys = (value: Loose) => Object.keys(value).sort();
/** Every key of the sample object is a key of the answer. */
const expectKeysOf = (answer: Loose, sample: Record<string, unknown>) =>
  expect(keys(answer)).toEqual(expect.arrayContaining(Object.keys(sample)));

function expectScimError(reply: Reply, status: number, scimType?: string) {
  expect(reply.status).toBe(status);
  expect(reply.body.schemas).toEqual([ERROR_URI]);
  // RFC 7644 §3.12: "status" is the HTTP status code as a string.
  expect(reply.body.status).toBe(String(status));
  expect(typeof reply.body.detail).toBe('string');
  if (scimType) expect(reply.body.scimType).toBe(scimType);
}

function expectAirtableError(reply: Reply, status: number, type: string, message?: string) {
  expect(reply.status).toBe(status);
  expect(reply.body.error.type).toBe(type);
  if (message !== undefined) expect(reply.body.error.message).toBe(message);
}

// ------------------------------------------------------------------------------------------------------------
// Scopes: the mapping's OAuth scope per endpoint. A token with every scope but the endpoint's own is refused
// 403; the same request with the all-scopes token succeeds (so the refusal is the scope's).
// ------------------------------------------------------------------------------------------------------------

interface ScopeCase {
  name: string;
  method: string;
  path: () => string;
  body?: (vars: Record<string, string>) => unknown;
  scope: string;
  /** Requests run first with the all-scopes token, e.g. to create the task that is then read. */
  before?: () => Promise<Record<string, string>>;
}

/** A workspace the sandbox owner creates (and so owns), for the requests that need an owner. */
async function newWorkspace(): Promise<Record<string, string>> {
  const created = await send('POST', '/v0/meta/workspaces', { enterpriseAccountId: S.root, name: 'Scratch' });
  expect(created.status).toBe(200);
  return { workspace: created.body.id };
}

async function alanInSandboxWorkspace(): Promise<Record<string, string>> {
  const added = await send('POST', `/v0/meta/workspaces/${S.sandboxWorkspace}/collaborators`, {
    collaborators: [{ user: { id: S.alan }, permissionLevel: 'edit' }],
  });
  expect(added.status).toBe(200);
  return {};
}

const scopeCases: ScopeCase[] = [
  // SCIM
  { name: 'ListScimGroups', method: 'GET', path: () => '/scim/v2/Groups', scope: SCIM_SCOPE },
  {
    name: 'CreateScimGroup',
    method: 'POST',
    path: () => '/scim/v2/Groups',
    body: () => ({ schemas: [GROUP_URI], displayName: 'Scoped group' }),
    scope: SCIM_SCOPE,
  },
  {
    name: 'DeleteScimGroup',
    method: 'DELETE',
    path: () => `/scim/v2/Groups/${S.support}`,
    scope: SCIM_SCOPE,
  },
  {
    name: 'FetchScimGroup',
    method: 'GET',
    path: () => `/scim/v2/Groups/${S.engineering}`,
    scope: SCIM_SCOPE,
  },
  {
    name: 'UpdateGroupDetails',
    method: 'PATCH',
    path: () => `/scim/v2/Groups/${S.engineering}`,
    body: () => ({
      schemas: [PATCH_URI],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Platform' }],
    }),
    scope: SCIM_SCOPE,
  },
  {
    name: 'UpdateGroupAttributes',
    method: 'PUT',
    path: () => `/scim/v2/Groups/${S.engineering}`,
    body: () => ({ schemas: [GROUP_URI], displayName: 'Platform', members: [{ value: S.ada }] }),
    scope: SCIM_SCOPE,
  },
  { name: 'ListScimUsers', method: 'GET', path: () => '/scim/v2/Users', scope: SCIM_SCOPE },
  {
    name: 'CreateScimUser',
    method: 'POST',
    path: () => '/scim/v2/Users',
    body: () => ({
      schemas: [USER_URI],
      userName: 'scoped@sandbox.example.com',
      name: { givenName: 'Scoped', familyName: 'User' },
    }),
    scope: SCIM_SCOPE,
  },
  {
    name: 'DeleteScimUser',
    method: 'DELETE',
    path: () => `/scim/v2/Users/${S.katherine}`,
    scope: SCIM_SCOPE,
  },
  { name: 'GetScimUser', method: 'GET', path: () => `/scim/v2/Users/${S.ada}`, scope: SCIM_SCOPE },
  {
    name: 'UpdateScimUserRecord',
    method: 'PATCH',
    path: () => `/scim/v2/Users/${S.ada}`,
    body: () => ({ schemas: [PATCH_URI], Operations: [{ op: 'replace', path: 'title', value: 'Countess' }] }),
    scope: SCIM_SCOPE,
  },
  {
    name: 'UpdateUserAttributes',
    method: 'PUT',
    path: () => `/scim/v2/Users/${S.ada}`,
    body: () => ({
      schemas: [USER_URI],
      userName: 'ada@sandbox.example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      active: true,
    }),
    scope: SCIM_SCOPE,
  },
  // Bases, collaborators, interfaces, invites, shares, block installations
  {
    name: 'DeleteStoreBase',
    method: 'DELETE',
    path: () => `/v0/meta/bases/${S.calendar}`,
    scope: 'workspacesAndBases:manage',
  },
  {
    name: 'GetBaseCollaborators',
    method: 'GET',
    path: () => `/v0/meta/bases/${S.roadmap}?include[]=collaborators`,
    scope: 'workspacesAndBases:read',
  },
  {
    name: 'ListBaseBlockInstallations',
    method: 'GET',
    path: () => `/v0/meta/bases/${S.roadmap}/blockInstallations`,
    scope: 'workspacesAndBases:read',
  },
  {
    name: 'DeleteStoreBlockInstallation',
    method: 'DELETE',
    path: () => `/v0/meta/bases/${S.roadmap}/blockInstallations/${S.chart}`,
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'ManageStoreBlockInstallation',
    method: 'PATCH',
    path: () => `/v0/meta/bases/${S.roadmap}/blockInstallations/${S.chart}`,
    body: () => ({ state: 'disabled' }),
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'AddBaseCollaborator',
    method: 'POST',
    path: () => `/v0/meta/bases/${S.roadmap}/collaborators`,
    body: () => ({ collaborators: [{ user: { id: S.alan }, permissionLevel: 'read' }] }),
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'RemoveBaseCollaborator',
    method: 'DELETE',
    path: () => `/v0/meta/bases/${S.roadmap}/collaborators/${S.grace}`,
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'UpdateCollaboratorPermission',
    method: 'PATCH',
    path: () => `/v0/meta/bases/${S.roadmap}/collaborators/${S.ada}`,
    body: () => ({ permissionLevel: 'comment' }),
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'GetInterfaceInfo',
    method: 'GET',
    path: () => `/v0/meta/bases/${S.roadmap}/interfaces/${S.dashboard}`,
    scope: 'workspacesAndBases:read',
  },
  {
    name: 'AddCollaboratorToStoreInterface',
    method: 'POST',
    path: () => `/v0/meta/bases/${S.roadmap}/interfaces/${S.dashboard}/collaborators`,
    body: () => ({ collaborators: [{ user: { id: S.margaret }, permissionLevel: 'read' }] }),
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'RemoveInterfaceCollaborator',
    method: 'DELETE',
    path: () => `/v0/meta/bases/${S.roadmap}/interfaces/${S.dashboard}/collaborators/${S.alan}`,
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'UpdateCollaboratorPermissions',
    method: 'PATCH',
    path: () => `/v0/meta/bases/${S.roadmap}/interfaces/${S.dashboard}/collaborators/${S.alan}`,
    body: () => ({ permissionLevel: 'edit' }),
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'DeleteInterfaceInvite',
    method: 'DELETE',
    path: () => `/v0/meta/bases/${S.roadmap}/interfaces/${S.dashboard}/invites/${S.dashboardInvite}`,
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'DeleteBaseInvite',
    method: 'DELETE',
    path: () => `/v0/meta/bases/${S.roadmap}/invites/${S.roadmapInvite}`,
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'ListBaseShares',
    method: 'GET',
    path: () => `/v0/meta/bases/${S.roadmap}/shares`,
    scope: 'workspacesAndBases.shares:manage',
  },
  {
    name: 'DeleteStoreShare',
    method: 'DELETE',
    path: () => `/v0/meta/bases/${S.roadmap}/shares/${S.baseShare}`,
    scope: 'workspacesAndBases.shares:manage',
  },
  {
    name: 'ManageStoreSharing',
    method: 'PATCH',
    path: () => `/v0/meta/bases/${S.roadmap}/shares/${S.baseShare}`,
    body: () => ({ state: 'disabled' }),
    scope: 'workspacesAndBases.shares:manage',
  },
  // Enterprise, compliance
  { name: 'GetEnterpriseInfo', method: 'GET', path: () => ent(S.root), scope: 'enterprise.account:read' },
  {
    name: 'GetAuditLogEvents',
    method: 'GET',
    path: () => ent(S.root, '/auditLogEvents'),
    scope: 'enterprise.auditLogs:read',
  },
  {
    name: 'RetrieveAuditLogRequests',
    method: 'GET',
    path: () => ent(S.root, '/auditLogs'),
    scope: 'enterprise.auditLogs:read',
  },
  {
    name: 'CreateAuditLogRequest',
    method: 'POST',
    path: () => ent(S.root, '/auditLogs'),
    body: () => ({ timePeriod: NOW.slice(0, 7) }),
    scope: 'enterprise.auditLogs:read',
  },
  {
    name: 'RetrieveAuditLog',
    method: 'GET',
    path: () => ent(S.root, '/auditLogs/{task}'),
    scope: 'enterprise.auditLogs:read',
    before: async () => {
      const created = await send('POST', ent(S.root, '/auditLogs'), { timePeriod: NOW.slice(0, 7) });
      return { task: created.body.id };
    },
  },
  {
    name: 'GetStoreChangeEvents',
    method: 'GET',
    path: () => ent(S.root, '/changeEvents'),
    scope: 'enterprise.changeEvents:read',
  },
  {
    name: 'CreateDescendantEnterpriseAccount',
    method: 'POST',
    path: () => ent(S.root, '/descendants'),
    body: () => ({ name: 'Sandbox Asia' }),
    scope: 'enterprise.account:write',
  },
  {
    name: 'GetEdiscoveryExportsStatus',
    method: 'GET',
    path: () => ent(S.root, '/exports'),
    scope: 'enterprise.exports:manage',
  },
  {
    name: 'CreateEdiscoveryExport',
    method: 'POST',
    path: () => ent(S.root, '/exports'),
    body: () => ({ baseId: S.roadmap }),
    scope: 'enterprise.exports:manage',
  },
  {
    name: 'GetEdiscoveryExportStatus',
    method: 'GET',
    path: () => ent(S.root, '/exports/{task}'),
    scope: 'enterprise.exports:manage',
    before: async () => {
      const created = await send('POST', ent(S.root, '/exports'), { baseId: S.roadmap });
      return { task: created.body.id };
    },
  },
  {
    name: 'BatchMoveUserGroupsBetweenAccounts',
    method: 'POST',
    path: () => ent(S.root, '/moveGroups'),
    body: () => ({ groupIds: [S.support], targetEnterpriseAccountId: S.europe }),
    scope: 'enterprise.groups:manage',
  },
  {
    name: 'MoveWorkspacesBetweenEnterpriseAccounts',
    method: 'POST',
    path: () => ent(S.root, '/moveWorkspaces'),
    body: () => ({ workspaceIds: [S.research], targetEnterpriseAccountId: S.europe }),
    scope: 'workspacesAndBases:manage',
  },
  {
    name: 'DeleteUsersByEmail',
    method: 'DELETE',
    path: () => ent(S.root, `/users?email[]=${q(ADMIN_SEED.users.katherine.email)}`),
    scope: 'enterprise.user:write',
  },
  {
    name: 'GetStoreUserInfo',
    method: 'GET',
    path: () => ent(S.root, `/users?id[]=${S.ada}`),
    scope: 'enterprise.user:read',
  },
  {
    name: 'BatchManageEnterpriseUsers',
    method: 'PATCH',
    path: () => ent(S.root, '/users'),
    body: () => ({ users: [{ id: S.ada, firstName: 'Augusta' }] }),
    scope: 'enterprise.user:write',
  },
  {
    name: 'BatchManageUserMembership',
    method: 'POST',
    path: () => ent(S.root, '/users/claim'),
    body: () => ({ users: [{ id: S.alan, state: 'managed' }] }),
    scope: 'enterprise.user:write',
  },
  {
    name: 'GrantAdminAccess',
    method: 'POST',
    path: () => ent(S.root, '/users/grantAdminAccess'),
    body: () => ({ users: [{ id: S.ada }] }),
    scope: 'enterprise.user:write',
  },
  {
    name: 'RevokeAdminAccess',
    method: 'POST',
    path: () => ent(S.root, '/users/revokeAdminAccess'),
    body: () => ({ users: [{ id: S.margaret }] }),
    scope: 'enterprise.user:write',
  },
  {
    name: 'DeleteEnterpriseUser',
    method: 'DELETE',
    path: () => ent(S.root, `/users/${S.katherine}`),
    scope: 'enterprise.user:write',
  },
  {
    name: 'GetUserInformation',
    method: 'GET',
    path: () => ent(S.root, `/users/${S.ada}`),
    scope: 'enterprise.user:read',
  },
  {
    name: 'ManageEnterpriseAccountUser',
    method: 'PATCH',
    path: () => ent(S.root, `/users/${S.ada}`),
    body: () => ({ firstName: 'Augusta' }),
    scope: 'enterprise.user:write',
  },
  {
    name: 'LogoutEnterpriseUser',
    method: 'POST',
    path: () => ent(S.root, `/users/${S.ada}/logout`),
    body: () => ({}),
    scope: 'enterprise.user:write',
  },
  {
    name: 'RemoveUserFromEnterprise',
    method: 'POST',
    path: () => ent(S.root, `/users/${S.ada}/remove`),
    body: () => ({ isDryRun: true }),
    scope: 'enterprise.user:write',
  },
  {
    name: 'GetUserGroupInfo',
    method: 'GET',
    path: () => `/v0/meta/groups/${S.engineering}`,
    scope: 'enterprise.groups:read',
  },
  // Workspaces
  {
    name: 'CreateStoreWorkspace',
    method: 'POST',
    path: () => '/v0/meta/workspaces',
    body: () => ({ enterpriseAccountId: S.root, name: 'Scoped workspace' }),
    scope: 'workspacesAndBases:manage',
  },
  {
    name: 'DeleteWorkspace',
    method: 'DELETE',
    path: () => '/v0/meta/workspaces/{workspace}',
    scope: 'workspacesAndBases:manage',
    before: newWorkspace,
  },
  {
    name: 'GetWorkspaceCollaborators',
    method: 'GET',
    path: () => `/v0/meta/workspaces/${S.sandboxWorkspace}`,
    scope: 'workspacesAndBases:read',
  },
  {
    name: 'AddWorkspaceCollaborator',
    method: 'POST',
    path: () => `/v0/meta/workspaces/${S.sandboxWorkspace}/collaborators`,
    body: () => ({ collaborators: [{ user: { id: S.alan }, permissionLevel: 'read' }] }),
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'RemoveWorkspaceCollaborator',
    method: 'DELETE',
    path: () => `/v0/meta/workspaces/${S.sandboxWorkspace}/collaborators/${S.alan}`,
    scope: 'workspacesAndBases:write',
    before: alanInSandboxWorkspace,
  },
  {
    name: 'UpdateWorkspaceCollaboratorPermission',
    method: 'PATCH',
    path: () => `/v0/meta/workspaces/${S.sandboxWorkspace}/collaborators/${S.alan}`,
    body: () => ({ permissionLevel: 'read' }),
    scope: 'workspacesAndBases:write',
    before: alanInSandboxWorkspace,
  },
  {
    name: 'DeleteWorkspaceInvite',
    method: 'DELETE',
    path: () => `/v0/meta/workspaces/${S.sandboxWorkspace}/invites/${S.workspaceInvite}`,
    scope: 'workspacesAndBases:write',
  },
  {
    name: 'MoveStoreBase',
    method: 'POST',
    path: () => `/v0/meta/workspaces/${S.sandboxWorkspace}/moveBase`,
    body: (vars) => ({ baseId: S.calendar, targetWorkspaceId: vars.workspace }),
    scope: 'workspacesAndBases:manage',
    before: newWorkspace,
  },
  {
    name: 'UpdateWorkspaceRestrictions',
    method: 'POST',
    path: () => `/v0/meta/workspaces/${S.sandboxWorkspace}/updateRestrictions`,
    body: () => ({ inviteCreationRestriction: 'onlyOwners' }),
    scope: 'workspacesAndBases:write',
  },
  // Bulk data tables
  {
    name: 'ReadBulkTableRecords',
    method: 'POST',
    path: () => `/v0/${S.root}/${S.dataTable}/getRecords`,
    body: () => ({ maxRecords: 1 }),
    scope: 'hyperDB.records:read',
  },
  {
    name: 'UpsertStoreRecords',
    method: 'PUT',
    path: () => `/v0/${S.root}/${S.dataTable}/upsertRecords`,
    body: () => ({ records: [{ primaryKey: 'scoped@customers.example.com', fields: { name: 'Scoped' } }] }),
    scope: 'hyperDB.records:write',
  },
  {
    name: 'DeleteRecordsByPrimaryKeys',
    method: 'POST',
    path: () => `/v0/${S.root}/${S.dataTable}/deleteRecords`,
    body: () => ({ primaryKeysForDelete: ['nobody@customers.example.com'] }),
    scope: 'hyperDB.records:write',
  },
];

describe('scopes per endpoint (upstream-mapping.md, Store server table)', () => {
  it.each(scopeCases.map((c) => [c.name, c.scope, c] as const))('%s needs %s', async (_name, scope, c) => {
    const vars = c.before ? await c.before() : {};
    const path = c.path().replace(/\{(\w+)\}/g, (_m, k: string) => vars[k] ?? '');
    const refused = await send(c.method, path, c.body?.(vars), without(scope));
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    const allowed = await send(c.method, path, c.body?.(vars));
    expect(allowed.status, JSON.stringify(allowed.body)).toBeLessThan(300);
  });
});

// ------------------------------------------------------------------------------------------------------------
// SCIM (C.7; RFC 7643 / 7644; list-scim-users and delete-scim-user pages)
// ------------------------------------------------------------------------------------------------------------

describe('SCIM users: ListResponse, paging and filters', () => {
  it('answers a ListResponse with totalResults, itemsPerPage, startIndex (default 1) and every user (count defaults to all)', async () => {
    const reply = await get('/scim/v2/Users');
    expect(reply.status).toBe(200);
    expect(reply.body.schemas).toEqual([LIST_URI]);
    expect(reply.body.startIndex).toBe(1);
    expect(reply.body.totalResults).toBeGreaterThan(1);
    expect(reply.body.Resources).toHaveLength(reply.body.totalResults);
    expect(reply.body.itemsPerPage).toBe(reply.body.Resources.length);
  });

  it('describes each user as a SCIM User: schemas, usr id, userName (the email), name, active, meta', async () => {
    const reply = await get('/scim/v2/Users');
    const ada = reply.body.Resources.find((r: Loose) => r.id === S.ada);
    expect(ada.schemas).toContain(USER_URI);
    expect(ada.id).toMatch(/^usr[A-Za-z0-9]{14}$/);
    expect(ada.userName).toBe('ada@sandbox.example.com');
    expect(ada.name).toMatchObject({ givenName: 'Ada', familyName: 'Lovelace' });
    expect(ada.active).toBe(true);
    expect(ada.meta).toMatchObject({ location: `/scim/v2/Users/${S.ada}`, resourceType: 'User' });
    expect(new Date(ada.meta.created).toISOString()).toBe(ada.meta.created);
    const katherine = reply.body.Resources.find((r: Loose) => r.id === S.katherine);
    expect(katherine.active).toBe(false);
  });

  it('pages with a 1-based startIndex and count, totalResults unchanged', async () => {
    const all = (await get('/scim/v2/Users')).body;
    const page = (await get('/scim/v2/Users?startIndex=2&count=2')).body;
    expect(page.startIndex).toBe(2);
    expect(page.itemsPerPage).toBe(2);
    expect(page.totalResults).toBe(all.totalResults);
    expect(page.Resources.map((r: Loose) => r.id)).toEqual(all.Resources.slice(1, 3).map((r: Loose) => r.id));
  });

  it('reads startIndex below 1 as 1 and a count of 0 as "totalResults only" (RFC 7644 §3.4.2.4)', async () => {
    const all = (await get('/scim/v2/Users')).body;
    const low = await get('/scim/v2/Users?startIndex=0&count=1');
    expect(low.status).toBe(200);
    expect(low.body.startIndex).toBe(1);
    expect(low.body.Resources[0].id).toBe(all.Resources[0].id);
    const none = await get('/scim/v2/Users?count=0');
    expect(none.status).toBe(200);
    expect(none.body.totalResults).toBe(all.totalResults);
    expect(none.body.itemsPerPage).toBe(0);
    expect(none.body.Resources ?? []).toEqual([]);
  });

  it('past the end answers no resources but the total', async () => {
    const all = (await get('/scim/v2/Users')).body;
    const past = await get(`/scim/v2/Users?startIndex=${all.totalResults + 5}`);
    expect(past.status).toBe(200);
    expect(past.body.totalResults).toBe(all.totalResults);
    expect(past.body.itemsPerPage).toBe(0);
    expect(past.body.Resources ?? []).toEqual([]);
  });

  it('filters userName eq "email" case-insensitively, attribute name and operator included', async () => {
    for (const filter of [
      'userName eq "ada@sandbox.example.com"',
      'userName eq "ADA@Sandbox.Example.com"',
      'username EQ "ada@sandbox.example.com"',
    ]) {
      const reply = await get(`/scim/v2/Users?filter=${q(filter)}`);
      expect(reply.status, filter).toBe(200);
      expect(reply.body.totalResults, filter).toBe(1);
      expect(reply.body.Resources.map((r: Loose) => r.id)).toEqual([S.ada]);
    }
  });

  it('a filter nobody matches answers totalResults 0', async () => {
    const reply = await get(`/scim/v2/Users?filter=${q('userName eq "nobody@sandbox.example.com"')}`);
    expect(reply.status).toBe(200);
    expect(reply.body.totalResults).toBe(0);
    expect(reply.body.Resources ?? []).toEqual([]);
  });

  it('refuses a malformed filter with 400 invalidFilter in the SCIM error schema', async () => {
    expectScimError(await get(`/scim/v2/Users?filter=${q('userName eq')}`), 400, 'invalidFilter');
  });
});

describe('SCIM users: read, create, replace, patch, delete', () => {
  it('an unknown id is 404 in the SCIM error schema, status as a string', async () => {
    const reply = await get('/scim/v2/Users/usr00000000000000');
    expectScimError(reply, 404);
    expect(keys(reply.body)).toEqual(expect.arrayContaining(['detail', 'schemas', 'status']));
  });

  it('POST creates an active user (201) whose emails hold the userName, with meta.location and a Location header', async () => {
    const reply = await send('POST', '/scim/v2/Users', {
      schemas: [USER_URI],
      userName: 'hedy@sandbox.example.com',
      name: { givenName: 'Hedy', familyName: 'Lamarr' },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.active).toBe(true);
    expect(reply.body.userName).toBe('hedy@sandbox.example.com');
    expect(reply.body.emails).toHaveLength(1);
    expect(reply.body.emails[0].value).toBe('hedy@sandbox.example.com');
    expect(reply.body.meta.location).toBe(`/scim/v2/Users/${reply.body.id}`);
    expect(reply.headers.get('location')).toContain(`/scim/v2/Users/${reply.body.id}`);
    expect((await get(`/scim/v2/Users/${reply.body.id}`)).body.userName).toBe('hedy@sandbox.example.com');
  });

  it('a second user with the same userName (any case) is 409 uniqueness', async () => {
    const reply = await send('POST', '/scim/v2/Users', {
      schemas: [USER_URI],
      userName: 'ADA@sandbox.example.com',
      name: { givenName: 'Ada', familyName: 'Again' },
    });
    expectScimError(reply, 409, 'uniqueness');
  });

  it('PATCH add, replace and remove apply in sequence and answer 200 with the user', async () => {
    const path = `/scim/v2/Users/${S.ada}`;
    const added = await send('PATCH', path, {
      schemas: [PATCH_URI],
      Operations: [{ op: 'add', path: 'title', value: 'Analyst' }],
    });
    expect(added.status).toBe(200);
    expect(added.body.id).toBe(S.ada);
    expect(added.body.title).toBe('Analyst');
    const replaced = await send('PATCH', path, {
      schemas: [PATCH_URI],
      Operations: [
        { op: 'replace', path: 'title', value: 'Countess' },
        { op: 'replace', path: 'name.familyName', value: 'King' },
      ],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.title).toBe('Countess');
    expect(replaced.body.name.familyName).toBe('King');
    const removed = await send('PATCH', path, {
      schemas: [PATCH_URI],
      Operations: [{ op: 'remove', path: 'title' }],
    });
    expect(removed.status).toBe(200);
    expect(removed.body.title).toBeUndefined();
    expect((await get(path)).body.name.familyName).toBe('King');
  });

  it('PATCH replace active false deactivates the user', async () => {
    const reply = await send('PATCH', `/scim/v2/Users/${S.ada}`, {
      schemas: [PATCH_URI],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.active).toBe(false);
    const info = await get(ent(S.root, `/users/${S.ada}`));
    expect(info.body.state).toBe('deactivated');
  });

  it('PATCH remove without a path is a SCIM 400 (RFC 7644 §3.5.2.2; the upstream body schema requires path)', async () => {
    const reply = await send('PATCH', `/scim/v2/Users/${S.ada}`, {
      schemas: [PATCH_URI],
      Operations: [{ op: 'remove' }],
    });
    expectScimError(reply, 400);
    expect(['noTarget', 'invalidValue', 'invalidSyntax']).toContain(reply.body.scimType);
  });

  it('PUT replaces the user and answers 200 with it', async () => {
    const reply = await send('PUT', `/scim/v2/Users/${S.ada}`, {
      schemas: [USER_URI],
      userName: 'ada@sandbox.example.com',
      name: { givenName: 'Augusta', familyName: 'King' },
      active: true,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.name).toMatchObject({ givenName: 'Augusta', familyName: 'King' });
  });

  it('DELETE answers 204 with no body, and the user is gone', async () => {
    const reply = await send('DELETE', `/scim/v2/Users/${S.katherine}`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expectScimError(await get(`/scim/v2/Users/${S.katherine}`), 404);
  });

  it('DELETE refuses the admin whose token is used: 422 "Cannot perform deletion operation on own account"', async () => {
    const reply = await send('DELETE', `/scim/v2/Users/${S.owner}`);
    expectScimError(reply, 422);
    expect(reply.body.detail).toBe('Cannot perform deletion operation on own account');
  });

  it('DELETE refuses the sole owner of a workspace with several collaborators (422)', async () => {
    const reply = await send('DELETE', `/scim/v2/Users/${S.grace}`);
    expectScimError(reply, 422);
    expect(reply.body.detail).toBe(
      'Cannot delete the sole owner of a workspace containing multiple collaborators',
    );
  });
});

describe('SCIM groups', () => {
  it('lists groups as a ListResponse of SCIM Groups', async () => {
    const reply = await get('/scim/v2/Groups');
    expect(reply.status).toBe(200);
    expect(reply.body.schemas).toEqual([LIST_URI]);
    expect(reply.body.startIndex).toBe(1);
    expect(reply.body.itemsPerPage).toBe(reply.body.Resources.length);
    const engineering = reply.body.Resources.find((g: Loose) => g.id === S.engineering);
    expect(engineering.schemas).toContain(GROUP_URI);
    expect(engineering.displayName).toBe(ADMIN_SEED.groups.engineering);
  });

  it('count limits the groups returned (mapping: group_count → count)', async () => {
    const reply = await get('/scim/v2/Groups?count=1');
    expect(reply.status).toBe(200);
    expect(reply.body.Resources).toHaveLength(1);
    expect(reply.body.itemsPerPage).toBe(1);
    expect(reply.body.totalResults).toBeGreaterThan(1);
  });

  it('filters displayName eq', async () => {
    const reply = await get(`/scim/v2/Groups?filter=${q(`displayName eq "${ADMIN_SEED.groups.support}"`)}`);
    expect(reply.status).toBe(200);
    expect(reply.body.Resources.map((g: Loose) => g.id)).toEqual([S.support]);
  });

  it('POST creates a group with no members (201)', async () => {
    const reply = await send('POST', '/scim/v2/Groups', { schemas: [GROUP_URI], displayName: 'Design' });
    expect(reply.status).toBe(201);
    expect(reply.body.id).toMatch(/^ugp/);
    expect(reply.body.displayName).toBe('Design');
    expect(reply.body.members ?? []).toEqual([]);
  });

  it('PATCH adds and removes members', async () => {
    const path = `/scim/v2/Groups/${S.support}`;
    const added = await send('PATCH', path, {
      schemas: [PATCH_URI],
      Operations: [{ op: 'add', path: 'members', value: [{ value: S.ada }] }],
    });
    expect(added.status).toBeLessThan(300);
    const afterAdd = (await get(path)).body.members.map((m: Loose) => m.value);
    expect(afterAdd).toEqual(expect.arrayContaining([S.alan, S.ada]));
    const removed = await send('PATCH', path, {
      schemas: [PATCH_URI],
      Operations: [{ op: 'remove', path: `members[value eq "${S.alan}"]` }],
    });
    expect(removed.status).toBeLessThan(300);
    expect((await get(path)).body.members.map((m: Loose) => m.value)).toEqual([S.ada]);
  });

  it("PUT replaces the group's attributes, members included", async () => {
    const reply = await send('PUT', `/scim/v2/Groups/${S.engineering}`, {
      schemas: [GROUP_URI],
      displayName: 'Platform',
      members: [{ value: S.alan }],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.displayName).toBe('Platform');
    expect(reply.body.members.map((m: Loose) => m.value)).toEqual([S.alan]);
  });

  it('DELETE answers 204 and keeps the members as users', async () => {
    const reply = await send('DELETE', `/scim/v2/Groups/${S.support}`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expectScimError(await get(`/scim/v2/Groups/${S.support}`), 404);
    expect((await get(`/scim/v2/Users/${S.alan}`)).status).toBe(200);
  });

  it('an unknown group is 404 in the SCIM error schema', async () => {
    expectScimError(await get('/scim/v2/Groups/ugp00000000000000'), 404);
  });
});

// ------------------------------------------------------------------------------------------------------------
// Enterprise accounts, users, groups (C.7, samples EnterpriseInfo, UserInfo, UserGroup, UserRemoved)
// ------------------------------------------------------------------------------------------------------------

const ENTERPRISE_INFO = {
  createdTime: '',
  descendantEnterpriseAccountIds: [],
  emailDomains: [],
  groupIds: [],
  id: '',
  rootEnterpriseAccountId: '',
  userIds: [],
  workspaceIds: [],
};

describe('enterprise account', () => {
  it('has every key of the EnterpriseInfo sample, emailDomains as {emailDomain, isSsoRequired}', async () => {
    const reply = await get(ent(S.root));
    expect(reply.status).toBe(200);
    expectKeysOf(reply.body, ENTERPRISE_INFO);
    expect(reply.body.id).toBe(S.root);
    for (const domain of reply.body.emailDomains)
      expect(keys(domain)).toEqual(['emailDomain', 'isSsoRequired']);
    expect(reply.body.descendantEnterpriseAccountIds).toEqual([S.europe]);
  });
});

const USER_INFO_KEYS = [
  'collaborations',
  'createdTime',
  'email',
  'groups',
  'id',
  'invitedToAirtableByUserId',
  'isAdmin',
  'isManaged',
  'isServiceAccount',
  'isSsoRequired',
  'isTwoFactorAuthEnabled',
  'lastActivityTime',
  'name',
  'state',
];

describe('enterprise users', () => {
  it('GET users?id[]= answers {users: [UserInfo]} with every key of the UserInfo sample', async () => {
    const reply = await get(ent(S.root, `/users?id[]=${S.ada}&include[]=collaborations`));
    expect(reply.status).toBe(200);
    expect(keys(reply.body)).toEqual(['users']);
    const [ada] = reply.body.users;
    expect(keys(ada)).toEqual(expect.arrayContaining(USER_INFO_KEYS));
    expect(ada.state).toMatch(/^(provisioned|deactivated)$/);
    expect(ada.groups).toContainEqual({ id: S.engineering });
    expect(keys(ada.collaborations)).toEqual([
      'baseCollaborations',
      'interfaceCollaborations',
      'workspaceCollaborations',
    ]);
    for (const c of ada.collaborations.baseCollaborations) {
      expect(keys(c)).toEqual(['baseId', 'createdTime', 'grantedByUserId', 'permissionLevel']);
    }
  });

  it('GET users needs at least one id[] or email[]', async () => {
    const reply = await get(ent(S.root, '/users'));
    expect(reply.status).toBe(422);
    expect(reply.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
  });

  it('looks users up by email too', async () => {
    const reply = await get(ent(S.root, `/users?email[]=${q('grace@sandbox.example.com')}`));
    expect(reply.status).toBe(200);
    expect(reply.body.users.map((u: Loose) => u.id)).toEqual([S.grace]);
  });

  it('collaborations carry interface and workspace entries in the sample shapes', async () => {
    const alan = (await get(ent(S.root, `/users/${S.alan}?include[]=collaborations`))).body;
    expect(keys(alan.collaborations.interfaceCollaborations[0])).toEqual([
      'baseId',
      'createdTime',
      'grantedByUserId',
      'interfaceId',
      'permissionLevel',
    ]);
    expect(keys(alan.collaborations.workspaceCollaborations[0])).toEqual([
      'createdTime',
      'grantedByUserId',
      'permissionLevel',
      'workspaceId',
    ]);
  });

  it('GET users/{userId} answers one UserInfo', async () => {
    const reply = await get(ent(S.root, `/users/${S.ada}`));
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(S.ada);
    expect(reply.body.email).toBe('ada@sandbox.example.com');
    expect(reply.body.name).toBe('Ada Lovelace');
  });

  it('PATCH users/{userId} takes firstName / lastName (mapping: user_first_name → firstName)', async () => {
    const reply = await send('PATCH', ent(S.root, `/users/${S.ada}`), {
      firstName: 'Augusta',
      lastName: 'King',
    });
    expect(reply.status).toBeLessThan(300);
    expect((await get(ent(S.root, `/users/${S.ada}`))).body.name).toBe('Augusta King');
  });

  it('DELETE users?email[]= answers {deletedUsers: [{id, email}], errors: [{type, email, message?}]}', async () => {
    const reply = await send(
      'DELETE',
      ent(
        S.root,
        `/users?email[]=${q(ADMIN_SEED.users.katherine.email)}&email[]=${q('nobody@sandbox.example.com')}`,
      ),
    );
    expect(reply.status).toBe(200);
    expect(reply.body.deletedUsers).toEqual([{ id: S.katherine, email: ADMIN_SEED.users.katherine.email }]);
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors[0].email).toBe('nobody@sandbox.example.com');
    expect(typeof reply.body.errors[0].type).toBe('string');
  });

  it('DELETE users?email[]= does not delete the sole owner of a workspace with other collaborators', async () => {
    const reply = await send('DELETE', ent(S.root, `/users?email[]=${q('grace@sandbox.example.com')}`));
    expect(reply.status).toBe(200);
    expect(reply.body.deletedUsers).toEqual([]);
    expect(reply.body.errors).toEqual([
      {
        email: 'grace@sandbox.example.com',
        type: 'INVALID_PERMISSIONS',
        message: 'Cannot delete sole owner of a workspace with other collaborators',
      },
    ]);
    expect((await get(ent(S.root, `/users/${S.grace}`))).status).toBe(200);
  });

  it('DELETE users/{userId} answers an empty response and the user is gone', async () => {
    const reply = await send('DELETE', ent(S.root, `/users/${S.katherine}`));
    expect(reply.status).toBe(200);
    expect(reply.body ?? {}).toEqual({});
    expect((await get(ent(S.root, `/users/${S.katherine}`))).status).toBe(404);
  });

  it('DELETE users/{self} is 403 INVALID_PERMISSIONS "Cannot perform action on self"', async () => {
    expectAirtableError(
      await send('DELETE', ent(S.root, `/users/${S.owner}`)),
      403,
      'INVALID_PERMISSIONS',
      'Cannot perform action on self',
    );
  });

  it('DELETE of the sole owner of a workspace with other collaborators is 403', async () => {
    expectAirtableError(
      await send('DELETE', ent(S.root, `/users/${S.grace}`)),
      403,
      'INVALID_PERMISSIONS',
      'Cannot delete sole owner of a workspace with other collaborators',
    );
  });

  it('DELETE of an unmanaged user is 403 "User is not managed by the enterprise account"', async () => {
    expectAirtableError(
      await send('DELETE', ent(S.root, `/users/${S.alan}`)),
      403,
      'INVALID_PERMISSIONS',
      'User is not managed by the enterprise account',
    );
  });

  it('claim with neither id nor email is 422 with the documented message (C.7)', async () => {
    const reply = await send('POST', ent(S.root, '/users/claim'), { users: [{ state: 'managed' }] });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      error: {
        message: 'Invalid request: either ID or email must be specified. Check your request data.',
        type: 'INVALID_REQUEST_UNKNOWN',
      },
    });
  });

  it('claim answers {errors: [...]} and manages the user', async () => {
    const reply = await send('POST', ent(S.root, '/users/claim'), {
      users: [{ id: S.alan, state: 'managed' }],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toEqual([]);
    expect((await get(ent(S.root, `/users/${S.alan}`))).body.isManaged).toBe(true);
  });

  it('grantAdminAccess / revokeAdminAccess take {users: [{id} | {email}]} and answer {errors}', async () => {
    const granted = await send('POST', ent(S.root, '/users/grantAdminAccess'), {
      users: [{ email: 'ada@sandbox.example.com' }],
    });
    expect(granted.status).toBe(200);
    expect(granted.body.errors).toEqual([]);
    expect((await get(ent(S.root, `/users/${S.ada}`))).body.isAdmin).toBe(true);
    const revoked = await send('POST', ent(S.root, '/users/revokeAdminAccess'), { users: [{ id: S.ada }] });
    expect(revoked.status).toBe(200);
    expect(revoked.body.errors).toEqual([]);
    expect((await get(ent(S.root, `/users/${S.ada}`))).body.isAdmin).toBe(false);
  });

  it('remove answers the UserRemoved shape: wasUserRemovedAsAdmin, shared.workspaces, unshared.{bases, interfaces, workspaces}', async () => {
    const reply = await send('POST', ent(S.root, `/users/${S.grace}/remove`), {
      isDryRun: true,
      replacementOwnerId: S.owner,
    });
    expect(reply.status).toBe(200);
    expect(keys(reply.body)).toEqual(['shared', 'unshared', 'wasUserRemovedAsAdmin']);
    expect(keys(reply.body.shared)).toEqual(['workspaces']);
    expect(keys(reply.body.unshared)).toEqual(['bases', 'interfaces', 'workspaces']);
    expect(reply.body.wasUserRemovedAsAdmin).toBe(false);
    expect(keys(reply.body.shared.workspaces[0])).toEqual([
      'permissionLevel',
      'userId',
      'workspaceId',
      'workspaceName',
    ]);
    expect(reply.body.shared.workspaces[0]).toMatchObject({ userId: S.owner, workspaceId: S.research });
    expect(keys(reply.body.unshared.bases[0])).toEqual([
      'baseId',
      'baseName',
      'formerPermissionLevel',
      'userId',
    ]);
    expect(keys(reply.body.unshared.workspaces[0])).toEqual([
      'formerPermissionLevel',
      'userId',
      'workspaceId',
      'workspaceName',
    ]);
  });

  it('remove lists interface unsharings in the sample shape and reports an admin removed as admin', async () => {
    const alan = await send('POST', ent(S.root, `/users/${S.alan}/remove`), { isDryRun: true });
    expect(alan.status).toBe(200);
    expect(keys(alan.body.unshared.interfaces[0])).toEqual([
      'baseId',
      'formerPermissionLevel',
      'interfaceId',
      'interfaceName',
      'userId',
    ]);
    const margaret = await send('POST', ent(S.root, `/users/${S.margaret}/remove`), { isDryRun: true });
    expect(margaret.status).toBe(200);
    expect(margaret.body.wasUserRemovedAsAdmin).toBe(true);
  });

  it('remove of oneself is 403 INVALID_PERMISSIONS', async () => {
    expectAirtableError(
      await send('POST', ent(S.root, `/users/${S.owner}/remove`), {}),
      403,
      'INVALID_PERMISSIONS',
      'You are not permitted to perform this operation on yourself',
    );
  });
});

describe('user groups', () => {
  it('GET /v0/meta/groups/{id} (not under ENT) has every key of the UserGroup sample', async () => {
    const reply = await get(`/v0/meta/groups/${S.engineering}?include[]=collaborations`);
    expect(reply.status).toBe(200);
    expect(keys(reply.body)).toEqual(
      expect.arrayContaining([
        'collaborations',
        'createdTime',
        'enterpriseAccountId',
        'id',
        'mappedUserLicenseType',
        'members',
        'name',
        'updatedTime',
      ]),
    );
    expect(reply.body.enterpriseAccountId).toBe(S.root);
    for (const member of reply.body.members) {
      expect(keys(member)).toEqual(['createdTime', 'email', 'firstName', 'lastName', 'role', 'userId']);
      expect(member.role).toMatch(/^(member|manager)$/);
    }
    expect(keys(reply.body.collaborations)).toEqual([
      'baseCollaborations',
      'interfaceCollaborations',
      'workspaceCollaborations',
    ]);
  });
});

describe('moves between enterprise accounts (spec Limits: same organisation; Enterprise Hub)', () => {
  it('descendant accounts need a root account with Enterprise Hub', async () => {
    const refused = await send('POST', ent(S.partner, '/descendants'), { name: 'Partner Labs' }, PAT);
    expectAirtableError(refused, 403, 'INVALID_PERMISSIONS');
    const fromDescendant = await send('POST', ent(S.europe, '/descendants'), { name: 'Sandbox Nordics' });
    expect(fromDescendant.status).toBeGreaterThanOrEqual(400);
    const created = await send('POST', ent(S.root, '/descendants'), { name: 'Sandbox Asia' });
    expect(created.status).toBe(200);
    expect((await get(ent(S.root))).body.descendantEnterpriseAccountIds).toContain(created.body.id);
  });

  it('moveGroups answers {movedGroups: [{id}], errors: []} within the organisation', async () => {
    const reply = await send('POST', ent(S.root, '/moveGroups'), {
      groupIds: [S.support],
      targetEnterpriseAccountId: S.europe,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.movedGroups.map((g: Loose) => g.id)).toEqual([S.support]);
    expect(reply.body.errors).toEqual([]);
    expect((await get(`/v0/meta/groups/${S.support}`)).body.enterpriseAccountId).toBe(S.europe);
  });

  it('moveWorkspaces answers {movedWorkspaces: [{id}], errors: []} within the organisation', async () => {
    const reply = await send('POST', ent(S.root, '/moveWorkspaces'), {
      workspaceIds: [S.research],
      targetEnterpriseAccountId: S.europe,
      replacementOwnerId: S.emilie,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.movedWorkspaces.map((w: Loose) => w.id)).toEqual([S.research]);
    expect(reply.body.errors).toEqual([]);
  });

  it('refuses a target in another organisation, and moves nothing', async () => {
    const groups = await send('POST', ent(S.root, '/moveGroups'), {
      groupIds: [S.support],
      targetEnterpriseAccountId: S.partner,
    });
    expect(groups.status).toBeGreaterThanOrEqual(400);
    const workspaces = await send('POST', ent(S.root, '/moveWorkspaces'), {
      workspaceIds: [S.research],
      targetEnterpriseAccountId: S.partner,
    });
    expect(workspaces.status).toBeGreaterThanOrEqual(400);
    expect((await get(`/v0/meta/groups/${S.support}`)).body.enterpriseAccountId).toBe(S.root);
    expect((await get(ent(S.root))).body.workspaceIds).toContain(S.research);
  });

  it('at most 100 group and workspace ids per move', async () => {
    const ids = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(14, '0')}`);
    const groups = (groupIds: string[]) =>
      send('POST', ent(S.root, '/moveGroups'), { groupIds, targetEnterpriseAccountId: S.europe });
    const workspaces = (workspaceIds: string[]) =>
      send('POST', ent(S.root, '/moveWorkspaces'), { workspaceIds, targetEnterpriseAccountId: S.europe });
    expect((await groups(ids('ugp', 100))).status).toBe(200);
    expect((await groups(ids('ugp', 101))).status).toBe(422);
    expect((await workspaces(ids('wsp', 100))).status).toBe(200);
    expect((await workspaces(ids('wsp', 101))).status).toBe(422);
  });

  it('moveBase moves a base to a workspace of the same enterprise, not to another organisation', async () => {
    const refused = await send('POST', `/v0/meta/workspaces/${S.sandboxWorkspace}/moveBase`, {
      baseId: S.calendar,
      targetWorkspaceId: S.partnerWorkspace,
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const { workspace } = await newWorkspace();
    const moved = await send('POST', `/v0/meta/workspaces/${S.sandboxWorkspace}/moveBase`, {
      baseId: S.calendar,
      targetWorkspaceId: workspace,
    });
    expect(moved.status).toBeLessThan(300);
    expect((await get(`/v0/meta/workspaces/${workspace}`)).body.baseIds).toContain(S.calendar);
  });
});

// ------------------------------------------------------------------------------------------------------------
// Audit log events (C.7, C.9; audit-log-events page; sample AuditLogResponse)
// ------------------------------------------------------------------------------------------------------------

describe('audit log events', () => {
  const events = (query = '') => get(ent(S.root, `/auditLogEvents${query ? `?${query}` : ''}`));
  const withHistory = (count: number) => {
    emulator = makeEmulator({ auditEvents: count });
  };

  it('answers {events, pagination} with every key of the AuditLogResponse sample', async () => {
    const reply = await events();
    expect(reply.status).toBe(200);
    expect(keys(reply.body)).toEqual(['events', 'pagination']);
    for (const event of reply.body.events) {
      expect(keys(event)).toEqual(
        expect.arrayContaining([
          'action',
          'actor',
          'context',
          'id',
          'modelId',
          'modelType',
          'origin',
          'payload',
          'payloadVersion',
          'timestamp',
        ]),
      );
      expect(keys(event.context)).toEqual(expect.arrayContaining(['actionId', 'enterpriseAccountId']));
      expect(keys(event.origin)).toEqual(expect.arrayContaining(['ipAddress', 'userAgent']));
      expect(event.actor.type).toBe('user');
      expect(keys(event.actor.user)).toEqual(expect.arrayContaining(['email', 'id']));
    }
  });

  it('pageSize defaults to 10 and goes up to 1000', async () => {
    withHistory(1500);
    expect((await events()).body.events).toHaveLength(10);
    expect((await events('pageSize=1000')).body.events).toHaveLength(1000);
    const over = await events('pageSize=1001');
    if (over.status === 200) expect(over.body.events.length).toBeLessThanOrEqual(1000);
    else expect(over.status).toBe(422);
  });

  it('sortOrder defaults to descending (newest first); ascending is oldest first', async () => {
    withHistory(50);
    const desc = (await events('pageSize=100')).body.events.map((e: Loose) => e.timestamp);
    expect(desc.length).toBeGreaterThan(10);
    expect([...desc].sort().reverse()).toEqual(desc);
    const asc = (await events('pageSize=100&sortOrder=ascending')).body.events.map((e: Loose) => e.timestamp);
    expect([...asc].sort()).toEqual(asc);
    const explicit = (await events('pageSize=100&sortOrder=descending')).body.events.map(
      (e: Loose) => e.timestamp,
    );
    expect(explicit).toEqual(desc);
  });

  it('sortOrder takes "ascending" / "descending", not asc / desc', async () => {
    for (const sortOrder of ['asc', 'desc']) {
      expectAirtableError(await events(`sortOrder=${sortOrder}`), 422, 'INVALID_REQUEST_UNKNOWN');
    }
  });

  it('startTime defaults to 180 days ago: older events are not answered, the 120-day-old one is', async () => {
    const all = (await events('pageSize=1000')).body.events;
    expect(all.length).toBeGreaterThan(0);
    for (const e of all) expect(Date.parse(e.timestamp)).toBeGreaterThanOrEqual(now - 180 * DAY);
    expect(all.some((e: Loose) => e.modelId === S.katherine)).toBe(true);
    expect(all.some((e: Loose) => e.modelId === S.research && e.action === 'createWorkspace')).toBe(false);
  });

  it('startTime is inclusive and endTime exclusive', async () => {
    const stamp = iso(now - 120 * DAY);
    const from = (await events(`startTime=${q(stamp)}&pageSize=1000`)).body.events;
    expect(from.some((e: Loose) => e.timestamp === stamp)).toBe(true);
    const until = (await events(`endTime=${q(stamp)}&pageSize=1000`)).body.events;
    expect(until.some((e: Loose) => e.timestamp === stamp)).toBe(false);
  });

  it('descending pages continue backwards through pagination.previous, without overlap (pyairtable)', async () => {
    withHistory(30);
    const full = (await events('pageSize=1000')).body.events.map((e: Loose) => e.id);
    const first = (await events('pageSize=5')).body;
    expect(first.pagination.previous).toEqual(expect.any(String));
    const second = (await events(`pageSize=5&previous=${q(first.pagination.previous)}`)).body;
    expect([...first.events, ...second.events].map((e: Loose) => e.id)).toEqual(full.slice(0, 10));
  });

  it('ascending pages continue forwards through pagination.next, without overlap (pyairtable)', async () => {
    withHistory(30);
    const full = (await events('pageSize=1000&sortOrder=ascending')).body.events.map((e: Loose) => e.id);
    const first = (await events('pageSize=5&sortOrder=ascending')).body;
    expect(first.pagination.next).toEqual(expect.any(String));
    const second = (await events(`pageSize=5&sortOrder=ascending&next=${q(first.pagination.next)}`)).body;
    expect([...first.events, ...second.events].map((e: Loose) => e.id)).toEqual(full.slice(0, 10));
  });

  it('filters by originatingUserId, eventType and modelId, one value or several', async () => {
    const byUser = (await events(`originatingUserId=${S.margaret}&pageSize=1000`)).body.events;
    expect(byUser.length).toBeGreaterThan(0);
    for (const e of byUser) expect(e.actor.user.id).toBe(S.margaret);
    const byType = (await events('eventType[]=updateShare&eventType[]=updateUser&pageSize=1000')).body.events;
    expect(new Set(byType.map((e: Loose) => e.action))).toEqual(new Set(['updateShare', 'updateUser']));
    const byModel = (await events(`modelId=${S.katherine}&pageSize=1000`)).body.events;
    expect(byModel.map((e: Loose) => e.action)).toEqual(['updateUser']);
  });

  it('accepts 100 values per filter and refuses 101', async () => {
    for (const name of ['originatingUserId', 'eventType', 'modelId']) {
      const values = (n: number) =>
        Array.from({ length: n }, (_, i) => `${name}[]=${name === 'eventType' ? 'updateUser' : `usr${i}`}`);
      const ok = await events(values(100).join('&'));
      expect(ok.status, name).toBe(200);
      const refused = await events(values(101).join('&'));
      expect(refused.status, name).toBe(422);
      expect(typeof refused.body.error.type).toBe('string');
    }
  });
});

// ------------------------------------------------------------------------------------------------------------
// Legacy audit log requests, eDiscovery exports, change events (C.7, C.9; their reference pages)
// ------------------------------------------------------------------------------------------------------------

describe('audit log requests', () => {
  const create = () => send('POST', ent(S.root, '/auditLogs'), { timePeriod: NOW.slice(0, 7) });

  it('lists {auditLogs, offset?} 10 per page by default with a numeric offset, at most 100', async () => {
    for (let i = 0; i < 12; i++) expect((await create()).status).toBeLessThan(300);
    const first = await get(ent(S.root, '/auditLogs'));
    expect(first.status).toBe(200);
    expect(first.body.auditLogs).toHaveLength(10);
    expect(typeof first.body.offset).toBe('number');
    const second = await get(ent(S.root, `/auditLogs?offset=${first.body.offset}`));
    expect(second.body.auditLogs).toHaveLength(2);
    expect(second.body.offset).toBeUndefined();
    const ids = new Set([...first.body.auditLogs, ...second.body.auditLogs].map((t: Loose) => t.id));
    expect(ids.size).toBe(12);
    expect((await get(ent(S.root, '/auditLogs?pageSize=100'))).body.auditLogs).toHaveLength(12);
    expect((await get(ent(S.root, '/auditLogs?pageSize=101'))).status).toBe(422);
  });

  it('each request has the documented keys and a state of pending|processing|done|error', async () => {
    const created = await send('POST', ent(S.root, '/auditLogs'), {
      timePeriod: NOW.slice(0, 10),
      filter: S.roadmap,
    });
    expect(created.status).toBeLessThan(300);
    const listed = (await get(ent(S.root, '/auditLogs'))).body.auditLogs[0];
    expect(keys(listed)).toEqual(
      expect.arrayContaining(['createdByUserId', 'createdTime', 'filter', 'id', 'state', 'timePeriod']),
    );
    expect(listed).toMatchObject({
      filter: S.roadmap,
      timePeriod: NOW.slice(0, 10),
      createdByUserId: S.owner,
    });
    const one = await get(ent(S.root, `/auditLogs/${created.body.id}`));
    expect(one.status).toBe(200);
    expect(one.body.state).toMatch(/^(pending|processing|done|error)$/);
  });

  it('a finished request lists its files under data.logFileUrls', async () => {
    const created = await send('POST', ent(S.root, '/auditLogs'), { timePeriod: NOW.slice(0, 7) });
    emulator.clock.advance(DAY);
    const done = (await get(ent(S.root, `/auditLogs/${created.body.id}`))).body;
    expect(done.state).toBe('done');
    expect(done.data.logFileUrls.length).toBeGreaterThan(0);
    for (const url of done.data.logFileUrls) expect(typeof url).toBe('string');
  });

  it('timePeriod must be YYYY-MM or YYYY-MM-DD within the last 180 days', async () => {
    for (const timePeriod of ['2025/06', 'June 2025', '2025-6']) {
      const reply = await send('POST', ent(S.root, '/auditLogs'), { timePeriod });
      expect(reply.status, timePeriod).toBe(422);
    }
    // Outside the 180 days: refused, or (as the emulator does) a request that ends in the error state.
    const old = await send('POST', ent(S.root, '/auditLogs'), {
      timePeriod: iso(now - 400 * DAY).slice(0, 7),
    });
    if (old.status !== 422) {
      expect(old.status).toBe(200);
      emulator.clock.advance(DAY);
      expect((await get(ent(S.root, `/auditLogs/${old.body.id}`))).body.state).toBe('error');
    }
  });
});

describe('eDiscovery exports', () => {
  const create = (body: Loose) => send('POST', ent(S.root, '/exports'), body);

  it('an unknown base is 404 {"error": {"type": "NOT_FOUND"}}', async () => {
    const reply = await create({ baseId: 'app00000000000000' });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: { type: 'NOT_FOUND' } });
  });

  it('once done, data holds expirationTime and jsonDownloadUrl, and csvZipDownloadUrl only with includeCsvFormat', async () => {
    const plain = (await create({ baseId: S.roadmap })).body.id;
    const csv = (await create({ baseId: S.roadmap, includeCsvFormat: true })).body.id;
    emulator.clock.advance(DAY);
    const done = async (id: string) => (await get(ent(S.root, `/exports/${id}`))).body;
    const a = await done(plain);
    expect(a.state).toBe('done');
    expect(keys(a.data)).toEqual(['expirationTime', 'jsonDownloadUrl']);
    const b = await done(csv);
    expect(keys(b.data)).toEqual(['csvZipDownloadUrl', 'expirationTime', 'jsonDownloadUrl']);
  });

  it('an unknown task is 404 {"error": {"type": "NOT_FOUND"}}', async () => {
    const reply = await get(ent(S.root, '/exports/etk00000000000000'));
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: { type: 'NOT_FOUND' } });
  });

  it('the export object: id, state, createdTime, user{id, email, name}, request{baseId, includeCsvFormat, shouldSendEmailOnCompletion}', async () => {
    const reply = await create({ baseId: S.roadmap, includeCsvFormat: true });
    expect(reply.status).toBe(200);
    expect(reply.body.state).toMatch(/^(pending|processing|error|done)$/);
    expect(keys(reply.body)).toEqual(
      expect.arrayContaining(['createdTime', 'id', 'request', 'state', 'user']),
    );
    expect(keys(reply.body.user)).toEqual(['email', 'id', 'name']);
    expect(reply.body.request).toEqual({
      baseId: S.roadmap,
      includeCsvFormat: true,
      shouldSendEmailOnCompletion: false,
    });
    const again = await get(ent(S.root, `/exports/${reply.body.id}`));
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(reply.body.id);
  });

  it('lists {exports, offset?} newest first, 10 per page by default, a numeric offset, filtered by state', async () => {
    const created: string[] = [];
    for (let i = 0; i < 12; i++) {
      emulator.clock.advance(1000);
      created.push((await create({ baseId: S.roadmap })).body.id);
    }
    const first = await get(ent(S.root, '/exports'));
    expect(first.status).toBe(200);
    expect(first.body.exports).toHaveLength(10);
    expect(first.body.exports.map((e: Loose) => e.id)).toEqual([...created].reverse().slice(0, 10));
    expect(typeof first.body.offset).toBe('number');
    const second = await get(ent(S.root, `/exports?offset=${first.body.offset}`));
    expect(second.body.exports.map((e: Loose) => e.id)).toEqual([...created].reverse().slice(10));
    expect(second.body.offset).toBeUndefined();
    expect((await get(ent(S.root, '/exports?pageSize=101'))).status).toBe(422);
    const states = new Set(first.body.exports.map((e: Loose) => e.state));
    for (const state of states) {
      const filtered = (await get(ent(S.root, `/exports?state=${state}&pageSize=100`))).body.exports;
      for (const e of filtered) expect(e.state).toBe(state);
    }
  });
});

describe('change events', () => {
  it('answers {events, offset?} newest first, 10 per page by default, at most 100', async () => {
    const features = ids(emulator, 'Product Roadmap', 'Features');
    for (let i = 0; i < 12; i++) {
      emulator.clock.advance(60_000);
      const reply = await send('POST', `/v0/${features.base}/${features.table}`, {
        records: [{ fields: { Name: `change ${i}` } }],
      });
      expect(reply.status).toBe(200);
    }
    const first = await get(ent(S.root, '/changeEvents'));
    expect(first.status).toBe(200);
    expect(first.body.events).toHaveLength(10);
    expect(typeof first.body.offset).toBe('string');
    const stamps = first.body.events.map((e: Loose) => e.timestamp);
    expect([...stamps].sort().reverse()).toEqual(stamps);
    const event = first.body.events[0];
    expect(keys(event)).toEqual(
      expect.arrayContaining([
        'actor',
        'eventTimestamp',
        'id',
        'objectId',
        'objectType',
        'timestamp',
        'type',
      ]),
    );
    expect(event).toMatchObject({ type: 'base_modified', objectType: 'base', objectId: features.base });
    expect((await get(ent(S.root, '/changeEvents?pageSize=100'))).status).toBe(200);
    expect((await get(ent(S.root, '/changeEvents?pageSize=101'))).status).toBe(422);
  });
});

// ------------------------------------------------------------------------------------------------------------
// Bases, interfaces, shares (C.5; samples BaseCollaborators, BaseShares)
// ------------------------------------------------------------------------------------------------------------

describe('base collaborators', () => {
  it('has the keys of the BaseCollaborators sample that C.5 documents', async () => {
    const reply = await get(
      `/v0/meta/bases/${S.roadmap}?include[]=collaborators&include[]=inviteLinks&include[]=interfaces`,
    );
    expect(reply.status).toBe(200);
    const body = reply.body;
    expect(keys(body)).toEqual(
      expect.arrayContaining([
        'createdTime',
        'groupCollaborators',
        'id',
        'individualCollaborators',
        'interfaces',
        'inviteLinks',
        'name',
        'permissionLevel',
        'workspaceId',
      ]),
    );
    expect(keys(body.individualCollaborators)).toEqual(['baseCollaborators', 'workspaceCollaborators']);
    expect(keys(body.groupCollaborators)).toEqual(['baseCollaborators', 'workspaceCollaborators']);
    expect(keys(body.inviteLinks)).toEqual(['baseInviteLinks', 'workspaceInviteLinks']);
    expect(keys(body.individualCollaborators.baseCollaborators[0])).toEqual([
      'createdTime',
      'email',
      'grantedByUserId',
      'permissionLevel',
      'userId',
    ]);
    expect(keys(body.groupCollaborators.baseCollaborators[0])).toEqual([
      'createdTime',
      'grantedByUserId',
      'groupId',
      'name',
      'permissionLevel',
    ]);
    expect(keys(body.inviteLinks.baseInviteLinks[0])).toEqual([
      'createdTime',
      'id',
      'invitedEmail',
      'permissionLevel',
      'referredByUserId',
      'restrictedToEmailDomains',
      'type',
    ]);
    const dashboard = body.interfaces[S.dashboard];
    expect(keys(dashboard)).toEqual(
      expect.arrayContaining([
        'createdTime',
        'firstPublishTime',
        'groupCollaborators',
        'id',
        'individualCollaborators',
        'inviteLinks',
        'name',
      ]),
    );
    expect(keys(dashboard.individualCollaborators[0])).toEqual([
      'createdTime',
      'email',
      'grantedByUserId',
      'permissionLevel',
      'userId',
    ]);
  });

  it('the interface: {id, baseId, createdTime, name, permissionLevel} plus collaborators and invites when asked', async () => {
    const reply = await get(
      `/v0/meta/bases/${S.roadmap}/interfaces/${S.dashboard}?include[]=collaborators&include[]=inviteLinks`,
    );
    expect(reply.status).toBe(200);
    expect(keys(reply.body)).toEqual(
      expect.arrayContaining([
        'baseId',
        'createdTime',
        'groupCollaborators',
        'id',
        'individualCollaborators',
        'inviteLinks',
        'name',
        'permissionLevel',
      ]),
    );
    expect(reply.body).toMatchObject({ id: S.dashboard, baseId: S.roadmap });
    // get-interface: both collaborator sections are objects of three lists; invite links one list.
    const lists = ['baseCollaborators', 'interfaceCollaborators', 'workspaceCollaborators'];
    expect(keys(reply.body.individualCollaborators)).toEqual(lists);
    expect(keys(reply.body.groupCollaborators)).toEqual(lists);
    expect(Array.isArray(reply.body.inviteLinks)).toBe(true);
  });

  it('interface collaborators: one per request, levels read|comment|edit', async () => {
    const path = `/v0/meta/bases/${S.roadmap}/interfaces/${S.dashboard}/collaborators`;
    const two = await send('POST', path, {
      collaborators: [
        { user: { id: S.margaret }, permissionLevel: 'read' },
        { user: { id: S.bot }, permissionLevel: 'read' },
      ],
    });
    expect(two.status).toBeGreaterThanOrEqual(400);
    const create = await send('POST', path, {
      collaborators: [{ user: { id: S.margaret }, permissionLevel: 'create' }],
    });
    expect(create.status).toBeGreaterThanOrEqual(400);
    const interfaceInfo = async () =>
      (await get(`/v0/meta/bases/${S.roadmap}/interfaces/${S.dashboard}?include[]=collaborators`)).body;
    const interfaceOnly = async () =>
      (await interfaceInfo()).individualCollaborators.interfaceCollaborators.map((c: Loose) => c.userId);
    expect(await interfaceOnly()).toEqual([S.alan]);
    const one = await send('POST', path, {
      collaborators: [{ user: { id: S.margaret }, permissionLevel: 'comment' }],
    });
    expect(one.status).toBe(200);
    expect(await interfaceOnly()).toContain(S.margaret);
  });
});

describe('block installations', () => {
  it('PATCH takes {state: "enabled" | "disabled"}', async () => {
    const path = `/v0/meta/bases/${S.roadmap}/blockInstallations/${S.chart}`;
    expect((await send('PATCH', path, { state: 'disabled' })).status).toBe(200);
    // list-block-installations answers a bare array.
    const listed = (await get(`/v0/meta/bases/${S.roadmap}/blockInstallations`)).body;
    expect(listed.find((b: Loose) => b.id === S.chart).state).toBe('disabled');
    expect((await send('PATCH', path, { state: 'paused' })).status).toBe(422);
  });
});

describe('shares', () => {
  it('answers {shares} with the keys of the BaseShares sample per type', async () => {
    const reply = await get(`/v0/meta/bases/${S.roadmap}/shares`);
    expect(reply.status).toBe(200);
    expect(keys(reply.body)).toEqual(['shares']);
    const common = [
      'createdByUserId',
      'createdTime',
      'isPasswordProtected',
      'restrictedToEmailDomains',
      'restrictedToEnterpriseMembers',
      'shareId',
      'shareTokenPrefix',
      'state',
      'type',
    ];
    for (const share of reply.body.shares) {
      expect(keys(share)).toEqual(expect.arrayContaining(common));
      expect(share.state).toMatch(/^(enabled|disabled)$/);
      if (share.type === 'view') expect(share.viewId).toMatch(/^viw/);
      if (share.type === 'blockInstallation') expect(share.blockInstallationId).toMatch(/^bli/);
    }
    expect(new Set(reply.body.shares.map((s: Loose) => s.type))).toEqual(
      new Set(['base', 'view', 'blockInstallation']),
    );
  });

  it('PATCH {state} enables and disables a share; DELETE removes it', async () => {
    const path = `/v0/meta/bases/${S.roadmap}/shares/${S.baseShare}`;
    expect((await send('PATCH', path, { state: 'disabled' })).status).toBeLessThan(300);
    const share = (await get(`/v0/meta/bases/${S.roadmap}/shares`)).body.shares.find(
      (s: Loose) => s.shareId === S.baseShare,
    );
    expect(share.state).toBe('disabled');
    expect((await send('PATCH', path, { state: 'paused' })).status).toBe(422);
    expect((await send('DELETE', path)).status).toBeLessThan(300);
    const after = (await get(`/v0/meta/bases/${S.roadmap}/shares`)).body.shares;
    expect(after.some((s: Loose) => s.shareId === S.baseShare)).toBe(false);
  });
});

// ------------------------------------------------------------------------------------------------------------
// Workspaces (C.5; sample WorkspaceCollaborators; spec Limits: restriction values)
// ------------------------------------------------------------------------------------------------------------

describe('workspaces', () => {
  it('has the keys of the WorkspaceCollaborators sample, base collaborators with their baseId', async () => {
    const reply = await get(
      `/v0/meta/workspaces/${S.sandboxWorkspace}?include[]=collaborators&include[]=inviteLinks`,
    );
    expect(reply.status).toBe(200);
    expect(keys(reply.body)).toEqual(
      expect.arrayContaining([
        'baseIds',
        'createdTime',
        'groupCollaborators',
        'id',
        'individualCollaborators',
        'inviteLinks',
        'name',
        'workspaceRestrictions',
      ]),
    );
    expect(keys(reply.body.workspaceRestrictions)).toEqual([
      'inviteCreationRestriction',
      'shareCreationRestriction',
    ]);
    expect(keys(reply.body.individualCollaborators.baseCollaborators[0])).toEqual([
      'baseId',
      'createdTime',
      'email',
      'grantedByUserId',
      'permissionLevel',
      'userId',
    ]);
    expect(keys(reply.body.individualCollaborators.workspaceCollaborators[0])).toEqual([
      'createdTime',
      'email',
      'grantedByUserId',
      'permissionLevel',
      'userId',
    ]);
    expect(keys(reply.body.inviteLinks.workspaceInviteLinks[0])).toEqual([
      'createdTime',
      'id',
      'invitedEmail',
      'permissionLevel',
      'referredByUserId',
      'restrictedToEmailDomains',
      'type',
    ]);
    expect(keys(reply.body.inviteLinks.baseInviteLinks[0])).toEqual(expect.arrayContaining(['baseId', 'id']));
  });

  it('POST {enterpriseAccountId, name} creates a workspace', async () => {
    const reply = await send('POST', '/v0/meta/workspaces', { enterpriseAccountId: S.root, name: 'Archive' });
    expect(reply.status).toBe(200);
    expect(reply.body.id).toMatch(/^wsp/);
    expect((await get(`/v0/meta/workspaces/${reply.body.id}`)).body.name).toBe('Archive');
  });

  it('restrictions take unrestricted or onlyOwners, nothing else', async () => {
    const path = `/v0/meta/workspaces/${S.sandboxWorkspace}/updateRestrictions`;
    expect(
      (
        await send('POST', path, {
          inviteCreationRestriction: 'onlyOwners',
          shareCreationRestriction: 'onlyOwners',
        })
      ).status,
    ).toBeLessThan(300);
    const after = (await get(`/v0/meta/workspaces/${S.sandboxWorkspace}`)).body.workspaceRestrictions;
    expect(after).toEqual({
      inviteCreationRestriction: 'onlyOwners',
      shareCreationRestriction: 'onlyOwners',
    });
    expect((await send('POST', path, { shareCreationRestriction: 'adminsOnly' })).status).toBe(422);
  });

  it('a group cannot be a workspace owner: 403 INVALID_PERMISSIONS', async () => {
    expectAirtableError(
      await send('POST', `/v0/meta/workspaces/${S.sandboxWorkspace}/collaborators`, {
        collaborators: [{ group: { id: S.support }, permissionLevel: 'owner' }],
      }),
      403,
      'INVALID_PERMISSIONS',
      'Groups cannot be the owners of a workspace',
    );
  });
});

// ------------------------------------------------------------------------------------------------------------
// Bulk data tables (C.8) and the shared error envelope (C.11)
// ------------------------------------------------------------------------------------------------------------

describe('bulk data tables', () => {
  it('getRecords answers records and, while more remain, a nextCursor to continue with', async () => {
    const path = `/v0/${S.root}/${S.dataTable}/getRecords`;
    const first = await send('POST', path, { maxRecords: 3 });
    expect(first.status).toBe(200);
    expect(first.body.records).toHaveLength(3);
    expect(keys(first.body.records[0])).toEqual(expect.arrayContaining(['fields', 'primaryKey']));
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await send('POST', path, { maxRecords: 3, cursor: first.body.nextCursor });
    expect(second.status).toBe(200);
    const keysOf = (reply: Reply) => reply.body.records.map((r: Loose) => r.primaryKey);
    expect(keysOf(second).some((k: string) => keysOf(first).includes(k))).toBe(false);
  });

  it('deleteRecords echoes {primaryKeysForDelete} and needs at least one key', async () => {
    const path = `/v0/${S.root}/${S.dataTable}/deleteRecords`;
    const keysToDelete = ['nobody@customers.example.com'];
    const reply = await send('POST', path, { primaryKeysForDelete: keysToDelete });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ primaryKeysForDelete: keysToDelete });
    expect((await send('POST', path, { primaryKeysForDelete: [] })).status).toBe(422);
  });
});

describe('errors (C.11)', () => {
  it('no token is 401 AUTHENTICATION_REQUIRED on the enterprise routes', async () => {
    const reply = await call(emulator, 'GET', ent(S.root), { token: null });
    expectAirtableError(reply, 401, 'AUTHENTICATION_REQUIRED');
  });

  it('a body that is not JSON is 400 on the enterprise routes', async () => {
    const reply = await call(emulator, 'POST', ent(S.root, '/users/claim'), { rawBody: '{"users": [' });
    expect(reply.status).toBe(400);
    expect(typeof reply.body.error.type).toBe('string');
  });

  it('a non-admin is refused 403 on the enterprise routes, an admin is not', async () => {
    expect((await get(ent(S.root), ADA)).status).toBe(403);
    expect((await get(ent(S.root), MARGARET)).status).toBe(200);
  });
});
