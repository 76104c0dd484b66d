// The StoreApi's toolsets: named groups of its 96 tools, each tool in exactly one, for `serve --toolsets` and
// the HTTP paths `/mcp/store.<toolset>` (docs/toolsets.md). The groups follow the tool files in tools/, split
// where an agent's task splits: records apart from their comments, the base list apart from the schema, the
// enterprise's audit and eDiscovery tools (compliance.ts) apart from its user administration.

import type { Toolset } from '../../runtime/tool.js';

export const STORE_TOOLSETS = {
  records: {
    description: 'Read, create, update and delete records; upload attachments',
    tools: [
      'ListStoreRecords',
      'StoreGetRecord',
      'CreateStoreRecords',
      'UpdateStoreRecords',
      'BulkUpdateStore',
      'UpdateStoreRecord',
      'ModifyStoreEntry',
      'DeleteStoreRecord',
      'DeleteMultipleRecords',
      'UploadAttachmentToStore',
    ],
  },
  comments: {
    description: 'Comments on records',
    tools: ['GetRecordComments', 'AddRecordComment', 'UpdateRecordComment', 'DeleteCommentFromRecord'],
  },
  bases: {
    description: 'List, create and delete bases; who the token belongs to',
    // RetrieveUserIdAndScopes ("who am I") is the account's entry point, as the base list is the data's.
    tools: ['ListStoreBases', 'CreateStoreBase', 'DeleteStoreBase', 'RetrieveUserIdAndScopes'],
  },
  schema: {
    description: "A base's tables, fields and views: read them, create and change tables and fields",
    tools: [
      'GetStoreBaseSchema',
      'CreateStoreTable',
      'UpdateStoreTable',
      'CreateStoreField',
      'UpdateStoreFieldDetails',
      'ListStoreBaseViews',
      'GetStoreViewMetadata',
      'DeleteStoreView',
    ],
  },
  webhooks: {
    description: 'Webhooks on a base and their change payloads',
    tools: [
      'ListWebhooksForBase',
      'CreateStoreWebhook',
      'DeleteStoreWebhook',
      'ToggleWebhookNotifications',
      'ListWebhookPayloads',
      'RefreshWebhookLifespan',
    ],
  },
  sharing: {
    description: 'Base and interface collaborators, invites, shares and extensions',
    tools: [
      'GetBaseCollaborators',
      'AddBaseCollaborator',
      'UpdateCollaboratorPermission',
      'RemoveBaseCollaborator',
      'DeleteBaseInvite',
      'GetInterfaceInfo',
      'AddCollaboratorToStoreInterface',
      'UpdateCollaboratorPermissions',
      'RemoveInterfaceCollaborator',
      'DeleteInterfaceInvite',
      'ListBaseShares',
      'ManageStoreSharing',
      'DeleteStoreShare',
      'ListBaseBlockInstallations',
      'ManageStoreBlockInstallation',
      'DeleteStoreBlockInstallation',
    ],
  },
  workspaces: {
    description: 'Workspaces, their collaborators and invites, moving bases, restrictions',
    tools: [
      'CreateStoreWorkspace',
      'DeleteWorkspace',
      'GetWorkspaceCollaborators',
      'AddWorkspaceCollaborator',
      'UpdateWorkspaceCollaboratorPermission',
      'RemoveWorkspaceCollaborator',
      'DeleteWorkspaceInvite',
      'MoveStoreBase',
      'UpdateWorkspaceRestrictions',
    ],
  },
  enterprise: {
    description: 'Enterprise accounts, their users, admins and user groups (enterprise admin)',
    tools: [
      'GetEnterpriseInfo',
      'CreateDescendantEnterpriseAccount',
      'BatchMoveUserGroupsBetweenAccounts',
      'MoveWorkspacesBetweenEnterpriseAccounts',
      'GetStoreUserInfo',
      'GetUserInformation',
      'BatchManageEnterpriseUsers',
      'ManageEnterpriseAccountUser',
      'BatchManageUserMembership',
      'GrantAdminAccess',
      'RevokeAdminAccess',
      'LogoutEnterpriseUser',
      'RemoveUserFromEnterprise',
      'DeleteEnterpriseUser',
      'DeleteUsersByEmail',
      'GetUserGroupInfo',
    ],
  },
  audit: {
    description: 'Audit log events and exports, change events, eDiscovery exports (enterprise admin)',
    tools: [
      'GetAuditLogEvents',
      'RetrieveAuditLogRequests',
      'CreateAuditLogRequest',
      'RetrieveAuditLog',
      'GetStoreChangeEvents',
      'GetEdiscoveryExportsStatus',
      'CreateEdiscoveryExport',
      'GetEdiscoveryExportStatus',
    ],
  },
  scim: {
    description: 'SCIM provisioning of users and groups (enterprise admin)',
    tools: [
      'ListScimUsers',
      'GetScimUser',
      'CreateScimUser',
      'UpdateScimUserRecord',
      'UpdateUserAttributes',
      'DeleteScimUser',
      'ListScimGroups',
      'FetchScimGroup',
      'CreateScimGroup',
      'UpdateGroupDetails',
      'UpdateGroupAttributes',
      'DeleteScimGroup',
    ],
  },
  bulk: {
    description: 'Bulk data tables keyed by primary key: upsert, read, delete rows (enterprise admin)',
    tools: ['UpsertStoreRecords', 'ReadBulkTableRecords', 'DeleteRecordsByPrimaryKeys'],
  },
} as const satisfies Record<string, Toolset>;
