import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/runtime/errors.js';
import {
  decodeCursor,
  encodeCursor,
  MAX_UPSTREAM_WINDOW_MS,
  nextSlice,
  sliceOf,
} from '../../../src/services/issuedesk/issueWindow.js';

const DAY = 24 * 3600 * 1000;

describe('ListIssues window slicing', () => {
  it('walks a 70-day window as 30 + 30 + 10 days, newest first, without gaps or overlap', () => {
    const start = Date.UTC(2026, 0, 1);
    const end = start + 70 * DAY;
    let position: ReturnType<typeof nextSlice> = { start, end, sliceEnd: end };
    const slices: { start: number; end: number }[] = [];
    while (position) {
      slices.push(sliceOf(position));
      position = nextSlice(position);
    }
    expect(slices.map((s) => (s.end - s.start) / DAY)).toEqual([30, 30, 10]);
    expect(slices[0]!.end).toBe(end);
    expect(slices[2]!.start).toBe(start);
    for (let i = 1; i < slices.length; i++) expect(slices[i]!.end).toBe(slices[i - 1]!.start);
    for (const slice of slices) expect(slice.end - slice.start).toBeLessThanOrEqual(MAX_UPSTREAM_WINDOW_MS);
  });

  it('round-trips a cursor', () => {
    const cursor = { start: 1, end: 100, sliceEnd: 50, upstream: 'abc' };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
  });

  it.each([
    '',
    'not-base64!',
    Buffer.from('{"start":5,"end":1,"sliceEnd":3}').toString('base64url'),
    Buffer.from('[]').toString('base64url'),
  ])('refuses a cursor it did not make (%j) with an error naming the field', (text) => {
    expect(() => decodeCursor(text)).toThrow(ToolError);
    expect(() => decodeCursor(text)).toThrow(/cursor/);
  });
});
