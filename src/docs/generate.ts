// `npm run docs`: regenerates the tool list in docs/tools.md and the upstream coverage in docs/coverage.md from
// the code.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { SERVICES } from '../services/registry.js';
import { COVERAGE_FILE, renderCoverage, type ServiceCoverage, serviceCoverage } from './coverage.js';
import { renderToolList, replaceToolSection } from './toolList.js';

const runtimes = SERVICES.map((service) => service.runtimeFromEnv({}));
const TOOLS_FILE = 'docs/tools.md';
const current = readFileSync(TOOLS_FILE, 'utf8');
const updated = replaceToolSection(current, renderToolList(runtimes));
if (updated !== current) writeFileSync(TOOLS_FILE, updated);
process.stderr.write(updated === current ? `${TOOLS_FILE} is up to date\n` : `${TOOLS_FILE} updated\n`);

const coverage = (await Promise.all(runtimes.map(serviceCoverage))).filter(
  (service): service is ServiceCoverage => service !== undefined,
);
const coverageText = renderCoverage(coverage);
const committed = existsSync(COVERAGE_FILE) ? readFileSync(COVERAGE_FILE, 'utf8') : '';
if (coverageText !== committed) writeFileSync(COVERAGE_FILE, coverageText);
process.stderr.write(
  coverageText === committed ? `${COVERAGE_FILE} is up to date\n` : `${COVERAGE_FILE} updated\n`,
);
