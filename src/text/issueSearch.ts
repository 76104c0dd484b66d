// Keyword search over issues: parses the query language below and ranks documents with BM25
// (minisearch) over title and body, the title weighing double.
//
// Query language:
//   login error          both words must occur (AND is the default; an explicit AND is allowed)
//   refund OR chargeback either word; OR binds looser than AND: "a b OR c" means "(a b) OR c"
//   crash -android       excludes issues containing "android"; "NOT android" is the same
//   (refund OR chargeback) -duplicate      parentheses group
//   "out of memory"      the words must occur next to each other, in this order
// Case and accents are ignored, and simple English endings are folded, so "crash" also finds
// "crashes", "crashed" and "crashing". Punctuation separates words ("e-mail" is the phrase
// "e mail"). Lowercase "and", "or", "not" and other very common words ("the", "of", "to"...)
// are ignored. A query must contain at least one word that is not excluded; "OR -a" is not
// allowed, exclude from the whole group instead: "(a OR b) -c".
//
// Three parts, in search/: query.ts parses the language into a tree; analyzer.ts turns text into
// terms (tokenising, stemming and stop words), identically for documents and query; ranker.ts builds
// minisearch's BM25 statistics for the query's terms only (see buildIndex), keeps token arrays of the
// matching documents so that phrases are checked for true adjacency and coverage is exact, and ranks.

export { type QueryTerm, stem } from './search/analyzer.js';
export { type ParsedQuery, parseQuery, type QueryNode, QuerySyntaxError } from './search/query.js';
export { rankDocuments, type SearchDoc, type SearchHit } from './search/ranker.js';
