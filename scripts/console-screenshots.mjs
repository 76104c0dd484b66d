// Screenshots of the sandbox console's four views for the docs (docs/console.md, README): a sandbox server run
// from source, an agent making a few calls (one of them failing on a fault set in the page), and each view in
// headless chromium. Nothing here is timed or asserted; test/e2e/console-browser.test.ts is the test.
//
// Usage: node scripts/console-screenshots.mjs [folder] (default docs/). Needs /usr/bin/chromium
// (`apt-get install -y chromium`). Writes console-timeline.png, console-state.png, console-controls.png and
// console-playground.png.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const root = fileURLToPath(new URL('..', import.meta.url));
const folder = process.argv[2] ?? join(root, 'docs');
const WAIT = { timeout: 30_000 };

if (!existsSync(CHROMIUM)) {
  process.stderr.write(`console-screenshots: needs ${CHROMIUM} (apt-get install -y chromium).\n`);
  process.exit(1);
}

/** `serve all --sandbox --transport http` from source on a fresh data folder; resolves with the console's URL. */
function startSandbox(dataDir) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'serve',
      'all',
      '--sandbox',
      '--transport',
      'http',
      '--port',
      '0',
      '--data-dir',
      dataDir,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const url = new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
      const match = /Console \(watch and steer the sandbox in a browser\): (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}:\n${stderr}`)));
  });
  return { child, url };
}

/** An agent's calls, `[name, args?, failureExpected?]` in order; a call that ends otherwise stops the script. */
async function agentCalls(mcpUrl, calls) {
  const client = new Client(
    { name: 'demo-agent', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(mcpUrl));
  try {
    const results = [];
    for (const [name, args, expectError] of calls) {
      const result = await client.callTool({ name, arguments: args ?? {} });
      if ((result.isError === true) !== (expectError === true)) {
        throw new Error(
          `${name} ${result.isError ? 'failed' : 'succeeded'}: ${JSON.stringify(result.content)}`,
        );
      }
      results.push(result);
    }
    return results;
  } finally {
    await client.close();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-screenshots-'));
const sandbox = startSandbox(dataDir);
let browser;
try {
  const consoleUrl = await sandbox.url;
  const mcpUrl = new URL('/mcp', consoleUrl);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto(consoleUrl);
  await page.locator('.connection-live').waitFor(WAIT);
  const show = async (view) => {
    await page.click(`#view-${view}`);
    await page.locator(`section#${view}:not([hidden])`).waitFor(WAIT);
  };
  const shoot = (view) => page.screenshot({ path: join(folder, `console-${view}.png`) });

  // State: a mark, then an agent's new records, highlighted.
  await show('state');
  await page.click('#state-mark');
  await page.locator('#state-marker').waitFor(WAIT);
  const [bases] = await agentCalls(mcpUrl, [['StoreApi.ListStoreBases']]);
  const baseId = bases.structuredContent.bases[0].id;
  const [schema] = await agentCalls(mcpUrl, [['StoreApi.GetStoreBaseSchema', { store_base_id: baseId }]]);
  const table = schema.structuredContent.tables[0];
  const primary = table.fields.find((field) => field.id === table.primaryFieldId).name;
  const names = ['Draft the launch email', 'Book the venue', 'Order the banners'];
  await agentCalls(mcpUrl, [
    ['IssueDesk.GetIssue', { lookup_by: 'id', value: '1' }],
    [
      'StoreApi.CreateStoreRecords',
      {
        base_id: baseId,
        table_id_or_name: table.id,
        mode: 'execute',
        request_body: JSON.stringify({ records: names.map((name) => ({ fields: { [primary]: name } })) }),
      },
    ],
  ]);
  await page.click('button.collection[data-service="store"][data-collection="records"]');
  await page.check('#state-only-changed');
  await page
    .locator('#state-rows tr.changed')
    .nth(names.length - 1)
    .waitFor(WAIT);
  await shoot('state');

  // Controls: a 503 for the next three issue desk requests, set in the page.
  await show('controls');
  await page.selectOption('#fault-issuedesk-kind', 'error');
  await page.fill('#fault-issuedesk-status', '503');
  await page.fill('#fault-issuedesk-times', '3');
  await page.click('#fault-issuedesk-add');
  await page.locator('#faults-issuedesk li').waitFor(WAIT);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot('controls');

  // Timeline: the agent's next call meets the fault; its three tries are marked.
  await agentCalls(mcpUrl, [['IssueDesk.GetIssue', { lookup_by: 'id', value: '2' }, true]]);
  await show('timeline');
  const failed = page.locator('article.call[data-outcome="tool_error"]').first();
  await failed.waitFor(WAIT);
  await failed.locator('details.call-arguments summary').click();
  await shoot('timeline');

  // Playground: a schema-mode tool with an argument from the form, body schema fetched, then run with the example.
  await show('playground');
  await page.fill('#tool-filter', 'SendCustomerEvent');
  await page.selectOption('#tool', 'MessagingTrackApi.SendCustomerEvent');
  await page.check('input[aria-label="Send customer_identifier"]');
  await page.fill('[name="arguments[customer_identifier]"]', 'ada@example.com');
  await page.click('#fetch-schema');
  await page.locator('#request-body').waitFor(WAIT);
  await page.click('#run');
  await page.locator('#run-result', { hasText: 'Execute' }).locator('tr.upstream-row').first().waitFor(WAIT);
  await page.screenshot({ path: join(folder, 'console-playground.png'), fullPage: true });
  process.stderr.write(
    `console-screenshots: wrote console-{timeline,state,controls,playground}.png in ${folder}\n`,
  );
} finally {
  await browser?.close();
  sandbox.child.kill('SIGTERM');
  await new Promise((resolve) =>
    sandbox.child.exitCode === null ? sandbox.child.once('exit', resolve) : resolve(),
  );
  rmSync(dataDir, { recursive: true, force: true });
}
