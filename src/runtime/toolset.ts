// The set of tools one server process exposes: chosen services, narrowed by --toolsets and --tools, filtered by
// --read-only, named dotted (`IssueDesk.WhoAmI`, the spec's names) or underscored (`IssueDesk_WhoAmI`, for
// clients that reject dots). Everything an MCP request needs is prepared here once, at startup: the tools/list
// entries with their JSON Schemas are built a single time and shared by every per-request server. A subset for
// one HTTP path (`/mcp/store.records`) is cut from those prepared tools (narrowToolSet), never built again.

import type { Tool } from '@modelcontextprotocol/server';
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { publishedHints } from './hints.js';
import { publishedOutputSchema } from './outputSchemas.js';
import { prebuiltListEntry } from './prebuiltTools.js';
import { checkMaxResultTokens } from './result.js';
import { loadDefinition, type ServiceRuntime, type ToolDefinition, type ToolSummary } from './tool.js';
import { type ToolNameStyle, toolNameRewriter } from './toolNames.js';

export type { ToolNameStyle };

export interface PreparedTool {
  /** The name clients call. */
  name: string;
  /** The spec's dotted name, whatever the style. */
  specName: string;
  /** What listing, selecting and searching need; the built program has only this until the tool is called. */
  definition: ToolSummary;
  /** The whole definition (validation, run, outcome check), loading its service's tool module on first use. */
  load(): Promise<ToolDefinition<unknown>>;
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
  /**
   * The services the set was built from, with their toolsets: what narrowToolSet cuts subsets by. Absent on a
   * set that is a view of another (the discovery mode), which is not narrowed further.
   */
  catalog?: readonly CatalogService[];
  /** The most o200k tokens one tool result may take (runtime/result.ts); unset: DEFAULT_MAX_RESULT_TOKENS. */
  maxResultTokens?: number;
  /**
   * false: destructive tools run without asking the user first, even where the client can be asked (serve's
   * --no-confirm-destructive, for unattended agents; runtime/confirmation.ts). Unset: they ask.
   */
  confirmDestructive?: boolean;
}

/** A service as a tool set knows it, to select by toolset and to send the instructions of what is served. */
export interface CatalogService {
  id: string;
  prefix: string;
  /** The instructions as served: trimmed, tool names in the set's style. */
  instructions: string;
  toolsets: readonly CatalogToolset[];
  /** Search-only words per tool name (ServiceDefinition.searchTerms). */
  searchTerms: Readonly<Record<string, string>>;
  /** ServiceDefinition.identifierPrefixes. */
  identifierPrefixes: Readonly<Record<string, string>>;
}

export interface CatalogToolset {
  name: string;
  description: string;
  /** Tool names without the service prefix. */
  tools: ReadonlySet<string>;
}

export interface ToolSetOptions {
  nameStyle?: ToolNameStyle;
  readOnly?: boolean;
  /** Tool names to keep (dotted, underscored, or bare when unambiguous). */
  only?: readonly string[];
  /**
   * Toolsets to keep: `<service id>.<toolset>`, a whole service id, or a bare toolset name only one service
   * has. With `only` as well, the set is the union of both; `readOnly` then filters it.
   */
  toolsets?: readonly string[];
  /** The result budget in o200k tokens, within MIN_RESULT_TOKENS..MAX_RESULT_TOKENS (runtime/result.ts). */
  maxResultTokens?: number;
  /** false: destructive tools never ask for confirmation (ToolSet.confirmDestructive). */
  confirmDestructive?: boolean;
  /**
   * false: list entries without `outputSchema`. Some clients have been reported to refuse tools that declare one;
   * results keep their shape either way.
   */
  outputSchemas?: boolean;
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
        definition,
        load: () => loadDefinition(definition) as Promise<ToolDefinition<unknown>>,
        context: service.context,
        // No icon per tool: the server's icon names the service (mcpServer.ts), and 126 copies of an inline SVG
        // would double the bytes of every tools/list for nothing a model sees.
        listEntry: withOutputSchema(
          restyled(
            listEntry(
              toolName(prefix, definition.name, style),
              definition,
              toolName(prefix, definition.name, 'dotted'),
            ),
            rewriteToolNames,
          ),
          options.outputSchemas ?? true,
        ),
      });
    }
  }
  const catalog: CatalogService[] = services.map(({ definition: service }) => ({
    id: service.id,
    prefix: service.prefix,
    instructions: rewriteToolNames(service.instructions.trim()),
    toolsets: Object.entries(service.toolsets ?? {}).map(([name, toolset]) => ({
      name,
      description: toolset.description,
      tools: new Set(toolset.tools),
    })),
    searchTerms: service.searchTerms ?? {},
    identifierPrefixes: service.identifierPrefixes ?? {},
  }));
  const readable = options.readOnly ? all.filter((tool) => tool.definition.hints.readOnlyHint) : all;
  let tools = readable;
  // --toolsets and --tools add up (a tool named on its own joins the toolsets); --read-only filters the union.
  if (options.toolsets || options.only) {
    const keep = new Set<PreparedTool>();
    if (options.toolsets) {
      const example = exampleOf(catalog);
      const selections = parseSelectors(options.toolsets, catalog, TOOLSETS_FLAG, example, LIST_HINT);
      gatherTools(selections, readable, keep, (selection) =>
        options.readOnly
          ? `${selectorName(selection)} has no read-only tools, so --read-only leaves nothing of it: drop it from --toolsets, or drop --read-only.`
          : `${selectorName(selection)} holds no tools.`,
      );
    }
    if (options.only) for (const tool of selectTools(readable, all, options.only)) keep.add(tool);
    tools = readable.filter((tool) => keep.has(tool));
  }
  return withTools(
    {
      tools,
      byName: new Map(),
      listEntries: [],
      instructions: '',
      nameStyle: style,
      rewriteToolNames,
      catalog,
      ...(options.maxResultTokens !== undefined
        ? { maxResultTokens: checkMaxResultTokens(options.maxResultTokens) }
        : {}),
      ...(options.confirmDestructive === false ? { confirmDestructive: false } : {}),
    },
    tools,
  );
}

/** The entry as made, or without its output schema. */
function withOutputSchema(entry: Tool, keep: boolean): Tool {
  if (keep || entry.outputSchema === undefined) return entry;
  const { outputSchema: _dropped, ...rest } = entry;
  return rest;
}

/** `toolSet` serving `tools` only (a subset of its own, in its order), with the instructions of their services. */
function withTools(toolSet: ToolSet, tools: readonly PreparedTool[]): ToolSet {
  const catalog = toolSet.catalog ?? [];
  const instructions = catalog
    .filter((service) => tools.some((tool) => prefixOf(tool) === service.prefix))
    .map((service) => service.instructions)
    .join('\n\n');
  return {
    ...toolSet,
    tools,
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    listEntries: tools.map((tool) => tool.listEntry),
    instructions,
  };
}

const TOOLSETS_FLAG = '--toolsets';
const LIST_HINT = '`switchboard toolsets` lists them all.';

/** One selector, resolved: a toolset of a service, or the whole service. */
interface Selection {
  service: CatalogService;
  toolset?: CatalogToolset;
}

/** The service prefix of a prepared tool: its spec name is `<prefix>.<name>`, and neither part holds a dot. */
export function prefixOf(tool: PreparedTool): string {
  return tool.specName.slice(0, tool.specName.indexOf('.'));
}

function selectorName(selection: Selection): string {
  return selection.toolset ? `${selection.service.id}.${selection.toolset.name}` : selection.service.id;
}

/** The tools of `candidates` a selection holds, in their order. */
function toolsOf(selection: Selection, candidates: readonly PreparedTool[]): PreparedTool[] {
  const { service, toolset } = selection;
  return candidates.filter(
    (tool) => prefixOf(tool) === service.prefix && (!toolset || toolset.tools.has(tool.definition.name)),
  );
}

/** Adds to `keep` the tools of `candidates` each selection holds; one that holds none is refused (`refusal`). */
function gatherTools(
  selections: readonly Selection[],
  candidates: readonly PreparedTool[],
  keep: Set<PreparedTool>,
  refusal: (selection: Selection) => string,
): void {
  for (const selection of selections) {
    const chosen = toolsOf(selection, candidates);
    if (chosen.length === 0) throw new ToolSelectionError(refusal(selection));
    for (const tool of chosen) keep.add(tool);
  }
}

/** A selector to show in messages: the first toolset of the catalog, or else its first service. */
function exampleOf(catalog: readonly CatalogService[]): string {
  const service = catalog.find((candidate) => candidate.toolsets.length > 0);
  return service ? `${service.id}.${service.toolsets[0]!.name}` : (catalog[0]?.id ?? 'store');
}

/**
 * Reads selectors (`store.records`, `store`, `records`; case ignored, blanks skipped) against the catalog, or
 * throws a ToolSelectionError that names the closest selectors, saying where the list is (`hint`).
 */
function parseSelectors(
  raw: readonly string[],
  catalog: readonly CatalogService[],
  source: string,
  example: string,
  hint: string,
): Selection[] {
  const wanted = raw.map((selector) => selector.trim().toLowerCase()).filter(Boolean);
  if (wanted.length === 0) {
    const names = `${source} names no toolset`;
    throw new ToolSelectionError(
      `${names[0]!.toUpperCase()}${names.slice(1)}. Give at least one, comma-separated (e.g. ${example}). ${hint}`,
    );
  }
  return wanted.map((selector) => {
    const dot = selector.indexOf('.');
    const serviceId = dot < 0 ? selector : selector.slice(0, dot);
    const service = catalog.find((candidate) => candidate.id === serviceId);
    if (dot < 0 && service) return { service };
    if (dot >= 0 && service) {
      const toolset = service.toolsets.find((candidate) => candidate.name === selector.slice(dot + 1));
      if (toolset) return { service, toolset };
    }
    if (dot < 0) {
      const holders = catalog.flatMap((candidate) =>
        candidate.toolsets
          .filter((toolset) => toolset.name === selector)
          .map((toolset) => ({ service: candidate, toolset })),
      );
      if (holders.length === 1) return holders[0]!;
      if (holders.length > 1) {
        throw new ToolSelectionError(
          `"${selector}" in ${source} is a toolset of several services (${holders.map(selectorName).join(', ')}); give it with its service.`,
        );
      }
    }
    const close = closestSelectors(selector, catalog);
    throw new ToolSelectionError(
      `Unknown toolset "${selector}" in ${source}. ` +
        (close.length > 0
          ? `Closest: ${close.join(', ')}. `
          : `Toolsets look like ${example} (or a service alone: ${catalog.map((candidate) => candidate.id).join(', ')}). `) +
        hint,
    );
  });
}

/** The selectors a mistyped one most likely meant, best first: those holding it, then those a few edits away. */
function closestSelectors(selector: string, catalog: readonly CatalogService[]): string[] {
  const names = catalog.flatMap((service) => [
    { name: service.id, part: service.id },
    ...service.toolsets.map((toolset) => ({ name: `${service.id}.${toolset.name}`, part: toolset.name })),
  ]);
  const bare = selector.slice(selector.indexOf('.') + 1);
  const maxEdits = Math.max(2, Math.floor(selector.length / 3));
  return names
    .map(({ name, part }) => ({
      name,
      contains: bare.length >= 3 && (part.includes(bare) || bare.includes(part)),
      edits: Math.min(distance(selector, name), distance(bare, part)),
    }))
    .filter((scored) => scored.contains || scored.edits <= maxEdits)
    .sort((a, b) => Number(b.contains) - Number(a.contains) || a.edits - b.edits)
    .slice(0, 3)
    .map((scored) => scored.name);
}

/** A toolset (or service) of a tool set with at least one served tool. */
export interface ServedToolset {
  /** The selector: `store.records`. */
  name: string;
  description: string;
  /** Served names, in the set's order. */
  tools: readonly string[];
}

/** The toolsets `toolSet` serves something of, in service and table order: what `/mcp/<toolset>` may name. */
export function servedToolsets(toolSet: ToolSet): ServedToolset[] {
  return (toolSet.catalog ?? []).flatMap((service) =>
    service.toolsets.flatMap((toolset) => {
      const tools = toolsOf({ service, toolset }, toolSet.tools).map((tool) => tool.name);
      return tools.length > 0
        ? [{ name: `${service.id}.${toolset.name}`, description: toolset.description, tools }]
        : [];
    }),
  );
}

/** A validated choice of toolsets within a tool set: a canonical key (for caches) and the tools it serves. */
export interface ToolsetChoice {
  /** The selectors resolved, deduplicated, in service and table order: equal for equal choices. */
  key: string;
  tools: readonly PreparedTool[];
}

/**
 * Resolves selectors (an HTTP path's `store.records,store.comments`) within what `toolSet` serves. Throws a
 * ToolSelectionError for an unknown selector or one that names nothing this set serves (left out by the
 * process's --toolsets, --tools or --read-only), naming the toolsets it does serve.
 */
export function chooseToolsets(
  toolSet: ToolSet,
  selectors: readonly string[],
  source: string,
): ToolsetChoice {
  const catalog = toolSet.catalog;
  if (!catalog) throw new ToolSelectionError('This tool set is a view of another and has no toolsets.');
  const served = servedToolsets(toolSet).map((toolset) => toolset.name);
  const services = catalog
    .filter((service) => toolSet.tools.some((tool) => prefixOf(tool) === service.prefix))
    .map((service) => service.id);
  const hint =
    served.length > 0
      ? `This server's toolsets: ${served.join(', ')} (or a whole service: ${services.join(', ')}).`
      : `This server has no toolsets; select a whole service: ${services.join(', ')}.`;
  const selections = parseSelectors(selectors, catalog, source, served[0] ?? services[0] ?? '', hint);
  const keep = new Set<PreparedTool>();
  gatherTools(
    selections,
    toolSet.tools,
    keep,
    (selection) => `${selectorName(selection)} is not served by this server. ${hint}`,
  );
  const order = (selection: Selection) =>
    catalog.indexOf(selection.service) * 1000 +
    (selection.toolset ? selection.service.toolsets.indexOf(selection.toolset) + 1 : 0);
  const key = [...new Set(selections.sort((a, b) => order(a) - order(b)).map(selectorName))].join(',');
  return { key, tools: toolSet.tools.filter((tool) => keep.has(tool)) };
}

/** `toolSet` narrowed to a choice made by chooseToolsets: the same prepared tools, nothing built again. */
export function narrowToolSet(toolSet: ToolSet, choice: ToolsetChoice): ToolSet {
  return withTools(toolSet, choice.tools);
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

/**
 * A tool's tools/list entry, named `name` (in the client's style): the one the build wrote (runtime/prebuiltTools.ts:
 * converting 126 zod schemas to JSON Schema was a tenth of a cold start), else made from its definition.
 */
function listEntry(name: string, definition: ToolSummary, specName: string): Tool {
  const built = prebuiltListEntry(specName);
  if (built) return { ...built, name };
  if (!('input' in definition))
    throw new Error(`${specName} has no definition loaded and no prebuilt list entry.`);
  return makeListEntry(name, definition as ToolDefinition<unknown>);
}

function makeListEntry(name: string, definition: ToolDefinition<unknown>): Tool {
  const inputSchema = z.toJSONSchema(definition.input, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  // The $schema line costs tokens in every tools/list and tells clients nothing they need.
  delete inputSchema.$schema;
  const outputSchema = publishedOutputSchema(definition);
  return {
    name,
    // A title made only of the name's own words ("List issues" for ListIssues, "Delete base" for DeleteStoreBase)
    // tells a model nothing the name does not, and every tools/list pays for it; MCP clients show the name when
    // there is no title. Titles that add a word are published. The definition keeps its title (docs, search).
    ...(titleAddsNothing(definition.title, definition.name) ? {} : { title: definition.title }),
    description: definition.description,
    inputSchema: compactSchema(inputSchema) as Tool['inputSchema'],
    // The title is given once, at the top level; repeating it in the annotations costs tokens for nothing.
    annotations: publishedHints(definition.hints),
    // Last, after what models read: clients check results against it (runtime/outputSchemas.ts).
    ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
  };
}

/** Whether every word of `title`, articles and case aside, is a word of the tool name `name` (camel case). */
export function titleAddsNothing(title: string, name: string): boolean {
  const nameWords = new Set(
    name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g)?.map((word) => word.toLowerCase()),
  );
  return title
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word && !ARTICLES.has(word))
    .every((word) => nameWords.has(word));
}

const ARTICLES = new Set(['a', 'an', 'the']);

/** Keywords whose value is a schema, or a list of schemas, that compactSchema walks into. */
const SUBSCHEMA = new Set(['items', 'anyOf', 'oneOf', 'allOf', 'not', 'prefixItems', 'additionalProperties']);
/** Keywords whose value maps names to schemas (the names themselves are data, never keywords). */
const SCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs']);

/**
 * Drops what a model does not need from a published schema: every tools/list is paid for in every turn of every
 * agent. The arguments are still validated by zod, with its exact rules, when the tool is called, and a
 * violation of a rule left out here comes back as a tool error naming the parameter and the fix. Left out:
 * - `pattern` beside a `format`: zod spells `format: "date-time"` out as a 400-character regular expression too;
 * - `minLength: 1`: an empty identifier or text is refused with "must not be empty";
 * - `additionalProperties: false`: an unknown parameter is refused as "unknown parameter", with the closest
 *   name when there is one, which helps a model more than a schema keyword it may not read;
 * - bounds that only restate the type: `maximum: 9007199254740991` (and the negative `minimum`) that
 *   `z.int()` adds, `propertyNames: {type: "string"}` and `additionalProperties: {}` of a free-form object;
 * - `exclusiveMinimum: 0` of a positive integer becomes the plainer `minimum: 1`.
 */
function compactSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const node = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && typeof node.format === 'string') continue;
    if (key === 'minLength' && value === 1) continue;
    if (key === 'additionalProperties' && (value === false || JSON.stringify(value) === '{}')) continue;
    if (key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') continue;
    if (key === 'maximum' && typeof value === 'number' && value >= Number.MAX_SAFE_INTEGER) continue;
    if (key === 'minimum' && typeof value === 'number' && value <= Number.MIN_SAFE_INTEGER) continue;
    if (key === 'exclusiveMinimum' && node.type === 'integer' && typeof value === 'number') {
      out.minimum = Math.floor(value) + 1;
      continue;
    }
    if (SCHEMA_MAP.has(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, compactSchema(sub)]));
    } else {
      out[key] = SUBSCHEMA.has(key) ? compactSchema(value) : value;
    }
  }
  return out;
}
