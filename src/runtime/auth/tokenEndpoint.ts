// POST /token: our codes and refresh tokens for MCP clients. authorization_code needs the code's client, redirect
// URI and PKCE verifier (S256) and, when named, its resource (RFC 8707); a code or refresh token presented twice ends
// its grant (RFC 9700 §4.14). refresh_token rotates. Answers are never cached (RFC 6749 §5.1).

import type { Context } from 'hono';
import { log } from '../log.js';
import { type ClientMetadataDocuments, findClient } from './clientMetadata.js';
import { boundedText, mediaType, pkceChallenge, sameResource, sameString } from './requests.js';
import { type TokenErrorCode, tokenError } from './responses.js';
import type { AuthVault, IssuedTokens } from './vault.js';

/** Token requests are a few hundred bytes; anything much larger is not read. */
const MAX_FORM_BYTES = 16 * 1024;

function answer(
  issued: Pick<IssuedTokens, 'accessToken' | 'refreshToken' | 'expiresIn' | 'scope'>,
): Response {
  return Response.json(
    {
      access_token: issued.accessToken,
      token_type: 'Bearer',
      expires_in: issued.expiresIn,
      refresh_token: issued.refreshToken,
      scope: issued.scope,
    },
    { headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache', 'Access-Control-Allow-Origin': '*' } },
  );
}

/** Public clients name themselves in the body; a client id in Basic credentials is accepted too. */
function clientIdOf(c: Context, form: URLSearchParams): string | Response | undefined {
  const named = form.get('client_id') ?? undefined;
  const basic = /^Basic\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
  if (named || !basic) return named;
  const user = Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? '';
  try {
    return decodeURIComponent(user.replace(/\+/g, ' '));
  } catch {
    return tokenError('invalid_client', 'Malformed Basic credentials.');
  }
}

async function authorizationCodeGrant(
  vault: AuthVault,
  form: URLSearchParams,
  clientId: string,
  askedResource: string | undefined,
): Promise<Response> {
  const code = form.get('code') ?? undefined;
  const redirectUri = form.get('redirect_uri') ?? undefined;
  const codeVerifier = form.get('code_verifier') ?? undefined;
  if (!code || !redirectUri || !codeVerifier) {
    return tokenError('invalid_request', 'code, redirect_uri and code_verifier are required.');
  }
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(codeVerifier)) {
    return tokenError(
      'invalid_request',
      'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.',
    );
  }
  const redeemed = await vault.redeemCode(code);
  if (redeemed.status === 'reused') {
    log('warn', 'authorization code used twice; its grant is ended', { client: clientId });
    return tokenError('invalid_grant', 'The authorization code was already used.');
  }
  if (redeemed.status !== 'ok')
    return tokenError('invalid_grant', 'The authorization code is invalid or expired.');
  const granted = redeemed.code;
  // The code is used up whatever the outcome; on a refusal, the grant it stood for can never be reached, so
  // its store tokens are not kept for nobody.
  const refuse = async (error: TokenErrorCode, description: string) => {
    await vault.endGrant(granted.grantId, 'its authorization code was refused');
    return tokenError(error, description);
  };
  if (granted.clientId !== clientId) return refuse('invalid_grant', 'The code was issued to another client.');
  if (granted.redirectUri !== redirectUri) {
    return refuse('invalid_grant', 'redirect_uri differs from the one of the authorization request.');
  }
  if (!sameString(pkceChallenge(codeVerifier), granted.codeChallenge)) {
    return refuse('invalid_grant', 'code_verifier does not match the code_challenge.');
  }
  if (askedResource !== undefined && !sameResource(askedResource, granted.resource)) {
    return refuse('invalid_target', 'The code was issued for another resource.');
  }
  return answer(
    await vault.issueTokens({
      grantId: granted.grantId,
      clientId,
      resource: granted.resource,
      scope: granted.scope,
    }),
  );
}

async function refreshTokenGrant(
  vault: AuthVault,
  form: URLSearchParams,
  clientId: string,
  askedResource: string | undefined,
): Promise<Response> {
  const refreshToken = form.get('refresh_token') ?? undefined;
  if (!refreshToken) return tokenError('invalid_request', 'refresh_token is required.');
  const outcome = await vault.refresh(
    refreshToken,
    clientId,
    (issuedFor) => askedResource === undefined || sameResource(askedResource, issuedFor),
  );
  switch (outcome.status) {
    case 'ok':
      return answer(outcome.tokens);
    case 'wrong_resource':
      return tokenError('invalid_target', 'The refresh token was issued for another resource.');
    case 'reused':
      log('warn', 'refresh token used twice; its grant is ended', {
        client: clientId,
        grant: outcome.grantId,
      });
      return tokenError('invalid_grant', 'The refresh token was already used; sign in again.');
    case 'ended':
      return tokenError('invalid_grant', 'The connection has ended; sign in again.');
    case 'expired':
      return tokenError('invalid_grant', 'The refresh token has expired; sign in again.');
    default:
      return tokenError('invalid_grant', 'The refresh token is invalid.');
  }
}

/** The token endpoint over `vault`; `clientMetadata` knows the clients identified by a metadata document URL. */
export function tokenEndpoint(vault: AuthVault, clientMetadata?: ClientMetadataDocuments) {
  return async (c: Context): Promise<Response> => {
    if (mediaType(c) !== 'application/x-www-form-urlencoded') {
      return tokenError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
    }
    const text = await boundedText(c, MAX_FORM_BYTES);
    if (text === undefined) {
      return tokenError('invalid_request', `The body is larger than ${MAX_FORM_BYTES} bytes.`);
    }
    const form = new URLSearchParams(text);
    for (const name of new Set(form.keys())) {
      if (form.getAll(name).length > 1 && name !== 'resource') {
        return tokenError('invalid_request', `${name} was given more than once.`);
      }
    }
    const clientId = clientIdOf(c, form);
    if (clientId instanceof Response) return clientId;
    if (!clientId) return tokenError('invalid_client', 'client_id is required.');
    const found = await findClient(vault, clientMetadata, clientId);
    if (!found) return tokenError('invalid_client', 'No client is registered with this client_id.');
    if ('problem' in found) {
      return tokenError('invalid_client', `The client's metadata document cannot be used: ${found.problem}`);
    }
    const resources = form.getAll('resource');
    if (resources.length > 1) return tokenError('invalid_target', 'Only one resource can be asked for.');
    const askedResource = resources[0];
    const grantType = form.get('grant_type') ?? undefined;
    if (grantType === 'authorization_code')
      return authorizationCodeGrant(vault, form, clientId, askedResource);
    if (grantType === 'refresh_token') return refreshTokenGrant(vault, form, clientId, askedResource);
    return grantType
      ? tokenError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.')
      : tokenError('invalid_request', 'grant_type is required.');
  };
}
