// docs/coverage.md, in the manner of moto's coverage report: for each service, every operation of its endpoint table
// (services/<id>/endpoints.ts) with its method and path, the tools that call it, and whether the service's emulator
// serves it. `npm run docs` writes it; test/inventory/routes.test.ts holds each emulator's routes against its table
// and fails when the committed copy is stale.
//
// Generic over the registry's services: the table is the `*_OPERATIONS` export of endpoints.ts, the emulator the
// `create*Emulator` export of emulator/app.ts (built in-process; its routes are Hono's own `app.routes`), which may
// also export HOST_PREFIXES (where it mounts its areas again, e.g. messaging's EU host) and EMULATOR_ONLY_ROUTES
// (routes outside /_emulator that are its own and no upstream operation). A service without endpoints.ts is left
// out (undefined), so a service can be added before its table exists.
//
// Which tools call an operation is read from the source, as the tools carry no list of the operations their
// handlers reach: a tool's part of its file (from its `name:` to the next tool's) and, through the functions it
// calls by name (the upstream client's methods, resolvers), whatever those reference, transitively. This is
// approximate by nature (a call is matched by name), and says "by reference in the source" where it is shown.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ServiceRuntime } from '../runtime/tool.js';

export const COVERAGE_FILE = 'docs/coverage.md';

export interface RouteRef {
  method: string;
  path: string;
}

export interface OperationCoverage extends RouteRef {
  name: string;
  /** Tools whose code reaches it, as `Prefix.Name`. */
  tools: string[];
  /** Other modules of the service that reference it (the upstream client, OAuth), by file name. */
  elsewhere: string[];
  emulated: boolean;
}

export interface ServiceCoverage {
  id: string;
  title: string;
  operations: OperationCoverage[];
  /** The emulator's routes outside /_emulator that match no operation of the table (with their Hono paths). */
  unmatchedRoutes: RouteRef[];
  /** Routes the emulator declares its own (EMULATOR_ONLY_ROUTES), in the table's path syntax, and whether served. */
  emulatorOnly: (RouteRef & { served: boolean })[];
}

const SERVICES_DIR = fileURLToPath(new URL('../services/', import.meta.url));
const CONTROL_PREFIX = '/_emulator';

/**
 * A path's shape for matching: parameters as `{}` whether written `{name}` or Hono's `:name` (with or without a
 * `{regex}`), mount prefixes and a trailing slash removed.
 */
export function routeShape(path: string, prefixes: readonly string[] = []): string {
  // Hono's `:name{regex}` first: the pattern may hold a slash (`[^/]`).
  let shape = path.replace(/(:\w+)\{(?:[^{}]|\{[^{}]*\})*\}/g, '$1');
  for (const prefix of prefixes) {
    if (prefix !== '/' && (shape === prefix || shape.startsWith(`${prefix}/`))) {
      shape = shape.slice(prefix.length) || '/';
      break;
    }
  }
  shape = shape
    .split('/')
    .map((segment) => (/^\{\w+\}$/.test(segment) || segment.startsWith(':') ? '{}' : segment))
    .join('/');
  return shape.length > 1 && shape.endsWith('/') ? shape.slice(0, -1) : shape;
}

/** A module of the service's slice, from source (tsx, vitest) or built (dist); undefined when it has none. */
function moduleOf(id: string, name: string): string | undefined {
  const file = ['ts', 'js'].map((ext) => join(SERVICES_DIR, id, `${name}.${ext}`)).find((f) => existsSync(f));
  return file === undefined ? undefined : pathToFileURL(file).href;
}

const key = (method: string, path: string, prefixes: readonly string[] = []) =>
  `${method.toUpperCase()} ${routeShape(path, prefixes)}`;

interface EmulatorModule {
  app: { routes: readonly RouteRef[] };
  close?: () => void;
}

/** Coverage of one service, or undefined when it has no endpoint table yet. */
export async function serviceCoverage(runtime: ServiceRuntime): Promise<ServiceCoverage | undefined> {
  const { id, title, prefix, tools } = runtime.definition;
  const dir = join(SERVICES_DIR, id);
  const endpointsModule = moduleOf(id, 'endpoints');
  const appModule = moduleOf(id, 'emulator/app');
  if (endpointsModule === undefined) return undefined;
  if (appModule === undefined) throw new Error(`services/${id} has no emulator/app module`);
  // Computed specifiers: which services exist is the registry's to say, not this file's.
  const endpoints = (await import(/* @vite-ignore */ endpointsModule)) as Record<string, unknown>;
  const tableName = Object.keys(endpoints).find((name) => name.endsWith('_OPERATIONS'));
  if (!tableName) throw new Error(`services/${id}/endpoints.ts exports no *_OPERATIONS table`);
  const table = endpoints[tableName] as Record<string, RouteRef>;

  const emulatorModule = (await import(/* @vite-ignore */ appModule)) as Record<string, unknown>;
  const factory = Object.entries(emulatorModule).find(
    ([name, value]) => /^create\w*Emulator$/.test(name) && typeof value === 'function',
  )?.[1] as (() => EmulatorModule) | undefined;
  if (!factory) throw new Error(`services/${id}/emulator/app.ts exports no create…Emulator function`);
  const prefixes = (emulatorModule.HOST_PREFIXES as readonly string[] | undefined) ?? [];
  const emulatorOnly = (emulatorModule.EMULATOR_ONLY_ROUTES as readonly RouteRef[] | undefined) ?? [];
  const emulator = factory();
  let served: RouteRef[];
  try {
    served = emulator.app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.startsWith(CONTROL_PREFIX))
      .map((r) => ({ method: r.method, path: r.path }));
  } finally {
    emulator.close?.();
  }
  const servedKeys = new Set(served.map((r) => key(r.method, r.path, prefixes)));
  const tableKeys = new Set(Object.values(table).map((op) => key(op.method, op.path)));
  const ownKeys = new Set(emulatorOnly.map((r) => key(r.method, r.path)));
  const unmatched = new Map<string, RouteRef>();
  for (const route of served) {
    const routeKey = key(route.method, route.path, prefixes);
    if (!tableKeys.has(routeKey) && !ownKeys.has(routeKey) && !unmatched.has(routeKey)) {
      unmatched.set(routeKey, route);
    }
  }

  const usage = operationUsage(
    dir,
    tableName,
    tools.map((tool) => tool.name),
  );
  return {
    id,
    title,
    operations: Object.entries(table).map(([name, op]) => ({
      name,
      method: op.method,
      path: op.path,
      tools: (usage.tools.get(name) ?? []).map((tool) => `${prefix}.${tool}`),
      elsewhere: usage.elsewhere.get(name) ?? [],
      emulated: servedKeys.has(key(op.method, op.path)),
    })),
    unmatchedRoutes: [...unmatched.values()],
    emulatorOnly: emulatorOnly.map((r) => ({
      method: r.method,
      path: r.path,
      served: servedKeys.has(key(r.method, r.path)),
    })),
  };
}

// --- which code references which operation ------------------------------------------------------------------

interface Unit {
  name: string;
  file: string;
  body: string;
}

/** The service's own source, without its emulator and its table. */
function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'emulator') files.push(...sourceFiles(path));
    } else if (
      /\.(ts|js)$/.test(entry.name) &&
      !/\.d\.ts$/.test(entry.name) &&
      !/^endpoints\./.test(entry.name)
    ) {
      files.push(path);
    }
  }
  return files;
}

const TOP_LEVEL =
  /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*(\w+)|(?:const|let)\s+(\w+)\b)/;
const CLASS_START = /^(?:export\s+)?(?:abstract\s+)?class\s+\w+/;
const MEMBER =
  /^ {2}(?:(?:public|private|protected|static|readonly|async|override|get|set)\s+)*(#?\w+)\s*(?:<[^>]*>)?\s*\(/;

/** Top-level functions and constants, and class methods, each with its text up to the next one. */
function unitsOf(file: string, text: string): Unit[] {
  const units: Unit[] = [];
  let current: { name: string; lines: string[] } | undefined;
  let inClass = false;
  const flush = () => {
    if (current) units.push({ name: current.name, file, body: current.lines.join('\n') });
  };
  for (const line of text.split('\n')) {
    if (CLASS_START.test(line)) inClass = true;
    else if (inClass && line.startsWith('}')) inClass = false;
    const top = TOP_LEVEL.exec(line);
    const member = inClass ? MEMBER.exec(line) : null;
    const name = top ? (top[1] ?? top[2]) : member?.[1];
    if (name) {
      flush();
      current = { name: name.replace(/^#/, ''), lines: [] };
    }
    current?.lines.push(line);
  }
  flush();
  return units;
}

function operationUsage(
  dir: string,
  tableName: string,
  toolNames: readonly string[],
): { tools: Map<string, string[]>; elsewhere: Map<string, string[]> } {
  const units: Unit[] = [];
  for (const file of sourceFiles(dir)) units.push(...unitsOf(file, readFileSync(file, 'utf8')));
  const all = units.map((u) => u.body).join('\n');
  // `const OPS = STORE_OPERATIONS;` and the like.
  const aliases = [
    tableName,
    ...[...all.matchAll(new RegExp(`\\b(?:const|let)\\s+(\\w+)\\s*=\\s*${tableName}\\s*;`, 'g'))].map(
      (m) => m[1] as string,
    ),
  ];
  const reference = new RegExp(
    `\\b(?:${aliases.join('|')})\\s*(?:\\.\\s*(\\w+)|\\[\\s*['"](\\w+)['"]\\s*\\])`,
    'g',
  );
  const directOps = (text: string) =>
    new Set([...text.matchAll(reference)].map((m) => (m[1] ?? m[2]) as string));
  const byName = new Map<string, Unit[]>();
  for (const unit of units) byName.set(unit.name, [...(byName.get(unit.name) ?? []), unit]);
  const calls = (text: string) =>
    new Set(
      [...text.matchAll(/(?<![\w$])#?(\w+)\s*(?:<[^<>()]*>)?\s*\(/g)]
        .map((m) => m[1] as string)
        .filter((name) => byName.has(name)),
    );

  const memo = new Map<string, Set<string>>();
  const opsOfName = (name: string, seen: Set<string>): Set<string> => {
    const known = memo.get(name);
    if (known) return known;
    if (seen.has(name)) return new Set();
    seen.add(name);
    const ops = new Set<string>();
    for (const unit of byName.get(name) ?? []) for (const op of opsOfText(unit.body, seen)) ops.add(op);
    memo.set(name, ops);
    return ops;
  };
  const opsOfText = (text: string, seen: Set<string>): Set<string> => {
    const ops = directOps(text);
    for (const callee of calls(text)) for (const op of opsOfName(callee, seen)) ops.add(op);
    return ops;
  };

  // A tool's part of the source: from its `name:` to the next tool's, within the same unit.
  const toolSet = new Set(toolNames);
  const tools = new Map<string, string[]>();
  const toolText = new Set<Unit>();
  for (const unit of units) {
    const marks = [...unit.body.matchAll(/\bname:\s*['"](\w+)['"]/g)].filter((m) =>
      toolSet.has(m[1] as string),
    );
    if (marks.length > 0) toolText.add(unit);
    marks.forEach((mark, i) => {
      const end = marks[i + 1]?.index ?? unit.body.length;
      for (const op of opsOfText(unit.body.slice(mark.index, end), new Set())) {
        const list = tools.get(op) ?? [];
        if (!list.includes(mark[1] as string)) list.push(mark[1] as string);
        tools.set(op, list);
      }
    });
  }
  // References outside the tools' own text, by file: the upstream client, the OAuth client.
  const elsewhere = new Map<string, string[]>();
  for (const unit of units) {
    if (toolText.has(unit)) continue;
    const file = unit.file.slice(dir.length + 1);
    for (const op of directOps(unit.body)) {
      const list = elsewhere.get(op) ?? [];
      if (!list.includes(file)) list.push(file);
      elsewhere.set(op, list);
    }
  }
  return { tools, elsewhere };
}

// --- docs/coverage.md ---------------------------------------------------------------------------------------

export function renderCoverage(services: readonly ServiceCoverage[]): string {
  const lines = [
    '# Upstream coverage',
    '',
    'Generated by `npm run docs`; do not edit. For each service: every operation of its endpoint table',
    "(`src/services/<service>/endpoints.ts`), the tools that call it (found by reference in the source: a tool's",
    "row and the functions its handler calls), and whether the service's emulator serves it (a route of the same",
    'method and path). `test/inventory/routes.test.ts` checks that every operation the tools or the upstream',
    'client use has an emulator route and that every emulator route outside `/_emulator` is an operation.',
    '',
  ];
  for (const service of services) {
    const emulated = service.operations.filter((op) => op.emulated).length;
    lines.push(
      `## ${service.title}`,
      '',
      `${service.operations.length} operations, ${emulated} emulated.`,
      '',
      '| Operation | Method | Path | Tools | Emulated |',
      '|---|---|---|---|---|',
    );
    for (const op of service.operations) {
      const users =
        op.tools.length > 0
          ? op.tools.map((tool) => `\`${tool}\``).join(', ')
          : op.elsewhere.length > 0
            ? `none (used by ${op.elsewhere.map((file) => `\`${file}\``).join(', ')})`
            : 'none';
      lines.push(
        `| \`${op.name}\` | ${op.method} | \`${op.path}\` | ${users} | ${op.emulated ? 'yes' : 'no'} |`,
      );
    }
    if (service.emulatorOnly.length > 0) {
      lines.push(
        '',
        `Emulator-only routes besides \`/_emulator\` (no upstream operation): ${service.emulatorOnly
          .map((r) => `\`${r.method} ${r.path}\``)
          .join(', ')}.`,
      );
    }
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
