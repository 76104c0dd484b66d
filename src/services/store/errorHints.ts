// What to change after the data store refused a request as invalid (422), by the upstream's error type: the
// closest field names for an unknown field, the field's options (or `typecast`) for an unknown select option,
// the position for a formula. The upstream's message names the field or option but not what would be right;
// that comes from one best-effort read of the base schema (GET /v0/meta/bases/{baseId}/tables, a short timeout,
// skipped silently when it fails, e.g. for a token without schema.bases:read): one request on a call that
// failed anyway, and it saves the agent the round trip it would otherwise spend on the same read.

import { distance } from 'fastest-levenshtein';
import type { ToolError } from '../../runtime/errors.js';
import type { UpstreamClient, UpstreamRequest } from '../../runtime/http.js';
import { FormulaSyntaxError } from './formula/errors.js';
import { parseFormula } from './formula/parser.js';

/** How long the schema read may take; the agent is waiting for an error, not for the best hint. */
export const SCHEMA_READ_TIMEOUT_MS = 3000;
/** ListStoreRecords is the one tool that sends a formula (filterByFormula), as this argument. */
const FORMULA_ARGUMENT = 'filter_by_formula';
const SCHEMA_TOOL = 'StoreApi.GetStoreBaseSchema';
const MAX_LISTED = 40;

interface SchemaField {
  id: string;
  name: string;
  type?: string;
  options?: { choices?: { name?: string }[] };
}
interface SchemaTable {
  id: string;
  name: string;
  fields: SchemaField[];
}

export async function explainStoreError(
  error: ToolError,
  request: UpstreamRequest,
  client: UpstreamClient,
): Promise<ToolError> {
  const table = () => readTable(client, request);
  switch (error.upstreamCode) {
    case 'UNKNOWN_FIELD_NAME':
      return unknownField(error, quoted(error.upstreamMessage), await table());
    case 'INVALID_MULTIPLE_CHOICE_OPTIONS':
      return unknownOption(error, request, await table());
    case 'INVALID_FILTER_BY_FORMULA': {
      const unknown = /Unknown field names?:\s*(.+)$/i.exec(error.upstreamMessage ?? '')?.[1];
      return formula(error, request, unknown ? await table() : undefined);
    }
    default:
      return error;
  }
}

function unknownField(error: ToolError, names: string[], table: SchemaTable | undefined): ToolError {
  const fieldNames = table?.fields.map((field) => field.name) ?? [];
  const parts = names.map((name) => `No field ${JSON.stringify(name)}${suggest(name, fieldNames, table)}`);
  const exact = 'Field names must match exactly (case and spaces count); ids (fld…) survive renames.';
  return error.with({
    hint: `${parts.join('; ') || 'A field name is unknown'}. ${exact}${table ? '' : ` ${SCHEMA_TOOL} lists the fields.`} Correct the name and call again.`,
  });
}

/** " in table T; closest: "A", "B"" or the table's fields when none is close. */
function suggest(name: string, fieldNames: readonly string[], table: SchemaTable | undefined): string {
  if (!table) return '';
  const close = closestNames(name, fieldNames);
  if (close.length > 0) return ` in table ${JSON.stringify(table.name)}; closest: ${quoteList(close)}`;
  return ` in table ${JSON.stringify(table.name)}, nor one close to it; its fields: ${listed(fieldNames)}`;
}

function unknownOption(
  error: ToolError,
  request: UpstreamRequest,
  table: SchemaTable | undefined,
): ToolError {
  const option = unquote(/select option\s+(.+)$/i.exec(error.upstreamMessage ?? '')?.[1] ?? '');
  // The message names the option, not the field: the field is the one the request gave that value.
  const fieldName = option ? fieldHolding(request.body, option) : undefined;
  const field = table?.fields.find((f) => f.name === fieldName || f.id === fieldName);
  const choices = (field?.options?.choices ?? []).flatMap((choice) => (choice.name ? [choice.name] : []));
  const value = option ? JSON.stringify(option) : 'A value';
  const where = fieldName ? `field ${JSON.stringify(field?.name ?? fieldName)}` : 'its select field';
  const close = closestNames(option, choices);
  const options =
    choices.length > 0
      ? `Its options: ${listed(choices)}${close.length > 0 ? ` (closest: ${quoteList(close)})` : ''}.`
      : `${SCHEMA_TOOL} lists each field's options.`;
  const typecast = (request.body as { typecast?: unknown } | undefined)?.typecast === true;
  const fix = typecast
    ? 'typecast was already true, so the token may not create options (that needs creator permission on the base): use one of the options.'
    : 'Use one of them, or add "typecast": true to request_body to have the upstream create the option (it needs creator permission on the base).';
  return error.with({ hint: `${value} is not an option of ${where}. ${options} ${fix}` });
}

function formula(error: ToolError, request: UpstreamRequest, table: SchemaTable | undefined): ToolError {
  const source = formulaOf(request);
  const message = error.upstreamMessage ?? '';
  const unknown = /Unknown field names?:\s*(.+)$/i.exec(message)?.[1];
  if (unknown) {
    const names = unknown
      .split(',')
      .map((name) => unquote(name.trim()))
      .filter(Boolean);
    const fieldNames = table?.fields.map((field) => field.name) ?? [];
    const parts = names.map((name) => `No field ${JSON.stringify(name)}${suggest(name, fieldNames, table)}`);
    return error.with({
      issues: [{ field: FORMULA_ARGUMENT, problem: `unknown field names: ${names.join(', ')}` }],
      hint: `${parts.join('; ')}. In a formula a field is {Field name} (exact, case and spaces count)${table ? '' : `; ${SCHEMA_TOOL} lists the fields`}. Correct it and call again.`,
    });
  }
  // The position: from the upstream's message when it gives one (the emulator does); the public upstream says
  // only "Invalid formula", so the formula is parsed here with the emulator's parser of the same language.
  let position = Number(/position (\d+)/i.exec(message)?.[1] ?? Number.NaN);
  let reason = message.replace(/^The formula for filtering records is invalid:\s*/i, '');
  let ours = false;
  if (Number.isNaN(position) && source !== undefined) {
    try {
      parseFormula(source);
    } catch (parseError) {
      if (parseError instanceof FormulaSyntaxError && parseError.position !== undefined) {
        position = parseError.position + 1;
        reason = parseError.message;
        ours = true;
      }
    }
  }
  if (Number.isNaN(position) || source === undefined) {
    return error.with({
      issues: [{ field: FORMULA_ARGUMENT, problem: reason || 'invalid formula' }],
      hint: 'Check function names and their argument counts, quotes, commas and parentheses; a field is {Field name}. Correct the formula and call again.',
    });
  }
  const where = reason.includes(`position ${position}`) ? '' : ` at position ${position}`;
  const problem = `${ours ? 'Switchboard’s parser finds: ' : ''}${reason}${where} (marked: ${pointAt(source, position)})`;
  return error.with({
    issues: [{ field: FORMULA_ARGUMENT, problem }],
    hint: `The formula is invalid at position ${position} (1-based, marked «»). Check the parentheses, commas and quotes there; a field is {Field name}. Correct it and call again.`,
  });
}

/** The formula around a 1-based position with the character there marked: `NOPE«(»{Name}`. */
export function pointAt(source: string, position: number): string {
  const index = Math.min(Math.max(position - 1, 0), source.length);
  const start = Math.max(0, index - 40);
  const before = `${start > 0 ? '…' : ''}${source.slice(start, index)}`;
  const at = source.slice(index, index + 1);
  const after = source.slice(index + 1, index + 31);
  return `${before}«${at || 'end'}»${after}${index + 31 < source.length ? '…' : ''}`;
}

/** The formula sent: in the query of GET list, or in the body of its POST twin. */
function formulaOf(request: UpstreamRequest): string | undefined {
  const fromQuery = request.query?.filterByFormula;
  if (typeof fromQuery === 'string') return fromQuery;
  const fromBody = (request.body as { filterByFormula?: unknown } | undefined)?.filterByFormula;
  return typeof fromBody === 'string' ? fromBody : undefined;
}

/** The name of the field whose value in the request body is (or holds) `option`. */
function fieldHolding(body: unknown, option: string): string | undefined {
  const { records, fields } = (body ?? {}) as { records?: unknown; fields?: unknown };
  const cells = [
    ...(Array.isArray(records) ? records.map((record) => (record as { fields?: unknown })?.fields) : []),
    fields,
  ];
  for (const cell of cells) {
    if (!cell || typeof cell !== 'object') continue;
    for (const [name, value] of Object.entries(cell)) {
      if (value === option || (Array.isArray(value) && value.includes(option))) return name;
    }
  }
  return undefined;
}

async function readTable(client: UpstreamClient, request: UpstreamRequest): Promise<SchemaTable | undefined> {
  const baseId = request.params?.baseId;
  const wanted = request.params?.tableIdOrName ?? request.params?.tableId;
  if (baseId === undefined || wanted === undefined) return undefined;
  const timeout = AbortSignal.timeout(SCHEMA_READ_TIMEOUT_MS);
  try {
    const response = await client.request<{ tables?: SchemaTable[] }>({
      method: 'GET',
      path: '/v0/meta/bases/{baseId}/tables',
      params: { baseId },
      signal: request.signal ? AbortSignal.any([request.signal, timeout]) : timeout,
    });
    const tables = Array.isArray(response.body?.tables) ? response.body.tables : [];
    return tables.find((table) => table.id === String(wanted) || table.name === String(wanted));
  } catch {
    // Best effort: the hint then points to the schema tool instead.
    return undefined;
  }
}

/** Names within a few edits of `wanted` (case ignored), or containing it, closest first; at most three. */
export function closestNames(wanted: string, names: readonly string[]): string[] {
  const target = wanted.trim().toLowerCase();
  if (target === '') return [];
  const maxEdits = Math.max(2, Math.floor(target.length / 3));
  return names
    .map((name) => {
      const candidate = name.toLowerCase();
      const contains = target.length >= 3 && (candidate.includes(target) || target.includes(candidate));
      return { name, edits: distance(target, candidate), contains };
    })
    .filter((scored) => scored.edits <= maxEdits || scored.contains)
    .sort((a, b) => a.edits - b.edits || a.name.localeCompare(b.name))
    .slice(0, 3)
    .map((scored) => scored.name);
}

/** The quoted names in an upstream message (`Unknown field name: "X"`), or its text after the colon. */
function quoted(message: string | undefined): string[] {
  const names = [...(message ?? '').matchAll(/"+([^"]+)"+/g)].map((match) => match[1]!);
  if (names.length > 0) return names;
  const rest = /:\s*(.+)$/.exec(message ?? '')?.[1]?.trim();
  return rest ? [rest] : [];
}

/** The upstream doubles the quotes around an option (`""Foo""`); the emulator quotes once. */
function unquote(text: string): string {
  return text.trim().replace(/^"+|"+$/g, '');
}

function quoteList(names: readonly string[]): string {
  return names.map((name) => JSON.stringify(name)).join(', ');
}

function listed(names: readonly string[]): string {
  const shown = quoteList(names.slice(0, MAX_LISTED));
  return names.length > MAX_LISTED ? `${shown} and ${names.length - MAX_LISTED} more` : shown;
}
