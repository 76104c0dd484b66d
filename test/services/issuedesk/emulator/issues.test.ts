// Issues: the GET /issues window rules and cursor, ID-or-number lookup, PATCH semantics and notes.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { IssueDeskEmulator } from '../../../../src/services/issuedesk/emulator/app.js';
import { call, DAY, type Loose, makeEmulator, NOW, NOW_MS, windowQuery } from './helpers.js';

describe('GET /issues window rules', () => {
  const emulator = makeEmulator();
  afterAll(() => emulator.close());

  it.each([
    ['/issues', /start_time and end_time are required/],
    [`/issues?start_time=${NOW}`, /^end_time is required/],
    [`/issues?end_time=${NOW}`, /^start_time is required/],
    [
      '/issues?start_time=yesterday&end_time=2025-06-15T00:00:00Z',
      /start_time must be an RFC 3339 timestamp/,
    ],
    ['/issues?start_time=2025-06-01T00:00:00Z&end_time=2025-06-31T00:00:00Z', /end_time must be an RFC 3339/],
    ['/issues?start_time=2025-06-01&end_time=2025-06-10T00:00:00Z', /start_time must be an RFC 3339/],
    ['/issues?start_time=2025-06-01T00:00:00+02:00&end_time=2025-06-10T00:00:00Z', /%2B/],
    [
      '/issues?start_time=2025-06-10T00:00:00Z&end_time=2025-06-01T00:00:00Z',
      /start_time must be before end_time/,
    ],
    [
      '/issues?start_time=2025-06-10T00:00:00Z&end_time=2025-06-10T00:00:00Z',
      /start_time must be before end_time/,
    ],
    ['/issues?start_time=2025-05-01T00:00:00Z&end_time=2025-05-31T00:00:01Z', /30 days/],
    ['/issues?start_time=2025-05-01T00:00:00Z&end_time=2025-05-02T00:00:00Z&limit=0', /limit/],
    ['/issues?start_time=2025-05-01T00:00:00Z&end_time=2025-05-02T00:00:00Z&limit=1000', /limit/],
    ['/issues?start_time=2025-05-01T00:00:00Z&end_time=2025-05-02T00:00:00Z&cursor=abc', /Invalid cursor/],
  ])('%s -> 400', async (path, message) => {
    const res = await call(emulator, 'GET', path);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatch(message);
  });

  it('accepts exactly 30 days, offsets and fractional seconds', async () => {
    const ok = await call(
      emulator,
      'GET',
      '/issues?start_time=2025-05-01T00:00:00Z&end_time=2025-05-31T00:00:00Z',
    );
    expect(ok.status).toBe(200);
    const offset = await call(
      emulator,
      'GET',
      '/issues?start_time=2025-05-01T02:00:00.5%2B02:00&end_time=2025-05-30T00:00:00-01:00',
    );
    expect(offset.status).toBe(200);
  });

  it('returns only issues created inside the window, newest first', async () => {
    const start = NOW_MS - 10 * DAY;
    const end = NOW_MS - 3 * DAY;
    const res = await call(emulator, 'GET', windowQuery(start, end));
    const times = res.body.data.map((i: { created_at: string }) => Date.parse(i.created_at));
    expect(times.length).toBeGreaterThan(0);
    for (const t of times) {
      expect(t).toBeGreaterThanOrEqual(start);
      expect(t).toBeLessThanOrEqual(end);
    }
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const numbers = res.body.data.map((i: { number: number }) => i.number);
    expect([...numbers].sort((a, b) => b - a)).toEqual(numbers);
  });

  it('includes issues created exactly at either bound', async () => {
    const all = (await call(emulator, 'GET', windowQuery(NOW_MS - 20 * DAY, NOW_MS))).body.data;
    const target = all[Math.floor(all.length / 2)];
    const at = Date.parse(target.created_at);
    const asStart = await call(emulator, 'GET', windowQuery(at, at + 1000));
    const asEnd = await call(emulator, 'GET', windowQuery(at - 1000, at));
    expect(asStart.body.data.map((i: { id: string }) => i.id)).toContain(target.id);
    expect(asEnd.body.data.map((i: { id: string }) => i.id)).toContain(target.id);
  });
});

describe('GET /issues cursor paging', () => {
  it('walks every issue of a window exactly once, even with identical timestamps', async () => {
    const emulator = makeEmulator({ scale: 3000 });
    try {
      const start = NOW_MS - 30 * DAY;
      const end = NOW_MS;
      const expected = emulator.database
        .issuesByNumber(0, 10_000)
        .filter((i) => i.createdAt >= start && i.createdAt <= end)
        .map((i) => i.id);
      // Seeded times have one-second resolution, so some issues share created_at; the cursor must break ties.
      const distinctTimes = new Set(emulator.database.issuesByNumber(0, 10_000).map((i) => i.createdAt));
      expect(distinctTimes.size).toBeLessThanOrEqual(3000);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: { status: number; body: Loose } = await call(
          emulator,
          'GET',
          windowQuery(start, end, `&limit=37${cursor ? `&cursor=${cursor}` : ''}`),
        );
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(37);
        seen.push(...res.body.data.map((i: { id: string }) => i.id));
        cursor = res.body.pagination.cursor;
        expect(res.body.pagination.has_next_page).toBe(cursor !== null);
        pages++;
      } while (cursor);
      expect(seen.length).toBe(expected.length);
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort()).toEqual([...expected].sort());
      expect(pages).toBe(Math.ceil(expected.length / 37));
    } finally {
      emulator.close();
    }
  });

  it('keeps a cursor valid after new data arrives (stable keyset)', async () => {
    const emulator = makeEmulator();
    try {
      const q = (extra: string) => windowQuery(NOW_MS - 30 * DAY, NOW_MS, extra);
      const first = await call(emulator, 'GET', q('&limit=10'));
      await call(emulator, 'PATCH', `/issues/${first.body.data[0].id}`, { body: { title: 'Touched' } });
      const second = await call(emulator, 'GET', q(`&limit=10&cursor=${first.body.pagination.cursor}`));
      const firstIds = new Set(first.body.data.map((i: { id: string }) => i.id));
      expect(second.body.data).toHaveLength(10);
      for (const issue of second.body.data) expect(firstIds.has(issue.id)).toBe(false);
    } finally {
      emulator.close();
    }
  });
});

describe('GET /issues/:id', () => {
  const emulator = makeEmulator();
  afterAll(() => emulator.close());

  it('finds an issue by its ID and by its number, identically', async () => {
    const byNumber = await call(emulator, 'GET', '/issues/17');
    expect(byNumber.status).toBe(200);
    expect(byNumber.body.data.number).toBe(17);
    const byId = await call(emulator, 'GET', `/issues/${byNumber.body.data.id}`);
    expect(byId.body.data).toEqual(byNumber.body.data);
  });

  it.each(['0', '-1', '017', '1.0', '1e1', ' 1'])('does not read %j as an issue number', async (ref) => {
    const res = await call(emulator, 'GET', `/issues/${encodeURIComponent(ref)}`);
    expect(res.status).toBe(404);
  });
});

describe('PATCH /issues/:id', () => {
  let emulator: IssueDeskEmulator;
  let users: Loose[];
  let teams: Loose[];
  beforeEach(async () => {
    emulator?.close();
    emulator = makeEmulator();
    users = (await call(emulator, 'GET', '/users')).body.data;
    teams = (await call(emulator, 'GET', '/teams')).body.data;
  });
  afterAll(() => emulator.close());

  const get = async (ref: string) => (await call(emulator, 'GET', `/issues/${ref}`)).body.data;
  const patch = (ref: string, body: unknown) => call(emulator, 'PATCH', `/issues/${ref}`, { body });

  it('changes only the fields sent and bumps updated_at', async () => {
    const before = await get('20');
    const res = await patch('20', { state: 'on_hold' });
    expect(res.status).toBe(200);
    const { state, updated_at, ...rest } = res.body.data;
    const { state: _s, updated_at: oldUpdated, ...restBefore } = before;
    expect(state).toBe('on_hold');
    expect(updated_at).toBe('2025-06-15T12:00:00Z');
    expect(updated_at).not.toBe(oldUpdated);
    expect(rest).toEqual(restBefore);
    expect(await get('20')).toEqual(res.body.data);
  });

  it('treats null as not sent and ignores unknown fields', async () => {
    const before = await get('21');
    const res = await patch(before.id, {
      title: null,
      assignee_id: null,
      tags: null,
      colour: 'red',
      state: null,
    });
    expect(res.status).toBe(200);
    // Nothing was really sent, so not even updated_at moves.
    expect(res.body.data).toEqual(before);
    expect(res.body.data.colour).toBeUndefined();
    const withOne = await patch(before.id, {
      colour: 'blue',
      customer_portal_visible: !before.customer_portal_visible,
    });
    expect(withOne.body.data.updated_at).toBe('2025-06-15T12:00:00Z');
  });

  it('replaces the whole tag set (deduplicated)', async () => {
    const res = await patch('22', { tags: ['vip', 'sso', 'vip'] });
    expect(res.body.data.tags).toEqual(['vip', 'sso']);
    const cleared = await patch('22', { tags: [] });
    expect(cleared.body.data.tags).toEqual([]);
  });

  it('assigns and unassigns with "" for assignee and team', async () => {
    const user = users[3];
    const team = teams[1];
    const set = await patch('23', { assignee_id: user.id, team_id: team.id });
    expect(set.body.data.assignee).toEqual({ id: user.id, email: user.email });
    expect(set.body.data.team).toEqual({ id: team.id });
    const cleared = await patch('23', { assignee_id: '', team_id: '' });
    expect(cleared.body.data.assignee).toBeUndefined();
    expect(cleared.body.data.team).toBeUndefined();
    expect(cleared.body.data.state).toBe(set.body.data.state);
  });

  it('accepts custom status slugs and sets/clears resolution when closing/reopening', async () => {
    expect((await patch('24', { state: 'investigating' })).body.data.state).toBe('investigating');
    const closed = await patch('24', { state: 'closed' });
    expect(closed.body.data.resolution_time).toBe('2025-06-15T12:00:00Z');
    const reopened = await patch('24', { state: 'waiting_on_you' });
    expect(reopened.body.data.resolution_time).toBeUndefined();
  });

  it('updates title, portal visibility, requester, and custom fields by slug', async () => {
    const contact = (await call(emulator, 'GET', '/contacts?limit=1')).body.data[0];
    const res = await patch('25', {
      title: 'New title',
      customer_portal_visible: true,
      requestor_id: contact.id,
      custom_fields: [
        { slug: 'priority', value: 'urgent' },
        { slug: 'area', values: ['api', 'sso'] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      title: 'New title',
      customer_portal_visible: true,
      requester: { id: contact.id, email: contact.email },
      custom_fields: {
        priority: { slug: 'priority', value: 'urgent' },
        area: { slug: 'area', values: ['api', 'sso'] },
      },
    });
    const unset = await patch('25', { custom_fields: [{ slug: 'area' }] });
    expect(unset.body.data.custom_fields.area).toBeUndefined();
    expect(unset.body.data.custom_fields.priority.value).toBe('urgent');
  });

  it('upgrades a conversation to a ticket but never downgrades', async () => {
    const all = emulator.database.issuesByNumber(0, 1000);
    const conversation = all.find((i) => i.type === 'conversation')!;
    const ticket = all.find((i) => i.type === 'ticket')!;
    expect((await patch(String(conversation.number), { type: 'ticket' })).body.data.type).toBe('ticket');
    const down = await patch(String(ticket.number), { type: 'conversation' });
    expect(down.status).toBe(400);
    expect(down.body.errors[0]).toMatch(/ticket back to conversation/);
  });

  it.each([
    [
      { state: 'done' },
      /Invalid state "done". Valid states: new, waiting_on_you, .*investigating, pending_release/,
    ],
    [{ assignee_id: 'no-such-user' }, /User not found/],
    [{ team_id: 'no-such-team' }, /Team not found/],
    [{ requester_id: 'nobody' }, /Contact not found/],
    [{ account_id: 'nowhere' }, /Account not found/],
    [{ tags: 'sso' }, /^tags: /],
    [{ tags: [1, 2] }, /^tags\[0\]: /],
    [{ title: '' }, /^title: must not be empty/],
    [{ title: 42 }, /^title: /],
    [{ customer_portal_visible: 'yes' }, /customer_portal_visible/],
    [{ type: 'incident' }, /^type: /],
    [{ custom_fields: [{ value: 'x' }] }, /custom_fields\[0\]\.slug/],
  ])('rejects %j with 400 and changes nothing', async (body, message) => {
    const before = await get('26');
    const res = await patch('26', body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatch(message);
    expect(await get('26')).toEqual(before);
  });

  it('is a 404 for unknown issues, before looking at the body', async () => {
    const res = await patch('99999', { state: 'nope' });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual(['Issue not found']);
  });
});

describe('POST /issues/:id/note', () => {
  let emulator: IssueDeskEmulator;
  beforeEach(() => {
    emulator?.close();
    emulator = makeEmulator();
  });
  afterAll(() => emulator.close());

  it('stores an internal note, lists it as private, and shows it in inspection', async () => {
    const issue = (await call(emulator, 'GET', '/issues/30')).body.data;
    const res = await call(emulator, 'POST', '/issues/30/note', {
      body: { body_html: '<p>Checked the logs</p>' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: expect.any(String), issue_id: issue.id });
    const messages = (await call(emulator, 'GET', `/issues/${issue.id}/messages`)).body.data;
    const note = messages.find((m: { id: string }) => m.id === res.body.data.id);
    expect(note).toMatchObject({
      message_html: '<p>Checked the logs</p>',
      is_private: true,
      thread_id: expect.any(String),
      timestamp: '2025-06-15T12:00:00Z',
      author: { name: 'Sandbox API token' },
    });
    expect(messages.at(-1).id).toBe(res.body.data.id);
    const inspected = (await call(emulator, 'GET', '/_emulator/state/issues/30', { token: null })).body;
    expect(inspected.messages.map((m: { body_html: string }) => m.body_html)).toContain(
      '<p>Checked the logs</p>',
    );
    expect((await call(emulator, 'GET', '/issues/30')).body.data.updated_at).toBe('2025-06-15T12:00:00Z');
  });

  it('posts as a given user, keeps notes in one default thread, and can reply to a note', async () => {
    const user = (await call(emulator, 'GET', '/users')).body.data[1];
    const first = await call(emulator, 'POST', '/issues/31/note', {
      body: {
        body_html: 'one',
        user_id: user.id,
        thread_name: 'Escalation',
        attachment_urls: ['https://x.example/a.png'],
      },
    });
    const second = await call(emulator, 'POST', '/issues/31/note', { body: { body_html: 'two' } });
    const messages = (await call(emulator, 'GET', '/issues/31/messages')).body.data;
    const one = messages.find((m: { id: string }) => m.id === first.body.data.id);
    const two = messages.find((m: { id: string }) => m.id === second.body.data.id);
    expect(one.author).toEqual({ name: user.name, user: { id: user.id, email: user.email } });
    expect(one.file_urls).toEqual(['https://x.example/a.png']);
    expect(two.thread_id).toBe(one.thread_id);
    const reply = await call(emulator, 'POST', '/issues/31/note', {
      body: { body_html: 'three', message_id: first.body.data.id },
    });
    expect(reply.status).toBe(200);
    const byThread = await call(emulator, 'POST', '/issues/31/note', {
      body: { body_html: 'four', thread_id: one.thread_id },
    });
    expect(byThread.status).toBe(200);
  });

  it.each([
    [{}, /body_html: is required/],
    [{ body_html: '   ' }, /body_html: must not be empty/],
    [{ body_html: 5 }, /body_html: must be a string/],
    [{ body_html: 'x', user_id: 'ghost' }, /User not found/],
    [{ body_html: 'x', thread_id: 'nope' }, /Thread not found/],
    [{ body_html: 'x', message_id: 'nope' }, /Message not found/],
    [{ body_html: 'x', attachment_urls: 'a' }, /attachment_urls/],
  ])('rejects %j with 400 and stores nothing', async (body, message) => {
    const before = emulator.database.counts().messages;
    const res = await call(emulator, 'POST', '/issues/32/note', { body });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatch(message);
    expect(emulator.database.counts().messages).toBe(before);
  });

  it('refuses to reply to a customer-visible message', async () => {
    const messages = (await call(emulator, 'GET', '/issues/33/messages')).body.data;
    const res = await call(emulator, 'POST', '/issues/33/note', {
      body: { body_html: 'x', message_id: messages[0].id },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatch(/not an internal note/);
  });

  it('is a 404 for an unknown issue', async () => {
    const res = await call(emulator, 'POST', '/issues/99999/note', { body: { body_html: 'x' } });
    expect(res.status).toBe(404);
  });

  it('pages long conversations with a cursor bound to the issue', async () => {
    for (let i = 0; i < 5; i++)
      await call(emulator, 'POST', '/issues/34/note', { body: { body_html: `n${i}` } });
    const total = emulator.database.messages(0, 1000, emulator.database.findIssue('34')!.id).total;
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: Loose } = await call(
        emulator,
        'GET',
        `/issues/34/messages?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      ids.push(...res.body.data.map((m: { id: string }) => m.id));
      cursor = res.body.pagination.cursor;
    } while (cursor);
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    const first = await call(emulator, 'GET', '/issues/34/messages?limit=1');
    const elsewhere = await call(
      emulator,
      'GET',
      `/issues/35/messages?cursor=${first.body.pagination.cursor}`,
    );
    expect(elsewhere.status).toBe(400);
  });
});
