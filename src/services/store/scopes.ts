// The OAuth scope each StoreApi tool's upstream endpoint requires, so a connection asks for exactly what the
// enabled tools need. Read from each tool's operation (endpoints.ts, where the scopes are sourced; the built
// program has them in its tool list), not listed again here. RetrieveUserIdAndScopes needs none: undefined.

import { STORE_TOOL_ENTRIES } from './toolEntries.js';

export const STORE_TOOL_SCOPES: Readonly<Record<string, string | undefined>> = Object.fromEntries(
  STORE_TOOL_ENTRIES.map((tool) => [tool.name, tool.scope]),
);
