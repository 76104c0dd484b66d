// Helpers for `switchboard login store` tests: the person's part of the browser flow done with plain fetch (open
// the consent page, pick a user, approve or deny, follow the redirect to the loopback callback), the CLI run as a
// child process with its output captured, and the saved credentials file read back.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SANDBOX_OAUTH_CLIENT_ID,
  SANDBOX_OAUTH_CLIENT_SECRET,
} from '../../src/services/store/emulator/oauth.js';
import { CLI, ROOT } from './harness.js';

export const CLIENT_ID = SANDBOX_OAUTH_CLIENT_ID;
export const CLIENT_SECRET = SANDBOX_OAUTH_CLIENT_SECRET;

export interface SavedFile {
  clientId: string;
  confidentialClient: boolean;
  oauthUrl: string;
  apiUrl: string;
  user: { id: string; email?: string };
  scopes: string[];
  accessToken: string;
  accessTokenExpiresAt: string;
  refreshToken: string;
  refreshTokenExpiresAt?: string;
  savedAt: string;
}

/** A fresh folder for a credentials file; `path` does not exist yet (nor does its `switchboard` folder). */
export function tempCredentials() {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-login-'));
  const path = join(dir, 'switchboard', 'store-credentials.json');
  return {
    dir,
    path,
    read: () => JSON.parse(readFileSync(path, 'utf8')) as SavedFile,
    mode: () => statSync(path).mode & 0o777,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The environment `login store` and `serve store` need against the emulator at `url`. */
export function loginEnv(
  url: string,
  path: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    STORE_BASE_URL: url,
    STORE_OAUTH_CLIENT_ID: CLIENT_ID,
    STORE_OAUTH_CLIENT_SECRET: CLIENT_SECRET,
    SWITCHBOARD_CREDENTIALS_FILE: path,
    ...extra,
  };
}

export interface ConsentOutcome {
  /** The redirect the emulator answered the form with (carries the code, or the error, and the state). */
  location: URL;
  /** The loopback callback's answer to the browser. */
  callback: { status: number; html: string };
}

/** What a person does in the browser: open the consent page, pick `userName`, press Approve or Deny. */
export async function consent(
  authorizeUrl: string,
  userName: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<ConsentOutcome> {
  const page = await fetch(authorizeUrl);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${html}`);
  const requestId = /name="request_id" value="([^"]+)"/.exec(html)?.[1];
  const userId = new RegExp(`<option value="([^"]+)"[^>]*>${userName}`).exec(html)?.[1];
  if (!requestId || !userId) throw new Error(`consent page without request id or user ${userName}`);
  const posted = await fetch(new URL('/oauth2/v1/authorize', authorizeUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request_id: requestId, decision, user: userId }).toString(),
    redirect: 'manual',
  });
  const location = new URL(posted.headers.get('location') ?? '');
  const callback = await fetch(location);
  return { location, callback: { status: callback.status, html: await callback.text() } };
}

/** `switchboard login store ...` (or another service) as a child process, with everything it prints kept. */
export function spawnLogin(args: string[], env: Record<string, string>, service = 'store') {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [...CLI, 'login', service, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  /** Resolves with the first match of `pattern` in stdout. */
  const waitFor = (pattern: RegExp, timeoutMs = 20_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stdout);
        if (match) {
          clearInterval(poll);
          clearTimeout(timer);
          resolve(match);
        }
      };
      const poll = setInterval(check, 20);
      const timer = setTimeout(() => {
        clearInterval(poll);
        reject(new Error(`timed out waiting for ${pattern}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
      }, timeoutMs);
      exited.then(() => setTimeout(check, 0));
      check();
    });
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    /** The authorization URL the command printed. */
    authorizeUrl: async () => (await waitFor(/^\s+(http\S+\/oauth2\/v1\/authorize\?\S+)$/m))[1] as string,
    /** The loopback redirect URI it listens on. */
    callbackUrl: async () =>
      (await waitFor(/come back to (http:\/\/127\.0\.0\.1:\d+\/callback)/))[1] as string,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
