// Enterprise administration: descendant accounts, moves between accounts, and managing users (state,
// membership, admin access, removal). Users are named by id (usr…) or by email address. Audit log and
// eDiscovery export requests are in compliance.ts.

import { z } from 'zod';
import { USER_STATES } from './shared.js';

/** Whether the enterprise manages a user's account. */
export const MEMBERSHIP_STATES = ['managed', 'unmanaged'] as const;

const accountId = (description: string) => z.string().min(1).meta({ description });
const userId = z.string().min(1).meta({ description: 'User id (usr…).' });
const userEmail = z.string().min(1).meta({ description: 'Email address.' });

/** Items of a user list: each names the user by id or email (both optional in the shape). */
function namedUser<T extends z.core.$ZodLooseShape>(shape: T) {
  return z
    .strictObject({ id: userId.optional(), email: userEmail.optional(), ...shape })
    .superRefine((user, ctx) => {
      const named = user as { id?: unknown; email?: unknown };
      if (named.id === undefined && named.email === undefined) {
        ctx.addIssue({ code: 'custom', message: 'name the user by id or email', path: [] });
      }
    })
    .meta({ anyOf: [{ required: ['id'] }, { required: ['email'] }] });
}

function userList<T extends z.ZodType>(user: T, description: string) {
  return z
    .array(user)
    .min(1, { error: 'give at least one user' })
    .meta({ description: `${description} Each names the user by id or email.` });
}

export const createDescendantAccountBody = z
  .strictObject({
    name: z
      .string()
      .regex(/\S/, { error: 'the account name must not be empty' })
      .meta({ description: 'Name of the new descendant account.' }),
  })
  .meta({ title: 'Create a descendant account', examples: [{ name: 'Europe' }] });

const targetAccount = accountId('Destination enterprise account (ent…), in the same organization.');

/** The upstream moves at most 100 groups or workspaces per request. */
export const MOVE_MAX = 100;

export const moveUserGroupsBody = z
  .strictObject({
    groupIds: z
      .array(z.string().min(1))
      .min(1, { error: 'give at least one group id' })
      .max(MOVE_MAX, { error: `at most ${MOVE_MAX} groups per move; split the list` })
      .meta({ description: 'User groups to move (ugp…).' }),
    targetEnterpriseAccountId: targetAccount,
  })
  .meta({
    title: 'Move user groups to another account',
    examples: [{ groupIds: ['ugpA1b2C3d4E5f6G7'], targetEnterpriseAccountId: 'entA1b2C3d4E5f6G7' }],
  });

export const moveWorkspacesBody = z
  .strictObject({
    workspaceIds: z
      .array(z.string().min(1))
      .min(1, { error: 'give at least one workspace id' })
      .max(MOVE_MAX, { error: `at most ${MOVE_MAX} workspaces per move; split the list` })
      .meta({ description: 'Workspaces to move (wsp…).' }),
    targetEnterpriseAccountId: targetAccount,
    replacementOwnerId: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'User (usr…) who takes over where an owner cannot move along.' }),
  })
  .meta({
    title: 'Move workspaces to another account',
    examples: [
      { workspaceIds: ['wspA1b2C3d4E5f6G7'], targetEnterpriseAccountId: 'entA1b2C3d4E5f6G7' },
      {
        workspaceIds: ['wspA1b2C3d4E5f6G7', 'wspH8i9J0k1L2m3N4'],
        targetEnterpriseAccountId: 'entA1b2C3d4E5f6G7',
        replacementOwnerId: 'usrA1b2C3d4E5f6G7',
      },
    ],
  });

const userState = z.enum(USER_STATES).meta({ description: 'provisioned or deactivated (managed users).' });

export const manageEnterpriseUsersBody = z
  .strictObject({
    users: userList(
      namedUser({
        firstName: z.string().optional(),
        lastName: z.string().optional(),
        state: userState.optional(),
      }),
      'Users and the changes to make.',
    ),
  })
  .meta({
    title: 'Update enterprise users',
    examples: [
      {
        users: [
          { id: 'usrA1b2C3d4E5f6G7', state: 'deactivated' },
          { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' },
        ],
      },
    ],
  });

export const manageUserMembershipBody = z
  .strictObject({
    users: userList(
      namedUser({
        state: z
          .enum(MEMBERSHIP_STATES)
          .meta({ description: 'managed: claim the user; unmanaged: release.' }),
      }),
      'Users to claim or release.',
    ),
  })
  .meta({
    title: 'Claim or release users',
    examples: [
      {
        users: [
          { email: 'ada@example.com', state: 'managed' },
          { id: 'usrA1b2C3d4E5f6G7', state: 'unmanaged' },
        ],
      },
    ],
  });

const adminUsers = (title: string) =>
  z.strictObject({ users: userList(namedUser({}), 'Users to change.') }).meta({
    title,
    examples: [{ users: [{ id: 'usrA1b2C3d4E5f6G7' }, { email: 'ada@example.com' }] }],
  });

export const grantAdminAccessBody = adminUsers('Grant admin access');
export const revokeAdminAccessBody = adminUsers('Revoke admin access');

export const removeUserFromEnterpriseBody = z
  .strictObject({
    isDryRun: z
      .boolean()
      .nullable()
      .optional()
      .meta({ description: 'true: report what would change, change nothing.' }),
    replacementOwnerId: z
      .string()
      .min(1)
      .nullable()
      .optional()
      .meta({ description: 'User (usr…) who takes over workspaces the removed user owns alone.' }),
    removeFromDescendants: z
      .boolean()
      .optional()
      .meta({ description: 'Also remove the user from descendant accounts.' }),
  })
  .meta({
    title: 'Remove a user from the enterprise',
    examples: [{}, { isDryRun: true, replacementOwnerId: 'usrA1b2C3d4E5f6G7', removeFromDescendants: true }],
  });

export const manageEnterpriseUserBody = z
  .strictObject({
    email: userEmail.optional().meta({ description: 'New email; the enterprise must own both domains.' }),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    state: userState.optional(),
  })
  .superRefine((body, ctx) => {
    if (Object.keys(body).length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'give at least one of email, firstName, lastName or state',
        path: [],
      });
    }
  })
  .meta({
    title: 'Update an enterprise user',
    minProperties: 1,
    examples: [{ state: 'deactivated' }, { firstName: 'Ada', lastName: 'King' }],
  });

export { USER_STATES };
