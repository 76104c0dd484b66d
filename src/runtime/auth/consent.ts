// GET and POST /authorize: the MCP client's authorization request, checked (RFC 6749 §4.1.1, PKCE S256 per RFC
// 7636, one resource per RFC 8707), then our own consent page, then the person's decision. Approval sends the
// browser on to the upstream's consent with our own PKCE challenge; refusal goes back to the client.
//
// Our consent comes first because the upstream sees one OAuth client (the operator's) for every MCP client:
// without it, a client registered by anyone could ride a consent the person once gave upstream (the "confused
// deputy" of the MCP spec's security considerations, which requires per-client consent here). The page's form is
// bound to the browser that opened the page (a cookie whose hash the pending request keeps).

import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { log } from '../log.js';
import { type ClientMetadataDocuments, findClient } from './clientMetadata.js';
import { consentPage, PAGE_HEADERS } from './pages.js';
import { redirectMatches } from './redirectUris.js';
import { type BrowserBinding, boundedText, mediaType, pkceChallenge, sameResource } from './requests.js';
import { backToClient, clientError, describable, showError } from './responses.js';
import type { UpstreamOAuthClient } from './userTokens.js';
import { type AuthorizationRequest, type AuthVault, type ClientRecord, sha256 } from './vault.js';

/** The consent form is a few hundred bytes; anything much larger is not read. */
const MAX_FORM_BYTES = 16 * 1024;

export interface ConsentOptions {
  vault: AuthVault;
  upstream: UpstreamOAuthClient;
  issuer: string;
  resource: URL;
  /** The one scope our tokens carry. */
  scope: string;
  browser: BrowserBinding;
  /** Where the form posts the decision. */
  authorizePath: string;
  /** Where the upstream sends the person back. */
  upstreamRedirectUrl: string;
  /** How the page names the upstream. */
  upstreamName: string;
  /** Clients known by a metadata document URL; without it, only registered clients are known. */
  clientMetadata?: ClientMetadataDocuments;
}

type Checked =
  | { ok: true; client: ClientRecord; fromDocument: boolean; request: AuthorizationRequest }
  | { ok: false; response: Response };

async function checkAuthorizeRequest(c: Context, options: ConsentOptions): Promise<Checked> {
  const { vault, issuer, resource, scope } = options;
  const all = (name: string) => c.req.queries(name) ?? [];
  const one = (name: string) => all(name)[0];
  const stop = (message: string, details: [string, string][] = []): Checked => ({
    ok: false,
    response: showError(c, 400, message, details),
  });
  // Until client and redirect URI are known good, nothing is redirected anywhere (RFC 6749 §4.1.2.1).
  const clientId = one('client_id');
  if (all('client_id').length !== 1 || !clientId) return stop('The request needs one client_id.');
  const found = await findClient(vault, options.clientMetadata, clientId);
  if (!found) return stop('No MCP client is registered with this client_id.', [['client_id', clientId]]);
  if ('problem' in found) {
    return stop(`The client's metadata document cannot be used: ${found.problem}`, [['client_id', clientId]]);
  }
  const { client, fromDocument } = found;
  if (all('redirect_uri').length > 1) return stop('redirect_uri was given more than once.');
  const asked = one('redirect_uri');
  let redirectUri: string | undefined;
  if (asked === undefined || asked === '') {
    if (client.redirectUris.length === 1) redirectUri = client.redirectUris[0];
  } else if (
    // A document's redirect URIs match exactly (the draft's rule); a registered loopback one on any port (RFC 8252).
    client.redirectUris.some((listed) => (fromDocument ? listed === asked : redirectMatches(listed, asked)))
  ) {
    redirectUri = asked;
  }
  if (!redirectUri) {
    return stop(
      fromDocument
        ? "This redirect_uri is not among the redirect_uris of the client's metadata document."
        : 'This redirect_uri is not registered for the client.',
      [
        ['client_id', client.id],
        ['redirect_uri', asked ?? '(none)'],
      ],
    );
  }
  const states = all('state');
  const clientState = states.length === 1 && states[0] !== '' ? states[0] : undefined;
  const refuse = (error: string, description: string): Checked => ({
    ok: false,
    response: backToClient(issuer, redirectUri, {
      error,
      error_description: describable(description),
      state: clientState,
    }),
  });
  for (const name of ['response_type', 'state', 'code_challenge', 'code_challenge_method', 'scope']) {
    if (all(name).length > 1) return refuse('invalid_request', `${name} was given more than once.`);
  }
  const responseType = one('response_type');
  if (responseType !== 'code') {
    return responseType
      ? refuse('unsupported_response_type', 'Only response_type=code is supported.')
      : refuse('invalid_request', 'response_type=code is required.');
  }
  const challenge = one('code_challenge');
  if (!challenge) return refuse('invalid_request', 'PKCE is required: send code_challenge (S256).');
  if (one('code_challenge_method') !== 'S256') {
    return refuse('invalid_request', 'code_challenge_method must be S256.');
  }
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    return refuse('invalid_request', 'code_challenge must be a base64url SHA-256 digest (43 characters).');
  }
  // RFC 8707: a client names the resource it wants a token for; ours is the one resource we issue tokens for.
  const resources = all('resource');
  if (resources.length > 1) return refuse('invalid_target', 'Only one resource can be asked for.');
  const asksResource = resources[0];
  if (asksResource !== undefined && !sameResource(asksResource, resource.href)) {
    return refuse('invalid_target', `This server issues tokens for ${resource.href} only.`);
  }
  // RFC 6749 §3.3: the server may ignore scopes it does not know; our tokens always carry the one scope.
  return {
    ok: true,
    client,
    fromDocument,
    request: {
      clientId: client.id,
      redirectUri,
      ...(clientState !== undefined ? { clientState } : {}),
      codeChallenge: challenge,
      resource: resource.href,
      scope,
    },
  };
}

/** GET /authorize: the checked request's consent page; POST /authorize: the person's decision. */
export function consentEndpoints(options: ConsentOptions) {
  const { vault, upstream, issuer, browser } = options;

  const show = async (c: Context): Promise<Response> => {
    const checked = await checkAuthorizeRequest(c, options);
    if (!checked.ok) return checked.response;
    const { id, setCookie } = browser.ensure(c);
    const handle = await vault.createPending(checked.request, sha256(id));
    const html = consentPage({
      action: options.authorizePath,
      handle,
      clientName: checked.client.name ?? 'An unnamed MCP client',
      clientId: checked.client.id,
      // A document's client is vouched for by its host only: the page says which host that is.
      ...(checked.fromDocument ? { clientHost: new URL(checked.client.id).host } : {}),
      // Where the browser will really be sent (the parsed form, as the redirect is built), not the string as sent.
      redirectUri: new URL(checked.request.redirectUri).href,
      upstreamName: options.upstreamName,
      upstreamScopes: upstream.scopes,
    });
    return c.html(html, 200, { ...PAGE_HEADERS, 'Set-Cookie': setCookie });
  };

  const decide = async (c: Context): Promise<Response> => {
    // A form posted from another site is refused outright (the cookie check below would refuse it too).
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== 'null' && origin !== issuer) {
      return showError(c, 403, 'This form can only be sent from Switchboard’s own page.');
    }
    const text =
      mediaType(c) === 'application/x-www-form-urlencoded' ? await boundedText(c, MAX_FORM_BYTES) : undefined;
    const form = text !== undefined ? new URLSearchParams(text) : undefined;
    const handle = form?.get('consent');
    const browserId = browser.read(c);
    const pending = handle && browserId ? await vault.takePending(handle, sha256(browserId)) : undefined;
    if (!pending) {
      return showError(
        c,
        400,
        'This sign-in request is no longer valid: it expired, was already answered, or was opened in another browser.',
      );
    }
    if (form?.get('decision') !== 'approve') {
      log('info', 'sign-in declined on the consent page', { client: pending.clientId });
      return clientError(issuer, pending, 'access_denied', 'The person declined the connection.');
    }
    const verifier = randomBytes(48).toString('base64url');
    const state = await vault.createUpstreamAuthorization(pending, verifier);
    const location = upstream.authorizeUrl({
      redirectUri: options.upstreamRedirectUrl,
      state,
      codeChallenge: pkceChallenge(verifier),
    });
    return new Response(null, { status: 302, headers: { ...PAGE_HEADERS, Location: location } });
  };

  return { show, decide };
}
