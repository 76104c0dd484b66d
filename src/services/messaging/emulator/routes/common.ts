/**
 * What every area of routes shares: its dependencies, the sub-app it is built on, and reading the two things
 * most v1 routes start with (the person in the path, a body checked against the shared schema), answering the
 * v1 400 when either is unusable.
 */
import { type Context, Hono } from 'hono';
import type { z } from 'zod';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import type { MessagingDatabase } from '../database.js';
import { v1Errors } from '../errors.js';
import { parsePathIdentifier } from '../identifiers.js';
import { flattenIssues, issueMessages, PARSE_OPTIONS } from '../issues.js';
import type { JsonObject, PersonRef, Region } from '../records.js';
import { readJson, send } from '../wire.js';

export interface RouteDeps {
  database: MessagingDatabase;
  region: Region;
  environmentId: number;
  /** Unix seconds now, from the emulator's clock. */
  now(): number;
}

/**
 * A new area: a Hono sub-app that app.ts mounts once per regional host. Each route answers its expected errors
 * itself, in its operation's envelope, by returning them: a thrown error marks the request failed and the
 * request scope rolls its transaction back, yet two refusals must keep what they wrote (the form connection a
 * refused submission still creates, the record of a refused batch). An unexpected exception is left to the
 * app's catch-all (emulatorApp.ts), which reports it and rolls back.
 */
export function area(): Hono<EmulatorEnv> {
  return new Hono<EmulatorEnv>();
}

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The person named in the path, or the v1 400 that explains why the identifier is unusable. */
export function pathPerson(
  c: Context<EmulatorEnv>,
  database: MessagingDatabase,
): Result<PersonRef, Response> {
  const parsed = parsePathIdentifier(c.req.param('identifier') ?? '', database.identifyBy);
  return parsed.ok ? parsed : err(send(c, 400, v1Errors([parsed.error])));
}

/**
 * The person in the path and the validated v1 body, for the routes that take both; an unusable identifier is
 * answered before the body is read.
 */
export async function personAndBody<S extends z.ZodType>(
  c: Context<EmulatorEnv>,
  database: MessagingDatabase,
  schema: S,
): Promise<Result<{ ref: PersonRef; body: z.output<S> }, Response>> {
  const ref = pathPerson(c, database);
  if (!ref.ok) return ref;
  const body = await v1Body(c, schema);
  return body.ok ? ok({ ref: ref.value, body: body.value }) : body;
}

/** Reads and validates a v1 body; the 400 carries one message per problem. */
export async function v1Body<S extends z.ZodType>(
  c: Context<EmulatorEnv>,
  schema: S,
): Promise<Result<z.output<S>, Response>> {
  const body = await readJson(c);
  if (!body.ok) return err(send(c, 400, v1Errors([body.error])));
  const parsed = schema.safeParse(body.value, PARSE_OPTIONS);
  if (!parsed.success) return err(send(c, 400, v1Errors(issueMessages(flattenIssues(parsed.error.issues)))));
  return ok(parsed.data);
}
