// The one vocabulary of MCP tool annotations. Every tool takes one of these presets, so what "destructive" or
// "idempotent" means is decided once, here, and not per service.

import type { ToolHints } from './tool.js';

/** Reads only; repeating it changes nothing. */
export const READ_ONLY: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};

/** Creates or records something new each time (a record, an event, a note): repeating it adds another. */
export const CREATE: ToolHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};

/** Sets given values: repeating the same call leaves the same state. */
export const UPDATE: ToolHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};

/** Deletes, overwrites or irreversibly changes data; repeating it changes nothing more. */
export const DESTROY: ToolHints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: true,
};

/** Several operations in one call that may delete (batches): destructive, and not safe to repeat. */
export const MIXED: ToolHints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};
