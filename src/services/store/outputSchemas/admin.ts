// Output schemas of the StoreApi's administration toolsets (workspaces, enterprise, audit, scim, bulk): the
// success `structuredContent` of each tool as the upstream documents it (reference/upstream-apis.md C.5, C.7,
// C.8 and the store samples; what may be left out, as pyairtable's models read those answers), not as the
// emulator happens to answer. Objects stay open (the upstream adds fields); `required` lists only what every
// answer carries. The official API reference pages (airtable.com/developers/web/api/<page>) settled what the
// reference notes leave open: which calls answer with no body, and the task and export objects. Where the
// upstream's answer is undocumented (the bulk data tables' upsert; the SCIM PATCH calls, which may answer 204),
// fields are typed but not required, so a shorter real answer still validates.

import { z } from 'zod';
import { lazyTable } from '../../../runtime/outputSchemas.js';

/** Built on its first use (runtime/outputSchemas.ts lazyTable): the built program starts without it. */
export const STORE_ADMIN_OUTPUT_SCHEMAS = lazyTable(() => {
  const str = z.string();
  const strings = z.array(z.string());

  /**
   * An empty upstream answer: the executor turns it into `{success: true, status}` (runtime/endpoint.ts), so the
   * deletes, grants and moves whose upstream replies with no body all arrive in this form.
   */
  const EMPTY = z.looseObject({ success: z.literal(true), status: z.int() });

  /** A per-item refusal in the batch answers (claim, admin access, batch updates, deletes by email). */
  const ITEM_ERROR = z.looseObject({
    id: str.optional(),
    email: str.optional(),
    type: str,
    message: str.optional(),
  });
  /** The claim, admin access and batch update answers: `errors` may be left out when there are none. */
  const ITEM_ERRORS = z.looseObject({ errors: z.array(ITEM_ERROR).optional() });

  // --- workspaces ------------------------------------------------------------------------------------------------

  /** When and by whom a collaborator was granted a level: every collaborator and collaboration row has it. */
  const GRANT = {
    permissionLevel: str,
    createdTime: str,
    grantedByUserId: str,
  };
  const USER_COLLABORATOR = z.looseObject({ userId: str, email: str, ...GRANT });
  const GROUP_COLLABORATOR = z.looseObject({ groupId: str, name: str, ...GRANT });
  const BASE_USER_COLLABORATOR = USER_COLLABORATOR.extend({ baseId: str });
  const BASE_GROUP_COLLABORATOR = GROUP_COLLABORATOR.extend({ baseId: str });
  // The lists inside are left out when empty (pyairtable defaults each to []).
  const INDIVIDUAL_COLLABORATORS = z.looseObject({
    baseCollaborators: z.array(BASE_USER_COLLABORATOR).optional(),
    workspaceCollaborators: z.array(USER_COLLABORATOR).optional(),
  });
  const INVITE_LINK = z.looseObject({
    id: str,
    type: str,
    invitedEmail: str.nullable().optional(),
    permissionLevel: str,
    referredByUserId: str,
    restrictedToEmailDomains: strings.optional(),
    createdTime: str,
  });

  const WORKSPACE = z.looseObject({
    id: str,
    name: str,
    createdTime: str,
    baseIds: strings,
    workspaceRestrictions: z.looseObject({ inviteCreationRestriction: str, shareCreationRestriction: str }),
    // With include=collaborators (`collaborators` is the older name the upstream's sample still carries).
    individualCollaborators: INDIVIDUAL_COLLABORATORS.optional(),
    collaborators: INDIVIDUAL_COLLABORATORS.optional(),
    groupCollaborators: z
      .looseObject({
        baseCollaborators: z.array(BASE_GROUP_COLLABORATOR).optional(),
        workspaceCollaborators: z.array(GROUP_COLLABORATOR).optional(),
      })
      .optional(),
    // With include=inviteLinks.
    inviteLinks: z
      .looseObject({
        baseInviteLinks: z.array(INVITE_LINK.extend({ baseId: str })).optional(),
        workspaceInviteLinks: z.array(INVITE_LINK).optional(),
      })
      .optional(),
  });

  // --- enterprise ------------------------------------------------------------------------------------------------

  /** An account's own lists; `aggregated` and each of `descendants` repeat them. */
  const ACCOUNT_LISTS = {
    groupIds: strings,
    userIds: strings,
    workspaceIds: strings,
    emailDomains: z.array(z.looseObject({ emailDomain: str, isSsoRequired: z.boolean() })),
  };
  /** `aggregated` and each of `descendants`: the lists, each left out when empty. */
  const ACCOUNT_SUMMARY = z.looseObject(ACCOUNT_LISTS).partial();
  const ENTERPRISE = z.looseObject({
    id: str,
    createdTime: str,
    rootEnterpriseAccountId: str,
    descendantEnterpriseAccountIds: strings.optional(),
    ...ACCOUNT_LISTS,
    aggregated: ACCOUNT_SUMMARY.optional(),
    descendants: z.record(z.string(), ACCOUNT_SUMMARY).optional(),
  });

  /** A user's or group's grants; each list is left out when empty. */
  const COLLABORATIONS = z.looseObject({
    baseCollaborations: z.array(z.looseObject({ baseId: str, ...GRANT })).optional(),
    interfaceCollaborations: z.array(z.looseObject({ baseId: str, interfaceId: str, ...GRANT })).optional(),
    workspaceCollaborations: z.array(z.looseObject({ workspaceId: str, ...GRANT })).optional(),
  });
  const GROUP_REFS = z.array(z.looseObject({ id: str }));
  /** What `aggregated` and each of `descendants` say about a user in those accounts. */
  const USER_IN_ACCOUNTS = z.looseObject({
    groups: GROUP_REFS.optional(),
    isAdmin: z.boolean().optional(),
    isManaged: z.boolean().optional(),
    lastActivityTime: str.nullable().optional(),
    collaborations: COLLABORATIONS.optional(),
  });
  const USER_INFO = z.looseObject({
    id: str,
    email: str,
    name: str,
    state: str,
    isServiceAccount: z.boolean(),
    isSsoRequired: z.boolean(),
    isTwoFactorAuthEnabled: z.boolean(),
    isAdmin: z.boolean().optional(),
    isManaged: z.boolean().optional(),
    lastActivityTime: str.nullable().optional(),
    createdTime: str.optional(),
    invitedToAirtableByUserId: str.nullable().optional(),
    groups: GROUP_REFS.optional(),
    collaborations: COLLABORATIONS.optional(),
    aggregated: USER_IN_ACCOUNTS.optional(),
    descendants: z.record(z.string(), USER_IN_ACCOUNTS).optional(),
  });

  const USER_GROUP = z.looseObject({
    id: str,
    name: str.optional(),
    enterpriseAccountId: str,
    createdTime: str,
    updatedTime: str.optional(),
    mappedUserLicenseType: str.nullable().optional(),
    members: z.array(
      z.looseObject({
        userId: str,
        email: str,
        firstName: str,
        lastName: str,
        role: str,
        createdTime: str,
      }),
    ),
    collaborations: COLLABORATIONS.optional(),
  });

  const USER_REMOVED = z.looseObject({
    wasUserRemovedAsAdmin: z.boolean(),
    shared: z.looseObject({
      workspaces: z.array(
        z.looseObject({ userId: str.optional(), workspaceId: str, workspaceName: str, permissionLevel: str }),
      ),
    }),
    unshared: z.looseObject({
      bases: z.array(z.looseObject({ userId: str, baseId: str, baseName: str, formerPermissionLevel: str })),
      interfaces: z.array(
        z.looseObject({
          userId: str,
          baseId: str,
          interfaceId: str,
          interfaceName: str,
          formerPermissionLevel: str,
        }),
      ),
      workspaces: z.array(
        z.looseObject({ userId: str, workspaceId: str, workspaceName: str, formerPermissionLevel: str }),
      ),
    }),
  });

  const MOVED = z.array(z.looseObject({ id: str }));

  // --- audit -----------------------------------------------------------------------------------------------------

  /** Who did it: a user, or another kind of actor (anonymous, an automation, a view) with its own fields. */
  const ACTOR = z.looseObject({
    type: str,
    user: z.looseObject({ id: str, email: str, name: str.optional() }).optional(),
  });

  const AUDIT_EVENT = z.looseObject({
    id: str,
    timestamp: str,
    action: str,
    actor: ACTOR,
    modelId: str,
    modelType: str,
    payload: z.record(z.string(), z.unknown()),
    payloadVersion: str,
    context: z.looseObject({ actionId: str, enterpriseAccountId: str }),
    origin: z.looseObject({ ipAddress: str, userAgent: str }),
  });

  /**
   * A (legacy) audit log request, as its create, get and list answers all carry it: pending, processing, done
   * (with the files' links) or error (with a message).
   */
  const AUDIT_LOG_REQUEST = z.looseObject({
    id: str,
    state: str,
    createdTime: str,
    createdByUserId: str,
    timePeriod: str,
    filter: str.optional(),
    data: z.looseObject({ logFileUrls: strings, expirationTime: str }).optional(),
    errorMessage: str.optional(),
  });

  const CHANGE_EVENT = z.looseObject({
    id: str,
    type: str,
    actor: ACTOR,
    eventTimestamp: str,
    objectId: str,
    objectType: str,
    timestamp: str,
  });

  /** An eDiscovery export, as its create, get and list answers all carry it; `error` is a message. */
  const EDISCOVERY_EXPORT = z.looseObject({
    id: str,
    state: str,
    createdTime: str,
    user: z.looseObject({ id: str, email: str, name: str }),
    request: z.looseObject({
      baseId: str,
      includeCsvFormat: z.boolean(),
      shouldSendEmailOnCompletion: z.boolean(),
    }),
    data: z
      .looseObject({
        expirationTime: str,
        jsonDownloadUrl: str,
        csvZipDownloadUrl: str.optional(),
      })
      .optional(),
    error: str.optional(),
  });

  // --- scim ------------------------------------------------------------------------------------------------------

  const SCIM_META = z.looseObject({
    resourceType: str,
    created: str.optional(),
    lastModified: str.optional(),
    location: str.optional(),
  });
  const SCIM_USER = z.looseObject({
    schemas: strings,
    id: str,
    externalId: str.optional(),
    userName: str,
    name: z.looseObject({ givenName: str.optional(), familyName: str.optional() }).optional(),
    active: z.boolean().optional(),
    emails: z.array(z.looseObject({ value: str })).optional(),
    groups: z.array(z.looseObject({ value: str, display: str.optional() })).optional(),
    meta: SCIM_META.optional(),
  });
  const SCIM_GROUP = z.looseObject({
    schemas: strings,
    id: str,
    externalId: str.optional(),
    displayName: str,
    members: z.array(z.looseObject({ value: str, display: str.optional() })).optional(),
    meta: SCIM_META.optional(),
  });
  /** RFC 7644's ListResponse: Resources may be left out when nothing matched. */
  const scimList = (resource: z.ZodObject) =>
    z.looseObject({
      schemas: strings,
      totalResults: z.int(),
      startIndex: z.int().optional(),
      itemsPerPage: z.int().optional(),
      Resources: z.array(resource).optional(),
    });

  // --- bulk data tables ------------------------------------------------------------------------------------------

  const BULK_ROW = z.looseObject({
    primaryKey: str,
    fields: z.record(z.string(), z.unknown()),
    createdTime: str.optional(),
    updatedTime: str.optional(),
  });

  // --- the table -------------------------------------------------------------------------------------------------

  return {
    // workspaces
    CreateStoreWorkspace: z.looseObject({ id: str }),
    DeleteWorkspace: EMPTY,
    GetWorkspaceCollaborators: WORKSPACE,
    AddWorkspaceCollaborator: EMPTY,
    UpdateWorkspaceCollaboratorPermission: EMPTY,
    RemoveWorkspaceCollaborator: EMPTY,
    DeleteWorkspaceInvite: EMPTY,
    MoveStoreBase: EMPTY,
    UpdateWorkspaceRestrictions: EMPTY,

    // enterprise
    GetEnterpriseInfo: ENTERPRISE,
    CreateDescendantEnterpriseAccount: z.looseObject({ id: str }),
    BatchMoveUserGroupsBetweenAccounts: z.looseObject({ movedGroups: MOVED, errors: z.array(ITEM_ERROR) }),
    MoveWorkspacesBetweenEnterpriseAccounts: z.looseObject({
      movedWorkspaces: MOVED,
      errors: z.array(ITEM_ERROR),
    }),
    GetStoreUserInfo: z.looseObject({ users: z.array(USER_INFO) }),
    GetUserInformation: USER_INFO,
    BatchManageEnterpriseUsers: ITEM_ERRORS,
    // The upstream answers a change of one user with no body.
    ManageEnterpriseAccountUser: EMPTY,
    BatchManageUserMembership: ITEM_ERRORS,
    GrantAdminAccess: ITEM_ERRORS,
    RevokeAdminAccess: ITEM_ERRORS,
    LogoutEnterpriseUser: EMPTY,
    RemoveUserFromEnterprise: USER_REMOVED,
    DeleteEnterpriseUser: EMPTY,
    DeleteUsersByEmail: z.looseObject({
      deletedUsers: z.array(z.looseObject({ id: str, email: str })),
      errors: z.array(ITEM_ERROR),
    }),
    GetUserGroupInfo: USER_GROUP,

    // audit
    GetAuditLogEvents: z.looseObject({
      events: z.array(AUDIT_EVENT),
      pagination: z.looseObject({ next: str.optional(), previous: str.optional() }).optional(),
    }),
    RetrieveAuditLogRequests: z.looseObject({
      auditLogs: z.array(AUDIT_LOG_REQUEST),
      offset: z.int().optional(),
    }),
    CreateAuditLogRequest: AUDIT_LOG_REQUEST,
    RetrieveAuditLog: AUDIT_LOG_REQUEST,
    GetStoreChangeEvents: z.looseObject({ events: z.array(CHANGE_EVENT), offset: str.optional() }),
    GetEdiscoveryExportsStatus: z.looseObject({
      exports: z.array(EDISCOVERY_EXPORT),
      offset: z.int().optional(),
    }),
    CreateEdiscoveryExport: EDISCOVERY_EXPORT,
    GetEdiscoveryExportStatus: EDISCOVERY_EXPORT,

    // scim
    ListScimUsers: scimList(SCIM_USER),
    GetScimUser: SCIM_USER,
    CreateScimUser: SCIM_USER,
    // PATCH may answer 204 (RFC 7644 §3.5.2), which arrives as the empty answer: nothing is certain.
    UpdateScimUserRecord: SCIM_USER.partial(),
    UpdateUserAttributes: SCIM_USER,
    DeleteScimUser: EMPTY,
    ListScimGroups: scimList(SCIM_GROUP),
    FetchScimGroup: SCIM_GROUP,
    CreateScimGroup: SCIM_GROUP,
    UpdateGroupDetails: SCIM_GROUP.partial(),
    UpdateGroupAttributes: SCIM_GROUP,
    DeleteScimGroup: EMPTY,

    // bulk (documented by third parties only: upstream-apis.md C.8)
    UpsertStoreRecords: z.looseObject({
      createdPrimaryKeys: strings.optional(),
      updatedPrimaryKeys: strings.optional(),
    }),
    ReadBulkTableRecords: z.looseObject({ records: z.array(BULK_ROW), nextCursor: str.optional() }),
    DeleteRecordsByPrimaryKeys: z.looseObject({ primaryKeysForDelete: strings }),
  } satisfies Record<string, z.ZodObject>;
});
