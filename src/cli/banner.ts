// What `serve --transport http` prints on start: where the MCP endpoint is, what it serves, and a client
// configuration ready to paste. Printed to stderr, like every log line.

import type { ToolSet } from '../runtime/toolset.js';
import type { RunningEmulator } from '../services/registry.js';

export function printBanner(info: {
  url: string;
  toolSet: ToolSet;
  sandbox: boolean;
  emulators: { id: string; emulator: RunningEmulator }[];
  bearer: boolean;
}): void {
  const prefixes = [...new Set(info.toolSet.tools.map((tool) => tool.specName.split('.')[0]))].join(', ');
  const config = {
    mcpServers: {
      switchboard: {
        type: 'http',
        url: info.url,
        ...(info.bearer ? { headers: { Authorization: 'Bearer <SWITCHBOARD_HTTP_TOKEN>' } } : {}),
      },
    },
  };
  const lines = [
    `Switchboard ${info.sandbox ? 'sandbox ' : ''}is serving ${info.toolSet.tools.length} tools (${prefixes}).`,
    '',
    `  MCP endpoint (Streamable HTTP): ${info.url}`,
  ];
  for (const { id, emulator } of info.emulators) {
    const creds = Object.entries(emulator.credentials)
      .map(([key, value]) => `${key} ${value}`)
      .join(', ');
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
