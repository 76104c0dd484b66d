// The set of tools one server process exposes: chosen services, filtered by --read-only and --tools, named
// dotted (`IssueDesk.WhoAmI`, the spec's names) or underscored (`IssueDesk_WhoAmI`, for clients that reject
// dots). Everything an MCP request needs is prepared here once, at startup: the tools/list entries with their
// JSON Schemas are built a single time and shared by every per-request server.

import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ServiceRuntime, ToolDefinition } from './tool.js';

export type ToolNameStyle = 'dotted' | 'underscore';

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
  const all: PreparedTool[] = [];
  for (const service of services) {
    const { prefix } = service.definition;
    for (const definition of service.definition.tools) {
      all.push({
        name: toolName(prefix, definition.name, style),
        specName: toolName(prefix, definition.name, 'dotted'),
        definition: definition as ToolDefinition<unknown>,
        context: service.context,
        listEntry: listEntry(toolName(prefix, definition.name, style), definition),
      });
    }
  }
  let tools = options.readOnly ? all.filter((tool) => tool.definition.hints.readOnlyHint) : all;
  if (options.only && options.only.length > 0) tools = selectTools(tools, all, options.only);
  const instructions = services
    .filter((service) => tools.some((tool) => tool.context === service.context))
    .map((service) => service.definition.instructions.trim())
    .join('\n\n');
  return {
    tools,
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    listEntries: tools.map((tool) => tool.listEntry),
    instructions,
    nameStyle: style,
  };
}

function selectTools(
  candidates: readonly PreparedTool[],
  all: readonly PreparedTool[],
  wanted: readonly string[],
): PreparedTool[] {
  const keep = new Set<PreparedTool>();
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
      throw new ToolSelectionError(
        `Unknown tool "${name}" in --tools. Known tools: ${all.map((tool) => tool.specName).join(', ')}`,
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
