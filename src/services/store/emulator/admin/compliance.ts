/**
 * The compliance state of the administration plane: the audit log reader, the legacy audit log requests and
 * eDiscovery exports (ComplianceTasks) and the change events, plus the marker that ties their tables to one
 * seeding of the emulator. A reseeded file database is recognised by its seed time and its first audit event
 * (whose seq only grows), and the tables are then cleared and seeded again.
 */
import type { Clock } from '../../../../emulation/clock.js';
import type { SqliteDatabase } from '../../../../emulation/sqlite.js';
import type { ChangeFeed } from '../changes.js';
import type { StoreDatabase } from '../database.js';
import { AuditLogReader } from './auditLog.js';
import { ChangeEventLog } from './changeEvents.js';
import type { AdminState } from './state.js';
import { ComplianceTasks } from './tasks.js';

const META = `CREATE TABLE IF NOT EXISTS compliance_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`;

export interface ComplianceDeps {
  db: SqliteDatabase;
  store: StoreDatabase;
  state: AdminState;
  clock: Clock;
  hub: ChangeFeed;
}

export class Compliance {
  readonly log: AuditLogReader;
  readonly tasks: ComplianceTasks;
  readonly changes: ChangeEventLog;

  constructor(private readonly deps: ComplianceDeps) {
    const { db, store, state, clock, hub } = deps;
    this.log = new AuditLogReader(db, store);
    this.tasks = new ComplianceTasks({ db, store, state, clock, log: this.log });
    this.changes = new ChangeEventLog({ db, store, state, hub });
    db.exec(META);
    if (this.#storedGeneration() !== this.#generation()) {
      this.reseed(new Date(store.seedInfo()?.seededAt ?? clock.now().toISOString()));
    }
  }

  /** Clears the tasks and change events and seeds the change events again (`now`: when the data was seeded). */
  reseed(now: Date): void {
    this.tasks.clear();
    this.changes.clear();
    this.changes.seed(now);
    this.deps.db
      .prepare(
        "INSERT INTO compliance_meta (key, value) VALUES ('generation', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      )
      .run(this.#generation());
  }

  #generation(): string {
    const first = this.deps.db.prepare('SELECT MIN(seq) AS s FROM audit_events').get() as {
      s: number | null;
    };
    return `${this.deps.store.seedInfo()?.seededAt ?? ''}|${first.s ?? ''}`;
  }

  #storedGeneration(): string | undefined {
    return (
      this.deps.db.prepare("SELECT value FROM compliance_meta WHERE key = 'generation'").get() as
        | { value: string }
        | undefined
    )?.value;
  }
}
