// Upstream rate budgets shared by every replica through Redis, and the choice between them and the embedded
// in-process limiter (runtime/rateLimiter.ts) by configuration: with SWITCHBOARD_REDIS_URL each published limit
// (the store's 5 requests/s per base, the issue desk's per-endpoint minutes, the Track API's fair use) is held
// once for all processes, and a 429's pause set by one is honoured by all.
//
// The same sliding-window log as the embedded limiter, kept in a sorted set per key, not GCRA: GCRA is a token
// bucket in disguise, and a bucket of N refilled at N per window admits more than N in some window (13 in 18 s
// against Pylon's 10 per minute); made exact it must space every call W/N apart, which gives up the burst the
// upstream allows (ten calls at once, then a wait). The log holds at most `limit` grants per key, so it stays small.
//
// One Lua script checks and takes in one step, with the time read from Redis (TIME), never from a replica's
// clock, so replicas whose clocks disagree still count one window. Grants are recorded at the moment they are
// made, never ahead of time: a waiter whose timer fires late cannot land closer to the next one than the window
// allows. Waiters also hold a reservation (a second sorted set), so calls are served in arrival order across
// replicas and a call that could not go within the longest wait is refused at once, with the wait, as the
// embedded limiter does.

import { randomUUID } from 'node:crypto';
import { ToolError } from '../errors.js';
import { log } from '../log.js';
import {
  type RateBudget,
  type RateLimit,
  RateLimiter,
  type RateLimits,
  rateLimitRefusal,
  sleep,
} from '../rateLimiter.js';
import type { SharedState } from './redis.js';
import { REDIS_URL_VARIABLE } from './redisUrl.js';
import { scriptCommands } from './scripts.js';

/**
 * KEYS: the grants log, the reservations, the pause. ARGV: limit (0: none, only the pause applies), window and
 * longest wait in microseconds, the call's ticket, and 'new' (a call arriving) or 'retry' (a waiter waking).
 * Returns {status, wait in microseconds, paused}: status 0 granted, 1 wait (the ticket holds a reservation),
 * 2 refused (it could not go within the longest wait); paused 1 when a 429's pause is in force.
 */
const TAKE = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local maxWait = tonumber(ARGV[3])
local ticket = ARGV[4]
local waking = ARGV[5] == 'retry'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local pausedUntil = tonumber(redis.call('GET', KEYS[3]) or '0')
local paused = 0
if pausedUntil > now then paused = 1 end

local function keep(key, us)
  local ms = math.ceil(us / 1000) + 1
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end

if limit <= 0 then
  if pausedUntil <= now then return {0, 0, 0} end
  if pausedUntil - now > maxWait then return {2, pausedUntil - now, 1} end
  return {1, pausedUntil - now, 1}
end

-- A grant leaves the window exactly one window after it was made (the upstreams count half-open windows).
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)

local function grant()
  redis.call('ZADD', KEYS[1], now, ticket)
  redis.call('ZREM', KEYS[2], ticket)
  keep(KEYS[1], window)
  return {0, 0, 0}
end

local function reserve(at)
  redis.call('ZADD', KEYS[2], at, ticket)
  keep(KEYS[2], at - now + window)
  return {1, at - now, paused}
end

local at = now
if pausedUntil > at then at = pausedUntil end

if waking then
  -- Not before this waiter's place in the queue, and not before the grants made so far allow.
  local mine = tonumber(redis.call('ZSCORE', KEYS[2], ticket) or '0')
  if mine > at then at = mine end
  local count = redis.call('ZCARD', KEYS[1])
  if count >= limit then
    local nth = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
    local free = tonumber(nth[2]) + window
    if free > at then at = free end
  end
  if at <= now then return grant() end
  if at - now > maxWait then
    redis.call('ZREM', KEYS[2], ticket)
    return {2, at - now, paused}
  end
  return reserve(at)
end

-- A call arriving goes after everyone waiting: the earliest time that keeps every window, counting grants and
-- reservations alike, at or after the last of them. Only the latest limit entries of each set matter.
local function latest(key)
  local r = redis.call('ZREVRANGE', key, 0, limit - 1, 'WITHSCORES')
  local s = {}
  for i = 2, #r, 2 do s[#s + 1] = tonumber(r[i]) end
  return s
end
local a, b = latest(KEYS[1]), latest(KEYS[2])
local i, j, k = 1, 1, 0
while k < limit do
  local x
  if a[i] and (not b[j] or a[i] >= b[j]) then
    x = a[i]
    i = i + 1
  elseif b[j] then
    x = b[j]
    j = j + 1
  else
    break
  end
  k = k + 1
  if k == 1 and x > at then at = x end
  if k == limit and x + window > at then at = x + window end
end
if at <= now then return grant() end
if at - now > maxWait then return {2, at - now, paused} end
return reserve(at)
`;

/** KEYS: the pause. ARGV: microseconds. Extends the pause to now + ARGV[1] (never shortens it). */
const PAUSE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local untilUs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilUs > current then
  redis.call('SET', KEYS[1], string.format('%d', untilUs), 'PX', math.ceil(tonumber(ARGV[1]) / 1000) + 1)
end
return 1
`;

const GRANTED = 0;
const REFUSED = 2;

/** The scripts' signatures as commands on the connection (scripts.ts). */
interface RateCommands {
  switchboardRateTake(
    sent: string,
    reservations: string,
    pause: string,
    limit: number,
    windowUs: number,
    maxWaitUs: number,
    ticket: string,
    mode: 'new' | 'retry',
  ): Promise<[number, number, number]>;
  switchboardRatePause(pause: string, us: number): Promise<number>;
}

function commandsOf(shared: SharedState): RateCommands {
  return scriptCommands<RateCommands>(shared.redis, {
    switchboardRateTake: { keys: 3, lua: TAKE },
    switchboardRatePause: { keys: 1, lua: PAUSE },
  });
}

export interface SharedRateBudgetOptions {
  /**
   * Separates budgets that are not the same upstream limit: the service and the upstream host, so two services
   * (or a sandbox emulator and the real host) never share a key.
   */
  namespace: string;
  /** Longest a call may wait, in total, before it is sent; a call that would wait longer is refused at once. */
  maxWaitMs?: number;
  /**
   * Longest one sleep of a waiter: a pause another replica sets while it waits is seen within this time (the
   * embedded limiter refuses its waiters at once; a replica learns of the pause when it next asks).
   */
  pollMs?: number;
}

/** The rate budget every replica shares through Redis: the published limits hold across all processes. */
export class SharedRateBudget implements RateBudget {
  private readonly commands: RateCommands;
  private readonly maxWaitMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly shared: SharedState,
    private readonly limits: RateLimits,
    private readonly options: SharedRateBudgetOptions,
  ) {
    this.commands = commandsOf(shared);
    this.maxWaitMs = options.maxWaitMs ?? 20_000;
    this.pollMs = options.pollMs ?? 1000;
  }

  async acquire(key: string, signal?: AbortSignal): Promise<void> {
    const rate = this.limits.get(key);
    const keys = this.keysFor(key);
    const windowUs = rate ? Math.round((rate.intervalMs + (rate.slackMs ?? 0)) * 1000) : 0;
    const ticket = randomUUID();
    // Durations on this process's monotonic clock; every instant is Redis's.
    const started = performance.now();
    for (let waking = false; ; waking = true) {
      const remainingMs = Math.max(0, this.maxWaitMs - (performance.now() - started));
      const [status, waitUs, paused] = await this.take(
        key,
        rate,
        keys,
        windowUs,
        remainingMs,
        ticket,
        waking,
      );
      if (status === GRANTED) return;
      const waitMs = waitUs / 1000;
      if (status === REFUSED) throw rateLimitRefusal(key, rate, waitMs, paused === 1);
      try {
        signal?.throwIfAborted();
        await sleep(Math.min(Math.ceil(waitMs), this.pollMs), signal);
      } catch (error) {
        // Gives the place back, so the calls behind are not held for a slot nobody will use.
        this.shared.redis.zrem(keys.reservations, ticket).catch(() => undefined);
        throw error;
      }
    }
  }

  async pause(key: string, ms: number): Promise<void> {
    if (!(ms > 0)) return;
    try {
      await this.commands.switchboardRatePause(this.keysFor(key).pause, Math.round(ms * 1000));
    } catch (error) {
      // The call that met the 429 reports it anyway; while Redis is down no call is sent (acquire fails).
      log('warn', 'could not share an upstream 429 pause through Redis', {
        key,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private async take(
    key: string,
    rate: RateLimit | undefined,
    keys: ReturnType<SharedRateBudget['keysFor']>,
    windowUs: number,
    remainingMs: number,
    ticket: string,
    waking: boolean,
  ): Promise<[number, number, number]> {
    try {
      return await this.commands.switchboardRateTake(
        keys.sent,
        keys.reservations,
        keys.pause,
        rate?.limit ?? 0,
        windowUs,
        Math.floor(remainingMs * 1000),
        ticket,
        waking ? 'retry' : 'new',
      );
    } catch (error) {
      throw budgetUnavailable(key, error);
    }
  }

  /** One hash tag per key, so the three keys of a budget stay on one node of a Redis Cluster. */
  private keysFor(key: string) {
    const base = `switchboard:rate:${this.options.namespace}:{${encodeURIComponent(key)}}`;
    return { sent: `${base}:sent`, reservations: `${base}:waiting`, pause: `${base}:paused` };
  }
}

/**
 * Without the shared budget a replica cannot know what the others have sent, so the call is not sent at all:
 * sending anyway is how two processes earned the store's 30-second penalty on 195 of 200 calls.
 */
function budgetUnavailable(key: string, cause: unknown): ToolError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ToolError({
    kind: 'upstream_unavailable',
    message: `The shared rate budget for ${key} (Redis, ${REDIS_URL_VARIABLE}) cannot be reached (${reason}), so this call was not sent: without it this replica could use the other replicas' share of the upstream's limit.`,
    hint: 'Try again in a few seconds; if it goes on, the operator should check that Redis is up (the /readyz endpoint reports it).',
    retryable: true,
    retryAfterSeconds: 2,
    cause,
  });
}

export interface RateBudgetOptions {
  /** The service and the upstream host whose limits these are (see SharedRateBudgetOptions.namespace). */
  service: string;
  upstream: string;
  maxWaitMs?: number;
}

/**
 * The budget a service's client uses for `limits`: shared through Redis when `shared` is given (SWITCHBOARD_REDIS_URL
 * set), else the embedded in-process limiter, exactly as it was before shared state existed.
 */
export function rateBudget(
  limits: RateLimits,
  options: RateBudgetOptions,
  shared: SharedState | undefined,
): RateBudget {
  const maxWait = options.maxWaitMs !== undefined ? { maxWaitMs: options.maxWaitMs } : {};
  if (!shared) return new RateLimiter(limits, maxWait);
  return new SharedRateBudget(shared, limits, { namespace: namespaceFor(options), ...maxWait });
}

/** `store:api.airtable.com`: the host only, never a path or credentials a configured URL might carry. */
function namespaceFor({ service, upstream }: RateBudgetOptions): string {
  let host = upstream;
  try {
    host = new URL(upstream).host;
  } catch {
    // Not a URL: used as given (a name chosen by the caller).
  }
  return `${service}:${host}`;
}
