// The change feed: every mutation publishes its events once per request, in order, sharing a per-base
// transaction number that starts at 1; record events carry the cells after and before, schema events the
// metadata after and before; reads publish nothing.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../../../src/services/store/emulator/changes.js';
import { call, ids, makeEmulator, NOW, users } from './helpers.js';

const emulator = makeEmulator();
const batches: (readonly ChangeEvent[])[] = [];
const unsubscribe = emulator.changes.subscribe((events) => batches.push(events));
afterAll(() => {
  unsubscribe();
  emulator.close();
});
beforeEach(() => {
  batches.length = 0;
});

const features = ids(emulator, 'Product Roadmap', 'Features');
const teams = ids(emulator, 'Product Roadmap', 'Teams');
const path = `/v0/${features.base}/${features.table}`;
const [owner] = users(emulator);

describe('change events', () => {
  it('publishes recordCreated, with the inverse link change, in one batch with transaction number 1', async () => {
    const team = emulator.store.records(teams.table)[0]!;
    const res = await call(emulator, 'POST', path, {
      body: { fields: { Name: 'Evented', Team: [team.id] } },
    });
    expect(batches).toHaveLength(1);
    const [created, linked] = batches[0]!;
    expect(created).toMatchObject({
      baseId: features.base,
      transactionNumber: 1,
      timestamp: NOW,
      source: 'publicApi',
      userId: owner!.id,
      kind: 'recordCreated',
      tableId: features.table,
      recordId: res.body.id,
    });
    expect(created!.current?.[features.field('Name')]).toBe('Evented');
    expect(created!.previous).toBeUndefined();
    expect(linked).toMatchObject({
      kind: 'recordChanged',
      tableId: teams.table,
      recordId: team.id,
      transactionNumber: 1,
    });
    expect(linked!.current?.[teams.field('Features')]).toContain(res.body.id);
    expect(linked!.previous?.[teams.field('Features')]).not.toContain(res.body.id);
  });

  it('numbers transactions per base and publishes changed and destroyed records with before and after', async () => {
    const rec = (await call(emulator, 'POST', path, { body: { fields: { Name: 'Before' } } })).body;
    await call(emulator, 'PATCH', `${path}/${rec.id}`, { body: { fields: { Name: 'After' } } });
    await call(emulator, 'DELETE', `${path}/${rec.id}`);
    const [create, change, destroy] = batches.map((b) => b[0]!);
    expect([create!.transactionNumber, change!.transactionNumber, destroy!.transactionNumber]).toEqual([
      2, 3, 4,
    ]);
    expect(change).toMatchObject({ kind: 'recordChanged', recordId: rec.id });
    expect(change!.previous?.[features.field('Name')]).toBe('Before');
    expect(change!.current?.[features.field('Name')]).toBe('After');
    expect(destroy).toMatchObject({ kind: 'recordDestroyed', recordId: rec.id });
    expect(destroy!.current).toBeUndefined();
    expect(destroy!.previous?.[features.field('Name')]).toBe('After');
    const crm = ids(emulator, 'Sales CRM', 'Deals');
    await call(emulator, 'POST', `/v0/${crm.base}/${crm.table}`, {
      body: { fields: { Name: 'Other base' } },
    });
    expect(batches.at(-1)![0]).toMatchObject({ baseId: crm.base, transactionNumber: 1 });
  });

  it('publishes fieldChanged when typecast adds a select option', async () => {
    await call(emulator, 'POST', path, {
      body: { fields: { Name: 'New option', Status: 'Parked' }, typecast: true },
    });
    const kinds = batches[0]!.map((e) => e.kind);
    expect(kinds).toEqual(['fieldChanged', 'recordCreated']);
    const changed = batches[0]![0]!;
    expect(changed.fieldId).toBe(features.field('Status'));
    const choices = (changed.currentMetadata!.options as { choices: { name: string }[] }).choices;
    expect(choices.map((c) => c.name)).toContain('Parked');
  });

  it('publishes schema events: tableCreated, fieldCreated, tableChanged, fieldChanged, viewDestroyed', async () => {
    const table = await call(emulator, 'POST', `/v0/meta/bases/${features.base}/tables`, {
      body: { name: 'Evented table', fields: [{ name: 'Name', type: 'singleLineText' }] },
    });
    expect(batches[0]!.map((e) => e.kind)).toEqual(['tableCreated', 'fieldCreated']);
    expect(batches[0]![0]!.currentMetadata).toEqual({ name: 'Evented table' });
    await call(emulator, 'PATCH', `/v0/meta/bases/${features.base}/tables/${table.body.id}`, {
      body: { name: 'Renamed table' },
    });
    expect(batches[1]![0]).toMatchObject({
      kind: 'tableChanged',
      tableId: table.body.id,
      currentMetadata: { name: 'Renamed table' },
      previousMetadata: { name: 'Evented table' },
    });
    const field = await call(
      emulator,
      'POST',
      `/v0/meta/bases/${features.base}/tables/${table.body.id}/fields`,
      {
        body: { name: 'Notes', type: 'multilineText' },
      },
    );
    expect(batches[2]![0]).toMatchObject({
      kind: 'fieldCreated',
      fieldId: field.body.id,
      currentMetadata: { name: 'Notes', type: 'multilineText' },
    });
    await call(
      emulator,
      'PATCH',
      `/v0/meta/bases/${features.base}/tables/${table.body.id}/fields/${field.body.id}`,
      {
        body: { description: 'Free text' },
      },
    );
    expect(batches[3]![0]).toMatchObject({
      kind: 'fieldChanged',
      currentMetadata: { name: 'Notes', type: 'multilineText', description: 'Free text' },
      previousMetadata: { name: 'Notes', type: 'multilineText' },
    });
    await call(emulator, 'DELETE', `/v0/meta/bases/${features.base}/views/${features.view('Roadmap')}`);
    expect(batches[4]![0]).toMatchObject({
      kind: 'viewDestroyed',
      viewId: features.view('Roadmap'),
      tableId: features.table,
    });
    const numbers = batches.map((b) => b[0]!.transactionNumber);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });

  it('publishes nothing for reads, failed writes and writes that change nothing', async () => {
    await call(emulator, 'GET', `${path}?maxRecords=3`);
    await call(emulator, 'POST', path, { body: { fields: { Nope: 1 } } });
    const row = emulator.store.records(features.table)[0]!;
    await call(emulator, 'PATCH', `${path}/${row.id}`, {
      body: { fields: { Name: row.cells[features.field('Name')] } },
    });
    expect(batches).toEqual([]);
  });

  it('feeds the webhooks: a record change becomes a payload of the base', async () => {
    const hook = await call(emulator, 'POST', `/v0/bases/${features.base}/webhooks`, {
      body: { specification: { options: { filters: { dataTypes: ['tableData'] } } } },
    });
    expect(hook.status).toBe(200);
    expect(hook.body.id).toMatch(/^ach[A-Za-z0-9]{14}$/);
    const created = await call(emulator, 'POST', path, { body: { fields: { Name: 'Hooked' } } });
    const payloads = await call(
      emulator,
      'GET',
      `/v0/bases/${features.base}/webhooks/${hook.body.id}/payloads`,
    );
    expect(payloads.status).toBe(200);
    const last = payloads.body.payloads.at(-1);
    expect(last.baseTransactionNumber).toBe(batches.at(-1)![0]!.transactionNumber);
    expect(JSON.stringify(last)).toContain(created.body.id);
    expect(last.actionMetadata.source).toBe('publicApi');
  });

  it('keeps a throwing listener from breaking the request', async () => {
    const stop = emulator.changes.subscribe(() => {
      throw new Error('listener bug');
    });
    const stderr = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      const res = await call(emulator, 'POST', path, { body: { fields: { Name: 'Still works' } } });
      expect(res.status).toBe(200);
    } finally {
      process.stderr.write = stderr;
      stop();
    }
    expect(batches).toHaveLength(1);
  });
});
