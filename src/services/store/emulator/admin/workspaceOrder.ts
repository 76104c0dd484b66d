/**
 * The order of bases inside a workspace (moveBase's targetIndex), in a table of its own: the data plane lists
 * bases in creation order, and a workspace with an explicit order lists those first, then any base created
 * there since. An order written under another seed is ignored (a reseed that ran before this table existed, a
 * file database opened with reset, could not clear it, and workspace ids repeat from seed to seed).
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../../../../emulation/sqlite.js';
import type { StoreDatabase } from '../database.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS workspace_base_order (
  workspace_id TEXT PRIMARY KEY, base_ids TEXT NOT NULL, seeded_at TEXT NOT NULL
);
`;

export class WorkspaceBaseOrder {
  readonly #s: Record<'get' | 'set' | 'remove' | 'clear', Statement<unknown[]>>;

  constructor(
    db: SqliteDatabase,
    private readonly store: StoreDatabase,
  ) {
    db.exec(SCHEMA);
    this.#s = {
      get: db.prepare('SELECT base_ids, seeded_at FROM workspace_base_order WHERE workspace_id = ?'),
      set: db.prepare(
        'INSERT INTO workspace_base_order (workspace_id, base_ids, seeded_at) VALUES (?, ?, ?) ON CONFLICT(workspace_id) DO UPDATE SET base_ids = excluded.base_ids, seeded_at = excluded.seeded_at',
      ),
      remove: db.prepare('DELETE FROM workspace_base_order WHERE workspace_id = ?'),
      clear: db.prepare('DELETE FROM workspace_base_order'),
    };
  }

  /** The workspace's bases: the explicit order first (bases still there), then the rest in creation order. */
  baseIdsOf(workspaceId: string): string[] {
    const here = this.store
      .schema()
      .bases.filter((b) => b.workspaceId === workspaceId)
      .map((b) => b.id);
    const row = this.#s.get.get(workspaceId) as { base_ids: string; seeded_at: string } | undefined;
    if (!row || row.seeded_at !== this.#seededAt()) return here;
    const present = new Set(here);
    const ordered = (JSON.parse(row.base_ids) as string[]).filter((id) => present.has(id));
    const placed = new Set(ordered);
    return [...ordered, ...here.filter((id) => !placed.has(id))];
  }

  set(workspaceId: string, baseIds: readonly string[]): void {
    this.#s.set.run(workspaceId, JSON.stringify(baseIds), this.#seededAt());
  }

  remove(workspaceId: string): void {
    this.#s.remove.run(workspaceId);
  }

  clear(): void {
    this.#s.clear.run();
  }

  #seededAt(): string {
    return this.store.seedInfo()?.seededAt ?? '';
  }
}
