// The Track API endpoint table (endpoints.ts): each row is the upstream's own operation (operationId, method,
// path and whether it takes credentials, as its OpenAPI document says), and the emulator serves exactly the
// table's operations, each on both regional hosts.

import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { honoPath } from '../../../src/emulation/operations.js';
import { EU_PATH_PREFIX } from '../../../src/services/messaging/emulator/app.js';
import { MESSAGING_OPERATIONS } from '../../../src/services/messaging/endpoints.js';
import { specAvailable, specPath } from '../../inventory/specTable.js';
import { makeEmulator } from './emulator/helpers.js';

const OPENAPI = '../reference/openapi/messaging-track-upstream.openapi.json';
const openapiPresent = specAvailable(OPENAPI);

describe.runIf(openapiPresent)('the endpoint table against the upstream OpenAPI', () => {
  // A skipped describe still runs its body to collect tests, so the file is read only when it is there.
  if (!openapiPresent) return;
  const doc = JSON.parse(readFileSync(specPath(OPENAPI), 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>>;
  };
  // A path item also holds keys that are no method (`parameters`, `summary`...).
  const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
  const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
  );

  it('names every row by the operationId of its method and path', () => {
    for (const [name, { method, path }] of Object.entries(MESSAGING_OPERATIONS)) {
      expect(doc.paths[path]?.[method.toLowerCase()]?.operationId, `${method} ${path}`).toBe(name);
    }
  });

  it('holds every documented operation', () => {
    const names = documented.map(({ operation }) => operation.operationId).sort();
    expect(Object.keys(MESSAGING_OPERATIONS).sort()).toEqual(names);
  });

  it('marks as anonymous exactly the operations documented without security', () => {
    for (const { path, method, operation } of documented) {
      const row = Object.values(MESSAGING_OPERATIONS).find((op) => op.method === method && op.path === path);
      const anonymous = Array.isArray(operation.security) && operation.security.length === 0;
      expect(row && 'anonymous' in row ? row.anonymous : false, `${method} ${path}`).toBe(anonymous);
    }
  });
});

describe('the emulator routes', () => {
  const emulator = makeEmulator();
  afterAll(() => emulator.close());

  it('serve every operation of the table on both hosts, and nothing else outside /_emulator', () => {
    const served = new Set(
      emulator.app.routes
        .filter((r) => r.method !== 'ALL' && !r.path.startsWith('/_emulator'))
        .map((r) => `${r.method} ${r.path}`),
    );
    const expected = new Set(
      ['', EU_PATH_PREFIX].flatMap((prefix) =>
        Object.values(MESSAGING_OPERATIONS).map((op) => `${op.method} ${prefix}${honoPath(op.path)}`),
      ),
    );
    expect([...served].sort()).toEqual([...expected].sort());
  });
});
