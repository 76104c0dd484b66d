// The request ring buffer: numbering, capacity, clearing and body summaries.
import { describe, expect, it } from 'vitest';
import { MAX_LOGGED_BODY_BYTES, RequestLog, summarizeBody } from '../../src/emulation/requestLog.js';

function entry(path: string) {
  return {
    time: '2025-01-01T00:00:00.000Z',
    method: 'GET',
    path,
    query: {},
    body: null,
    status: 200,
    durationMs: 1,
    auth: 'none' as const,
  };
}

describe('RequestLog', () => {
  it('numbers entries and returns those after a sequence number', () => {
    const log = new RequestLog(10);
    for (let i = 0; i < 5; i++) log.record(entry(`/p${i}`));
    expect(log.since(3).map((e) => e.path)).toEqual(['/p3', '/p4']);
    expect(log.lastSeq).toBe(5);
  });

  it('keeps only the newest `capacity` entries', () => {
    const log = new RequestLog(100);
    for (let i = 0; i < 1000; i++) log.record(entry(`/p${i}`));
    const kept = log.since();
    expect(kept).toHaveLength(100);
    expect(kept[0]?.path).toBe('/p900');
    expect(kept.at(-1)?.seq).toBe(1000);
  });

  it('keeps numbering after clear, so polling with since still works', () => {
    const log = new RequestLog(10);
    log.record(entry('/a'));
    log.record(entry('/b'));
    expect(log.clear()).toBe(2);
    expect(log.since()).toEqual([]);
    expect(log.record(entry('/c')).seq).toBe(3);
  });
});

describe('summarizeBody', () => {
  it('parses JSON, keeps text, and maps empty to null', () => {
    expect(summarizeBody('{"a":1}')).toEqual({ a: 1 });
    expect(summarizeBody('not json')).toBe('not json');
    expect(summarizeBody('')).toBeNull();
  });

  it('cuts bodies over 64 KB and says how big they were', () => {
    const big = JSON.stringify({ s: 'x'.repeat(MAX_LOGGED_BODY_BYTES * 2) });
    const summary = summarizeBody(big);
    expect(typeof summary).toBe('string');
    expect((summary as string).length).toBeLessThan(MAX_LOGGED_BODY_BYTES + 100);
    expect(summary).toMatch(new RegExp(`truncated, ${Buffer.byteLength(big)} bytes in total`));
  });
});
