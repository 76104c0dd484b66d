/**
 * Opaque cursors and page-size checks shared by emulated list endpoints.
 *
 * A cursor is base64url of a tagged JSON array (the sort key of the last row served), so it is stable across
 * inserts and cannot be mistaken for another list's cursor.
 */
import { err, ok, type Result } from './result.js';

export type CursorKey = readonly (string | number)[];

export function encodeCursor(tag: string, key: CursorKey): string {
  return Buffer.from(JSON.stringify([tag, ...key]), 'utf8').toString('base64url');
}

/** Decodes a cursor made by encodeCursor with the same tag and the given element types, or undefined. */
export function decodeCursor(
  tag: string,
  cursor: string,
  types: readonly ('string' | 'number')[],
): (string | number)[] | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== types.length + 1 || parsed[0] !== tag) return undefined;
  const rest = parsed.slice(1) as unknown[];
  for (let i = 0; i < types.length; i++) {
    const v = rest[i];
    if (types[i] === 'number' ? typeof v !== 'number' || !Number.isFinite(v) : typeof v !== 'string') {
      return undefined;
    }
  }
  return rest as (string | number)[];
}

export interface LimitRule {
  defaultLimit: number;
  min: number;
  max: number;
}

/** Pylon-style page size: defaults to 100, must be greater than 0 and less than 1000. */
export const DEFAULT_LIMIT_RULE: LimitRule = { defaultLimit: 100, min: 1, max: 999 };

/** Accepts a query-string value or a JSON number; absent or null means the default. */
export function parseLimit(raw: unknown, rule: LimitRule = DEFAULT_LIMIT_RULE): Result<number, string> {
  if (raw === undefined || raw === null || raw === '') return ok(rule.defaultLimit);
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < rule.min || n > rule.max) {
    return err(`limit must be an integer greater than ${rule.min - 1} and less than ${rule.max + 1}`);
  }
  return ok(n);
}
