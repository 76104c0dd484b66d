// Discovery mode (`serve --discovery`, HTTP `/mcp/discovery`): a view of a tool set that lists two tools instead
// of all of them, for clients that would otherwise pay for every definition in every turn. `search_tools` ranks
// the set's tools for a task in plain words (toolSearch.ts) and returns their definitions; `call_tool` runs one
// by name through the same code as a direct tools/call (runToolCall), so validation, results, errors, hints,
// cancellation and the caller's identity are the same. Only the set's own tools can be found or called, so
// --toolsets, --read-only and --tools hold here too. The tools/list stays fixed whatever is searched: the
// protocol wants it the same for every connection and in a stable order (prompt caching).

import type { Tool } from '@modelcontextprotocol/server';
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { invalidArguments } from './errors.js';
import { publishedHints } from './hints.js';
import { ReadyResult, runToolCall } from './mcpServer.js';
import { publishedOutputSchema } from './outputSchemas.js';
import type { ToolDefinition, ToolHints } from './tool.js';
import { type SearchableTool, splitCamelCase, ToolSearchIndex } from './toolSearch.js';
import { type PreparedTool, prefixOf, type ToolSet } from './toolset.js';

export const SEARCH_TOOLS = 'search_tools';
export const CALL_TOOL = 'call_tool';

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;
/** How many names an unknown call_tool name is answered with. */
const SUGGESTIONS = 3;

const searchInput = z.strictObject({
  query: z.string().trim().min(1),
  limit: z.int().min(1).max(MAX_SEARCH_LIMIT).default(DEFAULT_SEARCH_LIMIT),
});

const callInput = z.strictObject({
  name: z.string().trim().min(1),
  arguments: z.record(z.string(), z.unknown()),
});

/** One tool as search_tools returns it: what tools/list would have said of it. */
export interface FoundTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Tool['inputSchema'];
  annotations?: Tool['annotations'];
}

// Published schemas written out rather than generated: two small objects, kept as short as the rest of the list
// (toolset.ts compacts generated ones the same way), and a test holds them to the zod schemas above.
const SEARCH_SCHEMA: Tool['inputSchema'] = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'The task in plain words' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT },
  },
  required: ['query'],
};

const CALL_SCHEMA: Tool['inputSchema'] = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'A tool name from search_tools' },
    arguments: { type: 'object', description: "Arguments fitting that tool's inputSchema" },
  },
  required: ['name', 'arguments'],
};

/** search_tools' success result: the definitions found (FoundTool), and a hint when none were. */
const searchOutput = z.looseObject({
  tools: z.array(
    z.looseObject({
      name: z.string(),
      title: z.string().optional(),
      description: z.string().optional(),
      inputSchema: z.looseObject({}),
      annotations: z.looseObject({}).optional(),
    }),
  ),
  hint: z.string().optional(),
});

/**
 * call_tool's result is the result of whichever tool it ran (its errors too), so any object: each tool's own
 * output schema, which search_tools does not return, would only lengthen every search result.
 */
const CALL_OUTPUT_SCHEMA: NonNullable<Tool['outputSchema']> = { type: 'object' };

const views = new WeakMap<ToolSet, ToolSet>();

/**
 * The discovery view of `inner`: tools/list holds search_tools and call_tool, the instructions say how to use
 * them and what is behind them, and everything found or called is one of `inner`'s tools, named in its style.
 * One view (and one search index, built on the first search) per inner set.
 */
export function discoveryToolSet(inner: ToolSet): ToolSet {
  const known = views.get(inner);
  if (known) return known;

  let index: ToolSearchIndex | undefined;
  const search = (query: string, limit: number) => {
    index ??= toolSearchIndex(inner);
    return index.search(query, limit).map((hit) => inner.tools[hit.index]!);
  };

  const searchTools: ToolDefinition<unknown> = {
    name: SEARCH_TOOLS,
    title: 'Search tools',
    description:
      'Finds the tools for a task, best first, with the inputSchema call_tool needs. Describe the task as you would to a colleague.',
    input: searchInput,
    output: () => searchOutput,
    hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async (args) => {
      const { query, limit } = args as z.output<typeof searchInput>;
      const tools = search(query, limit).map(found);
      if (tools.length > 0) return { tools };
      return {
        tools,
        hint: `No tool matched "${query}". Name the thing to act on and the action in other words (e.g. "delete a record", "list open issues").`,
      };
    },
  };

  const callTool: ToolDefinition<unknown> = {
    name: CALL_TOOL,
    title: 'Call a tool',
    description: 'Runs a tool search_tools found, as if it had been called directly, and returns its result.',
    input: callInput,
    hints: combinedHints(inner.tools),
    run: async (args, _context, call) => {
      const { name, arguments: toolArguments } = args as z.output<typeof callInput>;
      const tool = inner.byName.get(name);
      if (!tool) throw unknownTool(name, inner, search);
      // The inner tool's own result, validation errors included, exactly as a direct tools/call returns it. The
      // signal is this call's, already decided by the protocol era (toolCallSignal), so it passes through as is.
      return new ReadyResult(
        await runToolCall(inner, tool, toolArguments, {
          signal: call.signal,
          ...(call.principal ? { principal: call.principal } : {}),
          ...(call.progress ? { progress: call.progress } : {}),
        }),
      );
    },
  };

  const tools: PreparedTool[] = [
    prepared(searchTools, SEARCH_SCHEMA, publishedOutputSchema(searchTools)),
    prepared(callTool, CALL_SCHEMA, CALL_OUTPUT_SCHEMA),
  ];
  const view: ToolSet = {
    tools,
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    listEntries: tools.map((tool) => tool.listEntry),
    instructions: instructionsFor(inner),
    nameStyle: inner.nameStyle,
    rewriteToolNames: inner.rewriteToolNames,
    // search_tools' own results keep to the same budget as the tools' (call_tool's are the inner set's).
    ...(inner.maxResultTokens !== undefined ? { maxResultTokens: inner.maxResultTokens } : {}),
  };
  views.set(inner, view);
  return view;
}

function prepared(
  definition: ToolDefinition<unknown>,
  inputSchema: Tool['inputSchema'],
  outputSchema: Record<string, unknown> | undefined,
): PreparedTool {
  return {
    name: definition.name,
    specName: definition.name,
    definition,
    load: async () => definition,
    context: undefined,
    listEntry: {
      name: definition.name,
      title: definition.title,
      description: definition.description,
      inputSchema,
      annotations: publishedHints(definition.hints),
      ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
    },
  };
}

/**
 * call_tool's annotations as a client reads them before knowing which tool it runs: read-only only when every
 * tool behind it is (`--read-only`), destructive when any is, and so on.
 */
function combinedHints(tools: readonly PreparedTool[]): ToolHints {
  const hints = tools.map((tool) => tool.definition.hints);
  return {
    readOnlyHint: hints.length > 0 && hints.every((h) => h.readOnlyHint),
    destructiveHint: hints.some((h) => h.destructiveHint),
    idempotentHint: hints.length > 0 && hints.every((h) => h.idempotentHint),
    openWorldHint: hints.some((h) => h.openWorldHint),
  };
}

function found(tool: PreparedTool): FoundTool {
  const { name, title, description, inputSchema, annotations } = tool.listEntry;
  return {
    name,
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    inputSchema,
    ...(annotations !== undefined ? { annotations } : {}),
  };
}

/** The search index of `inner`'s tools, with its services' identifier prefixes. */
export function toolSearchIndex(inner: ToolSet): ToolSearchIndex {
  const identifiers = (inner.catalog ?? []).flatMap((service) => Object.entries(service.identifierPrefixes));
  return new ToolSearchIndex(searchableTools(inner), { identifiers: new Map(identifiers) });
}

/** The tools of `inner` as the search index reads them, in their order. */
function searchableTools(inner: ToolSet): SearchableTool[] {
  return inner.tools.map((tool) => searchable(tool, inner));
}

function searchable(tool: PreparedTool, inner: ToolSet): SearchableTool {
  const { listEntry } = tool;
  const properties = (listEntry.inputSchema.properties ?? {}) as Record<string, { description?: unknown }>;
  const prefix = prefixOf(tool);
  const service = inner.catalog?.find((candidate) => candidate.prefix === prefix);
  const toolset = service?.toolsets.find((candidate) => candidate.tools.has(tool.definition.name));
  return {
    name: tool.definition.name,
    // The definition's title: tools/list leaves out a title that only repeats the name's words, search does not.
    title: tool.definition.title,
    description: listEntry.description,
    keywords: service?.searchTerms[tool.definition.name],
    parameters: Object.entries(properties).map(([name, schema]) => ({
      name,
      description: typeof schema.description === 'string' ? schema.description : undefined,
    })),
    toolset: toolset?.name,
    prefix,
  };
}

/** The error for a name that is none of the served tools, with the names it most likely meant. */
function unknownTool(
  name: string,
  inner: ToolSet,
  search: (query: string, limit: number) => PreparedTool[],
): Error {
  const close = closestNames(name, inner.tools);
  const suggestions =
    close.length > 0 ? close : search(splitCamelCase(name.replace(/^.*[._]/, '')), SUGGESTIONS);
  const names = suggestions.map((tool) => tool.name);
  return invalidArguments(
    `No tool named "${name}" is served here.`,
    [
      {
        field: 'name',
        problem:
          names.length > 0
            ? `not a served tool; closest: ${names.join(', ')}`
            : 'not a served tool, and no served tool has a similar name',
      },
    ],
    `Find the tool with ${SEARCH_TOOLS} (describe the task), then call it by the name it returns.`,
  );
}

/** Served tools whose name holds the given one or is a few edits from it, closest first. */
function closestNames(name: string, tools: readonly PreparedTool[]): PreparedTool[] {
  const wanted = name.toLowerCase();
  const bare = wanted.replace(/^.*[._]/, '');
  const maxEdits = Math.max(2, Math.floor(bare.length / 4));
  return tools
    .map((tool) => {
      const candidate = tool.definition.name.toLowerCase();
      return {
        tool,
        contains: bare.length >= 4 && (candidate.includes(bare) || bare.includes(candidate)),
        edits: Math.min(distance(wanted, tool.name.toLowerCase()), distance(bare, candidate)),
      };
    })
    .filter((scored) => scored.contains || scored.edits <= maxEdits)
    .sort((a, b) => Number(b.contains) - Number(a.contains) || a.edits - b.edits)
    .slice(0, SUGGESTIONS)
    .map((scored) => scored.tool);
}

/** How to use the two tools and what is behind them, then the served services' own notes. */
function instructionsFor(inner: ToolSet): string {
  const prefixes = [...new Set(inner.tools.map(prefixOf))];
  const services =
    prefixes.length > 1
      ? `${prefixes.slice(0, -1).join(', ')} and ${prefixes.at(-1)}`
      : (prefixes[0] ?? 'no service');
  const notes = inner.instructions.trim();
  return [
    `Discovery mode: the ${inner.tools.length} tools of ${services}${notes ? ' (notes below)' : ''} are reached through two.`,
    `- ${SEARCH_TOOLS} {query, limit?}: describe the task in plain words ("close the ticket about the login bug"); returns the best matching tools, each with its inputSchema. Search again in other words if none fits.`,
    `- ${CALL_TOOL} {name, arguments}: runs a found tool as if called directly; arguments must fit its inputSchema. The result, errors and hints are the tool's own.`,
    ...(notes ? [`\nThe services' notes; their tool names are ${CALL_TOOL} names.\n\n${notes}`] : []),
  ].join('\n');
}
