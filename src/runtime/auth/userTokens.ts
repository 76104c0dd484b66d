// Per-call upstream credentials over HTTP with per-user OAuth: the verified caller's grant gives the upstream
// access token that call runs with, and nothing else does. Tokens are renewed before they expire, one renewal per
// grant at a time (the upstream rotates refresh tokens and treats a second use of one as theft, revoking the
// grant; with replicas sharing the vault in Redis, one renewal across all of them), and the rotated tokens are sealed
// back into the vault. A grant the upstream no longer honours (revoked, expired, refused) is ended, and the call
// fails with a "reconnect" error: the person's MCP client then gets 401 on its next request and runs the sign-in
// again. Shared state out of reach (Redis down) fails the call as retryable, without ending anything.

import { isToolError, ToolError } from '../errors.js';
import { log } from '../log.js';
import { changeDefinition, type ServiceRuntime, type ToolCall } from '../tool.js';
import { AuthStateUnavailableError, type Release } from './authState.js';
import { type GrantStore, RENEW_BEFORE_MS, type StoredGrant, TokenBroker } from './renewal.js';
import type { AuthVault, GrantRecord, UpstreamTokenSet } from './vault.js';

/** The upstream's OAuth client as this module uses it (the store's StoreOAuthClient fits). */
export interface UpstreamOAuthClient {
  readonly scopes: readonly string[];
  authorizeUrl(options: { redirectUri: string; state: string; codeChallenge: string }): string;
  exchangeCode(options: {
    code: string;
    redirectUri: string;
    codeVerifier: string;
  }): Promise<UpstreamTokenSet>;
  /** Rotating: the refresh token passed in stops working once this succeeds. */
  refresh(refreshToken: string): Promise<UpstreamTokenSet>;
  whoami(accessToken: string): Promise<{ id: string }>;
}

/** Renew the upstream access token when it has less than this left. */
export const REFRESH_MARGIN_MS = RENEW_BEFORE_MS;

export interface UserTokensOptions {
  /** Builds the error an agent sees when its person must connect again (the service's own wording). */
  reconnectError: (reason: string, how: string) => ToolError;
  refreshMarginMs?: number;
}

const HOW_TO_RECONNECT =
  'Sign in again: your MCP client does so when it next connects (it is refused with 401 until then), or remove and re-add the server in its settings. Then call the tool again.';

/** A grant in the vault with its opened upstream tokens, and the version of those tokens. */
interface VaultGrant extends StoredGrant {
  record: GrantRecord;
  version: number;
}

/**
 * The vault as the broker's store: grants by id, read afresh every time (another replica may have renewed them),
 * locked through the vault's state (nothing more for SQLite, which one process owns; a Redis lock for replicas).
 */
class VaultGrantStore implements GrantStore<VaultGrant> {
  constructor(
    private readonly vault: AuthVault,
    private readonly reconnect: (reason: string) => ToolError,
  ) {}

  async read(grantId: string): Promise<VaultGrant> {
    const found = await this.vault.grantWithTokens(grantId);
    const record = found?.record;
    if (!record || record.endedAt !== undefined) {
      throw this.reconnect(record ? reasonOf(record) : 'it has ended');
    }
    const tokens = found.tokens;
    if (!tokens) {
      await this.vault.endGrant(grantId, 'its sealed tokens could not be opened');
      throw this.reconnect('its stored tokens could not be read');
    }
    return {
      record,
      version: tokens.version,
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      accessExpiresAt: record.accessExpiresAt,
      ...(record.refreshExpiresAt !== undefined ? { refreshExpiresAt: record.refreshExpiresAt } : {}),
    };
  }

  async write(grantId: string, grant: VaultGrant, renewed: UpstreamTokenSet): Promise<VaultGrant> {
    const record = (await this.vault.saveUpstreamTokens(grantId, renewed)) ?? grant.record;
    log('debug', 'upstream token renewed', { grant: grantId });
    return {
      record,
      version: record.version,
      accessToken: renewed.accessToken,
      refreshToken: renewed.refreshToken,
      accessExpiresAt: record.accessExpiresAt,
      ...(record.refreshExpiresAt !== undefined ? { refreshExpiresAt: record.refreshExpiresAt } : {}),
    };
  }

  lock(grantId: string): Promise<Release> {
    return this.vault.lockGrant(grantId);
  }

  async ended(grantId: string, grant: VaultGrant, why: 'expired' | 'refused'): Promise<ToolError> {
    if (why === 'expired') {
      await this.vault.endGrant(grantId, 'its refresh token expired');
      return this.reconnect('it has not been used for too long and has expired');
    }
    await this.vault.endGrant(grantId, 'the upstream refused to renew it');
    log('info', 'grant ended: upstream refused the refresh', {
      grant: grantId,
      subject: grant.record.subject,
    });
    return this.reconnect('the data store refused to renew it (revoked or expired)');
  }

  renewalFailed(grantId: string, grant: VaultGrant, error: unknown): VaultGrant {
    const message = error instanceof Error ? error.message : String(error);
    log('warn', 'could not renew an upstream token', { grant: grantId, error: message });
    // The old token still works until it expires; only an expired one makes this call fail.
    if (grant.accessExpiresAt > this.vault.now) return grant;
    throw new ToolError({
      kind: 'upstream_unavailable',
      message: `Could not renew your data store connection: ${message}`,
      hint: 'Try again shortly.',
      retryable: true,
    });
  }
}

export class UserTokens {
  /** Which version of its grant's tokens each call ran with, to tell a stale token from a refused one. */
  readonly #used = new WeakMap<ToolCall, number>();
  readonly #broker: TokenBroker<VaultGrant>;

  constructor(
    private readonly vault: AuthVault,
    upstream: UpstreamOAuthClient,
    private readonly options: UserTokensOptions,
  ) {
    this.#broker = new TokenBroker(new VaultGrantStore(vault, (reason) => this.#reconnect(reason)), {
      refresh: (grant) => upstream.refresh(grant.refreshToken),
      now: () => vault.now,
      renewBeforeMs: options.refreshMarginMs ?? REFRESH_MARGIN_MS,
    });
  }

  /**
   * The calling person's upstream access token. Undefined for a call without a verified principal (then the
   * service's other token sources, or its missing-credential error, apply).
   */
  async tokenFor(call: ToolCall): Promise<string | undefined> {
    const principal = call.principal;
    if (!principal) return undefined;
    try {
      const grant = await this.vault.grant(principal.grantId);
      if (!grant || grant.subject !== principal.subject) {
        throw this.#reconnect('this connection is not known to the server');
      }
      const current = await this.#broker.grant(grant.id);
      if (!current) return undefined;
      this.#used.set(call, current.version);
      return current.accessToken;
    } catch (error) {
      // Shared state out of reach (Redis down, a renewal lock held elsewhere): the call can be tried again.
      if (error instanceof AuthStateUnavailableError) {
        throw new ToolError({
          kind: 'upstream_unavailable',
          message: `Your data store connection could not be read or renewed just now: ${error.message}`,
          hint: 'Try the call again shortly.',
          retryable: true,
          cause: error,
        });
      }
      throw error;
    }
  }

  /**
   * The error to report when the upstream answered a call's request with 401. The grant is ended (and the
   * person asked to reconnect) unless the call ran with tokens that have since been replaced: then only that
   * call's token was stale, and calling again works.
   */
  async afterUnauthorized(call: ToolCall, original: ToolError): Promise<ToolError> {
    const principal = call.principal;
    if (!principal) return original;
    const grant = await this.vault.grant(principal.grantId);
    if (!grant || grant.endedAt !== undefined)
      return this.#reconnect(grant ? reasonOf(grant) : 'it has ended');
    const used = this.#used.get(call);
    if (used !== undefined && used !== grant.version) {
      return new ToolError({
        kind: 'unauthorized',
        status: 401,
        message: 'The data store refused a token that was renewed while this call ran.',
        hint: 'Call the tool again; it will use the renewed token.',
        retryable: true,
      });
    }
    await this.vault.endGrant(grant.id, 'the upstream refused its access token');
    log('info', 'grant ended: upstream refused its token', { grant: grant.id, subject: grant.subject });
    return this.#reconnect('the data store no longer accepts it (the access may have been revoked)');
  }

  #reconnect(reason: string): ToolError {
    return this.options.reconnectError(reason, HOW_TO_RECONNECT);
  }
}

function reasonOf(grant: GrantRecord): string {
  return `it has ended (${grant.endReason ?? 'ended'})`;
}

/**
 * Wraps a runtime whose token source is `tokens` so that an upstream 401 on a person's call becomes the
 * reconnect error (or, for a token renewed meanwhile, a call-again error) instead of a bare "unauthorized".
 */
export function withUserTokenErrors<Ctx>(runtime: ServiceRuntime<Ctx>, tokens: () => UserTokens | undefined) {
  const definition = runtime.definition;
  return {
    context: runtime.context,
    definition: {
      ...definition,
      tools: definition.tools.map((entry) =>
        changeDefinition(entry, (tool) => ({
          ...tool,
          run: async (args: unknown, ctx: Ctx, call: ToolCall) => {
            try {
              return await tool.run(args, ctx, call);
            } catch (error) {
              const broker = tokens();
              if (broker && call.principal && isToolError(error) && error.status === 401) {
                throw await broker.afterUnauthorized(call, error);
              }
              throw error;
            }
          },
        })),
      ),
    },
  } satisfies ServiceRuntime<Ctx>;
}
