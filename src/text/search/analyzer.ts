// Text analysis for issue search: how a title, a body or a query word becomes index terms. Case and accents
// are ignored, punctuation separates words, very common words are dropped and simple English endings are
// folded (stem). Applied identically to documents (ranker.ts) and queries (query.ts), so both meet on the same
// terms; the fast paths for ASCII text (prepareField, countTermsAscii) give the same terms as the general one.

export interface QueryTerm {
  /** Index key: folded and stemmed. */
  term: string;
  /** The word as written in the query, folded (lower case, no accents) but not stemmed. */
  text: string;
}

// Words too common to discriminate between issues. Lowercase "and", "or", "not" are ordinary words
// (not operators) and, like the rest, carry too little meaning to rank on.
const STOP_WORDS = new Set(
  `a an and are as at be but by for from if in into is it its not of on
   or so than that the then this to was were with`.split(/\s+/),
);

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching "anything outside ASCII" is the intent
const NON_ASCII = /[^\x00-\x7f]/;
const ASCII_SEPARATORS = /[^a-z0-9]+/;
const UNICODE_SEPARATORS = /[^\p{L}\p{N}]+/u;
const COMBINING_MARKS = /\p{M}/gu;
const APOSTROPHES = /['\u2019]/g;

function fold(text: string): string {
  let s = text.toLowerCase();
  // NFKD is by far the slowest step and plain ASCII text (most issues) has nothing to fold.
  // Lower-cased again after NFKD: compatibility forms such as fullwidth "Ａ" decompose to capitals.
  if (NON_ASCII.test(s)) s = s.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase();
  // "don't" must stay one word rather than become "don" + "t".
  return s.includes("'") || s.includes('\u2019') ? s.replace(APOSTROPHES, '') : s;
}

function splitWords(folded: string): string[] {
  return folded.split(NON_ASCII.test(folded) ? UNICODE_SEPARATORS : ASCII_SEPARATORS);
}

const DOUBLE_CONSONANT = /([b-df-hj-np-tv-z])\1$/;
const VOWEL = /[aeiouy]/;
const LOWER_LATIN = /^[a-z]+$/;

/** A deliberately small suffix stripper (plural -s/-es/-ies, -ed, -ing, final -e) so that crash,
 * crashes, crashed and crashing, or update, updates, updated and updating, share one index term.
 * Porter-style rules beyond these misfire on product names and error codes more often than they
 * help recall in support tickets. Words of 3 letters or fewer, and anything that is not plain a-z
 * (numbers, ids like "v2", other scripts), are left alone. */
export function stem(word: string): string {
  if (word.length <= 3 || !LOWER_LATIN.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);

  let verbal = false;
  if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ing') && w.length >= 6 && VOWEL.test(w.slice(0, -3))) {
    w = w.slice(0, -3);
    verbal = true;
  } else if (w.endsWith('ed') && w.length >= 5 && VOWEL.test(w.slice(0, -2))) {
    w = w.slice(0, -2);
    verbal = true;
  }
  // shipping -> shipp -> ship, but billing -> bill and missed -> miss keep their double letter.
  if (verbal && DOUBLE_CONSONANT.test(w) && !/(?:ll|ss|zz|ff)$/.test(w)) w = w.slice(0, -1);
  // update/updated/updating all become "updat"; closing and close both become "clos".
  if (w.endsWith('e') && w.length >= 4) w = w.slice(0, -1);
  return w;
}

// Vocabularies repeat heavily across issues, so stemming is memoised; the cap keeps a long-running
// server from growing the cache without bound on ever-new tokens (ids, hashes).
const STEM_CACHE_LIMIT = 50_000;
const stemCache = new Map<string, string>();

function cachedStem(word: string): string {
  let stemmed = stemCache.get(word);
  if (stemmed === undefined) {
    stemmed = stem(word);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(word, stemmed);
  }
  return stemmed;
}

export function analyzeQueryText(text: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  for (const word of splitWords(fold(text))) {
    if (word === '' || STOP_WORDS.has(word)) continue;
    terms.push({ term: cachedStem(word), text: word });
  }
  return terms;
}

export interface FieldAnalysis {
  terms: string[];
  /** Words in the field, stop words included: BM25's field length. */
  length: number;
}

export function analyzeFolded(folded: string): FieldAnalysis {
  const terms: string[] = [];
  let length = 0;
  for (const word of splitWords(folded)) {
    if (word === '') continue;
    length++;
    if (!STOP_WORDS.has(word)) terms.push(cachedStem(word));
  }
  return { terms, length };
}

export interface PreparedField {
  /** fold()ed text. */
  text: string;
  length: number;
  /** Set only for non-ASCII text, which is analysed in full up front. */
  terms?: string[];
}

const SEPARATOR = 0;
const WORD_CHAR = 1;
const APOSTROPHE = 2;
const NOT_ASCII = 3;
/** Character class of every UTF-16 code unit of lower-cased text, for the hot loop in prepareField:
 * a table lookup runs about twice as fast there as range comparisons. */
const CHAR_CLASS = (() => {
  const table = new Uint8Array(0x10000).fill(NOT_ASCII);
  table.fill(SEPARATOR, 0, 0x80);
  table.fill(WORD_CHAR, 0x61, 0x7b); // a-z
  table.fill(WORD_CHAR, 0x30, 0x3a); // 0-9
  table[0x27] = APOSTROPHE;
  return table;
})();

function isAsciiWordChar(c: number): boolean {
  return CHAR_CLASS[c] === WORD_CHAR;
}

/** fold() plus the field's word count in one pass over ASCII text (nearly every issue), without
 * building a string per word; other text goes through the general analyser. */
export function prepareField(raw: string): PreparedField {
  const text = raw.toLowerCase();
  const end = text.length;
  let length = 0;
  let previous = SEPARATOR;
  let apostrophes = false;
  for (let i = 0; i < end; i++) {
    // Every UTF-16 code unit is below 0x10000, so the lookup always hits the table.
    const kind = CHAR_CLASS[text.charCodeAt(i)]!;
    if (kind > WORD_CHAR) {
      if (kind === NOT_ASCII) {
        const folded = fold(raw);
        const analysis = analyzeFolded(folded);
        return { text: folded, length: analysis.length, terms: analysis.terms };
      }
      // fold() deletes apostrophes, so one neither starts nor ends a word ("don't" is one word).
      apostrophes = true;
      continue;
    }
    // kind and previous are 0 or 1 here: counts each separator-to-word transition.
    length += kind & (previous ^ 1);
    previous = kind;
  }
  return { text: apostrophes ? text.replace(APOSTROPHES, '') : text, length };
}

/** A string every word stemming to `term` starts with: stem() only ever cuts a suffix, or (for
 * words of 5+ letters, giving stems of 3+) replaces "ies"/"ied" with "y". */
function prefixKey(term: string): string {
  return term.length >= 3 && term.endsWith('y') ? term.slice(0, -1) : term;
}

/** Keys such that no key starts with another, so each word in a text is found by at most one. */
export function prefixKeys(terms: Iterable<string>): string[] {
  const kept: string[] = [];
  for (const key of [...new Set([...terms].map(prefixKey))].sort((a, b) => a.length - b.length)) {
    if (!kept.some((shorter) => key.startsWith(shorter))) kept.push(key);
  }
  return kept;
}

/** Counts the words of ASCII `text` whose term is in `terms`, looking only at words that start with
 * one of `keys` instead of analysing every word. */
export function countTermsAscii(
  text: string,
  keys: readonly string[],
  terms: ReadonlySet<string>,
  counts: Map<string, number>,
): void {
  for (const key of keys) {
    let start = text.indexOf(key);
    while (start >= 0) {
      let end = start + key.length;
      if (start === 0 || !isAsciiWordChar(text.charCodeAt(start - 1))) {
        while (end < text.length && isAsciiWordChar(text.charCodeAt(end))) end++;
        const word = text.slice(start, end);
        const term = STOP_WORDS.has(word) ? undefined : cachedStem(word);
        if (term !== undefined && terms.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
      }
      start = text.indexOf(key, end);
    }
  }
}

export function countTerms(
  terms: readonly string[],
  wanted: ReadonlySet<string>,
  counts: Map<string, number>,
): void {
  for (const term of terms) {
    if (wanted.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
}
