// Fault rules: path patterns, validation messages, matching order and expiry.
import { describe, expect, it } from 'vitest';
import { FaultInjector, parseFaultRules } from '../../src/emulation/faults.js';
import { compilePathPattern } from '../../src/emulation/routePattern.js';

describe('compilePathPattern', () => {
  it('matches parameters as one segment and literals exactly', () => {
    const m = compilePathPattern('/issues/:id');
    expect(m('/issues/42')).toBe(true);
    expect(m('/issues/42/')).toBe(true);
    expect(m('/issues')).toBe(false);
    expect(m('/issues/42/note')).toBe(false);
    expect(compilePathPattern('/issues')('/issues/42')).toBe(false);
    expect(compilePathPattern('/a.b')('/aXb')).toBe(false);
  });

  it('lets a trailing * match the rest of the path', () => {
    const m = compilePathPattern('/issues/*');
    expect(m('/issues/42/note')).toBe(true);
    expect(m('/contacts/1')).toBe(false);
  });
});

describe('parseFaultRules', () => {
  it('accepts valid rules', () => {
    const parsed = parseFaultRules({
      rules: [
        { kind: 'latency', latencyMs: 10 },
        { method: 'get', path: '/issues/:id', kind: 'error', status: 503, times: 2 },
        { kind: 'rate_limit', retryAfterSeconds: 5 },
        { kind: 'drop' },
        { method: 'POST', kind: 'drop', when: 'after' },
        { kind: 'error', status: 502, when: 'after' },
        { kind: 'latency', latencyMs: 5, when: 'before' },
      ],
    });
    expect(parsed.ok).toBe(true);
  });

  it.each([
    [{ rules: [{ kind: 'explode' }] }, /rules\[0\]\.kind/],
    [{ rules: [{ kind: 'latency' }] }, /rules\[0\]\.latencyMs: required/],
    [{ rules: [{ kind: 'error', status: 200 }] }, /rules\[0\]\.status/],
    [{ rules: [{ kind: 'drop', times: 0 }] }, /rules\[0\]\.times/],
    [{ rules: [{ kind: 'drop', path: 'issues' }] }, /rules\[0\]\.path: must start with "\/"/],
    [{ rules: [{ kind: 'drop', colour: 'red' }] }, /colour/],
    [{ rules: [{ kind: 'drop', when: 'later' }] }, /rules\[0\]\.when/],
    [{ rules: [{ kind: 'rate_limit', when: 'after' }] }, /rules\[0\]\.when: a rate_limit fault refuses/],
    [{ rule: [] }, /rules/],
    [[], /expected object/i],
  ])('rejects %j with a message naming the field', (body, pattern) => {
    const parsed = parseFaultRules(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(pattern);
  });
});

describe('FaultInjector', () => {
  it('filters by method and path, and leaves other requests alone', () => {
    const faults = new FaultInjector();
    faults.set([{ method: 'PATCH', path: '/issues/:id', kind: 'error' }]);
    expect(faults.take('GET', '/issues/1')).toEqual([]);
    expect(faults.take('PATCH', '/contacts/1')).toEqual([]);
    expect(faults.take('patch', '/issues/1').map((r) => r.kind)).toEqual(['error']);
  });

  it('expires a rule after `times` matches and reports what is left', () => {
    const faults = new FaultInjector();
    faults.set([{ kind: 'error', times: 2 }]);
    expect(faults.take('GET', '/me')).toHaveLength(1);
    expect(faults.list()[0]?.times).toBe(1);
    expect(faults.take('GET', '/me')).toHaveLength(1);
    expect(faults.take('GET', '/me')).toHaveLength(0);
    expect(faults.list()).toEqual([]);
  });

  it('applies every matching latency rule and stops at the first answering rule', () => {
    const faults = new FaultInjector();
    faults.set([
      { kind: 'latency', latencyMs: 5 },
      { kind: 'latency', latencyMs: 7 },
      { kind: 'rate_limit' },
      { kind: 'error', times: 1 },
    ]);
    expect(faults.take('GET', '/x').map((r) => r.kind)).toEqual(['latency', 'latency', 'rate_limit']);
    // The error rule was never reached, so it keeps its single use.
    expect(faults.list().find((r) => r.kind === 'error')?.times).toBe(1);
  });
});
