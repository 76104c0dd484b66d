// Each emulator request as one unit of work on its database (the database option of createEmulatorApp): writes
// in one transaction holding the write lock, a thrown request undone whole, requests of one process one at a
// time, caches refreshed at the start of each request, and a clear 503 when another process keeps the lock.
// A second connection to the same file plays the other process.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulatorApp } from '../../src/emulation/emulatorApp.js';
import type { InspectableService } from '../../src/emulation/inspection.js';
import { ok } from '../../src/emulation/result.js';
import { isBusyError, openDatabase } from '../../src/emulation/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'emulation-scope-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const service: InspectableService = {
  summary: () => ({}),
  collectionNames: () => [],
  collection: () => undefined,
  item: () => undefined,
  reset: () => ok({}),
};

function scopedApp(name: string) {
  const path = join(dir, name);
  const db = openDatabase(path);
  db.exec('CREATE TABLE t (x INTEGER)');
  const other = openDatabase(path);
  other.pragma('busy_timeout = 0');
  const calls: string[] = [];
  const { app } = createEmulatorApp({
    errorBody: (status, message) => ({ status, message }),
    service,
    rateLimits: {},
    onUnexpectedError: () => undefined,
    database: { db, refresh: () => calls.push('refresh'), discard: () => calls.push('discard') },
  });
  const insert = db.prepare('INSERT INTO t VALUES (?)');
  let release: (() => void) | undefined;
  app.post('/write/:x', async (c) => {
    insert.run(Number(c.req.param('x')));
    calls.push(`write ${c.req.param('x')}`);
    if (c.req.query('wait') !== undefined) await new Promise<void>((resolve) => (release = resolve));
    if (c.req.query('fail') !== undefined) throw new Error('boom');
    if (c.req.query('refuse') !== undefined) return c.json({ refused: true }, 422);
    return c.json({ ok: true });
  });
  app.get('/read', (c) => c.json({ rows: db.prepare('SELECT x FROM t ORDER BY x').pluck().all() }));
  const rows = () => other.prepare('SELECT x FROM t ORDER BY x').pluck().all();
  const otherWrites = () => {
    try {
      other.prepare('INSERT INTO t VALUES (99)').run();
      other.prepare('DELETE FROM t WHERE x = 99').run();
      return true;
    } catch (error) {
      if (isBusyError(error)) return false;
      throw error;
    }
  };
  return { app, db, other, calls, rows, otherWrites, release: () => release?.() };
}

describe('request scope', () => {
  it('commits a write, also one answered with an error status, and undoes a thrown one whole', async () => {
    const s = scopedApp('commit.db');
    expect((await s.app.request('/write/1', { method: 'POST' })).status).toBe(200);
    expect((await s.app.request('/write/2?refuse', { method: 'POST' })).status).toBe(422);
    expect((await s.app.request('/write/3?fail', { method: 'POST' })).status).toBe(500);
    expect(s.rows()).toEqual([1, 2]);
    // Caches are refreshed before each request and dropped after the undone one.
    expect(s.calls).toEqual(['refresh', 'write 1', 'refresh', 'write 2', 'refresh', 'write 3', 'discard']);
  });

  it('holds the write lock for the whole of a write request, and none for a read', async () => {
    const s = scopedApp('lock.db');
    const pending = s.app.request('/write/1?wait', { method: 'POST' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.otherWrites()).toBe(false);
    s.release();
    expect((await pending).status).toBe(200);
    expect(s.otherWrites()).toBe(true);
    expect(await (await s.app.request('/read')).json()).toEqual({ rows: [1] });
  });

  it("runs this process's requests one at a time, in arrival order", async () => {
    const s = scopedApp('queue.db');
    const first = s.app.request('/write/1?wait', { method: 'POST' });
    const second = s.app.request('/write/2', { method: 'POST' });
    const read = s.app.request('/read');
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.calls).toEqual(['refresh', 'write 1']);
    s.release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(await (await read).json()).toEqual({ rows: [1, 2] });
  });

  it('answers 503 with Retry-After when another process keeps the lock past the busy timeout', async () => {
    const s = scopedApp('busy.db');
    s.db.pragma('busy_timeout = 0');
    s.other.prepare('BEGIN IMMEDIATE').run();
    const res = await s.app.request('/write/1', { method: 'POST' });
    s.other.prepare('ROLLBACK').run();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { message: string }).message).toContain('busy');
    expect((await s.app.request('/write/1', { method: 'POST' })).status).toBe(200);
  });
});
