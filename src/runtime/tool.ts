// The tool model. A tool is data: name, description, zod input schema, annotations, and a `run` function, which
// for endpoint-mirroring tools is produced by the generic executor (endpoint.ts) from a declarative row.

import type { z } from 'zod';

/** MCP tool annotations; every tool sets all four deliberately. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export const READ_ONLY: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};

export interface ToolCall {
  /** Aborted when the MCP client cancels the call. */
  signal: AbortSignal;
  /** The name this call came in under, so results can name follow-up calls the way this client sees tools. */
  toolName: string;
  nameStyle: 'dotted' | 'underscore';
  /**
   * Who is calling, over HTTP with per-user OAuth: the person's upstream user id and the grant their access token
   * maps to. Per-person credentials are looked up by this verified grant only; absent on stdio and without OAuth.
   */
  principal?: Principal;
}

export interface Principal {
  /** The person's user id at the upstream that signed them in. */
  subject: string;
  grantId: string;
}

export interface ToolDefinition<Ctx> {
  /** Name without the service prefix, e.g. `WhoAmI`. */
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  hints: ToolHints;
  /** Receives arguments already validated against `input`. */
  run(args: unknown, ctx: Ctx, call: ToolCall): Promise<unknown>;
}

/** Binds the argument type of `run` to the input schema. */
export function defineTool<Ctx, S extends z.ZodObject>(def: {
  name: string;
  title: string;
  description: string;
  input: S;
  hints: ToolHints;
  run: (args: z.output<S>, ctx: Ctx, call: ToolCall) => Promise<unknown>;
}): ToolDefinition<Ctx> {
  return {
    ...def,
    // The server validates with `def.input` before calling, so the cast only restores the type it checked.
    run: (args, ctx, call) => def.run(args as z.output<S>, ctx, call),
  };
}

/** Fixes the context type once per service so each tool's argument type is inferred from its schema. */
export function toolsFor<Ctx>() {
  return {
    define: <S extends z.ZodObject>(def: Parameters<typeof defineTool<Ctx, S>>[0]) => defineTool<Ctx, S>(def),
  };
}

/** A service: its tools plus the shared instructions sent once per session rather than in every tool. */
export interface ServiceDefinition<Ctx> {
  id: string;
  /** Tool-name prefix, e.g. `IssueDesk`. */
  prefix: string;
  title: string;
  instructions: string;
  tools: readonly ToolDefinition<Ctx>[];
}

/** A service with the per-process context its tools run against (configured upstream client, ...). */
export interface ServiceRuntime<Ctx = unknown> {
  definition: ServiceDefinition<Ctx>;
  context: Ctx;
}
