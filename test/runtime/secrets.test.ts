// Redaction: registered secrets are masked in any text, in encoded header shapes too, and short-lived secrets
// (per-user tokens) are kept only up to a bound, newest first, so a long-running server does not slow down.

import { describe, expect, it } from 'vitest';
import {
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
});
