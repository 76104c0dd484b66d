// Tokens, scopes and base permission levels: 401 without a known bearer token, the model-not-found 403 for a
// missing scope, an unknown base or table, or no access at all, INVALID_PERMISSIONS when the user may see the
// base but not do that, whoami's three shapes, and the bare 404 of unknown routes.
import { afterAll, describe, expect, it } from 'vitest';
import { buildSeedData, DEFAULT_SEED } from '../../../../src/services/store/emulator/seed/seed.js';
import { call, ids, makeEmulator, NO_EMAIL_TOKEN, NOW, OAUTH_TOKEN, READ_ONLY_TOKEN } from './helpers.js';

const seeded = buildSeedData({ seed: DEFAULT_SEED, scale: 0, now: new Date(NOW) });
const ada = seeded.users[1]!;
const alan = seeded.users[3]!;
const ADA_TOKEN = 'pat_ada';
const ALAN_OAUTH = 'oauth_alan';

const emulator = makeEmulator({
  tokens: [
    { token: READ_ONLY_TOKEN, scopes: ['data.records:read', 'schema.bases:read'] },
    { token: OAUTH_TOKEN, scopes: ['data.records:read', 'user.email:read'] },
    { token: NO_EMAIL_TOKEN, scopes: ['data.records:read'] },
    {
      token: ADA_TOKEN,
      userId: ada.id,
      scopes: [
        'data.records:read',
        'data.records:write',
        'data.recordComments:read',
        'data.recordComments:write',
        'schema.bases:read',
        'schema.bases:write',
      ],
    },
    { token: ALAN_OAUTH, userId: alan.id, scopes: ['schema.bases:read'] },
  ],
});
afterAll(() => emulator.close());

const features = ids(emulator, 'Product Roadmap', 'Features');
const deals = ids(emulator, 'Sales CRM', 'Deals');
const posts = ids(emulator, 'Content Calendar', 'Posts');
const MODEL_NOT_FOUND = {
  error: {
    type: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
    message:
      'Invalid permissions, or the requested model was not found. Check that both your user and your token have the required permissions, and that the model names and/or ids are correct.',
  },
};

describe('authentication', () => {
  it('refuses a request without a token, with an unknown token and with Basic auth: 401', async () => {
    const expected = { error: { type: 'AUTHENTICATION_REQUIRED', message: 'Authentication required' } };
    for (const res of [
      await call(emulator, 'GET', `/v0/${features.base}/Features`, { token: null }),
      await call(emulator, 'GET', `/v0/${features.base}/Features`, { token: 'pat_nope' }),
      await call(emulator, 'GET', `/v0/${features.base}/Features`, {
        token: null,
        headers: { authorization: 'Basic dXNlcjpwYXNz' },
      }),
      await call(emulator, 'GET', '/v0/meta/whoami', { token: null }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(expected);
    }
  });

  it('answers unknown routes with the bare NOT_FOUND body', async () => {
    for (const path of ['/v0/meta/nothing-here', '/v1/whatever', `/v0/meta/bases/${features.base}/nothing`]) {
      const res = await call(emulator, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: 'NOT_FOUND' });
    }
  });
});

describe('scopes', () => {
  it('lets a read-only token list records but not write them (403)', async () => {
    const list = await call(emulator, 'GET', `/v0/${features.base}/${features.table}?pageSize=1`, {
      token: READ_ONLY_TOKEN,
    });
    expect(list.status).toBe(200);
    const write = await call(emulator, 'POST', `/v0/${features.base}/${features.table}`, {
      token: READ_ONLY_TOKEN,
      body: { fields: { Name: 'Nope' } },
    });
    expect(write.status).toBe(403);
    expect(write.body).toEqual(MODEL_NOT_FOUND);
    const del = await call(emulator, 'DELETE', `/v0/${features.base}/${features.table}/recAAAAAAAAAAAAAA`, {
      token: READ_ONLY_TOKEN,
    });
    expect(del.status).toBe(403);
  });

  it('needs the comments, schema and base scopes for their endpoints', async () => {
    const record = emulator.store.records(features.table)[0]!;
    const cases: [string, string][] = [
      ['GET', `/v0/${features.base}/${features.table}/${record.id}/comments`],
      ['GET', `/v0/meta/bases/${features.base}/views`],
      ['DELETE', `/v0/meta/bases/${features.base}`],
      ['POST', `/v0/meta/bases/${features.base}/tables`],
      ['GET', `/v0/bases/${features.base}/webhooks`],
    ];
    for (const [method, path] of cases) {
      const res = await call(emulator, method, path, {
        token: READ_ONLY_TOKEN,
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.type).toBe('INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND');
    }
    const schema = await call(emulator, 'GET', `/v0/meta/bases/${features.base}/tables`, {
      token: READ_ONLY_TOKEN,
    });
    expect(schema.status).toBe(200);
  });

  it('gives the same 403 for an unknown base or table as for a missing scope', async () => {
    const unknownBase = await call(emulator, 'GET', '/v0/appAAAAAAAAAAAAAA/Features');
    expect(unknownBase.status).toBe(403);
    expect(unknownBase.body).toEqual(MODEL_NOT_FOUND);
    const unknownTable = await call(emulator, 'GET', `/v0/${features.base}/NoSuchTable`);
    expect(unknownTable.status).toBe(403);
    expect(unknownTable.body).toEqual(MODEL_NOT_FOUND);
    const otherBasesTable = await call(emulator, 'GET', `/v0/${features.base}/${deals.table}`);
    expect(otherBasesTable.status).toBe(403);
  });
});

describe('base permission levels', () => {
  it('lists only the bases a user can see, with their level', async () => {
    const res = await call(emulator, 'GET', '/v0/meta/bases', { token: ADA_TOKEN });
    expect(
      res.body.bases.map((b: { name: string; permissionLevel: string }) => [b.name, b.permissionLevel]),
    ).toEqual([
      ['Product Roadmap', 'edit'],
      ['Sales CRM', 'comment'],
      ['Content Calendar', 'read'],
    ]);
    const alanBases = await call(emulator, 'GET', '/v0/meta/bases', { token: ALAN_OAUTH });
    expect(alanBases.body.bases.map((b: { name: string }) => b.name)).toEqual(['Content Calendar']);
  });

  it('refuses writes below edit with INVALID_PERMISSIONS naming the table', async () => {
    const res = await call(emulator, 'POST', `/v0/${deals.base}/${deals.table}`, {
      token: ADA_TOKEN,
      body: { fields: { Name: 'From a commenter' } },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: {
        type: 'INVALID_PERMISSIONS',
        message: `You are not permitted to create records in table Deals (${deals.table})`,
      },
    });
    const ok = await call(emulator, 'POST', `/v0/${features.base}/${features.table}`, {
      token: ADA_TOKEN,
      body: { fields: { Name: 'From an editor' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.fields['Created by'].id).toBe(ada.id);
  });

  it('lets a commenter comment but a reader not', async () => {
    const deal = emulator.store.records(deals.table)[0]!;
    const commented = await call(emulator, 'POST', `/v0/${deals.base}/${deals.table}/${deal.id}/comments`, {
      token: ADA_TOKEN,
      body: { text: 'Commenters may comment' },
    });
    expect(commented.status).toBe(200);
    const post = emulator.store.records(posts.table)[0]!;
    const refused = await call(emulator, 'POST', `/v0/${posts.base}/${posts.table}/${post.id}/comments`, {
      token: ADA_TOKEN,
      body: { text: 'Readers may not' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe('INVALID_PERMISSIONS');
  });

  it('needs the create level to change the schema', async () => {
    const res = await call(
      emulator,
      'POST',
      `/v0/meta/bases/${features.base}/tables/${features.table}/fields`,
      {
        token: ADA_TOKEN,
        body: { name: 'Editors cannot add this', type: 'singleLineText' },
      },
    );
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({
      type: 'INVALID_PERMISSIONS',
      message: 'You are not permitted to perform this operation',
    });
  });

  it('hides a base the user has no access to behind the model-not-found 403', async () => {
    const res = await call(emulator, 'GET', `/v0/${features.base}/${features.table}`, { token: ALAN_OAUTH });
    expect(res.status).toBe(403);
    const schema = await call(emulator, 'GET', `/v0/meta/bases/${features.base}/tables`, {
      token: ALAN_OAUTH,
    });
    expect(schema.body).toEqual(MODEL_NOT_FOUND);
  });
});

describe('whoami', () => {
  it('shows a personal access token its user and email, not its scopes', async () => {
    const res = await call(emulator, 'GET', '/v0/meta/whoami');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: seeded.users[0]!.id, email: seeded.users[0]!.email });
  });

  it('lists scopes for an OAuth token, and the email only with user.email:read', async () => {
    const oauth = await call(emulator, 'GET', '/v0/meta/whoami', { token: OAUTH_TOKEN });
    expect(oauth.body).toEqual({
      id: seeded.users[0]!.id,
      scopes: ['data.records:read', 'user.email:read'],
      email: seeded.users[0]!.email,
    });
    const alanRes = await call(emulator, 'GET', '/v0/meta/whoami', { token: ALAN_OAUTH });
    expect(alanRes.body).toEqual({ id: alan.id, scopes: ['schema.bases:read'] });
    const noEmail = await call(emulator, 'GET', '/v0/meta/whoami', { token: NO_EMAIL_TOKEN });
    expect(noEmail.body).toEqual({ id: seeded.users[0]!.id });
  });
});

describe('faults and size limits', () => {
  it('answers injected 503s and 429s in the upstream envelope', async () => {
    const set = await call(emulator, 'PUT', '/_emulator/faults', {
      body: {
        rules: [
          { kind: 'error', status: 503, path: '/v0/meta/whoami', times: 1 },
          { kind: 'rate_limit', path: '/v0/meta/whoami', times: 1 },
        ],
      },
    });
    expect(set.status).toBe(200);
    const unavailable = await call(emulator, 'GET', '/v0/meta/whoami');
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.error.type).toBe('RETRIABLE_ERROR');
    const limited = await call(emulator, 'GET', '/v0/meta/whoami');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: { type: 'RATE_LIMIT_REACHED', message: 'Rate limit exceeded. Please try again later' },
    });
    expect((await call(emulator, 'GET', '/v0/meta/whoami')).status).toBe(200);
  });

  it('refuses bodies over 5.5 MB with 413 REQUEST_TOO_LARGE', async () => {
    const res = await call(emulator, 'POST', `/v0/${features.base}/${features.table}`, {
      body: { fields: { Description: 'x'.repeat(6 * 1024 * 1024) } },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.type).toBe('REQUEST_TOO_LARGE');
  });
});
