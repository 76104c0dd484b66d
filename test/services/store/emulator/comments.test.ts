// Record comments: newest first with offset pages, replies to a parent on the same record, mentions, edits and
// deletes by the author only, 404s for unknown records and comments, and commentCount on records.
import { afterAll, describe, expect, it } from 'vitest';
import { buildSeedData, DEFAULT_SEED } from '../../../../src/services/store/emulator/seed/seed.js';
import { call, ids, type Loose, makeEmulator, NOW, q } from './helpers.js';

const seeded = buildSeedData({ seed: DEFAULT_SEED, scale: 0, now: new Date(NOW) });
const [owner, ada] = seeded.users;
const ADA_TOKEN = 'pat_ada_comments';
const emulator = makeEmulator({
  tokens: [
    {
      token: ADA_TOKEN,
      userId: ada!.id,
      scopes: ['data.recordComments:read', 'data.recordComments:write', 'data.records:read'],
    },
  ],
});
afterAll(() => emulator.close());

const features = ids(emulator, 'Product Roadmap', 'Features');
const record = emulator.store.records(features.table)[10]!;
const base = `/v0/${features.base}/${features.table}/${record.id}/comments`;

describe('comments', () => {
  it('adds a comment in the upstream shape, with mentions filled in', async () => {
    const res = await call(emulator, 'POST', base, { body: { text: `Hello, @[${ada!.id}]!` } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^com[A-Za-z0-9]{14}$/),
      author: { id: owner!.id, email: owner!.email, name: owner!.name },
      text: `Hello, @[${ada!.id}]!`,
      createdTime: NOW,
      lastUpdatedTime: null,
      mentioned: { [ada!.id]: { type: 'user', id: ada!.id, displayName: ada!.name, email: ada!.email } },
    });
  });

  it('lists newest first, in pages joined by offset', async () => {
    for (let i = 0; i < 5; i++) {
      emulator.clock.advance(1000);
      await call(emulator, 'POST', base, { body: { text: `note ${i}` } });
    }
    const first = await call(emulator, 'GET', `${base}?pageSize=4`);
    expect(first.status).toBe(200);
    expect(first.body.comments.map((c: Loose) => c.text)).toEqual(['note 4', 'note 3', 'note 2', 'note 1']);
    expect(typeof first.body.offset).toBe('string');
    const second = await call(emulator, 'GET', `${base}?pageSize=4&offset=${q(first.body.offset)}`);
    expect(second.body.comments.map((c: Loose) => c.text)).toEqual(['note 0', `Hello, @[${ada!.id}]!`]);
    expect(second.body.offset).toBeNull();
    expect((await call(emulator, 'GET', `${base}?pageSize=101`)).status).toBe(422);
    const garbage = await call(emulator, 'GET', `${base}?offset=zzz`);
    expect(garbage.status).toBe(422);
    expect(garbage.body.error.type).toBe('INVALID_OFFSET_VALUE');
  });

  it('threads replies under a parent of the same record only', async () => {
    const parent = (await call(emulator, 'POST', base, { body: { text: 'parent' } })).body;
    const reply = await call(emulator, 'POST', base, { body: { text: 'reply', parentCommentId: parent.id } });
    expect(reply.body.parentCommentId).toBe(parent.id);
    const other = emulator.store.records(features.table)[11]!;
    const wrong = await call(
      emulator,
      'POST',
      `/v0/${features.base}/${features.table}/${other.id}/comments`,
      {
        body: { text: 'misplaced', parentCommentId: parent.id },
      },
    );
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
  });

  it('lets only the author edit or delete a comment', async () => {
    const mine = (await call(emulator, 'POST', base, { body: { text: 'owner wrote this' } })).body;
    const foreign = await call(emulator, 'PATCH', `${base}/${mine.id}`, {
      token: ADA_TOKEN,
      body: { text: 'hijack' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({
      error: { type: 'INVALID_PERMISSIONS', message: 'You are not permitted to perform this operation' },
    });
    const foreignDelete = await call(emulator, 'DELETE', `${base}/${mine.id}`, { token: ADA_TOKEN });
    expect(foreignDelete.status).toBe(403);
    emulator.clock.advance(60_000);
    const edited = await call(emulator, 'PATCH', `${base}/${mine.id}`, {
      body: { text: 'owner edited this' },
    });
    expect(edited.body).toMatchObject({
      text: 'owner edited this',
      lastUpdatedTime: emulator.clock.now().toISOString(),
    });
    const deleted = await call(emulator, 'DELETE', `${base}/${mine.id}`);
    expect(deleted.body).toEqual({ id: mine.id, deleted: true });
    const gone = await call(emulator, 'PATCH', `${base}/${mine.id}`, { body: { text: 'again' } });
    expect(gone.status).toBe(404);
    expect(gone.body.error.type).toBe('NOT_FOUND');
  });

  it('answers 404 for an unknown record and 422 for an empty text', async () => {
    const res = await call(
      emulator,
      'GET',
      `/v0/${features.base}/${features.table}/recAAAAAAAAAAAAAA/comments`,
    );
    expect(res.status).toBe(404);
    const empty = await call(emulator, 'POST', base, { body: { text: '' } });
    expect(empty.status).toBe(422);
  });

  it('counts comments in recordMetadata commentCount', async () => {
    const listed = await call(emulator, 'GET', `${base}?pageSize=100`);
    const res = await call(
      emulator,
      'GET',
      `/v0/${features.base}/${features.table}?recordMetadata[]=commentCount&filterByFormula=${q(`RECORD_ID()='${record.id}'`)}`,
    );
    expect(res.body.records[0].commentCount).toBe(listed.body.comments.length);
  });
});
