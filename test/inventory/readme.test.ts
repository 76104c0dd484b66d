// The README's first screen and the documentation it links to: the tool list in docs/tools.md is generated from
// the code and fails here when stale (fix: `npm run docs`); every environment variable the code reads is
// documented; every relative link points at a file that exists.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderToolList, TOOLS_END, TOOLS_START } from '../../src/docs/toolList.js';
import { SERVICES } from '../../src/services/registry.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(resolve(root, file), 'utf8');
const docFiles = ['README.md', ...readdirSync(resolve(root, 'docs')).map((name) => `docs/${name}`)].filter(
  (file) => file.endsWith('.md'),
);

describe('README', () => {
  const readme = read('README.md');

  it('starts with install, the sandbox, a check, a desktop client and the test command', () => {
    const quickStart = readme.slice(readme.indexOf('## Quick start'));
    expect(quickStart).toMatch(/npm install\nnpm start/);
    expect(quickStart).toMatch(/npm test/);
    expect(quickStart).toMatch(
      /npx -y @modelcontextprotocol\/inspector --cli http:\/\/127\.0\.0\.1:8787\/mcp/,
    );
    expect(readme.indexOf('npm start')).toBeLessThan(readme.indexOf('## A desktop client'));
    expect(readme).toMatch(/"args": \[".*dist\/cli\/main\.js", "serve", "all", "--sandbox"\]/);
    // The first screen stays a first screen: details live in docs/.
    expect(readme.split('\n').length).toBeLessThan(120);
  });

  it('docs/tools.md lists exactly the tools the code serves (run `npm run docs` to refresh)', () => {
    const tools = read('docs/tools.md');
    const section = tools
      .slice(tools.indexOf(TOOLS_START) + TOOLS_START.length, tools.indexOf(TOOLS_END))
      .trim();
    expect(section).toBe(renderToolList(SERVICES.map((service) => service.runtimeFromEnv({}))));
  });

  it('documents every environment variable the code reads', () => {
    const docs = docFiles.map(read).join('\n');
    const names = new Set<string>();
    for (const file of readdirSync(resolve(root, 'src'), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const source = read(`src/${file}`);
      for (const match of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|_ENV = '([A-Z][A-Z0-9_]+)'/g)) {
        names.add((match[1] ?? match[2])!);
      }
    }
    expect(names.size).toBeGreaterThan(5);
    for (const name of names) expect(docs, name).toContain(`\`${name}\``);
  });

  it('has no relative link to a file or heading that does not exist', () => {
    for (const file of docFiles) {
      const text = read(file);
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#');
        const linked = path ? resolve(root, dirname(file), path) : resolve(root, file);
        expect(existsSync(linked), `${file} links to ${target}`).toBe(true);
        if (anchor) {
          const headings = [...read(linked.slice(root.length + 1)).matchAll(/^#+ (.+)$/gm)].map((m) =>
            m[1]!
              .toLowerCase()
              .replace(/[^\w\- ]/g, '')
              .replace(/ /g, '-'),
          );
          expect(headings, `${file} links to ${target}`).toContain(anchor);
        }
      }
    }
  });
});
