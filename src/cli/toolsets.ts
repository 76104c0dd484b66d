// `switchboard toolsets [services...]`: every toolset with its tools and what its definitions cost a model in
// o200k tokens (src/runtime/tokens.ts, the count the tests and `npm run bench` use), each service's cost with its
// instructions, and the grand total. Built from the services' definitions alone: no credentials, no upstream.

import { toolListCost } from '../runtime/tokens.js';
import {
  buildToolSet,
  chooseToolsets,
  narrowToolSet,
  servedToolsets,
  type ToolSet,
} from '../runtime/toolset.js';
import { resolveServices } from '../services/registry.js';

export interface ToolsetReport {
  services: {
    id: string;
    title: string;
    /** `serve <id>`: its tool definitions and instructions. */
    tokens: { tools: number; instructions: number; total: number };
    tools: number;
    toolsets: {
      /** The selector: `store.records`. */
      name: string;
      description: string;
      tools: string[];
      /** The definitions of these tools alone; serving them adds the service's instructions. */
      tokens: number;
    }[];
  }[];
  /** `serve` of every service listed: all tool definitions and all their instructions. */
  total: { tools: number; tokens: { tools: number; instructions: number; total: number } };
}

export async function toolsetReport(names: readonly string[]): Promise<ToolsetReport> {
  const entries = resolveServices(names);
  // Only the definitions are read: a runtime's context is what a tool call would run against, and none runs.
  const whole = buildToolSet(entries.map((entry) => ({ definition: entry.definition, context: undefined })));
  const cost = (toolSet: ToolSet) => toolListCost(toolSet.listEntries, toolSet.instructions);
  const services: ToolsetReport['services'] = [];
  for (const entry of entries) {
    const service = narrowToolSet(whole, chooseToolsets(whole, [entry.id], 'switchboard toolsets'));
    const toolsets: ToolsetReport['services'][number]['toolsets'] = [];
    for (const toolset of servedToolsets(service)) {
      const subset = narrowToolSet(whole, chooseToolsets(whole, [toolset.name], 'switchboard toolsets'));
      toolsets.push({
        name: toolset.name,
        description: toolset.description,
        tools: [...toolset.tools],
        tokens: (await toolListCost(subset.listEntries)).tools,
      });
    }
    services.push({
      id: entry.id,
      title: entry.title,
      tokens: await cost(service),
      tools: service.tools.length,
      toolsets,
    });
  }
  return { services, total: { tools: whole.tools.length, tokens: await cost(whole) } };
}

const number = (value: number) => value.toLocaleString('en-US');

/** `words` joined by commas into lines of at most `LINE_WIDTH` characters, each after `indent`. */
function wrap(words: readonly string[], indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const [index, word] of words.entries()) {
    const piece = index < words.length - 1 ? `${word},` : word;
    if (line && indent.length + line.length + 1 + piece.length > LINE_WIDTH) {
      lines.push(`${indent}${line}`);
      line = piece;
    } else {
      line = line ? `${line} ${piece}` : piece;
    }
  }
  if (line) lines.push(`${indent}${line}`);
  return lines;
}

const LINE_WIDTH = 110;

export function renderToolsetReport(report: ToolsetReport): string {
  const lines: string[] = [];
  for (const service of report.services) {
    const { tokens } = service;
    lines.push(
      `${service.id}: ${service.title}, ${service.tools} tools, ${number(tokens.total)} tokens ` +
        `(${number(tokens.tools)} definitions + ${number(tokens.instructions)} instructions)`,
    );
    const width = Math.max(...service.toolsets.map((toolset) => toolset.name.length));
    for (const toolset of service.toolsets) {
      const count = `${toolset.tools.length} ${toolset.tools.length === 1 ? 'tool' : 'tools'}`;
      lines.push(
        `  ${toolset.name.padEnd(width)}  ${count.padStart(8)}  ${number(toolset.tokens).padStart(5)} tokens  ${toolset.description}`,
        ...wrap(
          toolset.tools.map((tool) => tool.slice(tool.indexOf('.') + 1)),
          '      ',
        ),
      );
    }
    lines.push('');
  }
  const { total } = report;
  lines.push(
    `Total: ${total.tools} tools, ${number(total.tokens.total)} tokens ` +
      `(${number(total.tokens.tools)} definitions + ${number(total.tokens.instructions)} instructions)`,
    '',
    'Tokens are o200k, counted as a model receives tools/list (name, title, description, input schema).',
    "A toolset's figure is its definitions; serving it adds its service's instructions.",
    'Serve some with `switchboard serve --toolsets store.records,store.comments`, or over HTTP at /mcp/store.records,store.comments.',
  );
  return `${lines.join('\n')}\n`;
}

export async function runToolsets(names: string[], options: { json: boolean }): Promise<void> {
  const report = await toolsetReport(names);
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderToolsetReport(report));
}
