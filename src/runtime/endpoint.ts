// The generic executor for endpoint-mirroring tools. A mirroring tool is a declarative row (method, path
// template, where each argument goes, how to shape the answer); this module turns the row into a tool. No
// per-tool fetch code exists anywhere else.

import type { z } from 'zod';
import type { HttpMethod, UpstreamClient } from './http.js';
import { defineTool, type ToolDefinition, type ToolHints } from './tool.js';
import type { QueryValue } from './url.js';

export interface EndpointSpec {
  method: HttpMethod;
  /** Path template; each `{name}` is filled, percent-encoded, from the argument of the same name. */
  path: string;
  /** Placeholder -> argument name, where they differ. */
  pathParams?: Readonly<Record<string, string>>;
  /** Upstream query parameter -> argument name. */
  query?: Readonly<Record<string, string>>;
  /** Builds the JSON body from the arguments. */
  body?: (args: Record<string, unknown>) => unknown;
  /** Overrides the method's idempotency (e.g. a POST search is safe to repeat). */
  idempotent?: boolean;
}

export interface EndpointToolRow<Ctx, S extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  hints: ToolHints;
  endpoint: EndpointSpec;
  client: (ctx: Ctx) => UpstreamClient;
  /** Shapes the upstream JSON into the tool result; by default the upstream JSON is returned as it is. */
  shape?: (body: unknown, args: z.output<S>) => unknown;
}

export function endpointTool<Ctx, S extends z.ZodObject>(row: EndpointToolRow<Ctx, S>): ToolDefinition<Ctx> {
  const { endpoint } = row;
  const placeholders = [...endpoint.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1]!);
  return defineTool<Ctx, S>({
    name: row.name,
    title: row.title,
    description: row.description,
    input: row.input,
    hints: row.hints,
    run: async (args, ctx, call) => {
      const values = args as Record<string, unknown>;
      const params: Record<string, string> = {};
      const paramFields: Record<string, string> = {};
      for (const placeholder of placeholders) {
        const field = endpoint.pathParams?.[placeholder] ?? placeholder;
        const value = values[field];
        if (value !== undefined) params[placeholder] = String(value);
        paramFields[placeholder] = field;
      }
      const query: Record<string, QueryValue> = {};
      for (const [upstreamName, field] of Object.entries(endpoint.query ?? {})) {
        query[upstreamName] = values[field] as QueryValue;
      }
      const response = await row.client(ctx).request({
        method: endpoint.method,
        path: endpoint.path,
        params,
        paramFields,
        query,
        ...(endpoint.body ? { body: endpoint.body(values) } : {}),
        ...(endpoint.idempotent !== undefined ? { idempotent: endpoint.idempotent } : {}),
        signal: call.signal,
      });
      if (row.shape) return row.shape(response.body, args);
      return isEmptyBody(response.body) ? { success: true, status: response.status } : response.body;
    },
  });
}

function isEmptyBody(body: unknown): boolean {
  return (
    body === undefined ||
    body === null ||
    body === '' ||
    (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)
  );
}
