// MessagingTrackApi under bad input and upstream trouble, through a real MCP client: invalid JSON, schema
// violations, oversized bodies and missing path parameters never reach the upstream; hostile identifiers are
// percent-encoded; missing secrets, 401, 429 and 5xx give clear errors (or safe retries); regions route as the
// upstream's do.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Connected, errorOf } from './harness.js';
import { connectMessaging, type MessagingEmulatorHandle, startMessaging } from './messagingHarness.js';

const T = (name: string) => `MessagingTrackApi.${name}`;
const json = (value: unknown) => JSON.stringify(value);

describe('MessagingTrackApi: bad input is refused before anything is sent', () => {
  let upstream: MessagingEmulatorHandle;
  let mcp: Connected;
  beforeAll(async () => {
    upstream = await startMessaging();
    mcp = await connectMessaging('http', upstream.env({ MESSAGING_REGION: 'us' }));
  });
  afterAll(async () => {
    await mcp?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.clearLog());

  it('invalid JSON names request_body and points to schema mode', async () => {
    const result = await mcp.call(T('SendCustomerEvent'), {
      mode: 'execute',
      customer_identifier: 'user-1',
      request_body: '{"name": "x",',
    });
    expect(result.isError).toBe(true);
    expect(errorOf(result)).toMatchObject({ kind: 'invalid_arguments', issues: [{ field: 'request_body' }] });
    expect(errorOf(result).hint).toContain('get_request_schema');
    expect(await upstream.requests()).toEqual([]);
  });

  it('a schema violation names each field that is wrong', async () => {
    const result = await mcp.call(T('AddDeviceToCustomerProfile'), {
      mode: 'execute',
      unique_person_identifier: 'user-1',
      request_body: json({ device: { platform: 'windows', last_used: 'yesterday' } }),
    });
    expect(result.isError).toBe(true);
    const fields = errorOf(result)
      .issues!.map((issue) => issue.field)
      .sort();
    expect(fields).toEqual([
      'request_body.device.id',
      'request_body.device.last_used',
      'request_body.device.platform',
    ]);
    expect(await upstream.requests()).toEqual([]);
  });

  it('the closest variant is reported for v2 operations', async () => {
    const result = await mcp.call(T('ManageEntity'), {
      mode: 'execute',
      request_body: json({
        type: 'person',
        identifiers: { id: '1', email: 'a@example.com' },
        action: 'identify',
      }),
    });
    expect(errorOf(result).issues).toEqual([
      {
        field: 'request_body.identifiers',
        problem: expect.stringContaining('exactly one of id, email, phone, cio_id'),
      },
    ]);
  });

  it('execute mode needs request_body and every path parameter', async () => {
    const noBody = await mcp.call(T('UpdateOrAddPerson'), { mode: 'execute', person_identifier: 'user-1' });
    expect(errorOf(noBody).issues).toEqual([
      { field: 'request_body', problem: expect.stringContaining('required') },
    ]);
    const noPath = await mcp.call(T('UpdateOrAddPerson'), { mode: 'execute', request_body: '{}' });
    expect(errorOf(noPath)).toMatchObject({
      kind: 'invalid_arguments',
      issues: [{ field: 'person_identifier', problem: 'required when mode is execute' }],
    });
    const noSegment = await mcp.call(T('AddPeopleToSegment'), {
      mode: 'execute',
      request_body: json({ ids: ['a'] }),
    });
    expect(errorOf(noSegment).issues?.[0]?.field).toBe('segment_identifier');
    expect(await upstream.requests()).toEqual([]);
  });

  it('wrong types and unknown parameters are named', async () => {
    const result = await mcp.call(T('AddPeopleToSegment'), {
      mode: 'execute',
      segment_identifier: 'one',
      identifier_type: 'phone',
      colour: 'red',
      request_body: json({ ids: ['a'] }),
    });
    expect(result.isError).toBe(true);
    const fields = errorOf(result)
      .issues!.map((issue) => issue.field)
      .sort();
    expect(fields).toEqual(['colour', 'identifier_type', 'segment_identifier']);
  });

  it('oversized bodies are refused with the limit: event name, attributes, batch', async () => {
    const longName = await mcp.call(T('SendCustomerEvent'), {
      mode: 'execute',
      customer_identifier: 'user-1',
      request_body: json({ name: 'é'.repeat(51) }),
    });
    expect(errorOf(longName).issues).toEqual([
      {
        field: 'request_body.name',
        problem: `must be at most 100 bytes (UTF-8); got string "${'é'.repeat(40)}…"`,
      },
    ]);
    const manyAttributes = Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`a${i}`, i]));
    const tooMany = await mcp.call(T('UpdateOrAddPerson'), {
      mode: 'execute',
      person_identifier: 'user-1',
      request_body: json(manyAttributes),
    });
    expect(errorOf(tooMany).issues?.[0]?.problem).toContain('at most 300 attributes');
    const op = (i: number) => ({
      type: 'person',
      identifiers: { id: `u${i}` },
      action: 'event',
      name: 'e',
      attributes: Object.fromEntries(Array.from({ length: 30 }, (_, k) => [`k${k}`, 'x'.repeat(990)])),
    });
    const hugeBatch = await mcp.call(T('BatchProcessRequests'), {
      mode: 'execute',
      request_body: json({ batch: Array.from({ length: 18 }, (_, i) => op(i)) }),
    });
    expect(errorOf(hugeBatch).issues?.[0]?.problem).toMatch(/the batch is \d+ bytes; the limit is 512000/);
    expect(await upstream.requests()).toEqual([]);
  });

  it('hostile identifiers are percent-encoded into one path segment, never interpreted', async () => {
    for (const hostile of ['../admin', 'a/b?x=1#frag', '%2F', 'ada+test@example.com']) {
      const result = await mcp.call(T('UpdateOrAddPerson'), {
        mode: 'execute',
        person_identifier: hostile,
        request_body: json({ hostile: true }),
      });
      expect(result.isError, hostile).toBe(false);
      const [request] = await upstream.requests();
      expect(request!.path, hostile).toBe(`/api/v1/customers/${encodeURIComponent(hostile)}`);
    }
    const stored = await upstream.get<{ id: string }>(
      `/_emulator/state/people/${encodeURIComponent('../admin')}`,
    );
    expect(stored.id).toBe('../admin');
    const dots = await mcp.call(T('DeleteCustomer'), { customer_identifier: '..' });
    expect(errorOf(dots)).toMatchObject({ kind: 'invalid_arguments' });
    expect(errorOf(dots).message).toContain('customer_identifier');
    expect(await upstream.requests()).toEqual([]);
  });
});

describe('MessagingTrackApi: credentials, upstream errors and retries', () => {
  let upstream: MessagingEmulatorHandle;
  beforeAll(async () => {
    upstream = await startMessaging();
  });
  afterAll(() => upstream?.close());
  beforeEach(async () => {
    await upstream.clearFaults();
    await upstream.clearLog();
  });

  it('missing secrets: the error names both variables, over stdio too', async () => {
    const mcp = await connectMessaging('stdio', { MESSAGING_BASE_URL: upstream.url, MESSAGING_REGION: 'us' });
    try {
      const result = await mcp.call(T('DeleteCustomer'), { customer_identifier: 'user-1' });
      expect(errorOf(result).kind).toBe('missing_secret');
      expect(errorOf(result).message).toContain('MESSAGING_SITE_ID');
      expect(errorOf(result).message).toContain('MESSAGING_API_KEY');
      // Tools that need no upstream call still work: schema mode.
      expect((await mcp.call(T('ManageEntity'), { mode: 'get_request_schema' })).isError).toBe(false);
    } finally {
      await mcp.close();
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('a wrong API key is a 401 with a hint, and the key appears nowhere in the result', async () => {
    const wrongKey = 'wrong-key-9f8e7d6c5b4a';
    const mcp = await connectMessaging(
      'http',
      upstream.env({ MESSAGING_API_KEY: wrongKey, MESSAGING_REGION: 'us' }),
    );
    try {
      const result = await mcp.call(T('DeleteCustomer'), { customer_identifier: 'user-1' });
      expect(errorOf(result)).toMatchObject({ kind: 'unauthorized', status: 401 });
      expect(errorOf(result).hint).toContain('MESSAGING_API_KEY');
      expect(result.text).not.toContain(wrongKey);
      expect(result.text).not.toContain(Buffer.from(`${upstream.siteId}:${wrongKey}`).toString('base64'));
    } finally {
      await mcp.close();
    }
  });

  it('a 429 is retried after Retry-After; a 5xx is retried for idempotent calls only', async () => {
    const mcp = await connectMessaging('http', upstream.env({ MESSAGING_REGION: 'us' }));
    try {
      await upstream.faults([
        { path: '/api/v1/customers/*', kind: 'rate_limit', retryAfterSeconds: 1, times: 1 },
      ]);
      const limited = await mcp.call(T('SendCustomerEvent'), {
        mode: 'execute',
        customer_identifier: 'user-1',
        request_body: json({ name: 'after_429' }),
      });
      expect(limited.isError).toBe(false);
      expect((await upstream.requests()).map((r) => r.status)).toEqual([429, 200]);

      await upstream.faults([{ path: '/api/v1/customers/*', kind: 'error', status: 503, times: 1 }]);
      const put = await mcp.call(T('UpdateOrAddPerson'), {
        mode: 'execute',
        person_identifier: 'user-1',
        request_body: json({ retried: true }),
      });
      expect(put.isError).toBe(false);
      expect((await upstream.requests()).map((r) => r.status)).toEqual([503, 200]);

      // An event may have been recorded before the 503: sending it again could duplicate it.
      await upstream.faults([{ path: '/api/v1/customers/*', kind: 'error', status: 503, times: 1 }]);
      const post = await mcp.call(T('SendCustomerEvent'), {
        mode: 'execute',
        customer_identifier: 'user-1',
        request_body: json({ name: 'not_retried' }),
      });
      // Its outcome is unknown, and the Track API cannot read events back: the hint says what is safe instead.
      expect(errorOf(post)).toMatchObject({ kind: 'outcome_unknown', status: 503, retryable: false });
      expect(errorOf(post).hint).toMatch(/cannot read events back/);
      expect(errorOf(post).hint).toMatch(/`id` \(a ULID\)/);
      expect((await upstream.requests()).map((r) => r.status)).toEqual([503]);
    } finally {
      await mcp.close();
    }
  });

  it('an upstream 400 carries the upstream message (v1 envelope)', async () => {
    const mcp = await connectMessaging('http', upstream.env({ MESSAGING_REGION: 'us' }));
    try {
      const result = await mcp.call(T('AddPeopleToSegment'), {
        mode: 'execute',
        segment_identifier: 10,
        request_body: json({ ids: ['user-1'] }),
      });
      expect(errorOf(result)).toMatchObject({ kind: 'invalid_request', status: 400, retryable: false });
      expect(errorOf(result).message).toMatch(/manual/i);
      expect(errorOf(result).hint).toMatch(/manual segments/);
    } finally {
      await mcp.close();
    }
  });
});

describe('MessagingTrackApi: regions', () => {
  let eu: MessagingEmulatorHandle;
  beforeAll(async () => {
    eu = await startMessaging({ region: 'eu' });
  });
  afterAll(() => eu?.close());
  beforeEach(() => eu.clearLog());

  it('auto asks the region endpoint once, then talks to the EU host', async () => {
    const mcp = await connectMessaging('http', eu.env({ MESSAGING_REGION: 'auto' }));
    try {
      for (const who of ['eu-1', 'eu-2']) {
        const result = await mcp.call(T('DeleteCustomer'), { customer_identifier: who });
        expect(result.isError).toBe(false);
      }
      expect((await eu.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /api/v1/accounts/region',
        'DELETE /eu/api/v1/customers/eu-1',
        'DELETE /eu/api/v1/customers/eu-2',
      ]);
      const region = await mcp.call(T('GetTrackApiRegion'));
      expect(region.structured).toMatchObject({ region: 'eu', url: eu.euUrl });
    } finally {
      await mcp.close();
    }
  });

  it('a US-configured server reaches an EU account through the redirect; an EU host refuses a US account', async () => {
    const mcp = await connectMessaging('http', eu.env({ MESSAGING_REGION: 'us' }));
    try {
      expect((await mcp.call(T('DeleteCustomer'), { customer_identifier: 'eu-3' })).isError).toBe(false);
      expect((await eu.requests()).map((r) => [r.path, r.status])).toEqual([
        ['/api/v1/customers/eu-3', 307],
        ['/eu/api/v1/customers/eu-3', 200],
      ]);
    } finally {
      await mcp.close();
    }
    const us = await startMessaging({ region: 'us' });
    const wrongHost = await connectMessaging(
      'http',
      us.env({ MESSAGING_REGION: 'eu', MESSAGING_BASE_URL: us.euUrl }),
    );
    try {
      const refused = await wrongHost.call(T('DeleteCustomer'), { customer_identifier: 'user-1' });
      expect(errorOf(refused)).toMatchObject({ kind: 'unauthorized', status: 401 });
    } finally {
      await wrongHost.close();
      await us.close();
    }
  });
});
