// The MCP server over a prepared ToolSet. Built on the SDK's low-level Server so that tools/list serves the
// prepared entries and a server instance costs almost nothing: stateless HTTP builds one per request.

import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { errorResult, successResult } from './result.js';
import type { Principal } from './tool.js';
import type { ToolSet } from './toolset.js';
import { validateArguments } from './validate.js';

export const SERVER_NAME = 'switchboard';
export const SERVER_VERSION = '0.1.0';

export interface McpServerOptions {
  /** The verified caller of this HTTP request (per-user OAuth); every tool call it makes runs as them. */
  principal?: Principal;
}

export function createMcpServer(toolSet: ToolSet, options: McpServerOptions = {}): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: toolSet.instructions },
  );
  server.setRequestHandler('tools/list', async () => ({ tools: toolSet.listEntries as never }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const tool = toolSet.byName.get(name);
    if (!tool) {
      // MCP: calling a tool the server does not have is a protocol error (invalid params), not a tool result.
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool "${name}"; tools/list names the tools.`,
      );
    }
    const parsed = validateArguments(tool.definition.input, args, tool.name);
    if (!parsed.ok) return server.projectCallToolResult(errorResult(parsed.error, tool.name), undefined);
    try {
      const value = await tool.definition.run(parsed.value, tool.context, {
        signal: ctx.mcpReq.signal,
        toolName: tool.name,
        nameStyle: toolSet.nameStyle,
        ...(options.principal ? { principal: options.principal } : {}),
      });
      return server.projectCallToolResult(successResult(value), undefined);
    } catch (error) {
      return server.projectCallToolResult(errorResult(error, tool.name), undefined);
    }
  });
  return server;
}
