// The request bodies of the store upstream (the Airtable Web API) that schema-mode tools publish, as zod
// schemas. One contract with two users: the tools publish them in schema mode (as JSON Schema) and validate
// `request_body` with them before anything is sent; the emulator validates incoming requests with the same
// schemas. Written from the upstream's documented bodies, field model and limits (reference/upstream-apis.md,
// section C).

import { uploadAttachmentBody } from './attachments.js';
import { deleteBulkRecordsBody, readBulkRecordsBody, upsertBulkRecordsBody } from './bulkTables.js';
import { createCommentBody, updateCommentBody } from './comments.js';
import { createAuditLogRequestBody, createEdiscoveryExportBody } from './compliance.js';
import {
  createDescendantAccountBody,
  grantAdminAccessBody,
  manageEnterpriseUserBody,
  manageEnterpriseUsersBody,
  manageUserMembershipBody,
  moveUserGroupsBody,
  moveWorkspacesBody,
  removeUserFromEnterpriseBody,
  revokeAdminAccessBody,
} from './enterprise.js';
import {
  createRecordsBody,
  replaceRecordBody,
  replaceRecordsBody,
  updateRecordBody,
  updateRecordsBody,
} from './records.js';
import { createBaseBody, createFieldBody, createTableBody, updateTableBody } from './schema.js';
import {
  createScimGroupBody,
  createScimUserBody,
  patchScimGroupBody,
  patchScimUserBody,
  replaceScimGroupBody,
  replaceScimUserBody,
} from './scim.js';
import {
  addBaseCollaboratorsBody,
  addInterfaceCollaboratorBody,
  manageBlockInstallationBody,
  manageShareBody,
  updateBaseCollaboratorBody,
  updateInterfaceCollaboratorBody,
} from './sharing.js';
import { createWebhookBody, toggleWebhookNotificationsBody } from './webhooks.js';
import {
  addWorkspaceCollaboratorsBody,
  createWorkspaceBody,
  moveBaseBody,
  updateWorkspaceCollaboratorBody,
  updateWorkspaceRestrictionsBody,
} from './workspaces.js';

export {
  ATTACHMENT_MAX_BASE64_CHARS,
  ATTACHMENT_MAX_BYTES,
  base64Problem,
  decodedBase64Size,
} from './attachments.js';
export { BULK_RECORDS_PER_REQUEST } from './bulkTables.js';
export { EXPORT_STATES } from './compliance.js';
export { MEMBERSHIP_STATES, USER_STATES } from './enterprise.js';
export { MERGE_FIELDS_MAX, RECORDS_PER_REQUEST } from './records.js';
export {
  CHOICE_COLORS,
  FIELD_DESCRIPTION_MAX,
  FIELD_OPTIONS,
  ICON_COLORS,
  NON_CREATABLE_FIELD_TYPES,
  PRIMARY_FIELD_TYPES,
  WRITABLE_FIELD_TYPES,
  type WritableFieldType,
} from './schema.js';
export {
  SCIM_ENTERPRISE_USER_URI,
  SCIM_GROUP_URI,
  SCIM_PATCH_OP_URI,
  SCIM_PATCH_OPS,
  SCIM_USER_URI,
} from './scim.js';
export {
  INTERFACE_PERMISSION_LEVELS,
  PERMISSION_LEVELS,
  TOGGLE_STATES,
} from './sharing.js';
export { WEBHOOK_CHANGE_TYPES, WEBHOOK_DATA_TYPES, WEBHOOK_SOURCES } from './webhooks.js';
export { RESTRICTIONS, WORKSPACE_PERMISSION_LEVELS } from './workspaces.js';

/** Every published body, by the name the tools and the emulator use. */
export const STORE_BODIES = {
  createRecords: createRecordsBody,
  updateRecords: updateRecordsBody,
  replaceRecords: replaceRecordsBody,
  updateRecord: updateRecordBody,
  replaceRecord: replaceRecordBody,
  createComment: createCommentBody,
  updateComment: updateCommentBody,
  uploadAttachment: uploadAttachmentBody,
  createBase: createBaseBody,
  createTable: createTableBody,
  updateTable: updateTableBody,
  createField: createFieldBody,
  createWebhook: createWebhookBody,
  toggleWebhookNotifications: toggleWebhookNotificationsBody,
  // SCIM
  createScimGroup: createScimGroupBody,
  patchScimGroup: patchScimGroupBody,
  replaceScimGroup: replaceScimGroupBody,
  createScimUser: createScimUserBody,
  patchScimUser: patchScimUserBody,
  replaceScimUser: replaceScimUserBody,
  // bases, interfaces, shares
  manageBlockInstallation: manageBlockInstallationBody,
  addBaseCollaborators: addBaseCollaboratorsBody,
  updateBaseCollaborator: updateBaseCollaboratorBody,
  addInterfaceCollaborator: addInterfaceCollaboratorBody,
  updateInterfaceCollaborator: updateInterfaceCollaboratorBody,
  manageShare: manageShareBody,
  // enterprise administration
  createAuditLogRequest: createAuditLogRequestBody,
  createDescendantAccount: createDescendantAccountBody,
  createEdiscoveryExport: createEdiscoveryExportBody,
  moveUserGroups: moveUserGroupsBody,
  moveWorkspaces: moveWorkspacesBody,
  manageEnterpriseUsers: manageEnterpriseUsersBody,
  manageUserMembership: manageUserMembershipBody,
  grantAdminAccess: grantAdminAccessBody,
  revokeAdminAccess: revokeAdminAccessBody,
  removeUserFromEnterprise: removeUserFromEnterpriseBody,
  manageEnterpriseUser: manageEnterpriseUserBody,
  // workspaces
  createWorkspace: createWorkspaceBody,
  addWorkspaceCollaborators: addWorkspaceCollaboratorsBody,
  updateWorkspaceCollaborator: updateWorkspaceCollaboratorBody,
  moveBase: moveBaseBody,
  updateWorkspaceRestrictions: updateWorkspaceRestrictionsBody,
  // bulk data tables
  upsertBulkRecords: upsertBulkRecordsBody,
  deleteBulkRecords: deleteBulkRecordsBody,
  readBulkRecords: readBulkRecordsBody,
} as const;

export type StoreBodyName = keyof typeof STORE_BODIES;
