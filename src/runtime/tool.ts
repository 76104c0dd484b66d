// The tool model. A tool is data: name, description, zod input schema, annotations, and a `run` function, which
// for endpoint-mirroring tools is produced by the generic executor (endpoint.ts) from a declarative row.

import type { z } from 'zod';
import type { ProgressReport } from './progress.js';

/** MCP tool annotations; every tool sets all four deliberately. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolCall {
  /** Aborted when the MCP client cancels the call. */
  signal: AbortSignal;
  /**
   * Present when the client asked for progress (a `progressToken`): calls that make many upstream requests report
   * after each one (runtime/progress.ts throttles what is sent).
   */
  progress?: ProgressReport;
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

/**
 * How to find out whether a call that is not safe to repeat took effect, when its outcome is unknown (it failed
 * after the request was sent). The `outcome_unknown` error's hint is built from it.
 */
export interface OutcomeCheck {
  /** The tool of the same service, without prefix, that shows it; absent when the upstream cannot show it. */
  tool?: string;
  /** With `tool`: what to look for ("for the records you sent"). Without: what to do instead. */
  how: string;
}

/**
 * What is known of a tool without loading the module that defines it: enough to list it, select it by toolset
 * and --read-only, search it and offer it as a task. The built program makes every tool from such a summary (read
 * from the tool list the build writes) and loads a service's tool module on the first call of one of its tools.
 */
export interface ToolSummary {
  /** Name without the service prefix, e.g. `WhoAmI`. */
  name: string;
  title: string;
  description: string;
  hints: ToolHints;
  /** The upstream's OAuth scope a call needs, for upstreams that have scopes (the store's per-user sign-in). */
  scope?: string;
  /** For tools that start an upstream job: the tool that reads it (JobFollowUp.statusTool). */
  job?: Pick<JobFollowUp, 'statusTool'>;
}

/** A tool known by its summary until its definition is loaded (`load` is memoised per service module). */
export interface LazyToolDefinition<Ctx> extends ToolSummary {
  load(): Promise<ToolDefinition<Ctx>>;
}

/** What a service lists: its tools' definitions, or in the built program summaries that load them. */
export type ToolEntry<Ctx> = ToolDefinition<Ctx> | LazyToolDefinition<Ctx>;

/** The definition of a tool entry, loading its module when it is a summary. */
export function loadDefinition<Ctx>(entry: ToolEntry<Ctx>): Promise<ToolDefinition<Ctx>> {
  return 'load' in entry ? entry.load() : Promise.resolve(entry);
}

/** `entry` with its definition changed by `change`: now, or when a summary's definition loads. */
export function changeDefinition<Ctx>(
  entry: ToolEntry<Ctx>,
  change: (definition: ToolDefinition<Ctx>) => ToolDefinition<Ctx>,
): ToolEntry<Ctx> {
  if (!('load' in entry)) return change(entry);
  let changed: Promise<ToolDefinition<Ctx>> | undefined;
  return { ...entry, load: () => (changed ??= entry.load().then(change)) };
}

export interface ToolDefinition<Ctx> extends ToolSummary {
  input: z.ZodObject;
  /** For tools whose calls are not safe to repeat: how to check whether one took effect. */
  outcomeCheck?: OutcomeCheck;
  /**
   * What a successful call's structuredContent holds (an object schema, or a union of them), attached from the
   * service's table by withOutputSchemas; published with what all results share (runtime/outputSchemas.ts). A
   * function: the tables are built only when a list entry is made (not at all by the built program's start).
   */
  output?: () => z.ZodType;
  /**
   * Endpoint rows: the upstream query parameter each argument becomes (upstream name -> argument). The result
   * budget recognises page-size and cursor arguments by these upstream names (runtime/paging.ts).
   */
  upstreamQuery?: Readonly<Record<string, string>>;
  /** For tools that start an upstream job: how an MCP task follows the job to its end (runtime/tasks.ts). */
  job?: JobFollowUp;
  /** Receives arguments already validated against `input`. */
  run(args: unknown, ctx: Ctx, call: ToolCall): Promise<unknown>;
}

/**
 * How to follow the upstream job a tool's call started, until it ends: read with another tool of the same
 * service, so a task's result is exactly what that tool shows for the finished job.
 */
export interface JobFollowUp {
  /** The tool, without prefix, that reads the job's state. */
  statusTool: string;
  /** The status tool's arguments for the job a successful call created (`created` is its structuredContent). */
  statusArguments(
    args: Record<string, unknown>,
    created: Record<string, unknown>,
  ): Record<string, unknown> | undefined;
  /** Where the job stands in a status result's structuredContent. */
  stateOf(status: Record<string, unknown>): 'running' | 'done' | 'failed';
}

/** Binds the argument type of `run` to the input schema. */
export function defineTool<Ctx, S extends z.ZodObject>(def: {
  name: string;
  title: string;
  description: string;
  input: S;
  hints: ToolHints;
  upstreamQuery?: Readonly<Record<string, string>>;
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

/**
 * The hint of an `outcome_unknown` error of tool `specName` (`StoreApi.CreateStoreRecords`): how to check
 * before calling again. Names are the spec's; the server restyles them for the client.
 */
export function outcomeCheckHint(specName: string, check: OutcomeCheck): string {
  const risk = `${specName} may have taken effect although it failed, and calling it again could do it twice.`;
  if (check.tool === undefined) return `${risk} ${check.how}`;
  const prefix = specName.slice(0, specName.indexOf('.'));
  return `${risk} First check with ${prefix}.${check.tool} ${check.how}; call ${specName} again only for what did not take effect.`;
}

/**
 * Attaches each service's outcome checks (a table by tool name) to its tools; a name that is no tool of the
 * list is a mistake caught at start-up.
 */
export function withOutcomeChecks<Ctx>(
  tools: readonly ToolDefinition<Ctx>[],
  checks: Readonly<Record<string, OutcomeCheck>>,
): ToolDefinition<Ctx>[] {
  const names = new Set(tools.map((tool) => tool.name));
  for (const [name, check] of Object.entries(checks)) {
    if (!names.has(name)) throw new Error(`Outcome check for unknown tool ${name}`);
    if (check.tool !== undefined && !names.has(check.tool)) {
      throw new Error(`Outcome check of ${name} names unknown tool ${check.tool}`);
    }
  }
  return tools.map((tool) => {
    const check = checks[tool.name];
    return check ? { ...tool, outcomeCheck: check } : tool;
  });
}

/** A service: its tools plus the shared instructions sent once per session rather than in every tool. */
export interface ServiceDefinition<Ctx> {
  id: string;
  /** Tool-name prefix, e.g. `IssueDesk`. */
  prefix: string;
  title: string;
  instructions: string;
  tools: readonly ToolEntry<Ctx>[];
  /**
   * Named groups of the tools, by toolset name (`records`), each tool in exactly one: what `--toolsets` and the
   * HTTP paths `/mcp/<service id>.<toolset>` select. Without it the service can only be selected whole.
   */
  toolsets?: Readonly<Record<string, Toolset>>;
  /**
   * Per tool (name without the prefix), the words people use for it that its title and description leave out:
   * search_tools indexes them (discovery mode); tools/list never shows them, so they cost no tokens.
   */
  searchTerms?: Readonly<Record<string, string>>;
  /**
   * The three-letter prefixes of the upstream's identifiers and what each names (`rec` -> "record"): search_tools
   * reads a pasted identifier (`recQ7`) as that word.
   */
  identifierPrefixes?: Readonly<Record<string, string>>;
}

/** A named group of one service's tools. */
export interface Toolset {
  /** A short line for `switchboard toolsets` and the docs. */
  description: string;
  /** Tool names without the service prefix, in any order: a selection keeps the service's own tool order. */
  tools: readonly string[];
}

/** A service with the per-process context its tools run against (configured upstream client, ...). */
export interface ServiceRuntime<Ctx = unknown> {
  definition: ServiceDefinition<Ctx>;
  context: Ctx;
}
