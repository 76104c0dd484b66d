// Registers an emulator's routes from its service's operation table (services/<svc>/endpoints.ts), so that each
// upstream operation has one name across tool, upstream client and emulator. The table writes path parameters as
// `{name}`; Hono wants `:name`. Coverage tests read Hono's own `app.routes` and hold them against the table.

import type { Env, Handler, Hono } from 'hono';

/** The part of an operation an emulator needs (structural, so emulators need not import the tool runtime). */
export interface RoutedOperation {
  method: string;
  path: string;
}

/** `/v0/{baseId}/{table}` -> `/v0/:baseId/:table`. */
export function honoPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/** Serves `operation` on `app` with `handler` (named after the operation). Returns the app for chaining. */
export function route<E extends Env>(app: Hono<E>, operation: RoutedOperation, handler: Handler<E>): Hono<E> {
  app.on(operation.method, honoPath(operation.path), handler);
  return app;
}
