/**
 * Form connections and their submissions. A submission identifies the person it names (as identify does) and
 * is kept with what became of it, applied or the reason it changed nothing.
 */
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import type { JsonObject, Outcome } from '../records.js';
import type { PeopleState } from './people.js';
import type { IdentifyInput, ProfilesState } from './profiles.js';

export const FORMS_SCHEMA = `
CREATE TABLE IF NOT EXISTS forms (
  form_id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, submissions INTEGER NOT NULL,
  last_submitted_at INTEGER
);
CREATE TABLE IF NOT EXISTS form_submissions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, form_id TEXT NOT NULL REFERENCES forms(form_id) ON DELETE CASCADE,
  person TEXT, fields TEXT NOT NULL, outcome TEXT NOT NULL, submitted_at INTEGER NOT NULL
);
`;

export class FormsState {
  readonly #byId;
  readonly #insert;
  readonly #countSubmission;
  readonly #insertSubmission;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly people: PeopleState,
    private readonly profiles: ProfilesState,
  ) {
    this.#byId = db.prepare('SELECT * FROM forms WHERE form_id = ?');
    this.#insert = db.prepare('INSERT INTO forms (form_id, created_at, submissions) VALUES (?, ?, 0)');
    this.#countSubmission = db.prepare(
      'UPDATE forms SET submissions = submissions + 1, last_submitted_at = ? WHERE form_id = ?',
    );
    this.#insertSubmission = db.prepare(`INSERT INTO form_submissions (form_id, person, fields, outcome,
      submitted_at) VALUES (?, ?, ?, ?, ?)`);
  }

  /** True when this call created the form connection. */
  ensureForm(formId: string, now: number): boolean {
    if (this.#byId.get(formId)) return false;
    this.#insert.run(formId, now);
    return true;
  }

  submit(formId: string, input: IdentifyInput, fields: JsonObject, now: number): Outcome {
    return writeTransaction(this.db, () => {
      this.ensureForm(formId, now);
      const outcome = this.profiles.identify(input, now, 'form_submit');
      const person = outcome.applied ? this.people.findPerson(input.ref) : undefined;
      this.#countSubmission.run(now, formId);
      this.#insertSubmission.run(
        formId,
        person?.cioId ?? null,
        JSON.stringify(fields),
        outcome.applied ? 'applied' : outcome.reason,
        now,
      );
      return outcome;
    });
  }
}
