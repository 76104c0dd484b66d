// StoreApi administration tools under bad input, missing rights and upstream trouble, through a real MCP client:
// bounds, enums and cross-field rules are refused before sending; hostile ids stay inside their path segment (SCIM
// and enterprise paths too); a token without the enterprise scopes gets the upstream's 403 with its hint; a 5xx is
// retried for reads and not for creates.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Connected, errorOf } from './harness.js';
import { connectStore, type StoreEmulatorHandle, startStore } from './storeHarness.js';

const T = (name: string) => `StoreApi.${name}`;
const DATA_ONLY_TOKEN = 'pat_data_only_token';

let upstream: StoreEmulatorHandle;
let mcp: Connected;
let account: string;

beforeAll(async () => {
  upstream = await startStore({
    tokens: [{ token: DATA_ONLY_TOKEN, scopes: ['data.records:read', 'schema.bases:read'] }],
  });
  const accounts = await upstream.state<{ id: string; parentEnterpriseAccountId: string | null }>(
    'enterprise_accounts',
  );
  account = accounts.find((a) => a.parentEnterpriseAccountId === null)!.id;
  mcp = await connectStore('http', upstream.env());
});
afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
});
beforeEach(async () => {
  await upstream.clearFaults();
  await upstream.clearLog();
});

describe('StoreApi administration: refused before sending', () => {
  it('page sizes, enums, time windows, filters without values and empty updates', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['GetAuditLogEvents', { enterprise_account_id: account, page_size: 1001 }, 'page_size'],
      ['GetAuditLogEvents', { enterprise_account_id: account, sort_order: 'asc' }, 'sort_order'],
      [
        'GetAuditLogEvents',
        {
          enterprise_account_id: account,
          start_time: '2026-03-02T00:00:00Z',
          end_time: '2026-03-01T00:00:00Z',
        },
        'end_time',
      ],
      ['GetAuditLogEvents', { enterprise_account_id: account, start_time: 'yesterday' }, 'start_time'],
      ['GetStoreChangeEvents', { enterprise_account_id: account, page_size_limit: 101 }, 'page_size_limit'],
      [
        'GetEdiscoveryExportsStatus',
        { enterprise_account_id: account, ediscovery_export_state: 'finished' },
        'ediscovery_export_state',
      ],
      ['ListScimUsers', { start_index: 0 }, 'start_index'],
      ['GetStoreUserInfo', { enterprise_account_id: account }, 'user_ids'],
      [
        'ManageEnterpriseAccountUser',
        { enterprise_account_id: account, user_id: 'usrX' },
        'update_user_email',
      ],
      [
        'ManageEnterpriseAccountUser',
        { enterprise_account_id: account, user_id: 'usrX', user_state: 'suspended' },
        'user_state',
      ],
      ['UpdateWorkspaceRestrictions', { workspace_id: 'wspX' }, 'invite_creation_restriction'],
      [
        'UpdateWorkspaceRestrictions',
        { workspace_id: 'wspX', share_creation_restriction: 'everyone' },
        'share_creation_restriction',
      ],
      [
        'ReadBulkTableRecords',
        { enterprise_account_id: account, data_table_id: 'dtbX', maximum_records_to_retrieve: 1001 },
        'maximum_records_to_retrieve',
      ],
      [
        'DeleteUsersByEmail',
        {
          enterprise_account_id: account,
          email_addresses: Array.from({ length: 101 }, (_, i) => `u${i}@x.io`),
        },
        'email_addresses',
      ],
    ];
    for (const [tool, args, field] of cases) {
      const result = await mcp.call(T(tool), args);
      const error = errorOf(result);
      expect(error.kind, `${tool} ${JSON.stringify(args)}`).toBe('invalid_arguments');
      expect(JSON.stringify(error), tool).toContain(field);
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('schema-mode bodies: the wrong SCIM schema URI, two interface collaborators, a user named by nothing', async () => {
    const cases: [string, Record<string, unknown>, unknown, string][] = [
      ['CreateScimUser', {}, { schemas: ['urn:x'], userName: 'a@sandbox.example.com' }, 'schemas'],
      [
        'AddCollaboratorToStoreInterface',
        { store_base_id: 'appX', page_bundle_id: 'pbdX' },
        {
          collaborators: [
            { user: { id: 'usrA' }, permissionLevel: 'read' },
            { user: { id: 'usrB' }, permissionLevel: 'read' },
          ],
        },
        'collaborators',
      ],
      ['GrantAdminAccess', { enterprise_account_id: account }, { users: [{}] }, 'users'],
      ['CreateAuditLogRequest', { enterprise_account_id: account }, { timePeriod: '2026-13' }, 'timePeriod'],
    ];
    for (const [tool, args, body, field] of cases) {
      const result = await mcp.call(T(tool), {
        ...args,
        mode: 'execute',
        request_body: JSON.stringify(body),
      });
      const error = errorOf(result);
      expect(error.kind, tool).toBe('invalid_arguments');
      expect(JSON.stringify(error), tool).toContain(field);
    }
    expect(await upstream.requests()).toEqual([]);
  });

  it('hostile identifiers stay inside their path segment on SCIM and enterprise paths', async () => {
    for (const hostile of ['../Groups', 'usr?filter=x#y', '%2F']) {
      const result = await mcp.call(T('GetScimUser'), { user_id: hostile });
      expect(result.isError).toBe(true);
      const scim = (await upstream.requests()).at(-1);
      expect(scim!.path).toBe(`/scim/v2/Users/${encodeURIComponent(hostile)}`);

      await mcp.call(T('GetUserInformation'), { enterprise_account_id: account, user_id: hostile });
      const enterprise = (await upstream.requests()).at(-1);
      expect(enterprise!.path).toBe(
        `/v0/meta/enterpriseAccounts/${account}/users/${encodeURIComponent(hostile)}`,
      );
    }
    const dots = await mcp.call(T('DeleteWorkspace'), { workspace_id: '..' });
    expect(errorOf(dots)).toMatchObject({ kind: 'invalid_arguments' });
  });
});

describe('StoreApi administration: upstream refusals and faults', () => {
  it('a token without the enterprise scopes gets the 403 with its hint, for SCIM and for the audit log', async () => {
    const limited = await connectStore('http', upstream.env({ STORE_ACCESS_TOKEN: DATA_ONLY_TOKEN }));
    try {
      for (const [tool, args] of [
        ['ListScimUsers', {}],
        ['GetAuditLogEvents', { enterprise_account_id: account }],
      ] as const) {
        const error = errorOf(await limited.call(T(tool), args));
        expect(error, tool).toMatchObject({
          kind: 'forbidden',
          status: 403,
          upstream_code: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
        });
        expect(error.message).not.toContain(DATA_ONLY_TOKEN);
      }
    } finally {
      await limited.close();
    }
  });

  it('a 503 is retried for an administration read and not for a create', async () => {
    await upstream.faults([{ path: '/v0/meta/enterpriseAccounts/*', kind: 'error', status: 503, times: 1 }]);
    const read = await mcp.call(T('GetEnterpriseInfo'), { enterprise_account_id: account });
    expect(read.isError).toBeFalsy();
    expect((read.structured as { id: string }).id).toBe(account);
    expect((await upstream.requests()).map((r) => r.status)).toEqual([503, 200]);

    await upstream.clearLog();
    await upstream.faults([{ path: '/v0/meta/enterpriseAccounts/*', kind: 'error', status: 503, times: 1 }]);
    const create = await mcp.call(T('CreateDescendantEnterpriseAccount'), {
      mode: 'execute',
      enterprise_account_id: account,
      request_body: JSON.stringify({ name: 'Never twice' }),
    });
    expect(errorOf(create)).toMatchObject({ kind: 'outcome_unknown', status: 503 });
    expect(errorOf(create).hint).toContain('First check with StoreApi.GetEnterpriseInfo');
    expect((await upstream.requests()).map((r) => r.status)).toEqual([503]);
    const accounts = await upstream.state<{ name: string }>('enterprise_accounts');
    expect(accounts.map((a) => a.name)).not.toContain('Never twice');
  });
});
