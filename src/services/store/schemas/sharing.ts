// Who can use a base or an interface, and how: collaborators (a user or a group) with a permission level,
// extensions (block installations) turned on or off, and shares turned on or off.

import { z } from 'zod';

/** Permission levels on a base. */
export const PERMISSION_LEVELS = ['read', 'comment', 'edit', 'create'] as const;
/** Permission levels on an interface (no create). */
export const INTERFACE_PERMISSION_LEVELS = ['read', 'comment', 'edit'] as const;
/** The on/off state of a block installation or a share. */
export const TOGGLE_STATES = ['enabled', 'disabled'] as const;

const principal = (what: string, prefix: string) =>
  z
    .strictObject({
      id: z
        .string()
        .min(1)
        .meta({ description: `${what} id (${prefix}…).` }),
    })
    .optional();

/** A collaborator: exactly one of user or group, with a permission level from `levels`. */
export function collaborator<const L extends readonly [string, ...string[]]>(levels: L) {
  return z
    .strictObject({
      user: principal('User', 'usr'),
      group: principal('User group', 'ugp'),
      permissionLevel: z.enum(levels),
    })
    .superRefine((entry, ctx) => {
      const named = [entry.user, entry.group].filter((value) => value !== undefined).length;
      if (named !== 1) {
        ctx.addIssue({
          code: 'custom',
          message:
            named === 0
              ? 'name the collaborator: user {id} or group {id}'
              : 'give user or group, not both (one collaborator per entry)',
          path: [],
        });
      }
    })
    .meta({
      description: 'A user {id} or a group {id}, not both, with a permission level.',
      oneOf: [{ required: ['user'] }, { required: ['group'] }],
    });
}

const permission = <const L extends readonly [string, ...string[]]>(levels: L) =>
  z.enum(levels).meta({ description: `One of ${levels.join(', ')}.` });

export const manageBlockInstallationBody = z
  .strictObject({ state: z.enum(TOGGLE_STATES).meta({ description: 'enabled or disabled.' }) })
  .meta({
    title: 'Turn an extension on or off',
    examples: [{ state: 'disabled' }, { state: 'enabled' }],
  });

/**
 * The add-collaborator routes (base, interface, workspace) take one user or group per request: the upstream says
 * so for each of them and refuses more.
 */
export function oneCollaborator<const L extends readonly [string, ...string[]]>(levels: L) {
  return z
    .array(collaborator(levels))
    .length(1, {
      error: (issue) =>
        `exactly one collaborator per request (the upstream adds one at a time); got ${(issue.input as unknown[]).length}. Call once per collaborator.`,
    })
    .meta({ description: 'One user or group; call again for each other one.' });
}

export const addBaseCollaboratorsBody = z
  .strictObject({
    collaborators: oneCollaborator(PERMISSION_LEVELS),
  })
  .meta({
    title: 'Add a base collaborator',
    examples: [
      { collaborators: [{ user: { id: 'usrA1b2C3d4E5f6G7' }, permissionLevel: 'edit' }] },
      { collaborators: [{ group: { id: 'ugpA1b2C3d4E5f6G7' }, permissionLevel: 'read' }] },
    ],
  });

export const updateBaseCollaboratorBody = z
  .strictObject({ permissionLevel: permission(PERMISSION_LEVELS) })
  .meta({ title: "Change a base collaborator's access", examples: [{ permissionLevel: 'comment' }] });

export const addInterfaceCollaboratorBody = z
  .strictObject({
    collaborators: oneCollaborator(INTERFACE_PERMISSION_LEVELS),
  })
  .meta({
    title: 'Add an interface collaborator',
    examples: [
      { collaborators: [{ user: { id: 'usrA1b2C3d4E5f6G7' }, permissionLevel: 'comment' }] },
      { collaborators: [{ group: { id: 'ugpA1b2C3d4E5f6G7' }, permissionLevel: 'read' }] },
    ],
  });

export const updateInterfaceCollaboratorBody = z
  .strictObject({ permissionLevel: permission(INTERFACE_PERMISSION_LEVELS) })
  .meta({ title: "Change an interface collaborator's access", examples: [{ permissionLevel: 'edit' }] });

export const manageShareBody = z
  .strictObject({ state: z.enum(TOGGLE_STATES).meta({ description: 'enabled or disabled.' }) })
  .meta({ title: 'Turn a share on or off', examples: [{ state: 'disabled' }] });
