// The store's operation table (endpoints.ts) as the join key: every tool names one of its operations, no two
// tools the same one, every operation has a caller, the scope table is read from it, and (when the reference
// sits beside the repository) each tool's method and path are the ones upstream-mapping.md gives for it.

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/runtime/operation.js';
import { STORE_OPERATIONS } from '../../../src/services/store/endpoints.js';
import { STORE_TOOL_SCOPES } from '../../../src/services/store/scopes.js';
import { STORE_TOOLS } from '../../../src/services/store/toolDefinitions.js';
import { STORE_TOOL_LIST } from '../../../src/services/store/tools/index.js';

const MAPPING = fileURLToPath(new URL('../../../../shared/reference/upstream-mapping.md', import.meta.url));
const nameOf = new Map<Operation, string>(
  Object.entries(STORE_OPERATIONS).map(([name, operation]) => [operation, name]),
);

describe('StoreApi operation table', () => {
  it('gives every published tool an operation of the table, each operation to one tool at most', () => {
    expect(STORE_TOOL_LIST.map((tool) => tool.name)).toEqual(STORE_TOOLS.map((tool) => tool.name));
    const names = STORE_TOOL_LIST.map((tool) => nameOf.get(tool.operation));
    expect(names).not.toContain(undefined);
    expect(new Set(names).size).toBe(names.length);
  });

  it('has a caller for every operation: a tool, the list twin for long URLs, or the OAuth client', () => {
    const called = new Set(STORE_TOOL_LIST.map((tool) => nameOf.get(tool.operation)));
    const others = Object.keys(STORE_OPERATIONS).filter((name) => !called.has(name));
    expect(others.sort()).toEqual(['Authorize', 'ListRecordsByPost', 'RequestToken']);
  });

  it('writes each method and path once, with {name} parameters', () => {
    const keys = Object.values(STORE_OPERATIONS).map((op) => `${op.method} ${op.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const [name, op] of Object.entries(STORE_OPERATIONS)) {
      expect(op.path, name).toMatch(
        /^\/(?:[A-Za-z0-9]+|\{[A-Za-z]+\})(?:\/(?:[A-Za-z0-9]+|\{[A-Za-z]+\}))*$/,
      );
    }
    expect(STORE_OPERATIONS.CreateScimGroup).toEqual({
      method: 'POST',
      path: '/scim/v2/Groups',
      scope: 'enterprise.scim.usersAndGroups:manage',
    });
  });

  it('reads the scope table from the operations', () => {
    expect(Object.keys(STORE_TOOL_SCOPES)).toEqual(STORE_TOOL_LIST.map((tool) => tool.name));
    for (const tool of STORE_TOOL_LIST)
      expect(STORE_TOOL_SCOPES[tool.name], tool.name).toBe(tool.operation.scope);
    expect(STORE_TOOL_SCOPES.ListStoreRecords).toBe('data.records:read');
    expect(STORE_TOOL_SCOPES.GetUserGroupInfo).toBe('enterprise.groups:read');
  });

  it.skipIf(!existsSync(MAPPING))(
    'calls, for each tool, the method and path upstream-mapping.md gives',
    () => {
      const rows = new Map(
        [...readFileSync(MAPPING, 'utf8').matchAll(/^\| (\w+) \|[^|]*\| `([A-Z]+) ([^`]+)`/gm)].map((m) => [
          m[1]!,
          `${m[2]} ${m[3]}`,
        ]),
      );
      for (const tool of STORE_TOOL_LIST) {
        expect(`${tool.operation.method} ${tool.operation.path}`, tool.name).toBe(rows.get(tool.name));
      }
    },
  );
});
