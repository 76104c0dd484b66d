// File-backed emulator state: surviving restarts, reset on request, reseeding via /_emulator/reset.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, makeEmulator } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'issuedesk-emulator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('file-backed state', () => {
  it('survives a restart, and is reseeded only when asked', async () => {
    const db = join(dir, 'issuedesk.db');
    const first = makeEmulator({ db });
    const orgId = (await call(first, 'GET', '/me')).body.data.id;
    await call(first, 'PATCH', '/issues/3', { body: { title: 'Persisted title', tags: ['kept'] } });
    const note = await call(first, 'POST', '/issues/3/note', { body: { body_html: 'remember me' } });
    first.close();

    // Another seed on reopen must not matter: existing data wins.
    const second = makeEmulator({ db, seed: 99 });
    expect((await call(second, 'GET', '/me')).body.data.id).toBe(orgId);
    const issue = (await call(second, 'GET', '/issues/3')).body.data;
    expect(issue).toMatchObject({ title: 'Persisted title', tags: ['kept'] });
    const messages = (await call(second, 'GET', '/issues/3/messages')).body.data;
    expect(messages.map((m: { id: string }) => m.id)).toContain(note.body.data.id);
    second.close();

    const third = makeEmulator({ db, reset: true });
    expect((await call(third, 'GET', '/me')).body.data.id).toBe(orgId);
    expect((await call(third, 'GET', '/issues/3')).body.data.title).not.toBe('Persisted title');
    third.close();
  });

  it('POST /_emulator/reset reseeds with a new seed and scale, and back', async () => {
    const emulator = makeEmulator({ db: join(dir, 'reset.db') });
    try {
      const original = (await call(emulator, 'GET', '/issues/1')).body.data;
      await call(emulator, 'PATCH', '/issues/1', { body: { title: 'changed' } });
      const res = await call(emulator, 'POST', '/_emulator/reset', {
        token: null,
        body: { seed: 5, scale: 50 },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ reset: true, state: { counts: { issues: 50 }, seed: 5, scale: 50 } });
      expect((await call(emulator, 'GET', '/issues/1')).body.data.id).not.toBe(original.id);
      expect((await call(emulator, 'GET', '/issues/51')).status).toBe(404);
      await call(emulator, 'POST', '/_emulator/reset', { token: null });
      expect((await call(emulator, 'GET', '/issues/1')).body.data).toEqual(original);
      const tooBig = await call(emulator, 'POST', '/_emulator/reset', {
        token: null,
        body: { scale: 10_000_000 },
      });
      expect(tooBig.status).toBe(400);
    } finally {
      emulator.close();
    }
  });
});
