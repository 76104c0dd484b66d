// The output schemas of the StoreApi's administration toolsets (workspaces, enterprise, audit, scim, bulk) against
// what the tools return: the SDK's MCP client (on 2025-11-25 and on 2026-07-28) -> Switchboard over Streamable
// HTTP -> the data-store emulator on loopback, on a manual clock so the audit log request and the eDiscovery export finish when the test says.
// Every tool of those toolsets is called successfully (list tools with items to return), in an order that keeps
// each call valid (create, then change, then delete what was created), and each structuredContent is validated by
// ajv's 2020-12 build against the tool's entry in STORE_ADMIN_OUTPUT_SCHEMAS as the server converts it. The set of
// tools validated must equal the toolsets' tools, and the table's keys the same set, so none is skipped silently.
// The schemas follow the upstream, not the emulator: a result that does not fit is an emulator to fix.

import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ManualClock, manualClock } from '../../src/emulation/clock.js';
import { outputJsonSchema } from '../../src/runtime/outputSchemas.js';
import type { WorkspaceAdminDoc } from '../../src/services/store/emulator/admin/model.js';
import { TASK_DONE_AFTER_MS } from '../../src/services/store/emulator/admin/tasks.js';
import { ADMIN_SEED } from '../../src/services/store/emulator/seed/admin.js';
import { STORE_ADMIN_OUTPUT_SCHEMAS } from '../../src/services/store/outputSchemas/admin.js';
import { STORE_TOOLSETS } from '../../src/services/store/toolsets.js';
import type { Connected, Revision } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore, storeTools } from './storeHarness.js';

const ADMIN_TOOLSETS = ['workspaces', 'enterprise', 'audit', 'scim', 'bulk'] as const;
const ADMIN_TOOLS = ADMIN_TOOLSETS.flatMap((name) => STORE_TOOLSETS[name].tools as readonly string[]);

const NOW = '2025-06-15T12:00:00.000Z';
const USER_URI = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_URI = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_URI = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

// biome-ignore lint/suspicious/noExplicitAny: results are read field by field to build the next call.
type Structured = any;

// Each entry as the server converts it for tools/list (draft 2020-12, output side, compacted): the success
// shapes only, without the branches every tool shares (a cut result, schema mode, an error).
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validators = new Map(
  Object.entries(STORE_ADMIN_OUTPUT_SCHEMAS()).map(([name, schema]) => [
    name,
    ajv.compile(outputJsonSchema(schema)),
  ]),
);

const REVISIONS: readonly Revision[] = ['2025-11-25', '2026-07-28'];

/** Switchboard's store server over Streamable HTTP, reached by an SDK client speaking `revision`. */
const connectAt = (revision: Revision, upstream: StoreEmulatorHandle): Promise<Connected> =>
  connectStore('http', upstream.env(), revision);

it('the admin table has one entry per tool of the workspaces, enterprise, audit, scim and bulk toolsets', () => {
  expect(Object.keys(STORE_ADMIN_OUTPUT_SCHEMAS()).sort()).toEqual([...ADMIN_TOOLS].sort());
  expect(ADMIN_TOOLS).toHaveLength(48);
});

describe.each(REVISIONS)(
  'StoreApi administration toolsets on %s: every result fits its output schema',
  (revision) => {
    let upstream: StoreEmulatorHandle;
    let clock: ManualClock;
    let mcp: Connected;
    /** Every successful result, by tool: a tool called more than once has each of its results checked. */
    const results = new Map<string, Structured[]>();

    const { ok, exec } = storeTools(
      () => mcp,
      () => upstream,
      (tool, structured) => results.set(tool, [...(results.get(tool) ?? []), structured]),
    );

    let root: string;
    let europe: string;
    let sandbox: string;
    let research: string;
    let roadmap: string;
    let user: Record<
      'owner' | 'ada' | 'grace' | 'alan' | 'katherine' | 'margaret' | 'bot' | 'emilie',
      string
    >;
    let group: { engineering: string; support: string };

    beforeAll(async () => {
      clock = manualClock(NOW);
      upstream = await startStore({ clock });
      mcp = await connectAt(revision, upstream);
      const state = upstream.emulator.admin.state;
      const snapshot = upstream.emulator.store.schema();
      const accountNamed = (name: string) => state.list('account').find((a) => a.name === name)!.id;
      root = accountNamed(ADMIN_SEED.rootAccount);
      europe = accountNamed(ADMIN_SEED.descendantAccount);
      const workspace = (name: string) => snapshot.workspaces.find((w) => w.name === name)!.id;
      sandbox = workspace('Sandbox Workspace');
      research = workspace(ADMIN_SEED.workspaces.research);
      roadmap = snapshot.bases.find((b) => b.name === 'Product Roadmap')!.id;
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
      };
      const groupNamed = (name: string) => state.list('group').find((g) => g.name === name)!.id;
      group = {
        engineering: groupNamed(ADMIN_SEED.groups.engineering),
        support: groupNamed(ADMIN_SEED.groups.support),
      };
    });
    afterAll(async () => {
      await mcp?.close();
      await upstream?.close();
    });

    it('workspaces: create, read, collaborators, invites, restrictions, moves, delete', async () => {
      const created = (
        await exec('CreateStoreWorkspace', {}, { enterpriseAccountId: root, name: 'Out-C Space' })
      ).id as string;
      await exec(
        'AddWorkspaceCollaborator',
        { workspace_id: created },
        { collaborators: [{ user: { id: user.margaret }, permissionLevel: 'edit' }] },
      );
      await exec(
        'AddWorkspaceCollaborator',
        { workspace_id: created },
        { collaborators: [{ group: { id: group.support }, permissionLevel: 'read' }] },
      );
      const extras = ['collaborators', 'inviteLinks'];
      await ok('GetWorkspaceCollaborators', { workspace_identifier: created });
      await ok('GetWorkspaceCollaborators', {
        workspace_identifier: created,
        include_additional_information: extras,
      });
      // The sandbox workspace has bases, base collaborators and invites: the lists come back with items.
      const full = await ok('GetWorkspaceCollaborators', {
        workspace_identifier: sandbox,
        include_additional_information: extras,
      });
      expect(full.baseIds.length).toBeGreaterThan(0);
      expect(full.individualCollaborators.baseCollaborators.length).toBeGreaterThan(0);
      expect(full.inviteLinks.workspaceInviteLinks.length).toBeGreaterThan(0);

      await exec(
        'UpdateWorkspaceCollaboratorPermission',
        { workspace_id: created, collaborator_id: user.margaret },
        { permissionLevel: 'comment' },
      );
      await ok('RemoveWorkspaceCollaborator', {
        workspace_id: created,
        collaborator_identifier: group.support,
      });
      const invite = upstream.emulator.admin.state.get('workspace', sandbox)!.invites[0]!;
      await ok('DeleteWorkspaceInvite', { workspace_id: sandbox, invite_id: invite.id });
      await ok('UpdateWorkspaceRestrictions', {
        workspace_id: created,
        share_creation_restriction: 'onlyOwners',
      });

      const calendar = upstream.emulator.store.schema().bases.find((b) => b.name === 'Content Calendar')!.id;
      await exec(
        'MoveStoreBase',
        { target_workspace_id: sandbox },
        { baseId: calendar, targetWorkspaceId: created },
      );
      await exec(
        'MoveStoreBase',
        { target_workspace_id: created },
        { baseId: calendar, targetWorkspaceId: sandbox },
      );
      await ok('DeleteWorkspace', { workspace_id: created });
      expect(
        await upstream.stateItem<WorkspaceAdminDoc>('workspace_admin', created),
        'the workspace made here is gone',
      ).toBeUndefined();
    });

    it('scim: users and groups, listed, created, read, patched, replaced, deleted', async () => {
      await ok('ListScimUsers', {});
      const users = await ok('ListScimUsers', { user_count_limit: 3 });
      expect(users.Resources.length).toBeGreaterThan(0);
      const mary = await exec(
        'CreateScimUser',
        {},
        {
          schemas: [USER_URI],
          userName: 'mary.outc@sandbox.example.com',
          name: { givenName: 'Mary', familyName: 'Jackson' },
          title: 'Engineer',
        },
      );
      await ok('GetScimUser', { user_id: mary.id });
      await exec(
        'UpdateScimUserRecord',
        { user_id: mary.id },
        {
          schemas: [PATCH_URI],
          Operations: [{ op: 'replace', path: 'name.familyName', value: 'Jackson-Smith' }],
        },
      );
      await exec(
        'UpdateUserAttributes',
        { user_id: mary.id },
        {
          schemas: [USER_URI],
          userName: 'mary.outc@sandbox.example.com',
          name: { givenName: 'Mary', familyName: 'Jackson' },
          active: true,
        },
      );

      const groups = await ok('ListScimGroups', {});
      expect(groups.Resources.length).toBeGreaterThan(0);
      const design = await exec('CreateScimGroup', {}, { schemas: [GROUP_URI], displayName: 'Out-C Design' });
      await ok('FetchScimGroup', { scim_group_id: group.support });
      await exec(
        'UpdateGroupDetails',
        { group_id: design.id },
        {
          schemas: [PATCH_URI],
          Operations: [{ op: 'add', path: 'members', value: [{ value: mary.id }, { value: user.ada }] }],
        },
      );
      await exec(
        'UpdateGroupAttributes',
        { group_id: design.id },
        { schemas: [GROUP_URI], displayName: 'Out-C Design', members: [{ value: user.grace }] },
      );
      await ok('DeleteScimGroup', { group_id: design.id });
      await ok('DeleteScimUser', { scim_user_id: mary.id });
    });

    it('enterprise: accounts, moves, users, admin access, removal, groups', async () => {
      await ok('GetEnterpriseInfo', { enterprise_account_id: root });
      await ok('GetEnterpriseInfo', {
        enterprise_account_id: root,
        fields_to_include: ['aggregated', 'descendants'],
      });
      await exec(
        'CreateDescendantEnterpriseAccount',
        { enterprise_account_id: root },
        { name: 'Out-C Asia' },
      );
      await exec(
        'BatchMoveUserGroupsBetweenAccounts',
        { target_enterprise_account_id: root },
        { groupIds: [group.support, 'ugpDoesNotExist0'], targetEnterpriseAccountId: europe },
      );
      const found = await ok('GetStoreUserInfo', {
        enterprise_account_id: root,
        user_ids: [user.ada],
        user_emails: ['alan@sandbox.example.com'],
        include_fields: ['collaborations', 'aggregated', 'descendants'],
      });
      expect(found.users).toHaveLength(2);
      await ok('GetUserInformation', { enterprise_account_id: root, user_id: user.margaret });
      await ok('GetUserInformation', {
        enterprise_account_id: root,
        user_id: user.ada,
        include_fields: ['collaborations', 'aggregated', 'descendants'],
      });
      await ok('ManageEnterpriseAccountUser', {
        enterprise_account_id: root,
        user_id: user.ada,
        user_first_name: 'Augusta Ada',
      });
      await exec(
        'BatchManageEnterpriseUsers',
        { enterprise_account_id: root },
        {
          users: [
            { id: user.grace, lastName: 'Hopper-Murray' },
            { email: 'nobody@sandbox.example.com', state: 'deactivated' },
          ],
        },
      );
      await exec(
        'BatchManageUserMembership',
        { enterprise_account_id: root },
        { users: [{ id: user.alan, state: 'managed' }] },
      );
      await exec(
        'GrantAdminAccess',
        { enterprise_account_id: root },
        { users: [{ email: 'ada@sandbox.example.com' }] },
      );
      await exec(
        'RevokeAdminAccess',
        { enterprise_account_id: root },
        { users: [{ id: user.ada }, { id: user.owner }] },
      );
      await ok('LogoutEnterpriseUser', {
        enterprise_account_id: root,
        enterprise_user_id: user.grace,
        logout_request_body: {},
      });
      await exec(
        'RemoveUserFromEnterprise',
        { enterprise_account_id: root, user_id: user.grace },
        { isDryRun: true, replacementOwnerId: user.alan },
      );
      const removed = await exec(
        'RemoveUserFromEnterprise',
        { enterprise_account_id: root, user_id: user.grace },
        { replacementOwnerId: user.alan },
      );
      expect(removed.unshared.bases.length).toBeGreaterThan(0);
      await exec(
        'MoveWorkspacesBetweenEnterpriseAccounts',
        { enterprise_account_id: root },
        { workspaceIds: [research], targetEnterpriseAccountId: europe, replacementOwnerId: user.emilie },
      );
      // Katherine acted before she is deleted (recorded straight into the emulator's audit trail): the audit
      // step reads her event back, whose actor must still carry her email, as the upstream's does.
      upstream.emulator.admin.trail.record({
        action: 'updateRecord',
        category: 'record',
        actorUserId: user.katherine,
        modelId: 'recOutCKatherine',
        modelType: 'record',
        enterpriseAccountId: root,
        origin: { ipAddress: '192.0.2.1', userAgent: 'output-schemas-store-admin.test' },
      });
      await ok('DeleteEnterpriseUser', { enterprise_account_id: root, user_id: user.katherine });
      await ok('DeleteUsersByEmail', {
        enterprise_account_id: root,
        email_addresses: [ADMIN_SEED.users.bot.email, 'nobody@sandbox.example.com'],
      });
      await ok('GetUserGroupInfo', { user_group_id: group.engineering });
      await ok('GetUserGroupInfo', {
        user_group_id: group.engineering,
        include_additional_info: ['collaborations'],
      });
    });

    it('audit: events, change events, audit log requests and eDiscovery exports, done and failed', async () => {
      await ok('GetAuditLogEvents', { enterprise_account_id: root });
      const events = await ok('GetAuditLogEvents', { enterprise_account_id: root, page_size: 50 });
      expect(events.events.length).toBeGreaterThan(0);
      const byDeleted = await ok('GetAuditLogEvents', {
        enterprise_account_id: root,
        filter_by_originating_user_id: user.katherine,
      });
      expect(byDeleted.events.map((e: Structured) => e.actor)).toEqual([
        {
          type: 'user',
          user: {
            id: user.katherine,
            email: ADMIN_SEED.users.katherine.email,
            name: ADMIN_SEED.users.katherine.name,
          },
        },
      ]);
      const changes = await ok('GetStoreChangeEvents', { enterprise_account_id: root });
      expect(changes.events.length).toBeGreaterThan(0);

      const task = await exec(
        'CreateAuditLogRequest',
        { enterprise_account_id: root },
        { timePeriod: '2025-05' },
      );
      await ok('RetrieveAuditLog', { enterprise_account_id: root, audit_log_task_id: task.id });
      const started = await exec(
        'CreateEdiscoveryExport',
        { enterprise_account_id: root },
        { baseId: roadmap, includeCsvFormat: true },
      );
      await ok('GetEdiscoveryExportStatus', { enterprise_account_id: root, enterprise_task_id: started.id });
      // Failures: a period past the 180 days kept, and an export whose base is deleted before it finishes.
      const tooOld = await exec(
        'CreateAuditLogRequest',
        { enterprise_account_id: root },
        { timePeriod: '2024-01' },
      );
      const calendar = upstream.emulator.store.schema().bases.find((b) => b.name === 'Content Calendar')!.id;
      const doomed = await exec(
        'CreateEdiscoveryExport',
        { enterprise_account_id: root },
        { baseId: calendar },
      );
      const deleted = await mcp.call('StoreApi.DeleteStoreBase', { base_id: calendar });
      expect(deleted.isError, deleted.text).toBe(false);
      clock.advance(TASK_DONE_AFTER_MS);
      const failedLog = await ok('RetrieveAuditLog', {
        enterprise_account_id: root,
        audit_log_task_id: tooOld.id,
      });
      expect(failedLog.state).toBe('error');
      // The upstream's error state: a message string, `errorMessage` here and `error` on an export.
      expect(failedLog.errorMessage).toMatch(/retention/);
      expect(failedLog.error).toBeUndefined();
      const failedExport = await ok('GetEdiscoveryExportStatus', {
        enterprise_account_id: root,
        enterprise_task_id: doomed.id,
      });
      expect(failedExport.state).toBe('error');
      expect(failedExport.error).toEqual(expect.stringContaining(calendar));
      const done = await ok('RetrieveAuditLog', { enterprise_account_id: root, audit_log_task_id: task.id });
      expect(done.state).toBe('done');
      expect(done.data.expirationTime).toEqual(expect.any(String));
      const requests = await ok('RetrieveAuditLogRequests', { enterprise_account_id: root });
      expect(requests.auditLogs.length).toBeGreaterThan(0);
      const exported = await ok('GetEdiscoveryExportStatus', {
        enterprise_account_id: root,
        enterprise_task_id: started.id,
      });
      expect(exported.state).toBe('done');
      const exports = await ok('GetEdiscoveryExportsStatus', { enterprise_account_id: root });
      expect(exports.exports.length).toBeGreaterThan(1);
      await ok('GetEdiscoveryExportsStatus', {
        enterprise_account_id: root,
        ediscovery_export_state: 'done',
      });
    });

    it('bulk: rows read, upserted and deleted by primary key', async () => {
      const table = upstream.emulator.admin.deps.bulk.tables()[0]!;
      const path = { enterprise_account_id: table.enterpriseAccountId, data_table_id: table.id };
      const page = await ok('ReadBulkTableRecords', { ...path, maximum_records_to_retrieve: 5 });
      expect(page.records).toHaveLength(5);
      await exec('UpsertStoreRecords', path, {
        records: [
          { primaryKey: 'outc.new@example.com', fields: { name: 'Out-C New', seats: 4, status: 'active' } },
          { primaryKey: page.records[0].primaryKey, fields: { seats: 7 } },
        ],
      });
      await ok('ReadBulkTableRecords', { ...path, primary_keys_to_retrieve: ['outc.new@example.com'] });
      await exec('DeleteRecordsByPrimaryKeys', path, { primaryKeysForDelete: ['outc.new@example.com'] });
    });

    it('every result validates against its output schema, and every tool was checked', () => {
      const problems: string[] = [];
      for (const [tool, outcomes] of results) {
        const validate = validators.get(tool);
        if (!validate) {
          problems.push(`${tool}: no output schema`);
          continue;
        }
        for (const [i, structured] of outcomes.entries()) {
          if (validate(structured)) continue;
          const errors = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
          problems.push(`${tool}[${i}]: ${errors.join('; ')} in ${JSON.stringify(structured).slice(0, 300)}`);
        }
      }
      expect(problems).toEqual([]);
      expect([...results.keys()].sort()).toEqual([...ADMIN_TOOLS].sort());
    });
  },
);
