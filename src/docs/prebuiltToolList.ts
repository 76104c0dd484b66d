// The tool list the built program starts from (src/runtime/prebuiltTools.ts): written by `npm run build`
// (scripts/build.mjs) beside the bundle, from the same sources in the same build, so the two cannot disagree.
// test/e2e/bundle.test.ts compares the built program's tools/list with the one made from the sources.

import { writeFileSync } from 'node:fs';
import { type PrebuiltTool, prebuiltTool } from '../runtime/prebuiltTools.js';
import type { ToolDefinition } from '../runtime/tool.js';
import { buildToolSet } from '../runtime/toolset.js';
import { SERVICES } from '../services/registry.js';

export async function writePrebuiltToolList(file: string): Promise<void> {
  // What tools/list shows does not depend on credentials (test/inventory/toolsList.test.ts builds it the same way).
  const runtimes = SERVICES.map((service) =>
    service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' }),
  );
  const { tools } = buildToolSet(runtimes, { nameStyle: 'dotted' });
  const entries: [string, PrebuiltTool][] = [];
  for (const tool of tools) {
    // The generator runs without a prebuilt list, so these are the definitions themselves, loaded already.
    const definition: ToolDefinition<unknown> = await tool.load();
    entries.push([tool.specName, prebuiltTool(definition, tool.listEntry)]);
  }
  writeFileSync(file, JSON.stringify(Object.fromEntries(entries)));
}
