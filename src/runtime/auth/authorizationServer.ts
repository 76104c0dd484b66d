// Switchboard as the OAuth 2.1 authorization server of its own MCP endpoint, as the MCP authorization spec
// (2025-06-18, 2025-11-25) expects of an HTTP server, with the person's sign-in delegated to the upstream's OAuth:
//
//   GET  /.well-known/oauth-protected-resource[/mcp]  RFC 9728 protected resource metadata
//   GET  /.well-known/oauth-authorization-server      RFC 8414 authorization server metadata
//   POST /register                                    RFC 7591 dynamic registration (public clients only)
//   GET  /authorize                                   checks the request, shows our consent page
//   POST /authorize                                   the person's decision; on approval, off to the upstream's consent
//   GET  <upstream redirect path>                     the upstream's answer: its code becomes a grant, and ours
//   POST /token                                       authorization_code (PKCE S256) and refresh_token (rotating)
//
// Our own consent page comes first because the upstream sees one OAuth client (the operator's) for every MCP
// client: without it, a client registered by anyone could ride a consent the person once gave upstream (the
// "confused deputy" of the MCP spec's security considerations, which requires per-client consent here).
// The page's form and the upstream's answer are bound to the browser that opened the page (a SameSite=Lax cookie
// whose hash the request keeps), so another site can neither post the form nor finish a sign-in it started.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { log } from '../log.js';
import type { HttpAuthGate } from '../transports.js';
import { consentPage, errorPage, PAGE_HEADERS } from './pages.js';
import type { UpstreamOAuthClient } from './userTokens.js';
import {
  type AuthorizationRequest,
  AuthSetupError,
  type AuthVault,
  type ClientRecord,
  sha256,
} from './vault.js';
import { authenticate, principalOf, VaultTokenVerifier } from './verify.js';

/** The one scope our tokens carry: use of this MCP server. The upstream's scopes are the operator's choice. */
export const MCP_SCOPE = 'mcp';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const REGISTER_PATH = '/register';
export const AUTHORIZE_PATH = '/authorize';
export const TOKEN_PATH = '/token';
export const DEFAULT_CALLBACK_PATH = '/oauth/callback';

const MAX_REGISTRATION_BYTES = 16 * 1024;
/** The consent form and token requests are a few hundred bytes; anything much larger is not read. */
const MAX_FORM_BYTES = 16 * 1024;
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface AuthorizationServerOptions {
  vault: AuthVault;
  upstream: UpstreamOAuthClient;
  /** Our external origin: the issuer, and the base of every endpoint URL. */
  publicUrl: URL;
  /** Path of the MCP endpoint (the protected resource). */
  mcpPath: string;
  /** Where the upstream sends the person back; its path is the callback route. */
  upstreamRedirectUrl: string;
  /** How pages name the upstream, e.g. "the data store". */
  upstreamName: string;
}

export interface AuthorizationServer extends HttpAuthGate {
  issuer: string;
  resource: URL;
  resourceMetadataUrl: string;
}

type Ctx = Context;

/** RFC 6749 §5.2 and RFC 8707 error codes the token endpoint answers with. */
type TokenErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_target';

function tokenError(code: TokenErrorCode, description: string): Response {
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
function corsPreflight(methods: string): Response {
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

function jsonDocument(c: Ctx, document: unknown): Response {
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

/** Compared as RFC 8707 resource indicators: without a fragment or one trailing slash. */
export function sameResource(a: string, b: string): boolean {
  const norm = (value: string) => value.split('#')[0]!.replace(/\/$/, '');
  return norm(a) === norm(b);
}

function urlOrUndefined(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/**
 * MCP authorization spec, communication security: redirect URIs are https, or http on a loopback host (a native
 * application's listener, RFC 8252 §7.3). Never a fragment (RFC 6749 §3.1.2) or credentials.
 */
export function redirectUriProblem(raw: string): string | undefined {
  if (raw.length > MAX_URI_LENGTH) return `is longer than ${MAX_URI_LENGTH} characters`;
  // RFC 3986 allows none of these, and URL parsers silently drop (tabs, newlines, outer spaces) or reinterpret
  // (a backslash is a slash) them: `https://evil.example\@app.example` reads as app.example and goes to evil.example.
  // Non-ASCII hosts are refused for the same reason (homographs): a client registers the punycode form.
  if (/[^\x21-\x7e]|\\/.test(raw)) {
    return 'holds characters a URI may not (spaces, control or non-ASCII characters, backslashes)';
  }
  const url = urlOrUndefined(raw);
  if (!url) return 'is not an absolute URL';
  if (raw.includes('#')) return 'has a fragment';
  if (url.username !== '' || url.password !== '') return 'carries credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'must use https, or http on a loopback address (127.0.0.1, [::1], localhost)';
}

/** Exact match; a registered loopback URI also matches on any port (RFC 8252 §7.3). */
export function redirectMatches(registered: string, presented: string): boolean {
  if (registered === presented) return true;
  const a = urlOrUndefined(registered);
  const b = urlOrUndefined(presented);
  if (!a || !b || a.protocol !== 'http:' || !LOOPBACK_HOSTS.has(a.hostname)) return false;
  a.port = '';
  b.port = '';
  return a.href === b.href;
}

/** RFC 6749 error_description: printable ASCII without `"` and `\`. */
function describable(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, ' ').slice(0, 300);
}

/** The browser-binding cookie: random, HttpOnly, SameSite=Lax (sent on the upstream's redirect back to us). */
class BrowserBinding {
  readonly name: string;
  readonly #secure: boolean;

  constructor(publicUrl: URL) {
    this.#secure = publicUrl.protocol === 'https:';
    // The __Host- prefix (HTTPS only) pins the cookie to this exact host and path /.
    this.name = this.#secure ? '__Host-switchboard-browser' : 'switchboard-browser';
  }

  read(c: Ctx): string | undefined {
    const header = c.req.header('cookie') ?? '';
    for (const part of header.split(';')) {
      const [key, ...rest] = part.trim().split('=');
      const value = rest.join('=');
      if (key === this.name && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
    }
    return undefined;
  }

  /** The browser's id (made now if it has none) and the Set-Cookie header that keeps it for ten minutes. */
  ensure(c: Ctx): { id: string; setCookie: string } {
    const id = this.read(c) ?? randomBytes(32).toString('base64url');
    const attributes = [
      'Path=/',
      'HttpOnly',
      'SameSite=Lax',
      'Max-Age=600',
      ...(this.#secure ? ['Secure'] : []),
    ];
    return { id, setCookie: `${this.name}=${id}; ${attributes.join('; ')}` };
  }
}

/**
 * The request body as text, read no further than `limit` bytes (these endpoints answer anyone who reaches the
 * port, so a body is never buffered whole before its size is known); undefined when it is larger.
 */
async function boundedText(c: Ctx, limit: number): Promise<string | undefined> {
  const declared = Number(c.req.header('content-length'));
  if (Number.isFinite(declared) && declared > limit) return undefined;
  const body = c.req.raw.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function createAuthorizationServer(options: AuthorizationServerOptions): AuthorizationServer {
  const { vault, upstream, mcpPath, upstreamRedirectUrl, upstreamName } = options;
  const issuer = options.publicUrl.origin;
  const resource = new URL(mcpPath, issuer);
  const resourceMetadataUrl = `${issuer}${PROTECTED_RESOURCE_PATH}${mcpPath}`;
  const callback = new URL(upstreamRedirectUrl);
  const callbackPath = callback.pathname;
  // The sign-in is bound to the browser by a cookie of our origin, which the browser only sends back to it.
  if (callback.origin !== issuer) {
    throw new AuthSetupError(
      `STORE_OAUTH_REDIRECT_URL (${upstreamRedirectUrl}) must be on the server's public origin ${issuer} (SWITCHBOARD_PUBLIC_URL).`,
    );
  }
  const taken = [mcpPath, AUTHORIZE_PATH, TOKEN_PATH, REGISTER_PATH, '/'];
  if (taken.includes(callbackPath) || callbackPath.startsWith('/.well-known/')) {
    throw new AuthSetupError(`STORE_OAUTH_REDIRECT_URL's path ${callbackPath} is taken by another endpoint.`);
  }
  const browser = new BrowserBinding(options.publicUrl);
  const verifier = new VaultTokenVerifier(vault);

  const protectedResourceMetadata = {
    resource: resource.href,
    authorization_servers: [issuer],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Switchboard',
  };
  const authorizationServerMetadata = {
    issuer,
    authorization_endpoint: `${issuer}${AUTHORIZE_PATH}`,
    token_endpoint: `${issuer}${TOKEN_PATH}`,
    registration_endpoint: `${issuer}${REGISTER_PATH}`,
    scopes_supported: [MCP_SCOPE],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    // RFC 9207: every answer to the client names us, so it can tell our responses from another server's.
    authorization_response_iss_parameter_supported: true,
  };

  /** A redirect back to the MCP client (RFC 6749 §4.1.2), with `iss` (RFC 9207). */
  const backToClient = (redirectUri: string, params: Record<string, string | undefined>): Response => {
    const url = new URL(redirectUri);
    for (const [key, value] of Object.entries(params))
      if (value !== undefined) url.searchParams.set(key, value);
    url.searchParams.set('iss', issuer);
    return new Response(null, { status: 302, headers: { ...PAGE_HEADERS, Location: url.toString() } });
  };
  const clientError = (request: AuthorizationRequest, error: string, description: string): Response =>
    backToClient(request.redirectUri, {
      error,
      error_description: describable(description),
      state: request.clientState,
    });
  const showError = (c: Ctx, status: 400 | 403, message: string, details: [string, string][] = []) =>
    c.html(errorPage(message, details), status, PAGE_HEADERS);

  // ---- /register ------------------------------------------------------------------------------------------------

  const register = async (c: Ctx): Promise<Response> => {
    const refuse = (error: string, description: string) =>
      Response.json(
        { error, error_description: description },
        { status: 400, headers: { 'Cache-Control': 'no-store', 'Access-Control-Allow-Origin': '*' } },
      );
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      return refuse('invalid_client_metadata', 'The registration must be a JSON object (application/json).');
    }
    const text = await boundedText(c, MAX_REGISTRATION_BYTES);
    if (text === undefined) {
      return refuse(
        'invalid_client_metadata',
        `The registration is larger than ${MAX_REGISTRATION_BYTES} bytes.`,
      );
    }
    let body: Record<string, unknown>;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      return refuse('invalid_client_metadata', 'The registration must be a JSON object.');
    }
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
    const rawName = typeof body.client_name === 'string' ? body.client_name : undefined;
    const name =
      rawName
        // Controls, and format characters (bidi overrides, zero-width) that make a name read as another.
        ?.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
        .trim()
        .slice(0, 200) || undefined;
    // Every client is public: PKCE is its proof. A requested secret-based method is replaced (RFC 7591 §2 lets
    // the server replace metadata values), and the answer says so.
    const metadata = {
      redirect_uris: uris as string[],
      grant_types: [...new Set(grantTypes as string[])],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: MCP_SCOPE,
      ...(name ? { client_name: name } : {}),
    };
    const client = vault.registerClient({
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

  // ---- /authorize ---------------------------------------------------------------------------------------------

  type Checked =
    | { ok: true; client: ClientRecord; request: AuthorizationRequest }
    | { ok: false; response: Response };

  const checkAuthorizeRequest = (c: Ctx): Checked => {
    const all = (name: string) => c.req.queries(name) ?? [];
    const one = (name: string) => all(name)[0];
    const stop = (message: string, details: [string, string][] = []): Checked => ({
      ok: false,
      response: showError(c, 400, message, details),
    });
    // Until client and redirect URI are known good, nothing is redirected anywhere (RFC 6749 §4.1.2.1).
    if (all('client_id').length !== 1 || !one('client_id')) return stop('The request needs one client_id.');
    const client = vault.client(one('client_id') as string);
    if (!client)
      return stop('No MCP client is registered with this client_id.', [['client_id', one('client_id')!]]);
    if (all('redirect_uri').length > 1) return stop('redirect_uri was given more than once.');
    const asked = one('redirect_uri');
    let redirectUri: string | undefined;
    if (asked === undefined || asked === '') {
      if (client.redirectUris.length === 1) redirectUri = client.redirectUris[0];
    } else if (client.redirectUris.some((registered) => redirectMatches(registered, asked))) {
      redirectUri = asked;
    }
    if (!redirectUri) {
      return stop('This redirect_uri is not registered for the client.', [
        ['client_id', client.id],
        ['redirect_uri', asked ?? '(none)'],
      ]);
    }
    const states = all('state');
    const clientState = states.length === 1 && states[0] !== '' ? states[0] : undefined;
    const refuse = (error: string, description: string): Checked => ({
      ok: false,
      response: backToClient(redirectUri, {
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
      request: {
        clientId: client.id,
        redirectUri,
        ...(clientState !== undefined ? { clientState } : {}),
        codeChallenge: challenge,
        resource: resource.href,
        scope: MCP_SCOPE,
      },
    };
  };

  const showConsent = (c: Ctx): Response => {
    const checked = checkAuthorizeRequest(c);
    if (!checked.ok) return checked.response;
    const { id, setCookie } = browser.ensure(c);
    const handle = vault.createPending(checked.request, sha256(id));
    const html = consentPage({
      action: AUTHORIZE_PATH,
      handle,
      clientName: checked.client.name ?? 'An unnamed MCP client',
      clientId: checked.client.id,
      // Where the browser will really be sent (the parsed form, as the redirect is built), not the string as sent.
      redirectUri: new URL(checked.request.redirectUri).href,
      upstreamName,
      upstreamScopes: upstream.scopes,
    });
    return c.html(html, 200, { ...PAGE_HEADERS, 'Set-Cookie': setCookie });
  };

  const decide = async (c: Ctx): Promise<Response> => {
    // A form posted from another site is refused outright (the cookie check below would refuse it too).
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== 'null' && origin !== issuer) {
      return showError(c, 403, 'This form can only be sent from Switchboard’s own page.');
    }
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    const text =
      type === 'application/x-www-form-urlencoded' ? await boundedText(c, MAX_FORM_BYTES) : undefined;
    const form = text !== undefined ? new URLSearchParams(text) : undefined;
    const handle = form?.get('consent');
    const browserId = browser.read(c);
    const pending = handle && browserId ? vault.takePending(handle, sha256(browserId)) : undefined;
    if (!pending) {
      return showError(
        c,
        400,
        'This sign-in request is no longer valid: it expired, was already answered, or was opened in another browser.',
      );
    }
    if (form?.get('decision') !== 'approve') {
      log('info', 'sign-in declined on the consent page', { client: pending.clientId });
      return clientError(pending, 'access_denied', 'The person declined the connection.');
    }
    const verifier = randomBytes(48).toString('base64url');
    const state = vault.createUpstreamAuthorization(pending, verifier);
    const location = upstream.authorizeUrl({
      redirectUri: upstreamRedirectUrl,
      state,
      codeChallenge: pkceChallenge(verifier),
    });
    return new Response(null, { status: 302, headers: { ...PAGE_HEADERS, Location: location } });
  };

  // ---- upstream callback ----------------------------------------------------------------------------------------

  const upstreamCallback = async (c: Ctx): Promise<Response> => {
    const state = c.req.query('state');
    const browserId = browser.read(c);
    const request =
      state && browserId ? vault.takeUpstreamAuthorization(state, sha256(browserId)) : undefined;
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
        request,
        known,
        `${upstreamName} answered ${known}${description ? `: ${description}` : ''}`,
      );
    }
    const code = c.req.query('code');
    if (!code) return clientError(request, 'server_error', `${upstreamName} answered without a code.`);
    try {
      const tokens = await upstream.exchangeCode({
        code,
        redirectUri: upstreamRedirectUrl,
        codeVerifier: request.upstreamVerifier,
      });
      const identity = await upstream.whoami(tokens.accessToken);
      const grant = vault.createGrant({ clientId: request.clientId, subject: identity.id, tokens });
      const ours = vault.issueCode({
        grantId: grant.id,
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        resource: request.resource,
        scope: request.scope,
      });
      log('info', 'person connected', { client: request.clientId, subject: identity.id, grant: grant.id });
      return backToClient(request.redirectUri, { code: ours, state: request.clientState });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log('warn', 'upstream sign-in failed', { client: request.clientId, error: message });
      const unreachable = (error as { code?: unknown }).code === 'network';
      return clientError(
        request,
        unreachable ? 'temporarily_unavailable' : 'server_error',
        `Signing in to ${upstreamName} failed: ${message}`,
      );
    }
  };

  // ---- /token ---------------------------------------------------------------------------------------------------

  const token = async (c: Ctx): Promise<Response> => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') {
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
    const field = (name: string) => form.get(name) ?? undefined;
    // Public clients name themselves in the body; a client id in Basic credentials is accepted too.
    let clientId = field('client_id');
    const basic = /^Basic\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (!clientId && basic) {
      const user = Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? '';
      try {
        clientId = decodeURIComponent(user.replace(/\+/g, ' '));
      } catch {
        return tokenError('invalid_client', 'Malformed Basic credentials.');
      }
    }
    if (!clientId) return tokenError('invalid_client', 'client_id is required.');
    if (!vault.client(clientId))
      return tokenError('invalid_client', 'No client is registered with this client_id.');
    const resources = form.getAll('resource');
    if (resources.length > 1) return tokenError('invalid_target', 'Only one resource can be asked for.');
    const askedResource = resources[0];
    const grantType = field('grant_type');

    const answer = (issued: {
      accessToken: string;
      refreshToken: string;
      expiresIn: number;
      scope: string;
    }) =>
      Response.json(
        {
          access_token: issued.accessToken,
          token_type: 'Bearer',
          expires_in: issued.expiresIn,
          refresh_token: issued.refreshToken,
          scope: issued.scope,
        },
        { headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache', 'Access-Control-Allow-Origin': '*' } },
      );

    if (grantType === 'authorization_code') {
      const code = field('code');
      const redirectUri = field('redirect_uri');
      const codeVerifier = field('code_verifier');
      if (!code || !redirectUri || !codeVerifier) {
        return tokenError('invalid_request', 'code, redirect_uri and code_verifier are required.');
      }
      if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(codeVerifier)) {
        return tokenError(
          'invalid_request',
          'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.',
        );
      }
      const redeemed = vault.redeemCode(code);
      if (redeemed.status === 'reused') {
        log('warn', 'authorization code used twice; its grant is ended', { client: clientId });
        return tokenError('invalid_grant', 'The authorization code was already used.');
      }
      if (redeemed.status !== 'ok')
        return tokenError('invalid_grant', 'The authorization code is invalid or expired.');
      const granted = redeemed.code;
      // The code is used up whatever the outcome; on a refusal, the grant it stood for can never be reached, so
      // its store tokens are not kept for nobody.
      const refuse = (code: TokenErrorCode, description: string) => {
        vault.endGrant(granted.grantId, 'its authorization code was refused');
        return tokenError(code, description);
      };
      if (granted.clientId !== clientId)
        return refuse('invalid_grant', 'The code was issued to another client.');
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
        vault.issueTokens({
          grantId: granted.grantId,
          clientId,
          resource: granted.resource,
          scope: granted.scope,
        }),
      );
    }

    if (grantType === 'refresh_token') {
      const refreshToken = field('refresh_token');
      if (!refreshToken) return tokenError('invalid_request', 'refresh_token is required.');
      const outcome = vault.refresh(
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

    return grantType
      ? tokenError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.')
      : tokenError('invalid_request', 'grant_type is required.');
  };

  return {
    issuer,
    resource,
    resourceMetadataUrl,
    allowedHosts: [options.publicUrl.hostname],
    mount(app: Hono) {
      const resourceDocument = (c: Ctx) => jsonDocument(c, protectedResourceMetadata);
      app.all(PROTECTED_RESOURCE_PATH, resourceDocument);
      app.all(`${PROTECTED_RESOURCE_PATH}${mcpPath}`, resourceDocument);
      app.all(AUTHORIZATION_SERVER_METADATA_PATH, (c) => jsonDocument(c, authorizationServerMetadata));
      app.options(REGISTER_PATH, () => corsPreflight('POST, OPTIONS'));
      app.post(REGISTER_PATH, register);
      app.get(AUTHORIZE_PATH, showConsent);
      app.post(AUTHORIZE_PATH, decide);
      app.get(callbackPath, upstreamCallback);
      app.options(TOKEN_PATH, () => corsPreflight('POST, OPTIONS'));
      app.post(TOKEN_PATH, token);
    },
    authenticate: (request: Request) => authenticate(request, { resource, resourceMetadataUrl, verifier }),
    principalOf,
  };
}
