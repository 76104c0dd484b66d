// The authorization server and protected resource of per-user OAuth, request by request, in-process against a
// fake upstream (the store's side is tested end to end in test/e2e/oauth-http.test.ts): discovery documents,
// registration rules (https or loopback redirect URIs, public clients only), /authorize checks (errors that must
// not redirect, errors that must), our consent page (escaping, framing, CSRF binding to the browser), the upstream
// callback (its errors passed on), the token endpoint (PKCE, redirect and client binding, single-use codes,
// RFC 8707 resource), and the MCP endpoint (expired and ended tokens refused, the caller reaching the tools).

import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { redirectMatches } from '../../src/runtime/auth/redirectUris.js';
import { authHarness, CLIENT_REDIRECT, jsonRpcText, LOOPBACK_ORIGIN as ORIGIN } from './authHarness.js';

// The plain Who.Calls (the verified caller only); code exchanges name the resource, as RFC 8707 clients do.
const setup = () => authHarness({ exchangeResource: true });

describe('discovery documents', () => {
  it('serves RFC 9728 metadata at both paths and RFC 8414 metadata, with CORS', async () => {
    const { request } = setup();
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await request(path);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource: `${ORIGIN}/mcp`,
        authorization_servers: [ORIGIN],
        scopes_supported: ['mcp'],
        bearer_methods_supported: ['header'],
        resource_name: 'Switchboard',
      });
    }
    const metadata = (await (await request('/.well-known/oauth-authorization-server')).json()) as Record<
      string,
      unknown
    >;
    expect(metadata).toMatchObject({
      issuer: ORIGIN,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
    expect((await request('/.well-known/oauth-authorization-server', { method: 'POST' })).status).toBe(405);
    expect((await request('/.well-known/oauth-authorization-server', { method: 'OPTIONS' })).status).toBe(
      204,
    );
  });
});

describe('dynamic client registration', () => {
  it('registers public clients with https or loopback redirect URIs', async () => {
    const { register } = setup();
    const ok = await register({
      redirect_uris: [
        CLIENT_REDIRECT,
        'https://app.example.com/cb',
        'http://localhost/cb',
        'http://[::1]:3/cb',
      ],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      client_name: 'Test client',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(ok.body.client_id).toMatch(/^sbc_/);
    expect(ok.body).not.toHaveProperty('client_secret');
  });

  it.each([
    [
      { redirect_uris: ['http://app.example.com/cb'] },
      'invalid_redirect_uri',
      /https, or http on a loopback/,
    ],
    [{ redirect_uris: ['https://app.example.com/cb#frag'] }, 'invalid_redirect_uri', /fragment/],
    [{ redirect_uris: ['https://user:pw@app.example.com/cb'] }, 'invalid_redirect_uri', /credentials/],
    [{ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri', /https/],
    [{ redirect_uris: [] }, 'invalid_redirect_uri', /non-empty/],
    [{ redirect_uris: undefined }, 'invalid_redirect_uri', /non-empty/],
    [{ grant_types: ['client_credentials'] }, 'invalid_client_metadata', /grant_types/],
    [{ response_types: ['token'] }, 'invalid_client_metadata', /response_types/],
  ])('refuses %j', async (metadata, error, description) => {
    const { register } = setup();
    const refused = await register(metadata);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(error);
    expect(refused.body.error_description).toMatch(description);
  });

  it('refuses a body that is not JSON', async () => {
    const { request } = setup();
    const response = await request('/register', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(response.status).toBe(400);
  });

  it('matches a loopback redirect URI on any port (RFC 8252 §7.3), others exactly', () => {
    expect(redirectMatches('http://127.0.0.1:1/cb', 'http://127.0.0.1:2/cb')).toBe(true);
    expect(redirectMatches('http://127.0.0.1:1/cb', 'http://127.0.0.1:2/other')).toBe(false);
    expect(redirectMatches('https://a.example/cb', 'https://a.example:444/cb')).toBe(false);
    expect(redirectMatches('https://a.example/cb', 'https://a.example/cb')).toBe(true);
  });
});

describe('/authorize', () => {
  it('never redirects for an unknown client or an unregistered redirect URI', async () => {
    const { register, request, authorizeUrl } = setup();
    const clientId = (await register()).body.client_id as string;
    for (const url of [
      authorizeUrl('sbc_unknown').url,
      authorizeUrl(clientId, { redirect_uri: 'https://evil.example/cb' }).url,
      authorizeUrl(clientId, { client_id: undefined }).url,
    ]) {
      const response = await request(url);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toMatch(/Sign-in error/);
    }
  });

  it.each([
    [{ code_challenge: undefined }, 'invalid_request', /PKCE is required/],
    [{ code_challenge_method: 'plain' }, 'invalid_request', /S256/],
    [{ code_challenge: 'short' }, 'invalid_request', /43 characters/],
    [{ response_type: 'token' }, 'unsupported_response_type', /response_type=code/],
    [
      { resource: 'https://other.example/mcp' },
      'invalid_target',
      /issues tokens for http:\/\/127\.0\.0\.1:8787\/mcp only/,
    ],
  ])(
    'sends %j back to the client as an OAuth error, with state and iss',
    async (params, error, description) => {
      const { register, request, authorizeUrl } = setup();
      const clientId = (await register()).body.client_id as string;
      const response = await request(authorizeUrl(clientId, params).url);
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location') ?? '');
      expect(`${location.origin}${location.pathname}`).toBe(CLIENT_REDIRECT);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('error_description')).toMatch(description);
      expect(location.searchParams.get('state')).toBe('client-state');
      expect(location.searchParams.get('iss')).toBe(ORIGIN);
    },
  );

  it('shows a consent page that escapes the client name and cannot be framed', async () => {
    const { register, authorizeUrl, openConsent } = setup();
    const clientId = (await register({ client_name: '<img src=x onerror=alert(1)> "Evil" & Co' })).body
      .client_id as string;
    const consent = await openConsent(
      authorizeUrl(clientId, { redirect_uri: 'http://127.0.0.1:40000/callback' }).url,
    );
    expect(consent.response.status).toBe(200);
    expect(consent.html).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;Evil&quot; &amp; Co');
    expect(consent.html).not.toContain('<img');
    // The loopback redirect URI matched on another port, and the page shows where the person will be sent.
    expect(consent.html).toContain('http://127.0.0.1:40000/callback');
    expect(consent.html).toContain('data-scope="schema.bases:read"');
    expect(consent.response.headers.get('x-frame-options')).toBe('DENY');
    expect(consent.response.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(consent.response.headers.get('cache-control')).toBe('no-store');
    expect(consent.response.headers.get('set-cookie')).toMatch(
      /^switchboard-browser=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600$/,
    );
  });

  it('accepts the decision only from the browser that opened the page, and not from another site', async () => {
    const { register, authorizeUrl, openConsent, postForm } = setup();
    const clientId = (await register()).body.client_id as string;
    const consent = await openConsent(authorizeUrl(clientId).url);
    // A forged post (no cookie: another site cannot send the SameSite=Lax cookie with a cross-site POST).
    const forged = await postForm('/authorize', { consent: consent.handle, decision: 'approve' });
    expect(forged.status).toBe(400);
    expect(forged.headers.get('location')).toBeNull();
    const crossSite = await postForm(
      '/authorize',
      { consent: consent.handle, decision: 'approve' },
      { cookie: consent.cookie, origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    // The person's own post still works (the forged ones did not use the request up), once.
    const own = await postForm(
      '/authorize',
      { consent: consent.handle, decision: 'approve' },
      { cookie: consent.cookie, origin: ORIGIN },
    );
    expect(own.status).toBe(302);
    const atStore = new URL(own.headers.get('location') ?? '');
    expect(atStore.origin).toBe('https://store.test');
    expect(atStore.searchParams.get('redirect_uri')).toBe(`${ORIGIN}/oauth/callback`);
    expect(atStore.searchParams.get('code_challenge_method')).toBe('S256');
    // Our state for the store is our own, not the client's.
    expect(atStore.searchParams.get('state')).not.toBe('client-state');
    const again = await postForm(
      '/authorize',
      { consent: consent.handle, decision: 'approve' },
      { cookie: consent.cookie },
    );
    expect(again.status).toBe(400);
  });

  it('Cancel sends access_denied back to the client', async () => {
    const { register, authorizeUrl, openConsent, postForm } = setup();
    const clientId = (await register()).body.client_id as string;
    const consent = await openConsent(authorizeUrl(clientId).url);
    const denied = await postForm(
      '/authorize',
      { consent: consent.handle, decision: 'deny' },
      { cookie: consent.cookie },
    );
    const location = new URL(denied.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('client-state');
    expect(location.searchParams.has('code')).toBe(false);
  });
});

describe('the upstream callback', () => {
  it("passes the store's own error (access_denied) back to the client", async () => {
    const { register, authorizeUrl, openConsent, postForm, request } = setup();
    const clientId = (await register()).body.client_id as string;
    const consent = await openConsent(authorizeUrl(clientId).url);
    const approved = await postForm(
      '/authorize',
      { consent: consent.handle, decision: 'approve' },
      { cookie: consent.cookie },
    );
    const state = new URL(approved.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const back = await request(
      `/oauth/callback?error=access_denied&error_description=${encodeURIComponent('The user said "no"')}&state=${state}`,
      {
        headers: { cookie: consent.cookie },
      },
    );
    const location = new URL(back.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('error_description')).toBe(
      'the data store answered access_denied: The user said  no ',
    );
    expect(location.searchParams.get('state')).toBe('client-state');
    expect(location.searchParams.get('iss')).toBe(ORIGIN);
  });

  it('refuses an unknown state, and a callback in another browser, without redirecting', async () => {
    const { register, authorizeUrl, openConsent, postForm, request } = setup();
    expect((await request('/oauth/callback?code=x&state=unknown')).status).toBe(400);
    const clientId = (await register()).body.client_id as string;
    const consent = await openConsent(authorizeUrl(clientId).url);
    const approved = await postForm(
      '/authorize',
      { consent: consent.handle, decision: 'approve' },
      { cookie: consent.cookie },
    );
    const state = new URL(approved.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const elsewhere = await request(
      `/oauth/callback?code=${encodeURIComponent(`usrMallory|${state}`)}&state=${state}`,
    );
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
  });

  it('a failed code exchange at the store becomes server_error for the client', async () => {
    const { register, signIn, store } = setup();
    const clientId = (await register()).body.client_id as string;
    store.failExchange = true;
    const { location } = await signIn(clientId);
    expect(location.searchParams.get('error')).toBe('server_error');
    expect(location.searchParams.get('error_description')).toMatch(/Signing in to the data store failed/);
  });
});

describe('/token and the MCP endpoint', () => {
  it('exchanges a code once, with PKCE, for the client and redirect URI it was issued to', async () => {
    const { register, signIn, exchange, mcp } = setup();
    const clientId = (await register()).body.client_id as string;
    const other = (await register()).body.client_id as string;
    const { location, verifier } = await signIn(clientId);
    const code = location.searchParams.get('code') ?? '';
    expect(code).toMatch(/^sb_ac_/);
    expect(location.searchParams.get('state')).toBe('client-state');
    expect(location.searchParams.get('iss')).toBe(ORIGIN);

    // Each failed attempt uses the code up, so each failure case gets a fresh sign-in.
    expect(await exchange(other, code, verifier)).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    const second = await signIn(clientId);
    const wrongVerifier = await exchange(
      clientId,
      second.location.searchParams.get('code') ?? '',
      randomBytes(40).toString('base64url'),
    );
    expect(wrongVerifier.body).toMatchObject({ error: 'invalid_grant', error_description: /code_verifier/ });
    const third = await signIn(clientId);
    const wrongResource = await exchange(
      clientId,
      third.location.searchParams.get('code') ?? '',
      third.verifier,
      {
        resource: 'https://other.example/mcp',
      },
    );
    expect(wrongResource.body).toMatchObject({ error: 'invalid_target' });

    const fourth = await signIn(clientId);
    const fourthCode = fourth.location.searchParams.get('code') ?? '';
    const ok = await exchange(clientId, fourthCode, fourth.verifier);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp' });
    expect((await mcp(ok.body.access_token)).status).toBe(200);
    // A second use of the code: refused, and what the first use issued stops working (RFC 6749 §4.1.2).
    expect((await exchange(clientId, fourthCode, fourth.verifier)).body).toMatchObject({
      error: 'invalid_grant',
    });
    expect((await mcp(ok.body.access_token)).status).toBe(401);
  });

  it('keeps the DNS-rebinding checks: a hostile Host is refused before any token is looked at', async () => {
    const { app } = setup();
    const hostile = await app.request(`${ORIGIN}/mcp`, {
      method: 'POST',
      headers: { host: 'attacker.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(hostile.status).toBe(403);
    expect(hostile.headers.get('www-authenticate')).toBeNull();
  });

  it('refuses unknown clients and grant types, and a bad verifier shape', async () => {
    const { register, postForm, exchange } = setup();
    const unknown = await postForm('/token', { grant_type: 'authorization_code', client_id: 'sbc_nobody' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ error: 'invalid_client' });
    const clientId = (await register()).body.client_id as string;
    const implicit = await postForm('/token', { grant_type: 'password', client_id: clientId });
    expect(await implicit.json()).toMatchObject({ error: 'unsupported_grant_type' });
    expect((await exchange(clientId, 'sb_ac_x', 'short')).body).toMatchObject({ error: 'invalid_request' });
  });

  it('refresh rotates our tokens; an expired access token gets 401 invalid_token; the refreshed one works', async () => {
    const { register, signIn, exchange, postForm, mcp, clock } = setup();
    const clientId = (await register()).body.client_id as string;
    const { location, verifier } = await signIn(clientId);
    const first = (await exchange(clientId, location.searchParams.get('code') ?? '', verifier)).body;
    clock.advance(3600_000 + 1);
    const expired = await mcp(first.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(
      /error="invalid_token", error_description="The access token has expired\."/,
    );
    const wrongResource = await postForm('/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token ?? '',
      client_id: clientId,
      resource: 'https://other.example/mcp',
    });
    expect(await wrongResource.json()).toMatchObject({ error: 'invalid_target' });
    const refreshed = await postForm('/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token ?? '',
      client_id: clientId,
      resource: `${ORIGIN}/mcp`,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get('cache-control')).toBe('no-store');
    const second = (await refreshed.json()) as Record<string, string>;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await mcp(second.access_token)).status).toBe(200);
  });

  it('the 2025-11-25 protocol revision gets the verified caller too (raw JSON-RPC)', async () => {
    const { register, signIn, exchange, request } = setup();
    const clientId = (await register()).body.client_id as string;
    const { location, verifier } = await signIn(clientId, 'usrAda');
    const tokens = (await exchange(clientId, location.searchParams.get('code') ?? '', verifier)).body;
    const post = async (body: unknown, headers: Record<string, string> = {}) => {
      const response = await request('/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(body),
      });
      return JSON.parse(jsonRpcText(await response.text())) as { result?: Record<string, unknown> };
    };
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'legacy', version: '1' },
      },
    });
    expect(init.result?.protocolVersion).toBe('2025-11-25');
    const called = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Who.Calls', arguments: {} } },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(called.result?.structuredContent).toMatchObject({ principal: { subject: 'usrAda' } });
  });

  it('the tools receive the verified caller; an ended grant is refused at the door', async () => {
    const { register, signIn, exchange, vault, request } = setup();
    const clientId = (await register()).body.client_id as string;
    const { location, verifier } = await signIn(clientId, 'usrAlan');
    const tokens = (await exchange(clientId, location.searchParams.get('code') ?? '', verifier)).body;
    const client = new Client({ name: 'unit', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
        authProvider: { token: async () => tokens.access_token },
        fetch: (input, init) => request(String(input instanceof Request ? input.url : input), init),
      }),
    );
    const result = await client.callTool({ name: 'Who.Calls', arguments: {} });
    const principal = (result.structuredContent as { principal: { subject: string; grantId: string } })
      .principal;
    expect(principal.subject).toBe('usrAlan');
    expect(principal.grantId).toMatch(/^sbg_/);
    await vault.endGrant(principal.grantId, 'test');
    await expect(client.callTool({ name: 'Who.Calls', arguments: {} })).rejects.toThrow(UnauthorizedError);
    await client.close();
  });
});
