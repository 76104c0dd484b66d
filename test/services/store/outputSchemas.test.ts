// The StoreApi's output schema table as assembled from its two parts (outputSchemas/data.ts, outputSchemas/admin.ts):
// one entry for each of the store's tools, none for anything else, so withOutputSchemas accepts it at start-up.

import { describe, expect, it } from 'vitest';
import { withOutputSchemas } from '../../../src/runtime/outputSchemas.js';
import { STORE_OUTPUT_SCHEMAS } from '../../../src/services/store/outputSchemas.js';
import { STORE_TOOL_LIST } from '../../../src/services/store/tools/index.js';

describe('STORE_OUTPUT_SCHEMAS', () => {
  it('has exactly one entry per StoreApi tool', () => {
    expect(Object.keys(STORE_OUTPUT_SCHEMAS).sort()).toEqual(STORE_TOOL_LIST.map((tool) => tool.name).sort());
  });

  it('is accepted by withOutputSchemas, which attaches each tool its entry', () => {
    const tools = withOutputSchemas(STORE_TOOL_LIST, STORE_OUTPUT_SCHEMAS);
    for (const tool of tools) {
      expect(tool.output, tool.name).toBe(
        STORE_OUTPUT_SCHEMAS[tool.name as keyof typeof STORE_OUTPUT_SCHEMAS],
      );
    }
  });
});
