// Reads a tool table of a spec (../shared/spec/*.md) into {tool -> parameters}, so inventory tests can check the
// code against the spec's own text when it is present beside the repository.

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export interface SpecParam {
  name: string;
  required: boolean;
  kind: 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'object' | 'enum';
  enumValues?: string[];
  default?: string;
}

export function specPath(file: string): string {
  return fileURLToPath(new URL(`../../../shared/spec/${file}`, import.meta.url));
}

export function specAvailable(file: string): boolean {
  return existsSync(specPath(file));
}

/** Splits on `;` outside parentheses. */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ';' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

export function parseParams(cell: string): SpecParam[] {
  // `[M]` rows say "none besides mode, request_body": the two schema-mode parameters are checked separately.
  if (cell.trim() === 'none' || cell.trim().startsWith('none besides')) return [];
  return splitTop(cell).map((part) => {
    const match = /^([a-z_]+)\s*\((.*)\)$/s.exec(part);
    if (!match) throw new Error(`cannot read parameter "${part}"`);
    const [, name, inner] = match as unknown as [string, string, string];
    const attrs = inner
      .split(';')[0]!
      .split(',')
      .map((a) => a.trim());
    const required = attrs.includes('R');
    const enumAttr = attrs.find((a) => a.startsWith('enum'));
    const enumValues = enumAttr ? [...enumAttr.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) : undefined;
    const defaultAttr = attrs.find((a) => a.startsWith('default'));
    const kind: SpecParam['kind'] = enumAttr
      ? 'enum'
      : attrs.includes('boolean')
        ? 'boolean'
        : attrs.includes('integer')
          ? 'integer'
          : attrs.includes('array')
            ? 'array'
            : 'string';
    return {
      name,
      required,
      kind,
      ...(enumValues && enumValues.length > 0 ? { enumValues } : {}),
      ...(defaultAttr ? { default: defaultAttr.replace(/^default\s*/, '') } : {}),
    };
  });
}

/** Tool names the spec marks `[M]` (schema mode: `mode` and `request_body`). */
export function readSchemaModeTools(file: string): string[] {
  return [...readFileSync(specPath(file), 'utf8').matchAll(/^\| (\w+) \[M\] \|/gm)].map((match) => match[1]!);
}

/** Rows of the first markdown table whose header starts with `| Tool |`. */
export function readToolTable(file: string): Map<string, SpecParam[]> {
  const lines = readFileSync(specPath(file), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith('| Tool |'));
  const tools = new Map<string, SpecParam[]>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').map((cell) => cell.trim());
    // `Name [M]` marks a schema-mode tool; the name is the part before the marker.
    tools.set(cells[1]!.replace(/\s*\[M\]$/, ''), parseParams(cells[2]!));
  }
  return tools;
}

export type ExpectedParams = Record<string, Omit<SpecParam, 'name'>>;

interface JsonSchema {
  type?: string;
  enum?: string[];
  anyOf?: JsonSchema[];
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
}

export function kindOf(schema: JsonSchema): SpecParam['kind'] {
  if (schema.enum || schema.anyOf?.some((branch) => branch.enum)) return 'enum';
  return schema.type as SpecParam['kind'];
}

/** A tool's published input schema has exactly the expected parameters, kinds, required flags, enums, defaults. */
export function expectToolInput(toolName: string, inputSchema: unknown, params: ExpectedParams): void {
  const schema = inputSchema as JsonSchema;
  expect(schema.type).toBe('object');
  // Left out of what is published (tokens); zod still refuses unknown keys (toolsList.test.ts holds that).
  expect(schema.additionalProperties, toolName).toBeUndefined();
  expect(Object.keys(schema.properties ?? {}).sort(), toolName).toEqual(Object.keys(params).sort());
  expect((schema.required ?? []).sort(), `${toolName} required`).toEqual(
    Object.entries(params)
      .filter(([, p]) => p.required)
      .map(([key]) => key)
      .sort(),
  );
  for (const [param, want] of Object.entries(params)) {
    const got = schema.properties![param]!;
    expect(kindOf(got), `${toolName}.${param} type`).toBe(want.kind);
    if (want.enumValues) expect(got.enum, `${toolName}.${param} enum`).toEqual(want.enumValues);
    if (want.default !== undefined && !/ago|now/.test(want.default)) {
      expect(String(got.default), `${toolName}.${param} default`).toBe(want.default);
    }
  }
}

/** The transcribed expectations agree with the spec table (names, kinds, required flags, enums, defaults). */
export function expectTranscription(
  table: Map<string, SpecParam[]>,
  expected: Record<string, ExpectedParams>,
  ignore: readonly string[] = [],
): void {
  expect([...table.keys()].sort()).toEqual(Object.keys(expected).sort());
  for (const [name, params] of table) {
    const want = Object.fromEntries(Object.entries(expected[name]!).filter(([key]) => !ignore.includes(key)));
    expect(params.map((p) => p.name).sort(), name).toEqual(Object.keys(want).sort());
    for (const param of params) {
      const w = want[param.name]!;
      expect({ kind: param.kind, required: param.required }, `${name}.${param.name}`).toEqual({
        kind: w.kind,
        required: w.required,
      });
      if (param.enumValues) expect(w.enumValues, `${name}.${param.name} enum`).toEqual(param.enumValues);
      expect(w.default, `${name}.${param.name} default`).toBe(param.default);
    }
  }
}
