// Seed data: counts, spread over time, vocabulary, determinism and the 10,000-issue timing.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../../src/emulation/sqlite.js';
import { IssueDeskDatabase } from '../../../../src/services/issuedesk/emulator/database.js';
import { BUILT_IN_STATES } from '../../../../src/services/issuedesk/emulator/records.js';
import { buildSeedData, CUSTOM_STATUSES } from '../../../../src/services/issuedesk/emulator/seed/seed.js';
import { ISSUE_TAGS, USER_NAMES } from '../../../../src/services/issuedesk/emulator/seed/seedVocabulary.js';
import { DAY, NOW, NOW_MS } from './helpers.js';

const now = new Date(NOW);

describe('buildSeedData', () => {
  const data = buildSeedData({ now });

  it('has the documented counts', () => {
    expect(data.issues).toHaveLength(240);
    expect(data.contacts).toHaveLength(40);
    expect(data.users).toHaveLength(12);
    expect(data.teams.map((t) => t.name)).toEqual(['Support', 'Billing', 'Engineering', 'Success']);
    for (const team of data.teams) {
      expect(team.memberIds.length).toBeGreaterThanOrEqual(2);
      expect(team.memberIds.length).toBeLessThanOrEqual(5);
    }
    expect(data.users.map((u) => u.name)).toEqual([...USER_NAMES]);
    expect(data.org.name).toBe('Lumen Labs');
  });

  it('numbers issues 1..N in created_at order within the last 60 days', () => {
    data.issues.forEach((issue, i) => {
      expect(issue.number).toBe(i + 1);
      expect(issue.createdAt).toBeGreaterThanOrEqual(NOW_MS - 60 * DAY);
      expect(issue.createdAt).toBeLessThan(NOW_MS);
      if (i > 0) expect(issue.createdAt).toBeGreaterThanOrEqual(data.issues[i - 1]!.createdAt);
      expect(issue.updatedAt).toBeGreaterThanOrEqual(issue.createdAt);
      expect(issue.updatedAt).toBeLessThanOrEqual(NOW_MS);
    });
    // Spread, not bunched: both ends of the 60 days are populated.
    expect(data.issues.filter((i) => i.createdAt < NOW_MS - 50 * DAY).length).toBeGreaterThan(10);
    expect(data.issues.filter((i) => i.createdAt > NOW_MS - 7 * DAY).length).toBeGreaterThan(10);
  });

  it('uses every built-in and custom state, a spread of tags, and leaves some issues unassigned', () => {
    const states = new Set(data.issues.map((i) => i.state));
    for (const s of [...BUILT_IN_STATES, ...CUSTOM_STATUSES.map((c) => c.slug)]) expect(states).toContain(s);
    const tags = new Set(data.issues.flatMap((i) => i.tags));
    expect(tags.size).toBeGreaterThanOrEqual(10);
    for (const tag of tags) expect(ISSUE_TAGS).toContain(tag);
    expect(data.issues.some((i) => i.assigneeId === null)).toBe(true);
    expect(data.issues.some((i) => i.teamId === null)).toBe(true);
    expect(new Set(data.issues.map((i) => i.requesterId)).size).toBeGreaterThan(30);
    expect(new Set(data.issues.map((i) => i.source)).size).toBeGreaterThan(4);
  });

  it('writes several differently worded issues about the same problems', () => {
    const about = (re: RegExp) => data.issues.filter((i) => re.test(i.title));
    for (const re of [/SSO|single sign-on|SAML/i, /CSV/i, /webhook/i, /invoice|billing|charged/i]) {
      const group = about(re);
      expect(group.length).toBeGreaterThanOrEqual(5);
      expect(new Set(group.map((i) => i.title)).size).toBeGreaterThanOrEqual(3);
    }
    expect(data.issues[0]!.bodyHtml).toMatch(/<p>.*<\/p>/s);
    expect(data.issues.some((i) => /<ol>/.test(i.bodyHtml))).toBe(true);
  });

  it('gives every issue an opening message and no message from the future', () => {
    const firstByIssue = new Map<string, number>();
    for (const m of data.messages) {
      expect(m.timestamp).toBeLessThanOrEqual(NOW_MS);
      if (!firstByIssue.has(m.issueId)) firstByIssue.set(m.issueId, m.timestamp);
    }
    expect(firstByIssue.size).toBe(240);
    expect(data.messages.some((m) => m.isPrivate && m.threadId !== null)).toBe(true);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    const again = buildSeedData({ now });
    expect(again).toEqual(data);
    const other = buildSeedData({ now, seed: 2 });
    expect(other.issues.map((i) => i.id)).not.toEqual(data.issues.map((i) => i.id));
    expect(other.issues.map((i) => i.title)).not.toEqual(data.issues.map((i) => i.title));
    expect(other.users.map((u) => u.name)).toEqual(data.users.map((u) => u.name));
  });

  it('follows `scale`, including zero', () => {
    expect(buildSeedData({ now, scale: 3 }).issues).toHaveLength(3);
    expect(buildSeedData({ now, scale: 0 }).issues).toHaveLength(0);
    expect(() => buildSeedData({ now, scale: -1 })).toThrow(RangeError);
  });

  it('seeds 10,000 issues into SQLite (timing is printed, not asserted)', () => {
    const started = performance.now();
    const big = buildSeedData({ now, scale: 10_000 });
    const built = performance.now();
    const db = openDatabase(':memory:');
    const store = new IssueDeskDatabase(db);
    store.replaceAll(big);
    const done = performance.now();
    process.stderr.write(
      `issuedesk seed scale=10000: build ${Math.round(built - started)} ms, insert ${Math.round(done - built)} ms, ` +
        `total ${Math.round(done - started)} ms (${big.messages.length} messages)\n`,
    );
    expect(store.counts()).toMatchObject({ issues: 10_000, contacts: 40, users: 12, teams: 4 });
    expect(store.findIssue('10000')?.number).toBe(10_000);
    db.close();
  });
});
