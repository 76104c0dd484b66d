// Helpers shared by the benchmark sections: child processes of the built CLI, timing statistics, MCP clients.

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toolListCost, toolListTokensWithOutputSchemas } from '../src/runtime/tokens.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI = `${ROOT}dist/cli/main.js`;

export function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), min: sorted[0]!, max: sorted[sorted.length - 1]! };
}
export const ms = (value: number) => `${value.toFixed(2)} ms`;

/** A child process of the built CLI (or, with `raw`, of node with exactly `args`), ready once `pattern` shows. */
export function startChild(
  args: string[],
  env: Record<string, string>,
  pattern: RegExp,
  options: { raw?: boolean } = {},
) {
  const child = spawn(process.execPath, options.raw ? args : [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // `emulate` prints the environment for `serve` on stdout and its banner on stderr; servers print on stderr.
  const seen = { stdout: '', stderr: '' };
  const ready = new Promise<RegExpExecArray>((resolve, reject) => {
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream]!.on('data', (chunk: Buffer) => {
        seen[stream] += chunk.toString();
        const match = pattern.exec(seen[stream]);
        if (match) resolve(match);
      });
    }
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${seen.stderr}`)));
  });
  return { child, ready };
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export async function connectHttp(url: string) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/**
 * tools/list of a connected client in o200k tokens, with its instructions: the count of src/runtime/tokens.ts
 * (what a model receives), the one the tests hold in test/inventory/__snapshots__/toolTokens.json.
 */
export async function listTokens(client: Client) {
  const { tools } = await client.listTools();
  const cost = await toolListCost(tools, client.getInstructions() ?? '');
  return {
    tools: tools.length,
    list: cost.tools,
    /** The same list with the tools' output schemas: what a client receives, not what it shows a model. */
    listWithOutputSchemas: await toolListTokensWithOutputSchemas(tools),
    instructions: cost.instructions,
    total: cost.total,
    perTool: Math.round(cost.tools / tools.length),
  };
}

/** Latency statistics of `rounds` sequential runs, after `warmup` runs that are not counted. */
export async function timed(rounds: number, warmup: number, run: (i: number) => Promise<unknown>) {
  for (let i = 0; i < warmup; i++) await run(i);
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await run(i);
    samples.push(performance.now() - t);
  }
  return stats(samples);
}

/** A tool call that must succeed; its structured result. */
export async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}
