// How the store emulator's areas are built (routes/common.ts): an operation of the endpoint table is served with
// and without a trailing slash unless told otherwise, a path parameter can be held to a pattern, and an area's
// error handling answers a thrown Refusal in the upstream's envelope while anything else reaches the app's
// catch-all, which answers 500 in the same envelope. The last two run inside a real emulator app.
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import type { EmulatorEnv } from '../../../../src/emulation/env.js';
import { errors } from '../../../../src/services/store/emulator/errors.js';
import { createArea, Refusal, route } from '../../../../src/services/store/emulator/routes/common.js';
import { call, makeEmulator } from './helpers.js';

function served(area: Hono<EmulatorEnv>): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  app.route('/', area);
  return app;
}

describe('route', () => {
  it('serves an operation with and without a trailing slash', async () => {
    const area = createArea();
    route(area, { method: 'GET', path: '/things/{thingId}' }, (c) => c.text(c.req.param('thingId') ?? ''));
    const app = served(area);
    expect(await (await app.request('/things/t1')).text()).toBe('t1');
    expect(await (await app.request('/things/t1/')).text()).toBe('t1');
    expect((await app.request('/things/t1', { method: 'POST' })).status).toBe(404);
  });

  it('serves the exact path only when told to', async () => {
    const area = createArea();
    route(area, { method: 'GET', path: '/things' }, (c) => c.text('list'), { trailingSlash: false });
    const app = served(area);
    expect((await app.request('/things')).status).toBe(200);
    expect((await app.request('/things/')).status).toBe(404);
  });

  it('holds a path parameter to its pattern, so other paths of that shape go on to later routes', async () => {
    const area = createArea();
    route(area, { method: 'GET', path: '/v0/{accountId}/{tableId}' }, (c) => c.text('account'), {
      patterns: { accountId: 'ent[^/]*' },
    });
    route(area, { method: 'GET', path: '/v0/{baseId}/{tableId}' }, (c) => c.text('base'));
    const app = served(area);
    expect(await (await app.request('/v0/entA/tbl1')).text()).toBe('account');
    expect(await (await app.request('/v0/appA/tbl1')).text()).toBe('base');
  });
});

describe('an area inside the emulator app', () => {
  const emulator = makeEmulator();
  afterAll(() => emulator.close());
  const area = createArea();
  route(area, { method: 'GET', path: '/area-test/refused' }, () => {
    throw new Refusal(errors.invalidRequest('Not today.'));
  });
  route(area, { method: 'GET', path: '/area-test/broken' }, () => {
    throw new Error('an internal detail');
  });
  emulator.app.route('/', area);

  it('answers a thrown Refusal in the upstream error envelope', async () => {
    const reply = await call(emulator, 'GET', '/area-test/refused');
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      error: {
        type: 'INVALID_REQUEST_UNKNOWN',
        message: 'Invalid request: parameter validation failed. Check your request data. Not today.',
      },
    });
  });

  it('leaves any other exception to the app, which answers 500 in the same envelope and reveals nothing', async () => {
    const reply = await call(emulator, 'GET', '/area-test/broken');
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ error: { type: 'SERVER_ERROR', message: 'Internal server error' } });
    expect(JSON.stringify(reply.body)).not.toContain('internal detail');
  });
});
