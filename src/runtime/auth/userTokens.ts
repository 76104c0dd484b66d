// Per-call upstream credentials over HTTP with per-user OAuth: the verified caller's grant gives the upstream
// access token that call runs with, and nothing else does. Tokens are renewed before they expire, one renewal per
// grant at a time (the upstream rotates refresh tokens and treats a second use of one as theft, revoking the
// grant), and the rotated tokens are sealed back into the vault. A grant the upstream no longer honours (revoked,
// expired, refused) is ended, and the call fails with a "reconnect" error: the person's MCP client then gets 401 on
// its next request and runs the sign-in again.

import { isToolError, ToolError } from '../errors.js';
import { log } from '../log.js';
import { registerTransientSecret } from '../secrets.js';
import type { ServiceRuntime, ToolCall } from '../tool.js';
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

/** The upstream refused the grant itself (OAuth `invalid_grant`): only a new sign-in helps. */
export function grantIsGone(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { needsReconnect?: unknown }).needsReconnect === true
  );
}

/** Renew the upstream access token when it has less than this left. */
export const REFRESH_MARGIN_MS = 5 * 60 * 1000;

export interface UserTokensOptions {
  /** Builds the error an agent sees when its person must connect again (the service's own wording). */
  reconnectError: (reason: string, how: string) => ToolError;
  refreshMarginMs?: number;
}

const HOW_TO_RECONNECT =
  'Sign in again: your MCP client does so when it next connects (it is refused with 401 until then), or remove and re-add the server in its settings. Then call the tool again.';

export class UserTokens {
  readonly #inflight = new Map<string, Promise<string>>();
  /** Which version of its grant's tokens each call ran with, to tell a stale token from a refused one. */
  readonly #used = new WeakMap<ToolCall, number>();
  readonly #margin: number;

  constructor(
    private readonly vault: AuthVault,
    private readonly upstream: UpstreamOAuthClient,
    private readonly options: UserTokensOptions,
  ) {
    this.#margin = options.refreshMarginMs ?? REFRESH_MARGIN_MS;
  }

  /**
   * The calling person's upstream access token. Undefined for a call without a verified principal (then the
   * service's other token sources, or its missing-credential error, apply).
   */
  async tokenFor(call: ToolCall): Promise<string | undefined> {
    const principal = call.principal;
    if (!principal) return undefined;
    const grant = this.vault.grant(principal.grantId);
    if (!grant || grant.subject !== principal.subject) {
      throw this.#reconnect('this connection is not known to the server');
    }
    if (grant.endedAt !== undefined) throw this.#reconnect(reasonOf(grant));
    if (grant.accessExpiresAt - this.vault.now > this.#margin) {
      const tokens = this.vault.upstreamTokens(grant.id);
      if (tokens) {
        this.#used.set(call, tokens.version);
        return tokens.accessToken;
      }
      return this.#unreadable(grant);
    }
    const token = await this.#renew(grant.id);
    const current = this.vault.grant(grant.id);
    if (current) this.#used.set(call, current.version);
    return token;
  }

  /**
   * The error to report when the upstream answered a call's request with 401. The grant is ended (and the
   * person asked to reconnect) unless the call ran with tokens that have since been replaced: then only that
   * call's token was stale, and calling again works.
   */
  afterUnauthorized(call: ToolCall, original: ToolError): ToolError {
    const principal = call.principal;
    if (!principal) return original;
    const grant = this.vault.grant(principal.grantId);
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
    this.vault.endGrant(grant.id, 'the upstream refused its access token');
    log('info', 'grant ended: upstream refused its token', { grant: grant.id, subject: grant.subject });
    return this.#reconnect('the data store no longer accepts it (the access may have been revoked)');
  }

  /** One renewal per grant at a time; every call that needs it waits for the same one. */
  #renew(grantId: string): Promise<string> {
    const running = this.#inflight.get(grantId);
    if (running) return running;
    const renewal = this.#refresh(grantId).finally(() => this.#inflight.delete(grantId));
    this.#inflight.set(grantId, renewal);
    return renewal;
  }

  async #refresh(grantId: string): Promise<string> {
    const grant = this.vault.grant(grantId);
    if (!grant || grant.endedAt !== undefined)
      throw this.#reconnect(grant ? reasonOf(grant) : 'it has ended');
    const now = this.vault.now;
    // Another renewal may have finished just before this one started.
    const tokens = this.vault.upstreamTokens(grantId);
    if (!tokens) return this.#unreadable(grant);
    if (grant.accessExpiresAt - now > this.#margin) return tokens.accessToken;
    if (grant.refreshExpiresAt !== undefined && grant.refreshExpiresAt <= now) {
      this.vault.endGrant(grantId, 'its refresh token expired');
      throw this.#reconnect('it has not been used for too long and has expired');
    }
    let renewed: UpstreamTokenSet;
    try {
      renewed = await this.upstream.refresh(tokens.refreshToken);
    } catch (error) {
      if (grantIsGone(error)) {
        this.vault.endGrant(grantId, 'the upstream refused to renew it');
        log('info', 'grant ended: upstream refused the refresh', { grant: grantId, subject: grant.subject });
        throw this.#reconnect('the data store refused to renew it (revoked or expired)');
      }
      const message = error instanceof Error ? error.message : String(error);
      log('warn', 'could not renew an upstream token', { grant: grantId, error: message });
      // The old token still works until it expires; only an expired one makes this call fail.
      if (grant.accessExpiresAt > now) return tokens.accessToken;
      throw new ToolError({
        kind: 'upstream_unavailable',
        message: `Could not renew your data store connection: ${message}`,
        hint: 'Try again shortly.',
        retryable: true,
      });
    }
    registerTransientSecret(renewed.accessToken);
    registerTransientSecret(renewed.refreshToken);
    this.vault.saveUpstreamTokens(grantId, renewed);
    log('debug', 'upstream token renewed', { grant: grantId });
    return renewed.accessToken;
  }

  #unreadable(grant: GrantRecord): never {
    this.vault.endGrant(grant.id, 'its sealed tokens could not be opened');
    throw this.#reconnect('its stored tokens could not be read');
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
      tools: definition.tools.map((tool) => ({
        ...tool,
        run: async (args: unknown, ctx: Ctx, call: ToolCall) => {
          try {
            return await tool.run(args, ctx, call);
          } catch (error) {
            const broker = tokens();
            if (broker && call.principal && isToolError(error) && error.status === 401) {
              throw broker.afterUnauthorized(call, error);
            }
            throw error;
          }
        },
      })),
    },
  } satisfies ServiceRuntime<Ctx>;
}
