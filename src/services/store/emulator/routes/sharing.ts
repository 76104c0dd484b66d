/**
 * Who may use a base and its interfaces, and how it is shared: the base's collaborators, invite links and
 * interfaces (GET /v0/meta/bases/{baseId}?include[]=…), adding, changing and removing base and interface
 * collaborators, withdrawing outstanding invites, extensions (block installations) turned on, off or deleted,
 * and share links turned on, off or deleted.
 *
 * Access: reading needs workspacesAndBases:read and read access to the base; changing collaborators, invites
 * and extensions needs workspacesAndBases:write and creator access; shares need workspacesAndBases.shares:manage
 * and creator access, listing them included (a share's token prefix is as sensitive as the share itself). An
 * admin of the enterprise account the base belongs to passes these checks without collaborating on it: the
 * upstream's sample answers such a caller with `permissionLevel: "none"`. Adding a collaborator and enabling a
 * share respect the workspace's invite and share creation restrictions (onlyOwners: workspace owners only).
 *
 * Individual base levels live in the data plane's base_permissions (so record access changes at once); the
 * BaseAdminDoc keeps when and by whom each was granted, the group grants and the invites.
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import {
  type AdminRouteDeps,
  refuseSeveralCollaborators,
  requireBase,
  requireScope,
} from '../admin/guards.js';
import type {
  BaseAdminDoc,
  BlockInstallationDoc,
  Grant,
  InterfaceDoc,
  InterfaceLevel,
  InviteDoc,
  ShareDoc,
  WorkspaceLevel,
} from '../admin/model.js';
import type { Principal } from '../auth.js';
import { errors, respond, type StoreError } from '../errors.js';
import type { BaseRow, PermissionLevel } from '../model.js';
import { arrayParam, type Ctx, createArea, param, readBody, route } from './common.js';

const READ_SCOPE = 'workspacesAndBases:read';
const WRITE_SCOPE = 'workspacesAndBases:write';
const SHARES_SCOPE = 'workspacesAndBases.shares:manage';

const BASE_INCLUDES = ['collaborators', 'inviteLinks', 'interfaces'] as const;
const INTERFACE_INCLUDES = ['collaborators', 'inviteLinks'] as const;

// --- errors this family adds ------------------------------------------------------------------------------

function notFound(what: string, id: string): StoreError {
  return { status: 404, type: 'NOT_FOUND', message: `Could not find ${what} ${id}` };
}

/** The workspace restricts creating invites or shares to its owners (the message names the restriction). */
function restricted(what: 'invite' | 'share', action: string): StoreError {
  const setting = what === 'invite' ? 'inviteCreationRestriction' : 'shareCreationRestriction';
  return {
    status: 403,
    type: 'INVALID_PERMISSIONS',
    message: `You are not permitted to ${action}: the workspace's ${setting} is onlyOwners, so only workspace owners may ${what === 'invite' ? 'add collaborators' : 'enable shares'}`,
  };
}

/**
 * A base always keeps an individual collaborator with creator access: the upstream does not say what it does
 * when the last one goes, and a base nobody can administer (short of a workspace owner) is what a user would
 * want to be stopped from making. The type is the emulator's choice.
 */
function lastCreator(userId: string): StoreError {
  return {
    status: 422,
    type: 'CANNOT_REMOVE_LAST_CREATOR',
    message: `User ${userId} is the base's last individual collaborator with creator access; give another collaborator creator access first`,
  };
}

// --- wire shapes -------------------------------------------------------------------------------------------

/**
 * An outstanding invite as the upstream's invite link. Our invites are all for one email address: single-use
 * links. Base, interface and workspace invites alike (the workspace collaborators route shows them too).
 */
export function inviteJson(invite: InviteDoc) {
  return {
    id: invite.id,
    createdTime: invite.createdTime,
    invitedEmail: invite.invitedEmail,
    permissionLevel: invite.permissionLevel,
    referredByUserId: invite.invitedByUserId,
    restrictedToEmailDomains: [] as string[],
    type: 'singleUse',
  };
}

function blockInstallationJson(b: BlockInstallationDoc) {
  return {
    id: b.id,
    name: b.name,
    state: b.state,
    createdTime: b.createdTime,
    createdByUserId: b.createdByUserId,
    blockId: b.blockId,
  };
}

function shareJson(s: ShareDoc) {
  return {
    shareId: s.id,
    shareTokenPrefix: s.shareTokenPrefix,
    state: s.state,
    type: s.type,
    ...(s.viewId === null ? {} : { viewId: s.viewId }),
    ...(s.blockInstallationId === null ? {} : { blockInstallationId: s.blockInstallationId }),
    createdByUserId: s.createdByUserId,
    createdTime: s.createdTime,
    isPasswordProtected: s.isPasswordProtected,
    restrictedToEmailDomains: s.restrictedToEmailDomains,
    restrictedToEnterpriseMembers: s.restrictedToEnterpriseMembers,
    // The sample shows the effective allow list only for a share restricted to domains.
    ...(s.restrictedToEmailDomains.length > 0
      ? { effectiveEmailDomainAllowList: s.restrictedToEmailDomains }
      : {}),
  };
}

export function sharingArea(deps: AdminRouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { store, state, clock } = deps;
  const now = () => clock.now().toISOString();

  // --- access ------------------------------------------------------------------------------------------

  /** Whether the caller administers the enterprise account the base belongs to. */
  const adminOfBase = (userId: string, baseId: string): boolean => {
    const account = state.accountOfBase(baseId);
    return account !== undefined && state.isAdminOf(userId, account);
  };

  /** requireBase, also letting through an admin of the base's enterprise account (under the same scope). */
  const baseFor = (
    c: Ctx,
    scope: string,
    needed: 'read' | 'create',
    refused: string,
  ): Result<{ principal: Principal; base: BaseRow }, StoreError> => {
    const baseId = param(c, 'baseId');
    const principal = deps.access.principal(c);
    const base = store.schema().baseById.get(baseId);
    if (principal?.scopes.has(scope) && base && adminOfBase(principal.userId, baseId)) {
      return ok({ principal, base });
    }
    return requireBase(c, deps, baseId, scope, needed, refused);
  };

  const userLabel = (userId: string) => store.schema().userById.get(userId)?.email ?? userId;

  /** The base's admin document; a base created through the API has none until something is granted. */
  const baseAdminOf = (baseId: string): BaseAdminDoc =>
    state.get('base', baseId) ?? { id: baseId, userGrants: {}, groups: {}, invites: [] };

  // --- collaborator views ------------------------------------------------------------------------------

  const userCollaborator = <L>(userId: string, grant: Grant<L>) => ({
    userId,
    email: userLabel(userId),
    permissionLevel: grant.permissionLevel,
    createdTime: grant.createdTime,
    grantedByUserId: grant.grantedByUserId,
  });

  const groupCollaborator = <L>(groupId: string, grant: Grant<L>) => ({
    groupId,
    name: state.get('group', groupId)?.name ?? null,
    permissionLevel: grant.permissionLevel,
    createdTime: grant.createdTime,
    grantedByUserId: grant.grantedByUserId,
  });

  /** Users holding a direct grant on the base, with when and by whom it was given. */
  const individualGrants = (base: BaseRow): [string, Grant<PermissionLevel>][] => {
    const doc = baseAdminOf(base.id);
    const out: [string, Grant<PermissionLevel>][] = [];
    for (const user of store.schema().users) {
      const level = store.directPermissionOf(base.id, user.id);
      if (level === 'none') continue;
      // A grant the admin plane did not see (the creator of a base made through the API): dated with the base
      // and granted by the user themselves.
      const meta = doc.userGrants[user.id] ?? { createdTime: base.createdTime, grantedByUserId: user.id };
      out.push([user.id, { permissionLevel: level, ...meta }]);
    }
    return out;
  };

  const knownUsers = (grants: Record<string, Grant<WorkspaceLevel>>) =>
    Object.entries(grants).filter(([userId]) => store.schema().userById.has(userId));
  const knownGroups = <L>(grants: Record<string, Grant<L>>) =>
    Object.entries(grants).filter(([groupId]) => state.get('group', groupId) !== undefined);

  /** The base's own and its workspace's collaborators, groups and individuals, as both routes list them. */
  const baseAndWorkspaceCollaborators = (base: BaseRow) => {
    const workspace = state.workspaceAdmin(base.workspaceId);
    return {
      groups: {
        baseCollaborators: knownGroups(baseAdminOf(base.id).groups).map(([id, g]) =>
          groupCollaborator(id, g),
        ),
        workspaceCollaborators: knownGroups(workspace?.groups ?? {}).map(([id, g]) =>
          groupCollaborator(id, g),
        ),
      },
      individuals: {
        baseCollaborators: individualGrants(base).map(([id, g]) => userCollaborator(id, g)),
        workspaceCollaborators: knownUsers(workspace?.users ?? {}).map(([id, g]) => userCollaborator(id, g)),
      },
    };
  };

  const interfaceSections = (doc: InterfaceDoc) => ({
    groupCollaborators: knownGroups(doc.groups).map(([id, g]) => groupCollaborator(id, g)),
    individualCollaborators: Object.entries(doc.users)
      .filter(([userId]) => store.schema().userById.has(userId))
      .map(([id, g]) => userCollaborator(id, g)),
    inviteLinks: doc.invites.map(inviteJson),
  });

  /** The caller's level on an interface: their base level, else their own or their groups' interface grant. */
  const interfaceLevelOf = (doc: InterfaceDoc, userId: string): PermissionLevel => {
    const baseLevel = store.permissionOf(doc.baseId, userId);
    if (baseLevel !== 'none') return baseLevel;
    if (state.profile(userId)?.state === 'deactivated') return 'none';
    const rank: InterfaceLevel[] = ['read', 'comment', 'edit'];
    let best = -1;
    const own = doc.users[userId];
    if (own) best = rank.indexOf(own.permissionLevel);
    for (const group of state.groupsOf(userId)) {
      const grant = doc.groups[group.id];
      if (grant) best = Math.max(best, rank.indexOf(grant.permissionLevel));
    }
    return rank[best] ?? 'none';
  };

  const includesOf = (c: Ctx, allowed: readonly string[]): Result<Set<string>, StoreError> => {
    const values = arrayParam(c, 'include') ?? [];
    const unknown = values.find((v) => !allowed.includes(v));
    if (unknown !== undefined) {
      return err(
        errors.invalidRequest(`include: unknown value "${unknown}"; expected ${allowed.join(', ')}.`),
      );
    }
    return ok(new Set(values));
  };

  // --- the base's collaborators, invite links and interfaces ----------------------------------------------

  // Only GET here: DELETE /v0/meta/bases/{baseId} is the schema routes' (deleting the base).
  function getBaseCollaborators(c: Ctx) {
    const t = baseFor(c, READ_SCOPE, 'read', 'read collaborators of this base');
    if (!t.ok) return respond(c, t.error);
    const include = includesOf(c, BASE_INCLUDES);
    if (!include.ok) return respond(c, include.error);
    const { base, principal } = t.value;
    const workspace = state.workspaceAdmin(base.workspaceId);
    const doc = baseAdminOf(base.id);
    const body: Record<string, unknown> = {
      id: base.id,
      name: base.name,
      createdTime: base.createdTime,
      permissionLevel: store.permissionOf(base.id, principal.userId),
      workspaceId: base.workspaceId,
    };
    if (include.value.has('collaborators')) {
      const { groups, individuals } = baseAndWorkspaceCollaborators(base);
      body.groupCollaborators = groups;
      body.individualCollaborators = individuals;
    }
    if (include.value.has('inviteLinks')) {
      body.inviteLinks = {
        baseInviteLinks: doc.invites.map(inviteJson),
        workspaceInviteLinks: (workspace?.invites ?? []).map(inviteJson),
      };
    }
    if (include.value.has('interfaces')) {
      body.interfaces = Object.fromEntries(
        state
          .list('interface')
          .filter((i) => i.baseId === base.id)
          .map((i) => [
            i.id,
            {
              id: i.id,
              name: i.name,
              createdTime: i.createdTime,
              // get-base-collaborators: `firstPublishTime: string | null`, always sent. `?? null`: state saved
              // before the emulator kept it.
              firstPublishTime: i.firstPublishTime ?? null,
              ...interfaceSections(i),
            },
          ]),
      );
    }
    return c.json(body);
  }

  // --- base collaborators ------------------------------------------------------------------------------

  /** Individual collaborators with creator access, other than `except`. */
  const otherCreators = (baseId: string, except: string): number =>
    store.schema().users.filter((u) => u.id !== except && store.directPermissionOf(baseId, u.id) === 'create')
      .length;

  async function addBaseCollaborator(c: Ctx) {
    const t = baseFor(c, WRITE_SCOPE, 'create', 'add collaborators to this base');
    if (!t.ok) return respond(c, t.error);
    const { base, principal } = t.value;
    if (!state.mayCreateIn(base.workspaceId, principal.userId, 'invite')) {
      return respond(c, restricted('invite', 'add collaborators to this base'));
    }
    const several = await refuseSeveralCollaborators(c);
    if (several) return several;
    const body = await readBody(c, 'addBaseCollaborators');
    if (!body.ok) return respond(c, body.error);
    const entries = body.value.collaborators as {
      user?: { id: string };
      group?: { id: string };
      permissionLevel: Exclude<PermissionLevel, 'none'>;
    }[];
    const doc = baseAdminOf(base.id);
    const account = state.accountOfBase(base.id);
    for (const [i, entry] of entries.entries()) {
      const id = entry.user?.id ?? entry.group?.id ?? '';
      const at = `collaborators[${i}]`;
      if (entry.user) {
        if (!store.schema().userById.has(id)) {
          return respond(c, errors.invalidRequest(`${at}.user.id: no user ${id}.`));
        }
        // A deactivated account cannot sign in; granting it access is refused rather than kept dormant.
        if (state.profile(id)?.state === 'deactivated') {
          return respond(c, errors.invalidRequest(`${at}.user.id: user ${id} is deactivated.`));
        }
        if (store.directPermissionOf(base.id, id) !== 'none') {
          return respond(
            c,
            errors.invalidRequest(
              `${at}.user.id: user ${id} is already a collaborator on this base; change their level with PATCH .../collaborators/${id}.`,
            ),
          );
        }
      } else {
        const group = state.get('group', id);
        if (!group) return respond(c, errors.invalidRequest(`${at}.group.id: no user group ${id}.`));
        // Groups belong to an enterprise organisation; one from another organisation cannot be granted here.
        if (account !== undefined && !state.sameOrganisation(group.enterpriseAccountId, account)) {
          return respond(
            c,
            errors.invalidRequest(`${at}.group.id: user group ${id} belongs to another organisation.`),
          );
        }
        if (doc.groups[id]) {
          return respond(
            c,
            errors.invalidRequest(`${at}.group.id: user group ${id} is already a collaborator on this base.`),
          );
        }
      }
    }
    const createdTime = now();
    const grantedByUserId = principal.userId;
    state.transaction(() => {
      const next = structuredClone(doc);
      for (const entry of entries) {
        if (entry.user) {
          store.setPermission(base.id, entry.user.id, entry.permissionLevel);
          next.userGrants[entry.user.id] = { createdTime, grantedByUserId };
        } else if (entry.group) {
          next.groups[entry.group.id] = {
            permissionLevel: entry.permissionLevel,
            createdTime,
            grantedByUserId,
          };
        }
      }
      state.put('base', next);
    });
    // The upstream answers an empty object; GET ?include[]=collaborators shows the result.
    return c.json({});
  }

  /**
   * The base in the path, for a caller with creator access changing or removing one of its collaborators, and
   * that collaborator by id: a user with a direct grant, or a group granted on the base.
   */
  const baseCollaborator = (
    c: Ctx,
    refused: string,
  ): Result<
    { principal: Principal; base: BaseRow; kind: 'user' | 'group'; id: string; doc: BaseAdminDoc },
    StoreError
  > => {
    const t = baseFor(c, WRITE_SCOPE, 'create', refused);
    if (!t.ok) return t;
    const { base } = t.value;
    const id = param(c, 'userOrGroupId');
    const doc = baseAdminOf(base.id);
    if (store.schema().userById.has(id) && store.directPermissionOf(base.id, id) !== 'none') {
      return ok({ ...t.value, kind: 'user', id, doc });
    }
    if (doc.groups[id]) return ok({ ...t.value, kind: 'group', id, doc });
    return err(notFound('collaborator', `${id} in base ${base.id}`));
  };

  async function updateBaseCollaborator(c: Ctx) {
    const target = baseCollaborator(c, "change collaborators' access to this base");
    if (!target.ok) return respond(c, target.error);
    const body = await readBody(c, 'updateBaseCollaborator');
    if (!body.ok) return respond(c, body.error);
    const level = body.value.permissionLevel as Exclude<PermissionLevel, 'none'>;
    const { base, principal, kind, id, doc } = target.value;
    if (kind === 'user') {
      const current = store.directPermissionOf(base.id, id);
      if (current === 'create' && level !== 'create' && otherCreators(base.id, id) === 0) {
        return respond(c, lastCreator(id));
      }
      // A changed level is a new grant: its time and grantor move with it.
      state.transaction(() => {
        store.setPermission(base.id, id, level);
        const next = structuredClone(doc);
        next.userGrants[id] = { createdTime: now(), grantedByUserId: principal.userId };
        state.put('base', next);
      });
    } else {
      const next = structuredClone(doc);
      next.groups[id] = { permissionLevel: level, createdTime: now(), grantedByUserId: principal.userId };
      state.put('base', next);
    }
    return c.json({});
  }

  function deleteBaseCollaborator(c: Ctx) {
    const target = baseCollaborator(c, 'remove collaborators from this base');
    if (!target.ok) return respond(c, target.error);
    const { base, kind, id, doc } = target.value;
    const next = structuredClone(doc);
    if (kind === 'user') {
      if (store.directPermissionOf(base.id, id) === 'create' && otherCreators(base.id, id) === 0) {
        return respond(c, lastCreator(id));
      }
      delete next.userGrants[id];
      state.transaction(() => {
        store.setPermission(base.id, id, 'none');
        state.put('base', next);
      });
    } else {
      delete next.groups[id];
      state.put('base', next);
    }
    return c.json({});
  }

  function deleteBaseInvite(c: Ctx) {
    const t = baseFor(c, WRITE_SCOPE, 'create', 'delete invites to this base');
    if (!t.ok) return respond(c, t.error);
    const { base } = t.value;
    const inviteId = param(c, 'inviteId');
    const doc = baseAdminOf(base.id);
    if (!doc.invites.some((i) => i.id === inviteId)) {
      return respond(c, notFound('invite', `${inviteId} to base ${base.id}`));
    }
    state.put('base', { ...doc, invites: doc.invites.filter((i) => i.id !== inviteId) });
    return c.json({});
  }

  // --- block installations (extensions) ------------------------------------------------------------------

  function listBlockInstallations(c: Ctx) {
    const t = baseFor(c, READ_SCOPE, 'read', 'read extensions of this base');
    if (!t.ok) return respond(c, t.error);
    const installations = state
      .list('blockInstallation')
      .filter((b) => b.baseId === t.value.base.id && b.deletedTime === null);
    // list-block-installations: "Response format: array of the below object", a bare array.
    return c.json(installations.map(blockInstallationJson));
  }

  /** A live (not deleted) installation of the base in the path, for a caller with creator access to the base. */
  const installationOf = (c: Ctx, refused: string): Result<BlockInstallationDoc, StoreError> => {
    const t = baseFor(c, WRITE_SCOPE, 'create', refused);
    if (!t.ok) return t;
    const id = param(c, 'blockInstallationId');
    const doc = state.get('blockInstallation', id);
    if (!doc || doc.baseId !== t.value.base.id || doc.deletedTime !== null) {
      return err(notFound('block installation', id));
    }
    return ok(doc);
  };

  async function manageBlockInstallation(c: Ctx) {
    const found = installationOf(c, 'manage extensions of this base');
    if (!found.ok) return respond(c, found.error);
    const body = await readBody(c, 'manageBlockInstallation');
    if (!body.ok) return respond(c, body.error);
    state.put('blockInstallation', {
      ...found.value,
      state: body.value.state as BlockInstallationDoc['state'],
    });
    // manage-block-installation: "This endpoint returns an empty response on success."
    return c.json({});
  }

  // Deleting keeps the installation (the upstream can restore it) but it is no longer listed nor managed.
  function deleteBlockInstallation(c: Ctx) {
    const found = installationOf(c, 'delete extensions of this base');
    if (!found.ok) return respond(c, found.error);
    state.put('blockInstallation', { ...found.value, deletedTime: now() });
    // The upstream answers 200 with an empty body, as its other block-installation and sharing writes do (Airtable's
    // delete-block-installation page, as copied by withone.ai: "returns HTTP 200 with a JSON null body").
    return c.json({});
  }

  // --- interfaces --------------------------------------------------------------------------------------

  /** The interface in the path, if it belongs to the base in the path. */
  const interfaceOf = (c: Ctx, baseId: string): Result<InterfaceDoc, StoreError> => {
    const id = param(c, 'pageBundleId');
    const doc = state.get('interface', id);
    if (!doc || doc.baseId !== baseId) return err(notFound('interface', id));
    return ok(doc);
  };

  /** The interface in the path, for a caller with creator access to its base changing who may use it. */
  const interfaceToChange = (
    c: Ctx,
    refused: string,
  ): Result<{ principal: Principal; base: BaseRow; doc: InterfaceDoc }, StoreError> => {
    const t = baseFor(c, WRITE_SCOPE, 'create', refused);
    if (!t.ok) return t;
    const found = interfaceOf(c, t.value.base.id);
    if (!found.ok) return found;
    return ok({ ...t.value, doc: found.value });
  };

  // Interface-only collaborators (and enterprise admins) may read the interface without reaching the base.
  function getInterface(c: Ctx) {
    const principal = requireScope(c, deps, READ_SCOPE);
    if (!principal.ok) return respond(c, principal.error);
    const userId = principal.value.userId;
    const baseId = param(c, 'baseId');
    const base = store.schema().baseById.get(baseId);
    if (!base) return respond(c, errors.modelNotFound());
    const doc = state.get('interface', param(c, 'pageBundleId'));
    const level =
      doc && doc.baseId === baseId ? interfaceLevelOf(doc, userId) : store.permissionOf(baseId, userId);
    if (level === 'none' && !adminOfBase(userId, baseId)) return respond(c, errors.modelNotFound());
    const found = interfaceOf(c, baseId);
    if (!found.ok) return respond(c, found.error);
    const include = includesOf(c, INTERFACE_INCLUDES);
    if (!include.ok) return respond(c, include.error);
    const sections = interfaceSections(found.value);
    // get-interface groups the collaborators by where their access comes from: the base, the interface
    // alone, or the workspace (each an object of three lists); the invite links stay one list.
    const collaborators = () => {
      const { groups, individuals } = baseAndWorkspaceCollaborators(base);
      return {
        groupCollaborators: {
          baseCollaborators: groups.baseCollaborators,
          interfaceCollaborators: sections.groupCollaborators,
          workspaceCollaborators: groups.workspaceCollaborators,
        },
        individualCollaborators: {
          baseCollaborators: individuals.baseCollaborators,
          interfaceCollaborators: sections.individualCollaborators,
          workspaceCollaborators: individuals.workspaceCollaborators,
        },
      };
    };
    return c.json({
      id: found.value.id,
      baseId,
      name: found.value.name,
      createdTime: found.value.createdTime,
      permissionLevel: level,
      ...(include.value.has('collaborators') ? collaborators() : {}),
      ...(include.value.has('inviteLinks') ? { inviteLinks: sections.inviteLinks } : {}),
    });
  }

  async function addInterfaceCollaborator(c: Ctx) {
    const found = interfaceToChange(c, 'add collaborators to interfaces of this base');
    if (!found.ok) return respond(c, found.error);
    const { base, principal, doc } = found.value;
    if (!state.mayCreateIn(base.workspaceId, principal.userId, 'invite')) {
      return respond(c, restricted('invite', 'add collaborators to this interface'));
    }
    const body = await readBody(c, 'addInterfaceCollaborator');
    if (!body.ok) return respond(c, body.error);
    // The schema lets exactly one collaborator through.
    const [entry] = body.value.collaborators as {
      user?: { id: string };
      group?: { id: string };
      permissionLevel: InterfaceLevel;
    }[];
    if (!entry) return respond(c, errors.invalidRequest('collaborators: exactly one collaborator.'));
    const grant: Grant<InterfaceLevel> = {
      permissionLevel: entry.permissionLevel,
      createdTime: now(),
      grantedByUserId: principal.userId,
    };
    const next = structuredClone(doc);
    if (entry.user) {
      const id = entry.user.id;
      if (!store.schema().userById.has(id)) {
        return respond(c, errors.invalidRequest(`collaborators[0].user.id: no user ${id}.`));
      }
      if (state.profile(id)?.state === 'deactivated') {
        return respond(c, errors.invalidRequest(`collaborators[0].user.id: user ${id} is deactivated.`));
      }
      if (doc.users[id]) {
        return respond(
          c,
          errors.invalidRequest(
            `collaborators[0].user.id: user ${id} is already a collaborator on this interface.`,
          ),
        );
      }
      // Interface collaborators are for people without the base: someone who reaches it already sees the
      // interface, and an interface grant would do nothing for them.
      if (store.permissionOf(base.id, id) !== 'none') {
        return respond(
          c,
          errors.invalidRequest(
            `collaborators[0].user.id: user ${id} already has access to the whole base; interface collaborators are for people without base access.`,
          ),
        );
      }
      next.users[id] = grant;
    } else if (entry.group) {
      const id = entry.group.id;
      const group = state.get('group', id);
      if (!group) return respond(c, errors.invalidRequest(`collaborators[0].group.id: no user group ${id}.`));
      const account = state.accountOfBase(base.id);
      if (account !== undefined && !state.sameOrganisation(group.enterpriseAccountId, account)) {
        return respond(
          c,
          errors.invalidRequest(
            `collaborators[0].group.id: user group ${id} belongs to another organisation.`,
          ),
        );
      }
      if (doc.groups[id]) {
        return respond(
          c,
          errors.invalidRequest(
            `collaborators[0].group.id: user group ${id} is already a collaborator on this interface.`,
          ),
        );
      }
      next.groups[id] = grant;
    }
    state.put('interface', next);
    return c.json({});
  }

  /** An interface collaborator by id: a user or a group granted on the interface itself. */
  const interfaceCollaborator = (
    c: Ctx,
    doc: InterfaceDoc,
  ): Result<{ kind: 'users' | 'groups'; id: string }, StoreError> => {
    const id = param(c, 'userOrGroupId');
    if (doc.users[id]) return ok({ kind: 'users', id });
    if (doc.groups[id]) return ok({ kind: 'groups', id });
    return err(notFound('collaborator', `${id} in interface ${doc.id}`));
  };

  async function updateInterfaceCollaborator(c: Ctx) {
    const found = interfaceToChange(c, "change collaborators' access to interfaces of this base");
    if (!found.ok) return respond(c, found.error);
    const target = interfaceCollaborator(c, found.value.doc);
    if (!target.ok) return respond(c, target.error);
    const body = await readBody(c, 'updateInterfaceCollaborator');
    if (!body.ok) return respond(c, body.error);
    const { kind, id } = target.value;
    state.update('interface', found.value.doc.id, (doc) => {
      doc[kind][id] = {
        permissionLevel: body.value.permissionLevel as InterfaceLevel,
        createdTime: now(),
        grantedByUserId: found.value.principal.userId,
      };
    });
    return c.json({});
  }

  function deleteInterfaceCollaborator(c: Ctx) {
    const found = interfaceToChange(c, 'remove collaborators from interfaces of this base');
    if (!found.ok) return respond(c, found.error);
    const target = interfaceCollaborator(c, found.value.doc);
    if (!target.ok) return respond(c, target.error);
    const { kind, id } = target.value;
    state.update('interface', found.value.doc.id, (doc) => {
      delete doc[kind][id];
    });
    return c.json({});
  }

  function deleteInterfaceInvite(c: Ctx) {
    const found = interfaceToChange(c, 'delete invites to interfaces of this base');
    if (!found.ok) return respond(c, found.error);
    const { doc: page } = found.value;
    const inviteId = param(c, 'inviteId');
    if (!page.invites.some((i) => i.id === inviteId)) {
      return respond(c, notFound('invite', `${inviteId} to interface ${page.id}`));
    }
    state.update('interface', page.id, (doc) => {
      doc.invites = doc.invites.filter((i) => i.id !== inviteId);
    });
    return c.json({});
  }

  // --- shares ------------------------------------------------------------------------------------------

  function listShares(c: Ctx) {
    const t = baseFor(c, SHARES_SCOPE, 'create', 'manage shares of this base');
    if (!t.ok) return respond(c, t.error);
    const shares = state.list('share').filter((s) => s.baseId === t.value.base.id);
    return c.json({ shares: shares.map(shareJson) });
  }

  /** A share of the base in the path, for a caller who manages the base's shares; with the caller and base. */
  const shareOf = (c: Ctx): Result<{ principal: Principal; base: BaseRow; share: ShareDoc }, StoreError> => {
    const t = baseFor(c, SHARES_SCOPE, 'create', 'manage shares of this base');
    if (!t.ok) return t;
    const id = param(c, 'shareId');
    const share = state.get('share', id);
    if (!share || share.baseId !== t.value.base.id) return err(notFound('share', id));
    return ok({ ...t.value, share });
  };

  async function manageShare(c: Ctx) {
    const found = shareOf(c);
    if (!found.ok) return respond(c, found.error);
    const body = await readBody(c, 'manageShare');
    if (!body.ok) return respond(c, body.error);
    const { base, principal, share } = found.value;
    const wanted = body.value.state as ShareDoc['state'];
    // Turning a share on makes it reachable again, which the restriction governs; turning it off never is, and
    // enabling an enabled share changes nothing.
    if (
      wanted === 'enabled' &&
      share.state !== 'enabled' &&
      !state.mayCreateIn(base.workspaceId, principal.userId, 'share')
    ) {
      return respond(c, restricted('share', 'enable this share'));
    }
    state.put('share', { ...share, state: wanted });
    // manage-share: "This endpoint returns an empty response on success."
    return c.json({});
  }

  function deleteShare(c: Ctx) {
    const found = shareOf(c);
    if (!found.ok) return respond(c, found.error);
    state.remove('share', found.value.share.id);
    return c.json({});
  }

  route(area, STORE_OPERATIONS.GetBaseCollaborators, getBaseCollaborators);
  route(area, STORE_OPERATIONS.AddBaseCollaborator, addBaseCollaborator);
  route(area, STORE_OPERATIONS.UpdateBaseCollaborator, updateBaseCollaborator);
  route(area, STORE_OPERATIONS.DeleteBaseCollaborator, deleteBaseCollaborator);
  route(area, STORE_OPERATIONS.DeleteBaseInvite, deleteBaseInvite);
  route(area, STORE_OPERATIONS.ListBlockInstallations, listBlockInstallations);
  route(area, STORE_OPERATIONS.ManageBlockInstallation, manageBlockInstallation);
  route(area, STORE_OPERATIONS.DeleteBlockInstallation, deleteBlockInstallation);
  route(area, STORE_OPERATIONS.GetInterface, getInterface);
  route(area, STORE_OPERATIONS.AddInterfaceCollaborator, addInterfaceCollaborator);
  route(area, STORE_OPERATIONS.UpdateInterfaceCollaborator, updateInterfaceCollaborator);
  route(area, STORE_OPERATIONS.DeleteInterfaceCollaborator, deleteInterfaceCollaborator);
  route(area, STORE_OPERATIONS.DeleteInterfaceInvite, deleteInterfaceInvite);
  route(area, STORE_OPERATIONS.ListShares, listShares);
  route(area, STORE_OPERATIONS.ManageShare, manageShare);
  route(area, STORE_OPERATIONS.DeleteShare, deleteShare);
  return area;
}
