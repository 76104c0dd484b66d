// The generic executor (runtime/endpoint.ts) against a real HTTP server on loopback: how a declarative row
// becomes the upstream request (URL, path parameters percent-encoded, query, body), schema mode, the POST twin
// of a too-long URL, argument checks, and how the answer is shaped. Each test reads what the server received.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type EndpointToolRow, endpointTool, isEmptyBody } from '../../src/runtime/endpoint.js';
import { ToolError } from '../../src/runtime/errors.js';
import { READ_ONLY, UPDATE } from '../../src/runtime/hints.js';
import { UpstreamClient } from '../../src/runtime/http.js';
import type { ToolCall, ToolHints } from '../../src/runtime/tool.js';
import { validateArguments } from '../../src/runtime/validate.js';

interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  contentType: string | undefined;
  body: string;
}
type Reply = (res: ServerResponse) => void;

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
let replies: Reply[] = [];

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (res) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        auth: req.headers.authorization,
        contentType: req.headers['content-type'],
        body,
      });
      (replies.shift() ?? json(200, { echoed: true }))(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Node loads its fetch implementation on first use: load it here, outside any test.
  await (await fetch(baseUrl)).text();
  ctx = { client: upstream(), label: 'ctx' };
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen.length = 0;
  replies = [];
});

const upstream = () =>
  new UpstreamClient({
    service: 'Test',
    baseUrl,
    authHeaders: () => ({ authorization: 'Bearer test-token' }),
    parseError: (_status, body) => ({ message: (body as { error?: string } | null)?.error }),
    timeoutMs: 2000,
  });

interface Ctx {
  client: UpstreamClient;
  label: string;
}
let ctx: Ctx;
const call: ToolCall = { signal: new AbortController().signal, toolName: 'Test.Tool', nameStyle: 'dotted' };

type Row<S extends z.ZodObject> = Omit<
  EndpointToolRow<Ctx, S>,
  'name' | 'title' | 'description' | 'client' | 'hints'
> & {
  hints?: ToolHints;
};

/** A tool from a row, called as the server calls it: arguments validated against its input schema first. */
function tool<S extends z.ZodObject>(row: Row<S>) {
  const definition = endpointTool<Ctx, S>({
    name: 'Tool',
    title: 'Tool',
    description: 'A test tool.',
    client: (c) => c.client,
    ...row,
    hints: row.hints ?? READ_ONLY,
  });
  return {
    definition,
    run: async (args: Record<string, unknown>) => {
      const valid = validateArguments(definition.input, args, call.toolName);
      if (!valid.ok) throw valid.error;
      return definition.run(valid.value, ctx, call);
    },
  };
}

/** The ToolError a call fails with. */
async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('URL building', () => {
  const getItem = tool({
    input: z.object({ item_id: z.string(), folder: z.string() }),
    endpoint: {
      operation: { method: 'GET', path: '/folders/{folder}/items/{itemId}' },
      pathParams: { itemId: 'item_id' },
    },
  });

  it('fills each {name} from its argument (or the one pathParams names), percent-encoded', async () => {
    await getItem.run({ folder: 'inbox', item_id: 'a/b?c=1#d e' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('GET');
    expect(seen[0]!.url).toBe('/folders/inbox/items/a%2Fb%3Fc%3D1%23d%20e');
  });

  it('keeps hostile identifiers inside their own segment and refuses dot segments', async () => {
    await getItem.run({ folder: '%2F..', item_id: "it's(1)*" });
    expect(seen[0]!.url).toBe('/folders/%252F../items/it%27s%281%29%2A');
    const error = await failure(getItem.run({ folder: '..', item_id: 'x' }));
    expect(error.kind).toBe('invalid_arguments');
    expect(error.issues).toEqual([{ field: 'folder', problem: 'dot segment' }]);
    expect(seen).toHaveLength(1);
  });

  it('applies encode to a path or query value before it is written', async () => {
    const encoded = tool({
      input: z.object({ person: z.string(), kind: z.string().optional() }),
      endpoint: {
        operation: { method: 'GET', path: '/people/{person}' },
        query: { type: 'kind' },
        encode: { person: (value) => `cio_${String(value)}`, kind: (value) => String(value).toUpperCase() },
      },
    });
    await encoded.run({ person: '42', kind: 'lead' });
    expect(seen[0]!.url).toBe('/people/cio_42?type=LEAD');
  });
});

describe('query and body placement', () => {
  it('maps arguments to upstream query names, leaves unset ones out and repeats arrays', async () => {
    const list = tool({
      input: z.object({
        page_size: z.number().optional(),
        cursor: z.string().optional(),
        fields: z.array(z.string()).optional(),
      }),
      endpoint: {
        operation: { method: 'GET', path: '/records' },
        query: { pageSize: 'page_size', offset: 'cursor', 'fields[]': 'fields' },
      },
    });
    await list.run({ page_size: 5, fields: ['Name', 'Due date'] });
    const url = new URL(seen[0]!.url, baseUrl);
    expect(url.pathname).toBe('/records');
    expect(url.searchParams.get('pageSize')).toBe('5');
    expect(url.searchParams.has('offset')).toBe(false);
    expect(url.searchParams.getAll('fields[]')).toEqual(['Name', 'Due date']);
    expect(seen[0]!.body).toBe('');
  });

  it('serialises a structured query built from several arguments (queryFrom, serializeQuery)', async () => {
    const sorted = tool({
      input: z.object({ sort_field: z.string(), descending: z.boolean().optional() }),
      endpoint: {
        operation: { method: 'GET', path: '/records' },
        queryFrom: (args) => ({
          sort: [{ field: args.sort_field, direction: args.descending ? 'desc' : 'asc' }],
        }),
        serializeQuery: (query) => {
          const out: Record<string, string> = {};
          (query.sort as { field: string; direction: string }[]).forEach((entry, i) => {
            out[`sort[${i}][field]`] = entry.field;
            out[`sort[${i}][direction]`] = entry.direction;
          });
          return out;
        },
      },
    });
    await sorted.run({ sort_field: 'Name', descending: true });
    const url = new URL(seen[0]!.url, baseUrl);
    expect([...url.searchParams]).toEqual([
      ['sort[0][field]', 'Name'],
      ['sort[0][direction]', 'desc'],
    ]);
  });

  it('sends the body the row builds as JSON, with the credentials', async () => {
    const create = tool({
      input: z.object({ name: z.string(), tags: z.array(z.string()).optional() }),
      endpoint: {
        operation: { method: 'POST', path: '/things' },
        body: (args) => ({ thing: { name: args.name, tags: args.tags ?? [] } }),
      },
      hints: UPDATE,
    });
    await create.run({ name: 'Lamp' });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/things',
      auth: 'Bearer test-token',
      contentType: 'application/json',
    });
    expect(JSON.parse(seen[0]!.body)).toEqual({ thing: { name: 'Lamp', tags: [] } });
  });

  it('sends no credentials for an endpoint the upstream documents as anonymous', async () => {
    const open = tool({
      input: z.object({}),
      endpoint: { operation: { method: 'GET', path: '/status' }, anonymous: true },
    });
    await open.run({});
    expect(seen[0]!.auth).toBeUndefined();
  });
});

describe('schema mode', () => {
  const Body = z.object({ name: z.string(), size: z.number().int().default(1) }).passthrough();
  const update = tool({
    input: z.object({ thing_id: z.string().optional() }),
    endpoint: { operation: { method: 'PATCH', path: '/things/{thing_id}' } },
    requestBody: Body,
    hints: UPDATE,
  });

  it('adds mode and request_body to the input, which stays strict', () => {
    expect(Object.keys(update.definition.input.shape)).toEqual(['mode', 'request_body', 'thing_id']);
    const unknown = validateArguments(
      update.definition.input,
      { mode: 'execute', thingId: 'x' },
      'Test.Tool',
    );
    expect(unknown.ok).toBe(false);
  });

  it('get_request_schema answers with the body schema and calls nothing', async () => {
    const answer = (await update.run({ mode: 'get_request_schema' })) as {
      tool: string;
      request_body: {
        required: boolean;
        content: { 'application/json': { schema: Record<string, unknown> } };
      };
    };
    expect(answer.tool).toBe('Test.Tool');
    expect(answer.request_body.required).toBe(true);
    const schema = answer.request_body.content['application/json'].schema;
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['name']);
    expect(seen).toHaveLength(0);
  });

  it('execute sends request_body exactly as given: no defaults filled in, extra keys kept', async () => {
    await update.run({ mode: 'execute', thing_id: 't1', request_body: '{"name":"Lamp","colour":"red"}' });
    expect(seen[0]).toMatchObject({ method: 'PATCH', url: '/things/t1' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ name: 'Lamp', colour: 'red' });
  });

  it('execute takes the body as an object too', async () => {
    await update.run({ mode: 'execute', thing_id: 't1', request_body: { name: 'Lamp' } });
    expect(JSON.parse(seen[0]!.body)).toEqual({ name: 'Lamp' });
  });

  it('execute needs every path parameter, even an optional one', async () => {
    const error = await failure(update.run({ mode: 'execute', request_body: '{"name":"Lamp"}' }));
    expect(error.message).toBe('Test.Tool needs thing_id in execute mode.');
    expect(error.issues).toEqual([{ field: 'thing_id', problem: 'required when mode is execute' }]);
    expect(seen).toHaveLength(0);
  });

  it('execute refuses a missing body, text that is not JSON, and a body that does not fit, sending nothing', async () => {
    const missing = await failure(update.run({ mode: 'execute', thing_id: 't1' }));
    expect(missing.issues?.[0]?.field).toBe('request_body');
    const notJson = await failure(update.run({ mode: 'execute', thing_id: 't1', request_body: '{name:' }));
    expect(notJson.message).toBe('request_body is not valid JSON.');
    const wrong = await failure(
      update.run({ mode: 'execute', thing_id: 't1', request_body: '{"name":3,"size":1.5}' }),
    );
    expect(wrong.message).toMatch(
      /^request_body does not fit the schema \(2 problems\); nothing was sent\.$/,
    );
    expect(wrong.issues?.map((issue) => issue.field)).toEqual(['request_body.name', 'request_body.size']);
    expect(wrong.hint).toContain('mode "get_request_schema"');
    expect(seen).toHaveLength(0);
  });
});

describe('checks', () => {
  it("refuses a call whose arguments fail the row's check, naming each field, before any request", async () => {
    const ranged = tool({
      input: z.object({ from: z.number(), to: z.number() }),
      endpoint: { operation: { method: 'GET', path: '/range' }, query: { from: 'from', to: 'to' } },
      check: (args) => (args.from > args.to ? [{ field: 'to', problem: 'must not be before from' }] : []),
    });
    const error = await failure(ranged.run({ from: 5, to: 1 }));
    expect(error.kind).toBe('invalid_arguments');
    expect(error.message).toBe('Invalid arguments for Test.Tool (to).');
    expect(error.issues).toEqual([{ field: 'to', problem: 'must not be before from' }]);
    expect(seen).toHaveLength(0);
    await ranged.run({ from: 1, to: 5 });
    expect(seen[0]!.url).toBe('/range?from=1&to=5');
  });
});

describe('the POST twin of a too-long URL', () => {
  const list = tool({
    input: z.object({ base: z.string(), formula: z.string().optional(), view: z.string().optional() }),
    endpoint: {
      operation: { method: 'GET', path: '/v0/{base}/records' },
      query: { filterByFormula: 'formula', view: 'view', unused: 'missing' },
      longUrl: {
        maxUrlLength: 120,
        method: 'POST',
        path: '/v0/{base}/records/listRecords',
        keepInQuery: ['view'],
      },
    },
  });

  it('sends the GET while the URL fits', async () => {
    await list.run({ base: 'app1', formula: 'x', view: 'Grid' });
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/v0/app1/records?filterByFormula=x&view=Grid' });
  });

  it('moves the query into a POST body past the limit, keeping the kept parameters in the URL', async () => {
    const formula = `{Name} = "${'a'.repeat(150)}"`;
    await list.run({ base: 'app1', formula, view: 'Grid' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v0/app1/records/listRecords?view=Grid' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ filterByFormula: formula });
  });
});

describe('shaping the answer', () => {
  const get = tool({
    input: z.object({}),
    endpoint: { operation: { method: 'GET', path: '/thing' } },
  });

  it('returns the upstream JSON as it is', async () => {
    replies.push(json(200, { id: 'x', nested: { a: [1, 2] } }));
    expect(await get.run({})).toEqual({ id: 'x', nested: { a: [1, 2] } });
  });

  it.each([
    ['204 with no body', (res: ServerResponse) => res.writeHead(204).end(), 204],
    ['200 {}', json(200, {}), 200],
  ])('turns an empty answer (%s) into an explicit success', async (_label, reply, status) => {
    replies.push(reply);
    expect(await get.run({})).toEqual({ success: true, status });
  });

  it("hands the response, arguments, request body and context to the row's shape", async () => {
    const shaped = tool({
      input: z.object({ thing_id: z.string() }),
      endpoint: { operation: { method: 'PUT', path: '/things/{thing_id}' } },
      requestBody: z.object({ name: z.string() }),
      hints: UPDATE,
      shape: (response, args, requestBody, c) => ({
        status: response.status,
        id: args.thing_id,
        sent: requestBody,
        upstream: response.body,
        ctx: c.label,
      }),
    });
    replies.push(json(201, { ok: 1 }));
    expect(await shaped.run({ mode: 'execute', thing_id: 't9', request_body: '{"name":"N"}' })).toEqual({
      status: 201,
      id: 't9',
      sent: { name: 'N' },
      upstream: { ok: 1 },
      ctx: 'ctx',
    });
  });

  it('isEmptyBody: only nothing, null, empty text and an empty object are empty', () => {
    expect([undefined, null, '', {}].every(isEmptyBody)).toBe(true);
    expect([[], 0, false, 'x', { a: 1 }].some(isEmptyBody)).toBe(false);
  });
});

describe('whether a request may be sent again', () => {
  const flaky = (idempotentHint: boolean, idempotent?: boolean) =>
    tool({
      input: z.object({}),
      endpoint: {
        operation: { method: 'POST', path: '/upsert' },
        body: () => ({}),
        ...(idempotent === undefined ? {} : { idempotent }),
      },
      hints: { ...UPDATE, idempotentHint },
    });
  const unavailable = json(503, { error: 'busy' }, { 'retry-after': '0' });

  it("follows the tool's idempotentHint by default: an idempotent POST is sent again after a 503", async () => {
    replies.push(unavailable);
    expect(await flaky(true).run({})).toEqual({ echoed: true });
    expect(seen).toHaveLength(2);
  });

  it('a POST that is not idempotent is not sent again: its outcome is reported unknown', async () => {
    replies.push(unavailable);
    const error = await failure(flaky(false).run({}));
    expect(error.kind).toBe('outcome_unknown');
    expect(seen).toHaveLength(1);
  });

  it("the row's own idempotent setting wins over the hint", async () => {
    replies.push(unavailable);
    await flaky(false, true).run({});
    expect(seen).toHaveLength(2);
  });
});
