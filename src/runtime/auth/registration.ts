// POST /register: RFC 7591 dynamic client registration, for public clients only. Every client is public (PKCE is
// its proof); what it asks for is checked against the MCP authorization spec's rules for redirect URIs, and its
// name is cleaned of characters that would let it pass for another on the consent page.

import type { Context } from 'hono';
import { log } from '../log.js';
import { redirectUriProblem } from './redirectUris.js';
import { boundedText, mediaType } from './requests.js';
import { describable } from './responses.js';
import type { AuthVault } from './vault.js';

const MAX_REGISTRATION_BYTES = 16 * 1024;
/** The most redirect URIs one client may have, registered or in its metadata document (clientMetadata.ts). */
export const MAX_REDIRECT_URIS = 10;

/** A JSON text's object, or undefined when the text is not JSON or not an object. */
export function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A client's name as the consent page may show it: controls and format characters (bidi overrides, zero-width)
 * that would make it read as another become spaces; at most 200 characters; undefined when nothing is left.
 */
export function cleanClientName(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  return (
    raw
      .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
      .trim()
      .slice(0, 200) || undefined
  );
}

function refuse(error: string, description: string): Response {
  return Response.json(
    { error, error_description: description },
    { status: 400, headers: { 'Cache-Control': 'no-store', 'Access-Control-Allow-Origin': '*' } },
  );
}

/** The registration endpoint over `vault`; `scope` is the one scope our tokens carry. */
export function registrationEndpoint(vault: AuthVault, scope: string) {
  return async (c: Context): Promise<Response> => {
    if (mediaType(c) !== 'application/json') {
      return refuse('invalid_client_metadata', 'The registration must be a JSON object (application/json).');
    }
    const text = await boundedText(c, MAX_REGISTRATION_BYTES);
    if (text === undefined) {
      return refuse(
        'invalid_client_metadata',
        `The registration is larger than ${MAX_REGISTRATION_BYTES} bytes.`,
      );
    }
    const body = jsonObject(text);
    if (!body) return refuse('invalid_client_metadata', 'The registration must be a JSON object.');
    const uris = body.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.some((u) => typeof u !== 'string')) {
      return refuse('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URLs.');
    }
    if (uris.length > MAX_REDIRECT_URIS) {
      return refuse('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs may be registered.`);
    }
    for (const uri of uris as string[]) {
      const problem = redirectUriProblem(uri);
      if (problem) return refuse('invalid_redirect_uri', `Redirect URI ${describable(uri)} ${problem}.`);
    }
    const grantTypes = body.grant_types ?? ['authorization_code', 'refresh_token'];
    if (
      !Array.isArray(grantTypes) ||
      !grantTypes.includes('authorization_code') ||
      grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')
    ) {
      return refuse(
        'invalid_client_metadata',
        'grant_types may hold authorization_code and refresh_token only, and must hold authorization_code.',
      );
    }
    const responseTypes = body.response_types ?? ['code'];
    if (!Array.isArray(responseTypes) || responseTypes.some((r) => r !== 'code')) {
      return refuse('invalid_client_metadata', 'response_types may hold "code" only.');
    }
    const name = cleanClientName(body.client_name);
    // Every client is public: PKCE is its proof. A requested secret-based method is replaced (RFC 7591 §2 lets
    // the server replace metadata values), and the answer says so.
    const metadata = {
      redirect_uris: uris as string[],
      grant_types: [...new Set(grantTypes as string[])],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope,
      ...(name ? { client_name: name } : {}),
    };
    const client = await vault.registerClient({
      ...(name ? { name } : {}),
      redirectUris: uris as string[],
      metadata,
    });
    log('info', 'MCP client registered', { client: client.id, name: name ?? null });
    return Response.json(
      { client_id: client.id, client_id_issued_at: Math.floor(client.createdAt / 1000), ...metadata },
      { status: 201, headers: { 'Cache-Control': 'no-store', 'Access-Control-Allow-Origin': '*' } },
    );
  };
}
