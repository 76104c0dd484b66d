// Turning tool outcomes into MCP results: structuredContent plus the same JSON as text; failures as isError
// results that say what to do next. A success result over the token budget (`serve --max-result-tokens`,
// default 20,000 o200k tokens) is cut at item boundaries of its main list, never mid-JSON, with a note that
// says how to get the rest in the tool's own terms (paging.ts). Error results are never cut: they are small, and
// an agent needs all of one to recover.

import { Buffer } from 'node:buffer';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isToolError, ToolError } from './errors.js';
import { log } from './log.js';
import { type Paging, pagingOf } from './paging.js';
import { jsonMayHoldSecret, redact, redactValue } from './secrets.js';
import { type TokensWithin, tokenLimitCounter } from './tokens.js';
import type { ToolDefinition } from './tool.js';
import type { PreparedTool } from './toolset.js';

/** The budget of one tool result when none is set: well inside the 25,000-token output cap clients enforce. */
export const DEFAULT_MAX_RESULT_TOKENS = 20_000;
/** The range `--max-result-tokens` accepts: below it, a page of ordinary records would not fit with its note. */
export const MIN_RESULT_TOKENS = 1_000;
/** No result is ever larger: Claude Code refuses tool output over 25,000 tokens. */
export const MAX_RESULT_TOKENS = 25_000;

/** Returns a result budget in tokens if it lies in the accepted range; otherwise throws, naming the range. */
export function checkMaxResultTokens(tokens: number): number {
  if (!Number.isInteger(tokens) || tokens < MIN_RESULT_TOKENS || tokens > MAX_RESULT_TOKENS) {
    throw new RangeError(
      `The result budget must be a whole number of tokens from ${MIN_RESULT_TOKENS} to ${MAX_RESULT_TOKENS}; got ${tokens}.`,
    );
  }
  return tokens;
}

/** The call a result answers: what the note on a cut result is worded from. */
export interface ResultContext {
  /** The definition as loaded (mcpServer.ts): its `upstreamQuery` names the paging arguments. */
  tool: Pick<PreparedTool, 'name' | 'listEntry'> & {
    definition: Pick<ToolDefinition<unknown>, 'hints' | 'upstreamQuery'>;
  };
  /** The arguments as the caller sent them. */
  args: unknown;
  /** The budget in o200k tokens; default DEFAULT_MAX_RESULT_TOKENS. */
  maxTokens?: number | undefined;
}

export async function successResult(value: unknown, context?: ResultContext): Promise<CallToolResult> {
  // Secrets never reach a result. Serialised first, since the text is needed anyway: walking every string of the
  // value is the slow way, taken only when the text may hold one (nearly never).
  let structured = toObject(value);
  let text = JSON.stringify(structured);
  if (jsonMayHoldSecret(text)) {
    structured = toObject(redactValue(value));
    text = JSON.stringify(structured);
  }
  const budget = context?.maxTokens ?? DEFAULT_MAX_RESULT_TOKENS;
  // The hot path: a token is at least one UTF-8 byte, so a text of no more bytes than the budget fits, uncounted.
  const fitted =
    fitsByBytes(text, budget) || (await fitsBySample(text, budget))
      ? { value: structured, text }
      : await fitToBudget(structured, text, budget, context);
  return {
    content: [{ type: 'text', text: fitted.text }],
    structuredContent: fitted.value,
  };
}

export function errorResult(error: unknown, toolName: string): CallToolResult {
  const toolError = isToolError(error) ? error : internalError(error, toolName);
  const payload = redactValue(toolError.toJSON());
  const lines = [`${toolName} failed (${toolError.kind}): ${redact(toolError.message)}`];
  for (const issue of toolError.issues ?? []) lines.push(`- ${issue.field}: ${issue.problem}`);
  if (toolError.hint) lines.push(`Hint: ${redact(toolError.hint)}`);
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { error: payload },
  };
}

function internalError(error: unknown, toolName: string): ToolError {
  log('error', 'tool crashed', {
    tool: toolName,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return new ToolError({
    kind: 'internal',
    message: 'An unexpected error occurred inside the tool server.',
    hint: 'This is a bug in the server, not in your arguments; the details are in the server log.',
    retryable: false,
  });
}

function toObject(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null || value === '') return { ok: true };
  if (Array.isArray(value)) return { items: value };
  if (typeof value === 'object') return value as Record<string, unknown>;
  return { value };
}

/** At most 3 UTF-8 bytes per UTF-16 unit: the byte length is only computed when the quick bound fails. */
function fitsByBytes(text: string, budget: number): boolean {
  return text.length * 3 <= budget || Buffer.byteLength(text, 'utf8') <= budget;
}

/** Characters counted from each of three places of a text, for its estimate. */
const SAMPLE_CHARS = 2_000;
/** How far below the budget an estimate must be to skip the exact count. */
const SAMPLE_MARGIN = 0.8;

/**
 * Whether a text plainly fits, judged from three samples (start, middle, end) rather than a count of the whole:
 * counting costs about 0.25 ms per kilobyte, which a 60 KB page of records would add to every call. The text's
 * tokens per character are read from the samples; a text whose estimate is over 80% of the budget is counted
 * exactly. Results are JSON of a few shapes repeated, so the samples speak for the whole: for the estimate to
 * miss a text over 25,000 tokens (the hard ceiling) at the default budget, its unsampled parts would have to be
 * more than half again as dense as the sampled ones.
 */
async function fitsBySample(text: string, budget: number): Promise<boolean> {
  if (text.length <= SAMPLE_CHARS * 6) return false; // small enough to count exactly
  const within = await tokenCounter();
  const middle = Math.floor((text.length - SAMPLE_CHARS) / 2);
  let tokens = 0;
  for (const start of [0, middle, text.length - SAMPLE_CHARS]) {
    const counted = within(text.slice(start, start + SAMPLE_CHARS), SAMPLE_CHARS);
    if (counted === false) return false;
    tokens += counted;
  }
  return (tokens / (SAMPLE_CHARS * 3)) * text.length <= budget * SAMPLE_MARGIN;
}

let counter: Promise<TokensWithin> | undefined;

/**
 * The o200k counter, loaded on the first result that needs it: its tables take a quarter of a second to load,
 * which neither start-up nor small results should pay. Should it fail to load, UTF-8 bytes stand in: never fewer
 * than the tokens, so a result still never passes the budget (it is only cut more than it had to be).
 */
function tokenCounter(): Promise<TokensWithin> {
  counter ??= tokenLimitCounter().catch((error: unknown) => {
    log('warn', 'the o200k tokenizer did not load; result sizes are measured in UTF-8 bytes instead', {
      error: error instanceof Error ? error.message : String(error),
    });
    return (text: string, limit: number) => {
      const bytes = Buffer.byteLength(text, 'utf8');
      return bytes <= limit ? bytes : false;
    };
  });
  return counter;
}

type Path = readonly (string | number)[];
type JsonObject = Record<string, unknown>;

interface Fitted {
  value: JsonObject;
  text: string;
  /** Its o200k tokens, or false: over the budget. */
  tokens?: number | false;
}

/** One list cut: where, and how many of its items were kept. */
interface Cut {
  path: Path;
  returned: number;
  total: number;
  /** The `id` of its first item, when a single item was over the budget. */
  firstId?: string;
}

/** How deep the cut may go into the first item when not even one item fits (a base with one huge table). */
const MAX_DESCENT = 4;

async function fitToBudget(
  root: JsonObject,
  text: string,
  budget: number,
  context: ResultContext | undefined,
): Promise<Fitted> {
  const within = await tokenCounter();
  // Counting stops past the budget, so a result many times over it costs no more to measure than one that fits.
  if (within(text, budget) !== false) return { value: root, text };
  const paging = pagingFor(context);
  const measure = (value: JsonObject): Fitted => {
    const rendered = JSON.stringify(value);
    return { value, text: rendered, tokens: within(rendered, budget) };
  };
  let base = root;
  let at: Path = [];
  let dropped: string[] = [];
  const cuts: Cut[] = [];
  let best: Fitted | undefined;
  for (let depth = 0; depth < MAX_DESCENT; depth++) {
    const list = largestList(getAt(base, at), at);
    if (!list) break;
    if (cuts.length === 0) {
      // The page's own next-page cursor points past the items about to be cut: following it would skip them.
      ({ value: base, dropped } = withoutCursors(base, list.path, paging.cursorFields));
    }
    const { items, path } = list;
    const render = (k: number): Fitted =>
      measure(
        annotate(
          setAt(base, path, items.slice(0, k)),
          note([...cuts, { path, returned: k, total: items.length, ...firstId(items, k) }], {
            budget,
            dropped,
            paging,
            context,
          }),
        ),
      );
    const found = largestFitting(items, render, budget);
    if (!found) break;
    const first = items[0];
    if (found.k > 0 || !isObject(first)) return found.fitted;
    // Not even one item fits: keep the first, and cut the largest list inside it instead.
    best = found.fitted;
    cuts.push({ path, returned: 1, total: items.length, ...firstId(items, 0) });
    base = setAt(base, path, [first]);
    at = [...path, 0];
  }
  return best ?? noListFits(root, budget, context, paging, measure);
}

function firstId(items: readonly unknown[], kept: number): { firstId?: string } {
  const first = items[0];
  // An id is short; anything longer is no id worth repeating in the note.
  return kept === 0 && isObject(first) && typeof first.id === 'string' && first.id.length <= 100
    ? { firstId: first.id }
    : {};
}

/** How many probes are guided by the measured density before plain bisection takes over (bounds the worst case). */
const GUIDED_PROBES = 4;

/**
 * The most leading items whose rendering fits the budget, or undefined when even none fit (the rest of the
 * result alone is too big). A search on the item count: the first probes guess the boundary from each item's
 * byte size and the tokens per byte measured so far (at first one per byte, which a token never exceeds, so the
 * first guess fits), which usually finds it in two to four counts; bisection then bounds the worst case.
 */
function largestFitting(
  items: readonly unknown[],
  render: (k: number) => Fitted,
  budget: number,
): { k: number; fitted: Fitted } | undefined {
  const empty = render(0);
  if (empty.tokens === false || empty.tokens === undefined) return undefined;
  const emptyTokens = empty.tokens;
  // prefix[k]: UTF-8 bytes of the first k items with their separating commas.
  const prefix = [0];
  for (const item of items) {
    prefix.push(prefix.at(-1)! + Buffer.byteLength(JSON.stringify(item) ?? 'null', 'utf8') + 1);
  }
  let lo = 0;
  let loFitted = empty;
  let hi = items.length;
  let density = 1;
  for (let probes = 0; hi - lo > 1; probes++) {
    const guess =
      probes < GUIDED_PROBES
        ? mostWithin(prefix, (budget - emptyTokens) / density)
        : Math.floor((lo + hi) / 2);
    const k = Math.min(hi - 1, Math.max(lo + 1, guess));
    const probe = render(k);
    if (probe.tokens === false || probe.tokens === undefined) {
      hi = k;
      // Over the budget: the count stopped there, so the density is at least this.
      density = Math.max(density, (budget - emptyTokens) / Math.max(1, prefix[k]!));
    } else {
      lo = k;
      loFitted = probe;
      density = Math.max(1e-3, (probe.tokens - emptyTokens) / Math.max(1, prefix[k]!));
    }
  }
  return { k: lo, fitted: loFitted };
}

/** The largest k whose prefix is at most `bytes` (prefix is ascending). */
function mostWithin(prefix: readonly number[], bytes: number): number {
  let lo = 0;
  let hi = prefix.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (prefix[mid]! <= bytes) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The list that makes the result big: the largest non-empty array reachable from `node` through object fields
 * (`records`, `data.items`), not through other arrays (those are parts of items). Its path starts with `at`.
 */
function largestList(node: unknown, at: Path): { path: Path; items: unknown[] } | undefined {
  let best: { path: Path; items: unknown[]; size: number } | undefined;
  const visit = (value: unknown, path: Path, depth: number) => {
    if (!isObject(value) || depth > 6) return;
    for (const [key, inner] of Object.entries(value)) {
      if (Array.isArray(inner)) {
        if (inner.length === 0) continue;
        const size = JSON.stringify(inner).length;
        if (!best || size > best.size) best = { path: [...path, key], items: inner, size };
      } else {
        visit(inner, [...path, key], depth + 1);
      }
    }
  };
  visit(node, at, 0);
  return best;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function getAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const step of path) node = (node as Record<string | number, unknown>)[step];
  return node;
}

/** A copy of `root` with the value at `path` replaced; what is off the path is shared, not copied. */
function setAt<T>(root: T, path: Path, value: unknown): T {
  if (path.length === 0) return value as T;
  const [step, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[step as number] = setAt(root[step as number], rest, value);
    return copy as T;
  }
  const node = root as JsonObject;
  return { ...node, [step as string]: setAt(node[step as string], rest, value) } as T;
}

/** `root` without the next-page cursor fields beside the list at `path` (or at the top), and which went. */
function withoutCursors(
  root: JsonObject,
  path: Path,
  fields: readonly string[],
): { value: JsonObject; dropped: string[] } {
  const dropped: string[] = [];
  let value = root;
  const parents: Path[] = path.length > 1 ? [path.slice(0, -1), []] : [[]];
  for (const parentPath of parents) {
    const node = getAt(value, parentPath);
    if (!isObject(node)) continue;
    const present = fields.filter(
      (field) => typeof node[field] === 'string' || typeof node[field] === 'number',
    );
    if (present.length === 0) continue;
    const kept = Object.fromEntries(Object.entries(node).filter(([key]) => !present.includes(key)));
    value = setAt(value, parentPath, kept);
    dropped.push(...present.map((field) => formatPath([...parentPath, field])));
  }
  return { value, dropped };
}

function formatPath(path: Path): string {
  return path
    .map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`))
    .join('');
}

/** `value` with the note first, under `truncated` (or `_truncated` should the upstream use that name itself). */
function annotate(value: JsonObject, truncated: JsonObject): JsonObject {
  let key = 'truncated';
  while (key in value) key = `_${key}`;
  return { [key]: truncated, ...value };
}

function pagingFor(context: ResultContext | undefined): Paging {
  const properties = (context?.tool.listEntry.inputSchema.properties ?? {}) as Record<
    string,
    { type?: unknown }
  >;
  return pagingOf(properties, context?.tool.definition.upstreamQuery);
}

interface NoteInput {
  budget: number;
  dropped: readonly string[];
  paging: Paging;
  context: ResultContext | undefined;
}

/** What was cut, and how to get the rest: a sentence for the model and the same facts as fields. */
function note(cuts: readonly Cut[], { budget, dropped, paging, context }: NoteInput): JsonObject {
  const parts = cuts.map((cut, i) => {
    const where = formatPath(cut.path);
    const id = cut.firstId ? ` (${cut.firstId})` : '';
    if (i < cuts.length - 1) {
      return cut.total === 1
        ? `${where}: its only item${id}, cut as follows`
        : `${where}: only the first of its ${cut.total} items${id}, cut as follows`;
    }
    if (cut.returned === 0) {
      return `${where}: none of its ${cut.total} items, as the first${id} is over the budget on its own`;
    }
    return `${where}: the first ${cut.returned} of its ${cut.total} items`;
  });
  let sentence = `Cut to this server's budget of ${budget} tokens per result: ${parts.join('; ')}.`;
  if (dropped.length > 0) {
    sentence +=
      dropped.length > 1
        ? ` ${dropped.join(' and ')} were left out: they point past the items cut, so paging on from them would skip those.`
        : ` ${dropped[0]} was left out: it points past the items cut, so paging on from it would skip those.`;
  }
  const outer = cuts[0]!;
  const next = howToGetTheRest(outer, cuts.length === 1, paging, context);
  return {
    note: sentence,
    lists: cuts.map((cut) => ({ path: formatPath(cut.path), returned: cut.returned, total: cut.total })),
    ...next,
  };
}

/**
 * The tool's own way to the rest: a smaller page from the same cursor, so nothing is skipped, when the cut list
 * is the page and at least one item fits; else a narrower call (fewer fields, a filter). A tool that changes data
 * is never suggested again: its call took effect, only its result was cut.
 */
function howToGetTheRest(
  cut: Cut,
  pageWasCut: boolean,
  paging: Paging,
  context: ResultContext | undefined,
): { next: string; next_call?: JsonObject } {
  if (!context) return { next: 'Make a narrower call to see the rest.' };
  const { tool } = context;
  if (!tool.definition.hints.readOnlyHint) {
    return {
      next: `${tool.name} changes data and has taken effect; do not call it again for the rest of its result: read what it changed with this service's get or list tools.`,
    };
  }
  const narrower =
    paging.narrowing.length > 0 ? `ask for less with ${paging.narrowing.join(' or ')}` : undefined;
  if (pageWasCut && cut.returned > 0 && paging.pageSize) {
    const args = isObject(context.args) ? redactValue(context.args) : {};
    const cursor = paging.cursor;
    const from =
      cursor === undefined
        ? ''
        : args[cursor] === undefined
          ? ` (still without ${cursor}, as in this call)`
          : ` (the same ${cursor} as this call)`;
    return {
      next:
        `To read on without skipping any, call ${tool.name} again with the same arguments and ${paging.pageSize}: ${cut.returned}${from}: ` +
        `that page holds these ${cut.returned} items and leads on to the next; page on from it with ${paging.pageSize} at most ${cut.returned}${narrower ? `, or ${narrower}` : ''}.`,
      next_call: { name: tool.name, arguments: { ...args, [paging.pageSize]: cut.returned } },
    };
  }
  if (narrower) return { next: `To see the rest, ${narrower}.` };
  return {
    next: `${tool.name} takes no page size or field selection, so the rest cannot be read through it within this budget (the server's --max-result-tokens, at most ${MAX_RESULT_TOKENS}).`,
  };
}

/** A result with no list that can be cut to fit: its short top-level fields, and the note. */
function noListFits(
  root: JsonObject,
  budget: number,
  context: ResultContext | undefined,
  paging: Paging,
  measure: (value: JsonObject) => Fitted,
): Fitted {
  const short = (value: unknown) =>
    value === null ||
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    (typeof value === 'string' && value.length <= 200);
  const kept = Object.fromEntries(Object.entries(root).filter(([, value]) => short(value)));
  // Named up to a point: the note must stay small whatever the result held.
  const omitted = Object.keys(root)
    .filter((key) => !(key in kept))
    .slice(0, 50);
  const narrower = context?.tool.definition.hints.readOnlyHint && paging.narrowing.length > 0;
  const truncated = {
    note: `The result was over this server's budget of ${budget} tokens per result and has no list that can be cut to fit at item boundaries; only its short top-level fields are shown.`,
    omitted,
    next: narrower
      ? `To see the rest, ask for less with ${paging.narrowing.join(' or ')}.`
      : `It cannot be returned whole within this budget (the server's --max-result-tokens, at most ${MAX_RESULT_TOKENS}).`,
  };
  const fitted = measure(annotate(kept, truncated));
  return fitted.tokens !== false
    ? fitted
    : measure(annotate({}, { note: truncated.note, next: truncated.next }));
}
