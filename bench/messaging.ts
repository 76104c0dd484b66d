// MessagingTrackApi figures: tools/list size, and the latency of a schema-mode call (answered locally, from the
// JSON Schema built once) and of an execute-mode call next to the same request sent straight to the emulator.

import { call, connectHttp, listTokens, ms, startChild, stop, timed } from './support.js';

export async function benchMessaging() {
  console.log('\nMessagingTrackApi');
  const emulator = startChild(
    ['emulate', 'messaging', '--port', '0'],
    {},
    /export MESSAGING_BASE_URL=(\S+)\n(?:export MESSAGING_REGION=\S+\n)?export MESSAGING_SITE_ID=(\S+)\nexport MESSAGING_API_KEY=(\S+)\n/,
  );
  const [, url, siteId, apiKey] = await emulator.ready;
  const server = startChild(
    ['serve', 'messaging', '--transport', 'http', '--port', '0'],
    {
      MESSAGING_BASE_URL: url!,
      MESSAGING_SITE_ID: siteId!,
      MESSAGING_API_KEY: apiKey!,
      MESSAGING_REGION: 'us',
      SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
      SWITCHBOARD_LOG_LEVEL: 'warn',
    },
    /MCP endpoint \(Streamable HTTP\): (\S+)/,
  );
  try {
    const [, mcpUrl] = await server.ready;
    const client = await connectHttp(mcpUrl!);
    const t = await listTokens(client);
    console.log(
      `tools/list: ${t.tools} tools, ${t.list} tokens (o200k) + ${t.instructions} tokens of instructions = ${t.total}; ${t.perTool} per tool`,
    );

    const schema = await timed(400, 40, () =>
      call(client, 'MessagingTrackApi.ManageEntity', { mode: 'get_request_schema' }),
    );
    console.log(`ManageEntity schema mode (11.7 KB schema): p50 ${ms(schema.p50)}, p99 ${ms(schema.p99)}`);

    const body = { plan: 'pro', seats: 3, company: 'Acme' };
    const auth = `Basic ${Buffer.from(`${siteId}:${apiKey}`).toString('base64')}`;
    const direct = await timed(400, 40, (i) =>
      fetch(`${url}/api/v1/customers/bench-${i % 50}`, {
        method: 'PUT',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.text()),
    );
    const execute = await timed(400, 40, (i) =>
      call(client, 'MessagingTrackApi.UpdateOrAddPerson', {
        mode: 'execute',
        person_identifier: `bench-${i % 50}`,
        request_body: JSON.stringify(body),
      }),
    );
    console.log(
      `UpdateOrAddPerson execute mode over HTTP MCP: p50 ${ms(execute.p50)}, p99 ${ms(execute.p99)}`,
    );
    console.log(
      `  direct emulator PUT /api/v1/customers/{id}: p50 ${ms(direct.p50)}, p99 ${ms(direct.p99)}; MCP overhead at p50 ${ms(execute.p50 - direct.p50)}`,
    );

    const batch = {
      batch: Array.from({ length: 100 }, (_, i) => ({
        type: 'person',
        identifiers: { id: `bench-batch-${i}` },
        action: 'event',
        name: 'bench',
        attributes: { i },
      })),
    };
    const batchCall = await timed(50, 5, () =>
      call(client, 'MessagingTrackApi.BatchProcessRequests', {
        mode: 'execute',
        request_body: JSON.stringify(batch),
      }),
    );
    console.log(`BatchProcessRequests of 100 events (validated, then sent): p50 ${ms(batchCall.p50)}`);
    await client.close();
  } finally {
    await stop(server.child);
    await stop(emulator.child);
  }
}
