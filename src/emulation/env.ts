/**
 * The Hono environment every emulator app shares: Node bindings (absent under app.request) and per-request
 * variables set by the shared middleware.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultKind } from './faults.js';

export type EmulatorBindings = {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
};

export type EmulatorVariables = {
  requestId: string;
  /** Set when a fault rule answered (or dropped) the request, so the request log can say so. */
  fault?: FaultKind;
};

export type EmulatorEnv = { Bindings: EmulatorBindings; Variables: EmulatorVariables };

/** Emulator controls live under this prefix and are never part of an emulated upstream API. */
export const CONTROL_PREFIX = '/_emulator';

export function isControlPath(path: string): boolean {
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`);
}

/**
 * Builds the emulated API's error envelope. Each service supplies its own, so faults, rate limits and
 * unknown paths answer exactly like the real upstream would.
 */
export type ErrorBodyFn = (
  status: number,
  message: string,
  details: { requestId: string; code?: string },
) => unknown;
