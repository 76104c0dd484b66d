// The README's tool list is generated from the code; this fails when it is stale (fix: `npm run docs`).

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderToolList, TOOLS_END, TOOLS_START } from '../../src/cli/toolList.js';
import { SERVICES } from '../../src/services/registry.js';

describe('README', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('starts with the two quick-start commands', () => {
    const quickStart = readme.slice(readme.indexOf('## Quick start'));
    expect(quickStart).toMatch(/npm start/);
    expect(quickStart).toMatch(/npm test/);
    expect(readme.indexOf('npm start')).toBeLessThan(readme.indexOf('## Using it'));
  });

  it('lists exactly the tools the code serves (run `npm run docs` to refresh)', () => {
    const section = readme
      .slice(readme.indexOf(TOOLS_START) + TOOLS_START.length, readme.indexOf(TOOLS_END))
      .trim();
    expect(section).toBe(renderToolList(SERVICES.map((service) => service.runtimeFromEnv({}))));
  });

  it('documents every environment variable the code reads', () => {
    const names = new Set<string>();
    for (const file of readdirSync(new URL('../../src', import.meta.url), {
      recursive: true,
      encoding: 'utf8',
    })) {
      if (!file.endsWith('.ts')) continue;
      const source = readFileSync(new URL(`../../src/${file}`, import.meta.url), 'utf8');
      for (const match of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|_ENV = '([A-Z][A-Z0-9_]+)'/g)) {
        names.add((match[1] ?? match[2])!);
      }
    }
    expect(names.size).toBeGreaterThan(5);
    for (const name of names) expect(readme, name).toContain(`\`${name}\``);
  });
});
