// GET <upstream redirect path>: the upstream's answer to the person's sign-in. It must come back to the browser that
// started the sign-in (the binding cookie), for a sign-in still pending; its code is exchanged with our PKCE
// verifier, the person behind the upstream token becomes a grant, and the MCP client gets our own code for it.

import type { Context } from 'hono';
import { log } from '../log.js';
import type { BrowserBinding } from './requests.js';
import { backToClient, clientError, showError } from './responses.js';
import type { UpstreamOAuthClient } from './userTokens.js';
import { type AuthVault, sha256 } from './vault.js';

export interface UpstreamCallbackOptions {
  vault: AuthVault;
  upstream: UpstreamOAuthClient;
  issuer: string;
  browser: BrowserBinding;
  /** The redirect URI the code was issued for (the token request repeats it). */
  upstreamRedirectUrl: string;
  /** How errors name the upstream. */
  upstreamName: string;
}

export function upstreamCallbackEndpoint(options: UpstreamCallbackOptions) {
  const { vault, upstream, issuer, browser, upstreamName } = options;
  return async (c: Context): Promise<Response> => {
    const state = c.req.query('state');
    const browserId = browser.read(c);
    const request =
      state && browserId ? await vault.takeUpstreamAuthorization(state, sha256(browserId)) : undefined;
    if (!request) {
      return showError(
        c,
        400,
        'This sign-in answer does not match a sign-in started in this browser (or it expired, or was already used).',
      );
    }
    const upstreamError = c.req.query('error');
    if (upstreamError !== undefined) {
      // The upstream's own OAuth error (access_denied when the person said no) goes back to the client as is.
      const known = /^[a-z_]{1,64}$/.test(upstreamError) ? upstreamError : 'server_error';
      const description = c.req.query('error_description');
      log('info', 'upstream sign-in refused', { client: request.clientId, error: known });
      return clientError(
        issuer,
        request,
        known,
        `${upstreamName} answered ${known}${description ? `: ${description}` : ''}`,
      );
    }
    const code = c.req.query('code');
    if (!code)
      return clientError(issuer, request, 'server_error', `${upstreamName} answered without a code.`);
    try {
      const tokens = await upstream.exchangeCode({
        code,
        redirectUri: options.upstreamRedirectUrl,
        codeVerifier: request.upstreamVerifier,
      });
      const identity = await upstream.whoami(tokens.accessToken);
      const grant = await vault.createGrant({ clientId: request.clientId, subject: identity.id, tokens });
      const ours = await vault.issueCode({
        grantId: grant.id,
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        resource: request.resource,
        scope: request.scope,
      });
      log('info', 'person connected', { client: request.clientId, subject: identity.id, grant: grant.id });
      return backToClient(issuer, request.redirectUri, { code: ours, state: request.clientState });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log('warn', 'upstream sign-in failed', { client: request.clientId, error: message });
      const unreachable = (error as { code?: unknown }).code === 'network';
      return clientError(
        issuer,
        request,
        unreachable ? 'temporarily_unavailable' : 'server_error',
        `Signing in to ${upstreamName} failed: ${message}`,
      );
    }
  };
}
