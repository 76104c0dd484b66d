/** Segments and their members. Only manual segments change through the API; data-driven ones come seeded. */
import { num, type Row, str } from '../../../../emulation/rows.js';
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import { bareCioId, looksLikeEmail } from '../identifiers.js';
import type { PersonKind, SegmentRecord } from '../records.js';
import type { PeopleState } from './people.js';

export const SEGMENTS_SCHEMA = `
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
`;

export class SegmentsState {
  readonly #byId;
  readonly #insert;
  readonly #addMember;
  readonly #removeMember;
  readonly #copyMemberships;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly people: PeopleState,
  ) {
    this.#byId = db.prepare('SELECT * FROM segments WHERE id = ?');
    this.#insert = db.prepare(
      'INSERT INTO segments (id, name, type, description, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.#addMember = db.prepare(
      'INSERT OR IGNORE INTO segment_members (segment_id, person, added_at) VALUES (?, ?, ?)',
    );
    this.#removeMember = db.prepare('DELETE FROM segment_members WHERE segment_id = ? AND person = ?');
    this.#copyMemberships = db.prepare(`INSERT OR IGNORE INTO segment_members (segment_id, person, added_at)
      SELECT segment_id, ?, added_at FROM segment_members WHERE person = ?`);
  }

  segment(id: number): SegmentRecord | undefined {
    const row = this.#byId.get(id) as Row | undefined;
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
  changeMembers(
    segmentId: number,
    action: 'add' | 'remove',
    idType: PersonKind,
    ids: readonly string[],
    now: number,
  ): { matched: number; changed: number } {
    return writeTransaction(this.db, () => {
      let matched = 0;
      let changed = 0;
      for (const raw of new Set(ids)) {
        if (idType === 'email' && !looksLikeEmail(raw)) continue;
        const found = this.people.findPerson({
          kind: idType,
          value: idType === 'cio_id' ? bareCioId(raw) : raw,
        });
        if (!found) continue;
        matched++;
        const result =
          action === 'add'
            ? this.#addMember.run(segmentId, found.cioId, now)
            : this.#removeMember.run(segmentId, found.cioId);
        changed += Number(result?.changes ?? 0);
      }
      return { matched, changed };
    });
  }

  /** `to` joins every segment `from` is in (a merge moves manual segment memberships). */
  copyMemberships(to: string, from: string): void {
    this.#copyMemberships.run(to, from);
  }

  load(
    segments: readonly SegmentRecord[],
    members: readonly { segmentId: number; person: string; addedAt: number }[],
  ): void {
    for (const seg of segments) this.#insert.run(seg.id, seg.name, seg.type, seg.description, seg.createdAt);
    for (const m of members) this.#addMember.run(m.segmentId, m.person, m.addedAt);
  }
}
