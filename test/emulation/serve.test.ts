// Serving emulator apps on loopback sockets: ephemeral ports, prompt close, dropped connections.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createEmulatorApp } from '../../src/emulation/emulatorApp.js';
import { ok } from '../../src/emulation/result.js';
import { startHttpServer } from '../../src/emulation/serve.js';

describe('startHttpServer', () => {
  it('listens on an ephemeral loopback port and closes promptly despite keep-alive', async () => {
    const app = new Hono();
    app.get('/ping', (c) => c.text('pong'));
    const server = await startHttpServer(app);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
    // fetch keeps the connection alive; close() must not wait for it to time out.
    expect(await (await fetch(`${server.url}/ping`)).text()).toBe('pong');
    // Node keeps an idle keep-alive connection for 5 s: close() must finish well before that, not wait for it.
    const closed = await Promise.race([
      server.close().then(() => 'closed'),
      new Promise((resolve) => setTimeout(resolve, 4_000, 'waited for the idle connection')),
    ]);
    expect(closed).toBe('closed');
    await expect(fetch(`${server.url}/ping`)).rejects.toThrow();
  });

  it('rejects when the port is taken', async () => {
    const app = new Hono();
    const first = await startHttpServer(app);
    await expect(startHttpServer(app, { port: first.port })).rejects.toThrow(/EADDRINUSE/);
    await first.close();
  });

  it('drops the connection for a drop fault, so the client sees a network error', async () => {
    const emulator = createEmulatorApp({
      errorBody: (_s, message) => ({ message }),
      service: {
        summary: () => ({}),
        collectionNames: () => [],
        collection: () => undefined,
        item: () => undefined,
        reset: () => ok({}),
      },
      rateLimits: {},
    });
    emulator.app.get('/thing', (c) => c.json({ ok: true }));
    const server = await startHttpServer(emulator.app);
    try {
      emulator.faults.set([{ path: '/thing', kind: 'drop', times: 1 }]);
      await expect(fetch(`${server.url}/thing`)).rejects.toThrow(/fetch failed/);
      expect(emulator.log.since().at(-1)).toMatchObject({ path: '/thing', status: 0, fault: 'drop' });
      const after = await fetch(`${server.url}/thing`);
      expect(after.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
