// Whether `serve` serves the sandbox console, and if not why (the start-up banner says it). The console shows every
// call's arguments and results and can change the emulators: it is served only in the sandbox over HTTP, and
// only where nobody but the machine's own user reaches it, or behind the same protection as /mcp.

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export type ConsoleAvailability = { served: true } | { served: false; reason: string };

export function consoleAvailability(options: {
  sandbox: boolean;
  transport: 'stdio' | 'http';
  host: string;
  /** What protects /mcp: none, the static bearer token, or per-user OAuth. */
  protection: 'none' | 'bearer' | 'oauth';
  /** A proxy in front forwards requests from elsewhere: the bound address says nothing of who reaches it. */
  trustProxy?: boolean;
}): ConsoleAvailability {
  if (!options.sandbox) return { served: false, reason: 'only the sandbox (--sandbox) has a console' };
  if (options.transport !== 'http') return { served: false, reason: 'the console is served over HTTP only' };
  if (options.protection !== 'none') return { served: true };
  if (options.trustProxy) {
    return {
      served: false,
      reason:
        'behind a proxy (--trust-proxy) anyone the proxy serves could watch and steer it; protect the server like /mcp (SWITCHBOARD_HTTP_TOKEN) to serve it',
    };
  }
  if (!LOOPBACK.has(options.host)) {
    return {
      served: false,
      reason: `it would show every call to anyone who reaches ${options.host}; protect the server like /mcp (SWITCHBOARD_HTTP_TOKEN) or bind to 127.0.0.1`,
    };
  }
  return { served: true };
}
