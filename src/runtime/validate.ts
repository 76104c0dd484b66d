// Argument validation: zod does the checking, this module turns its issues into messages that name the field
// and say how to fix it.

import type { z } from 'zod';
import { type ArgumentIssue, invalidArguments, type ToolError } from './errors.js';

export function validateArguments<S extends z.ZodObject>(
  schema: S,
  args: unknown,
  toolName: string,
): { ok: true; value: z.output<S> } | { ok: false; error: ToolError } {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = describeIssues(parsed.error.issues);
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

/** Field-named problems from zod issues; `root` names the value itself (e.g. `request_body`). */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  root?: string,
  prefix: readonly PropertyKey[] = [],
): ArgumentIssue[] {
  return issues.flatMap((issue) => describeIssue(issue, root, prefix));
}

function describeIssue(
  issue: z.core.$ZodIssue,
  root: string | undefined,
  prefix: readonly PropertyKey[],
): ArgumentIssue[] {
  const path = [...(root ? [root] : []), ...prefix, ...issue.path].map(String);
  const field = path.length > 0 ? path.join('.') : '(arguments)';
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        field: path.length > 0 ? `${field}.${key}` : key,
        problem: root
          ? 'unknown field; check the spelling against the schema'
          : 'unknown parameter; check the spelling against the input schema',
      }));
    case 'invalid_union': {
      // No variant matched: report the closest one (fewest problems), which is nearly always the one meant.
      const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0];
      if (!closest || closest.length === 0) return [{ field, problem: issue.message }];
      return describeIssues(closest, root, [...prefix, ...issue.path]);
    }
    case 'invalid_type':
      if (issue.input === undefined) return [{ field, problem: `required (${issue.expected})` }];
      return [{ field, problem: `expected ${issue.expected}, got ${describeValue(issue.input)}` }];
    case 'invalid_value':
      return [
        {
          field,
          problem: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}; got ${describeValue(issue.input)}`,
        },
      ];
    default:
      return [{ field, problem: issue.message }];
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
