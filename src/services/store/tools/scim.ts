// SCIM provisioning of users and groups: 12 StoreApi tools as declarative rows over the generic executor.

import { z } from 'zod';
import { STORE_OPERATIONS } from '../endpoints.js';
import { CREATE, DESTROY, id, READ_ONLY, storeBody, storeTool, UPDATE } from './shared.js';

export const SCIM_TOOLS = [
  storeTool({
    name: 'ListScimGroups',
    title: 'List SCIM groups',
    description: 'SCIM groups of the enterprise.',
    input: z.object({
      filter_criteria: z.string().optional().describe('SCIM filter, e.g. displayName eq "Design"'),
      group_count: z.int().min(1).optional().describe('Maximum to return'),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.ListScimGroups,
      query: { filter: 'filter_criteria', count: 'group_count' },
    },
  }),
  storeTool({
    name: 'CreateScimGroup',
    title: 'Create SCIM group',
    description: 'Create an empty SCIM group.',
    input: z.object({}),
    requestBody: storeBody('createScimGroup'),
    hints: CREATE,
    endpoint: { operation: STORE_OPERATIONS.CreateScimGroup },
  }),
  storeTool({
    name: 'DeleteScimGroup',
    title: 'Delete SCIM group',
    description: 'Delete a SCIM group; its users stay.',
    input: z.object({ group_id: id() }),
    hints: DESTROY,
    endpoint: { operation: STORE_OPERATIONS.DeleteScimGroup, pathParams: { groupId: 'group_id' } },
  }),
  storeTool({
    name: 'FetchScimGroup',
    title: 'Get SCIM group',
    description: 'One SCIM group with its members.',
    input: z.object({ scim_group_id: id() }),
    hints: READ_ONLY,
    endpoint: { operation: STORE_OPERATIONS.GetScimGroup, pathParams: { groupId: 'scim_group_id' } },
  }),
  storeTool({
    name: 'UpdateGroupDetails',
    title: 'Patch SCIM group',
    description: 'Apply SCIM patch operations to a group (name, members).',
    input: z.object({ group_id: id().optional() }),
    requestBody: storeBody('patchScimGroup'),
    hints: UPDATE,
    endpoint: { operation: STORE_OPERATIONS.PatchScimGroup, pathParams: { groupId: 'group_id' } },
  }),
  storeTool({
    name: 'UpdateGroupAttributes',
    title: 'Replace SCIM group',
    description: "Replace a group's name and whole member list.",
    input: z.object({ group_id: id().optional() }),
    requestBody: storeBody('replaceScimGroup'),
    hints: DESTROY,
    endpoint: { operation: STORE_OPERATIONS.PutScimGroup, pathParams: { groupId: 'group_id' } },
  }),
  storeTool({
    name: 'ListScimUsers',
    title: 'List SCIM users',
    description: 'SCIM users of the enterprise.',
    input: z.object({
      start_index: z.int().min(1).optional().describe('1-based'),
      user_count_limit: z.int().min(1).optional(),
      user_filter: z.string().optional().describe('SCIM filter, e.g. userName eq "ada@example.com"'),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.ListScimUsers,
      query: { startIndex: 'start_index', count: 'user_count_limit', filter: 'user_filter' },
    },
  }),
  storeTool({
    name: 'CreateScimUser',
    title: 'Create SCIM user',
    description: 'Provision a user (active, SSO sign-in) in the enterprise.',
    input: z.object({}),
    requestBody: storeBody('createScimUser'),
    hints: CREATE,
    endpoint: { operation: STORE_OPERATIONS.CreateScimUser },
  }),
  storeTool({
    name: 'DeleteScimUser',
    title: 'Delete SCIM user',
    description: 'Delete a SCIM user; not the calling admin, nor a sole workspace owner.',
    input: z.object({ scim_user_id: id() }),
    hints: DESTROY,
    endpoint: { operation: STORE_OPERATIONS.DeleteScimUser, pathParams: { userId: 'scim_user_id' } },
  }),
  storeTool({
    name: 'GetScimUser',
    title: 'Get SCIM user',
    description: 'One user as a SCIM object.',
    input: z.object({ user_id: id() }),
    hints: READ_ONLY,
    endpoint: { operation: STORE_OPERATIONS.GetScimUser, pathParams: { userId: 'user_id' } },
  }),
  storeTool({
    name: 'UpdateScimUserRecord',
    title: 'Patch SCIM user',
    description: 'Apply SCIM patch operations to a user (e.g. active, name).',
    input: z.object({ user_id: id().optional() }),
    requestBody: storeBody('patchScimUser'),
    hints: UPDATE,
    endpoint: { operation: STORE_OPERATIONS.PatchScimUser, pathParams: { userId: 'user_id' } },
  }),
  storeTool({
    name: 'UpdateUserAttributes',
    title: 'Replace SCIM user',
    description: "Replace a user's SCIM attributes.",
    input: z.object({ user_id: id().optional() }),
    requestBody: storeBody('replaceScimUser'),
    hints: DESTROY,
    endpoint: { operation: STORE_OPERATIONS.PutScimUser, pathParams: { userId: 'user_id' } },
  }),
];
