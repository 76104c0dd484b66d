// The one zod-issue formatter (text/zodIssues.ts): the walk every wording shares (paths, unknown keys, unions)
// and zod's own wording (formatZodIssues) that the emulators' control endpoints and request-body readers answer
// with. The tools' wording (describeIssues) is tested in test/runtime/validate.test.ts and schemaMode.test.ts; the
// messaging emulator's, in the upstream's words, in test/services/messaging.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  formatZodIssues,
  type Issue,
  type Place,
  pathOf,
  REPORT_INPUT,
  TOP,
  type Wording,
  walkIssues,
} from '../../src/text/zodIssues.js';

const issuesOf = (schema: z.ZodType, value: unknown): Issue[] => {
  const parsed = schema.safeParse(value, REPORT_INPUT);
  if (parsed.success) throw new Error('the value fits');
  return parsed.error.issues;
};
const errorOf = (schema: z.ZodType, value: unknown): z.ZodError => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('the value fits');
  return parsed.error;
};

describe("formatZodIssues: zod's messages after their field", () => {
  const Rules = z.strictObject({
    rules: z.array(
      z.strictObject({ kind: z.enum(['latency', 'error']), times: z.number().int().min(1).optional() }),
    ),
  });

  it('writes array indexes in brackets and joins the problems with "; "', () => {
    expect(
      formatZodIssues(errorOf(Rules, { rules: [{ kind: 'latency' }, { kind: 'slow', times: 0 }] })),
    ).toBe(
      'rules[1].kind: Invalid option: expected one of "latency"|"error"; ' +
        'rules[1].times: Too small: expected number to be >=1',
    );
  });

  it('starts the paths at root when one is given', () => {
    expect(formatZodIssues(errorOf(z.array(z.string()), ['a', 2]), 'items')).toBe(
      'items[1]: Invalid input: expected string, received number',
    );
    expect(formatZodIssues(errorOf(z.object({ a: z.string() }), { a: 1 }), 'body')).toBe(
      'body.a: Invalid input: expected string, received number',
    );
  });

  it('gives a problem with the value itself as the bare message', () => {
    expect(formatZodIssues(errorOf(Rules, 'x'))).toBe('Invalid input: expected object, received string');
  });

  it('keeps unknown keys together and a union as the one issue zod gives, as zod words them', () => {
    expect(formatZodIssues(errorOf(Rules, { rules: [], a: 1, b: 2 }))).toBe('Unrecognized keys: "a", "b"');
    expect(formatZodIssues(errorOf(z.object({ v: z.union([z.string(), z.number()]) }), { v: true }))).toBe(
      'v: Invalid input',
    );
  });
});

describe('walkIssues: one walk, the wording a parameter', () => {
  // A wording that records what the walk hands it, to show which part of the wording each issue reaches.
  const recorder: Wording<string> = {
    value: (issue, place) => `value ${pathOf(place, issue).join('/')} ${issue.code}`,
    unknownKey: (key, issue, place, known) =>
      `unknown ${[...pathOf(place, issue), key].join('/')} (known: ${known.join(',')})`,
    union: {
      discriminator: (issue, place) => `discriminator ${pathOf(place, issue).join('/')}`,
      alternatives: (issue, place) =>
        issue.errors.every((branch) => branch.length === 1 && branch[0]!.path.length === 0)
          ? `alternatives ${pathOf(place, issue).join('/')}`
          : undefined,
    },
  };

  const Shape = z.strictObject({
    name: z.string(),
    tags: z.array(z.string()),
    pick: z.union([z.strictObject({ a: z.string(), b: z.string() }), z.strictObject({ c: z.number() })]),
    either: z.union([z.string(), z.number()]).optional(),
    kind: z.discriminatedUnion('type', [
      z.object({ type: z.literal('x'), x: z.string() }),
      z.object({ type: z.literal('y') }),
    ]),
  });

  it('hands values, each unknown key with the keys the schema knows, and unions to their parts', () => {
    const issues = issuesOf(Shape, {
      name: 1,
      tags: ['ok', 2],
      pick: { a: 'a', b: 1 },
      either: true,
      kind: { x: 'x' },
      nmae: 'typo',
    });
    expect(walkIssues(issues, recorder, { root: 'body', prefix: [], schema: Shape })).toEqual([
      'value body/name invalid_type',
      'value body/tags/1 invalid_type',
      // The closest variant (one problem against three) is reported, its path continuing the union's.
      'value body/pick/b invalid_type',
      'alternatives body/either',
      'discriminator body/kind/type',
      'unknown body/nmae (known: name,tags,pick,either,kind)',
    ]);
  });

  it('without unknownKey and union parts, hands zod issues as they are to value', () => {
    const issues = issuesOf(Shape, {
      name: 'n',
      tags: [],
      pick: { c: 'x' },
      kind: { type: 'y' },
      a: 1,
      b: 2,
    });
    expect(walkIssues(issues, { value: recorder.value })).toEqual([
      'value pick invalid_union',
      'value  unrecognized_keys',
    ]);
  });

  it('starts paths below the prefix of the place given, and knows no keys without a schema', () => {
    const place: Place = { ...TOP, prefix: ['batch', 3] };
    expect(walkIssues(issuesOf(z.strictObject({ a: z.string() }), { b: 1 }), recorder, place)).toEqual([
      'value batch/3/a invalid_type',
      'unknown batch/3/b (known: )',
    ]);
  });
});
