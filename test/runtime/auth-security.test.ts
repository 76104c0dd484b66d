// An adversarial review of per-user OAuth over HTTP, attack by attack, through the real endpoints (in-process Hono
// requests, a fake store behind them): registration abuse (dangerous schemes, lookalike loopback hosts, URIs that
// parse differently from how they read, oversized and endless bodies), redirect URI matching (prefix, suffix,
// userinfo, fragments, traversal, ports), our consent page (what it shows, CSRF, the browser-binding cookie),
// the upstream callback (replay, stage confusion, injected errors), PKCE downgrades, authorization code injection and
// replay across clients, refresh token reuse and cross-client refresh, token audience and where a token may travel,
// secrets in logs and headers, and the sealed store tokens at rest (bound to their row, files owner-only).
//
// Each test names the clause it holds the server to. Tests marked "(fixed)" failed before the fix beside them.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { type GrantRecord, loadSecretKey } from '../../src/runtime/auth/vault.js';
import {
  type AuthHarnessOptions,
  authHarness,
  CLIENT_REDIRECT,
  callerAndStoreUserTools,
  LOOPBACK_ORIGIN,
  s256,
} from './authHarness.js';

const HTTPS_ORIGIN = 'https://switchboard.example.com';
const APP_REDIRECT = 'https://app.example.com/cb';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-authsec-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

// Who.Calls also answers whose store token the call runs with; code exchanges name no resource unless a test does.
const setup = (options: Pick<AuthHarnessOptions, 'origin' | 'dbPath'> = {}) =>
  authHarness({ ...options, tools: callerAndStoreUserTools });

/** A request body that never ends on its own (64 MiB of spaces, made as they are read), and how much was read. */
function endlessBody() {
  const chunk = 64 * 1024;
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= 64 * 1024 * 1024) {
        controller.close();
        return;
      }
      pulled += chunk;
      controller.enqueue(new Uint8Array(chunk).fill(0x20));
    },
  });
  return { stream, pulled: () => pulled };
}

// ---- registration -----------------------------------------------------------------------------------------------

describe('registration (RFC 7591 §5, RFC 6749 §3.1.2, RFC 8252 §7.3 and §8.4, MCP: https or loopback)', () => {
  it.each([
    'javascript:alert(document.cookie)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'vbscript:msgbox(1)',
    'com.example.app:/oauth/callback',
    'ws://127.0.0.1/cb',
    'ftp://127.0.0.1/cb',
    'http://evil.example/cb',
    'http://127.0.0.1.evil.example/cb',
    'http://localhost.evil.example/cb',
    'http://localhost./cb',
    'http://127.0.0.2/cb',
    'http://[::ffff:127.0.0.1]/cb',
    'http://0.0.0.0/cb',
    'https://app.example.com@evil.example/cb',
    'https://user:pw@app.example.com/cb',
    'http://app.example.com@127.0.0.1/cb',
    'https://app.example.com/cb#',
    'https://app.example.com/cb#frag',
    '/relative/cb',
    '//evil.example/cb',
  ])('refuses the redirect URI %s', async (uri) => {
    const { register } = setup();
    const refused = await register({ redirect_uris: [CLIENT_REDIRECT, uri] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_redirect_uri');
  });

  // (fixed) These parse to another URL than they read as (RFC 3986 does not allow their characters): the browser
  // would be sent to evil.example, or to a lookalike host, while the consent page showed app.example.com.
  it.each([
    ['a backslash, which URL parsers read as a slash', 'https://evil.example\\@app.example.com/cb'],
    ['a tab, which URL parsers drop', 'https://app.example.com\t.evil.example/cb'],
    ['a newline, which URL parsers drop', 'https://app.example.com/\ncb'],
    ['leading spaces, which URL parsers drop', '  https://app.example.com/cb'],
    ['a non-ASCII (homograph) host', 'https://\u0430pp.example.com/cb'],
    ['a bidi override', 'https://app.example.com/\u202ebc'],
  ])('(fixed) refuses a redirect URI with %s', async (_what, uri) => {
    const { register } = setup();
    const refused = await register({ redirect_uris: [uri] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_redirect_uri');
    // The refusal does not echo the control characters back.
    expect(String(refused.body.error_description)).not.toMatch(/[\t\n\u202e]/);
  });

  it('bounds what one registration may hold: 10 URIs, 2000 characters each, 16 KiB, strings only', async () => {
    const { register, request } = setup();
    const many = Array.from({ length: 11 }, (_, i) => `http://127.0.0.1/cb${i}`);
    expect((await register({ redirect_uris: many })).body.error).toBe('invalid_redirect_uri');
    const long = `https://app.example.com/${'a'.repeat(2000)}`;
    expect((await register({ redirect_uris: [long] })).body.error).toBe('invalid_redirect_uri');
    expect((await register({ redirect_uris: [CLIENT_REDIRECT, 42] })).body.error).toBe(
      'invalid_redirect_uri',
    );
    expect((await register({ redirect_uris: CLIENT_REDIRECT })).body.error).toBe('invalid_redirect_uri');
    const big = await register({ software_statement: 'x'.repeat(17 * 1024) });
    expect(big.status).toBe(400);
    expect(big.body.error_description).toMatch(/larger than/);
    // Declared too large: refused without reading it.
    const declared = await request('/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) },
      body: '{}',
    });
    expect(declared.status).toBe(400);
  });

  // (fixed) Every endpoint here answers anyone who reaches the port; each read the whole body before looking at
  // its size, so one request could make the server buffer gigabytes.
  it.each([
    ['/register', 'application/json'],
    ['/token', 'application/x-www-form-urlencoded'],
    ['/authorize', 'application/x-www-form-urlencoded'],
  ])('(fixed) %s stops reading an endless body after a few KiB', async (path, type) => {
    const { request } = setup();
    const body = endlessBody();
    const response = await request(path, {
      method: 'POST',
      headers: { 'content-type': type },
      body: body.stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(400);
    expect(body.pulled()).toBeLessThan(1024 * 1024);
  });

  it('(fixed) strips control, format and bidi characters from client_name; the page escapes the rest', async () => {
    const { register, authorizeUrl, openConsent } = setup();
    const registered = await register({
      client_name: 'Trusted\u202e</span><script>alert(1)</script>\u200b\u2028App\u0007',
    });
    expect(registered.status).toBe(201);
    const hidden = ['\u202e', '\u200b', '\u2028', '\u0007'];
    const name = String(registered.body.client_name);
    expect(hidden.filter((ch) => name.includes(ch))).toEqual([]);
    const consent = await openConsent(authorizeUrl(registered.body.client_id as string).url);
    expect(hidden.filter((ch) => consent.html.includes(ch))).toEqual([]);
    expect(consent.html).not.toContain('<script>');
    expect(consent.html).toContain('&lt;/span&gt;&lt;script&gt;');
  });

  it('gives every client public-client metadata only: no secret, no unknown metadata kept or echoed', async () => {
    const { register, vault } = setup();
    const ok = await register({
      token_endpoint_auth_method: 'client_secret_post',
      client_secret: 'chosen-by-the-client',
      logo_uri: 'https://evil.example/logo.png',
      jwks_uri: 'http://169.254.169.254/latest/meta-data/',
      scope: 'admin',
    });
    expect(ok.status).toBe(201);
    expect(ok.body).not.toHaveProperty('client_secret');
    expect(ok.body).not.toHaveProperty('logo_uri');
    expect(ok.body).not.toHaveProperty('jwks_uri');
    expect(ok.body).toMatchObject({ token_endpoint_auth_method: 'none', scope: 'mcp' });
    expect(JSON.stringify(await vault.client(ok.body.client_id as string))).not.toMatch(
      /evil|169\.254|chosen/,
    );
  });
});

// ---- redirect URI matching ------------------------------------------------------------------------------------

describe('redirect URI matching at /authorize (RFC 6749 §3.1.2.3 and §4.1.2.1, RFC 9700 §4.1.3)', () => {
  it.each([
    'https://app.example.com/cb/',
    'https://app.example.com/cb/evil',
    'https://app.example.com/cbx',
    'https://app.example.com/c',
    'https://app.example.com/cb?next=https://evil.example',
    'https://app.example.com/cb#@evil.example',
    'https://app.example.com/cb/../../evil',
    'https://app.example.com/cb%2F..%2Fevil',
    'https://app.example.com:443/cb',
    'https://app.example.com:8443/cb',
    'HTTPS://APP.EXAMPLE.COM/cb',
    'http://app.example.com/cb',
    'https://app.example.com.evil.example/cb',
    'https://evil.example/https://app.example.com/cb',
    'https://app.example.com@evil.example/cb',
    'https://evil.example\\@app.example.com/cb',
    'https://evil.example/cb',
    'http://127.0.0.1:50123/callback/',
    'http://127.0.0.1:50123/callback?x=1',
    'http://127.0.0.1:50123/callback#x',
    'http://127.0.0.1:50123/other',
    'http://127.0.0.1:50123/callback/../other',
    'http://localhost:50123/callback',
    'http://[::1]:50123/callback',
    'https://127.0.0.1:50123/callback',
    'http://user@127.0.0.1:50123/callback',
    'http://127.0.0.1.evil.example:50123/callback',
    'http://127.0.0.1:50123@evil.example/callback',
  ])('never redirects to the unregistered %s (an error page instead)', async (presented) => {
    const { registered, authorizeUrl, request } = setup();
    const clientId = await registered({ redirect_uris: [APP_REDIRECT, CLIENT_REDIRECT] });
    const response = await request(authorizeUrl(clientId, { redirect_uri: presented }).url);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('set-cookie')).toBeNull();
    const html = await response.text();
    expect(html).toMatch(/not registered/);
    expect(html).not.toContain('name="consent"');
  });

  it('a loopback URI matches on another port only (RFC 8252 §7.3), and the code goes to exactly that URI', async () => {
    const { registered, signIn } = setup();
    const clientId = await registered({ redirect_uris: [APP_REDIRECT, 'http://127.0.0.1/callback'] });
    const { location } = await signIn(clientId, 'usrGrace', {
      redirect_uri: 'http://127.0.0.1:40001/callback',
    });
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:40001/callback');
    expect(location.searchParams.get('code')).toMatch(/^sb_ac_/);
  });

  it('does not guess among several registered URIs when the request names none', async () => {
    const { registered, authorizeUrl, request } = setup();
    const clientId = await registered({ redirect_uris: [APP_REDIRECT, CLIENT_REDIRECT] });
    const response = await request(authorizeUrl(clientId, { redirect_uri: undefined }).url);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });

  it('escapes a hostile client_id and redirect_uri on the error page', async () => {
    const { registered, authorizeUrl, request } = setup();
    const clientId = await registered();
    for (const url of [
      authorizeUrl('"><script>alert(1)</script>').url,
      authorizeUrl(clientId, { redirect_uri: 'https://x.example/"><img src=x onerror=alert(1)>' }).url,
    ]) {
      const html = await (await request(url)).text();
      expect(html).not.toMatch(/<script>|<img/);
      expect(html).toMatch(/&lt;(script|img)/);
    }
  });
});

// ---- our consent page ---------------------------------------------------------------------------------------------

describe('our consent page (MCP security best practices: confused deputy, per-client consent, CSRF)', () => {
  it('(fixed) shows where the browser will really be sent, also for a URI registered before registration was strict', async () => {
    const { vault, authorizeUrl, openConsent, signIn } = setup();
    // As registered by an earlier version, which kept whatever parsed: reads as app.example.com, goes to evil.
    const raw = 'https://evil.example\\@app.example.com/cb';
    const client = await vault.registerClient({ name: 'Lookalike', redirectUris: [raw], metadata: {} });
    const consent = await openConsent(authorizeUrl(client.id, { redirect_uri: raw }).url);
    expect(consent.response.status).toBe(200);
    const shown = /<code id="redirect-uri">([^<]*)<\/code>/.exec(consent.html)?.[1];
    expect(shown).toBe('https://evil.example/@app.example.com/cb');
    const { location } = await signIn(client.id, 'usrGrace', { redirect_uri: raw });
    expect(location.origin).toBe('https://evil.example');
  });

  it('names the client and the store scopes before anything goes upstream; nothing is cached, framed or referred', async () => {
    const { registered, authorizeUrl, openConsent, store } = setup();
    const clientId = await registered({ client_name: 'Some Agent' });
    const consent = await openConsent(authorizeUrl(clientId).url);
    expect(consent.html).toContain('Some Agent');
    expect(consent.html).toContain(clientId);
    expect(consent.html).toContain(CLIENT_REDIRECT);
    for (const scope of store.scopes) expect(consent.html).toContain(`data-scope="${scope}"`);
    // Showing the page sent nobody to the store.
    expect(store.challenges.size).toBe(0);
    const headers = consent.response.headers;
    expect(headers.get('x-frame-options')).toBe('DENY');
    expect(headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('a GET cannot answer the consent form, nor a JSON post, a made-up handle, or a cross-site post', async () => {
    const { registered, authorizeUrl, openConsent, request, postForm, approve, origin } = setup();
    const clientId = await registered();
    const consent = await openConsent(authorizeUrl(clientId).url);
    const viaGet = await request(`/authorize?consent=${consent.handle}&decision=approve`, {
      headers: { cookie: consent.cookie },
    });
    expect(viaGet.status).toBe(400);
    expect(viaGet.headers.get('location')).toBeNull();
    const asJson = await request('/authorize', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: consent.cookie },
      body: JSON.stringify({ consent: consent.handle, decision: 'approve' }),
    });
    expect(asJson.status).toBe(400);
    const madeUp = await postForm(
      '/authorize',
      { consent: randomBytes(32).toString('base64url'), decision: 'approve' },
      { cookie: consent.cookie },
    );
    expect(madeUp.status).toBe(400);
    for (const evil of ['https://evil.example', 'http://127.0.0.1:9999', `${origin}.evil.example`]) {
      const crossSite = await postForm(
        '/authorize',
        { consent: consent.handle, decision: 'approve' },
        { cookie: consent.cookie, origin: evil },
      );
      expect(crossSite.status).toBe(403);
      expect(crossSite.headers.get('location')).toBeNull();
    }
    // `Origin: null` (a no-referrer or sandboxed page) passes the origin check; without the cookie it gets nowhere.
    const nullOrigin = await postForm(
      '/authorize',
      { consent: consent.handle, decision: 'approve' },
      { origin: 'null' },
    );
    expect(nullOrigin.status).toBe(400);
    // None of that used the request up.
    expect(await approve(consent.handle, consent.cookie)).not.toBe('');
  });

  it("another browser's cookie cannot answer this browser's form, and a handle answers only its own request", async () => {
    const { registered, authorizeUrl, openConsent, postForm, approve, store } = setup();
    const victimClient = await registered({ client_name: 'Victim client' });
    const attackerClient = await registered({ client_name: 'Attacker client' });
    const victim = await openConsent(authorizeUrl(victimClient).url);
    const attacker = await openConsent(authorizeUrl(attackerClient).url);
    expect(victim.cookie).not.toBe(attacker.cookie);
    const swapped = await postForm(
      '/authorize',
      { consent: victim.handle, decision: 'approve' },
      { cookie: attacker.cookie },
    );
    expect(swapped.status).toBe(400);
    const swappedBack = await postForm(
      '/authorize',
      { consent: attacker.handle, decision: 'approve' },
      { cookie: victim.cookie },
    );
    expect(swappedBack.status).toBe(400);
    expect(store.challenges.size).toBe(0);
    // A malformed cookie value is no cookie at all.
    const malformed = await postForm(
      '/authorize',
      { consent: victim.handle, decision: 'approve' },
      { cookie: `${victim.cookie.split('=')[0]}=${'A'.repeat(42)}` },
    );
    expect(malformed.status).toBe(400);
    expect(await approve(victim.handle, victim.cookie)).not.toBe('');
    expect(await approve(attacker.handle, attacker.cookie)).not.toBe('');
  });

  it('on https the binding cookie is __Host-, Secure, HttpOnly and SameSite=Lax; a cookie without the prefix is not taken', async () => {
    const { registered, authorizeUrl, openConsent, postForm, approve } = setup({ origin: HTTPS_ORIGIN });
    const clientId = await registered();
    const consent = await openConsent(authorizeUrl(clientId).url);
    const setCookie = consent.response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(
      /^__Host-switchboard-browser=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600; Secure$/,
    );
    expect(setCookie).not.toMatch(/Domain=/i);
    // A sibling site can plant `switchboard-browser` (no prefix) for the parent domain; it counts for nothing.
    const value = consent.cookie.split('=')[1] as string;
    const planted = await postForm(
      '/authorize',
      { consent: consent.handle, decision: 'approve' },
      { cookie: `switchboard-browser=${value}` },
    );
    expect(planted.status).toBe(400);
    expect(await approve(consent.handle, consent.cookie)).not.toBe('');
  });
});

// ---- the upstream callback ------------------------------------------------------------------------------------

describe('the upstream callback (RFC 6749 §10.12, RFC 9700 §4.7, RFC 9207)', () => {
  it('answers once: a replay of the callback, in the same or another browser, gives no second code', async () => {
    const { registered, signIn, request, callbackPath } = setup();
    const clientId = await registered();
    const first = await signIn(clientId);
    expect(first.code).toMatch(/^sb_ac_/);
    const path = callbackPath('usrGrace', first.state);
    for (const headers of [{ cookie: first.consent.cookie }, {}] as Record<string, string>[]) {
      const replay = await request(path, { headers });
      expect(replay.status).toBe(400);
      expect(replay.headers.get('location')).toBeNull();
    }
  });

  it('a consent handle is no upstream state, and an upstream state is no consent handle', async () => {
    const { registered, authorizeUrl, openConsent, approve, request, postForm, callbackPath } = setup();
    const clientId = await registered();
    const one = await openConsent(authorizeUrl(clientId).url);
    const asState = await request(callbackPath('usrMallory', one.handle), {
      headers: { cookie: one.cookie },
    });
    expect(asState.status).toBe(400);
    const state = await approve(one.handle, one.cookie);
    const asHandle = await postForm(
      '/authorize',
      { consent: state, decision: 'approve' },
      { cookie: one.cookie },
    );
    expect(asHandle.status).toBe(400);
    // Neither attempt used the upstream request up.
    const back = await request(callbackPath('usrGrace', state), { headers: { cookie: one.cookie } });
    expect(back.status).toBe(302);
  });

  it('passes a hostile upstream error on as data: a known code or server_error, a sanitised description, no injected parameters', async () => {
    const { registered, authorizeUrl, openConsent, approve, request } = setup();
    const clientId = await registered();
    for (const [error, expected] of [
      ['<script>alert(1)</script>', 'server_error'],
      ['access_denied\r\nSet-Cookie: x=1', 'server_error'],
      ['access_denied', 'access_denied'],
    ] as const) {
      const consent = await openConsent(
        authorizeUrl(clientId, { state: 'client&code=forged\r\nLocation: https://evil.example' }).url,
      );
      const state = await approve(consent.handle, consent.cookie);
      const back = await request(
        `/oauth/callback?state=${state}&error=${encodeURIComponent(error)}&error_description=${encodeURIComponent('"quoted" \\ \r\nX-Injected: 1 <b>')}&code=upstream-code`,
        { headers: { cookie: consent.cookie } },
      );
      expect(back.status).toBe(302);
      const raw = back.headers.get('location') ?? '';
      expect(raw).not.toMatch(/[\r\n]/);
      const location = new URL(raw);
      expect(location.searchParams.get('error')).toBe(expected);
      expect(location.searchParams.get('error_description')).not.toMatch(/["\\\r\n]/);
      expect(location.searchParams.getAll('code')).toEqual([]);
      expect(location.searchParams.get('state')).toBe('client&code=forged\r\nLocation: https://evil.example');
      expect(location.searchParams.get('iss')).toBe(LOOPBACK_ORIGIN);
      expect(back.headers.get('x-injected')).toBeNull();
    }
  });

  it('our PKCE and state at the store are our own; the redirect back neither refers nor caches, and carries no store secret', async () => {
    const { registered, authorizeUrl, openConsent, postForm, request, callbackPath, store } = setup();
    const clientId = await registered();
    const { url } = authorizeUrl(clientId);
    const clientChallenge = new URL(url).searchParams.get('code_challenge');
    const consent = await openConsent(url);
    const approved = await postForm(
      '/authorize',
      { consent: consent.handle, decision: 'approve' },
      { cookie: consent.cookie },
    );
    expect(approved.headers.get('referrer-policy')).toBe('no-referrer');
    const atStore = new URL(approved.headers.get('location') ?? '');
    expect(atStore.searchParams.get('code_challenge')).not.toBe(clientChallenge);
    expect(atStore.searchParams.get('state')).not.toBe('client-state');
    expect(atStore.searchParams.get('state')).not.toBe(consent.handle);
    expect(atStore.toString()).not.toContain(clientId);
    const state = atStore.searchParams.get('state') ?? '';
    const back = await request(callbackPath('usrGrace', state), { headers: { cookie: consent.cookie } });
    expect(back.headers.get('referrer-policy')).toBe('no-referrer');
    expect(back.headers.get('cache-control')).toBe('no-store');
    const location = back.headers.get('location') ?? '';
    for (const secret of store.issued) expect(location).not.toContain(secret);
    expect(location).not.toContain('usrGrace|');
  });
});

// ---- PKCE ---------------------------------------------------------------------------------------------------------

describe('PKCE (RFC 7636, OAuth 2.1 §4.1.1, RFC 9700 §2.1.1: S256 only)', () => {
  it.each([
    [{ code_challenge_method: 'plain' }],
    [{ code_challenge_method: undefined }],
    [{ code_challenge_method: 's256' }],
    [{ code_challenge_method: 'S512' }],
    [{ code_challenge: undefined, code_challenge_method: undefined }],
    [{ code_challenge: `${s256('x'.repeat(43))}=` }],
    [{ code_challenge: s256('x'.repeat(43)).replace(/^./, '+') }],
    [{ code_challenge: 'x'.repeat(43).replace(/^./, '/') }],
    [{ code_challenge: 'x'.repeat(128) }],
  ])('refuses the downgrade %j at /authorize, before any consent', async (params) => {
    const { registered, authorizeUrl, request } = setup();
    const clientId = await registered();
    const response = await request(authorizeUrl(clientId, params).url);
    expect(response.status).toBe(302);
    expect(response.headers.get('set-cookie')).toBeNull();
    const location = new URL(response.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.has('code')).toBe(false);
  });

  it('the token endpoint needs the verifier: not missing, not the challenge itself, not malformed', async () => {
    const { registered, signIn, exchange, postForm } = setup();
    const clientId = await registered();
    const { code, verifier, location } = await signIn(clientId);
    const missing = await postForm('/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CLIENT_REDIRECT,
      client_id: clientId,
    });
    expect(await missing.json()).toMatchObject({ error: 'invalid_request' });
    for (const bad of ['', 'a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(43)} `, `${'a'.repeat(43)}+`]) {
      expect((await exchange(clientId, code, bad)).body.error).toBe('invalid_request');
    }
    // A request refused for its shape does not use the code up.
    expect(location.searchParams.get('code')).toBe(code);
    const plain = await exchange(clientId, code, s256(verifier));
    expect(plain.body).toMatchObject({ error: 'invalid_grant', error_description: /code_verifier/ });
  });
});

// ---- authorization codes ------------------------------------------------------------------------------------------

describe('authorization codes (RFC 6749 §4.1.3 and §10.5, OAuth 2.1 §4.1.3, RFC 9700 §4.5)', () => {
  it('(fixed) another client cannot redeem a code, even with its verifier; the code and the grant behind it end', async () => {
    const { registered, signIn, exchange, grants, vault } = setup();
    const victim = await registered();
    const attacker = await registered();
    const { code, verifier } = await signIn(victim);
    const stolen = await exchange(attacker, code, verifier);
    expect(stolen.body).toMatchObject({ error: 'invalid_grant' });
    expect(stolen.body).not.toHaveProperty('access_token');
    // The store tokens the code stood for are not kept for nobody.
    const grant = grants.at(-1) as GrantRecord;
    expect((await vault.grant(grant.id))?.endedAt).toBeDefined();
    expect(await vault.upstreamTokens(grant.id)).toBeUndefined();
    // Used up for the rightful client as well (one try per code).
    expect((await exchange(victim, code, verifier)).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('(fixed) a code presented with another redirect URI, or a wrong verifier, is refused and its grant ended', async () => {
    const { registered, signIn, exchange, grants, vault } = setup();
    const clientId = await registered();
    const first = await signIn(clientId);
    const otherPort = await exchange(clientId, first.code, first.verifier, {
      redirect_uri: 'http://127.0.0.1:50124/callback',
    });
    expect(otherPort.body).toMatchObject({ error: 'invalid_grant', error_description: /redirect_uri/ });
    expect((await vault.grant((grants.at(-1) as GrantRecord).id))?.endedAt).toBeDefined();
    const second = await signIn(clientId);
    const wrong = await exchange(clientId, second.code, randomBytes(40).toString('base64url'));
    expect(wrong.body).toMatchObject({ error: 'invalid_grant' });
    expect(await vault.upstreamTokens((grants.at(-1) as GrantRecord).id)).toBeUndefined();
  });

  it('(fixed) a code expires after five minutes, and a code never redeemed does not keep its store tokens', async () => {
    const { registered, signIn, exchange, grants, vault, clock } = setup();
    const clientId = await registered();
    const late = await signIn(clientId);
    clock.advance(5 * 60_000 + 1);
    expect((await exchange(clientId, late.code, late.verifier)).body).toMatchObject({
      error: 'invalid_grant',
    });
    const lateGrant = grants.at(-1) as GrantRecord;
    expect(await vault.upstreamTokens(lateGrant.id)).toBeUndefined();
    // A client that never comes back for its code: once it has long expired, its grant is ended too.
    await signIn(clientId);
    const abandoned = grants.at(-1) as GrantRecord;
    expect(await vault.upstreamTokens(abandoned.id)).toBeDefined();
    clock.advance(2 * 5 * 60_000 + 1);
    await signIn(clientId);
    expect((await vault.grant(abandoned.id))?.endedAt).toBeDefined();
    expect(await vault.upstreamTokens(abandoned.id)).toBeUndefined();
  });

  it('a replayed code ends everything the first redemption issued, refresh token included', async () => {
    const { registered, signIn, exchange, refresh, mcp } = setup();
    const clientId = await registered();
    const { code, verifier } = await signIn(clientId);
    const first = await exchange(clientId, code, verifier);
    expect(first.status).toBe(200);
    expect((await exchange(clientId, code, verifier)).body.error).toBe('invalid_grant');
    expect((await mcp(first.body.access_token)).status).toBe(401);
    expect((await refresh(clientId, first.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });

  it('a code is not a token, and a token is not a code', async () => {
    const { registered, signIn, exchange, refresh, mcp, connect } = setup();
    const clientId = await registered();
    const { code } = await signIn(clientId);
    expect((await mcp(code)).status).toBe(401);
    expect((await refresh(clientId, code)).body.error).toBe('invalid_grant');
    const tokens = await connect(clientId);
    for (const token of [tokens.access_token, tokens.refresh_token] as string[]) {
      expect((await exchange(clientId, token, randomBytes(40).toString('base64url'))).body.error).toBe(
        'invalid_grant',
      );
    }
  });
});

// ---- refresh tokens -----------------------------------------------------------------------------------------------

describe('refresh tokens (RFC 6749 §6 and §10.4, RFC 9700 §4.14.2, OAuth 2.1 §4.3.1)', () => {
  it('are bound to their client: another client gets the same answer as for an unknown token, and uses nothing up', async () => {
    const { registered, connect, refresh } = setup();
    const victim = await registered();
    const attacker = await registered();
    const tokens = await connect(victim);
    const crossClient = await refresh(attacker, tokens.refresh_token as string);
    const unknown = await refresh(attacker, `sb_rt_${randomBytes(32).toString('base64url')}`);
    expect(crossClient).toEqual(unknown);
    expect(crossClient.body).not.toHaveProperty('access_token');
    expect((await refresh(victim, tokens.refresh_token as string)).status).toBe(200);
  });

  it('a rotated refresh token coming back ends the connection: the newest tokens stop too', async () => {
    const { registered, connect, refresh, mcp } = setup();
    const clientId = await registered();
    const first = await connect(clientId);
    const second = await refresh(clientId, first.refresh_token as string);
    expect(second.status).toBe(200);
    expect((await mcp(first.access_token)).status).toBe(401);
    expect((await mcp(second.body.access_token)).status).toBe(200);
    const reused = await refresh(clientId, first.refresh_token as string);
    expect(reused.body).toMatchObject({ error: 'invalid_grant' });
    expect((await mcp(second.body.access_token)).status).toBe(401);
    expect((await refresh(clientId, second.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });

  it('an access token is not a refresh token, and a refresh token opens no MCP session', async () => {
    const { registered, connect, refresh, mcp } = setup();
    const clientId = await registered();
    const tokens = await connect(clientId);
    expect((await refresh(clientId, tokens.access_token as string)).body.error).toBe('invalid_grant');
    expect((await mcp(tokens.refresh_token)).status).toBe(401);
    expect((await mcp(tokens.access_token)).status).toBe(200);
  });
});

// ---- the protected resource ---------------------------------------------------------------------------------------

describe('the MCP endpoint (RFC 6750 §2, RFC 8707, RFC 9728, MCP: audience, no passthrough)', () => {
  it('refuses a token of ours issued for another resource, with a challenge that says where to sign in', async () => {
    const { registered, connect, vault, mcp, grants, origin } = setup();
    const clientId = await registered();
    await connect(clientId);
    const grant = grants.at(-1) as GrantRecord;
    for (const resource of [
      'https://other.example/mcp',
      `${origin}/mcp/other`,
      `${origin}/`,
      'http://localhost:8787/mcp',
    ]) {
      const foreign = await vault.issueTokens({ grantId: grant.id, clientId, resource, scope: 'mcp' });
      const refused = await mcp(foreign.accessToken);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      expect(refused.headers.get('www-authenticate')).toContain(
        `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      );
    }
    // RFC 8707 names resources without a fragment; one trailing slash is the same resource.
    const same = await vault.issueTokens({
      grantId: grant.id,
      clientId,
      resource: `${origin}/mcp/`,
      scope: 'mcp',
    });
    expect((await mcp(same.accessToken)).status).toBe(200);
  });

  it('takes the token from the Authorization header only: not the query, a form body or a cookie', async () => {
    const { registered, connect, request, mcpInit } = setup();
    const clientId = await registered();
    const { access_token: token } = await connect(clientId);
    expect((await mcpInit({}, `/mcp?access_token=${token}`)).status).toBe(401);
    expect((await mcpInit({ cookie: `access_token=${token}` })).status).toBe(401);
    const form = await request('/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json, text/event-stream',
      },
      body: `access_token=${token}`,
    });
    expect(form.status).toBe(401);
    expect((await mcpInit({ authorization: `Basic ${token}` })).status).toBe(401);
    expect((await mcpInit({ authorization: `Bearer ${token}x` })).status).toBe(401);
    expect((await mcpInit({ authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('each person’s call runs with their own store token; our token never goes to the store', async () => {
    const { registered, connect, whoCalls, store } = setup();
    const clientId = await registered();
    const grace = await connect(clientId, 'usrGrace');
    const alan = await connect(clientId, 'usrAlan');
    const asGrace = await whoCalls(grace.access_token as string);
    const asAlan = await whoCalls(alan.access_token as string);
    expect(asGrace.result.structuredContent).toMatchObject({
      principal: { subject: 'usrGrace' },
      storeUser: 'usrGrace',
    });
    expect(asAlan.result.structuredContent).toMatchObject({
      principal: { subject: 'usrAlan' },
      storeUser: 'usrAlan',
    });
    for (const ours of [grace.access_token, alan.access_token] as string[]) {
      expect(store.users.has(ours)).toBe(false);
      expect(asGrace.text + asAlan.text).not.toContain(ours);
    }
  });

  it('builds every discovery URL from the configured origin, whatever Host or X-Forwarded-* say', async () => {
    const { request, origin } = setup({ origin: HTTPS_ORIGIN });
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await request(path, {
        headers: {
          host: 'evil.example',
          'x-forwarded-host': 'evil.example',
          'x-forwarded-proto': 'http',
        },
      });
      const text = await response.text();
      expect(text).not.toContain('evil.example');
      expect(text).toContain(origin);
    }
    const unauthorized = await request('/mcp', {
      method: 'POST',
      headers: { host: 'switchboard.example.com', 'x-forwarded-host': 'evil.example' },
      body: '{}',
    });
    expect(unauthorized.headers.get('www-authenticate')).not.toContain('evil.example');
  });
});

// ---- secrets ------------------------------------------------------------------------------------------------------

describe('secrets in answers, headers and logs (RFC 6749 §5.1, RFC 9700 §4.2, MCP: tokens never logged)', () => {
  it('token answers are never cached; errors do not echo a presented secret', async () => {
    const { registered, signIn, exchange, refresh } = setup();
    const clientId = await registered();
    const { code, verifier } = await signIn(clientId);
    const ok = await exchange(clientId, code, verifier);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.headers.get('pragma')).toBe('no-cache');
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    const again = await exchange(clientId, code, verifier);
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(JSON.stringify(again.body)).not.toContain(code);
    expect(JSON.stringify(again.body)).not.toContain(verifier);
    const refused = await refresh(clientId, ok.body.access_token as string);
    expect(JSON.stringify(refused.body)).not.toContain(ok.body.access_token);
  });

  it('a whole sign-in, use and refresh logs no code, token, verifier or store token', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const { registered, signIn, exchange, refresh, whoCalls, store } = setup();
    const clientId = await registered();
    const { code, verifier, state } = await signIn(clientId);
    const tokens = (await exchange(clientId, code, verifier)).body;
    await whoCalls(tokens.access_token as string);
    const rotated = (await refresh(clientId, tokens.refresh_token as string)).body;
    await refresh(clientId, tokens.refresh_token as string);
    vi.restoreAllMocks();
    const log = lines.join('');
    expect(log).toMatch(/person connected/);
    expect(log).toMatch(/refresh token used twice/);
    const secrets = [
      code,
      verifier,
      state,
      tokens.access_token,
      tokens.refresh_token,
      rotated.access_token,
      rotated.refresh_token,
      ...store.issued,
    ] as string[];
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});

// ---- sealed store tokens at rest ----------------------------------------------------------------------------------

describe('the sealed store tokens at rest (AES-256-GCM bound to row and column)', () => {
  it('a sealed token moved to another person’s row opens for nobody: the call asks to reconnect, never acts as the other', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'auth.db');
    const { registered, connect, whoCalls, grants } = setup({ dbPath });
    const clientId = await registered();
    const grace = await connect(clientId, 'usrGrace');
    const mallory = await connect(clientId, 'usrMallory');
    const [graceGrant, malloryGrant] = grants as [GrantRecord, GrantRecord];
    // Someone with write access to auth.db (not to the key) copies Grace's sealed tokens into Mallory's row.
    const db = new Database(dbPath);
    try {
      const row = db
        .prepare('SELECT access_token, refresh_token FROM grants WHERE id = ?')
        .get(graceGrant.id) as { access_token: string; refresh_token: string };
      db.prepare('UPDATE grants SET access_token = ?, refresh_token = ? WHERE id = ?').run(
        row.access_token,
        row.refresh_token,
        malloryGrant.id,
      );
      // Every sealed value has its own IV.
      const ivs = (
        db.prepare('SELECT access_token AS a, refresh_token AS r FROM grants').all() as {
          a: string;
          r: string;
        }[]
      )
        .flatMap(({ a, r }) => [a, r])
        .map((sealed) => Buffer.from(sealed.slice(3), 'base64').subarray(0, 12).toString('hex'));
      // Mallory's row now holds copies of Grace's values, IVs and all; Grace's two are distinct.
      expect(new Set(ivs).size).toBe(2);
    } finally {
      db.close();
    }
    const asMallory = await whoCalls(mallory.access_token as string);
    expect(asMallory.result.isError).toBe(true);
    expect(asMallory.text).toMatch(/renewed|reconnect|Sign in again/i);
    expect(asMallory.text).not.toContain('usrGrace');
    // Grace is unaffected.
    expect((await whoCalls(grace.access_token as string)).result.structuredContent).toMatchObject({
      storeUser: 'usrGrace',
    });
  });

  it('an upstream verifier moved to another sign-in in flight does not open: that callback is refused', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'auth.db');
    const { registered, authorizeUrl, openConsent, approve, request, callbackPath } = setup({ dbPath });
    const clientId = await registered();
    const a = await openConsent(authorizeUrl(clientId).url);
    const b = await openConsent(authorizeUrl(clientId).url);
    const stateA = await approve(a.handle, a.cookie);
    const stateB = await approve(b.handle, b.cookie);
    const db = new Database(dbPath);
    try {
      const rows = db
        .prepare("SELECT handle_hash, upstream_verifier FROM pending WHERE stage = 'upstream'")
        .all() as { handle_hash: string; upstream_verifier: string }[];
      expect(rows).toHaveLength(2);
      const [x, y] = rows as [(typeof rows)[0], (typeof rows)[0]];
      const swap = db.prepare('UPDATE pending SET upstream_verifier = ? WHERE handle_hash = ?');
      swap.run(y.upstream_verifier, x.handle_hash);
      swap.run(x.upstream_verifier, y.handle_hash);
    } finally {
      db.close();
    }
    for (const [state, cookie] of [
      [stateA, a.cookie],
      [stateB, b.cookie],
    ] as const) {
      const back = await request(callbackPath('usrGrace', state), { headers: { cookie } });
      expect(back.status).toBe(400);
      expect(back.headers.get('location')).toBeNull();
    }
  });

  it('auth.db, its -wal and -shm files and a generated secret.key are owner-only, in an owner-only folder', async () => {
    const dir = join(tempDir(), 'data');
    const key = loadSecretKey(undefined, dir);
    expect(key.origin).toBe('generated');
    const dbPath = join(dir, 'auth.db');
    const { registered, connect, vault } = setup({ dbPath });
    await connect(await registered());
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of ['secret.key', 'auth.db', 'auth.db-wal', 'auth.db-shm']) {
      expect((statSync(join(dir, name)).mode & 0o777).toString(8), name).toBe('600');
    }
    await vault.close();
  });
});
