// Ranking tools for a plain-language task (search_tools, runtime/discovery.ts): BM25F over each tool's name
// (camelCase split), title, description, search terms (each service's searchTerms.ts: the words people use for the
// tool that its terse text leaves out), parameter names and descriptions, its toolset and its service, each
// field with its own weight, with the words people use for these things (toolVocabulary.ts), and a bonus for the
// share of the tool's name and title the query accounts for, so that "delete a record" prefers the plain
// "Delete a record" to "Delete rows by key" of bulk tables. Words are analysed as issue search analyses them
// (text/search/analyzer.ts: case, accents, stop words, plural and -ed/-ing endings).
//
// Our own small BM25F rather than minisearch (which issue search uses): a query word counts once, through the best
// of the words it stands for, where minisearch's OR adds every one that matches and multiplies by their number,
// so a tool whose text repeats several synonyms of one word would outrank the tool the task is about. The index
// is built once per tool set; a search scores a hundred-odd short documents.

import { analyzeQueryText } from '../text/search/analyzer.js';
import { QUERY_STOP_WORDS, UPSTREAM_NAMES, VOCABULARY } from './toolVocabulary.js';

/** What of a tool is searched. */
export interface SearchableTool {
  /** The tool name without its service prefix (`ListStoreRecords`). */
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  parameters: readonly { name: string; description?: string | undefined }[];
  /** Words people use for the tool that its own text leaves out (ServiceDefinition.searchTerms), comma-separated. */
  keywords?: string | undefined;
  /** The name of the toolset it belongs to. */
  toolset?: string | undefined;
  /** The service's tool-name prefix (`IssueDesk`): its words tell the services apart. */
  prefix: string;
}

export interface ToolSearchHit {
  /** The tool's position in the list the index was built from. */
  index: number;
  score: number;
}

type Field = 'name' | 'title' | 'description' | 'keywords' | 'parameters' | 'toolset' | 'service';

/**
 * How much a word counts in each field, and how much a long field dilutes it (BM25's b). The name and title say
 * what the tool does in a few words; descriptions add the objects and conditions; search terms are many words, some
 * of them loose (weights from 1 to 2 ranked the discovery fixtures alike); parameters say what it acts on; toolset
 * and service prefix only tell the services and areas apart.
 */
const FIELDS: Readonly<Record<Field, { weight: number; b: number }>> = {
  name: { weight: 3, b: 0.3 },
  title: { weight: 2.5, b: 0.3 },
  description: { weight: 1.5, b: 0.6 },
  keywords: { weight: 1, b: 0.6 },
  parameters: { weight: 0.6, b: 0.6 },
  toolset: { weight: 0.8, b: 0 },
  service: { weight: 0.6, b: 0 },
};
const FIELD_NAMES = Object.keys(FIELDS) as Field[];
/**
 * The fields that say how common a word is (BM25's document frequency). Not the others: nearly every store tool
 * has a base_id and a table parameter, and is in a service about bases, tables and records, which would leave
 * "base", "table" and "record" worth nothing where they matter most.
 */
const COUNTED: ReadonlySet<Field> = new Set(['name', 'title', 'description', 'keywords']);
const K1 = 1.2;
/** A word found through a related word of the vocabulary counts this much of the word itself. */
const RELATED_WEIGHT = 0.75;
/** A query word that names the user's data (quoted, or capitalised) counts this much (queryWords). */
const NAME_WEIGHT = 0.5;
/** How much a query that accounts for the whole of a tool's name and title multiplies its score. */
const COVERAGE_WEIGHT = 1;
/**
 * A parameter (name and description) more than this share of the tools have says nothing about any one of them:
 * schema mode's `mode` and `request_body` would otherwise put "request", "schema" and "JSON" into most tools.
 */
const COMMON_PARAMETER_SHARE = 0.25;
/** The longest phrase the vocabulary has, in analysed words. */
const MAX_PHRASE = 3;

/** `ListStoreRecords` -> `List Store Records`, `GetEdiscoveryExportStatus` -> `Get Ediscovery Export Status`. */
export function splitCamelCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
}

function analysed(text: string | undefined): string[] {
  return text ? analyzeQueryText(text).map((term) => term.term) : [];
}

/**
 * The vocabulary, analysed: `same` maps a word or phrase (words joined by spaces) to the one term its group of
 * synonyms is indexed and searched under; `related` maps a canonical term or phrase to what it also finds.
 */
interface Vocabulary {
  same: Map<string, string>;
  related: Map<string, Map<string, number>>;
  /** Phrases (of 2 or more analysed words) that `same` or `related` has. */
  phrases: Set<string>;
}

export function buildVocabulary(entries: readonly string[]): Vocabulary {
  const same = new Map<string, string>();
  const related = new Map<string, Map<string, number>>();
  const phrases = new Set<string>();
  const key = (text: string) => {
    const words = analysed(text).join(' ');
    if (words.includes(' ')) phrases.add(words);
    return words;
  };
  // Synonyms first: related words are written with whichever synonym reads best, and stored under its group's term.
  const groupOf = new Map<string, string>();
  for (const entry of entries.filter((line) => line.includes('='))) {
    const words = entry.split('=').map((word) => word.trim());
    const canonical = key(words[0]!);
    for (const word of words) {
      const term = key(word);
      const known = groupOf.get(term);
      if (known !== undefined && known !== words[0]) {
        throw new Error(
          `Vocabulary: "${word}" is a synonym in the groups of both "${known}" and "${words[0]}"`,
        );
      }
      groupOf.set(term, words[0]!);
      if (term !== '') same.set(term, canonical);
    }
  }
  const canonical = (words: string) => same.get(words) ?? words;
  const relate = (from: string, to: string) => {
    const source = canonical(from);
    const target = canonical(to);
    if (source === '' || target === '' || source === target) return;
    const targets = related.get(source) ?? new Map<string, number>();
    related.set(source, targets.set(target, RELATED_WEIGHT));
  };
  for (const entry of entries.filter((line) => !line.includes('='))) {
    const arrow = entry.indexOf('>');
    if (arrow >= 0) {
      for (const from of entry.slice(0, arrow).split('|')) {
        for (const to of entry.slice(arrow + 1).split(',')) relate(key(from), key(to));
      }
    } else {
      const group = entry.split('|').map(key);
      for (const from of group) for (const to of group) relate(from, to);
    }
  }
  return { same, related, phrases };
}

let defaultVocabulary: Vocabulary | undefined;
/** Built on the first search, not at start: only the discovery mode searches, and building it takes ~15 ms. */
const DEFAULT_VOCABULARY = (): Vocabulary => {
  defaultVocabulary ??= buildVocabulary(VOCABULARY);
  return defaultVocabulary;
};
const STOP = new Set(QUERY_STOP_WORDS.flatMap(analysed));
const UPSTREAMS = new Set(UPSTREAM_NAMES.map((name) => analysed(name).join(' ')));

/** An analysed word and how much it says about the tool wanted (see queryWords). */
interface Word {
  term: string;
  weight: number;
}

/**
 * A query's words, each weighted by how likely it names the user's own data rather than what to do with it. Quoted
 * text ('Old filter', "Q3 plan") and capitalised words after the first (the Orders table, Priya, Contacts) are
 * names: the table called Contacts is no hint at the contact tools. They still count, less. A tool name
 * (`ListStoreRecords`) counts in full, as its words.
 */
function queryWords(query: string, identifiers: Identifiers): Word[] {
  // A tool's own name in a query (`ListStoreRecords`, `StoreApi.DeleteStoreRecord`) is read as its words.
  const toolNameLike = /[A-Z][a-z]+[A-Z][a-z]/;
  const words: Word[] = [];
  let quote: string | undefined;
  query
    .split(/\s+/)
    .filter(Boolean)
    .forEach((chunk, position) => {
      // An email address or an identifier says what kind of thing the task is about, not which one: "remove
      // a@b.com" is about an email, "show recQ7" about a record. Read as that word, in full.
      const bare = chunk.replace(/^[^\w]+|(?:'s|’s)?[^\w]*$/g, '');
      const kind = EMAIL.test(bare) ? 'email' : identifierKind(bare, identifiers);
      if (kind !== undefined && quote === undefined) {
        for (const term of analysed(kind)) words.push({ term, weight: NAME_WEIGHT });
        return;
      }
      const opens = quote === undefined && /^["'“‘]/.test(chunk) ? chunk[0] : undefined;
      if (opens) quote = opens;
      const capitalised =
        position > 0 && /^[A-Z][a-z]/.test(chunk.replace(/^\W+/, '')) && !toolNameLike.test(chunk);
      const weight = quote !== undefined || capitalised ? NAME_WEIGHT : 1;
      for (const term of analysed(toolNameLike.test(chunk) ? splitCamelCase(chunk) : chunk)) {
        words.push({ term, weight });
      }
      if (quote !== undefined && chunk.length > (opens ? 1 : 0) && /["'”’][^\w]*$/.test(chunk)) {
        quote = undefined;
      }
    });
  return words;
}

/**
 * Words with the vocabulary's phrases joined and every synonym replaced by its group's term. In a query a phrase
 * is one unit ("log out"); in a tool's text (`index`) its words are terms as well, since the text holds them
 * ("Insert or update up to 1000 rows" is an upsert, and an insert and an update).
 */
function canonicalWords(words: readonly Word[], vocabulary: Vocabulary, index = false): Word[] {
  const canonical = (unit: string) => vocabulary.same.get(unit) ?? unit;
  const out: Word[] = [];
  let i = 0;
  while (i < words.length) {
    let length = Math.min(MAX_PHRASE, words.length - i);
    const phraseAt = (n: number) =>
      words
        .slice(i, i + n)
        .map((word) => word.term)
        .join(' ');
    while (length >= 2 && !vocabulary.phrases.has(phraseAt(length))) length--;
    if (length < 2) {
      out.push({ term: canonical(words[i]!.term), weight: words[i]!.weight });
      i++;
      continue;
    }
    const phrase = words.slice(i, i + length);
    const weight = Math.min(...phrase.map((word) => word.weight));
    out.push({ term: canonical(phraseAt(length)), weight });
    if (index) out.push(...phrase.map((word) => ({ term: canonical(word.term), weight })));
    i += length;
  }
  return out;
}

function canonicalTerms(text: string | undefined, vocabulary: Vocabulary): string[] {
  const words = analysed(text).map((term) => ({ term, weight: 1 }));
  return canonicalWords(words, vocabulary, true).map((word) => word.term);
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;

/**
 * Identifier prefixes and what they name (`rec` -> "record"), from the services (ServiceDefinition.
 * identifierPrefixes). An identifier is the prefix, then a capital or a digit (`recQ7`, `tbl8xk2`, `appMarketing`):
 * "apple" or "record" are words, not identifiers.
 */
export type Identifiers = ReadonlyMap<string, string>;

function identifierKind(chunk: string, identifiers: Identifiers): string | undefined {
  const match = /^([a-z]{3})[A-Z0-9][A-Za-z0-9]*$/.exec(chunk);
  return match ? identifiers.get(match[1]!) : undefined;
}

/** One unit of a query: a word or a vocabulary phrase, the index terms it finds with their weights, its weight. */
interface QueryUnit {
  text: string;
  finds: Map<string, number>;
  weight: number;
}

/** The query as units, each with the terms it finds: itself (as its synonyms' term), then its related words. */
export function queryUnits(
  query: string,
  vocabulary: Vocabulary = DEFAULT_VOCABULARY(),
  identifiers: Identifiers = new Map(),
): QueryUnit[] {
  const units: QueryUnit[] = [];
  for (const { term, weight } of canonicalWords(queryWords(query, identifiers), vocabulary)) {
    if (STOP.has(term)) continue;
    const finds = new Map<string, number>(vocabulary.related.get(term) ?? []);
    // A phrase finds its own words too, as related words: "page view" still finds "view".
    if (term.includes(' ')) {
      for (const word of term.split(' ')) {
        const own = vocabulary.same.get(word) ?? word;
        if (!finds.has(own)) finds.set(own, RELATED_WEIGHT);
      }
    }
    finds.set(term, 1);
    units.push({ text: term, finds, weight: UPSTREAMS.has(term) ? 1 : weight });
  }
  return units;
}

interface IndexedDoc {
  /** Per field: term -> count. */
  counts: Record<Field, Map<string, number>>;
  lengths: Record<Field, number>;
  /** The distinct terms of the name and title (without the service's own words): what coverage is of. */
  headline: ReadonlySet<string>;
}

export class ToolSearchIndex {
  private readonly docs: IndexedDoc[];
  private readonly averageLength: Record<Field, number>;
  private readonly documentFrequency = new Map<string, number>();

  private readonly vocabulary: Vocabulary;
  private readonly identifiers: Identifiers;

  constructor(
    tools: readonly SearchableTool[],
    options: { vocabulary?: Vocabulary; identifiers?: Identifiers } = {},
  ) {
    const vocabulary = options.vocabulary ?? DEFAULT_VOCABULARY();
    this.vocabulary = vocabulary;
    this.identifiers = options.identifiers ?? new Map();
    const parameterCounts = new Map<string, number>();
    const parameterKey = (p: { name: string; description?: string | undefined }) =>
      `${p.name}\u0000${p.description ?? ''}`;
    for (const tool of tools) {
      for (const key of new Set(tool.parameters.map(parameterKey))) {
        parameterCounts.set(key, (parameterCounts.get(key) ?? 0) + 1);
      }
    }
    const common = Math.max(2, tools.length * COMMON_PARAMETER_SHARE);
    // Words of several services' prefixes (`Api` of StoreApi and MessagingTrackApi) tell no service apart.
    const prefixes = new Map<string, Set<string>>();
    for (const prefix of new Set(tools.map((tool) => tool.prefix))) {
      for (const word of canonicalTerms(splitCamelCase(prefix), vocabulary)) {
        prefixes.set(word, (prefixes.get(word) ?? new Set()).add(prefix));
      }
    }
    const serviceWords = (prefix: string) =>
      canonicalTerms(splitCamelCase(prefix), vocabulary).filter(
        (term) => (prefixes.get(term)?.size ?? 0) <= 1,
      );
    const terms = (text: string | undefined) => canonicalTerms(text, vocabulary);
    this.docs = tools.map((tool) => {
      const title = terms(tool.title);
      const description = terms(tool.description);
      // The service's prefix words are the service field's, for each of its tools alike. In a name they are
      // naming habit (`Store` of DeleteStoreRecord) or said again by the title ("List issues").
      const prefixWords = new Set(terms(splitCamelCase(tool.prefix)));
      const fields: Record<Field, string[]> = {
        name: terms(splitCamelCase(tool.name)).filter((term) => !prefixWords.has(term)),
        title,
        description,
        keywords: terms(tool.keywords),
        parameters: tool.parameters
          .filter((p) => (parameterCounts.get(parameterKey(p)) ?? 0) <= common)
          .flatMap((p) => [...terms(p.name.replaceAll('_', ' ')), ...terms(p.description)]),
        toolset: terms(tool.toolset),
        service: serviceWords(tool.prefix),
      };
      const counts = {} as Record<Field, Map<string, number>>;
      const lengths = {} as Record<Field, number>;
      const seen = new Set<string>();
      for (const field of FIELD_NAMES) {
        const map = new Map<string, number>();
        for (const term of fields[field]) {
          map.set(term, (map.get(term) ?? 0) + 1);
          if (COUNTED.has(field)) seen.add(term);
        }
        counts[field] = map;
        lengths[field] = fields[field].length;
      }
      for (const term of seen) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      const headline = new Set([...fields.name, ...fields.title].filter((term) => !STOP.has(term)));
      return { counts, lengths, headline };
    });
    const averageLength = {} as Record<Field, number>;
    for (const field of FIELD_NAMES) {
      const total = this.docs.reduce((sum, doc) => sum + doc.lengths[field], 0);
      averageLength[field] = this.docs.length > 0 ? total / this.docs.length : 0;
    }
    this.averageLength = averageLength;
  }

  /** The tools best matching `query`, best first, ties in list order; tools matching nothing are left out. */
  search(query: string, limit: number): ToolSearchHit[] {
    const units = queryUnits(query, this.vocabulary, this.identifiers);
    if (units.length === 0) return [];
    const hits: ToolSearchHit[] = [];
    this.docs.forEach((doc, index) => {
      const score = this.score(units, doc);
      if (score > 0) hits.push({ index, score });
    });
    hits.sort((a, b) => b.score - a.score || a.index - b.index);
    return hits.slice(0, limit);
  }

  /** How the tool at `index` scores for `query`: each query unit's best term and score, and the coverage. */
  explain(
    query: string,
    index: number,
  ): { units: { text: string; term: string; score: number }[]; coverage: number; score: number } {
    const doc = this.docs[index];
    if (!doc) throw new RangeError(`No tool at ${index}`);
    const units = queryUnits(query, this.vocabulary, this.identifiers);
    return {
      units: units.map((unit) => ({ text: unit.text, ...this.best(unit, doc) })),
      coverage: this.coverage(units, doc),
      score: this.score(units, doc),
    };
  }

  private score(units: readonly QueryUnit[], doc: IndexedDoc): number {
    // A query word counts once, through whichever of the terms it finds scores best here.
    const score = units.reduce((sum, unit) => sum + unit.weight * this.best(unit, doc).score, 0);
    return score === 0 ? 0 : score * (1 + COVERAGE_WEIGHT * this.coverage(units, doc));
  }

  private best(unit: QueryUnit, doc: IndexedDoc): { term: string; score: number } {
    let best = { term: '', score: 0 };
    for (const [term, weight] of unit.finds) {
      const score = weight * this.termScore(term, doc);
      if (score > best.score) best = { term, score };
    }
    return best;
  }

  /** The share of the tool's name and title words the query finds (a word found as a related word, in part). */
  private coverage(units: readonly QueryUnit[], doc: IndexedDoc): number {
    if (doc.headline.size === 0) return 0;
    let covered = 0;
    for (const term of doc.headline) {
      let weight = 0;
      for (const unit of units) weight = Math.max(weight, unit.weight * (unit.finds.get(term) ?? 0));
      // Squared: a word only a related word found explains the tool's name less than the word itself.
      covered += weight * weight;
    }
    return covered / doc.headline.size;
  }

  /** BM25F: the term's occurrences weighted per field and normalised by field length, then saturated once. */
  private termScore(term: string, doc: IndexedDoc): number {
    let frequency = 0;
    for (const field of FIELD_NAMES) {
      const count = doc.counts[field].get(term);
      if (!count) continue;
      const { weight, b } = FIELDS[field];
      const average = this.averageLength[field] || 1;
      frequency += (weight * count) / (1 - b + (b * doc.lengths[field]) / average);
    }
    if (frequency === 0) return 0;
    const n = this.docs.length;
    const df = this.documentFrequency.get(term) ?? 0;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    return (idf * frequency) / (K1 + frequency);
  }
}
