// The vault's rows in Redis, shared by every replica (SWITCHBOARD_REDIS_URL): a person's requests may land on any
// replica, so each must see the same clients, requests in flight, codes, tokens and grants. What reaches Redis is
// what SQLite would hold: hashes of our codes, tokens and handles, and the upstream's tokens and our PKCE verifiers
// sealed by the vault. The sealing key is never stored here (each replica is given it: perUser.ts).
//
// Each step where a check and an update must be one runs as one Lua script (Redis runs a script alone): taking a
// request in flight, redeeming a code, rotating a refresh token (with reuse detection), ending a grant with its
// tokens, replacing a grant's upstream tokens. Expiry is Redis's: a request in flight lives PENDING_TTL_MS, a code
// twice CODE_TTL_MS (a late second use is still recognised), each token its own lifetime, a grant as long as a
// refresh token issued for it may come back. Expiry decisions are still made on the vault's clock (`now`), as SQLite's
// are, so both stores answer alike.
//
// Keys (under the prefix, `switchboard:auth:` by default):
//   key_check                  the vault's sealed known value (a replica with another key is refused at start)
//   client:<id>                JSON of a registered client (kept, as in SQLite)
//   pending:<hash>             JSON of a request in flight
//   grant:<id>                 hash of a grant; grant_tokens:<id> the set of its live token hashes
//   code:<hash>                hash of a code; codes: sorted set `<hash>:<grant>` by expiry, for the abandoned sweep
//   token:<hash>               hash of an access or refresh token
//   lock:grant:<id>            the renewal lock (redisLock.ts)
// Scripts reach keys they compute (a token's grant), so this targets a standalone Redis (or one with Sentinel), not
// Redis Cluster.

import type { Redis } from 'ioredis';
import {
  type AccessTokenRow,
  type AuthStateStore,
  AuthStateUnavailableError,
  type ClientRecord,
  type CodeRow,
  type CodeTaking,
  type GrantRow,
  type PendingRow,
  type PendingStage,
  type Release,
  type Rotation,
  type RotationRequest,
  type TokenPair,
  type UpstreamTokenUpdate,
} from '../auth/authState.js';
import { acquireRedisLock, LockTimeoutError, type RedisLockOptions } from './redisLock.js';
import { REDIS_URL_VARIABLE } from './redisUrl.js';
import { type Script, scriptCommands } from './scripts.js';

export const DEFAULT_AUTH_PREFIX = 'switchboard:auth:';

/** Takes a request in flight: only in its stage and for its browser (anything else leaves it be). */
const TAKE_PENDING = `
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local row = cjson.decode(raw)
if row.stage ~= ARGV[1] or row.browserHash ~= ARGV[2] then return false end
redis.call('DEL', KEYS[1])
return raw
`;

/** New upstream tokens into a live grant, with its version bumped; an unknown or ended grant is left alone. */
const REPLACE_UPSTREAM = `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'ended_at') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'access_token', ARGV[1], 'access_expires_at', ARGV[2], 'refresh_token', ARGV[3],
  'upstream_scopes', ARGV[5], 'tokens_obtained_at', ARGV[6])
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[1], 'refresh_expires_at')
else
  redis.call('HSET', KEYS[1], 'refresh_expires_at', ARGV[4])
end
redis.call('HINCRBY', KEYS[1], 'version', 1)
return 1
`;

/** Ends a grant once (its first reason stays), wipes its sealed tokens, retires every live token issued for it. */
const END_GRANT = `
if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('HEXISTS', KEYS[1], 'ended_at') == 0 then
  redis.call('HSET', KEYS[1], 'ended_at', ARGV[2], 'end_reason', ARGV[3], 'access_token', '', 'refresh_token', '')
end
for _, hash in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local key = ARGV[1] .. hash
  if redis.call('EXISTS', key) == 1 then redis.call('HSETNX', key, 'retired_at', ARGV[2]) end
end
redis.call('DEL', KEYS[2])
return 1
`;

/**
 * Forgets codes that expired before the cutoff; answers the grants of those never redeemed. A hundred at a time:
 * the rest go on the next call.
 */
const DROP_ABANDONED_CODES = `
local abandoned = {}
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 100)) do
  local sep = string.find(member, ':', 1, true)
  local key = ARGV[2] .. string.sub(member, 1, sep - 1)
  if redis.call('EXISTS', key) == 1 and redis.call('HEXISTS', key, 'used_at') == 0 then
    table.insert(abandoned, string.sub(member, sep + 1))
  end
  redis.call('DEL', key)
  redis.call('ZREM', KEYS[1], member)
end
return abandoned
`;

/** Marks a code used and answers it, once; then answers who it was for. */
const TAKE_CODE = `
local found = redis.call('HMGET', KEYS[1], 'grant_id', 'used_at')
if not found[1] then return {'unknown'} end
if found[2] then return {'used', found[1]} end
redis.call('HSET', KEYS[1], 'used_at', ARGV[1])
local answer = {'taken'}
for _, v in ipairs(redis.call('HGETALL', KEYS[1])) do table.insert(answer, v) end
return answer
`;

/** An access token's fields with its grant's subject and end; nothing when either is gone. */
const ACCESS_TOKEN = `
local token = redis.call('HGETALL', KEYS[1])
if #token == 0 then return false end
local grant = redis.call('HMGET', ARGV[1] .. redis.call('HGET', KEYS[1], 'grant_id'), 'subject', 'ended_at')
if not grant[1] then return false end
table.insert(token, 'subject')
table.insert(token, grant[1])
if grant[2] then
  table.insert(token, 'grant_ended_at')
  table.insert(token, grant[2])
end
return token
`;

/**
 * Rotates a refresh token: the refusals in the SQLite store's order, or every live token of the grant retired and
 * the new pair stored in one step. Two replicas presenting the same token: the second sees it retired (reuse).
 */
const ROTATE_REFRESH = `
local t = redis.call('HMGET', KEYS[1], 'kind', 'grant_id', 'client_id', 'resource', 'scope', 'expires_at', 'retired_at')
if t[1] ~= 'refresh' then return {'unknown'} end
if t[3] ~= ARGV[2] then return {'wrong_client'} end
local grantKey = ARGV[1] .. 'grant:' .. t[2]
local grant = redis.call('HMGET', grantKey, 'subject', 'ended_at')
if not grant[1] or grant[2] then return {'ended'} end
if t[7] then return {'reused', t[2]} end
if tonumber(t[6]) <= tonumber(ARGV[3]) then return {'expired'} end
if ARGV[4] ~= '1' then return {'wrong_resource'} end
local setKey = ARGV[1] .. 'grant_tokens:' .. t[2]
for _, hash in ipairs(redis.call('SMEMBERS', setKey)) do
  local key = ARGV[1] .. 'token:' .. hash
  if redis.call('EXISTS', key) == 1 then redis.call('HSETNX', key, 'retired_at', ARGV[3]) end
end
redis.call('HSETNX', KEYS[1], 'retired_at', ARGV[3])
redis.call('DEL', setKey)
local function put(hash, kind, expiresAt, ttl)
  local key = ARGV[1] .. 'token:' .. hash
  redis.call('HSET', key, 'kind', kind, 'grant_id', t[2], 'client_id', t[3], 'resource', t[4], 'scope', t[5],
    'issued_at', ARGV[7], 'expires_at', expiresAt)
  redis.call('PEXPIRE', key, ttl)
end
put(ARGV[5], 'access', ARGV[8], ARGV[10])
put(ARGV[6], 'refresh', ARGV[9], ARGV[11])
redis.call('SADD', setKey, ARGV[5], ARGV[6])
redis.call('PEXPIRE', setKey, ARGV[11])
redis.call('PEXPIRE', grantKey, ARGV[11])
return {'ok', t[2], t[4], t[5]}
`;

/** The scripts' signatures as commands on the connection (scripts.ts). */
interface AuthCommands {
  switchboardAuthTakePending(key: string, stage: string, browserHash: string): Promise<string | null>;
  switchboardAuthReplaceUpstream(key: string, ...args: string[]): Promise<number>;
  switchboardAuthEndGrant(
    grant: string,
    tokens: string,
    tokenPrefix: string,
    now: number,
    reason: string,
  ): Promise<number>;
  switchboardAuthDropAbandonedCodes(codes: string, cutoff: number, codePrefix: string): Promise<string[]>;
  switchboardAuthTakeCode(key: string, now: number): Promise<string[]>;
  switchboardAuthAccessToken(key: string, grantPrefix: string): Promise<string[] | null>;
  switchboardAuthRotateRefresh(key: string, ...args: (string | number)[]): Promise<string[]>;
}

const SCRIPTS: Record<keyof AuthCommands, Script> = {
  switchboardAuthTakePending: { keys: 1, lua: TAKE_PENDING },
  switchboardAuthReplaceUpstream: { keys: 1, lua: REPLACE_UPSTREAM },
  switchboardAuthEndGrant: { keys: 2, lua: END_GRANT },
  switchboardAuthDropAbandonedCodes: { keys: 1, lua: DROP_ABANDONED_CODES },
  switchboardAuthTakeCode: { keys: 1, lua: TAKE_CODE },
  switchboardAuthAccessToken: { keys: 1, lua: ACCESS_TOKEN },
  switchboardAuthRotateRefresh: { keys: 1, lua: ROTATE_REFRESH },
};

function commandsOf(redis: Redis): AuthCommands {
  return scriptCommands<AuthCommands>(redis, SCRIPTS);
}

export interface RedisAuthStateOptions {
  /** Key prefix, so that several deployments (or tests) can share one Redis. Default `switchboard:auth:`. */
  prefix?: string;
  lock?: RedisLockOptions;
}

/** A TTL for Redis: at least a millisecond (PX 0 is an error, and a row that just lapsed is gone anyway). */
function ttl(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

/** Redis's flat [field, value, ...] answer as a record. */
function fieldsOf(flat: readonly string[], from = 0): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = from; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}

const num = (value: string | undefined): number => Number(value);

export class RedisAuthState implements AuthStateStore {
  readonly #redis: Redis;
  readonly #commands: AuthCommands;
  readonly #prefix: string;
  readonly #lock: RedisLockOptions;

  /** Over a connection its owner opened and closes (serve.ts); `close` leaves it open. */
  constructor(redis: Redis, options: RedisAuthStateOptions = {}) {
    this.#redis = redis;
    this.#commands = commandsOf(redis);
    this.#prefix = options.prefix ?? DEFAULT_AUTH_PREFIX;
    this.#lock = options.lock ?? {};
  }

  close(): void {
    // The connection is shared with the rest of the process and closed by whoever opened it.
  }

  #key(...parts: string[]): string {
    return this.#prefix + parts.join(':');
  }

  /** Runs an operation, a failure to reach Redis turned into an error that names the setting and can be retried. */
  async #run<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      // A script's own error (a bug) is no outage, and a refusal already said is not said again.
      if (error instanceof AuthStateUnavailableError) throw error;
      if (error instanceof Error && error.name === 'ReplyError') throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new AuthStateUnavailableError(
        `The shared sign-in state in Redis (${REDIS_URL_VARIABLE}) could not be reached: ${reason}`,
        { cause: error },
      );
    }
  }

  // ---- the key check -------------------------------------------------------------------------------------------

  async keyCheck(candidate: string): Promise<string> {
    return this.#run(async () => {
      const key = this.#key('key_check');
      await this.#redis.set(key, candidate, 'NX');
      return (await this.#redis.get(key)) ?? candidate;
    });
  }

  keyMismatch(): string {
    return (
      `The shared sign-in state in Redis (${REDIS_URL_VARIABLE}, keys ${this.#prefix}*) was sealed with another key ` +
      'than this replica’s SWITCHBOARD_SECRET_KEY. Give every replica the same SWITCHBOARD_SECRET_KEY (the one the ' +
      `state was made with), or delete the ${this.#prefix}* keys to start afresh (everyone then signs in again).`
    );
  }

  // ---- clients -----------------------------------------------------------------------------------------------

  async addClient(client: ClientRecord): Promise<void> {
    await this.#run(() => this.#redis.set(this.#key('client', client.id), JSON.stringify(client)));
  }

  async client(id: string): Promise<ClientRecord | undefined> {
    const raw = await this.#run(() => this.#redis.get(this.#key('client', id)));
    return raw === null ? undefined : (JSON.parse(raw) as ClientRecord);
  }

  // ---- authorization requests in flight -----------------------------------------------------------------------

  async addPending(hash: string, row: PendingRow, now: number): Promise<void> {
    await this.#run(() =>
      this.#redis.set(this.#key('pending', hash), JSON.stringify(row), 'PX', ttl(row.expiresAt - now)),
    );
  }

  async takePending(hash: string, stage: PendingStage, browserHash: string): Promise<PendingRow | undefined> {
    const raw = await this.#run(() =>
      this.#commands.switchboardAuthTakePending(this.#key('pending', hash), stage, browserHash),
    );
    return raw ? (JSON.parse(raw) as PendingRow) : undefined;
  }

  async peekPending(hash: string, stage: PendingStage): Promise<PendingRow | undefined> {
    const raw = await this.#run(() => this.#redis.get(this.#key('pending', hash)));
    const row = raw ? (JSON.parse(raw) as PendingRow) : undefined;
    return row?.stage === stage ? row : undefined;
  }

  // ---- grants --------------------------------------------------------------------------------------------------

  async addGrant(grant: GrantRow, retainMs: number): Promise<void> {
    const key = this.#key('grant', grant.id);
    const fields: Record<string, string | number> = {
      client_id: grant.clientId,
      subject: grant.subject,
      upstream_scopes: grant.upstreamScopes.join(' '),
      access_token: grant.sealedAccessToken,
      access_expires_at: grant.accessExpiresAt,
      refresh_token: grant.sealedRefreshToken,
      version: grant.version,
      tokens_obtained_at: grant.tokensObtainedAt,
      created_at: grant.createdAt,
      ...(grant.refreshExpiresAt !== undefined ? { refresh_expires_at: grant.refreshExpiresAt } : {}),
    };
    await this.#run(() => this.#redis.multi().hset(key, fields).pexpire(key, ttl(retainMs)).exec());
  }

  async grant(id: string): Promise<GrantRow | undefined> {
    const f = await this.#run(() => this.#redis.hgetall(this.#key('grant', id)));
    if (f.subject === undefined) return undefined;
    return {
      id,
      clientId: f.client_id ?? '',
      subject: f.subject,
      upstreamScopes: f.upstream_scopes ? f.upstream_scopes.split(' ') : [],
      accessExpiresAt: num(f.access_expires_at),
      ...(f.refresh_expires_at !== undefined ? { refreshExpiresAt: num(f.refresh_expires_at) } : {}),
      version: num(f.version),
      tokensObtainedAt: num(f.tokens_obtained_at),
      createdAt: num(f.created_at),
      ...(f.ended_at !== undefined ? { endedAt: num(f.ended_at) } : {}),
      ...(f.end_reason !== undefined ? { endReason: f.end_reason } : {}),
      sealedAccessToken: f.access_token ?? '',
      sealedRefreshToken: f.refresh_token ?? '',
    };
  }

  async replaceUpstreamTokens(id: string, update: UpstreamTokenUpdate): Promise<void> {
    await this.#run(() =>
      this.#commands.switchboardAuthReplaceUpstream(
        this.#key('grant', id),
        update.sealedAccessToken,
        String(update.accessExpiresAt),
        update.sealedRefreshToken,
        update.refreshExpiresAt !== undefined ? String(update.refreshExpiresAt) : '',
        update.upstreamScopes.join(' '),
        String(update.tokensObtainedAt),
      ),
    );
  }

  async endGrant(id: string, reason: string, now: number): Promise<void> {
    await this.#run(() =>
      this.#commands.switchboardAuthEndGrant(
        this.#key('grant', id),
        this.#key('grant_tokens', id),
        this.#key('token', ''),
        now,
        reason,
      ),
    );
  }

  // ---- authorization codes ---------------------------------------------------------------------------------------

  async dropAbandonedCodes(cutoff: number): Promise<string[]> {
    return this.#run(() =>
      this.#commands.switchboardAuthDropAbandonedCodes(this.#key('codes'), cutoff, this.#key('code', '')),
    );
  }

  async addCode(hash: string, code: CodeRow, now: number, forgetAt: number): Promise<void> {
    const key = this.#key('code', hash);
    const fields = {
      grant_id: code.grantId,
      client_id: code.clientId,
      redirect_uri: code.redirectUri,
      code_challenge: code.codeChallenge,
      resource: code.resource,
      scope: code.scope,
      expires_at: code.expiresAt,
    };
    await this.#run(() =>
      this.#redis
        .multi()
        .hset(key, fields)
        .pexpire(key, ttl(forgetAt - now))
        .zadd(this.#key('codes'), code.expiresAt, `${hash}:${code.grantId}`)
        .exec(),
    );
  }

  async takeCode(hash: string, now: number): Promise<CodeTaking> {
    const answer = await this.#run(() =>
      this.#commands.switchboardAuthTakeCode(this.#key('code', hash), now),
    );
    const [status, grantId] = answer;
    if (status === 'used') return { status: 'used', grantId: grantId as string };
    if (status !== 'taken') return { status: 'unknown' };
    const f = fieldsOf(answer, 1);
    return {
      status: 'taken',
      code: {
        grantId: f.grant_id ?? '',
        clientId: f.client_id ?? '',
        redirectUri: f.redirect_uri ?? '',
        codeChallenge: f.code_challenge ?? '',
        resource: f.resource ?? '',
        scope: f.scope ?? '',
        expiresAt: num(f.expires_at),
        usedAt: num(f.used_at),
      },
    };
  }

  // ---- our tokens ----------------------------------------------------------------------------------------------

  async addTokens(
    pair: TokenPair,
    issued: { grantId: string; clientId: string; resource: string; scope: string },
  ): Promise<void> {
    const common = {
      grant_id: issued.grantId,
      client_id: issued.clientId,
      resource: issued.resource,
      scope: issued.scope,
      issued_at: pair.issuedAt,
    };
    const access = this.#key('token', pair.accessHash);
    const refresh = this.#key('token', pair.refreshHash);
    const set = this.#key('grant_tokens', issued.grantId);
    const refreshTtl = ttl(pair.refreshExpiresAt - pair.issuedAt);
    await this.#run(() =>
      this.#redis
        .multi()
        .hset(access, { kind: 'access', ...common, expires_at: pair.accessExpiresAt })
        .pexpire(access, ttl(pair.accessExpiresAt - pair.issuedAt))
        .hset(refresh, { kind: 'refresh', ...common, expires_at: pair.refreshExpiresAt })
        .pexpire(refresh, refreshTtl)
        .sadd(set, pair.accessHash, pair.refreshHash)
        .pexpire(set, refreshTtl)
        // The grant is kept while this refresh token may come back.
        .pexpire(this.#key('grant', issued.grantId), refreshTtl)
        .exec(),
    );
  }

  async accessToken(hash: string): Promise<AccessTokenRow | undefined> {
    const flat = await this.#run(() =>
      this.#commands.switchboardAuthAccessToken(this.#key('token', hash), this.#key('grant', '')),
    );
    if (!flat) return undefined;
    const f = fieldsOf(flat);
    if (f.kind !== 'access' || f.subject === undefined) return undefined;
    return {
      kind: 'access',
      grantId: f.grant_id ?? '',
      clientId: f.client_id ?? '',
      resource: f.resource ?? '',
      scope: f.scope ?? '',
      issuedAt: num(f.issued_at),
      expiresAt: num(f.expires_at),
      ...(f.retired_at !== undefined ? { retiredAt: num(f.retired_at) } : {}),
      subject: f.subject,
      grantEnded: f.grant_ended_at !== undefined,
    };
  }

  async rotateRefresh(hash: string, request: RotationRequest): Promise<Rotation> {
    const key = this.#key('token', hash);
    const { next, now } = request;
    // A token's resource never changes, so judging it before the script is judging it inside; the script gives the
    // answer its place among the refusals.
    const resource = await this.#run(() => this.#redis.hget(key, 'resource'));
    const resourceOk = resource !== null && request.acceptsResource(resource);
    const [status, grantId, tokenResource, scope] = await this.#run(() =>
      this.#commands.switchboardAuthRotateRefresh(
        key,
        this.#prefix,
        request.clientId,
        now,
        resourceOk ? '1' : '0',
        next.accessHash,
        next.refreshHash,
        next.issuedAt,
        next.accessExpiresAt,
        next.refreshExpiresAt,
        ttl(next.accessExpiresAt - next.issuedAt),
        ttl(next.refreshExpiresAt - next.issuedAt),
      ),
    );
    switch (status) {
      case 'ok':
        return {
          status: 'ok',
          grantId: grantId as string,
          resource: tokenResource as string,
          scope: scope as string,
        };
      case 'reused':
        return { status: 'reused', grantId: grantId as string };
      case 'wrong_client':
      case 'ended':
      case 'expired':
      case 'wrong_resource':
        return { status };
      default:
        return { status: 'unknown' };
    }
  }

  // ---- the renewal lock ------------------------------------------------------------------------------------------

  async lockGrant(grantId: string): Promise<Release> {
    return this.#run(async () => {
      try {
        return await acquireRedisLock(this.#redis, this.#key('lock', 'grant', grantId), this.#lock);
      } catch (error) {
        if (!(error instanceof LockTimeoutError)) throw error;
        throw new AuthStateUnavailableError(
          'Another replica is renewing this connection’s upstream token and has not finished.',
          { cause: error },
        );
      }
    });
  }
}
