// URL building for upstream calls. Caller-supplied identifiers only ever enter a URL through `encodeSegment`,
// so `../x`, `a/b`, `?x=1` or `%2F` stay inside their own path segment and can never reach another endpoint.

import { invalidArguments } from './errors.js';

export type QueryValue =
  | string
  | number
  | boolean
  | undefined
  | null
  | ReadonlyArray<string | number | boolean>;

/** Percent-encodes one path segment. Dot segments are refused: URL parsers resolve `.`/`..` (even when
 * written `%2E%2E`), which would move the request to another path. */
export function encodeSegment(value: string, field: string): string {
  if (value.length === 0) {
    throw invalidArguments(`\`${field}\` must not be empty.`, [{ field, problem: 'empty string' }]);
  }
  if (value === '.' || value === '..') {
    throw invalidArguments(`\`${field}\` cannot be "${value}": it is not a valid identifier.`, [
      { field, problem: 'dot segment' },
    ]);
  }
  // encodeURIComponent leaves !'()* alone; they are legal in a segment but some servers treat them specially.
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * Fills `{name}` placeholders of a path template with encoded values. `fields` maps a placeholder to the tool
 * parameter name used in error messages.
 */
export function buildPath(
  template: string,
  params: Readonly<Record<string, string | number>>,
  fields: Readonly<Record<string, string>> = {},
): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (_match, name: string) => {
    const value = params[name];
    const field = fields[name] ?? name;
    if (value === undefined) {
      throw invalidArguments(`\`${field}\` is required.`, [{ field, problem: 'missing' }]);
    }
    return encodeSegment(String(value), field);
  });
}

/** Appends query parameters; arrays become repeated keys, undefined and null are left out. */
export function buildUrl(
  baseUrl: string,
  path: string,
  query: Readonly<Record<string, QueryValue>> = {},
): URL {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  const url = new URL(`${base}${path}`);
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) url.searchParams.append(key, String(item));
    } else {
      url.searchParams.append(key, String(value));
    }
  }
  return url;
}
