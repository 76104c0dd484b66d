// Output schemas (issue 15): what each tool's `structuredContent` holds, published in tools/list as JSON Schema
// 2020-12. A service keeps one table of zod schemas by tool name (src/services/<svc>/outputSchemas.ts) describing
// its SUCCESS results only; withOutputSchemas attaches them at start-up, and publishedOutputSchema adds, for every
// tool, the results all tools share, so that every result a tool can return validates against its schema:
// - a result cut to the result budget (runtime/result.ts): it carries a `truncated` note and may lack fields;
// - schema mode's answer (runtime/schemaMode.ts), for tools that take `mode`;
// - a failed call (`isError: true`): `{error: {kind, message, ...}}`. The SDK v1 client validates the
//   structuredContent of error results too (the v2 client does not), so without this branch a v1 client would
//   turn every tool error into "Structured content does not match the tool's output schema". docs/output-schemas.md.
// Conversion happens when a tools/list entry is made (toolset.ts), never per request; a built program reads the
// entries prebuilt (src/docs/prebuiltToolList.ts).

import { z } from 'zod';
import type { ToolDefinition } from './tool.js';

type JsonSchema = Record<string, unknown>;

/** A service's table: the success result of each of its tools, by name without prefix. */
export type OutputSchemaTable = Readonly<Record<string, z.ZodType>>;

/**
 * A table built on its first use rather than when its module loads. The built program lists tools from the list
 * written at build time (src/docs/prebuiltToolList.ts), so it never needs the tables to start: constructing their
 * zod schemas at every start would cost more than the rest of the services' modules together (measured: about
 * 30 ms of a 300 ms `serve store` start).
 */
export function lazyTable<T extends OutputSchemaTable>(build: () => T): () => T {
  let table: T | undefined;
  return () => {
    table ??= build();
    return table;
  };
}

/**
 * `tools` with their output schemas from `table`. Every tool must have exactly one entry and every entry must
 * name a tool: a tool without one, or a name that is no tool (a typo, a renamed tool), is refused, naming them.
 * A table given as an object is checked at once; a lazy one (lazyTable) when a schema is first asked for, which
 * is when the tools/list entries are made: at start from the sources, at build time for the built program.
 */
export function withOutputSchemas<Ctx>(
  tools: readonly ToolDefinition<Ctx>[],
  table: OutputSchemaTable | (() => OutputSchemaTable),
): ToolDefinition<Ctx>[] {
  const names = new Set(tools.map((tool) => tool.name));
  if (typeof table !== 'function') {
    checkTable(names, table);
    return tools.map((tool) => ({ ...tool, output: () => table[tool.name]! }));
  }
  const checked = lazyTable(() => {
    const built = table();
    checkTable(names, built);
    return built;
  });
  return tools.map((tool) => ({ ...tool, output: () => checked()[tool.name]! }));
}

function checkTable(names: ReadonlySet<string>, table: OutputSchemaTable): void {
  const unknown = Object.keys(table).filter((name) => !names.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `Output schemas for unknown tools: ${unknown.join(', ')}. Rename or remove these entries of the table; its tools are ${[...names].join(', ')}.`,
    );
  }
  const missing = [...names].filter((name) => !Object.hasOwn(table, name));
  if (missing.length > 0) {
    throw new Error(
      `No output schema for ${missing.join(', ')}: add an entry for each to the service's output schema table.`,
    );
  }
}

/**
 * The branches every tool's schema shares, written out: each names only the keys that tell its kind of result
 * apart, since all 126 schemas repeat them and tools/list carries every one (full, they would cost about 100 o200k
 * tokens per tool; these, about 35). docs/output-schemas.md documents their full shapes.
 */
const SHARED = {
  /** A result cut to the budget (runtime/result.ts `annotate`): `truncated: {note, next, ...}` and what fit. */
  truncated: { required: ['truncated'] },
  /** The same where the result has a `truncated` field of its own: the note goes under `_truncated`. */
  ownTruncated: { required: ['_truncated'] },
  /** Schema mode's answer (runtime/endpoint.ts): the tool's name and its OpenAPI Request Body Object. */
  schemaMode: { required: ['tool', 'request_body'] },
  /** A failed call (runtime/result.ts errorResult): `error: {kind, message, hint?, retryable?, issues?, ...}`. */
  error: { properties: { error: { required: ['kind', 'message'] } }, required: ['error'] },
} as const satisfies Record<string, JsonSchema>;

/** Whether a tool takes schema mode's `mode` (runtime/schemaMode.ts), so may answer with a request schema. */
function hasSchemaMode(definition: ToolDefinition<unknown>): boolean {
  return Object.hasOwn(definition.input.shape, 'mode');
}

const published = new WeakMap<ToolDefinition<unknown>, JsonSchema>();

/**
 * The `outputSchema` of a tools/list entry, or undefined for a tool without one: an object whose `anyOf` holds
 * the success shapes first, then a cut result, schema mode's answer where the tool has it, and the error shape.
 */
export function publishedOutputSchema(definition: ToolDefinition<unknown>): JsonSchema | undefined {
  if (!definition.output) return undefined;
  let schema = published.get(definition);
  if (!schema) {
    schema = combine(outputJsonSchema(definition.output()), hasSchemaMode(definition));
    published.set(definition, schema);
  }
  return schema;
}

/** A table entry converted as the contract says (draft 2020-12, output side) and compacted. */
export function outputJsonSchema(schema: z.ZodType): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as JsonSchema;
  delete converted.$schema;
  return compactOutputSchema(converted) as JsonSchema;
}

function combine(success: JsonSchema, schemaMode: boolean): JsonSchema {
  const { $defs, ...shape } = success;
  // A union of success shapes (IssueDesk's result or needs_confirmation) joins the root's branches directly.
  const successes = Array.isArray(shape.anyOf) && Object.keys(shape).length === 1 ? shape.anyOf : [shape];
  const branches: JsonSchema[] = successes.map((s) => {
    if (s.type !== 'object') {
      throw new Error(
        `An output schema must describe an object (structuredContent always is one); got ${JSON.stringify(s).slice(0, 80)}.`,
      );
    }
    const { type: _object, ...rest } = s as JsonSchema;
    return rest;
  });
  const ownTruncated = branches.some((s) => Object.hasOwn((s.properties ?? {}) as object, 'truncated'));
  branches.push(ownTruncated ? SHARED.ownTruncated : SHARED.truncated);
  if (schemaMode) branches.push(SHARED.schemaMode);
  branches.push(SHARED.error);
  return { type: 'object', anyOf: branches, ...($defs ? { $defs } : {}) };
}

/** Keywords whose value is a schema, or a list of schemas, that the compaction walks into. */
const SUBSCHEMA = new Set(['items', 'anyOf', 'oneOf', 'allOf', 'not', 'prefixItems', 'additionalProperties']);
/** Keywords whose value maps names to schemas (the names themselves are data, never keywords). */
const SCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs']);

/**
 * Drops what neither a reader nor a validator needs: tools/list carries every schema to every client. Left out:
 * - `additionalProperties: {}` and `propertyNames: {type: "string"}`: JSON Schema objects are open by default;
 * - `format` and `pattern`: the upstream decides its own strings, and a client validating formats (the SDK v1
 *   client does) would refuse a result the upstream sent merely for writing a date its own way;
 * - the integer bounds `z.int()` adds (`±9007199254740991`), empty `properties`, and a `type` that a `const` or
 *   an `enum` beside it already fixes.
 * And `anyOf` of bare types (`[{type: "string"}, {type: "null"}]`) becomes the shorter `type: ["string", "null"]`.
 */
export function compactOutputSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactOutputSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const node = schema as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'format' || key === 'pattern') continue;
    if (key === 'additionalProperties' && JSON.stringify(value) === '{}') continue;
    if (key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') continue;
    if (key === 'maximum' && typeof value === 'number' && value >= Number.MAX_SAFE_INTEGER) continue;
    if (key === 'minimum' && typeof value === 'number' && value <= Number.MIN_SAFE_INTEGER) continue;
    if (key === 'type' && typeof value === 'string' && fixedByValues(node, value)) continue;
    if (key === 'properties' && JSON.stringify(value) === '{}') continue;
    if (SCHEMA_MAP.has(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, compactOutputSchema(sub)]),
      );
    } else {
      out[key] = SUBSCHEMA.has(key) ? compactOutputSchema(value) : value;
    }
  }
  const anyOf = out.anyOf as JsonSchema[] | undefined;
  if (
    Array.isArray(anyOf) &&
    Object.keys(out).length === 1 &&
    anyOf.every((s) => Object.keys(s).length === 1 && typeof s.type === 'string')
  ) {
    return { type: anyOf.map((s) => s.type) };
  }
  return out;
}

/** Whether the `const` or `enum` of `node` admits only values of JSON type `type`. */
function fixedByValues(node: JsonSchema, type: string): boolean {
  const values = 'const' in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  return values !== undefined && values.length > 0 && values.every((value) => typeof value === type);
}
