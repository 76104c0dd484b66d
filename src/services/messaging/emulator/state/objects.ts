/**
 * Objects (companies, courses... of the workspace's object types) and their relationships to people, or to
 * anonymous visitors until those are identified. Like people, an object named by type and id is created on first
 * use; one named by cio_object_id is not.
 */
import { err, ok, type Result } from '../../../../emulation/result.js';
import { num, parseJsonObject, type Row, str } from '../../../../emulation/rows.js';
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import type {
  JsonObject,
  ObjectRecord,
  ObjectRef,
  ObjectTypeRecord,
  Outcome,
  PersonRef,
  RelationshipRecord,
} from '../records.js';
import { mergeAttributes } from './attributes.js';
import type { RequestHistory } from './history.js';
import type { Meta } from './meta.js';
import type { PeopleState } from './people.js';

export const OBJECTS_SCHEMA = `
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
`;

const CIO_OBJECT_ID_BASE = 0xb1000000;

export function cioObjectIdFor(n: number): string {
  return (CIO_OBJECT_ID_BASE + n).toString(16);
}

function toObject(row: Row): ObjectRecord {
  return {
    cioObjectId: str(row, 'cio_object_id'),
    objectTypeId: str(row, 'object_type_id'),
    objectId: str(row, 'object_id'),
    attributes: parseJsonObject(row.attributes),
    createdAt: num(row, 'created_at'),
    updatedAt: num(row, 'updated_at'),
  };
}

function prepare(db: SqliteDatabase) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insertType: p('INSERT INTO object_types (id, name) VALUES (?, ?)'),
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
  };
}

export class ObjectsState {
  readonly #s: ReturnType<typeof prepare>;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly people: PeopleState,
    private readonly meta: Meta,
    private readonly history: RequestHistory,
  ) {
    this.#s = prepare(db);
  }

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
  #resolveForWrite(ref: ObjectRef, now: number, operation: string): Result<ObjectRecord, Outcome> {
    const found = this.findObject(ref);
    if (found) return ok(found);
    if ('cio_object_id' in ref) {
      return err(
        this.history.drop(operation, 'cio_object_id_not_found', now, { cio_object_id: ref.cio_object_id }),
      );
    }
    let cioObjectId = cioObjectIdFor(this.meta.next('next_object'));
    while (this.#s.objectByCio.get(cioObjectId)) cioObjectId = cioObjectIdFor(this.meta.next('next_object'));
    this.#s.insertObject.run(cioObjectId, ref.object_type_id, ref.object_id, '{}', now, now);
    return ok({
      cioObjectId,
      objectTypeId: ref.object_type_id,
      objectId: ref.object_id,
      attributes: {},
      createdAt: now,
      updatedAt: now,
    });
  }

  /** The object as it is after the update, or the dropped Outcome when it must not be created. */
  identify(ref: ObjectRef, attributes: JsonObject, now: number): Result<ObjectRecord, Outcome> {
    return writeTransaction(this.db, () => {
      const target = this.#resolveForWrite(ref, now, 'object_identify');
      if (!target.ok) return target;
      const merged = mergeAttributes(target.value.attributes, attributes);
      this.#s.updateObject.run(JSON.stringify(merged), now, target.value.cioObjectId);
      return ok({ ...target.value, attributes: merged, updatedAt: now });
    });
  }

  delete(ref: ObjectRef): boolean {
    const found = this.findObject(ref);
    if (!found) return false;
    this.#s.deleteObject.run(found.cioObjectId);
    return true;
  }

  #upsertRelationship(
    existing: Row | undefined,
    person: string | null,
    anonymousId: string | null,
    cioObjectId: string,
    attributes: JsonObject | undefined,
    now: number,
  ): void {
    if (existing) {
      const merged = mergeAttributes(parseJsonObject(existing.attributes), attributes ?? {});
      this.#s.updateRelationship.run(JSON.stringify(merged), now, existing.seq);
    } else {
      const fresh = mergeAttributes({}, attributes ?? {});
      this.#s.insertRelationship.run(person, anonymousId, cioObjectId, JSON.stringify(fresh), now, now);
    }
  }

  /** Relates a person and an object, creating either when named by its natural key; merges the attributes. */
  relate(
    personRef: PersonRef,
    objectRef: ObjectRef,
    attributes: JsonObject | undefined,
    now: number,
    operation: string,
  ): Outcome {
    return writeTransaction(this.db, () => {
      const who = this.people.resolveForWrite(personRef, now, operation);
      if (!who.ok) return who.error;
      const what = this.#resolveForWrite(objectRef, now, operation);
      if (!what.ok) return what.error;
      const { cioId } = who.value;
      const { cioObjectId } = what.value;
      const existing = this.#s.relationshipOfPerson.get(cioId, cioObjectId) as Row | undefined;
      this.#upsertRelationship(existing, cioId, null, cioObjectId, attributes, now);
      return { applied: true };
    });
  }

  unrelate(personRef: PersonRef, objectRef: ObjectRef): boolean {
    const who = this.people.findPerson(personRef);
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
    return writeTransaction(this.db, () => {
      const owner = this.people.personByAnonymousId(anonymousId);
      if (owner) {
        const ref: PersonRef = { kind: 'cio_id', value: owner.cioId };
        return this.relate(ref, objectRef, attributes, now, 'object_identify_anonymous');
      }
      const what = this.#resolveForWrite(objectRef, now, 'object_identify_anonymous');
      if (!what.ok) return what.error;
      const { cioObjectId } = what.value;
      const existing = this.#s.relationshipOfAnonymous.get(anonymousId, cioObjectId) as Row | undefined;
      this.#upsertRelationship(existing, null, anonymousId, cioObjectId, attributes, now);
      return { applied: true };
    });
  }

  /** The visitor's anonymous relationships become the person's, merged into any they already have. */
  claimAnonymous(cioId: string, anonymousId: string, now: number): void {
    for (const row of this.#s.anonymousRelationships.all(anonymousId) as Row[]) {
      const existing = this.#s.relationshipOfPerson.get(cioId, row.cio_object_id) as Row | undefined;
      if (existing) {
        const merged = mergeAttributes(parseJsonObject(existing.attributes), parseJsonObject(row.attributes));
        this.#s.updateRelationship.run(JSON.stringify(merged), now, existing.seq);
        this.#s.deleteRelationship.run(row.seq);
      } else {
        this.#s.claimRelationship.run(cioId, now, row.seq);
      }
    }
  }

  load(
    types: readonly ObjectTypeRecord[],
    objects: readonly Omit<ObjectRecord, 'updatedAt'>[],
    relationships: readonly RelationshipRecord[],
  ): void {
    for (const t of types) this.#s.insertType.run(t.id, t.name);
    for (const o of objects) {
      const attributes = JSON.stringify(o.attributes);
      this.#s.insertObject.run(
        o.cioObjectId,
        o.objectTypeId,
        o.objectId,
        attributes,
        o.createdAt,
        o.createdAt,
      );
    }
    for (const r of relationships) {
      const attributes = JSON.stringify(r.attributes);
      this.#s.insertRelationship.run(r.person, null, r.cioObjectId, attributes, r.createdAt, r.createdAt);
    }
  }
}
