// The tool list the build writes beside the bundle (scripts/build.mjs, src/docs/prebuiltToolList.ts): each tool's
// tools/list entry and its summary, by spec name. The built program starts from it alone: it lists, selects and
// searches tools without loading the modules that define them (building their zod schemas and tables was about a
// sixth of a `serve store` start), and loads a service's tool module on the first call of one of its tools. From
// the sources (tsx, tests) there is no such file, and the services load their definitions as they start.

import { readFileSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/server';
import type { LazyToolDefinition, ToolDefinition, ToolEntry, ToolSummary } from './tool.js';

export const PREBUILT_TOOL_LIST = 'tool-list.json';

/** One tool as the build wrote it: its tools/list entry (dotted names) and what ToolSummary adds to it. */
export interface PrebuiltTool extends Omit<ToolSummary, 'name' | 'description'> {
  listEntry: Tool;
}

let prebuilt: ReadonlyMap<string, PrebuiltTool> | null | undefined;

function prebuiltTools(): ReadonlyMap<string, PrebuiltTool> | null {
  if (prebuilt === undefined) {
    try {
      const file = readFileSync(new URL(`./${PREBUILT_TOOL_LIST}`, import.meta.url), 'utf8');
      prebuilt = new Map(Object.entries(JSON.parse(file) as Record<string, PrebuiltTool>));
    } catch {
      prebuilt = null;
    }
  }
  return prebuilt;
}

/** The prebuilt tools/list entry of the tool `specName` (`StoreApi.ListStoreRecords`), when the build wrote one. */
export function prebuiltListEntry(specName: string): Tool | undefined {
  return prebuiltTools()?.get(specName)?.listEntry;
}

/** The file's record of one tool, from its definition (the build's side). */
export function prebuiltTool(definition: ToolDefinition<unknown>, listEntry: Tool): PrebuiltTool {
  return {
    listEntry,
    title: definition.title,
    hints: definition.hints,
    ...(definition.scope !== undefined ? { scope: definition.scope } : {}),
    ...(definition.job ? { job: { statusTool: definition.job.statusTool } } : {}),
  };
}

/**
 * A service's tools: in the built program, summaries from the prebuilt list that load the definitions (`load`, the
 * service's tool module, imported once on the first call of any of them); from the sources, the definitions.
 */
export async function serviceTools<Ctx>(
  prefix: string,
  load: () => Promise<readonly ToolDefinition<Ctx>[]>,
): Promise<readonly ToolEntry<Ctx>[]> {
  const listed = [...(prebuiltTools() ?? [])].filter(([specName]) => specName.startsWith(`${prefix}.`));
  if (listed.length === 0) return load();
  let definitions: Promise<ReadonlyMap<string, ToolDefinition<Ctx>>> | undefined;
  const definitionsByName = () =>
    (definitions ??= load().then((tools) => new Map(tools.map((tool) => [tool.name, tool]))));
  return listed.map(([specName, tool]): LazyToolDefinition<Ctx> => {
    const name = specName.slice(prefix.length + 1);
    return {
      name,
      title: tool.title,
      description: tool.listEntry.description ?? '',
      hints: tool.hints,
      ...(tool.scope !== undefined ? { scope: tool.scope } : {}),
      ...(tool.job ? { job: tool.job } : {}),
      async load() {
        const definition = (await definitionsByName()).get(name);
        // The list and the modules come from the same build; a name missing from one is a broken install.
        if (!definition)
          throw new Error(`${specName} is in ${PREBUILT_TOOL_LIST} but not in its service's tools.`);
        return definition;
      },
    };
  });
}
