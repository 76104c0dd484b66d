// Argument validation: zod does the checking, text/zodIssues.ts words its issues (the field, what was given and
// how to fix it), and this module makes them the tool error a model sees. Request bodies are checked the same
// way in schemaMode.ts.

import type { z } from 'zod';
import { describeIssues, REPORT_INPUT } from '../text/zodIssues.js';
import { invalidArguments, type ToolError } from './errors.js';

export function validateArguments<S extends z.ZodObject>(
  schema: S,
  args: unknown,
  toolName: string,
): { ok: true; value: z.output<S> } | { ok: false; error: ToolError } {
  const parsed = schema.safeParse(args ?? {}, REPORT_INPUT);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = describeIssues(parsed.error.issues, undefined, schema);
  const fields = [...new Set(issues.map((issue) => issue.field))].join(', ');
  return {
    ok: false,
    error: invalidArguments(
      `Invalid arguments for ${toolName} (${fields}).`,
      issues,
      'Correct the listed fields and call again; the tool input schema lists every parameter.',
    ),
  };
}
