// Shared fixtures for the Track API emulator tests: a pinned clock, Basic auth, and small request helpers over
// app.request (no sockets), returning status, parsed body and headers.

import { type ManualClock, manualClock } from '../../../../src/emulation/clock.js';
import {
  createMessagingEmulator,
  DEFAULT_MESSAGING_API_KEY,
  DEFAULT_MESSAGING_SITE_ID,
  type MessagingEmulator,
  type MessagingEmulatorOptions,
} from '../../../../src/services/messaging/emulator/app.js';
import { type Loose, type Reply, type RequestOptions, requestApp } from '../../../emulation/request.js';

export const NOW = '2025-06-15T12:00:00Z';
export const NOW_S = Date.parse(NOW) / 1000;
export const DAY_S = 24 * 60 * 60;

export function basic(siteId: string, apiKey: string): string {
  return `Basic ${Buffer.from(`${siteId}:${apiKey}`, 'utf8').toString('base64')}`;
}

export const AUTH = basic(DEFAULT_MESSAGING_SITE_ID, DEFAULT_MESSAGING_API_KEY);

export interface Fixture {
  emulator: MessagingEmulator;
  clock: ManualClock;
}

export function makeEmulator(
  options: MessagingEmulatorOptions = {},
): MessagingEmulator & { clock: ManualClock } {
  const clock = manualClock(NOW);
  const emulator = createMessagingEmulator({ clock, scale: 40, ...options });
  return Object.assign(emulator, { clock });
}

export type { Loose, Reply } from '../../../emulation/request.js';

export interface CallOptions extends RequestOptions {
  /** An Authorization header value; null sends none. Defaults to the sandbox credentials. */
  auth?: string | null;
}

export function call(
  emulator: MessagingEmulator,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply> {
  return requestApp(emulator.app, method, path, options.auth === undefined ? AUTH : options.auth, options);
}

/** A control-API read: /_emulator/state/<collection>[?query] items, or one item. */
export async function state(emulator: MessagingEmulator, collection: string, query = ''): Promise<Loose[]> {
  const res = await call(emulator, 'GET', `/_emulator/state/${collection}${query ? `?${query}` : ''}`);
  if (res.status !== 200) throw new Error(`state ${collection}: ${res.status} ${res.text}`);
  return res.body.items;
}

export async function item(
  emulator: MessagingEmulator,
  collection: string,
  key: string,
): Promise<Loose | null> {
  const res = await call(emulator, 'GET', `/_emulator/state/${collection}/${encodeURIComponent(key)}`);
  return res.status === 200 ? res.body : null;
}

export function person(emulator: MessagingEmulator, key: string): Promise<Loose | null> {
  return item(emulator, 'people', key);
}

/** A string of exactly `bytes` UTF-8 bytes; with `multiByte`, made of 2-byte characters (plus one 'a' if odd). */
export function ofBytes(bytes: number, multiByte = false): string {
  if (!multiByte) return 'x'.repeat(bytes);
  return 'é'.repeat(Math.floor(bytes / 2)) + (bytes % 2 === 1 ? 'a' : '');
}
