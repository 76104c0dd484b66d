// The scope table a store connection asks from: one row per StoreApi tool, each a scope the upstream documents,
// and the scopes asked for are exactly those the tools need (plus the one that lets whoami name the account).

import { describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../../src/services/store/emulator/auth.js';
import { scopesForTools } from '../../../src/services/store/oauth.js';
import { STORE_TOOL_SCOPES } from '../../../src/services/store/scopes.js';
import { STORE_TOOLS } from '../../../src/services/store/toolDefinitions.js';

describe('StoreApi tool scopes', () => {
  it('name every tool once, and only documented scopes', () => {
    expect(Object.keys(STORE_TOOL_SCOPES).sort()).toEqual(STORE_TOOLS.map((t) => t.name).sort());
    for (const [tool, scope] of Object.entries(STORE_TOOL_SCOPES)) {
      if (tool === 'RetrieveUserIdAndScopes') expect(scope).toBeUndefined();
      else expect(ALL_SCOPES, tool).toContain(scope);
    }
  });

  it('a connection for some tools asks for their scopes only', () => {
    expect(scopesForTools(['ListStoreRecords', 'CreateStoreRecords', 'RetrieveUserIdAndScopes'])).toEqual([
      'data.records:read',
      'data.records:write',
      'user.email:read',
    ]);
    const all = scopesForTools();
    expect(all).toContain('enterprise.scim.usersAndGroups:manage');
    expect(all).toContain('hyperDB.records:write');
    expect(new Set(all).size).toBe(all.length);
  });
});
