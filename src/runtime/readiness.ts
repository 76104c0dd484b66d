// What /readyz asks before it says a replica may take traffic: each dependency that can be down (Redis, where
// configured) registers one check. The configuration is checked once at start and fails start-up instead.
// The checks run together, each within a short time: a load balancer probes every few seconds and must get an
// answer well within its own probe timeout, even when a dependency hangs instead of refusing.

import { redact } from './secrets.js';

/** One dependency's readiness: resolves when ready, rejects with a reason (no secrets) when not. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** How long one check may take before it counts as failed. */
export const READINESS_CHECK_TIMEOUT_MS = 1_000;

/** A reason is a line for an operator, not a stack trace: longer ones are cut. */
const MAX_REASON_LENGTH = 200;

export type CheckOutcome = { name: string; ok: true } | { name: string; ok: false; reason: string };

export interface ReadinessReport {
  ready: boolean;
  checks: CheckOutcome[];
}

/**
 * A failure's reason, safe to show to whoever reaches /readyz: credentials in any URL (a Redis URL's password)
 * and every registered secret masked, on one line, cut to a readable length.
 */
export function safeReason(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const text = redact(raw)
    // scheme://user:password@host -> scheme://host: the userinfo of any URL, whatever the scheme.
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  const reason = text || 'failed without a reason';
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 1)}…` : reason;
}

/** Runs one check, failed when it rejects, throws, or takes longer than `timeoutMs`. */
async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    // Called inside the promise chain, so a check that throws synchronously is a failure, not a crash.
    await Promise.race([Promise.resolve().then(() => check.check()), timedOut]);
    return { name: check.name, ok: true };
  } catch (error) {
    return { name: check.name, ok: false, reason: safeReason(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** Every check at once; ready when all pass (and when there are none: nothing can be down). */
export async function runReadinessChecks(
  checks: readonly ReadinessCheck[],
  options: { timeoutMs?: number } = {},
): Promise<ReadinessReport> {
  const timeoutMs = options.timeoutMs ?? READINESS_CHECK_TIMEOUT_MS;
  const outcomes = await Promise.all(checks.map((check) => runCheck(check, timeoutMs)));
  return { ready: outcomes.every((outcome) => outcome.ok), checks: outcomes };
}
