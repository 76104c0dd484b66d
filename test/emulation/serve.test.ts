// Serving emulator apps on loopback sockets: ephemeral ports, prompt close, dropped connections.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createEmulatorApp } from '../../src/emulation/emulatorApp.js';
import { ok } from '../../src/emulation/result.js';
import { startEmulator, startHttpServer } from '../../src/emulation/serve.js';

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

describe('startEmulator', () => {
  /** A stand-in emulator: its app answers with the options it was built from; close is counted. */
  function fakeEmulator(options: { greeting?: string }) {
    const app = new Hono();
    app.get('/options', (c) => c.json(options));
    const emulator = { app, closed: 0, close: () => emulator.closed++ };
    return emulator;
  }

  it('builds the emulator from its own options, serves it, and closes the socket and then the emulator', async () => {
    const started = await startEmulator(fakeEmulator, { greeting: 'hi', host: '127.0.0.1', port: 0 });
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // host and port are the socket's: the emulator never sees them.
    expect(await (await fetch(`${started.url}/options`)).json()).toEqual({ greeting: 'hi' });
    expect(started.emulator.closed).toBe(0);
    await started.close();
    expect(started.emulator.closed).toBe(1);
    await expect(fetch(`${started.url}/options`)).rejects.toThrow();
  });

  it('closes the emulator it built when the port is taken', async () => {
    const taken = await startHttpServer(new Hono());
    let built: ReturnType<typeof fakeEmulator> | undefined;
    const create = (options: { greeting?: string }) => {
      built = fakeEmulator(options);
      return built;
    };
    await expect(startEmulator(create, { port: taken.port })).rejects.toThrow(/EADDRINUSE/);
    expect(built?.closed).toBe(1);
    await taken.close();
  });
});
