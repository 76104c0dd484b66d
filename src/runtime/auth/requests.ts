// Reading what reaches the authorization server: bodies read no further than a limit (these endpoints answer anyone
// who reaches the port), the cookie that binds a sign-in to the browser that started it, and the comparisons the
// endpoints make (PKCE S256, constant-time strings, RFC 8707 resource indicators).

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';

/**
 * The request body as text, read no further than `limit` bytes (so a body is never buffered whole before its size
 * is known); undefined when it is larger.
 */
export async function boundedText(c: Context, limit: number): Promise<string | undefined> {
  const declared = Number(c.req.header('content-length'));
  if (Number.isFinite(declared) && declared > limit) return undefined;
  const body = c.req.raw.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The media type of the request, lower-cased, without parameters. */
export function mediaType(c: Context): string | undefined {
  return (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
}

/** The browser-binding cookie: random, HttpOnly, SameSite=Lax (sent on the upstream's redirect back to us). */
export class BrowserBinding {
  readonly name: string;
  readonly #secure: boolean;

  constructor(publicUrl: URL) {
    this.#secure = publicUrl.protocol === 'https:';
    // The __Host- prefix (HTTPS only) pins the cookie to this exact host and path /.
    this.name = this.#secure ? '__Host-switchboard-browser' : 'switchboard-browser';
  }

  read(c: Context): string | undefined {
    const header = c.req.header('cookie') ?? '';
    for (const part of header.split(';')) {
      const [key, ...rest] = part.trim().split('=');
      const value = rest.join('=');
      if (key === this.name && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
    }
    return undefined;
  }

  /** The browser's id (made now if it has none) and the Set-Cookie header that keeps it for ten minutes. */
  ensure(c: Context): { id: string; setCookie: string } {
    const id = this.read(c) ?? randomBytes(32).toString('base64url');
    const attributes = [
      'Path=/',
      'HttpOnly',
      'SameSite=Lax',
      'Max-Age=600',
      ...(this.#secure ? ['Secure'] : []),
    ];
    return { id, setCookie: `${this.name}=${id}; ${attributes.join('; ')}` };
  }
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Equal strings, compared in constant time. */
export function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Compared as RFC 8707 resource indicators: without a fragment or one trailing slash. */
export function sameResource(a: string, b: string): boolean {
  const norm = (value: string) => value.split('#')[0]!.replace(/\/$/, '');
  return norm(a) === norm(b);
}
