// The biggest default results, in o200k tokens: every read tool of the sandbox (`serve all --sandbox`) that needs
// no arguments, or only identifiers this run can find in earlier results, called with its default arguments
// (every table, base, record... it can reach, up to a cap per tool). What an agent pays to read one result, and
// whether the result budget (`serve --max-result-tokens`, runtime/result.ts) cut it.
//
// `npm run bench -- results` measures this checkout's build; `node --import tsx bench/results.ts <cli.js>` measures
// another build (say, one of an older commit) with the same calls.

import type { Client } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer';
import { CLI, connectHttp, startChild, stop } from './support.js';

/** Most calls per tool: enough to reach every table of the sandbox bases. */
const MAX_CALLS_PER_TOOL = 40;
/** Largest results printed per server, and at most this many of one tool among them. */
const TOP = 8;
const TOP_PER_TOOL = 3;

// Store identifiers say what they are by their prefix (the server's instructions list them).
const STORE_ID = /^(app|tbl|fld|viw|rec|ach|wsp|usr|ugp|ent|inv|shr|pbd|bli|dtb|com)[A-Za-z0-9]{14}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Which kind of identifier a required parameter takes, by its name; undefined: not one this run can fill. */
function kindOfParameter(tool: string, name: string): string | undefined {
  if (tool.startsWith('IssueDesk.')) {
    // IssueDesk's lookups take an id as `value` once `lookup_by` is "id" (set below); the tool says which kind.
    if (name !== 'value') return undefined;
    return tool.includes('Team') ? 'teams' : tool.includes('Issue') ? 'issues' : undefined;
  }
  const rules: [RegExp, string][] = [
    [/data_table/, 'dtb'],
    [/scim_group|user_group/, 'ugp'],
    [/base/, 'app'],
    [/table/, 'tbl'],
    [/record/, 'rec'],
    [/view/, 'viw'],
    [/webhook/, 'ach'],
    [/workspace/, 'wsp'],
    [/enterprise/, 'ent'],
    [/interface/, 'pbd'],
    [/share/, 'shr'],
    [/user/, 'usr'],
  ];
  return rules.find(([pattern]) => pattern.test(name))?.[1];
}

/** The identifiers a call knew (its arguments) and found (in its result), by kind. */
interface Context {
  given: Map<string, string>;
  found: Map<string, string[]>;
}

/** Identifiers in a result: store ids by prefix; other ids by the list that holds them (`issues`, `teams`). */
function harvest(value: unknown, found: Map<string, string[]>, listKey?: string, key?: string): void {
  if (typeof value === 'string') {
    const kind =
      STORE_ID.exec(value)?.[1] ?? (key === 'id' && listKey && UUID.test(value) ? listKey : undefined);
    if (kind) {
      const values = found.get(kind) ?? [];
      if (!values.includes(value)) values.push(value);
      found.set(kind, values);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) harvest(item, found, key ?? listKey);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) harvest(v, found, listKey, k);
  }
}

/** Argument sets for a tool's required identifiers, from one context: the given ones, and each found one in turn. */
function argumentSets(tool: string, required: string[], context: Context): Record<string, string>[] {
  const kinds = required.map((name) => kindOfParameter(tool, name));
  if (kinds.some((kind) => kind === undefined)) return [];
  const fixed: Record<string, string> = {};
  let varying: { name: string; values: string[] } | undefined;
  for (const [i, name] of required.entries()) {
    const kind = kinds[i]!;
    const given = context.given.get(kind);
    const found = context.found.get(kind);
    if (given !== undefined) fixed[name] = given;
    else if (found && !varying) varying = { name, values: found };
    else if (found) fixed[name] = found[0]!;
    else return [];
  }
  const extra: Record<string, string> = tool.startsWith('IssueDesk.') ? { lookup_by: 'id' } : {};
  if (!varying) return [{ ...extra, ...fixed }];
  const { name, values } = varying;
  return values.map((value) => ({ ...extra, ...fixed, [name]: value }));
}

interface Measured {
  tool: string;
  args: Record<string, string>;
  chars: number;
  tokens: number;
  cut: boolean;
}

async function measureServer(client: Client): Promise<Measured[]> {
  const { tools } = await client.listTools();
  const reads = tools.filter((tool) => tool.annotations?.readOnlyHint);
  // The sandbox's instructions name ids no read tool lists (the bulk data table and its account).
  const fromInstructions = new Map<string, string[]>();
  const idInText = new RegExp(STORE_ID.source.slice(1, -1), 'g');
  for (const [id] of (client.getInstructions() ?? '').matchAll(idInText)) harvest(id, fromInstructions);
  const contexts: Context[] = [{ given: new Map(), found: fromInstructions }];
  const measured: Measured[] = [];
  const calls = new Map<string, number>();
  const tried = new Set<string>();
  // Rounds: each finds identifiers the next can use (bases, then their tables, then records...).
  for (let progress = true; progress; ) {
    progress = false;
    for (const tool of reads) {
      const required = (tool.inputSchema.required ?? []).filter((name) => name !== 'lookup_by');
      const sets =
        required.length === 0
          ? [{}]
          : contexts.flatMap((context) => argumentSets(tool.name, required, context));
      for (const args of sets) {
        // The same ids found in two orders are one call.
        const key = `${tool.name} ${JSON.stringify(Object.entries(args).sort())}`;
        if (tried.has(key) || (calls.get(tool.name) ?? 0) >= MAX_CALLS_PER_TOOL) continue;
        tried.add(key);
        calls.set(tool.name, (calls.get(tool.name) ?? 0) + 1);
        progress = true;
        const result = await client.callTool({ name: tool.name, arguments: args });
        if (result.isError) continue;
        const text = (result.content as { type: string; text?: string }[])
          .map((part) => part.text ?? '')
          .join('');
        const given = new Map<string, string>();
        for (const [name, value] of Object.entries(args)) {
          const kind = kindOfParameter(tool.name, name);
          if (kind) given.set(kind, value);
        }
        const found = new Map<string, string[]>();
        harvest(result.structuredContent, found);
        contexts.push({ given, found });
        const structured = result.structuredContent as Record<string, unknown> | undefined;
        measured.push({
          tool: tool.name,
          args,
          chars: text.length,
          tokens: countTokens(text, { disallowedSpecial: new Set() }),
          cut: structured !== undefined && 'truncated' in structured,
        });
      }
    }
  }
  const unreached = reads.filter((tool) => !calls.has(tool.name)).map((tool) => tool.name);
  if (unreached.length > 0) {
    console.log(`  read tools not called (they need more than ids this run finds): ${unreached.join(', ')}`);
  }
  return measured.sort((a, b) => b.tokens - a.tokens);
}

export async function benchResults(cli = CLI, serveFlags: string[] = []) {
  console.log(
    `\nBiggest default results (sandbox, o200k tokens of the text content; ${[cli, ...serveFlags].join(' ')})`,
  );
  const server = startChild(
    [cli, 'serve', 'all', '--sandbox', '--data-dir', ':memory:', '--transport', 'http', '--port', '0'].concat(
      serveFlags,
    ),
    { SWITCHBOARD_LOG_LEVEL: 'warn' },
    /MCP endpoint \(Streamable HTTP\): (\S+)/,
    { raw: true },
  );
  try {
    const [, mcpUrl] = await server.ready;
    const client = await connectHttp(mcpUrl!);
    const measured = await measureServer(client);
    await client.close();
    for (const prefix of ['IssueDesk', 'MessagingTrackApi', 'StoreApi']) {
      const ours = measured.filter((m) => m.tool.startsWith(`${prefix}.`));
      const tools = new Set(ours.map((m) => m.tool)).size;
      const cut = ours.filter((m) => m.cut).length;
      console.log(
        `${prefix}: ${ours.length} successful calls of ${tools} read tools, ${cut} cut by the result budget`,
      );
      const perTool = new Map<string, number>();
      const top = ours.filter((m) => {
        const n = perTool.get(m.tool) ?? 0;
        perTool.set(m.tool, n + 1);
        return n < TOP_PER_TOOL;
      });
      for (const m of top.slice(0, TOP)) {
        console.log(
          `  ${String(m.tokens).padStart(7)} tokens ${String(m.chars).padStart(8)} chars  ${m.tool} ${JSON.stringify(m.args)}${m.cut ? '  (cut by the result budget)' : ''}`,
        );
      }
    }
  } finally {
    await stop(server.child);
  }
}

// Run alone: `node --import tsx bench/results.ts [path/to/dist/cli/main.js] [serve flags...]`, e.g. with
// `--max-result-tokens 5000` to see the cut at work on the sandbox's bigger lists.
if (import.meta.url === `file://${process.argv[1]}`) {
  benchResults(process.argv[2] || CLI, process.argv.slice(3)).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
