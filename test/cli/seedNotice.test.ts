// `serve --sandbox --seed N` on a data folder that already holds data: the data is kept, so the server says the
// seed is ignored, which seed the data was made with, and that --reset reseeds. Started in this process (HTTP on
// a free loopback port), with stderr captured, on a fresh temporary folder.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedIgnoredWarning } from '../../src/cli/seedNotice.js';
import { type ServeOptions, startServe } from '../../src/cli/serve.js';

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-seed-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts and stops `serve issuedesk messaging --sandbox` on the folder; returns what it wrote to stderr. */
async function serveOnce(extra: Partial<ServeOptions>): Promise<string> {
  const written: string[] = [];
  const realWrite = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stderr.write;
  try {
    const handle = await startServe(
      ['issuedesk', 'messaging'],
      {
        transport: 'http',
        host: '127.0.0.1',
        port: 0,
        sandbox: true,
        dataDir,
        reset: false,
        readOnly: false,
        toolNames: 'dotted',
        ...extra,
      },
      {},
    );
    await handle.close();
  } finally {
    process.stderr.write = realWrite;
  }
  return written.join('');
}

/** The warn lines (JSON logs) about an ignored seed. */
const seedWarnings = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; msg: string; requested_seed?: number })
    .filter((entry) => entry.msg.includes('--seed'));

describe('--seed on kept sandbox data', () => {
  it('is silent when the seed is laid down, warns per service when data is kept, and --reset reseeds', async () => {
    expect(seedWarnings(await serveOnce({ seed: 3 }))).toEqual([]);

    const kept = seedWarnings(await serveOnce({ seed: 5 }));
    expect(kept.map((w) => w.level)).toEqual(['warn', 'warn']);
    for (const [i, service] of ['issuedesk', 'messaging'].entries()) {
      const { msg } = kept[i]!;
      expect(msg).toContain(`${service}: the sandbox data in ${join(dataDir, `${service}.db`)}`);
      expect(msg).toContain('seed 3');
      expect(msg).toContain('--seed 5 is ignored');
      expect(msg).toContain('--reset');
    }

    expect(seedWarnings(await serveOnce({ seed: 5, reset: true }))).toEqual([]);
    // Reseeded with 5: asking for 5 again keeps it, and says so naming seed 5 as the data's.
    expect(seedWarnings(await serveOnce({ seed: 5 }))[0]?.msg).toContain('kept from seed 5');
    // No --seed, nothing to say.
    expect(seedWarnings(await serveOnce({}))).toEqual([]);
  });

  it('names no seed when the data does not record one', () => {
    const warning = seedIgnoredWarning('store', 2, { fresh: false, seed: undefined }, '/data/store.db');
    expect(warning?.message).toContain('kept from an earlier run; --seed 2 is ignored');
    expect(seedIgnoredWarning('store', 2, { fresh: true, seed: 2 }, '/data/store.db')).toBeUndefined();
  });
});
