// The discovery documents MCP clients read before signing in: RFC 9728 protected resource metadata (at the
// path-aware URL the 401 challenge names, and at the bare well-known path for clients that probe that first) and
// RFC 8414 authorization server metadata. Every URL in them comes from the origin they were made for: the
// configured one, or behind `--trust-proxy` the request's forwarded origin once its host is on the allow-list
// (publicOrigins.ts), never from an unchecked header. The documents are typed by the MCP SDK's own metadata types,
// and the challenge's document URL is the SDK's; the SDK's `oauthMetadataResponse` is not used to serve them,
// because it serves the resource document at the path-aware URL only (clients that probe the bare well-known path
// first get 404) and leaves out `bearer_methods_supported`.

import {
  getOAuthProtectedResourceMetadataUrl,
  type OAuthMetadata,
  type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/server';
import type { Context, Hono } from 'hono';
import { corsPreflight } from './responses.js';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

export interface DiscoveryOptions {
  issuer: string;
  /** The MCP endpoint: the protected resource. */
  resource: URL;
  /** The one scope our tokens carry. */
  scope: string;
  authorizePath: string;
  tokenPath: string;
  registerPath: string;
  /** Whether client ID metadata documents are accepted. */
  clientIdMetadataDocuments?: boolean;
}

function jsonDocument(c: Context, document: unknown): Response {
  if (c.req.method === 'OPTIONS') return corsPreflight('GET, HEAD, OPTIONS');
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    return Response.json(
      { error: 'method_not_allowed', error_description: `${c.req.method} is not allowed here.` },
      { status: 405, headers: { Allow: 'GET, HEAD, OPTIONS', 'Access-Control-Allow-Origin': '*' } },
    );
  }
  return Response.json(document, {
    headers: { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=300' },
  });
}

/** Serves both documents on `app`. */
export function mountDiscovery(app: Hono, options: DiscoveryOptions): void {
  const { issuer, resource, scope } = options;
  const protectedResourceMetadata: OAuthProtectedResourceMetadata = {
    resource: resource.href,
    authorization_servers: [issuer],
    scopes_supported: [scope],
    bearer_methods_supported: ['header'],
    resource_name: 'Switchboard',
  };
  const authorizationServerMetadata: OAuthMetadata = {
    issuer,
    authorization_endpoint: `${issuer}${options.authorizePath}`,
    token_endpoint: `${issuer}${options.tokenPath}`,
    registration_endpoint: `${issuer}${options.registerPath}`,
    scopes_supported: [scope],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    // Clients may present an https URL naming their metadata document as client_id (clientMetadata.ts).
    ...(options.clientIdMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
    // RFC 9207: every answer to the client names us, so it can tell our responses from another server's.
    authorization_response_iss_parameter_supported: true,
  };
  const resourceDocument = (c: Context) => jsonDocument(c, protectedResourceMetadata);
  app.all(PROTECTED_RESOURCE_PATH, resourceDocument);
  // Path-aware (RFC 9728 §3.1): the URL the 401 challenge advertises.
  app.all(new URL(getOAuthProtectedResourceMetadataUrl(resource)).pathname, resourceDocument);
  app.all(AUTHORIZATION_SERVER_METADATA_PATH, (c) => jsonDocument(c, authorizationServerMetadata));
}
