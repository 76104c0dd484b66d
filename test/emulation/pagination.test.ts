// Opaque cursors and page-size checks shared by emulated list endpoints.
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, parseLimit } from '../../src/emulation/pagination.js';

describe('cursors', () => {
  it('round-trip the key and are URL-safe', () => {
    const cursor = encodeCursor('issues', [1717000000000, 'a/b+c']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('issues', cursor, ['number', 'string'])).toEqual([1717000000000, 'a/b+c']);
  });

  it('reject another tag, wrong types, garbage and non-base64url text', () => {
    const cursor = encodeCursor('users', [5]);
    expect(decodeCursor('contacts', cursor, ['number'])).toBeUndefined();
    expect(decodeCursor('users', cursor, ['string'])).toBeUndefined();
    expect(decodeCursor('users', cursor, ['number', 'number'])).toBeUndefined();
    expect(decodeCursor('users', 'bm90LWpzb24', ['number'])).toBeUndefined();
    expect(decodeCursor('users', 'abc==', ['number'])).toBeUndefined();
    expect(decodeCursor('users', '', ['number'])).toBeUndefined();
  });
});

describe('parseLimit', () => {
  it('defaults to 100 and accepts 1..999 as numbers or strings', () => {
    expect(parseLimit(undefined)).toEqual({ ok: true, value: 100 });
    expect(parseLimit(null)).toEqual({ ok: true, value: 100 });
    expect(parseLimit('1')).toEqual({ ok: true, value: 1 });
    expect(parseLimit(999)).toEqual({ ok: true, value: 999 });
  });

  it.each([0, 1000, -1, 2.5, '10abc', 'ten', true, [] as unknown])('rejects %s', (raw) => {
    const result = parseLimit(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/limit must be an integer/);
  });
});
