// The console API as the page sees it: the shapes and paths of the contract between the page and the server
// (src/console: the server side). Every request goes to the page's own origin; nothing else is ever fetched.

import type { CallOutcomeShown, ConsoleCall, ConsoleUpstream } from '../../timelineTypes.js';

export type Outcome = CallOutcomeShown;
export const OUTCOMES: readonly Outcome[] = ['running', 'ok', 'tool_error', 'protocol_error', 'cancelled'];
export type Upstream = ConsoleUpstream;
export type Call = ConsoleCall;

export interface Info {
  processOnly: boolean;
  note: string;
  servers: { prefix: string; title: string; service: string; toolCount: number }[];
  emulators: { service: string; title: string; url: string }[];
  feedCapacity: number;
}

export interface StateSummary {
  emulators: { service: string; collections: { name: string; count: number }[] }[];
}

export interface StateTable {
  columns: string[];
  rows: { id: string; values: Record<string, unknown>; changed: boolean }[];
  marker: string;
  /** Rows in the collection; `rows` holds the first of them. */
  total?: number;
  /** False when the marker does not cover this collection: then nothing is marked. */
  markerCovers?: boolean;
}

export interface FaultField {
  name: string;
  /** `string`, `integer` or `enum`. */
  type: string;
  description?: string;
  /** The allowed values of an `enum` field. */
  choices?: string[];
  required?: boolean;
}

export interface FaultKind {
  kind: string;
  fields: FaultField[];
}

export type FaultRule = Record<string, unknown> & { kind: string };

export interface RateLimitConfig {
  enabled: boolean;
  mode: string;
  windowSeconds?: number;
  limits: Record<string, number>;
  defaultLimit?: number;
  penaltyMs?: number;
}

/** A setting of a limit the upstream itself enforces (src/console/controls.ts UpstreamLimitField). */
export interface UpstreamLimitField {
  name: string;
  type: string;
  label: string;
  description?: string;
  min?: number;
  max?: number;
}

/** The emulator's own answer for that limit: its settings, plus what it holds now (the store: penalized bases). */
export type UpstreamLimitSettings = Record<string, unknown>;

export interface UpstreamLimit {
  name: string;
  title: string;
  /** What the real upstream enforces, in words. */
  upstream: string;
  fields: UpstreamLimitField[];
  settings: UpstreamLimitSettings;
}

export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  schemaMode: boolean;
}

export interface CallToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface RunResponse {
  callId: string;
  result: CallToolResult;
}

export const EVENTS_PATH = '/console/api/events';

// A protected server (SWITCHBOARD_HTTP_TOKEN, or per-user sign-in) wants on every /console/api request the same
// `Authorization: Bearer` as /mcp. The person gives it once; it is kept for this tab only (sessionStorage: gone
// when the tab closes, never written to disk by the page) and never shown again.
const TOKEN_KEY = 'switchboard-console-token';

export function accessToken(): string | undefined {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function setAccessToken(token: string | undefined): void {
  if (token === undefined || token === '') sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** The server refused the request for want of (the right) bearer token. */
export class AuthorizationNeeded extends Error {}

export function authorizationHeader(): Record<string, string> {
  const token = accessToken();
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** The message of a failed console API request: the server's own words when it sent some. */
async function failure(response: Response): Promise<Error> {
  let message = `${response.status} ${response.statusText}`.trim();
  try {
    const body = (await response.json()) as { error?: { message?: unknown } | string };
    const said = typeof body.error === 'string' ? body.error : body.error?.message;
    if (typeof said === 'string' && said !== '') message = said;
  } catch {
    // Not JSON: the status line is all there is to say.
  }
  return new Error(message);
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...authorizationHeader() };
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(path, init);
  if (response.status === 401) {
    authorizationListener?.();
    throw new AuthorizationNeeded('This server wants the bearer token it was given for /mcp.');
  }
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

let authorizationListener: (() => void) | undefined;

/** Called whenever the server answers 401: the page then asks for the token. */
export function onAuthorizationNeeded(listener: () => void): void {
  authorizationListener = listener;
}

const emulatorPath = (service: string, what: string) =>
  `/console/api/emulators/${encodeURIComponent(service)}/${what}`;

export const api = {
  info: () => request<Info>('GET', '/console/api/info'),
  clearEvents: () => request<{ cleared: number }>('DELETE', EVENTS_PATH),
  state: () => request<StateSummary>('GET', '/console/api/state'),
  stateTable: (service: string, collection: string, changedSince: string | undefined) =>
    request<StateTable>(
      'GET',
      `/console/api/state/${encodeURIComponent(service)}/${encodeURIComponent(collection)}` +
        (changedSince === undefined ? '' : `?changedSince=${encodeURIComponent(changedSince)}`),
    ),
  mark: () => request<{ marker: string }>('POST', '/console/api/state/mark'),
  faultKinds: (service: string) =>
    request<{ kinds: FaultKind[] }>('GET', emulatorPath(service, 'fault-kinds')),
  faults: (service: string) => request<{ rules: FaultRule[] }>('GET', emulatorPath(service, 'faults')),
  /** Adds after the active rules, which keep what is left of their counts (the emulator appends, in one step). */
  addFaults: (service: string, rules: FaultRule[]) =>
    request<{ rules: FaultRule[] }>('POST', emulatorPath(service, 'faults'), { rules }),
  clearFaults: (service: string) =>
    request<{ rules: FaultRule[] }>('DELETE', emulatorPath(service, 'faults')),
  rateLimits: (service: string) => request<RateLimitConfig>('GET', emulatorPath(service, 'rate-limits')),
  setRateLimits: (
    service: string,
    update: { enabled: boolean; mode?: string; limits?: Record<string, number> },
  ) => request<RateLimitConfig>('PUT', emulatorPath(service, 'rate-limits'), update),
  upstreamLimits: (service: string) =>
    request<{ limits: UpstreamLimit[] }>('GET', emulatorPath(service, 'upstream-limits')),
  setUpstreamLimit: (service: string, name: string, update: UpstreamLimitSettings) =>
    request<UpstreamLimitSettings>(
      'PUT',
      emulatorPath(service, `upstream-limits/${encodeURIComponent(name)}`),
      update,
    ),
  clearUpstreamLimit: (service: string, name: string) =>
    request<UpstreamLimitSettings>(
      'DELETE',
      emulatorPath(service, `upstream-limits/${encodeURIComponent(name)}`),
    ),
  reset: (service: string, seed: number | undefined) =>
    request<unknown>('POST', emulatorPath(service, 'reset'), seed === undefined ? {} : { seed }),
  tools: () => request<{ tools: ToolInfo[] }>('GET', '/console/api/tools'),
  run: (tool: string, args: Record<string, unknown>) =>
    request<RunResponse>('POST', '/console/api/run', { tool, arguments: args }),
};

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
