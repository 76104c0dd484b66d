// Client ID metadata documents at our authorization server: a client whose client_id is the URL of its metadata
// document signs in without registering, the document fetched once (cached) from a real loopback server; each
// safeguard refuses with the reason named (the document's client_id, an unlisted redirect URI, size, time,
// redirects, private and loopback addresses, plain http, secret-based client authentication); and dynamic
// registration keeps working beside it.

import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressProblem,
  ClientMetadataDocuments,
  ClientMetadataError,
} from '../../src/runtime/auth/clientMetadata.js';
import { AuthSetupError, authSettingsFromEnv } from '../../src/runtime/auth/config.js';
import { authHarness, CLIENT_REDIRECT } from './authHarness.js';

let server: Server;
let base: string;
const hits = new Map<string, number>();

/** Documents by path; each names its own URL as client_id unless it is the point of the test not to. */
function documentFor(
  path: string,
): { status?: number; headers?: Record<string, string>; body?: string } | 'hang' {
  const self = `${base}${path}`;
  const good = { client_id: self, client_name: 'Doc\u202e Client', redirect_uris: [CLIENT_REDIRECT] };
  switch (path) {
    case '/clients/good.json':
      return { headers: { 'cache-control': 'max-age=600' }, body: JSON.stringify(good) };
    case '/clients/mismatch.json':
      return { body: JSON.stringify({ ...good, client_id: `${base}/clients/other.json` }) };
    case '/clients/large.json':
      return { body: JSON.stringify({ ...good, padding: 'x'.repeat(6000) }) };
    case '/clients/slow.json':
      return 'hang';
    case '/clients/moved.json':
      return { status: 302, headers: { location: `${base}/clients/good.json` } };
    case '/clients/jwt.json':
      return { body: JSON.stringify({ ...good, token_endpoint_auth_method: 'private_key_jwt' }) };
    case '/clients/secret.json':
      return { body: JSON.stringify({ ...good, client_secret: 'shh' }) };
    case '/clients/html.json':
      return { headers: { 'content-type': 'text/html' }, body: '<p>hi</p>' };
    default:
      return { status: 404, body: '{}' };
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = documentFor(path);
    if (answer === 'hang') return; // never answered: the fetch's time limit ends it
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const documents = () => new ClientMetadataDocuments({ allowLoopback: true, timeoutMs: 500 });

describe('a client known by its metadata document', () => {
  it('signs in without registering; the consent page names it and its host; the document is fetched once', async () => {
    const h = authHarness({ clientMetadata: documents() });
    const clientId = `${base}/clients/good.json`;
    const metadata = (await (await h.request('/.well-known/oauth-authorization-server')).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.registration_endpoint).toBe(`${h.origin}/register`);

    const { code, verifier, consent } = await h.signIn(clientId);
    expect(consent.response.status).toBe(200);
    // The name as the document gives it, cleaned of the bidi override; the host that vouches for it beside it.
    expect(consent.html).toContain('<span id="client-name">Doc  Client</span>');
    expect(consent.html).toContain(`<strong id="client-host">${new URL(base).host}</strong>`);
    const tokens = await h.exchange(clientId, code, verifier);
    expect(tokens.status).toBe(200);
    const who = await h.whoCalls(tokens.body.access_token as string);
    expect(who.result.structuredContent).toMatchObject({ principal: { subject: 'usrGrace' } });
    expect(h.grants.at(-1)?.clientId).toBe(clientId);
    const refreshed = await h.refresh(clientId, tokens.body.refresh_token as string);
    expect(refreshed.status).toBe(200);
    // authorize, token and refresh all used the one cached copy
    expect(hits.get('/clients/good.json')).toBe(1);
  });

  it('refuses a redirect_uri the document does not list, exactly (no loopback port leeway)', async () => {
    const h = authHarness({ clientMetadata: documents() });
    const clientId = `${base}/clients/good.json`;
    for (const redirect of ['http://127.0.0.1:50124/callback', 'http://127.0.0.1:50123/other']) {
      const { url } = h.authorizeUrl(clientId, { redirect_uri: redirect });
      const page = await h.openConsent(url);
      expect(page.response.status).toBe(400);
      expect(page.html).toContain(
        'This redirect_uri is not among the redirect_uris of the client&#39;s metadata document.',
      );
    }
  });

  it.each([
    ['/clients/mismatch.json', 'must equal the URL it is served at'],
    ['/clients/large.json', 'is larger than 5120 bytes'],
    ['/clients/slow.json', 'did not arrive within 500 ms'],
    ['/clients/moved.json', 'answered a redirect (302); redirects are not followed'],
    ['/clients/jwt.json', 'private_key_jwt is not supported here'],
    ['/clients/secret.json', 'may not contain client_secret'],
    ['/clients/html.json', 'must be served as application/json'],
    ['/clients/missing.json', 'answered HTTP 404'],
  ])('refuses %s at /authorize and /token, naming the reason', async (path, reason) => {
    const h = authHarness({ clientMetadata: documents() });
    const clientId = `${base}${path}`;
    const page = await h.openConsent(h.authorizeUrl(clientId).url);
    expect(page.response.status).toBe(400);
    expect(page.html).toContain('The client&#39;s metadata document cannot be used:');
    expect(page.html).toContain(reason);
    const token = await h.exchange(clientId, 'any-code', 'v'.repeat(43));
    expect(token.status).toBe(401);
    expect(token.body.error).toBe('invalid_client');
    expect(token.body.error_description).toContain(reason);
  });

  it('without the loopback test setting: plain http, loopback by address or by name are refused before connecting', async () => {
    const strict = new ClientMetadataDocuments();
    const before = hits.get('/clients/good.json') ?? 0;
    const port = new URL(base).port;
    const refusal = async (url: string) => {
      const error = await strict.client(url).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClientMetadataError);
      return (error as Error).message;
    };
    expect(await refusal(`${base}/clients/good.json`)).toBe(
      'A metadata document client_id must be an https URL.',
    );
    expect(await refusal(`https://127.0.0.1:${port}/clients/good.json`)).toContain(
      'resolves to the loopback address 127.0.0.1 (allowed only with SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK=1',
    );
    expect(await refusal(`https://localhost:${port}/clients/good.json`)).toMatch(
      /resolves to the loopback address (127\.0\.0\.1|::1)/,
    );
    expect(await refusal(`https://10.1.2.3/clients/good.json`)).toContain(
      'resolves to the private or special-use address 10.1.2.3',
    );
    expect(await refusal('https://[::ffff:a9fe:a9fe]/client.json')).toContain(
      'resolves to the private or special-use address ::ffff:a9fe:a9fe',
    );
    expect(await refusal('https://client.example/')).toContain('must have a path');
    expect(await refusal('https://client.example/a/../client.json')).toContain('not in normal form');
    expect(await refusal('https://user:pw@client.example/client.json')).toContain(
      'may not carry credentials',
    );
    expect(hits.get('/clients/good.json') ?? 0).toBe(before);
    // and at the server, a refused client never reaches the consent page
    const h = authHarness({ clientMetadata: strict });
    const page = await h.openConsent(h.authorizeUrl(`https://127.0.0.1:${port}/clients/good.json`).url);
    expect(page.response.status).toBe(400);
    expect(page.html).toContain('resolves to the loopback address');
  });

  it('judges addresses as the special-use registries do', () => {
    for (const address of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
    ]) {
      expect(addressProblem(address, true), address).toContain('private or special-use');
    }
    for (const address of ['fc00::1', 'fe80::1', '::', '::ffff:10.0.0.1', '::ffff:a00:1']) {
      expect(addressProblem(address, true), address).toContain('private or special-use');
    }
    expect(addressProblem('127.0.0.2', false)).toContain('loopback');
    expect(addressProblem('::1', false)).toContain('loopback');
    expect(addressProblem('127.0.0.2', true)).toBeUndefined();
    expect(addressProblem('93.184.215.14', false)).toBeUndefined();
    expect(addressProblem('2606:4700::1111', false)).toBeUndefined();
  });

  it('keeps dynamic registration for older clients, beside documents', async () => {
    const h = authHarness({ clientMetadata: documents() });
    const clientId = await h.registered();
    const tokens = await h.connect(clientId);
    expect(tokens.access_token).toBeTruthy();
    // A URL client id never names a registered client, and a registered id is never fetched.
    const page = await h.openConsent(h.authorizeUrl('sbc_not-registered').url);
    expect(page.html).toContain('No MCP client is registered with this client_id.');
  });

  it('without documents configured, a URL client id is an unknown client and metadata does not advertise it', async () => {
    const h = authHarness();
    const metadata = (await (await h.request('/.well-known/oauth-authorization-server')).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.client_id_metadata_document_supported).toBeUndefined();
    const page = await h.openConsent(h.authorizeUrl(`${base}/clients/good.json`).url);
    expect(page.html).toContain('No MCP client is registered with this client_id.');
  });

  it('SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK is off unless set to 1 or true, and refuses other values', () => {
    expect(authSettingsFromEnv({}).clientMetadataAllowLoopback).toBeUndefined();
    expect(
      authSettingsFromEnv({ SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK: '0' }).clientMetadataAllowLoopback,
    ).toBeUndefined();
    expect(
      authSettingsFromEnv({ SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK: '1' }).clientMetadataAllowLoopback,
    ).toBe(true);
    expect(() => authSettingsFromEnv({ SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK: 'yes' })).toThrow(
      AuthSetupError,
    );
    expect(() => authSettingsFromEnv({ SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK: 'yes' })).toThrow(
      'SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK must be 1 or 0 (true or false); got "yes".',
    );
  });
});
