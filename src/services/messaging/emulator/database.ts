/**
 * The emulated tracking workspace in SQLite, composed of one state class per entity (state/): people and
 * suppressions, profile-wide writes (identify, merge), devices, events, forms, segments, deliveries and their
 * metrics, objects and relationships, and the request history (batches, merges, dropped requests). Knows
 * nothing of HTTP: callers pass validated inputs. The upstream answers 200 to most requests that change nothing
 * (suppressed identifiers, unknown cio_ids...), so such writes return an Outcome and leave a `dropped` record,
 * which is how a tester can see why nothing happened. Also here: the schema and its upgrades, seeding, and the
 * read-only views /_emulator/state serves.
 */
import type { Row } from '../../../emulation/rows.js';
import {
  SEED_BUSY_TIMEOUT_MS,
  type SqliteDatabase,
  seedIfEmpty,
  withBusyTimeout,
  writeTransaction,
} from '../../../emulation/sqlite.js';
import { COLLECTIONS, type Filter, personView } from './collections.js';
import { emailKey } from './identifiers.js';
import type { IdentifyBy, JsonObject, MessagingSeedData } from './records.js';
import { DELIVERIES_SCHEMA, DeliveriesState } from './state/deliveries.js';
import { DEVICES_SCHEMA, DevicesState } from './state/devices.js';
import { EVENTS_SCHEMA, EventsState } from './state/events.js';
import { FORMS_SCHEMA, FormsState } from './state/forms.js';
import { HISTORY_SCHEMA, RequestHistory } from './state/history.js';
import { META_SCHEMA, Meta } from './state/meta.js';
import { OBJECTS_SCHEMA, ObjectsState } from './state/objects.js';
import { ANONYMOUS_ID_INDEX, PEOPLE_SCHEMA, PeopleState } from './state/people.js';
import { ProfilesState } from './state/profiles.js';
import { SEGMENTS_SCHEMA, SegmentsState } from './state/segments.js';

const SCHEMA = [
  META_SCHEMA,
  PEOPLE_SCHEMA,
  DEVICES_SCHEMA,
  EVENTS_SCHEMA,
  FORMS_SCHEMA,
  DELIVERIES_SCHEMA,
  SEGMENTS_SCHEMA,
  OBJECTS_SCHEMA,
  HISTORY_SCHEMA,
].join('');

/**
 * Columns added after the first release, with their definitions: a database file written by an older emulator
 * gets them on open (CREATE TABLE IF NOT EXISTS leaves an existing table as it was).
 */
const ADDED_COLUMNS: readonly { table: string; column: string; definition: string }[] = [
  { table: 'people', column: 'attribute_times', definition: "TEXT NOT NULL DEFAULT '{}'" },
  { table: 'unsubscribes', column: 'unsubscribed', definition: 'INTEGER NOT NULL DEFAULT 1' },
];

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

export interface ListPage {
  total: number;
  items: unknown[];
}

export class MessagingDatabase {
  readonly #db: SqliteDatabase;
  readonly meta: Meta;
  readonly history: RequestHistory;
  readonly people: PeopleState;
  readonly events: EventsState;
  readonly devices: DevicesState;
  readonly segments: SegmentsState;
  readonly deliveries: DeliveriesState;
  readonly objects: ObjectsState;
  readonly profiles: ProfilesState;
  readonly forms: FormsState;

  constructor(db: SqliteDatabase, options: { identifyBy: IdentifyBy }) {
    this.#db = db;
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
    this.meta = new Meta(db);
    this.history = new RequestHistory(db);
    this.people = new PeopleState(db, options.identifyBy, this.meta, this.history);
    this.events = new EventsState(db, this.people, this.history);
    this.devices = new DevicesState(db, this.people);
    this.segments = new SegmentsState(db, this.people);
    this.deliveries = new DeliveriesState(db, this.people);
    this.objects = new ObjectsState(db, this.people, this.meta, this.history);
    this.profiles = new ProfilesState(db, this);
    this.forms = new FormsState(db, this.people, this.profiles);
  }

  /** Which identifiers people have in this workspace. */
  get identifyBy(): IdentifyBy {
    return this.people.identifyBy;
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
    return this.meta.get('seed') === undefined;
  }

  replaceAll(data: MessagingSeedData): void {
    this.#withoutForeignKeys(() => this.#replaceAll(data));
  }

  /** Seeds with what `build` makes if the database is empty, or always when `reset` (sqlite.ts seedIfEmpty). */
  seedIfEmpty(build: () => MessagingSeedData, reset: boolean): boolean {
    return this.#withoutForeignKeys(() =>
      seedIfEmpty(this.#db, { reset, isEmpty: () => this.isEmpty(), seed: () => this.#replaceAll(build()) }),
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

  #replaceAll(data: MessagingSeedData): void {
    const db = this.#db;
    this.transaction(() => {
      for (const table of TABLES_CHILD_FIRST) db.prepare(`DELETE FROM ${table}`).run();
      // AUTOINCREMENT counters restart too, so a reseed gives the same seq numbers as a fresh start.
      db.prepare('DELETE FROM sqlite_sequence').run();
      this.meta.set('seed', JSON.stringify({ seed: data.seed, scale: data.scale }));
      this.meta.set('next_person', String(data.people.length + 1));
      this.meta.set('next_object', String(data.objects.length + 1));
      this.people.load(data.people);
      this.devices.load(data.devices);
      this.events.load(data.events);
      this.segments.load(data.segments, data.segmentMembers);
      this.deliveries.load(data.deliveries);
      this.objects.load(data.objectTypes, data.objects, data.relationships);
    });
  }

  seedInfo(): { seed: number; scale: number } | undefined {
    const raw = this.meta.get('seed');
    return typeof raw === 'string' ? (JSON.parse(raw) as { seed: number; scale: number }) : undefined;
  }

  // ---- inspection ----------------------------------------------------------------------------------------

  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, spec] of Object.entries(COLLECTIONS)) {
      out[name] = Number(this.#db.prepare(`SELECT COUNT(*) FROM (${spec.from})`).pluck().get());
    }
    return out;
  }

  #filterValue(filter: Filter, raw: string): string | number {
    if (filter.person) return this.people.lookupPerson(raw)?.cioId ?? raw;
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
      const found = this.people.lookupPerson(key);
      if (!found) return undefined;
      const row = this.people.row(found.cioId) as Row;
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
      const found = this.objects.findObject({ object_type_id: type, object_id: rest.join(':') });
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
