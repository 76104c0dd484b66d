// The auto-accept rule, on its own: exact matches act, clear leaders act only when allowed, everything else
// asks, with candidates that carry a ready next call.

import { describe, expect, it } from 'vitest';
import {
  ACCEPT_MARGIN,
  ACCEPT_THRESHOLD,
  type Candidate,
  decide,
  needsConfirmation,
} from '../../../src/services/issuedesk/matching.js';

const candidate = (id: string, score: number, exact = false): Candidate<string> => ({
  item: id,
  id,
  label: { name: id },
  score,
  exact,
});

describe('decide', () => {
  it('finds nothing in an empty list', () => {
    expect(decide([], true)).toEqual({ kind: 'none' });
  });

  it('acts on a unique exact match even when auto-accept is off', () => {
    const decision = decide([candidate('a', 0.7), candidate('b', 1, true)], false);
    expect(decision).toMatchObject({ kind: 'accepted', how: 'exact', candidate: { id: 'b' } });
  });

  it('asks when two candidates match exactly', () => {
    expect(decide([candidate('a', 1, true), candidate('b', 1, true)], true).kind).toBe('ambiguous');
  });

  it('never accepts a non-exact match when auto-accept is off', () => {
    expect(decide([candidate('a', 0.99)], false).kind).toBe('ambiguous');
  });

  it('accepts a lone candidate at the threshold, not below it', () => {
    expect(decide([candidate('a', ACCEPT_THRESHOLD)], true).kind).toBe('accepted');
    expect(decide([candidate('a', ACCEPT_THRESHOLD - 0.001)], true).kind).toBe('ambiguous');
  });

  it('requires the margin over the runner-up', () => {
    expect(decide([candidate('a', 0.95), candidate('b', 0.95 - ACCEPT_MARGIN)], true)).toMatchObject({
      kind: 'accepted',
      how: 'auto_accepted',
    });
    expect(decide([candidate('a', 0.95), candidate('b', 0.95 - ACCEPT_MARGIN + 0.01)], true).kind).toBe(
      'ambiguous',
    );
  });

  it('lists at most five candidates when it asks', () => {
    const many = Array.from({ length: 9 }, (_, i) => candidate(`c${i}`, 0.5 - i * 0.01));
    const decision = decide(many, true);
    expect(decision.kind === 'ambiguous' && decision.candidates.map((c) => c.id)).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
      'c4',
    ]);
  });
});

describe('needsConfirmation', () => {
  it('pins each candidate into the next call, named as the client sees the tool, without auto-accept', () => {
    const result = needsConfirmation([candidate('u1', 0.8123), candidate('u2', 0.61)], {
      parameter: 'user_value',
      lookupByParameter: 'user_lookup_by',
      query: 'ann',
      noun: 'user',
      args: {
        issue_lookup_by: 'id',
        issue_value: '7',
        user_lookup_by: 'name',
        user_value: 'ann',
        auto_accept_matches: false,
      },
      call: {
        signal: new AbortController().signal,
        toolName: 'IssueDesk_AssignIssue',
        nameStyle: 'underscore',
      },
    });
    expect(result.status).toBe('needs_confirmation');
    expect(result.message).toMatch(/nothing was done/);
    expect(result.candidates[0]).toEqual({
      id: 'u1',
      name: 'u1',
      score: 0.812,
      next_call: {
        tool: 'IssueDesk_AssignIssue',
        arguments: { issue_lookup_by: 'id', issue_value: '7', user_lookup_by: 'id', user_value: 'u1' },
      },
    });
  });

  describe('advice fits the arguments given', () => {
    const ask = (candidates: Candidate<string>[], autoAccept: boolean) =>
      needsConfirmation(candidates, {
        parameter: 'value',
        lookupByParameter: 'lookup_by',
        query: 'login',
        noun: 'issue',
        args: { state: 'closed', lookup_by: 'search', value: 'login', auto_accept_matches: autoAccept },
        call: {
          signal: new AbortController().signal,
          toolName: 'IssueDesk.UpdateIssueStatus',
          nameStyle: 'dotted',
        },
      }).message;

    it('auto_accept_matches already true: says why it did not decide, never to set it', () => {
      const low = ask([candidate('a', 0.7), candidate('b', 0.2)], true);
      expect(low).toMatch(/auto_accept_matches was true, but no candidate is a clear best match/);
      expect(low).toMatch(/best confidence is 0\.7, below the 0\.8/);
      expect(low).toMatch(/more specific `value`/);
      expect(low).not.toMatch(/call again with auto_accept_matches true/);
      const close = ask([candidate('a', 0.9), candidate('b', 0.85)], true);
      expect(close).toMatch(/leads the next by 0\.05, less than the 0\.15/);
    });

    it('auto_accept_matches false: suggests it only where it would decide', () => {
      expect(ask([candidate('a', 0.95), candidate('b', 0.5)], false)).toMatch(
        /auto_accept_matches true would have accepted/,
      );
      const unclear = ask([candidate('a', 0.5), candidate('b', 0.45)], false);
      expect(unclear).toMatch(/auto_accept_matches true would not decide here \(the best confidence is 0\.5/);
    });

    it('several exact matches: auto-accept is no way out, whatever was given', () => {
      for (const autoAccept of [true, false]) {
        const message = ask([candidate('a', 1, true), candidate('b', 1, true)], autoAccept);
        expect(message).toMatch(/several match exactly/);
        expect(message).toMatch(/never chooses between exact matches/);
      }
    });
  });
});
