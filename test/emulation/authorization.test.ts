// The Authorization header as emulators read it, the check of presented credentials, and credential hints.
import { describe, expect, it } from 'vitest';
import { credentialCheck, parseAuthorization, secretHint } from '../../src/emulation/authorization.js';

describe('parseAuthorization', () => {
  it('reads bearer tokens and basic credentials, and tells a missing header from another scheme', () => {
    expect(parseAuthorization('Bearer abc')).toEqual({ scheme: 'bearer', token: 'abc' });
    const basic = `Basic ${Buffer.from('site:key:with:colons').toString('base64')}`;
    expect(parseAuthorization(basic)).toEqual({
      scheme: 'basic',
      username: 'site',
      password: 'key:with:colons',
    });
    expect(parseAuthorization(undefined)).toEqual({ scheme: 'none' });
    expect(parseAuthorization('  ')).toEqual({ scheme: 'none' });
    expect(parseAuthorization('Token abc')).toEqual({ scheme: 'other' });
    expect(parseAuthorization(`Basic ${Buffer.from('no-colon').toString('base64')}`)).toEqual({
      scheme: 'other',
    });
  });
});

describe('credentialCheck', () => {
  it('accepts exactly the configured credentials, whatever the length of what is presented', () => {
    const isToken = credentialCheck('pylon_sandbox_token');
    expect(isToken('pylon_sandbox_token')).toBe(true);
    for (const presented of [
      '',
      'pylon_sandbox_toke',
      'pylon_sandbox_token ',
      'PYLON_SANDBOX_TOKEN',
      'x'.repeat(500),
    ]) {
      expect(isToken(presented), presented).toBe(false);
    }
  });
});

describe('secretHint', () => {
  it('shows at most 4 characters, and never half or more of a short secret', () => {
    expect(secretHint('sandbox_track_key')).toBe('sand…');
    expect(secretHint('abcdef')).toBe('abc…');
    expect(secretHint('ab')).toBe('a…');
    expect(secretHint('a')).toBe('…');
  });
});
