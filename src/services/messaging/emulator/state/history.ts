/**
 * What the emulator keeps about requests rather than about the workspace, for inspection: requests the upstream
 * accepts (200) but that change nothing (`dropped`, with the reason), batches and merges.
 */
import type { SqliteDatabase } from '../../../../emulation/sqlite.js';
import type { DropReason, JsonObject, Outcome, PersonRef } from '../records.js';

export const HISTORY_SCHEMA = `
CREATE TABLE IF NOT EXISTS batches (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, received_at INTEGER NOT NULL, bytes INTEGER NOT NULL,
  operations INTEGER NOT NULL, accepted INTEGER NOT NULL, failed TEXT NOT NULL, status INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS merges (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, primary_ref TEXT NOT NULL, secondary_ref TEXT NOT NULL,
  primary_cio_id TEXT, secondary_cio_id TEXT, outcome TEXT NOT NULL, origin TEXT NOT NULL,
  merged_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS dropped (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, operation TEXT NOT NULL, reason TEXT NOT NULL,
  detail TEXT NOT NULL
);
`;

export type MergeOutcome = 'merged' | 'primary_not_found' | 'secondary_not_found' | 'same_person';

export interface BatchRecordInput {
  bytes: number;
  operations: number;
  accepted: number;
  failed: number[];
  status: number;
}

export interface MergeRecordInput {
  primary: PersonRef;
  secondary: PersonRef;
  primaryCioId: string | null;
  secondaryCioId: string | null;
  outcome: MergeOutcome;
  origin: string;
}

export class RequestHistory {
  readonly #insertDropped;
  readonly #insertBatch;
  readonly #insertMerge;

  constructor(db: SqliteDatabase) {
    this.#insertDropped = db.prepare(
      'INSERT INTO dropped (at, operation, reason, detail) VALUES (?, ?, ?, ?)',
    );
    this.#insertBatch =
      db.prepare(`INSERT INTO batches (received_at, bytes, operations, accepted, failed, status)
      VALUES (?, ?, ?, ?, ?, ?)`);
    this.#insertMerge = db.prepare(`INSERT INTO merges
      (primary_ref, secondary_ref, primary_cio_id, secondary_cio_id, outcome, origin, merged_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`);
  }

  /** Records why an accepted request changed nothing, and says so as the write's Outcome. */
  drop(operation: string, reason: DropReason, now: number, detail: JsonObject = {}): Outcome {
    this.#insertDropped.run(now, operation, reason, JSON.stringify(detail));
    const message = typeof detail.message === 'string' ? detail.message : undefined;
    return message === undefined ? { applied: false, reason } : { applied: false, reason, detail: message };
  }

  recordBatch(batch: BatchRecordInput, now: number): number {
    const result = this.#insertBatch.run(
      now,
      batch.bytes,
      batch.operations,
      batch.accepted,
      JSON.stringify(batch.failed),
      batch.status,
    );
    return Number(result?.lastInsertRowid ?? 0);
  }

  recordMerge(merge: MergeRecordInput, now: number): void {
    this.#insertMerge.run(
      JSON.stringify(merge.primary),
      JSON.stringify(merge.secondary),
      merge.primaryCioId,
      merge.secondaryCioId,
      merge.outcome,
      merge.origin,
      now,
    );
  }
}
