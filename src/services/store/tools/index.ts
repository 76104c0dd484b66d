// Every StoreApi tool, by area, in the order tools/list publishes them (docs/tools.md and the inventory tests
// read that order). The service publishes this list; the scope table (scopes.ts) reads each tool's operation.

import { BULK_TABLE_TOOLS } from './bulkTables.js';
import { COMPLIANCE_TOOLS } from './compliance.js';
import { ENTERPRISE_TOOLS } from './enterprise.js';
import { IDENTITY_TOOLS } from './identity.js';
import { RECORD_TOOLS } from './records.js';
import { SCHEMA_TOOLS } from './schema.js';
import { SCIM_TOOLS } from './scim.js';
import type { StoreTool } from './shared.js';
import { SHARING_TOOLS } from './sharing.js';
import { WEBHOOK_TOOLS } from './webhooks.js';
import { WORKSPACE_TOOLS } from './workspaces.js';

export const STORE_TOOL_LIST: readonly StoreTool[] = [
  ...RECORD_TOOLS,
  ...SCHEMA_TOOLS,
  ...WEBHOOK_TOOLS,
  ...IDENTITY_TOOLS,
  ...SCIM_TOOLS,
  ...SHARING_TOOLS,
  // Both areas live under the enterprise account's path and have always been listed as one, in the order of
  // their upstream paths (compliance's audit logs and change events come between the account and its
  // descendants, its exports before the moves and users).
  ...inPathOrder([...ENTERPRISE_TOOLS, ...COMPLIANCE_TOOLS]),
  ...WORKSPACE_TOOLS,
  ...BULK_TABLE_TOOLS,
];

/** Sorted by upstream path, then method (a stable sort, so equal keys keep their order). */
function inPathOrder(tools: readonly StoreTool[]): StoreTool[] {
  const key = (tool: StoreTool) => `${tool.operation.path} ${tool.operation.method}`;
  return [...tools].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
