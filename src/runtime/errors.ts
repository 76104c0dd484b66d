// Errors as values with a kind. Every failure that reaches an agent is a ToolError: it says what went wrong,
// whether trying again can help, and what to do next. Layers never throw bare strings at each other.

export type ErrorKind =
  | 'invalid_arguments' // the caller's arguments do not fit the tool; fix them and call again
  | 'missing_secret' // the server is not configured with the credential this tool needs
  | 'unauthorized' // upstream rejected the credential (401)
  | 'forbidden' // upstream refused the action for this credential (403)
  | 'not_found' // upstream has no such object (404)
  | 'invalid_request' // upstream refused the request as invalid (400, 413, 414, 422): fix what it names and call again
  | 'conflict' // upstream refused because of the object's current state (409)
  | 'rate_limited' // upstream or our own limiter said slow down (429)
  | 'upstream_unavailable' // 5xx from upstream
  | 'timeout' // no answer in time
  | 'network' // connection failed or was dropped
  | 'outcome_unknown' // a call that is not safe to repeat failed after it was sent: it may have taken effect
  | 'declined' // the user, asked through the client (elicitation), declined the call: nothing was done
  | 'upstream_error' // any other upstream 4xx
  | 'internal'; // a bug on our side; details are logged, not returned

export interface ToolErrorInit {
  kind: ErrorKind;
  message: string;
  hint?: string;
  status?: number;
  upstreamMessage?: string;
  upstreamCode?: string;
  retryable?: boolean;
  retryAfterSeconds?: number;
  /** Field-level problems, for invalid_arguments. */
  issues?: ArgumentIssue[];
  cause?: unknown;
}

export interface ArgumentIssue {
  field: string;
  problem: string;
}

const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorKind> = new Set([
  'rate_limited',
  'upstream_unavailable',
  'timeout',
  'network',
]);

export class ToolError extends Error {
  private readonly init: ToolErrorInit;
  readonly kind: ErrorKind;
  readonly hint: string | undefined;
  readonly status: number | undefined;
  readonly upstreamMessage: string | undefined;
  readonly upstreamCode: string | undefined;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly issues: ArgumentIssue[] | undefined;

  constructor(init: ToolErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ToolError';
    this.init = init;
    this.kind = init.kind;
    this.hint = init.hint;
    this.status = init.status;
    this.upstreamMessage = init.upstreamMessage;
    this.upstreamCode = init.upstreamCode;
    this.retryable = init.retryable ?? RETRYABLE_BY_DEFAULT.has(init.kind);
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.issues = init.issues;
  }

  /** A copy with some fields replaced: errors are values, so later layers refine them instead of mutating. */
  with(changes: Partial<ToolErrorInit>): ToolError {
    return new ToolError({ ...this.init, ...changes });
  }

  /** A copy whose texts for the agent (message, hint, issue problems) went through `rewrite`. */
  mapText(rewrite: (text: string) => string): ToolError {
    return this.with({
      message: rewrite(this.message),
      ...(this.hint !== undefined ? { hint: rewrite(this.hint) } : {}),
      ...(this.issues
        ? { issues: this.issues.map((issue) => ({ ...issue, problem: rewrite(issue.problem) })) }
        : {}),
    });
  }

  /** The JSON an agent sees. Only fields that carry information are present. */
  toJSON(): Record<string, unknown> {
    return dropUndefined({
      kind: this.kind,
      message: this.message,
      status: this.status,
      upstream_message: this.upstreamMessage,
      upstream_code: this.upstreamCode,
      retryable: this.retryable,
      retry_after_seconds: this.retryAfterSeconds,
      issues: this.issues,
      hint: this.hint,
    });
  }
}

export function invalidArguments(message: string, issues: ArgumentIssue[], hint?: string): ToolError {
  return new ToolError({ kind: 'invalid_arguments', message, issues, ...(hint ? { hint } : {}) });
}

export function isToolError(value: unknown): value is ToolError {
  return value instanceof ToolError;
}

export function dropUndefined<T extends Record<string, unknown>>(obj: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) if (value !== undefined) out[key] = value;
  return out as Partial<T>;
}
