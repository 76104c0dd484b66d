// The built program, as `npm install` makes it (scripts/build.mjs: one bundle with lazily loaded chunks), run the
// way users run it: `node dist/cli/main.js ...`. Built here into a temporary folder laid out like the package
// (package.json and node_modules beside dist/), so the test checks the current sources, not a stale dist/.

import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREBUILT_TOOL_LIST, type PrebuiltTool } from '../../src/runtime/prebuiltTools.js';
import { listedTools } from '../../src/runtime/tasks.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { SERVICES } from '../../src/services/registry.js';
import { type Connected, connectClient, ROOT, spawnCli } from './harness.js';

let folder: string;
let main: string;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'switchboard-bundle-'));
  symlinkSync(join(ROOT, 'package.json'), join(folder, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), join(folder, 'dist/cli')]);
  main = join(folder, 'dist/cli/main.js');
}, 60_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the bundled command', () => {
  it('is one entry file with its chunks beside it, and reports the package version', () => {
    const files = readdirSync(join(folder, 'dist/cli')).filter((name) => name.endsWith('.js'));
    expect(files).toContain('main.js');
    // Chunks, not a copy of the source tree: the emulators and the OAuth vault are split off to load on use.
    // (OpenTelemetry alone brings a dozen, loaded only when traces are exported.)
    expect(files.length).toBeLessThan(80);
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;
    expect(execFileSync(process.execPath, [main, '--version'], { encoding: 'utf8' }).trim()).toBe(version);
  });

  it('serves the prebuilt entries rather than making them again (an edited file shows in tools/list)', async () => {
    const file = join(folder, 'dist/cli', PREBUILT_TOOL_LIST);
    const original = readFileSync(file, 'utf8');
    const edited = JSON.parse(original) as Record<string, PrebuiltTool>;
    edited['IssueDesk.WhoAmI']!.listEntry.description = 'Edited in the prebuilt list.';
    writeFileSync(file, JSON.stringify(edited));
    try {
      const mcp = await connectClient(
        new StdioClientTransport({
          command: process.execPath,
          args: [main, 'serve', 'issuedesk'],
          env: { PATH: process.env.PATH ?? '', SWITCHBOARD_LOG_LEVEL: 'error' },
          stderr: 'ignore',
        }),
      );
      try {
        const { tools } = await mcp.client.listTools();
        expect(tools.find((tool) => tool.name === 'IssueDesk.WhoAmI')?.description).toBe(
          'Edited in the prebuilt list.',
        );
      } finally {
        await mcp.close();
      }
    } finally {
      writeFileSync(file, original);
    }
  });

  // Listing needs only the prebuilt list (runtime/prebuiltTools.ts): the module that defines a service's tools, with
  // their zod schemas, loads on the first call. Shown by taking the chunk that holds IssueDesk's tools away.
  /** The built chunk that defines IssueDesk's tools (found by its source map). */
  const issueDeskToolsChunk = () => {
    const dist = join(folder, 'dist/cli');
    const chunk = readdirSync(dist).find(
      (name) =>
        name.endsWith('.js.map') &&
        (JSON.parse(readFileSync(join(dist, name), 'utf8')) as { sources: string[] }).sources.some((source) =>
          source.endsWith('src/services/issuedesk/tools.ts'),
        ),
    );
    expect(chunk).toBeDefined();
    return join(dist, chunk!.replace(/\.map$/, ''));
  };

  it('lists tools without loading their definitions, which load on the first call', async () => {
    const file = issueDeskToolsChunk();
    renameSync(file, `${file}.away`);
    try {
      const mcp = await connectClient(
        new StdioClientTransport({
          command: process.execPath,
          args: [main, 'serve', 'issuedesk', '--read-only'],
          env: { PATH: process.env.PATH ?? '', SWITCHBOARD_LOG_LEVEL: 'error', ISSUEDESK_API_TOKEN: 'x' },
          stderr: 'ignore',
        }),
      );
      try {
        // --read-only filters by the summaries' hints: 7 of IssueDesk's 13 tools read.
        const { tools } = await mcp.client.listTools();
        expect(tools.map((tool) => tool.name)).toContain('IssueDesk.SearchIssues');
        expect(tools.every((tool) => tool.annotations?.readOnlyHint)).toBe(true);
        // The call cannot load the definitions: an internal error, and the server goes on serving.
        const result = await mcp.client.callTool({ name: 'IssueDesk.WhoAmI', arguments: {} });
        expect(result.isError).toBe(true);
        expect((result.structuredContent as { error: { kind: string } }).error.kind).toBe('internal');
        expect((await mcp.client.listTools()).tools).toHaveLength(tools.length);
      } finally {
        await mcp.close();
      }
    } finally {
      renameSync(`${file}.away`, file);
    }
  });

  // A client calls its first tool seconds after listing, if at all: a second after the first tools/list the process
  // loads what that call needs (mcpServer.ts, warmUpAfterListing). Shown by taking the chunk away after that.
  it('loads the tool modules a second after the first tools/list, before any call', async () => {
    const file = issueDeskToolsChunk();
    const mcp = await connectClient(
      new StdioClientTransport({
        command: process.execPath,
        args: [main, 'serve', 'issuedesk', '--sandbox', '--data-dir', ':memory:'],
        env: { PATH: process.env.PATH ?? '', SWITCHBOARD_LOG_LEVEL: 'error' },
        stderr: 'ignore',
      }),
    );
    try {
      await mcp.client.listTools();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      renameSync(file, `${file}.away`);
      const who = await mcp.client.callTool({ name: 'IssueDesk.WhoAmI', arguments: {} });
      expect(who.isError, JSON.stringify(who.content)).toBeFalsy();
    } finally {
      renameSync(`${file}.away`, file);
      await mcp.close();
    }
  }, 30_000);

  // The sandbox console's page comes from dist/cli/console/ (scripts/build.mjs), not from esbuild, which an
  // installed package does not have: an edited file is what the server sends.
  it('serves the prebuilt console page from dist/cli/console/', async () => {
    const file = join(folder, 'dist/cli/console/index.html');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('<title>', '<title>Edited in the prebuilt page. '));
    const server = spawnCli(
      ['serve', 'issuedesk', '--sandbox', '--transport', 'http', '--port', '0', '--data-dir', ':memory:'],
      {},
      /Console \(watch and steer the sandbox in a browser\): (\S+)/,
      { entry: [main] },
    );
    try {
      const [, url] = await server.ready;
      const page = await fetch(url!, { headers: { accept: 'text/html' } });
      expect(await page.text()).toContain('<title>Edited in the prebuilt page. ');
      const script = await fetch(new URL('/console/app.js', url));
      expect(await script.text()).toBe(readFileSync(join(folder, 'dist/cli/console/app.js'), 'utf8'));
    } finally {
      await server.stop();
      writeFileSync(file, original);
    }
  }, 30_000);

  describe('serve all --sandbox over stdio', () => {
    let mcp: Connected;
    beforeAll(async () => {
      mcp = await connectClient(
        new StdioClientTransport({
          command: process.execPath,
          args: [main, 'serve', 'all', '--sandbox', '--data-dir', ':memory:'],
          env: { PATH: process.env.PATH ?? '', SWITCHBOARD_LOG_LEVEL: 'warn' },
          stderr: 'ignore',
        }),
      );
    }, 60_000);
    afterAll(() => mcp?.close());

    it('lists all 126 tools, read from the prebuilt list, exactly as the sources make them', async () => {
      expect(readdirSync(join(folder, 'dist/cli'))).toContain(PREBUILT_TOOL_LIST);
      const { tools } = await mcp.client.listTools();
      expect(tools).toHaveLength(126);
      const runtimes = SERVICES.map((service) =>
        service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' }),
      );
      // As served: the list entries, with `execution` on the tools that run as tasks (runtime/tasks.ts).
      expect(tools).toEqual(listedTools(buildToolSet(runtimes, { nameStyle: 'dotted' })));
    });

    it('runs a tool against its emulator (SQLite, loaded from node_modules)', async () => {
      const who = await mcp.call('IssueDesk.WhoAmI');
      expect(who.isError).toBe(false);
      expect(who.text).toContain('Lumen Labs');
    });

    it('turns HTML into text through the module it loads at run time (html-to-text)', async () => {
      const issue = await mcp.call('IssueDesk.GetIssue', { lookup_by: 'id', value: '1' });
      expect(issue.isError).toBe(false);
      expect(issue.text).not.toMatch(/<\/?p>/);
    });
  });

  // The exporter is a CommonJS package loaded on demand: a bundle gives such a package's exports as its default
  // export only, which the sources (run through tsx) never show. Spans must still leave the built program.
  it('exports traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set', async () => {
    const paths: string[] = [];
    const receiver = createServer((request, response) => {
      paths.push(`${request.method} ${request.url}`);
      request
        .resume()
        .on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const { port } = receiver.address() as { port: number };
    try {
      const mcp = await connectClient(
        new StdioClientTransport({
          command: process.execPath,
          args: [main, 'serve', 'issuedesk', '--sandbox', '--data-dir', ':memory:'],
          env: {
            PATH: process.env.PATH ?? '',
            SWITCHBOARD_LOG_LEVEL: 'warn',
            OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
          },
          stderr: 'ignore',
        }),
      );
      expect((await mcp.call('IssueDesk.WhoAmI')).isError).toBe(false);
      await mcp.close(); // the server stops with its stdin, sending what it buffered
      for (let waited = 0; paths.length === 0 && waited < 10_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(paths).toContain('POST /v1/traces');
    } finally {
      receiver.close();
    }
  }, 60_000);
});
