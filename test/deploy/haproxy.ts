// HAProxy for tests: Debian's haproxy (installed by .ci/run) started with deploy/haproxy.cfg itself, the file
// deploy/compose.yaml mounts, on loopback ports, and stopped by the test that started it. The configuration's
// addresses come from its environment variables (see the file's header), so tests and compose cannot drift apart.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../e2e/harness.js';
import { freePort } from '../support/redisServer.js';

export const HAPROXY = '/usr/sbin/haproxy';
export const HAPROXY_CONFIG = join(ROOT, 'deploy/haproxy.cfg');

const run = promisify(execFile);

/** The configuration without its comments (a `#` at the start of a line or after a space, to the line's end). */
function withoutComments(text: string): string {
  return text.replace(/(^|\s)#.*$/gm, '$1');
}

/** The environment variables a configuration reads ("${NAME}"), in order of first use. */
export function configVariables(text: string): string[] {
  const names = [...withoutComments(text).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map(
    (match) => match[1]!,
  );
  return [...new Set(names)];
}

/** The backend's `server <name> "${VARIABLE}"` lines: which variable gives each replica's address. */
export function configReplicas(text: string): { name: string; variable: string }[] {
  return [...withoutComments(text).matchAll(/^\s*server\s+(\S+)\s+"\$\{([A-Za-z0-9_]+)\}"/gm)].map(
    (match) => ({
      name: match[1]!,
      variable: match[2]!,
    }),
  );
}

/** The variables the configuration needs, for a load balancer on `bindPort` in front of `replicas` (host:port). */
export async function loadBalancerEnv(
  bindPort: number,
  replicas: readonly string[],
): Promise<Record<string, string>> {
  const text = readFileSync(HAPROXY_CONFIG, 'utf8');
  const servers = configReplicas(text);
  if (replicas.length !== servers.length) {
    throw new Error(
      `deploy/haproxy.cfg has ${servers.length} replicas; the test gave ${replicas.length} addresses.`,
    );
  }
  const env: Record<string, string> = {
    SWITCHBOARD_LB_BIND: `127.0.0.1:${bindPort}`,
    // Replicas are given as IP addresses, which HAProxy never looks up; the resolver it is told of is a loopback
    // port nobody listens on, so nothing is ever sent off this machine.
    SWITCHBOARD_LB_DNS: `127.0.0.1:${await freePort()}`,
  };
  servers.forEach((server, index) => {
    env[server.variable] = replicas[index]!;
  });
  const missing = configVariables(text).filter((name) => env[name] === undefined);
  if (missing.length > 0)
    throw new Error(`deploy/haproxy.cfg reads ${missing.join(', ')}, which the test does not set.`);
  return env;
}

/** `haproxy -c`: whether the configuration is valid with these variables, and what HAProxy said. */
export async function checkConfig(env: Record<string, string>): Promise<{ valid: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run(HAPROXY, ['-c', '-f', HAPROXY_CONFIG], {
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 10_000,
    });
    return { valid: true, output: stdout + stderr };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return { valid: false, output: (failed.stdout ?? '') + (failed.stderr ?? '') };
  }
}

export interface LoadBalancer {
  url: string;
  port: number;
  /** Everything HAProxy printed so far (its log and its warnings, such as a server going DOWN). */
  output(): string;
  /** Resolves once HAProxy has printed a line matching `pattern`; rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Stops HAProxy (SIGTERM, then SIGKILL after 3 s). */
  stop(): Promise<void>;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** HAProxy with deploy/haproxy.cfg on a free loopback port, in front of `replicas` (one host:port per server). */
export async function startLoadBalancer(replicas: readonly string[]): Promise<LoadBalancer> {
  const port = await freePort();
  const env = await loadBalancerEnv(port, replicas);
  // -db: stay in the foreground, so the test owns the process and reads what it prints.
  const child = spawn(HAPROXY, ['-db', '-f', HAPROXY_CONFIG], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  const waiters = new Set<() => void>();
  const onOutput = (chunk: Buffer) => {
    printed += chunk.toString();
    for (const waiter of waiters) waiter();
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`haproxy exited (${signal ?? code}) before it listened:\n${printed}`)),
    );
    child.once('error', (error) =>
      reject(
        new Error(
          `haproxy could not be started (${error.message}); install it with "apt-get install haproxy" (.ci/run does).`,
        ),
      ),
    );
  });
  exited.catch(() => {});
  const started = Date.now();
  while (!(await Promise.race([listening(port), exited]))) {
    if (Date.now() - started > 10_000) {
      await terminate(child);
      throw new Error(`haproxy did not listen on 127.0.0.1:${port} within 10 s:\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    output: () => printed,
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(printed)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`haproxy did not print ${pattern} within ${timeoutMs} ms:\n${printed}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stop: () => terminate(child),
  };
}
