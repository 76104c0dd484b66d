/**
 * What every route of the store emulator shares: its dependencies, reading JSON bodies (400 on bad JSON,
 * the shared body schemas first, then 422 with the first problem named), the Airtable query encodings
 * (`fields[]=`, `sort[0][field]=`), the caller's origin, and turning StoreErrors into responses.
 */
import type { Context, Handler, Hono } from 'hono';
import type { Clock } from '../../../../emulation/clock.js';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import type { Access, Principal } from '../auth.js';
import type { ChangeHub } from '../changes.js';
import { errors, respond, type StoreError } from '../errors.js';
import type { IteratorStore } from '../query.js';
import type { Actor } from '../records.js';
import { checkBody, type StoreBodyName } from '../requestBodies.js';
import type { StoreDb } from '../store.js';

export interface RouteDeps {
  store: StoreDb;
  hub: ChangeHub;
  clock: Clock;
  access: Access;
  iterators: IteratorStore;
}

export type Ctx = Context<EmulatorEnv>;

/** Either the value or the response that refuses the request. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; response: Response };

export function outcome<T>(c: Ctx, result: Result<T, StoreError>): Outcome<T> {
  return result.ok ? { ok: true, value: result.value } : { ok: false, response: respond(c, result.error) };
}

export function actorOf(principal: Principal): Actor {
  return { userId: principal.userId, source: 'publicApi' };
}

/** A path parameter; routes only read the ones their pattern declares, so a miss reads as ''. */
export function param(c: Ctx, name: string): string {
  return c.req.param(name) ?? '';
}

/** Scheme, host and port as the client addressed us: the base of attachment urls. */
export function originOf(c: Ctx): string {
  return new URL(c.req.url).origin;
}

/** The JSON body; empty is undefined (the schemas then say what is missing); unparsable is the upstream's 400. */
export async function readJson(c: Ctx): Promise<Result<unknown, StoreError>> {
  const text = await c.req.text();
  if (text.trim() === '') return ok(undefined);
  try {
    return ok(JSON.parse(text) as unknown);
  } catch {
    return err(errors.invalidJson());
  }
}

/** Reads the body and checks it against the shared request-body schema of that name. */
export async function readBody(
  c: Ctx,
  name: StoreBodyName,
): Promise<Result<Record<string, unknown>, StoreError>> {
  const body = await readJson(c);
  if (!body.ok) return body;
  const checked = checkBody(name, body.value);
  if (!checked.ok) return checked;
  return ok(body.value as Record<string, unknown>);
}

/** Values of an array parameter in any of the encodings clients use: `k[]=`, `k=` repeated, `k[0]=`. */
export function arrayParam(c: Ctx, key: string): string[] | undefined {
  const params = new URL(c.req.url).searchParams;
  const indexed = new RegExp(`^${key}\\[(\\d*)\\]$`);
  const values: string[] = [];
  let seen = false;
  for (const [k, v] of params) {
    if (k === key || indexed.test(k)) {
      seen = true;
      values.push(v);
    }
  }
  return seen ? values : undefined;
}

/** `sort[0][field]=Name&sort[0][direction]=desc`, in index order. */
export function sortParam(c: Ctx): { field?: string; direction?: string }[] | undefined {
  const params = new URL(c.req.url).searchParams;
  const items = new Map<number, { field?: string; direction?: string }>();
  for (const [k, v] of params) {
    const m = /^sort\[(\d+)\]\[(field|direction)\]$/.exec(k);
    if (!m) continue;
    const index = Number(m[1]);
    const item = items.get(index) ?? {};
    item[m[2] as 'field' | 'direction'] = v;
    items.set(index, item);
  }
  if (items.size === 0) return undefined;
  return [...items.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item);
}

export function boolParam(raw: unknown): boolean | undefined | 'invalid' {
  if (raw === undefined) return undefined;
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0' || raw === '') return false;
  return 'invalid';
}

/** `baseId` segments that are really other route families; a miss there is an unknown route, not a base. */
export function isReservedBaseSegment(baseId: string | undefined): boolean {
  return baseId === 'meta' || baseId === 'bases';
}

/**
 * Registers a route with and without a trailing slash: the upstream accepts both, and airtable.js writes records
 * to `/v0/{baseId}/{table}/` (with the slash) while it reads from `/v0/{baseId}/{table}` (without).
 */
export function route(
  app: Hono<EmulatorEnv>,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  handler: Handler<EmulatorEnv>,
): void {
  app.on(method, [path, `${path}/`], handler);
}
