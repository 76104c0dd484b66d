// Enterprise administration: account info, descendant accounts, moves between accounts, users, admin access
// and user groups. 16 StoreApi tools as declarative rows over the generic executor; they need an enterprise
// admin's token. Audit logs, change events and eDiscovery exports are in compliance.ts.

import { z } from 'zod';
import { STORE_OPERATIONS } from '../endpoints.js';
import { USER_STATES } from '../schemas/shared.js';
import {
  airtableQuery,
  CREATE,
  DESTROY,
  entPath,
  id,
  READ_ONLY,
  storeBody,
  storeTool,
  strings,
  UPDATE,
} from './shared.js';

/** Values each user filter (ids, emails) may list in one call. */
const MAX_USERS_PER_FILTER = 100;

// Undescribed: the names say what they hold, and the schema's maxItems the limit.
const userList = () =>
  z
    .array(z.string().min(1))
    .max(MAX_USERS_PER_FILTER, {
      error: (issue) =>
        `at most ${MAX_USERS_PER_FILTER} per call; got ${(issue.input as unknown[]).length}. Split into several calls.`,
    })
    .optional();

export const ENTERPRISE_TOOLS = [
  storeTool({
    name: 'GetEnterpriseInfo',
    title: 'Get enterprise account',
    description: 'Enterprise account: domains, users, groups, workspaces, descendants.',
    input: z.object({
      enterprise_account_id: id(),
      fields_to_include: strings('Extras: aggregated, descendants'),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetEnterprise,
      pathParams: entPath,
      query: { include: 'fields_to_include' },
      serializeQuery: airtableQuery,
    },
  }),
  storeTool({
    name: 'CreateDescendantEnterpriseAccount',
    title: 'Create descendant account',
    description: 'Create a descendant of a root account with Enterprise Hub.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: storeBody('createDescendantAccount'),
    hints: CREATE,
    endpoint: { operation: STORE_OPERATIONS.CreateDescendantEnterprise, pathParams: entPath },
  }),
  storeTool({
    name: 'BatchMoveUserGroupsBetweenAccounts',
    title: 'Move user groups',
    description: 'Move user groups to another enterprise account.',
    input: z.object({
      // The spec's name misleads: it is the account the groups leave.
      target_enterprise_account_id: id('Source account; the destination goes in the body').optional(),
    }),
    requestBody: storeBody('moveUserGroups'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.MoveUserGroups,
      pathParams: { enterpriseAccountId: 'target_enterprise_account_id' },
    },
  }),
  storeTool({
    name: 'MoveWorkspacesBetweenEnterpriseAccounts',
    title: 'Move workspaces',
    description: 'Move workspaces to another enterprise account.',
    input: z.object({
      enterprise_account_id: id('Source account; the destination goes in the body').optional(),
    }),
    requestBody: storeBody('moveWorkspaces'),
    hints: UPDATE,
    endpoint: { operation: STORE_OPERATIONS.MoveWorkspaces, pathParams: entPath },
  }),
  storeTool({
    name: 'DeleteUsersByEmail',
    title: 'Delete users by email',
    description: 'Delete enterprise users by email address.',
    input: z.object({
      enterprise_account_id: id(),
      email_addresses: z
        .array(z.string().min(1))
        .min(1, { error: 'give at least one email address' })
        .max(MAX_USERS_PER_FILTER, {
          error: (issue) =>
            `at most ${MAX_USERS_PER_FILTER} per call; got ${(issue.input as unknown[]).length}. Split into several calls.`,
        })
        .optional(),
    }),
    hints: DESTROY,
    check: (args) =>
      args.email_addresses === undefined
        ? [{ field: 'email_addresses', problem: 'give the email addresses of the users to delete' }]
        : [],
    endpoint: {
      operation: STORE_OPERATIONS.DeleteUsersByEmail,
      pathParams: entPath,
      query: { email: 'email_addresses' },
      serializeQuery: airtableQuery,
    },
  }),
  storeTool({
    name: 'GetStoreUserInfo',
    title: 'Get enterprise users',
    description: 'Enterprise users by id or email, with their state and groups.',
    input: z.object({
      enterprise_account_id: id(),
      include_fields: strings('Extras: collaborations, aggregated, descendants'),
      user_emails: userList(),
      user_ids: userList(),
    }),
    hints: READ_ONLY,
    check: (args) =>
      (args.user_ids?.length ?? 0) + (args.user_emails?.length ?? 0) === 0
        ? [{ field: 'user_ids', problem: 'give user_ids, user_emails, or both' }]
        : [],
    endpoint: {
      operation: STORE_OPERATIONS.GetUsersByIdOrEmail,
      pathParams: entPath,
      query: { include: 'include_fields', email: 'user_emails', id: 'user_ids' },
      serializeQuery: airtableQuery,
    },
  }),
  storeTool({
    name: 'BatchManageEnterpriseUsers',
    title: 'Update enterprise users',
    description: 'Change the state or names of enterprise users, by id or email.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: storeBody('manageEnterpriseUsers'),
    hints: UPDATE,
    endpoint: { operation: STORE_OPERATIONS.ManageUserBatched, pathParams: entPath, idempotent: true },
  }),
  storeTool({
    name: 'BatchManageUserMembership',
    title: 'Claim or release users',
    description: 'Make users managed or unmanaged by the enterprise.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: storeBody('manageUserMembership'),
    hints: UPDATE,
    endpoint: { operation: STORE_OPERATIONS.ManageUserMembership, pathParams: entPath },
  }),
  storeTool({
    name: 'GrantAdminAccess',
    title: 'Grant admin access',
    description: 'Make users enterprise admins.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: storeBody('grantAdminAccess'),
    hints: UPDATE,
    endpoint: { operation: STORE_OPERATIONS.GrantAdminAccess, pathParams: entPath },
  }),
  storeTool({
    name: 'RevokeAdminAccess',
    title: 'Revoke admin access',
    description: 'Take enterprise admin access away from users.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: storeBody('revokeAdminAccess'),
    hints: DESTROY,
    endpoint: { operation: STORE_OPERATIONS.RevokeAdminAccess, pathParams: entPath },
  }),
  storeTool({
    name: 'DeleteEnterpriseUser',
    title: 'Delete enterprise user',
    description: 'Delete an enterprise user.',
    input: z.object({ enterprise_account_id: id(), user_id: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteUserById,
      pathParams: { ...entPath, userId: 'user_id' },
    },
  }),
  storeTool({
    name: 'GetUserInformation',
    title: 'Get enterprise user',
    description: 'One enterprise user with state, groups and, on request, collaborations.',
    input: z.object({
      enterprise_account_id: id(),
      user_id: id(),
      include_fields: strings('Extras: collaborations, aggregated, descendants'),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetUserById,
      pathParams: { ...entPath, userId: 'user_id' },
      query: { include: 'include_fields' },
      serializeQuery: airtableQuery,
    },
  }),
  storeTool({
    name: 'ManageEnterpriseAccountUser',
    title: 'Update enterprise user',
    description: "Change a user's email, names or state.",
    input: z.object({
      enterprise_account_id: id(),
      user_id: id(),
      update_user_email: z
        .string()
        .min(1)
        .optional()
        .describe('New email; the enterprise must own both domains'),
      user_first_name: z.string().optional(),
      user_last_name: z.string().optional(),
      user_state: z.enum(USER_STATES).optional().describe('Managed users only'),
    }),
    hints: UPDATE,
    check: (args) =>
      [args.update_user_email, args.user_first_name, args.user_last_name, args.user_state].every(
        (value) => value === undefined,
      )
        ? [
            {
              field: 'update_user_email',
              problem: 'give at least one of update_user_email, user_first_name, user_last_name, user_state',
            },
          ]
        : [],
    endpoint: {
      operation: STORE_OPERATIONS.ManageUser,
      pathParams: { ...entPath, userId: 'user_id' },
      body: (args) =>
        Object.fromEntries(
          Object.entries({
            email: args.update_user_email,
            firstName: args.user_first_name,
            lastName: args.user_last_name,
            state: args.user_state,
          }).filter(([, value]) => value !== undefined),
        ),
      idempotent: true,
    },
  }),
  storeTool({
    name: 'LogoutEnterpriseUser',
    title: 'Log out user',
    description: 'End all sessions of an enterprise user.',
    input: z.object({
      enterprise_account_id: id(),
      enterprise_user_id: id(),
      logout_request_body: z.record(z.string(), z.unknown()).optional().describe('JSON body, if any'),
    }),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.LogoutUser,
      pathParams: { ...entPath, userId: 'enterprise_user_id' },
      body: (args) => args.logout_request_body,
      idempotent: true,
    },
  }),
  storeTool({
    name: 'RemoveUserFromEnterprise',
    title: 'Remove user from enterprise',
    description: 'Unshare a user from all enterprise assets and revoke admin access.',
    input: z.object({ enterprise_account_id: id().optional(), user_id: id().optional() }),
    requestBody: storeBody('removeUserFromEnterprise'),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.RemoveUserFromEnterprise,
      pathParams: { ...entPath, userId: 'user_id' },
    },
  }),
  storeTool({
    name: 'GetUserGroupInfo',
    title: 'Get user group',
    description: 'A user group with its members and, on request, collaborations.',
    input: z.object({
      user_group_id: id(),
      include_additional_info: strings('Extras: collaborations'),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetUserGroup,
      pathParams: { groupId: 'user_group_id' },
      query: { include: 'include_additional_info' },
      serializeQuery: airtableQuery,
    },
  }),
];
