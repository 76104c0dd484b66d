// Playground: pick a tool, fill the form json-editor generates from its input schema, run it through the server's
// real MCP path, and see the result with the upstream requests the run caused (read from the live feed by the
// call's id). A schema-mode tool goes in the two steps an agent takes: fetch the body schema (mode
// "get_request_schema"), then execute with a body, which starts as the schema's example.

import { JSONEditor } from '@json-editor/json-editor';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, type Call, type CallToolResult, errorText, type ToolInfo } from './api.js';
import { ErrorNote, formatDuration, JsonDetails, jsonText, UpstreamTable } from './parts.js';

type Schema = Record<string, unknown>;

/** The arguments the schema-mode steps set themselves; the form leaves them out. */
const SCHEMA_MODE_ARGUMENTS = ['mode', 'request_body'];

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The tool's input schema as the form shows it: no `$schema` (json-editor reads drafts 4 to 7), no mode fields. */
function formSchema(tool: ToolInfo): Schema | undefined {
  const schema = structuredClone(tool.inputSchema);
  delete schema.$schema;
  const properties = isObject(schema.properties) ? { ...schema.properties } : {};
  if (tool.schemaMode) {
    for (const name of SCHEMA_MODE_ARGUMENTS) delete properties[name];
    if (Array.isArray(schema.required)) {
      schema.required = schema.required.filter((name) => !SCHEMA_MODE_ARGUMENTS.includes(String(name)));
    }
  }
  if (Object.keys(properties).length === 0) return undefined;
  return { ...schema, properties, title: 'Arguments' };
}

/**
 * A starting body for the schema: its first example where it gives one (the schemas give examples for the bodies
 * people most often get wrong), else the required fields with empty values of their types.
 */
export function exampleFor(schema: unknown, depth = 0): unknown {
  if (!isObject(schema) || depth > 6) return {};
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) return exampleFor(alternatives[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'array':
      return [];
    case 'string':
      return Array.isArray(schema.enum) ? schema.enum[0] : '';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default: {
      const body: Record<string, unknown> = {};
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
      for (const name of required) body[name] = exampleFor(properties[name], depth + 1);
      return body;
    }
  }
}

/** The body schema inside a get_request_schema answer: an OpenAPI Request Body Object under `request_body`. */
function bodySchemaOf(result: CallToolResult): Schema | undefined {
  let answer: unknown = result.structuredContent;
  if (answer === undefined) {
    const text = result.content?.find((part) => part.type === 'text')?.text;
    try {
      answer = text === undefined ? undefined : JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  if (!isObject(answer) || !isObject(answer.request_body)) return undefined;
  const content = answer.request_body.content;
  const json = isObject(content) ? content['application/json'] : undefined;
  return isObject(json) && isObject(json.schema) ? json.schema : undefined;
}

function resultValue(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const texts = (result.content ?? []).map((part) => part.text ?? `(${part.type})`);
  return texts.join('\n');
}

function toolGroups(tools: ToolInfo[]): [string, ToolInfo[]][] {
  const groups = new Map<string, ToolInfo[]>();
  for (const tool of tools) {
    const prefix = tool.name.split(/[._]/)[0] ?? tool.name;
    const group = groups.get(prefix) ?? [];
    group.push(tool);
    groups.set(prefix, group);
  }
  return [...groups.entries()];
}

function ArgumentsForm(props: { tool: ToolInfo; onChange: (value: Record<string, unknown>) => void }) {
  const holder = useRef<HTMLDivElement>(null);
  const schema = useMemo(() => formSchema(props.tool), [props.tool]);
  const { onChange } = props;
  const toolName = props.tool.name;

  useEffect(() => {
    onChange({});
    if (!holder.current || !schema) return;
    const editor = new JSONEditor(holder.current, {
      schema,
      theme: 'html',
      iconlib: null,
      // Optional arguments stay out of the call until ticked, as an agent would leave them out.
      show_opt_in: true,
      show_errors: 'interaction',
      disable_edit_json: true,
      disable_properties: true,
      disable_collapse: true,
      prompt_before_delete: false,
      form_name_root: 'arguments',
      // Nothing fetched at run time: a $ref to a URL stays unresolved rather than loaded.
      ajax: false,
    });
    const form = holder.current;
    // json-editor builds the form once its schema is loaded, asynchronously even with nothing to fetch.
    editor.on('ready', () => {
      // It names each opt-in box after its input's id ("arguments[x]-opt-in"); a screen reader should hear
      // what ticking it does.
      for (const box of form.querySelectorAll<HTMLInputElement>('input.json-editor-opt-in')) {
        const name = /^arguments\[(.*)\]-opt-in$/.exec(box.id)?.[1] ?? box.id;
        box.setAttribute('aria-label', `Send ${name}`);
      }
      // Says whose form is on screen now (the holder stays while tools change): for tests and scripts.
      form.dataset.readyFor = toolName;
    });
    editor.on('change', () => {
      const value = editor.getValue();
      onChange(isObject(value) ? value : {});
    });
    return () => editor.destroy();
  }, [schema, onChange, toolName]);

  if (!schema) return <p class="muted">This tool takes no arguments here.</p>;
  return <div class="arguments-form" id="arguments-form" ref={holder} />;
}

export function PlaygroundView(props: { active: boolean; calls: Call[] }) {
  const [tools, setTools] = useState<ToolInfo[] | undefined>();
  const [filter, setFilter] = useState('');
  const [toolName, setToolName] = useState('');
  const [args, setArgs] = useState<Record<string, unknown>>({});
  const [bodySchema, setBodySchema] = useState<Schema | undefined>();
  const [body, setBody] = useState('');
  const [run, setRun] = useState<{ callId: string; result: CallToolResult; step: string } | undefined>();
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    if (!props.active || tools) return;
    api.tools().then(
      (answer) => {
        setTools(answer.tools);
        setToolName((old) => old || (answer.tools[0]?.name ?? ''));
      },
      (e) => setError(errorText(e)),
    );
  }, [props.active, tools]);

  const tool = tools?.find((t) => t.name === toolName);
  const shownTools = (tools ?? []).filter(
    (t) => t.name === toolName || t.name.toLowerCase().includes(filter.trim().toLowerCase()),
  );
  const call = run ? props.calls.find((c) => c.id === run.callId) : undefined;

  const choose = (name: string) => {
    setToolName(name);
    setBodySchema(undefined);
    setBody('');
    setRun(undefined);
    setError(undefined);
  };

  const execute = async (
    step: string,
    extra: Record<string, unknown>,
    base: Record<string, unknown> = args,
  ) => {
    if (!tool) return undefined;
    setRunning(true);
    setError(undefined);
    try {
      const answer = await api.run(tool.name, { ...base, ...extra });
      setRun({ ...answer, step });
      return answer;
    } catch (e) {
      setError(errorText(e));
      return undefined;
    } finally {
      setRunning(false);
    }
  };

  const fetchSchema = async () => {
    // Exactly what an agent sends for the schema: the mode alone.
    const answer = await execute('Body schema', { mode: 'get_request_schema' }, {});
    if (!answer) return;
    const schema = bodySchemaOf(answer.result);
    if (!schema) {
      setError('The tool answered without a request body schema; see the result below.');
      return;
    }
    setBodySchema(schema);
    setBody(JSON.stringify(exampleFor(schema), null, 2));
  };

  const submit = (event: Event) => {
    event.preventDefault();
    if (!tool) return;
    if (tool.schemaMode) void execute('Execute', { mode: 'execute', request_body: body });
    else void execute('Run', {});
  };

  return (
    <>
      <h2>Playground</h2>
      <ErrorNote error={tools === undefined ? error : undefined} />
      {tools === undefined ? (
        <p class="muted">Loading the tools…</p>
      ) : (
        <form class="playground" onSubmit={submit} aria-label="Run a tool">
          <div class="tool-pick">
            <label for="tool-filter">Find a tool</label>
            <input
              id="tool-filter"
              type="search"
              value={filter}
              placeholder="part of a name"
              onInput={(e) => setFilter(e.currentTarget.value)}
            />
            <label for="tool">Tool</label>
            <select id="tool" value={toolName} onChange={(e) => choose(e.currentTarget.value)}>
              {toolGroups(shownTools).map(([prefix, group]) => (
                <optgroup key={prefix} label={prefix}>
                  {group.map((t) => (
                    <option key={t.name} value={t.name}>
                      {t.name}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </div>
          {tool ? (
            <>
              <p class="tool-description">
                {tool.title ? <strong>{tool.title}. </strong> : null}
                {tool.description}
              </p>
              {tool.schemaMode ? (
                <p class="note">
                  This tool takes a JSON request body. Step 1 fetches the body's schema (mode
                  "get_request_schema"); step 2 runs the tool with the body (mode "execute").
                </p>
              ) : null}
              <ArgumentsForm tool={tool} onChange={setArgs} />
              <details>
                <summary>Arguments as sent</summary>
                <pre id="arguments-preview">{jsonText(args)}</pre>
              </details>
              {tool.schemaMode ? (
                <>
                  <p>
                    <button type="button" id="fetch-schema" onClick={fetchSchema} disabled={running}>
                      1. Fetch the body schema
                    </button>
                  </p>
                  {bodySchema ? (
                    <>
                      <JsonDetails summary="Body schema" value={bodySchema} class="json body-schema" />
                      <label for="request-body">Request body (JSON)</label>
                      <textarea
                        id="request-body"
                        rows={Math.min(Math.max(body.split('\n').length + 1, 4), 18)}
                        spellcheck={false}
                        value={body}
                        onInput={(e) => setBody(e.currentTarget.value)}
                      />
                      <p>
                        <button type="submit" id="run" disabled={running}>
                          2. Run with this body
                        </button>
                      </p>
                    </>
                  ) : null}
                </>
              ) : (
                <p>
                  <button type="submit" id="run" disabled={running}>
                    Run
                  </button>
                </p>
              )}
            </>
          ) : null}
        </form>
      )}
      {tools === undefined ? null : <ErrorNote error={error} />}
      {run ? (
        <section class="run-result" aria-label="Result" id="run-result" data-call-id={run.callId}>
          <h3>
            {run.step}: {run.result.isError ? 'tool error' : 'ok'}
            {call ? <span class="muted"> ({formatDuration(call.durationMs)})</span> : null}
          </h3>
          <pre class={run.result.isError ? 'result result-error' : 'result'} id="run-output">
            {jsonText(resultValue(run.result))}
          </pre>
          <UpstreamTable requests={call?.upstream ?? []} caption="Upstream requests this run caused" />
        </section>
      ) : null}
    </>
  );
}
