// The consent page in a real headless browser (Debian's chromium, driven by playwright-core): `switchboard login
// store --no-browser` prints the address, the browser opens it, Grace is picked in #user, #approve is clicked, the
// browser follows the store's redirect to the CLI's loopback callback, and the login completes. Then `serve store`
// over stdio, with that file and no STORE_ACCESS_TOKEN, acts as Grace and sees only her bases.
//
// Needs /usr/bin/chromium (`apt-get install -y chromium`; .ci/run installs it). Without it the test is skipped
// and says so.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM, INSTALL_CHROMIUM } from '../support/chromium.js';
import { connectCli } from './harness.js';
import { loginEnv, spawnLogin, tempCredentials } from './loginHarness.js';
import { type StoreEmulatorHandle, startStore } from './storeHarness.js';

// Without chromium, test/setup/notes.ts says once, before the run, that these tests are skipped and why.
describe.skipIf(!HAVE_CHROMIUM)(
  `the consent page in headless chromium (needs ${CHROMIUM}: ${INSTALL_CHROMIUM})`,
  () => {
    let upstream: StoreEmulatorHandle;
    let grace: { id: string; email: string; name: string };
    let context: BrowserContext;
    let profile: string;
    let file: ReturnType<typeof tempCredentials>;

    beforeAll(async () => {
      file = tempCredentials();
      upstream = await startStore();
      const users = await upstream.state<{ id: string; email: string; name: string }>('users');
      grace = users.find((u) => u.name === 'Grace Hopper') as typeof grace;
      profile = mkdtempSync(join(tmpdir(), 'switchboard-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
      });
    });

    afterAll(async () => {
      await context?.close();
      await upstream?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
      file?.remove();
    });

    // Three processes (login, chromium, serve): generous for a loaded CI machine.

    it('Grace approves in the browser; the login is saved; serve store acts as Grace', {
      timeout: 60_000,
    }, async () => {
      const login = spawnLogin(['--no-browser'], loginEnv(upstream.url, file.path));
      try {
        const authorizeUrl = await login.authorizeUrl();
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(authorizeUrl);
        expect(await page.textContent('#app-name')).toBe('Switchboard sandbox integration');
        const scopes = await page.$$eval('#scopes li', (items) =>
          items.map((li) => li.getAttribute('data-scope')),
        );
        expect(scopes).toContain('data.records:read');
        expect(scopes).toContain('user.email:read');

        await page.selectOption('#user', { label: `${grace.name} (${grace.email})` });
        await Promise.all([
          page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/),
          page.click('#approve'),
        ]);
        expect(await page.textContent('#title')).toBe('Connected');
        expect(await page.textContent('#message')).toContain(`Connected as ${grace.email} (${grace.id})`);
        expect(await login.exited).toBe(0);
      } finally {
        await login.stop();
      }

      expect(file.mode()).toBe(0o600);
      const saved = file.read();
      expect(saved.user.id).toBe(grace.id);
      expect(login.stdout() + login.stderr()).not.toContain(saved.accessToken);

      const mcp = await connectCli(['serve', 'store'], {
        STORE_BASE_URL: upstream.url,
        SWITCHBOARD_CREDENTIALS_FILE: file.path,
        SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
      });
      try {
        const me = await mcp.call('StoreApi.RetrieveUserIdAndScopes');
        expect(me.isError).toBe(false);
        expect(me.structured.id).toBe(grace.id);
        const bases = await mcp.call('StoreApi.ListStoreBases');
        expect(bases.isError).toBe(false);
        expect((bases.structured.bases as { name: string }[]).map((b) => b.name)).toEqual([
          'Product Roadmap',
          'Sales CRM',
        ]);
      } finally {
        await mcp.close();
      }
    });
  },
);
