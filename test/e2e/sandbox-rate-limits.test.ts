// The sandbox's client-side rate limits, as documented: on by default for every service, as against the real
// upstreams (so an agent meets in the sandbox the pacing it will meet in production), and off for every service
// with SWITCHBOARD_CLIENT_RATE_LIMITS=off. Each service's sandbox runtime (the registry's runtimeForEmulator, what
// `serve --sandbox` and `npm start` use) is probed the same way: after an upstream 429 with Retry-After, the
// limiter holds the next call (nothing sent); without a limiter the next call goes out.

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { serveHttp } from '../../src/runtime/transports.js';
import { SERVICES } from '../../src/services/registry.js';
import type { RunningEmulator, ServiceEntry } from '../../src/services/serviceEntry.js';
import { connectClient, errorOf, inspector } from './harness.js';

/** The documented behaviour: client-side limits by SWITCHBOARD_CLIENT_RATE_LIMITS, the same in every service. */
const DOCUMENTED: { setting: string | undefined; limited: boolean }[] = [
  { setting: undefined, limited: true },
  { setting: 'on', limited: true },
  { setting: 'off', limited: false },
];

/** One call per service whose upstream request is easy to fault: the tool, its arguments and its path. */
async function probeFor(id: string, emulator: RunningEmulator) {
  if (id === 'issuedesk') return { tool: 'IssueDesk.WhoAmI', args: {}, path: '/me' };
  if (id === 'messaging') {
    return { tool: 'MessagingTrackApi.GetTrackApiRegion', args: {}, path: '/api/v1/accounts/region' };
  }
  const { items } = await inspector(emulator.url).get<{ items: { id: string }[] }>('/_emulator/state/bases');
  const base = items[0]!.id;
  return {
    tool: 'StoreApi.GetStoreBaseSchema',
    args: { store_base_id: base },
    path: `/v0/meta/bases/${base}/tables`,
  };
}

const running = new Map<string, RunningEmulator>();
beforeAll(async () => {
  for (const service of SERVICES) {
    running.set(service.id, await service.startEmulator({ host: '127.0.0.1', port: 0, db: ':memory:' }));
  }
});
afterAll(async () => {
  for (const emulator of running.values()) await emulator.close();
});

async function probe(service: ServiceEntry, setting: string | undefined) {
  const emulator = running.get(service.id)!;
  const env: NodeJS.ProcessEnv = {
    // Never a saved store login of the machine's user.
    SWITCHBOARD_CREDENTIALS_FILE: join(tmpdir(), 'switchboard-e2e-no-saved-login.json'),
    ...(setting === undefined ? {} : { SWITCHBOARD_CLIENT_RATE_LIMITS: setting }),
  };
  const runtime = service.runtimeForEmulator(emulator, env);
  const server = await serveHttp(buildToolSet([runtime]), { host: '127.0.0.1', port: 0 });
  const mcp = await connectClient(new StreamableHTTPClientTransport(new URL(server.url)), () =>
    server.close(),
  );
  const upstream = inspector(emulator.url);
  try {
    const { tool, args, path } = await probeFor(service.id, emulator);
    // Longer than the 10 s we sleep through inside a call and the 20 s a call may wait: no retry, no waiting.
    await upstream.faults([{ path, kind: 'rate_limit', retryAfterSeconds: 40, times: 1 }]);
    await upstream.clearLog();
    const first = await mcp.call(tool, args);
    expect(errorOf(first)).toMatchObject({ kind: 'rate_limited', status: 429 });
    const second = await mcp.call(tool, args);
    const sent = (await upstream.requests()).filter((r) => r.path === path).map((r) => r.status);
    return { second, sent };
  } finally {
    await mcp.close();
  }
}

describe('sandbox runtimes follow the documented client-side rate limits', () => {
  for (const service of SERVICES) {
    for (const { setting, limited } of DOCUMENTED) {
      it(`${service.id}, SWITCHBOARD_CLIENT_RATE_LIMITS ${setting ?? 'unset'}: ${limited ? 'on' : 'off'}`, async () => {
        const { second, sent } = await probe(service, setting);
        if (limited) {
          expect(errorOf(second)).toMatchObject({ kind: 'rate_limited' });
          expect(errorOf(second).status).toBeUndefined();
          expect(sent).toEqual([429]);
        } else {
          expect(second.isError).toBe(false);
          expect(sent).toEqual([429, 200]);
        }
      });
    }
  }
});
