// The OAuth scope each StoreApi tool's upstream endpoint requires, so a connection asks for exactly what the
// enabled tools need. Read from each tool's operation (endpoints.ts, where the scopes are sourced), not listed
// again here. RetrieveUserIdAndScopes needs none, so its entry is undefined.

import { STORE_TOOL_LIST } from './tools/index.js';

export const STORE_TOOL_SCOPES: Readonly<Record<string, string | undefined>> = Object.fromEntries(
  STORE_TOOL_LIST.map((tool) => [tool.name, tool.operation.scope]),
);
