// An upstream operation: one endpoint of an upstream API, named once in its service's `endpoints.ts` and read by
// everything that needs it: the tool rows and hand-written upstream clients (method and path), the emulator's route
// registration, the client-side rate-limit table and the OAuth scope table. Paths use one syntax everywhere,
// `{name}` for a path parameter (as in the upstreams' OpenAPI documents); the emulators translate it for Hono.

import type { HttpMethod } from './http.js';

export interface Operation {
  method: HttpMethod;
  /** Path template, e.g. `/v0/{baseId}/{tableIdOrName}`. */
  path: string;
  /** The OAuth scope the upstream requires for it, where the upstream has scopes. */
  scope?: string;
  /** The upstream's published rate limit for it, where it has one of its own. */
  rateLimit?: { limit: number; intervalMs: number };
}

/** Keeps each table's literal keys (operation names) while checking every row's shape. */
export function defineOperations<const T extends Record<string, Operation>>(operations: T): T {
  return operations;
}
