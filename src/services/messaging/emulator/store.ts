/**
 * State of the emulated tracking workspace in SQLite: people, devices, events, forms, metrics, segments,
 * suppressions, deliveries, objects and relationships, plus records of batches, merges and dropped requests.
 * Knows nothing of HTTP: callers pass validated inputs. The upstream answers 200 to most requests that change
 * nothing (suppressed identifiers, unknown cio_ids...), so such writes return an Outcome and leave a `dropped`
 * record, which is how a tester can see why nothing happened.
 */
import { num, type Row, str, strOrNull } from '../../../emulation/rows.js';
import {
  SEED_BUSY_TIMEOUT_MS,
  type SqliteDatabase,
  withBusyTimeout,
  writeTransaction,
} from '../../../emulation/sqlite.js';
import { COLLECTIONS, type Filter, parseObject, personView } from './collections.js';
import {
  bareCioId,
  describeRef,
  emailKey,
  identifierKinds,
  looksLikeEmail,
  usesKind,
} from './identifiers.js';
import type {
  DeliveryRecord,
  DropReason,
  EventType,
  IdentifyBy,
  JsonObject,
  MessagingSeedData,
  ObjectRecord,
  ObjectRef,
  Outcome,
  PersonKind,
  PersonRecord,
  PersonRef,
  SegmentRecord,
} from './records.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS people (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, cio_id TEXT NOT NULL UNIQUE, id TEXT, email TEXT, email_key TEXT,
  attributes TEXT NOT NULL, attribute_times TEXT NOT NULL DEFAULT '{}', created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS people_by_id ON people(id);
CREATE INDEX IF NOT EXISTS people_by_email ON people(email_key);
CREATE TABLE IF NOT EXISTS devices (
  token TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES people(cio_id) ON DELETE CASCADE,
  platform TEXT NOT NULL, last_used INTEGER, attributes TEXT NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS devices_by_person ON devices(person);
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, person TEXT REFERENCES people(cio_id) ON DELETE CASCADE,
  anonymous_id TEXT, name TEXT NOT NULL, type TEXT NOT NULL, dedupe_id TEXT, timestamp INTEGER NOT NULL,
  data TEXT NOT NULL, invite INTEGER NOT NULL, received_at INTEGER NOT NULL, origin TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_by_dedupe_id ON events(dedupe_id) WHERE dedupe_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_by_person ON events(person, timestamp);
CREATE INDEX IF NOT EXISTS events_by_anonymous_id ON events(anonymous_id, timestamp);
CREATE TABLE IF NOT EXISTS suppressions (
  kind TEXT NOT NULL, value TEXT NOT NULL, cio_id TEXT, suppressed_at INTEGER NOT NULL,
  PRIMARY KEY (kind, value)
);
CREATE TABLE IF NOT EXISTS forms (
  form_id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, submissions INTEGER NOT NULL,
  last_submitted_at INTEGER
);
CREATE TABLE IF NOT EXISTS form_submissions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, form_id TEXT NOT NULL REFERENCES forms(form_id) ON DELETE CASCADE,
  person TEXT, fields TEXT NOT NULL, outcome TEXT NOT NULL, submitted_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS metrics (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL, metric TEXT NOT NULL,
  timestamp INTEGER NOT NULL, fields TEXT NOT NULL, source TEXT NOT NULL, known_delivery INTEGER NOT NULL,
  received_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS segments (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS segment_members (
  segment_id INTEGER NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
  person TEXT NOT NULL REFERENCES people(cio_id) ON DELETE CASCADE,
  added_at INTEGER NOT NULL, PRIMARY KEY (segment_id, person)
);
CREATE INDEX IF NOT EXISTS segment_members_by_person ON segment_members(person);
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT PRIMARY KEY, person TEXT REFERENCES people(cio_id) ON DELETE SET NULL, channel TEXT NOT NULL,
  recipient TEXT, created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_by_person ON deliveries(person);
CREATE TABLE IF NOT EXISTS unsubscribes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL, person TEXT,
  unsubscribed INTEGER NOT NULL DEFAULT 1, unsubscribed_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS object_types (id TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS objects (
  cio_object_id TEXT PRIMARY KEY, object_type_id TEXT NOT NULL REFERENCES object_types(id),
  object_id TEXT NOT NULL, attributes TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  UNIQUE (object_type_id, object_id)
);
CREATE TABLE IF NOT EXISTS relationships (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, person TEXT REFERENCES people(cio_id) ON DELETE CASCADE,
  anonymous_id TEXT, cio_object_id TEXT NOT NULL REFERENCES objects(cio_object_id) ON DELETE CASCADE,
  attributes TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS relationships_of_people ON relationships(person, cio_object_id)
  WHERE person IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS relationships_of_anonymous ON relationships(anonymous_id, cio_object_id)
  WHERE person IS NULL;
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

/**
 * Columns added after the first release, with their definitions: a database file written by an older emulator
 * gets them on open (CREATE TABLE IF NOT EXISTS leaves an existing table as it was).
 */
const ADDED_COLUMNS: readonly { table: string; column: string; definition: string }[] = [
  { table: 'people', column: 'attribute_times', definition: "TEXT NOT NULL DEFAULT '{}'" },
  { table: 'unsubscribes', column: 'unsubscribed', definition: 'INTEGER NOT NULL DEFAULT 1' },
];

/**
 * People by their `anonymous_id` attribute, which ties anonymous events to them; created after ADDED_COLUMNS so
 * that an older file is brought up to date first. The lookup must use this exact expression to use the index.
 */
const ANONYMOUS_ID_INDEX = `CREATE INDEX IF NOT EXISTS people_by_anonymous_id
  ON people(json_extract(attributes, '$.anonymous_id'))`;

const TABLES_CHILD_FIRST = [
  'dropped',
  'merges',
  'batches',
  'relationships',
  'objects',
  'object_types',
  'unsubscribes',
  'deliveries',
  'segment_members',
  'segments',
  'metrics',
  'form_submissions',
  'forms',
  'suppressions',
  'events',
  'devices',
  'people',
  'meta',
] as const;

/** Upstream folds in (and merges) only the last 30 days of events. */
export const EVENT_HISTORY_WINDOW_SECONDS = 30 * 24 * 60 * 60;

/** cio_ids look like the upstream's example "a3000001": hex, from a counter, so runs are reproducible. */
const CIO_ID_BASE = 0xa3000000;
const CIO_OBJECT_ID_BASE = 0xb1000000;

export function cioIdFor(n: number): string {
  return (CIO_ID_BASE + n).toString(16);
}

export function cioObjectIdFor(n: number): string {
  return (CIO_OBJECT_ID_BASE + n).toString(16);
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Applies attribute changes the upstream way: an empty string (or null, in v2) removes the attribute. */
export function mergeAttributes(current: JsonObject, changes: JsonObject): JsonObject {
  const out: JsonObject = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === '' || value === null || value === undefined) Reflect.deleteProperty(out, key);
    else out[key] = value;
  }
  return out;
}

/**
 * A copy of `target` with the value at `path` set, or removed when the value is empty (or null, in v2): the
 * upstream's JSON dot notation, e.g. `cio_subscription_preferences.topics.topic_2`, for one nested field.
 */
function withPath(target: JsonObject, path: readonly string[], value: unknown): JsonObject {
  const [head, ...rest] = path;
  if (head === undefined) return target;
  const out: JsonObject = { ...target };
  if (rest.length > 0) {
    out[head] = withPath(isObject(out[head]) ? out[head] : {}, rest, value);
  } else if (value === '' || value === null || value === undefined) {
    Reflect.deleteProperty(out, head);
  } else {
    out[head] = value;
  }
  return out;
}

function parseTimes(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, time] of Object.entries(parseObject(value))) if (typeof time === 'number') out[key] = time;
  return out;
}

function toPerson(row: Row): PersonRecord {
  return {
    cioId: str(row, 'cio_id'),
    id: strOrNull(row, 'id'),
    email: strOrNull(row, 'email'),
    attributes: parseObject(row.attributes),
    attributeTimes: parseTimes(row.attribute_times),
    createdAt: num(row, 'created_at'),
    updatedAt: num(row, 'updated_at'),
  };
}

function toObject(row: Row): ObjectRecord {
  return {
    cioObjectId: str(row, 'cio_object_id'),
    objectTypeId: str(row, 'object_type_id'),
    objectId: str(row, 'object_id'),
    attributes: parseObject(row.attributes),
    createdAt: num(row, 'created_at'),
    updatedAt: num(row, 'updated_at'),
  };
}

// ---- inputs ------------------------------------------------------------------------------------------------

export interface RelationshipInput {
  object: ObjectRef;
  attributes?: JsonObject | undefined;
}

export interface IdentifyInput {
  /** Who the request names: the path identifier in v1, `identifiers` in v2, the form's id or email. */
  ref: PersonRef;
  /** `id` and `email` from the body: identifiers when the workspace uses them, plain fields otherwise. */
  id?: string | undefined;
  email?: string | undefined;
  /** Plain attributes, including `anonymous_id` and a normalised `unsubscribed`, which are attributes upstream. */
  attributes: JsonObject;
  createdAt?: number | undefined;
  updateOnly?: boolean | undefined;
  /** When the update happened (`_timestamp` in v1, `timestamp` in v2); the receipt time when absent. */
  timestamp?: number | undefined;
  /** Folds in this visitor's earlier anonymous events and relationships. */
  anonymousId?: string | undefined;
  /** The whole `cio_subscription_preferences` object, which replaces the stored one. */
  subscriptionPreferences?: JsonObject | undefined;
  /** Dot-notation changes inside the preferences (path below `cio_subscription_preferences`), kept in order. */
  preferenceChanges?: { path: string[]; value: unknown }[] | undefined;
  relationships?: { action: 'add' | 'delete'; items: RelationshipInput[] } | undefined;
}

export interface EventInput {
  name: string;
  type: EventType;
  id?: string | undefined;
  timestamp?: number | undefined;
  data: JsonObject;
}

export interface DeviceInput {
  token: string;
  platform: string;
  lastUsed?: number | undefined;
  attributes?: JsonObject | undefined;
}

export interface MetricInput {
  deliveryId: string;
  metric: string;
  timestamp?: number | undefined;
  fields: JsonObject;
  source: 'metrics' | 'push_events' | 'v2_delivery';
}

export type MergeOutcome = 'merged' | 'primary_not_found' | 'secondary_not_found' | 'same_person';

export interface BatchRecordInput {
  bytes: number;
  operations: number;
  accepted: number;
  failed: number[];
  status: number;
}

export interface ListPage {
  total: number;
  items: unknown[];
}

/** Every fixed statement, prepared once when the store opens. */
function prepareStatements(db: SqliteDatabase) {
  const p = (sql: string) => db.prepare(sql);
  return {
    metaGet: p('SELECT value FROM meta WHERE key = ?').pluck(),
    metaSet: p(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    ),
    personByCio: p('SELECT * FROM people WHERE cio_id = ?'),
    personById: p('SELECT * FROM people WHERE id = ? ORDER BY pos LIMIT 1'),
    personByEmail: p('SELECT * FROM people WHERE email_key = ? ORDER BY pos LIMIT 1'),
    // The anonymous_id is meant to be unique; should two people hold it, the first to have been created wins.
    personByAnonymousId: p(`SELECT * FROM people WHERE json_extract(attributes, '$.anonymous_id') = ?
      ORDER BY pos LIMIT 1`),
    insertPerson: p(`INSERT INTO people (cio_id, id, email, email_key, attributes, created_at, updated_at)
      VALUES (@cio_id, @id, @email, @email_key, @attributes, @created_at, @updated_at)`),
    updatePerson: p(`UPDATE people SET id = @id, email = @email, email_key = @email_key,
      attributes = @attributes, attribute_times = @attribute_times, created_at = @created_at,
      updated_at = @updated_at WHERE cio_id = @cio_id`),
    deletePerson: p('DELETE FROM people WHERE cio_id = ?'),
    suppression: p('SELECT * FROM suppressions WHERE kind = ? AND value = ?'),
    insertSuppression: p(`INSERT INTO suppressions (kind, value, cio_id, suppressed_at) VALUES (?, ?, ?, ?)
      ON CONFLICT(kind, value) DO UPDATE SET cio_id = excluded.cio_id, suppressed_at = excluded.suppressed_at`),
    deleteSuppression: p('DELETE FROM suppressions WHERE kind = ? AND value = ?'),
    deleteSuppressionsOf: p('DELETE FROM suppressions WHERE cio_id = ?'),
    deviceByToken: p('SELECT * FROM devices WHERE token = ?'),
    upsertDevice:
      p(`INSERT INTO devices (token, person, platform, last_used, attributes, created_at, updated_at)
      VALUES (@token, @person, @platform, @last_used, @attributes, @now, @now)
      ON CONFLICT(token) DO UPDATE SET person = excluded.person, platform = excluded.platform,
        last_used = excluded.last_used, attributes = excluded.attributes, updated_at = excluded.updated_at`),
    deleteDevice: p('DELETE FROM devices WHERE token = ? AND person = ?'),
    eventIdExists: p('SELECT 1 FROM events WHERE dedupe_id = ?').pluck(),
    insertEvent: p(`INSERT INTO events
      (person, anonymous_id, name, type, dedupe_id, timestamp, data, invite, received_at, origin)
      VALUES (@person, @anonymous_id, @name, @type, @dedupe_id, @timestamp, @data, @invite, @received_at,
        @origin)`),
    foldAnonymousEvents: p(`UPDATE events SET person = ?
      WHERE person IS NULL AND anonymous_id = ? AND timestamp >= ?`),
    moveRecentEvents: p('UPDATE events SET person = ? WHERE person = ? AND timestamp >= ?'),
    moveDevices: p('UPDATE devices SET person = ? WHERE person = ?'),
    copyMemberships: p(`INSERT OR IGNORE INTO segment_members (segment_id, person, added_at)
      SELECT segment_id, ?, added_at FROM segment_members WHERE person = ?`),
    moveDeliveries: p('UPDATE deliveries SET person = ? WHERE person = ?'),
    formById: p('SELECT * FROM forms WHERE form_id = ?'),
    insertForm: p('INSERT INTO forms (form_id, created_at, submissions) VALUES (?, ?, 0)'),
    countSubmission: p(
      'UPDATE forms SET submissions = submissions + 1, last_submitted_at = ? WHERE form_id = ?',
    ),
    insertSubmission: p(`INSERT INTO form_submissions (form_id, person, fields, outcome, submitted_at)
      VALUES (?, ?, ?, ?, ?)`),
    deliveryById: p('SELECT * FROM deliveries WHERE id = ?'),
    insertMetric: p(`INSERT INTO metrics
      (delivery_id, metric, timestamp, fields, source, known_delivery, received_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    insertUnsubscribe: p(`INSERT INTO unsubscribes (delivery_id, person, unsubscribed, unsubscribed_at)
      VALUES (?, ?, ?, ?)`),
    segmentById: p('SELECT * FROM segments WHERE id = ?'),
    addMember: p('INSERT OR IGNORE INTO segment_members (segment_id, person, added_at) VALUES (?, ?, ?)'),
    removeMember: p('DELETE FROM segment_members WHERE segment_id = ? AND person = ?'),
    objectTypeById: p('SELECT * FROM object_types WHERE id = ?'),
    objectByCio: p('SELECT * FROM objects WHERE cio_object_id = ?'),
    objectByKey: p('SELECT * FROM objects WHERE object_type_id = ? AND object_id = ?'),
    insertObject: p(`INSERT INTO objects (cio_object_id, object_type_id, object_id, attributes, created_at,
      updated_at) VALUES (?, ?, ?, ?, ?, ?)`),
    updateObject: p('UPDATE objects SET attributes = ?, updated_at = ? WHERE cio_object_id = ?'),
    deleteObject: p('DELETE FROM objects WHERE cio_object_id = ?'),
    relationshipOfPerson: p('SELECT * FROM relationships WHERE person = ? AND cio_object_id = ?'),
    relationshipOfAnonymous: p(`SELECT * FROM relationships
      WHERE person IS NULL AND anonymous_id = ? AND cio_object_id = ?`),
    anonymousRelationships: p('SELECT * FROM relationships WHERE person IS NULL AND anonymous_id = ?'),
    insertRelationship: p(`INSERT INTO relationships
      (person, anonymous_id, cio_object_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`),
    updateRelationship: p('UPDATE relationships SET attributes = ?, updated_at = ? WHERE seq = ?'),
    claimRelationship: p('UPDATE relationships SET person = ?, updated_at = ? WHERE seq = ?'),
    deleteRelationship: p('DELETE FROM relationships WHERE seq = ?'),
    insertBatch: p(`INSERT INTO batches (received_at, bytes, operations, accepted, failed, status)
      VALUES (?, ?, ?, ?, ?, ?)`),
    insertMerge: p(`INSERT INTO merges
      (primary_ref, secondary_ref, primary_cio_id, secondary_cio_id, outcome, origin, merged_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    insertDropped: p('INSERT INTO dropped (at, operation, reason, detail) VALUES (?, ?, ?, ?)'),
  };
}

export class MessagingStore {
  readonly identifyBy: IdentifyBy;
  readonly #db: SqliteDatabase;
  readonly #s: ReturnType<typeof prepareStatements>;

  constructor(db: SqliteDatabase, options: { identifyBy: IdentifyBy }) {
    this.#db = db;
    this.identifyBy = options.identifyBy;
    // Under the write lock: two processes opening an older file at once must not both add a column. (It may
    // wait for another process seeding the file.)
    withBusyTimeout(db, SEED_BUSY_TIMEOUT_MS, () =>
      writeTransaction(db, () => {
        db.exec(SCHEMA);
        for (const { table, column, definition } of ADDED_COLUMNS) {
          const columns = db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all();
          if (!columns.includes(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
        }
        db.exec(ANONYMOUS_ID_INDEX);
      }),
    );
    this.#s = prepareStatements(db);
  }

  /**
   * Runs `fn` in one transaction (nested calls become savepoints), so a failed write leaves nothing behind. It
   * holds the write lock from the start, so the counters and rows it reads are the ones it writes over even when
   * another process shares the file.
   */
  transaction<T>(fn: () => T): T {
    return writeTransaction(this.#db, fn);
  }

  // ---- seeding -------------------------------------------------------------------------------------------

  isEmpty(): boolean {
    return this.#s.metaGet.get('seed') === undefined;
  }

  replaceAll(data: MessagingSeedData): void {
    this.#withoutForeignKeys(() => this.#replaceAll(data, this.#s, this.#db));
  }

  /**
   * Seeds with what `build` makes when the database holds nothing yet (or when `reset`), checking and seeding
   * in one write transaction, so two processes starting on an empty file seed it once. Returns whether it did.
   */
  seedIfEmpty(build: () => MessagingSeedData, reset: boolean): boolean {
    return this.#withoutForeignKeys(() =>
      withBusyTimeout(this.#db, SEED_BUSY_TIMEOUT_MS, () =>
        this.transaction(() => {
          if (!reset && !this.isEmpty()) return false;
          this.#replaceAll(build(), this.#s, this.#db);
          return true;
        }),
      ),
    );
  }

  /**
   * Seed data is consistent by construction; checking every foreign key would double the time of big seeds.
   * (The pragma is a no-op inside a transaction, so it is switched around it.)
   */
  #withoutForeignKeys<T>(fn: () => T): T {
    this.#db.pragma('foreign_keys = OFF');
    try {
      return fn();
    } finally {
      this.#db.pragma('foreign_keys = ON');
    }
  }

  #replaceAll(data: MessagingSeedData, s: ReturnType<typeof prepareStatements>, db: SqliteDatabase): void {
    this.transaction(() => {
      for (const table of TABLES_CHILD_FIRST) db.prepare(`DELETE FROM ${table}`).run();
      // AUTOINCREMENT counters restart too, so a reseed gives the same seq numbers as a fresh start.
      db.prepare('DELETE FROM sqlite_sequence').run();
      s.metaSet.run('seed', json({ seed: data.seed, scale: data.scale }));
      s.metaSet.run('next_person', String(data.people.length + 1));
      s.metaSet.run('next_object', String(data.objects.length + 1));
      for (const p of data.people) {
        s.insertPerson.run({
          cio_id: p.cioId,
          id: p.id,
          email: p.email,
          email_key: emailKey(p.email),
          attributes: json(p.attributes),
          created_at: p.createdAt,
          updated_at: p.createdAt,
        });
      }
      for (const d of data.devices) {
        s.upsertDevice.run({
          token: d.token,
          person: d.person,
          platform: d.platform,
          last_used: d.lastUsed,
          attributes: json(d.attributes),
          now: d.createdAt,
        });
      }
      for (const e of data.events) {
        s.insertEvent.run({
          person: e.person,
          anonymous_id: e.anonymousId,
          name: e.name,
          type: e.type,
          dedupe_id: null,
          timestamp: e.timestamp,
          data: json(e.data),
          invite: 0,
          received_at: e.timestamp,
          origin: 'seed',
        });
      }
      const insertSegment = db.prepare(
        'INSERT INTO segments (id, name, type, description, created_at) VALUES (?, ?, ?, ?, ?)',
      );
      for (const seg of data.segments) {
        insertSegment.run(seg.id, seg.name, seg.type, seg.description, seg.createdAt);
      }
      for (const m of data.segmentMembers) s.addMember.run(m.segmentId, m.person, m.addedAt);
      const insertDelivery = db.prepare(
        'INSERT INTO deliveries (id, person, channel, recipient, created_at) VALUES (?, ?, ?, ?, ?)',
      );
      for (const d of data.deliveries)
        insertDelivery.run(d.id, d.person, d.channel, d.recipient, d.createdAt);
      const insertType = db.prepare('INSERT INTO object_types (id, name) VALUES (?, ?)');
      for (const t of data.objectTypes) insertType.run(t.id, t.name);
      for (const o of data.objects) {
        s.insertObject.run(
          o.cioObjectId,
          o.objectTypeId,
          o.objectId,
          json(o.attributes),
          o.createdAt,
          o.createdAt,
        );
      }
      for (const r of data.relationships) {
        s.insertRelationship.run(r.person, null, r.cioObjectId, json(r.attributes), r.createdAt, r.createdAt);
      }
    });
  }

  seedInfo(): { seed: number; scale: number } | undefined {
    const raw = this.#s.metaGet.get('seed');
    return typeof raw === 'string' ? (JSON.parse(raw) as { seed: number; scale: number }) : undefined;
  }

  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, spec] of Object.entries(COLLECTIONS)) {
      out[name] = Number(this.#db.prepare(`SELECT COUNT(*) FROM (${spec.from})`).pluck().get());
    }
    return out;
  }

  // ---- people --------------------------------------------------------------------------------------------

  /** Finds a person by a reference, using only the identifier kinds the workspace has. */
  findPerson(ref: PersonRef): PersonRecord | undefined {
    if (!usesKind(this.identifyBy, ref.kind)) return undefined;
    let row: unknown;
    if (ref.kind === 'cio_id') row = this.#s.personByCio.get(ref.value);
    else if (ref.kind === 'id') row = this.#s.personById.get(ref.value);
    else row = this.#s.personByEmail.get(emailKey(ref.value));
    return row ? toPerson(row as Row) : undefined;
  }

  /** For inspection: a cio_id (with or without `cio_`), an id or an email, whatever the workspace setting. */
  lookupPerson(key: string): PersonRecord | undefined {
    const s = this.#s;
    const row =
      s.personByCio.get(bareCioId(key)) ??
      s.personById.get(key) ??
      (looksLikeEmail(key) ? s.personByEmail.get(emailKey(key)) : undefined);
    return row ? toPerson(row as Row) : undefined;
  }

  isSuppressed(ref: PersonRef): boolean {
    if (ref.kind === 'cio_id') return false;
    const value = ref.kind === 'email' ? emailKey(ref.value) : ref.value;
    return this.#s.suppression.get(ref.kind, value) !== undefined;
  }

  #savePerson(p: PersonRecord): void {
    this.#s.updatePerson.run({
      cio_id: p.cioId,
      id: p.id,
      email: p.email,
      email_key: p.email === null ? null : emailKey(p.email),
      attributes: json(p.attributes),
      attribute_times: json(p.attributeTimes),
      created_at: p.createdAt,
      updated_at: p.updatedAt,
    });
  }

  #nextCounter(key: string): number {
    const n = Number(this.#s.metaGet.get(key) ?? '1');
    this.#s.metaSet.run(key, String(n + 1));
    return n;
  }

  #createPerson(ref: PersonRef, now: number): PersonRecord {
    let cioId = cioIdFor(this.#nextCounter('next_person'));
    // A reopened file may hold people created under other counters; never reuse a cio_id.
    while (this.#s.personByCio.get(cioId)) cioId = cioIdFor(this.#nextCounter('next_person'));
    const person: PersonRecord = {
      cioId,
      id: ref.kind === 'id' ? ref.value : null,
      email: ref.kind === 'email' ? ref.value : null,
      attributes: {},
      attributeTimes: {},
      createdAt: now,
      updatedAt: now,
    };
    this.#s.insertPerson.run({
      cio_id: person.cioId,
      id: person.id,
      email: person.email,
      email_key: person.email === null ? null : emailKey(person.email),
      attributes: '{}',
      created_at: now,
      updated_at: now,
    });
    return person;
  }

  drop(operation: string, reason: DropReason, now: number, detail: JsonObject = {}): Outcome {
    this.#s.insertDropped.run(now, operation, reason, json(detail));
    const message = typeof detail.message === 'string' ? detail.message : undefined;
    return message === undefined ? { applied: false, reason } : { applied: false, reason, detail: message };
  }

  /**
   * The person a write is about, created when named by id or email (as the upstream does for identify,
   * events and devices), never when named by cio_id, and never for a suppressed identifier.
   */
  resolveForWrite(
    ref: PersonRef,
    now: number,
    operation: string,
  ): { ok: true; person: PersonRecord } | { ok: false; outcome: Outcome } {
    if (this.isSuppressed(ref)) {
      return {
        ok: false,
        outcome: this.drop(operation, 'suppressed', now, { identifier: describeRef(ref) }),
      };
    }
    const found = this.findPerson(ref);
    if (found) return { ok: true, person: found };
    if (ref.kind === 'cio_id') {
      return {
        ok: false,
        outcome: this.drop(operation, 'cio_id_not_found', now, { identifier: describeRef(ref) }),
      };
    }
    return { ok: true, person: this.#createPerson(ref, now) };
  }

  /**
   * Add or update a person, following the upstream's identify rules: the path identifier finds the person; a
   * body identifier that belongs to nobody is added; one that belongs to someone else (or would replace an
   * identifier already set, which needs the cio_ form) is an "Attribute Update Failure": 200, nothing changes.
   */
  identify(input: IdentifyInput, now: number, operation = 'identify'): Outcome {
    return this.transaction(() => {
      const kinds = identifierKinds(this.identifyBy);
      const bodyIdents: PersonRef[] = [];
      if (input.id !== undefined && input.id !== '' && kinds.includes('id')) {
        bodyIdents.push({ kind: 'id', value: input.id });
      }
      if (input.email !== undefined && input.email !== '' && kinds.includes('email')) {
        bodyIdents.push({ kind: 'email', value: input.email });
      }
      const named = input.ref.kind === 'cio_id' ? bodyIdents : [input.ref, ...bodyIdents];
      const blocked = named.find((ref) => this.isSuppressed(ref));
      if (blocked) return this.drop(operation, 'suppressed', now, { identifier: describeRef(blocked) });
      const failure = (message: string) =>
        this.drop(operation, 'attribute_update_failure', now, {
          identifier: describeRef(input.ref),
          ...(input.id === undefined ? {} : { id: input.id }),
          ...(input.email === undefined ? {} : { email: input.email }),
          message,
        });

      let target: PersonRecord | undefined;
      const assign: PersonRef[] = [];
      if (input.ref.kind === 'cio_id') {
        target = this.findPerson(input.ref);
        if (!target)
          return this.drop(operation, 'cio_id_not_found', now, { identifier: describeRef(input.ref) });
        for (const ref of bodyIdents) {
          const owner = this.findPerson(ref);
          if (owner && owner.cioId !== target.cioId)
            return failure(`${describeRef(ref)} belongs to another person`);
          if (!owner) assign.push(ref);
        }
      } else {
        const pathPerson = this.findPerson(input.ref);
        if (pathPerson) {
          for (const ref of bodyIdents) {
            const owner = this.findPerson(ref);
            if (owner && owner.cioId !== pathPerson.cioId) {
              return failure(`${describeRef(ref)} belongs to another person`);
            }
            if (owner) continue;
            const current = ref.kind === 'id' ? pathPerson.id : pathPerson.email;
            if (current !== null) {
              return failure(`changing a person's ${ref.kind} needs the cio_<cio_id> identifier in the path`);
            }
            assign.push(ref);
          }
          target = pathPerson;
        } else {
          const owners = new Map<string, PersonRecord>();
          for (const ref of bodyIdents) {
            const owner = this.findPerson(ref);
            if (owner) owners.set(owner.cioId, owner);
          }
          if (owners.size > 1) return failure('the identifiers in the body belong to different people');
          const [owner] = owners.values();
          if (owner) {
            // Upstream: "updates the person and assigns them the identifier in the path".
            target = owner;
            assign.push(input.ref);
          } else {
            if (input.updateOnly) {
              return this.drop(operation, 'update_only_unknown_person', now, {
                identifier: describeRef(input.ref),
              });
            }
            target = this.#createPerson(input.ref, now);
            // The path identifier wins over a body identifier of the same kind.
            assign.push(...bodyIdents.filter((ref) => ref.kind !== input.ref.kind));
          }
        }
      }

      for (const ref of assign) {
        if (ref.kind === 'id') target.id = ref.value;
        else if (ref.kind === 'email') target.email = ref.value;
      }
      // Fields that are not identifiers in this workspace are plain fields of the profile.
      if (input.email !== undefined && !kinds.includes('email'))
        target.email = input.email === '' ? null : input.email;
      if (input.id !== undefined && !kinds.includes('id')) target.id = input.id === '' ? null : input.id;

      // Each attribute keeps the time of the last update that set it; an older update leaves it alone.
      const at = input.timestamp ?? now;
      const times = { ...target.attributeTimes };
      const stale: string[] = [];
      const isCurrent = (name: string): boolean => {
        const last = times[name];
        if (last !== undefined && last > at) {
          stale.push(name);
          return false;
        }
        times[name] = at;
        return true;
      };
      const changes: JsonObject = {};
      for (const [name, value] of Object.entries(input.attributes)) {
        if (isCurrent(name)) changes[name] = value;
      }
      let attributes = mergeAttributes(target.attributes, changes);
      // The preferences are one attribute for ordering, whether replaced whole or changed by dot notation.
      if (
        (input.subscriptionPreferences !== undefined || input.preferenceChanges !== undefined) &&
        isCurrent('cio_subscription_preferences')
      ) {
        const stored = attributes.cio_subscription_preferences;
        let prefs = input.subscriptionPreferences ?? (isObject(stored) ? stored : {});
        for (const change of input.preferenceChanges ?? [])
          prefs = withPath(prefs, change.path, change.value);
        attributes = { ...attributes, cio_subscription_preferences: prefs };
      }
      if (input.createdAt !== undefined && isCurrent('created_at')) {
        // created_at is both the profile's creation time and an attribute people see and segment on.
        target.createdAt = input.createdAt;
        attributes = { ...attributes, created_at: input.createdAt };
      }
      target.attributes = attributes;
      target.attributeTimes = times;
      target.updatedAt = now;
      this.#savePerson(target);
      if (stale.length > 0) {
        // The rest of the update applied; the record says which attributes a later update had already set.
        this.drop(operation, 'stale_attributes', now, {
          identifier: describeRef(input.ref),
          timestamp: at,
          attributes: stale,
        });
      }

      if (input.anonymousId !== undefined && input.anonymousId !== '') {
        this.#foldAnonymous(target.cioId, input.anonymousId, now);
      }
      if (input.relationships) {
        const personRef: PersonRef = { kind: 'cio_id', value: target.cioId };
        for (const item of input.relationships.items) {
          if (input.relationships.action === 'add')
            this.relate(personRef, item.object, item.attributes, now, operation);
          else this.unrelate(personRef, item.object);
        }
      }
      return { applied: true };
    });
  }

  /** Anonymous events of the last 30 days, and anonymous object relationships, become the person's. */
  #foldAnonymous(cioId: string, anonymousId: string, now: number): void {
    this.#s.foldAnonymousEvents.run(cioId, anonymousId, now - EVENT_HISTORY_WINDOW_SECONDS);
    for (const row of this.#s.anonymousRelationships.all(anonymousId) as Row[]) {
      const existing = this.#s.relationshipOfPerson.get(cioId, row.cio_object_id) as Row | undefined;
      if (existing) {
        const merged = mergeAttributes(parseObject(existing.attributes), parseObject(row.attributes));
        this.#s.updateRelationship.run(json(merged), now, existing.seq);
        this.#s.deleteRelationship.run(row.seq);
      } else {
        this.#s.claimRelationship.run(cioId, now, row.seq);
      }
    }
  }

  /** Deletes the person and everything hanging off them. False when nobody matched (upstream still says 200). */
  deletePerson(ref: PersonRef): boolean {
    const found = this.findPerson(ref);
    if (!found) return false;
    this.#s.deletePerson.run(found.cioId);
    return true;
  }

  /**
   * Deletes the profile and blocks its identifiers: both id and email when the workspace uses both and the
   * person had both. An unknown id or email is blocked too, so it cannot be added later.
   */
  suppress(ref: PersonRef, now: number): Outcome {
    return this.transaction(() => {
      const found = this.findPerson(ref);
      if (!found) {
        if (ref.kind === 'cio_id')
          return this.drop('suppress', 'cio_id_not_found', now, { identifier: describeRef(ref) });
        const value = ref.kind === 'email' ? emailKey(ref.value) : ref.value;
        this.#s.insertSuppression.run(ref.kind, value, null, now);
        return { applied: true };
      }
      const kinds = identifierKinds(this.identifyBy);
      if (kinds.includes('id') && found.id !== null)
        this.#s.insertSuppression.run('id', found.id, found.cioId, now);
      if (kinds.includes('email') && found.email !== null) {
        this.#s.insertSuppression.run('email', emailKey(found.email), found.cioId, now);
      }
      this.#s.deletePerson.run(found.cioId);
      return { applied: true };
    });
  }

  /** Unblocks the identifier, and the other identifier suppressed with it; restores nothing. */
  unsuppress(ref: PersonRef): number {
    return this.transaction(() => {
      if (ref.kind === 'cio_id') return Number(this.#s.deleteSuppressionsOf.run(ref.value).changes);
      const value = ref.kind === 'email' ? emailKey(ref.value) : ref.value;
      const row = this.#s.suppression.get(ref.kind, value) as Row | undefined;
      if (!row) return 0;
      if (row.cio_id !== null) return Number(this.#s.deleteSuppressionsOf.run(row.cio_id).changes);
      return Number(this.#s.deleteSuppression.run(ref.kind, value).changes);
    });
  }

  /**
   * Folds `secondary` into `primary` and deletes it. Moves what the upstream lists: attributes the primary lacks
   * (or has empty), the last 30 days of events, devices, manual segment memberships and delivery history; the
   * primary also takes an id or email it lacks. Relationships are not on the list and go with the secondary.
   */
  merge(primary: PersonRef, secondary: PersonRef, now: number, origin: string): MergeOutcome {
    return this.transaction(() => {
      const p = this.findPerson(primary);
      const s = p ? this.findPerson(secondary) : undefined;
      let outcome: MergeOutcome;
      if (!p) outcome = 'primary_not_found';
      else if (!s) outcome = 'secondary_not_found';
      else if (p.cioId === s.cioId) outcome = 'same_person';
      else {
        outcome = 'merged';
        const attributes = { ...p.attributes };
        const attributeTimes = { ...p.attributeTimes };
        for (const [key, value] of Object.entries(s.attributes)) {
          const current = attributes[key];
          if (current === undefined || current === null || current === '') {
            attributes[key] = value;
            const time = s.attributeTimes[key];
            if (time === undefined) Reflect.deleteProperty(attributeTimes, key);
            else attributeTimes[key] = time;
          }
        }
        this.#s.moveRecentEvents.run(p.cioId, s.cioId, now - EVENT_HISTORY_WINDOW_SECONDS);
        this.#s.moveDevices.run(p.cioId, s.cioId);
        this.#s.copyMemberships.run(p.cioId, s.cioId);
        this.#s.moveDeliveries.run(p.cioId, s.cioId);
        this.#s.deletePerson.run(s.cioId);
        this.#savePerson({
          ...p,
          id: p.id ?? s.id,
          email: p.email ?? s.email,
          attributes,
          attributeTimes,
          updatedAt: now,
        });
      }
      this.#s.insertMerge.run(
        json(primary),
        json(secondary),
        p?.cioId ?? null,
        s?.cioId ?? null,
        outcome,
        origin,
        now,
      );
      return outcome;
    });
  }

  // ---- devices -------------------------------------------------------------------------------------------

  /** Adds or updates a device; a token belongs to one person at a time, so it moves if someone else had it. */
  upsertDevice(ref: PersonRef, device: DeviceInput, now: number): Outcome {
    return this.transaction(() => {
      const target = this.resolveForWrite(ref, now, 'add_device');
      if (!target.ok) return target.outcome;
      const existing = this.#s.deviceByToken.get(device.token) as Row | undefined;
      const attributes = mergeAttributes(
        existing ? parseObject(existing.attributes) : {},
        device.attributes ?? {},
      );
      this.#s.upsertDevice.run({
        token: device.token,
        person: target.person.cioId,
        platform: device.platform,
        last_used: device.lastUsed ?? now,
        attributes: json(attributes),
        now,
      });
      return { applied: true };
    });
  }

  /** Removes the person's device; false when either is unknown (upstream answers 200 regardless). */
  deleteDevice(ref: PersonRef, token: string): boolean {
    const found = this.findPerson(ref);
    if (!found) return false;
    return Number(this.#s.deleteDevice.run(token, found.cioId).changes) > 0;
  }

  // ---- events --------------------------------------------------------------------------------------------

  #insertEvent(
    personCio: string | null,
    anonymousId: string | null,
    ev: EventInput,
    now: number,
    origin: string,
  ) {
    this.#s.insertEvent.run({
      person: personCio,
      anonymous_id: anonymousId,
      name: ev.name,
      type: ev.type,
      dedupe_id: ev.id ?? null,
      timestamp: ev.timestamp ?? now,
      data: json(ev.data),
      invite: personCio === null && anonymousId === null ? 1 : 0,
      received_at: now,
      origin,
    });
  }

  #isDuplicate(ev: EventInput): boolean {
    return ev.id !== undefined && ev.id !== '' && this.#s.eventIdExists.get(ev.id) !== undefined;
  }

  trackEvent(ref: PersonRef, ev: EventInput, now: number, origin: string): Outcome {
    return this.transaction(() => {
      if (this.#isDuplicate(ev)) return this.drop('event', 'duplicate_event_id', now, { id: ev.id });
      const target = this.resolveForWrite(ref, now, 'event');
      if (!target.ok) return target.outcome;
      this.#insertEvent(target.person.cioId, null, ev, now, origin);
      return { applied: true };
    });
  }

  /** The person whose `anonymous_id` attribute is this value, if any. */
  personByAnonymousId(anonymousId: string): PersonRecord | undefined {
    const row = this.#s.personByAnonymousId.get(anonymousId) as Row | undefined;
    return row ? toPerson(row) : undefined;
  }

  /**
   * An event without a person identifier; without anonymous_id it is an invite (addressed by data.recipient).
   * Upstream: once a person has the anonymous_id as an attribute, "any events bearing the same anonymous value
   * are associated with this person", so such an event is theirs from the start (it keeps its anonymous_id).
   */
  trackAnonymous(anonymousId: string | null, ev: EventInput, now: number): Outcome {
    return this.transaction(() => {
      if (this.#isDuplicate(ev))
        return this.drop('anonymous_event', 'duplicate_event_id', now, { id: ev.id });
      const owner = anonymousId === null ? undefined : this.personByAnonymousId(anonymousId);
      this.#insertEvent(owner?.cioId ?? null, anonymousId, ev, now, 'anonymous');
      return { applied: true };
    });
  }

  // ---- forms ---------------------------------------------------------------------------------------------

  /** True when this call created the form connection. */
  ensureForm(formId: string, now: number): boolean {
    if (this.#s.formById.get(formId)) return false;
    this.#s.insertForm.run(formId, now);
    return true;
  }

  submitForm(formId: string, input: IdentifyInput, fields: JsonObject, now: number): Outcome {
    return this.transaction(() => {
      this.ensureForm(formId, now);
      const outcome = this.identify(input, now, 'form_submit');
      const person = outcome.applied ? this.findPerson(input.ref) : undefined;
      this.#s.countSubmission.run(now, formId);
      this.#s.insertSubmission.run(
        formId,
        person?.cioId ?? null,
        json(fields),
        outcome.applied ? 'applied' : outcome.reason,
        now,
      );
      return outcome;
    });
  }

  // ---- deliveries and metrics ----------------------------------------------------------------------------

  delivery(id: string): DeliveryRecord | undefined {
    const row = this.#s.deliveryById.get(id) as Row | undefined;
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
    this.#s.insertMetric.run(
      metric.deliveryId,
      metric.metric,
      metric.timestamp ?? now,
      json(metric.fields),
      metric.source,
      this.#s.deliveryById.get(metric.deliveryId) ? 1 : 0,
      now,
    );
  }

  /**
   * Sets the delivery's person's `unsubscribed` attribute (true to unsubscribe, false to resubscribe, as
   * customerio-node documents) and attributes the change to the delivery.
   */
  unsubscribe(deliveryId: string, unsubscribed: boolean, now: number): void {
    this.transaction(() => {
      const delivery = this.delivery(deliveryId);
      if (!delivery) return;
      const target =
        delivery.person === null ? undefined : this.findPerson({ kind: 'cio_id', value: delivery.person });
      if (target) {
        this.#savePerson({
          ...target,
          attributes: { ...target.attributes, unsubscribed },
          attributeTimes: { ...target.attributeTimes, unsubscribed: now },
          updatedAt: now,
        });
      }
      this.#s.insertUnsubscribe.run(deliveryId, target?.cioId ?? null, unsubscribed ? 1 : 0, now);
    });
  }

  // ---- segments ------------------------------------------------------------------------------------------

  segment(id: number): SegmentRecord | undefined {
    const row = this.#s.segmentById.get(id) as Row | undefined;
    if (!row) return undefined;
    return {
      id: num(row, 'id'),
      name: str(row, 'name'),
      type: str(row, 'type') as SegmentRecord['type'],
      description: str(row, 'description'),
      createdAt: num(row, 'created_at'),
    };
  }

  /**
   * Adds or removes people of a manual segment by one kind of identifier. Values that are not of that kind, or
   * name nobody, are ignored. (The upstream's remove_customers text also says people need an `id`; that note
   * predates the id_type parameter, which would make email and cio_id removal pointless, so it is not applied.)
   */
  changeSegmentMembers(
    segmentId: number,
    action: 'add' | 'remove',
    idType: PersonKind,
    ids: readonly string[],
    now: number,
  ): { matched: number; changed: number } {
    return this.transaction(() => {
      let matched = 0;
      let changed = 0;
      for (const raw of new Set(ids)) {
        if (idType === 'email' && !looksLikeEmail(raw)) continue;
        const found = this.findPerson({ kind: idType, value: idType === 'cio_id' ? bareCioId(raw) : raw });
        if (!found) continue;
        matched++;
        const result =
          action === 'add'
            ? this.#s.addMember.run(segmentId, found.cioId, now)
            : this.#s.removeMember.run(segmentId, found.cioId);
        changed += Number(result?.changes ?? 0);
      }
      return { matched, changed };
    });
  }

  // ---- objects and relationships -------------------------------------------------------------------------

  objectTypeExists(id: string): boolean {
    return this.#s.objectTypeById.get(id) !== undefined;
  }

  findObject(ref: ObjectRef): ObjectRecord | undefined {
    const row =
      'cio_object_id' in ref
        ? this.#s.objectByCio.get(ref.cio_object_id)
        : this.#s.objectByKey.get(ref.object_type_id, ref.object_id);
    return row ? toObject(row as Row) : undefined;
  }

  /** Like people: an object named by type and id is created on first use; one named by cio_object_id is not. */
  #resolveObjectForWrite(
    ref: ObjectRef,
    now: number,
    operation: string,
  ): { ok: true; object: ObjectRecord } | { ok: false; outcome: Outcome } {
    const found = this.findObject(ref);
    if (found) return { ok: true, object: found };
    if ('cio_object_id' in ref) {
      return {
        ok: false,
        outcome: this.drop(operation, 'cio_object_id_not_found', now, { cio_object_id: ref.cio_object_id }),
      };
    }
    let cioObjectId = cioObjectIdFor(this.#nextCounter('next_object'));
    while (this.#s.objectByCio.get(cioObjectId))
      cioObjectId = cioObjectIdFor(this.#nextCounter('next_object'));
    this.#s.insertObject.run(cioObjectId, ref.object_type_id, ref.object_id, '{}', now, now);
    return {
      ok: true,
      object: {
        cioObjectId,
        objectTypeId: ref.object_type_id,
        objectId: ref.object_id,
        attributes: {},
        createdAt: now,
        updatedAt: now,
      },
    };
  }

  identifyObject(ref: ObjectRef, attributes: JsonObject, now: number): Outcome & { object?: ObjectRecord } {
    return this.transaction(() => {
      const target = this.#resolveObjectForWrite(ref, now, 'object_identify');
      if (!target.ok) return target.outcome;
      const merged = mergeAttributes(target.object.attributes, attributes);
      this.#s.updateObject.run(json(merged), now, target.object.cioObjectId);
      return { applied: true, object: { ...target.object, attributes: merged, updatedAt: now } };
    });
  }

  deleteObject(ref: ObjectRef): boolean {
    const found = this.findObject(ref);
    if (!found) return false;
    this.#s.deleteObject.run(found.cioObjectId);
    return true;
  }

  /** Relates a person and an object, creating either when named by its natural key; merges the attributes. */
  relate(
    personRef: PersonRef,
    objectRef: ObjectRef,
    attributes: JsonObject | undefined,
    now: number,
    operation: string,
  ): Outcome {
    return this.transaction(() => {
      const who = this.resolveForWrite(personRef, now, operation);
      if (!who.ok) return who.outcome;
      const what = this.#resolveObjectForWrite(objectRef, now, operation);
      if (!what.ok) return what.outcome;
      const existing = this.#s.relationshipOfPerson.get(who.person.cioId, what.object.cioObjectId) as
        | Row
        | undefined;
      if (existing) {
        const merged = mergeAttributes(parseObject(existing.attributes), attributes ?? {});
        this.#s.updateRelationship.run(json(merged), now, existing.seq);
      } else {
        const fresh = mergeAttributes({}, attributes ?? {});
        this.#s.insertRelationship.run(
          who.person.cioId,
          null,
          what.object.cioObjectId,
          json(fresh),
          now,
          now,
        );
      }
      return { applied: true };
    });
  }

  unrelate(personRef: PersonRef, objectRef: ObjectRef): boolean {
    const who = this.findPerson(personRef);
    const what = this.findObject(objectRef);
    if (!who || !what) return false;
    const existing = this.#s.relationshipOfPerson.get(who.cioId, what.cioObjectId) as Row | undefined;
    if (!existing) return false;
    this.#s.deleteRelationship.run(existing.seq);
    return true;
  }

  /**
   * identify_anonymous: relates an object to an anonymous visitor until they are identified; a visitor already
   * identified (a person with that anonymous_id) gets the relationship directly, as their events do.
   */
  relateAnonymous(
    anonymousId: string,
    objectRef: ObjectRef,
    attributes: JsonObject | undefined,
    now: number,
  ): Outcome {
    return this.transaction(() => {
      const owner = this.personByAnonymousId(anonymousId);
      if (owner) {
        const ref: PersonRef = { kind: 'cio_id', value: owner.cioId };
        return this.relate(ref, objectRef, attributes, now, 'object_identify_anonymous');
      }
      const what = this.#resolveObjectForWrite(objectRef, now, 'object_identify_anonymous');
      if (!what.ok) return what.outcome;
      const existing = this.#s.relationshipOfAnonymous.get(anonymousId, what.object.cioObjectId) as
        | Row
        | undefined;
      if (existing) {
        const merged = mergeAttributes(parseObject(existing.attributes), attributes ?? {});
        this.#s.updateRelationship.run(json(merged), now, existing.seq);
      } else {
        const fresh = mergeAttributes({}, attributes ?? {});
        this.#s.insertRelationship.run(null, anonymousId, what.object.cioObjectId, json(fresh), now, now);
      }
      return { applied: true };
    });
  }

  // ---- records -------------------------------------------------------------------------------------------

  recordBatch(batch: BatchRecordInput, now: number): number {
    const result = this.#s.insertBatch.run(
      now,
      batch.bytes,
      batch.operations,
      batch.accepted,
      json(batch.failed),
      batch.status,
    );
    return Number(result?.lastInsertRowid ?? 0);
  }

  // ---- inspection ----------------------------------------------------------------------------------------

  #filterValue(filter: Filter, raw: string): string | number {
    if (filter.person) return this.lookupPerson(raw)?.cioId ?? raw;
    if (filter.numeric) return /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
    return filter.lower ? emailKey(raw) : raw;
  }

  /** One page of a collection, filtered by equality on the collection's known query parameters. */
  list(name: string, params: Record<string, string>, offset: number, limit: number): ListPage | undefined {
    const spec = COLLECTIONS[name];
    if (!spec) return undefined;
    const where: string[] = [];
    const values: (string | number)[] = [];
    for (const [param, raw] of Object.entries(params)) {
      const filter = spec.filters[param];
      if (!filter) continue;
      where.push(`${filter.column} = ?`);
      values.push(this.#filterValue(filter, raw));
    }
    const clause = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    const base = `SELECT * FROM (${spec.from})${clause}`;
    const total = Number(
      this.#db
        .prepare(`SELECT COUNT(*) FROM (${base})`)
        .pluck()
        .get(...values),
    );
    const rows = this.#db
      .prepare(`${base} ORDER BY ${spec.order} LIMIT ? OFFSET ?`)
      .all(...values, limit, offset);
    return { total, items: (rows as Row[]).map(spec.view) };
  }

  /** One record by its key; people also by `cio_<id>`, id or email, with their devices, segments and relations. */
  item(name: string, key: string): unknown | undefined {
    const spec = COLLECTIONS[name];
    if (!spec) return undefined;
    if (name === 'people') {
      const found = this.lookupPerson(key);
      if (!found) return undefined;
      const row = this.#s.personByCio.get(found.cioId) as Row;
      const of = (collection: string) =>
        this.list(collection, { person: found.cioId }, 0, 10_000)?.items ?? [];
      return {
        ...personView(row),
        devices: of('devices'),
        segments: (of('segment_members') as JsonObject[]).map((m) => m.segment_id),
        relationships: of('relationships'),
        event_count: this.list('events', { person: found.cioId }, 0, 1)?.total ?? 0,
      };
    }
    if (name === 'objects' && key.includes(':')) {
      const [type = '', ...rest] = key.split(':');
      const found = this.findObject({ object_type_id: type, object_id: rest.join(':') });
      if (found) key = found.cioObjectId;
    }
    const value = this.#filterValue(spec.key, key);
    const row = this.#db
      .prepare(`SELECT * FROM (${spec.from}) WHERE ${spec.key.column} = ? LIMIT 1`)
      .get(value);
    if (!row) return undefined;
    const view = spec.view(row as Row);
    if (name === 'segments') {
      const members = this.list('segment_members', { segment_id: key }, 0, 100_000)?.items ?? [];
      return { ...view, members: (members as JsonObject[]).map((m) => m.cio_id) };
    }
    return view;
  }
}
