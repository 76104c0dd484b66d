// Redaction: registered secrets are masked in any text, in encoded header shapes too, and short-lived secrets
// (per-user tokens) are kept only up to a bound, newest first, so a long-running server does not slow down.

import { describe, expect, it } from 'vitest';
import { successResult } from '../../src/runtime/result.js';
import {
  jsonMayHoldSecret,
  redact,
  redactValue,
  registerSecret,
  registerTransientSecret,
  TRANSIENT_SECRETS_KEPT,
} from '../../src/runtime/secrets.js';

describe('redaction', () => {
  it('masks registered secrets anywhere in text and JSON, and Bearer/Basic header shapes', () => {
    registerSecret('permanent-secret-value');
    expect(redact('token=permanent-secret-value;')).toBe('token=[redacted];');
    expect(redactValue({ a: ['x permanent-secret-value y'] })).toEqual({ a: ['x [redacted] y'] });
    expect(redact('Authorization: Bearer abcdefghijkl')).toBe('Authorization: Bearer [redacted]');
  });

  it('keeps only the newest short-lived secrets, and never forgets a permanent one', () => {
    registerSecret('permanent-too-0001');
    const first = 'transient-token-first';
    registerTransientSecret(first);
    expect(redact(first)).toBe('[redacted]');
    for (let i = 0; i < TRANSIENT_SECRETS_KEPT; i++) registerTransientSecret(`transient-token-${i}`);
    // The oldest dropped out; the newest and the permanent ones are still masked.
    expect(redact(first)).toBe(first);
    expect(redact(`transient-token-${TRANSIENT_SECRETS_KEPT - 1}`)).toBe('[redacted]');
    expect(redact('permanent-too-0001')).toBe('[redacted]');
    // Registering an old one again makes it newest.
    registerTransientSecret('transient-token-0');
    for (let i = 0; i < TRANSIENT_SECRETS_KEPT - 1; i++) registerTransientSecret(`later-token-${i}`);
    expect(redact('transient-token-0')).toBe('[redacted]');
    expect(redact('transient-token-1')).toBe('transient-token-1');
  });

  it('masks secrets in tool results, also one JSON escapes (a quote, a backslash), and leaves clean results whole', async () => {
    registerSecret('quoted"secret\\value');
    registerTransientSecret('transient-result-token');
    const leaky = {
      records: [
        { fields: { Notes: 'see quoted"secret\\value here', Owner: { token: 'transient-result-token' } } },
      ],
      header: 'Authorization: Basic dXNlcjpwYXNzd29yZA==',
    };
    // JSON writes this secret with escapes (quoted\"secret\\value): the check looks for that form too.
    expect(jsonMayHoldSecret(JSON.stringify({ Notes: leaky.records[0]!.fields.Notes }))).toBe(true);
    const result = await successResult(leaky);
    const all = JSON.stringify(result);
    for (const secret of ['quoted', 'transient-result-token', 'dXNlcjpwYXNzd29yZA==']) {
      expect(all).not.toContain(secret);
    }
    expect(result.structuredContent).toEqual({
      records: [{ fields: { Notes: 'see [redacted] here', Owner: { token: '[redacted]' } } }],
      header: 'Authorization: Basic [redacted]',
    });
    const clean = { records: [{ id: 'rec1', fields: { Name: 'Platform' } }] };
    expect(jsonMayHoldSecret(JSON.stringify(clean))).toBe(false);
    expect((await successResult(clean)).structuredContent).toEqual(clean);
  });
});
