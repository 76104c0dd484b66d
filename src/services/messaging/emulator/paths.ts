/**
 * How a request path maps onto the upstream: which regional host it addresses (one listener plays both, the EU
 * host under /eu) and which operation of the endpoint table it is, matched by the table's own path templates,
 * so that the checks made before any route runs (auth, envelopes) name operations rather than repeat paths.
 */
import { MESSAGING_OPERATIONS, type TrackOperation } from '../endpoints.js';
import type { Region } from './records.js';

export const EU_PATH_PREFIX = '/eu';

/** Which regional host a path addresses, and the path as that host sees it. */
export function hostOf(path: string): { host: Region; path: string } {
  if (path === EU_PATH_PREFIX || path.startsWith(`${EU_PATH_PREFIX}/`)) {
    return { host: 'eu', path: path.slice(EU_PATH_PREFIX.length) || '/' };
  }
  return { host: 'us', path };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `{name}` matches one non-empty segment; the rest is literal, with no trailing slash (Hono routes strictly). */
function templatePattern(template: string): RegExp {
  const parts = template.split(/\{[A-Za-z0-9_]+\}/).map(escapeRegExp);
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

const PATTERNS: ReadonlyMap<TrackOperation, RegExp> = new Map(
  Object.values(MESSAGING_OPERATIONS).map((operation) => [operation, templatePattern(operation.path)]),
);

/** Whether a host-relative path is this operation's path (any method). */
export function isPathOf(operation: TrackOperation, path: string): boolean {
  return PATTERNS.get(operation)?.test(path) ?? false;
}

/** Whether the request (method and host-relative path) is this operation. */
export function isRequestFor(operation: TrackOperation, method: string, path: string): boolean {
  return operation.method === method && isPathOf(operation, path);
}

/** The operations whose path a host-relative path is, whatever the method. */
export function operationsAt(path: string): TrackOperation[] {
  return Object.values(MESSAGING_OPERATIONS).filter((operation) => isPathOf(operation, path));
}
