// Output schemas of the StoreApi's data toolsets (records, comments, bases, schema, webhooks, sharing): each tool's
// success structuredContent as a client receives it. They follow the upstream's documented responses (Airtable's
// API reference and its sample bodies in ../shared/reference), not the emulator's: where the two differ, the
// end-to-end test (test/e2e/output-schemas-store-data.test.ts) names the difference. Objects stay open (upstreams
// add fields); `required` holds only what the upstream always sends. An upstream answer with an empty body reaches
// the client as `{success: true, status}` (runtime/endpoint.ts), so those tools share EMPTY_RESULT.

import { z } from 'zod';
import { lazyTable } from '../../../runtime/outputSchemas.js';

/** Built on its first use (runtime/outputSchemas.ts lazyTable): the built program starts without it. */
export const STORE_DATA_OUTPUT_SCHEMAS = lazyTable(() => {
  const id = z.string();
  const time = z.string();
  const strings = z.array(z.string());

  /** What a tool answers for the upstream's empty body. */
  const EMPTY_RESULT = z.looseObject({ success: z.literal(true), status: z.int() });
  /** `{id, deleted: true}`: a record, comment, base or view deleted. */
  const DELETED = z.looseObject({ id, deleted: z.literal(true) });

  // --- records and comments ---------------------------------------------------------------------------------

  /** A record; `fields` leaves out empty cells, keyed by field name or id. */
  const STORE_RECORD = z.looseObject({
    id,
    createdTime: time,
    fields: z.record(z.string(), z.unknown()),
    commentCount: z.number().optional(),
  });
  const RECORDS = z.array(STORE_RECORD);
  /** A batch update (PATCH or PUT); an upsert adds the ids it created and updated. */
  const BATCH_UPDATED = z.looseObject({
    records: RECORDS,
    createdRecords: strings.optional(),
    updatedRecords: strings.optional(),
  });

  const COMMENT = z.looseObject({
    id,
    author: z.looseObject({ id, email: z.string(), name: z.string().optional() }),
    text: z.string(),
    createdTime: time,
    lastUpdatedTime: time.nullable(),
    parentCommentId: id.optional(),
    mentioned: z.record(z.string(), z.looseObject({})).optional(),
    reactions: z.array(z.looseObject({})).optional(),
  });

  // --- bases, tables, fields, views ---------------------------------------------------------------------------

  const FIELD = z.looseObject({
    id,
    name: z.string(),
    type: z.string(),
    description: z.string().optional(),
    options: z.looseObject({}).optional(),
  });
  const VIEW = z.looseObject({
    id,
    name: z.string(),
    type: z.string(),
    personalForUserId: id.optional(),
    visibleFieldIds: strings.optional(),
  });
  const TABLE = z.looseObject({
    id,
    name: z.string(),
    description: z.string().optional(),
    primaryFieldId: id,
    fields: z.array(FIELD),
    views: z.array(VIEW),
  });

  // --- webhooks -----------------------------------------------------------------------------------------------

  const WEBHOOK = z.looseObject({
    id,
    areNotificationsEnabled: z.boolean(),
    cursorForNextPayload: z.number(),
    isHookEnabled: z.boolean(),
    lastSuccessfulNotificationTime: time.nullable(),
    notificationUrl: z.string().nullable(),
    expirationTime: time.optional(),
    lastNotificationResult: z
      .looseObject({
        success: z.boolean(),
        completionTimestamp: time,
        durationMs: z.number(),
        retryNumber: z.number(),
      })
      .nullable(),
    specification: z.looseObject({ options: z.looseObject({}) }),
  });
  /** One change payload; an error payload (`error: true, code`) carries no changes. */
  const WEBHOOK_PAYLOAD = z.looseObject({
    timestamp: time,
    baseTransactionNumber: z.number(),
    payloadFormat: z.string().optional(),
    actionMetadata: z.looseObject({ source: z.string() }).optional(),
    changedTablesById: z.record(z.string(), z.looseObject({})).optional(),
    createdTablesById: z.record(z.string(), z.looseObject({})).optional(),
    destroyedTableIds: strings.optional(),
  });

  // --- collaborators, invites, shares, extensions -------------------------------------------------------------

  // Who and at what level: what a caller acts on. Their other fields (createdTime, grantedByUserId, an invite's
  // referredByUserId and domains) stay unlisted, as GetBaseCollaborators repeats these shapes nine times.
  const INDIVIDUAL_COLLABORATOR = z.looseObject({
    userId: id,
    email: z.string(),
    permissionLevel: z.string(),
  });
  const GROUP_COLLABORATOR = z.looseObject({
    groupId: id,
    name: z.string(),
    permissionLevel: z.string(),
  });
  const INVITE_LINK = z.looseObject({
    id,
    type: z.string(),
    invitedEmail: z.string().nullable(),
    permissionLevel: z.string(),
  });
  const individuals = z.array(INDIVIDUAL_COLLABORATOR);
  const groups = z.array(GROUP_COLLABORATOR);
  /** Within a base's `interfaces`: the interface's own collaborators, as lists. */
  const BASE_INTERFACE = z.looseObject({
    id,
    name: z.string(),
    createdTime: time,
    firstPublishTime: time.nullable(),
    groupCollaborators: groups.optional(),
    individualCollaborators: individuals.optional(),
    inviteLinks: z.array(INVITE_LINK).optional(),
  });
  const SHARE = z.looseObject({
    shareId: id,
    shareTokenPrefix: z.string(),
    state: z.string(),
    type: z.string(),
    viewId: id.optional(),
    blockInstallationId: id.optional(),
    createdByUserId: id,
    createdTime: time,
    isPasswordProtected: z.boolean(),
    restrictedToEmailDomains: strings,
    restrictedToEnterpriseMembers: z.boolean(),
    effectiveEmailDomainAllowList: strings.optional(),
  });
  const BLOCK_INSTALLATION = z.looseObject({
    id,
    state: z.string(),
    blockId: id,
    blockSlug: z.string().optional(),
    createdByUserId: id,
    createdTime: time,
  });

  return {
    // records
    ListStoreRecords: z.looseObject({ records: RECORDS, offset: z.string().optional() }),
    StoreGetRecord: STORE_RECORD,
    // The body's `records` creates a list and answers `{records}`; its `fields` creates one record and answers it.
    CreateStoreRecords: z.looseObject({
      records: RECORDS.optional(),
      id: id.optional(),
      createdTime: time.optional(),
      fields: z.record(z.string(), z.unknown()).optional(),
    }),
    UpdateStoreRecords: BATCH_UPDATED,
    BulkUpdateStore: BATCH_UPDATED,
    UpdateStoreRecord: STORE_RECORD,
    ModifyStoreEntry: STORE_RECORD,
    DeleteStoreRecord: DELETED,
    DeleteMultipleRecords: z.looseObject({ records: z.array(DELETED) }),
    // The record with its attachment cells keyed by field id.
    UploadAttachmentToStore: STORE_RECORD,
    // comments
    GetRecordComments: z.looseObject({
      comments: z.array(COMMENT),
      offset: z.string().nullable().optional(),
    }),
    AddRecordComment: COMMENT,
    UpdateRecordComment: COMMENT,
    DeleteCommentFromRecord: DELETED,
    // bases
    ListStoreBases: z.looseObject({
      bases: z.array(z.looseObject({ id, name: z.string(), permissionLevel: z.string() })),
      offset: z.string().optional(),
    }),
    CreateStoreBase: z.looseObject({ id, tables: z.array(TABLE) }),
    DeleteStoreBase: DELETED,
    // `email` only with the user.email:read scope, `scopes` only for OAuth tokens.
    RetrieveUserIdAndScopes: z.looseObject({ id, email: z.string().optional(), scopes: strings.optional() }),
    // schema
    GetStoreBaseSchema: z.looseObject({ tables: z.array(TABLE) }),
    CreateStoreTable: TABLE,
    UpdateStoreTable: TABLE,
    CreateStoreField: FIELD,
    UpdateStoreFieldDetails: FIELD,
    ListStoreBaseViews: z.looseObject({ views: z.array(VIEW) }),
    GetStoreViewMetadata: VIEW,
    DeleteStoreView: DELETED,
    // webhooks
    ListWebhooksForBase: z.looseObject({ webhooks: z.array(WEBHOOK) }),
    // The MAC secret is shown here only.
    CreateStoreWebhook: z.looseObject({
      id,
      macSecretBase64: z.string(),
      expirationTime: time.nullable().optional(),
    }),
    DeleteStoreWebhook: EMPTY_RESULT,
    ToggleWebhookNotifications: EMPTY_RESULT,
    ListWebhookPayloads: z.looseObject({
      cursor: z.number(),
      mightHaveMore: z.boolean(),
      payloads: z.array(WEBHOOK_PAYLOAD),
    }),
    RefreshWebhookLifespan: z.looseObject({ expirationTime: time.nullable() }),
    // sharing
    GetBaseCollaborators: z.looseObject({
      id,
      name: z.string(),
      createdTime: time,
      permissionLevel: z.string(),
      workspaceId: id,
      // Each of these only when asked for with `fields_to_include`.
      individualCollaborators: z
        .looseObject({ baseCollaborators: individuals, workspaceCollaborators: individuals })
        .optional(),
      groupCollaborators: z
        .looseObject({ baseCollaborators: groups, workspaceCollaborators: groups })
        .optional(),
      inviteLinks: z
        .looseObject({ baseInviteLinks: z.array(INVITE_LINK), workspaceInviteLinks: z.array(INVITE_LINK) })
        .optional(),
      interfaces: z.record(z.string(), BASE_INTERFACE).optional(),
    }),
    AddBaseCollaborator: EMPTY_RESULT,
    UpdateCollaboratorPermission: EMPTY_RESULT,
    RemoveBaseCollaborator: EMPTY_RESULT,
    DeleteBaseInvite: EMPTY_RESULT,
    GetInterfaceInfo: z.looseObject({
      id,
      baseId: id,
      name: z.string(),
      createdTime: time,
      permissionLevel: z.string(),
      // Unlike a base's `interfaces` entries, grouped by where the access comes from.
      groupCollaborators: z
        .looseObject({
          baseCollaborators: groups,
          interfaceCollaborators: groups,
          workspaceCollaborators: groups,
        })
        .optional(),
      individualCollaborators: z
        .looseObject({
          baseCollaborators: individuals,
          interfaceCollaborators: individuals,
          workspaceCollaborators: individuals,
        })
        .optional(),
      inviteLinks: z.array(INVITE_LINK).optional(),
    }),
    AddCollaboratorToStoreInterface: EMPTY_RESULT,
    UpdateCollaboratorPermissions: EMPTY_RESULT,
    RemoveInterfaceCollaborator: EMPTY_RESULT,
    DeleteInterfaceInvite: EMPTY_RESULT,
    ListBaseShares: z.looseObject({ shares: z.array(SHARE) }),
    ManageStoreSharing: EMPTY_RESULT,
    DeleteStoreShare: EMPTY_RESULT,
    // The upstream answers a bare array, which reaches the client as `{items}`.
    ListBaseBlockInstallations: z.looseObject({ items: z.array(BLOCK_INSTALLATION) }),
    ManageStoreBlockInstallation: EMPTY_RESULT,
    DeleteStoreBlockInstallation: EMPTY_RESULT,
  } satisfies Record<string, z.ZodObject>;
});
