/**
 * In-memory ring buffer of the upstream requests an emulator served, for tests and for people watching an agent.
 * Credentials are never kept: only which auth scheme was used, and bodies of paths the emulator marks as carrying
 * credentials (OAuth token requests) are redacted.
 */
import type { MiddlewareHandler } from 'hono';
import { type AuthScheme, parseAuthorization } from './authorization.js';
import { type Clock, systemClock } from './clock.js';
import { type EmulatorEnv, isControlPath } from './env.js';
import type { FaultKind } from './faults.js';

export const REQUEST_LOG_CAPACITY = 5000;
export const MAX_LOGGED_BODY_BYTES = 64 * 1024;

export interface RequestLogEntry {
  seq: number;
  time: string;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  /** Parsed JSON, raw text when not JSON, null when empty; long bodies are cut and kept as text. */
  body: unknown;
  /** 0 when the connection was dropped without an answer. */
  status: number;
  durationMs: number;
  auth: AuthScheme;
  fault?: FaultKind;
  /**
   * The tool call that sent the request, when Switchboard's sandbox console asked its upstream client to say
   * (the `x-switchboard-call-id` header, runtime/callEvents.ts): what joins a logged request to its call.
   */
  callId?: string;
}

export class RequestLog {
  readonly #capacity: number;
  #entries: RequestLogEntry[] = [];
  #nextSeq = 1;

  constructor(capacity: number = REQUEST_LOG_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('RequestLog capacity must be >= 1');
    this.#capacity = capacity;
  }

  record(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const full: RequestLogEntry = { seq: this.#nextSeq++, ...entry };
    this.#entries.push(full);
    // Trim in batches so a full buffer does not shift the array on every request.
    if (this.#entries.length > this.#capacity + Math.ceil(this.#capacity / 10)) {
      this.#entries = this.#entries.slice(this.#entries.length - this.#capacity);
    }
    return full;
  }

  /** Entries with seq greater than `since` (all retained entries when absent), oldest first. */
  since(since = 0): RequestLogEntry[] {
    const kept = this.#entries.length > this.#capacity ? this.#entries.slice(-this.#capacity) : this.#entries;
    return kept.filter((e) => e.seq > since);
  }

  /** Sequence numbers keep rising after a clear, so `since` polling stays valid. */
  clear(): number {
    const n = Math.min(this.#entries.length, this.#capacity);
    this.#entries = [];
    return n;
  }

  get lastSeq(): number {
    return this.#nextSeq - 1;
  }
}

export function summarizeBody(text: string): unknown {
  if (text === '') return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_LOGGED_BODY_BYTES) {
    const cut = Buffer.from(text, 'utf8').subarray(0, MAX_LOGGED_BODY_BYTES).toString('utf8');
    return `${cut}…[truncated, ${bytes} bytes in total]`;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Form fields of an OAuth request that are not secret; every other field's value is logged as [redacted]. */
const NON_SECRET_FORM_FIELDS: ReadonlySet<string> = new Set([
  'grant_type',
  'client_id',
  'redirect_uri',
  'scope',
  'response_type',
  'code_challenge_method',
]);
export const REDACTED = '[redacted]';

/**
 * The body of a request that carries credentials (an OAuth token request: codes, PKCE verifiers, client secrets,
 * refresh tokens), as the log keeps it: a form keeps its field names and only the values of NON_SECRET_FORM_FIELDS;
 * anything else (another content type, odd field names) is reduced to its size.
 */
export function redactCredentialBody(text: string, contentType: string | undefined): string | null {
  if (text === '') return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  const isForm =
    (contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
  if (!isForm || bytes > MAX_LOGGED_BODY_BYTES) return `${REDACTED}, ${bytes} bytes`;
  const parts: string[] = [];
  let dropped = 0;
  for (const [key, value] of new URLSearchParams(text)) {
    // A name that is not a plain parameter name could itself be a pasted secret: count it, never show it.
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(key)) {
      dropped++;
      continue;
    }
    parts.push(`${key}=${NON_SECRET_FORM_FIELDS.has(key) ? encodeURIComponent(value) : REDACTED}`);
  }
  if (dropped > 0) parts.push(`${REDACTED}=${dropped} more field(s)`);
  return parts.join('&');
}

/** A credential-carrying request's query as logged: only NON_SECRET_FORM_FIELDS keep their values. */
function redactQuery(query: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(query)) out[k] = NON_SECRET_FORM_FIELDS.has(k) ? v : REDACTED;
  return out;
}

function flattenQuery(queries: Record<string, string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(queries)) out[k] = v.length === 1 ? (v[0] as string) : v;
  return out;
}

function rawPath(url: string): string {
  const afterScheme = url.indexOf('//');
  const pathStart = url.indexOf('/', afterScheme < 0 ? 0 : afterScheme + 2);
  if (pathStart < 0) return '/';
  const end = url.search(/[?#]/);
  return end < 0 || end < pathStart ? url.slice(pathStart) : url.slice(pathStart, end);
}

/** Sent by Switchboard's upstream client to the sandbox console's emulators only (runtime/callEvents.ts). */
const CALL_ID_HEADER = 'x-switchboard-call-id';

/** A call id as Switchboard makes them (a UUID); anything else a client sends is not kept. */
function callIdOf(header: string | undefined): { callId?: string } {
  return header && /^[0-9a-f-]{36}$/i.test(header) ? { callId: header } : {};
}

/** Records every upstream request (not emulator controls) once its response, or its drop, is known. */
export function requestLogMiddleware(
  log: RequestLog,
  clock: Clock = systemClock,
  /** Paths whose bodies carry credentials: logged through redactCredentialBody. */
  redactBody: (path: string) => boolean = () => false,
): MiddlewareHandler<EmulatorEnv> {
  return async (c, next) => {
    if (isControlPath(c.req.path)) return next();
    const started = performance.now();
    const time = clock.now().toISOString();
    // Reading the text caches it inside Hono, so handlers can still call c.req.json() afterwards.
    const bodyText = c.req.raw.body ? await c.req.text() : '';
    let thrown = false;
    try {
      await next();
    } catch (e) {
      thrown = true;
      throw e;
    } finally {
      const fault = c.get('fault');
      const redact = redactBody(c.req.path);
      const query = flattenQuery(c.req.queries());
      log.record({
        time,
        method: c.req.method,
        // As sent on the wire (still percent-encoded), so tests can check how clients encoded identifiers.
        path: rawPath(c.req.url),
        query: redact ? redactQuery(query) : query,
        body: redact ? redactCredentialBody(bodyText, c.req.header('content-type')) : summarizeBody(bodyText),
        status: fault === 'drop' ? 0 : thrown ? 500 : c.res.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        auth: parseAuthorization(c.req.header('authorization')).scheme,
        ...(fault ? { fault } : {}),
        ...callIdOf(c.req.header(CALL_ID_HEADER)),
      });
    }
  };
}
