/**
 * Airtable-shaped identifiers: a three-letter prefix and 14 alphanumerics (`appXXXXXXXXXXXXXX`). They are derived
 * from the seed and a running counter, so a seeded dataset, and every object created after it, gets the same ids
 * on every run with the same seed and the same requests.
 */
import { createHash } from 'node:crypto';

export const ID_PREFIX = {
  base: 'app',
  table: 'tbl',
  field: 'fld',
  view: 'viw',
  record: 'rec',
  comment: 'com',
  attachment: 'att',
  user: 'usr',
  workspace: 'wsp',
  choice: 'sel',
  iterator: 'itr',
  webhook: 'ach',
  enterpriseAccount: 'ent',
  userGroup: 'ugp',
  invite: 'inv',
  share: 'shr',
  interface: 'pbd',
  blockInstallation: 'bli',
  auditLogTask: 'alt',
  export: 'ett',
  dataTable: 'dtb',
  auditEvent: 'aev',
  changeEvent: 'ace',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const ID_BODY_LENGTH = 14;

/** The id of the n-th object minted under `seed`; the prefix is part of the hash so kinds never share a body. */
export function deriveId(kind: IdKind, seed: number, n: number): string {
  const prefix = ID_PREFIX[kind];
  const digest = createHash('sha256').update(`${seed}:${prefix}:${n}`).digest();
  let body = '';
  // 14 base-62 digits from 14 bytes: the small modulo bias is irrelevant for identifiers.
  for (let i = 0; i < ID_BODY_LENGTH; i++) body += ALPHABET[(digest[i] ?? 0) % ALPHABET.length];
  return prefix + body;
}

const ID_SHAPE = /^[a-z]{3}[A-Za-z0-9]{14}$/;

export function looksLikeId(kind: IdKind, value: string): boolean {
  return value.startsWith(ID_PREFIX[kind]) && ID_SHAPE.test(value);
}

/**
 * Mints ids from a seed and an in-memory counter: for building a seed in one go. Once the seed is laid down, the
 * store draws ids from the counter row in its database (StoreDatabase.newId), which every process sharing it advances.
 */
export class IdMinter {
  #next: number;

  constructor(
    readonly seed: number,
    next = 0,
  ) {
    this.#next = next;
  }

  get counter(): number {
    return this.#next;
  }

  next(kind: IdKind): string {
    return deriveId(kind, this.seed, this.#next++);
  }
}
