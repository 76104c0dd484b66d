// Every tool whose calls are not safe to repeat says how to check whether a failed call took effect, so an
// `outcome_unknown` error can name the tool that reads it back (or say why nothing can).

import { describe, expect, it } from 'vitest';
import type { ServiceDefinition } from '../../src/runtime/tool.js';
import { loadDefinition, outcomeCheckHint, withOutcomeChecks } from '../../src/runtime/tool.js';
import { ISSUEDESK } from '../../src/services/issuedesk/service.js';
import { MESSAGING } from '../../src/services/messaging/service.js';
import { STORE } from '../../src/services/store/service.js';
import { STORE_TOOLS } from '../../src/services/store/toolDefinitions.js';

const SERVICES = [ISSUEDESK, MESSAGING, STORE] as ServiceDefinition<unknown>[];
/** Tools annotated idempotent whose requests are still not repeated (an upsert may create records). */
const NOT_REPEATED_DESPITE_HINT = ['StoreApi.UpdateStoreRecords', 'StoreApi.BulkUpdateStore'];

describe('outcome checks', () => {
  for (const service of SERVICES) {
    it(`${service.prefix}: each non-idempotent write has one, naming a read-only tool of the service`, async () => {
      const tools = await Promise.all(service.tools.map(loadDefinition));
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      const needing = tools.filter(
        (tool) =>
          (!tool.hints.readOnlyHint && !tool.hints.idempotentHint) ||
          NOT_REPEATED_DESPITE_HINT.includes(`${service.prefix}.${tool.name}`),
      );
      expect(needing.length).toBeGreaterThan(0);
      for (const tool of needing) {
        const check = tool.outcomeCheck;
        expect(check, tool.name).toBeDefined();
        expect(check!.how.length, tool.name).toBeGreaterThan(10);
        if (check!.tool !== undefined) {
          expect(byName.get(check!.tool)?.hints.readOnlyHint, `${tool.name} -> ${check!.tool}`).toBe(true);
        }
      }
    });
  }

  it('the hint names the checking tool and the tool itself, and says not to repeat blindly', () => {
    const create = STORE_TOOLS.find((tool) => tool.name === 'CreateStoreRecords')!;
    const hint = outcomeCheckHint('StoreApi.CreateStoreRecords', create.outcomeCheck!);
    expect(hint).toMatch(/^StoreApi\.CreateStoreRecords may have taken effect/);
    expect(hint).toContain('First check with StoreApi.ListStoreRecords');
    expect(hint).toMatch(/could do it twice/);
  });

  it('a table naming an unknown tool is refused at start-up', () => {
    expect(() => withOutcomeChecks(STORE_TOOLS, { NoSuchTool: { how: 'x' } })).toThrow(/NoSuchTool/);
    expect(() =>
      withOutcomeChecks(STORE_TOOLS, { CreateStoreRecords: { tool: 'ListRecords', how: 'x' } }),
    ).toThrow(/ListRecords/);
  });
});
