// Shared fixtures for the Airtable emulator tests: a pinned clock, bearer tokens with chosen scopes, small
// request helpers over app.request (no sockets), and lookups of the seeded bases, tables and fields by name.

import { type ManualClock, manualClock } from '../../../../src/emulation/clock.js';
import {
  createStoreEmulator,
  DEFAULT_STORE_TOKEN,
  type StoreEmulator,
  type StoreEmulatorOptions,
} from '../../../../src/services/store/emulator/app.js';
import { type Reply, type RequestOptions, requestApp } from '../../../emulation/request.js';

export const NOW = '2025-06-15T12:00:00.000Z';

/** Tokens every test emulator knows besides the all-scopes one. */
export const READ_ONLY_TOKEN = 'pat_read_only';
export const OAUTH_TOKEN = 'oauth_token_all_scopes';
export const NO_EMAIL_TOKEN = 'pat_no_email';

export type TestEmulator = StoreEmulator & { clock: ManualClock };

export function makeEmulator(options: StoreEmulatorOptions = {}): TestEmulator {
  const clock = manualClock(NOW);
  const emulator = createStoreEmulator({
    clock,
    baseRateLimit: false,
    tokens: [
      { token: READ_ONLY_TOKEN, scopes: ['data.records:read', 'schema.bases:read'] },
      {
        token: OAUTH_TOKEN,
        scopes: ['data.records:read', 'data.records:write', 'schema.bases:read', 'user.email:read'],
      },
      { token: NO_EMAIL_TOKEN, scopes: ['data.records:read'] },
    ],
    ...options,
  });
  return Object.assign(emulator, { clock });
}

export type { Loose, Reply } from '../../../emulation/request.js';

export interface CallOptions extends RequestOptions {
  /** A bearer token; null sends no Authorization header. Defaults to the all-scopes sandbox token. */
  token?: string | null;
}

export function call(
  emulator: StoreEmulator,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply> {
  const token = options.token === undefined ? DEFAULT_STORE_TOKEN : options.token;
  return requestApp(emulator.app, method, path, token === null ? null : `Bearer ${token}`, options);
}

export interface Ids {
  base: string;
  table: string;
  field(name: string): string;
  view(name: string): string;
}

/** Ids of a seeded base and table by name, from the store's schema. */
export function ids(emulator: StoreEmulator, baseName: string, tableName: string): Ids {
  const snapshot = emulator.store.schema();
  const base = snapshot.bases.find((b) => b.name === baseName);
  if (!base) throw new Error(`no base ${baseName}`);
  const table = (snapshot.tablesOfBase.get(base.id) ?? []).find((t) => t.row.name === tableName);
  if (!table) throw new Error(`no table ${tableName}`);
  return {
    base: base.id,
    table: table.row.id,
    field(name) {
      const field = table.fieldByName.get(name);
      if (!field) throw new Error(`no field ${name}`);
      return field.id;
    },
    view(name) {
      const view = table.views.find((v) => v.name === name);
      if (!view) throw new Error(`no view ${name}`);
      return view.id;
    },
  };
}

export function users(emulator: StoreEmulator) {
  return emulator.store.schema().users;
}

export const q = encodeURIComponent;
