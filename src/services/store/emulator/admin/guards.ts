/**
 * What every administration route shares: its dependencies and the checks it makes before acting — the token's
 * scope, the caller being an admin of the enterprise account in the path, the caller's access to a base or
 * workspace — each answering with the upstream's refusal (401 without a token, the model-not-found 403 for a
 * missing scope or an account, base or workspace the caller cannot see, INVALID_PERMISSIONS for too little).
 */
import type { Clock } from '../../../../emulation/clock.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import type { SqliteDatabase } from '../../../../emulation/sqlite.js';
import type { Principal } from '../auth.js';
import { errors, respond, type StoreError } from '../errors.js';
import { atLeast, type BaseRow, type WorkspaceRow } from '../model.js';
import { type Ctx, type RouteDeps, readJson } from '../routes/common.js';
import type { AuditTrail } from './audit.js';
import type { BulkTables } from './bulkTables.js';
import type { Compliance } from './compliance.js';
import type { EnterpriseAccountDoc, WorkspaceAdminDoc } from './model.js';
import type { AdminState } from './state.js';
import type { WorkspaceBaseOrder } from './workspaceOrder.js';

export interface AdminRouteDeps extends RouteDeps {
  state: AdminState;
  trail: AuditTrail;
  clock: Clock;
  /** The emulator's database. */
  db: SqliteDatabase;
  /** Audit log, legacy audit log requests, eDiscovery exports and change events. */
  compliance: Compliance;
  /** The bulk data tables (HyperDB). */
  bulk: BulkTables;
  /** The order of bases inside workspaces. */
  workspaceOrder: WorkspaceBaseOrder;
}

/** The caller, if the token carries the scope. */
export function requireScope(c: Ctx, deps: AdminRouteDeps, scope: string): Result<Principal, StoreError> {
  return deps.access.require(c, scope);
}

/**
 * The caller and the enterprise account in the path, if the token carries the scope and its user administers
 * that account (an admin of it or of its organisation's root). Anything else is the model-not-found 403, as an
 * unknown account is: the upstream does not say which.
 */
export function requireAdmin(
  c: Ctx,
  deps: AdminRouteDeps,
  accountId: string,
  scope: string,
): Result<{ principal: Principal; account: EnterpriseAccountDoc }, StoreError> {
  const principal = deps.access.require(c, scope);
  if (!principal.ok) return principal;
  const account = deps.state.account(accountId);
  if (!account || !deps.state.isAdminOf(principal.value.userId, accountId)) {
    return err(errors.modelNotFound());
  }
  return ok({ principal: principal.value, account });
}

/** The caller's own enterprise account, for SCIM (which names no account): the account its token administers. */
export function requireScimAdmin(
  c: Ctx,
  deps: AdminRouteDeps,
): Result<{ principal: Principal; account: EnterpriseAccountDoc }, StoreError> {
  const principal = deps.access.require(c, 'enterprise.scim.usersAndGroups:manage');
  if (!principal.ok) return principal;
  const accountId = deps.state.profile(principal.value.userId)?.enterpriseAccountId ?? null;
  const account = accountId === null ? undefined : deps.state.account(accountId);
  if (!account || !deps.state.isAdminOf(principal.value.userId, account.id)) {
    return err(errors.modelNotFound());
  }
  return ok({ principal: principal.value, account });
}

/** A base the caller reaches with at least `needed`, under the token's scope. */
export function requireBase(
  c: Ctx,
  deps: AdminRouteDeps,
  baseId: string,
  scope: string,
  needed: 'read' | 'comment' | 'edit' | 'create',
  refused: string,
): Result<{ principal: Principal; base: BaseRow }, StoreError> {
  const principal = deps.access.require(c, scope);
  if (!principal.ok) return principal;
  const base = deps.access.base(principal.value, baseId, needed, refused);
  if (!base.ok) return base;
  return ok({ principal: principal.value, base: base.value });
}

/**
 * A workspace the caller collaborates on with at least `needed` (owners pass every check), under the token's
 * scope. Not collaborating at all, or no such workspace, is the model-not-found 403.
 */
export function requireWorkspace(
  c: Ctx,
  deps: AdminRouteDeps,
  workspaceId: string,
  scope: string,
  needed: 'read' | 'comment' | 'edit' | 'create' | 'owner',
  refused: string,
): Result<{ principal: Principal; workspace: WorkspaceRow; admin: WorkspaceAdminDoc }, StoreError> {
  const principal = deps.access.require(c, scope);
  if (!principal.ok) return principal;
  const workspace = deps.store.schema().workspaceById.get(workspaceId);
  const admin = deps.state.workspaceAdmin(workspaceId);
  const level = workspace && admin ? workspaceLevelOf(deps.state, admin, principal.value.userId) : 'none';
  if (!workspace || !admin || level === 'none') return err(errors.modelNotFound());
  const enough = level === 'owner' || (needed !== 'owner' && atLeast(level, needed));
  if (!enough) return err(errors.notPermitted(refused));
  return ok({ principal: principal.value, workspace, admin });
}

/** The user's level in a workspace: their own grant or the best of their groups'. */
export function workspaceLevelOf(
  state: AdminState,
  workspace: WorkspaceAdminDoc,
  userId: string,
): 'none' | 'read' | 'comment' | 'edit' | 'create' | 'owner' {
  const rank = ['none', 'read', 'comment', 'edit', 'create', 'owner'] as const;
  let best = 0;
  const own = workspace.users[userId];
  if (own) best = Math.max(best, rank.indexOf(own.permissionLevel));
  for (const group of state.groupsOf(userId)) {
    const grant = workspace.groups[group.id];
    if (grant) best = Math.max(best, rank.indexOf(grant.permissionLevel));
  }
  return rank[best] ?? 'none';
}

/**
 * The upstream's add-collaborator routes for bases and workspaces take one collaborator per request, "despite the
 * name": more than one is its 403. Checked before the body's schema, as the upstream does.
 */
export async function refuseSeveralCollaborators(c: Ctx): Promise<Response | undefined> {
  const body = await readJson(c);
  if (!body.ok || typeof body.value !== 'object' || body.value === null) return undefined;
  const list = (body.value as { collaborators?: unknown }).collaborators;
  if (!Array.isArray(list) || list.length <= 1) return undefined;
  return respond(c, {
    status: 403,
    type: 'INVALID_PERMISSIONS',
    message: 'This route currently supports adding only one collaborator at a time',
  });
}
