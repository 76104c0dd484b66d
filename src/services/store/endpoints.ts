// Every upstream operation of the data store's Web API that the StoreApi tools, the store's OAuth client
// (oauth.ts) or the emulator serve, once each. Tool rows, the scope table (scopes.ts) and the emulator's route
// registration all read this table, so an operation has one name across tool, client and emulator.
//
// Names: the upstream publishes no OpenAPI document, so each operation is named after the title of its page in
// the upstream's API reference (upstream-apis.md section C), as a verb-noun (`ListRecords`, `CreateScimGroup`);
// where one page documents two methods (PATCH merges, PUT replaces) the PUT form is `Replace…`.
// Scopes: upstream-mapping.md, per endpoint; the two it leaves blank (UploadAttachment, ListWebhookPayloads) are
// filled from the endpoint's family (an upload writes records; payloads are webhook management).
// Rate limits: the upstream publishes none per operation here. Its limit is 5 requests per second per base (and
// 50 per second per user's tokens), counted across every operation on that base, so it is not a row property:
// the client keeps it with a per-base limiter (client.ts). The one per-operation limit it documents (sync CSV,
// 20 per 5 minutes per base) is for an endpoint no tool calls.

import { defineOperations } from '../../runtime/operation.js';

const RECORD = '/v0/{baseId}/{tableIdOrName}/{recordId}';
const BASE_META = '/v0/meta/bases/{baseId}';
const INTERFACE = `${BASE_META}/interfaces/{pageBundleId}`;
const WEBHOOKS = '/v0/bases/{baseId}/webhooks';
const WORKSPACE = '/v0/meta/workspaces/{workspaceId}';
const ENT = '/v0/meta/enterpriseAccounts/{enterpriseAccountId}';
const DATA_TABLE = '/v0/{enterpriseAccountId}/{dataTableId}';

const RECORDS_READ = 'data.records:read';
const RECORDS_WRITE = 'data.records:write';
const COMMENTS_READ = 'data.recordComments:read';
const COMMENTS_WRITE = 'data.recordComments:write';
const SCHEMA_READ = 'schema.bases:read';
const SCHEMA_WRITE = 'schema.bases:write';
const WEBHOOK_MANAGE = 'webhook:manage';
const WB_READ = 'workspacesAndBases:read';
const WB_WRITE = 'workspacesAndBases:write';
const WB_MANAGE = 'workspacesAndBases:manage';
const SHARES_MANAGE = 'workspacesAndBases.shares:manage';
const SCIM = 'enterprise.scim.usersAndGroups:manage';
const USER_READ = 'enterprise.user:read';
const USER_WRITE = 'enterprise.user:write';
const AUDIT_LOGS_READ = 'enterprise.auditLogs:read';
const EXPORTS_MANAGE = 'enterprise.exports:manage';
const HYPERDB_READ = 'hyperDB.records:read';
const HYPERDB_WRITE = 'hyperDB.records:write';

export const STORE_OPERATIONS = defineOperations({
  // Records (api host; uploads on the content host).
  ListRecords: { method: 'GET', path: '/v0/{baseId}/{tableIdOrName}', scope: RECORDS_READ },
  /** ListRecords' POST twin for URLs over the upstream's 16,000-character limit. */
  ListRecordsByPost: {
    method: 'POST',
    path: '/v0/{baseId}/{tableIdOrName}/listRecords',
    scope: RECORDS_READ,
  },
  CreateRecords: { method: 'POST', path: '/v0/{baseId}/{tableIdOrName}', scope: RECORDS_WRITE },
  UpdateMultipleRecords: { method: 'PATCH', path: '/v0/{baseId}/{tableIdOrName}', scope: RECORDS_WRITE },
  ReplaceMultipleRecords: { method: 'PUT', path: '/v0/{baseId}/{tableIdOrName}', scope: RECORDS_WRITE },
  DeleteMultipleRecords: { method: 'DELETE', path: '/v0/{baseId}/{tableIdOrName}', scope: RECORDS_WRITE },
  GetRecord: { method: 'GET', path: RECORD, scope: RECORDS_READ },
  UpdateRecord: { method: 'PATCH', path: RECORD, scope: RECORDS_WRITE },
  ReplaceRecord: { method: 'PUT', path: RECORD, scope: RECORDS_WRITE },
  DeleteRecord: { method: 'DELETE', path: RECORD, scope: RECORDS_WRITE },
  /** Served on the content host (client.ts `forCall(call, 'content')`). */
  UploadAttachment: {
    method: 'POST',
    path: '/v0/{baseId}/{recordId}/{attachmentFieldIdOrName}/uploadAttachment',
    scope: RECORDS_WRITE,
  },

  // Comments.
  ListComments: { method: 'GET', path: `${RECORD}/comments`, scope: COMMENTS_READ },
  CreateComment: { method: 'POST', path: `${RECORD}/comments`, scope: COMMENTS_WRITE },
  UpdateComment: { method: 'PATCH', path: `${RECORD}/comments/{rowCommentId}`, scope: COMMENTS_WRITE },
  DeleteComment: { method: 'DELETE', path: `${RECORD}/comments/{rowCommentId}`, scope: COMMENTS_WRITE },

  // Schema: bases, tables, fields, views.
  ListBases: { method: 'GET', path: '/v0/meta/bases', scope: SCHEMA_READ },
  CreateBase: { method: 'POST', path: '/v0/meta/bases', scope: SCHEMA_WRITE },
  DeleteBase: { method: 'DELETE', path: BASE_META, scope: WB_MANAGE },
  GetBaseSchema: { method: 'GET', path: `${BASE_META}/tables`, scope: SCHEMA_READ },
  CreateTable: { method: 'POST', path: `${BASE_META}/tables`, scope: SCHEMA_WRITE },
  UpdateTable: { method: 'PATCH', path: `${BASE_META}/tables/{tableIdOrName}`, scope: SCHEMA_WRITE },
  CreateField: { method: 'POST', path: `${BASE_META}/tables/{tableId}/fields`, scope: SCHEMA_WRITE },
  UpdateField: {
    method: 'PATCH',
    path: `${BASE_META}/tables/{tableId}/fields/{columnId}`,
    scope: SCHEMA_WRITE,
  },
  ListViews: { method: 'GET', path: `${BASE_META}/views`, scope: WB_READ },
  GetViewMetadata: { method: 'GET', path: `${BASE_META}/views/{viewId}`, scope: WB_READ },
  DeleteView: { method: 'DELETE', path: `${BASE_META}/views/{viewId}`, scope: WB_WRITE },

  // Webhooks.
  ListWebhooks: { method: 'GET', path: WEBHOOKS, scope: WEBHOOK_MANAGE },
  CreateWebhook: { method: 'POST', path: WEBHOOKS, scope: WEBHOOK_MANAGE },
  DeleteWebhook: { method: 'DELETE', path: `${WEBHOOKS}/{webhookId}`, scope: WEBHOOK_MANAGE },
  EnableWebhookNotifications: {
    method: 'POST',
    path: `${WEBHOOKS}/{webhookId}/enableNotifications`,
    scope: WEBHOOK_MANAGE,
  },
  ListWebhookPayloads: { method: 'GET', path: `${WEBHOOKS}/{webhookId}/payloads`, scope: WEBHOOK_MANAGE },
  RefreshWebhook: { method: 'POST', path: `${WEBHOOKS}/{webhookId}/refresh`, scope: WEBHOOK_MANAGE },

  // Identity: needs no scope (the OAuth client also calls it to learn whose token it holds).
  GetUserIdAndScopes: { method: 'GET', path: '/v0/meta/whoami' },

  // SCIM (no /v0 prefix).
  ListScimGroups: { method: 'GET', path: '/scim/v2/Groups', scope: SCIM },
  CreateScimGroup: { method: 'POST', path: '/scim/v2/Groups', scope: SCIM },
  GetScimGroup: { method: 'GET', path: '/scim/v2/Groups/{groupId}', scope: SCIM },
  PatchScimGroup: { method: 'PATCH', path: '/scim/v2/Groups/{groupId}', scope: SCIM },
  PutScimGroup: { method: 'PUT', path: '/scim/v2/Groups/{groupId}', scope: SCIM },
  DeleteScimGroup: { method: 'DELETE', path: '/scim/v2/Groups/{groupId}', scope: SCIM },
  ListScimUsers: { method: 'GET', path: '/scim/v2/Users', scope: SCIM },
  CreateScimUser: { method: 'POST', path: '/scim/v2/Users', scope: SCIM },
  GetScimUser: { method: 'GET', path: '/scim/v2/Users/{userId}', scope: SCIM },
  PatchScimUser: { method: 'PATCH', path: '/scim/v2/Users/{userId}', scope: SCIM },
  PutScimUser: { method: 'PUT', path: '/scim/v2/Users/{userId}', scope: SCIM },
  DeleteScimUser: { method: 'DELETE', path: '/scim/v2/Users/{userId}', scope: SCIM },

  // Sharing: base collaborators and invites, extensions (block installations), interfaces, shares.
  GetBaseCollaborators: { method: 'GET', path: BASE_META, scope: WB_READ },
  ListBlockInstallations: { method: 'GET', path: `${BASE_META}/blockInstallations`, scope: WB_READ },
  DeleteBlockInstallation: {
    method: 'DELETE',
    path: `${BASE_META}/blockInstallations/{blockInstallationId}`,
    scope: WB_WRITE,
  },
  ManageBlockInstallation: {
    method: 'PATCH',
    path: `${BASE_META}/blockInstallations/{blockInstallationId}`,
    scope: WB_WRITE,
  },
  AddBaseCollaborator: { method: 'POST', path: `${BASE_META}/collaborators`, scope: WB_WRITE },
  DeleteBaseCollaborator: {
    method: 'DELETE',
    path: `${BASE_META}/collaborators/{userOrGroupId}`,
    scope: WB_WRITE,
  },
  UpdateBaseCollaborator: {
    method: 'PATCH',
    path: `${BASE_META}/collaborators/{userOrGroupId}`,
    scope: WB_WRITE,
  },
  GetInterface: { method: 'GET', path: INTERFACE, scope: WB_READ },
  AddInterfaceCollaborator: { method: 'POST', path: `${INTERFACE}/collaborators`, scope: WB_WRITE },
  DeleteInterfaceCollaborator: {
    method: 'DELETE',
    path: `${INTERFACE}/collaborators/{userOrGroupId}`,
    scope: WB_WRITE,
  },
  UpdateInterfaceCollaborator: {
    method: 'PATCH',
    path: `${INTERFACE}/collaborators/{userOrGroupId}`,
    scope: WB_WRITE,
  },
  DeleteInterfaceInvite: { method: 'DELETE', path: `${INTERFACE}/invites/{inviteId}`, scope: WB_WRITE },
  DeleteBaseInvite: { method: 'DELETE', path: `${BASE_META}/invites/{inviteId}`, scope: WB_WRITE },
  ListShares: { method: 'GET', path: `${BASE_META}/shares`, scope: SHARES_MANAGE },
  DeleteShare: { method: 'DELETE', path: `${BASE_META}/shares/{shareId}`, scope: SHARES_MANAGE },
  ManageShare: { method: 'PATCH', path: `${BASE_META}/shares/{shareId}`, scope: SHARES_MANAGE },

  // Enterprise: the account, descendants, moves between accounts, users, admin access, user groups.
  GetEnterprise: { method: 'GET', path: ENT, scope: 'enterprise.account:read' },
  CreateDescendantEnterprise: {
    method: 'POST',
    path: `${ENT}/descendants`,
    scope: 'enterprise.account:write',
  },
  MoveUserGroups: { method: 'POST', path: `${ENT}/moveGroups`, scope: 'enterprise.groups:manage' },
  MoveWorkspaces: { method: 'POST', path: `${ENT}/moveWorkspaces`, scope: WB_MANAGE },
  DeleteUsersByEmail: { method: 'DELETE', path: `${ENT}/users`, scope: USER_WRITE },
  GetUsersByIdOrEmail: { method: 'GET', path: `${ENT}/users`, scope: USER_READ },
  ManageUserBatched: { method: 'PATCH', path: `${ENT}/users`, scope: USER_WRITE },
  ManageUserMembership: { method: 'POST', path: `${ENT}/users/claim`, scope: USER_WRITE },
  GrantAdminAccess: { method: 'POST', path: `${ENT}/users/grantAdminAccess`, scope: USER_WRITE },
  RevokeAdminAccess: { method: 'POST', path: `${ENT}/users/revokeAdminAccess`, scope: USER_WRITE },
  DeleteUserById: { method: 'DELETE', path: `${ENT}/users/{userId}`, scope: USER_WRITE },
  GetUserById: { method: 'GET', path: `${ENT}/users/{userId}`, scope: USER_READ },
  ManageUser: { method: 'PATCH', path: `${ENT}/users/{userId}`, scope: USER_WRITE },
  LogoutUser: { method: 'POST', path: `${ENT}/users/{userId}/logout`, scope: USER_WRITE },
  RemoveUserFromEnterprise: { method: 'POST', path: `${ENT}/users/{userId}/remove`, scope: USER_WRITE },
  /** Not under the enterprise account's path. */
  GetUserGroup: { method: 'GET', path: '/v0/meta/groups/{groupId}', scope: 'enterprise.groups:read' },

  // Compliance: audit log events and requests, change events, eDiscovery exports.
  ListAuditLogEvents: { method: 'GET', path: `${ENT}/auditLogEvents`, scope: AUDIT_LOGS_READ },
  ListAuditLogRequests: { method: 'GET', path: `${ENT}/auditLogs`, scope: AUDIT_LOGS_READ },
  CreateAuditLogRequest: { method: 'POST', path: `${ENT}/auditLogs`, scope: AUDIT_LOGS_READ },
  GetAuditLogRequest: {
    method: 'GET',
    path: `${ENT}/auditLogs/{enterpriseAuditLogTaskId}`,
    scope: AUDIT_LOGS_READ,
  },
  ListChangeEvents: { method: 'GET', path: `${ENT}/changeEvents`, scope: 'enterprise.changeEvents:read' },
  ListEdiscoveryExports: { method: 'GET', path: `${ENT}/exports`, scope: EXPORTS_MANAGE },
  CreateEdiscoveryExport: { method: 'POST', path: `${ENT}/exports`, scope: EXPORTS_MANAGE },
  GetEdiscoveryExport: { method: 'GET', path: `${ENT}/exports/{enterpriseTaskId}`, scope: EXPORTS_MANAGE },

  // Workspaces.
  CreateWorkspace: { method: 'POST', path: '/v0/meta/workspaces', scope: WB_MANAGE },
  DeleteWorkspace: { method: 'DELETE', path: WORKSPACE, scope: WB_MANAGE },
  GetWorkspaceCollaborators: { method: 'GET', path: WORKSPACE, scope: WB_READ },
  AddWorkspaceCollaborator: { method: 'POST', path: `${WORKSPACE}/collaborators`, scope: WB_WRITE },
  DeleteWorkspaceCollaborator: {
    method: 'DELETE',
    path: `${WORKSPACE}/collaborators/{userOrGroupId}`,
    scope: WB_WRITE,
  },
  UpdateWorkspaceCollaborator: {
    method: 'PATCH',
    path: `${WORKSPACE}/collaborators/{userOrGroupId}`,
    scope: WB_WRITE,
  },
  DeleteWorkspaceInvite: { method: 'DELETE', path: `${WORKSPACE}/invites/{inviteId}`, scope: WB_WRITE },
  MoveBase: { method: 'POST', path: `${WORKSPACE}/moveBase`, scope: WB_MANAGE },
  UpdateWorkspaceRestrictions: {
    method: 'POST',
    path: `${WORKSPACE}/updateRestrictions`,
    scope: WB_WRITE,
  },

  // Bulk data tables (HyperDB): enterprise tables keyed by primary key.
  DeleteDataTableRecords: { method: 'POST', path: `${DATA_TABLE}/deleteRecords`, scope: HYPERDB_WRITE },
  GetDataTableRecords: { method: 'POST', path: `${DATA_TABLE}/getRecords`, scope: HYPERDB_READ },
  UpsertDataTableRecords: { method: 'PUT', path: `${DATA_TABLE}/upsertRecords`, scope: HYPERDB_WRITE },

  // OAuth 2.0 (on the OAuth host; oauth.ts). The authorize page is opened in a browser; the token endpoint
  // exchanges a code or a refresh token. Neither takes a scope.
  Authorize: { method: 'GET', path: '/oauth2/v1/authorize' },
  RequestToken: { method: 'POST', path: '/oauth2/v1/token' },
});

export type StoreOperationName = keyof typeof STORE_OPERATIONS;
