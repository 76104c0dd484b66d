// Output schemas (issue 15) end to end, for IssueDesk and MessagingTrackApi: the SDK's MCP client -> Switchboard
// over Streamable HTTP -> both emulators on loopback. On both protocol revisions every tool of the two services
// is called successfully at least once (list tools with items to return), in an order that keeps each call valid,
// and every structuredContent (successes, needs_confirmation, errors) is validated by ajv's 2020-12 build against
// the outputSchema the server publishes in tools/list; the tools validated must be exactly the services' tools.
// The SDK v2 client checks successful results against the schema itself (and skips errors); the SDK v1 client
// checks error results too, so it is run on success, needs_confirmation, error, schema-mode and cut results: a
// schema without the shared branches (runtime/outputSchemas.ts) would make it throw. The discovery mode's two
// tools publish schemas that their results fit as well.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToolSet, type ToolSetOptions } from '../../src/runtime/toolset.js';
import { type RunningHttpServer, serveHttp } from '../../src/runtime/transports.js';
import { createIssueDeskRuntime, ISSUEDESK } from '../../src/services/issuedesk/service.js';
import {
  createMessagingRuntime,
  MESSAGING,
  messagingConfigFromEnv,
} from '../../src/services/messaging/service.js';
import { connectCli, type Emulator, startEmulator } from './harness.js';
import { type MessagingEmulatorHandle, startMessaging } from './messagingHarness.js';

const MODERN = '2026-07-28';
type Era = 'legacy' | 'modern';

// biome-ignore lint/suspicious/noExplicitAny: results are read field by field to build the next call.
type Structured = any;

interface Result {
  isError: boolean;
  structured: Structured;
}

interface Upstreams {
  desk: Emulator;
  track: MessagingEmulatorHandle;
}

async function startUpstreams(): Promise<Upstreams> {
  return { desk: await startEmulator(), track: await startMessaging() };
}

/** Both services over HTTP in this process, against `upstreams`. */
function serve(upstreams: Upstreams, options: ToolSetOptions = {}): Promise<RunningHttpServer> {
  const { desk, track } = upstreams;
  const runtimes = [
    createIssueDeskRuntime({ baseUrl: desk.url, token: () => desk.token, clientRateLimits: false }),
    createMessagingRuntime({
      ...messagingConfigFromEnv({ ...track.env() } as NodeJS.ProcessEnv),
      clientRateLimits: false,
    }),
  ];
  return serveHttp(buildToolSet(runtimes, options), { host: '127.0.0.1', port: 0 });
}

const ajv = new Ajv2020({ strict: false, allErrors: true });

/** A validator per tool, compiled from the outputSchema its tools/list entry publishes. */
function validatorsOf(tools: readonly { name: string; outputSchema?: unknown }[]) {
  const validators = new Map<string, ValidateFunction>();
  for (const tool of tools) {
    expect(tool.outputSchema, `${tool.name} publishes an outputSchema`).toBeDefined();
    validators.set(tool.name, ajv.compile(tool.outputSchema as object));
  }
  return validators;
}

function expectFits(validators: Map<string, ValidateFunction>, name: string, structured: unknown): void {
  const validate = validators.get(name);
  if (!validate) throw new Error(`${name} is not in tools/list`);
  const valid = validate(structured);
  expect(
    valid,
    `${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(structured).slice(0, 800)}`,
  ).toBe(true);
}

const json = (value: unknown) => JSON.stringify(value);

describe.each<Era>(['legacy', 'modern'])('every tool fits its output schema (SDK v2 client, %s)', (era) => {
  let upstreams: Upstreams;
  let server: RunningHttpServer;
  let client: Client;
  let validators: Map<string, ValidateFunction>;
  /** The tools (spec names) whose successful result was validated. */
  const validated = new Set<string>();

  beforeAll(async () => {
    upstreams = await startUpstreams();
    server = await serve(upstreams);
    client = new Client(
      { name: 'output-schemas-e2e', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    validators = validatorsOf((await client.listTools()).tools);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await upstreams?.desk.close();
    await upstreams?.track.close();
  });

  /** Calls a tool; its structuredContent must fit the schema, whatever the outcome. */
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Result> => {
    const result = await client.callTool({ name, arguments: args });
    expectFits(validators, name, result.structuredContent);
    return { isError: result.isError === true, structured: result.structuredContent };
  };
  /** A call that must succeed (and not merely ask for confirmation): it counts for its tool. */
  const ok = async (name: string, args: Record<string, unknown> = {}): Promise<Structured> => {
    const result = await call(name, args);
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.structured)}`);
    expect(result.structured.status).not.toBe('needs_confirmation');
    validated.add(name);
    return result.structured;
  };
  const D = (tool: string) => `IssueDesk.${tool}`;
  const M = (tool: string) => `MessagingTrackApi.${tool}`;

  it('IssueDesk: lists with items, lookups, changes, and needs_confirmation and errors too', async () => {
    await ok(D('WhoAmI'));
    const listed = await ok(D('ListIssues'));
    expect(listed.issues.length).toBeGreaterThan(0);
    const issue = listed.issues[0];
    expect((await ok(D('GetIssue'), { lookup_by: 'id', value: String(issue.number) })).issue.id).toBe(
      issue.id,
    );

    const word = commonWord(listed.issues.map((i: { title: string }) => i.title));
    const searched = await ok(D('SearchIssues'), { query: word });
    expect(searched.results.length).toBeGreaterThan(0);
    // An uncertain lookup answers needs_confirmation: a success result of its own shape.
    const asked = await call(D('UpdateIssueStatus'), { state: 'on_hold', lookup_by: 'search', value: word });
    expect(asked.structured.status).toBe('needs_confirmation');
    const askedGet = await call(D('GetIssue'), { lookup_by: 'search', value: word });
    expect(askedGet.structured.status).toBe('needs_confirmation');

    const users = await ok(D('ListUsers'));
    expect(users.users.length).toBeGreaterThan(0);
    const user = users.users[0];
    const searchedUsers = await ok(D('SearchUsers'), { query: user.name });
    expect(searchedUsers.matches.length).toBeGreaterThan(0);
    await ok(D('AssignIssue'), {
      issue_lookup_by: 'id',
      issue_value: issue.id,
      user_lookup_by: 'id',
      user_value: user.id,
    });
    await ok(D('UpdateIssueStatus'), { state: 'waiting_on_customer', lookup_by: 'id', value: issue.id });
    await ok(D('AddMessage'), { issue_id: issue.id, body: 'Checked the output schema.' });

    const contacts = await ok(D('ListContacts'));
    expect(contacts.contacts.length).toBeGreaterThan(0);
    const contact = contacts.contacts.find((c: { email: string | null }) => c.email);
    const searchedContacts = await ok(D('SearchContacts'), { query: contact.email });
    expect(searchedContacts.matches.length).toBeGreaterThan(0);

    const teams = await ok(D('ListTeams'));
    expect(teams.teams.length).toBeGreaterThan(0);
    await ok(D('GetTeamAndAssignment'), { lookup_by: 'id', value: teams.teams[0].id });

    // Errors keep their one shape, and it is part of every schema: an upstream 404 and refused arguments.
    const missing = await call(D('GetIssue'), { lookup_by: 'id', value: 'no-such-issue' });
    expect(missing.isError).toBe(true);
    expect(missing.structured.error.kind).toBe('not_found');
    const refused = await call(D('ListUsers'), { limit: 0 });
    expect(refused.structured.error.kind).toBe('invalid_arguments');
  });

  it('MessagingTrackApi: each write in an order that keeps it valid, schema mode, and a partial batch', async () => {
    const { track } = upstreams;
    const who = `schema-${era}`;
    await ok(M('GetTrackApiRegion'));
    // Schema mode's answer is one of the shapes every schema-mode tool publishes.
    const schema = await call(M('UpdateOrAddPerson'), { mode: 'get_request_schema' });
    expect(schema.structured.request_body).toBeDefined();
    const identify = (id: string, body: unknown = {}) =>
      ok(M('UpdateOrAddPerson'), { mode: 'execute', person_identifier: id, request_body: json(body) });
    await identify(who, { email: `${who}@example.com`, plan: 'basic' });
    await ok(M('AddDeviceToCustomerProfile'), {
      mode: 'execute',
      unique_person_identifier: who,
      request_body: json({ device: { id: `tok-${era}`, platform: 'ios' } }),
    });
    await ok(M('RemoveCustomerDevice'), { customer_identifier: who, device_unique_id: `tok-${era}` });
    await ok(M('SendCustomerEvent'), {
      mode: 'execute',
      customer_identifier: who,
      request_body: json({ name: 'purchase', data: { amount: 42 } }),
    });
    await ok(M('TrackAnonymousEvent'), {
      mode: 'execute',
      request_body: json({ name: 'viewed_pricing', anonymous_id: `anon-${era}` }),
    });
    await ok(M('SubmitFormResponse'), {
      mode: 'execute',
      form_identifier: `form-${era}`,
      request_body: json({ data: { email: `form-${era}@example.com` } }),
    });
    const [delivery] = await track.state<{ id: string }>('deliveries');
    await ok(M('ReportCustomMetrics'), {
      mode: 'execute',
      request_body: json({ delivery_id: delivery!.id, metric: 'clicked', href: 'https://example.com/x' }),
    });
    await ok(M('GlobalUnsubscribeUser'), {
      delivery_id_for_unsubscription: delivery!.id,
      set_unsubscribed_attribute: true,
    });
    await ok(M('AddPeopleToSegment'), {
      mode: 'execute',
      segment_identifier: 1,
      request_body: json({ ids: [who] }),
    });
    await ok(M('RemoveUserFromSegment'), {
      mode: 'execute',
      segment_identifier: 1,
      request_body: json({ ids: [who] }),
    });
    await ok(M('ManageEntity'), {
      mode: 'execute',
      request_body: json({
        type: 'object',
        identifiers: { object_type_id: '1', object_id: `acme-${era}` },
        action: 'identify',
        attributes: { name: 'Acme' },
      }),
    });
    const batch = (operations: unknown[]) =>
      ok(M('BatchProcessRequests'), { mode: 'execute', request_body: json({ batch: operations }) });
    const person = (id: string) => ({
      type: 'person',
      identifiers: { id },
      action: 'identify',
      attributes: {},
    });
    expect((await batch([person(`${who}-b1`), person(`${who}-b2`)])).accepted).toBe(2);
    // A 207: the batch result lists the failed items beside what was accepted.
    const partial = await batch([
      person(`${who}-b3`),
      { type: 'person', identifiers: { phone: 'not-a-phone' }, action: 'identify', attributes: {} },
    ]);
    expect(partial).toMatchObject({ success: false, status: 207, partial: true, accepted: 1 });

    await identify(`${who}-secondary`, { plan: 'pro' });
    await ok(M('MergeCustomerProfiles'), {
      mode: 'execute',
      request_body: json({ primary: { id: who }, secondary: { id: `${who}-secondary` } }),
    });
    await identify(`${who}-suppressed`);
    await ok(M('SuppressCustomerProfile'), { unique_person_identifier: `${who}-suppressed` });
    await ok(M('UnsuppressCustomerProfile'), { customer_identifier: `${who}-suppressed` });
    await ok(M('DeleteCustomer'), { customer_identifier: who });

    // A refused request body: an error result, before anything is sent.
    const refused = await call(M('SendCustomerEvent'), {
      mode: 'execute',
      customer_identifier: who,
      request_body: '{not json',
    });
    expect(refused.structured.error.kind).toBe('invalid_arguments');
  });

  it('validated exactly the tools of both services', () => {
    const all = [
      ...ISSUEDESK.tools.map((tool) => D(tool.name)),
      ...MESSAGING.tools.map((tool) => M(tool.name)),
    ];
    expect([...validated].sort()).toEqual(all.sort());
  });
});

describe('the SDK v1 client accepts every kind of result of a tool with an output schema', () => {
  let upstreams: Upstreams;
  let server: RunningHttpServer;
  let client: ClientV1;

  beforeAll(async () => {
    upstreams = await startUpstreams();
    // A small result budget, so that a long listing comes back cut, with the budget's note.
    server = await serve(upstreams, { maxResultTokens: 1_000 });
    client = new ClientV1({ name: 'output-schemas-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransportV1(new URL(server.url)));
    // The v1 client compiles each outputSchema here and checks every later result of the tool against it.
    const { tools } = await client.listTools();
    expect(tools.every((tool) => tool.outputSchema?.type === 'object')).toBe(true);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await upstreams?.desk.close();
    await upstreams?.track.close();
  });

  it('a success, a needs_confirmation, an error, schema mode and a cut result', async () => {
    const whoAmI = await client.callTool({ name: 'IssueDesk.WhoAmI', arguments: {} });
    expect(whoAmI.isError).toBeFalsy();
    expect(whoAmI.structuredContent).toMatchObject({ organization: {} });

    const issues = (await upstreams.desk.state<{ title: string; created_at: string }>('issues')).filter(
      (issue) => Date.parse(issue.created_at) > Date.now() - 25 * 86_400_000,
    );
    const word = commonWord(issues.map((issue) => issue.title));
    const asked = await client.callTool({
      name: 'IssueDesk.UpdateIssueStatus',
      arguments: { state: 'on_hold', lookup_by: 'search', value: word },
    });
    expect(asked.structuredContent).toMatchObject({ status: 'needs_confirmation' });

    // Without the error branch in the schema, the v1 client would throw "does not match the output schema" here.
    const missing = await client.callTool({
      name: 'IssueDesk.GetIssue',
      arguments: { lookup_by: 'id', value: 'no-such-issue' },
    });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ error: { kind: 'not_found' } });

    const schema = await client.callTool({
      name: 'MessagingTrackApi.UpdateOrAddPerson',
      arguments: { mode: 'get_request_schema' },
    });
    expect(schema.structuredContent).toMatchObject({ tool: 'MessagingTrackApi.UpdateOrAddPerson' });

    const cut = await client.callTool({
      name: 'IssueDesk.ListIssues',
      arguments: { start_time: new Date(Date.now() - 29 * 86_400_000).toISOString() },
    });
    expect(cut.isError).toBeFalsy();
    expect(cut.structuredContent).toHaveProperty('truncated.note');
  });
});

describe('the discovery mode publishes output schemas its results fit', () => {
  let upstreams: Upstreams;
  let server: RunningHttpServer;
  let client: Client;

  beforeAll(async () => {
    upstreams = await startUpstreams();
    server = await serve(upstreams);
    client = new Client({ name: 'output-schemas-discovery', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/discovery`)));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await upstreams?.desk.close();
    await upstreams?.track.close();
  });

  it('search_tools and call_tool, found, not found, and failed', async () => {
    const validators = validatorsOf((await client.listTools()).tools);
    const run = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expectFits(validators, name, result.structuredContent);
      return result;
    };
    const found = await run('search_tools', { query: 'list issues' });
    expect((found.structuredContent as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    const none = await run('search_tools', { query: 'zzqx' });
    expect(none.structuredContent).toHaveProperty('tools');
    await run('call_tool', { name: 'IssueDesk.WhoAmI', arguments: {} });
    const failed = await run('call_tool', {
      name: 'IssueDesk.GetIssue',
      arguments: { lookup_by: 'id', value: 'no-such-issue' },
    });
    expect(failed.isError).toBe(true);
  });
});

/** The word of five letters or more that most titles share: a search for it matches several issues. */
function commonWord(titles: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const title of titles) {
    for (const word of new Set(title.toLowerCase().split(/\W+/))) {
      if (word.length >= 5) counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
}

describe('--no-output-schemas', () => {
  it('lists the same tools without outputSchema over stdio, and the results keep their shape', async () => {
    const plain = await connectCli(['serve', 'all', '--sandbox', '--data-dir', ':memory:']);
    const bare = await connectCli([
      'serve',
      'all',
      '--sandbox',
      '--data-dir',
      ':memory:',
      '--no-output-schemas',
    ]);
    try {
      const withSchemas = (await plain.client.listTools()).tools;
      const without = (await bare.client.listTools()).tools;
      expect(withSchemas.every((tool) => tool.outputSchema !== undefined)).toBe(true);
      expect(without.some((tool) => tool.outputSchema !== undefined)).toBe(false);
      expect(without.map(({ name, inputSchema }) => ({ name, inputSchema }))).toEqual(
        withSchemas.map(({ name, inputSchema }) => ({ name, inputSchema })),
      );
      const who = await bare.call('IssueDesk.WhoAmI');
      expect(who.isError).toBe(false);
      expect(who.structured).toEqual((await plain.call('IssueDesk.WhoAmI')).structured);
    } finally {
      await plain.close();
      await bare.close();
    }
  }, 60_000);
});
