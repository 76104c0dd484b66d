// Schema mode (runtime/schemaMode.ts) on its own: the two parameters every schema-mode tool takes, the request
// body document get_request_schema answers with (made once per schema), and the checks execute makes on
// request_body before anything is sent. How issues are worded is tested in validate.test.ts and
// text/zodIssues.test.ts; here, what each failure of parseRequestBody says and that success returns the body as
// the caller wrote it.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  parseRequestBody,
  requestBodyDocument,
  schemaModeShape,
  TOOL_MODES,
} from '../../src/runtime/schemaMode.js';
import { validateArguments } from '../../src/runtime/validate.js';

const Body = z.strictObject({
  name: z.string().min(1),
  size: z.number().int().default(1),
  when: z.iso.datetime().optional(),
});

describe('the schema-mode parameters', () => {
  const input = z.strictObject({ ...schemaModeShape });

  it('mode takes the two modes of the spec, and is required', () => {
    expect(TOOL_MODES).toEqual(['get_request_schema', 'execute']);
    expect(validateArguments(input, { mode: 'execute' }, 'T').ok).toBe(true);
    const wrong = validateArguments(input, { mode: 'run' }, 'T');
    expect(wrong.ok ? [] : wrong.error.issues).toEqual([
      { field: 'mode', problem: 'must be one of "get_request_schema", "execute"; got string "run"' },
    ]);
    const missing = validateArguments(input, {}, 'T');
    expect(missing.ok ? [] : missing.error.issues).toEqual([
      { field: 'mode', problem: 'required: one of "get_request_schema", "execute"' },
    ]);
  });

  it('request_body keeps JSON text as it is and turns a body given as an object into its JSON text', () => {
    const text = validateArguments(input, { mode: 'execute', request_body: '{ "name" : "a" }' }, 'T');
    expect(text.ok && text.value.request_body).toBe('{ "name" : "a" }');
    const object = validateArguments(input, { mode: 'execute', request_body: { name: 'a' } }, 'T');
    expect(object.ok && object.value.request_body).toBe('{"name":"a"}');
  });
});

describe('requestBodyDocument', () => {
  it('is an OpenAPI 3.1 Request Body Object whose schema is the input form of the zod schema', () => {
    const document = requestBodyDocument(Body);
    expect(document.required).toBe(true);
    expect(Object.keys(document.content)).toEqual(['application/json']);
    const schema = document.content['application/json'].schema;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('object');
    // Input form: a field with a default need not be sent.
    expect(schema.required).toEqual(['name']);
    expect(schema.additionalProperties).toBe(false);
    expect((schema.properties as Record<string, unknown>).when).toMatchObject({ format: 'date-time' });
  });

  it('is made once per schema and shared by every call', () => {
    expect(requestBodyDocument(Body)).toBe(requestBodyDocument(Body));
    expect(requestBodyDocument(z.object({ name: z.string() }))).not.toBe(requestBodyDocument(Body));
  });
});

describe('parseRequestBody', () => {
  const refusal = (text: string | undefined, schema: z.ZodType = Body) => {
    const parsed = parseRequestBody(text, schema, 'Svc.UpdateThing');
    if (parsed.ok) throw new Error(`${String(text)} was accepted`);
    expect(parsed.error.kind).toBe('invalid_arguments');
    return parsed.error;
  };

  it.each([[undefined], [''], ['  \n ']])(
    'refuses a missing request_body (%j) and points to schema mode',
    (text) => {
      const error = refusal(text);
      expect(error.message).toBe('Svc.UpdateThing needs request_body in execute mode.');
      expect(error.issues).toEqual([
        { field: 'request_body', problem: 'required when mode is execute (JSON text of the request body)' },
      ]);
      expect(error.hint).toBe(
        'Call Svc.UpdateThing with mode "get_request_schema" to see the request body schema.',
      );
    },
  );

  it("refuses text that is not JSON, with the parser's reason and an example", () => {
    const error = refusal('{"name": "a",}');
    expect(error.message).toBe('request_body is not valid JSON.');
    expect(error.issues).toHaveLength(1);
    expect(error.issues?.[0]?.field).toBe('request_body');
    expect(error.issues?.[0]?.problem).toMatch(/^not valid JSON: \S/);
    expect(error.hint).toMatch(
      /^Pass the body as JSON text, e\.g\. \{"name": "value"\}\. Call Svc\.UpdateThing with mode/,
    );
  });

  it('refuses a body that does not fit, counting the problems, each under request_body', () => {
    const one = refusal('{"name": ""}');
    expect(one.message).toBe('request_body does not fit the schema (1 problem); nothing was sent.');
    expect(one.issues).toEqual([
      { field: 'request_body.name', problem: 'must not be empty; got an empty string' },
    ]);
    const two = refusal('{"name": "a", "size": 1.5, "colour": "red"}');
    expect(two.message).toBe('request_body does not fit the schema (2 problems); nothing was sent.');
    expect(two.issues?.map((issue) => issue.field)).toEqual(['request_body.size', 'request_body.colour']);
    expect(two.hint).toBe(
      'Call Svc.UpdateThing with mode "get_request_schema" to see the request body schema.',
    );
  });

  it('returns the body as written: defaults are not filled in, extra keys are kept where the schema allows them', () => {
    expect(parseRequestBody('{"name": "a"}', Body, 'T')).toEqual({ ok: true, value: { name: 'a' } });
    const open = z.looseObject({ name: z.string() });
    expect(parseRequestBody('{"name": "a", "extra": [1]}', open, 'T')).toEqual({
      ok: true,
      value: { name: 'a', extra: [1] },
    });
  });

  it('checks bodies that are not objects too', () => {
    expect(parseRequestBody('[1, 2]', z.array(z.number()), 'T')).toEqual({ ok: true, value: [1, 2] });
    expect(refusal('"text"', z.array(z.number())).issues).toEqual([
      { field: 'request_body', problem: 'must be an array; got string "text"' },
    ]);
  });
});
