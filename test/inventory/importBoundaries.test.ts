// The layers hold by check: biome.json's import-boundary rules (noRestrictedImports per folder) refuse an import
// across a layer. Each rule is shown firing on a deliberate violation, and staying quiet on the imports the
// layer may make, by linting small files laid out like src/ in a temporary folder with this project's biome.json.
// (`npm test` lints the real tree with the same rules.)

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const BIOME = join(ROOT, 'node_modules/.bin/biome');

/** File -> its source; each line that must be refused ends with `// refused`. */
const FILES: Record<string, string> = {
  'src/runtime/layer.ts': `
import { SERVICES } from '../services/registry.js'; // refused
import type { StoreDb } from '../services/store/emulator/db.js'; // refused
import { main } from '../cli/main.js'; // refused
import { rankDocuments } from '../text/issueSearch.js';
import { ToolError } from './errors.js';
export const all = [SERVICES, main, rankDocuments, ToolError] as unknown as StoreDb;
`,
  'src/emulation/layer.ts': `
import { ToolError } from '../runtime/errors.js'; // refused
import { SERVICES } from '../services/registry.js'; // refused
import { formatZodIssues } from '../text/zodIssues.js';
import { ok } from './result.js';
export const all = [ToolError, SERVICES, formatZodIssues, ok];
`,
  'src/services/store/emulator/routes/layer.ts': `
import type { ToolDefinition } from '../../../../runtime/tool.js'; // refused
import type { Tool } from '@modelcontextprotocol/server'; // refused
import { route } from '../../../../emulation/operations.js';
import { formatZodIssues } from '../../../../text/zodIssues.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import { STORE_BODIES } from '../../schemas/index.js';
import { StoreDb } from '../db.js';
export type T = [ToolDefinition<unknown>, Tool];
export const all = [route, formatZodIssues, STORE_OPERATIONS, STORE_BODIES, StoreDb];
`,
  'src/services/messaging/emulator/layer.ts': `
import { invalidArguments } from '../../../runtime/errors.js'; // refused
import { flattenIssues } from './issues.js';
export const all = [invalidArguments, flattenIssues];
`,
  'src/services/store/tools/layer.ts': `
import { startStoreEmulator } from '../emulator/app.js'; // refused
import { endpointTool } from '../../../runtime/endpoint.js';
import { STORE_BODIES } from '../schemas/index.js';
export const later = () => import('../emulator/app.js'); // refused
export const all = [startStoreEmulator, endpointTool, STORE_BODIES];
`,
  'src/services/messaging/layer.ts': `
import * as emulator from './emulator/app.js'; // refused
import { createApp } from '../../emulation/emulatorApp.js';
export const all = [emulator, createApp];
`,
  // The service entry alone may load its emulator (sandbox mode), and the registry lists the entries.
  'src/services/store/service.ts': `
import { STORE_TOOLS } from './tools/index.js';
export const start = () => import('./emulator/app.js');
export const all = [STORE_TOOLS];
`,
  'src/services/registry.ts': `
import { storeService } from './store/service.js';
export const start = () => import('./store/emulator/app.js');
export const all = [storeService];
`,
  'src/text/search/layer.ts': `
import { ToolError } from '../../runtime/errors.js'; // refused
import { route } from '../../emulation/operations.js'; // refused
import { SERVICES } from '../../services/registry.js'; // refused
import { main } from '../../cli/main.js'; // refused
import { distance } from 'fastest-levenshtein';
import { fuzzyScore } from '../fuzzy.js';
import { stem } from './analyzer.js';
export const all = [ToolError, route, SERVICES, main, distance, fuzzyScore, stem];
`,
};

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string; start: { line: number } };
}

let folder: string;
let diagnostics: Diagnostic[];

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'layers-'));
  copyFileSync(join(ROOT, 'biome.json'), join(folder, 'biome.json'));
  for (const [path, source] of Object.entries(FILES)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), source.trimStart());
  }
  const run = spawnSync(
    BIOME,
    ['lint', '--only=style/noRestrictedImports', '--reporter=json', '--max-diagnostics=none', 'src'],
    { cwd: folder, encoding: 'utf8' },
  );
  const report = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
  diagnostics = report.diagnostics;
});
afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** The lines of `path` that must be refused, 1-based. */
function refusedLines(path: string): number[] {
  return FILES[path]!.trimStart()
    .split('\n')
    .flatMap((line, index) => (line.endsWith('// refused') ? [index + 1] : []));
}

describe('import-boundary rules', () => {
  it.each(Object.keys(FILES))('%s: refused exactly on the lines that cross a layer', (path) => {
    const found = diagnostics.filter((d) => d.location.path.replaceAll('\\', '/').endsWith(path));
    expect(found.every((d) => d.category === 'lint/style/noRestrictedImports')).toBe(true);
    expect(found.map((d) => d.location.start.line).sort((a, b) => a - b)).toEqual(refusedLines(path));
  });

  it('say why, per layer', () => {
    const messages = new Set(diagnostics.map((d) => d.message));
    expect([...messages].every((message) => message.length > 40)).toBe(true);
    expect(
      diagnostics.find((d) => d.location.path.endsWith('src/services/store/tools/layer.ts'))?.message,
    ).toMatch(/^No server imports its emulator/);
    expect(diagnostics.find((d) => d.location.path.endsWith('src/text/search/layer.ts'))?.message).toMatch(
      /^src\/text holds pure algorithms/,
    );
  });
});
