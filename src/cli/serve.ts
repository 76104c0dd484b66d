// `switchboard serve`: builds the tool set for the chosen services (against real upstreams, or against in-process
// emulators in sandbox mode) and serves it over stdio or HTTP. Over HTTP, when the environment switches on the
// per-user sign-in a service offers (the store's, with STORE_OAUTH_CLIENT_ID), the MCP endpoint is an
// OAuth-protected resource and each person's calls run with their own upstream token (src/runtime/auth/perUser.ts).

import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { consoleAvailability } from '../console/availability.js';
import type { PerUserSignIn } from '../runtime/auth/perUser.js';
import { discoveryToolSet } from '../runtime/discovery.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../runtime/lifecycle.js';
import { log } from '../runtime/log.js';
import type { ReadinessCheck } from '../runtime/readiness.js';
import type { SharedState } from '../runtime/sharedState/redis.js';
import { redisUrlFrom } from '../runtime/sharedState/redisUrl.js';
import { serveStdio } from '../runtime/stdio.js';
import type { ServiceRuntime } from '../runtime/tool.js';
import { buildToolSet, type ToolNameStyle } from '../runtime/toolset.js';
import { shutdownTracing, startTracing } from '../runtime/tracing.js';
import type { HttpOptions } from '../runtime/transports.js';
import { resolveServices, SERVICES } from '../services/registry.js';
import type { MissingCredentials, RunningEmulator } from '../services/serviceEntry.js';
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
  /** Comma-separated toolset selectors (`store.records`, `store`, `records`). */
  toolsets?: string;
  toolNames: ToolNameStyle;
  /** Serve the discovery mode (search_tools and call_tool over the chosen tools) at stdio and at HTTP `/mcp`. */
  discovery?: boolean;
  /** The most o200k tokens one tool result may take (runtime/result.ts); unset: the default budget. */
  maxResultTokens?: number;
  /** false (--no-confirm-destructive): destructive tools never ask the user first (runtime/confirmation.ts). */
  confirmDestructive?: boolean;
  /** false (--no-output-schemas): tools/list carries no outputSchema (runtime/outputSchemas.ts). */
  outputSchemas?: boolean;
  allowedHosts?: string;
  /** HTTP socket limits, in seconds (see runtime/httpLimits.ts); unset ones take the defaults. */
  requestTimeout?: number;
  headersTimeout?: number;
  keepAliveTimeout?: number;
  /** HTTP: most connections open at once. */
  maxConnections?: number;
  /** HTTP: believe X-Forwarded-Proto/-Host and Forwarded from the proxy in front (runtime/publicUrl.ts). */
  trustProxy?: boolean;
  /** HTTP: serve /metrics on this port of the same host, unprotected, instead of on the MCP port. */
  metricsPort?: number;
  /** HTTP: seconds calls in flight get to finish on SIGTERM/SIGINT (runtime/lifecycle.ts); unset: the default. */
  shutdownGrace?: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** A running `serve`: where (over HTTP), and how to stop it. */
export interface ServeHandle {
  /** The MCP endpoint's URL (HTTP only): the public one with per-user OAuth. */
  url?: string;
  /** The MCP endpoint at the bound address (HTTP only). */
  boundUrl?: string;
  protection?: HttpProtection;
  /** Where /metrics is served apart (`metricsPort`), when it is. */
  metricsUrl?: string;
  /** The sandbox console's page (HTTP sandbox, where it is served). */
  consoleUrl?: string;
  /** Closes at once. */
  close(): Promise<void>;
  /**
   * The graceful stop (HTTP): no new connections, calls in flight given `shutdownGrace` to finish, then everything
   * closed, shared resources last. Over stdio the same as `close`.
   */
  shutdown(): Promise<void>;
}

/** The refusals that come before anything starts: conflicting or missing protection. */
function checkProtection(options: ServeOptions, env: NodeJS.ProcessEnv, signIn: PerUserSignIn | undefined) {
  const bearerToken = env.SWITCHBOARD_HTTP_TOKEN || undefined;
  if (options.transport !== 'http') return;
  if (signIn?.setup.conflict) throw new Error(signIn.setup.conflict);
  if (signIn && bearerToken) {
    const variable = signIn.offer.switchVariable;
    throw new Error(
      `SWITCHBOARD_HTTP_TOKEN and ${variable} are both set: choose one way to protect the MCP endpoint. ` +
        `Unset SWITCHBOARD_HTTP_TOKEN for per-user OAuth sign-in, or unset ${variable} for the one shared bearer token.`,
    );
  }
  if (!LOOPBACK.has(options.host) && !bearerToken && !signIn) {
    const ways = [
      ...SERVICES.flatMap(({ perUserAuth: offer }) =>
        offer
          ? [
              `per-user OAuth sign-in through ${offer.upstreamName} (${offer.setupHint}, and ` +
                'SWITCHBOARD_PUBLIC_URL to the https URL clients reach this server at)',
            ]
          : [],
      ),
      'a static bearer token for a private deployment (set SWITCHBOARD_HTTP_TOKEN; clients then send "Authorization: Bearer <token>")',
    ];
    throw new Error(
      `Refusing to serve on ${options.host} without protection: these tools act with organisation-wide credentials. ` +
        `Protect the MCP endpoint in one of ${ways.length === 2 ? 'two ways' : 'these ways'}: ${ways.join(', or ')}. ` +
        'Or bind to 127.0.0.1.',
    );
  }
  // Behind a trusted proxy the public URL is what the proxy says each request was sent to.
  if (signIn && !signIn.settings.publicUrl && !LOOPBACK.has(options.host) && !options.trustProxy) {
    throw new Error(
      `Per-user OAuth on ${options.host} needs SWITCHBOARD_PUBLIC_URL: the https URL clients reach this server at (the issuer and resource they sign in for). ` +
        'Behind a proxy that sets X-Forwarded-Proto and X-Forwarded-Host, --trust-proxy takes it from those instead.',
    );
  }
}

/** Flags that only mean something over HTTP, or that would collide, refused before anything starts. */
function checkOperatingFlags(options: ServeOptions): void {
  if (options.transport === 'http') {
    if (
      options.metricsPort !== undefined &&
      options.metricsPort !== 0 &&
      options.metricsPort === options.port
    ) {
      throw new Error(
        `--metrics-port ${options.metricsPort} is the MCP port too: choose another port for the metrics (0 picks a free one), or leave it out to serve /metrics on the MCP port behind its protection.`,
      );
    }
    return;
  }
  const httpOnly = [
    options.metricsPort !== undefined ? '--metrics-port' : undefined,
    options.trustProxy ? '--trust-proxy' : undefined,
  ].filter((flag): flag is string => flag !== undefined);
  if (httpOnly.length > 0) {
    throw new Error(`${httpOnly.join(' and ')} only apply to --transport http; leave them out over stdio.`);
  }
}

export async function startServe(
  names: string[],
  options: ServeOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServeHandle> {
  const services = resolveServices(names);
  const bearerToken = env.SWITCHBOARD_HTTP_TOKEN || undefined;
  // Loaded for HTTP only: stdio never signs anyone in, and the vault needs SQLite.
  const auth = options.transport === 'http' ? await import('../runtime/auth/perUser.js') : undefined;
  const signIn = auth?.perUserSignInFromEnv(SERVICES, env);
  checkProtection(options, env, signIn);
  checkOperatingFlags(options);
  // A malformed SWITCHBOARD_REDIS_URL stops the start before anything opens.
  const redisUrl = redisUrlFrom(env);

  const closers: (() => Promise<void>)[] = [];
  // What replicas share (SWITCHBOARD_REDIS_URL): the services' rate budgets and caches, and the OAuth state.
  // Undefined: every part keeps its embedded state.
  let sharedState: SharedState | undefined;
  let closeSharedState: (() => Promise<void>) | undefined;
  /** What /readyz checks: the shared state's connection, where there is one. */
  const readiness: ReadinessCheck[] = [];
  const close = async () => {
    for (const closer of closers) await closer().catch(() => undefined);
    // Last: the server and the OAuth state may use the connection while they close.
    await closeSharedState?.().catch(() => undefined);
  };
  try {
    // Traces only when an OTLP endpoint is set (runtime/tracing.ts); sent on after the server has closed.
    if (await startTracing({ env })) closers.push(shutdownTracing);

    if (redisUrl) {
      // Loaded only when configured: a process without Redis never loads its client.
      const shared = await import('../runtime/sharedState/redis.js');
      const opened = await shared.openSharedState(redisUrl);
      sharedState = opened;
      closeSharedState = () => shared.closeRedis(opened.redis);
      readiness.push(shared.redisReadinessCheck(opened.redis));
    }

    // Per-user OAuth: the vault opens first, so a wrong key or an unusable data folder stops the start at once.
    // With shared state its rows live in Redis (and the key must come from SWITCHBOARD_SECRET_KEY).
    const perUser =
      auth && signIn
        ? await auth.openPerUserAuth(
            signIn,
            options.dataDir ?? env.SWITCHBOARD_DATA_DIR ?? defaultDataDir(),
            sharedState,
          )
        : undefined;
    if (perUser) closers.push(async () => perUser.close());

    const emulators: { id: string; emulator: RunningEmulator }[] = [];
    const runtimes: ServiceRuntime[] = [];
    // Services that start without credentials (so every call fails): warned about, not refused, below.
    const unconfigured: { id: string; context: unknown; missing: MissingCredentials }[] = [];
    for (const service of services) {
      // The upstream is connected once the tool set says which scopes to ask for; tools reach it per call only.
      const perUserOptions = perUser && service.takesUserToken ? { userToken: perUser.tokenFor } : undefined;
      const runtimeOptions = { ...perUserOptions, ...(sharedState ? { sharedState } : {}) };
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
        runtime = service.runtimeForEmulator(emulator, env, runtimeOptions);
      } else {
        runtime = service.runtimeFromEnv(env, runtimeOptions);
      }
      const served = perUser && perUserOptions ? perUser.withUserTokenErrors(runtime) : runtime;
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
      ...(options.toolsets !== undefined ? { toolsets: options.toolsets.split(',') } : {}),
      ...(options.maxResultTokens !== undefined ? { maxResultTokens: options.maxResultTokens } : {}),
      ...(options.confirmDestructive === false ? { confirmDestructive: false } : {}),
      ...(options.outputSchemas === false ? { outputSchemas: false } : {}),
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
      const handle = serveStdio(options.discovery ? discoveryToolSet(toolSet) : toolSet);
      closers.unshift(() => handle.close());
      log('info', 'serving MCP over stdio', {
        tools: toolSet.tools.length,
        ...(options.discovery ? { discovery: true } : {}),
        sandbox: options.sandbox,
        emulators: Object.fromEntries(emulators.map(({ id, emulator }) => [id, emulator.url])),
      });
      return { close, shutdown: close };
    }

    // Loaded for HTTP only: Hono and Node's fetch are no part of a stdio server's start.
    const { MCP_PATH, serveHttp } = await import('../runtime/transports.js');
    // Counting from before the first request, so a scrape reads totals since the start (runtime/metrics.ts).
    const { metricsText, startMetrics } = await import('../runtime/metrics.js');
    startMetrics();
    // Set by the gate once the server is bound (the public URL may only be known then).
    const serving: { protection: HttpProtection } = {
      protection: bearerToken ? { kind: 'bearer' } : { kind: 'none' },
    };
    let gate: HttpOptions['auth'];
    if (perUser && signIn) {
      const { provider, offer } = signIn;
      const prefix = `${provider.definition.prefix}.`;
      const emulatorUrl = emulators.find((e) => e.id === provider.id)?.emulator.url;
      const connection = perUser.connect({
        toolNames: toolSet.tools
          .filter((tool) => tool.specName.startsWith(prefix))
          .map((tool) => tool.specName.slice(prefix.length)),
        ...(emulatorUrl ? { emulatorUrl } : {}),
      });
      gate = async (bound, originOf) => {
        const authorizationServer = connection.gate(bound, MCP_PATH, originOf);
        serving.protection = {
          kind: 'oauth',
          issuer: authorizationServer.issuer,
          resource: authorizationServer.resource.href,
          upstream: connection.oauthUrl,
          upstreamName: offer.upstreamName,
        };
        return authorizationServer;
      };
    }

    // The sandbox console (src/console/): only where availability.ts allows it; the banner says where, or why not.
    const consoleState = consoleAvailability({
      sandbox: options.sandbox,
      transport: 'http',
      host: options.host,
      protection: gate ? 'oauth' : bearerToken ? 'bearer' : 'none',
      ...(options.trustProxy ? { trustProxy: true } : {}),
    });
    const sandboxConsole =
      options.sandbox && consoleState.served
        ? (await import('../console/sandboxConsole.js')).startSandboxConsole({
            toolSet,
            services: services.map((service) => ({
              id: service.id,
              title: service.title,
              prefix: service.definition.prefix,
            })),
            emulators: emulators.map(({ id, emulator }) => ({ service: id, url: emulator.url })),
            // The secret ones, as their flags name them (a site id or a region is no secret).
            credentials: emulators.flatMap(({ emulator }) =>
              Object.entries(emulator.credentials)
                .filter(([flag]) => /token|key|secret/i.test(flag))
                .map(([, value]) => value),
            ),
          })
        : undefined;
    if (sandboxConsole) closers.push(async () => sandboxConsole.close());
    const server = await serveHttp(
      toolSet,
      { host: options.host, port: options.port },
      {
        ...(bearerToken ? { bearerToken } : {}),
        ...(gate ? { auth: gate } : {}),
        // The set itself, not its discovery view: the toolset paths are cut from it (transports.ts).
        ...(options.discovery ? { discovery: true } : {}),
        ...(options.allowedHosts
          ? { allowedHosts: options.allowedHosts.split(',').map((h) => h.trim()) }
          : {}),
        ...(options.trustProxy ? { trustProxy: true } : {}),
        readiness,
        ...(sandboxConsole ? { mount: sandboxConsole.mount } : {}),
        metrics: metricsText,
        ...(options.metricsPort !== undefined ? { metricsPort: options.metricsPort } : {}),
        limits: {
          ...(options.requestTimeout ? { requestTimeoutMs: options.requestTimeout * 1000 } : {}),
          ...(options.headersTimeout ? { headersTimeoutMs: options.headersTimeout * 1000 } : {}),
          ...(options.keepAliveTimeout ? { keepAliveTimeoutMs: options.keepAliveTimeout * 1000 } : {}),
          ...(options.maxConnections ? { maxConnections: options.maxConnections } : {}),
        },
      },
    );
    closers.unshift(() => server.close());
    if (server.metricsUrl)
      log('info', 'serving Prometheus metrics apart, unprotected', { url: server.metricsUrl });
    if (options.trustProxy) {
      log('info', 'trusting X-Forwarded-Proto/-Host and Forwarded from the proxy in front', {
        hint: 'only safe when every request comes through a proxy that sets these headers itself',
      });
    }
    const graceMs =
      options.shutdownGrace !== undefined ? options.shutdownGrace * 1000 : DEFAULT_SHUTDOWN_GRACE_MS;
    // Calls in flight first (they still use the emulators, Redis and the OAuth state), then everything else.
    const shutdown = async () => {
      // An open console page holds an event stream: ended first, or the drain would wait the whole grace for it.
      sandboxConsole?.close();
      await server.drain(graceMs);
      await close();
    };
    const { protection } = serving;
    const url = protection.kind === 'oauth' ? protection.resource : server.url;
    const consoleUrl = sandboxConsole ? new URL('/', url).href : undefined;
    const consoleLine = consoleUrl
      ? { url: consoleUrl }
      : consoleState.served
        ? undefined
        : { reason: consoleState.reason };
    printBanner({
      url,
      toolSet,
      sandbox: options.sandbox,
      emulators,
      protection,
      ...(options.discovery ? { discovery: true } : {}),
      ...(options.sandbox && consoleLine ? { console: consoleLine } : {}),
    });
    return {
      url,
      boundUrl: server.url,
      ...(consoleUrl ? { consoleUrl } : {}),
      protection,
      ...(server.metricsUrl ? { metricsUrl: server.metricsUrl } : {}),
      close,
      shutdown,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

function defaultDataDir(): string {
  return join(homedir(), '.switchboard');
}

export async function runServe(names: string[], options: ServeOptions): Promise<void> {
  const handle = await startServe(names, options);
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    // A second signal meanwhile meets Node's default: it ends the process at once.
    process.removeListener('SIGINT', shutdown);
    process.removeListener('SIGTERM', shutdown);
    await handle.shutdown();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  if (options.transport === 'stdio') process.stdin.once('end', shutdown);
}
