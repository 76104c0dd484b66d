// What each service slice exports for the CLI: how to build its runtime from the environment, how to start its
// emulator and point a runtime at it, which credentials it lacks, and (optionally) per-user sign-in through its
// upstream. `registry.ts` lists the entries; `serve`, `emulate` and `npm start` work only through them.

import type { SeedingReport } from '../emulation/seeding.js';
import type { PerUserAuthOffer } from '../runtime/auth/perUser.js';
import type { SharedState } from '../runtime/sharedState/redis.js';
import type { ServiceDefinition, ServiceRuntime, ToolCall } from '../runtime/tool.js';

export interface EmulatorOptions {
  host?: string;
  port?: number;
  /** SQLite file, or ':memory:'. */
  db?: string;
  seed?: number;
  scale?: number;
  reset?: boolean;
  /** Service-specific credential flags, by option name, e.g. { token } for the issue desk. */
  credentials?: Record<string, string | undefined>;
}

export interface RunningEmulator {
  url: string;
  /** What a client must present, by flag name, for the start-up banner. */
  credentials: Record<string, string>;
  /** Whether the emulator seeded its database on this start or kept earlier data (`--seed` then has no effect). */
  seeding?: SeedingReport;
  /** Sandbox: facts about the seeded data a client cannot look up through the API, for the server instructions. */
  instructions?: string;
  close(): Promise<void>;
}

/** The calling person's upstream token for one call; undefined when they have none. */
export type UserTokenSource = (call: ToolCall) => string | undefined | Promise<string | undefined>;

/** What a runtime can take besides its configuration: per-call credentials, and the state replicas share. */
export interface RuntimeOptions {
  /**
   * The calling person's own token (HTTP with per-user OAuth, src/runtime/auth/). Only services whose entry sets
   * `takesUserToken` use it; the others keep their organisation-wide credentials.
   */
  userToken?: UserTokenSource;
  /**
   * Replicas' shared state (`serve` opens it when SWITCHBOARD_REDIS_URL is set): each service keeps its rate
   * budgets and caches there. Absent: the embedded, in-process ones.
   */
  sharedState?: SharedState;
}

/** `{ sharedState }` when the options carry it, for spreading into a service's configuration. */
export function sharedStateOf(options: RuntimeOptions | undefined): { sharedState?: SharedState } {
  return options?.sharedState ? { sharedState: options.sharedState } : {};
}

/** Credentials `serve` would start without, so that every call of the service fails until they are set. */
export interface MissingCredentials {
  /** The unset environment variables. */
  variables: string[];
  /** How to supply them. */
  hint: string;
}

export interface CredentialFlag {
  flag: string;
  description: string;
  /** The only values the flag takes, when there is a short list. */
  choices?: readonly string[];
}

/** What `switchboard login <service>` runs. */
export interface ServiceLogin {
  /** The command's help line. */
  description: string;
  /** Connects the person's account through the browser and saves it; throws (nothing saved) when it did not happen. */
  run(options: { port: number; openBrowser: boolean; timeoutMs: number }): Promise<void>;
  /** Prints who the saved login is for; false when there is none. */
  status(): boolean;
}

export interface ServiceEntry {
  id: string;
  title: string;
  /** The service's tools and instructions, as its runtimes serve them. */
  definition: ServiceDefinition<unknown>;
  /** Credential flags `emulate` accepts for this service (`--<flag> <flag>`, read as the camel-cased option). */
  credentialFlags: readonly CredentialFlag[];
  /**
   * The environment that points `runtimeFromEnv` (so `serve` without --sandbox) at a running emulator of this
   * service: its address and the credentials it accepts, by variable name. `emulate` prints it.
   */
  envForEmulator(emulator: RunningEmulator): Record<string, string>;
  /**
   * What `runtimeFromEnv` lacks to make any call: undefined when its credentials are set, or will come from
   * elsewhere (a saved login, or each person's own token when `perUserTokens`).
   */
  missingCredentials(
    env: NodeJS.ProcessEnv,
    options?: { perUserTokens?: boolean },
  ): MissingCredentials | undefined;
  /** Whether each person's calls run with their own token when per-user OAuth is on. */
  takesUserToken?: boolean;
  /** Per-user sign-in through this service's upstream OAuth, for `serve --transport http`. */
  perUserAuth?: PerUserAuthOffer;
  /** `switchboard login <id>`: one person connects their own account for `serve` over stdio. */
  login?: ServiceLogin;
  runtimeFromEnv(env: NodeJS.ProcessEnv, options?: RuntimeOptions): ServiceRuntime;
  startEmulator(options: EmulatorOptions): Promise<RunningEmulator>;
  /** The runtime wired to a running emulator (sandbox mode). */
  runtimeForEmulator(
    emulator: RunningEmulator,
    env: NodeJS.ProcessEnv,
    options?: RuntimeOptions,
  ): ServiceRuntime;
}

/** The options every emulator takes, without the unset ones. */
export function commonEmulatorOptions(options: EmulatorOptions) {
  return {
    ...(options.host ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.db ? { db: options.db } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.scale !== undefined ? { scale: options.scale } : {}),
    ...(options.reset ? { reset: true } : {}),
  };
}

/** One credential a running emulator accepts, by flag name; every emulator reports all of its own. */
export function emulatorCredential(emulator: RunningEmulator, flag: string): string {
  const value = emulator.credentials[flag];
  if (value === undefined) throw new Error(`The emulator at ${emulator.url} did not report its ${flag}.`);
  return value;
}
