/**
 * Matches request paths against Hono-style patterns ('/issues/:id', '/files/*') for emulator controls.
 */

export type PathMatcher = (path: string) => boolean;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** ':name' matches one non-empty segment, a trailing '*' matches the rest; anything else is literal. */
export function compilePathPattern(pattern: string): PathMatcher {
  const trimmed = pattern.length > 1 ? pattern.replace(/\/+$/, '') : pattern;
  const segments = trimmed.split('/');
  const parts = segments.map((seg, i) => {
    if (seg === '*' && i === segments.length - 1) return '.*';
    if (seg.startsWith(':') && seg.length > 1) return '[^/]+';
    return escapeRegExp(seg);
  });
  const re = new RegExp(`^${parts.join('/')}/?$`);
  return (path) => re.test(path);
}
