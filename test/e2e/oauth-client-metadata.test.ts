// Client ID metadata documents end to end: the SDK's MCP client, its OAuthClientProvider giving a
// `clientMetadataUrl`, signs in to `switchboard serve` (per-user OAuth in front of the store emulator) with that URL
// as its client_id, never registering. The document is served over https on loopback by a tiny node:https server
// (a self-signed certificate from test/e2e/fixtures), reachable only because the test setting
// SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK=1 is on. The person's tool calls then run as that person, over the
// SDK client's own revision and as a 2026-07-28 request with the same token; with the setting off, the same client
// is refused at our /authorize, which names why.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeHandle, startServe } from '../../src/cli/serve.js';
import {
  SANDBOX_OAUTH_CLIENT_ID,
  SANDBOX_OAUTH_CLIENT_SECRET,
} from '../../src/services/store/emulator/oauth.js';
import { jsonRpcText } from '../runtime/authHarness.js';
import { type Connected, connectClient } from './harness.js';
import { PersonProvider } from './oauthSignIn.js';
import { type StoreEmulatorHandle, startStore } from './storeHarness.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const REDIRECT = 'http://127.0.0.1:54210/callback';
const SECRET_KEY = Buffer.alloc(32, 9).toString('base64');

let store: StoreEmulatorHandle;
let documentServer: Server;
let documentUrl: string;
let documentFetches = 0;
const servers: ServeHandle[] = [];
const dataDirs: string[] = [];

/** A person's MCP client whose client_id is the URL of its metadata document. */
class DocumentClient extends PersonProvider {
  readonly clientMetadataUrl = documentUrl;
}

async function serveStore(extra: Record<string, string>): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cimd-'));
  dataDirs.push(dataDir);
  const serve = await startServe(
    ['store'],
    {
      transport: 'http',
      host: '127.0.0.1',
      port: 0,
      sandbox: false,
      reset: false,
      readOnly: false,
      toolNames: 'dotted',
    },
    {
      STORE_BASE_URL: store.url,
      STORE_OAUTH_CLIENT_ID: SANDBOX_OAUTH_CLIENT_ID,
      STORE_OAUTH_CLIENT_SECRET: SANDBOX_OAUTH_CLIENT_SECRET,
      SWITCHBOARD_SECRET_KEY: SECRET_KEY,
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_CLIENT_RATE_LIMITS: 'off',
      ...extra,
    },
  );
  servers.push(serve);
  return serve.url as string;
}

/** Connects as `provider`'s person, signing in when asked; `requests` records each request the client sends. */
async function connectAs(provider: DocumentClient, mcpUrl: string, requests: string[]): Promise<Connected> {
  const transportFor = () =>
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      authProvider: provider,
      fetch: (input: string | URL | Request, init?: RequestInit) => {
        const url = new URL(input instanceof Request ? input.url : input);
        const version = new Headers(init?.headers).get('mcp-protocol-version');
        requests.push(`${init?.method ?? 'GET'} ${url.pathname}${version ? ` ${version}` : ''}`);
        return fetch(input, init);
      },
    });
  const first = transportFor();
  try {
    return await connectClient(first);
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !provider.callback) throw error;
  }
  await first.finishAuth(provider.callback.searchParams);
  return connectClient(transportFor());
}

beforeAll(async () => {
  store = await startStore();
  documentServer = createServer(
    { key: fixture('loopback-test-key.pem'), cert: fixture('loopback-test-cert.pem') },
    (req, res) => {
      documentFetches++;
      if (req.url !== '/clients/switchboard-e2e.json') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' });
      res.end(
        JSON.stringify({
          client_id: documentUrl,
          client_name: 'CIMD E2E client',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
    },
  );
  await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
  const address = documentServer.address();
  documentUrl = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/clients/switchboard-e2e.json`;
});

afterAll(async () => {
  for (const serve of servers) await serve.close();
  documentServer?.closeAllConnections();
  await new Promise<void>((resolve) => (documentServer ? documentServer.close(() => resolve()) : resolve()));
  await store?.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('signing in with a client ID metadata document', () => {
  it('the SDK client uses its document URL as client_id, never registers, and calls tools as the person', async () => {
    const mcpUrl = await serveStore({ SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK: '1' });
    const grace = store.emulator.store.schema().users.find((u) => u.name === 'Grace Hopper') as {
      id: string;
    };
    const provider = new DocumentClient(grace.id, REDIRECT);
    const requests: string[] = [];
    const person = await connectAs(provider, mcpUrl, requests);
    try {
      expect(provider.savedClient?.client_id).toBe(documentUrl);
      expect(requests.some((r) => r.startsWith('POST /register'))).toBe(false);
      expect(requests.some((r) => r.startsWith('POST /token'))).toBe(true);
      expect(documentFetches).toBe(1); // authorize fetched it; the token exchange used the cached copy

      // The SDK client's own revision.
      const me = await person.call('StoreApi.RetrieveUserIdAndScopes');
      expect(me.isError).toBe(false);
      expect(me.structured.id).toBe(grace.id);
      const sdkRevision = requests.at(-1)?.split(' ')[2];
      expect(sdkRevision).toBeTruthy();

      // The other revision, with the token the document client holds.
      const other = sdkRevision === '2026-07-28' ? '2025-11-25' : '2026-07-28';
      const token = provider.savedTokens?.access_token as string;
      const modern = other === '2026-07-28';
      const response = await fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': other,
          ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': 'StoreApi.RetrieveUserIdAndScopes' } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'StoreApi.RetrieveUserIdAndScopes',
            arguments: {},
            ...(modern
              ? {
                  _meta: {
                    'io.modelcontextprotocol/protocolVersion': other,
                    'io.modelcontextprotocol/clientCapabilities': {},
                  },
                }
              : {}),
          },
        }),
      });
      const text = jsonRpcText(await response.text());
      expect(response.status, text).toBe(200);
      const result = (
        JSON.parse(text) as { result: { isError?: boolean; structuredContent: { id: string } } }
      ).result;
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent.id).toBe(grace.id);
    } finally {
      await person.close();
    }
  });

  it('with the loopback setting off (the default), the same client is refused at /authorize with the reason', async () => {
    const mcpUrl = await serveStore({});
    const origin = new URL(mcpUrl).origin;
    const metadata = (await (
      await fetch(`${origin}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    const provider = new DocumentClient('usrAny', REDIRECT);
    const error = await connectAs(provider, mcpUrl, []).catch((e: unknown) => e);
    expect(String(error)).toContain('resolves to the loopback address 127.0.0.1');
    expect(String(error)).toContain('SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK=1');
  });
});
