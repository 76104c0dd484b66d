// The MCP endpoint as an OAuth 2.0 protected resource (MCP authorization spec, 2025-06-18 and 2025-11-25): a
// request without a token gets 401 with `WWW-Authenticate: Bearer resource_metadata="..."` (RFC 9728 §5.1), so the
// client can discover the authorization server; a token that is unknown, expired, revoked, or issued for another
// resource (RFC 8707 audience) gets 401 with `error="invalid_token"` (RFC 6750 §3.1). A valid token becomes the
// AuthInfo the MCP handler receives, with the person behind it. Our token never goes further than this check.

import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { Principal } from '../tool.js';
import { AuthStateUnavailableError } from './authState.js';
import { stateUnavailable } from './responses.js';
import type { AuthVault } from './vault.js';

export class VaultTokenVerifier implements OAuthTokenVerifier {
  constructor(private readonly vault: AuthVault) {}

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const found = await this.vault.accessToken(token);
    if (!found) throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is not valid.');
    // Checked on our clock: the SDK checks expiresAt against the wall clock too, but ours is the one tests move.
    if (found.expiresAt <= this.vault.now) {
      throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token has expired.');
    }
    if (found.grantEnded) {
      throw new OAuthError(
        OAuthErrorCode.InvalidToken,
        'The connection behind this token has ended; sign in again.',
      );
    }
    const principal: Principal = { subject: found.subject, grantId: found.grantId };
    return {
      token,
      clientId: found.clientId,
      scopes: found.scope.split(' ').filter(Boolean),
      expiresAt: Math.floor(found.expiresAt / 1000),
      resource: new URL(found.resource),
      extra: { principal },
    };
  }
}

/** The person an AuthInfo from VaultTokenVerifier stands for. */
export function principalOf(authInfo: AuthInfo | undefined): Principal | undefined {
  const candidate = authInfo?.extra?.principal as Partial<Principal> | undefined;
  return typeof candidate?.subject === 'string' && typeof candidate.grantId === 'string'
    ? { subject: candidate.subject, grantId: candidate.grantId }
    : undefined;
}

/** RFC 6750 §3: a quoted-string value (no quote, backslash or control characters). */
function quoted(value: string): string {
  return value.replace(/["\\]/g, '').replace(/[^\x20-\x7e]/g, ' ');
}

export interface ProtectedResource {
  /** The MCP endpoint's URL: the resource identifier tokens must be issued for. */
  resource: URL;
  /** RFC 9728 metadata document URL, advertised in every challenge. */
  resourceMetadataUrl: string;
  verifier: OAuthTokenVerifier;
}

/** The verified AuthInfo of a request to the MCP endpoint, or the 401 that refuses it. */
export async function authenticate(
  request: Request,
  protectedResource: ProtectedResource,
): Promise<AuthInfo | Response> {
  const { resource, resourceMetadataUrl, verifier } = protectedResource;
  const header = request.headers.get('authorization');
  if (!header) {
    // RFC 6750 §3.1: a request with no credentials at all gets a challenge without an error code.
    return Response.json(
      {
        error: 'unauthorized',
        error_description:
          'This MCP endpoint needs an OAuth access token; see the resource metadata to sign in.',
      },
      {
        status: 401,
        headers: {
          'WWW-Authenticate': `Bearer resource_metadata="${quoted(resourceMetadataUrl)}"`,
          'Cache-Control': 'no-store',
        },
      },
    );
  }
  try {
    return await verifyBearerToken(header, { verifier, expectedResource: resource, resourceMetadataUrl });
  } catch (error) {
    // Not the token's fault: a 401 would make the client sign in again, so say "try again" instead.
    if (error instanceof AuthStateUnavailableError) return stateUnavailable(error);
    return bearerAuthChallengeResponse(error, { resourceMetadataUrl });
  }
}
