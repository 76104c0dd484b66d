// The result budget end to end: `serve store --sandbox --max-result-tokens 1000` as an MCP client launches it
// (the CLI over stdio, the SDK's client). A default ListStoreRecords of the sandbox's deals is cut to whole
// records within 1,000 o200k tokens, and the call its note suggests (a smaller page_size from the same place)
// followed by the cursor that call returns reads on without skipping or repeating a record.

import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectCli } from './harness.js';

// biome-ignore lint/suspicious/noExplicitAny: results are asserted field by field, not typed.
type Structured = any;

const BUDGET = 1_000;
let mcp: Connected;
let baseId: string;

const idsOf = (structured: Structured) => (structured.records as { id: string }[]).map((record) => record.id);

async function listDeals(args: Record<string, unknown> = {}) {
  const result = await mcp.call('StoreApi.ListStoreRecords', {
    base_id: baseId,
    table_id_or_name: 'Deals',
    ...args,
  });
  if (result.isError) throw new Error(result.text);
  expect(countTokens(result.text, { disallowedSpecial: new Set() })).toBeLessThanOrEqual(BUDGET);
  expect(JSON.parse(result.text)).toEqual(result.structured);
  return result.structured as Structured;
}

beforeAll(async () => {
  mcp = await connectCli([
    'serve',
    'store',
    '--sandbox',
    '--data-dir',
    ':memory:',
    '--max-result-tokens',
    String(BUDGET),
  ]);
  const bases = await mcp.call('StoreApi.ListStoreBases');
  baseId = (bases.structured.bases as { id: string; name: string }[]).find((b) => b.name === 'Sales CRM')!.id;
}, 60_000);
afterAll(async () => {
  await mcp?.close();
});

describe('serve --max-result-tokens 1000 against the sandbox', () => {
  it('cuts a default deals page to whole records and says how to read on; following it skips nothing', async () => {
    const cut = await listDeals();
    const k = cut.records.length;
    expect(k).toBeGreaterThan(0);
    // The order to expect: the first 2k deals with one small field each, a result within the budget.
    const truth = await listDeals({ page_size: 2 * k, specific_fields: 'Name' });
    expect(truth.truncated).toBeUndefined();
    const order = idsOf(truth);
    expect(order).toHaveLength(2 * k);

    expect(cut.truncated.lists).toEqual([{ path: 'records', returned: k, total: 100 }]);
    expect(cut.offset).toBeUndefined();
    expect(idsOf(cut)).toEqual(order.slice(0, k));
    expect(cut.truncated.next).toContain(`page_size: ${k}`);
    const { name, arguments: next } = cut.truncated.next_call;
    expect(name).toBe('StoreApi.ListStoreRecords');
    expect(next).toEqual({ base_id: baseId, table_id_or_name: 'Deals', page_size: k });

    // The suggested call: the same records, now whole, with the cursor to the ones after them.
    const first = await listDeals(next);
    expect(first.truncated).toBeUndefined();
    expect(idsOf(first)).toEqual(order.slice(0, k));
    expect(typeof first.offset).toBe('string');

    const second = await listDeals({ ...next, pagination_offset: first.offset });
    expect(idsOf(second)).toEqual(order.slice(k, 2 * k));
  });

  it('leaves results within the budget as they are', async () => {
    const small = await listDeals({ page_size: 3, specific_fields: 'Name' });
    expect(small.truncated).toBeUndefined();
    expect(small.records).toHaveLength(3);
    expect(typeof small.offset).toBe('string');
  });
});
