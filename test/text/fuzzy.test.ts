import { describe, expect, it } from 'vitest';
import { ACCEPT_THRESHOLD } from '../../src/services/issuedesk/matching.js';
import { nameSimilarity, rankByName } from '../../src/text/fuzzy.js';

describe('nameSimilarity', () => {
  it('is 1 for normalised equality, and only then', () => {
    expect(nameSimilarity('John Smith', 'John Smith')).toBe(1);
    expect(nameSimilarity('  john   SMITH ', 'John Smith')).toBe(1);
    expect(nameSimilarity('José Núñez', 'Jose Nunez')).toBe(1);
    expect(nameSimilarity("O'Brien", 'OBrien')).toBe(1);
    expect(nameSimilarity('jsmith@acme.com', 'JSmith@Acme.com')).toBe(1);
    for (const near of ['Smith John', 'John Smit', 'Jon Smith', 'johnsmith', 'jsmith']) {
      expect(nameSimilarity(near, 'John Smith'), near).toBeLessThan(1);
    }
    expect(nameSimilarity('jsmith', 'jsmith@acme.com')).toBeLessThan(1);
  });

  it('scores a one-typo full name at least 0.85', () => {
    for (const typo of ['Jonh Smith', 'Jhon Smith', 'John Smiht', 'Jon Smith', 'John Smyth', 'Jahn Smith']) {
      expect(nameSimilarity(typo, 'John Smith'), typo).toBeGreaterThanOrEqual(0.85);
    }
  });

  it('scores a whole-token partial name well, below exact, higher when it covers more', () => {
    const smith = nameSimilarity('smith', 'John Smith');
    const john = nameSimilarity('john', 'John Smith');
    for (const score of [smith, john]) {
      expect(score).toBeGreaterThanOrEqual(0.7);
      expect(score).toBeLessThanOrEqual(0.9);
    }
    expect(smith).toBeGreaterThan(john); // "smith" is the longer part of the name
    expect(nameSimilarity('smith', 'Will Smith')).toBeGreaterThan(
      nameSimilarity('smith', 'Wilhelmina Smith'),
    );
  });

  it('scores a token prefix below the whole token, and longer prefixes higher', () => {
    const jo = nameSimilarity('jo', 'John Smith');
    const smi = nameSimilarity('smi', 'John Smith');
    expect(jo).toBeGreaterThanOrEqual(0.7);
    expect(smi).toBeGreaterThan(jo);
    expect(smi).toBeLessThan(nameSimilarity('smith', 'John Smith'));
    expect(nameSimilarity('J Smith', 'John Smith')).toBeGreaterThan(0.8);
  });

  it('ignores token order', () => {
    expect(nameSimilarity('Smith John', 'John Smith')).toBeGreaterThan(0.95);
    expect(nameSimilarity('Smith Jonh', 'John Smith')).toBeGreaterThanOrEqual(0.85);
    expect(nameSimilarity('Núñez José', 'José Núñez')).toBeGreaterThan(0.95);
  });

  it('is diacritic-insensitive', () => {
    expect(nameSimilarity('zoe', 'Zoë')).toBe(1);
    expect(nameSimilarity('Francois', 'François Dupont')).toBe(nameSimilarity('François', 'François Dupont'));
  });

  it("counts an email's local part as a name", () => {
    expect(nameSimilarity('jsmith', 'jsmith@acme.com')).toBeGreaterThanOrEqual(0.9);
    expect(nameSimilarity('john smith', 'john.smith@acme.com')).toBeGreaterThanOrEqual(0.9);
    expect(nameSimilarity('smith', 'john.smith@acme.com')).toBeGreaterThanOrEqual(0.7);
    // The domain alone is not a name.
    expect(nameSimilarity('acme', 'jsmith@acme.com')).toBeLessThan(0.4);
  });

  it('scores unrelated strings below 0.4', () => {
    const pairs: [string, string][] = [
      ['alice', 'John Smith'],
      ['Bob Jones', 'John Smith'],
      ['Alice Johnson', 'Bob Smith'],
      ['support', 'Billing Team'],
      ['zzz', 'John Smith'],
      ['xy', 'Xavier Young'],
      ['kate', 'jsmith@acme.com'],
    ];
    for (const [a, b] of pairs) expect(nameSimilarity(a, b), `${a} / ${b}`).toBeLessThan(0.4);
  });

  it('stays within [0, 1] and is 0 when either side has no letters or digits', () => {
    expect(nameSimilarity('', 'John')).toBe(0);
    expect(nameSimilarity('John', '  ')).toBe(0);
    expect(nameSimilarity('!!!', '???')).toBe(0);
    for (const [a, b] of [
      ['a', 'b'],
      ['John Smith Jr', 'John Smith'],
      ['x'.repeat(500), 'John'],
      ['日本', '日本語'],
    ]) {
      const score = nameSimilarity(a as string, b as string);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });

  it('puts a typo above the IssueDesk auto-accept threshold and a bare prefix below it', () => {
    expect(nameSimilarity('Jonh Smith', 'John Smith')).toBeGreaterThanOrEqual(ACCEPT_THRESHOLD);
    expect(nameSimilarity('jo', 'John Smith')).toBeLessThan(ACCEPT_THRESHOLD);
  });
});

describe('rankByName', () => {
  interface User {
    id: number;
    name: string;
    email: string;
  }
  const users: User[] = [
    { id: 1, name: 'John Smith', email: 'jsmith@acme.com' },
    { id: 2, name: 'Jane Smith', email: 'jane@acme.com' },
    { id: 3, name: 'Johnny Walker', email: 'jw@acme.com' },
    { id: 4, name: 'Alice Jones', email: 'alice@acme.com' },
    { id: 5, name: 'Bob Stone', email: 'bob@other.org' },
  ];
  const keys = (u: User) => [u.name, u.email];

  it('returns items best first, with the key that matched best', () => {
    const ranked = rankByName('Jonh Smith', users, keys);
    expect(ranked[0]?.item.id).toBe(1);
    expect(ranked[0]?.matchedOn).toBe('John Smith');
    expect(ranked.map((c) => c.item.id)).not.toContain(5);
    for (let i = 1; i < ranked.length; i++) {
      expect(ranked[i - 1]!.score).toBeGreaterThanOrEqual(ranked[i]!.score);
    }
  });

  it('matches on the email when that is the better key', () => {
    const ranked = rankByName('jsmith', users, keys);
    expect(ranked[0]?.item.id).toBe(1);
    expect(ranked[0]?.matchedOn).toBe('jsmith@acme.com');
  });

  it('orders equal scores by the matched key', () => {
    const twins = [{ name: 'Smith B' }, { name: 'Smith A' }, { name: 'Smith C' }];
    const ranked = rankByName('smith', twins, (t) => [t.name]);
    expect(ranked.map((c) => c.matchedOn)).toEqual(['Smith A', 'Smith B', 'Smith C']);
    expect(ranked[0]?.score).toBe(ranked[2]?.score);
  });

  it('applies minScore (default 0.3) and limit (default 10)', () => {
    expect(rankByName('zzzz', users, keys)).toEqual([]);
    // Both Smiths tie; "Jane Smith" < "John Smith".
    expect(rankByName('smith', users, keys, { minScore: 0.75 }).map((c) => c.item.id)).toEqual([2, 1]);
    expect(rankByName('smith', users, keys, { limit: 1 })).toHaveLength(1);
    const many = Array.from({ length: 25 }, (_, i) => `Sam ${String(i).padStart(2, '0')}`);
    expect(rankByName('sam', many, (n) => [n])).toHaveLength(10);
    expect(rankByName('sam', many, (n) => [n], { minScore: 0 }).length).toBe(10);
  });

  it('gives an exact match 1 and ranks it first', () => {
    const ranked = rankByName('jane smith', users, keys);
    expect(ranked[0]).toMatchObject({ score: 1, matchedOn: 'Jane Smith' });
    expect(ranked[1]?.score).toBeLessThan(1);
  });

  it('skips empty keys', () => {
    const ranked = rankByName('bob', [{ name: '', email: 'bob@x.io' }], (u) => [u.name, u.email]);
    expect(ranked).toHaveLength(1);
    expect(ranked[0]?.matchedOn).toBe('bob@x.io');
  });
});
