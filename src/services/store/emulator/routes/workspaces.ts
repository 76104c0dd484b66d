/**
 * Workspaces in the administration plane: create and delete them, read who may reach them (collaborators and
 * invite links, the workspace's own and those of its bases), add, change and remove collaborators, withdraw
 * invites, move a base between workspaces of one organisation, and restrict who may create invites and shares.
 *
 * Who may do what: reading needs any access to the workspace; granting is capped at the caller's own level
 * (owners alone grant or change owners) and, under the `onlyOwners` invite restriction, is for owners only;
 * deleting the workspace and changing its restrictions are for owners. A workspace always keeps one individual
 * owner. Workspace grants raise base access through AdminState.inheritedPermission, so nothing here touches the
 * data plane's base_permissions.
 *
 * The order of bases inside a workspace (moveBase's targetIndex) is kept by WorkspaceBaseOrder
 * (admin/workspaceOrder.ts).
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { err, ok } from '../../../../emulation/result.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import {
  type AdminRouteDeps,
  refuseSeveralCollaborators,
  requireScope,
  requireWorkspace,
  workspaceLevelOf,
} from '../admin/guards.js';
import type { Grant, WorkspaceAdminDoc, WorkspaceLevel } from '../admin/model.js';
import { errors, respond, type StoreError } from '../errors.js';
import { arrayParam, type Ctx, createArea, param, readBody, route } from './common.js';
import { inviteJson } from './sharing.js';

export const WORKSPACES_READ_SCOPE = 'workspacesAndBases:read';
export const WORKSPACES_WRITE_SCOPE = 'workspacesAndBases:write';
export const WORKSPACES_MANAGE_SCOPE = 'workspacesAndBases:manage';

const INCLUDES = ['collaborators', 'inviteLinks'] as const;

type Level = 'none' | WorkspaceLevel;
const RANK: Readonly<Record<Level, number>> = { none: 0, read: 1, comment: 2, edit: 3, create: 4, owner: 5 };

/** The upstream's documented refusal (add-workspace-collaborator): only users own workspaces. */
const groupOwner = (): StoreError => ({
  status: 403,
  type: 'INVALID_PERMISSIONS',
  message: 'Groups cannot be the owners of a workspace',
});

// Refusals the error catalogue has no entry for; the types are the emulator's choice (the upstream documents
// neither the refusal nor its body).
const workspaceNotEmpty = (count: number): StoreError => ({
  status: 422,
  type: 'WORKSPACE_NOT_EMPTY',
  message: `This workspace still holds ${count} base${count === 1 ? '' : 's'}: move them to another workspace or delete them first.`,
});
const lastOwner = (): StoreError => ({
  status: 422,
  type: 'CANNOT_REMOVE_LAST_OWNER',
  message:
    'This collaborator is the last owner of the workspace: make someone else an owner first, then change or remove this one.',
});
const collaboratorNotFound = (id: string): StoreError => ({
  status: 404,
  type: 'NOT_FOUND',
  message: `Could not find collaborator ${id} in this workspace`,
});
const inviteNotFound = (id: string): StoreError => ({
  status: 404,
  type: 'NOT_FOUND',
  message: `Could not find invite ${id}`,
});

export function workspacesArea(deps: AdminRouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { store, state, clock } = deps;
  const { workspaceOrder } = deps;

  const now = () => clock.now().toISOString();
  const levelIn = (admin: WorkspaceAdminDoc, userId: string): Level => workspaceLevelOf(state, admin, userId);
  /**
   * A group's name, or undefined for a group since deleted. The upstream's collaborator lists "do not include
   * deleted collaborators", so a grant whose user or group is gone is left out rather than answered with null.
   */
  const groupNameOf = (groupId: string) => state.get('group', groupId)?.name;
  /** The workspace in the path, if the token carries `scope` and the caller's level there is `needed` or more. */
  const workspaceOf = (c: Ctx, scope: string, needed: WorkspaceLevel, refused: string) =>
    requireWorkspace(c, deps, param(c, 'workspaceId'), scope, needed, refused);

  // --- create and delete ---------------------------------------------------------------------------------

  async function createWorkspace(c: Ctx) {
    const principal = requireScope(c, deps, WORKSPACES_MANAGE_SCOPE);
    if (!principal.ok) return respond(c, principal.error);
    const body = await readBody(c, 'createWorkspace');
    if (!body.ok) return respond(c, body.error);
    const accountId = String(body.value.enterpriseAccountId);
    const account = state.account(accountId);
    if (!account) return respond(c, errors.modelNotFound());
    const userId = principal.value.userId;
    const profile = state.profile(userId);
    const memberAccount = profile?.enterpriseAccountId
      ? state.account(profile.enterpriseAccountId)
      : undefined;
    // Members of the account's organisation (any of its accounts) may create workspaces in it; a deactivated
    // member may not. The account exists, so the refusal says why rather than hiding it.
    if (
      !memberAccount ||
      profile?.state !== 'provisioned' ||
      memberAccount.rootEnterpriseAccountId !== account.rootEnterpriseAccountId
    ) {
      return respond(
        c,
        errors.notPermitted(
          `create workspaces in enterprise account ${accountId}: only members of its organisation can`,
        ),
      );
    }
    const id = store.newId('workspace');
    const createdTime = now();
    state.transaction(() => {
      store.insertWorkspace({ id, name: String(body.value.name), createdTime });
      state.put('workspace', {
        id,
        enterpriseAccountId: account.id,
        inviteCreationRestriction: 'unrestricted',
        shareCreationRestriction: 'unrestricted',
        users: { [userId]: { permissionLevel: 'owner', createdTime, grantedByUserId: userId } },
        groups: {},
        invites: [],
      });
    });
    return c.json({ id });
  }

  function deleteWorkspace(c: Ctx) {
    const target = workspaceOf(
      c,
      WORKSPACES_MANAGE_SCOPE,
      'owner',
      'delete this workspace: only its owners can',
    );
    if (!target.ok) return respond(c, target.error);
    const workspaceId = target.value.workspace.id;
    // Deleting a workspace never takes bases with it: bases are where the data is, so a workspace that still
    // holds some is refused until they are moved or deleted, one deliberate call each.
    const bases = workspaceOrder.baseIdsOf(workspaceId);
    if (bases.length > 0) return respond(c, workspaceNotEmpty(bases.length));
    state.transaction(() => {
      store.deleteWorkspace(workspaceId);
      state.remove('workspace', workspaceId);
      workspaceOrder.remove(workspaceId);
    });
    return c.json({});
  }

  // --- read ----------------------------------------------------------------------------------------------

  function getWorkspaceCollaborators(c: Ctx) {
    const target = workspaceOf(c, WORKSPACES_READ_SCOPE, 'read', 'read this workspace');
    if (!target.ok) return respond(c, target.error);
    const include = arrayParam(c, 'include') ?? [];
    const unknown = include.find((value) => !(INCLUDES as readonly string[]).includes(value));
    if (unknown !== undefined) {
      return respond(c, errors.invalidRequest(`include: "${unknown}" is not one of ${INCLUDES.join(', ')}.`));
    }
    const { workspace, admin } = target.value;
    const baseIds = workspaceOrder.baseIdsOf(workspace.id);
    const body: Record<string, unknown> = {
      id: workspace.id,
      name: workspace.name,
      createdTime: workspace.createdTime,
      baseIds,
      workspaceRestrictions: {
        inviteCreationRestriction: admin.inviteCreationRestriction,
        shareCreationRestriction: admin.shareCreationRestriction,
      },
    };
    if (include.includes('collaborators')) {
      const individual = {
        baseCollaborators: baseIds.flatMap((baseId) => individualBaseCollaborators(baseId, admin)),
        workspaceCollaborators: Object.entries(admin.users).flatMap(([userId, grant]) => {
          const email = store.schema().userById.get(userId)?.email;
          return email === undefined ? [] : [{ userId, email, ...grantJson(grant) }];
        }),
      };
      body.individualCollaborators = individual;
      body.groupCollaborators = {
        baseCollaborators: baseIds.flatMap((baseId) =>
          Object.entries(state.get('base', baseId)?.groups ?? {}).flatMap(([groupId, grant]) => {
            const name = groupNameOf(groupId);
            return name === undefined ? [] : [{ baseId, groupId, name, ...grantJson(grant) }];
          }),
        ),
        workspaceCollaborators: Object.entries(admin.groups).flatMap(([groupId, grant]) => {
          const name = groupNameOf(groupId);
          return name === undefined ? [] : [{ groupId, name, ...grantJson(grant) }];
        }),
      };
      // The upstream's sample still carries this older name for the individual collaborators as well.
      body.collaborators = individual;
    }
    if (include.includes('inviteLinks')) {
      body.inviteLinks = {
        baseInviteLinks: baseIds.flatMap((baseId) =>
          (state.get('base', baseId)?.invites ?? []).map((invite) => ({ baseId, ...inviteJson(invite) })),
        ),
        workspaceInviteLinks: admin.invites.map(inviteJson),
      };
    }
    return c.json(body);
  }

  /** People granted access to one base directly (the data plane's grants, with who granted them when). */
  const individualBaseCollaborators = (baseId: string, admin: WorkspaceAdminDoc) => {
    const snapshot = store.schema();
    const base = snapshot.baseById.get(baseId);
    // A base since deleted has no collaborators to list (its createdTime would otherwise be missing).
    if (!base) return [];
    const grants = state.get('base', baseId)?.userGrants ?? {};
    const fallbackGrantor = state.ownersOf(admin.id)[0];
    return snapshot.users.flatMap((user) => {
      const level = store.directPermissionOf(baseId, user.id);
      if (level === 'none') return [];
      const meta = grants[user.id];
      return [
        {
          baseId,
          userId: user.id,
          email: user.email,
          permissionLevel: level,
          createdTime: meta?.createdTime ?? base.createdTime,
          grantedByUserId: meta?.grantedByUserId ?? fallbackGrantor ?? user.id,
        },
      ];
    });
  };

  // --- collaborators -------------------------------------------------------------------------------------

  async function addWorkspaceCollaborator(c: Ctx) {
    const target = workspaceOf(c, WORKSPACES_WRITE_SCOPE, 'read', 'add collaborators to this workspace');
    if (!target.ok) return respond(c, target.error);
    const { principal, admin } = target.value;
    const several = await refuseSeveralCollaborators(c);
    if (several) return several;
    const body = await readBody(c, 'addWorkspaceCollaborators');
    if (!body.ok) return respond(c, body.error);
    if (!state.mayCreateIn(admin.id, principal.userId, 'invite')) {
      return respond(
        c,
        errors.notPermitted(
          'add collaborators to this workspace: its inviteCreationRestriction is onlyOwners, so only its owners can',
        ),
      );
    }
    const own = levelIn(admin, principal.userId);
    const entries = body.value.collaborators as {
      user?: { id: string };
      group?: { id: string };
      permissionLevel: WorkspaceLevel;
    }[];
    const account = state.account(admin.enterpriseAccountId);
    for (const [i, entry] of entries.entries()) {
      const where = `collaborators[${i}]`;
      const id = entry.user?.id ?? entry.group?.id ?? '';
      if (entry.user) {
        if (!store.schema().userById.has(id)) {
          return respond(c, errors.invalidRequest(`${where}.user.id: there is no user ${id}.`));
        }
        if (admin.users[id]) {
          return respond(
            c,
            errors.invalidRequest(
              `${where}.user.id: ${id} is already a collaborator of this workspace; change their permission level instead.`,
            ),
          );
        }
      } else {
        if (entry.permissionLevel === 'owner') return respond(c, groupOwner());
        const group = state.get('group', id);
        if (!group)
          return respond(c, errors.invalidRequest(`${where}.group.id: there is no user group ${id}.`));
        // A group of another organisation cannot collaborate: its members are that organisation's business.
        if (!account || !state.sameOrganisation(group.enterpriseAccountId, account.id)) {
          return respond(
            c,
            errors.invalidRequest(
              `${where}.group.id: user group ${id} belongs to another enterprise organisation than this workspace.`,
            ),
          );
        }
        if (admin.groups[id]) {
          return respond(
            c,
            errors.invalidRequest(
              `${where}.group.id: ${id} is already a collaborator of this workspace; change its permission level instead.`,
            ),
          );
        }
      }
      const refused = grantRefusal(own, entry.permissionLevel);
      if (refused) return respond(c, refused);
    }
    const grantedAt = now();
    state.update('workspace', admin.id, (doc) => {
      for (const entry of entries) {
        const grant: Grant<WorkspaceLevel> = {
          permissionLevel: entry.permissionLevel,
          createdTime: grantedAt,
          grantedByUserId: principal.userId,
        };
        if (entry.user) doc.users[entry.user.id] = grant;
        else if (entry.group) doc.groups[entry.group.id] = grant;
      }
    });
    return c.json({});
  }

  /** The collaborator in the path and the caller's standing to change or remove them. */
  const collaboratorTarget = (c: Ctx, what: string) => {
    const target = workspaceOf(c, WORKSPACES_WRITE_SCOPE, 'read', what);
    if (!target.ok) return target;
    const { principal, admin } = target.value;
    const id = param(c, 'userOrGroupId');
    const kind: 'users' | 'groups' | undefined = admin.users[id]
      ? 'users'
      : admin.groups[id]
        ? 'groups'
        : undefined;
    const grant = admin.users[id] ?? admin.groups[id];
    if (!kind || !grant) return err(collaboratorNotFound(id));
    return ok({ principal, admin, id, kind, grant });
  };

  async function updateWorkspaceCollaborator(c: Ctx) {
    const target = collaboratorTarget(c, "change collaborators' access to this workspace");
    if (!target.ok) return respond(c, target.error);
    const { principal, admin, id, kind, grant } = target.value;
    const body = await readBody(c, 'updateWorkspaceCollaborator');
    if (!body.ok) return respond(c, body.error);
    const next = body.value.permissionLevel as WorkspaceLevel;
    if (kind === 'groups' && next === 'owner') return respond(c, groupOwner());
    const own = levelIn(admin, principal.userId);
    const refused =
      changeRefusal(own, grant.permissionLevel, id === principal.userId) ?? grantRefusal(own, next);
    if (refused) return respond(c, refused);
    if (isLastOwner(admin, kind, id) && next !== 'owner') return respond(c, lastOwner());
    state.update('workspace', admin.id, (doc) => {
      const current = doc[kind][id];
      if (current) current.permissionLevel = next;
    });
    return c.json({});
  }

  function deleteWorkspaceCollaborator(c: Ctx) {
    const target = collaboratorTarget(c, 'remove collaborators from this workspace');
    if (!target.ok) return respond(c, target.error);
    const { principal, admin, id, kind, grant } = target.value;
    const self = id === principal.userId;
    // Anyone may leave a workspace; removing someone else follows the same rules as changing their access.
    if (!self) {
      const refused = changeRefusal(levelIn(admin, principal.userId), grant.permissionLevel, false);
      if (refused) return respond(c, refused);
    }
    if (isLastOwner(admin, kind, id)) return respond(c, lastOwner());
    state.update('workspace', admin.id, (doc) => {
      delete doc[kind][id];
    });
    return c.json({});
  }

  const isLastOwner = (admin: WorkspaceAdminDoc, kind: 'users' | 'groups', id: string) =>
    kind === 'users' &&
    admin.users[id]?.permissionLevel === 'owner' &&
    state.ownersOf(admin.id).filter((owner) => owner !== id).length === 0;

  // --- invites -------------------------------------------------------------------------------------------

  function deleteWorkspaceInvite(c: Ctx) {
    const target = workspaceOf(c, WORKSPACES_WRITE_SCOPE, 'read', 'delete invites to this workspace');
    if (!target.ok) return respond(c, target.error);
    const { principal, admin } = target.value;
    const inviteId = param(c, 'inviteId');
    const invite = admin.invites.find((i) => i.id === inviteId);
    if (!invite) return respond(c, inviteNotFound(inviteId));
    // Whoever sent an invite may withdraw it; anyone else needs creator access or better.
    if (invite.invitedByUserId !== principal.userId && RANK[levelIn(admin, principal.userId)] < RANK.create) {
      return respond(
        c,
        errors.notPermitted('delete this invite: only its sender and the workspace owners and creators can'),
      );
    }
    state.update('workspace', admin.id, (doc) => {
      doc.invites = doc.invites.filter((i) => i.id !== inviteId);
    });
    return c.json({});
  }

  // --- moving bases --------------------------------------------------------------------------------------

  async function moveBase(c: Ctx) {
    const source = workspaceOf(
      c,
      WORKSPACES_MANAGE_SCOPE,
      'create',
      'move bases out of this workspace: it needs owner or creator access',
    );
    if (!source.ok) return respond(c, source.error);
    const body = await readBody(c, 'moveBase');
    if (!body.ok) return respond(c, body.error);
    const from = source.value.admin;
    const baseId = String(body.value.baseId);
    const targetId = String(body.value.targetWorkspaceId);
    const targetIndex = body.value.targetIndex as number | undefined;
    const base = store.schema().baseById.get(baseId);
    if (!base || base.workspaceId !== from.id) {
      return respond(c, errors.invalidRequest(`baseId: ${baseId} is not a base of workspace ${from.id}.`));
    }
    const snapshot = store.schema();
    const to = state.workspaceAdmin(targetId);
    if (!snapshot.workspaceById.has(targetId) || !to) {
      return respond(c, errors.invalidRequest(`targetWorkspaceId: there is no workspace ${targetId}.`));
    }
    const targetLevel = levelIn(to, source.value.principal.userId);
    if (targetLevel === 'none') return respond(c, errors.modelNotFound());
    if (!state.sameOrganisation(from.enterpriseAccountId, to.enterpriseAccountId)) {
      return respond(
        c,
        errors.invalidRequest(
          `targetWorkspaceId: workspace ${targetId} belongs to another enterprise organisation; bases move only between workspaces of one organisation.`,
        ),
      );
    }
    if (RANK[targetLevel] < RANK.create) {
      return respond(
        c,
        errors.notPermitted(`move bases into workspace ${targetId}: it needs owner or creator access`),
      );
    }
    const remaining = workspaceOrder.baseIdsOf(targetId).filter((id) => id !== baseId);
    if (targetIndex !== undefined && targetIndex > remaining.length) {
      return respond(
        c,
        errors.invalidRequest(
          `targetIndex: workspace ${targetId} would hold ${remaining.length + 1} bases, so the index must be from 0 to ${remaining.length}.`,
        ),
      );
    }
    // Without targetIndex the base goes last, as a new base would.
    remaining.splice(targetIndex ?? remaining.length, 0, baseId);
    state.transaction(() => {
      if (targetId !== from.id) store.moveBase(baseId, targetId);
      workspaceOrder.set(targetId, remaining);
    });
    return c.json({});
  }

  // --- restrictions --------------------------------------------------------------------------------------

  async function updateWorkspaceRestrictions(c: Ctx) {
    const target = workspaceOf(
      c,
      WORKSPACES_WRITE_SCOPE,
      'owner',
      "change this workspace's restrictions: only its owners can",
    );
    if (!target.ok) return respond(c, target.error);
    const body = await readBody(c, 'updateWorkspaceRestrictions');
    if (!body.ok) return respond(c, body.error);
    const invite = body.value.inviteCreationRestriction as
      | WorkspaceAdminDoc['inviteCreationRestriction']
      | undefined;
    const share = body.value.shareCreationRestriction as
      | WorkspaceAdminDoc['shareCreationRestriction']
      | undefined;
    state.update('workspace', target.value.admin.id, (doc) => {
      if (invite !== undefined) doc.inviteCreationRestriction = invite;
      if (share !== undefined) doc.shareCreationRestriction = share;
    });
    return c.json({});
  }

  route(area, STORE_OPERATIONS.CreateWorkspace, createWorkspace);
  route(area, STORE_OPERATIONS.DeleteWorkspace, deleteWorkspace);
  route(area, STORE_OPERATIONS.GetWorkspaceCollaborators, getWorkspaceCollaborators);
  route(area, STORE_OPERATIONS.AddWorkspaceCollaborator, addWorkspaceCollaborator);
  route(area, STORE_OPERATIONS.UpdateWorkspaceCollaborator, updateWorkspaceCollaborator);
  route(area, STORE_OPERATIONS.DeleteWorkspaceCollaborator, deleteWorkspaceCollaborator);
  route(area, STORE_OPERATIONS.DeleteWorkspaceInvite, deleteWorkspaceInvite);
  route(area, STORE_OPERATIONS.MoveBase, moveBase);
  route(area, STORE_OPERATIONS.UpdateWorkspaceRestrictions, updateWorkspaceRestrictions);
  return area;
}

function grantJson(grant: Grant<string>) {
  return {
    permissionLevel: grant.permissionLevel,
    createdTime: grant.createdTime,
    grantedByUserId: grant.grantedByUserId,
  };
}

/** Whether someone at `own` may grant `level`: owners grant anything, others at most their own level. */
function grantRefusal(own: Level, level: WorkspaceLevel): StoreError | undefined {
  if (level === 'owner' && own !== 'owner') {
    return errors.notPermitted('grant owner access to this workspace: only its owners can');
  }
  if (RANK[level] > RANK[own]) {
    return errors.notPermitted(
      `grant ${level} access to this workspace: you can grant at most your own level (${own})`,
    );
  }
  return undefined;
}

/**
 * Whether someone at `own` may change or remove a collaborator holding `current`: it takes creator access or
 * better, and only owners touch owners. Changing one's own level is always allowed (downwards, by grantRefusal).
 */
function changeRefusal(own: Level, current: WorkspaceLevel, self: boolean): StoreError | undefined {
  if (self) return undefined;
  if (RANK[own] < RANK.create) {
    return errors.notPermitted(
      "change or remove this workspace's collaborators: it needs owner or creator access",
    );
  }
  if (current === 'owner' && own !== 'owner') {
    return errors.notPermitted("change or remove this workspace's owners: only owners can");
  }
  return undefined;
}
