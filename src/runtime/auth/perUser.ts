// Per-user OAuth over HTTP, wired the same way whichever service offers it. A service entry may offer sign-in
// through its upstream's OAuth (PerUserAuthOffer): it reads its own settings and builds its upstream's OAuth client.
// `serve` asks the entries for the one the environment switches on; this module opens the vault (and its sealing
// key; in SQLite in the data folder, or in Redis when replicas share it), gives each person's calls their own
// upstream token (UserTokens), and makes the HTTP gate: our authorization server, built once the bound address (and
// so the public URL) is known.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolError } from '../errors.js';
import { log } from '../log.js';
import type { SharedState } from '../sharedState/redis.js';
import { RedisAuthState } from '../sharedState/redisAuthState.js';
import { REDIS_URL_VARIABLE } from '../sharedState/redisUrl.js';
import type { ServiceRuntime, ToolCall } from '../tool.js';
import {
  type AuthorizationServer,
  createAuthorizationServer,
  DEFAULT_CALLBACK_PATH,
} from './authorizationServer.js';
import { AuthStateUnavailableError } from './authState.js';
import { ClientMetadataDocuments } from './clientMetadata.js';
import { type AuthSettings, AuthSetupError, authSettingsFromEnv, resolvePublicUrl } from './config.js';
import { perOriginAuthorizationServer } from './publicOrigins.js';
import { type UpstreamOAuthClient, UserTokens, withUserTokenErrors } from './userTokens.js';
import { AuthVault, loadSecretKey } from './vault.js';

/** What a service offers for signing each person in through its upstream (the store's entry offers it). */
export interface PerUserAuthOffer {
  /** The variable that switches the sign-in on, as refusals name it. */
  readonly switchVariable: string;
  /** How pages, refusals and the banner name the upstream, e.g. "the data store". */
  readonly upstreamName: string;
  /** What to set to switch it on, for the refusal to serve unprotected. */
  readonly setupHint: string;
  /**
   * The service's sign-in settings from the environment: undefined when they do not switch it on. Throws an
   * AuthSetupError (naming the variable) for a malformed one.
   */
  fromEnv(env: NodeJS.ProcessEnv): PerUserAuthSetup | undefined;
}

export interface PerUserAuthSetup {
  /** The refusal when another setting contradicts per-user sign-in (one shared upstream credential). */
  conflict?: string;
  /** Where the upstream sends the person back, when configured; default `<public url>/oauth/callback`. */
  redirectUrl?: string;
  /** The variable that sets `redirectUrl`, as errors name it. */
  redirectUrlVariable: string;
  /** The error an agent sees when its person must sign in again (the service's own wording). */
  reconnectError(reason: string, how: string): ToolError;
  /** The upstream's OAuth client for the tools served, and where its OAuth lives (for the banner). */
  connect(served: { toolNames: readonly string[]; emulatorUrl?: string }): {
    client: UpstreamOAuthClient;
    oauthUrl: string;
  };
}

/** A service entry as this module sees it: its id, its tool prefix, and what it offers. */
export interface PerUserAuthProvider {
  id: string;
  definition: { prefix: string };
  perUserAuth?: PerUserAuthOffer;
}

/** The sign-in the environment switches on: whose, its settings and the runtime's own. */
export interface PerUserSignIn {
  provider: PerUserAuthProvider;
  offer: PerUserAuthOffer;
  setup: PerUserAuthSetup;
  settings: AuthSettings;
}

/** The one service whose per-user sign-in the environment switches on; undefined when none does. */
export function perUserSignInFromEnv(
  providers: readonly PerUserAuthProvider[],
  env: NodeJS.ProcessEnv,
): PerUserSignIn | undefined {
  const on = providers.flatMap((provider) => {
    const setup = provider.perUserAuth?.fromEnv(env);
    return provider.perUserAuth && setup ? [{ provider, offer: provider.perUserAuth, setup }] : [];
  });
  if (on.length > 1) {
    throw new AuthSetupError(
      `${on.map(({ offer }) => offer.switchVariable).join(' and ')} are set, but people sign in through one upstream only: unset all but one of them.`,
    );
  }
  const [first] = on;
  return first ? { ...first, settings: authSettingsFromEnv(env) } : undefined;
}

/** The upstream reached, and the gate that serves our authorization server in front of the MCP endpoint. */
export interface PerUserConnection {
  oauthUrl: string;
  /**
   * `originOf` (behind a trusted proxy, `serve --trust-proxy`): the public origin each request names; without a
   * configured SWITCHBOARD_PUBLIC_URL the authorization server's URLs then follow it (auth/publicOrigins.ts).
   */
  gate(bound: URL, mcpPath: string, originOf?: (request: Request) => URL | undefined): AuthorizationServer;
}

export class PerUserAuth {
  #tokens: UserTokens | undefined;

  constructor(
    readonly vault: AuthVault,
    private readonly signIn: PerUserSignIn,
  ) {}

  /** The calling person's upstream token: undefined before `connect`, and for a call without a principal. */
  readonly tokenFor = (call: ToolCall): Promise<string | undefined> | undefined =>
    this.#tokens?.tokenFor(call);

  /** The runtime with an upstream 401 on a person's call turned into "sign in again" (see withUserTokenErrors). */
  withUserTokenErrors<Ctx>(runtime: ServiceRuntime<Ctx>): ServiceRuntime<Ctx> {
    return withUserTokenErrors(runtime, () => this.#tokens);
  }

  /** Once the served tools are known (they decide the upstream scopes): the upstream client, tokens and gate. */
  connect(served: { toolNames: readonly string[]; emulatorUrl?: string }): PerUserConnection {
    const { setup, offer, settings } = this.signIn;
    const { client, oauthUrl } = setup.connect(served);
    this.#tokens = new UserTokens(this.vault, client, { reconnectError: setup.reconnectError });
    // One cache of clients' metadata documents for every public origin this process serves.
    const clientMetadata = new ClientMetadataDocuments({
      allowLoopback: settings.clientMetadataAllowLoopback === true,
    });
    return {
      oauthUrl,
      gate: (bound, mcpPath, originOf) => {
        const create = (publicUrl: URL) =>
          createAuthorizationServer({
            vault: this.vault,
            upstream: client,
            publicUrl,
            mcpPath,
            upstreamRedirectUrl: setup.redirectUrl ?? `${publicUrl.origin}${DEFAULT_CALLBACK_PATH}`,
            upstreamRedirectSetting: setup.redirectUrlVariable,
            upstreamName: offer.upstreamName,
            clientMetadata,
          });
        // A configured public URL names the one origin, whatever a proxy says; without a trusted proxy, so does
        // the bound address. Only behind a trusted proxy, with nothing configured, does each request say.
        if (settings.publicUrl || !originOf) return create(resolvePublicUrl(settings, bound));
        const redirect = setup.redirectUrl ? new URL(new URL(setup.redirectUrl).origin) : undefined;
        return perOriginAuthorizationServer({
          create,
          originOf,
          fallback: redirect ?? new URL(bound.origin),
          ...(redirect ? { allowedHosts: [redirect.hostname] } : {}),
        });
      },
    };
  }

  close(): Promise<void> {
    return this.vault.close();
  }
}

/**
 * Opens the vault (and its key): a wrong key or an unusable data folder stops the start at once. With `shared`
 * (SWITCHBOARD_REDIS_URL), the vault's rows live in Redis for every replica, and the key must come from
 * SWITCHBOARD_SECRET_KEY: a key each replica made in its own data folder would seal what the others cannot open.
 */
export async function openPerUserAuth(
  signIn: PerUserSignIn,
  dataDir: string,
  shared?: SharedState,
): Promise<PerUserAuth> {
  if (shared) {
    if (!signIn.settings.secretKey) {
      throw new AuthSetupError(
        `${REDIS_URL_VARIABLE} is set, so replicas share the sign-in state in Redis and must all seal it with one key: ` +
          'set SWITCHBOARD_SECRET_KEY to the same 32 random bytes in base64 on every replica (make one with ' +
          '`openssl rand -base64 32` and keep it in your secret store). A key made in each replica’s data folder ' +
          'would differ between replicas.',
      );
    }
    const key = loadSecretKey(signIn.settings.secretKey, dataDir);
    const vault = new AuthVault(new RedisAuthState(shared.redis), key.key);
    try {
      await vault.verifyKey();
    } catch (error) {
      // A Redis not up yet does not stop the start (shared state's rule): the first sign-in operation checks the key.
      if (!(error instanceof AuthStateUnavailableError)) throw error;
      log(
        'warn',
        'could not check the sealing key against the shared sign-in state yet; checking on first use',
        {
          reason: error.message,
        },
      );
    }
    log('info', 'per-user OAuth state', { store: 'redis', key: key.origin });
    return new PerUserAuth(vault, signIn);
  }
  const memory = dataDir === ':memory:';
  if (!memory) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = loadSecretKey(signIn.settings.secretKey, dataDir);
  if (key.origin === 'generated') {
    log('warn', 'generated a new key for sealing stored tokens; keep it (losing it ends every connection)', {
      path: key.path,
      hint: 'or set SWITCHBOARD_SECRET_KEY (32 bytes, base64) from a secret store',
    });
  } else if (key.looseFileMode !== undefined) {
    log('warn', 'the key file can be read by other users; chmod 600 it', {
      path: key.path,
      mode: key.looseFileMode.toString(8),
    });
  }
  const db = memory ? ':memory:' : join(dataDir, 'auth.db');
  const vault = new AuthVault(db, key.key);
  log('info', 'per-user OAuth state', { db, key: key.origin });
  return new PerUserAuth(vault, signIn);
}
