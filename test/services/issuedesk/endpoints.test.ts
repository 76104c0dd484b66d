// IssueDesk's operation table (endpoints.ts) as the join key: named and placed as in Pylon's OpenAPI document
// (when the reference sits beside the repository), the emulator serving exactly its operations, and both
// rate-limit tables read from it with the limits they had before the table existed.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { honoPath } from '../../../src/emulation/operations.js';
import {
  createIssueDeskEmulator,
  ISSUEDESK_RATE_LIMITS,
} from '../../../src/services/issuedesk/emulator/app.js';
import { ISSUEDESK_OPERATIONS } from '../../../src/services/issuedesk/endpoints.js';
import { specAvailable, specPath } from '../../inventory/specTable.js';

const OPENAPI = '../reference/openapi/issuedesk-upstream.openapi.json';

describe('IssueDesk operation table', () => {
  it.runIf(specAvailable(OPENAPI))(
    "names each operation by Pylon's operationId, at its method and path, with its published limit",
    () => {
      const doc = JSON.parse(readFileSync(specPath(OPENAPI), 'utf8')) as {
        paths: Record<string, Record<string, { operationId?: string; description?: string }>>;
      };
      for (const [name, op] of Object.entries(ISSUEDESK_OPERATIONS)) {
        const documented = doc.paths[op.path]?.[op.method.toLowerCase()];
        expect(documented?.operationId, `${op.method} ${op.path}`).toBe(name);
        const published = /\*\*Rate limit:\*\* (\d+) requests per minute/.exec(documented?.description ?? '');
        expect(op.rateLimit, name).toEqual({ limit: Number(published?.[1]), intervalMs: 60_000 });
      }
    },
  );

  it('is what the emulator serves: every operation has a route, and it has no route besides them and /_emulator', () => {
    const emulator = createIssueDeskEmulator({ scale: 10 });
    try {
      const served = emulator.app.routes
        .filter((r) => r.method !== 'ALL' && !r.path.startsWith('/_emulator'))
        .map((r) => `${r.method} ${r.path}`);
      const operations = Object.values(ISSUEDESK_OPERATIONS).map((op) => `${op.method} ${honoPath(op.path)}`);
      expect([...served].sort()).toEqual([...operations].sort());
    } finally {
      emulator.close();
    }
  });

  it("gives the emulator's rate-limit table the same keys and per-minute limits as before", () => {
    expect(ISSUEDESK_RATE_LIMITS).toEqual({
      'GET /me': 60,
      'GET /issues': 10,
      'GET /issues/:id': 60,
      'PATCH /issues/:id': 20,
      'POST /issues/:id/note': 10,
      'GET /issues/:id/messages': 20,
      'GET /issue-statuses': 10,
      'GET /contacts': 60,
      'GET /contacts/:id': 60,
      'POST /contacts/search': 20,
      'GET /users': 60,
      'GET /users/:id': 60,
      'GET /teams': 60,
      'GET /teams/:id': 60,
    });
  });
});
