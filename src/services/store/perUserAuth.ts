// The store's offer of per-user sign-in over HTTP: with STORE_OAUTH_CLIENT_ID set, each person signs in through the
// data store's OAuth and their StoreApi calls run with their own store token (src/runtime/auth/). The STORE_OAUTH_*
// variables are read here, the operator's application at the store (client id and secret, redirect URL, scopes)
// and where the store's OAuth lives; the runtime gets generic settings and the store's OAuth client.

import { checkAbsoluteUrl } from '../../runtime/auth/config.js';
import type { PerUserAuthOffer } from '../../runtime/auth/perUser.js';
import { DEFAULT_BASE_URL, TOKEN_ENV } from './client.js';
import { DEFAULT_OAUTH_URL, reconnectError, StoreOAuthClient, scopesForTools } from './oauth.js';

const CLIENT_ID_ENV = 'STORE_OAUTH_CLIENT_ID';
const REDIRECT_URL_ENV = 'STORE_OAUTH_REDIRECT_URL';

export const STORE_PER_USER_AUTH: PerUserAuthOffer = {
  switchVariable: CLIENT_ID_ENV,
  upstreamName: 'the data store',
  setupHint: `set ${CLIENT_ID_ENV} and STORE_OAUTH_CLIENT_SECRET of your store OAuth integration`,

  fromEnv(env) {
    const clientId = env[CLIENT_ID_ENV]?.trim();
    if (!clientId) return undefined;
    const clientSecret = env.STORE_OAUTH_CLIENT_SECRET || undefined;
    // STORE_OAUTH_SCOPES replaces the scopes the served tools need.
    const scopes = env.STORE_OAUTH_SCOPES?.split(/[\s,]+/).filter(Boolean);
    const redirectUrl = env[REDIRECT_URL_ENV]?.trim();
    if (redirectUrl) checkAbsoluteUrl(redirectUrl, REDIRECT_URL_ENV);
    const oauthUrlSetting = env.STORE_OAUTH_URL?.trim();
    if (oauthUrlSetting) checkAbsoluteUrl(oauthUrlSetting, 'STORE_OAUTH_URL');
    const configuredOAuthUrl = oauthUrlSetting ? oauthUrlSetting.replace(/\/+$/, '') : undefined;
    return {
      ...(env[TOKEN_ENV]
        ? {
            conflict:
              `${CLIENT_ID_ENV} and ${TOKEN_ENV} are both set. Per-user OAuth gives each person their own store ` +
              'token, and one shared token would let everyone act as its owner: unset STORE_ACCESS_TOKEN for per-user ' +
              `OAuth, or unset ${CLIENT_ID_ENV} to serve with the one token.`,
          }
        : {}),
      ...(redirectUrl ? { redirectUrl } : {}),
      redirectUrlVariable: REDIRECT_URL_ENV,
      reconnectError,
      connect({ toolNames, emulatorUrl }) {
        const baseUrl = env.STORE_BASE_URL?.replace(/\/+$/, '');
        const apiUrl = emulatorUrl ?? baseUrl ?? DEFAULT_BASE_URL;
        // The emulator serves OAuth on its own origin; the real store on airtable.com, beside its API host.
        const oauthUrl = configuredOAuthUrl ?? emulatorUrl ?? baseUrl ?? DEFAULT_OAUTH_URL;
        const client = new StoreOAuthClient({
          clientId,
          ...(clientSecret ? { clientSecret } : {}),
          oauthUrl,
          apiUrl,
          scopes: scopes && scopes.length > 0 ? scopes : scopesForTools(toolNames),
          ...(env.SWITCHBOARD_TIMEOUT_MS ? { timeoutMs: Number(env.SWITCHBOARD_TIMEOUT_MS) } : {}),
        });
        return { client, oauthUrl };
      },
    };
  },
};
