// `npm run bench`: the figures that matter, per server, printed, never asserted (these machines are shared and
// noisy; run it twice before believing a difference). The server and the emulator each run as their own child
// process from the built CLI (dist/), so the client loop here does not share their event loop.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildSeedData } from '../src/services/issuedesk/emulator/seed/seed.js';
import { rankIssues } from '../src/services/issuedesk/resolve.js';
import { benchAnchor } from './anchor.js';
import { benchMessaging } from './messaging.js';
import { benchReplicas } from './replicas.js';
import { benchResults } from './results.js';
import { benchStore } from './store.js';
import { CLI, connectHttp, listTokens, ms, startChild, stats, stop } from './support.js';

async function coldStart(runs = 7) {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', 'issuedesk'],
        env: { PATH: process.env.PATH ?? '', SWITCHBOARD_LOG_LEVEL: 'warn' },
        stderr: 'ignore',
      }),
    );
    await client.listTools();
    samples.push(performance.now() - started);
    await client.close();
  }
  return stats(samples);
}

/** An emulator and a Switchboard HTTP server wired to it, each its own process. */
async function startStack(emulatorArgs: string[] = []) {
  const emulator = startChild(
    ['emulate', 'issuedesk', '--port', '0', ...emulatorArgs],
    {},
    /export ISSUEDESK_BASE_URL=(\S+)\nexport ISSUEDESK_API_TOKEN=(\S+)\n/,
  );
  const [, emulatorUrl, token] = await emulator.ready;
  const server = startChild(
    ['serve', 'issuedesk', '--transport', 'http', '--port', '0'],
    {
      ISSUEDESK_BASE_URL: emulatorUrl!,
      ISSUEDESK_API_TOKEN: token!,
      SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
      SWITCHBOARD_LOG_LEVEL: 'warn',
    },
    /MCP endpoint \(Streamable HTTP\): (\S+)/,
  );
  const [, mcpUrl] = await server.ready;
  return {
    emulatorUrl: emulatorUrl!,
    token: token!,
    mcpUrl: mcpUrl!,
    stopAll: async () => {
      await stop(server.child);
      await stop(emulator.child);
    },
  };
}

async function benchIssueDesk() {
  console.log('\nIssueDesk');

  const cold = await coldStart();
  console.log(
    `cold start to first tools/list over stdio: p50 ${ms(cold.p50)}, min ${ms(cold.min)} (${cold.n} runs)`,
  );

  const { emulatorUrl, token, mcpUrl, stopAll } = await startStack();

  try {
    const client = await connectHttp(mcpUrl);
    const t = await listTokens(client);
    console.log(
      `tools/list: ${t.tools} tools, ${t.list} tokens (o200k) + ${t.instructions} tokens of instructions = ${t.total}; ${t.perTool} per tool; ${t.listWithOutputSchemas} tokens with the output schemas clients receive`,
    );

    const issueIds = Array.from({ length: 50 }, (_, i) => String(i + 1));
    const direct: number[] = [];
    const viaMcp: number[] = [];
    const rounds = 400;
    for (let i = 0; i < 40; i++) {
      await fetch(`${emulatorUrl}/issues/${issueIds[i % 50]}`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.text());
      await client.callTool({
        name: 'IssueDesk.GetIssue',
        arguments: { lookup_by: 'id', value: issueIds[i % 50] },
      });
    }
    for (let i = 0; i < rounds; i++) {
      const id = issueIds[i % 50];
      let t = performance.now();
      await fetch(`${emulatorUrl}/issues/${id}`, { headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.text(),
      );
      direct.push(performance.now() - t);
      t = performance.now();
      const result = await client.callTool({
        name: 'IssueDesk.GetIssue',
        arguments: { lookup_by: 'id', value: id },
      });
      viaMcp.push(performance.now() - t);
      if (result.isError) throw new Error(JSON.stringify(result.content));
    }
    const d = stats(direct);
    const m = stats(viaMcp);
    console.log(`GetIssue over HTTP MCP: p50 ${ms(m.p50)}, p99 ${ms(m.p99)} (${m.n} calls)`);
    console.log(
      `  direct emulator GET /issues/{id}: p50 ${ms(d.p50)}, p99 ${ms(d.p99)}; MCP overhead at p50 ${ms(m.p50 - d.p50)}`,
    );

    const clients = await Promise.all(Array.from({ length: 16 }, () => connectHttp(mcpUrl)));
    const deadline = performance.now() + 5_000;
    let calls = 0;
    let errors = 0;
    const started = performance.now();
    await Promise.all(
      clients.map(async (c, k) => {
        for (let i = 0; performance.now() < deadline; i++) {
          const result = await c.callTool({
            name: 'IssueDesk.GetIssue',
            arguments: { lookup_by: 'id', value: issueIds[(k * 7 + i) % 50] },
          });
          if (result.isError) errors++;
          calls++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `throughput, 16 concurrent HTTP clients calling GetIssue: ${(calls / seconds).toFixed(0)} calls/s (${calls} calls in ${seconds.toFixed(1)} s, ${errors} errors)`,
    );
    // For scale: the same load straight at the emulator (no MCP, no shaping). Client, server and emulator share
    // the machine's two cores, so neither figure is the server alone.
    let directCalls = 0;
    const directDeadline = performance.now() + 3_000;
    const directStarted = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async (_, k) => {
        for (let i = 0; performance.now() < directDeadline; i++) {
          await fetch(`${emulatorUrl}/issues/${issueIds[(k * 7 + i) % 50]}`, {
            headers: { authorization: `Bearer ${token}` },
          }).then((r) => r.text());
          directCalls++;
        }
      }),
    );
    const directSeconds = (performance.now() - directStarted) / 1000;
    console.log(
      `  the same 16-way load straight at the emulator: ${(directCalls / directSeconds).toFixed(0)} requests/s`,
    );
    await Promise.all(clients.map((c) => c.close()));
    await client.close();
  } finally {
    await stopAll();
  }

  // Ranking alone: the BM25 part of SearchIssues over 10,000 issues (title + HTML body), as the tool does it.
  const data = buildSeedData({ scale: 10_000, now: new Date() });
  const issues = data.issues.map((issue) => ({
    id: issue.id,
    number: issue.number,
    title: issue.title,
    body_html: issue.bodyHtml,
    state: issue.state,
    created_at: new Date(issue.createdAt).toISOString(),
  }));
  for (const query of ['sso login', 'export timeout OR csv', 'webhook -retries', '"invoice" billing']) {
    rankIssues(issues, query, 'query');
    const samples: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      rankIssues(issues, query, 'query');
      samples.push(performance.now() - t);
    }
    const s = stats(samples);
    console.log(
      `SearchIssues ranking over ${issues.length} issues, query ${JSON.stringify(query)}: p50 ${ms(s.p50)}, min ${ms(s.min)}`,
    );
  }

  // End to end over 10,000 issues: fetching the search window from the emulator (11 pages of 999) plus ranking.
  const big = await startStack(['--scale', '10000']);
  try {
    const client = await connectHttp(big.mcpUrl);
    const samples: number[] = [];
    let searched = 0;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const result = await client.callTool({
        name: 'IssueDesk.SearchIssues',
        arguments: { query: 'sso login' },
      });
      samples.push(performance.now() - t);
      searched = (result.structuredContent as { searched: { issues: number } }).searched.issues;
    }
    const s = stats(samples);
    console.log(
      `SearchIssues end to end (fetch ${searched} issues of the last 30 days + rank): p50 ${ms(s.p50)}, min ${ms(s.min)}`,
    );
    await client.close();
  } finally {
    await big.stopAll();
  }
}

// `npm run bench` runs every section; `npm run bench -- anchor` (or issuedesk, messaging, store, replicas) runs
// those named.
const SECTIONS: Record<string, () => Promise<void>> = {
  issuedesk: benchIssueDesk,
  messaging: benchMessaging,
  store: benchStore,
  anchor: benchAnchor,
  results: () => benchResults(),
  replicas: benchReplicas,
};

async function run(names: string[]) {
  console.log('Switchboard benchmarks');
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  for (const name of names.length > 0 ? names : Object.keys(SECTIONS)) {
    const section = SECTIONS[name];
    if (!section)
      throw new Error(`No bench section "${name}"; choose from ${Object.keys(SECTIONS).join(', ')}.`);
    await section();
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
