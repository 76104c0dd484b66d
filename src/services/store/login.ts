// `switchboard login store`: one person connects their own data store account for `serve store` over stdio. The
// store's OAuth authorization code flow with PKCE runs through the person's browser with a loopback redirect, as
// RFC 8252 describes for native apps: a one-shot HTTP listener on 127.0.0.1 (§7.3; the IP literal rather than
// `localhost`, §8.3), on a free port unless `--port` names one, answers `/callback`. `state` binds the answer to
// this login (RFC 6749 §10.12), PKCE S256 binds the code to this process (RFC 7636). The tokens go to the
// owner-only credentials file (src/services/store/credentials.ts); only who is connected is printed, never a token.

import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sameString } from '../../runtime/auth/requests.js';
import { redact, registerSecret } from '../../runtime/secrets.js';
import { escapeHtml } from '../../text/html.js';
import type { ServiceLogin } from '../serviceEntry.js';
import { DEFAULT_BASE_URL, TOKEN_ENV } from './client.js';
import {
  credentialsFromLogin,
  LOGIN_COMMAND,
  readCredentialsFile,
  type StoreCredentials,
  storeCredentialsPath,
  writeCredentialsFile,
} from './credentials.js';
import { DEFAULT_OAUTH_URL, pkcePair, randomHandle, type StoreIdentity, StoreOAuthClient } from './oauth.js';

export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;
const CALLBACK_PATH = '/callback';

export type LoginErrorKind =
  | 'config'
  | 'denied'
  | 'refused'
  | 'exchange_failed'
  | 'timeout'
  | 'not_connected';

/** A login that did not happen; the message says why and what to do, and nothing was saved. */
export class LoginError extends Error {
  constructor(
    readonly kind: LoginErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'LoginError';
  }
}

export interface StoreLoginOptions {
  env?: NodeJS.ProcessEnv;
  /** Loopback port for the redirect; 0 (the default) picks a free one. */
  port?: number;
  /** Opens the authorization URL; false prints it only. Default: the system's browser opener. */
  openBrowser?: ((url: string) => void | Promise<void>) | false;
  timeoutMs?: number;
  /** Where the person reads progress; default stdout. */
  print?: (line: string) => void;
  /** Notices that are not the flow itself (a stray callback); default stderr. */
  warn?: (line: string) => void;
  fetch?: typeof fetch;
}

export interface StoreLoginResult {
  path: string;
  user: StoreIdentity;
  scopes: string[];
}

interface LoginConfig {
  clientId: string;
  clientSecret?: string;
  oauthUrl: string;
  apiUrl: string;
  scopes?: string[];
}

function trimUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** STORE_OAUTH_*: the operator's (here: the person's own) registered application, and where the store is. */
export function loginConfigFromEnv(env: NodeJS.ProcessEnv): LoginConfig {
  const clientId = env.STORE_OAUTH_CLIENT_ID;
  if (!clientId) {
    throw new LoginError(
      'config',
      'Set STORE_OAUTH_CLIENT_ID to the client id of your data store OAuth integration (and STORE_OAUTH_CLIENT_SECRET if it has a secret), with http://127.0.0.1:<port>/callback as a redirect URL; then run this again, with --port <port> if the integration only accepts that exact URL.',
    );
  }
  const apiUrl = trimUrl(env.STORE_BASE_URL || DEFAULT_BASE_URL);
  // The emulator serves its OAuth endpoints beside its API, so a STORE_BASE_URL alone points both at it.
  const oauthUrl = trimUrl(env.STORE_OAUTH_URL || env.STORE_BASE_URL || DEFAULT_OAUTH_URL);
  const scopes = env.STORE_OAUTH_SCOPES?.split(/[\s,]+/).filter(Boolean);
  return {
    clientId,
    ...(env.STORE_OAUTH_CLIENT_SECRET ? { clientSecret: env.STORE_OAUTH_CLIENT_SECRET } : {}),
    oauthUrl,
    apiUrl,
    ...(scopes && scopes.length > 0 ? { scopes } : {}),
  };
}

/** The system's way of opening a URL in the default browser; any failure is ignored (the URL is printed anyway). */
export function openInBrowser(url: string): void {
  const [command, args, verbatim] =
    process.platform === 'darwin'
      ? ['open', [url], false]
      : process.platform === 'win32'
        ? // `start` is a cmd builtin; `&` must be escaped for cmd, and the empty title keeps the URL an argument.
          ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')], true]
        : ['xdg-open', [url], false];
  try {
    const child = spawn(command, args, {
      stdio: 'ignore',
      detached: true,
      windowsVerbatimArguments: verbatim,
    });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener on this system: the printed URL is the way.
  }
}

/** The small page the browser shows when it comes back; everything in it is escaped and no token is in it. */
function answer(res: ServerResponse, status: number, title: string, message: string): Promise<void> {
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1d1f25}</style>
</head>
<body>
<h1 id="title">${escapeHtml(title)}</h1>
<p id="message" role="status">${escapeHtml(message)}</p>
</body>
</html>
`;
  return new Promise((resolve) => {
    res.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      connection: 'close',
    });
    // 'close' too: a browser that went away must not leave the login waiting for a 'finish' that never comes.
    res.once('close', () => resolve());
    res.end(html, () => resolve());
  });
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** "5 minutes", "90 seconds", "1 second". */
function duration(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

function describeUser(user: { id: string; email?: string }): string {
  return user.email ? `${user.email} (${user.id})` : user.id;
}

/**
 * The whole login: listen on the loopback, send the person to the consent page, wait for the one answer that
 * carries our `state`, exchange the code (with the PKCE verifier), ask who it is, and save the credentials file.
 * Resolves once the file is written; rejects with a LoginError (nothing saved) on denial, refusal or timeout.
 */
export async function loginStore(options: StoreLoginOptions = {}): Promise<StoreLoginResult> {
  const env = options.env ?? process.env;
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const config = loginConfigFromEnv(env);
  const path = storeCredentialsPath(env);
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS;
  const client = new StoreOAuthClient({
    clientId: config.clientId,
    oauthUrl: config.oauthUrl,
    apiUrl: config.apiUrl,
    ...(config.clientSecret ? { clientSecret: config.clientSecret } : {}),
    ...(config.scopes ? { scopes: config.scopes } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const state = randomHandle();
  const { verifier, challenge } = pkcePair();
  registerSecret(verifier);

  let settled = false;
  let finish!: (result: StoreLoginResult) => void;
  let fail!: (error: LoginError) => void;
  const outcome = new Promise<StoreLoginResult>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  // Awaited only after the browser was opened; a failure before that must not count as unhandled.
  outcome.catch(() => undefined);

  let redirectUri = '';
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      await answer(res, 404, 'Not found', 'Switchboard is waiting for the data store to send you back here.');
      return;
    }
    if (settled) {
      await answer(res, 409, 'Already done', 'This login has already finished. You can close this tab.');
      return;
    }
    const returnedState = url.searchParams.get('state');
    if (returnedState === null || !sameString(returnedState, state)) {
      // Not the answer to this login (a stale tab of an earlier attempt, or a forged request): refused, and the
      // login goes on waiting for its own answer.
      warn('Refused a browser callback whose state does not match this login; still waiting.');
      await answer(
        res,
        400,
        'Not this login',
        'This answer does not belong to the login Switchboard is waiting for, so it was refused. Use the address the command printed.',
      );
      return;
    }
    settled = true;
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error !== null || !code) {
      const description = url.searchParams.get('error_description');
      const denied = error === 'access_denied';
      const message = denied
        ? 'Access was not granted in the browser, so nothing was saved.'
        : `The data store refused the authorization (${error ?? 'no code'}${description ? `: ${description}` : ''}), so nothing was saved.`;
      await answer(res, 400, denied ? 'Access not granted' : 'Authorization failed', message);
      fail(
        new LoginError(denied ? 'denied' : 'refused', `${message} Run \`${LOGIN_COMMAND}\` to try again.`),
      );
      return;
    }
    registerSecret(code);
    try {
      const tokens = await client.exchangeCode({ code, redirectUri, codeVerifier: verifier });
      const user = await client.whoami(tokens.accessToken);
      const credentials: StoreCredentials = credentialsFromLogin({
        tokens,
        identity: user,
        clientId: config.clientId,
        confidentialClient: Boolean(config.clientSecret),
        oauthUrl: config.oauthUrl,
        apiUrl: config.apiUrl,
      });
      writeCredentialsFile(path, credentials);
      await answer(
        res,
        200,
        'Connected',
        `Connected as ${describeUser(user)} — you can close this tab and go back to the terminal.`,
      );
      finish({ path, user, scopes: tokens.scopes });
    } catch (caught) {
      const reason = redact(caught instanceof Error ? caught.message : String(caught));
      await answer(res, 502, 'Could not connect', `Switchboard could not finish connecting: ${reason}`);
      fail(new LoginError('exchange_failed', `Could not finish connecting: ${reason} Nothing was saved.`));
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  let port: number;
  try {
    port = await listen(server, options.port ?? 0);
  } catch (error) {
    throw new LoginError(
      'config',
      `Could not listen on 127.0.0.1:${options.port ?? 0} for the browser's answer (${(error as NodeJS.ErrnoException).code ?? String(error)}); pick another --port.`,
    );
  }
  redirectUri = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
  const authorizeUrl = client.authorizeUrl({ redirectUri, state, codeChallenge: challenge });
  const waitFor = duration(timeoutMs);
  const timer = setTimeout(() => {
    // Once the answer is in, the code exchange (bounded by its own timeout) decides the outcome.
    if (settled) return;
    settled = true;
    fail(
      new LoginError(
        'timeout',
        `No answer from the browser within ${waitFor}, so nothing was saved. Run \`${LOGIN_COMMAND}\` again and approve access in the browser.`,
      ),
    );
  }, timeoutMs);

  try {
    print(`Connect your data store account (application ${config.clientId} at ${config.oauthUrl}).`);
    print(
      options.openBrowser === false
        ? 'Open this address in your browser and approve access:'
        : 'Opening your browser. If it does not open, visit this address:',
    );
    print('');
    print(`  ${authorizeUrl}`);
    print('');
    print(`Waiting up to ${waitFor} for the browser to come back to ${redirectUri} (Ctrl-C to stop).`);
    if (options.openBrowser !== false) {
      await Promise.resolve((options.openBrowser ?? openInBrowser)(authorizeUrl)).catch(() => undefined);
    }
    const result = await outcome;
    print(`Connected to the data store as ${describeUser(result.user)}.`);
    print(`Scopes: ${result.scopes.join(' ')}`);
    print(
      `Saved to ${result.path} (only you can read it). \`switchboard serve store\` uses it and renews it.`,
    );
    if (env[TOKEN_ENV]) {
      print(`Note: ${TOKEN_ENV} is set here; wherever it is set, the server uses it instead of this login.`);
    }
    return result;
  } finally {
    clearTimeout(timer);
    server.close();
    server.closeAllConnections();
  }
}

/** `login store --status`: who the saved login is for; false when there is none. */
export function loginStatus(
  env: NodeJS.ProcessEnv = process.env,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): boolean {
  const path = storeCredentialsPath(env);
  let saved: StoreCredentials | undefined;
  try {
    saved = readCredentialsFile(path);
  } catch (error) {
    const hint = (error as { hint?: string }).hint;
    throw new LoginError(
      'not_connected',
      `${error instanceof Error ? error.message : String(error)}${hint ? ` ${hint}` : ''}`,
    );
  }
  if (!saved) {
    print(`Not connected: there is no saved login at ${path}. Run \`${LOGIN_COMMAND}\` to connect.`);
    return false;
  }
  const refreshUntil = saved.refreshTokenExpiresAt
    ? `; renewable until ${saved.refreshTokenExpiresAt} (each renewal extends it)`
    : '';
  print(`Connected to the data store as ${describeUser(saved.user)}.`);
  print(`Application ${saved.clientId} at ${saved.oauthUrl}; API ${saved.apiUrl}.`);
  print(`Scopes: ${saved.scopes.join(' ')}`);
  print(`Access token valid until ${saved.accessTokenExpiresAt}${refreshUntil}.`);
  print(`File: ${path}`);
  if (env[TOKEN_ENV]) print(`Note: ${TOKEN_ENV} is set here, and wins over the saved login.`);
  return true;
}

/** `switchboard login store`, as the store's service entry offers it. */
export const STORE_LOGIN: ServiceLogin = {
  description:
    'Connect your own data store account through the browser (OAuth); `serve store` then uses and renews it.',
  run: async (options) => {
    await loginStore({
      port: options.port,
      timeoutMs: options.timeoutMs,
      ...(options.openBrowser ? {} : { openBrowser: false }),
    });
  },
  status: () => loginStatus(),
};
