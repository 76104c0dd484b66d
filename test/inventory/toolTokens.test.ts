// What the tool list costs a model, committed: o200k tokens of every service's tools/list (names, titles,
// descriptions, input schemas) and instructions, and of all 126 tools together, counted by src/runtime/tokens.ts
// (the count `npm run bench` and `switchboard toolsets` print). Beside it, `listWithOutputSchemas`: the same list
// with the output schemas of the tools that have one (issue 15), which clients receive but do not show a model;
// it is reported, never counted against the budget. A change shows in review as a diff of
// __snapshots__/toolTokens.json; accept an intended one with `npx vitest run -u test/inventory/toolTokens.test.ts`.
// Whatever the snapshot says, all 126 tools and their instructions stay within 11,000 tokens (issue 13).

import { describe, expect, it } from 'vitest';
import { toolListCost, toolListTokensWithOutputSchemas } from '../../src/runtime/tokens.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { SERVICES } from '../../src/services/registry.js';

/** The budget of issue 13 for all 126 tools plus the server instructions. */
const BUDGET = 11_000;

// The runtimes of `serve` with no credentials: what tools/list shows does not depend on them.
const runtimes = SERVICES.map((service) =>
  service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' }),
);

async function costs() {
  const services: Record<
    string,
    { tools: number; listTokens: number; instructions: number; total: number; listWithOutputSchemas: number }
  > = {};
  for (const runtime of runtimes) {
    const toolSet = buildToolSet([runtime], { nameStyle: 'dotted' });
    const cost = await toolListCost(toolSet.listEntries, toolSet.instructions);
    services[runtime.definition.id] = {
      tools: toolSet.tools.length,
      listTokens: cost.tools,
      instructions: cost.instructions,
      total: cost.total,
      listWithOutputSchemas: await toolListTokensWithOutputSchemas(toolSet.listEntries),
    };
  }
  const all = buildToolSet(runtimes, { nameStyle: 'dotted' });
  const cost = await toolListCost(all.listEntries, all.instructions);
  return {
    services,
    all: {
      tools: all.tools.length,
      listTokens: cost.tools,
      instructions: cost.instructions,
      total: cost.total,
      listWithOutputSchemas: await toolListTokensWithOutputSchemas(all.listEntries),
    },
  };
}

describe('tool list tokens (o200k)', () => {
  // Measured once for the tests below: building the 126 entries and loading the tokenizer take a moment.
  const measured = costs();

  it('per service and for all 126 tools, as committed (accept a change with `npx vitest run -u`)', async () => {
    await expect(`${JSON.stringify(await measured, null, 2)}\n`).toMatchFileSnapshot(
      '__snapshots__/toolTokens.json',
    );
  });

  it(`all 126 tools plus instructions cost at most ${BUDGET} tokens`, async () => {
    const { all } = await measured;
    expect(all.tools).toBe(126);
    expect(all.total).toBeLessThanOrEqual(BUDGET);
  });

  it('the underscored names cost no more than a few tokens over the dotted ones', async () => {
    // Same definitions, other separator: a budget kept in one style is kept in the other.
    const dotted = buildToolSet(runtimes, { nameStyle: 'dotted' });
    const underscored = buildToolSet(runtimes, { nameStyle: 'underscore' });
    const a = await toolListCost(dotted.listEntries, dotted.instructions);
    const b = await toolListCost(underscored.listEntries, underscored.instructions);
    expect(Math.abs(a.total - b.total)).toBeLessThan(200);
    expect(b.total).toBeLessThanOrEqual(BUDGET);
  });
});
