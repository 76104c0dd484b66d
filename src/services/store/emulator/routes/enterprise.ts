/**
 * Enterprise accounts, their users and user groups (`/v0/meta/enterpriseAccounts/{enterpriseAccountId}...` and
 * `/v0/meta/groups/{groupId}`): account information and descendants, moving groups and workspaces between the
 * accounts of one organisation, and managing users (look-up, names, email, state, membership, admin access,
 * logout, deletion, removal from the enterprise). Every handler starts with the token's scope and the caller
 * administering the account in the path; what the upstream leaves open is decided here and commented.
 *
 * The audit middleware records the mutations; this file only changes the administration state (AdminState) and
 * the data plane's user rows and base grants.
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import { type AdminRouteDeps, requireAdmin, requireScope } from '../admin/guards.js';
import type {
  EnterpriseAccountDoc,
  InterfaceLevel,
  UserGroupDoc,
  UserProfileDoc,
  UserState,
  WorkspaceLevel,
} from '../admin/model.js';
import type { AdminState } from '../admin/state.js';
import {
  deleteUserEverywhere,
  soleOwnedSharedWorkspaces,
  soleOwnedWorkspaces,
  unshareEverywhere,
} from '../admin/users.js';
import type { Principal } from '../auth.js';
import { errors, respond, type StoreError } from '../errors.js';
import type { UserRow } from '../model.js';
import { checkBody } from '../requestBodies.js';
import { arrayParam, type Ctx, createArea, param, readBody, readJson, route } from './common.js';

// --- errors -------------------------------------------------------------------------------------------------

/** A 422 in the upstream's INVALID_REQUEST_UNKNOWN form, naming the problem. */
function invalid(message: string): StoreError {
  return { status: 422, type: 'INVALID_REQUEST_UNKNOWN', message: `Invalid request: ${message}` };
}

/** The upstream's documented refusal of a membership item that names neither id nor email. */
const ID_OR_EMAIL: StoreError = {
  status: 422,
  type: 'INVALID_REQUEST_UNKNOWN',
  message: 'Invalid request: either ID or email must be specified. Check your request data.',
};

function userNotFound(userId: string, accountId: string): StoreError {
  // The upstream does not document this refusal; a 404 naming the user reads best.
  return {
    status: 404,
    type: 'NOT_FOUND',
    message: `Could not find user ${userId} in enterprise account ${accountId}`,
  };
}

function hubRequired(what: string): StoreError {
  // Enterprise Hub gates descendants and moves; the refusal's type is the emulator's choice.
  return {
    status: 403,
    type: 'INVALID_PERMISSIONS',
    message: `You are not permitted to ${what}: it needs a root enterprise account with Enterprise Hub`,
  };
}

/** The upstream's documented 403 refusals of user changes (delete-user-by-id, remove-user-from-enterprise). */
function forbidden(message: string): StoreError {
  return { status: 403, type: 'INVALID_PERMISSIONS', message };
}

// --- reading the state ------------------------------------------------------------------------------------

/** The account's email domains with its root's (domains are verified for the whole organisation). */
function domainsOf(state: AdminState, account: EnterpriseAccountDoc): Set<string> {
  const root = state.account(account.rootEnterpriseAccountId);
  const all = [...account.emailDomains, ...(root?.emailDomains ?? [])];
  return new Set(all.map((d) => d.emailDomain.toLowerCase()));
}

function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

function includes(c: Ctx, allowed: readonly string[]): Set<string> | StoreError {
  const values = arrayParam(c, 'include') ?? [];
  const unknown = values.filter((v) => !allowed.includes(v));
  if (unknown.length > 0) {
    return invalid(`include[] accepts ${allowed.join(', ')}; got ${unknown.join(', ')}.`);
  }
  return new Set(values);
}

interface AccountSummary {
  groupIds: string[];
  userIds: string[];
  workspaceIds: string[];
  emailDomains: { emailDomain: string; isSsoRequired: boolean }[];
}

function summaryOf(state: AdminState, accounts: ReadonlySet<string>): AccountSummary {
  const emailDomains = new Map<string, { emailDomain: string; isSsoRequired: boolean }>();
  for (const id of accounts) {
    for (const d of state.account(id)?.emailDomains ?? []) {
      if (!emailDomains.has(d.emailDomain)) emailDomains.set(d.emailDomain, { ...d });
    }
  }
  return {
    groupIds: state
      .list('group')
      .filter((g) => accounts.has(g.enterpriseAccountId))
      .map((g) => g.id),
    userIds: state.usersOf(accounts).map((p) => p.id),
    workspaceIds: state
      .list('workspace')
      .filter((w) => accounts.has(w.enterpriseAccountId))
      .map((w) => w.id),
    emailDomains: [...emailDomains.values()],
  };
}

function descendantsOf(state: AdminState, accountId: string): EnterpriseAccountDoc[] {
  return state.list('account').filter((a) => a.parentEnterpriseAccountId === accountId);
}

function enterpriseInfo(state: AdminState, account: EnterpriseAccountDoc, include: ReadonlySet<string>) {
  const descendants = descendantsOf(state, account.id);
  return {
    id: account.id,
    createdTime: account.createdTime,
    rootEnterpriseAccountId: account.rootEnterpriseAccountId,
    descendantEnterpriseAccountIds: descendants.map((d) => d.id),
    ...summaryOf(state, new Set([account.id])),
    // Aggregated: the account with its descendants; descendants: each descendant's own lists, by id.
    ...(include.has('aggregated') ? { aggregated: summaryOf(state, state.accountScope(account.id)) } : {}),
    ...(include.has('descendants')
      ? { descendants: Object.fromEntries(descendants.map((d) => [d.id, summaryOf(state, new Set([d.id]))])) }
      : {}),
  };
}

interface Collaborations {
  baseCollaborations: {
    baseId: string;
    createdTime: string;
    grantedByUserId: string;
    permissionLevel: string;
  }[];
  interfaceCollaborations: {
    baseId: string;
    interfaceId: string;
    createdTime: string;
    grantedByUserId: string;
    permissionLevel: InterfaceLevel;
  }[];
  workspaceCollaborations: {
    workspaceId: string;
    createdTime: string;
    grantedByUserId: string;
    permissionLevel: WorkspaceLevel;
  }[];
}

function noCollaborations(): Collaborations {
  return { baseCollaborations: [], interfaceCollaborations: [], workspaceCollaborations: [] };
}

/** A user's own grants on the workspaces, bases and interfaces of the accounts (not what groups give). */
function userCollaborations(
  deps: AdminRouteDeps,
  userId: string,
  accounts: ReadonlySet<string>,
): Collaborations {
  const { state, store } = deps;
  const result = noCollaborations();
  for (const w of state.list('workspace')) {
    const grant = w.users[userId];
    if (!grant || !accounts.has(w.enterpriseAccountId)) continue;
    result.workspaceCollaborations.push({ workspaceId: w.id, ...grant });
  }
  for (const base of store.schema().bases) {
    const accountId = state.workspaceAdmin(base.workspaceId)?.enterpriseAccountId;
    if (accountId === undefined || !accounts.has(accountId)) continue;
    const level = store.directPermissionOf(base.id, userId);
    if (level === 'none') continue;
    const kept = state.get('base', base.id)?.userGrants[userId];
    result.baseCollaborations.push({
      baseId: base.id,
      // A grant made outside the administration plane has no bookkeeping: dated with its base, and granted (the
      // upstream always names a user, a string) by the workspace's owner, as GetWorkspaceCollaborators answers.
      createdTime: kept?.createdTime ?? base.createdTime,
      grantedByUserId: kept?.grantedByUserId ?? state.ownersOf(base.workspaceId)[0] ?? userId,
      permissionLevel: level,
    });
  }
  for (const page of state.list('interface')) {
    const grant = page.users[userId];
    const accountId = state.accountOfBase(page.baseId);
    if (!grant || accountId === undefined || !accounts.has(accountId)) continue;
    result.interfaceCollaborations.push({ baseId: page.baseId, interfaceId: page.id, ...grant });
  }
  return result;
}

function groupCollaborations(deps: AdminRouteDeps, groupId: string): Collaborations {
  const { state } = deps;
  const result = noCollaborations();
  for (const w of state.list('workspace')) {
    const grant = w.groups[groupId];
    if (grant) result.workspaceCollaborations.push({ workspaceId: w.id, ...grant });
  }
  for (const b of state.list('base')) {
    const grant = b.groups[groupId];
    if (grant) result.baseCollaborations.push({ baseId: b.id, ...grant });
  }
  for (const page of state.list('interface')) {
    const grant = page.groups[groupId];
    if (grant) result.interfaceCollaborations.push({ baseId: page.baseId, interfaceId: page.id, ...grant });
  }
  return result;
}

const USER_INCLUDES = ['collaborations', 'aggregated', 'descendants'] as const;

/**
 * The upstream's UserInfo as seen from an enterprise account: groups and collaborations in that account;
 * `aggregated` over the account and its descendants, `descendants` per descendant account (only when asked).
 */
function userInfo(
  deps: AdminRouteDeps,
  user: UserRow,
  profile: UserProfileDoc,
  account: EnterpriseAccountDoc,
  include: ReadonlySet<string>,
) {
  const { state } = deps;
  const groupsIn = (accounts: ReadonlySet<string>) =>
    state
      .groupsOf(user.id)
      .filter((g) => accounts.has(g.enterpriseAccountId))
      .map((g) => ({ id: g.id }));
  const own = new Set([account.id]);
  const withCollaborations = include.has('collaborations');
  const perAccount = (accounts: ReadonlySet<string>, accountId: string) => ({
    groups: groupsIn(accounts),
    isAdmin: state.isAdminOf(user.id, accountId),
    isManaged:
      profile.isManaged && profile.enterpriseAccountId !== null && accounts.has(profile.enterpriseAccountId),
    lastActivityTime: profile.lastActivityTime,
    ...(withCollaborations ? { collaborations: userCollaborations(deps, user.id, accounts) } : {}),
  });
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    state: profile.state,
    isServiceAccount: profile.isServiceAccount,
    isSsoRequired: profile.isSsoRequired,
    isTwoFactorAuthEnabled: profile.isTwoFactorAuthEnabled,
    isAdmin: profile.isAdmin,
    isManaged: profile.isManaged,
    lastActivityTime: profile.lastActivityTime,
    createdTime: profile.createdTime,
    invitedToAirtableByUserId: profile.invitedToAirtableByUserId,
    groups: groupsIn(own),
    ...(withCollaborations ? { collaborations: userCollaborations(deps, user.id, own) } : {}),
    ...(include.has('aggregated')
      ? { aggregated: perAccount(state.accountScope(account.id), account.id) }
      : {}),
    ...(include.has('descendants')
      ? {
          descendants: Object.fromEntries(
            descendantsOf(state, account.id).map((d) => [d.id, perAccount(new Set([d.id]), d.id)]),
          ),
        }
      : {}),
  };
}

function groupInfo(deps: AdminRouteDeps, group: UserGroupDoc, withCollaborations: boolean) {
  const snapshot = deps.store.schema();
  return {
    id: group.id,
    name: group.name,
    enterpriseAccountId: group.enterpriseAccountId,
    createdTime: group.createdTime,
    updatedTime: group.updatedTime,
    mappedUserLicenseType: group.mappedUserLicenseType,
    // A member whose user is gone is left out: the upstream's member `email` is a string, never null.
    members: group.members.flatMap((m) => {
      const user = snapshot.userById.get(m.userId);
      if (!user) return [];
      const profile = deps.state.profile(m.userId);
      const names = profile
        ? { firstName: profile.firstName, lastName: profile.lastName }
        : splitName(user.name);
      return [
        {
          userId: m.userId,
          email: user.email,
          ...names,
          role: m.role,
          createdTime: m.createdTime,
        },
      ];
    }),
    ...(withCollaborations ? { collaborations: groupCollaborations(deps, group.id) } : {}),
  };
}

function splitName(name: string): { firstName: string; lastName: string } {
  const space = name.lastIndexOf(' ');
  return space < 0
    ? { firstName: name, lastName: '' }
    : { firstName: name.slice(0, space), lastName: name.slice(space + 1) };
}

function joinName(firstName: string, lastName: string): string {
  return [firstName, lastName].filter((s) => s !== '').join(' ');
}

/** A user of the account (its profile belongs to the account or, for a root, to one of its descendants). */
function userInScope(
  deps: AdminRouteDeps,
  account: EnterpriseAccountDoc,
  userId: string,
): { user: UserRow; profile: UserProfileDoc } | undefined {
  const user = deps.store.schema().userById.get(userId);
  const profile = deps.state.profile(userId);
  if (!user || !profile || profile.enterpriseAccountId === null) return undefined;
  if (!deps.state.accountScope(account.id).has(profile.enterpriseAccountId)) return undefined;
  return { user, profile };
}

interface UserRef {
  id?: string | undefined;
  email?: string | undefined;
}

/** The data plane's user an item names by id or email; both given must agree. */
function resolveRef(deps: AdminRouteDeps, ref: UserRef): UserRow | undefined {
  const snapshot = deps.store.schema();
  const byId = ref.id === undefined ? undefined : snapshot.userById.get(ref.id);
  const byEmail = ref.email === undefined ? undefined : snapshot.userByEmail.get(ref.email.toLowerCase());
  if (ref.id !== undefined && ref.email !== undefined)
    return byId && byId.id === byEmail?.id ? byId : undefined;
  return byId ?? byEmail;
}

/** A per-item error naming the item as the request named it. */
function itemError(ref: UserRef, type: string, message: string) {
  return {
    ...(ref.id === undefined ? {} : { id: ref.id }),
    ...(ref.email === undefined ? {} : { email: ref.email }),
    type,
    message,
  };
}

type ItemError = ReturnType<typeof itemError>;

function notInAccount(ref: UserRef, accountId: string): ItemError {
  return itemError(ref, 'NOT_FOUND', `No user ${ref.id ?? ref.email} in enterprise account ${accountId}`);
}

// --- routes -------------------------------------------------------------------------------------------------

/** A move of user groups or workspaces to another enterprise account, checked (`moveRequest`). */
interface MoveRequest {
  account: EnterpriseAccountDoc;
  principal: Principal;
  target: EnterpriseAccountDoc;
  /** The ids to move, each once. */
  ids: Set<string>;
  body: Record<string, unknown>;
}

export function enterpriseArea(deps: AdminRouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { state, store, clock } = deps;
  const now = () => clock.now().toISOString();

  // Account information.
  function getEnterprise(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.account:read');
    if (!admin.ok) return respond(c, admin.error);
    const include = includes(c, ['aggregated', 'descendants']);
    if (!(include instanceof Set)) return respond(c, include);
    return c.json(enterpriseInfo(state, admin.value.account, include));
  }

  // A descendant account: only a root with Enterprise Hub has them, and they have none of their own.
  async function createDescendantEnterprise(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.account:write');
    if (!admin.ok) return respond(c, admin.error);
    const body = await readBody(c, 'createDescendantAccount');
    if (!body.ok) return respond(c, body.error);
    const { account } = admin.value;
    if (account.parentEnterpriseAccountId !== null || !account.enterpriseHub) {
      return respond(c, hubRequired('create descendant enterprise accounts'));
    }
    const name = (body.value.name as string).trim();
    // Names are unique within an organisation, so admins can tell the accounts apart.
    if (state.organisation(account.id).some((a) => a.name.toLowerCase() === name.toLowerCase())) {
      return respond(c, invalid(`name "${name}" is already used by an account of this organisation.`));
    }
    const created: EnterpriseAccountDoc = {
      id: store.newId('enterpriseAccount'),
      name,
      createdTime: now(),
      rootEnterpriseAccountId: account.id,
      parentEnterpriseAccountId: account.id,
      enterpriseHub: true,
      emailDomains: [],
    };
    state.put('account', created);
    return c.json({
      name: created.name,
      parentEnterpriseAccountId: created.parentEnterpriseAccountId,
      ...enterpriseInfo(state, created, new Set()),
    });
  }

  /**
   * The checks both moves share, in order: the caller administers the account in the path (under `scope`), the
   * body (its schema allows up to MOVE_MAX ids: move-user-groups, move-workspaces "Up to 100 … can be provided"),
   * then the target: of the same organisation, not the account itself, Enterprise Hub on, and the caller
   * administering it too.
   */
  const moveRequest = async (
    c: Ctx,
    scope: string,
    bodyName: 'moveUserGroups' | 'moveWorkspaces',
    what: 'groups' | 'workspaces',
  ): Promise<Result<MoveRequest, StoreError>> => {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), scope);
    if (!admin.ok) return admin;
    const body = await readBody(c, bodyName);
    if (!body.ok) return body;
    const ids = body.value[what === 'groups' ? 'groupIds' : 'workspaceIds'] as string[];
    const { account, principal } = admin.value;
    const target = moveTarget(
      account,
      body.value.targetEnterpriseAccountId as string,
      principal.userId,
      what,
    );
    if (!target.ok) return target;
    return ok({ account, principal, target: target.value, ids: new Set(ids), body: body.value });
  };

  const moveTarget = (
    source: EnterpriseAccountDoc,
    targetId: string,
    userId: string,
    what: string,
  ): Result<EnterpriseAccountDoc, StoreError> => {
    const target = state.account(targetId);
    if (!target || !state.sameOrganisation(source.id, target.id)) {
      return err(
        invalid(
          `targetEnterpriseAccountId ${targetId} must be an enterprise account of the same organisation as ${source.id}.`,
        ),
      );
    }
    if (target.id === source.id) {
      return err(invalid(`targetEnterpriseAccountId ${targetId} is the account the ${what} are in already.`));
    }
    if (!state.account(source.rootEnterpriseAccountId)?.enterpriseHub) {
      return err(hubRequired(`move ${what} between enterprise accounts`));
    }
    if (!state.isAdminOf(userId, target.id)) return err(errors.modelNotFound());
    return ok(target);
  };

  async function moveUserGroups(c: Ctx) {
    const move = await moveRequest(c, 'enterprise.groups:manage', 'moveUserGroups', 'groups');
    if (!move.ok) return respond(c, move.error);
    const { account, target, ids } = move.value;
    const movedGroups: { id: string }[] = [];
    const errorsOut: { id: string; type: string; message: string }[] = [];
    state.transaction(() => {
      for (const id of ids) {
        if (state.get('group', id)?.enterpriseAccountId !== account.id) {
          errorsOut.push({
            id,
            type: 'NOT_FOUND',
            message: `No user group ${id} in enterprise account ${account.id}`,
          });
          continue;
        }
        state.update('group', id, (g) => {
          g.enterpriseAccountId = target.id;
          g.updatedTime = now();
        });
        movedGroups.push({ id });
      }
    });
    return c.json({ movedGroups, errors: errorsOut });
  }

  async function moveWorkspaces(c: Ctx) {
    const move = await moveRequest(c, 'workspacesAndBases:manage', 'moveWorkspaces', 'workspaces');
    if (!move.ok) return respond(c, move.error);
    const { account, principal, target, ids, body } = move.value;
    const targetUsers = state.accountScope(target.id);
    const belongs = (userId: string) => {
      const profile = state.profile(userId);
      return profile?.enterpriseAccountId != null && targetUsers.has(profile.enterpriseAccountId);
    };
    const replacement = body.replacementOwnerId as string | undefined;
    if (
      replacement !== undefined &&
      (!belongs(replacement) || state.profile(replacement)?.state !== 'provisioned')
    ) {
      return respond(
        c,
        invalid(
          `replacementOwnerId ${replacement} must be a provisioned user of enterprise account ${target.id}.`,
        ),
      );
    }
    const movedWorkspaces: { id: string }[] = [];
    const errorsOut: { id: string; type: string; message: string }[] = [];
    state.transaction(() => {
      for (const id of ids) {
        if (state.workspaceAdmin(id)?.enterpriseAccountId !== account.id) {
          errorsOut.push({
            id,
            type: 'NOT_FOUND',
            message: `No workspace ${id} in enterprise account ${account.id}`,
          });
          continue;
        }
        // A workspace needs an owner among the target account's users: the replacement owner, when none is.
        const hasOwner = state.ownersOf(id).some(belongs);
        if (!hasOwner && replacement === undefined) {
          errorsOut.push({
            id,
            type: 'REPLACEMENT_OWNER_REQUIRED',
            message: `No owner of workspace ${id} belongs to enterprise account ${target.id}; give a replacementOwnerId`,
          });
          continue;
        }
        state.update('workspace', id, (w) => {
          w.enterpriseAccountId = target.id;
          if (!hasOwner && replacement !== undefined) {
            w.users[replacement] = {
              permissionLevel: 'owner',
              createdTime: now(),
              grantedByUserId: principal.userId,
            };
          }
        });
        movedWorkspaces.push({ id });
      }
    });
    return c.json({ movedWorkspaces, errors: errorsOut });
  }

  // --- users ------------------------------------------------------------------------------------------------

  function getUsersByIdOrEmail(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.user:read');
    if (!admin.ok) return respond(c, admin.error);
    const include = includes(c, USER_INCLUDES);
    if (!(include instanceof Set)) return respond(c, include);
    const ids = arrayParam(c, 'id') ?? [];
    const emails = arrayParam(c, 'email') ?? [];
    if (ids.length === 0 && emails.length === 0)
      return respond(c, invalid('give at least one id[] or email[].'));
    const { account } = admin.value;
    const snapshot = store.schema();
    const wanted = new Set<string>();
    for (const id of ids) wanted.add(id);
    for (const email of emails) {
      const user = snapshot.userByEmail.get(email.toLowerCase());
      if (user) wanted.add(user.id);
    }
    // Ids and emails of no user of the account are left out, as a search would.
    const users = [...wanted].flatMap((id) => {
      const found = userInScope(deps, account, id);
      return found ? [userInfo(deps, found.user, found.profile, account, include)] : [];
    });
    return c.json({ users });
  }

  function getUserById(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.user:read');
    if (!admin.ok) return respond(c, admin.error);
    const include = includes(c, USER_INCLUDES);
    if (!(include instanceof Set)) return respond(c, include);
    const { account } = admin.value;
    const found = userInScope(deps, account, param(c, 'userId'));
    if (!found) return respond(c, userNotFound(param(c, 'userId'), account.id));
    return c.json(userInfo(deps, found.user, found.profile, account, include));
  }

  /** Applies names and state to a user; the refusal's text when the change is not allowed. */
  const changeUser = (
    found: { user: UserRow; profile: UserProfileDoc },
    change: { firstName?: string; lastName?: string; state?: UserState; email?: string },
    account: EnterpriseAccountDoc,
  ): string | undefined => {
    const { user, profile } = found;
    if (change.state !== undefined && !profile.isManaged) {
      return `state can only be changed for managed users; ${user.id} is not managed by the enterprise.`;
    }
    if (change.email !== undefined) {
      const domains = domainsOf(state, account);
      if (!domains.has(domainOf(user.email)) || !domains.has(domainOf(change.email))) {
        return `email can only change between the enterprise's own email domains (${[...domains].join(', ')}).`;
      }
      const holder = store.schema().userByEmail.get(change.email.toLowerCase());
      if (holder && holder.id !== user.id) return `email ${change.email} is already used by another user.`;
    }
    const firstName = change.firstName ?? profile.firstName;
    const lastName = change.lastName ?? profile.lastName;
    const nameChanged = change.firstName !== undefined || change.lastName !== undefined;
    state.update('profile', user.id, (p) => {
      p.firstName = firstName;
      p.lastName = lastName;
      if (change.state !== undefined) p.state = change.state;
    });
    if (nameChanged || change.email !== undefined) {
      store.updateUser({
        id: user.id,
        email: change.email ?? user.email,
        name: nameChanged ? joinName(firstName, lastName) : user.name,
      });
    }
    return undefined;
  };

  async function manageUser(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.user:write');
    if (!admin.ok) return respond(c, admin.error);
    const body = await readBody(c, 'manageEnterpriseUser');
    if (!body.ok) return respond(c, body.error);
    const { account } = admin.value;
    const found = userInScope(deps, account, param(c, 'userId'));
    if (!found) return respond(c, userNotFound(param(c, 'userId'), account.id));
    const refused = state.transaction(() => changeUser(found, body.value, account));
    if (refused !== undefined) return respond(c, invalid(refused));
    // The upstream documents "an empty response on success"; the change is read back with GET users/{userId}.
    return c.json({});
  }

  async function manageUserBatched(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.user:write');
    if (!admin.ok) return respond(c, admin.error);
    const body = await readBody(c, 'manageEnterpriseUsers');
    if (!body.ok) return respond(c, body.error);
    const { account } = admin.value;
    const items = body.value.users as (UserRef & {
      firstName?: string;
      lastName?: string;
      state?: UserState;
    })[];
    const errorsOut: ItemError[] = [];
    state.transaction(() => {
      for (const item of items) {
        const user = resolveRef(deps, item);
        const found = user ? userInScope(deps, account, user.id) : undefined;
        if (!found) {
          errorsOut.push(notInAccount(item, account.id));
          continue;
        }
        const { id: _id, email: _email, ...change } = item;
        const refused = changeUser(found, change, account);
        if (refused !== undefined) errorsOut.push(itemError(item, 'INVALID_REQUEST_UNKNOWN', refused));
      }
    });
    return c.json({ errors: errorsOut });
  }

  function deleteUserById(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.user:write');
    if (!admin.ok) return respond(c, admin.error);
    const { account, principal } = admin.value;
    const found = userInScope(deps, account, param(c, 'userId'));
    if (!found) return respond(c, userNotFound(param(c, 'userId'), account.id));
    // The documented refusals, in the upstream's words; success is an empty answer.
    if (found.user.id === principal.userId) return respond(c, forbidden('Cannot perform action on self'));
    if (!found.profile.isManaged) {
      return respond(c, forbidden('User is not managed by the enterprise account'));
    }
    if (soleOwnedSharedWorkspaces(deps, found.user.id).length > 0) {
      return respond(c, forbidden('Cannot delete sole owner of a workspace with other collaborators'));
    }
    deleteUserEverywhere(deps, found.user.id);
    return c.json({});
  }

  function deleteUsersByEmail(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.user:write');
    if (!admin.ok) return respond(c, admin.error);
    const emails = arrayParam(c, 'email') ?? [];
    if (emails.length === 0) return respond(c, invalid('give at least one email[].'));
    const { account, principal } = admin.value;
    const deletedUsers: { id: string; email: string }[] = [];
    const errorsOut: { type: string; email: string; message: string }[] = [];
    for (const email of new Set(emails)) {
      const user = store.schema().userByEmail.get(email.toLowerCase());
      const found = user ? userInScope(deps, account, user.id) : undefined;
      if (!found) {
        errorsOut.push({
          type: 'NOT_FOUND',
          email,
          message: `No user ${email} in enterprise account ${account.id}`,
        });
      } else if (!found.profile.isManaged) {
        errorsOut.push({
          type: 'USER_NOT_MANAGED',
          email,
          message: `${email} is not managed by the enterprise`,
        });
      } else if (found.user.id === principal.userId) {
        errorsOut.push({ type: 'CANNOT_DELETE_SELF', email, message: 'You cannot delete your own user' });
      } else if (soleOwnedSharedWorkspaces(deps, found.user.id).length > 0) {
        errorsOut.push({
          type: 'INVALID_PERMISSIONS',
          email,
          message: 'Cannot delete sole owner of a workspace with other collaborators',
        });
      } else {
        deleteUserEverywhere(deps, found.user.id);
        deletedUsers.push({ id: found.user.id, email: found.user.email });
      }
    }
    return c.json({ deletedUsers, errors: errorsOut });
  }

  async function manageUserMembership(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.user:write');
    if (!admin.ok) return respond(c, admin.error);
    const json = await readJson(c);
    if (!json.ok) return respond(c, json.error);
    const raw = json.value as { users?: unknown } | undefined;
    if (
      Array.isArray(raw?.users) &&
      raw.users.some((u) => typeof u === 'object' && u !== null && !('id' in u) && !('email' in u))
    ) {
      return respond(c, ID_OR_EMAIL);
    }
    const checked = checkBody('manageUserMembership', json.value);
    if (!checked.ok) return respond(c, checked.error);
    const { account } = admin.value;
    const items = (json.value as { users: (UserRef & { state: 'managed' | 'unmanaged' })[] }).users;
    const domains = domainsOf(state, account);
    const scope = state.accountScope(account.id);
    const errorsOut: ItemError[] = [];
    state.transaction(() => {
      for (const item of items) {
        const user = resolveRef(deps, item);
        if (!user) {
          errorsOut.push(itemError(item, 'NOT_FOUND', `No user ${item.id ?? item.email}`));
          continue;
        }
        const profile = state.profile(user.id);
        if (profile?.enterpriseAccountId != null && !scope.has(profile.enterpriseAccountId)) {
          errorsOut.push(
            itemError(
              item,
              'USER_IN_OTHER_ENTERPRISE_ACCOUNT',
              `${user.email} belongs to another enterprise account`,
            ),
          );
          continue;
        }
        if (item.state === 'managed') {
          if (!domains.has(domainOf(user.email))) {
            errorsOut.push(
              itemError(
                item,
                'INVALID_EMAIL_DOMAIN',
                `${user.email} is not in an email domain of the enterprise (${[...domains].join(', ')})`,
              ),
            );
            continue;
          }
          if (profile) {
            state.update('profile', user.id, (p) => {
              p.isManaged = true;
              p.enterpriseAccountId ??= account.id;
            });
          } else {
            const names = splitName(user.name);
            state.put('profile', {
              id: user.id,
              enterpriseAccountId: account.id,
              ...names,
              state: 'provisioned',
              isManaged: true,
              isAdmin: false,
              isServiceAccount: false,
              isSsoRequired: [...account.emailDomains].some(
                (d) => d.emailDomain.toLowerCase() === domainOf(user.email) && d.isSsoRequired,
              ),
              isTwoFactorAuthEnabled: false,
              createdTime: now(),
              lastActivityTime: null,
              invitedToAirtableByUserId: null,
              loggedOutTime: null,
              scim: {},
            });
          }
          continue;
        }
        if (!profile?.isManaged) continue;
        // An admin must be managed: releasing one would leave an unmanaged admin behind.
        if (profile.isAdmin) {
          errorsOut.push(
            itemError(
              item,
              'USER_IS_ADMIN',
              `${user.email} is an enterprise admin; revoke admin access first`,
            ),
          );
          continue;
        }
        state.update('profile', user.id, (p) => {
          p.isManaged = false;
        });
      }
    });
    return c.json({ errors: errorsOut });
  }

  const adminAccess = (grant: boolean) => async (c: Ctx) => {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.user:write');
    if (!admin.ok) return respond(c, admin.error);
    const body = await readBody(c, grant ? 'grantAdminAccess' : 'revokeAdminAccess');
    if (!body.ok) return respond(c, body.error);
    const { account, principal } = admin.value;
    const errorsOut: ItemError[] = [];
    state.transaction(() => {
      for (const item of body.value.users as UserRef[]) {
        const user = resolveRef(deps, item);
        const found = user ? userInScope(deps, account, user.id) : undefined;
        if (!found) {
          errorsOut.push(notInAccount(item, account.id));
          continue;
        }
        const { profile } = found;
        if (grant && (!profile.isManaged || profile.state !== 'provisioned')) {
          errorsOut.push(
            itemError(
              item,
              profile.isManaged ? 'USER_NOT_PROVISIONED' : 'USER_NOT_MANAGED',
              `Admin access needs a managed, provisioned user; ${found.user.email} is ${profile.isManaged ? profile.state : 'not managed'}`,
            ),
          );
          continue;
        }
        if (!grant && found.user.id === principal.userId) {
          errorsOut.push(
            itemError(item, 'CANNOT_REVOKE_OWN_ADMIN_ACCESS', 'You cannot revoke your own admin access'),
          );
          continue;
        }
        // Granting to an admin or revoking from a non-admin changes nothing and is not an error.
        if (profile.isAdmin !== grant) {
          state.update('profile', found.user.id, (p) => {
            p.isAdmin = grant;
          });
        }
      }
    });
    return c.json({ errors: errorsOut });
  };
  const grantAdminAccess = adminAccess(true);
  const revokeAdminAccess = adminAccess(false);

  async function logoutUser(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.user:write');
    if (!admin.ok) return respond(c, admin.error);
    // Any JSON body is accepted (the upstream documents none); unparsable JSON is still the usual 400.
    const json = await readJson(c);
    if (!json.ok) return respond(c, json.error);
    const { account } = admin.value;
    const found = userInScope(deps, account, param(c, 'userId'));
    if (!found) return respond(c, userNotFound(param(c, 'userId'), account.id));
    state.update('profile', found.user.id, (p) => {
      p.loggedOutTime = now();
    });
    return c.json({});
  }

  async function removeUserFromEnterprise(c: Ctx) {
    const admin = requireAdmin(c, deps, param(c, 'enterpriseAccountId'), 'enterprise.user:write');
    if (!admin.ok) return respond(c, admin.error);
    const body = await readBody(c, 'removeUserFromEnterprise');
    if (!body.ok) return respond(c, body.error);
    const { account, principal } = admin.value;
    const userId = param(c, 'userId');
    // Anyone with access to the enterprise's assets can be removed, collaborators from outside it too.
    if (!store.schema().userById.has(userId)) return respond(c, userNotFound(userId, account.id));
    if (userId === principal.userId) {
      return respond(c, forbidden('You are not permitted to perform this operation on yourself'));
    }
    const options = body.value as {
      isDryRun?: boolean | null;
      replacementOwnerId?: string | null;
      removeFromDescendants?: boolean;
    };
    // removeFromDescendants only means something on a root account; a descendant has none.
    const accounts =
      options.removeFromDescendants === true ? state.accountScope(account.id) : new Set([account.id]);
    const replacement = options.replacementOwnerId ?? undefined;
    if (replacement !== undefined) {
      const profile = state.profile(replacement);
      if (
        !store.schema().userById.has(replacement) ||
        replacement === userId ||
        profile?.state === 'deactivated'
      ) {
        return respond(c, invalid(`replacementOwnerId ${replacement} must be another active user.`));
      }
    }
    const soleOwned = soleOwnedWorkspaces(deps, userId, accounts);
    if (soleOwned.length > 0 && replacement === undefined) {
      return respond(
        c,
        invalid(
          `the user is the sole owner of workspace ${soleOwned.join(', ')}; give a replacementOwnerId to take it over.`,
        ),
      );
    }
    const removed = unshareEverywhere(deps, userId, {
      replacementOwnerId: replacement,
      dryRun: options.isDryRun === true,
      accounts,
    });
    return c.json(removed);
  }

  // --- user groups ------------------------------------------------------------------------------------------

  function getUserGroup(c: Ctx) {
    const principal = requireScope(c, deps, 'enterprise.groups:read');
    if (!principal.ok) return respond(c, principal.error);
    const include = includes(c, ['collaborations']);
    if (!(include instanceof Set)) return respond(c, include);
    const group = state.get('group', param(c, 'groupId'));
    const userId = principal.value.userId;
    // Admins of the group's account and the group's own members see it; to anyone else it does not exist.
    if (
      !group ||
      !(state.isAdminOf(userId, group.enterpriseAccountId) || group.members.some((m) => m.userId === userId))
    ) {
      return respond(c, errors.modelNotFound());
    }
    return c.json(groupInfo(deps, group, include.has('collaborations')));
  }

  route(area, STORE_OPERATIONS.GetEnterprise, getEnterprise);
  route(area, STORE_OPERATIONS.CreateDescendantEnterprise, createDescendantEnterprise);
  route(area, STORE_OPERATIONS.MoveUserGroups, moveUserGroups);
  route(area, STORE_OPERATIONS.MoveWorkspaces, moveWorkspaces);
  route(area, STORE_OPERATIONS.GetUsersByIdOrEmail, getUsersByIdOrEmail);
  route(area, STORE_OPERATIONS.GetUserById, getUserById);
  route(area, STORE_OPERATIONS.ManageUser, manageUser);
  route(area, STORE_OPERATIONS.ManageUserBatched, manageUserBatched);
  route(area, STORE_OPERATIONS.DeleteUserById, deleteUserById);
  route(area, STORE_OPERATIONS.DeleteUsersByEmail, deleteUsersByEmail);
  route(area, STORE_OPERATIONS.ManageUserMembership, manageUserMembership);
  route(area, STORE_OPERATIONS.GrantAdminAccess, grantAdminAccess);
  route(area, STORE_OPERATIONS.RevokeAdminAccess, revokeAdminAccess);
  route(area, STORE_OPERATIONS.LogoutUser, logoutUser);
  route(area, STORE_OPERATIONS.RemoveUserFromEnterprise, removeUserFromEnterprise);
  route(area, STORE_OPERATIONS.GetUserGroup, getUserGroup);
  return area;
}
