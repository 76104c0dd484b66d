// `switchboard serve`: builds the tool set for the chosen services (against real upstreams, or against in-process
// emulators in sandbox mode) and serves it over stdio or HTTP. Over HTTP with STORE_OAUTH_CLIENT_ID set, the MCP
// endpoint is an OAuth-protected resource and each person's StoreApi calls run with their own store token
// (src/runtime/auth/).

import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { OAuthModeSettings } from '../runtime/auth/config.js';
import type { UserTokens } from '../runtime/auth/userTokens.js';
import { log } from '../runtime/log.js';
import type { ServiceRuntime, ToolCall } from '../runtime/tool.js';
import { buildToolSet, type ToolNameStyle } from '../runtime/toolset.js';
import { type HttpOptions, MCP_PATH, serveHttp, serveStdio } from '../runtime/transports.js';
import { type MissingCredentials, type RunningEmulator, resolveServices } from '../services/registry.js';
import { type HttpProtection, printBanner } from './banner.js';
import { warnIfSeedIgnored } from './seedNotice.js';

export interface ServeOptions {
  transport: 'stdio' | 'http';
  host: string;
  port: number;
  sandbox: boolean;
  dataDir?: string;
  reset: boolean;
  seed?: number;
  readOnly: boolean;
  tools?: string;
  toolNames: ToolNameStyle;
  allowedHosts?: string;
  /** HTTP socket limits, in seconds (see runtime/httpLimits.ts); unset ones take the defaults. */
  requestTimeout?: number;
  headersTimeout?: number;
  keepAliveTimeout?: number;
  /** HTTP: most connections open at once. */
  maxConnections?: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** A running `serve`: where (over HTTP), and how to stop it. */
export interface ServeHandle {
  /** The MCP endpoint's URL (HTTP only): the public one with per-user OAuth. */
  url?: string;
  /** The MCP endpoint at the bound address (HTTP only). */
  boundUrl?: string;
  protection?: HttpProtection;
  close(): Promise<void>;
}

/** The refusals that come before anything starts: conflicting or missing protection. */
function checkProtection(
  options: ServeOptions,
  env: NodeJS.ProcessEnv,
  oauth: OAuthModeSettings | undefined,
) {
  const bearerToken = env.SWITCHBOARD_HTTP_TOKEN || undefined;
  if (options.transport !== 'http') return;
  if (oauth && env.STORE_ACCESS_TOKEN) {
    throw new Error(
      'STORE_OAUTH_CLIENT_ID and STORE_ACCESS_TOKEN are both set. Per-user OAuth gives each person their own store ' +
        'token, and one shared token would let everyone act as its owner: unset STORE_ACCESS_TOKEN for per-user ' +
        'OAuth, or unset STORE_OAUTH_CLIENT_ID to serve with the one token.',
    );
  }
  if (oauth && bearerToken) {
    throw new Error(
      'SWITCHBOARD_HTTP_TOKEN and STORE_OAUTH_CLIENT_ID are both set: choose one way to protect the MCP endpoint. ' +
        'Unset SWITCHBOARD_HTTP_TOKEN for per-user OAuth sign-in, or unset STORE_OAUTH_CLIENT_ID for the one shared bearer token.',
    );
  }
  if (!LOOPBACK.has(options.host) && !bearerToken && !oauth) {
    throw new Error(
      `Refusing to serve on ${options.host} without protection: these tools act with organisation-wide credentials. ` +
        'Protect the MCP endpoint in one of two ways: per-user OAuth sign-in through the data store (set ' +
        'STORE_OAUTH_CLIENT_ID and STORE_OAUTH_CLIENT_SECRET of your store OAuth integration, and ' +
        'SWITCHBOARD_PUBLIC_URL to the https URL clients reach this server at), or a static bearer token for a ' +
        'private deployment (set SWITCHBOARD_HTTP_TOKEN; clients then send "Authorization: Bearer <token>"). ' +
        'Or bind to 127.0.0.1.',
    );
  }
  if (oauth && !oauth.publicUrl && !LOOPBACK.has(options.host)) {
    throw new Error(
      `Per-user OAuth on ${options.host} needs SWITCHBOARD_PUBLIC_URL: the https URL clients reach this server at (the issuer and resource they sign in for).`,
    );
  }
}

export async function startServe(
  names: string[],
  options: ServeOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServeHandle> {
  const services = resolveServices(names);
  const bearerToken = env.SWITCHBOARD_HTTP_TOKEN || undefined;
  const auth = options.transport === 'http' ? await import('../runtime/auth/config.js') : undefined;
  const oauth = auth?.oauthSettingsFromEnv(env);
  checkProtection(options, env, oauth);

  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers) await closer().catch(() => undefined);
  };
  try {
    // Per-user OAuth: the vault opens first, so a wrong key or an unusable data folder stops the start at once.
    let perUser: Awaited<ReturnType<typeof openPerUserAuth>> | undefined;
    if (oauth) {
      perUser = await openPerUserAuth(oauth, options.dataDir ?? env.SWITCHBOARD_DATA_DIR ?? defaultDataDir());
      closers.push(async () => perUser?.vault.close());
    }
    // The broker is made once the tool set says which store scopes to ask for; the tools only reach it per call.
    let userTokens: UserTokens | undefined;
    const userToken = (call: ToolCall) => userTokens?.tokenFor(call);

    const emulators: { id: string; emulator: RunningEmulator }[] = [];
    const runtimes: ServiceRuntime[] = [];
    // Services that start without credentials (so every call fails): warned about, not refused, below.
    const unconfigured: { id: string; context: unknown; missing: MissingCredentials }[] = [];
    for (const service of services) {
      const perUserOptions = perUser && service.takesUserToken ? { userToken } : undefined;
      let runtime: ServiceRuntime;
      if (options.sandbox) {
        const dataDir =
          options.dataDir ?? env.SWITCHBOARD_DATA_DIR ?? join(homedir(), '.switchboard', 'sandbox');
        if (dataDir !== ':memory:') mkdirSync(dataDir, { recursive: true });
        const emulator = await service.startEmulator({
          db: dataDir === ':memory:' ? ':memory:' : join(dataDir, `${service.id}.db`),
          reset: options.reset,
          ...(options.seed !== undefined ? { seed: options.seed } : {}),
        });
        closers.push(() => emulator.close());
        // Kept data is not reseeded: a --seed for it would otherwise be ignored without a word.
        warnIfSeedIgnored(service.id, options.seed, emulator.seeding, join(dataDir, `${service.id}.db`));
        emulators.push({ id: service.id, emulator });
        runtime = service.runtimeForEmulator(emulator, env, perUserOptions);
      } else {
        runtime = service.runtimeFromEnv(env, perUserOptions);
      }
      const served =
        perUser && perUserOptions ? perUser.withUserTokenErrors(runtime, () => userTokens) : runtime;
      runtimes.push(served);
      const missing = options.sandbox
        ? undefined
        : service.missingCredentials(env, { perUserTokens: perUserOptions !== undefined });
      if (missing) unconfigured.push({ id: service.id, context: served.context, missing });
    }

    const toolSet = buildToolSet(runtimes, {
      nameStyle: options.toolNames,
      readOnly: options.readOnly,
      // Even `--tools ''` is passed on: the tool set refuses a selection that names nothing.
      ...(options.tools !== undefined ? { only: options.tools.split(',') } : {}),
    });
    // Only for services some served tool belongs to. Over stdio the line lands in the client's server log.
    for (const { id, context, missing } of unconfigured) {
      if (!toolSet.tools.some((tool) => tool.context === context)) continue;
      const names = `${missing.variables.join(' and ')} ${missing.variables.length > 1 ? 'are' : 'is'}`;
      log('warn', `${id}: ${names} not set, so every ${id} tool call will fail`, {
        service: id,
        missing: missing.variables,
        hint: missing.hint,
      });
    }

    if (options.transport === 'stdio') {
      const handle = serveStdio(toolSet);
      closers.unshift(() => handle.close());
      log('info', 'serving MCP over stdio', {
        tools: toolSet.tools.length,
        sandbox: options.sandbox,
        emulators: Object.fromEntries(emulators.map(({ id, emulator }) => [id, emulator.url])),
      });
      return { close };
    }

    // Set by the gate once the server is bound (the public URL may only be known then).
    const serving: { protection: HttpProtection } = {
      protection: bearerToken ? { kind: 'bearer' } : { kind: 'none' },
    };
    let gate: HttpOptions['auth'];
    if (perUser && oauth) {
      const storeEmulator = emulators.find((e) => e.id === 'store')?.emulator.url;
      const store = await import('../services/store/oauth.js');
      const { DEFAULT_BASE_URL } = await import('../services/store/upstream.js');
      const apiUrl = storeEmulator ?? env.STORE_BASE_URL?.replace(/\/+$/, '') ?? DEFAULT_BASE_URL;
      // The emulator serves OAuth on its own origin; the real store on airtable.com, beside its API host.
      const oauthUrl =
        oauth.oauthUrl ?? storeEmulator ?? env.STORE_BASE_URL?.replace(/\/+$/, '') ?? store.DEFAULT_OAUTH_URL;
      const storeToolNames = toolSet.tools
        .filter((tool) => tool.specName.startsWith('StoreApi.'))
        .map((tool) => tool.specName.slice('StoreApi.'.length));
      const client = new store.StoreOAuthClient({
        clientId: oauth.clientId,
        ...(oauth.clientSecret ? { clientSecret: oauth.clientSecret } : {}),
        oauthUrl,
        apiUrl,
        scopes: oauth.scopes ?? store.scopesForTools(storeToolNames),
        ...(env.SWITCHBOARD_TIMEOUT_MS ? { timeoutMs: Number(env.SWITCHBOARD_TIMEOUT_MS) } : {}),
      });
      userTokens = new perUser.UserTokens(perUser.vault, client, { reconnectError: store.reconnectError });
      const vault = perUser.vault;
      gate = async (bound: URL) => {
        const publicUrl = perUser.resolvePublicUrl(oauth, bound);
        const authorizationServer = perUser.createAuthorizationServer({
          vault,
          upstream: client,
          publicUrl,
          mcpPath: MCP_PATH,
          upstreamRedirectUrl: oauth.redirectUrl ?? `${publicUrl.origin}${perUser.DEFAULT_CALLBACK_PATH}`,
          upstreamName: 'the data store',
        });
        serving.protection = {
          kind: 'oauth',
          issuer: authorizationServer.issuer,
          resource: authorizationServer.resource.href,
          upstream: oauthUrl,
        };
        return authorizationServer;
      };
    }

    const server = await serveHttp(
      toolSet,
      { host: options.host, port: options.port },
      {
        ...(bearerToken ? { bearerToken } : {}),
        ...(gate ? { auth: gate } : {}),
        ...(options.allowedHosts
          ? { allowedHosts: options.allowedHosts.split(',').map((h) => h.trim()) }
          : {}),
        limits: {
          ...(options.requestTimeout ? { requestTimeoutMs: options.requestTimeout * 1000 } : {}),
          ...(options.headersTimeout ? { headersTimeoutMs: options.headersTimeout * 1000 } : {}),
          ...(options.keepAliveTimeout ? { keepAliveTimeoutMs: options.keepAliveTimeout * 1000 } : {}),
          ...(options.maxConnections ? { maxConnections: options.maxConnections } : {}),
        },
      },
    );
    closers.unshift(() => server.close());
    const { protection } = serving;
    const url = protection.kind === 'oauth' ? protection.resource : server.url;
    printBanner({ url, toolSet, sandbox: options.sandbox, emulators, protection });
    return { url, boundUrl: server.url, protection, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function defaultDataDir(): string {
  return join(homedir(), '.switchboard');
}

/** Opens the vault (and its key) and loads the per-user modules, only when OAuth mode is on. */
async function openPerUserAuth(settings: OAuthModeSettings, dataDir: string) {
  const [vaultModule, configModule, userTokensModule, serverModule] = await Promise.all([
    import('../runtime/auth/vault.js'),
    import('../runtime/auth/config.js'),
    import('../runtime/auth/userTokens.js'),
    import('../runtime/auth/authorizationServer.js'),
  ]);
  const memory = dataDir === ':memory:';
  if (!memory) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = vaultModule.loadSecretKey(settings.secretKey, dataDir);
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
  const vault = new vaultModule.AuthVault(memory ? ':memory:' : join(dataDir, 'auth.db'), key.key);
  log('info', 'per-user OAuth state', {
    db: memory ? ':memory:' : join(dataDir, 'auth.db'),
    key: key.origin,
  });
  return {
    vault,
    UserTokens: userTokensModule.UserTokens,
    withUserTokenErrors: userTokensModule.withUserTokenErrors,
    resolvePublicUrl: configModule.resolvePublicUrl,
    createAuthorizationServer: serverModule.createAuthorizationServer,
    DEFAULT_CALLBACK_PATH: serverModule.DEFAULT_CALLBACK_PATH,
  };
}

export async function runServe(names: string[], options: ServeOptions): Promise<void> {
  const handle = await startServe(names, options);
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await handle.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  if (options.transport === 'stdio') process.stdin.once('end', shutdown);
}
