/**
 * The audit trail: every mutation made through the emulator (data plane, administration plane, SCIM, bulk
 * tables) becomes one audit log event, recorded by a middleware after the request succeeded: who (the token's
 * user and a token id, never the token), what (action, model id and type, a short payload), when (the clock) and
 * context (enterprise account, base, workspace, interface). Events are kept in SQLite, indexed for the
 * enterprise audit log endpoint's time-ordered, filtered paging (see auditLog.ts), so 100,000 of them stay fast.
 */
import { createHash } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { Clock } from '../../../../emulation/clock.js';
import { type EmulatorEnv, isControlPath } from '../../../../emulation/env.js';
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import type { Access } from '../auth.js';
import type { StoreDb } from '../store.js';
import type { AdminState } from './state.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, timestamp TEXT NOT NULL,
  account_id TEXT NOT NULL, root_account_id TEXT NOT NULL, action TEXT NOT NULL, category TEXT NOT NULL,
  actor_user_id TEXT, model_id TEXT NOT NULL, model_type TEXT NOT NULL, payload TEXT NOT NULL,
  context TEXT NOT NULL, origin TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_events_by_time ON audit_events(root_account_id, timestamp, seq);
`;

export interface AuditEntry {
  action: string;
  category: string;
  /** The acting user; absent for the system. */
  actorUserId?: string;
  modelId: string;
  modelType: string;
  /** The account the event belongs to (a descendant's events show in its root's log too). */
  enterpriseAccountId: string;
  payload?: Record<string, unknown>;
  context?: { baseId?: string; workspaceId?: string; interfaceId?: string };
  origin?: {
    ipAddress?: string;
    userAgent?: string;
    personalAccessTokenId?: string;
    oauthAccessTokenId?: string;
  };
  /** ISO time; the clock's now when absent. */
  timestamp?: string;
}

/** One stored event as the audit log endpoint returns it (actor resolved at read time). */
export interface AuditEventRow {
  seq: number;
  id: string;
  timestamp: string;
  accountId: string;
  rootAccountId: string;
  action: string;
  category: string;
  actorUserId: string | null;
  modelId: string;
  modelType: string;
  payload: Record<string, unknown>;
  context: Record<string, unknown>;
  origin: Record<string, unknown>;
}

export class AuditTrail {
  readonly #insert;
  readonly #clear;
  readonly #lastSeq;

  constructor(
    readonly db: SqliteDatabase,
    private readonly state: AdminState,
    private readonly clock: Clock,
  ) {
    db.exec(SCHEMA);
    this.#insert = db.prepare(
      `INSERT INTO audit_events (seq, id, timestamp, account_id, root_account_id, action, category,
        actor_user_id, model_id, model_type, payload, context, origin)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#clear = db.prepare('DELETE FROM audit_events');
    this.#lastSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) AS n FROM audit_events').pluck();
  }

  /** Records one event; an entry for an account the emulator does not know is dropped. */
  record(entry: AuditEntry): string | undefined {
    // The sequence number comes from the file, so it must be read and used under one write lock: another
    // process may be recording too.
    if (!this.db.inTransaction) return writeTransaction(this.db, () => this.record(entry));
    const account = this.state.account(entry.enterpriseAccountId);
    if (!account) return undefined;
    const timestamp = entry.timestamp ?? this.clock.now().toISOString();
    const seq = Number(this.#lastSeq.get()) + 1;
    const id = eventId(timestamp, seq);
    const context: Record<string, unknown> = {
      actionId: `act${id.slice(-14)}`,
      enterpriseAccountId: account.rootEnterpriseAccountId,
      ...(account.parentEnterpriseAccountId === null ? {} : { descendantEnterpriseAccountId: account.id }),
      ...entry.context,
    };
    this.#insert.run(
      seq,
      id,
      timestamp,
      account.id,
      account.rootEnterpriseAccountId,
      entry.action,
      entry.category,
      entry.actorUserId ?? null,
      entry.modelId,
      entry.modelType,
      JSON.stringify(entry.payload ?? {}),
      JSON.stringify(context),
      JSON.stringify(entry.origin ?? {}),
    );
    return id;
  }

  /** Many events in one transaction (seeding, benchmarks). */
  recordMany(entries: Iterable<AuditEntry>): number {
    let n = 0;
    writeTransaction(this.db, () => {
      for (const entry of entries) if (this.record(entry)) n++;
    });
    return n;
  }

  clear(): void {
    this.#clear.run();
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM audit_events').get() as { n: number }).n;
  }
}

/** Sortable ids like the upstream's (time first), unique by the event's sequence number. */
function eventId(timestamp: string, n: number): string {
  const time = Date.parse(timestamp).toString(36).toUpperCase().padStart(10, '0');
  const digest = createHash('sha256').update(`${timestamp}:${n}`).digest('hex').toUpperCase();
  return `${time}${digest.slice(0, 16)}`;
}

/** A stable id for a token that cannot be turned back into it. */
export function tokenId(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 14);
}

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  action: string;
  modelType: string;
  /** The path parameter naming the model; absent: the id in the response body. */
  modelParam?: string;
}

/** Mutating routes and the audit action each one records; reads (GET, listRecords, getRecords) record nothing. */
const ROUTES: Route[] = (
  [
    ['POST', '/v0/meta/bases', 'createBase', 'base'],
    ['DELETE', '/v0/meta/bases/:baseId', 'deleteBase', 'base', 'baseId'],
    ['POST', '/v0/meta/bases/:baseId/tables', 'createTable', 'table'],
    ['PATCH', '/v0/meta/bases/:baseId/tables/:tableId', 'updateTable', 'table', 'tableId'],
    ['POST', '/v0/meta/bases/:baseId/tables/:tableId/fields', 'createField', 'field'],
    ['PATCH', '/v0/meta/bases/:baseId/tables/:tableId/fields/:fieldId', 'updateField', 'field', 'fieldId'],
    ['DELETE', '/v0/meta/bases/:baseId/views/:viewId', 'deleteView', 'view', 'viewId'],
    ['POST', '/v0/meta/bases/:baseId/collaborators', 'addBaseCollaborators', 'base', 'baseId'],
    [
      'PATCH',
      '/v0/meta/bases/:baseId/collaborators/:collaboratorId',
      'updateBaseCollaborator',
      'base',
      'baseId',
    ],
    [
      'DELETE',
      '/v0/meta/bases/:baseId/collaborators/:collaboratorId',
      'removeBaseCollaborator',
      'base',
      'baseId',
    ],
    ['DELETE', '/v0/meta/bases/:baseId/invites/:inviteId', 'deleteBaseInvite', 'invite', 'inviteId'],
    [
      'PATCH',
      '/v0/meta/bases/:baseId/blockInstallations/:blockInstallationId',
      'updateBlockInstallation',
      'blockInstallation',
      'blockInstallationId',
    ],
    [
      'DELETE',
      '/v0/meta/bases/:baseId/blockInstallations/:blockInstallationId',
      'deleteBlockInstallation',
      'blockInstallation',
      'blockInstallationId',
    ],
    [
      'POST',
      '/v0/meta/bases/:baseId/interfaces/:interfaceId/collaborators',
      'addInterfaceCollaborator',
      'interface',
      'interfaceId',
    ],
    [
      'PATCH',
      '/v0/meta/bases/:baseId/interfaces/:interfaceId/collaborators/:collaboratorId',
      'updateInterfaceCollaborator',
      'interface',
      'interfaceId',
    ],
    [
      'DELETE',
      '/v0/meta/bases/:baseId/interfaces/:interfaceId/collaborators/:collaboratorId',
      'removeInterfaceCollaborator',
      'interface',
      'interfaceId',
    ],
    [
      'DELETE',
      '/v0/meta/bases/:baseId/interfaces/:interfaceId/invites/:inviteId',
      'deleteInterfaceInvite',
      'invite',
      'inviteId',
    ],
    ['PATCH', '/v0/meta/bases/:baseId/shares/:shareId', 'updateShare', 'share', 'shareId'],
    ['DELETE', '/v0/meta/bases/:baseId/shares/:shareId', 'deleteShare', 'share', 'shareId'],
    ['POST', '/v0/meta/workspaces', 'createWorkspace', 'workspace'],
    ['DELETE', '/v0/meta/workspaces/:workspaceId', 'deleteWorkspace', 'workspace', 'workspaceId'],
    [
      'POST',
      '/v0/meta/workspaces/:workspaceId/collaborators',
      'addWorkspaceCollaborators',
      'workspace',
      'workspaceId',
    ],
    [
      'PATCH',
      '/v0/meta/workspaces/:workspaceId/collaborators/:collaboratorId',
      'updateWorkspaceCollaborator',
      'workspace',
      'workspaceId',
    ],
    [
      'DELETE',
      '/v0/meta/workspaces/:workspaceId/collaborators/:collaboratorId',
      'removeWorkspaceCollaborator',
      'workspace',
      'workspaceId',
    ],
    [
      'DELETE',
      '/v0/meta/workspaces/:workspaceId/invites/:inviteId',
      'deleteWorkspaceInvite',
      'invite',
      'inviteId',
    ],
    ['POST', '/v0/meta/workspaces/:workspaceId/moveBase', 'moveBase', 'workspace', 'workspaceId'],
    [
      'POST',
      '/v0/meta/workspaces/:workspaceId/updateRestrictions',
      'updateWorkspaceRestrictions',
      'workspace',
      'workspaceId',
    ],
    ['POST', '/v0/meta/enterpriseAccounts/:accountId/auditLogs', 'createAuditLogRequest', 'auditLogTask'],
    [
      'POST',
      '/v0/meta/enterpriseAccounts/:accountId/descendants',
      'createDescendantEnterpriseAccount',
      'enterpriseAccount',
    ],
    ['POST', '/v0/meta/enterpriseAccounts/:accountId/exports', 'createEdiscoveryExport', 'export'],
    [
      'POST',
      '/v0/meta/enterpriseAccounts/:accountId/moveGroups',
      'moveUserGroups',
      'enterpriseAccount',
      'accountId',
    ],
    [
      'POST',
      '/v0/meta/enterpriseAccounts/:accountId/moveWorkspaces',
      'moveWorkspaces',
      'enterpriseAccount',
      'accountId',
    ],
    [
      'DELETE',
      '/v0/meta/enterpriseAccounts/:accountId/users',
      'deleteUsersByEmail',
      'enterpriseAccount',
      'accountId',
    ],
    [
      'PATCH',
      '/v0/meta/enterpriseAccounts/:accountId/users',
      'updateUsers',
      'enterpriseAccount',
      'accountId',
    ],
    [
      'POST',
      '/v0/meta/enterpriseAccounts/:accountId/users/claim',
      'claimUsers',
      'enterpriseAccount',
      'accountId',
    ],
    [
      'POST',
      '/v0/meta/enterpriseAccounts/:accountId/users/grantAdminAccess',
      'grantAdminAccess',
      'enterpriseAccount',
      'accountId',
    ],
    [
      'POST',
      '/v0/meta/enterpriseAccounts/:accountId/users/revokeAdminAccess',
      'revokeAdminAccess',
      'enterpriseAccount',
      'accountId',
    ],
    ['DELETE', '/v0/meta/enterpriseAccounts/:accountId/users/:userId', 'deleteUser', 'user', 'userId'],
    ['PATCH', '/v0/meta/enterpriseAccounts/:accountId/users/:userId', 'updateUser', 'user', 'userId'],
    ['POST', '/v0/meta/enterpriseAccounts/:accountId/users/:userId/logout', 'logoutUser', 'user', 'userId'],
    [
      'POST',
      '/v0/meta/enterpriseAccounts/:accountId/users/:userId/remove',
      'removeUserFromEnterprise',
      'user',
      'userId',
    ],
    ['POST', '/scim/v2/Users', 'scimCreateUser', 'user'],
    ['PUT', '/scim/v2/Users/:userId', 'scimReplaceUser', 'user', 'userId'],
    ['PATCH', '/scim/v2/Users/:userId', 'scimUpdateUser', 'user', 'userId'],
    ['DELETE', '/scim/v2/Users/:userId', 'scimDeleteUser', 'user', 'userId'],
    ['POST', '/scim/v2/Groups', 'scimCreateGroup', 'userGroup'],
    ['PUT', '/scim/v2/Groups/:groupId', 'scimReplaceGroup', 'userGroup', 'groupId'],
    ['PATCH', '/scim/v2/Groups/:groupId', 'scimUpdateGroup', 'userGroup', 'groupId'],
    ['DELETE', '/scim/v2/Groups/:groupId', 'scimDeleteGroup', 'userGroup', 'groupId'],
    ['POST', '/v0/bases/:baseId/webhooks', 'createWebhook', 'webhook'],
    ['DELETE', '/v0/bases/:baseId/webhooks/:webhookId', 'deleteWebhook', 'webhook', 'webhookId'],
    [
      'POST',
      '/v0/bases/:baseId/webhooks/:webhookId/enableNotifications',
      'updateWebhookNotifications',
      'webhook',
      'webhookId',
    ],
    ['POST', '/v0/bases/:baseId/webhooks/:webhookId/refresh', 'refreshWebhook', 'webhook', 'webhookId'],
    [
      'POST',
      '/v0/:accountId/:dataTableId/deleteRecords',
      'deleteDataTableRecords',
      'dataTable',
      'dataTableId',
    ],
    [
      'PUT',
      '/v0/:accountId/:dataTableId/upsertRecords',
      'upsertDataTableRecords',
      'dataTable',
      'dataTableId',
    ],
    ['POST', '/v0/:baseId/:recordId/:fieldId/uploadAttachment', 'uploadAttachment', 'record', 'recordId'],
    ['POST', '/v0/:baseId/:tableId/:recordId/comments', 'createComment', 'comment'],
    ['PATCH', '/v0/:baseId/:tableId/:recordId/comments/:commentId', 'updateComment', 'comment', 'commentId'],
    ['DELETE', '/v0/:baseId/:tableId/:recordId/comments/:commentId', 'deleteComment', 'comment', 'commentId'],
    ['POST', '/v0/:baseId/:tableId', 'createRecords', 'table', 'tableId'],
    ['PATCH', '/v0/:baseId/:tableId', 'updateRecords', 'table', 'tableId'],
    ['PUT', '/v0/:baseId/:tableId', 'replaceRecords', 'table', 'tableId'],
    ['DELETE', '/v0/:baseId/:tableId', 'deleteRecords', 'table', 'tableId'],
    ['PATCH', '/v0/:baseId/:tableId/:recordId', 'updateRecord', 'record', 'recordId'],
    ['PUT', '/v0/:baseId/:tableId/:recordId', 'replaceRecord', 'record', 'recordId'],
    ['DELETE', '/v0/:baseId/:tableId/:recordId', 'deleteRecord', 'record', 'recordId'],
  ] as const
).map(([method, path, action, modelType, modelParam]) => {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
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

/** The audit category of a model type: what the log's `category` filter selects on. */
export const AUDIT_CATEGORIES: Readonly<Record<string, string>> = {
  base: 'base',
  table: 'base',
  field: 'base',
  view: 'base',
  record: 'record',
  comment: 'record',
  dataTable: 'record',
  webhook: 'integration',
  blockInstallation: 'integration',
  invite: 'sharing',
  share: 'sharing',
  interface: 'sharing',
  workspace: 'workspace',
  user: 'user',
  userGroup: 'group',
  enterpriseAccount: 'enterprise',
  auditLogTask: 'compliance',
  export: 'compliance',
};

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
  store: StoreDb;
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
      (params.accountId && deps.state.account(params.accountId) ? params.accountId : undefined) ??
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
        ...(params.interfaceId ? { interfaceId: params.interfaceId } : {}),
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
