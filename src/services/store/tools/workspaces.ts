// Workspaces: create and delete, collaborators and invites, moving bases, and restrictions. 9 StoreApi tools
// as declarative rows over the generic executor.

import { z } from 'zod';
import { STORE_OPERATIONS } from '../endpoints.js';
import { RESTRICTIONS } from '../schemas/shared.js';
import {
  airtableQuery,
  CREATE,
  DESTROY,
  id,
  READ_ONLY,
  storeBody,
  storeTool,
  strings,
  UPDATE,
} from './shared.js';

export const WORKSPACE_TOOLS = [
  storeTool({
    name: 'CreateStoreWorkspace',
    title: 'Create workspace',
    description: 'Create a workspace in an enterprise account.',
    input: z.object({}),
    requestBody: storeBody('createWorkspace'),
    hints: CREATE,
    endpoint: { operation: STORE_OPERATIONS.CreateWorkspace },
  }),
  storeTool({
    name: 'DeleteWorkspace',
    title: 'Delete workspace',
    description: 'Delete a workspace; move or delete its bases first.',
    input: z.object({ workspace_id: id() }),
    hints: DESTROY,
    endpoint: { operation: STORE_OPERATIONS.DeleteWorkspace, pathParams: { workspaceId: 'workspace_id' } },
  }),
  storeTool({
    name: 'GetWorkspaceCollaborators',
    title: 'Get workspace collaborators',
    description: "A workspace's bases and, on request, collaborators and invite links.",
    input: z.object({
      workspace_identifier: id(),
      include_additional_information: strings('Extras: collaborators, inviteLinks'),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetWorkspaceCollaborators,
      pathParams: { workspaceId: 'workspace_identifier' },
      query: { include: 'include_additional_information' },
      serializeQuery: airtableQuery,
    },
  }),
  storeTool({
    name: 'AddWorkspaceCollaborator',
    title: 'Add workspace collaborator',
    description: 'Give one user or group access to a workspace.',
    input: z.object({ workspace_id: id().optional() }),
    requestBody: storeBody('addWorkspaceCollaborators'),
    hints: CREATE,
    endpoint: {
      operation: STORE_OPERATIONS.AddWorkspaceCollaborator,
      pathParams: { workspaceId: 'workspace_id' },
    },
  }),
  storeTool({
    name: 'RemoveWorkspaceCollaborator',
    title: 'Remove workspace collaborator',
    description: "Remove a user's or group's access to a workspace.",
    input: z.object({ collaborator_identifier: id(), workspace_id: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteWorkspaceCollaborator,
      pathParams: { workspaceId: 'workspace_id', userOrGroupId: 'collaborator_identifier' },
    },
  }),
  storeTool({
    name: 'UpdateWorkspaceCollaboratorPermission',
    title: 'Change workspace access',
    description: "Change a workspace collaborator's permission level.",
    input: z.object({ workspace_id: id().optional(), collaborator_id: id().optional() }),
    requestBody: storeBody('updateWorkspaceCollaborator'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.UpdateWorkspaceCollaborator,
      pathParams: { workspaceId: 'workspace_id', userOrGroupId: 'collaborator_id' },
      idempotent: true,
    },
  }),
  storeTool({
    name: 'DeleteWorkspaceInvite',
    title: 'Delete workspace invite',
    description: 'Withdraw an outstanding invite to a workspace.',
    input: z.object({ invite_id: id(), workspace_id: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteWorkspaceInvite,
      pathParams: { workspaceId: 'workspace_id', inviteId: 'invite_id' },
    },
  }),
  storeTool({
    name: 'MoveStoreBase',
    title: 'Move base',
    description: 'Move a base to another workspace of the same enterprise.',
    input: z.object({
      // The spec's name misleads: it is the workspace the base leaves.
      target_workspace_id: id('Source workspace; the destination goes in the body').optional(),
    }),
    requestBody: storeBody('moveBase'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.MoveBase,
      pathParams: { workspaceId: 'target_workspace_id' },
    },
  }),
  storeTool({
    name: 'UpdateWorkspaceRestrictions',
    title: 'Restrict invites and shares',
    description: 'Set who may create invites and shares in a workspace.',
    input: z.object({
      workspace_id: id(),
      // The names and values say it.
      invite_creation_restriction: z.enum(RESTRICTIONS).optional(),
      share_creation_restriction: z.enum(RESTRICTIONS).optional(),
    }),
    hints: UPDATE,
    check: (args) =>
      args.invite_creation_restriction === undefined && args.share_creation_restriction === undefined
        ? [
            {
              field: 'invite_creation_restriction',
              problem: 'give invite_creation_restriction, share_creation_restriction, or both',
            },
          ]
        : [],
    endpoint: {
      operation: STORE_OPERATIONS.UpdateWorkspaceRestrictions,
      pathParams: { workspaceId: 'workspace_id' },
      body: (args) => ({
        ...(args.invite_creation_restriction !== undefined
          ? { inviteCreationRestriction: args.invite_creation_restriction }
          : {}),
        ...(args.share_creation_restriction !== undefined
          ? { shareCreationRestriction: args.share_creation_restriction }
          : {}),
      }),
      idempotent: true,
    },
  }),
];
