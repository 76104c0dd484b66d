// The sandbox console's server side (docs/console.md; the API is /work/notes' contract, restated in the doc): the
// page at `/` and `/console/app.{js,css}`, and the API under `/console/api/` (timeline feed over server-sent
// events, state tables, controls, playground), mounted beside /mcp by `serve --sandbox --transport http` when
// availability.ts allows it. The page's code is behind the Host and Origin checks; everything under /console/api/
// is behind every guard of /mcp (the bearer token or the per-user sign-in too, where the server has one).

import type { AuthInfo } from '@modelcontextprotocol/server';
import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { log } from '../runtime/log.js';
import { redactValue, registerSecret } from '../runtime/secrets.js';
import type { ToolSet } from '../runtime/toolset.js';
import type { GuardedAccess } from '../runtime/transports.js';
import { FAULT_KINDS_SHOWN, passToEmulator, UPSTREAM_LIMITS, upstreamLimit } from './controls.js';
import { CallFeed, type ConsoleCall, type WatchedEmulator } from './feed.js';
import { Playground } from './playground.js';
import { ConsoleRequestError, StateTables } from './stateTables.js';
import { consoleAssets } from './web/assets.js';

export const CONSOLE_API_PATH = '/console/api';
/** Seconds between the comment lines that keep an idle event stream open through proxies. */
export const PING_SECONDS = 15;
/** Events a page has not read yet before its stream is cut (it reconnects and gets the backlog). */
export const MAX_UNSENT_EVENTS = 1_000;

/** What the console shows of each served service. */
export interface ConsoleService {
  /** The service id (`store`), as the emulators are named. */
  id: string;
  title: string;
  /** The tool-name prefix (`StoreApi`). */
  prefix: string;
}

export interface SandboxConsole {
  /** Mounts the page and the API (transports.ts HttpOptions.mount). */
  mount(app: Hono, access: GuardedAccess): void;
  /** Stops listening for calls and ends every open event stream (before a graceful stop waits for requests). */
  close(): void;
}

type ApiEnv = { Variables: { authInfo: AuthInfo | undefined } };

/** The note the info endpoint gives: what the timeline covers. */
export const PROCESS_ONLY_NOTE =
  'The timeline shows the tool calls of this server process only. Other Switchboard processes on the same sandbox data folder (a stdio server an MCP client started, say) run emulators of their own: their calls are not shown here, though their changes do show in the state tables, which read the shared data.';

export function startSandboxConsole(options: {
  toolSet: ToolSet;
  services: readonly ConsoleService[];
  emulators: readonly WatchedEmulator[];
  /**
   * The credentials the emulators accept. Registered as secrets now: a service's client registers its token on
   * its first request, after the first call's arguments (which may carry it) are already on their way to a page.
   */
  credentials?: readonly string[];
}): SandboxConsole {
  for (const credential of options.credentials ?? []) registerSecret(credential);
  const feed = new CallFeed(options.emulators);
  feed.start();
  const state = new StateTables(options.emulators);
  const streams = new Set<() => void>();
  let playground: Playground | undefined;

  const info = {
    processOnly: true,
    note: PROCESS_ONLY_NOTE,
    servers: options.services
      .map((service) => ({
        prefix: service.prefix,
        title: service.title,
        service: service.id,
        toolCount: options.toolSet.tools.filter((tool) => tool.specName.startsWith(`${service.prefix}.`))
          .length,
      }))
      .filter((server) => server.toolCount > 0),
    emulators: options.emulators.map((emulator) => ({
      service: emulator.service,
      title: options.services.find((service) => service.id === emulator.service)?.title ?? emulator.service,
      url: emulator.url,
    })),
    feedCapacity: feed.capacity,
  };

  const mount = (app: Hono, access: GuardedAccess) => {
    playground = new Playground(access.mcpServer);
    const page = async (c: Context, part: 'html' | 'js' | 'css') => {
      const refused = access.refuseForeignHost(c.req.raw);
      if (refused) return refused;
      const assets = await consoleAssets();
      const type = { html: 'text/html', js: 'text/javascript', css: 'text/css' }[part];
      return c.body(assets[part], 200, {
        'content-type': `${type}; charset=utf-8`,
        'cache-control': part === 'html' ? 'no-store' : 'no-cache',
        'x-content-type-options': 'nosniff',
        // The controls change the emulators: no other site may frame the page and steer a click.
        'content-security-policy': "frame-ancestors 'none'",
        'x-frame-options': 'DENY',
      });
    };
    // `/` stays the server's JSON description for everything but a browser asking for a page.
    app.get('/', async (c, next) => {
      if (!(c.req.header('accept') ?? '').includes('text/html')) return next();
      return page(c, 'html');
    });
    app.get('/console/app.js', (c) => page(c, 'js'));
    app.get('/console/app.css', (c) => page(c, 'css'));

    const api = new Hono<ApiEnv>();
    api.use('*', async (c, next) => {
      const guarded = await access.guard(c.req.raw);
      if (guarded instanceof Response) return guarded;
      c.set('authInfo', guarded.authInfo);
      await next();
      c.header('cache-control', 'no-store');
    });
    api.onError((error, c) => {
      if (error instanceof ConsoleRequestError)
        return c.json({ error: { message: error.message } }, error.status);
      log('warn', 'sandbox console request failed', { path: c.req.path, error: error.message });
      return c.json({ error: { message: 'The console failed to answer; the server log says why.' } }, 500);
    });

    api.get('/info', (c) => c.json(info));

    api.get('/events', (c) =>
      streamSSE(c, async (stream) => {
        let unsent = 0;
        let ended: () => void = () => undefined;
        const done = new Promise<void>((resolve) => {
          ended = resolve;
        });
        const send = (event: string, data: unknown) => {
          if (unsent >= MAX_UNSENT_EVENTS) {
            // A page that stopped reading: cut it loose rather than hold every event for it.
            ended();
            return;
          }
          unsent++;
          stream
            .writeSSE({ event, data: JSON.stringify(data) })
            .catch(() => ended())
            .finally(() => {
              unsent--;
            });
        };
        send('backlog', { calls: feed.backlog() });
        const unsubscribe = feed.subscribe((call: ConsoleCall) => send('call', call));
        const ping = setInterval(() => {
          stream.write(': ping\n\n').catch(() => ended());
        }, PING_SECONDS * 1000);
        streams.add(ended);
        stream.onAbort(() => ended());
        try {
          await done;
        } finally {
          streams.delete(ended);
          clearInterval(ping);
          unsubscribe();
        }
      }),
    );
    api.delete('/events', (c) => c.json({ cleared: feed.clear() }));

    api.get('/state', async (c) => c.json(await state.overview()));
    api.post('/state/mark', async (c) => c.json(await state.mark()));
    api.get('/state/:service/:collection', async (c) => {
      const changedSince = c.req.query('changedSince');
      const offset = count(c.req.query('offset'), 'offset', 0, Number.MAX_SAFE_INTEGER);
      const limit = count(c.req.query('limit'), 'limit', 1, 10_000);
      return c.json(
        await state.table(c.req.param('service'), c.req.param('collection'), {
          ...(changedSince ? { changedSince } : {}),
          ...(offset !== undefined ? { offset } : {}),
          ...(limit !== undefined ? { limit } : {}),
        }),
      );
    });

    const control = async (
      c: Context<ApiEnv>,
      method: 'GET' | 'PUT' | 'DELETE' | 'POST',
      path: string,
    ): Promise<Response> => {
      const emulator = state.emulator(c.req.param('service') ?? '');
      const body = method === 'PUT' || method === 'POST' ? await c.req.text() : undefined;
      const answer = await passToEmulator(emulator, method, path, body);
      return c.json(answer.body as object, answer.status as 200);
    };
    api.get('/emulators/:service/fault-kinds', (c) => {
      state.emulator(c.req.param('service'));
      return c.json({ kinds: FAULT_KINDS_SHOWN });
    });
    api.get('/emulators/:service/faults', (c) => control(c, 'GET', '/faults'));
    api.put('/emulators/:service/faults', (c) => control(c, 'PUT', '/faults'));
    api.post('/emulators/:service/faults', (c) => control(c, 'POST', '/faults'));
    api.delete('/emulators/:service/faults', (c) => control(c, 'DELETE', '/faults'));
    api.get('/emulators/:service/rate-limits', (c) => control(c, 'GET', '/rate-limits'));
    api.put('/emulators/:service/rate-limits', (c) => control(c, 'PUT', '/rate-limits'));
    api.post('/emulators/:service/reset', (c) => control(c, 'POST', '/reset'));
    // Limits the upstream itself enforces (the store's per base), each at its own emulator control endpoint.
    api.get('/emulators/:service/upstream-limits', async (c) => {
      const emulator = state.emulator(c.req.param('service'));
      const limits = [];
      for (const limit of UPSTREAM_LIMITS[emulator.service] ?? []) {
        const answer = await passToEmulator(emulator, 'GET', `/${limit.name}`);
        if (answer.status !== 200) return c.json(answer.body as object, answer.status as 400);
        limits.push({ ...limit, settings: answer.body });
      }
      return c.json({ limits });
    });
    const limitControl = (c: Context<ApiEnv>, method: 'PUT' | 'DELETE') => {
      const limit = upstreamLimit(
        state.emulator(c.req.param('service') ?? '').service,
        c.req.param('name') ?? '',
      );
      return control(c, method, `/${limit.name}`);
    };
    api.put('/emulators/:service/upstream-limits/:name', (c) => limitControl(c, 'PUT'));
    api.delete('/emulators/:service/upstream-limits/:name', (c) => limitControl(c, 'DELETE'));

    api.get('/tools', async (c) =>
      c.json({ tools: await (playground as Playground).tools(c.get('authInfo')) }),
    );
    api.post('/run', async (c) => {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        throw new ConsoleRequestError(400, 'The body must be JSON: {"tool": "<name>", "arguments": {...}}.');
      }
      const run = await (playground as Playground).run(body, c.get('authInfo'), c.req.raw.signal);
      return c.json({ callId: run.callId ?? null, result: redactValue(run.result) });
    });

    // Last: a mounted app's notFound is not its parent's, so unknown API paths are answered here.
    api.all('*', (c) =>
      c.json(
        {
          error: {
            message: `${c.req.method} ${c.req.path} is no console API endpoint (docs/console.md lists them).`,
          },
        },
        404,
      ),
    );

    app.route(CONSOLE_API_PATH, api);
  };

  return {
    mount,
    close() {
      feed.close();
      for (const end of [...streams]) end();
    },
  };
}

/** An optional non-negative integer query parameter within bounds. */
function count(raw: string | undefined, name: string, min: number, max: number): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConsoleRequestError(400, `${name} must be an integer from ${min} to ${max}; got "${raw}".`);
  }
  return value;
}
