// Enterprise administration: account info, audit logs, change events, eDiscovery exports, descendant
// accounts, moves between accounts, users, admin access and user groups. 24 StoreApi tools as declarative
// rows over the generic executor; they need an enterprise admin's token.

import { z } from 'zod';
import { endpointTool } from '../../../runtime/endpoint.js';
import type { ArgumentIssue } from '../../../runtime/errors.js';
import { EXPORT_STATES, STORE_BODIES, USER_STATES } from '../schemas/index.js';
import { airtableQuery, CREATE, client, DESTROY, id, READ_ONLY, strings, UPDATE } from './shared.js';

const ENT = '/v0/meta/enterpriseAccounts/{enterpriseAccountId}';
const entPath = { enterpriseAccountId: 'enterprise_account_id' };

/** Values each user filter (ids, emails) may list in one call. */
const MAX_USERS_PER_FILTER = 100;

const dateTime = (description: string) =>
  z.iso
    .datetime({ offset: true, error: 'an ISO 8601 date-time, e.g. 2026-03-01T00:00:00Z' })
    .optional()
    .describe(description);

/** end_time, when both are given, must come after start_time. */
function timeWindow(args: {
  start_time?: string | undefined;
  end_time?: string | undefined;
}): ArgumentIssue[] {
  if (args.start_time === undefined || args.end_time === undefined) return [];
  return Date.parse(args.end_time) > Date.parse(args.start_time)
    ? []
    : [{ field: 'end_time', problem: 'must be later than start_time' }];
}

const userList = (description: string) =>
  z
    .array(z.string().min(1))
    .max(MAX_USERS_PER_FILTER, {
      error: (issue) =>
        `at most ${MAX_USERS_PER_FILTER} per call; got ${(issue.input as unknown[]).length}. Split into several calls.`,
    })
    .optional()
    .describe(description);

const pageSize = (max: number) =>
  z.int().min(1).max(max).optional().describe(`Per page, 1 to ${max} (default 10).`);

export const ENTERPRISE_TOOLS = [
  endpointTool({
    name: 'GetEnterpriseInfo',
    title: 'Get an enterprise account',
    description: 'Enterprise account: domains, users, groups, workspaces, descendants.',
    input: z.object({
      enterprise_account_id: id(),
      fields_to_include: strings('Extras: aggregated, descendants; none for the defaults.'),
    }),
    hints: READ_ONLY,
    endpoint: {
      method: 'GET',
      path: ENT,
      pathParams: entPath,
      query: { include: 'fields_to_include' },
      serializeQuery: airtableQuery,
    },
    client,
  }),
  endpointTool({
    name: 'GetAuditLogEvents',
    title: 'Get audit log events',
    description: 'Audit log events of the enterprise, filtered and paged (next/previous).',
    input: z.object({
      enterprise_account_id: id(),
      start_time: dateTime('Earliest event, inclusive (default 180 days ago).'),
      end_time: dateTime('Latest event, exclusive (default now).'),
      event_category: z.string().optional().describe('Only this category of events.'),
      event_type: z.string().optional().describe('Only this event type, e.g. createBase.'),
      filter_by_originating_user_id: z.string().optional().describe('Only events by this user (usr…).'),
      model_identifier: z.string().optional().describe('Only events on this object id.'),
      next_page_token: z.string().optional().describe('pagination.next: the page of newer events.'),
      previous_event_marker: z
        .string()
        .optional()
        .describe('pagination.previous: the page of older events (the next page when newest first).'),
      page_size: z.int().min(1).max(1000).optional().describe('Events per page, 1 to 1000 (default 10).'),
      sort_order: z.enum(['ascending', 'descending']).optional().describe('Default descending.'),
    }),
    hints: READ_ONLY,
    check: timeWindow,
    endpoint: {
      method: 'GET',
      path: `${ENT}/auditLogEvents`,
      pathParams: entPath,
      query: {
        startTime: 'start_time',
        endTime: 'end_time',
        category: 'event_category',
        eventType: 'event_type',
        originatingUserId: 'filter_by_originating_user_id',
        modelId: 'model_identifier',
        next: 'next_page_token',
        previous: 'previous_event_marker',
        pageSize: 'page_size',
        sortOrder: 'sort_order',
      },
    },
    client,
  }),
  endpointTool({
    name: 'RetrieveAuditLogRequests',
    title: 'List audit log requests',
    description: 'Audit log export requests of the enterprise and their state.',
    input: z.object({
      enterprise_account_id: id(),
      audit_log_page_size: pageSize(100),
      pagination_offset: z.int().min(0).optional().describe('offset from the previous page.'),
    }),
    hints: READ_ONLY,
    endpoint: {
      method: 'GET',
      path: `${ENT}/auditLogs`,
      pathParams: entPath,
      query: { pageSize: 'audit_log_page_size', offset: 'pagination_offset' },
    },
    client,
  }),
  endpointTool({
    name: 'CreateAuditLogRequest',
    title: 'Request an audit log export',
    description: 'Start an export of one month or day of audit log events.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: STORE_BODIES.createAuditLogRequest,
    hints: CREATE,
    endpoint: { method: 'POST', path: `${ENT}/auditLogs`, pathParams: entPath },
    client,
  }),
  endpointTool({
    name: 'RetrieveAuditLog',
    title: 'Get an audit log request',
    description: 'State of an audit log export, with download links when done.',
    input: z.object({ audit_log_task_id: id(), enterprise_account_id: id() }),
    hints: READ_ONLY,
    endpoint: {
      method: 'GET',
      path: `${ENT}/auditLogs/{enterpriseAuditLogTaskId}`,
      pathParams: { ...entPath, enterpriseAuditLogTaskId: 'audit_log_task_id' },
    },
    client,
  }),
  endpointTool({
    name: 'GetStoreChangeEvents',
    title: 'Get change events',
    description: 'Base change events of the last 14 days, newest first (next page: offset).',
    input: z.object({
      enterprise_account_id: id(),
      start_time: dateTime('Earliest event, inclusive.'),
      end_time: dateTime('Latest event, exclusive.'),
      page_size_limit: pageSize(100),
      pagination_offset: z.string().optional().describe('offset from the previous page.'),
    }),
    hints: READ_ONLY,
    check: timeWindow,
    endpoint: {
      method: 'GET',
      path: `${ENT}/changeEvents`,
      pathParams: entPath,
      query: {
        startTime: 'start_time',
        endTime: 'end_time',
        pageSize: 'page_size_limit',
        offset: 'pagination_offset',
      },
    },
    client,
  }),
  endpointTool({
    name: 'CreateDescendantEnterpriseAccount',
    title: 'Create a descendant account',
    description: 'Create a descendant of a root account with Enterprise Hub.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: STORE_BODIES.createDescendantAccount,
    hints: CREATE,
    endpoint: { method: 'POST', path: `${ENT}/descendants`, pathParams: entPath },
    client,
  }),
  endpointTool({
    name: 'GetEdiscoveryExportsStatus',
    title: 'List eDiscovery exports',
    description: 'eDiscovery exports of the enterprise, optionally by state.',
    input: z.object({
      enterprise_account_id: id(),
      ediscovery_export_state: z.enum(EXPORT_STATES).optional().describe('Only exports in this state.'),
      pagination_offset: z
        .int()
        .min(0)
        .optional()
        .describe('Exports to skip (offset from the previous page).'),
      result_page_size: pageSize(100),
    }),
    hints: READ_ONLY,
    endpoint: {
      method: 'GET',
      path: `${ENT}/exports`,
      pathParams: entPath,
      query: { state: 'ediscovery_export_state', offset: 'pagination_offset', pageSize: 'result_page_size' },
    },
    client,
  }),
  endpointTool({
    name: 'CreateEdiscoveryExport',
    title: 'Start an eDiscovery export',
    description: 'Start an eDiscovery export of one base.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: STORE_BODIES.createEdiscoveryExport,
    hints: CREATE,
    endpoint: { method: 'POST', path: `${ENT}/exports`, pathParams: entPath },
    client,
  }),
  endpointTool({
    name: 'GetEdiscoveryExportStatus',
    title: 'Get an eDiscovery export',
    description: 'State of an eDiscovery export, with download links when done.',
    input: z.object({ enterprise_account_id: id(), enterprise_task_id: id() }),
    hints: READ_ONLY,
    endpoint: {
      method: 'GET',
      path: `${ENT}/exports/{enterpriseTaskId}`,
      pathParams: { ...entPath, enterpriseTaskId: 'enterprise_task_id' },
    },
    client,
  }),
  endpointTool({
    name: 'BatchMoveUserGroupsBetweenAccounts',
    title: 'Move user groups',
    description: 'Move user groups to another enterprise account of the organization.',
    input: z.object({
      target_enterprise_account_id: id(
        'Account the groups are in now (ent…); the destination is targetEnterpriseAccountId in the body.',
      ).optional(),
    }),
    requestBody: STORE_BODIES.moveUserGroups,
    hints: UPDATE,
    endpoint: {
      method: 'POST',
      path: `${ENT}/moveGroups`,
      pathParams: { enterpriseAccountId: 'target_enterprise_account_id' },
    },
    client,
  }),
  endpointTool({
    name: 'MoveWorkspacesBetweenEnterpriseAccounts',
    title: 'Move workspaces',
    description: 'Move workspaces to another enterprise account of the organization.',
    input: z.object({
      enterprise_account_id: id(
        'Account the workspaces are in now (ent…); the destination is targetEnterpriseAccountId in the body.',
      ).optional(),
    }),
    requestBody: STORE_BODIES.moveWorkspaces,
    hints: UPDATE,
    endpoint: { method: 'POST', path: `${ENT}/moveWorkspaces`, pathParams: entPath },
    client,
  }),
  endpointTool({
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
        .optional()
        .describe(`Emails of the users to delete, 1 to ${MAX_USERS_PER_FILTER}.`),
    }),
    hints: DESTROY,
    check: (args) =>
      args.email_addresses === undefined
        ? [{ field: 'email_addresses', problem: 'give the email addresses of the users to delete' }]
        : [],
    endpoint: {
      method: 'DELETE',
      path: `${ENT}/users`,
      pathParams: entPath,
      query: { email: 'email_addresses' },
      serializeQuery: airtableQuery,
    },
    client,
  }),
  endpointTool({
    name: 'GetStoreUserInfo',
    title: 'Get enterprise users',
    description: 'Enterprise users by id or email, with their state and groups.',
    input: z.object({
      enterprise_account_id: id(),
      include_fields: strings('Extras: collaborations, aggregated, descendants.'),
      user_emails: userList(`Emails, at most ${MAX_USERS_PER_FILTER}.`),
      user_ids: userList(`User ids (usr…), at most ${MAX_USERS_PER_FILTER}.`),
    }),
    hints: READ_ONLY,
    check: (args) =>
      (args.user_ids?.length ?? 0) + (args.user_emails?.length ?? 0) === 0
        ? [{ field: 'user_ids', problem: 'give user_ids, user_emails, or both' }]
        : [],
    endpoint: {
      method: 'GET',
      path: `${ENT}/users`,
      pathParams: entPath,
      query: { include: 'include_fields', email: 'user_emails', id: 'user_ids' },
      serializeQuery: airtableQuery,
    },
    client,
  }),
  endpointTool({
    name: 'BatchManageEnterpriseUsers',
    title: 'Update enterprise users',
    description: 'Change the state or names of several enterprise users, named by id or email.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: STORE_BODIES.manageEnterpriseUsers,
    hints: UPDATE,
    endpoint: { method: 'PATCH', path: `${ENT}/users`, pathParams: entPath, idempotent: true },
    client,
  }),
  endpointTool({
    name: 'BatchManageUserMembership',
    title: 'Claim or release users',
    description: 'Make users managed or unmanaged by the enterprise.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: STORE_BODIES.manageUserMembership,
    hints: UPDATE,
    endpoint: { method: 'POST', path: `${ENT}/users/claim`, pathParams: entPath },
    client,
  }),
  endpointTool({
    name: 'GrantAdminAccess',
    title: 'Grant admin access',
    description: 'Make users enterprise admins.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: STORE_BODIES.grantAdminAccess,
    hints: UPDATE,
    endpoint: { method: 'POST', path: `${ENT}/users/grantAdminAccess`, pathParams: entPath },
    client,
  }),
  endpointTool({
    name: 'RevokeAdminAccess',
    title: 'Revoke admin access',
    description: 'Take enterprise admin access away from users.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: STORE_BODIES.revokeAdminAccess,
    hints: DESTROY,
    endpoint: { method: 'POST', path: `${ENT}/users/revokeAdminAccess`, pathParams: entPath },
    client,
  }),
  endpointTool({
    name: 'DeleteEnterpriseUser',
    title: 'Delete an enterprise user',
    description: 'Delete an enterprise user.',
    input: z.object({ enterprise_account_id: id(), user_id: id() }),
    hints: DESTROY,
    endpoint: {
      method: 'DELETE',
      path: `${ENT}/users/{userId}`,
      pathParams: { ...entPath, userId: 'user_id' },
    },
    client,
  }),
  endpointTool({
    name: 'GetUserInformation',
    title: 'Get an enterprise user',
    description: 'One enterprise user with state, groups and, on request, collaborations.',
    input: z.object({
      enterprise_account_id: id(),
      user_id: id(),
      include_fields: strings('Extras: collaborations, aggregated, descendants.'),
    }),
    hints: READ_ONLY,
    endpoint: {
      method: 'GET',
      path: `${ENT}/users/{userId}`,
      pathParams: { ...entPath, userId: 'user_id' },
      query: { include: 'include_fields' },
      serializeQuery: airtableQuery,
    },
    client,
  }),
  endpointTool({
    name: 'ManageEnterpriseAccountUser',
    title: 'Update an enterprise user',
    description: "Change a user's email, names or state.",
    input: z.object({
      enterprise_account_id: id(),
      user_id: id(),
      update_user_email: z
        .string()
        .min(1)
        .optional()
        .describe('New email; the enterprise must own both domains.'),
      user_first_name: z.string().optional().describe('New first name.'),
      user_last_name: z.string().optional().describe('New last name.'),
      user_state: z.enum(USER_STATES).optional().describe('Managed users only.'),
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
      method: 'PATCH',
      path: `${ENT}/users/{userId}`,
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
    client,
  }),
  endpointTool({
    name: 'LogoutEnterpriseUser',
    title: 'Log out a user',
    description: 'End all sessions of an enterprise user.',
    input: z.object({
      enterprise_account_id: id(),
      enterprise_user_id: id(),
      logout_request_body: z.record(z.string(), z.unknown()).optional().describe('JSON body, if any.'),
    }),
    hints: UPDATE,
    endpoint: {
      method: 'POST',
      path: `${ENT}/users/{userId}/logout`,
      pathParams: { ...entPath, userId: 'enterprise_user_id' },
      body: (args) => args.logout_request_body,
      idempotent: true,
    },
    client,
  }),
  endpointTool({
    name: 'RemoveUserFromEnterprise',
    title: 'Remove a user from the enterprise',
    description: 'Unshare a user from all enterprise assets and revoke admin access.',
    input: z.object({ enterprise_account_id: id().optional(), user_id: id().optional() }),
    requestBody: STORE_BODIES.removeUserFromEnterprise,
    hints: DESTROY,
    endpoint: {
      method: 'POST',
      path: `${ENT}/users/{userId}/remove`,
      pathParams: { ...entPath, userId: 'user_id' },
    },
    client,
  }),
  endpointTool({
    name: 'GetUserGroupInfo',
    title: 'Get a user group',
    description: 'A user group with its members and, on request, collaborations.',
    input: z.object({
      user_group_id: id(),
      include_additional_info: strings('Extras: collaborations.'),
    }),
    hints: READ_ONLY,
    endpoint: {
      method: 'GET',
      path: '/v0/meta/groups/{groupId}',
      pathParams: { groupId: 'user_group_id' },
      query: { include: 'include_additional_info' },
      serializeQuery: airtableQuery,
    },
    client,
  }),
];
