// Reading SQLite rows and the JSON text columns every emulator store writes and reads back.
import { describe, expect, it } from 'vitest';
import {
  json,
  num,
  numOrNull,
  parseJson,
  parseJsonObject,
  str,
  strOrNull,
} from '../../src/emulation/rows.js';

describe('columns', () => {
  it('reads text and numbers, keeping NULL as null only where the column may hold it', () => {
    const row = { a: 'x', n: 3, none: null };
    expect([str(row, 'a'), num(row, 'n'), strOrNull(row, 'none'), numOrNull(row, 'none')]).toEqual([
      'x',
      3,
      null,
      null,
    ]);
    expect([strOrNull(row, 'n'), numOrNull(row, 'n')]).toEqual(['3', 3]);
  });
});

describe('JSON text columns', () => {
  it('round-trips what json() wrote, and gives the fallback for NULL or empty text', () => {
    const value = { tags: ['a', 'b'], n: 1 };
    expect(parseJson(json(value), {})).toEqual(value);
    expect(parseJson(json(['x']), [])).toEqual(['x']);
    expect(parseJson<string[]>(null, [])).toEqual([]);
    expect(parseJson<string[]>(undefined, ['d'])).toEqual(['d']);
    expect(parseJson('', 'fallback')).toBe('fallback');
    expect(() => parseJson('{not json', {})).toThrow(SyntaxError);
  });

  it('parseJsonObject gives {} for anything that is not a JSON object', () => {
    expect(parseJsonObject('{"plan":"pro"}')).toEqual({ plan: 'pro' });
    for (const value of ['[1]', 'null', '"text"', '7', '', null, undefined, 3]) {
      expect(parseJsonObject(value), String(value)).toEqual({});
    }
  });
});
