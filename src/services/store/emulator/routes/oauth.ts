/**
 * The emulated Airtable OAuth 2.0 endpoints (airtable.com/developers/web/api/oauth-reference):
 *
 * - GET /oauth2/v1/authorize checks the authorization request and shows a consent page where an emulated user
 *   (one of the store's users) is picked to act as; POST /oauth2/v1/authorize takes the page's Approve or Deny and
 *   redirects back with `code` and `state`, or `error=access_denied`. An unknown client or a redirect URI the
 *   client may not use gets an HTML error page and never a redirect (RFC 6749 §4.1.2.1); every other problem is
 *   redirected back as `error`, `error_description` and `state`.
 * - POST /oauth2/v1/token redeems codes and refresh tokens (application/x-www-form-urlencoded), answering
 *   `{access_token, refresh_token, token_type, scope, expires_in, refresh_expires_in}` or an RFC 6749 §5.2 error.
 * - /_emulator/oauth: GET grants, DELETE grants/{id} (the user revokes access), GET/PUT config (token lifetimes).
 *
 * None of these needs a bearer token (app.ts lets /oauth2/ through its authentication), and the request log
 * never shows the token endpoint's secrets (app.ts hands it isOAuthTokenPath for redaction).
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import { parseAuthorization } from '../../../../emulation/authorization.js';
import { CONTROL_PREFIX, type EmulatorEnv } from '../../../../emulation/env.js';
import { readOptionalJson } from '../../../../emulation/inspection.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import { escapeHtml, htmlDocument } from '../../../../text/html.js';
import { formatZodIssues } from '../../../../text/zodIssues.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import { ALL_SCOPES } from '../auth.js';
import type { StoreDatabase } from '../database.js';
import {
  isValidCodeVerifier,
  isValidS256Challenge,
  MAX_TOKEN_TTL_SECONDS,
  type OAuthClient,
  type OAuthError,
  type OAuthState,
  type PendingAuthorization,
  parseScopes,
} from '../oauth.js';
import { type Ctx, createArea, route } from './common.js';

export const OAUTH_AUTHORIZE_PATH = '/oauth2/v1/authorize';
export const OAUTH_TOKEN_PATH = '/oauth2/v1/token';
/** Emulator-only: the consent page's Approve or Deny (the upstream's page is its own web app, not its API). */
export const CONSENT_ANSWER = { method: 'POST', path: OAUTH_AUTHORIZE_PATH } as const;

/** The OAuth endpoints are outside the bearer-token API (upstream: on airtable.com, not api.airtable.com). */
export function isOAuthPath(path: string): boolean {
  return path.startsWith('/oauth2/');
}

/** The path whose request bodies carry codes, verifiers, secrets and refresh tokens. */
export function isOAuthTokenPath(path: string): boolean {
  return path === OAUTH_TOKEN_PATH || path === `${OAUTH_TOKEN_PATH}/`;
}

export interface OAuthRouteDeps {
  oauth: OAuthState;
  store: StoreDatabase;
}

/** One plain sentence per scope for the consent page (the emulator's wording of upstream's scopes page). */
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'data.records:read': 'See the data in records.',
  'data.records:write': 'Create, edit and delete records.',
  'data.recordComments:read': 'See comments on records.',
  'data.recordComments:write': 'Create, edit and delete comments on records.',
  'schema.bases:read': 'See the structure of bases: tables, fields and views.',
  'schema.bases:write': 'Change the structure of bases: create and edit tables and fields.',
  'webhook:manage': 'See, create and delete webhooks, and read their payloads.',
  'block:manage': 'Create extension releases and upload their code.',
  'user.email:read': "See the user's email address.",
  'enterprise.groups:read': 'See user groups.',
  'workspacesAndBases:read': 'See workspaces and bases and who collaborates on them.',
  'workspacesAndBases:write': 'Change workspaces and bases and who collaborates on them.',
  'workspacesAndBases.shares:manage': 'See and manage share links of bases and views.',
  'enterprise.scim.usersAndGroups:manage': 'Manage enterprise users and groups through SCIM.',
  'enterprise.auditLogs:read': "Read the enterprise's audit log.",
  'enterprise.changeEvents:read': "Read the enterprise's change events.",
  'enterprise.exports:manage': 'Create and manage eDiscovery exports.',
  'enterprise.account:read': 'See the enterprise account.',
  'enterprise.account:write': 'Change the enterprise account.',
  'enterprise.user:read': "See the enterprise's users.",
  'enterprise.user:write': "Change the enterprise's users.",
  'enterprise.groups:manage': 'Create, change and delete user groups.',
  'workspacesAndBases:manage': 'Delete and move workspaces and bases.',
  'hyperDB.records:read': 'See records in HyperDB tables.',
  'hyperDB.records:write': 'Change records in HyperDB tables.',
};

export function describeScope(scope: string): string {
  return SCOPE_DESCRIPTIONS[scope] ?? `Use the ${scope} scope.`;
}

// ---- HTML ----------------------------------------------------------------------------------------------------

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;background:#f5f5f5;color:#1d1f25}
main{max-width:36rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin-top:0}h2{font-size:1.05rem}
label{display:block;font-weight:600;margin:1rem 0 .3rem}select{font-size:1rem;padding:.3rem;width:100%}
ul{padding-left:1.2rem}li{margin:.3rem 0}code{background:#eee;padding:0 .2rem;border-radius:3px}
.actions{display:flex;gap:1rem;margin-top:1.5rem}
button{font-size:1rem;padding:.5rem 1.4rem;border-radius:6px;border:1px solid #888;cursor:pointer}
#approve{background:#166ee1;color:#fff;border-color:#166ee1}
button:focus-visible,select:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
`;

function page(title: string, body: string): string {
  return htmlDocument(title, body, STYLE);
}

/** The headers every OAuth page and redirect carries: nothing cached, no framing (clickjacking), no referrer. */
function protect(c: Ctx): void {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Frame-Options', 'DENY');
  c.header('X-Content-Type-Options', 'nosniff');
  // No form-action directive: browsers apply it to the redirect that follows the form post too, and that
  // redirect goes to the client's own origin.
  c.header(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  );
}

function errorPage(c: Ctx, status: 400 | 404, message: string, details: [string, string][] = []): Response {
  protect(c);
  const rows = details
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd><code>${escapeHtml(v)}</code></dd>`)
    .join('\n');
  const body = `<h1 id="title">Authorization error</h1>
<p id="error" role="alert">${escapeHtml(message)}</p>
${rows ? `<dl>\n${rows}\n</dl>` : ''}
<p>The application was not sent back an answer. Check its OAuth settings and start again.</p>`;
  return c.html(page('Authorization error', body), status);
}

function consentPage(
  client: OAuthClient,
  request: PendingAuthorization,
  requestId: string,
  users: readonly { id: string; name: string; email: string }[],
): string {
  const name = escapeHtml(client.name);
  const destination = escapeHtml(new URL(request.redirectUri).origin);
  const options = users
    .map(
      (u, i) =>
        `<option value="${escapeHtml(u.id)}"${i === 0 ? ' selected' : ''}>${escapeHtml(u.name)} (${escapeHtml(u.email)})</option>`,
    )
    .join('\n');
  const scopes = request.scopes
    .map(
      (s) =>
        `<li data-scope="${escapeHtml(s)}"><code>${escapeHtml(s)}</code>: ${escapeHtml(describeScope(s))}</li>`,
    )
    .join('\n');
  const body = `<h1 id="title">Authorize <span id="app-name">${name}</span></h1>
<p><strong>${name}</strong> asks to use this emulated Airtable account. Pick the emulated user it acts as;
you will then be sent back to <code id="destination">${destination}</code>.</p>
<form method="post" action="${OAUTH_AUTHORIZE_PATH}" aria-labelledby="title">
<input type="hidden" name="request_id" value="${escapeHtml(requestId)}">
<label for="user">Act as user</label>
<select id="user" name="user" required>
${options}
</select>
<h2 id="scopes-heading">It will be able to</h2>
<ul id="scopes" aria-labelledby="scopes-heading">
${scopes}
</ul>
<div class="actions">
<button type="submit" id="approve" name="decision" value="approve">Approve</button>
<button type="submit" id="deny" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`;
  return page(`Authorize ${client.name}`, body);
}

/** `redirect_uri` with the answer's parameters added (its own query kept), RFC 6749 §4.1.2. */
function redirectTo(c: Ctx, redirectUri: string, params: Record<string, string | undefined>): Response {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  protect(c);
  return c.redirect(url.toString(), 302);
}

// ---- authorize -----------------------------------------------------------------------------------------------

/** The checked request, or the answer refusing it (an error page, or a redirect back with the error). */
type AuthorizeCheck = Result<{ client: OAuthClient; request: PendingAuthorization }, Response>;

function checkAuthorizeRequest(c: Ctx, oauth: OAuthState): AuthorizeCheck {
  const all = (name: string) => c.req.queries(name) ?? [];
  const one = (name: string) => all(name)[0];
  const stop = (message: string, details: [string, string][] = []): AuthorizeCheck =>
    err(errorPage(c, 400, message, details));

  // Until client and redirect URI are trusted, nothing is sent anywhere: an error page (RFC 6749 §4.1.2.1).
  if (all('client_id').length > 1) return stop('client_id was given more than once.');
  const clientId = one('client_id');
  if (clientId === undefined || clientId === '') return stop('The request has no client_id.');
  const client = oauth.client(clientId);
  if (!client) return stop('No application is registered with this client_id.', [['client_id', clientId]]);
  if (all('redirect_uri').length > 1) return stop('redirect_uri was given more than once.');
  const redirectUri = one('redirect_uri');
  if (redirectUri === undefined || redirectUri === '') return stop('The request has no redirect_uri.');
  if (!oauth.redirectAllowed(client, redirectUri)) {
    return stop('This redirect_uri is not registered for the application.', [
      ['client_id', clientId],
      ['redirect_uri', redirectUri],
    ]);
  }

  const states = all('state');
  // Echoed only when given once and non-empty; a missing state is itself refused below.
  const state = states.length === 1 && states[0] !== '' ? states[0] : undefined;
  const refuse = (error: string, description: string): AuthorizeCheck =>
    err(redirectTo(c, redirectUri, { error, error_description: description, state }));
  for (const name of ['response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method']) {
    if (all(name).length > 1) return refuse('invalid_request', `${name} was given more than once.`);
  }
  const responseType = one('response_type');
  if (responseType === undefined || responseType === '') {
    return refuse('invalid_request', 'response_type is required and must be "code".');
  }
  if (responseType !== 'code') {
    return refuse('unsupported_response_type', 'Only response_type=code is supported.');
  }
  // Airtable requires `state` (a CSRF protection for the client).
  if (state === undefined || state === '') return refuse('invalid_request', 'state is required.');
  // Airtable requires PKCE with the S256 method.
  const challenge = one('code_challenge');
  if (challenge === undefined || challenge === '') {
    return refuse('invalid_request', 'code_challenge is required (PKCE with S256).');
  }
  const method = one('code_challenge_method');
  if (method !== 'S256') {
    return refuse('invalid_request', 'code_challenge_method must be "S256".');
  }
  if (!isValidS256Challenge(challenge)) {
    return refuse(
      'invalid_request',
      'code_challenge must be the base64url encoding (no padding) of a SHA-256 digest: 43 characters.',
    );
  }
  // At least one scope, each a known one and named once. ALL_SCOPES is read here, not copied, so scopes added
  // to auth.ts are accepted. (Upstream, an integration may only ask for the scopes it registered; the sandbox
  // application is registered for all of them.)
  const scopes = parseScopes(one('scope') ?? '');
  if (scopes.length === 0) return refuse('invalid_scope', 'Request at least one scope.');
  const known = new Set(ALL_SCOPES);
  const unknown = scopes.filter((s) => !known.has(s));
  if (unknown.length > 0) return refuse('invalid_scope', `Unknown scope: ${unknown.join(' ')}`);
  if (new Set(scopes).size !== scopes.length)
    return refuse('invalid_scope', 'Each scope may be named only once.');
  return ok({ client, request: { clientId, redirectUri, scopes, state, codeChallenge: challenge } });
}

async function readForm(c: Ctx): Promise<URLSearchParams | undefined> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  return new URLSearchParams(await c.req.text());
}

// ---- token ---------------------------------------------------------------------------------------------------

function tokenError(c: Ctx, failure: OAuthError): Response {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  if (failure.error === 'invalid_client') {
    // RFC 6749 §5.2: 401 for a failed client authentication, with the scheme the client should use.
    c.header('WWW-Authenticate', 'Basic realm="oauth2", charset="UTF-8"');
    return c.json({ error: failure.error, error_description: failure.description }, 401);
  }
  return c.json({ error: failure.error, error_description: failure.description }, 400);
}

/** RFC 6749 §2.3.1: client id and secret are form-encoded before they go into the Basic credentials. */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

async function issueToken(c: Ctx, oauth: OAuthState): Promise<Response> {
  const form = await readForm(c);
  if (!form) {
    return tokenError(c, {
      error: 'invalid_request',
      description: 'The body must be application/x-www-form-urlencoded.',
    });
  }
  // RFC 6749 §3.2: parameters must not be repeated.
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1) {
      return tokenError(c, { error: 'invalid_request', description: `${name} was given more than once.` });
    }
  }
  const field = (name: string): string | undefined => form.get(name) ?? undefined;
  const grantType = field('grant_type');
  if (grantType === undefined || grantType === '') {
    return tokenError(c, { error: 'invalid_request', description: 'grant_type is required.' });
  }

  const auth = parseAuthorization(c.req.header('authorization'));
  let basic: { clientId: string; secret: string } | undefined;
  if (auth.scheme === 'basic') {
    const clientId = formDecode(auth.username);
    const secret = formDecode(auth.password);
    if (clientId === undefined || secret === undefined) {
      return tokenError(c, { error: 'invalid_client', description: 'Malformed Basic credentials.' });
    }
    basic = { clientId, secret };
  }
  const bodyClientId = field('client_id');
  const bodyClientSecret = field('client_secret');
  const client = oauth.authenticateClient({
    ...(basic ? { basic } : {}),
    ...(bodyClientId === undefined ? {} : { bodyClientId }),
    ...(bodyClientSecret === undefined ? {} : { bodyClientSecret }),
  });
  if (!client.ok) return tokenError(c, client.error);

  const missing = (names: string[]) => names.filter((n) => (field(n) ?? '') === '');
  let issued: ReturnType<OAuthState['refresh']>;
  if (grantType === 'authorization_code') {
    const absent = missing(['code', 'redirect_uri', 'code_verifier']);
    if (absent.length > 0) {
      return tokenError(c, { error: 'invalid_request', description: `Missing: ${absent.join(', ')}.` });
    }
    const codeVerifier = field('code_verifier') as string;
    if (!isValidCodeVerifier(codeVerifier)) {
      return tokenError(c, {
        error: 'invalid_request',
        description: 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636).',
      });
    }
    issued = oauth.exchangeCode(client.value, {
      code: field('code') as string,
      redirectUri: field('redirect_uri') as string,
      codeVerifier,
    });
  } else if (grantType === 'refresh_token') {
    if (missing(['refresh_token']).length > 0) {
      return tokenError(c, { error: 'invalid_request', description: 'Missing: refresh_token.' });
    }
    const scope = field('scope');
    issued = oauth.refresh(client.value, {
      refreshToken: field('refresh_token') as string,
      ...(scope === undefined ? {} : { scope }),
    });
  } else {
    return tokenError(c, {
      error: 'unsupported_grant_type',
      description: 'grant_type must be authorization_code or refresh_token.',
    });
  }
  if (!issued.ok) return tokenError(c, issued.error);
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  const t = issued.value;
  return c.json({
    access_token: t.accessToken,
    refresh_token: t.refreshToken,
    token_type: 'Bearer',
    scope: t.scopes.join(' '),
    expires_in: t.expiresIn,
    refresh_expires_in: t.refreshExpiresIn,
  });
}

// ---- the area ------------------------------------------------------------------------------------------------

export function oauthArea(deps: OAuthRouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { oauth, store } = deps;

  /** The consent page, where an emulated user is picked to act as. */
  function authorize(c: Ctx) {
    const checked = checkAuthorizeRequest(c, oauth);
    if (!checked.ok) return checked.error;
    const users = store.schema().users;
    if (users.length === 0) return errorPage(c, 400, 'The emulated account has no users to act as.');
    const requestId = oauth.createConsent(checked.value.request);
    protect(c);
    return c.html(consentPage(checked.value.client, checked.value.request, requestId, users));
  }

  /** The consent page's Approve or Deny. */
  async function answerConsent(c: Ctx) {
    const form = await readForm(c);
    if (!form)
      return errorPage(c, 400, 'The consent form must be posted as application/x-www-form-urlencoded.');
    const requestId = form.get('request_id') ?? '';
    const pending = requestId === '' ? undefined : oauth.consent(requestId);
    if (!pending) {
      return errorPage(
        c,
        400,
        'This authorization request is unknown, was already answered, or has expired. Start again from the application.',
      );
    }
    const decision = form.get('decision');
    if (decision === 'deny') {
      oauth.closeConsent(requestId);
      return redirectTo(c, pending.redirectUri, {
        error: 'access_denied',
        error_description: 'The user denied the request.',
        state: pending.state,
      });
    }
    if (decision !== 'approve') return errorPage(c, 400, 'Choose Approve or Deny.');
    const userId = form.get('user') ?? '';
    if (!store.schema().userById.has(userId)) {
      return errorPage(c, 400, 'Pick one of the listed users to act as.', [['user', userId]]);
    }
    oauth.closeConsent(requestId);
    const code = oauth.issueCode(pending, userId);
    return redirectTo(c, pending.redirectUri, { code, state: pending.state });
  }

  function requestToken(c: Ctx) {
    return issueToken(c, oauth);
  }

  // No trailing-slash twins here: the OAuth host takes its paths exactly.
  const exact = { trailingSlash: false } as const;
  route(area, STORE_OPERATIONS.Authorize, authorize, exact);
  route(area, CONSENT_ANSWER, answerConsent, exact);
  route(area, STORE_OPERATIONS.RequestToken, requestToken, exact);
  return area;
}

const ConfigUpdate = z
  .object({
    accessTokenTtlSeconds: z.number().int().min(1).max(MAX_TOKEN_TTL_SECONDS).optional(),
    refreshTokenTtlSeconds: z.number().int().min(1).max(MAX_TOKEN_TTL_SECONDS).optional(),
  })
  .strict();

/** The /_emulator/oauth controls: grants without token material, revocation, token lifetimes. */
export function mountOAuthControls(app: Hono<EmulatorEnv>, oauth: OAuthState): void {
  const base = `${CONTROL_PREFIX}/oauth`;
  const state = () => ({
    ...oauth.config,
    clients: oauth.clients().map((cl) => ({
      clientId: cl.id,
      name: cl.name,
      confidential: cl.confidential,
      redirectUris: cl.redirectUris,
      anyLoopbackRedirect: cl.anyLoopback,
    })),
  });
  app.get(`${base}/grants`, (c) => c.json({ grants: oauth.grants() }));
  app.get(`${base}/grants/:id`, (c) => {
    const grant = oauth.grant(c.req.param('id'));
    return grant ? c.json(grant) : c.json({ error: `No OAuth grant with id "${c.req.param('id')}"` }, 404);
  });
  app.delete(`${base}/grants/:id`, (c) => {
    const grant = oauth.revokeGrant(c.req.param('id'));
    return grant ? c.json(grant) : c.json({ error: `No OAuth grant with id "${c.req.param('id')}"` }, 404);
  });
  app.get(`${base}/config`, (c) => c.json(state()));
  app.put(`${base}/config`, async (c) => {
    const body = await readOptionalJson(c);
    if (!body.ok) return c.json({ error: body.error }, 400);
    const parsed = ConfigUpdate.safeParse(body.value);
    if (!parsed.success)
      return c.json({ error: `Invalid OAuth settings: ${formatZodIssues(parsed.error)}` }, 400);
    oauth.configure({
      ...(parsed.data.accessTokenTtlSeconds === undefined
        ? {}
        : { accessTokenTtlSeconds: parsed.data.accessTokenTtlSeconds }),
      ...(parsed.data.refreshTokenTtlSeconds === undefined
        ? {}
        : { refreshTokenTtlSeconds: parsed.data.refreshTokenTtlSeconds }),
    });
    return c.json(state());
  });
}
