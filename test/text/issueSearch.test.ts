import { describe, expect, it } from 'vitest';
import {
  parseQuery,
  type QueryNode,
  QuerySyntaxError,
  rankDocuments,
  type SearchDoc,
  stem,
} from '../../src/text/issueSearch.js';

const corpus: SearchDoc[] = [
  {
    id: 'ISS-1',
    title: 'App crashes on login',
    body: 'The Android app crashed right after entering the password.',
  },
  {
    id: 'ISS-2',
    title: 'Refund for duplicate charge',
    body: 'Customer was charged twice and wants a refund.',
  },
  { id: 'ISS-3', title: 'Chargeback received', body: 'The bank opened a chargeback for invoice 1234.' },
  { id: 'ISS-4', title: 'Login page is slow', body: 'Login takes 30 seconds on iOS Safari.' },
  { id: 'ISS-5', title: 'Server out of memory', body: 'The export job ran out of memory on large accounts.' },
  { id: 'ISS-6', title: 'Memory graph', body: 'Memory usage is out of range on the graph after export.' },
  { id: 'ISS-7', title: 'SSO login broken', body: 'Users cannot log in with SSO since the update.' },
  { id: 'ISS-8', title: 'Café menu typo', body: "The naïve spelling doesn't match; we don't sync accents." },
];

const ids = (query: string, docs: readonly SearchDoc[] = corpus, limit?: number): string[] =>
  rankDocuments(docs, query, limit === undefined ? {} : { limit }).map((hit) => hit.id);

const sorted = (values: string[]): string[] => [...values].sort();

describe('rankDocuments: boolean semantics', () => {
  it('ANDs words by default, excluding docs missing a term', () => {
    expect(ids('login slow')).toEqual(['ISS-4']);
    expect(ids('login AND slow')).toEqual(['ISS-4']);
  });

  it('OR gives alternatives', () => {
    expect(sorted(ids('refund OR chargeback'))).toEqual(['ISS-2', 'ISS-3']);
  });

  it('NOT and -term exclude, and are equivalent', () => {
    expect(sorted(ids('login'))).toEqual(['ISS-1', 'ISS-4', 'ISS-7']);
    expect(sorted(ids('login -ios'))).toEqual(['ISS-1', 'ISS-7']);
    expect(ids('login NOT ios')).toEqual(ids('login -ios'));
    expect(sorted(ids('login NOT (ios OR android)'))).toEqual(['ISS-7']);
  });

  it('parentheses group, and NOT > AND > OR precedence applies without them', () => {
    // Grouped: both alternatives lose the duplicate-charge issue.
    expect(ids('(refund OR chargeback) -duplicate')).toEqual(['ISS-3']);
    // Ungrouped: "refund OR (chargeback -duplicate)", so ISS-2 still matches through "refund".
    expect(sorted(ids('refund OR chargeback -duplicate'))).toEqual(['ISS-2', 'ISS-3']);
  });

  it('a quoted phrase needs its words adjacent and in order', () => {
    expect(sorted(ids('memory out'))).toEqual(['ISS-5', 'ISS-6']);
    expect(ids('"out of memory"')).toEqual(['ISS-5']);
    expect(ids('"memory out of"')).toEqual([]);
  });

  it('an excluded phrase only excludes docs that contain the phrase itself', () => {
    // ISS-6 has "out" and "memory" but not next to each other; treating the phrase as AND would drop it.
    expect(ids('memory -"out of memory"')).toEqual(['ISS-6']);
  });

  it('lowercase and/or/not are ordinary (ignored) words, not operators', () => {
    expect(ids('login or slow')).toEqual(['ISS-4']);
    expect(sorted(ids('login OR slow'))).toEqual(['ISS-1', 'ISS-4', 'ISS-7']);
    expect(sorted(ids('login not ios'))).toEqual(['ISS-4']);
  });

  it('folds case, accents, apostrophes and simple English endings', () => {
    expect(ids('CRASHING')).toEqual(['ISS-1']);
    expect(ids('cafe naive')).toEqual(['ISS-8']);
    expect(ids('dont')).toEqual(['ISS-8']);
    expect(ids("DON'T")).toEqual(['ISS-8']);
    expect(ids('updates')).toEqual(['ISS-7']);
  });

  it('splits punctuated words into a phrase', () => {
    const docs = [
      { id: 'x', title: 'E-mail bounce', body: '' },
      { id: 'y', title: 'Mail sent by e', body: '' },
    ];
    expect(ids('e-mail', docs)).toEqual(['x']);
  });

  it('returns nothing for a valid query on an empty corpus, but still validates the query', () => {
    expect(rankDocuments([], 'login')).toEqual([]);
    expect(() => rankDocuments([], 'login OR')).toThrow(QuerySyntaxError);
  });
});

describe('rankDocuments: ranking', () => {
  it('ranks a title match above a body-only match', () => {
    const docs = [
      { id: 'body', title: 'delay', body: 'webhook' },
      { id: 'title', title: 'webhook', body: 'delay' },
    ];
    expect(ids('webhook', docs)).toEqual(['title', 'body']);
  });

  it('ranks the doc matching more of the OR terms first', () => {
    const hits = rankDocuments(corpus, 'refund OR duplicate OR chargeback');
    expect(hits.map((h) => h.id)).toEqual(['ISS-2', 'ISS-3']);
  });

  it('ranks a rare term above a common one', () => {
    const docs = [
      { id: 'a', title: 'login issue', body: 'login fails' },
      { id: 'b', title: 'login issue', body: 'login fails again' },
      { id: 'c', title: 'login issue', body: 'still failing' },
      { id: 'd', title: 'okta issue', body: 'okta fails' },
    ];
    expect(ids('login OR okta', docs)[0]).toBe('d');
  });

  it('computes minisearch BM25: per-field idf, word-count field lengths, title boost 2', () => {
    const docs = [
      { id: 'd1', title: 'webhook retries', body: 'the webhook failed twice webhook' },
      { id: 'd2', title: 'billing', body: 'invoice totals' },
      { id: 'd3', title: 'sync', body: 'webhook' },
    ];
    const [k, b, d] = [1.2, 0.7, 0.5];
    const bm25 = (tf: number, n: number, dl: number, avg: number) =>
      Math.log(1 + (3 - n + 0.5) / (n + 0.5)) * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * dl) / avg)));
    const avgTitle = (2 + 1 + 1) / 3;
    const avgBody = (5 + 2 + 1) / 3; // stop words count towards length
    const hits = rankDocuments(docs, 'webhook');
    expect(hits.map((h) => h.id)).toEqual(['d1', 'd3']);
    expect(hits[0]?.score).toBeCloseTo(2 * bm25(1, 1, 2, avgTitle) + bm25(2, 2, 5, avgBody), 9);
    expect(hits[1]?.score).toBeCloseTo(bm25(1, 2, 1, avgBody), 9);
  });

  it('measures ASCII and non-ASCII text alike (apostrophes do not split words)', () => {
    const docs = [
      { id: 'ascii', title: "Don't crash now", body: "it's the app's fault, isn't it" },
      {
        id: 'unicode',
        title: 'Don\u2019t crash now \u{1F642}',
        body: 'it\u2019s the app\u2019s fault, isn\u2019t it',
      },
      { id: 'other', title: 'crash report', body: 'nothing else to say here at all' },
    ];
    const hits = rankDocuments(docs, 'crash');
    const score = (id: string) => hits.find((h) => h.id === id)?.score;
    expect(score('ascii')).toBeDefined();
    expect(score('ascii')).toBe(score('unicode'));
  });

  it('breaks score ties by id ascending, whatever the input order', () => {
    const twin = { title: 'printer jam', body: 'the printer is jammed' };
    const docs = [
      { id: 'c', ...twin },
      { id: 'a', ...twin },
      { id: 'b', ...twin },
    ];
    const hits = rankDocuments(docs, 'printer');
    expect(hits.map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(hits[0]?.score).toBe(hits[2]?.score);
    expect(ids('printer', [...docs].reverse())).toEqual(['a', 'b', 'c']);
  });

  it('applies limit, defaulting to 20', () => {
    const docs = Array.from({ length: 30 }, (_, i) => ({
      id: `d${String(i).padStart(2, '0')}`,
      title: 'sync',
      body: 'x',
    }));
    expect(ids('sync', docs)).toHaveLength(20);
    expect(ids('sync', docs, 3)).toEqual(['d00', 'd01', 'd02']);
    expect(ids('sync', docs, 0)).toEqual([]);
  });

  it('reports matched query terms as typed (folded) and coverage of the positive terms', () => {
    const hits = rankDocuments(corpus, 'Crashing OR login OR okta -ios');
    const first = hits.find((h) => h.id === 'ISS-1');
    expect(first?.matchedTerms).toEqual(['crashing', 'login']);
    expect(first?.coverage).toBeCloseTo(2 / 3, 12);
    const sso = hits.find((h) => h.id === 'ISS-7');
    expect(sso?.matchedTerms).toEqual(['login']);
    expect(sso?.coverage).toBeCloseTo(1 / 3, 12);
    expect(rankDocuments(corpus, 'login slow')[0]?.coverage).toBe(1);
  });
});

describe('parseQuery', () => {
  it('builds the tree with NOT > AND > OR precedence', () => {
    const { root } = parseQuery('login slow OR crash -android');
    expect(root).toEqual({
      type: 'or',
      children: [
        {
          type: 'and',
          children: [
            { type: 'term', term: 'login', text: 'login' },
            { type: 'term', term: 'slow', text: 'slow' },
          ],
        },
        {
          type: 'and',
          children: [
            { type: 'term', term: 'crash', text: 'crash' },
            { type: 'not', child: { type: 'term', term: 'android', text: 'android' } },
          ],
        },
      ],
    } satisfies QueryNode);
  });

  it('lists positive terms once each, leaving excluded ones out', () => {
    const { positiveTerms } = parseQuery('crash crashes "out of memory" -android');
    expect(positiveTerms.map((t) => t.text)).toEqual(['crash', 'out', 'memory']);
  });

  const syntaxErrors: [string, RegExp][] = [
    ['', /empty/],
    ['   \t ', /empty/],
    ['NOT login', /only excludes/],
    ['-login -ios', /only excludes/],
    ['(login', /"\(" at position 1 is never closed/],
    ['login)', /"\)" at position 6 has no matching "\("/],
    ['login ()', /Empty parentheses/],
    ['login OR', /"OR" at position 7 has nothing after it/],
    ['OR login', /"OR" at position 1 has nothing before it/],
    ['login OR OR slow', /OR/],
    ['login AND', /AND/],
    ['login OR NOT ios', /alternative of OR/],
    ['login NOT NOT ios', /Double negation/],
    ['login NOT', /not followed by anything/],
    ['"out of memory', /Unclosed quote/],
    ['the of', /no searchable words/],
    ['(-login -ios) OR slow', /group in parentheses only excludes/],
  ];
  it.each(syntaxErrors)('rejects %j with a helpful QuerySyntaxError', (query, message) => {
    expect(() => parseQuery(query)).toThrow(QuerySyntaxError);
    expect(() => parseQuery(query)).toThrow(message);
    expect(() => rankDocuments(corpus, query)).toThrow(QuerySyntaxError);
  });
});

describe('rankDocuments: odd input', () => {
  const odd = [
    '!!!',
    '*?[](',
    // Every regex metacharacter; the dollar-brace pair is split so it does not read as a template slot.
    '.*+?^$' + '{}()|[]\\',
    '(.*)',
    '🙂',
    '🙂 crash',
    '"',
    '""',
    '- -- ---',
    '--verbose',
    'login -',
    'constructor __proto__ toString',
    'x'.repeat(10_000),
    'login '.repeat(2_000),
    '('.repeat(5_000),
    `${'('.repeat(40)}login${')'.repeat(40)}`,
    Array.from({ length: 2_000 }, (_, i) => `w${i}`).join(' OR '),
    '\u0000\u0001\uffff\ud800',
    'ＬＯＧＩＮ',
  ];
  it.each(odd.map((q) => [q.length > 40 ? `${q.slice(0, 40)}… (${q.length} chars)` : q, q]))(
    'never throws anything but QuerySyntaxError: %j',
    (_label, query) => {
      let result: unknown;
      try {
        result = rankDocuments(corpus, query);
      } catch (error) {
        expect(error).toBeInstanceOf(QuerySyntaxError);
        return;
      }
      expect(Array.isArray(result)).toBe(true);
    },
  );

  it('still finds what the odd query does contain', () => {
    expect(ids('🙂 crash')).toEqual(['ISS-1']);
    expect(ids('login '.repeat(2_000))).toEqual(ids('login'));
    expect(ids('ＬＯＧＩＮ')).toEqual(ids('login'));
    expect(() => rankDocuments(corpus, '('.repeat(5_000))).toThrow(/nested/);
  });
});

describe('stem', () => {
  it('conflates common inflections and leaves short words and identifiers alone', () => {
    expect(new Set(['crash', 'crashes', 'crashed', 'crashing'].map(stem)).size).toBe(1);
    expect(new Set(['update', 'updates', 'updated', 'updating'].map(stem)).size).toBe(1);
    expect(new Set(['reply', 'replies', 'replied'].map(stem)).size).toBe(1);
    expect(stem('shipping')).toBe(stem('ship'));
    expect(stem('billing')).toBe('bill');
    expect(stem('status')).toBe('status');
    expect(stem('ios')).toBe('ios');
    expect(stem('v2s')).toBe('v2s');
  });
});

// The ranking path skips analysing most words for speed (substring keys, lazy term lists). This
// checks it against a plain analyse-everything evaluation of the same parsed queries.
describe('rankDocuments: agrees with a straightforward evaluation', () => {
  const STOP = new Set(['the', 'of', 'to', 'and', 'is', 'a', 'on', 'not', 'or']);
  const analyse = (text: string): string[] =>
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/['\u2019]/g, '')
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w !== '' && !STOP.has(w))
      .map(stem);
  const hasSequence = (tokens: string[], seq: string[]) =>
    tokens.some((_, i) => seq.every((t, j) => tokens[i + j] === t));
  const evaluate = (node: QueryNode, title: string[], body: string[]): boolean => {
    switch (node.type) {
      case 'term':
        return title.includes(node.term) || body.includes(node.term);
      case 'phrase': {
        const seq = node.terms.map((t) => t.term);
        return hasSequence(title, seq) || hasSequence(body, seq);
      }
      case 'not':
        return !evaluate(node.child, title, body);
      case 'and':
        return node.children.every((c) => evaluate(c, title, body));
      case 'or':
        return node.children.some((c) => evaluate(c, title, body));
    }
  };

  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const words = [
    'crash',
    'crashes',
    'Crashed',
    'crashing',
    'recrash',
    'login',
    'logins',
    'logging',
    'reply',
    'replies',
    'replied',
    'update',
    'updating',
    'invoice',
    'invoices',
    'café',
    'cafe',
    'naïve',
    "don't",
    'dont',
    'e-mail',
    'mail',
    'sso',
    'ios',
    'scenarios',
    'out',
    'memory',
    'v2',
    '1234',
    '日本',
    'the',
    'of',
    'to',
    'not',
    'or',
  ];
  const sentence = (n: number) =>
    Array.from({ length: n }, () => pick(words)).join(random() < 0.5 ? ' ' : ', ');
  const docs: SearchDoc[] = Array.from({ length: 300 }, (_, i) => ({
    id: `d${i}`,
    title: sentence(1 + Math.floor(random() * 5)),
    body: sentence(Math.floor(random() * 25)),
  }));
  const queryWords = [
    'crash',
    'crashing',
    'login',
    'logging',
    'replies',
    'reply',
    'update',
    'invoice',
    'cafe',
    'CAFÉ',
    'naive',
    'dont',
    'mail',
    'sso',
    'ios',
    'memory',
    'v2',
    '1234',
    '日本',
    '"out of memory"',
    '"crash login"',
    'e-mail',
  ];
  const operand = (): string => {
    const r = random();
    if (r < 0.15) return `(${pick(queryWords)} OR ${pick(queryWords)})`;
    if (r < 0.3) return `-${pick(queryWords)}`;
    if (r < 0.38) return `NOT (${pick(queryWords)} OR ${pick(queryWords)})`;
    return pick(queryWords);
  };
  const queries = Array.from({ length: 150 }, () => {
    const parts = [pick(queryWords), ...Array.from({ length: Math.floor(random() * 3) }, operand)];
    return random() < 0.3 ? `${parts.join(' ')} OR ${pick(queryWords)}` : parts.join(' ');
  });

  it('returns exactly the matching docs, sorted by score then id, with exact coverage', () => {
    const analysed = new Map(
      docs.map((doc) => [doc.id, { title: analyse(doc.title), body: analyse(doc.body) }]),
    );
    const problems: string[] = [];
    let nonEmpty = 0;
    for (const query of queries) {
      const { root, positiveTerms } = parseQuery(query);
      const expected = docs.filter((doc) => {
        const a = analysed.get(doc.id)!;
        return evaluate(root, a.title, a.body);
      });
      const hits = rankDocuments(docs, query, { limit: Number.POSITIVE_INFINITY });
      if (hits.length > 0) nonEmpty++;
      const got = sorted(hits.map((h) => h.id)).join(',');
      const want = sorted(expected.map((doc) => doc.id)).join(',');
      if (got !== want) problems.push(`${query}: got [${got}], want [${want}]`);
      hits.forEach((hit, i) => {
        const prev = hits[i - 1];
        if (prev && !(prev.score > hit.score || (prev.score === hit.score && prev.id < hit.id))) {
          problems.push(`${query}: ${prev.id} before ${hit.id} out of order`);
        }
        const a = analysed.get(hit.id)!;
        const present = positiveTerms.filter((t) => a.title.includes(t.term) || a.body.includes(t.term));
        const texts = present.map((t) => t.text).join(',');
        if (hit.matchedTerms.join(',') !== texts)
          problems.push(`${query}: ${hit.id} matched ${hit.matchedTerms}`);
        if (Math.abs(hit.coverage - present.length / positiveTerms.length) > 1e-12) {
          problems.push(`${query}: ${hit.id} coverage ${hit.coverage}`);
        }
      });
    }
    expect(problems).toEqual([]);
    // Guard against a generator that only produces queries matching nothing.
    expect(nonEmpty).toBeGreaterThan(50);
  });
});
