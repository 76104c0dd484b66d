// The in-process fixture of the per-user OAuth tests (auth-server, auth-security): our authorization server over an
// AuthVault (in memory, in a file, or one given: over Redis, a replica), a fake store behind it (PKCE-checked codes `user|state`, a token per user,
// whoami, every token it issued kept), and the HTTP app serving it with a Who.Calls tool behind /mcp. No sockets:
// each request goes through app.request with the origin's Host. Beside it, the client's and browser's side of the
// flow as helpers: registration, /authorize URLs, the consent page, approval, the store's callback, code exchange,
// refresh, and MCP requests with a bearer token. Grants are recorded as they are made.

import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { createAuthorizationServer } from '../../src/runtime/auth/authorizationServer.js';
import type { ClientMetadataDocuments } from '../../src/runtime/auth/clientMetadata.js';
import { type UpstreamOAuthClient, UserTokens } from '../../src/runtime/auth/userTokens.js';
import { AuthVault, type GrantRecord, type UpstreamTokenSet } from '../../src/runtime/auth/vault.js';
import { READ_ONLY } from '../../src/runtime/hints.js';
import { defineTool, type ServiceRuntime, type ToolCall } from '../../src/runtime/tool.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { createHttpApp } from '../../src/runtime/transports.js';
import { reconnectError } from '../../src/services/store/oauth.js';

export const LOOPBACK_ORIGIN = 'http://127.0.0.1:8787';
export const CLIENT_REDIRECT = 'http://127.0.0.1:50123/callback';
// Real time: the SDK's bearer check compares expiry with the wall clock as well as ours.
const START = Date.now();

export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** The store's side: PKCE-checked codes (`user|state`), a token per user, whoami; every token it issued kept. */
export class FakeStore implements UpstreamOAuthClient {
  readonly scopes = ['data.records:read', 'schema.bases:read'];
  readonly challenges = new Map<string, string>();
  readonly users = new Map<string, string>();
  readonly issued: string[] = [];
  /** When set, the store refuses every code exchange with invalid_grant. */
  failExchange = false;

  constructor(private readonly callback: string) {}

  authorizeUrl(o: { redirectUri: string; state: string; codeChallenge: string }): string {
    this.challenges.set(o.state, o.codeChallenge);
    const url = new URL('https://store.test/oauth2/v1/authorize');
    url.searchParams.set('redirect_uri', o.redirectUri);
    url.searchParams.set('state', o.state);
    url.searchParams.set('code_challenge', o.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    return url.toString();
  }
  async exchangeCode(o: {
    code: string;
    redirectUri: string;
    codeVerifier: string;
  }): Promise<UpstreamTokenSet> {
    if (this.failExchange)
      throw Object.assign(new Error('The data store refused the token request (invalid_grant).'), {
        code: 'invalid_grant',
      });
    const [user, state] = o.code.split('|') as [string, string];
    if (this.challenges.get(state) !== s256(o.codeVerifier)) throw new Error('PKCE mismatch at the store');
    if (o.redirectUri !== this.callback) throw new Error('redirect mismatch at the store');
    const accessToken = `oaa-${user}-${randomBytes(12).toString('hex')}`;
    const refreshToken = `oar-${user}-${randomBytes(12).toString('hex')}`;
    this.users.set(accessToken, user);
    this.issued.push(accessToken, refreshToken);
    return { accessToken, refreshToken, scopes: this.scopes, expiresAt: START + 3600_000 };
  }
  async refresh(): Promise<UpstreamTokenSet> {
    throw new Error('not used here');
  }
  async whoami(accessToken: string): Promise<{ id: string }> {
    return { id: this.users.get(accessToken) ?? 'nobody' };
  }
}

/** What a tool set is built from: the fake store and the per-call store tokens over the harness's vault. */
export interface AuthHarnessDeps {
  store: FakeStore;
  userTokens: UserTokens;
}

/** The `Who` service with its one tool, Who.Calls, answering what `run` makes of the call. */
function whoService(description: string, run: (call: ToolCall) => Promise<unknown>): ServiceRuntime {
  const service: ServiceRuntime<null> = {
    context: null,
    definition: {
      id: 'who',
      prefix: 'Who',
      title: 'Who',
      instructions: 'Who calls.',
      tools: [
        defineTool<null, z.ZodObject>({
          name: 'Calls',
          title: 'Who calls',
          description,
          input: z.object({}),
          hints: READ_ONLY,
          run: (_args, _ctx, call) => run(call),
        }),
      ],
    },
  };
  return service as ServiceRuntime;
}

/** Who.Calls answers the verified caller (`principal`). */
export const callerTools = (): ServiceRuntime[] => [
  whoService('The verified caller.', async (call) => ({ principal: call.principal ?? null })),
];

/** Who.Calls answers the verified caller and whose store token the call runs with: the person the fake store issued it to. */
export const callerAndStoreUserTools = ({ store, userTokens }: AuthHarnessDeps): ServiceRuntime[] => [
  whoService('The verified caller, and the owner of the store token the call runs with.', async (call) => {
    const token = await userTokens.tokenFor(call);
    return {
      principal: call.principal ?? null,
      storeUser: token ? (store.users.get(token) ?? 'unknown') : null,
    };
  }),
];

/** The body of a JSON-RPC answer, whether it came as JSON or as an event stream (its `data:` lines). */
export function jsonRpcText(text: string): string {
  return text.trimStart().startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
        .join('');
}

export interface AuthHarnessOptions {
  /** The server's public origin; requests carry its Host unless they set their own. Default: LOOPBACK_ORIGIN. */
  origin?: string;
  /** Where the vault keeps its rows. Default: in memory. */
  dbPath?: string;
  /**
   * The vault to serve instead (then `dbPath` and the harness clock do not apply): two harnesses over two vaults on
   * one Redis are two replicas behind a load balancer.
   */
  vault?: AuthVault;
  /** The fake store behind the server. Default: a new one; replicas share one, as they share the real store. */
  store?: FakeStore;
  /** The tools behind /mcp. Default: callerTools. */
  tools?: (deps: AuthHarnessDeps) => ServiceRuntime[];
  /** Send `resource=<origin>/mcp` (RFC 8707) with every code exchange unless the call says otherwise. Default: off. */
  exchangeResource?: boolean;
  /** Accept clients known by a metadata document URL (clientMetadata.ts). Default: registered clients only. */
  clientMetadata?: ClientMetadataDocuments;
}

export function authHarness(options: AuthHarnessOptions = {}) {
  const origin = options.origin ?? LOOPBACK_ORIGIN;
  const host = new URL(origin).host;
  let now = START;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const vault =
    options.vault ?? new AuthVault(options.dbPath ?? ':memory:', randomBytes(32), { now: clock.now });
  const store = options.store ?? new FakeStore(`${origin}/oauth/callback`);
  const userTokens = new UserTokens(vault, store, { reconnectError });
  const server = createAuthorizationServer({
    vault,
    upstream: store,
    publicUrl: new URL(origin),
    mcpPath: '/mcp',
    upstreamRedirectUrl: `${origin}/oauth/callback`,
    upstreamName: 'the data store',
    ...(options.clientMetadata ? { clientMetadata: options.clientMetadata } : {}),
  });
  const tools = (options.tools ?? callerTools)({ store, userTokens });
  const { app } = createHttpApp(buildToolSet(tools), { auth: server });
  const request = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('host')) headers.set('host', host);
    return Promise.resolve(
      app.request(path.startsWith('http') ? path : `${origin}${path}`, { ...init, headers }),
    );
  };
  const postForm = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  const register = async (metadata: Record<string, unknown> = {}) => {
    const response = await request('/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Test client', redirect_uris: [CLIENT_REDIRECT], ...metadata }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const registered = async (metadata: Record<string, unknown> = {}) => {
    const result = await register(metadata);
    if (result.status !== 201) throw new Error(`registration refused: ${JSON.stringify(result.body)}`);
    return result.body.client_id as string;
  };
  const authorizeUrl = (clientId: string, params: Record<string, string | undefined> = {}) => {
    const verifier = randomBytes(40).toString('base64url');
    const url = new URL('/authorize', origin);
    const all: Record<string, string | undefined> = {
      client_id: clientId,
      redirect_uri: CLIENT_REDIRECT,
      response_type: 'code',
      code_challenge: s256(verifier),
      code_challenge_method: 'S256',
      state: 'client-state',
      resource: `${origin}/mcp`,
      scope: 'mcp',
      ...params,
    };
    for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
    return { url: url.toString(), verifier };
  };
  /** GET /authorize in a browser: the consent page's handle and the browser cookie (name=value). */
  const openConsent = async (url: string, headers: Record<string, string> = {}) => {
    const response = await request(url, { headers });
    const html = await response.text();
    return {
      response,
      html,
      handle: /name="consent" value="([^"]+)"/.exec(html)?.[1] ?? '',
      cookie: (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
    };
  };
  /** Consent approved in the browser with `cookie`: where the browser is sent (http://invalid/ when refused). */
  const approveAt = async (handle: string, cookie: string) => {
    const approved = await postForm('/authorize', { consent: handle, decision: 'approve' }, { cookie });
    return new URL(approved.headers.get('location') ?? 'http://invalid/');
  };
  /** Consent approved in the browser with `cookie`: our state at the store ('' when refused). */
  const approve = async (handle: string, cookie: string) =>
    (await approveAt(handle, cookie)).searchParams.get('state') ?? '';
  const callbackPath = (user: string, state: string) =>
    `/oauth/callback?code=${encodeURIComponent(`${user}|${state}`)}&state=${encodeURIComponent(state)}`;
  /** The whole browser part for `clientId`: consent, the store's approval as `user`, the callback. */
  const signIn = async (
    clientId: string,
    user = 'usrGrace',
    params: Record<string, string | undefined> = {},
  ) => {
    const { url, verifier } = authorizeUrl(clientId, params);
    const consent = await openConsent(url);
    const atStore = await approveAt(consent.handle, consent.cookie);
    if (atStore.origin !== 'https://store.test') throw new Error(`consent not approved: ${atStore}`);
    const state = atStore.searchParams.get('state') ?? '';
    const back = await request(callbackPath(user, state), { headers: { cookie: consent.cookie } });
    const location = new URL(back.headers.get('location') ?? 'http://invalid/');
    return {
      back,
      location,
      code: location.searchParams.get('code') ?? '',
      verifier,
      consent,
      atStore,
      state,
    };
  };
  const exchange = async (
    clientId: string,
    code: string,
    verifier: string,
    extra: Record<string, string> = {},
  ) => {
    const response = await postForm('/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CLIENT_REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
      ...(options.exchangeResource ? { resource: `${origin}/mcp` } : {}),
      ...extra,
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, string>,
    };
  };
  const refresh = async (clientId: string, refreshToken: string) => {
    const response = await postForm('/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };
  /** Signed in and redeemed: our tokens for `clientId`, acting as `user`. */
  const connect = async (clientId: string, user = 'usrGrace') => {
    const { code, verifier } = await signIn(clientId, user);
    const tokens = await exchange(clientId, code, verifier);
    if (tokens.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(tokens.body)}`);
    return tokens.body;
  };
  const mcpInit = (headers: Record<string, string>, path = '/mcp', body?: string) =>
    request(path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: body ?? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  /** tools/list with `token`, or with no Authorization header at all. */
  const mcp = (token?: string) => mcpInit(token ? { authorization: `Bearer ${token}` } : {});
  /** tools/call of Who.Calls with `token`: the JSON-RPC result. */
  const whoCalls = async (token: string) => {
    const response = await mcpInit(
      { authorization: `Bearer ${token}` },
      '/mcp',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'Who.Calls', arguments: {} },
      }),
    );
    const json = jsonRpcText(await response.text());
    return {
      status: response.status,
      result: (JSON.parse(json) as { result: { isError?: boolean; structuredContent?: unknown } }).result,
      text: json,
    };
  };
  /** Grants as they are made, to look at them after the flow. */
  const grants: GrantRecord[] = [];
  const createGrant = vault.createGrant.bind(vault);
  vault.createGrant = async (input) => {
    const grant = await createGrant(input);
    grants.push(grant);
    return grant;
  };
  return {
    origin,
    clock,
    vault,
    store,
    server,
    app,
    request,
    postForm,
    register,
    registered,
    authorizeUrl,
    openConsent,
    approve,
    callbackPath,
    signIn,
    exchange,
    refresh,
    connect,
    mcp,
    mcpInit,
    whoCalls,
    grants,
  };
}
