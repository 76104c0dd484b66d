/**
 * SCIM 2.0 provisioning (`/scim/v2/Users` and `/scim/v2/Groups`, RFC 7643/7644): the data plane's users and
 * the administration plane's user groups seen as SCIM resources. A SCIM User is a store user (id, email as
 * userName, name) with its UserProfileDoc (given and family name, `active` ⇔ state provisioned, the other SCIM
 * attributes in `profile.scim`); a SCIM Group is a UserGroupDoc. Every handler starts with `requireScimAdmin`:
 * the token's scope and its user administering an enterprise account; that account's scope (itself, plus its
 * descendants for a root) bounds every read and write.
 *
 * Answers are `application/scim+json`; failures past authentication carry SCIM error bodies
 * (`{schemas:[…Error], status:"400", scimType?, detail}`), including the shared body schemas' 422s, which become
 * 400 invalidSyntax/invalidValue with the same detail, since SCIM clients expect 400. Lists are ListResponses
 * paged by 1-based `startIndex` and `count`, filtered with admin/scimFilter.ts, and honour `attributes` and
 * `excludedAttributes`. PATCH applies add/replace/remove operations in order to the resource, then checks and
 * stores the result as a PUT would, so either every operation applies or none does.
 */
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { formatZodIssues } from '../../../../text/zodIssues.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import { STORE_BODIES, type StoreBodyName } from '../../schemas/index.js';
import { SCIM_ENTERPRISE_USER_URI, SCIM_GROUP_URI, SCIM_USER_URI } from '../../schemas/scim.js';
import { type AdminRouteDeps, requireScimAdmin } from '../admin/guards.js';
import type { EnterpriseAccountDoc, GroupMember, UserGroupDoc, UserProfileDoc } from '../admin/model.js';
import {
  filterScimResources,
  parseScimFilter,
  parseScimPath,
  type ResolvedAttribute,
  resolveAttribute,
  type ScimAttribute,
  type ScimFilter,
  ScimFilterError,
  type ScimPath,
  type ScimResourceType,
  scimSchemaOf,
} from '../admin/scimFilter.js';
import { deleteUserEverywhere, soleOwnedSharedWorkspaces } from '../admin/users.js';
import type { Principal } from '../auth.js';
import type { UserRow } from '../model.js';
import { type Ctx, createArea, param, Refusal, readBody, readJson, route } from './common.js';

const LIST_RESPONSE_URI = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR_URI = 'urn:ietf:params:scim:api:messages:2.0:Error';
const CONTENT_TYPE = 'application/scim+json';
const USERS = '/scim/v2/Users';
const GROUPS = '/scim/v2/Groups';

type Json = Record<string, unknown>;

// ---- answers and errors ------------------------------------------------------------------------------------

type ScimErrorType =
  | 'invalidFilter'
  | 'invalidPath'
  | 'invalidSyntax'
  | 'invalidValue'
  | 'mutability'
  | 'noTarget'
  | 'uniqueness';

/** A refusal with its SCIM error body; thrown inside handlers (rolling back a transaction) and answered once. */
class ScimProblem extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly detail: string,
    readonly scimType?: ScimErrorType,
  ) {
    super(detail);
  }
}

function scimJson(
  c: Ctx,
  body: unknown,
  status: ContentfulStatusCode = 200,
  headers: Record<string, string> = {},
): Response {
  return c.body(JSON.stringify(body), status, { 'Content-Type': CONTENT_TYPE, ...headers });
}

function scimError(c: Ctx, problem: ScimProblem): Response {
  return scimJson(
    c,
    {
      schemas: [ERROR_URI],
      status: String(problem.status),
      ...(problem.scimType ? { scimType: problem.scimType } : {}),
      detail: problem.detail,
    },
    problem.status,
  );
}

const invalidValue = (detail: string) => new ScimProblem(400, detail, 'invalidValue');

interface ScimCaller {
  principal: Principal;
  account: EnterpriseAccountDoc;
  /** The accounts the caller's SCIM token reaches: its account and, for a root, the descendants. */
  scope: ReadonlySet<string>;
}

/**
 * What every SCIM handler starts with: the caller (refused with the store's usual 401/403 bodies), then, for a
 * request with a body, its content type.
 */
function scimCaller(c: Ctx, deps: AdminRouteDeps, hasBody = false): ScimCaller {
  const admin = requireScimAdmin(c, deps);
  if (!admin.ok) throw new Refusal(admin.error);
  const caller: ScimCaller = { ...admin.value, scope: deps.state.accountScope(admin.value.account.id) };
  if (hasBody) checkContentType(c);
  return caller;
}

/** The SCIM area's error handling: ScimProblems and filter/path errors become SCIM error bodies. */
function answerScimProblem(error: Error, c: Ctx): Response | undefined {
  if (error instanceof ScimProblem) return scimError(c, error);
  if (error instanceof ScimFilterError)
    return scimError(c, new ScimProblem(400, error.message, error.scimType));
  return undefined;
}

/**
 * SCIM clients send application/scim+json, generic ones application/json; both are read. A request without a
 * content type is read as JSON too (lenient); any other type is refused with 415, as HTTP has it.
 */
function checkContentType(c: Ctx): void {
  const type = c.req.header('content-type');
  if (type === undefined || type.trim() === '') return;
  if (/^application\/(scim\+)?json\s*(;|$)/i.test(type.trim())) return;
  throw new ScimProblem(
    415,
    `Content type ${type} is not accepted; send the body as application/scim+json or application/json.`,
  );
}

/**
 * The body checked against the shared schema `name`. Its 400 (not JSON) becomes invalidSyntax; its 422 becomes
 * a SCIM 400 with the same detail: invalidSyntax when the message structure is wrong (not an object, unknown
 * members, `schemas`), invalidValue when a value is.
 */
async function scimBody(c: Ctx, name: StoreBodyName): Promise<Json> {
  const body = await readBody(c, name);
  if (body.ok) return body.value;
  const message = body.error.message ?? 'The request body is invalid.';
  if (body.error.status !== 422) throw new ScimProblem(400, message, 'invalidSyntax');
  const raw = await readJson(c);
  const value = raw.ok ? raw.value : undefined;
  let structural = typeof value !== 'object' || value === null || Array.isArray(value);
  if (!structural) {
    const parsed = (STORE_BODIES[name] as z.ZodType).safeParse(value);
    structural =
      !parsed.success &&
      parsed.error.issues.some(
        (issue) =>
          issue.code === 'unrecognized_keys' ||
          issue.path.length === 0 ||
          (issue.path[0] === 'schemas' && issue.path.length <= 2),
      );
  }
  throw new ScimProblem(400, message, structural ? 'invalidSyntax' : 'invalidValue');
}

// ---- list parameters ----------------------------------------------------------------------------------------

/** A non-negative integer query parameter, or undefined when absent. */
function intParam(c: Ctx, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim())) {
    throw invalidValue(`${name} must be a non-negative integer; got "${raw}".`);
  }
  return Number(raw.trim());
}

interface Projection {
  attributes: ResolvedAttribute[] | undefined;
  excluded: ResolvedAttribute[] | undefined;
}

function attributeList(
  c: Ctx,
  name: 'attributes' | 'excludedAttributes',
  type: ScimResourceType,
): ResolvedAttribute[] | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return resolveAttribute(s, scimSchemaOf(type), 'invalidFilter');
      } catch (error) {
        if (error instanceof ScimFilterError) throw invalidValue(`${name}: ${error.message}`);
        throw error;
      }
    });
}

function projectionOf(c: Ctx, type: ScimResourceType): Projection {
  return {
    attributes: attributeList(c, 'attributes', type),
    excluded: attributeList(c, 'excludedAttributes', type),
  };
}

/** Picks a sub-attribute from a complex value or from each element of a multi-valued one. */
function pickSub(value: unknown, sub: string): unknown {
  if (Array.isArray(value)) {
    const picked = value
      .map((v) => (v && typeof v === 'object' ? { [sub]: (v as Json)[sub] } : undefined))
      .filter((v) => v !== undefined && v[sub] !== undefined);
    return picked.length > 0 ? picked : undefined;
  }
  if (value && typeof value === 'object') {
    const v = (value as Json)[sub];
    return v === undefined ? undefined : { [sub]: v };
  }
  return undefined;
}

/** `attributes` keeps only the named ones (plus schemas and id, always returned); `excludedAttributes` drops. */
function project(resource: Json, projection: Projection): Json {
  const { attributes, excluded } = projection;
  let out = resource;
  if (attributes) {
    out = { schemas: resource.schemas, id: resource.id };
    for (const a of attributes) {
      const holder = a.container ? ((resource[a.container] as Json | undefined) ?? {}) : resource;
      let value = holder[a.attribute.name];
      if (a.sub) value = pickSub(value, a.sub.name);
      if (value === undefined) continue;
      if (a.container) {
        const target = (out[a.container] as Json | undefined) ?? {};
        out[a.container] = { ...target, [a.attribute.name]: value };
      } else if (a.sub && out[a.attribute.name] && !Array.isArray(value)) {
        out[a.attribute.name] = { ...(out[a.attribute.name] as Json), ...(value as Json) };
      } else {
        out[a.attribute.name] = value;
      }
    }
  }
  if (excluded) {
    out = structuredClone(out);
    for (const a of excluded) {
      if (!a.container && (a.attribute.name === 'id' || a.attribute.name === 'schemas')) continue;
      const holder = a.container ? (out[a.container] as Json | undefined) : out;
      if (!holder) continue;
      if (!a.sub) {
        delete holder[a.attribute.name];
      } else {
        const value = holder[a.attribute.name];
        for (const item of Array.isArray(value) ? value : [value]) {
          if (item && typeof item === 'object') delete (item as Json)[a.sub.name];
        }
      }
      if (a.container && Object.keys(holder).length === 0) delete out[a.container];
    }
  }
  return out;
}

function filterOf(c: Ctx, type: ScimResourceType): ScimFilter | undefined {
  const raw = c.req.query('filter');
  if (raw === undefined) return undefined;
  return parseScimFilter(raw, type);
}

/** The ListResponse for a filtered list: `startIndex` 1-based (below 1 reads as 1), `count` absent: all. */
function listResponse(c: Ctx, resources: Json[], projection: Projection): Response {
  const startIndex = Math.max(1, intParam(c, 'startIndex') ?? 1);
  const count = intParam(c, 'count');
  const page = resources.slice(startIndex - 1, count === undefined ? undefined : startIndex - 1 + count);
  return scimJson(c, {
    schemas: [LIST_RESPONSE_URI],
    totalResults: resources.length,
    startIndex,
    itemsPerPage: page.length,
    Resources: page.map((r) => project(r, projection)),
  });
}

// ---- users as SCIM resources ----------------------------------------------------------------------------------

interface UserEntry {
  user: UserRow;
  profile: UserProfileDoc;
}

/** SCIM attributes kept in `profile.scim`, in the order resources show them. */
const STORED_STRINGS = [
  'displayName',
  'nickName',
  'profileUrl',
  'title',
  'userType',
  'preferredLanguage',
  'locale',
  'timezone',
] as const;
const STORED_LISTS = [
  'emails',
  'phoneNumbers',
  'ims',
  'photos',
  'addresses',
  'entitlements',
  'roles',
] as const;
const NAME_EXTRAS = ['formatted', 'middleName', 'honorificPrefix', 'honorificSuffix'] as const;
/** When the emulator last changed the user through SCIM (profile.scim holds it next to the attributes). */
const LAST_MODIFIED = 'lastModified';

/** Without emails of its own, a user shows its userName as its primary work email. */
function derivedEmails(userName: string): Json[] {
  return [{ value: userName, type: 'work', primary: true }];
}

function usersInScope(deps: AdminRouteDeps, scope: ReadonlySet<string>): UserEntry[] {
  const byId = deps.store.schema().userById;
  const out: UserEntry[] = [];
  for (const profile of deps.state.list('profile')) {
    if (profile.enterpriseAccountId === null || !scope.has(profile.enterpriseAccountId)) continue;
    const user = byId.get(profile.id);
    if (user) out.push({ user, profile });
  }
  return out;
}

function findUser(deps: AdminRouteDeps, caller: ScimCaller, userId: string): UserEntry {
  const profile = deps.state.profile(userId);
  const user = deps.store.schema().userById.get(userId);
  if (
    !profile ||
    !user ||
    profile.enterpriseAccountId === null ||
    !caller.scope.has(profile.enterpriseAccountId)
  ) {
    throw new ScimProblem(404, `User ${userId} not found in this enterprise account.`);
  }
  return { user, profile };
}

function groupsInScope(deps: AdminRouteDeps, scope: ReadonlySet<string>): UserGroupDoc[] {
  return deps.state.list('group').filter((g) => scope.has(g.enterpriseAccountId));
}

/** Each user's groups (display names), for the read-only `groups` attribute. */
function groupIndex(groups: readonly UserGroupDoc[]): Map<string, Json[]> {
  const index = new Map<string, Json[]>();
  for (const group of groups) {
    for (const member of group.members) {
      const list = index.get(member.userId) ?? [];
      list.push({ value: group.id, display: group.name, $ref: `${GROUPS}/${group.id}` });
      index.set(member.userId, list);
    }
  }
  return index;
}

function userResource(entry: UserEntry, groups: Map<string, Json[]>): Json {
  const { user, profile } = entry;
  const scim = profile.scim;
  const extension = scim[SCIM_ENTERPRISE_USER_URI] as Json | undefined;
  const resource: Json = {
    schemas: extension ? [SCIM_USER_URI, SCIM_ENTERPRISE_USER_URI] : [SCIM_USER_URI],
    id: user.id,
  };
  if (typeof scim.externalId === 'string') resource.externalId = scim.externalId;
  resource.userName = user.email;
  const nameExtras = (scim.name as Json | undefined) ?? {};
  resource.name = { ...nameExtras, givenName: profile.firstName, familyName: profile.lastName };
  for (const key of STORED_STRINGS) if (typeof scim[key] === 'string') resource[key] = scim[key];
  resource.active = profile.state === 'provisioned';
  resource.emails = Array.isArray(scim.emails) ? scim.emails : derivedEmails(user.email);
  for (const key of STORED_LISTS) {
    if (key !== 'emails' && Array.isArray(scim[key])) resource[key] = scim[key];
  }
  const memberOf = groups.get(user.id);
  if (memberOf && memberOf.length > 0) resource.groups = memberOf;
  if (extension) resource[SCIM_ENTERPRISE_USER_URI] = extension;
  const lastModified = typeof scim[LAST_MODIFIED] === 'string' ? scim[LAST_MODIFIED] : profile.createdTime;
  resource.meta = {
    resourceType: 'User',
    created: profile.createdTime,
    lastModified,
    location: `${USERS}/${user.id}`,
  };
  return resource;
}

/**
 * Resources of unchanged users, reused between list requests (10,000 users are listed and filtered per request):
 * a profile or user row that changes is a new object (AdminState and StoreDatabase never mutate cached rows in place),
 * and a change to the user's groups changes the signature. Callers never mutate what this returns.
 */
const listed = new WeakMap<UserProfileDoc, { user: UserRow; groups: string; resource: Json }>();

function listedUserResource(entry: UserEntry, groups: Map<string, Json[]>): Json {
  const memberOf = groups.get(entry.user.id);
  const signature = memberOf ? memberOf.map((g) => `${g.value}\u0000${g.display}`).join('\u0000') : '';
  const hit = listed.get(entry.profile);
  if (hit && hit.user === entry.user && hit.groups === signature) return hit.resource;
  const resource = userResource(entry, groups);
  listed.set(entry.profile, { user: entry.user, groups: signature, resource });
  return resource;
}

function oneUserResource(deps: AdminRouteDeps, caller: ScimCaller, entry: UserEntry): Json {
  return userResource(
    entry,
    groupIndex(
      groupsInScope(deps, caller.scope).filter((g) => g.members.some((m) => m.userId === entry.user.id)),
    ),
  );
}

// ---- writing users -------------------------------------------------------------------------------------------

const isBlank = (v: unknown) => v === undefined || v === null;

/** Email domains the caller's enterprise has verified: its accounts' and its organisation root's. */
function domainsOf(deps: AdminRouteDeps, caller: ScimCaller): Map<string, boolean> {
  const domains = new Map<string, boolean>();
  const accounts = [...caller.scope, caller.account.rootEnterpriseAccountId];
  for (const id of accounts) {
    for (const d of deps.state.account(id)?.emailDomains ?? []) {
      domains.set(
        d.emailDomain.toLowerCase(),
        (domains.get(d.emailDomain.toLowerCase()) ?? false) || d.isSsoRequired,
      );
    }
  }
  return domains;
}

function checkUserName(deps: AdminRouteDeps, caller: ScimCaller, userName: string, selfId?: string): void {
  const existing = deps.store.schema().userByEmail.get(userName.toLowerCase());
  if (existing && existing.id !== selfId) {
    throw new ScimProblem(
      409,
      `A user with userName ${userName} already exists (${existing.id}).`,
      'uniqueness',
    );
  }
  const domain = userName.slice(userName.lastIndexOf('@') + 1).toLowerCase();
  const domains = domainsOf(deps, caller);
  if (!domains.has(domain)) {
    throw invalidValue(
      `userName ${userName} is not in one of the enterprise's email domains (${[...domains.keys()].join(', ')}); provision users with an address in one of them.`,
    );
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Writes a SCIM user (created, replaced, or patched and checked) to both planes. `active` absent keeps the
 * current state on replace (a PUT that leaves it out should not deactivate anyone) and is true on create.
 */
function saveUser(
  deps: AdminRouteDeps,
  caller: ScimCaller,
  input: Json,
  current: UserEntry | undefined,
): UserEntry {
  const userName = String(input.userName).trim();
  if (!current || userName.toLowerCase() !== current.user.email.toLowerCase()) {
    checkUserName(deps, caller, userName, current?.user.id);
  }
  const name = (input.name as Json | null | undefined) ?? {};
  const givenName = typeof name.givenName === 'string' ? name.givenName : '';
  const familyName = typeof name.familyName === 'string' ? name.familyName : '';
  const active =
    typeof input.active === 'boolean'
      ? input.active
      : current
        ? current.profile.state === 'provisioned'
        : true;
  if (!active && current?.user.id === caller.principal.userId) {
    throw invalidValue(
      `User ${current.user.id} is the admin whose token makes this request and cannot be deactivated with it; use another admin's token.`,
    );
  }
  const now = deps.clock.now().toISOString();
  const scim: Json = {};
  // Keys other parts of the emulator keep in profile.scim survive a SCIM replace.
  if (current) {
    for (const [key, value] of Object.entries(current.profile.scim)) {
      if (!SCIM_KEYS.has(key)) scim[key] = value;
    }
  }
  if (typeof input.externalId === 'string') scim.externalId = input.externalId;
  const nameExtras: Json = {};
  for (const key of NAME_EXTRAS) if (typeof name[key] === 'string') nameExtras[key] = name[key];
  if (Object.keys(nameExtras).length > 0) scim.name = nameExtras;
  for (const key of STORED_STRINGS) if (typeof input[key] === 'string') scim[key] = input[key];
  for (const key of STORED_LISTS) {
    const list = input[key];
    if (Array.isArray(list) && list.length > 0) scim[key] = list.map(withoutNulls);
  }
  // Emails that only restate the (old or new) userName stay derived, so they follow later userName changes.
  if (
    Array.isArray(scim.emails) &&
    (sameJson(scim.emails, derivedEmails(userName)) ||
      (current !== undefined && sameJson(scim.emails, derivedEmails(current.user.email))))
  ) {
    delete scim.emails;
  }
  const extension = withoutNulls(input[SCIM_ENTERPRISE_USER_URI]);
  if (extension && typeof extension === 'object' && Object.keys(extension).length > 0) {
    scim[SCIM_ENTERPRISE_USER_URI] = extension;
  }
  scim[LAST_MODIFIED] = now;
  const displayName = typeof input.displayName === 'string' ? input.displayName.trim() : '';
  const fullName = `${givenName} ${familyName}`.trim() || displayName || userName;
  return deps.state.transaction(() => {
    let user: UserRow;
    let profile: UserProfileDoc;
    if (current) {
      user = { ...current.user, email: userName, name: fullName };
      deps.store.updateUser(user);
      profile = deps.state.update('profile', current.profile.id, (p) => {
        p.firstName = givenName;
        p.lastName = familyName;
        p.state = active ? 'provisioned' : 'deactivated';
        p.scim = scim;
      }) as UserProfileDoc;
    } else {
      user = { id: deps.store.newId('user'), email: userName, name: fullName };
      deps.store.insertUser(user);
      const domain = userName.slice(userName.lastIndexOf('@') + 1).toLowerCase();
      profile = deps.state.put('profile', {
        id: user.id,
        enterpriseAccountId: caller.account.id,
        firstName: givenName,
        lastName: familyName,
        state: active ? 'provisioned' : 'deactivated',
        isManaged: true,
        isAdmin: false,
        isServiceAccount: false,
        isSsoRequired: domainsOf(deps, caller).get(domain) ?? false,
        isTwoFactorAuthEnabled: false,
        createdTime: now,
        lastActivityTime: null,
        invitedToAirtableByUserId: caller.principal.userId,
        loggedOutTime: null,
        scim,
      });
    }
    return { user, profile };
  });
}

/** Every profile.scim key this family owns; others are left alone. */
const SCIM_KEYS = new Set<string>([
  'externalId',
  'name',
  ...STORED_STRINGS,
  ...STORED_LISTS,
  SCIM_ENTERPRISE_USER_URI,
  LAST_MODIFIED,
]);

/** A copy without null members (SCIM clients send null for "no value"). */
function withoutNulls(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return value.map(withoutNulls).filter((v) => v !== undefined);
  if (typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      const kept = withoutNulls(v);
      if (kept !== undefined) out[k] = kept;
    }
    return out;
  }
  return value;
}

// ---- groups as SCIM resources ---------------------------------------------------------------------------------

function groupResource(deps: AdminRouteDeps, group: UserGroupDoc): Json {
  const byId = deps.store.schema().userById;
  return {
    schemas: [SCIM_GROUP_URI],
    id: group.id,
    ...(typeof group.scim.externalId === 'string' ? { externalId: group.scim.externalId } : {}),
    displayName: group.name,
    members: group.members.map((m) => {
      const name = byId.get(m.userId)?.name;
      return name ? { value: m.userId, display: name } : { value: m.userId };
    }),
    meta: {
      resourceType: 'Group',
      created: group.createdTime,
      lastModified: group.updatedTime,
      location: `${GROUPS}/${group.id}`,
    },
  };
}

function findGroup(deps: AdminRouteDeps, caller: ScimCaller, groupId: string): UserGroupDoc {
  const group = deps.state.get('group', groupId);
  if (!group || !caller.scope.has(group.enterpriseAccountId)) {
    throw new ScimProblem(404, `Group ${groupId} not found in this enterprise account.`);
  }
  return group;
}

function checkGroupName(
  deps: AdminRouteDeps,
  caller: ScimCaller,
  displayName: unknown,
  selfId?: string,
): string {
  if (typeof displayName !== 'string' || displayName.trim() === '') {
    throw invalidValue('displayName must be a non-empty string.');
  }
  const name = displayName.trim();
  // Names are compared without case: "Design" and "design" would be indistinguishable in most tools.
  const taken = groupsInScope(deps, caller.scope).find(
    (g) => g.id !== selfId && g.name.toLowerCase() === name.toLowerCase(),
  );
  if (taken) {
    throw new ScimProblem(409, `A group named "${taken.name}" already exists (${taken.id}).`, 'uniqueness');
  }
  return name;
}

/** Member ids from SCIM member objects, each a user of the caller's enterprise. */
function memberIds(deps: AdminRouteDeps, caller: ScimCaller, members: unknown): string[] {
  if (members === undefined || members === null) return [];
  if (!Array.isArray(members)) throw invalidValue('members must be a list of {"value": "usr…"} objects.');
  const ids: string[] = [];
  for (const member of members) {
    const value = member && typeof member === 'object' ? (member as Json).value : undefined;
    if (typeof value !== 'string' || value === '') {
      throw invalidValue('Each member must be an object with a "value" naming a user id (usr…).');
    }
    if (!ids.includes(value)) ids.push(value);
  }
  const unknown = ids.filter((id) => {
    const profile = deps.state.profile(id);
    return (
      !deps.store.schema().userById.has(id) ||
      !profile ||
      profile.enterpriseAccountId === null ||
      !caller.scope.has(profile.enterpriseAccountId)
    );
  });
  if (unknown.length > 0) {
    throw invalidValue(
      `No user ${unknown.join(', ')} in this enterprise account; members must be SCIM users of the enterprise (GET /scim/v2/Users).`,
    );
  }
  return ids;
}

function saveGroup(
  deps: AdminRouteDeps,
  group: UserGroupDoc,
  change: { name: string; members: string[]; externalId: string | undefined },
): UserGroupDoc {
  const now = deps.clock.now().toISOString();
  const before = new Map(group.members.map((m) => [m.userId, m]));
  const members: GroupMember[] = change.members.map(
    (userId) => before.get(userId) ?? { userId, role: 'member', createdTime: now },
  );
  return deps.state.update('group', group.id, (g) => {
    g.name = change.name;
    g.members = members;
    g.updatedTime = now;
    if (change.externalId === undefined) delete g.scim.externalId;
    else g.scim.externalId = change.externalId;
  }) as UserGroupDoc;
}

// ---- PATCH --------------------------------------------------------------------------------------------------

interface Operation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

/** Canonical spelling of a value's sub-attribute names (SCIM names are case-insensitive). */
function canonical(value: unknown, attribute: ScimAttribute): unknown {
  const subs = attribute.subAttributes;
  if (!subs) return value;
  const fix = (item: unknown): unknown => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) return item;
    const out: Json = {};
    for (const [k, v] of Object.entries(item)) out[subs.get(k.toLowerCase())?.name ?? k] = v;
    return out;
  };
  return Array.isArray(value) ? value.map(fix) : fix(value);
}

function asObject(value: unknown, path: string): Json {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidValue(`The value for ${path} must be an object.`);
  }
  return value as Json;
}

/** Whether two elements of a multi-valued attribute are the same value (by `value` when they have one). */
function sameElement(a: unknown, b: unknown): boolean {
  if (a && b && typeof a === 'object' && typeof b === 'object' && 'value' in a && 'value' in b) {
    return (a as Json).value === (b as Json).value;
  }
  return sameJson(a, b);
}

/** Applies one operation to the resource in place (RFC 7644 §3.5.2). */
function applyOperation(resource: Json, operation: Operation, type: ScimResourceType): void {
  let path: ScimPath;
  try {
    path = parseScimPath(operation.path, type);
  } catch (error) {
    if (error instanceof ScimFilterError) throw new ScimProblem(400, error.message, 'invalidPath');
    throw error;
  }
  const { attribute, sub, filter, equality, container } = path;
  if (attribute.mutability === 'readOnly') {
    throw new ScimProblem(400, `${attribute.name} is read-only and cannot be changed.`, 'mutability');
  }
  if (attribute.mutability === 'writeOnly') {
    throw new ScimProblem(
      400,
      `${attribute.name} cannot be set here: users sign in through SSO and have no password.`,
      'mutability',
    );
  }
  const holder = container ? ((resource[container] as Json | undefined) ?? {}) : resource;
  if (container) resource[container] = holder;
  const key = attribute.name;
  const { op } = operation;
  const value = operation.value === undefined ? undefined : canonical(operation.value, attribute);

  if (filter) {
    if (!attribute.multiValued) {
      throw new ScimProblem(
        400,
        `${path.path}: only multi-valued attributes take a [filter].`,
        'invalidPath',
      );
    }
    const elements = Array.isArray(holder[key]) ? ([...(holder[key] as unknown[])] as Json[]) : [];
    const matching = elements.filter((e) => filter(e));
    if (op === 'remove') {
      if (!sub) holder[key] = elements.filter((e) => !matching.includes(e));
      else for (const e of matching) delete e[sub.name];
    } else if (matching.length === 0) {
      // Identity providers set `emails[type eq "work"].value` on users without one: create the element.
      if (!equality) {
        throw new ScimProblem(400, `${path.path} matches no value of ${key}.`, 'noTarget');
      }
      const created: Json = sub ? { [sub.name]: operation.value } : { ...asObject(value, path.path) };
      created[equality.sub] = equality.value;
      elements.push(created);
      holder[key] = elements;
    } else {
      holder[key] = elements.map((e) => {
        if (!matching.includes(e)) return e;
        if (sub) return { ...e, [sub.name]: operation.value };
        const object = asObject(value, path.path);
        return op === 'add' ? { ...e, ...object } : object;
      });
    }
  } else if (sub) {
    if (attribute.multiValued) {
      throw new ScimProblem(
        400,
        `${path.path}: say which ${key} value to change with a filter, e.g. ${key}[type eq "work"].${sub.name}.`,
        'invalidPath',
      );
    }
    const object = { ...((holder[key] as Json | undefined) ?? {}) };
    if (op === 'remove') delete object[sub.name];
    else object[sub.name] = operation.value;
    holder[key] = object;
  } else if (attribute.multiValued) {
    const current = Array.isArray(holder[key]) ? (holder[key] as unknown[]) : [];
    const given = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
    if (op === 'add') {
      const next = [...current];
      for (const item of given) if (!next.some((e) => sameElement(e, item))) next.push(item);
      holder[key] = next;
    } else if (op === 'replace') {
      holder[key] = given;
    } else if (given.length > 0) {
      // `remove` with a value removes those values (how Azure AD takes members out of a group).
      holder[key] = current.filter((e) => !given.some((item) => sameElement(e, item)));
    } else {
      delete holder[key];
    }
  } else if (attribute.type === 'complex') {
    if (op === 'remove') delete holder[key];
    else holder[key] = { ...((holder[key] as Json | undefined) ?? {}), ...asObject(value, path.path) };
  } else if (op === 'remove') {
    delete holder[key];
  } else {
    holder[key] = operation.value;
  }
  if (container && Object.keys(holder).length === 0) delete resource[container];
}

function applyOperations(resource: Json, body: Json, type: ScimResourceType): void {
  for (const operation of body.Operations as Operation[]) applyOperation(resource, operation, type);
}

/** `active` as identity providers send it: a boolean, or "true"/"false" in any case (Azure AD). */
function activeOf(value: unknown): unknown {
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return value;
}

// ---- routes ---------------------------------------------------------------------------------------------------

export function scimArea(deps: AdminRouteDeps): Hono<EmulatorEnv> {
  const area = createArea(answerScimProblem);
  const { state } = deps;

  // --- Users ---

  function listScimUsers(c: Ctx) {
    const caller = scimCaller(c, deps);
    const filter = filterOf(c, 'User');
    const projection = projectionOf(c, 'User');
    const groups = groupIndex(groupsInScope(deps, caller.scope));
    const resources = usersInScope(deps, caller.scope).map((entry) => listedUserResource(entry, groups));
    return listResponse(c, filterScimResources(resources, filter), projection);
  }

  async function createScimUser(c: Ctx) {
    const caller = scimCaller(c, deps, true);
    const body = await scimBody(c, 'createScimUser');
    const entry = saveUser(deps, caller, body, undefined);
    const resource = userResource(entry, new Map());
    return scimJson(c, resource, 201, { Location: `${USERS}/${entry.user.id}` });
  }

  function getScimUser(c: Ctx) {
    const caller = scimCaller(c, deps);
    const entry = findUser(deps, caller, param(c, 'userId'));
    return scimJson(c, project(oneUserResource(deps, caller, entry), projectionOf(c, 'User')));
  }

  async function putScimUser(c: Ctx) {
    const caller = scimCaller(c, deps, true);
    const entry = findUser(deps, caller, param(c, 'userId'));
    const body = await scimBody(c, 'replaceScimUser');
    const saved = saveUser(deps, caller, body, entry);
    return scimJson(c, oneUserResource(deps, caller, saved));
  }

  async function patchScimUser(c: Ctx) {
    const caller = scimCaller(c, deps, true);
    const entry = findUser(deps, caller, param(c, 'userId'));
    const body = await scimBody(c, 'patchScimUser');
    const resource = structuredClone(userResource(entry, new Map()));
    applyOperations(resource, body, 'User');
    // Read-only attributes are not part of what is written back.
    delete resource.id;
    delete resource.meta;
    delete resource.groups;
    resource.active = activeOf(resource.active);
    if (typeof resource.userName !== 'string' || resource.userName.trim() === '') {
      throw invalidValue('userName is required: replace it rather than removing it.');
    }
    if (typeof resource.active !== 'boolean') {
      throw invalidValue('active must stay true or false: replace it rather than removing it.');
    }
    const checked = STORE_BODIES.replaceScimUser.safeParse(resource);
    if (!checked.success) {
      throw invalidValue(`After the operations, the user is not valid: ${formatZodIssues(checked.error)}.`);
    }
    const saved = saveUser(deps, caller, resource, entry);
    return scimJson(c, oneUserResource(deps, caller, saved));
  }

  function deleteScimUser(c: Ctx) {
    const caller = scimCaller(c, deps);
    const entry = findUser(deps, caller, param(c, 'userId'));
    const userId = entry.user.id;
    // The documented refusals (delete-scim-user): 422, in the upstream's words.
    if (userId === caller.principal.userId) {
      throw new ScimProblem(422, 'Cannot perform deletion operation on own account');
    }
    if (soleOwnedSharedWorkspaces(deps, userId).length > 0) {
      throw new ScimProblem(
        422,
        'Cannot delete the sole owner of a workspace containing multiple collaborators',
      );
    }
    deleteUserEverywhere(deps, userId);
    return c.body(null, 204);
  }

  // --- Groups ---

  function listScimGroups(c: Ctx) {
    const caller = scimCaller(c, deps);
    const filter = filterOf(c, 'Group');
    const projection = projectionOf(c, 'Group');
    const resources = groupsInScope(deps, caller.scope).map((g) => groupResource(deps, g));
    return listResponse(c, filterScimResources(resources, filter), projection);
  }

  async function createScimGroup(c: Ctx) {
    const caller = scimCaller(c, deps, true);
    const body = await scimBody(c, 'createScimGroup');
    const name = checkGroupName(deps, caller, body.displayName);
    const now = deps.clock.now().toISOString();
    const group = state.put('group', {
      id: deps.store.newId('userGroup'),
      name,
      enterpriseAccountId: caller.account.id,
      createdTime: now,
      updatedTime: now,
      mappedUserLicenseType: null,
      members: [],
      scim: {},
    });
    return scimJson(c, groupResource(deps, group), 201, { Location: `${GROUPS}/${group.id}` });
  }

  function getScimGroup(c: Ctx) {
    const caller = scimCaller(c, deps);
    const group = findGroup(deps, caller, param(c, 'groupId'));
    return scimJson(c, project(groupResource(deps, group), projectionOf(c, 'Group')));
  }

  async function putScimGroup(c: Ctx) {
    const caller = scimCaller(c, deps, true);
    const group = findGroup(deps, caller, param(c, 'groupId'));
    const body = await scimBody(c, 'replaceScimGroup');
    // displayName is required of a group: a PUT without it keeps the current one. Members are replaced.
    const name = isBlank(body.displayName)
      ? group.name
      : checkGroupName(deps, caller, body.displayName, group.id);
    const members = memberIds(deps, caller, body.members);
    const saved = saveGroup(deps, group, {
      name,
      members,
      externalId: typeof group.scim.externalId === 'string' ? group.scim.externalId : undefined,
    });
    return scimJson(c, groupResource(deps, saved));
  }

  async function patchScimGroup(c: Ctx) {
    const caller = scimCaller(c, deps, true);
    const group = findGroup(deps, caller, param(c, 'groupId'));
    const body = await scimBody(c, 'patchScimGroup');
    const resource = structuredClone(groupResource(deps, group));
    applyOperations(resource, body, 'Group');
    const name = checkGroupName(deps, caller, resource.displayName, group.id);
    const members = memberIds(deps, caller, resource.members ?? []);
    const externalId = resource.externalId;
    if (externalId !== undefined && typeof externalId !== 'string')
      throw invalidValue('externalId must be a string.');
    const saved = saveGroup(deps, group, { name, members, externalId });
    return scimJson(c, groupResource(deps, saved));
  }

  function deleteScimGroup(c: Ctx) {
    const caller = scimCaller(c, deps);
    const group = findGroup(deps, caller, param(c, 'groupId'));
    state.transaction(() => {
      // The members stay; what the group was granted goes with it.
      for (const workspace of state.list('workspace')) {
        if (!workspace.groups[group.id]) continue;
        state.update('workspace', workspace.id, (w) => {
          delete w.groups[group.id];
        });
      }
      for (const base of state.list('base')) {
        if (!base.groups[group.id]) continue;
        state.update('base', base.id, (b) => {
          delete b.groups[group.id];
        });
      }
      for (const page of state.list('interface')) {
        if (!page.groups[group.id]) continue;
        state.update('interface', page.id, (p) => {
          delete p.groups[group.id];
        });
      }
      state.remove('group', group.id);
    });
    return c.body(null, 204);
  }

  route(area, STORE_OPERATIONS.ListScimUsers, listScimUsers);
  route(area, STORE_OPERATIONS.CreateScimUser, createScimUser);
  route(area, STORE_OPERATIONS.GetScimUser, getScimUser);
  route(area, STORE_OPERATIONS.PutScimUser, putScimUser);
  route(area, STORE_OPERATIONS.PatchScimUser, patchScimUser);
  route(area, STORE_OPERATIONS.DeleteScimUser, deleteScimUser);
  route(area, STORE_OPERATIONS.ListScimGroups, listScimGroups);
  route(area, STORE_OPERATIONS.CreateScimGroup, createScimGroup);
  route(area, STORE_OPERATIONS.GetScimGroup, getScimGroup);
  route(area, STORE_OPERATIONS.PutScimGroup, putScimGroup);
  route(area, STORE_OPERATIONS.PatchScimGroup, patchScimGroup);
  route(area, STORE_OPERATIONS.DeleteScimGroup, deleteScimGroup);
  return area;
}
