// What `serve --transport http` prints on start: where the MCP endpoint is, what it serves, and a client
// configuration ready to paste. Printed to stderr, like every log line.

import { servedToolsets, type ToolSet } from '../runtime/toolset.js';
import { findService } from '../services/registry.js';
import type { RunningEmulator } from '../services/serviceEntry.js';

/** A value as a POSIX shell reads it back unchanged: bare when plainly safe, else single-quoted. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** `export NAME=value` lines, ready to paste into a shell. */
export function exportLines(env: Record<string, string>): string[] {
  return Object.entries(env).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
}

/** What protects the MCP endpoint beyond the Host and Origin checks. */
export type HttpProtection =
  | { kind: 'none' }
  | { kind: 'bearer' }
  | { kind: 'oauth'; issuer: string; resource: string; upstream: string; upstreamName: string };

function describeProtection(protection: HttpProtection): string {
  switch (protection.kind) {
    case 'oauth':
      return `OAuth: each person signs in through ${protection.upstreamName} (${protection.upstream}); authorization server ${protection.issuer}`;
    case 'bearer':
      return 'static bearer token (SWITCHBOARD_HTTP_TOKEN)';
    default:
      return 'none beyond loopback (Host and Origin checks)';
  }
}

/** One line on the other MCP paths (below the endpoint's): toolsets, with an example, and the discovery mode. */
function toolsetLine(url: string, toolSet: ToolSet): string {
  const path = new URL(url).pathname;
  const example = servedToolsets(toolSet)[0];
  const toolsets = example
    ? `${path}/<toolset>[,<toolset>...] for those only (e.g. ${path}/${example.name}; \`switchboard toolsets\` lists them), `
    : '';
  return `  Paths: ${toolsets}${path}/discovery or ${path}/<toolsets>/discovery for the discovery mode`;
}

export function printBanner(info: {
  url: string;
  toolSet: ToolSet;
  sandbox: boolean;
  emulators: { id: string; emulator: RunningEmulator }[];
  protection: HttpProtection;
  /** `serve --discovery`: the endpoint lists search_tools and call_tool in place of the tools. */
  discovery?: boolean;
  /** The sandbox console (src/console/): where it is, or why it is not served. */
  console?: { url: string } | { reason: string };
}): void {
  const prefixes = [...new Set(info.toolSet.tools.map((tool) => tool.specName.split('.')[0]))].join(', ');
  const config = {
    mcpServers: {
      switchboard: {
        type: 'http',
        url: info.url,
        ...(info.protection.kind === 'bearer'
          ? { headers: { Authorization: 'Bearer <SWITCHBOARD_HTTP_TOKEN>' } }
          : {}),
      },
    },
  };
  const lines = [
    `Switchboard ${info.sandbox ? 'sandbox ' : ''}is serving ${info.toolSet.tools.length} tools (${prefixes})` +
      (info.discovery ? ', in discovery mode: search_tools finds them and call_tool runs them.' : '.'),
    '',
    `  MCP endpoint (Streamable HTTP): ${info.url}`,
    toolsetLine(info.url, info.toolSet),
    `  Protection: ${describeProtection(info.protection)}`,
  ];
  if (info.console) {
    lines.push(
      'url' in info.console
        ? `  Console (watch and steer the sandbox in a browser): ${info.console.url}`
        : `  Console: not served: ${info.console.reason}`,
    );
  }
  for (const { id, emulator } of info.emulators) {
    // As the variables `serve` reads (the address is already on the line), the same names `emulate` prints.
    const env = findService(id)?.envForEmulator(emulator) ?? emulator.credentials;
    const creds = Object.entries(env)
      .filter(([, value]) => value !== emulator.url)
      .map(([name, value]) => `${name}=${shellQuote(value)}`)
      .join(' ');
    lines.push(
      `  ${id} emulator: ${emulator.url}  (${creds}; requests at ${emulator.url}/_emulator/requests)`,
    );
  }
  lines.push(
    '',
    'Client configuration (e.g. .mcp.json, Claude Desktop, Cursor):',
    JSON.stringify(config, null, 2)
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n'),
    '',
    `Claude Code:  claude mcp add --transport http switchboard ${info.url}`,
    'Stop with Ctrl+C.',
    '',
  );
  process.stderr.write(`${lines.join('\n')}\n`);
}
