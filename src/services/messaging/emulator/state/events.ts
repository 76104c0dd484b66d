/**
 * Events of people and of anonymous visitors (and invites, anonymous events without anonymous_id). An event
 * whose `id` (a ULID upstream) was seen before is dropped, as upstream.
 */
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import type { EventType, JsonObject, Outcome, PersonRef, SeedEvent } from '../records.js';
import type { RequestHistory } from './history.js';
import type { PeopleState } from './people.js';

export const EVENTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, person TEXT REFERENCES people(cio_id) ON DELETE CASCADE,
  anonymous_id TEXT, name TEXT NOT NULL, type TEXT NOT NULL, dedupe_id TEXT, timestamp INTEGER NOT NULL,
  data TEXT NOT NULL, invite INTEGER NOT NULL, received_at INTEGER NOT NULL, origin TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_by_dedupe_id ON events(dedupe_id) WHERE dedupe_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_by_person ON events(person, timestamp);
CREATE INDEX IF NOT EXISTS events_by_anonymous_id ON events(anonymous_id, timestamp);
`;

/** Upstream folds in (and merges) only the last 30 days of events. */
export const EVENT_HISTORY_WINDOW_SECONDS = 30 * 24 * 60 * 60;

export interface EventInput {
  name: string;
  type: EventType;
  id?: string | undefined;
  timestamp?: number | undefined;
  data: JsonObject;
}

export class EventsState {
  readonly #idExists;
  readonly #insert;
  readonly #foldAnonymous;
  readonly #moveRecent;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly people: PeopleState,
    private readonly history: RequestHistory,
  ) {
    this.#idExists = db.prepare('SELECT 1 FROM events WHERE dedupe_id = ?').pluck();
    this.#insert = db.prepare(`INSERT INTO events
      (person, anonymous_id, name, type, dedupe_id, timestamp, data, invite, received_at, origin)
      VALUES (@person, @anonymous_id, @name, @type, @dedupe_id, @timestamp, @data, @invite, @received_at,
        @origin)`);
    this.#foldAnonymous = db.prepare(`UPDATE events SET person = ?
      WHERE person IS NULL AND anonymous_id = ? AND timestamp >= ?`);
    this.#moveRecent = db.prepare('UPDATE events SET person = ? WHERE person = ? AND timestamp >= ?');
  }

  #insertEvent(
    personCio: string | null,
    anonymousId: string | null,
    ev: EventInput,
    now: number,
    origin: string,
  ) {
    this.#insert.run({
      person: personCio,
      anonymous_id: anonymousId,
      name: ev.name,
      type: ev.type,
      dedupe_id: ev.id ?? null,
      timestamp: ev.timestamp ?? now,
      data: JSON.stringify(ev.data),
      invite: personCio === null && anonymousId === null ? 1 : 0,
      received_at: now,
      origin,
    });
  }

  #isDuplicate(ev: EventInput): boolean {
    return ev.id !== undefined && ev.id !== '' && this.#idExists.get(ev.id) !== undefined;
  }

  track(ref: PersonRef, ev: EventInput, now: number, origin: string): Outcome {
    return writeTransaction(this.db, () => {
      if (this.#isDuplicate(ev)) return this.history.drop('event', 'duplicate_event_id', now, { id: ev.id });
      const target = this.people.resolveForWrite(ref, now, 'event');
      if (!target.ok) return target.error;
      this.#insertEvent(target.value.cioId, null, ev, now, origin);
      return { applied: true };
    });
  }

  /**
   * An event without a person identifier; without anonymous_id it is an invite (addressed by data.recipient).
   * Upstream: once a person has the anonymous_id as an attribute, "any events bearing the same anonymous value
   * are associated with this person", so such an event is theirs from the start (it keeps its anonymous_id).
   */
  trackAnonymous(anonymousId: string | null, ev: EventInput, now: number): Outcome {
    return writeTransaction(this.db, () => {
      if (this.#isDuplicate(ev))
        return this.history.drop('anonymous_event', 'duplicate_event_id', now, { id: ev.id });
      const owner = anonymousId === null ? undefined : this.people.personByAnonymousId(anonymousId);
      this.#insertEvent(owner?.cioId ?? null, anonymousId, ev, now, 'anonymous');
      return { applied: true };
    });
  }

  /** The visitor's anonymous events of the last 30 days become the person's (identify with anonymous_id). */
  foldAnonymous(cioId: string, anonymousId: string, now: number): void {
    this.#foldAnonymous.run(cioId, anonymousId, now - EVENT_HISTORY_WINDOW_SECONDS);
  }

  /** `from`'s events of the last 30 days become `to`'s (a merge). */
  moveRecent(to: string, from: string, now: number): void {
    this.#moveRecent.run(to, from, now - EVENT_HISTORY_WINDOW_SECONDS);
  }

  load(events: readonly SeedEvent[]): void {
    for (const e of events) {
      this.#insert.run({
        person: e.person,
        anonymous_id: e.anonymousId,
        name: e.name,
        type: e.type,
        dedupe_id: null,
        timestamp: e.timestamp,
        data: JSON.stringify(e.data),
        invite: 0,
        received_at: e.timestamp,
        origin: 'seed',
      });
    }
  }
}
