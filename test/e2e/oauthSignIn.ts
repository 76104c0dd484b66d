// A person signing in with per-user OAuth, as the e2e tests drive it: the browser's part done with fetch as a
// browser follows it (our consent page, the store emulator's consent page where the store user approves, our
// callback), and the MCP client's OAuth provider, kept in memory as a desktop client keeps it. Shared by
// oauth-http.test.ts (one server) and the replicas proof (each step may land on another replica).

import type { OAuthClientProvider } from '@modelcontextprotocol/client';

/**
 * Follows the sign-in for `storeUser`. Returns where the MCP client was sent back to (its redirect URI, with our
 * code), and the code the store gave our callback (a secret the tests search logs and databases for).
 */
export async function signInThroughBrowser(
  authorizationUrl: URL,
  storeUser: string,
): Promise<{ callback: URL; storeCode: string }> {
  let cookie = '';
  const keepCookie = (response: Response) => {
    const set = response.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
  };
  // 1. Our /authorize: the consent page naming the MCP client, and a browser-binding cookie.
  const consent = await fetch(authorizationUrl, { redirect: 'manual' });
  keepCookie(consent);
  const consentHtml = await consent.text();
  const handle = /name="consent" value="([^"]+)"/.exec(consentHtml)?.[1];
  if (consent.status !== 200 || !handle) throw new Error(`no consent page: ${consent.status} ${consentHtml}`);
  // 2. Continue: off to the store's consent page.
  const decided = await fetch(new URL('/authorize', authorizationUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ consent: handle, decision: 'approve' }).toString(),
  });
  const storePageUrl = decided.headers.get('location');
  if (decided.status !== 302 || !storePageUrl) {
    throw new Error(`our consent was not accepted: ${decided.status} ${await decided.text()}`);
  }
  // 3. The store's consent page, where the emulated user is picked.
  const storePage = await fetch(new URL(storePageUrl, authorizationUrl), { redirect: 'manual' });
  const storeHtml = await storePage.text();
  const requestId = /name="request_id" value="([^"]+)"/.exec(storeHtml)?.[1];
  if (storePage.status !== 200 || !requestId) throw new Error(`no store consent page: ${storeHtml}`);
  const approved = await fetch(new URL('/oauth2/v1/authorize', storePage.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request_id: requestId, decision: 'approve', user: storeUser }).toString(),
  });
  const toCallback = approved.headers.get('location');
  if (!toCallback) throw new Error(`the store did not send the person back: ${approved.status}`);
  // 4. Back through our callback, which answers the MCP client's redirect URI.
  const back = await fetch(toCallback, { redirect: 'manual', headers: { cookie } });
  const toClient = back.headers.get('location');
  if (!toClient)
    throw new Error(`our callback did not answer the client: ${back.status} ${await back.text()}`);
  return {
    callback: new URL(toClient),
    storeCode: new URL(toCallback).searchParams.get('code') ?? '',
  };
}

type SavedTokens = Parameters<OAuthClientProvider['saveTokens']>[0];
type SavedClient = Parameters<NonNullable<OAuthClientProvider['saveClientInformation']>>[0];
type Discovery = Parameters<NonNullable<OAuthClientProvider['saveDiscoveryState']>>[0];

/** An MCP client's OAuth side for one person. `noteSecret` sees every token, code and verifier it holds. */
export class PersonProvider implements OAuthClientProvider {
  savedClient: SavedClient | undefined;
  savedTokens: SavedTokens | undefined;
  verifier = '';
  discovery: Discovery | undefined;
  /** Where the last sign-in sent the client back to. */
  callback: URL | undefined;
  signIns = 0;

  constructor(
    readonly storeUser: string,
    readonly redirect = 'http://127.0.0.1:53999/callback',
  ) {}

  /** Called with each secret the client comes to hold; nothing by default. */
  protected noteSecret(_secret: string): void {}

  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      client_name: `E2E client of ${this.storeUser}`,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return `state-${this.storeUser}-${this.signIns}`;
  }
  clientInformation() {
    return this.savedClient;
  }
  saveClientInformation(info: SavedClient) {
    this.savedClient = info;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: SavedTokens) {
    this.savedTokens = tokens;
    this.noteSecret(tokens.access_token);
    this.noteSecret(tokens.refresh_token ?? '');
  }
  async redirectToAuthorization(url: URL) {
    this.signIns++;
    const { callback, storeCode } = await signInThroughBrowser(url, this.storeUser);
    this.callback = callback;
    this.noteSecret(storeCode);
    this.noteSecret(callback.searchParams.get('code') ?? '');
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
    this.noteSecret(verifier);
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: Discovery) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.savedTokens = undefined;
    if (scope === 'all' || scope === 'client') this.savedClient = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}
