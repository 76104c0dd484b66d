// StoreApi under bad input, missing rights and upstream trouble, through a real MCP client: what can be known
// before sending is refused before sending; upstream refusals (403, 422 types, 429 with its penalty, 5xx) come
// back as clear errors; the client-side limit keeps a burst on one base under the upstream's 5 requests/s.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Connected, errorOf } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore } from './storeHarness.js';

const T = (name: string) => `StoreApi.${name}`;
const json = (value: unknown) => JSON.stringify(value);

const READ_ONLY_TOKEN = 'oauthReadOnlyToken123';

let upstream: StoreEmulatorHandle;
let baseId: string;
let tableId: string;

beforeAll(async () => {
  upstream = await startStore({
    tokens: [{ token: READ_ONLY_TOKEN, scopes: ['data.records:read', 'schema.bases:read'] }],
  });
  const bases = await upstream.state<{ id: string; name: string }>('bases');
  baseId = bases.find((b) => b.name === 'Sales CRM')!.id;
  const tables = await upstream.state<{ id: string; name: string; baseId: string }>(
    'tables',
    `&base=${baseId}`,
  );
  tableId = tables.find((t) => t.name === 'Deals')!.id;
});
afterAll(() => upstream?.close());

describe('StoreApi: refused before sending', () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectStore('http', upstream.env());
  });
  afterAll(() => mcp?.close());
  beforeEach(() => upstream.clearLog());

  it('missing path parameters, over-long writes and deletes, empty field updates, oversized uploads', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      [
        'CreateStoreRecords',
        { mode: 'execute', request_body: json({ records: [{ fields: {} }] }) },
        'base_id',
      ],
      [
        'DeleteMultipleRecords',
        {
          base_id: baseId,
          table_identifier: tableId,
          record_ids_to_delete: Array.from({ length: 11 }, (_, i) => `rec${i}`),
        },
        'record_ids_to_delete',
      ],
      [
        'UpdateStoreFieldDetails',
        { store_base_id: baseId, store_table_id: tableId, field_column_id: 'fldX' },
        'new_field_name',
      ],
      [
        'UploadAttachmentToStore',
        {
          mode: 'execute',
          store_base_id: baseId,
          store_record_id: 'recX',
          attachment_field_id_or_name: 'Files',
          // 5 MB and 3 bytes once decoded.
          request_body: json({
            contentType: 'text/plain',
            filename: 'big.txt',
            file: Buffer.alloc(5 * 1024 * 1024 + 3).toString('base64'),
          }),
        },
        'request_body.file',
      ],
      [
        'ListStoreRecords',
        { base_id: baseId, table_id_or_name: tableId, sort_order: '{"direction": "up"}' },
        'sort_order',
      ],
    ];
    for (const [tool, args, field] of cases) {
      const result = await mcp.call(T(tool), args);
      expect(result.isError, tool).toBe(true);
      expect(errorOf(result).kind, tool).toBe('invalid_arguments');
      expect(
        errorOf(result).issues?.map((i) => i.field),
        tool,
      ).toContain(field);
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('an upload of exactly 5 MB goes through over HTTP (7 MB of base64 in one request)', async () => {
    const fields = await upstream.state<{ id: string; type: string; tableId: string; baseId: string }>(
      'fields',
    );
    const files = fields.find((f) => f.type === 'multipleAttachments')!;
    const table = await upstream.get<{ baseId: string }>(`/_emulator/state/tables/${files.tableId}`);
    const [record] = await upstream.state<{ id: string }>('records', `&table=${files.tableId}`);
    const bytes = Buffer.alloc(5 * 1024 * 1024, 7);
    const result = await mcp.call(T('UploadAttachmentToStore'), {
      mode: 'execute',
      store_base_id: table.baseId,
      store_record_id: record!.id,
      attachment_field_id_or_name: files.id,
      request_body: json({
        contentType: 'application/octet-stream',
        filename: 'five.bin',
        file: bytes.toString('base64'),
      }),
    });
    expect(result.isError, result.text.slice(0, 300)).toBe(false);
    const cell = (result.structured.fields as Record<string, { filename: string; size: number }[]>)[
      files.id
    ]!;
    expect(cell.at(-1)).toMatchObject({ filename: 'five.bin', size: bytes.length });
  });

  it('hostile identifiers stay inside their path segment', async () => {
    for (const hostile of ['../meta/bases', 'app?x=1#y', '%2F']) {
      const result = await mcp.call(T('StoreGetRecord'), {
        store_base_id: hostile,
        table_identifier: tableId,
        record_id: 'recX',
      });
      expect(result.isError).toBe(true);
      const [request] = await upstream.requests();
      expect(request!.path).toBe(`/v0/${encodeURIComponent(hostile)}/${tableId}/recX`);
      // The upstream answers an unknown base with the same 403 it gives for missing rights.
      expect(errorOf(result)).toMatchObject({ kind: 'forbidden', status: 403 });
    }
    const dots = await mcp.call(T('DeleteStoreBase'), { base_id: '..' });
    expect(errorOf(dots)).toMatchObject({ kind: 'invalid_arguments' });
    expect(await upstream.requests()).toEqual([]);
  });
});

describe('StoreApi: upstream refusals', () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectStore('http', upstream.env());
  });
  afterAll(() => mcp?.close());
  beforeEach(async () => {
    await upstream.clearFaults();
    await upstream.clearLog();
  });

  it('422 types arrive as invalid_request with the upstream message: unknown field, bad formula, unknown select option', async () => {
    const unknownField = await mcp.call(T('CreateStoreRecords'), {
      mode: 'execute',
      base_id: baseId,
      table_id_or_name: tableId,
      request_body: json({ records: [{ fields: { 'No such field': 1 } }] }),
    });
    expect(errorOf(unknownField)).toMatchObject({
      kind: 'invalid_request',
      status: 422,
      retryable: false,
      upstream_code: 'UNKNOWN_FIELD_NAME',
    });
    expect(errorOf(unknownField).message).toContain('No such field');
    // Nothing is close to it: the hint lists the table's fields instead.
    expect(errorOf(unknownField).hint).toContain('its fields: "Name", "Company"');

    const badFormula = await mcp.call(T('ListStoreRecords'), {
      base_id: baseId,
      table_id_or_name: tableId,
      filter_by_formula: 'NOPE({Name}',
    });
    expect(errorOf(badFormula)).toMatchObject({
      kind: 'invalid_request',
      status: 422,
      upstream_code: 'INVALID_FILTER_BY_FORMULA',
    });

    const option = await mcp.call(T('CreateStoreRecords'), {
      mode: 'execute',
      base_id: baseId,
      table_id_or_name: tableId,
      request_body: json({ records: [{ fields: { Name: 'x', Stage: 'Not an option' } }] }),
    });
    expect(errorOf(option)).toMatchObject({
      kind: 'invalid_request',
      status: 422,
      upstream_code: 'INVALID_MULTIPLE_CHOICE_OPTIONS',
    });
  });

  it('an unknown field name: the hint gives the closest field names of the table', async () => {
    const result = await mcp.call(T('CreateStoreRecords'), {
      mode: 'execute',
      base_id: baseId,
      table_id_or_name: tableId,
      request_body: json({ records: [{ fields: { Name: 'typo', stage: 'Lead' } }] }),
    });
    expect(errorOf(result)).toMatchObject({ kind: 'invalid_request', upstream_code: 'UNKNOWN_FIELD_NAME' });
    expect(errorOf(result).hint).toMatch(/No field "stage" in table "Deals"; closest: "Stage"/);
    // The refused write, then one read of the base schema for the hint.
    expect((await upstream.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /v0/${baseId}/${tableId}`,
      `GET /v0/meta/bases/${baseId}/tables`,
    ]);
    // The same in a list's field selection.
    const listed = await mcp.call(T('ListStoreRecords'), {
      base_id: baseId,
      table_id_or_name: tableId,
      specific_fields: 'Name,Ammount',
    });
    expect(errorOf(listed).hint).toMatch(/No field "Ammount" in table "Deals"; closest: "Amount"/);
  });

  it('a token that cannot read the schema still gets a hint, pointing to the schema tool', async () => {
    const writer = 'patWriteOnlyNoSchema123';
    const scoped = await startStore({
      tokens: [{ token: writer, scopes: ['data.records:read', 'data.records:write'] }],
    });
    const [base] = (await scoped.state<{ id: string; name: string }>('bases')).filter(
      (b) => b.name === 'Sales CRM',
    );
    const client = await connectStore('http', scoped.env({ STORE_ACCESS_TOKEN: writer }));
    try {
      const result = await client.call(T('CreateStoreRecords'), {
        mode: 'execute',
        base_id: base!.id,
        table_id_or_name: 'Deals',
        request_body: json({ records: [{ fields: { stage: 'Lead' } }] }),
      });
      expect(errorOf(result)).toMatchObject({ kind: 'invalid_request', upstream_code: 'UNKNOWN_FIELD_NAME' });
      expect(errorOf(result).hint).toMatch(
        /No field "stage"\..*StoreApi\.GetStoreBaseSchema lists the fields/,
      );
    } finally {
      await client.close();
      await scoped.close();
    }
  });

  it('an unknown select option: the hint gives the options and typecast, or says typecast did not help', async () => {
    const result = await mcp.call(T('CreateStoreRecords'), {
      mode: 'execute',
      base_id: baseId,
      table_id_or_name: tableId,
      request_body: json({ records: [{ fields: { Name: 'x', Stage: 'Qualifed' } }] }),
    });
    expect(errorOf(result)).toMatchObject({
      kind: 'invalid_request',
      upstream_code: 'INVALID_MULTIPLE_CHOICE_OPTIONS',
    });
    const hint = errorOf(result).hint!;
    expect(hint).toContain('"Qualifed" is not an option of field "Stage"');
    expect(hint).toContain('Its options: "Lead", "Qualified", "Proposal"');
    expect(hint).toContain('(closest: "Qualified")');
    expect(hint).toContain('"typecast": true');
  });

  it('an invalid formula: the error gives the position, marked in the formula', async () => {
    const result = await mcp.call(T('ListStoreRecords'), {
      base_id: baseId,
      table_id_or_name: tableId,
      filter_by_formula: 'AND({Stage}="Lead", NOPE({Name})',
    });
    expect(errorOf(result)).toMatchObject({
      kind: 'invalid_request',
      upstream_code: 'INVALID_FILTER_BY_FORMULA',
      issues: [
        {
          field: 'filter_by_formula',
          problem: expect.stringMatching(/^Syntax error at position 4: .* \(marked: AND«\(»\{Stage\}/),
        },
      ],
    });
    expect(errorOf(result).hint).toMatch(/invalid at position 4 \(1-based, marked «»\)/);

    const unknown = await mcp.call(T('ListStoreRecords'), {
      base_id: baseId,
      table_id_or_name: tableId,
      filter_by_formula: '{Stgae}="Lead"',
    });
    expect(errorOf(unknown).issues).toEqual([
      { field: 'filter_by_formula', problem: 'unknown field names: Stgae' },
    ]);
    expect(errorOf(unknown).hint).toMatch(/No field "Stgae" in table "Deals"; closest: "Stage"/);
  });

  it('a token without the write scope gets 403 with a hint; whoami lists an OAuth token’s scopes', async () => {
    const readOnly = await connectStore('http', upstream.env({ STORE_ACCESS_TOKEN: READ_ONLY_TOKEN }));
    try {
      const me = await readOnly.call(T('RetrieveUserIdAndScopes'));
      expect(me.structured.scopes).toEqual(['data.records:read', 'schema.bases:read']);
      const listed = await readOnly.call(T('ListStoreRecords'), {
        base_id: baseId,
        table_id_or_name: tableId,
      });
      expect(listed.isError).toBe(false);
      const write = await readOnly.call(T('CreateStoreRecords'), {
        mode: 'execute',
        base_id: baseId,
        table_id_or_name: tableId,
        request_body: json({ records: [{ fields: { Name: 'nope' } }] }),
      });
      expect(errorOf(write)).toMatchObject({
        kind: 'forbidden',
        status: 403,
        upstream_code: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
      });
      expect(errorOf(write).hint).toContain('scope');
      expect(write.text).not.toContain(READ_ONLY_TOKEN);
    } finally {
      await readOnly.close();
    }
  });

  it('missing token: the error names STORE_ACCESS_TOKEN and nothing is sent', async () => {
    const none = await connectStore('stdio', { STORE_BASE_URL: upstream.url });
    try {
      const result = await none.call(T('ListStoreBases'));
      expect(errorOf(result).kind).toBe('missing_secret');
      expect(errorOf(result).message).toContain('STORE_ACCESS_TOKEN');
    } finally {
      await none.close();
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('5xx: a read is retried; a create is not (it may have happened): its outcome is unknown', async () => {
    await upstream.faults([{ path: `/v0/${baseId}/*`, kind: 'error', status: 503, times: 1 }]);
    const read = await mcp.call(T('ListStoreRecords'), {
      base_id: baseId,
      table_id_or_name: tableId,
      page_size: 1,
    });
    expect(read.isError).toBe(false);
    expect((await upstream.requests()).map((r) => r.status)).toEqual([503, 200]);

    await upstream.faults([{ path: `/v0/${baseId}/*`, kind: 'error', status: 503, times: 1 }]);
    const write = await mcp.call(T('CreateStoreRecords'), {
      mode: 'execute',
      base_id: baseId,
      table_id_or_name: tableId,
      request_body: json({ records: [{ fields: { Name: 'maybe' } }] }),
    });
    expect(errorOf(write)).toMatchObject({ kind: 'outcome_unknown', status: 503, retryable: false });
    expect((await upstream.requests()).map((r) => r.status)).toEqual([503]);
  });

  it('a create applied upstream, then cut off or answered 502: outcome_unknown, naming the listing tool; the record exists once', async () => {
    for (const [fault, name] of [
      [{ kind: 'drop' }, 'applied-then-dropped'],
      [{ kind: 'error', status: 502 }, 'applied-then-502'],
    ] as const) {
      await upstream.clearLog();
      await upstream.faults([
        { method: 'POST', path: `/v0/${baseId}/${tableId}`, when: 'after', times: 1, ...fault },
      ]);
      const result = await mcp.call(T('CreateStoreRecords'), {
        mode: 'execute',
        base_id: baseId,
        table_id_or_name: tableId,
        request_body: json({ records: [{ fields: { Name: name } }] }),
      });
      expect(result.isError, name).toBe(true);
      const error = errorOf(result) as ReturnType<typeof errorOf> & { retryable: boolean };
      expect(error, name).toMatchObject({ kind: 'outcome_unknown', retryable: false });
      expect(error.message, name).toMatch(/whether it took effect is unknown/);
      expect(error.hint, name).toContain('First check with StoreApi.ListStoreRecords');
      expect(error.hint, name).not.toMatch(/can be tried again/);
      // Sent once, never again.
      expect(
        (await upstream.requests()).filter((r) => r.method === 'POST'),
        name,
      ).toHaveLength(1);
      const found = await mcp.call(T('ListStoreRecords'), {
        base_id: baseId,
        table_id_or_name: tableId,
        filter_by_formula: `{Name}="${name}"`,
      });
      expect((found.structured.records as unknown[]).length, name).toBe(1);
    }
  });
});

describe('StoreApi: 5 requests per second per base', () => {
  beforeEach(async () => {
    await upstream.send('PUT', '/_emulator/base-rate-limit', {
      enabled: true,
      perSecond: 5,
      penaltyMs: 30_000,
    });
    await upstream.clearLog();
  });
  afterAll(() => upstream.send('PUT', '/_emulator/base-rate-limit', { enabled: false }));

  it('with our limiter on, a burst of 12 calls to one base meets no 429', async () => {
    const mcp = await connectStore('http', upstream.env({ SWITCHBOARD_CLIENT_RATE_LIMITS: 'on' }));
    try {
      const results = await Promise.all(
        Array.from({ length: 12 }, () =>
          mcp.call(T('ListStoreRecords'), { base_id: baseId, table_id_or_name: tableId, page_size: 1 }),
        ),
      );
      expect(results.filter((r) => r.isError)).toEqual([]);
      const requests = await upstream.requests();
      expect(requests).toHaveLength(12);
      expect(requests.filter((r) => r.status === 429)).toEqual([]);
    } finally {
      await mcp.close();
    }
  });

  it('with it off, the burst trips the 30-second penalty: a rate_limited error that says to wait 30 s', async () => {
    const mcp = await connectStore('http', upstream.env({ SWITCHBOARD_CLIENT_RATE_LIMITS: 'off' }));
    try {
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          mcp.call(T('ListStoreRecords'), { base_id: baseId, table_id_or_name: tableId, page_size: 1 }),
        ),
      );
      const limited = results.filter((r) => r.isError).map(errorOf);
      expect(limited.length).toBeGreaterThanOrEqual(3);
      for (const error of limited) {
        expect(error).toMatchObject({ kind: 'rate_limited', status: 429, retry_after_seconds: 30 });
        expect(error.hint).toContain('30');
      }
      // A 429 during the penalty is not retried: a retry inside 30 s would only be refused again.
      expect((await upstream.requests()).length).toBe(8);
    } finally {
      await mcp.close();
    }
  });
});
