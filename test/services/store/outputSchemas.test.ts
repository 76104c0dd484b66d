// The StoreApi's output schema table as assembled from its two parts (outputSchemas/data.ts, outputSchemas/admin.ts):
// one entry for each of the store's tools and none for anything else, and what withOutputSchemas attaches to each
// tool is its own entry, built on first use.

import { describe, expect, it } from 'vitest';
import { withOutputSchemas } from '../../../src/runtime/outputSchemas.js';
import { STORE_OUTPUT_SCHEMAS } from '../../../src/services/store/outputSchemas.js';
import { STORE_TOOL_LIST } from '../../../src/services/store/tools/index.js';

describe('STORE_OUTPUT_SCHEMAS', () => {
  it('has exactly one entry per StoreApi tool', () => {
    expect(Object.keys(STORE_OUTPUT_SCHEMAS()).sort()).toEqual(
      STORE_TOOL_LIST.map((tool) => tool.name).sort(),
    );
  });

  it('is built once, and each tool gets its own entry', () => {
    expect(STORE_OUTPUT_SCHEMAS()).toBe(STORE_OUTPUT_SCHEMAS());
    const table: Readonly<Record<string, unknown>> = STORE_OUTPUT_SCHEMAS();
    for (const tool of withOutputSchemas(STORE_TOOL_LIST, STORE_OUTPUT_SCHEMAS)) {
      expect(tool.output?.(), tool.name).toBe(table[tool.name]);
    }
  });
});
