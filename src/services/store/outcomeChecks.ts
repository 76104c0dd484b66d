// How to tell whether a StoreApi call that is not safe to repeat took effect, when it failed after it was sent
// (a dropped connection, a 5xx, a timeout): the tool that reads back what it would have created or changed.
// The `outcome_unknown` error names it; a test holds every such tool to having an entry.

import type { OutcomeCheck } from '../../runtime/tool.js';

const collaborator = 'whether the user or group is already listed (as a collaborator or an invite)';

export const STORE_OUTCOME_CHECKS: Readonly<Record<string, OutcomeCheck>> = {
  CreateStoreRecords: {
    tool: 'ListStoreRecords',
    how: 'whether the records exist (filter_by_formula on a value you sent, e.g. {Name}="…")',
  },
  // Not safe to repeat only because performUpsert may create records.
  UpdateStoreRecords: {
    tool: 'ListStoreRecords',
    how: 'whether the records already hold the values you sent (with performUpsert: whether they were created)',
  },
  BulkUpdateStore: {
    tool: 'ListStoreRecords',
    how: 'whether the records already hold the values you sent (with performUpsert: whether they were created)',
  },
  UploadAttachmentToStore: {
    tool: 'StoreGetRecord',
    how: "whether the record's attachment field already holds a file of this filename",
  },
  AddRecordComment: { tool: 'GetRecordComments', how: 'whether the record already has this comment' },
  CreateStoreBase: { tool: 'ListStoreBases', how: 'for a base of this name' },
  CreateStoreTable: { tool: 'GetStoreBaseSchema', how: 'for a table of this name' },
  CreateStoreField: { tool: 'GetStoreBaseSchema', how: 'for a field of this name in the table' },
  CreateStoreWebhook: {
    tool: 'ListWebhooksForBase',
    how: 'for a webhook with this notification URL and specification',
  },
  CreateScimGroup: { tool: 'ListScimGroups', how: 'for a group of this displayName' },
  CreateScimUser: { tool: 'ListScimUsers', how: 'for a user of this userName' },
  AddBaseCollaborator: { tool: 'GetBaseCollaborators', how: collaborator },
  AddCollaboratorToStoreInterface: { tool: 'GetInterfaceInfo', how: collaborator },
  AddWorkspaceCollaborator: { tool: 'GetWorkspaceCollaborators', how: collaborator },
  CreateAuditLogRequest: {
    tool: 'RetrieveAuditLogRequests',
    how: 'for a request for this period created just now',
  },
  CreateEdiscoveryExport: {
    tool: 'GetEdiscoveryExportsStatus',
    how: 'for an export of this workspace created just now',
  },
  CreateDescendantEnterpriseAccount: {
    tool: 'GetEnterpriseInfo',
    how: 'whether a new id appeared in descendantEnterpriseAccountIds',
  },
  CreateStoreWorkspace: {
    tool: 'GetEnterpriseInfo',
    how: 'whether a new id appeared in workspaceIds',
  },
};
