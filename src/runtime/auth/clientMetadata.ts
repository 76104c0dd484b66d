// Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document; the MCP authorization spec's
// preferred way for a client to identify itself since 2025-11-25): a client presents an https URL as its client_id,
// and we fetch the JSON document there instead of looking the client up among the registered ones.
//
// Fetching a URL anyone can name is a server-side request forgery risk, so the fetch is fenced as the MCP spec's
// security considerations ask: https only; every address the host resolves to is checked before connecting (the
// connection uses the checked address, so a DNS answer that changes between check and connect cannot reach an
// internal host); no private, loopback, link-local or otherwise special addresses; no redirects; at most
// MAX_DOCUMENT_BYTES within FETCH_TIMEOUT_MS. Loopback is allowed only when a test setting says so
// (SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK), and then over http as well, and an https certificate on loopback is
// not checked (a test's self-signed one: the bytes never leave the machine).
//
// Documents are cached in this process for what their Cache-Control says, kept between MIN_CACHE_MS and
// MAX_CACHE_MS, so a sign-in (authorize, then token) fetches once and a client's change shows within a day.

import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { log } from '../log.js';
import type { ClientRecord } from './authState.js';
import { isLoopbackHost } from './config.js';
import { MAX_URI_LENGTH, redirectUriProblem } from './redirectUris.js';
import { cleanClientName, jsonObject, MAX_REDIRECT_URIS } from './registration.js';
import { describable } from './responses.js';
import type { AuthVault } from './vault.js';

export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 5_000;
export const MIN_CACHE_MS = 5 * 60_000;
export const MAX_CACHE_MS = 24 * 60 * 60_000;
/** Without caching headers, a document is kept an hour. */
const DEFAULT_CACHE_MS = 60 * 60_000;
/** Anyone can name a URL: the cache holds this many documents at most, the oldest leaving first. */
const MAX_CACHED = 1000;

/** Why a metadata document was not used; `message` names the reason and the fix, for the client's developer. */
export class ClientMetadataError extends Error {
  override name = 'ClientMetadataError';
}

export interface ClientMetadataOptions {
  /** Test setting: documents may be served from loopback addresses, over http too. Default false. */
  allowLoopback?: boolean;
  maxBytes?: number;
  timeoutMs?: number;
  now?: () => number;
}

/** A client_id that names a metadata document: an http(s) URL. Registered clients' ids are `sbc_…`. */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

// Addresses a document may never come from (IANA special-purpose registries), loopback kept apart.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
const SPECIAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  SPECIAL.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  SPECIAL.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped IPv6 one, written dotted (::ffff:10.0.0.1) or in hex (::ffff:a00:1). */
function ipv4Mapped(address: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Why `address` may not be connected to, or undefined when it may. */
export function addressProblem(address: string, allowLoopback: boolean): string | undefined {
  let family: 'ipv4' | 'ipv6' = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  let plain = address;
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) reaches the IPv4 host: judge that one.
  const mapped = ipv4Mapped(address);
  if (mapped) {
    plain = mapped;
    family = 'ipv4';
  }
  if (LOOPBACK.check(plain, family)) {
    return allowLoopback
      ? undefined
      : `resolves to the loopback address ${address} (allowed only with SWITCHBOARD_CLIENT_METADATA_ALLOW_LOOPBACK=1, for tests)`;
  }
  if (SPECIAL.check(plain, family)) return `resolves to the private or special-use address ${address}`;
  return undefined;
}

/** The URL itself, as the draft requires of a client_id: https, a path, no fragment, credentials or dot segments. */
function checkedUrl(clientId: string, allowLoopback: boolean): URL {
  if (clientId.length > MAX_URI_LENGTH) {
    throw new ClientMetadataError(`The client_id URL is longer than ${MAX_URI_LENGTH} characters.`);
  }
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new ClientMetadataError('The client_id is not a valid URL.');
  }
  const loopbackHttp = url.protocol === 'http:' && allowLoopback && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp) {
    throw new ClientMetadataError('A metadata document client_id must be an https URL.');
  }
  if (url.pathname === '/' || url.pathname === '') {
    throw new ClientMetadataError('A metadata document client_id must have a path (not just an origin).');
  }
  if (url.hash || clientId.includes('#'))
    throw new ClientMetadataError('The client_id URL may not have a fragment.');
  if (url.username || url.password)
    throw new ClientMetadataError('The client_id URL may not carry credentials.');
  // The URL parser resolves `.`/`..` segments and normalises case and escapes: a client_id that changes under it
  // is not in the normal form the draft requires (and would be compared as another string later).
  if (url.href !== clientId) {
    throw new ClientMetadataError(
      `The client_id URL is not in normal form (no dot segments, lower-case scheme and host); use ${url.href}.`,
    );
  }
  return url;
}

interface Fetched {
  body: string;
  cacheControl: string | undefined;
}

/** GET `url` within the limits, connecting only to addresses `addressProblem` allows. */
function fetchDocument(url: URL, options: Required<Omit<ClientMetadataOptions, 'now'>>): Promise<Fetched> {
  const { allowLoopback, maxBytes, timeoutMs } = options;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const problem = addressProblem(host, allowLoopback);
    if (problem) return Promise.reject(new ClientMetadataError(`The client_id host ${problem}.`));
  }
  return new Promise<Fetched>((resolve, reject) => {
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new ClientMetadataError(message));
    };
    const timer = setTimeout(
      () => fail(`The metadata document did not arrive within ${timeoutMs} ms.`),
      timeoutMs,
    );
    // Resolution and the check happen here, in the connection's own lookup: the socket connects to the address
    // that was checked, never to a second answer.
    const checkedLookup = (
      hostname: string,
      lookupOptions: object,
      callback: (
        error: NodeJS.ErrnoException | null,
        address: string | LookupAddress[],
        family?: number,
      ) => void,
    ) => {
      lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
        if (error) return callback(error, []);
        for (const { address } of addresses) {
          const problem = addressProblem(address, allowLoopback);
          if (problem) {
            fail(`The client_id host ${problem}.`);
            return callback(Object.assign(new Error(problem), { code: 'EADDRNOTALLOWED' }), []);
          }
        }
        const all = (lookupOptions as { all?: boolean }).all === true;
        const [first] = addresses;
        if (all) return callback(null, addresses);
        return callback(null, first?.address ?? '', first?.family);
      });
    };
    const onResponse = (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.resume();
        return fail(`The metadata document URL answered a redirect (${status}); redirects are not followed.`);
      }
      if (status !== 200) {
        res.resume();
        return fail(`The metadata document URL answered HTTP ${status}, not 200.`);
      }
      const type = (res.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
        res.resume();
        return fail(`The metadata document must be served as application/json, not "${describable(type)}".`);
      }
      const tooLarge = `The metadata document is larger than ${maxBytes} bytes.`;
      if (Number(res.headers['content-length']) > maxBytes) return fail(tooLarge);
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return fail(tooLarge);
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const cacheControl = res.headers['cache-control'];
        resolve({ body: Buffer.concat(chunks).toString('utf8'), cacheControl });
      });
      res.on('error', (error) => fail(`Reading the metadata document failed: ${error.message}`));
    };
    const common = {
      method: 'GET',
      headers: { accept: 'application/json' },
      lookup: checkedLookup,
    };
    const req =
      url.protocol === 'https:'
        ? httpsRequest(
            url,
            { ...common, rejectUnauthorized: !(allowLoopback && isLoopbackHost(url.hostname)) },
            onResponse,
          )
        : httpRequest(url, common, onResponse);
    req.on('error', (error) => fail(`The metadata document could not be fetched: ${error.message}`));
    req.end();
  });
}

/** How long to keep a document: its Cache-Control max-age (no-store, no-cache: the minimum), within bounds. */
function cacheMs(cacheControl: string | undefined): number {
  const value = (cacheControl ?? '').toLowerCase();
  if (/\bno-store\b|\bno-cache\b/.test(value)) return MIN_CACHE_MS;
  const maxAge = /\bmax-age=(\d+)/.exec(value)?.[1];
  const wanted = maxAge === undefined ? DEFAULT_CACHE_MS : Number(maxAge) * 1000;
  return Math.min(MAX_CACHE_MS, Math.max(MIN_CACHE_MS, wanted));
}

/** The document checked against `url`, as the client record the endpoints use. */
function clientFromDocument(url: URL, body: string, now: number): ClientRecord {
  const document = jsonObject(body);
  if (!document) throw new ClientMetadataError('The metadata document is not a JSON object.');
  if (document.client_id !== url.href) {
    throw new ClientMetadataError(
      `The metadata document's client_id (${describable(String(document.client_id ?? '(none)'))}) must equal the URL it is served at (${url.href}).`,
    );
  }
  // No shared secret can exist with a client known only by a URL (draft §4.1).
  if ('client_secret' in document || 'client_secret_expires_at' in document) {
    throw new ClientMetadataError(
      'The metadata document may not contain client_secret or client_secret_expires_at.',
    );
  }
  const method = document.token_endpoint_auth_method ?? 'none';
  if (method === 'private_key_jwt') {
    throw new ClientMetadataError(
      'token_endpoint_auth_method private_key_jwt is not supported here: this server accepts public clients (PKCE) only; use "none".',
    );
  }
  if (method !== 'none') {
    throw new ClientMetadataError(
      `token_endpoint_auth_method ${describable(String(method))} cannot be used with a metadata document; use "none".`,
    );
  }
  const uris = document.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.some((u) => typeof u !== 'string')) {
    throw new ClientMetadataError('The metadata document needs redirect_uris: a non-empty array of URLs.');
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new ClientMetadataError(
      `The metadata document lists more than ${MAX_REDIRECT_URIS} redirect_uris.`,
    );
  }
  for (const uri of uris as string[]) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ClientMetadataError(`redirect_uris entry ${describable(uri)} ${problem}.`);
  }
  const grantTypes = document.grant_types ?? ['authorization_code'];
  if (!Array.isArray(grantTypes) || !grantTypes.includes('authorization_code')) {
    throw new ClientMetadataError('The metadata document\'s grant_types must include "authorization_code".');
  }
  const name = cleanClientName(document.client_name);
  return {
    id: url.href,
    ...(name ? { name } : {}),
    redirectUris: uris as string[],
    metadata: {
      client_id: url.href,
      redirect_uris: uris,
      token_endpoint_auth_method: 'none',
      ...(name ? { client_name: name } : {}),
    },
    createdAt: now,
  };
}

/**
 * The metadata documents of URL client ids, fetched and checked on first use and cached in this process. Each
 * replica keeps its own cache: a document is public and cheap to fetch again, so sharing it (in Redis) would save
 * one fetch per replica per cache period and nothing else.
 */
export class ClientMetadataDocuments {
  readonly #options: Required<Omit<ClientMetadataOptions, 'now'>>;
  readonly #now: () => number;
  readonly #cache = new Map<string, { client: ClientRecord; until: number }>();
  /** One fetch per URL at a time: concurrent sign-ins of one client wait for the same answer. */
  readonly #inFlight = new Map<string, Promise<ClientRecord>>();

  constructor(options: ClientMetadataOptions = {}) {
    this.#options = {
      allowLoopback: options.allowLoopback ?? false,
      maxBytes: options.maxBytes ?? MAX_DOCUMENT_BYTES,
      timeoutMs: options.timeoutMs ?? FETCH_TIMEOUT_MS,
    };
    this.#now = options.now ?? Date.now;
  }

  /** The client the document at `clientId` describes; a ClientMetadataError says why it cannot be used. */
  async client(clientId: string): Promise<ClientRecord> {
    const cached = this.#cache.get(clientId);
    if (cached && cached.until > this.#now()) return cached.client;
    if (cached) this.#cache.delete(clientId);
    const pending = this.#inFlight.get(clientId);
    if (pending) return pending;
    const fetching = this.#load(clientId).finally(() => this.#inFlight.delete(clientId));
    this.#inFlight.set(clientId, fetching);
    return fetching;
  }

  async #load(clientId: string): Promise<ClientRecord> {
    const url = checkedUrl(clientId, this.#options.allowLoopback);
    let fetched: Fetched;
    let client: ClientRecord;
    const now = this.#now();
    try {
      fetched = await fetchDocument(url, this.#options);
      client = clientFromDocument(url, fetched.body, now);
    } catch (error) {
      log('info', 'client metadata document refused', {
        client: url.href,
        reason: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
    if (this.#cache.size >= MAX_CACHED) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(clientId, { client, until: now + cacheMs(fetched.cacheControl) });
    log('info', 'client metadata document fetched', { client: url.href, name: client.name ?? null });
    return client;
  }
}

/**
 * The client `clientId` names: a metadata document's (when `documents` is given and the id is a URL) or a
 * registered one's. `problem` says why a document could not be used; undefined means no such client.
 */
export async function findClient(
  vault: Pick<AuthVault, 'client'>,
  documents: ClientMetadataDocuments | undefined,
  clientId: string,
): Promise<{ client: ClientRecord; fromDocument: boolean } | { problem: string } | undefined> {
  if (documents && isMetadataDocumentClientId(clientId)) {
    try {
      return { client: await documents.client(clientId), fromDocument: true };
    } catch (error) {
      if (error instanceof ClientMetadataError) return { problem: error.message };
      throw error;
    }
  }
  const client = await vault.client(clientId);
  return client ? { client, fromDocument: false } : undefined;
}
