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

/** What MCP assumes of a tool whose annotations leave a hint out (spec: ToolAnnotations). */
export const MCP_DEFAULT_HINTS: ToolHints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/**
 * The annotations a tools/list entry publishes: only the hints that differ from MCP's defaults, since a client
 * reads an absent hint as its default and every entry is sent in every tools/list. destructiveHint and
 * idempotentHint mean nothing when readOnlyHint is true (the spec says so), so a read-only tool publishes
 * `{readOnlyHint: true}`. The full hints stay on the tool definition for the runtime (read-only filter, retries).
 */
export function publishedHints(hints: ToolHints): Partial<ToolHints> {
  const keys = hints.readOnlyHint
    ? (['readOnlyHint', 'openWorldHint'] as const)
    : (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const);
  const published: Partial<ToolHints> = {};
  for (const key of keys) if (hints[key] !== MCP_DEFAULT_HINTS[key]) published[key] = hints[key];
  return published;
}

/** The hints a client reads from published annotations: each absent hint is MCP's default. */
export function effectiveHints(annotations: Partial<ToolHints> | undefined): ToolHints {
  return { ...MCP_DEFAULT_HINTS, ...annotations };
}
