// The tools/list entries the built program reads instead of making them at start (src/runtime/toolset.ts,
// PREBUILT_TOOL_LIST): written by `npm run build` (scripts/build.mjs) beside the bundle, from the same sources in
// the same build, so the two cannot disagree. test/e2e/bundle.test.ts compares the built program's tools/list with
// the one made from the sources.

import { writeFileSync } from 'node:fs';
import { buildToolSet } from '../runtime/toolset.js';
import { SERVICES } from '../services/registry.js';

export function writePrebuiltToolList(file: string): void {
  // What tools/list shows does not depend on credentials (test/inventory/toolsList.test.ts builds it the same way).
  const runtimes = SERVICES.map((service) =>
    service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' }),
  );
  const { tools } = buildToolSet(runtimes, { nameStyle: 'dotted' });
  writeFileSync(
    file,
    JSON.stringify(Object.fromEntries(tools.map((tool) => [tool.specName, tool.listEntry]))),
  );
}
