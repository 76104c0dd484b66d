/**
 * The audit middleware: after a mutating request succeeded, records one event in the audit trail
 * (admin/audit.ts). Which requests are mutations, and the action each records, is a list of operations of the
 * endpoint table (../endpoints.ts), matched against the request's path in that list's order.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { type EmulatorEnv, isControlPath } from '../../../emulation/env.js';
import { STORE_OPERATIONS, type StoreOperationName } from '../endpoints.js';
import { AUDIT_CATEGORIES, type AuditTrail, tokenId } from './admin/audit.js';
import type { AdminState } from './admin/state.js';
import type { Access } from './auth.js';
import type { StoreDatabase } from './database.js';

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  action: string;
  modelType: string;
  /** The path parameter naming the model; absent: the id in the response body. */
  modelParam?: string;
}

/**
 * Mutating operations (STORE_OPERATIONS) and the audit action each one records, in matching order (the first
 * whose path matches wins: `/v0/meta/...` before `/v0/{baseId}/...`); reads (GET, listRecords, getRecords)
 * record nothing. The model parameter is one of the operation's path parameters.
 */
const AUDITED: readonly (readonly [StoreOperationName, string, string, string?])[] = [
  ['CreateBase', 'createBase', 'base'],
  ['DeleteBase', 'deleteBase', 'base', 'baseId'],
  ['CreateTable', 'createTable', 'table'],
  ['UpdateTable', 'updateTable', 'table', 'tableIdOrName'],
  ['CreateField', 'createField', 'field'],
  ['UpdateField', 'updateField', 'field', 'columnId'],
  ['DeleteView', 'deleteView', 'view', 'viewId'],
  ['AddBaseCollaborator', 'addBaseCollaborators', 'base', 'baseId'],
  ['UpdateBaseCollaborator', 'updateBaseCollaborator', 'base', 'baseId'],
  ['DeleteBaseCollaborator', 'removeBaseCollaborator', 'base', 'baseId'],
  ['DeleteBaseInvite', 'deleteBaseInvite', 'invite', 'inviteId'],
  ['ManageBlockInstallation', 'updateBlockInstallation', 'blockInstallation', 'blockInstallationId'],
  ['DeleteBlockInstallation', 'deleteBlockInstallation', 'blockInstallation', 'blockInstallationId'],
  ['AddInterfaceCollaborator', 'addInterfaceCollaborator', 'interface', 'pageBundleId'],
  ['UpdateInterfaceCollaborator', 'updateInterfaceCollaborator', 'interface', 'pageBundleId'],
  ['DeleteInterfaceCollaborator', 'removeInterfaceCollaborator', 'interface', 'pageBundleId'],
  ['DeleteInterfaceInvite', 'deleteInterfaceInvite', 'invite', 'inviteId'],
  ['ManageShare', 'updateShare', 'share', 'shareId'],
  ['DeleteShare', 'deleteShare', 'share', 'shareId'],
  ['CreateWorkspace', 'createWorkspace', 'workspace'],
  ['DeleteWorkspace', 'deleteWorkspace', 'workspace', 'workspaceId'],
  ['AddWorkspaceCollaborator', 'addWorkspaceCollaborators', 'workspace', 'workspaceId'],
  ['UpdateWorkspaceCollaborator', 'updateWorkspaceCollaborator', 'workspace', 'workspaceId'],
  ['DeleteWorkspaceCollaborator', 'removeWorkspaceCollaborator', 'workspace', 'workspaceId'],
  ['DeleteWorkspaceInvite', 'deleteWorkspaceInvite', 'invite', 'inviteId'],
  ['MoveBase', 'moveBase', 'workspace', 'workspaceId'],
  ['UpdateWorkspaceRestrictions', 'updateWorkspaceRestrictions', 'workspace', 'workspaceId'],
  ['CreateAuditLogRequest', 'createAuditLogRequest', 'auditLogTask'],
  ['CreateDescendantEnterprise', 'createDescendantEnterpriseAccount', 'enterpriseAccount'],
  ['CreateEdiscoveryExport', 'createEdiscoveryExport', 'export'],
  ['MoveUserGroups', 'moveUserGroups', 'enterpriseAccount', 'enterpriseAccountId'],
  ['MoveWorkspaces', 'moveWorkspaces', 'enterpriseAccount', 'enterpriseAccountId'],
  ['DeleteUsersByEmail', 'deleteUsersByEmail', 'enterpriseAccount', 'enterpriseAccountId'],
  ['ManageUserBatched', 'updateUsers', 'enterpriseAccount', 'enterpriseAccountId'],
  ['ManageUserMembership', 'claimUsers', 'enterpriseAccount', 'enterpriseAccountId'],
  ['GrantAdminAccess', 'grantAdminAccess', 'enterpriseAccount', 'enterpriseAccountId'],
  ['RevokeAdminAccess', 'revokeAdminAccess', 'enterpriseAccount', 'enterpriseAccountId'],
  ['DeleteUserById', 'deleteUser', 'user', 'userId'],
  ['ManageUser', 'updateUser', 'user', 'userId'],
  ['LogoutUser', 'logoutUser', 'user', 'userId'],
  ['RemoveUserFromEnterprise', 'removeUserFromEnterprise', 'user', 'userId'],
  ['CreateScimUser', 'scimCreateUser', 'user'],
  ['PutScimUser', 'scimReplaceUser', 'user', 'userId'],
  ['PatchScimUser', 'scimUpdateUser', 'user', 'userId'],
  ['DeleteScimUser', 'scimDeleteUser', 'user', 'userId'],
  ['CreateScimGroup', 'scimCreateGroup', 'userGroup'],
  ['PutScimGroup', 'scimReplaceGroup', 'userGroup', 'groupId'],
  ['PatchScimGroup', 'scimUpdateGroup', 'userGroup', 'groupId'],
  ['DeleteScimGroup', 'scimDeleteGroup', 'userGroup', 'groupId'],
  ['CreateWebhook', 'createWebhook', 'webhook'],
  ['DeleteWebhook', 'deleteWebhook', 'webhook', 'webhookId'],
  ['EnableWebhookNotifications', 'updateWebhookNotifications', 'webhook', 'webhookId'],
  ['RefreshWebhook', 'refreshWebhook', 'webhook', 'webhookId'],
  ['DeleteDataTableRecords', 'deleteDataTableRecords', 'dataTable', 'dataTableId'],
  ['UpsertDataTableRecords', 'upsertDataTableRecords', 'dataTable', 'dataTableId'],
  ['UploadAttachment', 'uploadAttachment', 'record', 'recordId'],
  ['CreateComment', 'createComment', 'comment'],
  ['UpdateComment', 'updateComment', 'comment', 'rowCommentId'],
  ['DeleteComment', 'deleteComment', 'comment', 'rowCommentId'],
  ['CreateRecords', 'createRecords', 'table', 'tableIdOrName'],
  ['UpdateMultipleRecords', 'updateRecords', 'table', 'tableIdOrName'],
  ['ReplaceMultipleRecords', 'replaceRecords', 'table', 'tableIdOrName'],
  ['DeleteMultipleRecords', 'deleteRecords', 'table', 'tableIdOrName'],
  ['UpdateRecord', 'updateRecord', 'record', 'recordId'],
  ['ReplaceRecord', 'replaceRecord', 'record', 'recordId'],
  ['DeleteRecord', 'deleteRecord', 'record', 'recordId'],
];

const ROUTES: Route[] = AUDITED.map(([operation, action, modelType, modelParam]) => {
  const { method, path } = STORE_OPERATIONS[operation];
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1] ?? '');
      return '([^/]+)';
    })
    .join('/');
  return {
    method,
    pattern: new RegExp(`^${source}/?$`),
    names,
    action,
    modelType,
    ...(modelParam === undefined ? {} : { modelParam }),
  };
});

function matchRoute(
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | undefined {
  if (method === 'POST' && /\/(listRecords|getRecords)\/?$/.test(path)) return undefined;
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    route.names.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1] ?? '');
    });
    return { route, params };
  }
  return undefined;
}

/** A request body small enough to keep as the event's payload; larger ones are summarised by their keys. */
function payloadOf(body: string): Record<string, unknown> {
  if (body.trim() === '') return {};
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return body.length <= 2048 ? (parsed as Record<string, unknown>) : { keys: Object.keys(parsed) };
  } catch {
    return {};
  }
}

interface MiddlewareDeps {
  trail: AuditTrail;
  state: AdminState;
  store: StoreDatabase;
  access: Access;
}

/**
 * Records an audit event for every successful mutation. The event belongs to the enterprise account named in
 * the path, else the account of the base or workspace it touched, else the actor's own account.
 */
export function auditMiddleware(deps: MiddlewareDeps): MiddlewareHandler<EmulatorEnv> {
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || isControlPath(c.req.path)) return next();
    const matched = matchRoute(method, c.req.path);
    if (!matched) return next();
    // Read before the handler consumes it; Hono caches the text, so the handler reads the same body.
    const body = method === 'DELETE' ? '' : await c.req.text();
    // The actor as the request came in (a SCIM delete may remove the user the token belongs to).
    const principal = deps.access.principal(c);
    const baseBefore = matched.params.baseId;
    const accountOfBaseBefore = baseBefore ? deps.state.accountOfBase(baseBefore) : undefined;
    // Likewise the workspace's account: deleting a workspace removes what says which account it was in.
    const workspaceBefore = matched.params.workspaceId;
    const accountOfWorkspaceBefore = workspaceBefore
      ? deps.state.workspaceAdmin(workspaceBefore)?.enterpriseAccountId
      : undefined;
    await next();
    if (c.res.status < 200 || c.res.status >= 300) return;
    const { route, params } = matched;
    let modelId = route.modelParam ? params[route.modelParam] : undefined;
    if (modelId === undefined) modelId = await responseId(c);
    const workspaceId = params.workspaceId;
    const account =
      (params.enterpriseAccountId && deps.state.account(params.enterpriseAccountId)
        ? params.enterpriseAccountId
        : undefined) ??
      accountOfBaseBefore ??
      (params.baseId ? deps.state.accountOfBase(params.baseId) : undefined) ??
      accountOfWorkspaceBefore ??
      (principal ? deps.state.profile(principal.userId)?.enterpriseAccountId : undefined) ??
      undefined;
    if (!account) return;
    const authorization = c.req.header('authorization') ?? '';
    const token = authorization.replace(/^Bearer\s+/i, '');
    deps.trail.record({
      action: route.action,
      category: AUDIT_CATEGORIES[route.modelType] ?? 'other',
      ...(principal ? { actorUserId: principal.userId } : {}),
      modelId: modelId ?? '',
      modelType: route.modelType,
      enterpriseAccountId: account,
      payload: payloadOf(body),
      context: {
        ...(params.baseId && !/^ent/.test(params.baseId) ? { baseId: params.baseId } : {}),
        ...(workspaceId ? { workspaceId } : {}),
        ...(params.pageBundleId ? { interfaceId: params.pageBundleId } : {}),
      },
      origin: {
        ipAddress: c.req.header('x-forwarded-for')?.split(',')[0]?.trim() || '127.0.0.1',
        userAgent: c.req.header('user-agent') ?? '',
        ...(principal?.kind === 'oauth'
          ? { oauthAccessTokenId: `oaa${tokenId(token)}` }
          : { personalAccessTokenId: `pat${tokenId(token)}` }),
      },
    });
  };
}

async function responseId(c: Context<EmulatorEnv>): Promise<string | undefined> {
  try {
    const body = (await c.res.clone().json()) as Record<string, unknown>;
    const id = body.id ?? body.shareId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
