import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/runtime/errors.js';
import { buildPath, buildUrl, encodeSegment } from '../../src/runtime/url.js';

describe('encodeSegment', () => {
  it.each([
    ['../x', '..%2Fx'],
    ['a/b', 'a%2Fb'],
    ['?x=1', '%3Fx%3D1'],
    ['%2F', '%252F'],
    ['#frag', '%23frag'],
    ["it's (ok)*", 'it%27s%20%28ok%29%2A'],
  ])('keeps %s inside one segment', (raw, encoded) => {
    expect(encodeSegment(raw, 'id')).toBe(encoded);
  });

  it.each(['.', '..', ''])('refuses %j with an error naming the field', (raw) => {
    expect(() => encodeSegment(raw, 'issue_id')).toThrow(ToolError);
    try {
      encodeSegment(raw, 'issue_id');
    } catch (error) {
      expect((error as ToolError).kind).toBe('invalid_arguments');
      expect((error as ToolError).message).toContain('issue_id');
    }
  });
});

describe('buildPath and buildUrl', () => {
  it('fills placeholders and never lets an id change the path', () => {
    const path = buildPath('/issues/{id}/note', { id: '../../teams/x?y=1#z' });
    const url = buildUrl('https://api.example.com/', path);
    expect(url.pathname).toBe('/issues/..%2F..%2Fteams%2Fx%3Fy%3D1%23z/note');
    expect(url.search).toBe('');
    expect(url.hash).toBe('');
  });

  it('names the tool parameter when a placeholder value is missing', () => {
    expect(() => buildPath('/teams/{id}', {}, { id: 'value' })).toThrow(/`value` is required/);
  });

  it('repeats array query values and drops undefined and null', () => {
    const url = buildUrl('https://api.example.com', '/x', {
      a: ['1', '2'],
      b: undefined,
      c: null,
      d: 0,
      e: false,
    });
    expect(url.search).toBe('?a=1&a=2&d=0&e=false');
  });
});
