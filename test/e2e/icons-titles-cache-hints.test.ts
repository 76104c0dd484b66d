// What clients show of the server and its tools, through the SDK client on both revisions and both transports:
// serverInfo's title and icon (Switchboard's when several services are served, a service's own when one is),
// every tool's service icon and its published title, and on 2026-07-28 the cache hints of tools/list and
// server/discover (public, an hour); 2025-11-25 results have no cache fields. The icons are data: URIs whose
// SVG is checked to be well formed, self-contained and distinct per service.

import {
  Client,
  type Icon,
  type Implementation,
  SERVER_INFO_META_KEY,
  StreamableHTTPClientTransport,
  type Tool,
} from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ICON_SVGS } from '../../src/runtime/icons.js';
import { LIST_CACHE_HINT } from '../../src/runtime/mcpServer.js';
import { buildToolSet, titleAddsNothing } from '../../src/runtime/toolset.js';
import { type RunningHttpServer, serveHttp } from '../../src/runtime/transports.js';
import { SERVICES } from '../../src/services/registry.js';
import { cliTransport } from './harness.js';

const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
type Revision = (typeof REVISIONS)[number];

// The runtimes of `serve` with no credentials: tools/list and the server's identity do not depend on them.
const runtimes = SERVICES.map((service) =>
  service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' }),
);
const definitions = new Map(
  runtimes.flatMap(({ definition: service }) =>
    service.tools.map((tool): [string, typeof tool] => [`${service.prefix}.${tool.name}`, tool]),
  ),
);

/** An SDK client speaking `revision`: the 2025 handshake, or 2026-07-28 pinned (no fallback). */
async function connect(
  revision: Revision,
  transport: StdioClientTransport | StreamableHTTPClientTransport,
): Promise<Client> {
  const client = new Client(
    { name: 'icons-e2e', version: '1.0.0' },
    { versionNegotiation: { mode: revision === '2026-07-28' ? { pin: revision } : 'legacy' } },
  );
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion()).toBe(revision);
  return client;
}

/** The SVG a data: URI icon holds, after checking the icon's declared type and size. */
function svgOf(icon: Icon): string {
  expect(icon.mimeType).toBe('image/svg+xml');
  expect(icon.sizes).toEqual(['any']);
  const prefix = 'data:image/svg+xml;base64,';
  expect(icon.src.startsWith(prefix), icon.src.slice(0, 40)).toBe(true);
  return Buffer.from(icon.src.slice(prefix.length), 'base64').toString('utf8');
}

/**
 * Checks that `svg` is a well-formed, self-contained SVG document: one <svg> root in the SVG namespace with a
 * viewBox, made only of balanced shape elements with quoted attributes, and nothing that could load or run
 * anything (no script, no href, no url()).
 */
function expectValidSvg(svg: string): void {
  expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 24 24">/);
  expect(svg).not.toMatch(/script|href|url\(|<!|<\?/i);
  const tag = /<(\/?)([a-z]+)((?:\s+[a-zA-Z-]+="[^"<>]*")*)\s*(\/?)>/y;
  const open: string[] = [];
  let at = 0;
  let roots = 0;
  while (at < svg.length) {
    tag.lastIndex = at;
    const match = tag.exec(svg);
    expect(match, `malformed SVG at ${at}: ${svg.slice(at, at + 30)}`).not.toBeNull();
    const [whole, closing, name, , selfClosing] = match!;
    expect(['svg', 'rect', 'path', 'circle']).toContain(name);
    if (closing) {
      expect(open.pop()).toBe(name);
    } else if (!selfClosing) {
      if (open.length === 0) roots += 1;
      open.push(name!);
    }
    at += whole.length;
  }
  expect(open).toEqual([]);
  expect(roots).toBe(1);
}

function expectIdentity(info: Implementation | undefined, title: string, svg: string): void {
  expect(info?.name).toBe('switchboard');
  expect(info?.title).toBe(title);
  expect(info?.icons).toHaveLength(1);
  expect(svgOf(info!.icons![0]!)).toBe(svg);
}

/**
 * Every listed tool carries the title its definition publishes, and no icon of its own: the server's icon names the
 * service, and 126 inline copies would double the bytes of each tools/list.
 */
function expectToolDisplay(tools: readonly Tool[]): void {
  for (const tool of tools) {
    expect(tool.icons, tool.name).toBeUndefined();
    const definition = definitions.get(tool.name)!;
    // Issue 13: a title that only restates the name is left out (it costs every turn and shows nothing new).
    expect(tool.title, tool.name).toBe(
      titleAddsNothing(definition.title, definition.name) ? undefined : definition.title,
    );
  }
  expect(tools.filter((tool) => tool.title !== undefined).length).toBeGreaterThan(0);
}

/** The cache fields of a list or discover result, read off the result as the client received it. */
function cacheFieldsOf(result: object): { ttlMs?: unknown; cacheScope?: unknown } {
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  return { ...(ttlMs !== undefined ? { ttlMs } : {}), ...(cacheScope !== undefined ? { cacheScope } : {}) };
}

const HOUR = { ttlMs: 3_600_000, cacheScope: 'public' };

describe('the icons', () => {
  it('are well-formed, self-contained SVGs, one per service and one for Switchboard, all different', () => {
    expect(Object.keys(ICON_SVGS).sort()).toEqual(
      [...runtimes.map(({ definition }) => definition.prefix), 'Switchboard'].sort(),
    );
    for (const svg of Object.values(ICON_SVGS)) expectValidSvg(svg);
    expect(new Set(Object.values(ICON_SVGS)).size).toBe(Object.keys(ICON_SVGS).length);
    expect(LIST_CACHE_HINT).toEqual(HOUR);
  });
});

describe.each(REVISIONS)('protocol revision %s', (revision) => {
  describe('over HTTP', () => {
    let server: RunningHttpServer;
    beforeAll(async () => {
      server = await serveHttp(buildToolSet(runtimes), { host: '127.0.0.1', port: 0 });
    });
    afterAll(() => server.close());

    it('serving all three services: serverInfo is Switchboard with its icon; every tool has its service icon', async () => {
      const client = await connect(revision, new StreamableHTTPClientTransport(new URL(server.url)));
      try {
        expectIdentity(client.getServerVersion(), 'Switchboard', ICON_SVGS.Switchboard);
        const list = await client.listTools();
        expect(list.tools).toHaveLength(126);
        expectToolDisplay(list.tools);
        if (revision === '2026-07-28') {
          expect(cacheFieldsOf(list)).toEqual(HOUR);
          // Every 2026-07-28 result names the server, icon included.
          const stamped = (list._meta as Record<string, unknown> | undefined)?.[SERVER_INFO_META_KEY];
          expectIdentity(stamped as Implementation, 'Switchboard', ICON_SVGS.Switchboard);
          expect(cacheFieldsOf(client.getDiscoverResult()!)).toEqual(HOUR);
        } else {
          expect(cacheFieldsOf(list)).toEqual({});
        }
      } finally {
        await client.close();
      }
    });

    it("a path serving one service's toolsets is that service's server, with its title and icon", async () => {
      const client = await connect(
        revision,
        new StreamableHTTPClientTransport(new URL(`${server.url}/store.records,store.comments`)),
      );
      try {
        expectIdentity(client.getServerVersion(), 'StoreApi (Switchboard)', ICON_SVGS.StoreApi);
        const list = await client.listTools();
        expect(list.tools.length).toBeGreaterThan(0);
        expectToolDisplay(list.tools);
        if (revision === '2026-07-28') expect(cacheFieldsOf(list)).toEqual(HOUR);
      } finally {
        await client.close();
      }
    });
  });

  describe('over stdio', () => {
    it('serve all: serverInfo is Switchboard with its icon; every tool has its service icon', async () => {
      const client = await connect(revision, cliTransport(['serve', 'all']));
      try {
        expectIdentity(client.getServerVersion(), 'Switchboard', ICON_SVGS.Switchboard);
        const list = await client.listTools();
        expect(list.tools).toHaveLength(126);
        expectToolDisplay(list.tools);
        if (revision === '2026-07-28') {
          expect(cacheFieldsOf(list)).toEqual(HOUR);
          expect(cacheFieldsOf(client.getDiscoverResult()!)).toEqual(HOUR);
        } else {
          expect(cacheFieldsOf(list)).toEqual({});
        }
      } finally {
        await client.close();
      }
    });

    it('serve messaging: serverInfo is the MessagingTrackApi server with its icon', async () => {
      const client = await connect(revision, cliTransport(['serve', 'messaging']));
      try {
        expectIdentity(
          client.getServerVersion(),
          'MessagingTrackApi (Switchboard)',
          ICON_SVGS.MessagingTrackApi,
        );
        const list = await client.listTools();
        expect(list.tools).toHaveLength(17);
        expectToolDisplay(list.tools);
        if (revision === '2026-07-28') expect(cacheFieldsOf(list)).toEqual(HOUR);
      } finally {
        await client.close();
      }
    });
  });
});
