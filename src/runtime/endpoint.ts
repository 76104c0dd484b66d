// The generic executor for endpoint-mirroring tools. A mirroring tool is a declarative row (method, path
// template, where each argument goes, how to shape the answer); this module turns the row into a tool. No
// per-tool fetch code exists anywhere else.

import { z } from 'zod';
import { type ArgumentIssue, invalidArguments } from './errors.js';
import type { HttpMethod, UpstreamClient, UpstreamRequest, UpstreamResponse } from './http.js';
import type { Operation } from './operation.js';
import { parseRequestBody, requestBodyDocument, schemaModeShape } from './schemaMode.js';
import { defineTool, type ToolCall, type ToolDefinition, type ToolHints } from './tool.js';
import type { QueryValue } from './url.js';

export interface EndpointSpec {
  /**
   * The upstream operation, from the service's endpoint table (services/<svc>/endpoints.ts): method and path
   * template; each `{name}` is filled, percent-encoded, from the argument of the same name.
   */
  operation: Operation;
  /** Placeholder -> argument name, where they differ. */
  pathParams?: Readonly<Record<string, string>>;
  /** Upstream query parameter -> argument name. */
  query?: Readonly<Record<string, string>>;
  /** Builds the JSON body from the arguments (tools without schema mode). */
  body?: (args: Record<string, unknown>) => unknown;
  /** Argument name -> how its value is written into the path or query (e.g. an id prefix translated). */
  encode?: Readonly<Record<string, (value: unknown) => QueryValue>>;
  /** Query parameters computed from several arguments (structured; see `serializeQuery`). */
  queryFrom?: (args: Record<string, unknown>) => Record<string, unknown>;
  /** Turns the structured query into wire parameters (e.g. `sort[0][field]`); by default values go as they are. */
  serializeQuery?: (query: Record<string, unknown>) => Record<string, QueryValue>;
  /**
   * The upstream's POST twin for URLs that are too long: the structured query becomes the JSON body, except
   * the parameters named in `keepInQuery`.
   */
  longUrl?: { maxUrlLength: number; method: HttpMethod; path: string; keepInQuery?: readonly string[] };
  /**
   * Whether a request may be sent again after a failure that leaves its outcome open; default: the tool's
   * idempotentHint (what the agent is told), so the two never disagree. Set it where they must differ (an
   * update that may upsert).
   */
  idempotent?: boolean;
  /** The upstream documents this endpoint as taking no credentials: none are sent. */
  anonymous?: boolean;
}

export interface EndpointToolRow<Ctx, S extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  hints: ToolHints;
  endpoint: EndpointSpec;
  /**
   * Schema mode: the tool also takes `mode` and `request_body`, and this schema is the request body's contract.
   * In execute mode every path parameter becomes required. Given as a loader, the schema is loaded on the first
   * call that needs it: a service's body schemas are the costliest part of its modules to build, and listing the
   * tools never needs them.
   */
  requestBody?: z.ZodType | RequestBodyLoader;
  /** Checks that span several arguments (or that the schema cannot say); each issue refuses the call. */
  check?: (args: z.output<S>) => ArgumentIssue[];
  /** The client for this call: per call, so a per-user credential can be chosen. */
  client: (ctx: Ctx, call: ToolCall) => UpstreamClient | Promise<UpstreamClient>;
  /** Shapes the upstream answer into the tool result; by default the upstream JSON is returned as it is. */
  shape?: (response: UpstreamResponse, args: z.output<S>, requestBody: unknown, ctx: Ctx) => unknown;
}

/** Loads a request body schema (with its module) on first use. */
export type RequestBodyLoader = () => Promise<z.ZodType>;

export function endpointTool<Ctx, S extends z.ZodObject>(row: EndpointToolRow<Ctx, S>): ToolDefinition<Ctx> {
  const { endpoint } = row;
  const bodySchema = row.requestBody;
  const requestBody =
    bodySchema === undefined
      ? undefined
      : typeof bodySchema === 'function'
        ? bodySchema
        : () => Promise.resolve(bodySchema);
  const { method, path } = endpoint.operation;
  const placeholders = [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1]!);
  const fieldOf = (placeholder: string) => endpoint.pathParams?.[placeholder] ?? placeholder;
  // Strict: an unknown parameter is a mistake worth naming, not something to drop silently.
  const input = z.strictObject({ ...(requestBody ? schemaModeShape : {}), ...row.input.shape });
  return defineTool<Ctx, z.ZodObject>({
    name: row.name,
    title: row.title,
    description: row.description,
    input,
    hints: row.hints,
    upstreamQuery: endpoint.query,
    run: async (args, ctx, call) => {
      const values = args as Record<string, unknown>;
      let body: unknown;
      if (requestBody && values.mode === 'get_request_schema') {
        return { tool: call.toolName, request_body: requestBodyDocument(await requestBody()) };
      }
      const problems = row.check?.(args as z.output<S>) ?? [];
      if (problems.length > 0) {
        throw invalidArguments(
          `Invalid arguments for ${call.toolName} (${problems.map((p) => p.field).join(', ')}).`,
          problems,
          'Correct the listed fields and call again.',
        );
      }
      if (requestBody) {
        const missing = placeholders.map(fieldOf).filter((field) => values[field] === undefined);
        if (missing.length > 0) {
          throw invalidArguments(
            `${call.toolName} needs ${missing.join(' and ')} in execute mode.`,
            missing.map((field) => ({ field, problem: 'required when mode is execute' })),
            'Give every path parameter, then call again.',
          );
        }
        const parsed = parseRequestBody(
          values.request_body as string | undefined,
          await requestBody(),
          call.toolName,
        );
        if (!parsed.ok) throw parsed.error;
        body = parsed.value;
      } else if (endpoint.body) {
        body = endpoint.body(values);
      }
      const encoded = (field: string): unknown => {
        const value = values[field];
        const encode = endpoint.encode?.[field];
        return value !== undefined && encode ? encode(value) : value;
      };
      const params: Record<string, string> = {};
      const paramFields: Record<string, string> = {};
      for (const placeholder of placeholders) {
        const field = fieldOf(placeholder);
        const value = encoded(field);
        if (value !== undefined) params[placeholder] = String(value);
        paramFields[placeholder] = field;
      }
      const structured: Record<string, unknown> = {};
      for (const [upstreamName, field] of Object.entries(endpoint.query ?? {})) {
        structured[upstreamName] = encoded(field);
      }
      Object.assign(structured, endpoint.queryFrom?.(values));
      const serialize =
        endpoint.serializeQuery ?? ((q: Record<string, unknown>) => q as Record<string, QueryValue>);
      const request: UpstreamRequest = {
        method,
        path,
        params,
        paramFields,
        query: serialize(structured),
        ...(body !== undefined ? { body } : {}),
        idempotent: endpoint.idempotent ?? row.hints.idempotentHint,
        ...(endpoint.anonymous ? { anonymous: true } : {}),
      };
      if (endpoint.longUrl)
        request.whenUrlTooLong = longUrlTwin(request, structured, endpoint.longUrl, serialize);
      const client = await row.client(ctx, call);
      const response = await client.request({ ...request, signal: call.signal });
      if (row.shape) return row.shape(response, args as z.output<S>, body, ctx);
      return isEmptyBody(response.body) ? { success: true, status: response.status } : response.body;
    },
  });
}

/** The POST form of a GET whose URL is too long: the query moves into the JSON body, but for `keepInQuery`. */
function longUrlTwin(
  request: UpstreamRequest,
  structured: Record<string, unknown>,
  longUrl: NonNullable<EndpointSpec['longUrl']>,
  serialize: (query: Record<string, unknown>) => Record<string, QueryValue>,
): NonNullable<UpstreamRequest['whenUrlTooLong']> {
  const keep = new Set(longUrl.keepInQuery ?? []);
  const inBody = Object.fromEntries(
    Object.entries(structured).filter(
      ([key, value]) => !keep.has(key) && value !== undefined && value !== null,
    ),
  );
  const inQuery = Object.fromEntries(Object.entries(structured).filter(([key]) => keep.has(key)));
  return {
    maxUrlLength: longUrl.maxUrlLength,
    request: {
      ...request,
      method: longUrl.method,
      path: longUrl.path,
      query: serialize(inQuery),
      body: inBody,
      // Listing changes nothing, whichever form carries it.
      idempotent: true,
    },
  };
}

export function isEmptyBody(body: unknown): boolean {
  return (
    body === undefined ||
    body === null ||
    body === '' ||
    (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)
  );
}
