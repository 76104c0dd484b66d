// The set of tools one server process exposes: chosen services, filtered by --read-only and --tools, named
// dotted (`IssueDesk.WhoAmI`, the spec's names) or underscored (`IssueDesk_WhoAmI`, for clients that reject
// dots). Everything an MCP request needs is prepared here once, at startup: the tools/list entries with their
// JSON Schemas are built a single time and shared by every per-request server.

import type { Tool } from '@modelcontextprotocol/server';
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import type { ServiceRuntime, ToolDefinition } from './tool.js';
import { type ToolNameStyle, toolNameRewriter } from './toolNames.js';

export type { ToolNameStyle };

export interface PreparedTool {
  /** The name clients call. */
  name: string;
  /** The spec's dotted name, whatever the style. */
  specName: string;
  definition: ToolDefinition<unknown>;
  context: unknown;
  listEntry: Tool;
}

export interface ToolSet {
  tools: readonly PreparedTool[];
  byName: ReadonlyMap<string, PreparedTool>;
  listEntries: readonly Tool[];
  instructions: string;
  nameStyle: ToolNameStyle;
  /** Rewrites the spec's dotted tool names in a text the server writes into `nameStyle` (errors, hints). */
  rewriteToolNames: (text: string) => string;
}

export interface ToolSetOptions {
  nameStyle?: ToolNameStyle;
  readOnly?: boolean;
  /** Tool names to keep (dotted, underscored, or bare when unambiguous). */
  only?: readonly string[];
}

export class ToolSelectionError extends Error {}

export function toolName(prefix: string, name: string, style: ToolNameStyle): string {
  return style === 'dotted' ? `${prefix}.${name}` : `${prefix}_${name}`;
}

export function buildToolSet(services: readonly ServiceRuntime[], options: ToolSetOptions = {}): ToolSet {
  const style = options.nameStyle ?? 'dotted';
  // Texts name tools the spec's way; with underscored names they are rewritten here once (instructions,
  // descriptions), and per call for errors (mcpServer.ts).
  const rewriteToolNames = toolNameRewriter(
    services.flatMap(({ definition: service }) =>
      service.tools.map((tool) => toolName(service.prefix, tool.name, 'dotted')),
    ),
    style,
  );
  const all: PreparedTool[] = [];
  for (const service of services) {
    const { prefix } = service.definition;
    for (const definition of service.definition.tools) {
      all.push({
        name: toolName(prefix, definition.name, style),
        specName: toolName(prefix, definition.name, 'dotted'),
        definition: definition as ToolDefinition<unknown>,
        context: service.context,
        listEntry: restyled(
          listEntry(toolName(prefix, definition.name, style), definition),
          rewriteToolNames,
        ),
      });
    }
  }
  let tools = options.readOnly ? all.filter((tool) => tool.definition.hints.readOnlyHint) : all;
  if (options.only) tools = selectTools(tools, all, options.only);
  const instructions = services
    .filter((service) => tools.some((tool) => tool.context === service.context))
    .map((service) => service.definition.instructions.trim())
    .join('\n\n');
  return {
    tools,
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    listEntries: tools.map((tool) => tool.listEntry),
    instructions: rewriteToolNames(instructions),
    nameStyle: style,
    rewriteToolNames,
  };
}

/** A tools/list entry with the tool names in its texts (description, parameter descriptions) rewritten. */
function restyled(entry: Tool, rewrite: (text: string) => string): Tool {
  const text = JSON.stringify(entry);
  const rewritten = rewrite(text);
  return rewritten === text ? entry : (JSON.parse(rewritten) as Tool);
}

function selectTools(
  candidates: readonly PreparedTool[],
  all: readonly PreparedTool[],
  wanted: readonly string[],
): PreparedTool[] {
  const keep = new Set<PreparedTool>();
  // `--tools ''` (or only commas) must not quietly mean "every tool": the person meant to narrow the set.
  if (wanted.every((raw) => raw.trim() === '')) {
    throw new ToolSelectionError(
      `--tools names no tool. Give at least one, comma-separated (e.g. --tools ${all[0]?.name ?? 'IssueDesk.WhoAmI'}), or leave --tools out to serve all ${candidates.length} tools.`,
    );
  }
  for (const raw of wanted) {
    const name = raw.trim();
    if (!name) continue;
    const matches = all.filter(
      (tool) =>
        tool.name === name ||
        tool.specName === name ||
        tool.specName.replace('.', '_') === name ||
        tool.definition.name === name,
    );
    if (matches.length === 0) {
      const close = closestTools(name, all);
      throw new ToolSelectionError(
        `Unknown tool "${name}" in --tools. ` +
          (close.length > 0
            ? `Closest: ${close.map((tool) => tool.name).join(', ')}.`
            : `No tool has a similar name; names look like ${all[0]?.name ?? 'IssueDesk.WhoAmI'} (or the tool part alone, when no other service has it).`) +
          ` All ${all.length} are listed in docs/tools.md.`,
      );
    }
    if (matches.length > 1) {
      throw new ToolSelectionError(
        `"${name}" in --tools names several tools (${matches.map((t) => t.specName).join(', ')}); use the full name.`,
      );
    }
    const match = matches[0]!;
    if (!candidates.includes(match)) {
      throw new ToolSelectionError(`${match.specName} is not read-only, so --read-only leaves it out.`);
    }
    keep.add(match);
  }
  return candidates.filter((tool) => keep.has(tool));
}

const MAX_SUGGESTIONS = 5;

/**
 * The tools a mistyped --tools name most likely meant, best first: those whose name holds every word of it
 * (ListRecords -> ListStoreRecords) or is held in it, then those within a few edits (case ignored).
 */
function closestTools(name: string, all: readonly PreparedTool[]): PreparedTool[] {
  // Tool names never hold a dot or underscore, so anything before one is a service prefix.
  const split = /^([A-Za-z]+)[._](.+)$/.exec(name);
  const bare = (split?.[2] ?? name).toLowerCase();
  const prefix = split?.[1]?.toLowerCase();
  const words =
    (split?.[2] ?? name).match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+/g)?.map((w) => w.toLowerCase()) ?? [];
  const inService = all.filter((tool) => tool.specName.split('.')[0]!.toLowerCase() === prefix);
  const pool = inService.length > 0 ? inService : all;
  const maxEdits = Math.max(2, Math.floor(bare.length / 3));
  return pool
    .map((tool) => {
      const candidate = tool.definition.name.toLowerCase();
      const contains =
        candidate.includes(bare) ||
        bare.includes(candidate) ||
        (words.length > 0 && words.every((word) => candidate.includes(word)));
      return { tool, contains, edits: distance(bare, candidate) };
    })
    .filter((scored) => scored.contains || scored.edits <= maxEdits)
    .sort(
      (a, b) =>
        Number(b.contains) - Number(a.contains) ||
        a.edits - b.edits ||
        a.tool.specName.localeCompare(b.tool.specName),
    )
    .slice(0, MAX_SUGGESTIONS)
    .map((scored) => scored.tool);
}

function listEntry(name: string, definition: ToolDefinition<unknown>): Tool {
  const inputSchema = z.toJSONSchema(definition.input, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  // The $schema line costs tokens in every tools/list and tells clients nothing they need.
  delete inputSchema.$schema;
  return {
    name,
    title: definition.title,
    description: definition.description,
    inputSchema: compactSchema(inputSchema) as Tool['inputSchema'],
    // The title is given once, at the top level; repeating it in the annotations costs tokens for nothing.
    annotations: { ...definition.hints },
  };
}

/**
 * Drops what a model does not need from a published schema. zod spells `format: "date-time"` out as a
 * 400-character regular expression as well; the format says the same, and the arguments are still validated
 * by zod, with its exact rules, when the tool is called.
 */
function compactSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  const node = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && typeof node.format === 'string') continue;
    out[key] = compactSchema(value);
  }
  return out;
}
