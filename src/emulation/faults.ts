/**
 * Switchable faults for reliability tests: added latency, error statuses, 429s with Retry-After and dropped
 * connections, applied to upstream paths before authentication (like a failing gateway would). With
 * `when: "after"` the request is handled first, its effect applied, and only then is the answer delayed,
 * replaced by the error status or cut off: the "it happened, but the caller was told it failed" case that
 * decides whether a client may safely send a write again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { formatZodIssues } from '../text/zodIssues.js';
import { type EmulatorEnv, type ErrorBodyFn, isControlPath } from './env.js';
import { err, ok, type Result } from './result.js';
import { compilePathPattern, type PathMatcher } from './routePattern.js';

export const FAULT_KINDS = ['latency', 'error', 'rate_limit', 'drop'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FaultRuleSchema = z
  .object({
    method: z.string().min(1).optional(),
    path: z.string().startsWith('/', 'must start with "/"').optional(),
    kind: z.enum(FAULT_KINDS),
    latencyMs: z.number().int().min(0).max(120_000).optional(),
    status: z.number().int().min(400).max(599).optional(),
    retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
    times: z.number().int().min(1).optional(),
    /** before (default): instead of handling the request; after: once it was handled and its effect applied. */
    when: z.enum(['before', 'after']).optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if (rule.kind === 'latency' && rule.latencyMs === undefined) {
      ctx.addIssue({ code: 'custom', path: ['latencyMs'], message: 'required when kind is "latency"' });
    }
    if (rule.kind === 'rate_limit' && rule.when === 'after') {
      // A 429 tells the client the request was refused unprocessed; after the effect it would be a lie no
      // upstream tells, and clients rightly repeat such requests.
      ctx.addIssue({
        code: 'custom',
        path: ['when'],
        message:
          'a rate_limit fault refuses the request, so it cannot come "after"; use kind "error" or "drop"',
      });
    }
  });

export type FaultRule = z.infer<typeof FaultRuleSchema>;

export const FaultRulesBodySchema = z.object({ rules: z.array(FaultRuleSchema) }).strict();

/** A rule as reported back: `times` is what is left of it. */
export interface ActiveFaultRule extends FaultRule {
  index: number;
}

export function parseFaultRules(body: unknown): Result<FaultRule[], string> {
  const parsed = FaultRulesBodySchema.safeParse(body);
  if (!parsed.success) return err(formatZodIssues(parsed.error));
  return ok(parsed.data.rules);
}

interface CompiledRule {
  rule: FaultRule;
  matchPath: PathMatcher | undefined;
  remaining: number | undefined;
}

function compileRule(rule: FaultRule): CompiledRule {
  return {
    rule: { ...rule },
    matchPath: rule.path === undefined ? undefined : compilePathPattern(rule.path),
    remaining: rule.times,
  };
}

export class FaultInjector {
  #rules: CompiledRule[] = [];

  set(rules: readonly FaultRule[]): void {
    this.#rules = rules.map(compileRule);
  }

  /**
   * Adds rules after the active ones, which keep what is left of their `times`. Adding is not the same as
   * setting the list read earlier plus the new rule: requests since that read may have used rules up.
   */
  add(rules: readonly FaultRule[]): void {
    this.#rules.push(...rules.map(compileRule));
  }

  clear(): void {
    this.#rules = [];
  }

  list(): ActiveFaultRule[] {
    return this.#rules.map((r, index) => ({
      ...r.rule,
      ...(r.remaining === undefined ? {} : { times: r.remaining }),
      index,
    }));
  }

  /**
   * Rules that apply to this request, in order, each consuming one of its `times`. Every matching latency
   * rule applies; the first matching error, rate_limit or drop rule ends the list, since it answers the request.
   */
  take(method: string, path: string): FaultRule[] {
    const applied: FaultRule[] = [];
    for (const r of this.#rules) {
      if (r.remaining !== undefined && r.remaining <= 0) continue;
      if (r.rule.method !== undefined && r.rule.method.toUpperCase() !== method.toUpperCase()) continue;
      if (r.matchPath && !r.matchPath(path)) continue;
      if (r.remaining !== undefined) r.remaining--;
      applied.push(r.rule);
      if (r.rule.kind !== 'latency') break;
    }
    this.#rules = this.#rules.filter((r) => r.remaining === undefined || r.remaining > 0);
    return applied;
  }
}

export function faultMiddleware(
  faults: FaultInjector,
  errorBody: ErrorBodyFn,
): MiddlewareHandler<EmulatorEnv> {
  return async (c, next) => {
    if (isControlPath(c.req.path)) return next();
    const rules = faults.take(c.req.method, c.req.path);
    for (const rule of rules) {
      if (rule.when === 'after') continue;
      const answer = await applyFault(c, rule, errorBody);
      if (answer) return answer;
    }
    const after = rules.filter((rule) => rule.when === 'after');
    if (after.length === 0) return next();
    await next();
    for (const rule of after) {
      const answer = await applyFault(c, rule, errorBody);
      if (answer) {
        // Hono merges a new response into the one already made; the stand-in for a dropped connection
        // (app.request has no socket to cut) must replace it whole.
        if (answer.type === 'error') c.res = undefined as unknown as Response;
        c.res = answer;
        return;
      }
    }
  };
}

/** Applies one rule: waits (latency: undefined) or returns the answer that replaces the service's. */
async function applyFault(
  c: Context<EmulatorEnv>,
  rule: FaultRule,
  errorBody: ErrorBodyFn,
): Promise<Response | undefined> {
  if (rule.kind === 'latency') {
    await sleep(rule.latencyMs ?? 0);
    return undefined;
  }
  c.set('fault', rule.kind);
  const requestId = c.get('requestId');
  if (rule.kind === 'error') {
    const status = rule.status ?? 500;
    return c.json(
      errorBody(status, 'Injected fault: upstream error', { requestId }) as object,
      status as ContentfulStatusCode,
    );
  }
  if (rule.kind === 'rate_limit') {
    const retryAfter = rule.retryAfterSeconds ?? 1;
    c.header('Retry-After', String(retryAfter));
    return c.json(errorBody(429, 'Rate limit exceeded. Please retry later.', { requestId }) as object, 429);
  }
  // drop: end the TCP connection without a response, as a crashed proxy or a network cut would.
  const socket = c.env?.incoming?.socket;
  if (socket) {
    socket.destroy();
    return new Response(null, { status: 502 });
  }
  // Under app.request there is no socket; the nearest equivalent is a network-error response.
  return Response.error();
}
