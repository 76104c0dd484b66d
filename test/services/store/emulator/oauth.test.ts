// The emulator's OAuth 2.0 endpoints: the authorization code flow with PKCE through the consent page (an emulated
// user is picked), the token endpoint (client authentication, PKCE, redirect_uri binding, single-use codes,
// rotating refresh tokens with reuse detection, expiry on the emulator's clock), issued tokens acting as their
// user with their scopes on the data plane, the /_emulator/oauth controls, HTML escaping, and a request log
// that holds no secret.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { redactCredentialBody } from '../../../../src/emulation/requestLog.js';
import {
  SANDBOX_OAUTH_CLIENT_ID as CLIENT_ID,
  SANDBOX_OAUTH_CLIENT_SECRET as CLIENT_SECRET,
  DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
} from '../../../../src/services/store/emulator/oauth.js';
import { escapeHtml } from '../../../../src/text/html.js';
import { call, type Loose, makeEmulator, type Reply, type TestEmulator, users } from './helpers.js';

const REDIRECT = 'http://127.0.0.1:53682/callback';
const PUBLIC_CLIENT = 'public-app';
const PUBLIC_REDIRECT = 'https://app.example.com/oauth/callback';
const HOSTILE_NAME = '<img src=x onerror=alert(1)> "Public" & Co';
const AUTH_REQUIRED = { error: { type: 'AUTHENTICATION_REQUIRED', message: 'Authentication required' } };

function options() {
  return {
    oauth: {
      clients: [{ clientId: PUBLIC_CLIENT, redirectUris: [PUBLIC_REDIRECT], name: HOSTILE_NAME }],
    },
  };
}

const emulator = makeEmulator(options());
afterAll(() => emulator.close());

const [owner, ada, grace, alan] = users(emulator) as [Loose, Loose, Loose, Loose];

// ---- helpers ---------------------------------------------------------------------------------------------------

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

interface AuthorizeParams {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

function authorizePath(params: AuthorizeParams): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  return `/oauth2/v1/authorize?${query.toString()}`;
}

function validParams(challenge: string, overrides: AuthorizeParams = {}): AuthorizeParams {
  return {
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'data.records:read schema.bases:read user.email:read',
    state: 'state-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
}

async function get(em: TestEmulator, path: string): Promise<Response> {
  return em.app.request(path, { method: 'GET' });
}

function postForm(
  em: TestEmulator,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(
    em.app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

interface ConsentPage {
  status: number;
  html: string;
  requestId: string;
  userOptions: string[];
  scopes: string[];
}

async function openConsent(em: TestEmulator, params: AuthorizeParams): Promise<ConsentPage> {
  const res = await get(em, authorizePath(params));
  const html = await res.text();
  return {
    status: res.status,
    html,
    requestId: /name="request_id" value="([^"]+)"/.exec(html)?.[1] ?? '',
    userOptions: [...html.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1] as string),
    scopes: [...html.matchAll(/<li data-scope="([^"]+)"/g)].map((m) => m[1] as string),
  };
}

function decide(em: TestEmulator, requestId: string, decision: string, user?: string): Promise<Response> {
  return postForm(em, '/oauth2/v1/authorize', {
    request_id: requestId,
    decision,
    ...(user === undefined ? {} : { user }),
  });
}

/** Runs the browser part: authorize, approve as `userId`; the code and state from the redirect. */
async function getCode(
  em: TestEmulator,
  userId: string,
  opts: { scope?: string; state?: string; challenge?: string; clientId?: string; redirect?: string } = {},
): Promise<{ code: string; state: string | null; verifier: string; location: URL }> {
  const { verifier, challenge } = pkce();
  const page = await openConsent(
    em,
    validParams(opts.challenge ?? challenge, {
      ...(opts.scope === undefined ? {} : { scope: opts.scope }),
      ...(opts.state === undefined ? {} : { state: opts.state }),
      ...(opts.clientId === undefined ? {} : { client_id: opts.clientId }),
      ...(opts.redirect === undefined ? {} : { redirect_uri: opts.redirect }),
    }),
  );
  expect(page.status).toBe(200);
  const res = await decide(em, page.requestId, 'approve', userId);
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location') ?? '');
  return {
    code: location.searchParams.get('code') ?? '',
    state: location.searchParams.get('state'),
    verifier,
    location,
  };
}

function basic(id: string, secret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` };
}

async function tokenRequest(
  em: TestEmulator,
  fields: Record<string, string>,
  headers: Record<string, string> = basic(CLIENT_ID, CLIENT_SECRET),
): Promise<Reply> {
  const res = await postForm(em, '/oauth2/v1/token', fields, headers);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Loose, text, headers: res.headers };
}

function exchange(em: TestEmulator, code: string, verifier: string, redirect = REDIRECT): Promise<Reply> {
  return tokenRequest(em, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirect,
    code_verifier: verifier,
  });
}

function refresh(em: TestEmulator, refreshToken: string, extra: Record<string, string> = {}): Promise<Reply> {
  return tokenRequest(em, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra });
}

/** The whole flow: a token set for `userId` with `scope`. */
async function login(em: TestEmulator, userId: string, scope?: string): Promise<Loose> {
  const { code, verifier } = await getCode(em, userId, scope === undefined ? {} : { scope });
  const res = await exchange(em, code, verifier);
  expect(res.status).toBe(200);
  return res.body;
}

const whoami = (em: TestEmulator, token: string) => call(em, 'GET', '/v0/meta/whoami', { token });
const baseNames = async (em: TestEmulator, token: string): Promise<string[]> => {
  const res = await call(em, 'GET', '/v0/meta/bases', { token });
  expect(res.status).toBe(200);
  return res.body.bases.map((b: Loose) => b.name);
};

async function grants(em: TestEmulator): Promise<Loose[]> {
  const res = await call(em, 'GET', '/_emulator/oauth/grants', { token: null });
  expect(res.status).toBe(200);
  return res.body.grants;
}

// ---- the flow --------------------------------------------------------------------------------------------------

describe('authorization code flow', () => {
  it('shows a consent page listing the users and the requested scopes, with stable controls', async () => {
    const { challenge } = pkce();
    const res = await get(emulator, authorizePath(validParams(challenge)));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).toContain('<select id="user" name="user"');
    expect(html).toContain('<label for="user">');
    expect(html).toMatch(
      /<button type="submit" id="approve" name="decision" value="approve">Approve<\/button>/,
    );
    expect(html).toMatch(/<button type="submit" id="deny" name="decision" value="deny"[^>]*>Deny<\/button>/);
    expect(html).toContain('action="/oauth2/v1/authorize"');
    expect(html).toContain('Switchboard sandbox integration');
    for (const u of users(emulator)) {
      expect(html).toContain(`<option value="${u.id}"`);
      expect(html).toContain(escapeHtml(u.name));
    }
    expect(html).toContain('<code>data.records:read</code>: See the data in records.');
    expect(html).toContain('<code>user.email:read</code>: See the user&#39;s email address.');
    // The form carries an opaque request id, not the parameters to trust.
    expect(html).not.toContain(challenge);
    expect(html).not.toContain('state-123');
    const page = await openConsent(emulator, validParams(challenge));
    expect(page.userOptions).toEqual(users(emulator).map((u) => u.id));
    expect(page.scopes).toEqual(['data.records:read', 'schema.bases:read', 'user.email:read']);
  });

  it('approve → code → tokens → whoami is the chosen user with the approved scopes → that user’s bases', async () => {
    const { code, state, verifier, location } = await getCode(emulator, grace.id, { state: 'xyz-1' });
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(state).toBe('xyz-1');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const res = await exchange(emulator, code, verifier);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(
      ['access_token', 'expires_in', 'refresh_expires_in', 'refresh_token', 'scope', 'token_type'].sort(),
    );
    expect(res.body).toMatchObject({
      token_type: 'Bearer',
      scope: 'data.records:read schema.bases:read user.email:read',
      expires_in: 3600,
      refresh_expires_in: DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
    });
    expect(DEFAULT_REFRESH_TOKEN_TTL_SECONDS).toBe(60 * 24 * 3600);
    expect(res.body.access_token).not.toMatch(/^pat/);

    const me = await whoami(emulator, res.body.access_token);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: grace.id,
      scopes: ['data.records:read', 'schema.bases:read', 'user.email:read'],
      email: grace.email,
    });
    expect(await baseNames(emulator, res.body.access_token)).toEqual(['Product Roadmap', 'Sales CRM']);
  });

  it("two users' tokens see different bases, and each token only has its approved scopes", async () => {
    const graceTokens = await login(emulator, grace.id);
    const alanTokens = await login(emulator, alan.id);
    expect(await baseNames(emulator, graceTokens.access_token)).toEqual(['Product Roadmap', 'Sales CRM']);
    expect(await baseNames(emulator, alanTokens.access_token)).toEqual(['Content Calendar']);
    expect(await baseNames(emulator, (await login(emulator, owner.id)).access_token)).toHaveLength(3);

    const emailOnly = await login(emulator, ada.id, 'user.email:read');
    expect((await whoami(emulator, emailOnly.access_token)).body).toEqual({
      id: ada.id,
      scopes: ['user.email:read'],
      email: ada.email,
    });
    const bases = await call(emulator, 'GET', '/v0/meta/bases', { token: emailOnly.access_token });
    expect(bases.status).toBe(403);
    expect(bases.body.error.type).toBe('INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND');
  });

  it('accepts any loopback redirect URI for the sandbox application (localhost, any port)', async () => {
    for (const redirect of [
      'http://localhost:8080/cb',
      'http://127.0.0.1:9/x?keep=1',
      'http://localhost/cb',
    ]) {
      const { code, verifier, location } = await getCode(emulator, ada.id, { redirect });
      expect(location.toString().startsWith(redirect.split('?')[0] as string)).toBe(true);
      if (redirect.includes('keep=1')) expect(location.searchParams.get('keep')).toBe('1');
      expect((await exchange(emulator, code, verifier, redirect)).status).toBe(200);
    }
  });

  it('serves a public client (no secret): client_id in the body, PKCE as its only proof', async () => {
    const { code, verifier } = await getCode(emulator, ada.id, {
      clientId: PUBLIC_CLIENT,
      redirect: PUBLIC_REDIRECT,
    });
    const res = await tokenRequest(
      emulator,
      {
        grant_type: 'authorization_code',
        client_id: PUBLIC_CLIENT,
        code,
        redirect_uri: PUBLIC_REDIRECT,
        code_verifier: verifier,
      },
      {},
    );
    expect(res.status).toBe(200);
    expect((await whoami(emulator, res.body.access_token)).body.id).toBe(ada.id);
    const again = await tokenRequest(
      emulator,
      { grant_type: 'refresh_token', client_id: PUBLIC_CLIENT, refresh_token: res.body.refresh_token },
      {},
    );
    expect(again.status).toBe(200);
  });

  it('deny redirects with error=access_denied and the state; the consent form answers once', async () => {
    const { challenge } = pkce();
    const page = await openConsent(emulator, validParams(challenge, { state: 'deny-state' }));
    const res = await decide(emulator, page.requestId, 'deny');
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('deny-state');
    expect(location.searchParams.has('code')).toBe(false);
    const replay = await decide(emulator, page.requestId, 'approve', ada.id);
    expect(replay.status).toBe(400);
    expect(replay.headers.get('location')).toBeNull();
    const forged = await decide(emulator, 'not-a-request', 'approve', ada.id);
    expect(forged.status).toBe(400);
  });

  it('refuses an approval for a user who does not exist, keeping the form open', async () => {
    const { challenge } = pkce();
    const page = await openConsent(emulator, validParams(challenge));
    const res = await decide(emulator, page.requestId, 'approve', 'usrNobody00000000');
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect((await decide(emulator, page.requestId, 'approve', ada.id)).status).toBe(302);
  });
});

// ---- authorization request errors -------------------------------------------------------------------------------

describe('authorization request errors', () => {
  it('shows an error page, never a redirect, for an unknown client or a redirect URI the client may not use', async () => {
    const { challenge } = pkce();
    const cases: AuthorizeParams[] = [
      validParams(challenge, { client_id: 'no-such-client' }),
      validParams(challenge, { client_id: undefined }),
      validParams(challenge, { redirect_uri: 'https://evil.example.com/callback' }),
      validParams(challenge, { redirect_uri: 'http://192.168.1.5:8080/callback' }),
      validParams(challenge, { redirect_uri: 'http://127.0.0.1:8080/cb#frag' }),
      validParams(challenge, { redirect_uri: undefined }),
      validParams(challenge, { client_id: PUBLIC_CLIENT, redirect_uri: 'https://app.example.com/other' }),
    ];
    for (const params of cases) {
      const res = await get(emulator, authorizePath(params));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      const html = await res.text();
      expect(html).toContain('id="error"');
      expect(html).not.toContain('id="approve"');
    }
  });

  it('redirects the other problems back with error, error_description and state (RFC 6749 §4.1.2.1)', async () => {
    const { challenge } = pkce();
    const cases: [AuthorizeParams, string, string | null][] = [
      [validParams(challenge, { code_challenge: undefined }), 'invalid_request', 'state-123'],
      [validParams(challenge, { code_challenge_method: undefined }), 'invalid_request', 'state-123'],
      [validParams(challenge, { code_challenge_method: 'plain' }), 'invalid_request', 'state-123'],
      [validParams('too-short'), 'invalid_request', 'state-123'],
      [validParams(challenge, { scope: 'data.records:read nope:nope' }), 'invalid_scope', 'state-123'],
      [validParams(challenge, { scope: '' }), 'invalid_scope', 'state-123'],
      [validParams(challenge, { response_type: 'token' }), 'unsupported_response_type', 'state-123'],
      [validParams(challenge, { state: undefined }), 'invalid_request', null],
    ];
    for (const [params, error, state] of cases) {
      const res = await get(emulator, authorizePath(params));
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location') ?? '');
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('error_description')).toBeTruthy();
      expect(location.searchParams.get('state')).toBe(state);
      expect(location.searchParams.has('code')).toBe(false);
    }
  });
});

// ---- HTML escaping -----------------------------------------------------------------------------------------------

describe('escaping', () => {
  const hostile = '"><script>alert(1)</script>&code=evil';

  it('escapes the application name on the consent page', async () => {
    const { challenge } = pkce();
    const page = await openConsent(
      emulator,
      validParams(challenge, { client_id: PUBLIC_CLIENT, redirect_uri: PUBLIC_REDIRECT }),
    );
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('<img');
    expect(page.html).toContain(escapeHtml(HOSTILE_NAME));
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;Public&quot; &amp; Co');
  });

  it('escapes a hostile client_id or redirect_uri on the error page', async () => {
    const { challenge } = pkce();
    for (const params of [
      validParams(challenge, { client_id: hostile }),
      validParams(challenge, { redirect_uri: `https://x.example/${hostile}` }),
    ]) {
      const res = await get(emulator, authorizePath(params));
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).not.toContain('<script>');
      expect(html).toContain('&lt;script&gt;');
    }
  });

  it('round-trips a hostile state exactly, without injecting parameters, and never puts it in the page', async () => {
    const { challenge } = pkce();
    const page = await openConsent(emulator, validParams(challenge, { state: hostile }));
    expect(page.html).not.toContain('<script>');
    expect(page.html).not.toContain('alert(1)');
    const res = await decide(emulator, page.requestId, 'approve', ada.id);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.searchParams.get('state')).toBe(hostile);
    expect(location.searchParams.getAll('code')).toHaveLength(1);
    expect(location.searchParams.get('code')).not.toBe('evil');
  });

  it('keeps a hostile scope inside error_description of the redirect', async () => {
    const { challenge } = pkce();
    const res = await get(emulator, authorizePath(validParams(challenge, { scope: hostile })));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('error_description')).toContain(hostile);
    expect(location.searchParams.has('code')).toBe(false);
    expect(location.searchParams.get('state')).toBe('state-123');
  });
});

// ---- token endpoint ----------------------------------------------------------------------------------------------

describe('token endpoint', () => {
  it('refuses a code verifier that does not match the challenge (PKCE)', async () => {
    const { code } = await getCode(emulator, ada.id);
    const res = await exchange(emulator, code, pkce().verifier);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a malformed code verifier as invalid_request', async () => {
    const { code } = await getCode(emulator, ada.id);
    const res = await exchange(emulator, code, 'short');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('refuses a redirect_uri other than the authorization request’s', async () => {
    const { code, verifier } = await getCode(emulator, ada.id);
    const res = await exchange(emulator, code, verifier, 'http://127.0.0.1:53682/other');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('takes a code once; a replay is refused and revokes the tokens the first exchange gave', async () => {
    const { code, verifier } = await getCode(emulator, ada.id);
    const first = await exchange(emulator, code, verifier);
    expect(first.status).toBe(200);
    expect((await whoami(emulator, first.body.access_token)).status).toBe(200);
    const second = await exchange(emulator, code, verifier);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await whoami(emulator, first.body.access_token)).status).toBe(401);
    expect((await refresh(emulator, first.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('refuses a code after 10 minutes', async () => {
    const { code, verifier } = await getCode(emulator, ada.id);
    emulator.clock.advance(600_001);
    const res = await exchange(emulator, code, verifier);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('refuses a code issued to another client', async () => {
    const { code, verifier } = await getCode(emulator, ada.id, {
      clientId: PUBLIC_CLIENT,
      redirect: PUBLIC_REDIRECT,
    });
    const res = await exchange(emulator, code, verifier, PUBLIC_REDIRECT);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('authenticates confidential clients: Basic, or client_secret in the body, never both', async () => {
    const fields = async () => {
      const { code, verifier } = await getCode(emulator, ada.id);
      return { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    };
    const none = await tokenRequest(emulator, { ...(await fields()), client_id: CLIENT_ID }, {});
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('invalid_client');
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);

    const wrong = await tokenRequest(emulator, await fields(), basic(CLIENT_ID, 'wrong'));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');

    const unknown = await tokenRequest(emulator, await fields(), basic('who', 'knows'));
    expect(unknown.status).toBe(401);

    const both = await tokenRequest(emulator, { ...(await fields()), client_secret: CLIENT_SECRET });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_request');

    const mismatch = await tokenRequest(emulator, { ...(await fields()), client_id: PUBLIC_CLIENT });
    expect(mismatch.status).toBe(401);

    const withId = await tokenRequest(emulator, { ...(await fields()), client_id: CLIENT_ID });
    expect(withId.status).toBe(200);

    const inBody = await tokenRequest(
      emulator,
      { ...(await fields()), client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
      {},
    );
    expect(inBody.status).toBe(200);
  });

  it('answers malformed requests with RFC 6749 errors', async () => {
    const json = await emulator.app.request('/oauth2/v1/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...basic(CLIENT_ID, CLIENT_SECRET) },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'x' }),
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as Loose).error).toBe('invalid_request');
    expect((await tokenRequest(emulator, {})).body.error).toBe('invalid_request');
    const clientCredentials = await tokenRequest(emulator, { grant_type: 'client_credentials' });
    expect(clientCredentials.status).toBe(400);
    expect(clientCredentials.body.error).toBe('unsupported_grant_type');
    expect((await tokenRequest(emulator, { grant_type: 'authorization_code' })).body.error).toBe(
      'invalid_request',
    );
    const repeated = await emulator.app.request('/oauth2/v1/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(CLIENT_ID, CLIENT_SECRET) },
      body: 'grant_type=refresh_token&refresh_token=a&refresh_token=b',
    });
    expect(repeated.status).toBe(400);
    expect(((await repeated.json()) as Loose).error).toBe('invalid_request');
    expect((await refresh(emulator, 'oar-not-a-token')).body.error).toBe('invalid_grant');
  });
});

// ---- refresh, expiry, revocation -------------------------------------------------------------------------------

describe('refresh tokens', () => {
  it('rotate: each refresh answers a new pair; the old refresh and access tokens stop working', async () => {
    const first = await login(emulator, grace.id);
    const second = await refresh(emulator, first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.headers.get('cache-control')).toBe('no-store');
    expect(second.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.access_token).not.toBe(first.access_token);
    expect((await whoami(emulator, second.body.access_token)).body.id).toBe(grace.id);
    expect((await whoami(emulator, first.access_token)).status).toBe(401);
    const third = await refresh(emulator, second.body.refresh_token);
    expect(third.status).toBe(200);
    expect((await whoami(emulator, third.body.access_token)).status).toBe(200);
  });

  it('detect reuse: a rotated refresh token is refused and the whole grant is revoked', async () => {
    const first = await login(emulator, grace.id);
    const second = await refresh(emulator, first.refresh_token);
    expect(second.status).toBe(200);
    const replay = await refresh(emulator, first.refresh_token);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    // The legitimate holder's tokens go too.
    expect((await whoami(emulator, second.body.access_token)).status).toBe(401);
    expect((await refresh(emulator, second.body.refresh_token)).body.error).toBe('invalid_grant');
    const grant = (await grants(emulator)).at(-1);
    expect(grant).toMatchObject({ userId: grace.id, revoked: true });
  });

  it('may narrow the scopes of the new access token, never widen them', async () => {
    const first = await login(emulator, ada.id, 'schema.bases:read user.email:read');
    const narrowed = await refresh(emulator, first.refresh_token, { scope: 'user.email:read' });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('user.email:read');
    expect((await whoami(emulator, narrowed.body.access_token)).body.scopes).toEqual(['user.email:read']);
    const wider = await refresh(emulator, narrowed.body.refresh_token, { scope: 'data.records:write' });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
    // The refresh token kept the grant's full scopes.
    const back = await refresh(emulator, narrowed.body.refresh_token);
    expect(back.body.scope).toBe('schema.bases:read user.email:read');
  });

  it('are bound to their client', async () => {
    const tokens = await login(emulator, ada.id);
    const res = await tokenRequest(
      emulator,
      { grant_type: 'refresh_token', client_id: PUBLIC_CLIENT, refresh_token: tokens.refresh_token },
      {},
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });
});

describe('expiry on the emulator clock', () => {
  it('an access token stops working after an hour (401 as upstream); the refresh token still works', async () => {
    const tokens = await login(emulator, alan.id);
    emulator.clock.advance(3_599_000);
    expect((await whoami(emulator, tokens.access_token)).status).toBe(200);
    emulator.clock.advance(1_000);
    const expired = await call(emulator, 'GET', '/v0/meta/bases', { token: tokens.access_token });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual(AUTH_REQUIRED);
    const renewed = await refresh(emulator, tokens.refresh_token);
    expect(renewed.status).toBe(200);
    expect(await baseNames(emulator, renewed.body.access_token)).toEqual(['Content Calendar']);
  });

  it('takes token lifetimes from PUT /_emulator/oauth/config for tokens issued afterwards', async () => {
    const em = makeEmulator(options());
    try {
      const set = await call(em, 'PUT', '/_emulator/oauth/config', {
        token: null,
        body: { accessTokenTtlSeconds: 60, refreshTokenTtlSeconds: 120 },
      });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ accessTokenTtlSeconds: 60, refreshTokenTtlSeconds: 120 });
      const bad = await call(em, 'PUT', '/_emulator/oauth/config', {
        token: null,
        body: { accessTokenTtlSeconds: 0, other: 1 },
      });
      expect(bad.status).toBe(400);

      const tokens = await login(em, ada.id);
      expect(tokens.expires_in).toBe(60);
      expect(tokens.refresh_expires_in).toBe(120);
      em.clock.advance(60_000);
      expect((await whoami(em, tokens.access_token)).status).toBe(401);
      em.clock.advance(60_000);
      const late = await refresh(em, tokens.refresh_token);
      expect(late.status).toBe(400);
      expect(late.body.error).toBe('invalid_grant');
    } finally {
      em.close();
    }
  });

  it('takes token lifetimes from the emulator options', async () => {
    const em = makeEmulator({ oauth: { accessTokenTtlSeconds: 10, refreshTokenTtlSeconds: 20 } });
    try {
      const tokens = await login(em, ada.id);
      expect(tokens).toMatchObject({ expires_in: 10, refresh_expires_in: 20 });
      expect(() => makeEmulator({ oauth: { accessTokenTtlSeconds: -1 } })).toThrow(/accessTokenTtlSeconds/);
    } finally {
      em.close();
    }
  });
});

describe('/_emulator/oauth controls', () => {
  it('lists grants without token material and revokes one: its tokens stop at once', async () => {
    const tokens = await login(emulator, alan.id, 'schema.bases:read');
    const listed = await grants(emulator);
    const grant = listed.at(-1);
    expect(Object.keys(grant).sort()).toEqual(
      [
        'accessTokenExpirationTime',
        'clientId',
        'createdTime',
        'id',
        'refreshTokenExpirationTime',
        'revoked',
        'revokedTime',
        'scopes',
        'userId',
      ].sort(),
    );
    expect(grant).toMatchObject({
      clientId: CLIENT_ID,
      userId: alan.id,
      scopes: ['schema.bases:read'],
      revoked: false,
      revokedTime: null,
    });
    const createdAt = Date.parse(grant.createdTime);
    expect(Date.parse(grant.accessTokenExpirationTime) - createdAt).toBe(3_600_000);
    expect(Date.parse(grant.refreshTokenExpirationTime) - createdAt).toBe(
      DEFAULT_REFRESH_TOKEN_TTL_SECONDS * 1000,
    );
    const text = JSON.stringify(listed);
    expect(text).not.toContain(tokens.access_token);
    expect(text).not.toContain(tokens.refresh_token);

    expect((await whoami(emulator, tokens.access_token)).status).toBe(200);
    const revoked = await call(emulator, 'DELETE', `/_emulator/oauth/grants/${grant.id}`, { token: null });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: grant.id, revoked: true });
    const after = await call(emulator, 'GET', '/v0/meta/whoami', { token: tokens.access_token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual(AUTH_REQUIRED);
    const refused = await refresh(emulator, tokens.refresh_token);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    const missing = await call(emulator, 'DELETE', '/_emulator/oauth/grants/oagNope', { token: null });
    expect(missing.status).toBe(404);
  });

  it('reset clears the grants', async () => {
    const em = makeEmulator(options());
    try {
      const tokens = await login(em, ada.id);
      expect(await grants(em)).toHaveLength(1);
      const reset = await call(em, 'POST', '/_emulator/reset', { token: null, body: {} });
      expect(reset.status).toBe(200);
      expect(await grants(em)).toEqual([]);
      expect((await whoami(em, tokens.access_token)).status).toBe(401);
    } finally {
      em.close();
    }
  });
});

// ---- secrets at rest and in the log -------------------------------------------------------------------------

describe('secrets', () => {
  it('the request log holds no code, verifier, secret or token', async () => {
    const em = makeEmulator(options());
    try {
      const { code, verifier } = await getCode(em, ada.id);
      const tokens = (await exchange(em, code, verifier)).body;
      const viaBody = await getCode(em, ada.id);
      const bodyTokens = await tokenRequest(
        em,
        {
          grant_type: 'authorization_code',
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          code: viaBody.code,
          redirect_uri: REDIRECT,
          code_verifier: viaBody.verifier,
        },
        {},
      );
      const refreshed = (await refresh(em, tokens.refresh_token)).body;
      await whoami(em, refreshed.access_token);
      // A client sending its secrets in the query or as JSON by mistake.
      await em.app.request(
        `/oauth2/v1/token?client_secret=${CLIENT_SECRET}&refresh_token=${refreshed.refresh_token}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ code_verifier: verifier, refresh_token: refreshed.refresh_token }),
        },
      );

      const log = await call(em, 'GET', '/_emulator/requests', { token: null });
      const text = JSON.stringify(log.body);
      const secrets = [
        code,
        verifier,
        viaBody.code,
        viaBody.verifier,
        CLIENT_SECRET,
        Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64'),
        tokens.access_token,
        tokens.refresh_token,
        bodyTokens.body.access_token,
        bodyTokens.body.refresh_token,
        refreshed.access_token,
        refreshed.refresh_token,
      ];
      for (const secret of secrets) expect(text).not.toContain(secret);

      const tokenEntries = log.body.requests.filter((r: Loose) => r.path === '/oauth2/v1/token');
      expect(tokenEntries).toHaveLength(4);
      expect(tokenEntries[0].body).toBe(
        `grant_type=authorization_code&code=[redacted]&redirect_uri=${encodeURIComponent(REDIRECT)}&code_verifier=[redacted]`,
      );
      expect(tokenEntries[0].auth).toBe('basic');
      expect(tokenEntries[2].body).toBe('grant_type=refresh_token&refresh_token=[redacted]');
      expect(tokenEntries[3].body).toMatch(/^\[redacted\], \d+ bytes$/);
      expect(tokenEntries[3].query).toEqual({ client_secret: '[redacted]', refresh_token: '[redacted]' });
      // Other requests are logged as before.
      const whoamiEntry = log.body.requests.find((r: Loose) => r.path === '/v0/meta/whoami');
      expect(whoamiEntry.auth).toBe('bearer');
    } finally {
      em.close();
    }
  });

  it('redactCredentialBody keeps only non-secret form values and field names', () => {
    expect(redactCredentialBody('', 'application/x-www-form-urlencoded')).toBeNull();
    expect(
      redactCredentialBody(
        'grant_type=refresh_token&refresh_token=abc&scope=a+b&client_id=me&password=pw',
        'application/x-www-form-urlencoded; charset=utf-8',
      ),
    ).toBe('grant_type=refresh_token&refresh_token=[redacted]&scope=a%20b&client_id=me&password=[redacted]');
    expect(redactCredentialBody('{"oar-secret-as-a-key":1}=x', 'application/x-www-form-urlencoded')).toBe(
      '[redacted]=1 more field(s)',
    );
    expect(redactCredentialBody('refresh_token=abc', 'text/plain')).toBe('[redacted], 17 bytes');
  });

  it('keeps only SHA-256 hashes of codes and tokens in the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauth-db-'));
    const file = join(dir, 'store.db');
    const em = makeEmulator({ ...options(), db: file });
    try {
      const { code, verifier } = await getCode(em, ada.id);
      const tokens = (await exchange(em, code, verifier)).body;
      const { challenge } = pkce();
      const page = await openConsent(em, validParams(challenge));
      const pendingCode = (await getCode(em, grace.id)).code;
      const reader = new Database(file, { readonly: true });
      try {
        const tables = ['oauth_consents', 'oauth_codes', 'oauth_grants', 'oauth_tokens'];
        const dump = JSON.stringify(tables.map((t) => reader.prepare(`SELECT * FROM ${t}`).all()));
        const sha = (v: string) => createHash('sha256').update(v).digest('hex');
        for (const secret of [code, pendingCode, tokens.access_token, tokens.refresh_token, page.requestId]) {
          expect(dump).not.toContain(secret);
          expect(dump).toContain(sha(secret));
        }
        expect(dump).not.toContain(verifier);
        expect(dump).not.toContain(CLIENT_SECRET);
      } finally {
        reader.close();
      }
    } finally {
      em.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
