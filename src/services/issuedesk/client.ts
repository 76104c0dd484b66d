// The Pylon API as IssueDesk's tools see it: typed calls over the shared UpstreamClient, with Pylon's auth,
// error envelope, per-endpoint rate limits, and bounded walks over cursor-paged lists. Every call names its
// operation in endpoints.ts; method and path come from there.

import { ToolError } from '../../runtime/errors.js';
import { UpstreamClient, type UpstreamRequest } from '../../runtime/http.js';
import type { Operation } from '../../runtime/operation.js';
import {
  type RateBudget,
  type RateLimit,
  RateLimiter,
  type RateLimiterOptions,
} from '../../runtime/rateLimiter.js';
import { registerSecret } from '../../runtime/secrets.js';
import { rateBudget } from '../../runtime/sharedState/rateBudgets.js';
import type { SharedState } from '../../runtime/sharedState/redis.js';
import type { ToolCall } from '../../runtime/tool.js';
import { ISSUEDESK_OPERATIONS } from './endpoints.js';

const OPS = ISSUEDESK_OPERATIONS;

export const DEFAULT_BASE_URL = 'https://api.usepylon.com';
export const TOKEN_ENV = 'ISSUEDESK_API_TOKEN';

/** The limiter's key for a request or an operation: `METHOD /path` with `{param}` placeholders. */
function rateLimitKey(request: { method: string; path: string }): string {
  return `${request.method} ${request.path}`;
}

/**
 * Pylon's published limits per operation (endpoints.ts). A second of slack beyond the interval (under 2% of the
 * throughput): the eleventh call of a burst goes 61 s after the first, so it cannot land inside the upstream's
 * minute even if the first one reached it up to a second late.
 */
const UPSTREAM_RATE_LIMITS: ReadonlyMap<string, RateLimit> = new Map(
  Object.values(OPS).map((operation) => [
    rateLimitKey(operation),
    { ...operation.rateLimit, slackMs: 1_000 },
  ]),
);

/** The limiter the IssueDesk client uses, over Pylon's published limits; options let tests drive its clock. */
export function issueDeskRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  return new RateLimiter(UPSTREAM_RATE_LIMITS, options);
}

/**
 * The budget the client uses by default: the embedded limiter, or with shared state (SWITCHBOARD_REDIS_URL) one
 * budget per endpoint for every replica.
 */
export function issueDeskRateBudget(baseUrl: string, sharedState: SharedState | undefined): RateBudget {
  return sharedState
    ? rateBudget(UPSTREAM_RATE_LIMITS, { service: 'issuedesk', upstream: baseUrl }, sharedState)
    : issueDeskRateLimiter();
}

export interface Page<T> {
  data: T[];
  cursor: string | null;
}

export interface PylonIssue {
  id: string;
  number: number;
  title: string;
  body_html?: string;
  state: string;
  type?: string;
  source?: string;
  link?: string;
  created_at: string;
  updated_at?: string;
  latest_message_time?: string;
  tags?: string[] | null;
  assignee?: { id: string; email?: string } | null;
  requester?: { id: string; email?: string } | null;
  team?: { id: string } | null;
  account?: { id: string } | null;
  custom_fields?: Record<string, unknown> | null;
}

export interface PylonUser {
  id: string;
  name: string;
  email?: string;
  emails?: string[];
  status?: string;
  role_id?: string;
}

export interface PylonTeam {
  id: string;
  name: string;
  users?: { id: string; email?: string }[];
}

export interface PylonContact {
  id: string;
  name?: string;
  email?: string;
  emails?: string[];
  account?: { id: string } | null;
  portal_role?: string;
}

export interface PylonFilter {
  field: string;
  operator: string;
  value?: string;
  values?: string[];
  subfilters?: PylonFilter[];
}

export interface IssueDeskClientOptions {
  baseUrl?: string;
  /** Read per call, so a token set after start-up (or rotated) is used without a restart. */
  token: () => string | undefined;
  /** Apply Pylon's published limits on our side (default on). */
  clientRateLimits?: boolean;
  /** The limiter to use when `clientRateLimits` is on; default `issueDeskRateBudget()`. */
  rateLimiter?: RateBudget;
  /** Replicas' shared state: the per-endpoint budgets are then one for every replica. */
  sharedState?: SharedState;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The page size we ask for when walking a whole list; Pylon allows 1..999 and defaults to 100. */
const WALK_PAGE_SIZE = 100;

/** What a paging walk needs of its tool call: the signal that stops it, the channel it reports pages on. */
export type PagingCall = Pick<ToolCall, 'signal' | 'progress'>;

export class IssueDeskClient {
  readonly http: UpstreamClient;

  constructor(options: IssueDeskClientOptions) {
    const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
    this.http = new UpstreamClient({
      service: 'IssueDesk',
      baseUrl,
      authHeaders: () => {
        const token = options.token();
        if (!token) {
          throw new ToolError({
            kind: 'missing_secret',
            message: `The IssueDesk server has no API token: the ${TOKEN_ENV} secret is not set.`,
            hint: `Set ${TOKEN_ENV} to an API token created by an admin in the issue desk's Settings → API Tokens, then restart the server (or run with --sandbox to use the local emulator).`,
            retryable: false,
          });
        }
        registerSecret(token);
        return { authorization: `Bearer ${token}` };
      },
      parseError: parsePylonError,
      hintFor: pylonHint,
      rateLimitKey,
      ...(options.clientRateLimits === false
        ? {}
        : { rateLimiter: options.rateLimiter ?? issueDeskRateBudget(baseUrl, options.sharedState) }),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  async listIssues(
    window: { start: string; end: string },
    cursor: string | undefined,
    limit: number,
    signal?: AbortSignal,
  ): Promise<Page<PylonIssue>> {
    const response = await this.call(OPS.GetIssues, {
      query: { start_time: window.start, end_time: window.end, cursor, limit },
      ...sig(signal),
    });
    return page<PylonIssue>(response.body);
  }

  async getIssue(idOrNumber: string, field: string, signal?: AbortSignal): Promise<PylonIssue> {
    return this.data(
      await this.call(OPS.GetIssue, {
        params: { id: idOrNumber },
        paramFields: { id: field },
        ...sig(signal),
      }),
    );
  }

  async updateIssue(id: string, changes: Record<string, unknown>, signal?: AbortSignal): Promise<PylonIssue> {
    return this.data(
      await this.call(OPS.UpdateIssue, {
        params: { id },
        body: changes,
        // Setting fields to given values: repeating the same PATCH leaves the same issue.
        idempotent: true,
        ...sig(signal),
      }),
    );
  }

  async addNote(
    idOrNumber: string,
    bodyHtml: string,
    signal?: AbortSignal,
  ): Promise<{ id: string; issue_id: string }> {
    return this.data(
      await this.call(OPS.CreateIssueNote, {
        params: { id: idOrNumber },
        paramFields: { id: 'issue_id' },
        body: { body_html: bodyHtml },
        ...sig(signal),
      }),
    );
  }

  listContacts(
    cursor: string | undefined,
    limit?: number,
    signal?: AbortSignal,
  ): Promise<Page<PylonContact>> {
    return this.listPage<PylonContact>(OPS.GetContacts, cursor, limit, signal);
  }

  async searchContacts(
    filter: PylonFilter,
    cursor: string | undefined,
    signal?: AbortSignal,
  ): Promise<Page<PylonContact>> {
    const response = await this.call(OPS.SearchContacts, {
      body: { filter, ...(cursor ? { cursor } : {}), limit: WALK_PAGE_SIZE },
      // A search changes nothing upstream, so it can be repeated safely.
      idempotent: true,
      ...sig(signal),
    });
    return page<PylonContact>(response.body);
  }

  listUsers(cursor: string | undefined, limit?: number, signal?: AbortSignal): Promise<Page<PylonUser>> {
    return this.listPage<PylonUser>(OPS.GetUsers, cursor, limit, signal);
  }

  listTeams(cursor: string | undefined, limit?: number, signal?: AbortSignal): Promise<Page<PylonTeam>> {
    return this.listPage<PylonTeam>(OPS.GetTeams, cursor, limit, signal);
  }

  /** One page of a plain cursor-paged list (contacts, users, teams). */
  private async listPage<T>(
    operation: Operation,
    cursor: string | undefined,
    limit: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Page<T>> {
    const response = await this.call(operation, {
      query: { cursor, limit },
      ...sig(signal),
    });
    return page<T>(response.body);
  }

  async getTeam(id: string, field: string, signal?: AbortSignal): Promise<PylonTeam> {
    return this.data(
      await this.call(OPS.GetTeam, {
        params: { id },
        paramFields: { id: field },
        ...sig(signal),
      }),
    );
  }

  /**
   * Follows cursors until the list ends or `maxPages` pages were read. Fuzzy matching needs the whole list;
   * the cap keeps one tool call from spending a minute of rate limit on a huge workspace, and `complete` says
   * whether it was reached.
   */
  async walk<T>(
    fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
    maxPages: number,
    call?: PagingCall,
  ): Promise<{ items: T[]; complete: boolean; pages: number }> {
    const items: T[] = [];
    let cursor: string | undefined;
    for (let pages = 1; ; pages++) {
      // A cancelled call asks for no further page, even one whose request would not carry the signal.
      call?.signal.throwIfAborted();
      const next = await fetchPage(cursor);
      items.push(...next.data);
      const last = !next.cursor || pages >= maxPages;
      // The number of pages is known only at the end: until then progress has no total.
      call?.progress?.(pages, last ? pages : undefined, `${pages} pages read (${items.length} items)`);
      if (!next.cursor) return { items, complete: true, pages };
      if (pages >= maxPages) return { items, complete: false, pages };
      cursor = next.cursor;
    }
  }

  walkUsers(call?: PagingCall, maxPages = 20) {
    return this.walk((cursor) => this.listUsers(cursor, WALK_PAGE_SIZE, call?.signal), maxPages, call);
  }

  walkTeams(call?: PagingCall, maxPages = 20) {
    return this.walk((cursor) => this.listTeams(cursor, WALK_PAGE_SIZE, call?.signal), maxPages, call);
  }

  walkContacts(call?: PagingCall, maxPages = 20) {
    return this.walk((cursor) => this.listContacts(cursor, WALK_PAGE_SIZE, call?.signal), maxPages, call);
  }

  /** One request of `operation`; the rest of the request (parameters, query, body, signal) is the caller's. */
  private call(operation: Operation, request: Omit<UpstreamRequest, 'method' | 'path'>) {
    return this.http.request({ method: operation.method, path: operation.path, ...request });
  }

  private data<T>(response: { body: unknown }): T {
    const body = response.body as { data?: T } | undefined;
    if (!body || typeof body !== 'object' || !('data' in body)) {
      throw new ToolError({
        kind: 'upstream_error',
        message: 'IssueDesk upstream answered without the expected `data` envelope.',
        retryable: false,
      });
    }
    return body.data as T;
  }
}

function sig(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal ? { signal } : {};
}

function page<T>(body: unknown): Page<T> {
  const envelope = body as { data?: T[]; pagination?: { cursor?: string | null; has_next_page?: boolean } };
  if (!envelope || !Array.isArray(envelope.data)) {
    throw new ToolError({
      kind: 'upstream_error',
      message: 'IssueDesk upstream answered a list call without a `data` array.',
      retryable: false,
    });
  }
  const more = envelope.pagination?.has_next_page === true && Boolean(envelope.pagination.cursor);
  return { data: envelope.data, cursor: more ? (envelope.pagination?.cursor ?? null) : null };
}

/** Pylon errors: `{ errors: [..], request_id, code? }`. */
export function parsePylonError(_status: number, body: unknown): { message?: string; code?: string } {
  if (body && typeof body === 'object') {
    const { errors, code } = body as { errors?: unknown; code?: unknown };
    const message = Array.isArray(errors) ? errors.map(String).join('; ') : undefined;
    return {
      ...(message ? { message } : {}),
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
  return typeof body === 'string' && body.length > 0 ? { message: body.slice(0, 300) } : {};
}

/** Whether `req` is a request of `operation`. */
function isOperation(req: UpstreamRequest, ...operations: Operation[]): boolean {
  return operations.some((operation) => req.method === operation.method && req.path === operation.path);
}

function pylonHint(kind: string, _status: number, req: UpstreamRequest): string | undefined {
  if (kind === 'unauthorized') {
    return `The issue desk rejected the API token; check ${TOKEN_ENV} (tokens are per region and can be revoked by an admin).`;
  }
  if (
    kind === 'not_found' &&
    isOperation(req, OPS.GetIssue, OPS.UpdateIssue, OPS.CreateIssueNote, OPS.GetIssueMessages)
  ) {
    return 'No issue has that ID or number. Find it with IssueDesk.SearchIssues or IssueDesk.ListIssues.';
  }
  if (kind === 'not_found' && isOperation(req, OPS.GetTeam)) {
    return 'No team has that ID. IssueDesk.ListTeams lists the teams.';
  }
  if (kind === 'invalid_request') {
    // 400 is the issue desk's answer to a value it does not take; its message names the value.
    if (isOperation(req, OPS.UpdateIssue)) {
      return 'The issue desk refused the change; its message names the value. A state must be one of the states it lists (custom status slugs must exist in the workspace); an assignee must be a user ID (IssueDesk.SearchUsers finds it by name). Correct it and call again.';
    }
    if (isOperation(req, OPS.CreateIssueNote)) {
      return 'The issue desk refused the note; its message says why. Correct the body and call again.';
    }
    return 'The issue desk refused the request as invalid; its message names what to change. Correct it and call again (a refused cursor: start the listing again without it).';
  }
  return undefined;
}
