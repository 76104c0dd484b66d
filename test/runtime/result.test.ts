// The result budget (runtime/result.ts): a success result over its budget of o200k tokens is cut at item
// boundaries of its main list (found even when nested), stays valid JSON with the same JSON as text and as
// structuredContent, and says how to get the rest in the tool's own terms (paging.ts): the real tools' page-size
// and cursor arguments, read off their schemas and endpoint rows. Counts are checked with the tokenizer itself.

import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/runtime/errors.js';
import {
  checkMaxResultTokens,
  DEFAULT_MAX_RESULT_TOKENS,
  errorResult,
  type ResultContext,
  successResult,
} from '../../src/runtime/result.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { SERVICES } from '../../src/services/registry.js';

// biome-ignore lint/suspicious/noExplicitAny: results are asserted field by field, not typed.
type Structured = any;

// The real 126 tools, from an empty environment: results are shaped here without any upstream call.
const toolSet = buildToolSet(
  SERVICES.map((service) => service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' })),
);
const tool = (name: string) => {
  const found = toolSet.byName.get(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};
const tokens = (text: string) => countTokens(text, { disallowedSpecial: new Set() });

function records(n: number, notes = 30) {
  return Array.from({ length: n }, (_, i) => ({
    id: `rec${String(i).padStart(14, '0')}`,
    createdTime: '2026-01-01T00:00:00.000Z',
    fields: { Name: `Deal ${i}`, Amount: i * 125, Notes: 'Follow up on the renewal terms. '.repeat(notes) },
  }));
}

/** A result, with checks every result must pass: text and structuredContent agree, and it fits its budget. */
async function shaped(value: unknown, context: Partial<ResultContext> & { maxTokens: number }) {
  const result = await successResult(value, {
    tool: context.tool ?? tool('StoreApi.ListStoreRecords'),
    args: context.args ?? {},
    maxTokens: context.maxTokens,
  });
  const text = (result.content[0] as { text: string }).text;
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  expect(tokens(text)).toBeLessThanOrEqual(context.maxTokens);
  return { structured: result.structuredContent as Structured, text };
}

describe('results within the budget', () => {
  it('are returned unchanged, and one exactly at the budget is not cut', async () => {
    const value = { records: records(20), offset: 'itr1/rec1' };
    const exact = tokens(JSON.stringify(value));
    const { structured, text } = await shaped(value, { maxTokens: exact });
    expect(structured).toEqual(value);
    expect(text).toBe(JSON.stringify(value));
    // One token less, and it is cut.
    const cut = await shaped(value, { maxTokens: exact - 1 });
    expect(cut.structured.truncated).toBeDefined();
  });

  it('default to a budget of 20,000 tokens', async () => {
    expect(DEFAULT_MAX_RESULT_TOKENS).toBe(20_000);
    const result = await successResult({ records: records(400) });
    const text = (result.content[0] as { text: string }).text;
    expect(tokens(text)).toBeLessThanOrEqual(20_000);
    expect(tokens(text)).toBeGreaterThan(19_000);
    expect((result.structuredContent as Structured).truncated.lists[0].total).toBe(400);
  });
});

describe('results between the byte bound and the budget', () => {
  it('pass uncut when the samples show ordinary JSON well under the budget (no whole count needed)', async () => {
    // Over the 20,000-byte bound, well under 20,000 tokens.
    const value = { records: records(55) };
    const text = JSON.stringify(value);
    expect(Buffer.byteLength(text)).toBeGreaterThan(20_000);
    expect(tokens(text)).toBeLessThan(16_000);
    const result = await successResult(value);
    expect((result.content[0] as { text: string }).text).toBe(text);
  });

  it('are counted exactly, and cut, when the samples show dense text (about one token per character)', async () => {
    // Small numbers are one token each with their commas: 30,000 characters is far over 20,000 tokens, although a
    // text of ordinary JSON that long would fit.
    const value = { values: Array.from({ length: 15_000 }, (_, i) => i % 10) };
    const text = JSON.stringify(value);
    expect(tokens(text)).toBeGreaterThan(20_000);
    const result = await successResult(value);
    const cut = (result.content[0] as { text: string }).text;
    expect(tokens(cut)).toBeLessThanOrEqual(20_000);
    expect((result.structuredContent as Structured).truncated.lists[0].total).toBe(15_000);
  });
});

describe('a list over the budget', () => {
  it('is cut to as many whole items as fit, keeping them in order, with valid JSON', async () => {
    const all = records(100);
    const { structured } = await shaped({ records: all }, { maxTokens: 2_000 });
    const kept = structured.records as unknown[];
    expect(kept.length).toBeGreaterThan(3);
    expect(kept).toEqual(all.slice(0, kept.length));
    expect(structured.truncated.lists).toEqual([{ path: 'records', returned: kept.length, total: 100 }]);
    // As many as fit: one more item would pass the budget.
    const oneMore = { ...structured, records: all.slice(0, kept.length + 1) };
    expect(tokens(JSON.stringify(oneMore))).toBeGreaterThan(2_000);
  });

  it('is found when nested ({data: {items: [...]}}), and the fields beside it stay', async () => {
    const value = { data: { items: records(60), kind: 'page' }, request_id: 'r-1' };
    const { structured } = await shaped(value, { maxTokens: 1_500 });
    expect(structured.request_id).toBe('r-1');
    expect(structured.data.kind).toBe('page');
    const kept = structured.data.items as unknown[];
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(value.data.items.slice(0, kept.length));
    expect(structured.truncated.lists).toEqual([{ path: 'data.items', returned: kept.length, total: 60 }]);
  });

  it('is the biggest one when there are several', async () => {
    const value = { tags: ['a', 'b', 'c'], records: records(50) };
    const { structured } = await shaped(value, { maxTokens: 1_500 });
    expect(structured.tags).toEqual(['a', 'b', 'c']);
    expect(structured.truncated.lists[0].path).toBe('records');
  });

  it('counts strings that look like special tokens as text instead of failing', async () => {
    const value = { records: records(80).map((r) => ({ ...r, note: '<|endoftext|> <|im_start|>' })) };
    const { structured } = await shaped(value, { maxTokens: 1_500 });
    expect(structured.truncated.lists[0].returned).toBeGreaterThan(0);
  });

  it('keeps the upstream name "truncated" when the result has one, using "_truncated" for the note', async () => {
    const { structured } = await shaped({ truncated: false, records: records(50) }, { maxTokens: 1_500 });
    expect(structured.truncated).toBe(false);
    expect(structured._truncated.lists[0].path).toBe('records');
  });
});

describe('an item over the budget on its own', () => {
  it('leaves the list empty and names the item when nothing inside it can be cut', async () => {
    const huge = { id: 'recHUGE00000000001', fields: { Notes: 'word '.repeat(3_000) } };
    const { structured } = await shaped({ records: [huge, ...records(3)] }, { maxTokens: 1_000 });
    expect(structured.records).toEqual([]);
    expect(structured.truncated.lists).toEqual([{ path: 'records', returned: 0, total: 4 }]);
    expect(structured.truncated.note).toContain('recHUGE00000000001');
    expect(structured.truncated.note).toContain('over the budget on its own');
    // No smaller page can help; a narrower call can (the tool's field selection).
    expect(structured.truncated.next_call).toBeUndefined();
    expect(structured.truncated.next).toContain('specific_fields');
  });

  it('is kept with its own biggest list cut instead, when it has one (a base with one huge table)', async () => {
    const fields = Array.from({ length: 400 }, (_, i) => ({
      id: `fld${i}`,
      name: `Field ${i}`,
      type: 'text',
    }));
    const value = {
      tables: [
        { id: 'tblONE', name: 'Everything', fields },
        { id: 'tblTWO', fields: [] },
      ],
    };
    const { structured } = await shaped(value, {
      tool: tool('StoreApi.GetStoreBaseSchema'),
      args: { store_base_id: 'appX' },
      maxTokens: 1_000,
    });
    expect(structured.tables).toHaveLength(1);
    expect(structured.tables[0].id).toBe('tblONE');
    const kept = structured.tables[0].fields as unknown[];
    expect(kept.length).toBeGreaterThan(5);
    expect(kept).toEqual(fields.slice(0, kept.length));
    expect(structured.truncated.lists).toEqual([
      { path: 'tables', returned: 1, total: 2 },
      { path: 'tables[0].fields', returned: kept.length, total: 400 },
    ]);
  });
});

describe('a result with no list to cut', () => {
  it('keeps its short top-level fields and names the ones left out', async () => {
    const value = { id: 'recX', createdTime: '2026-01-01T00:00:00.000Z', body: 'long text '.repeat(2_000) };
    const { structured } = await shaped(value, { tool: tool('StoreApi.StoreGetRecord'), maxTokens: 1_000 });
    expect(structured.id).toBe('recX');
    expect(structured.createdTime).toBe('2026-01-01T00:00:00.000Z');
    expect(structured.body).toBeUndefined();
    expect(structured.truncated.omitted).toEqual(['body']);
    expect(structured.truncated.note).toContain('no list that can be cut');
  });
});

describe('how to get the rest', () => {
  it("names ListStoreRecords' own page_size, from the same pagination_offset, and drops the page's offset", async () => {
    const args = { base_id: 'appX', table_id_or_name: 'Deals', pagination_offset: 'itr1/rec40' };
    const { structured } = await shaped(
      { records: records(100), offset: 'itr2/rec140' },
      { tool: tool('StoreApi.ListStoreRecords'), args, maxTokens: 2_000 },
    );
    const k = structured.records.length;
    // The upstream's offset points past the 100 items of this page, so following it would skip the cut ones.
    expect(structured.offset).toBeUndefined();
    expect(structured.truncated.note).toContain('offset was left out');
    expect(structured.truncated.next).toContain(`page_size: ${k}`);
    expect(structured.truncated.next).toContain('the same pagination_offset as this call');
    expect(structured.truncated.next_call).toEqual({
      name: 'StoreApi.ListStoreRecords',
      arguments: { ...args, page_size: k },
    });
  });

  it.each([
    ['StoreApi.GetRecordComments', 'comments', 'results_page_size', 'offset'],
    ['StoreApi.ListScimUsers', 'Resources', 'user_count_limit', undefined],
    ['StoreApi.GetStoreChangeEvents', 'events', 'page_size_limit', 'offset'],
    ['StoreApi.ReadBulkTableRecords', 'records', 'maximum_records_to_retrieve', 'nextCursor'],
    ['IssueDesk.ListUsers', 'data', 'limit', 'next_cursor'],
  ])('names the real page-size argument of %s', async (name, list, pageSize, cursorField) => {
    const value: Record<string, unknown> = { [list]: records(60) };
    if (cursorField) value[cursorField] = 'next-page';
    const { structured } = await shaped(value, { tool: tool(name), args: {}, maxTokens: 1_500 });
    const k = structured[list].length;
    expect(structured.truncated.next_call.arguments).toEqual({ [pageSize]: k });
    if (cursorField) expect(structured[cursorField]).toBeUndefined();
  });

  it('offers a narrower call where the tool takes no page size (IssueDesk.ListIssues: its time window)', async () => {
    const { structured } = await shaped(
      { issues: records(60), next_cursor: 'c2' },
      { tool: tool('IssueDesk.ListIssues'), maxTokens: 1_500 },
    );
    expect(structured.truncated.next_call).toBeUndefined();
    expect(structured.truncated.next).toBe('To see the rest, ask for less with start_time or end_time.');
  });

  it('says so when the tool has no way to return less', async () => {
    const { structured } = await shaped(
      { shares: records(60) },
      { tool: tool('StoreApi.ListBaseShares'), args: { base_identifier: 'appX' }, maxTokens: 1_500 },
    );
    expect(structured.truncated.next_call).toBeUndefined();
    expect(structured.truncated.next).toContain(
      'StoreApi.ListBaseShares takes no page size or field selection',
    );
  });

  it('never suggests calling a tool that changes data again', async () => {
    const { structured } = await shaped(
      { records: records(10, 200) },
      { tool: tool('StoreApi.CreateStoreRecords'), args: { mode: 'execute' }, maxTokens: 1_500 },
    );
    expect(structured.truncated.lists[0].returned).toBeLessThan(10);
    expect(structured.truncated.next_call).toBeUndefined();
    expect(structured.truncated.next).toContain('has taken effect; do not call it again');
  });
});

describe('error results', () => {
  it('are never cut', () => {
    const message = 'The upstream said: '.concat('x '.repeat(30_000));
    const result = errorResult(new ToolError({ kind: 'invalid_request', message, retryable: false }), 'T.X');
    expect((result.content[0] as { text: string }).text).toContain(message);
  });
});

describe('the budget setting', () => {
  it('accepts 1,000 to 25,000 tokens and refuses anything else, naming the range', () => {
    expect(checkMaxResultTokens(1_000)).toBe(1_000);
    expect(checkMaxResultTokens(25_000)).toBe(25_000);
    for (const wrong of [999, 25_001, 1.5, Number.NaN]) {
      expect(() => checkMaxResultTokens(wrong)).toThrow(/from 1000 to 25000/);
    }
    expect(() => buildToolSet([], { maxResultTokens: 30_000 })).toThrow(/from 1000 to 25000; got 30000/);
    expect(buildToolSet([], { maxResultTokens: 5_000 }).maxResultTokens).toBe(5_000);
  });
});
