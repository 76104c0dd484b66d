// Per-user sign-in is asked of the service entries generically: the one whose offer the environment switches on is
// chosen (the store's, by STORE_OAUTH_CLIENT_ID), the runtime's own settings are read only then, and two services
// switched on at once are refused rather than one silently winning.

import { describe, expect, it } from 'vitest';
import { type PerUserAuthProvider, perUserSignInFromEnv } from '../../src/runtime/auth/perUser.js';
import { SERVICES } from '../../src/services/registry.js';
import { reconnectError } from '../../src/services/store/oauth.js';

describe('perUserSignInFromEnv', () => {
  it('is off unless a service’s variable switches it on, and SWITCHBOARD_PUBLIC_URL is only read then', () => {
    expect(perUserSignInFromEnv(SERVICES, {})).toBeUndefined();
    // Not checked while nothing is switched on: it means nothing then.
    expect(perUserSignInFromEnv(SERVICES, { SWITCHBOARD_PUBLIC_URL: 'not a url' })).toBeUndefined();
    expect(() =>
      perUserSignInFromEnv(SERVICES, {
        STORE_OAUTH_CLIENT_ID: 'client',
        SWITCHBOARD_PUBLIC_URL: 'not a url',
      }),
    ).toThrow(/SWITCHBOARD_PUBLIC_URL must be an absolute URL/);
  });

  it('chooses the store’s offer, with its settings handed over as generic ones', () => {
    const signIn = perUserSignInFromEnv(SERVICES, {
      STORE_OAUTH_CLIENT_ID: ' client ',
      STORE_OAUTH_REDIRECT_URL: 'https://switchboard.example.com/back',
      SWITCHBOARD_PUBLIC_URL: 'https://switchboard.example.com',
    });
    expect(signIn?.provider.id).toBe('store');
    expect(signIn?.offer.upstreamName).toBe('the data store');
    expect(signIn?.setup).toMatchObject({
      redirectUrl: 'https://switchboard.example.com/back',
      redirectUrlVariable: 'STORE_OAUTH_REDIRECT_URL',
    });
    expect(signIn?.setup.conflict).toBeUndefined();
    expect(signIn?.settings.publicUrl?.href).toBe('https://switchboard.example.com/');
    const { client, oauthUrl } = signIn?.setup.connect({ toolNames: ['ListStoreBases'] }) ?? {};
    expect(oauthUrl).toBe('https://airtable.com');
    expect(client?.scopes).toEqual(['schema.bases:read', 'user.email:read']);
  });

  it('refuses two services switched on at once, naming both variables', () => {
    const other: PerUserAuthProvider = {
      id: 'other',
      definition: { prefix: 'Other' },
      perUserAuth: {
        switchVariable: 'OTHER_OAUTH_CLIENT_ID',
        upstreamName: 'the other upstream',
        setupHint: 'set OTHER_OAUTH_CLIENT_ID',
        fromEnv: (env) =>
          env.OTHER_OAUTH_CLIENT_ID
            ? {
                redirectUrlVariable: 'OTHER_OAUTH_REDIRECT_URL',
                reconnectError,
                connect: () => {
                  throw new Error('not connected in this test');
                },
              }
            : undefined,
      },
    };
    const env = { STORE_OAUTH_CLIENT_ID: 'client', OTHER_OAUTH_CLIENT_ID: 'other-client' };
    expect(() => perUserSignInFromEnv([...SERVICES, other], env)).toThrow(
      /STORE_OAUTH_CLIENT_ID and OTHER_OAUTH_CLIENT_ID are set, but people sign in through one upstream only/,
    );
    expect(perUserSignInFromEnv([other], env)?.provider.id).toBe('other');
  });
});
