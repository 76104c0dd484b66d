// How a tool pages, read off its published input schema and, for endpoint rows, the upstream query parameter
// each argument becomes: which argument sets the number of items per call, which says where a page starts, and
// which narrow what each item holds. The result budget (result.ts) words its "how to get the rest" from this, so
// no tool needs a hand-written paging note, and a renamed argument cannot leave a stale one behind.

/** The paging arguments of one tool; each absent when the tool has none. */
export interface Paging {
  /** The argument that caps how many items one call returns (`page_size`, `limit`). */
  pageSize?: string;
  /** The argument that says where a page starts: a cursor or offset from the previous page. */
  cursor?: string;
  /**
   * Result fields that carry the next page's cursor (the upstream's `offset`, `next_cursor`): after a cut they
   * point past items the caller never saw.
   */
  cursorFields: readonly string[];
  /** Arguments that ask for less per item or fewer items (`specific_fields`, `filter_by_formula`). */
  narrowing: readonly string[];
}

/** The part of a JSON Schema property paging looks at. */
interface PropertySchema {
  type?: unknown;
}

// Upstream query names are the upstreams' own conventions, steadier than our argument names (`page_size_limit`,
// `results_page_size`, `group_count` all go upstream as pageSize or count).
const PAGE_SIZE_UPSTREAM = /^(pageSize|page_size|limit|count|perPage|per_page|maxResults|max_results)$/;
/** A cap on the whole listing, not one page: a page size of last resort. */
const TOTAL_CAP_UPSTREAM = /^(maxRecords|max_records)$/;
const CURSOR_UPSTREAM = /^(offset|cursor|next|startIndex|start_index|pageToken|page_token|after)$/;
const PAGE_SIZE_ARGUMENT = /page_?size|(^|_)(limit|count)(_|$)|per_page/;
const TOTAL_CAP_ARGUMENT = /^max(imum)?_/;
const CURSOR_ARGUMENT = /cursor|offset|page_token|start_index|next_page/;
/** Field selections (`specific_fields`, `fields_to_retrieve`), not additions (`fields_to_include`) or flags. */
const FIELD_SELECTION = /field/;
const NOT_A_SELECTION = /include|by_field|metadata/;
/** Filters and time windows: fewer items match. */
const FILTER = /filter|formula|(^|_)(start|end)_time$/;
/** Result fields that hold a next-page cursor whatever the tool calls its cursor argument. */
const NEXT_CURSOR_FIELDS = ['next_cursor', 'nextCursor', 'next_page_token', 'nextPageToken'];

export function pagingOf(
  properties: Readonly<Record<string, PropertySchema>>,
  upstreamQuery: Readonly<Record<string, string>> = {},
): Paging {
  const names = Object.keys(properties);
  const isInteger = (name: string) => properties[name]?.type === 'integer';
  const upstreamOf = (name: string) =>
    Object.entries(upstreamQuery).find(([, argument]) => argument === name)?.[0];
  const byUpstream = (pattern: RegExp) =>
    names.find((name) => {
      const upstream = upstreamOf(name);
      return upstream !== undefined && pattern.test(upstream);
    });
  const pageSize = [
    byUpstream(PAGE_SIZE_UPSTREAM),
    names.find((name) => isInteger(name) && PAGE_SIZE_ARGUMENT.test(name)),
  ]
    .concat(
      byUpstream(TOTAL_CAP_UPSTREAM),
      names.find((name) => isInteger(name) && TOTAL_CAP_ARGUMENT.test(name)),
    )
    .find((name) => name !== undefined && isInteger(name));
  const cursor = byUpstream(CURSOR_UPSTREAM) ?? names.find((name) => CURSOR_ARGUMENT.test(name));
  // A start index names where this page began, not where the next one does: it is no cursor to drop.
  const cursorUpstream = cursor === undefined ? undefined : upstreamOf(cursor);
  const nextCursor = cursorUpstream !== undefined && !/^start_?index$/i.test(cursorUpstream);
  const selectable = (name: string) =>
    properties[name]?.type === 'array' || properties[name]?.type === 'string';
  const narrowing = names.filter(
    (name) =>
      selectable(name) && ((FIELD_SELECTION.test(name) && !NOT_A_SELECTION.test(name)) || FILTER.test(name)),
  );
  return {
    ...(pageSize !== undefined ? { pageSize } : {}),
    ...(cursor !== undefined ? { cursor } : {}),
    cursorFields: [...new Set([...(nextCursor ? [cursorUpstream] : []), ...NEXT_CURSOR_FIELDS])],
    narrowing,
  };
}
