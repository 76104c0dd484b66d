/**
 * Makes each emulator request one unit of work against the emulator's database, so that any number of processes
 * can serve the same sandbox file without losing a write:
 * - requests of this process run one at a time (they share one SQLite connection, and an open transaction must
 *   never take in another request's statements);
 * - a request that may write (any method but GET, HEAD and OPTIONS, outside /_emulator) runs in one transaction
 *   that takes the write lock when it begins (BEGIN IMMEDIATE). Another process's writer waits for it (the busy
 *   timeout), and everything the request reads, counters and id sequences included, is what it writes over;
 * - before the request runs, in-memory caches of database state are dropped if another process has written
 *   since the last request (`refresh`), and after a rolled-back request they are dropped too (`discard`), as
 *   they may hold its undone changes.
 * A request that throws is rolled back whole; one that answers with an error status is committed, since the
 * handlers answer errors before they write.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { type EmulatorEnv, type ErrorBodyFn, isControlPath } from './env.js';
import { isBusyError, type SqliteDatabase } from './sqlite.js';

export interface RequestScopeOptions {
  db: SqliteDatabase;
  /** Called at the start of every request, under the lock for writes: drop caches another process made stale. */
  refresh?: () => void;
  /** Called after a request's transaction rolled back: drop caches that may hold its undone changes. */
  discard?: () => void;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** One request at a time, in arrival order. */
class Queue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

export function requestScopeMiddleware(
  options: RequestScopeOptions,
  errorBody: ErrorBodyFn,
): MiddlewareHandler<EmulatorEnv> {
  const { db } = options;
  const queue = new Queue();
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');

  const busy = (c: Context<EmulatorEnv>) => {
    // The upstream's answer to an overloaded moment; clients retry it.
    c.header('Retry-After', '1');
    const body = errorBody(503, 'The emulator database is busy in another process; try again shortly.', {
      requestId: c.get('requestId'),
      code: 'busy',
    });
    return c.json(body as object, 503);
  };

  return async (c, next) => {
    // Read the body before queueing, so a slow sender never holds up other requests (Hono keeps it for the
    // handler). Upstream paths have it read already by the request log.
    if (c.req.raw.body) await c.req.text();
    return queue.run(async () => {
      const writes = !READ_METHODS.has(c.req.method) && !isControlPath(c.req.path);
      if (!writes || db.inTransaction) {
        options.refresh?.();
        await next();
        return;
      }
      try {
        begin.run();
      } catch (error) {
        if (isBusyError(error)) return busy(c);
        throw error;
      }
      let committed = false;
      try {
        options.refresh?.();
        await next();
        // Hono turns a handler's exception into the onError answer and records it here.
        if (c.error === undefined) {
          commit.run();
          committed = true;
        }
      } finally {
        if (!committed && db.inTransaction) {
          rollback.run();
          options.discard?.();
        }
      }
    });
  };
}
