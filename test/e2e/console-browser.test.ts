// The sandbox console (docs/console.md) in a real headless browser (Debian's chromium, driven by playwright-core):
// `serve all --sandbox --transport http` serves the page at `/`; an agent (the SDK client, on both protocol
// revisions) calls tools over /mcp while the page watches, steers and runs tools of its own.
//
// Needs /usr/bin/chromium (`apt-get install -y chromium`; .ci/run installs it). Without it the tests are skipped
// and say so.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM, INSTALL_CHROMIUM } from '../support/chromium.js';
import { spawnCli } from './harness.js';

type Revision = '2025-11-25' | '2026-07-28';

/** Everything a browser wait may take on a loaded CI machine; nothing here is timed. */
const WAIT = { timeout: 20_000 };

interface Agent {
  call(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ isError: boolean; structured: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** An SDK client speaking `revision` over HTTP: the 2025 handshake, or 2026-07-28 pinned. */
async function connectAgent(mcpUrl: URL, revision: Revision, name: string, token?: string): Promise<Agent> {
  const client = new Client(
    { name, version: '1.0.0' },
    { versionNegotiation: { mode: revision === '2026-07-28' ? { pin: revision } : 'legacy' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(
      mcpUrl,
      token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } },
    ),
  );
  expect(client.getNegotiatedProtocolVersion()).toBe(revision);
  return {
    async call(tool, args = {}) {
      const result = await client.callTool({ name: tool, arguments: args });
      return {
        isError: result.isError === true,
        structured: (result.structuredContent ?? {}) as Record<string, unknown>,
      };
    },
    close: () => client.close(),
  };
}

interface StoreTable {
  id: string;
  primaryFieldId: string;
  fields: { id: string; name: string }[];
}

/** The first table of the first base the sandbox's token reaches. */
async function firstTable(agent: Agent): Promise<{ baseId: string; table: StoreTable }> {
  const bases = (await agent.call('StoreApi.ListStoreBases')).structured.bases as { id: string }[];
  const baseId = bases[0]!.id;
  const schema = await agent.call('StoreApi.GetStoreBaseSchema', { store_base_id: baseId });
  return { baseId, table: (schema.structured.tables as StoreTable[])[0]! };
}

/** A record the agent creates in that table, named `name`; its id. */
async function createRecord(agent: Agent, name: string): Promise<string> {
  const { baseId, table } = await firstTable(agent);
  const primary = table.fields.find((field) => field.id === table.primaryFieldId)!;
  const created = await agent.call('StoreApi.CreateStoreRecords', {
    base_id: baseId,
    table_id_or_name: table.id,
    mode: 'execute',
    request_body: JSON.stringify({ records: [{ fields: { [primary.name]: name } }] }),
  });
  expect(created.isError).toBe(false);
  return (created.structured.records as { id: string }[])[0]!.id;
}

// Without chromium, test/setup/notes.ts says once, before the run, that these tests are skipped and why.
describe.skipIf(!HAVE_CHROMIUM)(
  `the sandbox console in headless chromium (needs ${CHROMIUM}: ${INSTALL_CHROMIUM})`,
  () => {
    let dataDir: string;
    let server: ReturnType<typeof spawnCli>;
    let consoleUrl: string;
    let mcpUrl: URL;
    let browser: Browser;
    let page: Page;
    const outside: string[] = [];
    const pageErrors: string[] = [];

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'switchboard-console-'));
      server = spawnCli(
        ['serve', 'all', '--sandbox', '--transport', 'http', '--port', '0', '--data-dir', dataDir],
        {},
        /Console \(watch and steer the sandbox in a browser\): (http:\/\/127\.0\.0\.1:\d+\/)/,
      );
      consoleUrl = (await server.ready)[1]!;
      mcpUrl = new URL('/mcp', consoleUrl);
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
      });
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      // The page fetches nothing but its own origin: no CDN, no fonts.
      page.on('request', (request) => {
        if (!request.url().startsWith(consoleUrl) && !request.url().startsWith('data:'))
          outside.push(request.url());
      });
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(consoleUrl);
      await page.locator('.connection-live').waitFor(WAIT);
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const view = async (name: 'timeline' | 'state' | 'controls' | 'playground') => {
      await page.click(`#view-${name}`);
      await page.locator(`section#${name}:not([hidden])`).waitFor(WAIT);
    };
    /** Where an emulator of the sandbox listens, as the console reports it. */
    const emulatorUrl = async (service: string) => {
      const info = (await (await fetch(`${consoleUrl}console/api/info`)).json()) as {
        emulators: { service: string; url: string }[];
      };
      return info.emulators.find((emulator) => emulator.service === service)!.url;
    };

    it('says that it shows only this process, and loads nothing from elsewhere', async () => {
      await view('timeline');
      expect(await page.textContent('#process-note')).toContain('this server process only');
      expect(outside).toEqual([]);
      expect(pageErrors).toEqual([]);
    });

    for (const [revision, issueId] of [
      ['2025-11-25', '2'],
      ['2026-07-28', '3'],
    ] as const) {
      it(`a tool call made through the SDK client (${revision}) appears in the timeline with its upstream requests`, {
        timeout: 60_000,
      }, async () => {
        await view('timeline');
        const name = `timeline-agent-${revision}`;
        const agent = await connectAgent(mcpUrl, revision, name);
        try {
          const result = await agent.call('IssueDesk.GetIssue', { lookup_by: 'id', value: issueId });
          expect(result.isError).toBe(false);
        } finally {
          await agent.close();
        }
        const entry = page
          .locator('article.call[data-tool="IssueDesk.GetIssue"][data-outcome="ok"]')
          .filter({ has: page.locator('td.path', { hasText: new RegExp(`/issues/${issueId}$`) }) });
        await entry.waitFor(WAIT);
        // 2026-07-28 names the client in every request; a 2025 client over HTTP named itself only in its
        // initialize request, which the stateless server answered and forgot.
        expect(await entry.locator('.client').textContent()).toBe(
          `client: ${revision === '2026-07-28' ? name : 'unknown'}`,
        );
        const row = entry.locator('tr.upstream-row').first();
        expect(await row.locator('.method').textContent()).toBe('GET');
        expect(await row.locator('.status').textContent()).toBe('200');
        // The arguments, opened on demand.
        await entry.locator('details.call-arguments summary').click();
        const args = JSON.parse((await entry.locator('details.call-arguments pre').textContent()) ?? '');
        expect(args).toEqual({ lookup_by: 'id', value: issueId });
        // The outcome filter hides it and brings it back.
        await page.selectOption('#filter-outcome', 'tool_error');
        await entry.waitFor({ ...WAIT, state: 'detached' });
        await page.selectOption('#filter-outcome', '');
        await entry.waitFor(WAIT);
      });
    }

    it('a fault set in the page makes the next call fail, and the timeline shows the failed requests', {
      timeout: 60_000,
    }, async () => {
      await view('controls');
      // 503 for the next three requests to the store: the first try and both retries of a read.
      await page.selectOption('#fault-store-kind', 'error');
      await page.fill('#fault-store-status', '503');
      await page.fill('#fault-store-times', '3');
      await page.click('#fault-store-add');
      await page.locator('#faults-store li[data-kind="error"]').waitFor(WAIT);

      const agent = await connectAgent(mcpUrl, '2026-07-28', 'fault-agent');
      try {
        const failed = await agent.call('StoreApi.ListStoreBases');
        expect(failed.isError).toBe(true);
        // The three requests used the rule up: the next call is answered normally.
        const again = await agent.call('StoreApi.ListStoreBases');
        expect(again.isError).toBe(false);
      } finally {
        await agent.close();
      }

      await view('timeline');
      const entry = page.locator(
        'article.call[data-tool="StoreApi.ListStoreBases"][data-outcome="tool_error"]',
      );
      await entry.waitFor(WAIT);
      const rows = entry.locator('tr.upstream-row');
      expect(await rows.count()).toBe(3);
      for (const row of await rows.all()) {
        expect(await row.locator('.status').textContent()).toBe('503');
        expect(await row.getAttribute('data-fault')).toBeTruthy();
        expect(await row.locator('.mark-fault').count()).toBe(1);
      }
      await page
        .locator('article.call[data-tool="StoreApi.ListStoreBases"][data-outcome="ok"]')
        .waitFor(WAIT);

      // The rule is used up: the controls say so without a reload.
      await view('controls');
      await page.locator('#faults-store-none').waitFor(WAIT);
    });

    it("a fault added in the page leaves the active rules as requests left them, even requests this server didn't send", {
      timeout: 60_000,
    }, async () => {
      const issuedeskUrl = await emulatorUrl('issuedesk');
      const addFault = async (kind: string, fields: Record<string, string>, rulesAfter: number) => {
        await page.selectOption('#fault-issuedesk-kind', kind);
        for (const [name, value] of Object.entries(fields))
          await page.fill(`#fault-issuedesk-${name}`, value);
        await page.click('#fault-issuedesk-add');
        await page.locator(`#faults-issuedesk li:nth-child(${rulesAfter})`).waitFor(WAIT);
      };

      await view('controls');
      await addFault('error', { status: '503', times: '2' }, 1);
      // The user's own code uses one of the two: no call of this server ends, yet the page re-reads the rules.
      expect((await fetch(`${issuedeskUrl}/me`)).status).toBe(503);
      await page.locator('#faults-issuedesk li[data-kind="error"]', { hasText: 'times 1' }).waitFor(WAIT);

      await addFault('latency', { latencyMs: '1', times: '1' }, 2);
      const rules = ((await (await fetch(`${issuedeskUrl}/_emulator/faults`)).json()) as { rules: unknown[] })
        .rules;
      expect(rules).toMatchObject([
        { kind: 'error', status: 503, times: 1 },
        { kind: 'latency', latencyMs: 1, times: 1 },
      ]);
      expect(await page.textContent('#faults-issuedesk li[data-kind="error"]')).toContain('times 1');

      await page.click('#fault-issuedesk-clear');
      await page.locator('#faults-issuedesk-none').waitFor(WAIT);
    });

    it('the playground runs a schema-mode tool in both modes: body schema fetched, then executed', {
      timeout: 60_000,
    }, async () => {
      await view('playground');
      await page.fill('#tool-filter', 'SendCustomerEvent');
      await page.selectOption('#tool', 'MessagingTrackApi.SendCustomerEvent');
      // The path parameter is optional in the input schema (schema mode needs none): the form's opt-in box.
      await page.check('input[aria-label="Send customer_identifier"]');
      await page.fill('[name="arguments[customer_identifier]"]', 'console-person-1');

      await page.click('#fetch-schema');
      await page.locator('#run-result h3', { hasText: 'Body schema: ok' }).waitFor(WAIT);
      const example = JSON.parse(await page.inputValue('#request-body')) as Record<string, unknown>;
      // Prefilled with the body schema's own example.
      expect(example).toHaveProperty('name');

      await page.fill('#request-body', JSON.stringify({ ...example, name: 'console_playground_event' }));
      await page.click('#run');
      const result = page.locator('#run-result', { hasText: 'Execute: ok' });
      await result.waitFor(WAIT);
      // The region lookup (a GET) may come first; the event itself is the POST.
      const post = result.locator('tr.upstream-row', { has: page.locator('td.method', { hasText: 'POST' }) });
      await post.waitFor(WAIT);
      expect(await post.locator('.path').textContent()).toBe('/api/v1/customers/console-person-1/events');
      expect(await post.locator('.status').textContent()).toMatch(/^2\d\d$/);
      await post.locator('details summary').click();
      expect(JSON.parse((await post.locator('details pre').textContent()) ?? '')).toMatchObject({
        name: 'console_playground_event',
      });

      // Both runs are in the timeline as the console's own calls: the schema asked for with the mode alone, as an
      // agent would, then the execution with the form's argument and the body.
      await view('timeline');
      const runs = page.locator('article.call[data-tool="MessagingTrackApi.SendCustomerEvent"]');
      await runs.nth(1).waitFor(WAIT);
      const argumentsOf = async (index: number) => {
        const run = runs.nth(index);
        expect(await run.locator('.client').textContent()).toBe('client: sandbox-console');
        await run.locator('details.call-arguments summary').click();
        return JSON.parse((await run.locator('details.call-arguments pre').textContent()) ?? '');
      };
      // Newest first.
      expect(await argumentsOf(1)).toEqual({ mode: 'get_request_schema' });
      expect(await argumentsOf(0)).toMatchObject({
        mode: 'execute',
        customer_identifier: 'console-person-1',
      });
    });

    it('the playground form (json-editor, from the input schema) runs a tool with its arguments', {
      timeout: 60_000,
    }, async () => {
      await view('playground');
      await page.fill('#tool-filter', 'IssueDesk.GetIssue');
      await page.selectOption('#tool', 'IssueDesk.GetIssue');
      const form = page.locator('#arguments-form');
      await form.locator('[name="arguments[value]"]').waitFor(WAIT);
      await form.locator('select[name="arguments[lookup_by]"]').selectOption('id');
      await form.locator('[name="arguments[value]"]').fill('3');
      await form.locator('[name="arguments[value]"]').press('Tab');
      await page.click('#run');
      const result = page.locator('#run-result', { hasText: 'Run: ok' });
      await result.waitFor(WAIT);
      expect(JSON.parse((await page.textContent('#run-output')) ?? '')).toHaveProperty('issue');
      await result.locator('tr.upstream-row').first().waitFor(WAIT);
      expect(await result.locator('tr.upstream-row .path').first().textContent()).toMatch(/\/issues\/[^/]+$/);
    });

    it('the state tables show a record created by an agent, marked as changed since the mark', {
      timeout: 60_000,
    }, async () => {
      await view('state');
      await page.click('#state-mark');
      await page.locator('#state-marker').waitFor(WAIT);

      const agent = await connectAgent(mcpUrl, '2025-11-25', 'state-agent');
      let recordId: string;
      try {
        recordId = await createRecord(agent, 'Made by the console test agent');
      } finally {
        await agent.close();
      }

      await page.click('button.collection[data-service="store"][data-collection="records"]');
      const row = page.locator(`#state-rows[data-collection="records"] tr[data-id="${recordId}"]`);
      await row.waitFor(WAIT);
      expect(await row.getAttribute('class')).toContain('changed');
      expect(await row.textContent()).toContain('Made by the console test agent');
      await page.check('#state-only-changed');
      const changedRows = page.locator('#state-rows tbody tr');
      await changedRows.first().waitFor(WAIT);
      for (const changed of await changedRows.all())
        expect(await changed.getAttribute('class')).toContain('changed');
      expect(pageErrors).toEqual([]);
      expect(outside).toEqual([]);
    });

    it('reset and reseed from the page replaces what an agent created with the seeded data', {
      timeout: 60_000,
    }, async () => {
      const agent = await connectAgent(mcpUrl, '2026-07-28', 'reset-agent');
      try {
        const created = await createRecord(agent, 'Made before the reset');
        await view('state');
        await page.click('button.collection[data-service="store"][data-collection="records"]');
        const row = page.locator(`#state-rows tr[data-id="${created}"]`);
        await row.waitFor(WAIT);

        await view('controls');
        await page.click('#reset-store-button');
        await page.locator('#controls p', { hasText: 'Reset and reseeded' }).waitFor(WAIT);
        const { baseId, table } = await firstTable(agent);
        const gone = await agent.call('StoreApi.StoreGetRecord', {
          store_base_id: baseId,
          table_identifier: table.id,
          record_id: created,
        });
        expect(gone.isError).toBe(true);

        await view('state');
        await page.click('button.collection[data-service="store"][data-collection="records"]');
        await row.waitFor({ ...WAIT, state: 'detached' });
      } finally {
        await agent.close();
      }
    });

    it('the playground builds a form for every tool from its input schema, without an error', {
      timeout: 120_000,
    }, async () => {
      await view('playground');
      await page.fill('#tool-filter', '');
      const names = await page.$$eval('#tool option', (options) =>
        options.map((option) => option.getAttribute('value') ?? ''),
      );
      expect(names.length).toBeGreaterThan(100);
      for (const name of names) {
        await page.selectOption('#tool', name);
        await page
          .locator(
            `#arguments-form[data-ready-for="${name}"], #playground p:has-text("takes no arguments here")`,
          )
          .first()
          .waitFor(WAIT);
      }
      expect(pageErrors).toEqual([]);
    });

    it('shows no credential of the sandbox anywhere, in any view', async () => {
      // The banner prints the credentials the emulators accept; the calls above all sent them.
      const credentials = [...server.stderr().matchAll(/(?:_TOKEN|_API_KEY)=(\S+)/g)].map(
        (match) => match[1]!,
      );
      expect(credentials.length).toBeGreaterThanOrEqual(3);
      for (const name of ['timeline', 'state', 'controls', 'playground'] as const) {
        await view(name);
        const html = await page.content();
        for (const credential of credentials) expect(html).not.toContain(credential);
      }
    });

    it('on a server protected like /mcp, asks for its bearer token, then follows the calls', {
      timeout: 60_000,
    }, async () => {
      const token = 'console-test-token-6f1c2a';
      const folder = mkdtempSync(join(tmpdir(), 'switchboard-console-protected-'));
      const guarded = spawnCli(
        ['serve', 'issuedesk', '--sandbox', '--transport', 'http', '--port', '0', '--data-dir', folder],
        { SWITCHBOARD_HTTP_TOKEN: token },
        /Console \(watch and steer the sandbox in a browser\): (http:\/\/127\.0\.0\.1:\d+\/)/,
      );
      const other = await browser.newPage();
      try {
        const url = (await guarded.ready)[1]!;
        await other.goto(url);
        await other.locator('.connection-unauthorized').waitFor(WAIT);
        await other.fill('#access-token', token);
        await other.click('#use-token');
        await other.locator('.connection-live').waitFor(WAIT);

        const agent = await connectAgent(new URL('/mcp', url), '2026-07-28', 'protected-agent', token);
        try {
          expect((await agent.call('IssueDesk.WhoAmI')).isError).toBe(false);
        } finally {
          await agent.close();
        }
        const entry = other.locator('article.call[data-tool="IssueDesk.WhoAmI"]');
        await entry.waitFor(WAIT);
        expect(await entry.locator('.client').textContent()).toBe('client: protected-agent');
        expect(await other.content()).not.toContain(token);
      } finally {
        await other.close();
        await guarded.stop();
        rmSync(folder, { recursive: true, force: true });
      }
    });

    it("shows the store's per-base rate limit as the upstream enforces it, and setting it in the page reaches the emulator", async () => {
      const storeUrl = await emulatorUrl('store');
      const emulatorSays = async () =>
        (await (await fetch(`${storeUrl}/_emulator/base-rate-limit`)).json()) as Record<string, unknown>;
      const id = (name: string) => `#upstream-store-base-rate-limit-${name}`;

      await view('controls');
      await page.locator(id('upstream')).waitFor(WAIT);
      expect(await page.textContent(id('upstream'))).toContain(
        'per base: 5 requests per second, as the upstream enforces',
      );
      expect(await page.textContent(id('now'))).toContain('requests per second, per base: 5');
      expect(await page.isChecked(id('enabled'))).toBe(true);
      // Only the store's upstream has a limit of its own.
      expect(await page.locator('[id^="upstream-issuedesk-"]').count()).toBe(0);

      await page.fill(id('perSecond'), '7');
      await page.fill(id('penaltyMs'), '1000');
      expect(await page.textContent(id('unsaved'))).toContain('Not saved yet.');
      await page.click(id('save'));
      await page.locator(id('now'), { hasText: 'requests per second, per base: 7' }).waitFor(WAIT);
      await page.locator(id('unsaved')).waitFor({ ...WAIT, state: 'detached' });
      expect(await emulatorSays()).toMatchObject({ enabled: true, perSecond: 7, penaltyMs: 1000 });

      // Back to the upstream's numbers, from the page, for the tests after this one.
      await page.fill(id('perSecond'), '5');
      await page.fill(id('penaltyMs'), '30000');
      await page.click(id('save'));
      await page.locator(id('now'), { hasText: 'requests per second, per base: 5' }).waitFor(WAIT);
      expect(await emulatorSays()).toMatchObject({ enabled: true, perSecond: 5, penaltyMs: 30_000 });

      // Set from outside the page (as a user's own script would): the form follows when the view is shown again.
      const setFromOutside = async (perSecond: number) => {
        const answer = await fetch(`${storeUrl}/_emulator/base-rate-limit`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ perSecond }),
        });
        expect(answer.status).toBe(200);
      };
      await setFromOutside(6);
      await view('timeline');
      await view('controls');
      await page.locator(id('now'), { hasText: 'requests per second, per base: 6' }).waitFor(WAIT);
      // The form takes what was read in an effect after the render that shows it on the "Now:" line.
      await expect.poll(() => page.inputValue(id('perSecond')), { timeout: WAIT.timeout }).toBe('6');
      await setFromOutside(5);
      await view('timeline');
      await view('controls');
      await page.locator(id('now'), { hasText: 'requests per second, per base: 5' }).waitFor(WAIT);
      await expect.poll(() => page.inputValue(id('perSecond')), { timeout: WAIT.timeout }).toBe('5');
    });

    it('an edit made while the page is still reloading the rate limits is kept, and is what gets saved', {
      timeout: 60_000,
    }, async () => {
      const issuedeskUrl = await emulatorUrl('issuedesk');
      const emulatorSays = async () =>
        (await (await fetch(`${issuedeskUrl}/_emulator/rate-limits`)).json()) as { enabled: boolean };
      expect((await emulatorSays()).enabled).toBe(false);

      // Showing the view reloads the form; that reload is held until the user has made an edit.
      await view('timeline');
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const pattern = /\/issuedesk\/rate-limits$/;
      await page.route(pattern, async (route) => {
        if (route.request().method() === 'GET') await held;
        await route.continue();
      });
      try {
        const reloaded = page.waitForResponse((response) => pattern.test(response.url()));
        await view('controls');
        await page.check('#limits-issuedesk-enabled');
        release();
        await (await reloaded).finished();
        // A round trip through the page, so that it has handled the reload's answer.
        await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
        expect(await page.isChecked('#limits-issuedesk-enabled')).toBe(true);
        expect(await page.textContent('#limits-issuedesk-unsaved')).toContain('Not saved yet.');

        await page.click('#limits-issuedesk-save');
        await page.locator('#controls p', { hasText: 'Rate limits on.' }).waitFor(WAIT);
        expect((await emulatorSays()).enabled).toBe(true);
        expect(await page.locator('#limits-issuedesk-unsaved').count()).toBe(0);
      } finally {
        await page.unroute(pattern);
      }

      await page.uncheck('#limits-issuedesk-enabled');
      await page.click('#limits-issuedesk-save');
      await page.locator('#controls p', { hasText: 'Rate limits off.' }).waitFor(WAIT);
      expect((await emulatorSays()).enabled).toBe(false);
    });

    // Last: the client remembers the 429's Retry-After (a minute) and holds further calls to that route.
    it("rate limits switched on in the page refuse the agent's next request, marked as a 429 in the timeline", {
      timeout: 60_000,
    }, async () => {
      await view('controls');
      await page.click('#limits-issuedesk-routes summary');
      await page.fill('[id="limits-issuedesk-route-GET /issues/:id"]', '0');
      await page.check('#limits-issuedesk-enabled');
      await page.click('#limits-issuedesk-save');
      await page.locator('#controls p', { hasText: 'Rate limits on.' }).waitFor(WAIT);

      const agent = await connectAgent(mcpUrl, '2026-07-28', 'limited-agent');
      try {
        const refused = await agent.call('IssueDesk.GetIssue', { lookup_by: 'id', value: '5' });
        expect(refused.isError).toBe(true);
      } finally {
        await agent.close();
      }
      await view('timeline');
      const entry = page
        .locator('article.call[data-tool="IssueDesk.GetIssue"][data-outcome="tool_error"]')
        .filter({ has: page.locator('td.path', { hasText: /\/issues\/5$/ }) });
      await entry.waitFor(WAIT);
      const row = entry.locator('tr.upstream-row').first();
      expect(await row.locator('.status').textContent()).toBe('429');
      expect(await row.locator('.mark-limit').textContent()).toBe('rate limited (429)');

      await view('controls');
      await page.uncheck('#limits-issuedesk-enabled');
      await page.click('#limits-issuedesk-save');
      await page.locator('#controls p', { hasText: 'Rate limits off.' }).waitFor(WAIT);
    });
  },
);
