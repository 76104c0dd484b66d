// The emulator's areas are Hono sub-apps with their own error handling: a route's refusal is answered in Pylon's
// envelope by its area, and anything else thrown goes on to the app that mounts the area (the shell's 500).

import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { EmulatorEnv } from '../../../../src/emulation/env.js';
import { errors } from '../../../../src/services/issuedesk/emulator/errors.js';
import { createArea, Refusal } from '../../../../src/services/issuedesk/emulator/routes/common.js';

function mounted(): Hono<EmulatorEnv> {
  const area = createArea();
  area.get('/refused', () => {
    throw new Refusal(errors.teamNotFound());
  });
  area.get('/broken', () => {
    throw new Error('boom');
  });
  const app = new Hono<EmulatorEnv>();
  app.use('*', async (c, next) => {
    c.set('requestId', 'req-1');
    await next();
  });
  app.onError((error, c) => c.json({ shell: error.message }, 500));
  return app.route('/', area);
}

describe('route areas', () => {
  it("answer a refusal with the catalogue's status and Pylon's error envelope", async () => {
    const res = await mounted().request('/refused');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: ['Team not found'], request_id: 'req-1' });
  });

  it('leave any other error to the app that mounts them', async () => {
    const res = await mounted().request('/broken');
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ shell: 'boom' });
  });
});
