// Two sandbox processes on one data folder, the way people run them: `npm start` (`serve all --sandbox
// --transport http`) and a desktop client's stdio server (`serve ... --sandbox`), started at the same moment.
// Writes from both, one after the other and at the same time, must all land, with distinct ids; neither
// process may act on a stale copy of what the other wrote (a record the other created, a field the other set).
// Checked in the tool results and, after both stopped, in the SQLite files themselves.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectCli, connectClient, spawnCli } from './harness.js';

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-shared-'));

let http: ReturnType<typeof spawnCli>;
/** The `npm start` process, over Streamable HTTP. */
let a: Connected;
/** The desktop client's process, over stdio. */
let b: Connected;

beforeAll(async () => {
  // Both at once: they also race to seed the empty folder, which must happen once.
  http = spawnCli(
    ['serve', 'all', '--sandbox', '--transport', 'http', '--port', '0', '--data-dir', dataDir],
    {},
    /MCP endpoint \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
  );
  const [ready, stdio] = await Promise.all([
    http.ready,
    connectCli(['serve', 'all', '--sandbox', '--data-dir', dataDir]),
  ]);
  b = stdio;
  a = await connectClient(new StreamableHTTPClientTransport(new URL(ready[1]!)));
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await http?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: tool results are read field by field.
async function ok(client: Connected, tool: string, args: Record<string, unknown>): Promise<any> {
  const result = await client.call(tool, args);
  if (result.isError) throw new Error(`${tool}: ${result.text}`);
  return result.structured;
}

/** The SQLite file of a service, read after the servers stopped (or alongside them: WAL allows readers). */
function openData(service: string): Database.Database {
  return new Database(join(dataDir, `${service}.db`), { readonly: true });
}

describe('two sandbox processes on one data folder', () => {
  let baseId: string;
  let tableId: string;
  let nameField: string;
  let notesField: string;
  const exec = (client: Connected, tool: string, args: Record<string, unknown>, body: unknown) =>
    ok(client, `StoreApi.${tool}`, { mode: 'execute', ...args, request_body: JSON.stringify(body) });
  /** Creates records named `names` through `client`; returns their ids by name. */
  const create = async (client: Connected, names: string[]) => {
    const created = await exec(
      client,
      'CreateStoreRecords',
      { base_id: baseId, table_id_or_name: tableId },
      { records: names.map((name) => ({ fields: { [nameField]: name } })) },
    );
    return (created.records as { id: string; fields: Record<string, unknown> }[]).map((r) => ({
      id: r.id,
      name: r.fields[nameField] as string,
    }));
  };

  beforeAll(async () => {
    const bases = await ok(a, 'StoreApi.ListStoreBases', {});
    baseId = bases.bases[0].id;
    const schema = await ok(a, 'StoreApi.GetStoreBaseSchema', { store_base_id: baseId });
    // A table with a one-line text primary field and a long-text field to write side by side.
    const table = (
      schema.tables as {
        id: string;
        primaryFieldId: string;
        fields: { id: string; name: string; type: string }[];
      }[]
    ).find(
      (t) =>
        t.fields.find((f) => f.id === t.primaryFieldId)?.type === 'singleLineText' &&
        t.fields.some((f) => f.type === 'multilineText'),
    )!;
    tableId = table.id;
    nameField = table.fields.find((f) => f.id === table.primaryFieldId)!.name;
    notesField = table.fields.find((f) => f.type === 'multilineText')!.name;
  });

  it('store: every record created by either process exists once, with an id of its own', async () => {
    const acknowledged: { id: string; name: string }[] = [];
    // One after the other, alternating processes: each must see the other's counter, not its own copy.
    for (let i = 0; i < 3; i++) {
      acknowledged.push(...(await create(a, [`http-seq-${i}`])));
      acknowledged.push(...(await create(b, [`stdio-seq-${i}`, `stdio-seq-${i}b`])));
    }
    // At the same time, from both processes and several calls each.
    const together = await Promise.all([
      ...[0, 1, 2].map((i) => create(a, [`http-par-${i}`, `http-par-${i}b`])),
      ...[0, 1, 2].map((i) => create(b, [`stdio-par-${i}`])),
    ]);
    acknowledged.push(...together.flat());

    expect(acknowledged).toHaveLength(18);
    expect(new Set(acknowledged.map((r) => r.id)).size).toBe(acknowledged.length);
    // Each process reads back what the other created last (a stale cache would answer 404).
    const lastOf = (prefix: string) => acknowledged.filter((r) => r.name.startsWith(prefix)).slice(-2);
    for (const record of [...lastOf('http'), ...lastOf('stdio')]) {
      const reader = record.name.startsWith('http') ? b : a;
      const got = await ok(reader, 'StoreApi.StoreGetRecord', {
        store_base_id: baseId,
        table_identifier: tableId,
        record_id: record.id,
      });
      expect(got.fields[nameField]).toBe(record.name);
    }
    const db = openData('store');
    try {
      for (const record of acknowledged) {
        const row = db.prepare('SELECT table_id FROM records WHERE id = ?').get(record.id);
        expect(row, record.name).toEqual({ table_id: tableId });
      }
    } finally {
      db.close();
    }
  });

  it('store: an update in one process never undoes what the other just wrote to the same record', async () => {
    const [record] = await create(a, ['shared-record']);
    const where = { base_id: baseId, table_id_or_name: tableId, store_record_id: record!.id };
    for (let round = 0; round < 2; round++) {
      // The stdio process reads the record (and caches its table) before the HTTP one changes it.
      await ok(b, 'StoreApi.StoreGetRecord', {
        store_base_id: baseId,
        table_identifier: tableId,
        record_id: record!.id,
      });
      await exec(a, 'UpdateStoreRecord', where, { fields: { [nameField]: `name from http ${round}` } });
      await exec(b, 'UpdateStoreRecord', where, { fields: { [notesField]: `notes from stdio ${round}` } });
      for (const reader of [a, b]) {
        const got = await ok(reader, 'StoreApi.StoreGetRecord', {
          store_base_id: baseId,
          table_identifier: tableId,
          record_id: record!.id,
        });
        expect(got.fields[nameField]).toBe(`name from http ${round}`);
        expect(got.fields[notesField]).toBe(`notes from stdio ${round}`);
      }
    }
  });

  it('issue desk: notes from both processes all land, on one internal thread', async () => {
    const issue = await ok(a, 'IssueDesk.GetIssue', { lookup_by: 'id', value: '3' });
    const issueId = issue.issue.id as string;
    const note = (client: Connected, body: string) =>
      ok(client, 'IssueDesk.AddMessage', { issue_id: issueId, body }).then((r) => r.note.id as string);
    const ids = [await note(a, 'http 0'), await note(b, 'stdio 0')];
    ids.push(...(await Promise.all([note(a, 'http 1'), note(b, 'stdio 1'), note(a, 'http 2')])));
    expect(new Set(ids).size).toBe(5);
    // A state change in one process and an assignment in the other: both stay.
    const users = await ok(b, 'IssueDesk.ListUsers', {});
    const userId = users.users[1].id as string;
    await Promise.all([
      ok(a, 'IssueDesk.UpdateIssueStatus', { state: 'on_hold', lookup_by: 'id', value: issueId }),
      ok(b, 'IssueDesk.AssignIssue', {
        issue_lookup_by: 'id',
        issue_value: issueId,
        user_lookup_by: 'id',
        user_value: userId,
      }),
    ]);
    const after = await ok(b, 'IssueDesk.GetIssue', { lookup_by: 'id', value: issueId });
    expect(after.issue).toMatchObject({ state: 'on_hold', assignee: { id: userId } });

    const db = openData('issuedesk');
    try {
      const notes = db
        .prepare('SELECT id, thread_id FROM messages WHERE issue_id = ? AND is_private = 1 AND source = ?')
        .all(issueId, 'api') as { id: string; thread_id: string }[];
      expect(notes.map((n) => n.id).sort()).toEqual([...ids].sort());
      expect(new Set(notes.map((n) => n.thread_id)).size).toBe(1);
    } finally {
      db.close();
    }
  });

  it('messaging: people added by both processes all exist, each with a cio_id of its own', async () => {
    const add = (client: Connected, id: string) =>
      ok(client, 'MessagingTrackApi.UpdateOrAddPerson', {
        mode: 'execute',
        person_identifier: id,
        request_body: JSON.stringify({ plan: 'trial' }),
      });
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      ids.push(`shared-http-${i}`, `shared-stdio-${i}`);
      await add(a, `shared-http-${i}`);
      await add(b, `shared-stdio-${i}`);
    }
    const together = ['shared-par-a0', 'shared-par-b0', 'shared-par-a1', 'shared-par-b1'];
    ids.push(...together);
    await Promise.all(together.map((id, i) => add(i % 2 === 0 ? a : b, id)));

    const db = openData('messaging');
    try {
      const people = db
        .prepare(`SELECT id, cio_id FROM people WHERE id IN (${ids.map(() => '?').join(', ')})`)
        .all(...ids) as { id: string; cio_id: string }[];
      expect(people.map((p) => p.id).sort()).toEqual([...ids].sort());
      expect(new Set(people.map((p) => p.cio_id)).size).toBe(ids.length);
    } finally {
      db.close();
    }
  });
});
