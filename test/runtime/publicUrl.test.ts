// Reading the address the client used from a proxy's headers (X-Forwarded-Proto/-Host, RFC 7239 Forwarded), and the
// public origin made from it behind a trusted proxy: only for a host on the allow-list.

import { describe, expect, it } from 'vitest';
import { forwardedAddress, requestHost, trustedRequestOrigin } from '../../src/runtime/publicUrl.js';

const request = (headers: Record<string, string>) => new Request('http://10.0.0.5:8787/mcp', { headers });

describe('forwardedAddress', () => {
  it('reads X-Forwarded-Proto and X-Forwarded-Host, taking the first of a list (the hop nearest the client)', () => {
    const headers = new Headers({
      'x-forwarded-proto': 'HTTPS, http',
      'x-forwarded-host': 'mcp.example.com, lb.internal:8080',
    });
    expect(forwardedAddress(headers)).toEqual({ proto: 'https', host: 'mcp.example.com' });
  });

  it('reads RFC 7239 Forwarded (quoted values, first element), each field falling back to it', () => {
    expect(
      forwardedAddress(
        new Headers({ forwarded: 'for=192.0.2.60;proto=https;host="mcp.example.com:8443", for=10.0.0.1' }),
      ),
    ).toEqual({ proto: 'https', host: 'mcp.example.com:8443' });
    // X-Forwarded-Host decides the host; the proto comes from Forwarded.
    expect(
      forwardedAddress(
        new Headers({ forwarded: 'proto=https;host=a.example', 'x-forwarded-host': 'b.example' }),
      ),
    ).toEqual({ proto: 'https', host: 'b.example' });
  });

  it('ignores malformed values: a host with a path, userinfo or spaces, a scheme other than http(s)', () => {
    for (const host of ['evil.example/path', 'user@evil.example', 'a b', 'evil.example?x', '']) {
      expect(forwardedAddress(new Headers({ 'x-forwarded-host': host })).host).toBeUndefined();
    }
    expect(forwardedAddress(new Headers({ 'x-forwarded-proto': 'javascript' })).proto).toBeUndefined();
    expect(forwardedAddress(new Headers({ forwarded: 'proto=ftp;host="x y"' }))).toEqual({});
  });
});

describe('requestHost', () => {
  it('is the Host header unless the proxy is trusted, then the forwarded host', () => {
    const behindProxy = request({ host: '10.0.0.5:8787', 'x-forwarded-host': 'mcp.example.com' });
    expect(requestHost(behindProxy, false)).toBe('10.0.0.5:8787');
    expect(requestHost(behindProxy, true)).toBe('mcp.example.com');
    // Trusted, but nothing forwarded: what the server itself saw.
    expect(requestHost(request({ host: '127.0.0.1:8787' }), true)).toBe('127.0.0.1:8787');
  });
});

describe('trustedRequestOrigin', () => {
  const allowed = ['localhost', '127.0.0.1', '[::1]', 'mcp.example.com'];

  it('is the forwarded scheme and host, for an allowed host (any port)', () => {
    const origin = trustedRequestOrigin(
      request({ host: '10.0.0.5:8787', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'mcp.example.com' }),
      allowed,
    );
    expect(origin?.origin).toBe('https://mcp.example.com');
    expect(
      trustedRequestOrigin(request({ forwarded: 'proto=https;host="mcp.example.com:8443"' }), allowed)
        ?.origin,
    ).toBe('https://mcp.example.com:8443');
  });

  it('defaults to plain http and the Host header when the proxy says nothing', () => {
    expect(trustedRequestOrigin(request({ host: '127.0.0.1:8787' }), allowed)?.origin).toBe(
      'http://127.0.0.1:8787',
    );
  });

  it('is undefined for a host the server does not answer to: no origin is made from a forged name', () => {
    expect(
      trustedRequestOrigin(request({ host: '127.0.0.1:8787', 'x-forwarded-host': 'evil.example' }), allowed),
    ).toBeUndefined();
    expect(trustedRequestOrigin(request({ host: '10.0.0.5:8787' }), allowed)).toBeUndefined();
  });
});
