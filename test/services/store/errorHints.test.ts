// Hints for the data store's 422s that the upstream's message alone decides (no schema read needed): the public
// upstream's formula refusal without a position gets one from our parser; typecast already sent is named.

import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/runtime/errors.js';
import { UpstreamClient } from '../../../src/runtime/http.js';
import { closestNames, explainStoreError, pointAt } from '../../../src/services/store/errorHints.js';

// Never called: these requests name no base, so no schema is read.
const client = new UpstreamClient({
  service: 'StoreApi',
  baseUrl: 'http://127.0.0.1:9',
  authHeaders: () => ({}),
  parseError: () => ({}),
});

const refusal = (code: string, message: string) =>
  new ToolError({
    kind: 'invalid_request',
    status: 422,
    upstreamCode: code,
    upstreamMessage: message,
    message,
  });

describe('explainStoreError', () => {
  it('a formula refused without a position (as the public upstream does) gets one from our parser', async () => {
    const error = await explainStoreError(
      refusal(
        'INVALID_FILTER_BY_FORMULA',
        'The formula for filtering records is invalid: Invalid formula. Please check your formula text.',
      ),
      {
        method: 'GET',
        path: '/v0/{baseId}/{tableIdOrName}',
        query: { filterByFormula: 'IF({Done} = 1, "yes"' },
      },
      client,
    );
    expect(error.issues).toEqual([
      {
        field: 'filter_by_formula',
        problem: expect.stringMatching(
          /^Switchboard’s parser finds: Syntax error at position 3: .* \(marked: IF«\(»\{Done\}/,
        ),
      },
    ]);
    expect(error.hint).toMatch(/invalid at position 3/);
  });

  it('a formula our parser accepts keeps the upstream reason and a general hint', async () => {
    const error = await explainStoreError(
      refusal('INVALID_FILTER_BY_FORMULA', 'The formula for filtering records is invalid: Invalid formula.'),
      {
        method: 'POST',
        path: '/v0/{baseId}/{tableIdOrName}/listRecords',
        body: { filterByFormula: 'NOPE(1)' },
      },
      client,
    );
    expect(error.issues).toEqual([{ field: 'filter_by_formula', problem: 'Invalid formula.' }]);
    expect(error.hint).toMatch(/function names/);
  });

  it('an unknown option with typecast already true does not advise typecast again', async () => {
    const message = 'Insufficient permissions to create new select option ""Urgent""';
    const request = {
      method: 'PATCH' as const,
      path: '/v0/{baseId}/{tableIdOrName}',
      body: { typecast: true, records: [{ id: 'rec1', fields: { Priority: 'Urgent' } }] },
    };
    const error = await explainStoreError(
      refusal('INVALID_MULTIPLE_CHOICE_OPTIONS', message),
      request,
      client,
    );
    expect(error.hint).toMatch(/^"Urgent" is not an option of field "Priority"\./);
    expect(error.hint).toMatch(/typecast was already true/);
    expect(error.hint).not.toMatch(/add "typecast": true/);
  });

  it('other refusals pass unchanged', async () => {
    const error = refusal('INVALID_RECORDS', 'bad');
    expect(await explainStoreError(error, { method: 'POST', path: '/x' }, client)).toBe(error);
  });
});

describe('pointAt and closestNames', () => {
  it('marks the character at a 1-based position, or the end', () => {
    expect(pointAt('NOPE({Name}', 5)).toBe('NOPE«(»{Name}');
    expect(pointAt('{A} = "x', 9)).toBe('{A} = "x«end»');
  });

  it('finds names a few edits away or containing the word, closest first', () => {
    const names = ['Name', 'Stage', 'Amount', 'Close date', 'Company'];
    expect(closestNames('stage', names)).toEqual(['Stage']);
    expect(closestNames('Ammount', names)).toEqual(['Amount']);
    expect(closestNames('close', names)).toEqual(['Close date']);
    expect(closestNames('Unrelated words', names)).toEqual([]);
  });
});
