/**
 * What the issue-desk emulator's route areas share: their dependencies; the area sub-app, whose error handler
 * answers a route's refusal in Pylon's envelope; reading JSON bodies; cursor paging by position; the envelopes.
 *
 * A route refuses by throwing a Refusal (a catalogue error from errors.ts) from inside its own area, so each
 * handler reads as the endpoint's rules in order; nothing else is thrown on purpose, and anything else that is
 * thrown goes on to the emulator shell's 500.
 */
import { type Context, Hono } from 'hono';
import type { Clock } from '../../../../emulation/clock.js';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { decodeCursor, encodeCursor, parseLimit } from '../../../../emulation/pagination.js';
import type { Result } from '../../../../emulation/result.js';
import type { IssueDeskDatabase, Page } from '../database.js';
import { errors, type PylonError, respond } from '../errors.js';
import type { StateError } from '../records.js';
import { dataEnvelope, type Json, listEnvelope } from '../wire.js';

export interface RouteDeps {
  database: IssueDeskDatabase;
  clock: Clock;
}

export type Ctx = Context<EmulatorEnv>;

/** A route's answer with one of the catalogue's errors, thrown to its area's error handler. */
export class Refusal extends Error {
  readonly error: PylonError;

  constructor(error: PylonError) {
    super(error.message);
    this.name = 'Refusal';
    this.error = error;
  }
}

/** A sub-app for one area of the API: its routes' refusals become Pylon error responses. */
export function createArea(): Hono<EmulatorEnv> {
  return new Hono<EmulatorEnv>().onError((error, c) => {
    if (error instanceof Refusal) return respond(c, error.error);
    // Not a refusal but a fault of the emulator: the shell reports it and answers 500 in the same envelope.
    throw error;
  });
}

/** The value of a check of the request; its error message is the endpoint's 400. */
export function valid<T>(result: Result<T, string>): T {
  if (!result.ok) throw new Refusal(errors.invalidRequest(result.error));
  return result.value;
}

/** The value of a change the database made, or its refusal. */
export function applied<T>(result: Result<T, StateError>): T {
  if (!result.ok) throw new Refusal(errors.fromState(result.error));
  return result.value;
}

export function found<T>(item: T | undefined, notFound: () => PylonError): T {
  if (item === undefined) throw new Refusal(notFound());
  return item;
}

/**
 * Reads a JSON object body whatever the Content-Type says; malformed JSON, an empty body and non-objects are the
 * endpoint's 400. Not Hono's validator: it skips bodies not labelled JSON (a PATCH would pass as a silent
 * no-op), answers malformed and empty bodies with its own wording, and runs before the handler, so an unknown
 * issue would become a 400 instead of a 404.
 */
export async function readJsonObject(c: Ctx): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') throw new Refusal(errors.bodyNotObject());
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Refusal(errors.bodyNotJson());
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Refusal(errors.bodyNotObject());
  }
  return parsed as Record<string, unknown>;
}

/** A path parameter; a route reads only the ones its operation's path declares. */
export function param(c: Ctx, name: string): string {
  return c.req.param(name) ?? '';
}

/** The emulator's origin as this client reached it, for links back to the emulator. */
export function originOf(c: Ctx): string {
  return new URL(c.req.url).origin;
}

export function dataResponse(c: Ctx, data: unknown): Response {
  return c.json(dataEnvelope(data, c.get('requestId')));
}

export function listResponse(c: Ctx, data: unknown[], nextCursor: string | null): Response {
  return c.json(listEnvelope(data, nextCursor, c.get('requestId')));
}

/** Where a list paged by position (contacts, users, teams) continues: after the position its cursor holds. */
export function positionAfter(tag: string, cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  const key = decodeCursor(tag, cursor, ['number']);
  if (!key) throw new Refusal(errors.invalidCursor());
  return key[0] as number;
}

export function nextPositionCursor(tag: string, page: Page<{ pos: number }>): string | null {
  const last = page.items.at(-1);
  return page.hasMore && last ? encodeCursor(tag, [last.pos]) : null;
}

/** GET of a list paged by position: `limit` and `cursor` from the query, items shaped by `wire`. */
export function positionList<T extends { pos: number }>(
  c: Ctx,
  tag: string,
  after: (afterPos: number, limit: number) => Page<T>,
  wire: (item: T) => Json,
): Response {
  const limit = valid(parseLimit(c.req.query('limit')));
  const page = after(positionAfter(tag, c.req.query('cursor')), limit);
  return listResponse(c, page.items.map(wire), nextPositionCursor(tag, page));
}
