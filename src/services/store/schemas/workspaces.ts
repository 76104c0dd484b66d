// Workspaces: create one, manage its collaborators, move a base between workspaces, and restrict who may
// invite people or create shares.

import { z } from 'zod';
import { RESTRICTIONS } from './shared.js';
import { oneCollaborator } from './sharing.js';

/** Permission levels in a workspace: the base levels plus owner. */
export const WORKSPACE_PERMISSION_LEVELS = ['owner', 'create', 'edit', 'comment', 'read'] as const;

export const createWorkspaceBody = z
  .strictObject({
    enterpriseAccountId: z
      .string()
      .min(1)
      .meta({ description: 'Enterprise account (ent…) to create it in.' }),
    name: z
      .string()
      .regex(/\S/, { error: 'the workspace name must not be empty' })
      .meta({ description: 'Workspace name.' }),
  })
  .meta({
    title: 'Create a workspace',
    examples: [{ enterpriseAccountId: 'entA1b2C3d4E5f6G7', name: 'Marketing' }],
  });

export const addWorkspaceCollaboratorsBody = z
  .strictObject({
    collaborators: oneCollaborator(WORKSPACE_PERMISSION_LEVELS),
  })
  .meta({
    title: 'Add a workspace collaborator',
    examples: [
      { collaborators: [{ user: { id: 'usrA1b2C3d4E5f6G7' }, permissionLevel: 'owner' }] },
      { collaborators: [{ group: { id: 'ugpA1b2C3d4E5f6G7' }, permissionLevel: 'comment' }] },
    ],
  });

export const updateWorkspaceCollaboratorBody = z
  .strictObject({
    permissionLevel: z
      .enum(WORKSPACE_PERMISSION_LEVELS)
      .meta({ description: `One of ${WORKSPACE_PERMISSION_LEVELS.join(', ')}.` }),
  })
  .meta({ title: "Change a workspace collaborator's access", examples: [{ permissionLevel: 'create' }] });

export const moveBaseBody = z
  .strictObject({
    baseId: z.string().min(1).meta({ description: 'Base to move (app…).' }),
    targetWorkspaceId: z.string().min(1).meta({ description: 'Destination workspace (wsp…).' }),
    targetIndex: z
      .int()
      .min(0)
      .optional()
      .meta({ description: 'Position in the destination, 0 first; default last.' }),
  })
  .meta({
    title: 'Move a base to another workspace',
    examples: [
      { baseId: 'appA1b2C3d4E5f6G7', targetWorkspaceId: 'wspH8i9J0k1L2m3N4' },
      { baseId: 'appA1b2C3d4E5f6G7', targetWorkspaceId: 'wspH8i9J0k1L2m3N4', targetIndex: 0 },
    ],
  });

const restriction = (what: string) =>
  z
    .enum(RESTRICTIONS)
    .optional()
    .meta({ description: `Who may create ${what}: unrestricted or onlyOwners.` });

export const updateWorkspaceRestrictionsBody = z
  .strictObject({
    inviteCreationRestriction: restriction('invites'),
    shareCreationRestriction: restriction('shares'),
  })
  .superRefine((body, ctx) => {
    if (body.inviteCreationRestriction === undefined && body.shareCreationRestriction === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'give inviteCreationRestriction, shareCreationRestriction, or both',
        path: [],
      });
    }
  })
  .meta({
    title: 'Restrict invites and shares',
    minProperties: 1,
    examples: [
      { inviteCreationRestriction: 'onlyOwners' },
      { inviteCreationRestriction: 'unrestricted', shareCreationRestriction: 'onlyOwners' },
    ],
  });

export { RESTRICTIONS };
