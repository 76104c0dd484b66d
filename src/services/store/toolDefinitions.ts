// The StoreApi tools' definitions as served: the rows (tools/index.ts) with their outcome checks and output schemas.
// The heaviest module of a start: toolEntries.ts loads it on the first call in the built program.

import { withOutputSchemas } from '../../runtime/outputSchemas.js';
import { type ToolDefinition, withOutcomeChecks } from '../../runtime/tool.js';
import { STORE_OUTCOME_CHECKS } from './outcomeChecks.js';
import { STORE_OUTPUT_SCHEMAS } from './outputSchemas.js';
import { STORE_TOOL_LIST } from './tools/index.js';
import type { StoreContext } from './tools/shared.js';

export const STORE_TOOLS: readonly ToolDefinition<StoreContext>[] = withOutputSchemas(
  withOutcomeChecks(STORE_TOOL_LIST, STORE_OUTCOME_CHECKS),
  STORE_OUTPUT_SCHEMAS,
);
