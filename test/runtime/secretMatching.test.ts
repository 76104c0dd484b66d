// Redaction finds secrets one `includes` at a time while there are few, and by one rolling-hash pass over the text
// when there are many (per-user sign-in keeps thousands of tokens): both ways must mask exactly what a plain
// search for every secret would. Random secrets (some inside others) and texts, against that plain search.
// A file of its own: the secrets registered here are the module's only ones.

import { describe, expect, it } from 'vitest';
import { jsonMayHoldSecret, redact, registerSecret } from '../../src/runtime/secrets.js';

/** A seeded generator, so that a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) | 0;
    return ((state >>> 8) & 0xffffff) / 0x1000000;
  };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._"\\';

function plainRedact(text: string, secrets: readonly string[]): string {
  const found = secrets.filter((secret) => text.includes(secret)).sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of found) out = out.split(secret).join('[redacted]');
  return out;
}

describe('finding secrets in a text', () => {
  const next = random(20_261_126);
  const pick = (n: number) => Math.floor(next() * n);
  const word = (length: number) => Array.from({ length }, () => ALPHABET[pick(ALPHABET.length)]).join('');
  const secrets: string[] = [];
  const addSecrets = (count: number) => {
    for (let i = 0; i < count; i++) {
      // Some secrets hold others, so the longest-first order matters.
      const inner = secrets.length > 0 && next() < 0.15 ? secrets[pick(secrets.length)]! : '';
      const secret = word(6 + pick(10)) + inner + (inner ? word(pick(4)) : '');
      secrets.push(secret);
      registerSecret(secret);
    }
  };
  const textHolding = () => {
    const parts: string[] = [];
    for (let i = 0, n = 1 + pick(8); i < n; i++) {
      parts.push(word(pick(40)));
      if (next() < 0.6) parts.push(secrets[pick(secrets.length)]!);
    }
    return parts.join(' ');
  };
  const check = () => {
    for (let round = 0; round < 300; round++) {
      const text = textHolding();
      expect(redact(text), text).toBe(plainRedact(text, secrets));
      // Never a miss (a false alarm would only cost the full walk; the clean text below has none).
      if (secrets.some((secret) => text.includes(secret))) {
        expect(jsonMayHoldSecret(JSON.stringify({ text })), text).toBe(true);
      }
    }
  };

  it('with a few secrets, as a plain search does', () => {
    addSecrets(20);
    check();
  });

  it('with many (a rolling-hash pass), as a plain search does, texts shorter than a secret included', () => {
    addSecrets(600);
    check();
    expect(redact('abc')).toBe('abc');
    expect(
      jsonMayHoldSecret(JSON.stringify({ records: [{ id: 'rec1', fields: { Name: '-- -- --' } }] })),
    ).toBe(false);
    const last = secrets.at(-1)!;
    expect(redact(last)).toBe('[redacted]');
    expect(redact(`x${last}`)).toBe('x[redacted]');
  });
});
