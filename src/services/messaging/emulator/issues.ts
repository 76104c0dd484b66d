/**
 * Turns zod issues from the shared request-body schemas into the upstream's error vocabulary: a dotted
 * `field`, a short `reason` (required, invalid, too_large) and a message. v2 sends these as objects; v1 sends
 * one string per problem. Parse with `{ reportInput: true }` so a missing field can be told from a wrong one.
 */
import { type Issue, pathOf, TOP, type Wording, walkIssues } from '../../../text/zodIssues.js';

export interface FieldIssue {
  field: string;
  reason: 'required' | 'invalid' | 'too_large';
  message: string;
}

/** Options for the schemas' safeParse calls: issues then carry the offending input. */
export { REPORT_INPUT as PARSE_OPTIONS } from '../../../text/zodIssues.js';

function fieldOf(path: readonly PropertyKey[]): string {
  return path.map((part) => String(part)).join('.');
}

/** The size rules in schemas.ts are refinements; their messages are the only thing that marks them. */
const SIZE_MESSAGE = /\bbytes\b|attributes per call/;

const quoted = (values: readonly unknown[]) => values.map((v) => `"${String(v)}"`).join(', ');

/** The upstream's words for what the shared walk (text/zodIssues.ts) finds. */
const UPSTREAM_WORDING: Wording<FieldIssue> = {
  value(issue, place) {
    const field = fieldOf(pathOf(place, issue));
    switch (issue.code) {
      case 'invalid_type':
        return issue.input === undefined
          ? { field, reason: 'required', message: 'is required' }
          : { field, reason: 'invalid', message: issue.message };
      case 'too_big':
        return { field, reason: 'too_large', message: issue.message };
      case 'custom':
        return {
          field,
          reason: SIZE_MESSAGE.test(issue.message) ? 'too_large' : 'invalid',
          message: issue.message,
        };
      default:
        return { field, reason: 'invalid', message: issue.message };
    }
  },
  unknownKey(key, issue, place) {
    return {
      field: fieldOf([...pathOf(place, issue), key]),
      reason: 'invalid',
      message: 'is not an allowed field here',
    };
  },
  union: {
    discriminator(issue, place) {
      // A discriminated union whose discriminator is missing or unknown: name it and its allowed values.
      const field = fieldOf(pathOf(place, issue));
      const parent = issue.input;
      const key = issue.discriminator;
      const missing =
        key !== undefined &&
        typeof parent === 'object' &&
        parent !== null &&
        (parent as Record<string, unknown>)[key] === undefined;
      const allowed = 'options' in issue && issue.options ? issue.options : [];
      const expected = allowed.length > 0 ? `; expected one of ${quoted(allowed)}` : '';
      return missing
        ? { field, reason: 'required', message: `is required${expected}` }
        : { field, reason: 'invalid', message: `is not a valid value${expected}` };
    },
    alternatives(issue, place) {
      // Every branch disagreeing only about one enum (the metric of each channel): one issue listing all values.
      const flat = issue.errors.flat();
      const first = flat[0];
      if (
        first?.code !== 'invalid_value' ||
        !flat.every((i) => i.code === 'invalid_value' && fieldOf(i.path) === fieldOf(first.path))
      ) {
        return undefined;
      }
      const values = [...new Set(flat.flatMap((i) => (i.code === 'invalid_value' ? i.values : [])))];
      const missing = first.input === undefined;
      return {
        field: fieldOf([...pathOf(place, issue), ...first.path]),
        reason: missing ? 'required' : 'invalid',
        message: `${missing ? 'is required' : 'is not a valid value'}; expected one of ${quoted(values)}`,
      };
    },
  },
};

/** One FieldIssue per problem, duplicates removed, in the order zod found them. */
export function flattenIssues(issues: readonly Issue[], prefix: PropertyKey[] = []): FieldIssue[] {
  const out = walkIssues(issues, UPSTREAM_WORDING, { ...TOP, prefix });
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
