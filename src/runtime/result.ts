// Turning tool outcomes into MCP results: structuredContent plus the same JSON as text; failures as isError
// results that say what to do next. Oversized results are cut with a note that says how to get the rest.

import type { CallToolResult } from '@modelcontextprotocol/server';
import { isToolError, ToolError } from './errors.js';
import { log } from './log.js';
import { redact, redactValue } from './secrets.js';

/** Above this many characters of JSON a result is cut; agents pay for every token they read. */
export const MAX_RESULT_CHARS = 100_000;

export function successResult(value: unknown): CallToolResult {
  const structured = toObject(redactValue(value));
  const fitted = fitToLimit(structured);
  return {
    content: [{ type: 'text', text: JSON.stringify(fitted) }],
    structuredContent: fitted,
  };
}

export function errorResult(error: unknown, toolName: string): CallToolResult {
  const toolError = isToolError(error) ? error : internalError(error, toolName);
  const payload = redactValue(toolError.toJSON());
  const lines = [`${toolName} failed (${toolError.kind}): ${redact(toolError.message)}`];
  for (const issue of toolError.issues ?? []) lines.push(`- ${issue.field}: ${issue.problem}`);
  if (toolError.hint) lines.push(`Hint: ${redact(toolError.hint)}`);
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { error: payload },
  };
}

function internalError(error: unknown, toolName: string): ToolError {
  log('error', 'tool crashed', {
    tool: toolName,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return new ToolError({
    kind: 'internal',
    message: 'An unexpected error occurred inside the tool server.',
    hint: 'This is a bug in the server, not in your arguments; the details are in the server log.',
    retryable: false,
  });
}

function toObject(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null || value === '') return { ok: true };
  if (Array.isArray(value)) return { items: value };
  if (typeof value === 'object') return value as Record<string, unknown>;
  return { value };
}

/**
 * Cuts the largest array in the result until the JSON fits, and says so. Tools page their lists, so this only
 * triggers on unusually large records; the note tells the agent how much was dropped.
 */
function fitToLimit(value: Record<string, unknown>): Record<string, unknown> {
  let text = JSON.stringify(value);
  if (text.length <= MAX_RESULT_CHARS) return value;
  const arrayKey = Object.keys(value)
    .filter((key) => Array.isArray(value[key]))
    .sort((a, b) => JSON.stringify(value[b]).length - JSON.stringify(value[a]).length)[0];
  if (arrayKey === undefined) {
    return {
      truncated: true,
      note: `The result was ${text.length} characters, over the ${MAX_RESULT_CHARS}-character limit, and could not be cut to size.`,
      preview: text.slice(0, MAX_RESULT_CHARS / 2),
    };
  }
  const all = value[arrayKey] as unknown[];
  let keep = all.length;
  let out = value;
  while (keep > 0 && text.length > MAX_RESULT_CHARS) {
    keep = Math.floor(keep / 2);
    out = {
      ...value,
      [arrayKey]: all.slice(0, keep),
      truncated: {
        field: arrayKey,
        returned: keep,
        total: all.length,
        note: `Only the first ${keep} of ${all.length} ${arrayKey} fit in one result; narrow the request or page with the cursor.`,
      },
    };
    text = JSON.stringify(out);
  }
  return out;
}
