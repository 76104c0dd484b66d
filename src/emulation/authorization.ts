/**
 * Reads the Authorization header the way emulators need it: which scheme was used and the credentials, if any;
 * checks presented credentials against the configured ones; and hints at a credential without giving it away.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

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

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * A check of presented credentials against the configured ones. It compares digests, which have one length
 * whatever was presented, in constant time, so the answer's timing tells nothing about the secret.
 */
export function credentialCheck(configured: string): (presented: string) => boolean {
  const digest = sha256(configured);
  return (presented) => timingSafeEqual(sha256(presented), digest);
}

/** At most the first 4 characters of a secret, so the hint never gives most of it away. */
export function secretHint(secret: string): string {
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 2)))}…`;
}
