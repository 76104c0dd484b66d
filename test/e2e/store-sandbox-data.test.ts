// What a sandbox user needs to use the bulk-table tools, found where they would look: the server instructions
// of the sandbox name the seeded enterprise account and its data table (no upstream endpoint lists data
// tables), the emulator's inspection API lists the tables, and the ids work in ReadBulkTableRecords. The
// sandbox runtime is the registry's, as `serve --sandbox` and `npm start` build it; the client is the SDK's.

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { serveHttp } from '../../src/runtime/transports.js';
import { findService } from '../../src/services/registry.js';
import type { RunningEmulator } from '../../src/services/serviceEntry.js';
import { STORE_INSTRUCTIONS } from '../../src/services/store/service.js';
import { type Connected, connectClient, inspector } from './harness.js';

interface DataTable {
  id: string;
  enterpriseAccountId: string;
  name: string;
  primaryKeyFieldName: string;
  fields: { name: string; type: string }[];
  records: number;
}

const store = findService('store')!;
let emulator: RunningEmulator;
let mcp: Connected;

beforeAll(async () => {
  emulator = await store.startEmulator({ host: '127.0.0.1', port: 0, db: ':memory:' });
  const env = { SWITCHBOARD_CREDENTIALS_FILE: join(tmpdir(), 'switchboard-e2e-no-saved-login.json') };
  const server = await serveHttp(buildToolSet([store.runtimeForEmulator(emulator, env)]), {
    host: '127.0.0.1',
    port: 0,
  });
  mcp = await connectClient(new StreamableHTTPClientTransport(new URL(server.url)), () => server.close());
});
afterAll(async () => {
  await mcp?.close();
  await emulator?.close();
});

describe('the seeded bulk data table in the sandbox', () => {
  it('is listed by the inspection API, and named with its account in the server instructions', async () => {
    const { items } = await inspector(emulator.url).get<{ items: DataTable[] }>(
      '/_emulator/state/data_tables',
    );
    expect(items).toHaveLength(1);
    const [table] = items;
    expect(table).toMatchObject({
      id: expect.stringMatching(/^dtb/),
      enterpriseAccountId: expect.stringMatching(/^ent/),
      name: 'Customers',
      primaryKeyFieldName: 'email',
      records: 250,
    });
    const one = await inspector(emulator.url).get<DataTable>(`/_emulator/state/data_tables/${table!.id}`);
    expect(one).toEqual(table);

    const instructions = mcp.client.getInstructions() ?? '';
    expect(instructions.startsWith(STORE_INSTRUCTIONS)).toBe(true);
    expect(instructions).toContain(`enterprise account ${table!.enterpriseAccountId}`);
    expect(instructions).toContain(`${table!.id} "Customers"`);
    expect(instructions).toContain('primary key email; fields name, plan, seats, status, signupDate');

    // The ids from the instructions are what the bulk-table tools take.
    const read = await mcp.call('StoreApi.ReadBulkTableRecords', {
      enterprise_account_id: table!.enterpriseAccountId,
      data_table_id: table!.id,
      maximum_records_to_retrieve: 2,
    });
    expect(read.isError).toBe(false);
    expect(read.structured.records).toHaveLength(2);
  });

  it('is not mentioned outside the sandbox', () => {
    const runtime = store.runtimeFromEnv({ STORE_ACCESS_TOKEN: 'pat_x' });
    expect(runtime.definition.instructions).toBe(STORE_INSTRUCTIONS);
    expect(STORE_INSTRUCTIONS).not.toContain('Sandbox data');
  });
});
