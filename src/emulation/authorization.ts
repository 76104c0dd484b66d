/**
 * Reads the Authorization header the way emulators need it: which scheme was used and the credentials, if any.
 */

export type AuthScheme = 'bearer' | 'basic' | 'none' | 'other';

export type ParsedAuthorization =
  | { scheme: 'bearer'; token: string }
  | { scheme: 'basic'; username: string; password: string }
  | { scheme: 'none' }
  | { scheme: 'other' };

export function parseAuthorization(header: string | undefined | null): ParsedAuthorization {
  if (header === undefined || header === null || header.trim() === '') return { scheme: 'none' };
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(header);
  if (!match) return { scheme: 'other' };
  const scheme = (match[1] ?? '').toLowerCase();
  const value = match[2] ?? '';
  if (scheme === 'bearer') return { scheme: 'bearer', token: value };
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { scheme: 'other' };
    return { scheme: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return { scheme: 'other' };
}
