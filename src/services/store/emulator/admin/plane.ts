/**
 * The administration plane of the store emulator, put together: its state (documents, audit trail,
 * compliance tasks and change events, bulk data tables, workspace base order) over the data plane's database,
 * its seed, and what the /_emulator inspection API shows of it. app.ts creates one and
 * mounts the administration areas over its `deps` before the data plane's (whose `/v0/{baseId}/...` patterns
 * would otherwise take their paths).
 */
import type { SqliteDatabase } from '../../../../emulation/sqlite.js';
import type { RouteDeps } from '../routes/common.js';
import { ADMIN_SEED, type AdminSeedOptions, seedAdmin } from '../seed/admin.js';
import { seedBulkTables } from '../seed/bulkTables.js';
import { AuditTrail } from './audit.js';
import { BulkTables, type DataTableDoc } from './bulkTables.js';
import { Compliance } from './compliance.js';
import type { AdminRouteDeps } from './guards.js';
import { ADMIN_KINDS, type AdminKind } from './model.js';
import { AdminState } from './state.js';
import { WorkspaceBaseOrder } from './workspaceOrder.js';

export interface AdminPlane {
  state: AdminState;
  trail: AuditTrail;
  deps: AdminRouteDeps;
  /** Seeds over a freshly seeded data plane. */
  seed(options: AdminSeedOptions): void;
  /** Inspection: document kinds by collection name. */
  collectionNames(): string[];
  collection(name: string): unknown[] | undefined;
  item(name: string, id: string): unknown;
  counts(): Record<string, number>;
  /** The bulk data tables, with their row counts: the upstream has no endpoint that lists them. */
  dataTables(): (DataTableDoc & { records: number })[];
}

/** Inspection collection names for each document kind. */
const COLLECTION_OF: Readonly<Record<AdminKind, string>> = {
  account: 'enterprise_accounts',
  profile: 'user_profiles',
  group: 'user_groups',
  workspace: 'workspace_admin',
  base: 'base_admin',
  interface: 'interfaces',
  share: 'shares',
  blockInstallation: 'block_installations',
  auditLogTask: 'audit_log_requests',
  export: 'ediscovery_exports',
};
const KIND_OF = new Map(Object.entries(COLLECTION_OF).map(([kind, name]) => [name, kind as AdminKind]));
/** Tables the plane's parts keep themselves (with `seq` and `id` columns), shown once they exist. */
const FAMILY_TABLES: readonly string[] = ['change_events'];

export function createAdminPlane(db: SqliteDatabase, deps: RouteDeps): AdminPlane {
  const state = new AdminState(db, deps.store);
  const trail = new AuditTrail(db, state, deps.clock);
  deps.access.setUserActivity((userId) => state.profile(userId)?.state !== 'deactivated');
  const compliance = new Compliance({ db, store: deps.store, state, clock: deps.clock, hub: deps.hub });
  const workspaceOrder = new WorkspaceBaseOrder(db, deps.store);
  const bulk = new BulkTables(db);
  const adminDeps: AdminRouteDeps = { ...deps, state, trail, db, compliance, bulk, workspaceOrder };
  const seedBulk = (now: Date) =>
    deps.store.transaction(() => {
      const root = state
        .list('account')
        .find((a) => a.parentEnterpriseAccountId === null && a.name === ADMIN_SEED.rootAccount);
      seedBulkTables(bulk, { accountId: root?.id, tableId: () => deps.store.newId('dataTable'), now });
    });
  const dataTables = () => bulk.tables().map((table) => ({ ...table, records: bulk.count(table.id) }));
  const familyTables = () =>
    FAMILY_TABLES.filter((t) =>
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t),
    );
  return {
    state,
    trail,
    deps: adminDeps,
    // Inside no transaction of its own: each part clears and seeds its tables (`now`: when the data was seeded).
    seed: (options) => {
      seedAdmin(state, trail, deps.store, options);
      compliance.reseed(options.now);
      workspaceOrder.clear();
      seedBulk(options.now);
    },
    collectionNames: () => [
      ...Object.values(COLLECTION_OF),
      'audit_events',
      'data_tables',
      ...familyTables(),
    ],
    collection: (name) => {
      if (name === 'data_tables') return dataTables();
      if (name === 'audit_events' || familyTables().includes(name)) {
        return db.prepare(`SELECT * FROM ${name} ORDER BY seq DESC LIMIT 1000`).all() as unknown[];
      }
      const kind = KIND_OF.get(name);
      return kind ? state.list(kind) : undefined;
    },
    item: (name, id) => {
      if (name === 'data_tables') return dataTables().find((table) => table.id === id);
      if (name === 'audit_events' || familyTables().includes(name)) {
        return db.prepare(`SELECT * FROM ${name} WHERE id = ?`).get(id);
      }
      const kind = KIND_OF.get(name);
      return kind ? state.get(kind, id) : undefined;
    },
    counts: () => ({
      ...Object.fromEntries(ADMIN_KINDS.map((kind) => [COLLECTION_OF[kind], state.list(kind).length])),
      audit_events: trail.count(),
      ...Object.fromEntries(
        familyTables().map((t) => [
          t,
          (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n,
        ]),
      ),
    }),
    dataTables,
  };
}
