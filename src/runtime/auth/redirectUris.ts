// The rules for MCP clients' redirect URIs: which ones may be registered (MCP authorization spec, communication
// security) and when a presented one matches a registered one (RFC 8252 §7.3 for loopback listeners).

export const MAX_URI_LENGTH = 2000;
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

function urlOrUndefined(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/**
 * MCP authorization spec, communication security: redirect URIs are https, or http on a loopback host (a native
 * application's listener, RFC 8252 §7.3). Never a fragment (RFC 6749 §3.1.2) or credentials.
 */
export function redirectUriProblem(raw: string): string | undefined {
  if (raw.length > MAX_URI_LENGTH) return `is longer than ${MAX_URI_LENGTH} characters`;
  // RFC 3986 allows none of these, and URL parsers silently drop (tabs, newlines, outer spaces) or reinterpret
  // (a backslash is a slash) them: `https://evil.example\@app.example` reads as app.example and goes to evil.example.
  // Non-ASCII hosts are refused for the same reason (homographs): a client registers the punycode form.
  if (/[^\x21-\x7e]|\\/.test(raw)) {
    return 'holds characters a URI may not (spaces, control or non-ASCII characters, backslashes)';
  }
  const url = urlOrUndefined(raw);
  if (!url) return 'is not an absolute URL';
  if (raw.includes('#')) return 'has a fragment';
  if (url.username !== '' || url.password !== '') return 'carries credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'must use https, or http on a loopback address (127.0.0.1, [::1], localhost)';
}

/** Exact match; a registered loopback URI also matches on any port (RFC 8252 §7.3). */
export function redirectMatches(registered: string, presented: string): boolean {
  if (registered === presented) return true;
  const a = urlOrUndefined(registered);
  const b = urlOrUndefined(presented);
  if (!a || !b || a.protocol !== 'http:' || !LOOPBACK_HOSTS.has(a.hostname)) return false;
  a.port = '';
  b.port = '';
  return a.href === b.href;
}
