// Confirmation by elicitation: where a tool call would otherwise stop at an uncertain lookup (IssueDesk's
// `needs_confirmation`) or run a destructive tool unasked, a client that can show a form to its user gets a
// structured question, and the answer completes the call. Written once as a multi-round-trip handler
// (`inputRequired`): on 2026-07-28 the client fulfils it and retries with `inputResponses`; on 2025 revisions the
// SDK's legacy shim sends `elicitation/create` over the same connection and re-enters the handler with the answer.
// Clients that cannot answer (no `elicitation` form capability, or a 2025 call over stateless HTTP, where the
// per-request server never saw `initialize` and has no channel for a server-to-client request) get today's results.
//
// requestState carries only what the client could send itself as tool arguments (the tool's name and the
// candidates' ready-made arguments), so a client that forges it gains nothing it could not do with a plain
// tools/call; confirmation protects the user from a model's mistake, not the server from its client.

import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ToolError } from './errors.js';
import { errorResult } from './result.js';
import type { PreparedTool } from './toolset.js';

/** The inputRequests keys: which candidate the user picked, and whether they confirmed a destructive call. */
const PICK = 'candidate';
const CONFIRM = 'confirm';

/** How long a destructive call's arguments may be in the question before they are cut. */
const MAX_ARGUMENTS_SHOWN = 600;

interface Choice {
  id: string;
  title: string;
  arguments: Record<string, unknown>;
}

type Step =
  | { step: 'confirm'; tool: string }
  | { step: 'pick'; tool: string; query: string; parameter: string; choices: Choice[] };

/** One tool run with the given arguments, as runToolCall does it. */
export type RunTool = (args: unknown) => Promise<CallToolResult>;

/**
 * Runs `tool`, asking the user where the client can ask: before a destructive tool (unless `confirmDestructive`
 * is off) and when the result is a `needs_confirmation` lookup. Otherwise the call is exactly today's.
 */
export async function callWithConfirmation(
  tool: PreparedTool,
  args: unknown,
  ctx: ServerContext,
  server: Server,
  confirmDestructive: boolean,
  run: RunTool,
): Promise<CallToolResult | InputRequiredResult> {
  if (!canElicitForm(ctx, server)) return run(args);
  const state = readState(ctx, tool.name);
  if (state?.step === 'pick') {
    const answer = inputResponse(ctx.mcpReq.inputResponses, PICK);
    if (answer.kind !== 'elicit') return askPick(state);
    if (answer.action !== 'accept')
      return declined(tool, `to choose what ${JSON.stringify(state.query)} means`);
    const picked = answer.content?.[PICK];
    const choice = state.choices.find((candidate) => candidate.id === picked);
    if (!choice) {
      return errorResult(
        new ToolError({
          kind: 'invalid_arguments',
          message: `The answer named ${JSON.stringify(picked)}, which is not one of the candidates offered for \`${state.parameter}\`.`,
          hint: 'Answer with one of the offered candidates, or call the tool again with a more specific value.',
          retryable: false,
        }),
        tool.name,
      );
    }
    return runAndAsk(tool, choice.arguments, run);
  }
  if (state?.step === 'confirm') {
    const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM);
    if (answer.kind !== 'elicit') return askConfirm(tool, args);
    if (answer.action !== 'accept' || answer.content?.[CONFIRM] !== true) {
      return declined(tool, `to run ${tool.name}`);
    }
    return runAndAsk(tool, args, run);
  }
  if (confirmDestructive && tool.definition.hints.destructiveHint) return askConfirm(tool, args);
  return runAndAsk(tool, args, run);
}

/**
 * Whether the client declared form elicitation: per request on 2026-07-28 (the `_meta` envelope), in `initialize`
 * on 2025 revisions. A bare `elicitation: {}` means form mode (MCP 2025-11-25, Elicitation capabilities).
 */
function canElicitForm(ctx: ServerContext, server: Server): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities: ClientCapabilities | undefined = envelope
    ? (envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)
    : server.getClientCapabilities();
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** Runs the call; a `needs_confirmation` result becomes the question, anything else is returned as it is. */
async function runAndAsk(
  tool: PreparedTool,
  args: unknown,
  run: RunTool,
): Promise<CallToolResult | InputRequiredResult> {
  const result = await run(args);
  const pick = pickStep(result, tool.name);
  return pick ? askPick(pick) : result;
}

/** The question a `needs_confirmation` result asks, when it is one whose candidates can be run as they stand. */
function pickStep(result: CallToolResult, toolName: string): Extract<Step, { step: 'pick' }> | undefined {
  if (result.isError) return undefined;
  const content = result.structuredContent as Record<string, unknown> | undefined;
  if (content?.status !== 'needs_confirmation' || !Array.isArray(content.candidates)) return undefined;
  const choices: Choice[] = [];
  for (const candidate of content.candidates as Record<string, unknown>[]) {
    const next = candidate.next_call as { tool?: unknown; arguments?: unknown } | undefined;
    // A candidate that names another tool (the discovery mode's call_tool runs inner tools) is not this call's
    // to complete: leave the result to the model as it is.
    if (typeof candidate.id !== 'string' || next?.tool !== toolName || !isRecord(next.arguments))
      return undefined;
    choices.push({ id: candidate.id, title: candidateTitle(candidate), arguments: next.arguments });
  }
  if (choices.length === 0) return undefined;
  return {
    step: 'pick',
    tool: toolName,
    query: String(content.query ?? ''),
    parameter: String(content.parameter ?? 'value'),
    choices,
  };
}

/** What the user sees for a candidate: an issue's number and title, a person's name and email, a team's name. */
function candidateTitle(candidate: Record<string, unknown>): string {
  if (typeof candidate.title === 'string') return candidate.title;
  const name =
    typeof candidate.name === 'string' && candidate.name !== '' ? candidate.name : String(candidate.id);
  return typeof candidate.email === 'string' ? `${name} <${candidate.email}>` : name;
}

function askPick(step: Extract<Step, { step: 'pick' }>): InputRequiredResult {
  return inputRequired({
    inputRequests: {
      [PICK]: inputRequired.elicit({
        mode: 'form',
        message: `${step.tool}: ${step.choices.length} could match ${JSON.stringify(step.query)} (\`${step.parameter}\`), none with certainty. Which one did you mean? Nothing is done until you choose.`,
        requestedSchema: {
          type: 'object',
          properties: {
            [PICK]: {
              type: 'string',
              title: 'Which one',
              oneOf: step.choices.map((choice) => ({ const: choice.id, title: choice.title })),
            },
          },
          required: [PICK],
        },
      }),
    },
    requestState: JSON.stringify(step),
  });
}

function askConfirm(tool: PreparedTool, args: unknown): InputRequiredResult {
  const shown = JSON.stringify(args ?? {});
  const argumentsText =
    shown.length > MAX_ARGUMENTS_SHOWN ? `${shown.slice(0, MAX_ARGUMENTS_SHOWN)}…` : shown;
  const step: Step = { step: 'confirm', tool: tool.name };
  return inputRequired({
    inputRequests: {
      [CONFIRM]: inputRequired.elicit({
        mode: 'form',
        message: `${tool.name} may delete or overwrite data upstream, which cannot be undone. Run it with ${argumentsText}?`,
        requestedSchema: {
          type: 'object',
          properties: {
            [CONFIRM]: {
              type: 'boolean',
              title: `Run ${tool.name}`,
              description: 'Check to run it; decline to leave everything as it is.',
              default: false,
            },
          },
          required: [CONFIRM],
        },
      }),
    },
    requestState: JSON.stringify(step),
  });
}

function declined(tool: PreparedTool, what: string): CallToolResult {
  return errorResult(
    new ToolError({
      kind: 'declined',
      message: `The user declined ${what}; nothing was done.`,
      hint: 'Do not retry this call on your own: ask the user what they want instead.',
      retryable: false,
    }),
    tool.name,
  );
}

/** The step this round continues, from the state the previous round returned; undefined on a first round. */
function readState(ctx: ServerContext, toolName: string): Step | undefined {
  const raw = ctx.mcpReq.requestState<unknown>();
  if (raw === undefined) return undefined;
  let state: unknown;
  try {
    state = typeof raw === 'string' ? JSON.parse(raw) : undefined;
  } catch {
    state = undefined;
  }
  if (isStep(state) && state.tool === toolName) return state;
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
    reason: 'invalid_request_state',
  });
}

function isStep(value: unknown): value is Step {
  if (!isRecord(value) || typeof value.tool !== 'string') return false;
  if (value.step === 'confirm') return true;
  return (
    value.step === 'pick' &&
    typeof value.query === 'string' &&
    typeof value.parameter === 'string' &&
    Array.isArray(value.choices) &&
    value.choices.every(
      (choice) =>
        isRecord(choice) &&
        typeof choice.id === 'string' &&
        typeof choice.title === 'string' &&
        isRecord(choice.arguments),
    )
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
