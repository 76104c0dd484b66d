// Switchboard as the OAuth 2.1 authorization server of its own MCP endpoint, as the MCP authorization spec
// (2025-06-18, 2025-11-25) expects of an HTTP server, with the person's sign-in delegated to the upstream's OAuth.
// This module checks the setup and mounts the parts, each in its own module:
//
//   GET  /.well-known/oauth-protected-resource[/mcp]  RFC 9728 protected resource metadata     discovery.ts
//   GET  /.well-known/oauth-authorization-server      RFC 8414 authorization server metadata  discovery.ts
//   POST /register                                    RFC 7591 dynamic registration           registration.ts
//   (a client_id that is an https URL)                client ID metadata document             clientMetadata.ts
//   GET  /authorize                                   checks the request, shows our consent   consent.ts
//   POST /authorize                                   the decision; on approval, the upstream consent.ts
//   GET  <upstream redirect path>                     its code becomes a grant, and ours      upstreamCallback.ts
//   POST /token                                       authorization_code and refresh_token    tokenEndpoint.ts
//
// The consent form and the upstream's answer are bound to the browser that opened the page (a SameSite=Lax cookie
// whose hash the request keeps, requests.ts), so another site can neither post the form nor finish a sign-in it
// started.

import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/server';
import type { Hono } from 'hono';
import type { HttpAuthGate } from '../transports.js';
import type { ClientMetadataDocuments } from './clientMetadata.js';
import { AuthSetupError } from './config.js';
import { consentEndpoints } from './consent.js';
import { mountDiscovery } from './discovery.js';
import { registrationEndpoint } from './registration.js';
import { BrowserBinding } from './requests.js';
import { corsPreflight, whileStateReachable } from './responses.js';
import { tokenEndpoint } from './tokenEndpoint.js';
import { upstreamCallbackEndpoint } from './upstreamCallback.js';
import type { UpstreamOAuthClient } from './userTokens.js';
import type { AuthVault } from './vault.js';
import { authenticate, principalOf, VaultTokenVerifier } from './verify.js';

/** The one scope our tokens carry: use of this MCP server. The upstream's scopes are the operator's choice. */
export const MCP_SCOPE = 'mcp';

export const REGISTER_PATH = '/register';
export const AUTHORIZE_PATH = '/authorize';
export const TOKEN_PATH = '/token';
export const DEFAULT_CALLBACK_PATH = '/oauth/callback';

export interface AuthorizationServerOptions {
  vault: AuthVault;
  upstream: UpstreamOAuthClient;
  /** Our external origin: the issuer, and the base of every endpoint URL. */
  publicUrl: URL;
  /** Path of the MCP endpoint (the protected resource). */
  mcpPath: string;
  /** Where the upstream sends the person back; its path is the callback route. */
  upstreamRedirectUrl: string;
  /** The setting `upstreamRedirectUrl` came from, as errors name it. */
  upstreamRedirectSetting?: string;
  /** How pages name the upstream, e.g. "the data store". */
  upstreamName: string;
  /** Accepts clients whose client_id is the URL of their metadata document; shared by every origin's server. */
  clientMetadata?: ClientMetadataDocuments;
}

export interface AuthorizationServer extends HttpAuthGate {
  issuer: string;
  resource: URL;
  resourceMetadataUrl: string;
}

/** The callback's path, once it is known to come back to our origin (where the browser cookie is) on a free path. */
function callbackPathOf(options: AuthorizationServerOptions, issuer: string): string {
  const { upstreamRedirectUrl, mcpPath } = options;
  const setting = options.upstreamRedirectSetting ?? 'The upstream redirect URL';
  const callback = new URL(upstreamRedirectUrl);
  // The sign-in is bound to the browser by a cookie of our origin, which the browser only sends back to it.
  if (callback.origin !== issuer) {
    throw new AuthSetupError(
      `${setting} (${upstreamRedirectUrl}) must be on the server's public origin ${issuer} (SWITCHBOARD_PUBLIC_URL).`,
    );
  }
  const taken = [mcpPath, AUTHORIZE_PATH, TOKEN_PATH, REGISTER_PATH, '/'];
  if (taken.includes(callback.pathname) || callback.pathname.startsWith('/.well-known/')) {
    throw new AuthSetupError(`${setting}'s path ${callback.pathname} is taken by another endpoint.`);
  }
  return callback.pathname;
}

export function createAuthorizationServer(options: AuthorizationServerOptions): AuthorizationServer {
  const { vault, upstream, upstreamRedirectUrl, upstreamName } = options;
  const issuer = options.publicUrl.origin;
  const resource = new URL(options.mcpPath, issuer);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
  const callbackPath = callbackPathOf(options, issuer);
  const browser = new BrowserBinding(options.publicUrl);
  const verifier = new VaultTokenVerifier(vault);
  const consent = consentEndpoints({
    vault,
    upstream,
    issuer,
    resource,
    scope: MCP_SCOPE,
    browser,
    authorizePath: AUTHORIZE_PATH,
    upstreamRedirectUrl,
    upstreamName,
    ...(options.clientMetadata ? { clientMetadata: options.clientMetadata } : {}),
  });

  return {
    issuer,
    resource,
    resourceMetadataUrl,
    allowedHosts: [options.publicUrl.hostname],
    mount(app: Hono) {
      mountDiscovery(app, {
        issuer,
        resource,
        scope: MCP_SCOPE,
        authorizePath: AUTHORIZE_PATH,
        tokenPath: TOKEN_PATH,
        registerPath: REGISTER_PATH,
        clientIdMetadataDocuments: options.clientMetadata !== undefined,
      });
      app.options(REGISTER_PATH, () => corsPreflight('POST, OPTIONS'));
      // Each endpoint reads or writes the vault: with shared state, Redis may be briefly out of reach (503).
      app.post(REGISTER_PATH, whileStateReachable(registrationEndpoint(vault, MCP_SCOPE), 'json'));
      app.get(AUTHORIZE_PATH, whileStateReachable(consent.show, 'page'));
      app.post(AUTHORIZE_PATH, whileStateReachable(consent.decide, 'page'));
      app.get(
        callbackPath,
        whileStateReachable(
          upstreamCallbackEndpoint({ vault, upstream, issuer, browser, upstreamRedirectUrl, upstreamName }),
          'page',
        ),
      );
      app.options(TOKEN_PATH, () => corsPreflight('POST, OPTIONS'));
      app.post(TOKEN_PATH, whileStateReachable(tokenEndpoint(vault, options.clientMetadata), 'json'));
    },
    authenticate: (request: Request) => authenticate(request, { resource, resourceMetadataUrl, verifier }),
    principalOf,
  };
}
