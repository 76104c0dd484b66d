/** People's devices (push tokens): a token belongs to one person at a time. */
import { parseJsonObject, type Row } from '../../../../emulation/rows.js';
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import type { DeviceRecord, JsonObject, Outcome, PersonRef } from '../records.js';
import { mergeAttributes } from './attributes.js';
import type { PeopleState } from './people.js';

export const DEVICES_SCHEMA = `
CREATE TABLE IF NOT EXISTS devices (
  token TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES people(cio_id) ON DELETE CASCADE,
  platform TEXT NOT NULL, last_used INTEGER, attributes TEXT NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS devices_by_person ON devices(person);
`;

export interface DeviceInput {
  token: string;
  platform: string;
  lastUsed?: number | undefined;
  attributes?: JsonObject | undefined;
}

export class DevicesState {
  readonly #byToken;
  readonly #upsert;
  readonly #delete;
  readonly #move;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly people: PeopleState,
  ) {
    this.#byToken = db.prepare('SELECT * FROM devices WHERE token = ?');
    this.#upsert =
      db.prepare(`INSERT INTO devices (token, person, platform, last_used, attributes, created_at, updated_at)
      VALUES (@token, @person, @platform, @last_used, @attributes, @now, @now)
      ON CONFLICT(token) DO UPDATE SET person = excluded.person, platform = excluded.platform,
        last_used = excluded.last_used, attributes = excluded.attributes, updated_at = excluded.updated_at`);
    this.#delete = db.prepare('DELETE FROM devices WHERE token = ? AND person = ?');
    this.#move = db.prepare('UPDATE devices SET person = ? WHERE person = ?');
  }

  /** Adds or updates a device; a token belongs to one person at a time, so it moves if someone else had it. */
  upsert(ref: PersonRef, device: DeviceInput, now: number): Outcome {
    return writeTransaction(this.db, () => {
      const target = this.people.resolveForWrite(ref, now, 'add_device');
      if (!target.ok) return target.error;
      const existing = this.#byToken.get(device.token) as Row | undefined;
      const attributes = mergeAttributes(
        existing ? parseJsonObject(existing.attributes) : {},
        device.attributes ?? {},
      );
      this.#upsert.run({
        token: device.token,
        person: target.value.cioId,
        platform: device.platform,
        last_used: device.lastUsed ?? now,
        attributes: JSON.stringify(attributes),
        now,
      });
      return { applied: true };
    });
  }

  /** Removes the person's device; false when either is unknown (upstream answers 200 regardless). */
  delete(ref: PersonRef, token: string): boolean {
    const found = this.people.findPerson(ref);
    if (!found) return false;
    return Number(this.#delete.run(token, found.cioId).changes) > 0;
  }

  /** Every device of `from` becomes `to`'s (a merge). */
  moveAll(to: string, from: string): void {
    this.#move.run(to, from);
  }

  load(devices: readonly Omit<DeviceRecord, 'updatedAt'>[]): void {
    for (const d of devices) {
      this.#upsert.run({
        token: d.token,
        person: d.person,
        platform: d.platform,
        last_used: d.lastUsed,
        attributes: JSON.stringify(d.attributes),
        now: d.createdAt,
      });
    }
  }
}
