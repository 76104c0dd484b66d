/**
 * People and suppressed identifiers: finding a person by any identifier the workspace uses, creating one where
 * the upstream does (named by id or email, never by cio_id, never a suppressed identifier), deleting,
 * suppressing and unsuppressing. The writes that span a whole profile (identify, merge) are in profiles.ts.
 */
import { err, ok, type Result } from '../../../../emulation/result.js';
import { num, parseJsonObject, type Row, str, strOrNull } from '../../../../emulation/rows.js';
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import {
  bareCioId,
  describeRef,
  emailKey,
  identifierKinds,
  looksLikeEmail,
  usesKind,
} from '../identifiers.js';
import type { IdentifyBy, Outcome, PersonRecord, PersonRef, SeedPerson } from '../records.js';
import type { RequestHistory } from './history.js';
import type { Meta } from './meta.js';

export const PEOPLE_SCHEMA = `
CREATE TABLE IF NOT EXISTS people (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, cio_id TEXT NOT NULL UNIQUE, id TEXT, email TEXT, email_key TEXT,
  attributes TEXT NOT NULL, attribute_times TEXT NOT NULL DEFAULT '{}', created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS people_by_id ON people(id);
CREATE INDEX IF NOT EXISTS people_by_email ON people(email_key);
CREATE TABLE IF NOT EXISTS suppressions (
  kind TEXT NOT NULL, value TEXT NOT NULL, cio_id TEXT, suppressed_at INTEGER NOT NULL,
  PRIMARY KEY (kind, value)
);
`;

/**
 * People by their `anonymous_id` attribute, which ties anonymous events to them; created after the added columns
 * (database.ts) so that an older file is brought up to date first. The lookup must use this exact expression to
 * use the index.
 */
export const ANONYMOUS_ID_INDEX = `CREATE INDEX IF NOT EXISTS people_by_anonymous_id
  ON people(json_extract(attributes, '$.anonymous_id'))`;

/** cio_ids look like the upstream's example "a3000001": hex, from a counter, so runs are reproducible. */
const CIO_ID_BASE = 0xa3000000;

export function cioIdFor(n: number): string {
  return (CIO_ID_BASE + n).toString(16);
}

function parseTimes(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, time] of Object.entries(parseJsonObject(value))) {
    if (typeof time === 'number') out[key] = time;
  }
  return out;
}

function toPerson(row: Row): PersonRecord {
  return {
    cioId: str(row, 'cio_id'),
    id: strOrNull(row, 'id'),
    email: strOrNull(row, 'email'),
    attributes: parseJsonObject(row.attributes),
    attributeTimes: parseTimes(row.attribute_times),
    createdAt: num(row, 'created_at'),
    updatedAt: num(row, 'updated_at'),
  };
}

function prepare(db: SqliteDatabase) {
  const p = (sql: string) => db.prepare(sql);
  return {
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
  };
}

export class PeopleState {
  readonly #s: ReturnType<typeof prepare>;

  constructor(
    private readonly db: SqliteDatabase,
    readonly identifyBy: IdentifyBy,
    private readonly meta: Meta,
    private readonly history: RequestHistory,
  ) {
    this.#s = prepare(db);
  }

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

  /** The person's row as stored, for inspection views. */
  row(cioId: string): Row | undefined {
    return this.#s.personByCio.get(cioId) as Row | undefined;
  }

  /** The person whose `anonymous_id` attribute is this value, if any. */
  personByAnonymousId(anonymousId: string): PersonRecord | undefined {
    const row = this.#s.personByAnonymousId.get(anonymousId) as Row | undefined;
    return row ? toPerson(row) : undefined;
  }

  isSuppressed(ref: PersonRef): boolean {
    if (ref.kind === 'cio_id') return false;
    const value = ref.kind === 'email' ? emailKey(ref.value) : ref.value;
    return this.#s.suppression.get(ref.kind, value) !== undefined;
  }

  save(p: PersonRecord): void {
    this.#s.updatePerson.run({
      cio_id: p.cioId,
      id: p.id,
      email: p.email,
      email_key: p.email === null ? null : emailKey(p.email),
      attributes: JSON.stringify(p.attributes),
      attribute_times: JSON.stringify(p.attributeTimes),
      created_at: p.createdAt,
      updated_at: p.updatedAt,
    });
  }

  create(ref: PersonRef, now: number): PersonRecord {
    let cioId = cioIdFor(this.meta.next('next_person'));
    // A reopened file may hold people created under other counters; never reuse a cio_id.
    while (this.#s.personByCio.get(cioId)) cioId = cioIdFor(this.meta.next('next_person'));
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

  /**
   * The person a write is about, created when named by id or email (as the upstream does for identify,
   * events and devices), never when named by cio_id, and never for a suppressed identifier. A write that must
   * not happen comes back as the dropped Outcome, already recorded.
   */
  resolveForWrite(ref: PersonRef, now: number, operation: string): Result<PersonRecord, Outcome> {
    if (this.isSuppressed(ref)) {
      return err(this.history.drop(operation, 'suppressed', now, { identifier: describeRef(ref) }));
    }
    const found = this.findPerson(ref);
    if (found) return ok(found);
    if (ref.kind === 'cio_id') {
      return err(this.history.drop(operation, 'cio_id_not_found', now, { identifier: describeRef(ref) }));
    }
    return ok(this.create(ref, now));
  }

  /** Deletes the person and everything hanging off them. False when nobody matched (upstream still says 200). */
  deletePerson(ref: PersonRef): boolean {
    const found = this.findPerson(ref);
    if (!found) return false;
    this.#s.deletePerson.run(found.cioId);
    return true;
  }

  /** Deletes by cio_id, which every person has whatever the workspace's identifiers. */
  deleteByCioId(cioId: string): void {
    this.#s.deletePerson.run(cioId);
  }

  /**
   * Deletes the profile and blocks its identifiers: both id and email when the workspace uses both and the
   * person had both. An unknown id or email is blocked too, so it cannot be added later.
   */
  suppress(ref: PersonRef, now: number): Outcome {
    return writeTransaction(this.db, () => {
      const found = this.findPerson(ref);
      if (!found) {
        if (ref.kind === 'cio_id')
          return this.history.drop('suppress', 'cio_id_not_found', now, { identifier: describeRef(ref) });
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
    return writeTransaction(this.db, () => {
      if (ref.kind === 'cio_id') return Number(this.#s.deleteSuppressionsOf.run(ref.value).changes);
      const value = ref.kind === 'email' ? emailKey(ref.value) : ref.value;
      const row = this.#s.suppression.get(ref.kind, value) as Row | undefined;
      if (!row) return 0;
      if (row.cio_id !== null) return Number(this.#s.deleteSuppressionsOf.run(row.cio_id).changes);
      return Number(this.#s.deleteSuppression.run(ref.kind, value).changes);
    });
  }

  /** Seed rows, written as they are (seed data is consistent by construction). */
  load(people: readonly SeedPerson[]): void {
    for (const p of people) {
      this.#s.insertPerson.run({
        cio_id: p.cioId,
        id: p.id,
        email: p.email,
        email_key: emailKey(p.email),
        attributes: JSON.stringify(p.attributes),
        created_at: p.createdAt,
        updated_at: p.createdAt,
      });
    }
  }
}
