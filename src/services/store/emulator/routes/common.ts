/**
 * What every area of the store emulator shares: the sub-app each area is (`createArea`, with its error handling)
 * and how it registers an operation of the endpoint table (`route`), its dependencies, reading JSON bodies (400 on
 * bad JSON, the shared body schemas first, then 422 with the first problem named), the Airtable query encodings
 * (`fields[]=`, `sort[0][field]=`), the caller's origin, and answering a Result.
 *
 * Hono's validator (`hono/validator`) was tried for the body readers and not taken: its `json` target reads a
 * body only under a JSON content type (others pass `{}` unread), answers an empty body with its own 400 where the
 * upstream's 422 names the missing field, and runs as middleware, so the body would be judged before the token,
 * the base and the table, which the upstream checks first (webhooks: an unknown base is 403 whatever the body).
 */
import { type Context, type ErrorHandler, type Handler, Hono } from 'hono';
import type { Clock } from '../../../../emulation/clock.js';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { honoPath, type RoutedOperation } from '../../../../emulation/operations.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import type { Access, Principal } from '../auth.js';
import type { ChangeHub } from '../changes.js';
import type { StoreDatabase } from '../database.js';
import { errors, respond, type StoreError } from '../errors.js';
import type { ListIterators } from '../query.js';
import type { Actor } from '../records.js';
import { checkBody, type StoreBodyName } from '../requestBodies.js';

export interface RouteDeps {
  store: StoreDatabase;
  hub: ChangeHub;
  clock: Clock;
  access: Access;
  iterators: ListIterators;
}

export type Ctx = Context<EmulatorEnv>;

/** The value as JSON, or the refusal in the upstream's envelope. */
export function reply<T>(c: Ctx, result: Result<T, StoreError>): Response {
  // The values answered are the state layer's JSON documents; Hono's json() wants that said of a generic T.
  return result.ok ? c.json(result.value as object) : respond(c, result.error);
}

/** A refusal thrown where returning it is awkward; the area's onError answers it in the upstream's envelope. */
export class Refusal extends Error {
  constructor(readonly error: StoreError) {
    super(error.message ?? error.type);
  }
}

/**
 * One area of the emulated API, as a Hono sub-app that app.ts mounts with `app.route('/', area)`. Its onError
 * answers the area's own exceptions (`answer`, e.g. SCIM's error bodies) and thrown Refusals; anything else
 * goes on to the app's catch-all, which reports it and answers 500 in the upstream's envelope.
 */
export function createArea(answer?: (error: Error, c: Ctx) => Response | undefined): Hono<EmulatorEnv> {
  const area = new Hono<EmulatorEnv>();
  const onError: ErrorHandler<EmulatorEnv> = (error, c) => {
    const answered = answer?.(error, c);
    if (answered) return answered;
    if (error instanceof Refusal) return respond(c, error.error);
    throw error;
  };
  area.onError(onError);
  return area;
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

export interface RouteOptions {
  /** Also serve the path with a trailing slash (default true). */
  trailingSlash?: boolean;
  /** Patterns path parameters must match (Hono's `:name{regex}`), where another area has paths of that shape. */
  patterns?: Readonly<Record<string, string>>;
}

/**
 * Serves an operation of the endpoint table (`{name}` paths, as emulation/operations.ts's `route` does), by
 * default with and without a trailing slash: the upstream accepts both, and airtable.js writes records to
 * `/v0/{baseId}/{table}/` (with the slash) while it reads from `/v0/{baseId}/{table}` (without).
 */
export function route(
  area: Hono<EmulatorEnv>,
  operation: RoutedOperation,
  handler: Handler<EmulatorEnv>,
  options: RouteOptions = {},
): void {
  let path = honoPath(operation.path);
  for (const [name, pattern] of Object.entries(options.patterns ?? {})) {
    path = path.replace(`:${name}`, `:${name}{${pattern}}`);
  }
  area.on(operation.method, options.trailingSlash === false ? [path] : [path, `${path}/`], handler);
}
