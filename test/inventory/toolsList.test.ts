// What models see, committed: tools/list (names, titles, descriptions, input schemas, annotations) for all 126
// tools in the spec's dotted names, and the server instructions, built the way the server builds them. Any change
// to them shows in review as a diff of __snapshots__/toolsList.json. To accept an intended change, run
// `npx vitest run -u test/inventory/toolsList.test.ts` and commit the updated file with the change.

import { describe, expect, it } from 'vitest';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { SERVICES } from '../../src/services/registry.js';

// The runtimes of `serve` with no credentials: what tools/list shows does not depend on them.
const runtimes = SERVICES.map((service) =>
  service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' }),
);

describe('tools/list', () => {
  const toolSet = buildToolSet(runtimes, { nameStyle: 'dotted' });

  it('lists all 126 tools', () => {
    expect(toolSet.listEntries).toHaveLength(126);
  });

  it('matches the committed snapshot (accept a change with `npx vitest run -u`)', async () => {
    const seen = { instructions: toolSet.instructions, tools: toolSet.listEntries };
    await expect(`${JSON.stringify(seen, null, 2)}\n`).toMatchFileSnapshot('__snapshots__/toolsList.json');
  });
});
