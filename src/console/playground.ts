// The sandbox console's playground: the tools as the server lists them, and a run of one through the real MCP
// server path. The run is an SDK client (named CONSOLE_CLIENT_NAME) connected in process to an MCP server built
// exactly as the HTTP endpoint builds one for this caller (transports.ts GuardedAccess.mcpServer), so validation,
// confirmation rules, the call's events and its upstream requests are those of any agent's call, and it shows in
// the timeline like one. The run learns its call id from the call's own `tool_call_started` event, told apart from
// concurrent calls by the W3C traceparent the run sends (a trace the console starts; runtime/tracing.ts joins it).

import { randomBytes } from 'node:crypto';
import { type CallToolResult, Client, InMemoryTransport, type Tool } from '@modelcontextprotocol/client';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { callEvents } from '../runtime/callEvents.js';
import { VERSION } from '../runtime/version.js';
import { ConsoleRequestError } from './stateTables.js';

/** The client name the console's runs carry, as the timeline shows it. */
export const CONSOLE_CLIENT_NAME = 'sandbox-console';

type McpServerFor = (authInfo?: AuthInfo) => {
  connect(transport: InMemoryTransport): Promise<void>;
  close(): Promise<void>;
};

export interface PlaygroundTool {
  name: string;
  title: string | undefined;
  description: string | undefined;
  inputSchema: Tool['inputSchema'];
  annotations: Tool['annotations'];
  /** The tool takes `mode` (`get_request_schema` | `execute`) and `request_body` (runtime/schemaMode.ts). */
  schemaMode: boolean;
}

async function withClient<T>(
  serverFor: McpServerFor,
  authInfo: AuthInfo | undefined,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const server = serverFor(authInfo);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: CONSOLE_CLIENT_NAME, version: VERSION });
  try {
    await client.connect(clientSide);
    return await use(client);
  } finally {
    await client.close().catch(() => undefined);
    await server.close().catch(() => undefined);
  }
}

function isSchemaMode(tool: Tool): boolean {
  const mode = (tool.inputSchema.properties as Record<string, { enum?: unknown[] }> | undefined)?.mode;
  return Array.isArray(mode?.enum) && mode.enum.includes('get_request_schema');
}

export class Playground {
  readonly #serverFor: McpServerFor;
  /** tools/list is the same for every caller for the life of the process (mcpServer.ts LIST_CACHE_HINT). */
  #tools: Promise<PlaygroundTool[]> | undefined;

  constructor(serverFor: McpServerFor) {
    this.#serverFor = serverFor;
  }

  tools(authInfo?: AuthInfo): Promise<PlaygroundTool[]> {
    this.#tools ??= withClient(this.#serverFor, authInfo, async (client) => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools.map((tool) => ({
        name: tool.name,
        title: tool.title ?? tool.annotations?.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations,
        schemaMode: isSchemaMode(tool),
      }));
    });
    this.#tools.catch(() => {
      this.#tools = undefined;
    });
    return this.#tools;
  }

  /** Calls `tool` as an agent would; the result as the client got it, and the call's id in the timeline. */
  async run(
    body: unknown,
    authInfo: AuthInfo | undefined,
    signal: AbortSignal,
  ): Promise<{ callId: string | undefined; result: CallToolResult }> {
    const { tool, arguments: args = {} } = (body ?? {}) as { tool?: unknown; arguments?: unknown };
    if (typeof tool !== 'string' || tool === '') {
      throw new ConsoleRequestError(400, 'tool: give the name of a tool as GET /console/api/tools lists it.');
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new ConsoleRequestError(
        400,
        "arguments: give the tool's arguments as a JSON object ({} for none).",
      );
    }
    const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
    let callId: string | undefined;
    const stop = callEvents.subscribe((event) => {
      if (event.type === 'tool_call_started' && event.request?.traceparent === traceparent)
        callId ??= event.callId;
    });
    try {
      const result = await withClient(this.#serverFor, authInfo, (client) =>
        client.callTool(
          { name: tool, arguments: args as Record<string, unknown>, _meta: { traceparent } },
          { signal },
        ),
      );
      return { callId, result: result as CallToolResult };
    } catch (error) {
      // A protocol error (an unknown tool): the call is in the timeline as one too.
      throw new ConsoleRequestError(400, `${tool}: ${(error as Error).message}`);
    } finally {
      stop();
    }
  }
}
