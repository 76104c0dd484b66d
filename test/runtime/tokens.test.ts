// The one token measure (runtime/tokens.ts): what a model receives of a tool list (name, title, description,
// input schema) plus the instructions, in o200k tokens; and the tokenizer is never loaded by a server start.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { toolListCost, toolListTokensWithOutputSchemas } from '../../src/runtime/tokens.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PLAIN = { disallowedSpecial: new Set<string>() };

const entry = {
  name: 'Svc.ListThings',
  title: 'List things',
  description: 'Things, newest first.',
  inputSchema: { type: 'object', properties: { cursor: { type: 'string' } } },
};

describe('toolListCost', () => {
  it('counts the entries as one JSON array of name, title, description and inputSchema, plus the instructions', async () => {
    const cost = await toolListCost([entry], 'Svc: start with Svc.ListThings.');
    expect(cost.tools).toBe(countTokens(JSON.stringify([entry]), PLAIN));
    expect(cost.instructions).toBe(countTokens('Svc: start with Svc.ListThings.', PLAIN));
    expect(cost.total).toBe(cost.tools + cost.instructions);
  });

  it('does not count what does not reach the model (annotations, anything else in an entry)', async () => {
    const plain = await toolListCost([entry]);
    const annotated = await toolListCost([
      { ...entry, annotations: { readOnlyHint: true }, _meta: { x: 1 } } as typeof entry,
    ]);
    expect(annotated).toEqual(plain);
    expect(plain.instructions).toBe(0);
  });

  it('counts the fields in one order, so the same entry always costs the same', async () => {
    const reordered = {
      inputSchema: entry.inputSchema,
      description: entry.description,
      title: entry.title,
      name: entry.name,
    };
    expect(await toolListCost([reordered])).toEqual(await toolListCost([entry]));
  });

  it('takes special-token strings as plain text instead of throwing', async () => {
    const cost = await toolListCost([{ ...entry, description: 'Ends at <|endoftext|>.' }], '<|endoftext|>');
    expect(cost.instructions).toBeGreaterThan(1);
  });
});

describe('toolListTokensWithOutputSchemas', () => {
  it('counts the same array with each outputSchema, which toolListCost leaves out', async () => {
    const outputSchema = { type: 'object', properties: { things: { type: 'array' } } };
    const withSchema = { ...entry, outputSchema };
    expect((await toolListCost([withSchema])).tools).toBe((await toolListCost([entry])).tools);
    expect(await toolListTokensWithOutputSchemas([withSchema])).toBe(
      countTokens(JSON.stringify([withSchema]), PLAIN),
    );
    // An entry without one costs what toolListCost counts for it.
    expect(await toolListTokensWithOutputSchemas([entry])).toBe((await toolListCost([entry])).tools);
  });
});

describe('the tokenizer', () => {
  it('is imported statically by no module of src/: tokens.ts loads it on first use, so a server start never does', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const item of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, item.name);
        if (item.isDirectory()) walk(path);
        else if (path.endsWith('.ts')) files.push(path);
      }
    };
    walk(join(ROOT, 'src'));
    const staticImport = /^\s*import\s[^;]*?from\s+['"]gpt-tokenizer[^'"]*['"]/m;
    const dynamicImport = /\bimport\(\s*['"]gpt-tokenizer[^'"]*['"]\s*\)/;
    const offenders = files.filter((file) => staticImport.test(readFileSync(file, 'utf8')));
    expect(offenders.map((file) => relative(ROOT, file))).toEqual([]);
    const loaders = files.filter((file) => dynamicImport.test(readFileSync(file, 'utf8')));
    expect(loaders.map((file) => relative(ROOT, file)).sort()).toEqual(
      expect.arrayContaining(['src/runtime/tokens.ts']),
    );
  });
});
