// Reads a tool table of a spec (../shared/spec/*.md) into {tool -> parameters}, so inventory tests can check the
// code against the spec's own text when it is present beside the repository.

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface SpecParam {
  name: string;
  required: boolean;
  kind: 'string' | 'boolean' | 'integer' | 'array' | 'enum';
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
  if (cell.trim() === 'none') return [];
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

/** Rows of the first markdown table whose header starts with `| Tool |`. */
export function readToolTable(file: string): Map<string, SpecParam[]> {
  const lines = readFileSync(specPath(file), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith('| Tool |'));
  const tools = new Map<string, SpecParam[]>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').map((cell) => cell.trim());
    tools.set(cells[1]!, parseParams(cells[2]!));
  }
  return tools;
}
