// The address a request was sent to, as the client used it. Behind a load balancer that terminates TLS the server
// sees `http://10.0.0.5:8787`; the client used `https://mcp.example.com`, and that is the URL the OAuth documents,
// challenges and redirects must name. The proxy says so in X-Forwarded-Proto / X-Forwarded-Host or RFC 7239's
// Forwarded header. Those headers are believed only with `serve --trust-proxy`: without a proxy in front, any
// client could write them.
//
// One function decides, for every caller: the DNS-rebinding Host check (transports.ts) and the per-origin
// authorization server (auth/publicOrigins.ts). A configured SWITCHBOARD_PUBLIC_URL still wins over both (auth).

import { validateHostHeader } from '@modelcontextprotocol/server';

export interface ForwardedAddress {
  /** `http` or `https`, when the proxy said which. */
  proto?: 'http' | 'https';
  /** `host[:port]` as the client sent it to the proxy, when the proxy said. */
  host?: string;
}

/** The first of a comma-separated list: the hop nearest the client, which is the address the client used. */
function first(header: string | null): string | undefined {
  const value = header?.split(',')[0]?.trim();
  return value ? value : undefined;
}

function protoOf(value: string | undefined): ForwardedAddress['proto'] {
  const lower = value?.toLowerCase();
  return lower === 'http' || lower === 'https' ? lower : undefined;
}

/**
 * `value` when it is an authority a URL can carry (`name`, `name:port`, `[v6]:port`) and nothing more: a host
 * with a path, query, userinfo or spaces in it is a forged or broken header, never an address.
 */
function authorityOf(value: string | undefined): string | undefined {
  if (!value || /[\s/?#@\\]/.test(value)) return undefined;
  try {
    const url = new URL(`http://${value}`);
    return url.hostname ? value : undefined;
  } catch {
    return undefined;
  }
}

/** RFC 7239: the first element's `proto` and `host` parameters (values may be quoted). */
function fromForwardedHeader(header: string | null): ForwardedAddress {
  const element = header?.split(',')[0];
  if (!element) return {};
  const found: ForwardedAddress = {};
  for (const pair of element.split(';')) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    const key = pair.slice(0, at).trim().toLowerCase();
    const raw = pair.slice(at + 1).trim();
    const value = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    if (key === 'proto') {
      const proto = protoOf(value);
      if (proto) found.proto = proto;
    } else if (key === 'host') {
      const host = authorityOf(value);
      if (host) found.host = host;
    }
  }
  return found;
}

/**
 * What the proxy says the client used: X-Forwarded-Proto and X-Forwarded-Host (the de facto pair most proxies set),
 * each falling back to the same parameter of RFC 7239's Forwarded. Malformed values count as absent.
 */
export function forwardedAddress(headers: Headers): ForwardedAddress {
  const standard = fromForwardedHeader(headers.get('forwarded'));
  const proto = protoOf(first(headers.get('x-forwarded-proto'))) ?? standard.proto;
  const host = authorityOf(first(headers.get('x-forwarded-host'))) ?? standard.host;
  return { ...(proto ? { proto } : {}), ...(host ? { host } : {}) };
}

/**
 * The `host[:port]` the client addressed: behind a trusted proxy the forwarded host, else the Host header.
 * This is what the DNS-rebinding check holds against the allowed names.
 */
export function requestHost(request: Request, trustProxy: boolean): string | undefined {
  const forwarded = trustProxy ? forwardedAddress(request.headers).host : undefined;
  return forwarded ?? request.headers.get('host') ?? undefined;
}

/**
 * The public origin of a request behind a trusted proxy: the forwarded scheme and host, each defaulting to what
 * this server itself saw (plain http, the Host header). Undefined when that host is not one of `allowedHosts`
 * (hostnames, port-agnostic, as the Host check takes them): an origin is never made from a name the server does
 * not answer to, so a forged host cannot end up in a document or a redirect.
 */
export function trustedRequestOrigin(request: Request, allowedHosts: readonly string[]): URL | undefined {
  const host = requestHost(request, true);
  if (!host || !validateHostHeader(host, [...allowedHosts]).ok) return undefined;
  const proto = forwardedAddress(request.headers).proto ?? 'http';
  try {
    return new URL(`${proto}://${host}`);
  } catch {
    return undefined;
  }
}
