// The one token-renewal broker: hands out a grant's upstream access token, renewed before it expires, whichever
// store keeps the grant (the saved login's credentials file for stdio, the vault of per-user grants for HTTP).
//
// Upstreams rotate refresh tokens and treat a second use of a rotated one as theft, revoking the grant (RFC 9700
// §4.14), so a grant is renewed once at a time: calls that need the same renewal wait for it (in this process),
// and the store's lock keeps other processes out (the credentials file, which two MCP clients may share; the
// Redis-held vault, which replicas share). Under the lock the grant is read again, since another renewal (here or
// in another process) may have finished meanwhile.
//
// A store answers now or later (Awaitable): the credentials file is read synchronously, the vault may sit in Redis.

import { registerTransientSecret } from '../secrets.js';
import type { Awaitable, Release, UpstreamTokenSet } from './authState.js';

/** Renew the upstream access token when it has less than this left. */
export const RENEW_BEFORE_MS = 5 * 60 * 1000;

/** One grant's upstream tokens as a store holds them. */
export interface StoredGrant {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds. */
  accessExpiresAt: number;
  refreshExpiresAt?: number;
}

/** Where a broker's grants live. Errors it returns or throws are what callers see, in the store's own words. */
export interface GrantStore<G extends StoredGrant> {
  /**
   * The grant as stored now; undefined when there is none. Throws when it cannot be used (ended, unreadable, for
   * another API). `locked` reads are made under the grant's lock and must not trust anything cached.
   */
  read(key: string, locked: boolean): Awaitable<G | undefined>;
  /** Stores the renewed tokens of `grant` and returns the grant as it now stands. */
  write(key: string, grant: G, renewed: UpstreamTokenSet): Awaitable<G>;
  /** Exclusive use of one grant across whatever else shares the store (in-process exclusion is the broker's). */
  lock(key: string): Promise<Release>;
  /** The upstream will not renew the grant (its refresh token `expired`, or was `refused`): the error to throw. */
  ended(key: string, grant: G, why: 'expired' | 'refused'): Awaitable<Error>;
  /**
   * A renewal failed for another reason (network, 5xx, a refused client): returns the grant to go on with while its
   * access token lasts, or throws.
   */
  renewalFailed(key: string, grant: G, error: unknown): Awaitable<G>;
}

export interface TokenBrokerOptions<G extends StoredGrant> {
  /** Asks the upstream for new tokens; rotating, so the refresh token passed in stops working once this succeeds. */
  refresh(grant: G): Promise<UpstreamTokenSet>;
  now: () => number;
  renewBeforeMs?: number;
}

/** The upstream refused the grant itself (OAuth `invalid_grant`): only a new sign-in helps. */
export function grantIsGone(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { needsReconnect?: unknown }).needsReconnect === true
  );
}

export class TokenBroker<G extends StoredGrant> {
  readonly #inflight = new Map<string, Promise<G | undefined>>();
  readonly #renewBefore: number;

  constructor(
    private readonly store: GrantStore<G>,
    private readonly options: TokenBrokerOptions<G>,
  ) {
    this.#renewBefore = options.renewBeforeMs ?? RENEW_BEFORE_MS;
  }

  /** The grant with an access token good for now: as stored, or renewed first. Undefined when there is none. */
  async grant(key: string): Promise<G | undefined> {
    const stored = await this.store.read(key, false);
    if (!stored || this.#fresh(stored)) return stored;
    const running = this.#inflight.get(key);
    if (running) return running;
    const renewal = this.#renew(key).finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, renewal);
    return renewal;
  }

  #fresh(grant: G): boolean {
    return grant.accessExpiresAt - this.options.now() > this.#renewBefore;
  }

  async #renew(key: string): Promise<G | undefined> {
    const release = await this.store.lock(key);
    try {
      const grant = await this.store.read(key, true);
      if (!grant || this.#fresh(grant)) return grant;
      if (grant.refreshExpiresAt !== undefined && grant.refreshExpiresAt <= this.options.now()) {
        throw await this.store.ended(key, grant, 'expired');
      }
      let renewed: UpstreamTokenSet;
      try {
        renewed = await this.options.refresh(grant);
      } catch (error) {
        if (grantIsGone(error)) throw await this.store.ended(key, grant, 'refused');
        return await this.store.renewalFailed(key, grant, error);
      }
      registerTransientSecret(renewed.accessToken);
      registerTransientSecret(renewed.refreshToken);
      // Written before the lock is let go: the next holder must read the rotated refresh token, not the spent one.
      return await this.store.write(key, grant, renewed);
    } finally {
      await release();
    }
  }
}
