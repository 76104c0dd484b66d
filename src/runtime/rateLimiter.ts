// Client-side rate limiting: a sliding log of send times per upstream limit key (an endpoint, or a base for the
// store), so that no window of the published length ever holds more requests than the published count, agents
// see throughput close to that limit, and an upstream 429 stops further sends to its key for the wait it set.
//
// A sliding log, not a token bucket: a bucket of N tokens refilled at N per window admits N + t·N/W requests
// in any t seconds (13 in 18 s against Pylon's 10 per minute), which an upstream counting per window refuses.
// Hand-written rather than taken from a library because we need what the common ones do not give together:
// the wait a call would face, known before waiting, so a call that would block past `maxWaitMs` fails at once
// with a clear "retry in N s" instead of hanging an agent for a minute; a first-come queue per key; and a
// pause that refuses the calls already waiting when the upstream blocks the key.

import { ToolError } from './errors.js';

/**
 * What the upstream client asks of a rate budget: wait for a slot, and stop a key after a 429. Two kinds keep it:
 * `RateLimiter` below, in this process (the default, for one machine), and the Redis one shared by every replica
 * (sharedState/rateBudgets.ts, with SWITCHBOARD_REDIS_URL); `rateBudget()` there picks one from configuration.
 */
export interface RateBudget {
  /**
   * Resolves when a call for `key` may be sent. Refuses at once, with a `rate_limited` ToolError giving the
   * wait, a call that could not be sent within the budget's longest wait; rejects with the signal's reason if
   * the call is cancelled while waiting.
   */
  acquire(key: string, signal?: AbortSignal): Promise<void>;
  /** Sends nothing for `key` during the next `ms` (an upstream 429 and the wait it set); never rejects. */
  pause(key: string, ms: number): void | Promise<void>;
}

/** The published limits by key; a key without one is not limited (only paused after a 429). */
export interface RateLimits {
  get(key: string): RateLimit | undefined;
}

export interface RateLimit {
  /** Requests allowed in any window of `intervalMs`; also the burst size. */
  limit: number;
  intervalMs: number;
  /**
   * Extra spacing beyond the window. Requests reach the upstream unevenly (a new connection's handshake, network
   * jitter), so a send exactly one window after the oldest counted one could land inside the upstream's window.
   */
  slackMs?: number;
}

export interface RateLimiterOptions {
  /** Longest a call may wait, in total, before it is sent; a call that would wait longer is refused at once. */
  maxWaitMs?: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

interface Waiter {
  /** Latest time this call may be sent: when it arrived plus `maxWaitMs`. */
  readonly deadline: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** Removes the abort listener. */
  readonly detach: () => void;
}

interface KeyState {
  readonly rate: RateLimit | undefined;
  /** Times calls were let through, oldest first; only the last `rate.limit` matter, so no more are kept. */
  readonly sent: number[];
  /** Calls waiting for a slot, first come first served. */
  readonly queue: Waiter[];
  /** Set by `pause` after an upstream 429: nothing for this key is sent before this time. */
  pausedUntil: number;
  /** Whether a pump loop is running for this key. */
  pumping: boolean;
  /** Aborts the pump's sleep when nobody is left waiting, so no timer keeps the process alive. */
  wake: AbortController | undefined;
}

export class RateLimiter implements RateBudget {
  private readonly states = new Map<string, KeyState>();
  private readonly maxWaitMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(
    private readonly limits: RateLimits,
    options: RateLimiterOptions = {},
  ) {
    this.maxWaitMs = options.maxWaitMs ?? 20_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleep;
  }

  /**
   * Resolves when a call for `key` may be sent, in arrival order. Refuses at once, with a `rate_limited`
   * ToolError giving the wait, a call that could not be sent within `maxWaitMs`; rejects with the signal's
   * reason if the call is cancelled while waiting. Keys without a configured limit pass at once unless paused.
   */
  async acquire(key: string, signal?: AbortSignal): Promise<void> {
    const state = this.stateFor(key, false);
    if (!state) return;
    const now = this.now();
    if (state.queue.length === 0 && this.earliest(state, state.sent, now) <= now) {
      this.record(state, now);
      return;
    }
    // The slot this call would get behind everyone already waiting: the wait is known before waiting.
    const planned = this.plan(state, now);
    const at = this.earliest(state, planned, now);
    if (at - now > this.maxWaitMs) throw this.refusal(key, state, at - now, now);
    signal?.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = state.queue.indexOf(waiter);
        if (index >= 0) state.queue.splice(index, 1);
        if (state.queue.length === 0) state.wake?.abort();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        deadline: now + this.maxWaitMs,
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      state.queue.push(waiter);
      void this.pump(state);
    });
  }

  /**
   * Sends nothing for `key` during the next `ms` (an upstream 429 and the wait it set). Calls already waiting
   * that can no longer be sent within their `maxWaitMs` are refused now, with the wait; the others stay queued.
   */
  pause(key: string, ms: number): void {
    if (!(ms > 0)) return;
    const state = this.stateFor(key, true);
    const now = this.now();
    state.pausedUntil = Math.max(state.pausedUntil, now + ms);
    const times = [...state.sent];
    const kept: Waiter[] = [];
    for (const waiter of state.queue) {
      const at = this.earliest(state, times, now);
      if (at > waiter.deadline) {
        waiter.detach();
        waiter.reject(this.refusal(key, state, at - now, now));
      } else {
        times.push(at);
        kept.push(waiter);
      }
    }
    state.queue.splice(0, state.queue.length, ...kept);
    if (kept.length === 0) state.wake?.abort();
  }

  private stateFor(key: string, create: true): KeyState;
  private stateFor(key: string, create: false): KeyState | undefined;
  private stateFor(key: string, create: boolean): KeyState | undefined {
    let state = this.states.get(key);
    if (state) return state;
    const rate = this.limits.get(key);
    if (!rate && !create) return undefined;
    state = { rate, sent: [], queue: [], pausedUntil: 0, pumping: false, wake: undefined };
    this.states.set(key, state);
    return state;
  }

  /** The earliest time one more call may go, after the calls at `times` (sent or planned, oldest first). */
  private earliest(state: KeyState, times: readonly number[], now: number): number {
    let at = Math.max(now, state.pausedUntil);
    const { rate } = state;
    if (rate && times.length >= rate.limit) {
      // The N-th most recent call leaves the window `intervalMs` after it went (the upstream counts the
      // window half-open: a request exactly one window later is the first of a new window).
      const oldest = times[times.length - rate.limit] ?? Number.NEGATIVE_INFINITY;
      at = Math.max(at, oldest + rate.intervalMs + (rate.slackMs ?? 0));
    }
    return at;
  }

  /** The send times so far followed by the planned times of everyone waiting, in queue order. */
  private plan(state: KeyState, now: number): number[] {
    const times = [...state.sent];
    for (let i = 0; i < state.queue.length; i++) times.push(this.earliest(state, times, now));
    return times;
  }

  private record(state: KeyState, at: number): void {
    state.sent.push(at);
    const keep = state.rate?.limit ?? 0;
    if (state.sent.length > keep) state.sent.splice(0, state.sent.length - keep);
  }

  /** Lets waiting calls go one by one, each at the first moment the log allows, sleeping in between. */
  private async pump(state: KeyState): Promise<void> {
    if (state.pumping) return;
    state.pumping = true;
    try {
      while (state.queue.length > 0) {
        const now = this.now();
        const at = this.earliest(state, state.sent, now);
        if (at <= now) {
          const waiter = state.queue.shift() as Waiter;
          waiter.detach();
          // Recorded when actually let through (a timer can fire late), so the log holds real send times.
          this.record(state, now);
          waiter.resolve();
          continue;
        }
        const wake = new AbortController();
        state.wake = wake;
        try {
          await this.sleep(at - now, wake.signal);
        } catch {
          // Woken early because nobody is left waiting; the loop condition ends the pump.
        } finally {
          state.wake = undefined;
        }
      }
    } finally {
      state.pumping = false;
    }
  }

  private refusal(key: string, state: KeyState, waitMs: number, now: number): ToolError {
    return rateLimitRefusal(key, state.rate, waitMs, state.pausedUntil > now);
  }
}

/**
 * The error of a call refused before it was sent: the key is paused after an upstream 429 (`paused`), or its
 * budget cannot give a slot within the longest wait. The same words whichever budget refused it.
 */
export function rateLimitRefusal(
  key: string,
  rate: RateLimit | undefined,
  waitMs: number,
  paused: boolean,
): ToolError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  if (paused) {
    return new ToolError({
      kind: 'rate_limited',
      message: `The upstream answered 429 (rate limit) for ${key}; this server sends nothing more for it until the wait the upstream set is over, about ${seconds} s from now.`,
      retryAfterSeconds: seconds,
      hint: `Wait about ${seconds} s before calling again; calls made sooner are refused without being sent.`,
    });
  }
  const published = rate ? ` (${rate.limit} per ${rate.intervalMs / 1000} s)` : '';
  return new ToolError({
    kind: 'rate_limited',
    message: `Client-side rate limit for ${key}${published} is used up.`,
    retryAfterSeconds: seconds,
    hint: `Wait about ${seconds} s before calling again, or make fewer calls of this kind.`,
  });
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
