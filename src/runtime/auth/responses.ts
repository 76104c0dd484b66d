// How the authorization server answers: redirects back to the MCP client (RFC 6749 §4.1.2, with `iss` per RFC
// 9207), the token endpoint's JSON errors (RFC 6749 §5.2), CORS for the endpoints browser-based clients call with
// fetch, the error page for requests that cannot be answered with a redirect, and 503 while the shared sign-in state
// (Redis) cannot be reached.

import type { Context } from 'hono';
import { log } from '../log.js';
import { AuthStateUnavailableError } from './authState.js';
import { errorPage, PAGE_HEADERS } from './pages.js';
import type { AuthorizationRequest } from './vault.js';

/** RFC 6749 §5.2 and RFC 8707 error codes the token endpoint answers with. */
export type TokenErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_target';

export function tokenError(code: TokenErrorCode, description: string): Response {
  return Response.json(
    { error: code, error_description: description },
    {
      status: code === 'invalid_client' ? 401 : 400,
      headers: {
        'Cache-Control': 'no-store',
        Pragma: 'no-cache',
        'Access-Control-Allow-Origin': '*',
        ...(code === 'invalid_client' ? { 'WWW-Authenticate': 'Basic realm="switchboard"' } : {}),
      },
    },
  );
}

/** Preflight and cross-origin answers for the endpoints browser-based MCP clients call with fetch. */
export function corsPreflight(methods: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': methods,
      'Access-Control-Allow-Headers': 'authorization, content-type, mcp-protocol-version',
      'Access-Control-Max-Age': '600',
    },
  });
}

/** RFC 6749 error_description: printable ASCII without `"` and `\`. */
export function describable(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, ' ').slice(0, 300);
}

/** A redirect back to the MCP client (RFC 6749 §4.1.2), with `iss` (RFC 9207): every answer names us. */
export function backToClient(
  issuer: string,
  redirectUri: string,
  params: Record<string, string | undefined>,
): Response {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(key, value);
  url.searchParams.set('iss', issuer);
  return new Response(null, { status: 302, headers: { ...PAGE_HEADERS, Location: url.toString() } });
}

/** An OAuth error sent back to the client of `request`, with its `state`. */
export function clientError(
  issuer: string,
  request: Pick<AuthorizationRequest, 'redirectUri' | 'clientState'>,
  error: string,
  description: string,
): Response {
  return backToClient(issuer, request.redirectUri, {
    error,
    error_description: describable(description),
    state: request.clientState,
  });
}

/** The error page, for answers that must not be redirected anywhere (the client or its redirect is not known good). */
export function showError(
  c: Context,
  status: 400 | 403 | 503,
  message: string,
  details: [string, string][] = [],
): Response {
  return c.html(errorPage(message, details), status, PAGE_HEADERS);
}

const RETRY_AFTER_SECONDS = '2';
const UNAVAILABLE = 'The sign-in service cannot reach its shared state just now; try again in a moment.';

/**
 * The answer while the shared sign-in state (Redis) is out of reach: 503 with Retry-After, so that a client tries
 * again instead of starting a new sign-in (a 400 or 401 would send it there). JSON for the API endpoints, the error
 * page for a browser's.
 */
export function stateUnavailable(error: AuthStateUnavailableError, c?: Context): Response {
  log('warn', 'the sign-in state could not be reached', { reason: error.message });
  if (c) {
    return c.html(errorPage(UNAVAILABLE, []), 503, { ...PAGE_HEADERS, 'Retry-After': RETRY_AFTER_SECONDS });
  }
  return Response.json(
    { error: 'temporarily_unavailable', error_description: UNAVAILABLE },
    {
      status: 503,
      headers: {
        'Retry-After': RETRY_AFTER_SECONDS,
        'Cache-Control': 'no-store',
        'Access-Control-Allow-Origin': '*',
      },
    },
  );
}

/** An endpoint's handler, answering `stateUnavailable` when the shared state is out of reach. */
export function whileStateReachable(
  handler: (c: Context) => Response | Promise<Response>,
  as: 'json' | 'page',
): (c: Context) => Promise<Response> {
  return async (c) => {
    try {
      return await handler(c);
    } catch (error) {
      if (!(error instanceof AuthStateUnavailableError)) throw error;
      return stateUnavailable(error, as === 'page' ? c : undefined);
    }
  };
}
