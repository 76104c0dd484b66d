// Schema mode, shared by every mirroring tool whose upstream call takes a JSON body: the tool takes `mode` and
// `request_body`; `get_request_schema` answers with the body's schema (an OpenAPI 3.1 Request Body Object whose
// schema is JSON Schema 2020-12), and `execute` parses `request_body` and checks it against the same zod schema
// before anything is sent. The JSON Schema is generated once per body schema, not per call.

import { z } from 'zod';
import { describeIssues, REPORT_INPUT } from '../text/zodIssues.js';
import { invalidArguments, type ToolError } from './errors.js';

export const TOOL_MODES = ['get_request_schema', 'execute'] as const;
export type ToolMode = (typeof TOOL_MODES)[number];

/**
 * `request_body` as models send it. The spec's form is JSON text, but models often pass the body itself (an
 * object, or an array where the body is one): that is taken as its JSON text, so it is checked and sent exactly
 * as given. null counts as not given. Published as a plain string (the preprocess step does not show in the JSON
 * Schema): the text form stays the documented one, and `anyOf` would cost tokens in every tools/list.
 */
const requestBodyParameter = z.preprocess(
  (value) => (value === null ? undefined : typeof value === 'object' ? JSON.stringify(value) : value),
  z.string({ error: 'JSON text of the request body' }).optional(),
);

/** The two parameters every schema-mode tool has, in the spec's words. */
export const schemaModeShape = {
  // Each schema-mode tool says how the modes work in its own definition (clients may drop the server
  // instructions), once, here: a `mode` description would cost more tokens per tool than this one clause,
  // which 53 tools repeat. The mode enum beside it says what the other mode is; the instructions and the
  // execute-mode error ("needs request_body in execute mode") say the rest.
  mode: z.enum(TOOL_MODES),
  request_body: requestBodyParameter.describe('JSON; get_request_schema first'),
};

/** An OpenAPI 3.1 Request Body Object. */
export interface RequestBodyDocument {
  description?: string;
  required: true;
  content: { 'application/json': { schema: Record<string, unknown> } };
}

const documents = new WeakMap<z.ZodType, RequestBodyDocument>();

export function requestBodyDocument(schema: z.ZodType): RequestBodyDocument {
  let document = documents.get(schema);
  if (!document) {
    const jsonSchema = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }) as Record<
      string,
      unknown
    >;
    document = { required: true, content: { 'application/json': { schema: jsonSchema } } };
    documents.set(schema, document);
  }
  return document;
}

/**
 * Parses and checks `request_body` for execute mode. Returns the parsed value as the caller wrote it (defaults
 * are not filled in and unknown keys are kept where the schema allows them, so what is sent is what was given),
 * or a ToolError naming each problem and pointing to schema mode.
 */
export function parseRequestBody(
  text: string | undefined,
  schema: z.ZodType,
  toolName: string,
): { ok: true; value: unknown } | { ok: false; error: ToolError } {
  const schemaHint = `Call ${toolName} with mode "get_request_schema" to see the request body schema.`;
  if (text === undefined || text.trim() === '') {
    return {
      ok: false,
      error: invalidArguments(
        `${toolName} needs request_body in execute mode.`,
        [{ field: 'request_body', problem: 'required when mode is execute (JSON text of the request body)' }],
        schemaHint,
      ),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: invalidArguments(
        `request_body is not valid JSON.`,
        [{ field: 'request_body', problem: `not valid JSON: ${(error as Error).message}` }],
        `Pass the body as JSON text, e.g. {"name": "value"}. ${schemaHint}`,
      ),
    };
  }
  const checked = schema.safeParse(value, REPORT_INPUT);
  if (checked.success) return { ok: true, value };
  const issues = describeIssues(checked.error.issues, 'request_body', schema);
  return {
    ok: false,
    error: invalidArguments(
      `request_body does not fit the schema (${issues.length} problem${issues.length === 1 ? '' : 's'}); nothing was sent.`,
      issues,
      schemaHint,
    ),
  };
}
