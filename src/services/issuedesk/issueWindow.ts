// ListIssues over any time window. Pylon's GET /issues refuses windows longer than 30 days, so a longer window
// is walked as consecutive slices of at most 30 days, newest first. The cursor we hand out is opaque: it records
// the whole window, the slice being read and Pylon's own cursor inside it, so paging continues seamlessly across
// slice boundaries.

import { invalidArguments } from '../../runtime/errors.js';

export const MAX_UPSTREAM_WINDOW_MS = 30 * 24 * 3600 * 1000;

export interface WindowCursor {
  /** Whole window requested, ms since epoch. */
  start: number;
  end: number;
  /** End of the slice being read; the slice starts at max(start, sliceEnd - 30 days). */
  sliceEnd: number;
  /** Pylon's cursor within the slice, if any. */
  upstream?: string;
}

export function sliceOf(cursor: WindowCursor): { start: number; end: number } {
  return { start: Math.max(cursor.start, cursor.sliceEnd - MAX_UPSTREAM_WINDOW_MS), end: cursor.sliceEnd };
}

/** The position after a slice's last page, or undefined when the window is done. */
export function nextSlice(cursor: WindowCursor): WindowCursor | undefined {
  const slice = sliceOf(cursor);
  if (slice.start <= cursor.start) return undefined;
  return { start: cursor.start, end: cursor.end, sliceEnd: slice.start };
}

export function encodeCursor(cursor: WindowCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

export function decodeCursor(text: string): WindowCursor {
  const fail = () =>
    invalidArguments(
      '`cursor` is not a cursor this tool returned.',
      [{ field: 'cursor', problem: 'unreadable' }],
      'Pass `next_cursor` from the previous IssueDesk.ListIssues result unchanged, or leave `cursor` out to start over.',
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw fail();
  }
  const c = parsed as Partial<WindowCursor>;
  if (
    !c ||
    typeof c.start !== 'number' ||
    typeof c.end !== 'number' ||
    typeof c.sliceEnd !== 'number' ||
    !(c.start < c.sliceEnd && c.sliceEnd <= c.end) ||
    (c.upstream !== undefined && typeof c.upstream !== 'string')
  ) {
    throw fail();
  }
  return {
    start: c.start,
    end: c.end,
    sliceEnd: c.sliceEnd,
    ...(c.upstream ? { upstream: c.upstream } : {}),
  };
}

export function toRfc3339(ms: number): string {
  return new Date(ms).toISOString();
}
