// Shared fixtures for the issue-desk emulator tests: a pinned clock and a small request helper over app.request.
import { manualClock } from '../../../../src/emulation/clock.js';
import {
  createIssueDeskEmulator,
  DEFAULT_ISSUEDESK_TOKEN,
  type IssueDeskEmulator,
  type IssueDeskEmulatorOptions,
} from '../../../../src/services/issuedesk/emulator/app.js';

export const NOW = '2025-06-15T12:00:00Z';
export const NOW_MS = Date.parse(NOW);
export const DAY = 24 * 60 * 60 * 1000;

export function makeEmulator(options: IssueDeskEmulatorOptions = {}): IssueDeskEmulator {
  return createIssueDeskEmulator({ clock: manualClock(NOW), ...options });
}

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

// Loose JSON for assertions: tests read the fields they check.
// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field, not typed.
export type Loose = any;

export async function call(
  emulator: IssueDeskEmulator,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; token?: string | null; headers?: Record<string, string> } = {},
): Promise<Reply<Loose>> {
  const token = options.token === undefined ? DEFAULT_ISSUEDESK_TOKEN : options.token;
  const headers: Record<string, string> = { ...(token === null ? {} : { authorization: `Bearer ${token}` }) };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await emulator.app.request(path, { method, headers: { ...headers, ...options.headers }, body });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text), headers: res.headers };
}

export function windowQuery(startMs: number, endMs: number, extra = ''): string {
  return `/issues?start_time=${new Date(startMs).toISOString()}&end_time=${new Date(endMs).toISOString()}${extra}`;
}
