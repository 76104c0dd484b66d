/**
 * Taking a user out of the administration plane: deleting a user everywhere (every group, workspace, base and
 * interface grant, the profile, and the data plane's user row), and unsharing a user from every asset of a set of
 * enterprise accounts (the upstream's "remove user from enterprise"), which reports what changed in the
 * upstream's UserRemoved shape. Both run in one transaction of the data plane, so either everything changes or
 * nothing does.
 */
import type { PermissionLevel } from '../model.js';
import type { AdminRouteDeps } from './guards.js';
import type { WorkspaceLevel } from './model.js';

export interface UserRemoved {
  wasUserRemovedAsAdmin: boolean;
  shared: {
    workspaces: { permissionLevel: 'owner'; userId: string; workspaceId: string; workspaceName: string }[];
  };
  unshared: {
    bases: { baseId: string; baseName: string; formerPermissionLevel: PermissionLevel; userId: string }[];
    interfaces: {
      baseId: string;
      formerPermissionLevel: string;
      interfaceId: string;
      interfaceName: string;
      userId: string;
    }[];
    workspaces: {
      formerPermissionLevel: WorkspaceLevel;
      userId: string;
      workspaceId: string;
      workspaceName: string;
    }[];
  };
}

export interface UnshareOptions {
  /** Becomes the owner of each workspace the user is the sole owner of; required when there is one. */
  replacementOwnerId?: string | undefined;
  /** Reports what would change without changing anything. */
  dryRun: boolean;
  /** The enterprise accounts whose workspaces, bases and interfaces the user is taken out of. */
  accounts: ReadonlySet<string>;
}

/**
 * Deletes a user from both planes: group memberships, workspace grants, direct base grants (with their
 * BaseAdminDoc bookkeeping), interface grants, the profile and the data plane's user row.
 */
export function deleteUserEverywhere(deps: AdminRouteDeps, userId: string): void {
  const { state, store } = deps;
  state.transaction(() => {
    for (const group of state.list('group')) {
      if (group.members.some((m) => m.userId === userId)) {
        state.update('group', group.id, (g) => {
          g.members = g.members.filter((m) => m.userId !== userId);
        });
      }
    }
    for (const workspace of state.list('workspace')) {
      if (workspace.users[userId]) {
        state.update('workspace', workspace.id, (w) => {
          delete w.users[userId];
        });
      }
    }
    for (const base of store.schema().bases) {
      if (store.directPermissionOf(base.id, userId) !== 'none') store.setPermission(base.id, userId, 'none');
      if (state.get('base', base.id)?.userGrants[userId]) {
        state.update('base', base.id, (b) => {
          delete b.userGrants[userId];
        });
      }
    }
    for (const page of state.list('interface')) {
      if (page.users[userId]) {
        state.update('interface', page.id, (p) => {
          delete p.users[userId];
        });
      }
    }
    state.remove('profile', userId);
    store.deleteUser(userId);
  });
}

/**
 * Workspaces of the accounts in which the user is the only individual owner: removing the user from them needs
 * someone to take over.
 */
export function soleOwnedWorkspaces(
  deps: AdminRouteDeps,
  userId: string,
  accounts: ReadonlySet<string>,
): string[] {
  return deps.state
    .list('workspace')
    .filter((w) => accounts.has(w.enterpriseAccountId))
    .filter((w) => {
      const owners = deps.state.ownersOf(w.id);
      return owners.length === 1 && owners[0] === userId;
    })
    .map((w) => w.id);
}

/**
 * Workspaces (of any account) in which the user is the only owner while others collaborate: deleting the user
 * would leave them without an owner, so the upstream refuses (delete-user-by-id, delete-scim-user).
 */
export function soleOwnedSharedWorkspaces(deps: AdminRouteDeps, userId: string): string[] {
  return deps.state
    .list('workspace')
    .filter((w) => {
      const owners = deps.state.ownersOf(w.id);
      const others = Object.keys(w.users).some((id) => id !== userId) || Object.keys(w.groups).length > 0;
      return owners.length === 1 && owners[0] === userId && others;
    })
    .map((w) => w.id);
}

/**
 * Unshares the user from every workspace, base and interface of the accounts and takes away admin access where
 * the user administers one of them, answering in the upstream's UserRemoved shape. A workspace the user is the
 * sole owner of goes to `replacementOwnerId` (listed under `shared.workspaces`); callers check
 * `soleOwnedWorkspaces` first and refuse without one — called without it, this throws.
 */
export function unshareEverywhere(
  deps: AdminRouteDeps,
  userId: string,
  options: UnshareOptions,
): UserRemoved {
  const { state, store } = deps;
  const { accounts, dryRun, replacementOwnerId } = options;
  const soleOwned = new Set(soleOwnedWorkspaces(deps, userId, accounts));
  if (soleOwned.size > 0 && !replacementOwnerId) {
    throw new Error('unshareEverywhere: a sole owner needs a replacementOwnerId');
  }
  const result: UserRemoved = {
    wasUserRemovedAsAdmin: false,
    shared: { workspaces: [] },
    unshared: { bases: [], interfaces: [], workspaces: [] },
  };
  const run = (): void => {
    const snapshot = store.schema();
    const workspaceName = (id: string) => snapshot.workspaceById.get(id)?.name ?? '';
    for (const workspace of state.list('workspace')) {
      if (!accounts.has(workspace.enterpriseAccountId)) continue;
      const grant = workspace.users[userId];
      if (!grant) continue;
      result.unshared.workspaces.push({
        formerPermissionLevel: grant.permissionLevel,
        userId,
        workspaceId: workspace.id,
        workspaceName: workspaceName(workspace.id),
      });
      const handOver = soleOwned.has(workspace.id) && replacementOwnerId !== undefined;
      if (handOver) {
        result.shared.workspaces.push({
          permissionLevel: 'owner',
          userId: replacementOwnerId,
          workspaceId: workspace.id,
          workspaceName: workspaceName(workspace.id),
        });
      }
      if (dryRun) continue;
      state.update('workspace', workspace.id, (w) => {
        delete w.users[userId];
        if (handOver) {
          w.users[replacementOwnerId] = {
            permissionLevel: 'owner',
            createdTime: deps.clock.now().toISOString(),
            grantedByUserId: userId,
          };
        }
      });
    }
    for (const base of snapshot.bases) {
      const accountId = state.workspaceAdmin(base.workspaceId)?.enterpriseAccountId;
      if (accountId === undefined || !accounts.has(accountId)) continue;
      const level = store.directPermissionOf(base.id, userId);
      if (level === 'none') continue;
      result.unshared.bases.push({
        baseId: base.id,
        baseName: base.name,
        formerPermissionLevel: level,
        userId,
      });
      if (dryRun) continue;
      store.setPermission(base.id, userId, 'none');
      if (state.get('base', base.id)?.userGrants[userId]) {
        state.update('base', base.id, (b) => {
          delete b.userGrants[userId];
        });
      }
    }
    for (const page of state.list('interface')) {
      const accountId = state.accountOfBase(page.baseId);
      if (accountId === undefined || !accounts.has(accountId)) continue;
      const grant = page.users[userId];
      if (!grant) continue;
      result.unshared.interfaces.push({
        baseId: page.baseId,
        formerPermissionLevel: grant.permissionLevel,
        interfaceId: page.id,
        interfaceName: page.name,
        userId,
      });
      if (dryRun) continue;
      state.update('interface', page.id, (p) => {
        delete p.users[userId];
      });
    }
    const profile = state.profile(userId);
    if (
      profile?.isAdmin &&
      profile.enterpriseAccountId !== null &&
      accounts.has(profile.enterpriseAccountId)
    ) {
      result.wasUserRemovedAsAdmin = true;
      if (!dryRun) {
        state.update('profile', userId, (p) => {
          p.isAdmin = false;
        });
      }
    }
  };
  if (dryRun) run();
  else state.transaction(run);
  return result;
}
