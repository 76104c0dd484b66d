// What the two task test files share (tasks.test.ts: 2025-11-25 through the SDK v1 client; tasks-extension.test.ts:
// the 2026-07-28 extension as raw JSON-RPC): the store's two job tools, a store emulator on a manual clock with
// Switchboard over HTTP in front of it, the arguments that create each job, and a wait for a condition.

import type { AuthInfo } from '@modelcontextprotocol/server';
import { type ManualClock, manualClock } from '../../src/emulation/clock.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { type RunningHttpServer, serveHttp } from '../../src/runtime/transports.js';
import { ADMIN_SEED } from '../../src/services/store/emulator/seed/admin.js';
import { createStoreRuntime, storeConfigFromEnv } from '../../src/services/store/service.js';
import { type StoreEmulatorHandle, startStore } from './storeHarness.js';

export const ENT = '/v0/meta/enterpriseAccounts';

/** Each job tool, with the tool that reads its job, the argument naming the job there, and the upstream path. */
export const JOBS = [
  {
    tool: 'StoreApi.CreateAuditLogRequest',
    status: 'StoreApi.RetrieveAuditLog',
    idArgument: 'audit_log_task_id',
    collection: 'auditLogs',
  },
  {
    tool: 'StoreApi.CreateEdiscoveryExport',
    status: 'StoreApi.GetEdiscoveryExportStatus',
    idArgument: 'enterprise_task_id',
    collection: 'exports',
  },
] as const;
export type Job = (typeof JOBS)[number];

/** Polls `check` every 100 ms for up to 10 s. */
export async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface JobsSandbox {
  upstream: StoreEmulatorHandle;
  /** The emulator's clock: a job finishes when the test advances it. */
  clock: ManualClock;
  /** Switchboard's store server over Streamable HTTP, in front of `upstream`. */
  http: RunningHttpServer;
  /** The seeded root enterprise account, and the base an export is made of. */
  root: string;
  base: string;
  /** A fresh tool set over `upstream` (for a second server, behind an auth gate). */
  toolSet(): ReturnType<typeof buildToolSet>;
  /** The arguments that create `job` (execute mode). */
  argumentsOf(job: Job): Record<string, unknown>;
  /** The upstream path of `job`'s collection. */
  jobPath(job: Job): string;
  close(): Promise<void>;
}

export async function startJobsSandbox(): Promise<JobsSandbox> {
  const clock = manualClock('2025-06-15T12:00:00.000Z');
  const upstream = await startStore({ clock });
  const { state, store } = upstream.emulator.admin.deps;
  const root = state.list('account').find((a) => a.name === ADMIN_SEED.rootAccount)!.id;
  const base = store.schema().bases.find((b) => b.name === 'Product Roadmap')!.id;
  const toolSet = () =>
    buildToolSet([createStoreRuntime(storeConfigFromEnv({ ...upstream.env() } as NodeJS.ProcessEnv))]);
  const http = await serveHttp(toolSet(), { host: '127.0.0.1', port: 0 });
  return {
    upstream,
    clock,
    http,
    root,
    base,
    toolSet,
    argumentsOf: (job) => ({
      mode: 'execute',
      enterprise_account_id: root,
      request_body: JSON.stringify(
        job.tool.endsWith('AuditLogRequest') ? { timePeriod: '2025-05' } : { baseId: base },
      ),
    }),
    jobPath: (job) => `${ENT}/${root}/${job.collection}`,
    async close() {
      await http.close();
      await upstream.close();
    },
  };
}

/** Two people, by the bearer token each presents: what the two-caller tests sign in as. */
export const PEOPLE = new Map([
  ['alice-token', { subject: 'usrAlice', grantId: 'grant-alice' }],
  ['bob-token', { subject: 'usrBob', grantId: 'grant-bob' }],
]);

/**
 * Switchboard over HTTP behind an auth gate of the tests' own that maps PEOPLE's tokens to their principals: the
 * gate's contract as the OAuth authorization server fulfils it (runtime/auth), a verified bearer token and the
 * person it stands for. The store calls still use STORE_ACCESS_TOKEN, which wins when set.
 */
export function serveForTwoPeople(
  toolSet: ReturnType<typeof buildToolSet>,
  clientId: string,
): Promise<RunningHttpServer> {
  return serveHttp(
    toolSet,
    { host: '127.0.0.1', port: 0 },
    {
      auth: {
        authenticate: (request: Request): AuthInfo | Response => {
          const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
          return PEOPLE.has(token)
            ? { token, clientId, scopes: [] }
            : new Response('unauthorized', { status: 401 });
        },
        principalOf: (authInfo: AuthInfo) => PEOPLE.get(authInfo.token),
      },
    },
  );
}
