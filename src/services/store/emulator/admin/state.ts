/**
 * The administration plane's state: one SQLite table of JSON documents per kind (admin/model.ts), cached in
 * memory, in the same database as the data plane so a sandbox file keeps both. Writes go through `put` and
 * `remove`; multi-step changes run in `transaction` (the data plane's, so both planes commit or roll back
 * together, and the cache is reloaded if they roll back). The cache goes whenever the data plane drops its
 * own, which includes when another process has written to the file.
 *
 * Also answers the questions every admin route asks: which organisation an account belongs to, who is an
 * admin where, which groups a user is in, and what a user inherits in a base through workspace and group
 * collaborators (the overlay the data plane's permission checks consult).
 */
import type { SqliteDatabase } from '../../../../emulation/sqlite.js';
import type { StoreDatabase } from '../database.js';
import { PERMISSION_RANK, type PermissionLevel } from '../model.js';
import type {
  AdminDocs,
  AdminKind,
  EnterpriseAccountDoc,
  UserGroupDoc,
  UserProfileDoc,
  WorkspaceAdminDoc,
  WorkspaceLevel,
} from './model.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS admin_docs (
  kind TEXT NOT NULL, id TEXT NOT NULL, pos INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kind, id)
);
`;

/** An owner of a workspace has `create` in its bases; other workspace levels carry over as they are. */
export function baseLevelOf(level: WorkspaceLevel): Exclude<PermissionLevel, 'none'> {
  return level === 'owner' ? 'create' : level;
}

function higher(a: PermissionLevel, b: PermissionLevel): PermissionLevel {
  return PERMISSION_RANK[a] >= PERMISSION_RANK[b] ? a : b;
}

export class AdminState {
  #cache: Map<AdminKind, Map<string, unknown>> | undefined;
  #pos = 0;
  readonly #s;

  constructor(
    db: SqliteDatabase,
    readonly store: StoreDatabase,
  ) {
    db.exec(SCHEMA);
    this.#s = {
      all: db.prepare('SELECT kind, id, data FROM admin_docs ORDER BY pos'),
      maxPos: db.prepare('SELECT COALESCE(MAX(pos), 0) AS n FROM admin_docs'),
      upsert: db.prepare(
        'INSERT INTO admin_docs (kind, id, pos, data) VALUES (?, ?, ?, ?) ON CONFLICT(kind, id) DO UPDATE SET data = excluded.data',
      ),
      remove: db.prepare('DELETE FROM admin_docs WHERE kind = ? AND id = ?'),
      clear: db.prepare('DELETE FROM admin_docs'),
    };
    store.setPermissionOverlay((baseId, userId) => this.inheritedPermission(baseId, userId));
    // The position counter is part of the cache: reloaded with it, from the documents then in the file.
    store.onCachesDropped(() => {
      this.#cache = undefined;
    });
  }

  #docs(): Map<AdminKind, Map<string, unknown>> {
    if (this.#cache) return this.#cache;
    const cache = new Map<AdminKind, Map<string, unknown>>();
    for (const row of this.#s.all.all() as { kind: AdminKind; id: string; data: string }[]) {
      const bucket = cache.get(row.kind) ?? new Map<string, unknown>();
      cache.set(row.kind, bucket);
      bucket.set(row.id, JSON.parse(row.data));
    }
    this.#pos = (this.#s.maxPos.get() as { n: number }).n;
    this.#cache = cache;
    return cache;
  }

  #bucket(kind: AdminKind): Map<string, unknown> {
    const docs = this.#docs();
    const bucket = docs.get(kind) ?? new Map<string, unknown>();
    docs.set(kind, bucket);
    return bucket;
  }

  /** Documents of a kind, in creation order. */
  list<K extends AdminKind>(kind: K): AdminDocs[K][] {
    return [...this.#bucket(kind).values()] as AdminDocs[K][];
  }

  get<K extends AdminKind>(kind: K, id: string): AdminDocs[K] | undefined {
    return this.#bucket(kind).get(id) as AdminDocs[K] | undefined;
  }

  /** Inserts or replaces a document; callers pass a fresh object, never a cached one they mutated. */
  put<K extends AdminKind>(kind: K, doc: AdminDocs[K]): AdminDocs[K] {
    const bucket = this.#bucket(kind);
    if (!bucket.has(doc.id)) this.#pos++;
    this.#s.upsert.run(kind, doc.id, this.#pos, JSON.stringify(doc));
    bucket.set(doc.id, structuredClone(doc));
    return doc;
  }

  /** Changes a document through a copy, so a failed change never leaves the cache half-written. */
  update<K extends AdminKind>(
    kind: K,
    id: string,
    change: (doc: AdminDocs[K]) => void,
  ): AdminDocs[K] | undefined {
    const current = this.get(kind, id);
    if (!current) return undefined;
    const next = structuredClone(current);
    change(next);
    return this.put(kind, next);
  }

  remove(kind: AdminKind, id: string): boolean {
    const removed = this.#bucket(kind).delete(id);
    if (removed) this.#s.remove.run(kind, id);
    return removed;
  }

  /** Runs `fn` in the data plane's transaction; a rollback also drops the document cache. */
  transaction<T>(fn: () => T): T {
    try {
      return this.store.transaction(fn);
    } catch (error) {
      this.#cache = undefined;
      throw error;
    }
  }

  clear(): void {
    this.#s.clear.run();
    this.#cache = undefined;
  }

  // --- the organisation --------------------------------------------------------------------------------

  account(id: string): EnterpriseAccountDoc | undefined {
    return this.get('account', id);
  }

  /** Accounts of one organisation: its root first, then descendants in creation order. */
  organisation(rootId: string): EnterpriseAccountDoc[] {
    return this.list('account').filter((a) => a.rootEnterpriseAccountId === rootId);
  }

  sameOrganisation(a: string, b: string): boolean {
    const x = this.account(a);
    const y = this.account(b);
    return x !== undefined && y !== undefined && x.rootEnterpriseAccountId === y.rootEnterpriseAccountId;
  }

  /** The account itself and, for a root, its descendants: what an admin of `accountId` administers. */
  accountScope(accountId: string): Set<string> {
    const account = this.account(accountId);
    if (!account) return new Set();
    if (account.parentEnterpriseAccountId !== null) return new Set([account.id]);
    return new Set(this.organisation(account.id).map((a) => a.id));
  }

  profile(userId: string): UserProfileDoc | undefined {
    return this.get('profile', userId);
  }

  /**
   * Whether the user administers the account: an admin of it, or an admin of its organisation's root (root
   * admins administer every descendant). A deactivated admin administers nothing.
   */
  isAdminOf(userId: string, accountId: string): boolean {
    const profile = this.profile(userId);
    const account = this.account(accountId);
    if (!profile || !account || !profile.isAdmin || profile.state !== 'provisioned') return false;
    if (profile.enterpriseAccountId === null) return false;
    return (
      profile.enterpriseAccountId === account.id ||
      profile.enterpriseAccountId === account.rootEnterpriseAccountId
    );
  }

  /** Users whose profile belongs to one of the accounts. */
  usersOf(accounts: ReadonlySet<string>): UserProfileDoc[] {
    return this.list('profile').filter(
      (p) => p.enterpriseAccountId !== null && accounts.has(p.enterpriseAccountId),
    );
  }

  groupsOf(userId: string): UserGroupDoc[] {
    return this.list('group').filter((g) => g.members.some((m) => m.userId === userId));
  }

  /** The workspace's admin document; every workspace gets one when it is created or seeded. */
  workspaceAdmin(workspaceId: string): WorkspaceAdminDoc | undefined {
    return this.get('workspace', workspaceId);
  }

  /** The enterprise account a base belongs to, through its workspace. */
  accountOfBase(baseId: string): string | undefined {
    const base = this.store.schema().baseById.get(baseId);
    return base ? this.workspaceAdmin(base.workspaceId)?.enterpriseAccountId : undefined;
  }

  // --- access --------------------------------------------------------------------------------------------

  /**
   * What a user inherits in a base from its workspace (as a collaborator or through a group) and from groups
   * collaborating on the base itself. Deactivated users inherit nothing.
   */
  inheritedPermission(baseId: string, userId: string): PermissionLevel {
    const profile = this.profile(userId);
    if (profile?.state === 'deactivated') return 'none';
    const base = this.store.schema().baseById.get(baseId);
    if (!base) return 'none';
    let level: PermissionLevel = 'none';
    const groups = new Set(this.groupsOf(userId).map((g) => g.id));
    const workspace = this.workspaceAdmin(base.workspaceId);
    if (workspace) {
      const own = workspace.users[userId];
      if (own) level = higher(level, baseLevelOf(own.permissionLevel));
      for (const [groupId, grant] of Object.entries(workspace.groups)) {
        if (groups.has(groupId)) level = higher(level, baseLevelOf(grant.permissionLevel));
      }
    }
    const baseAdmin = this.get('base', baseId);
    if (baseAdmin) {
      for (const [groupId, grant] of Object.entries(baseAdmin.groups)) {
        if (groups.has(groupId)) level = higher(level, grant.permissionLevel);
      }
    }
    return level;
  }

  /** Workspace owners, individual ones only (the sole-owner rule counts people). */
  ownersOf(workspaceId: string): string[] {
    const workspace = this.workspaceAdmin(workspaceId);
    if (!workspace) return [];
    return Object.entries(workspace.users)
      .filter(([, grant]) => grant.permissionLevel === 'owner')
      .map(([userId]) => userId);
  }

  /** Whether the user may create invites or shares in the workspace, given its restriction. */
  mayCreateIn(workspaceId: string, userId: string, what: 'invite' | 'share'): boolean {
    const workspace = this.workspaceAdmin(workspaceId);
    if (!workspace) return true;
    const restriction =
      what === 'invite' ? workspace.inviteCreationRestriction : workspace.shareCreationRestriction;
    return restriction === 'unrestricted' || workspace.users[userId]?.permissionLevel === 'owner';
  }
}
