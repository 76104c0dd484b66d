/**
 * Turns zod issues from the shared request-body schemas into the upstream's error vocabulary: a dotted
 * `field`, a short `reason` (required, invalid, too_large) and a message. v2 sends these as objects; v1 sends
 * one string per problem. Parse with `{ reportInput: true }` so a missing field can be told from a wrong one.
 */
import type { z } from 'zod';

export interface FieldIssue {
  field: string;
  reason: 'required' | 'invalid' | 'too_large';
  message: string;
}

type Issue = z.core.$ZodIssue;

/** Options for the schemas' safeParse calls: issues then carry the offending input. */
export const PARSE_OPTIONS = { reportInput: true } as const;

function fieldOf(path: readonly PropertyKey[]): string {
  return path.map((part) => String(part)).join('.');
}

/** The size rules in schemas.ts are refinements; their messages are the only thing that marks them. */
const SIZE_MESSAGE = /\bbytes\b|attributes per call/;

function unionIssues(issue: Extract<Issue, { code: 'invalid_union' }>, path: PropertyKey[]): FieldIssue[] {
  const field = fieldOf(path);
  if (issue.errors.length === 0) {
    // A discriminated union whose discriminator is missing or unknown: name it and its allowed values.
    const parent = issue.input;
    const key = issue.discriminator;
    const missing =
      key !== undefined &&
      typeof parent === 'object' &&
      parent !== null &&
      (parent as Record<string, unknown>)[key] === undefined;
    const allowed = 'options' in issue && issue.options ? issue.options.map((o) => `"${String(o)}"`) : [];
    const expected = allowed.length > 0 ? `; expected one of ${allowed.join(', ')}` : '';
    return [
      missing
        ? { field, reason: 'required', message: `is required${expected}` }
        : { field, reason: 'invalid', message: `is not a valid value${expected}` },
    ];
  }
  // Every branch disagreeing only about one enum (the metric of each channel): one issue listing all values.
  const flat = issue.errors.flat();
  const first = flat[0];
  if (
    first &&
    flat.every((i) => i.code === 'invalid_value' && fieldOf(i.path) === fieldOf(first.path)) &&
    first.code === 'invalid_value'
  ) {
    const values = [...new Set(flat.flatMap((i) => (i.code === 'invalid_value' ? i.values : [])))];
    const enumPath = [...path, ...first.path];
    const missing = first.input === undefined;
    return [
      {
        field: fieldOf(enumPath),
        reason: missing ? 'required' : 'invalid',
        message: `${missing ? 'is required' : 'is not a valid value'}; expected one of ${values.map((v) => `"${String(v)}"`).join(', ')}`,
      },
    ];
  }
  // Otherwise the branch that came closest (fewest issues) explains the problem best.
  let best = issue.errors[0] ?? [];
  for (const branch of issue.errors) if (branch.length < best.length) best = branch;
  return flattenIssues(best, path);
}

/** One FieldIssue per problem, duplicates removed, in the order zod found them. */
export function flattenIssues(issues: readonly Issue[], prefix: PropertyKey[] = []): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const field = fieldOf(path);
    switch (issue.code) {
      case 'invalid_union':
        out.push(...unionIssues(issue, path));
        break;
      case 'invalid_type':
        out.push(
          issue.input === undefined
            ? { field, reason: 'required', message: 'is required' }
            : { field, reason: 'invalid', message: issue.message },
        );
        break;
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          out.push({
            field: fieldOf([...path, key]),
            reason: 'invalid',
            message: 'is not an allowed field here',
          });
        }
        break;
      case 'too_big':
        out.push({ field, reason: 'too_large', message: issue.message });
        break;
      case 'custom':
        out.push({
          field,
          reason: SIZE_MESSAGE.test(issue.message) ? 'too_large' : 'invalid',
          message: issue.message,
        });
        break;
      default:
        out.push({ field, reason: 'invalid', message: issue.message });
    }
  }
  const seen = new Set<string>();
  return out.filter((i) => {
    const key = `${i.field}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** v1 style: "field: message", or the bare message for problems with the body as a whole. */
export function issueMessages(issues: readonly FieldIssue[]): string[] {
  return issues.map((i) => (i.field === '' ? i.message : `${i.field}: ${i.message}`));
}
