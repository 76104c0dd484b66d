// `npm run docs`: regenerates the README's tool list from the code.

import { readFileSync, writeFileSync } from 'node:fs';
import { SERVICES } from '../services/registry.js';
import { renderToolList, replaceToolSection } from './toolList.js';

const runtimes = SERVICES.map((service) => service.runtimeFromEnv({}));
const readme = readFileSync('README.md', 'utf8');
const updated = replaceToolSection(readme, renderToolList(runtimes));
if (updated !== readme) writeFileSync('README.md', updated);
process.stderr.write(
  updated === readme ? 'README.md tool list is up to date\n' : 'README.md tool list updated\n',
);
