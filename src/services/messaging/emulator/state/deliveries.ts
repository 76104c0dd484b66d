/**
 * Deliveries (messages sent to people) and what is reported about them: metrics (v1 metrics, push events, v2
 * delivery operations) and global unsubscribes attributed to a delivery.
 */
import { num, type Row, str, strOrNull } from '../../../../emulation/rows.js';
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import type { DeliveryRecord, JsonObject } from '../records.js';
import type { PeopleState } from './people.js';

export const DELIVERIES_SCHEMA = `
CREATE TABLE IF NOT EXISTS metrics (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL, metric TEXT NOT NULL,
  timestamp INTEGER NOT NULL, fields TEXT NOT NULL, source TEXT NOT NULL, known_delivery INTEGER NOT NULL,
  received_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT PRIMARY KEY, person TEXT REFERENCES people(cio_id) ON DELETE SET NULL, channel TEXT NOT NULL,
  recipient TEXT, created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_by_person ON deliveries(person);
CREATE TABLE IF NOT EXISTS unsubscribes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL, person TEXT,
  unsubscribed INTEGER NOT NULL DEFAULT 1, unsubscribed_at INTEGER NOT NULL
);
`;

export interface MetricInput {
  deliveryId: string;
  metric: string;
  timestamp?: number | undefined;
  fields: JsonObject;
  source: 'metrics' | 'push_events' | 'v2_delivery';
}

export class DeliveriesState {
  readonly #byId;
  readonly #insert;
  readonly #move;
  readonly #insertMetric;
  readonly #insertUnsubscribe;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly people: PeopleState,
  ) {
    this.#byId = db.prepare('SELECT * FROM deliveries WHERE id = ?');
    this.#insert = db.prepare(
      'INSERT INTO deliveries (id, person, channel, recipient, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.#move = db.prepare('UPDATE deliveries SET person = ? WHERE person = ?');
    this.#insertMetric = db.prepare(`INSERT INTO metrics
      (delivery_id, metric, timestamp, fields, source, known_delivery, received_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`);
    this.#insertUnsubscribe = db.prepare(`INSERT INTO unsubscribes (delivery_id, person, unsubscribed,
      unsubscribed_at) VALUES (?, ?, ?, ?)`);
  }

  delivery(id: string): DeliveryRecord | undefined {
    const row = this.#byId.get(id) as Row | undefined;
    if (!row) return undefined;
    return {
      id: str(row, 'id'),
      person: strOrNull(row, 'person'),
      channel: str(row, 'channel') as DeliveryRecord['channel'],
      recipient: strOrNull(row, 'recipient'),
      createdAt: num(row, 'created_at'),
    };
  }

  /** Metrics for unknown deliveries are kept too: the upstream only says "the request was received". */
  recordMetric(metric: MetricInput, now: number): void {
    this.#insertMetric.run(
      metric.deliveryId,
      metric.metric,
      metric.timestamp ?? now,
      JSON.stringify(metric.fields),
      metric.source,
      this.#byId.get(metric.deliveryId) ? 1 : 0,
      now,
    );
  }

  /**
   * Sets the delivery's person's `unsubscribed` attribute (true to unsubscribe, false to resubscribe, as
   * customerio-node documents) and attributes the change to the delivery.
   */
  unsubscribe(deliveryId: string, unsubscribed: boolean, now: number): void {
    writeTransaction(this.db, () => {
      const delivery = this.delivery(deliveryId);
      if (!delivery) return;
      const target =
        delivery.person === null
          ? undefined
          : this.people.findPerson({ kind: 'cio_id', value: delivery.person });
      if (target) {
        this.people.save({
          ...target,
          attributes: { ...target.attributes, unsubscribed },
          attributeTimes: { ...target.attributeTimes, unsubscribed: now },
          updatedAt: now,
        });
      }
      this.#insertUnsubscribe.run(deliveryId, target?.cioId ?? null, unsubscribed ? 1 : 0, now);
    });
  }

  /** Every delivery of `from` becomes `to`'s (a merge moves the delivery history). */
  moveAll(to: string, from: string): void {
    this.#move.run(to, from);
  }

  load(deliveries: readonly DeliveryRecord[]): void {
    for (const d of deliveries) this.#insert.run(d.id, d.person, d.channel, d.recipient, d.createdAt);
  }
}
