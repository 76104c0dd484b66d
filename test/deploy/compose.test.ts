// deploy/compose.yaml, deploy/haproxy.cfg and deploy/Dockerfile describe one topology; images cannot be built or
// run on these machines (no Docker), so this test holds the three files against each other and against the server:
// compose mounts exactly the configuration the tests run, gives it one address per replica it declares, on the
// port the image serves; the image's health check asks a path the server answers, with the command the image runs;
// and the arguments compose adds are ones the CLI accepts.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEALTH_PATH, READY_PATH } from '../../src/runtime/health.js';
import { CLI, ROOT } from '../e2e/harness.js';
import { freePort } from '../support/redisServer.js';
import { configReplicas, configVariables, HAPROXY, HAPROXY_CONFIG } from './haproxy.js';
import { parseYamlSubset, type YamlValue } from './yamlSubset.js';

const run = promisify(execFile);
const DEPLOY = join(ROOT, 'deploy');
const COMPOSE_FILE = join(DEPLOY, 'compose.yaml');

type Service = {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: string[];
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
};

const compose = parseYamlSubset(readFileSync(COMPOSE_FILE, 'utf8')) as {
  services: Record<string, Service>;
} & Record<string, YamlValue>;
const services = compose.services;
const haproxyText = readFileSync(HAPROXY_CONFIG, 'utf8');

/** A service's `environment` list as a map; a bare NAME (passed through from the shell) maps to undefined. */
function environmentOf(service: Service): Map<string, string | undefined> {
  return new Map(
    (service.environment ?? []).map((entry) => {
      const equals = entry.indexOf('=');
      return equals === -1 ? [entry, undefined] : [entry.slice(0, equals), entry.slice(equals + 1)];
    }),
  );
}

/** Compose's interpolation of ${NAME}, ${NAME:-default} and ${NAME:?error}, from `env`. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-?])([^}]*))?\}/g,
    (_, name: string, kind, rest: string) => {
      const set = env[name];
      if (set !== undefined && set !== '') return set;
      if (kind === '?') throw new Error(`compose would stop: ${name} is not set (${rest})`);
      return kind === '-' ? rest : '';
    },
  );
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function dockerInstructions(text: string): { keyword: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    });
}

const dockerfile = dockerInstructions(readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8'));
const last = (keyword: string) => dockerfile.filter((instruction) => instruction.keyword === keyword).at(-1)!;
const entrypoint = JSON.parse(last('ENTRYPOINT').args) as string[];
const healthcheck = JSON.parse(
  last('HEALTHCHECK').args.slice(last('HEALTHCHECK').args.indexOf('CMD') + 3),
) as string[];
const exposed = last('EXPOSE').args;
const flag = (name: string) => entrypoint[entrypoint.indexOf(name) + 1];

/** The services built from deploy/Dockerfile: the replicas. */
const replicaServices = Object.entries(services)
  .filter(([, service]) => service.build?.dockerfile === 'deploy/Dockerfile')
  .map(([name]) => name);

describe('deploy/compose.yaml with deploy/haproxy.cfg and deploy/Dockerfile', () => {
  it('builds the replicas from deploy/Dockerfile, with the repository root as context', () => {
    expect(replicaServices.length).toBeGreaterThan(1);
    for (const name of replicaServices) {
      expect(resolve(DEPLOY, services[name]!.build!.context)).toBe(resolve(ROOT));
    }
  });

  it('mounts exactly deploy/haproxy.cfg where the HAProxy image reads its configuration', () => {
    const balancers = Object.entries(services).filter(([, service]) => service.image?.startsWith('haproxy:'));
    expect(balancers).toHaveLength(1);
    const [, balancer] = balancers[0]!;
    expect(balancer.volumes).toHaveLength(1);
    const [source, target, mode] = balancer.volumes![0]!.split(':');
    expect(resolve(dirname(COMPOSE_FILE), source!)).toBe(HAPROXY_CONFIG);
    expect(target).toBe('/usr/local/etc/haproxy/haproxy.cfg');
    expect(mode).toBe('ro');
  });

  it('runs the HAProxy release the tests run the configuration with', async () => {
    const [, balancer] = Object.entries(services).find(([, service]) =>
      service.image?.startsWith('haproxy:'),
    )!;
    const { stdout } = await run(HAPROXY, ['-v']);
    const tested = /version (\d+\.\d+)/.exec(stdout)![1];
    expect(balancer.image).toBe(`haproxy:${tested}`);
  });

  it('gives the load balancer one address per replica it declares, on the port the image serves', () => {
    const [, balancer] = Object.entries(services).find(([, service]) =>
      service.image?.startsWith('haproxy:'),
    )!;
    const env = environmentOf(balancer);
    for (const name of configVariables(haproxyText)) expect(env.get(name), name).toBeTruthy();
    const servers = configReplicas(haproxyText);
    const targets = servers.map((server) => env.get(server.variable)!);
    expect(targets.map((target) => target.split(':')[0]).sort()).toEqual([...replicaServices].sort());
    expect(servers).toHaveLength(replicaServices.length);
    for (const target of targets) expect(target.split(':')[1]).toBe(flag('--port'));
    expect(exposed).toBe(flag('--port'));
    // Docker's embedded DNS, which follows a replica recreated with another address.
    expect(env.get('SWITCHBOARD_LB_DNS')).toBe('127.0.0.11:53');
    // The port HAProxy binds is the one compose publishes.
    const bindPort = env.get('SWITCHBOARD_LB_BIND')!.split(':').at(-1);
    expect(balancer.ports?.map((port) => port.split(':').at(-1))).toEqual([bindPort]);
    // The replicas publish nothing: every request comes through HAProxy, which is what makes --trust-proxy safe.
    for (const name of replicaServices) expect(services[name]!.ports).toBeUndefined();
  });

  it('points every replica at the compose Redis, started first, and requires the bearer token', () => {
    const redisServices = Object.entries(services).filter(([, service]) =>
      service.image?.startsWith('redis:'),
    );
    expect(redisServices).toHaveLength(1);
    const [redisName, redis] = redisServices[0]!;
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    for (const name of replicaServices) {
      const replica = services[name]!;
      const env = environmentOf(replica);
      expect(env.get('SWITCHBOARD_REDIS_URL')).toBe(`redis://${redisName}:6379`);
      expect(replica.depends_on).toEqual({ [redisName]: { condition: 'service_healthy' } });
      expect(() => interpolate(env.get('SWITCHBOARD_HTTP_TOKEN')!, {})).toThrow(
        /SWITCHBOARD_HTTP_TOKEN is not set/,
      );
    }
  });

  it('passes through only variables docs/deploy.md documents', () => {
    const documented = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');
    const names = new Set<string>();
    for (const service of Object.values(services))
      for (const name of environmentOf(service).keys()) names.add(name);
    for (const name of names) expect(documented, name).toContain(`\`${name}\``);
  });

  it('has the image check the health path the server serves, and HAProxy its readiness path', () => {
    expect(healthcheck.slice(0, 2)).toEqual(['node', '-e']);
    expect(healthcheck[2]).toContain(`http://127.0.0.1:${flag('--port')}${HEALTH_PATH}`);
    expect(haproxyText).toContain(`uri ${READY_PATH}\n`);
  });

  describe('the image command and compose arguments, run by the CLI (on loopback, not 0.0.0.0)', () => {
    let server: ChildProcess;
    let port: number;
    let dataDir: string;

    beforeAll(async () => {
      port = await freePort();
      dataDir = mkdtempSync(join(tmpdir(), 'switchboard-compose-'));
      const [, main, ...args] = entrypoint;
      expect(main).toBe('dist/cli/main.js');
      args[args.indexOf('--host') + 1] = '127.0.0.1';
      args[args.indexOf('--port') + 1] = String(port);
      const extra = (services[replicaServices[0]!]!.command ?? []).map((arg) => interpolate(arg, {}));
      server = spawn(process.execPath, [...CLI, ...args, ...extra], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          SWITCHBOARD_HTTP_TOKEN: 'compose-test-token',
          SWITCHBOARD_LOG_LEVEL: 'warn',
          SWITCHBOARD_DATA_DIR: dataDir,
          SWITCHBOARD_CREDENTIALS_FILE: join(dataDir, 'no-saved-login.json'),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let printed = '';
      server.stderr!.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
      });
      const started = Date.now();
      for (;;) {
        if (server.exitCode !== null) throw new Error(`serve exited with ${server.exitCode}:\n${printed}`);
        const up = await fetch(`http://127.0.0.1:${port}${HEALTH_PATH}`).then(
          (response) => response.ok,
          () => false,
        );
        if (up) break;
        if (Date.now() - started > 30_000) throw new Error(`serve did not answer within 30 s:\n${printed}`);
        await new Promise((done) => setTimeout(done, 200));
      }
    }, 40_000);

    afterAll(async () => {
      if (server && server.exitCode === null && server.signalCode === null) {
        await new Promise<void>((done) => {
          const timer = setTimeout(() => server.kill('SIGKILL'), 15_000);
          server.once('exit', () => {
            clearTimeout(timer);
            done();
          });
          server.kill('SIGTERM');
        });
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }, 20_000);

    const healthCommand = () =>
      run(healthcheck[0] === 'node' ? process.execPath : healthcheck[0]!, [
        healthcheck[1]!,
        healthcheck[2]!.replace(`127.0.0.1:${flag('--port')}`, `127.0.0.1:${port}`),
      ]).then(
        () => 0,
        (error: { code?: number }) => error.code ?? -1,
      );

    it("passes the image's HEALTHCHECK command", async () => {
      expect(await healthCommand()).toBe(0);
    });

    it("answers HAProxy's check as HAProxy sends it: HTTP/1.0, no Host (no Redis here: nothing to wait for)", async () => {
      const answer = await new Promise<string>((done, fail) => {
        const socket = connect({ host: '127.0.0.1', port }, () =>
          socket.end(`GET ${READY_PATH} HTTP/1.0\r\n\r\n`),
        );
        let received = '';
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString();
        });
        socket.once('error', fail);
        socket.once('close', () => done(received));
      });
      expect(answer).toMatch(/^HTTP\/1\.[01] 200 /);
    });

    it('fails the HEALTHCHECK command once the server is gone', async () => {
      await new Promise<void>((done) => {
        const timer = setTimeout(() => server.kill('SIGKILL'), 15_000);
        server.once('exit', () => {
          clearTimeout(timer);
          done();
        });
        server.kill('SIGTERM');
      });
      expect(await healthCommand()).not.toBe(0);
    }, 20_000);
  });
});
