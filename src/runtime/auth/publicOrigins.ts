// Our authorization server behind a trusted proxy (`serve --trust-proxy`) with no SWITCHBOARD_PUBLIC_URL: the
// public origin is what each request says it is (publicUrl.ts), so the issuer, the resource, the challenge's
// metadata URL, the consent form's origin check and the upstream redirect all follow it. One authorization server
// is made per public origin, each exactly as a configured origin would make it (createAuthorizationServer), over the
// one shared vault; requests are sent to the one their origin names. A token stays bound to the resource it was
// issued for: one issued at https://a/mcp is refused at https://b/mcp (RFC 8707 audience), as across servers.

import { Hono } from 'hono';
import { log } from '../log.js';
import type { AuthorizationServer } from './authorizationServer.js';
import { AuthSetupError } from './config.js';

/** Origins kept prepared; the least recently used goes first (a host's port can vary, so they are bounded). */
const MAX_ORIGINS = 32;

interface PerOrigin {
  server: AuthorizationServer;
  /** The server's routes, mounted on an app of their own. */
  app: Hono;
}

export interface PerOriginOptions {
  /** The authorization server for one public origin; throws an AuthSetupError when that origin cannot serve. */
  create(publicUrl: URL): AuthorizationServer;
  /** The public origin a request names, or undefined when its host is not one the server answers to. */
  originOf(request: Request): URL | undefined;
  /**
   * The origin whose server stands for all in what is said before any request (the start banner): the configured
   * upstream redirect's origin when there is one, else the bound address.
   */
  fallback: URL;
  /** Hostnames to add to the Host/Origin allow-list (the configured redirect's, where people come back). */
  allowedHosts?: readonly string[];
}

function refusal(status: 403 | 421, description: string): Response {
  return Response.json(
    { error: status === 403 ? 'forbidden' : 'misdirected_request', error_description: description },
    { status, headers: { 'Cache-Control': 'no-store' } },
  );
}

export function perOriginAuthorizationServer(options: PerOriginOptions): AuthorizationServer {
  const fallback = options.create(options.fallback);
  const prepared = new Map<string, PerOrigin>();
  const prepare = (server: AuthorizationServer): PerOrigin => {
    const app = new Hono();
    server.mount?.(app);
    return { server, app };
  };
  prepared.set(fallback.issuer, prepare(fallback));

  /** The prepared server for the request's origin, or the answer that refuses it. */
  const forRequest = (request: Request): PerOrigin | Response => {
    const origin = options.originOf(request);
    if (!origin) return refusal(403, 'Invalid Host: not a name this server answers to.');
    const key = origin.origin;
    const known = prepared.get(key);
    if (known) {
      prepared.delete(key);
      prepared.set(key, known);
      return known;
    }
    let entry: PerOrigin;
    try {
      entry = prepare(options.create(new URL(key)));
    } catch (error) {
      if (!(error instanceof AuthSetupError)) throw error;
      // A configured upstream redirect pins sign-in to its own origin (the browser cookie lives there).
      log('debug', 'no authorization server for this public origin', { origin: key, reason: error.message });
      return refusal(421, `This server does not sign people in at ${key}.`);
    }
    prepared.set(key, entry);
    if (prepared.size > MAX_ORIGINS) prepared.delete(prepared.keys().next().value as string);
    return entry;
  };

  return {
    issuer: fallback.issuer,
    resource: fallback.resource,
    resourceMetadataUrl: fallback.resourceMetadataUrl,
    allowedHosts: options.allowedHosts ?? [],
    mount(app: Hono) {
      // Every origin's server has the same paths (only the origin in its URLs differs): the fallback's list them.
      const paths = new Set(prepared.get(fallback.issuer)?.app.routes.map((route) => route.path));
      for (const path of paths) {
        app.all(path, (c) => {
          const entry = forRequest(c.req.raw);
          return entry instanceof Response ? entry : entry.app.fetch(c.req.raw, c.env);
        });
      }
    },
    authenticate(request: Request) {
      const entry = forRequest(request);
      return entry instanceof Response ? entry : entry.server.authenticate(request);
    },
    ...(fallback.principalOf ? { principalOf: fallback.principalOf } : {}),
  };
}
