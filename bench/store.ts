// StoreApi figures: tools/list size; a ListStoreRecords page next to the same request sent straight to the
// emulator; filterByFormula over 50,000 records inside the emulator; the slowest administration reads (audit log
// events over 100,000 events, SCIM filters over 10,000 users, both seeded by the emulator at this scale); and
// sustained record creation through the tools against the emulator's 5 requests/s per base (records per second,
// and how many 429s: the aim is none).

import type { Client } from '@modelcontextprotocol/client';
import { call, connectHttp, listTokens, ms, startChild, stop, timed } from './support.js';

const SCALE = 50_000;

export async function benchStore() {
  console.log('\nStoreApi');
  const emulator = startChild(
    ['emulate', 'store', '--port', '0', '--scale', String(SCALE)],
    {},
    /export STORE_BASE_URL=(\S+)\nexport STORE_ACCESS_TOKEN=(\S+)\n/,
  );
  const [, url, token] = await emulator.ready;
  const auth = { authorization: `Bearer ${token}` };
  const get = async (path: string) => {
    const response = await fetch(`${url}${path}`, { headers: auth });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
  // The emulator enforces 5 requests/s per base; the direct loops below would trip it, so it is lifted for them
  // and restored for the sustained-write figure.
  const setLimit = (body: unknown) =>
    fetch(`${url}/_emulator/base-rate-limit`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  // Two servers: one with our per-base limiter off, for call latency (it would space sequential calls to one
  // base 250 ms apart, which is the point of it and not a latency); one with it on, for sustained writes.
  const serve = (limits: 'on' | 'off') =>
    startChild(
      ['serve', 'store', '--transport', 'http', '--port', '0'],
      {
        STORE_BASE_URL: url!,
        STORE_ACCESS_TOKEN: token!,
        SWITCHBOARD_CLIENT_RATE_LIMITS: limits,
        SWITCHBOARD_LOG_LEVEL: 'warn',
      },
      /MCP endpoint \(Streamable HTTP\): (\S+)/,
    );
  const server = serve('off');
  const limited = serve('on');
  try {
    const [, mcpUrl] = await server.ready;
    const [, limitedUrl] = await limited.ready;
    const client = await connectHttp(mcpUrl!);
    const writer = await connectHttp(limitedUrl!);
    const t = await listTokens(client);
    console.log(
      `tools/list: ${t.tools} tools, ${t.list} tokens (o200k) + ${t.instructions} tokens of instructions = ${t.total}; ${t.perTool} per tool`,
    );

    const bases = (await get('/v0/meta/bases')).bases as { id: string; name: string }[];
    const roadmap = bases.find((b) => b.name === 'Product Roadmap')!;
    const scale = bases.find((b) => b.name === 'Scale')!;
    const tables = (await get(`/v0/meta/bases/${roadmap.id}/tables`)).tables as {
      id: string;
      name: string;
    }[];
    const features = tables[tables.length - 1]!;

    await setLimit({ enabled: false });
    const direct = await timed(200, 20, () => get(`/v0/${roadmap.id}/${features.id}?pageSize=100`));
    const viaMcp = await timed(200, 20, () =>
      call(client, 'StoreApi.ListStoreRecords', { base_id: roadmap.id, table_id_or_name: features.id }),
    );
    console.log(
      `ListStoreRecords page (${features.name}, 100 per page) over HTTP MCP: p50 ${ms(viaMcp.p50)}, p99 ${ms(viaMcp.p99)}`,
    );
    console.log(
      `  direct emulator GET /v0/{base}/{table}: p50 ${ms(direct.p50)}, p99 ${ms(direct.p99)}; MCP overhead at p50 ${ms(viaMcp.p50 - direct.p50)}`,
    );

    const events = ((await get(`/v0/meta/bases/${scale.id}/tables`)).tables as { id: string }[])[0]!;
    const formula = encodeURIComponent('AND({Value} > 500, FIND("e", LOWER({Name})), NOT({Done}))');
    let matched = 0;
    const filter = await timed(7, 1, async () => {
      const page = await get(`/v0/${scale.id}/${events.id}?pageSize=100&filterByFormula=${formula}`);
      matched = (page.records as unknown[]).length;
    });
    console.log(
      `filterByFormula over ${SCALE} records in the emulator (first page of ${matched}): p50 ${ms(filter.p50)}, min ${ms(filter.min)}`,
    );

    await benchAdministration(client, url!, get);

    await setLimit({ enabled: true, perSecond: 5, penaltyMs: 30_000 });
    const before = Date.now();
    const seconds = 10;
    let created = 0;
    let refused = 0;
    let i = 0;
    while (Date.now() - before < seconds * 1000) {
      const batch = Array.from({ length: 10 }, () => ({ fields: { Name: `bench ${i++}` } }));
      const result = await writer.callTool({
        name: 'StoreApi.CreateStoreRecords',
        arguments: {
          mode: 'execute',
          base_id: roadmap.id,
          table_id_or_name: features.id,
          request_body: JSON.stringify({ records: batch }),
        },
      });
      if (result.isError) refused++;
      else created += 10;
    }
    const elapsed = (Date.now() - before) / 1000;
    const log = (await (await fetch(`${url}/_emulator/requests?limit=100000`)).json()) as {
      requests: { status: number; method: string }[];
    };
    const tooMany = log.requests.filter((r) => r.status === 429).length;
    console.log(
      `sustained CreateStoreRecords (10 per call, one base): ${(created / elapsed).toFixed(1)} records/s over ${elapsed.toFixed(1)} s; ${refused} failed calls, ${tooMany} upstream 429s`,
    );
    await client.close();
    await writer.close();
  } finally {
    await stop(limited.child);
    await stop(server.child);
    await stop(emulator.child);
  }
}

/** Audit log pages and SCIM filters, through MCP and straight to the emulator. */
async function benchAdministration(
  client: Client,
  url: string,
  get: (path: string) => Promise<Record<string, unknown>>,
) {
  const inspect = async (path: string) =>
    (await (await fetch(`${url}/_emulator/${path}`)).json()) as Record<string, unknown>;
  const accounts = (await inspect('state/enterprise_accounts')).items as {
    id: string;
    parentEnterpriseAccountId: string | null;
  }[];
  const root = accounts.find((a) => a.parentEnterpriseAccountId === null)!;
  const events = ((await inspect('state')) as { counts: Record<string, number> }).counts.audit_events;
  const ent = `/v0/meta/enterpriseAccounts/${root.id}`;

  const cases: [string, Record<string, unknown>, string][] = [
    ['newest 100', { page_size: 100 }, 'pageSize=100'],
    ['1000, oldest first', { page_size: 1000, sort_order: 'ascending' }, 'pageSize=1000&sortOrder=ascending'],
    [
      'one event type, 100',
      { page_size: 100, event_type: 'updateUser' },
      'pageSize=100&eventType=updateUser',
    ],
  ];
  for (const [label, args, query] of cases) {
    const direct = await timed(50, 5, () => get(`${ent}/auditLogEvents?${query}`));
    const viaMcp = await timed(50, 5, () =>
      call(client, 'StoreApi.GetAuditLogEvents', { enterprise_account_id: root.id, ...args }),
    );
    console.log(
      `GetAuditLogEvents over ${events} events (${label}): MCP p50 ${ms(viaMcp.p50)}, p99 ${ms(viaMcp.p99)}; direct p50 ${ms(direct.p50)}`,
    );
  }
  // Newest first (the default), the following page is the older one: `previous`, as the upstream names it.
  let older: string | undefined;
  let pages = 0;
  const walk = await timed(1, 0, async () => {
    for (let page = 0; page < 20; page++) {
      const cursor = older ? `&previous=${encodeURIComponent(older)}` : '';
      const body = await get(`${ent}/auditLogEvents?pageSize=1000${cursor}`);
      pages++;
      older = (body.pagination as { previous?: string } | undefined)?.previous;
      if (!older) break;
    }
  });
  console.log(`  paging back through ${pages} pages of 1000 events with previous (direct): ${ms(walk.p50)}`);

  const users = ((await inspect('state')) as { counts: Record<string, number> }).counts.user_profiles;
  const filters = [
    'userName sw "user01"',
    'emails co "99" and active eq true',
    'name.familyName eq "Chen" or externalId eq "X-05000"',
  ];
  for (const filter of filters) {
    const direct = await timed(30, 3, () =>
      get(`/scim/v2/Users?filter=${encodeURIComponent(filter)}&count=100`),
    );
    const viaMcp = await timed(30, 3, () =>
      call(client, 'StoreApi.ListScimUsers', { user_filter: filter, user_count_limit: 100 }),
    );
    console.log(
      `ListScimUsers over ${users} users (${filter}): MCP p50 ${ms(viaMcp.p50)}, p99 ${ms(viaMcp.p99)}; direct p50 ${ms(direct.p50)}`,
    );
  }
}
