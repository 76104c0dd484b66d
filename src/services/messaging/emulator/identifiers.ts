/**
 * How the tracking API tells identifiers apart. A path identifier's type comes from its shape (the upstream
 * has no separate parameter): `cio_<cio_id>` is the internal id, a value with `@` is an email when the
 * workspace identifies people by email, anything else is an id. Which kinds exist depends on the workspace.
 */
import { err, ok, type Result } from '../../../emulation/result.js';
import { byteLength, LIMITS } from '../schemas.js';
import type { IdentifyBy, PersonKind, PersonRef } from './records.js';

export const CIO_PREFIX = 'cio_';

/** The identifier kinds a workspace gives people, besides cio_id which every person has. */
export function identifierKinds(identifyBy: IdentifyBy): readonly ('id' | 'email')[] {
  if (identifyBy === 'id') return ['id'];
  if (identifyBy === 'email') return ['email'];
  return ['id', 'email'];
}

export function usesKind(identifyBy: IdentifyBy, kind: PersonKind): boolean {
  return kind === 'cio_id' || (identifierKinds(identifyBy) as readonly string[]).includes(kind);
}

/** Emails are case-insensitive identifiers upstream, so lookups go through this key. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export function looksLikeEmail(value: string): boolean {
  return value.includes('@');
}

/** Reads a path identifier that Hono has already percent-decoded once. */
export function parsePathIdentifier(raw: string, identifyBy: IdentifyBy): Result<PersonRef, string> {
  if (raw === '') return err('identifier must not be empty');
  if (byteLength(raw) > LIMITS.identifierBytes) {
    return err(`identifier is ${byteLength(raw)} bytes; the limit is ${LIMITS.identifierBytes} bytes`);
  }
  if (raw.startsWith(CIO_PREFIX)) {
    const value = raw.slice(CIO_PREFIX.length);
    if (value === '') return err('cio_ must be followed by the cio_id');
    return ok({ kind: 'cio_id', value });
  }
  if (identifyBy !== 'id' && looksLikeEmail(raw)) return ok({ kind: 'email', value: raw });
  if (identifyBy === 'email') {
    return err(
      `"${raw}" is not an email address; this workspace identifies people by email (or cio_<cio_id>)`,
    );
  }
  return ok({ kind: 'id', value: raw });
}

/** A body-level cio_id may come with or without the path's `cio_` prefix; both mean the same person. */
export function bareCioId(value: string): string {
  return value.startsWith(CIO_PREFIX) ? value.slice(CIO_PREFIX.length) : value;
}

/** Picks the single identifier of a `{id}|{email}|{cio_id}` object that the schemas already checked. */
export function refFromIdentifiers(identifiers: {
  id?: string | undefined;
  email?: string | undefined;
  cio_id?: string | undefined;
}): PersonRef | undefined {
  if (identifiers.id !== undefined) return { kind: 'id', value: identifiers.id };
  if (identifiers.email !== undefined) return { kind: 'email', value: identifiers.email };
  if (identifiers.cio_id !== undefined) return { kind: 'cio_id', value: bareCioId(identifiers.cio_id) };
  return undefined;
}

export function describeRef(ref: PersonRef): string {
  return ref.kind === 'cio_id' ? `${CIO_PREFIX}${ref.value}` : `${ref.kind} ${ref.value}`;
}
