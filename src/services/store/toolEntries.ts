// The StoreApi tools as the service lists them (runtime/prebuiltTools.ts): the definitions from the sources, or in
// the built program their summaries, which load toolDefinitions.ts on the first call. A module of its own because
// the scope table (scopes.ts) reads it too, and must not import the service (service -> OAuth -> scopes).

import { serviceTools } from '../../runtime/prebuiltTools.js';
import type { ToolEntry } from '../../runtime/tool.js';
import type { StoreContext } from './tools/shared.js';

export const STORE_PREFIX = 'StoreApi';

export const STORE_TOOL_ENTRIES: readonly ToolEntry<StoreContext>[] = await serviceTools(
  STORE_PREFIX,
  async () => (await import('./toolDefinitions.js')).STORE_TOOLS,
);
