// `npm run docs`: regenerates the tool list in docs/tools.md from the code.

import { readFileSync, writeFileSync } from 'node:fs';
import { SERVICES } from '../services/registry.js';
import { renderToolList, replaceToolSection } from './toolList.js';

const runtimes = SERVICES.map((service) => service.runtimeFromEnv({}));
const TOOLS_FILE = 'docs/tools.md';
const current = readFileSync(TOOLS_FILE, 'utf8');
const updated = replaceToolSection(current, renderToolList(runtimes));
if (updated !== current) writeFileSync(TOOLS_FILE, updated);
process.stderr.write(updated === current ? `${TOOLS_FILE} is up to date\n` : `${TOOLS_FILE} updated\n`);
