// Airtable webhooks in the store emulator: the six routes' shapes and errors, payload generation from change
// events under every filter and include, cursor paging, expiry and retention on a manual clock, and signed
// notification pings with retries, all driven through a tiny Hono app with a hand-fed change feed.
import { createHmac } from 'node:crypto';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../../../src/emulation/clock.js';
import type { EmulatorEnv } from '../../../../src/emulation/env.js';
import { openDatabase } from '../../../../src/emulation/sqlite.js';
import type {
  ChangeEvent,
  ChangeFeed,
  ChangeSource,
} from '../../../../src/services/store/emulator/changes.js';
import { webhooksArea } from '../../../../src/services/store/emulator/routes/webhooks.js';
import {
  type WebhookOwnerKind,
  WebhookService,
  type WebhookSpecification,
} from '../../../../src/services/store/emulator/webhooks.js';

const BASE = 'appBase000000001';
const OTHER_BASE = 'appBase000000002';
const TABLE = 'tblTable00000001';
const OTHER_TABLE = 'tblTable00000002';
const VIEW = 'viwView000000001';
const F_NAME = 'fldName000000001';
const F_QTY = 'fldQty0000000001';
const F_NOTE = 'fldNote000000001';
const USER = 'usrUser000000001';
const START = '2024-03-01T12:00:00.000Z';
const DAY = 24 * 60 * 60 * 1000;
const ALL_SCOPES = ['webhook:manage', 'data.records:read', 'schema.bases:read'];

interface Posted {
  url: string;
  body: string;
  headers: Record<string, string>;
}

type EventSpec = Omit<ChangeEvent, 'baseId' | 'transactionNumber' | 'timestamp' | 'source'> &
  Partial<Pick<ChangeEvent, 'baseId' | 'source'>>;

function harness() {
  const db = openDatabase(':memory:');
  const clock = manualClock(START);
  const listeners = new Set<(events: readonly ChangeEvent[]) => void>();
  const changes: ChangeFeed = {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const posts: Posted[] = [];
  /** What the receiver answers; tests swap it. */
  let receiver: (posted: Posted) => Promise<{ status: number }> = async () => ({ status: 200 });
  let ids = 0;
  const service = new WebhookService({
    db,
    clock,
    changes,
    baseExists: (id) => id === BASE || id === OTHER_BASE,
    newId: (prefix) => `${prefix}${String(++ids).padStart(14, '0')}`,
    post: (url, body, headers) => {
      const posted = { url, body, headers };
      posts.push(posted);
      return receiver(posted);
    },
    describeUser: (id) =>
      id === USER ? { id, email: 'ada@example.com', permissionLevel: 'create', name: 'Ada' } : undefined,
    tableOfView: (_base, view) => (view === VIEW ? TABLE : undefined),
  });
  const app = new Hono<EmulatorEnv>();
  const area = webhooksArea({
    webhooks: service,
    requireScope: (c, scope) => {
      const granted = (c.req.header('x-scopes') ?? ALL_SCOPES.join(',')).split(',');
      if (granted.includes(scope)) return undefined;
      return c.json({ error: { type: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND', message: 'scope' } }, 403);
    },
    fail: (c, status: ContentfulStatusCode, type, message) =>
      c.json({ error: message === undefined ? { type } : { type, message } }, status),
    ownerTokenKind: (c) =>
      (c.req.header('x-token-kind') as WebhookOwnerKind | undefined) ?? 'personalAccessToken',
  });
  app.route('/', area);

  const transactions = new Map<string, number>();
  return {
    db,
    clock,
    service,
    posts,
    setReceiver(next: (posted: Posted) => Promise<{ status: number }>) {
      receiver = next;
    },
    /** One transaction: the events share base, number, timestamp and source, as the store sends them. */
    emit(events: EventSpec[], source: ChangeSource = 'client', userId: string | undefined = USER): number {
      const baseId = events[0]?.baseId ?? BASE;
      const number = (transactions.get(baseId) ?? 0) + 1;
      transactions.set(baseId, number);
      const timestamp = clock.now().toISOString();
      const full = events.map(
        (e): ChangeEvent => ({
          ...e,
          baseId,
          transactionNumber: number,
          timestamp,
          source: e.source ?? source,
          ...(userId === undefined ? {} : { userId }),
        }),
      );
      for (const listener of listeners) listener(full);
      return number;
    },
    async call(
      method: string,
      path: string,
      options: { body?: unknown; raw?: string; scopes?: string[]; tokenKind?: WebhookOwnerKind } = {},
    ): Promise<{ status: number; json: Record<string, unknown> }> {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (options.scopes) headers['x-scopes'] = options.scopes.join(',');
      if (options.tokenKind) headers['x-token-kind'] = options.tokenKind;
      const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
      const res = await app.request(path, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await res.text();
      return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
    },
    async create(
      specification: WebhookSpecification,
      notificationUrl?: string,
      baseId = BASE,
    ): Promise<{ id: string; macSecretBase64: string; expirationTime: string }> {
      const res = await this.call('POST', `/v0/bases/${baseId}/webhooks`, {
        body: { ...(notificationUrl ? { notificationUrl } : {}), specification },
      });
      expect(res.status).toBe(200);
      return res.json as { id: string; macSecretBase64: string; expirationTime: string };
    },
    async payloads(id: string, query = '', baseId = BASE) {
      const res = await this.call('GET', `/v0/bases/${baseId}/webhooks/${id}/payloads${query}`);
      expect(res.status).toBe(200);
      return res.json as { cursor: number; mightHaveMore: boolean; payloads: Record<string, unknown>[] };
    },
    async webhook(id: string, baseId = BASE) {
      const res = await this.call('GET', `/v0/bases/${baseId}/webhooks`);
      const list = res.json.webhooks as Record<string, unknown>[];
      return list.find((w) => w.id === id);
    },
  };
}

type Harness = ReturnType<typeof harness>;

function spec(
  filters: WebhookSpecification['options']['filters'],
  includes?: WebhookSpecification['options']['includes'],
) {
  return { options: { filters, ...(includes ? { includes } : {}) } };
}

const dataSpec = spec({ dataTypes: ['tableData'] });

/** Lets settled promises (ping outcomes) run their continuations. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function hmac(secretBase64: string, body: string): string {
  return createHmac('sha256', Buffer.from(secretBase64, 'base64')).update(body).digest('hex');
}

const created = (recordId: string, cells: Record<string, unknown>, tableId = TABLE): EventSpec => ({
  kind: 'recordCreated',
  tableId,
  recordId,
  current: cells,
});
const changed = (
  recordId: string,
  previous: Record<string, unknown>,
  current: Record<string, unknown>,
  tableId = TABLE,
): EventSpec => ({ kind: 'recordChanged', tableId, recordId, previous, current });
const destroyed = (recordId: string, tableId = TABLE): EventSpec => ({
  kind: 'recordDestroyed',
  tableId,
  recordId,
});

let open: Harness[] = [];
function make(): Harness {
  const h = harness();
  open.push(h);
  return h;
}

afterEach(() => {
  for (const h of open) {
    h.service.close();
    h.db.close();
  }
  open = [];
  vi.useRealTimers();
});

describe('create, list, delete, enable, refresh', () => {
  it('creates a webhook and lists it exactly like the upstream model', async () => {
    const h = make();
    const specification = spec(
      {
        dataTypes: ['tableData'],
        recordChangeScope: TABLE,
        changeTypes: ['add', 'remove', 'update'],
        fromSources: ['client'],
        watchDataInFieldIds: [F_NAME],
      },
      { includeCellValuesInFieldIds: 'all', includePreviousCellValues: false },
    );
    const made = await h.create(specification, 'https://example.com/receive-ping');
    expect(made).toEqual({
      id: 'ach00000000000001',
      macSecretBase64: expect.any(String),
      expirationTime: '2024-03-08T12:00:00.000Z',
    });
    expect(Buffer.from(made.macSecretBase64, 'base64')).toHaveLength(32);
    await flush();

    const res = await h.call('GET', `/v0/bases/${BASE}/webhooks`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      webhooks: [
        {
          id: made.id,
          areNotificationsEnabled: true,
          cursorForNextPayload: 1,
          isHookEnabled: true,
          lastSuccessfulNotificationTime: START,
          notificationUrl: 'https://example.com/receive-ping',
          expirationTime: '2024-03-08T12:00:00.000Z',
          lastNotificationResult: {
            success: true,
            completionTimestamp: START,
            durationMs: 0,
            retryNumber: 0,
          },
          specification,
        },
      ],
    });
    expect(JSON.stringify(res.json)).not.toContain(made.macSecretBase64);
  });

  it('without a notification URL: notifications off, nulls, and no ping', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    await flush();
    expect(h.posts).toEqual([]);
    expect(await h.webhook(made.id)).toMatchObject({
      areNotificationsEnabled: false,
      notificationUrl: null,
      lastNotificationResult: null,
      lastSuccessfulNotificationTime: null,
    });
  });

  it('allows 10 webhooks per base, then answers 422 TOO_MANY_WEBHOOKS_IN_BASE', async () => {
    const h = make();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await h.create(dataSpec)).id);
    const refused = await h.call('POST', `/v0/bases/${BASE}/webhooks`, { body: { specification: dataSpec } });
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ error: { type: 'TOO_MANY_WEBHOOKS_IN_BASE' } });
    // Another base has its own allowance; deleting one frees a place.
    await h.create(dataSpec, undefined, OTHER_BASE);
    expect((await h.call('DELETE', `/v0/bases/${BASE}/webhooks/${ids[0]}`)).status).toBe(200);
    await h.create(dataSpec);
  });

  it('allows an OAuth integration 2 webhooks per base', async () => {
    const h = make();
    const post = () =>
      h.call('POST', `/v0/bases/${BASE}/webhooks`, { body: { specification: dataSpec }, tokenKind: 'oauth' });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    const third = await post();
    expect(third.status).toBe(422);
    expect(third.json).toMatchObject({ error: { type: 'TOO_MANY_WEBHOOKS_BY_OAUTH_INTEGRATION_IN_BASE' } });
  });

  it('webhooks of legacy API keys never expire', async () => {
    const h = make();
    const res = await h.call('POST', `/v0/bases/${BASE}/webhooks`, {
      body: { specification: dataSpec },
      tokenKind: 'apiKey',
    });
    expect(res.json.expirationTime).toBeNull();
    h.clock.advance(30 * DAY);
    const id = res.json.id as string;
    expect(await h.webhook(id)).toMatchObject({ isHookEnabled: true, expirationTime: null });
    expect((await h.call('POST', `/v0/bases/${BASE}/webhooks/${id}/refresh`)).json).toEqual({
      expirationTime: null,
    });
  });

  it('deletes a webhook with {} and forgets it and its payloads', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    h.emit([created('rec1', { [F_NAME]: 'a' })]);
    const res = await h.call('DELETE', `/v0/bases/${BASE}/webhooks/${made.id}`);
    expect(res).toEqual({ status: 200, json: {} });
    expect((await h.call('GET', `/v0/bases/${BASE}/webhooks`)).json).toEqual({ webhooks: [] });
    expect((await h.call('GET', `/v0/bases/${BASE}/webhooks/${made.id}/payloads`)).status).toBe(404);
    expect(h.service.inspect().payloadCounts).toEqual({});
  });

  it('turns notifications off and on with {enable}', async () => {
    const h = make();
    const made = await h.create(dataSpec, 'https://example.com/hook');
    const path = `/v0/bases/${BASE}/webhooks/${made.id}/enableNotifications`;
    expect(await h.call('POST', path, { body: { enable: false } })).toEqual({ status: 200, json: {} });
    expect(await h.webhook(made.id)).toMatchObject({ areNotificationsEnabled: false });
    expect(await h.call('POST', path, { body: { enable: true } })).toEqual({ status: 200, json: {} });
    expect(await h.webhook(made.id)).toMatchObject({ areNotificationsEnabled: true });
    const bad = await h.call('POST', path, { body: { enable: 'yes' } });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({ error: { type: 'INVALID_REQUEST_UNKNOWN' } });
  });

  it('refreshes to 7 days after the refresh time', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    h.clock.advance(3 * DAY);
    const res = await h.call('POST', `/v0/bases/${BASE}/webhooks/${made.id}/refresh`);
    expect(res).toEqual({ status: 200, json: { expirationTime: '2024-03-11T12:00:00.000Z' } });
    expect(await h.webhook(made.id)).toMatchObject({ expirationTime: '2024-03-11T12:00:00.000Z' });
  });

  it('refuses bodies that are not JSON (400) or not a valid specification (422)', async () => {
    const h = make();
    const path = `/v0/bases/${BASE}/webhooks`;
    const notJson = await h.call('POST', path, { raw: '{nope' });
    expect(notJson.status).toBe(400);
    for (const body of [
      {},
      { specification: { options: { filters: { dataTypes: [] } } } },
      { specification: { options: { filters: { dataTypes: ['records'] } } } },
      { specification: dataSpec, notificationUrl: 'not a url' },
      { specification: spec({ dataTypes: ['tableData'], changeTypes: ['delete' as 'remove'] }) },
    ]) {
      const res = await h.call('POST', path, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json).toMatchObject({ error: { type: 'INVALID_REQUEST_UNKNOWN' } });
    }
    expect(h.service.inspect().webhooks).toEqual([]);
  });
});

describe('payload generation', () => {
  it('tableData: created, changed and destroyed records, with the acting user', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    const txn = h.emit([
      created('rec1', { [F_NAME]: 'Widget', [F_QTY]: 2 }),
      changed('rec2', { [F_NAME]: 'Old', [F_QTY]: 1 }, { [F_NAME]: 'New', [F_QTY]: 1 }),
      destroyed('rec3'),
    ]);
    const page = await h.payloads(made.id);
    expect(page).toEqual({
      cursor: 2,
      mightHaveMore: false,
      payloads: [
        {
          timestamp: START,
          baseTransactionNumber: txn,
          payloadFormat: 'v0',
          actionMetadata: {
            source: 'client',
            sourceMetadata: {
              user: { id: USER, email: 'ada@example.com', permissionLevel: 'create', name: 'Ada' },
            },
          },
          changedTablesById: {
            [TABLE]: {
              createdRecordsById: {
                rec1: { createdTime: START, cellValuesByFieldId: { [F_NAME]: 'Widget', [F_QTY]: 2 } },
              },
              changedRecordsById: { rec2: { current: { cellValuesByFieldId: { [F_NAME]: 'New' } } } },
              destroyedRecordIds: ['rec3'],
            },
          },
        },
      ],
    });
    expect(await h.webhook(made.id)).toMatchObject({ cursorForNextPayload: 2 });
  });

  it('reports a cleared cell as null and folds several events on one record', async () => {
    const h = make();
    const made = await h.create(dataSpec, undefined);
    h.emit([
      changed('rec1', { [F_NAME]: 'a', [F_NOTE]: 'n' }, { [F_NAME]: 'b', [F_NOTE]: 'n' }),
      changed('rec1', { [F_NAME]: 'b', [F_NOTE]: 'n' }, { [F_NAME]: 'b' }),
      created('rec9', { [F_NAME]: 'x' }),
      changed('rec9', { [F_NAME]: 'x' }, { [F_NAME]: 'y' }),
      created('rec8', { [F_NAME]: 'gone' }),
      destroyed('rec8'),
    ]);
    const [payload] = (await h.payloads(made.id)).payloads;
    expect(payload?.changedTablesById).toEqual({
      [TABLE]: {
        createdRecordsById: { rec9: { createdTime: START, cellValuesByFieldId: { [F_NAME]: 'y' } } },
        changedRecordsById: { rec1: { current: { cellValuesByFieldId: { [F_NAME]: 'b', [F_NOTE]: null } } } },
      },
    });
  });

  it('tableFields: created, changed (with previous definitions) and destroyed fields', async () => {
    const h = make();
    const made = await h.create(
      spec({ dataTypes: ['tableFields'] }, { includePreviousFieldDefinitions: true }),
    );
    h.emit([
      {
        kind: 'fieldCreated',
        tableId: TABLE,
        fieldId: F_NOTE,
        currentMetadata: { name: 'Notes', type: 'multilineText' },
      },
      {
        kind: 'fieldChanged',
        tableId: TABLE,
        fieldId: F_QTY,
        previousMetadata: { name: 'Qty', type: 'rating', options: { max: 5 } },
        currentMetadata: { name: 'Qty', type: 'number', options: { precision: 0 } },
      },
      { kind: 'fieldDestroyed', tableId: TABLE, fieldId: 'fldOld0000000001' },
      created('rec1', { [F_NAME]: 'ignored: not tableData' }),
    ]);
    const [payload] = (await h.payloads(made.id)).payloads;
    expect(payload?.changedTablesById).toEqual({
      [TABLE]: {
        createdFieldsById: { [F_NOTE]: { name: 'Notes', type: 'multilineText' } },
        changedFieldsById: { [F_QTY]: { current: { type: 'number' }, previous: { type: 'rating' } } },
        destroyedFieldIds: ['fldOld0000000001'],
      },
    });
  });

  it('tableFields without includePreviousFieldDefinitions, and watchSchemasOfFieldIds', async () => {
    const h = make();
    const all = await h.create(spec({ dataTypes: ['tableFields'] }));
    const watching = await h.create(spec({ dataTypes: ['tableFields'], watchSchemasOfFieldIds: [F_NAME] }));
    const rename = (fieldId: string, from: string, to: string): EventSpec => ({
      kind: 'fieldChanged',
      tableId: TABLE,
      fieldId,
      previousMetadata: { name: from, type: 'singleLineText' },
      currentMetadata: { name: to, type: 'singleLineText' },
    });
    h.emit([rename(F_QTY, 'Qty', 'Quantity')]);
    h.emit([rename(F_NAME, 'Name', 'Title')]);
    expect((await h.payloads(all.id)).payloads.map((p) => p.changedTablesById)).toEqual([
      { [TABLE]: { changedFieldsById: { [F_QTY]: { current: { name: 'Quantity' } } } } },
      { [TABLE]: { changedFieldsById: { [F_NAME]: { current: { name: 'Title' } } } } },
    ]);
    expect((await h.payloads(watching.id)).payloads.map((p) => p.baseTransactionNumber)).toEqual([2]);
  });

  it('tableMetadata: name and description changes with previous values; created and destroyed tables', async () => {
    const h = make();
    const made = await h.create(spec({ dataTypes: ['tableMetadata'] }));
    h.emit([
      {
        kind: 'tableChanged',
        tableId: TABLE,
        previousMetadata: { name: 'previous name', description: 'old' },
        currentMetadata: { name: 'table name', description: 'table description' },
      },
    ]);
    h.emit([
      { kind: 'tableCreated', tableId: OTHER_TABLE, currentMetadata: { name: 'New', description: 'fresh' } },
      {
        kind: 'fieldCreated',
        tableId: OTHER_TABLE,
        fieldId: F_NOTE,
        currentMetadata: { name: 'N', type: 'number' },
      },
    ]);
    h.emit([{ kind: 'tableDestroyed', tableId: TABLE }]);
    const { payloads } = await h.payloads(made.id);
    expect(
      payloads.map(({ timestamp, baseTransactionNumber, payloadFormat, actionMetadata, ...rest }) => rest),
    ).toEqual([
      {
        changedTablesById: {
          [TABLE]: {
            changedMetadata: {
              current: { name: 'table name', description: 'table description' },
              previous: { name: 'previous name', description: 'old' },
            },
          },
        },
      },
      { createdTablesById: { [OTHER_TABLE]: { metadata: { name: 'New', description: 'fresh' } } } },
      { destroyedTableIds: [TABLE] },
    ]);
  });

  it('a created table carries fields and records for the data types watched', async () => {
    const h = make();
    const made = await h.create(spec({ dataTypes: ['tableData', 'tableFields', 'tableMetadata'] }));
    h.emit([
      { kind: 'tableCreated', tableId: OTHER_TABLE, currentMetadata: { name: 'New', description: '' } },
      {
        kind: 'fieldCreated',
        tableId: OTHER_TABLE,
        fieldId: F_NOTE,
        currentMetadata: { name: 'N', type: 'number' },
      },
      created('rec1', { [F_NOTE]: 3 }, OTHER_TABLE),
    ]);
    const [payload] = (await h.payloads(made.id)).payloads;
    expect(payload?.createdTablesById).toEqual({
      [OTHER_TABLE]: {
        metadata: { name: 'New', description: '' },
        fieldsById: { [F_NOTE]: { name: 'N', type: 'number' } },
        recordsById: { rec1: { createdTime: START, cellValuesByFieldId: { [F_NOTE]: 3 } } },
      },
    });
    expect(payload?.changedTablesById).toBeUndefined();
  });

  it('makes no payload (and no cursor step) when nothing matches the data types', async () => {
    const h = make();
    const made = await h.create(spec({ dataTypes: ['tableMetadata'] }));
    h.emit([created('rec1', { [F_NAME]: 'a' })]);
    expect(await h.payloads(made.id)).toEqual({ cursor: 1, mightHaveMore: false, payloads: [] });
    expect(await h.webhook(made.id)).toMatchObject({ cursorForNextPayload: 1 });
  });

  it('changeTypes: only the kinds of change asked for', async () => {
    const h = make();
    const adds = await h.create(spec({ dataTypes: ['tableData'], changeTypes: ['add'] }));
    const removes = await h.create(spec({ dataTypes: ['tableData'], changeTypes: ['remove', 'update'] }));
    h.emit([created('rec1', { [F_NAME]: 'a' }), destroyed('rec2')]);
    h.emit([changed('rec3', { [F_NAME]: 'a' }, { [F_NAME]: 'b' })]);
    expect((await h.payloads(adds.id)).payloads.map((p) => p.changedTablesById)).toEqual([
      {
        [TABLE]: {
          createdRecordsById: { rec1: { createdTime: START, cellValuesByFieldId: { [F_NAME]: 'a' } } },
        },
      },
    ]);
    expect((await h.payloads(removes.id)).payloads.map((p) => p.changedTablesById)).toEqual([
      { [TABLE]: { destroyedRecordIds: ['rec2'] } },
      { [TABLE]: { changedRecordsById: { rec3: { current: { cellValuesByFieldId: { [F_NAME]: 'b' } } } } } },
    ]);
  });

  it('fromSources: only changes made through those sources; actionMetadata per source', async () => {
    const h = make();
    const clientOnly = await h.create(spec({ dataTypes: ['tableData'], fromSources: ['client'] }));
    const everything = await h.create(dataSpec);
    h.emit([created('rec1', { [F_NAME]: 'api' })], 'publicApi');
    h.emit([created('rec2', { [F_NAME]: 'ui' })], 'client');
    h.emit([created('rec3', { [F_NAME]: 'auto' })], 'automation', undefined);
    h.emit(
      [{ ...created('rec4', { [F_NAME]: 'form' }), viewId: 'viwForm000000001' }],
      'formSubmission',
      undefined,
    );
    h.emit([created('rec5', { [F_NAME]: 'stranger' })], 'publicApi', 'usrUnknown000001');
    expect((await h.payloads(clientOnly.id)).payloads.map((p) => p.baseTransactionNumber)).toEqual([2]);
    expect((await h.payloads(everything.id)).payloads.map((p) => p.actionMetadata)).toEqual([
      {
        source: 'publicApi',
        sourceMetadata: {
          user: { id: USER, email: 'ada@example.com', permissionLevel: 'create', name: 'Ada' },
        },
      },
      {
        source: 'client',
        sourceMetadata: {
          user: { id: USER, email: 'ada@example.com', permissionLevel: 'create', name: 'Ada' },
        },
      },
      { source: 'automation' },
      { source: 'formSubmission', sourceMetadata: { viewId: 'viwForm000000001' } },
      { source: 'publicApi', sourceMetadata: { user: { id: 'usrUnknown000001' } } },
    ]);
  });

  it('recordChangeScope: a table confines every kind of change to it', async () => {
    const h = make();
    const scoped = await h.create(
      spec({ dataTypes: ['tableData', 'tableFields'], recordChangeScope: TABLE }),
    );
    h.emit([created('rec1', { [F_NAME]: 'out' }, OTHER_TABLE)]);
    h.emit([{ kind: 'fieldDestroyed', tableId: OTHER_TABLE, fieldId: 'fldOther00000001' }]);
    h.emit([created('rec2', { [F_NAME]: 'in' }), created('rec3', { [F_NAME]: 'out' }, OTHER_TABLE)]);
    const { payloads } = await h.payloads(scoped.id);
    expect(payloads.map((p) => p.changedTablesById)).toEqual([
      {
        [TABLE]: {
          createdRecordsById: { rec2: { createdTime: START, cellValuesByFieldId: { [F_NAME]: 'in' } } },
        },
      },
    ]);
  });

  it('recordChangeScope: a view is played as its table and reported under changedViewsById', async () => {
    const h = make();
    const scoped = await h.create(spec({ dataTypes: ['tableData'], recordChangeScope: VIEW }));
    const unknownView = await h.create(
      spec({ dataTypes: ['tableData'], recordChangeScope: 'viwUnknown000001' }),
    );
    h.emit([destroyed('rec1'), destroyed('rec2', OTHER_TABLE)]);
    expect((await h.payloads(scoped.id)).payloads[0]?.changedTablesById).toEqual({
      [TABLE]: {
        destroyedRecordIds: ['rec1'],
        changedViewsById: { [VIEW]: { destroyedRecordIds: ['rec1'] } },
      },
    });
    expect((await h.payloads(unknownView.id)).payloads).toEqual([]);
  });

  it('watchDataInFieldIds: only changes to watched cells, and only those cells', async () => {
    const h = make();
    const made = await h.create(spec({ dataTypes: ['tableData'], watchDataInFieldIds: [F_NAME] }));
    h.emit([changed('rec1', { [F_NAME]: 'a', [F_QTY]: 1 }, { [F_NAME]: 'a', [F_QTY]: 2 })]);
    h.emit([changed('rec1', { [F_NAME]: 'a', [F_QTY]: 2 }, { [F_NAME]: 'b', [F_QTY]: 3 })]);
    // Creations and deletions are not cell edits: they are reported whatever the watched fields.
    h.emit([created('rec2', { [F_QTY]: 1 })]);
    const { payloads } = await h.payloads(made.id);
    expect(payloads.map((p) => [p.baseTransactionNumber, p.changedTablesById])).toEqual([
      [
        2,
        {
          [TABLE]: { changedRecordsById: { rec1: { current: { cellValuesByFieldId: { [F_NAME]: 'b' } } } } },
        },
      ],
      [
        3,
        {
          [TABLE]: {
            createdRecordsById: { rec2: { createdTime: START, cellValuesByFieldId: { [F_QTY]: 1 } } },
          },
        },
      ],
    ]);
  });

  it('includes: unchanged values (listed or all) and previous values', async () => {
    const h = make();
    const listed = await h.create(
      spec(
        { dataTypes: ['tableData'] },
        { includeCellValuesInFieldIds: [F_NOTE, F_QTY], includePreviousCellValues: true },
      ),
    );
    const all = await h.create(spec({ dataTypes: ['tableData'] }, { includeCellValuesInFieldIds: 'all' }));
    h.emit([
      changed(
        'rec1',
        { [F_NAME]: 'hello', [F_QTY]: 1, [F_NOTE]: 'n' },
        { [F_NAME]: 'hello world', [F_QTY]: 1, [F_NOTE]: 'n' },
      ),
    ]);
    expect((await h.payloads(listed.id)).payloads[0]?.changedTablesById).toEqual({
      [TABLE]: {
        changedRecordsById: {
          rec1: {
            current: { cellValuesByFieldId: { [F_NAME]: 'hello world' } },
            previous: { cellValuesByFieldId: { [F_NAME]: 'hello' } },
            unchanged: { cellValuesByFieldId: { [F_NOTE]: 'n', [F_QTY]: 1 } },
          },
        },
      },
    });
    expect((await h.payloads(all.id)).payloads[0]?.changedTablesById).toEqual({
      [TABLE]: {
        changedRecordsById: {
          rec1: {
            current: { cellValuesByFieldId: { [F_NAME]: 'hello world' } },
            unchanged: { cellValuesByFieldId: { [F_QTY]: 1, [F_NOTE]: 'n' } },
          },
        },
      },
    });
  });

  it('deleting a watched field sends one INVALID_FILTERS error payload and disables the webhook', async () => {
    const h = make();
    const made = await h.create(
      spec({ dataTypes: ['tableData'], watchDataInFieldIds: [F_QTY] }),
      'https://e.com/h',
    );
    await flush();
    h.emit([{ kind: 'fieldDestroyed', tableId: TABLE, fieldId: F_QTY }]);
    await flush();
    h.emit([changed('rec1', { [F_QTY]: 1 }, { [F_QTY]: 2 })]);
    await flush();
    expect((await h.payloads(made.id)).payloads).toEqual([
      {
        timestamp: START,
        baseTransactionNumber: 1,
        payloadFormat: 'v0',
        error: true,
        code: 'INVALID_FILTERS',
      },
    ]);
    expect(await h.webhook(made.id)).toMatchObject({ isHookEnabled: false, cursorForNextPayload: 2 });
    // The creation ping and the one announcing the error payload; nothing after.
    expect(h.posts).toHaveLength(2);
  });
});

describe('payload paging', () => {
  it('pages by cursor and limit, with mightHaveMore, and keeps the cursor when nothing is left', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    for (let i = 1; i <= 5; i++) h.emit([created(`rec${i}`, { [F_QTY]: i })]);
    const numbers = (page: { payloads: Record<string, unknown>[] }) =>
      page.payloads.map((p) => p.baseTransactionNumber);

    const first = await h.payloads(made.id, '?limit=2');
    expect([first.cursor, first.mightHaveMore, numbers(first)]).toEqual([3, true, [1, 2]]);
    const second = await h.payloads(made.id, `?cursor=${first.cursor}&limit=2`);
    expect([second.cursor, second.mightHaveMore, numbers(second)]).toEqual([5, true, [3, 4]]);
    const third = await h.payloads(made.id, `?cursor=${second.cursor}&limit=2`);
    expect([third.cursor, third.mightHaveMore, numbers(third)]).toEqual([6, false, [5]]);
    expect(await h.payloads(made.id, '?cursor=6')).toEqual({ cursor: 6, mightHaveMore: false, payloads: [] });
    expect(await h.payloads(made.id, '?cursor=40')).toEqual({
      cursor: 40,
      mightHaveMore: false,
      payloads: [],
    });
    const everything = await h.payloads(made.id);
    expect([everything.cursor, everything.mightHaveMore, numbers(everything)]).toEqual([
      6,
      false,
      [1, 2, 3, 4, 5],
    ]);
  });

  it('numbers payloads per webhook, apart from base transaction numbers', async () => {
    const h = make();
    h.emit([created('rec0', { [F_QTY]: 0 })]);
    const made = await h.create(dataSpec);
    h.emit([created('rec1', { [F_QTY]: 1 })]);
    const page = await h.payloads(made.id);
    expect(page.cursor).toBe(2);
    expect(page.payloads[0]?.baseTransactionNumber).toBe(2);
  });

  it('returns at most 50 and refuses a larger limit or a bad cursor with 422', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    for (let i = 1; i <= 51; i++) h.emit([created(`rec${i}`, { [F_QTY]: i })]);
    const page = await h.payloads(made.id);
    expect([page.payloads.length, page.cursor, page.mightHaveMore]).toEqual([50, 51, true]);
    for (const query of ['?limit=51', '?limit=0', '?limit=ten', '?cursor=0', '?cursor=-1', '?cursor=1.5']) {
      const res = await h.call('GET', `/v0/bases/${BASE}/webhooks/${made.id}/payloads${query}`);
      expect(res.status, query).toBe(422);
      expect(res.json).toMatchObject({ error: { type: 'INVALID_REQUEST_UNKNOWN' } });
    }
  });

  it('drops payloads after 7 days but never resets the cursor', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    h.emit([created('rec1', { [F_QTY]: 1 })]);
    h.clock.advance(4 * DAY);
    h.emit([created('rec2', { [F_QTY]: 2 })]);
    h.clock.advance(3 * DAY - 1);
    await h.payloads(made.id, '?limit=1'); // keeps the webhook alive
    h.clock.advance(1);
    const page = await h.payloads(made.id);
    expect(page.payloads.map((p) => p.baseTransactionNumber)).toEqual([2]);
    expect(page.cursor).toBe(3);
    h.emit([created('rec3', { [F_QTY]: 3 })]);
    expect(await h.webhook(made.id)).toMatchObject({ cursorForNextPayload: 4 });
    expect((await h.payloads(made.id, '?cursor=1')).payloads.map((p) => p.baseTransactionNumber)).toEqual([
      2, 3,
    ]);
  });
});

describe('expiry', () => {
  it('disables a webhook at its expiration: no payloads, no pings, no refresh', async () => {
    const h = make();
    const made = await h.create(dataSpec, 'https://example.com/hook');
    h.clock.advance(60 * 60 * 1000);
    h.emit([created('rec1', { [F_QTY]: 1 })]);
    await flush();
    const pings = h.posts.length;
    h.clock.advance(7 * DAY - 60 * 60 * 1000);
    expect(await h.webhook(made.id)).toMatchObject({
      isHookEnabled: false,
      expirationTime: made.expirationTime,
    });
    h.emit([created('rec2', { [F_QTY]: 2 })]);
    await flush();
    expect(h.posts).toHaveLength(pings);
    // Still readable, and listing does not revive it.
    const page = await h.payloads(made.id);
    expect(page.payloads.map((p) => p.baseTransactionNumber)).toEqual([1]);
    expect(await h.webhook(made.id)).toMatchObject({
      isHookEnabled: false,
      expirationTime: made.expirationTime,
    });
    const refresh = await h.call('POST', `/v0/bases/${BASE}/webhooks/${made.id}/refresh`);
    expect(refresh.status).toBe(422);
    expect(refresh.json).toMatchObject({ error: { type: 'INVALID_REQUEST_UNKNOWN' } });
  });

  it('keeps its payloads as they were until it is gone, 7 days after expiring', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    h.clock.advance(DAY);
    h.emit([created('rec1', { [F_QTY]: 1 })]);
    h.clock.advance(13 * DAY - 1);
    expect(await h.webhook(made.id)).toBeDefined();
    // 13 days old, yet readable: the payload's age stopped counting when the webhook expired.
    expect((await h.payloads(made.id)).payloads).toHaveLength(1);
    h.clock.advance(1);
    expect((await h.call('GET', `/v0/bases/${BASE}/webhooks`)).json).toEqual({ webhooks: [] });
    const res = await h.call('GET', `/v0/bases/${BASE}/webhooks/${made.id}/payloads`);
    expect(res).toEqual({ status: 404, json: { error: { type: 'NOT_FOUND' } } });
  });

  it('listing payloads and refreshing each extend the life by 7 days from then', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    h.clock.advance(6 * DAY);
    await h.payloads(made.id);
    expect(await h.webhook(made.id)).toMatchObject({ expirationTime: '2024-03-14T12:00:00.000Z' });
    h.clock.advance(6 * DAY);
    await h.call('POST', `/v0/bases/${BASE}/webhooks/${made.id}/refresh`);
    h.clock.advance(6 * DAY);
    h.emit([created('rec1', { [F_QTY]: 1 })]);
    expect(await h.webhook(made.id)).toMatchObject({
      isHookEnabled: true,
      expirationTime: '2024-03-20T12:00:00.000Z',
      cursorForNextPayload: 2,
    });
  });
});

describe('notification pings', () => {
  it('posts the upstream body with a verifiable X-Airtable-Content-MAC', async () => {
    const h = make();
    const made = await h.create(dataSpec, 'https://example.com/receive-ping');
    await flush();
    h.clock.advance(1000);
    h.emit([created('rec1', { [F_QTY]: 1 })]);
    await flush();
    expect(h.posts).toHaveLength(2);
    const ping = h.posts[1];
    if (!ping) throw new Error('no ping');
    expect(ping.url).toBe('https://example.com/receive-ping');
    expect(JSON.parse(ping.body)).toEqual({
      base: { id: BASE },
      webhook: { id: made.id },
      timestamp: '2024-03-01T12:00:01.000Z',
    });
    expect(ping.headers['Content-Type']).toBe('application/json');
    expect(ping.headers['X-Airtable-Content-MAC']).toBe(
      `hmac-sha256=${hmac(made.macSecretBase64, ping.body)}`,
    );
    expect(await h.webhook(made.id)).toMatchObject({
      lastSuccessfulNotificationTime: '2024-03-01T12:00:01.000Z',
      lastNotificationResult: { success: true, retryNumber: 0 },
    });
  });

  it('retries a failed ping 3 times, 1 s, 5 s and 25 s apart, then gives up', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = make();
    h.setReceiver(async () => ({ status: 503 }));
    const made = await h.create(dataSpec, 'https://example.com/hook');
    await flush();
    expect(await h.webhook(made.id)).toMatchObject({
      lastSuccessfulNotificationTime: null,
      lastNotificationResult: {
        success: false,
        error: { message: 'The HTTP request returned a 503 status code instead of 200 or 204' },
        completionTimestamp: START,
        durationMs: 0,
        retryNumber: 0,
        willBeRetried: true,
      },
    });
    const attempts = [1];
    for (const delay of [1_000, 5_000, 25_000]) {
      await vi.advanceTimersByTimeAsync(delay - 1);
      await flush();
      expect(h.posts).toHaveLength(attempts.length);
      await vi.advanceTimersByTimeAsync(1);
      await flush();
      attempts.push(1);
      expect(h.posts).toHaveLength(attempts.length);
    }
    expect((await h.webhook(made.id))?.lastNotificationResult).toMatchObject({
      retryNumber: 3,
      willBeRetried: false,
    });
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(h.posts).toHaveLength(4);
    // Every attempt is signed afresh.
    for (const ping of h.posts) {
      expect(ping.headers['X-Airtable-Content-MAC']).toBe(
        `hmac-sha256=${hmac(made.macSecretBase64, ping.body)}`,
      );
    }
  });

  it('records a recovery on retry, and network errors as failures', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = make();
    const answers: (() => Promise<{ status: number }>)[] = [
      () => Promise.reject(new Error('connect ECONNREFUSED')),
      async () => ({ status: 204 }),
    ];
    h.setReceiver(() => (answers.shift() ?? (async () => ({ status: 200 })))());
    const made = await h.create(dataSpec, 'https://example.com/hook');
    await flush();
    expect((await h.webhook(made.id))?.lastNotificationResult).toMatchObject({
      success: false,
      error: { message: 'The HTTP request failed: connect ECONNREFUSED' },
      willBeRetried: true,
    });
    h.clock.advance(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    await flush();
    expect(await h.webhook(made.id)).toMatchObject({
      lastSuccessfulNotificationTime: '2024-03-01T12:00:01.000Z',
      lastNotificationResult: {
        success: true,
        retryNumber: 1,
        completionTimestamp: '2024-03-01T12:00:01.000Z',
      },
    });
  });

  it('coalesces: at most one ping outstanding, plus one after it for changes made meanwhile', async () => {
    const h = make();
    // A webhook without a URL sends nothing, even with notifications switched on.
    const silent = await h.create(dataSpec);
    await h.call('POST', `/v0/bases/${BASE}/webhooks/${silent.id}/enableNotifications`, {
      body: { enable: true },
    });
    const hooked = await h.create(dataSpec, 'https://example.com/hook');
    await flush();
    const release: (() => void)[] = [];
    h.setReceiver(() => new Promise((resolve) => release.push(() => resolve({ status: 200 }))));
    h.emit([created('rec1', { [F_QTY]: 1 })]);
    h.emit([created('rec2', { [F_QTY]: 2 })]);
    h.emit([created('rec3', { [F_QTY]: 3 })]);
    await flush();
    expect(h.posts).toHaveLength(2); // creation ping + the one in flight
    release.shift()?.();
    await flush();
    expect(h.posts).toHaveLength(3); // one follow-up for the two changes made while in flight
    release.shift()?.();
    await flush();
    expect(h.posts).toHaveLength(3);
    expect(h.posts.every((p) => p.url === 'https://example.com/hook')).toBe(true);
    expect((await h.payloads(hooked.id)).payloads).toHaveLength(3);
  });

  it('sends nothing while notifications are disabled, and a disable stops pending retries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = make();
    h.setReceiver(async () => ({ status: 500 }));
    const made = await h.create(dataSpec, 'https://example.com/hook');
    await flush();
    expect(h.posts).toHaveLength(1);
    await h.call('POST', `/v0/bases/${BASE}/webhooks/${made.id}/enableNotifications`, {
      body: { enable: false },
    });
    await vi.advanceTimersByTimeAsync(60_000);
    h.emit([created('rec1', { [F_QTY]: 1 })]);
    await flush();
    expect(h.posts).toHaveLength(1);
    // The payload is still generated: notifications only concern pings.
    expect((await h.payloads(made.id)).payloads).toHaveLength(1);
  });

  it('close() cancels scheduled retries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = make();
    h.setReceiver(async () => ({ status: 500 }));
    await h.create(dataSpec, 'https://example.com/hook');
    await flush();
    h.service.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.posts).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('scopes and unknown ids', () => {
  it('needs webhook:manage on every route', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    const routes: [string, string, unknown?][] = [
      ['POST', `/v0/bases/${BASE}/webhooks`, { specification: dataSpec }],
      ['GET', `/v0/bases/${BASE}/webhooks`],
      ['DELETE', `/v0/bases/${BASE}/webhooks/${made.id}`],
      ['POST', `/v0/bases/${BASE}/webhooks/${made.id}/enableNotifications`, { enable: false }],
      ['POST', `/v0/bases/${BASE}/webhooks/${made.id}/refresh`],
      ['GET', `/v0/bases/${BASE}/webhooks/${made.id}/payloads`],
    ];
    for (const [method, path, body] of routes) {
      const res = await h.call(method, path, { body, scopes: ['data.records:read', 'schema.bases:read'] });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect(h.service.inspect().webhooks).toHaveLength(1);
  });

  it('needs data.records:read for tableData and schema.bases:read for fields and metadata', async () => {
    const h = make();
    const path = `/v0/bases/${BASE}/webhooks`;
    const create = (dataTypes: WebhookSpecification['options']['filters']['dataTypes'], scopes: string[]) =>
      h.call('POST', path, { body: { specification: spec({ dataTypes }) }, scopes });
    expect((await create(['tableData'], ['webhook:manage', 'schema.bases:read'])).status).toBe(403);
    expect((await create(['tableFields'], ['webhook:manage', 'data.records:read'])).status).toBe(403);
    expect((await create(['tableMetadata'], ['webhook:manage', 'data.records:read'])).status).toBe(403);
    expect((await create(['tableData'], ['webhook:manage', 'data.records:read'])).status).toBe(200);
    const res = await create(['tableFields', 'tableMetadata'], ['webhook:manage', 'schema.bases:read']);
    expect(res.status).toBe(200);

    const fieldsHook = res.json.id as string;
    const payloads = (scopes: string[]) => h.call('GET', `${path}/${fieldsHook}/payloads`, { scopes });
    expect((await payloads(['webhook:manage', 'data.records:read'])).status).toBe(403);
    expect((await payloads(['webhook:manage', 'schema.bases:read'])).status).toBe(200);
    // Listing webhooks needs only webhook:manage.
    expect((await h.call('GET', path, { scopes: ['webhook:manage'] })).status).toBe(200);
  });

  it('answers 403 for an unknown base and 404 for an unknown webhook or one of another base', async () => {
    const h = make();
    const made = await h.create(dataSpec);
    const unknownBase = await h.call('GET', '/v0/bases/appUnknown0000001/webhooks');
    expect(unknownBase.status).toBe(403);
    expect(unknownBase.json).toMatchObject({ error: { type: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND' } });
    const create = await h.call('POST', '/v0/bases/appUnknown0000001/webhooks', {
      body: { specification: dataSpec },
    });
    expect(create.status).toBe(403);
    for (const [method, suffix, body] of [
      ['DELETE', ''],
      ['POST', '/enableNotifications', { enable: true }],
      ['POST', '/refresh'],
      ['GET', '/payloads'],
    ] as [string, string, unknown?][]) {
      const unknown = await h.call(method, `/v0/bases/${BASE}/webhooks/achUnknown0000001${suffix}`, { body });
      expect(unknown, `${method} ${suffix}`).toEqual({ status: 404, json: { error: { type: 'NOT_FOUND' } } });
      const elsewhere = await h.call(method, `/v0/bases/${OTHER_BASE}/webhooks/${made.id}${suffix}`, {
        body,
      });
      expect(elsewhere.status, `${method} ${suffix} elsewhere`).toBe(404);
    }
    expect(h.service.inspect().webhooks).toHaveLength(1);
  });
});

describe('emulator controls', () => {
  it('inspect() shows webhooks without MAC secrets and counts payloads; reset() clears everything', async () => {
    const h = make();
    const a = await h.create(dataSpec);
    const b = await h.create(spec({ dataTypes: ['tableFields'] }), undefined, OTHER_BASE);
    h.emit([created('rec1', { [F_QTY]: 1 })]);
    h.emit([created('rec2', { [F_QTY]: 2 })]);
    const seen = h.service.inspect();
    expect(seen.payloadCounts).toEqual({ [a.id]: 2, [b.id]: 0 });
    expect(seen.webhooks.map((w) => [w.id, w.baseId, w.ownerTokenKind])).toEqual([
      [a.id, BASE, 'personalAccessToken'],
      [b.id, OTHER_BASE, 'personalAccessToken'],
    ]);
    expect(JSON.stringify(seen)).not.toContain(a.macSecretBase64);
    h.service.reset();
    expect(h.service.inspect()).toEqual({ webhooks: [], payloadCounts: {} });
    expect((await h.call('GET', `/v0/bases/${BASE}/webhooks`)).json).toEqual({ webhooks: [] });
  });
});
