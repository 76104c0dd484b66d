// The one measure of what a tool list costs a model, in o200k tokens (the tokenizer of current OpenAI models, and
// close to others'): the tools as a model receives them (name, title, description, input schema; annotations
// steer the client, not the model) plus the server instructions. Tests, `npm run bench` and
// `switchboard toolsets` all count with it, so their figures agree.

/** The parts of a tools/list entry that reach a model's context. */
export interface ListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: unknown;
}

export interface TokenCost {
  /** The tool definitions, serialised as one JSON array. */
  tools: number;
  instructions: number;
  total: number;
}

export type CountTokens = (text: string) => number;
/** The o200k tokens of `text` if there are at most `limit`, else false (counting stops past the limit). */
export type TokensWithin = (text: string, limit: number) => number | false;

// Texts may hold strings such as "<|endoftext|>" (sandbox data in instructions): they are plain text to a
// model's API and to this count, where the tokenizer's default would throw.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

let tokenizer: Promise<typeof import('gpt-tokenizer/encoding/o200k_base')> | undefined;
const loadTokenizer = () => {
  tokenizer ??= import('gpt-tokenizer/encoding/o200k_base');
  return tokenizer;
};

/**
 * The o200k token counter. Loaded on first use, never at server start: the tokenizer's tables take megabytes
 * and a quarter of a second, and only the commands that report costs need them.
 */
export async function tokenCounter(): Promise<CountTokens> {
  const { countTokens } = await loadTokenizer();
  return (text: string) => countTokens(text, PLAIN_TEXT);
}

/** Like tokenCounter, for a budget: it stops counting once past the limit (results, runtime/result.ts). */
export async function tokenLimitCounter(): Promise<TokensWithin> {
  const { isWithinTokenLimit } = await loadTokenizer();
  return (text: string, limit: number) => isWithinTokenLimit(text, limit, PLAIN_TEXT);
}

/**
 * The token cost of `entries` plus `instructions`, as a model receives them: the entries' name, title,
 * description and input schema as one JSON array (in that order), and the instructions as text.
 */
export async function toolListCost(entries: readonly ListedTool[], instructions = ''): Promise<TokenCost> {
  const count = await tokenCounter();
  const tools = count(
    JSON.stringify(
      entries.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema })),
    ),
  );
  const instructionTokens = instructions ? count(instructions) : 0;
  return { tools, instructions: instructionTokens, total: tools + instructionTokens };
}

/**
 * The o200k tokens of `entries` as tools/list carries them to a client, output schemas included: the figure
 * beside toolListCost's `tools` (which leaves them out, as clients do when they prompt a model; issue 13's budget
 * counts that one). The same JSON array, each entry with its `outputSchema` last where it has one.
 */
export async function toolListTokensWithOutputSchemas(
  entries: readonly (ListedTool & { outputSchema?: unknown })[],
): Promise<number> {
  const count = await tokenCounter();
  return count(
    JSON.stringify(
      entries.map(({ name, title, description, inputSchema, outputSchema }) => ({
        name,
        title,
        description,
        inputSchema,
        outputSchema,
      })),
    ),
  );
}
