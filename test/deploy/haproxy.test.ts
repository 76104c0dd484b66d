// deploy/haproxy.cfg, run for real: Debian's HAProxy with that file in front of two small loopback HTTP servers
// and one address where nothing listens. Round robin over the live ones, a server out of rotation when it does not
// answer or its /readyz says 503, the forwarded headers the replicas trust, and a Server-Sent Events stream passed
// on as it is written. Loopback only; HAProxy and the servers are stopped at the end.

import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/redisServer.js';
import {
  checkConfig,
  configReplicas,
  configVariables,
  HAPROXY_CONFIG,
  type LoadBalancer,
  loadBalancerEnv,
  startLoadBalancer,
} from './haproxy.js';

interface Answer {
  replica: string;
  headers: IncomingHttpHeaders;
}

/** A stand-in replica: answers /readyz (200 unless told otherwise), /stream (SSE, held open), and anything else. */
class TinyReplica {
  readonly paths: string[] = [];
  ready = true;
  private releaseStream: (() => void) | undefined;
  private server: Server | undefined;
  port = 0;

  constructor(readonly name: string) {}

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.paths.push(`${request.method} ${request.url}`);
      if (request.url === '/readyz') {
        response.writeHead(this.ready ? 200 : 503, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: this.ready ? 'ready' : 'not_ready' }));
        return;
      }
      if (request.url === '/stream') {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
        response.write(`data: first from ${this.name}\n\n`);
        // The rest only when the test says so: it must have read the first event while the response is open.
        this.releaseStream = () => response.end('data: last\n\n');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ replica: this.name, headers: request.headers } satisfies Answer));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  release(): void {
    this.releaseStream?.();
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

describe('deploy/haproxy.cfg', () => {
  const text = readFileSync(HAPROXY_CONFIG, 'utf8');

  it('names no address of its own: every one comes from the environment', async () => {
    expect(configReplicas(text).map((server) => server.name)).toEqual(['replica1', 'replica2', 'replica3']);
    expect(configVariables(text).sort()).toEqual(
      [
        'SWITCHBOARD_LB_BIND',
        'SWITCHBOARD_LB_DNS',
        'SWITCHBOARD_LB_REPLICA1',
        'SWITCHBOARD_LB_REPLICA2',
        'SWITCHBOARD_LB_REPLICA3',
      ].sort(),
    );
    const unset = await checkConfig({});
    expect(unset.valid).toBe(false);
    expect(unset.output).toMatch(/'server' expects <name> and <addr>/);
  });

  it('is valid for `haproxy -c` with the variables set', async () => {
    const env = await loadBalancerEnv(await freePort(), ['127.0.0.1:1', '127.0.0.1:2', '127.0.0.1:3']);
    const checked = await checkConfig(env);
    expect(checked.output).toContain('Configuration file is valid');
    expect(checked.valid).toBe(true);
  });

  it('checks /readyz, round robin, with timeouts fit for streamed answers', () => {
    expect(text).toMatch(/^\s*balance roundrobin$/m);
    expect(text).toMatch(/^\s*http-check send meth GET uri \/readyz$/m);
    expect(text).toMatch(/^\s*http-check expect status 200$/m);
    // Long enough for a quiet SSE stream, not unbounded.
    expect(text).toMatch(/^\s*timeout server 10m$/m);
    expect(text).toMatch(/^\s*timeout client 10m$/m);
  });

  describe('in front of two live replicas and one that is not there', () => {
    const one = new TinyReplica('one');
    const two = new TinyReplica('two');
    let lb: LoadBalancer;

    beforeAll(async () => {
      await one.start();
      await two.start();
      const nobody = await freePort();
      lb = await startLoadBalancer([`127.0.0.1:${one.port}`, `127.0.0.1:${two.port}`, `127.0.0.1:${nobody}`]);
      // Its health checks find the third one absent (two failed checks, 2 s apart).
      await lb.waitFor(/Server replicas\/replica3 is DOWN/);
    }, 30_000);

    afterAll(async () => {
      await lb?.stop();
      await one.stop();
      await two.stop();
    });

    const ask = async (headers: Record<string, string> = {}): Promise<Answer> => {
      const response = await fetch(`${lb.url}/mcp`, { headers });
      expect(response.status).toBe(200);
      return (await response.json()) as Answer;
    };

    it('asks each replica GET /readyz', () => {
      expect(one.paths).toContain('GET /readyz');
      expect(two.paths).toContain('GET /readyz');
    });

    it('alternates between the live replicas and never picks the absent one', async () => {
      const order: string[] = [];
      for (let i = 0; i < 6; i++) order.push((await ask()).replica);
      expect(order.filter((name) => name === 'one')).toHaveLength(3);
      expect(order.filter((name) => name === 'two')).toHaveLength(3);
      for (let i = 1; i < order.length; i++) expect(order[i]).not.toBe(order[i - 1]);
    });

    it('sets the forwarded headers itself, whatever the client sent', async () => {
      const { headers } = await ask({ 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
      expect(headers['x-forwarded-host']).toBe(`127.0.0.1:${lb.port}`);
      expect(headers['x-forwarded-proto']).toBe('http');
      expect(headers['x-forwarded-for']).toContain('127.0.0.1');
    });

    it('passes a Server-Sent Events stream on as it is written, not when it ends', async () => {
      // Round robin: whichever replica gets it holds the stream open until released.
      const response = await fetch(`${lb.url}/stream`);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let received = '';
      while (!received.includes('\n\n')) {
        const { value, done } = await reader.read();
        if (done) break;
        received += decoder.decode(value, { stream: true });
      }
      // The first event arrived while the replica still holds the response open.
      expect(received).toMatch(/^data: first from (one|two)\n\n$/);
      one.release();
      two.release();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        received += decoder.decode(value, { stream: true });
      }
      expect(received).toMatch(/data: last\n\n$/);
    });

    it('takes a replica whose /readyz says 503 out of the rotation', async () => {
      one.ready = false;
      await lb.waitFor(/Server replicas\/replica1 is DOWN/);
      const order: string[] = [];
      for (let i = 0; i < 4; i++) order.push((await ask()).replica);
      expect(order).toEqual(['two', 'two', 'two', 'two']);
    }, 20_000);
  });
});
