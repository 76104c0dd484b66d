/**
 * The administration plane's seed, laid over the data plane's (seed/seed.ts): an organisation with a root
 * enterprise account (Enterprise Hub on) and a descendant, a second organisation without the Hub, users managed
 * and not, provisioned and deactivated, admins and not, user groups, workspaces with collaborators, invites and
 * restrictions, base and interface collaborators, invites, shares, block installations, and some history in the
 * audit log (older events too, so the 180-day retention shows). Ids continue the data plane's counter, so the
 * same seed gives the same ids every run.
 */

import type { AuditEntry, AuditTrail } from '../admin/audit.js';
import type { UserProfileDoc, WorkspaceAdminDoc } from '../admin/model.js';
import type { AdminState } from '../admin/state.js';
import type { StoreDatabase } from '../database.js';

const DAY_MS = 86_400_000;

/** Names of seeded objects tests and the sandbox refer to. */
export const ADMIN_SEED = {
  rootAccount: 'Sandbox Enterprise',
  descendantAccount: 'Sandbox Europe',
  otherOrganisation: 'Partner Co',
  domain: 'sandbox.example.com',
  /** Users added by the admin seed (the data plane seeds the first four). */
  users: {
    katherine: { name: 'Katherine Johnson', email: 'katherine@sandbox.example.com' },
    margaret: { name: 'Margaret Hamilton', email: 'margaret@sandbox.example.com' },
    bot: { name: 'Sync Bot', email: 'sync-bot@sandbox.example.com' },
    europe: { name: 'Émilie du Châtelet', email: 'emilie@eu.sandbox.example.com' },
    partner: { name: 'Pat Partner', email: 'pat@partner.example.com' },
  },
  groups: { engineering: 'Engineering', support: 'Support', europe: 'EU Team', partner: 'Partner Admins' },
  workspaces: { research: 'Research Workspace', europe: 'Europe Workspace', partner: 'Partner Workspace' },
} as const;

export interface AdminSeedOptions {
  /** When the data plane was seeded: the admin seed dates everything relative to it. */
  now: Date;
  /** Extra synthetic audit events, spread over the last 200 days (benchmarks ask for 100,000). */
  auditEvents?: number;
  /** Extra synthetic managed users in the root account (benchmarks ask for 10,000 for SCIM filters). */
  users?: number;
}

function splitName(name: string): { firstName: string; lastName: string } {
  const space = name.lastIndexOf(' ');
  return space < 0
    ? { firstName: name, lastName: '' }
    : { firstName: name.slice(0, space), lastName: name.slice(space + 1) };
}

export function seedAdmin(
  state: AdminState,
  trail: AuditTrail,
  store: StoreDatabase,
  options: AdminSeedOptions,
): void {
  const now = options.now.getTime();
  const iso = (daysAgo: number) => new Date(now - Math.round(daysAgo * DAY_MS)).toISOString();
  state.clear();
  trail.clear();
  state.transaction(() => {
    const snapshot = store.schema();
    const [owner, ada, grace, alan] = snapshot.users;
    const workspace = snapshot.workspaces[0];
    const [roadmap, crm, calendar] = snapshot.bases;
    if (!owner || !ada || !grace || !alan || !workspace || !roadmap || !crm || !calendar) {
      throw new Error('the admin seed needs the data seed: 4 users, a workspace and 3 bases');
    }

    // The organisation, its descendant, and another organisation without Enterprise Hub.
    const rootId = store.newId('enterpriseAccount');
    const europeId = store.newId('enterpriseAccount');
    const partnerId = store.newId('enterpriseAccount');
    state.put('account', {
      id: rootId,
      name: ADMIN_SEED.rootAccount,
      createdTime: iso(900),
      rootEnterpriseAccountId: rootId,
      parentEnterpriseAccountId: null,
      enterpriseHub: true,
      emailDomains: [
        { emailDomain: ADMIN_SEED.domain, isSsoRequired: false },
        { emailDomain: `eu.${ADMIN_SEED.domain}`, isSsoRequired: true },
      ],
    });
    state.put('account', {
      id: europeId,
      name: ADMIN_SEED.descendantAccount,
      createdTime: iso(400),
      rootEnterpriseAccountId: rootId,
      parentEnterpriseAccountId: rootId,
      enterpriseHub: true,
      emailDomains: [{ emailDomain: `eu.${ADMIN_SEED.domain}`, isSsoRequired: true }],
    });
    state.put('account', {
      id: partnerId,
      name: ADMIN_SEED.otherOrganisation,
      createdTime: iso(700),
      rootEnterpriseAccountId: partnerId,
      parentEnterpriseAccountId: null,
      enterpriseHub: false,
      emailDomains: [{ emailDomain: 'partner.example.com', isSsoRequired: false }],
    });

    const profile = (
      userId: string,
      name: string,
      accountId: string | null,
      extra: Partial<UserProfileDoc> = {},
    ): void => {
      state.put('profile', {
        id: userId,
        enterpriseAccountId: accountId,
        ...splitName(name),
        state: 'provisioned',
        isManaged: accountId !== null,
        isAdmin: false,
        isServiceAccount: false,
        isSsoRequired: false,
        isTwoFactorAuthEnabled: false,
        createdTime: iso(600),
        lastActivityTime: iso(1),
        invitedToAirtableByUserId: null,
        loggedOutTime: null,
        scim: {},
        ...extra,
      });
    };
    const addUser = (who: { name: string; email: string }): string => {
      const id = store.newId('user');
      store.insertUser({ id, name: who.name, email: who.email });
      return id;
    };

    profile(owner.id, owner.name, rootId, {
      isAdmin: true,
      isTwoFactorAuthEnabled: true,
      createdTime: iso(900),
    });
    profile(ada.id, ada.name, rootId, { invitedToAirtableByUserId: owner.id });
    profile(grace.id, grace.name, rootId, {
      invitedToAirtableByUserId: owner.id,
      scim: { externalId: 'E-1002' },
    });
    profile(alan.id, alan.name, rootId, { isManaged: false, invitedToAirtableByUserId: ada.id });
    const katherine = addUser(ADMIN_SEED.users.katherine);
    profile(katherine, ADMIN_SEED.users.katherine.name, rootId, {
      state: 'deactivated',
      lastActivityTime: iso(120),
    });
    const margaret = addUser(ADMIN_SEED.users.margaret);
    profile(margaret, ADMIN_SEED.users.margaret.name, rootId, { isAdmin: true, scim: { title: 'IT lead' } });
    const bot = addUser(ADMIN_SEED.users.bot);
    profile(bot, ADMIN_SEED.users.bot.name, rootId, { isServiceAccount: true, lastActivityTime: null });
    const emilie = addUser(ADMIN_SEED.users.europe);
    profile(emilie, ADMIN_SEED.users.europe.name, europeId, { isAdmin: true, isSsoRequired: true });
    const pat = addUser(ADMIN_SEED.users.partner);
    profile(pat, ADMIN_SEED.users.partner.name, partnerId, { isAdmin: true });

    const group = (
      name: string,
      accountId: string,
      members: [string, 'member' | 'manager'][],
      daysAgo: number,
    ) => {
      const id = store.newId('userGroup');
      state.put('group', {
        id,
        name,
        enterpriseAccountId: accountId,
        createdTime: iso(daysAgo),
        updatedTime: iso(daysAgo / 2),
        mappedUserLicenseType: null,
        members: members.map(([userId, role]) => ({ userId, role, createdTime: iso(daysAgo) })),
        scim: {},
      });
      return id;
    };
    const engineering = group(
      ADMIN_SEED.groups.engineering,
      rootId,
      [
        [owner.id, 'manager'],
        [ada.id, 'member'],
        [grace.id, 'member'],
      ],
      300,
    );
    const support = group(ADMIN_SEED.groups.support, rootId, [[alan.id, 'member']], 200);
    group(ADMIN_SEED.groups.europe, europeId, [[emilie, 'manager']], 150);
    group(ADMIN_SEED.groups.partner, partnerId, [[pat, 'manager']], 100);

    // Workspaces: the data plane's, one where Grace is the sole owner with others in it, one in the
    // descendant account, one in the other organisation.
    const grant = <L>(permissionLevel: L, by: string, daysAgo: number) => ({
      permissionLevel,
      createdTime: iso(daysAgo),
      grantedByUserId: by,
    });
    const workspaceDoc = (id: string, accountId: string, extra: Partial<WorkspaceAdminDoc>): void => {
      state.put('workspace', {
        id,
        enterpriseAccountId: accountId,
        inviteCreationRestriction: 'unrestricted',
        shareCreationRestriction: 'unrestricted',
        users: {},
        groups: {},
        invites: [],
        ...extra,
      });
    };
    workspaceDoc(workspace.id, rootId, {
      // Only the owner at workspace level: inherited grants would raise the seeded per-base levels.
      users: { [owner.id]: grant('owner', owner.id, 500) },
      invites: [
        {
          id: store.newId('invite'),
          invitedEmail: `newhire@${ADMIN_SEED.domain}`,
          permissionLevel: 'edit',
          createdTime: iso(3),
          invitedByUserId: owner.id,
        },
      ],
    });
    const addWorkspace = (name: string, daysAgo: number): string => {
      const id = store.newId('workspace');
      store.insertWorkspace({ id, name, createdTime: iso(daysAgo) });
      return id;
    };
    const research = addWorkspace(ADMIN_SEED.workspaces.research, 250);
    workspaceDoc(research, rootId, {
      inviteCreationRestriction: 'onlyOwners',
      users: { [grace.id]: grant('owner', grace.id, 250), [alan.id]: grant('edit', grace.id, 240) },
    });
    const europeWorkspace = addWorkspace(ADMIN_SEED.workspaces.europe, 140);
    workspaceDoc(europeWorkspace, europeId, { users: { [emilie]: grant('owner', emilie, 140) } });
    const partnerWorkspace = addWorkspace(ADMIN_SEED.workspaces.partner, 90);
    workspaceDoc(partnerWorkspace, partnerId, { users: { [pat]: grant('owner', pat, 90) } });

    // Bases: who granted the seeded individual access, a group collaborator, an outstanding invite.
    for (const base of snapshot.bases) {
      const userGrants: Record<string, { createdTime: string; grantedByUserId: string }> = {};
      for (const user of snapshot.users) {
        if (store.directPermissionOf(base.id, user.id) !== 'none') {
          userGrants[user.id] = { createdTime: base.createdTime, grantedByUserId: owner.id };
        }
      }
      state.put('base', {
        id: base.id,
        userGrants,
        // Group grants no higher than what the members hold already, so the data plane's levels stand.
        groups:
          base.id === roadmap.id
            ? { [engineering]: grant('read', owner.id, 300) }
            : base.id === calendar.id
              ? { [support]: grant('read', owner.id, 60) }
              : {},
        invites:
          base.id === roadmap.id
            ? [
                {
                  id: store.newId('invite'),
                  invitedEmail: 'contractor@example.org',
                  permissionLevel: 'comment',
                  createdTime: iso(5),
                  invitedByUserId: owner.id,
                },
              ]
            : [],
      });
    }

    // A published interface on the roadmap with an individual and a group collaborator and an invite.
    const dashboard = store.newId('interface');
    state.put('interface', {
      id: dashboard,
      baseId: roadmap.id,
      name: 'Roadmap Dashboard',
      createdTime: iso(80),
      firstPublishTime: iso(79),
      users: { [alan.id]: grant('read', owner.id, 70) },
      groups: { [support]: grant('comment', owner.id, 60) },
      invites: [
        {
          id: store.newId('invite'),
          invitedEmail: 'stakeholder@example.org',
          permissionLevel: 'read',
          createdTime: iso(4),
          invitedByUserId: owner.id,
        },
      ],
    });
    state.put('interface', {
      id: store.newId('interface'),
      baseId: crm.id,
      name: 'Pipeline Review',
      createdTime: iso(45),
      // Never published: the upstream answers firstPublishTime null.
      firstPublishTime: null,
      users: {},
      groups: {},
      invites: [],
    });

    // Block installations (one disabled, one deleted and recoverable) and shares (one of them disabled).
    const chart = store.newId('blockInstallation');
    state.put('blockInstallation', {
      id: chart,
      baseId: roadmap.id,
      name: 'Chart',
      blockId: 'blkChart000000001',
      state: 'enabled',
      createdTime: iso(100),
      createdByUserId: owner.id,
      deletedTime: null,
    });
    state.put('blockInstallation', {
      id: store.newId('blockInstallation'),
      baseId: roadmap.id,
      name: 'Page designer',
      blockId: 'blkPageDesigner01',
      state: 'disabled',
      createdTime: iso(90),
      createdByUserId: ada.id,
      deletedTime: null,
    });
    state.put('blockInstallation', {
      id: store.newId('blockInstallation'),
      baseId: crm.id,
      name: 'Old pivot table',
      blockId: 'blkPivotTable0001',
      state: 'enabled',
      createdTime: iso(300),
      createdByUserId: owner.id,
      deletedTime: iso(20),
    });
    const roadmapView = snapshot.tablesOfBase.get(roadmap.id)?.[0]?.views[0];
    const share = (
      baseId: string,
      type: 'base' | 'view' | 'blockInstallation',
      state_: 'enabled' | 'disabled',
      extra: { viewId?: string; blockInstallationId?: string; domains?: string[] },
      daysAgo: number,
    ) => {
      const id = store.newId('share');
      state.put('share', {
        id,
        baseId,
        type,
        viewId: extra.viewId ?? null,
        blockInstallationId: extra.blockInstallationId ?? null,
        state: state_,
        createdByUserId: owner.id,
        createdTime: iso(daysAgo),
        isPasswordProtected: false,
        restrictedToEmailDomains: extra.domains ?? [],
        restrictedToEnterpriseMembers: extra.domains !== undefined,
        shareTokenPrefix: `shr${id.slice(3, 7)}`,
      });
    };
    share(roadmap.id, 'base', 'enabled', {}, 60);
    if (roadmapView) share(roadmap.id, 'view', 'disabled', { viewId: roadmapView.id }, 40);
    share(
      roadmap.id,
      'blockInstallation',
      'enabled',
      { blockInstallationId: chart, domains: [ADMIN_SEED.domain] },
      30,
    );
    share(
      calendar.id,
      'view',
      'enabled',
      { viewId: snapshot.tablesOfBase.get(calendar.id)?.[0]?.views[0]?.id ?? '' },
      10,
    );

    // History: a few events per kind of change, some older than the 180-day retention.
    const history: AuditEntry[] = [
      {
        action: 'createWorkspace',
        category: 'workspace',
        modelType: 'workspace',
        modelId: research,
        days: 250,
        actor: grace.id,
      },
      {
        action: 'addBaseCollaborators',
        category: 'base',
        modelType: 'base',
        modelId: crm.id,
        days: 60,
        actor: owner.id,
        baseId: crm.id,
      },
      {
        action: 'updateShare',
        category: 'sharing',
        modelType: 'share',
        modelId: roadmap.id,
        days: 40,
        actor: owner.id,
        baseId: roadmap.id,
      },
      {
        action: 'deleteBlockInstallation',
        category: 'integration',
        modelType: 'blockInstallation',
        modelId: chart,
        days: 20,
        actor: owner.id,
        baseId: roadmap.id,
      },
      {
        action: 'updateUser',
        category: 'user',
        modelType: 'user',
        modelId: katherine,
        days: 120,
        actor: margaret,
      },
      {
        action: 'createBase',
        category: 'base',
        modelType: 'base',
        modelId: calendar.id,
        days: 200,
        actor: owner.id,
        baseId: calendar.id,
      },
    ].map((e) => ({
      action: e.action,
      category: e.category,
      actorUserId: e.actor,
      modelId: e.modelId,
      modelType: e.modelType,
      enterpriseAccountId: rootId,
      timestamp: iso(e.days),
      context: e.baseId ? { baseId: e.baseId } : {},
      origin: { ipAddress: '192.0.2.10', userAgent: 'Seed/1.0' },
    }));
    for (const entry of history) trail.record(entry);
  });
  if (options.users) seedSyntheticUsers(state, store, options.users, iso);
  if (options.auditEvents) trail.recordMany(syntheticEvents(state, store, options.auditEvents, now));
}

/** `count` managed users in the root account, every tenth deactivated, with SCIM external ids. */
function seedSyntheticUsers(
  state: AdminState,
  store: StoreDatabase,
  count: number,
  iso: (daysAgo: number) => string,
): void {
  const root = state.list('account').find((a) => a.parentEnterpriseAccountId === null);
  if (!root) return;
  const width = String(count).length;
  state.transaction(() => {
    for (let i = 1; i <= count; i++) {
      const n = String(i).padStart(width, '0');
      const id = store.newId('user');
      const firstName = `User${n}`;
      const lastName = ['Smith', 'Jones', 'Garcia', 'Chen', 'Okafor'][i % 5] ?? 'Smith';
      store.insertUser({ id, name: `${firstName} ${lastName}`, email: `user${n}@${ADMIN_SEED.domain}` });
      state.put('profile', {
        id,
        enterpriseAccountId: root.id,
        firstName,
        lastName,
        state: i % 10 === 0 ? 'deactivated' : 'provisioned',
        isManaged: true,
        isAdmin: false,
        isServiceAccount: false,
        isSsoRequired: false,
        isTwoFactorAuthEnabled: i % 3 === 0,
        createdTime: iso(365 - (i % 365)),
        lastActivityTime: iso(i % 30),
        invitedToAirtableByUserId: null,
        loggedOutTime: null,
        scim: { externalId: `X-${n}` },
      });
    }
  });
}

/** `count` plausible events over the last 200 days, oldest first, cycling through actors and actions. */
function* syntheticEvents(
  state: AdminState,
  store: StoreDatabase,
  count: number,
  now: number,
): Generator<AuditEntry> {
  const root = state.list('account').find((a) => a.parentEnterpriseAccountId === null);
  if (!root) return;
  const users = store.schema().users.map((u) => u.id);
  const bases = store.schema().bases.map((b) => b.id);
  const kinds = [
    ['updateRecord', 'record', 'record'],
    ['createRecords', 'record', 'table'],
    ['updateBaseCollaborator', 'base', 'base'],
    ['updateShare', 'sharing', 'share'],
    ['updateUser', 'user', 'user'],
  ] as const;
  const span = 200 * DAY_MS;
  for (let i = 0; i < count; i++) {
    const [action, category, modelType] = kinds[i % kinds.length] as (typeof kinds)[number];
    const baseId = bases[i % bases.length] ?? '';
    yield {
      action,
      category,
      actorUserId: users[i % users.length] ?? '',
      modelId: modelType === 'user' ? (users[(i * 7) % users.length] ?? '') : baseId,
      modelType,
      enterpriseAccountId: root.id,
      timestamp: new Date(now - span + Math.floor((span * i) / count)).toISOString(),
      context: modelType === 'user' ? {} : { baseId },
      origin: { ipAddress: '192.0.2.20', userAgent: 'Synthetic/1.0' },
    };
  }
}
