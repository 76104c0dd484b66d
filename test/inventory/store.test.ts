// Inventory: the StoreApi tools against the spec's 96. For every tool the parameter names, types, required
// flags, enums and defaults are transcribed below and checked against what the server publishes; the server must
// publish exactly these 96 names. When the spec sits beside the repository, its tables are read and checked
// against the transcription and the code.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { effectiveHints } from '../../src/runtime/hints.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { createStoreRuntime } from '../../src/services/store/service.js';
import { type ExpectedParams, expectToolInput, specAvailable, specPath } from './specTable.js';

const s = (required = false) => ({ kind: 'string' as const, required });
const n = { kind: 'integer' as const, required: false };
const a = { kind: 'array' as const, required: false };
const b = { kind: 'boolean' as const, required: false };
const schemaMode: ExpectedParams = {
  mode: { kind: 'enum', required: true, enumValues: ['get_request_schema', 'execute'] },
  request_body: s(),
};
const j = { kind: 'object' as const, required: false };
const oneOf = (...enumValues: string[]) => ({ kind: 'enum' as const, required: false, enumValues });
const format = oneOf('json', 'string');
const restriction = oneOf('unrestricted', 'onlyOwners');

/** The 96 tools of the spec, transcribed from it. */
const EXPECTED: Record<string, ExpectedParams> = {
  // SCIM groups and users
  ListScimGroups: { filter_criteria: s(), group_count: n },
  CreateScimGroup: { ...schemaMode },
  DeleteScimGroup: { group_id: s(true) },
  FetchScimGroup: { scim_group_id: s(true) },
  UpdateGroupDetails: { ...schemaMode, group_id: s() },
  UpdateGroupAttributes: { ...schemaMode, group_id: s() },
  ListScimUsers: { start_index: n, user_count_limit: n, user_filter: s() },
  CreateScimUser: { ...schemaMode },
  DeleteScimUser: { scim_user_id: s(true) },
  GetScimUser: { user_id: s(true) },
  UpdateScimUserRecord: { ...schemaMode, user_id: s() },
  UpdateUserAttributes: { ...schemaMode, user_id: s() },
  // bases, collaborators, invites, shares
  GetBaseCollaborators: { base_id: s(true), fields_to_include: a },
  ListBaseBlockInstallations: { base_id: s(true) },
  DeleteStoreBlockInstallation: { store_base_id: s(true), block_installation_id: s(true) },
  ManageStoreBlockInstallation: { ...schemaMode, store_base_id: s(), block_installation_id: s() },
  AddBaseCollaborator: { ...schemaMode, base_id: s() },
  RemoveBaseCollaborator: { base_id: s(true), collaborator_id: s(true) },
  UpdateCollaboratorPermission: { ...schemaMode, base_identifier: s(), collaborator_id: s() },
  GetInterfaceInfo: { store_base_id: s(true), interface_id: s(true), include_elements: a },
  AddCollaboratorToStoreInterface: { ...schemaMode, store_base_id: s(), page_bundle_id: s() },
  RemoveInterfaceCollaborator: {
    base_id: s(true),
    collaborator_id: s(true),
    interface_page_bundle_id: s(true),
  },
  UpdateCollaboratorPermissions: {
    ...schemaMode,
    base_identifier: s(),
    interface_page_bundle_id: s(),
    collaborator_id: s(),
  },
  DeleteInterfaceInvite: { base_identifier: s(true), invite_id: s(true), page_bundle_id: s(true) },
  DeleteBaseInvite: { base_id: s(true), invite_id: s(true) },
  ListBaseShares: { base_identifier: s(true) },
  DeleteStoreShare: { store_base_id: s(true), share_id: s(true) },
  ManageStoreSharing: { ...schemaMode, store_base_id: s(), share_identifier: s() },
  // enterprise administration
  GetEnterpriseInfo: { enterprise_account_id: s(true), fields_to_include: a },
  GetAuditLogEvents: {
    enterprise_account_id: s(true),
    start_time: s(),
    end_time: s(),
    event_category: s(),
    event_type: s(),
    filter_by_originating_user_id: s(),
    model_identifier: s(),
    next_page_token: s(),
    previous_event_marker: s(),
    page_size: n,
    sort_order: oneOf('ascending', 'descending'),
  },
  RetrieveAuditLogRequests: { enterprise_account_id: s(true), audit_log_page_size: n, pagination_offset: n },
  CreateAuditLogRequest: { ...schemaMode, enterprise_account_id: s() },
  RetrieveAuditLog: { audit_log_task_id: s(true), enterprise_account_id: s(true) },
  GetStoreChangeEvents: {
    enterprise_account_id: s(true),
    start_time: s(),
    end_time: s(),
    page_size_limit: n,
    pagination_offset: s(),
  },
  CreateDescendantEnterpriseAccount: { ...schemaMode, enterprise_account_id: s() },
  GetEdiscoveryExportsStatus: {
    enterprise_account_id: s(true),
    ediscovery_export_state: oneOf('pending', 'processing', 'error', 'done'),
    pagination_offset: n,
    result_page_size: n,
  },
  CreateEdiscoveryExport: { ...schemaMode, enterprise_account_id: s() },
  GetEdiscoveryExportStatus: { enterprise_account_id: s(true), enterprise_task_id: s(true) },
  BatchMoveUserGroupsBetweenAccounts: { ...schemaMode, target_enterprise_account_id: s() },
  MoveWorkspacesBetweenEnterpriseAccounts: { ...schemaMode, enterprise_account_id: s() },
  DeleteUsersByEmail: { enterprise_account_id: s(true), email_addresses: a },
  GetStoreUserInfo: { enterprise_account_id: s(true), include_fields: a, user_emails: a, user_ids: a },
  BatchManageEnterpriseUsers: { ...schemaMode, enterprise_account_id: s() },
  BatchManageUserMembership: { ...schemaMode, enterprise_account_id: s() },
  GrantAdminAccess: { ...schemaMode, enterprise_account_id: s() },
  RevokeAdminAccess: { ...schemaMode, enterprise_account_id: s() },
  DeleteEnterpriseUser: { enterprise_account_id: s(true), user_id: s(true) },
  GetUserInformation: { enterprise_account_id: s(true), user_id: s(true), include_fields: a },
  ManageEnterpriseAccountUser: {
    enterprise_account_id: s(true),
    user_id: s(true),
    update_user_email: s(),
    user_first_name: s(),
    user_last_name: s(),
    user_state: oneOf('provisioned', 'deactivated'),
  },
  LogoutEnterpriseUser: {
    enterprise_account_id: s(true),
    enterprise_user_id: s(true),
    logout_request_body: j,
  },
  RemoveUserFromEnterprise: { ...schemaMode, enterprise_account_id: s(), user_id: s() },
  GetUserGroupInfo: { user_group_id: s(true), include_additional_info: a },
  // workspaces
  CreateStoreWorkspace: { ...schemaMode },
  DeleteWorkspace: { workspace_id: s(true) },
  GetWorkspaceCollaborators: { workspace_identifier: s(true), include_additional_information: a },
  AddWorkspaceCollaborator: { ...schemaMode, workspace_id: s() },
  RemoveWorkspaceCollaborator: { collaborator_identifier: s(true), workspace_id: s(true) },
  UpdateWorkspaceCollaboratorPermission: { ...schemaMode, workspace_id: s(), collaborator_id: s() },
  DeleteWorkspaceInvite: { invite_id: s(true), workspace_id: s(true) },
  MoveStoreBase: { ...schemaMode, target_workspace_id: s() },
  UpdateWorkspaceRestrictions: {
    workspace_id: s(true),
    invite_creation_restriction: restriction,
    share_creation_restriction: restriction,
  },
  // bulk data tables
  DeleteRecordsByPrimaryKeys: { ...schemaMode, enterprise_account_id: s(), data_table_id: s() },
  ReadBulkTableRecords: {
    data_table_id: s(true),
    enterprise_account_id: s(true),
    fields_to_retrieve: a,
    maximum_records_to_retrieve: n,
    pagination_cursor: s(),
    primary_keys_to_retrieve: a,
  },
  UpsertStoreRecords: { ...schemaMode, enterprise_account_id: s(), data_table_id: s() },
  // records, attachments, comments, schema, bases, webhooks, identity
  UploadAttachmentToStore: {
    ...schemaMode,
    store_base_id: s(),
    store_record_id: s(),
    attachment_field_id_or_name: s(),
  },
  DeleteMultipleRecords: { base_id: s(true), table_identifier: s(true), record_ids_to_delete: a },
  ListStoreRecords: {
    base_id: s(true),
    table_id_or_name: s(true),
    cell_format_method: format,
    filter_by_formula: s(),
    maximum_records: n,
    output_time_zone: s(),
    page_size: { ...n, default: '100' },
    pagination_offset: s(),
    record_metadata_fields: a,
    return_fields_by_field_id: b,
    sort_order: s(),
    specific_fields: s(),
    specified_view: s(),
    user_locale: s(),
  },
  UpdateStoreRecords: { ...schemaMode, store_base_id: s(), store_table_id_or_name: s() },
  CreateStoreRecords: { ...schemaMode, base_id: s(), table_id_or_name: s() },
  BulkUpdateStore: { ...schemaMode, base_id: s(), table_identifier: s() },
  DeleteStoreRecord: { store_base_id: s(true), record_id: s(true), table_identifier: s(true) },
  StoreGetRecord: {
    store_base_id: s(true),
    record_id: s(true),
    table_identifier: s(true),
    cell_format: format,
    return_fields_by_field_id: b,
  },
  UpdateStoreRecord: { ...schemaMode, base_id: s(), table_id_or_name: s(), store_record_id: s() },
  ModifyStoreEntry: { ...schemaMode, base_id: s(), table_identifier: s(), record_identifier: s() },
  GetRecordComments: {
    base_id: s(true),
    record_id: s(true),
    table_identifier: s(true),
    pagination_offset: s(),
    results_page_size: n,
  },
  AddRecordComment: { ...schemaMode, base_identifier: s(), table_identifier: s(), record_identifier: s() },
  DeleteCommentFromRecord: {
    store_base_id: s(true),
    comment_id_to_delete: s(true),
    record_id: s(true),
    table_id_or_name: s(true),
  },
  UpdateRecordComment: {
    ...schemaMode,
    base_identifier: s(),
    table_id_or_name: s(),
    record_id: s(),
    comment_id: s(),
  },
  GetStoreBaseSchema: { store_base_id: s(true), fields_to_include: a },
  CreateStoreTable: { ...schemaMode, store_base_id: s() },
  UpdateStoreTable: { ...schemaMode, store_base_id: s(), table_id_or_name: s() },
  CreateStoreField: { ...schemaMode, store_base_id: s(), table_id: s() },
  UpdateStoreFieldDetails: {
    store_base_id: s(true),
    store_table_id: s(true),
    field_column_id: s(true),
    new_field_description: s(),
    new_field_name: s(),
  },
  ListStoreBaseViews: { store_base_id: s(true), fields_to_include: a },
  DeleteStoreView: { store_base_id: s(true), view_identifier: s(true) },
  GetStoreViewMetadata: { base_identifier: s(true), view_identifier: s(true), include_fields: a },
  ListStoreBases: { pagination_offset: s() },
  CreateStoreBase: { ...schemaMode },
  DeleteStoreBase: { base_id: s(true) },
  ListWebhooksForBase: { base_identifier: s(true) },
  CreateStoreWebhook: { ...schemaMode, base_id: s() },
  DeleteStoreWebhook: { store_base_id: s(true), webhook_id: s(true) },
  ToggleWebhookNotifications: { ...schemaMode, store_base_id: s(), webhook_id: s() },
  ListWebhookPayloads: {
    base_id: s(true),
    webhook_id: s(true),
    maximum_number_of_messages: n,
    pagination_cursor: n,
  },
  RefreshWebhookLifespan: { base_identifier: s(true), webhook_id: s(true), webhook_request_body: j },
  RetrieveUserIdAndScopes: {},
};

const toolSet = buildToolSet([createStoreRuntime({ token: () => undefined })]);

interface SpecRow {
  params: { name: string; type: string; flag: string }[];
  schemaMode: boolean;
}

/** Every row of every `| Tool | Parameters |` table of the store spec. */
function readStoreSpec(): Map<string, SpecRow> {
  const rows = new Map<string, SpecRow>();
  let inTable = false;
  for (const line of readFileSync(specPath('store.md'), 'utf8').split('\n')) {
    if (line.startsWith('| Tool | Parameters |')) {
      inTable = true;
      continue;
    }
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    if (!inTable || line.startsWith('|---')) continue;
    const [, nameCell = '', paramCell = ''] = line.split('|').map((cell) => cell.trim());
    const params: SpecRow['params'] = [];
    // `a (s, R); b, c (n, O; note)`: parameters before each parenthesis, type and flag first inside it.
    for (const match of paramCell.matchAll(/((?:[a-z_]+(?:, )?)+) \(([sanbj]), ([ROE])[,;)]/g)) {
      for (const name of match[1]!.split(', ')) params.push({ name, type: match[2]!, flag: match[3]! });
    }
    rows.set(nameCell.replace(/\s*\[M\]$/, ''), { params, schemaMode: nameCell.endsWith('[M]') });
  }
  return rows;
}

const KIND_OF_SPEC_TYPE: Record<string, string[]> = {
  s: ['string', 'enum'],
  n: ['integer', 'number'],
  a: ['array'],
  b: ['boolean'],
  j: ['object'],
};

describe('StoreApi inventory', () => {
  it('serves exactly the 96 tools, dotted and prefixed', () => {
    expect(Object.keys(EXPECTED)).toHaveLength(96);
    expect(toolSet.tools.map((tool) => tool.name).sort()).toEqual(
      Object.keys(EXPECTED)
        .map((name) => `StoreApi.${name}`)
        .sort(),
    );
  });

  for (const [name, params] of Object.entries(EXPECTED)) {
    it(`${name}: parameters, types, required, defaults, enums`, () => {
      expectToolInput(name, toolSet.byName.get(`StoreApi.${name}`)!.listEntry.inputSchema, params);
    });
  }

  it('annotations: reads are read-only; deletes and replacing writes are destructive', () => {
    const published = (name: string) => toolSet.byName.get(`StoreApi.${name}`)!.listEntry.annotations;
    // As a client reads them: a hint left out is MCP's default.
    const hints = (name: string) => effectiveHints(published(name));
    for (const name of [
      'ListStoreRecords',
      'StoreGetRecord',
      'GetStoreBaseSchema',
      'RetrieveUserIdAndScopes',
      'ListScimUsers',
      'GetAuditLogEvents',
      'GetWorkspaceCollaborators',
      'ReadBulkTableRecords',
    ]) {
      // destructiveHint and idempotentHint mean nothing on a read-only tool, so they are not published.
      expect(published(name), name).toEqual({ readOnlyHint: true });
    }
    for (const name of [
      'DeleteStoreBase',
      'DeleteMultipleRecords',
      'BulkUpdateStore',
      'ModifyStoreEntry',
      'DeleteScimUser',
      'UpdateUserAttributes',
      'RevokeAdminAccess',
      'RemoveUserFromEnterprise',
      'DeleteUsersByEmail',
      'DeleteRecordsByPrimaryKeys',
    ]) {
      expect(hints(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    for (const name of [
      'CreateStoreRecords',
      'CreateScimUser',
      'CreateStoreWorkspace',
      'AddBaseCollaborator',
    ]) {
      expect(hints(name), name).toMatchObject({ destructiveHint: false, idempotentHint: false });
    }
    for (const name of [
      'MoveStoreBase',
      'GrantAdminAccess',
      'UpsertStoreRecords',
      'UpdateWorkspaceRestrictions',
    ]) {
      expect(hints(name), name).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
      });
    }
  });

  describe.runIf(specAvailable('store.md'))('against the spec itself', () => {
    const spec = specAvailable('store.md') ? readStoreSpec() : new Map<string, SpecRow>();

    it('the spec lists 96 tools and the server publishes exactly those names', () => {
      expect(spec.size).toBe(96);
      expect(toolSet.tools.map((tool) => tool.name.replace(/^StoreApi\./, '')).sort()).toEqual(
        [...spec.keys()].sort(),
      );
    });

    it('the transcription matches the spec rows (names, types, required, schema mode)', () => {
      for (const [name, expected] of Object.entries(EXPECTED)) {
        const row = spec.get(name)!;
        expect('mode' in expected, `${name} schema mode`).toBe(row.schemaMode);
        const own = Object.keys(expected).filter((key) => key !== 'mode' && key !== 'request_body');
        expect(row.params.map((p) => p.name).sort(), name).toEqual(own.sort());
        for (const param of row.params) {
          const want = expected[param.name]!;
          expect(KIND_OF_SPEC_TYPE[param.type], `${name}.${param.name} type`).toContain(want.kind);
          expect(want.required, `${name}.${param.name} required`).toBe(param.flag === 'R');
        }
      }
    });
  });
});
