// SCIM 2.0 provisioning: create, replace and patch groups and users. Bodies follow SCIM core (RFC 7643/7644);
// each names its SCIM schema URI in `schemas`. Users are created active and sign in through SSO; userName is
// the email address.

import { z } from 'zod';

export const SCIM_GROUP_URI = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const SCIM_USER_URI = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_ENTERPRISE_USER_URI = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const SCIM_PATCH_OP_URI = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SCIM_PATCH_OPS = ['add', 'replace', 'remove'] as const;

/** The `schemas` list, which must name `uri` (JSON Schema says it with `contains`). */
function schemaUris(uri: string, description: string) {
  return z
    .array(z.string().min(1))
    .refine((uris) => uris.includes(uri), { error: `schemas must include "${uri}"` })
    .meta({ description, contains: { const: uri } });
}

/** An attribute SCIM lets a client send as null. */
const nullableText = (description?: string) => {
  const text = z.string().nullable().optional();
  return description ? text.meta({ description }) : text;
};
const nullableFlag = z.boolean().nullable().optional();

// ---- groups ----------------------------------------------------------------------------------------------

const groupName = z
  .string()
  .min(1, { error: 'the group needs a displayName' })
  .meta({ description: 'Group name; must be unused in the enterprise.' });

export const createScimGroupBody = z
  .strictObject({
    schemas: schemaUris(SCIM_GROUP_URI, `SCIM schema URIs; must include ${SCIM_GROUP_URI}.`),
    displayName: groupName,
  })
  .meta({
    title: 'Create a SCIM group',
    description: 'The group starts with no members.',
    examples: [{ schemas: [SCIM_GROUP_URI], displayName: 'Design team' }],
  });

export const replaceScimGroupBody = z
  .strictObject({
    schemas: schemaUris(SCIM_GROUP_URI, `SCIM schema URIs; must include ${SCIM_GROUP_URI}.`),
    displayName: groupName.nullable().optional(),
    members: z
      .array(z.strictObject({ value: z.string().min(1).meta({ description: 'Member user id (usr…).' }) }))
      .optional()
      .meta({ description: 'The full member list; users left out are removed.' }),
  })
  .meta({
    title: 'Replace a SCIM group',
    description: 'Sets the name and the whole member list.',
    examples: [
      {
        schemas: [SCIM_GROUP_URI],
        displayName: 'Design team',
        members: [{ value: 'usrA1b2C3d4E5f6G7' }, { value: 'usrH8i9J0k1L2m3N4' }],
      },
    ],
  });

// ---- patch -----------------------------------------------------------------------------------------------

function patchBody(target: 'group' | 'user', examples: unknown[]) {
  const operation = z
    .strictObject({
      op: z.enum(SCIM_PATCH_OPS),
      path: z
        .string()
        .min(1)
        .meta({
          description:
            target === 'group'
              ? 'Attribute to change, e.g. displayName or members.'
              : 'Attribute to change, e.g. active, name.givenName or userName.',
        }),
      value: z.unknown().optional().meta({ description: 'New value; needed for add and replace.' }),
    })
    .superRefine((operation, ctx) => {
      if (operation.op !== 'remove' && operation.value === undefined) {
        ctx.addIssue({ code: 'custom', message: `${operation.op} needs a value`, path: ['value'] });
      }
    })
    .meta({ anyOf: [{ properties: { op: { const: 'remove' } } }, { required: ['value'] }] });
  return z
    .strictObject({
      schemas: schemaUris(SCIM_PATCH_OP_URI, `SCIM schema URIs; must include ${SCIM_PATCH_OP_URI}.`),
      Operations: z
        .array(operation)
        .min(1, { error: 'give at least one operation' })
        .meta({ description: 'Changes applied in order (SCIM PATCH).' }),
    })
    .meta({ title: `Patch a SCIM ${target}`, examples });
}

export const patchScimGroupBody = patchBody('group', [
  {
    schemas: [SCIM_PATCH_OP_URI],
    Operations: [{ op: 'add', path: 'members', value: [{ value: 'usrA1b2C3d4E5f6G7' }] }],
  },
  {
    schemas: [SCIM_PATCH_OP_URI],
    Operations: [
      { op: 'replace', path: 'displayName', value: 'Platform team' },
      { op: 'remove', path: 'members[value eq "usrH8i9J0k1L2m3N4"]' },
    ],
  },
]);

export const patchScimUserBody = patchBody('user', [
  { schemas: [SCIM_PATCH_OP_URI], Operations: [{ op: 'replace', path: 'active', value: false }] },
  {
    schemas: [SCIM_PATCH_OP_URI],
    Operations: [
      { op: 'replace', path: 'name.familyName', value: 'Hopper' },
      { op: 'remove', path: 'title' },
    ],
  },
]);

// ---- users -----------------------------------------------------------------------------------------------

/** A SCIM multi-valued attribute entry (emails, ims, phoneNumbers). */
const multiValue = z.strictObject({
  value: z.string(),
  display: nullableText(),
  primary: nullableFlag,
  type: nullableText(),
});
const multiValues = (description: string) => z.array(multiValue).nullable().optional().meta({ description });

const address = z.strictObject({
  country: nullableText(),
  formatted: nullableText(),
  locality: nullableText(),
  postalCode: nullableText(),
  primary: nullableFlag,
  region: nullableText(),
  streetAddress: nullableText(),
  type: z.enum(['work', 'home', 'other']).nullable().optional(),
});

const photo = z.strictObject({
  value: z.string().meta({ description: 'Image URL.' }),
  primary: nullableFlag,
  type: z.enum(['photo', 'thumbnail']).nullable().optional(),
});

const groupRef = z.strictObject({ value: z.string(), $ref: nullableText() });

const enterpriseExtension = z
  .strictObject({
    employeeNumber: nullableText(),
    costCenter: nullableText(),
    organization: nullableText(),
    division: nullableText(),
    department: nullableText(),
    manager: z
      .strictObject({ value: nullableText(), displayName: nullableText(), $ref: nullableText() })
      .nullable()
      .optional(),
  })
  .nullable()
  .optional()
  .meta({ description: `Reporting attributes; list ${SCIM_ENTERPRISE_USER_URI} in schemas too.` });

const email = z
  .string()
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { error: 'userName is the email address, e.g. ada@example.com' });

const userShape = {
  schemas: schemaUris(
    SCIM_USER_URI,
    `SCIM schema URIs; must include ${SCIM_USER_URI} (add ${SCIM_ENTERPRISE_USER_URI} with the extension).`,
  ),
  userName: email.meta({ description: "Email address; unused, in one of the enterprise's domains." }),
  name: z
    .strictObject({
      givenName: nullableText('First name.'),
      familyName: nullableText('Last name.'),
      middleName: nullableText(),
      formatted: nullableText(),
      honorificPrefix: nullableText(),
      honorificSuffix: nullableText(),
    })
    .nullable()
    .optional(),
  active: nullableFlag.meta({ description: 'false deactivates the user.' }),
  displayName: nullableText(),
  nickName: nullableText(),
  title: nullableText('Job title.'),
  userType: nullableText(),
  externalId: nullableText("The identity provider's own id for the user."),
  id: z.string().min(1).optional().meta({ description: 'User id (usr…); set by the store.' }),
  emails: multiValues('Email addresses.'),
  phoneNumbers: multiValues('Phone numbers.'),
  ims: multiValues('Instant-messaging handles.'),
  photos: z.array(photo).nullable().optional(),
  addresses: z.array(address).nullable().optional(),
  groups: z.array(groupRef).nullable().optional().meta({ description: 'Group memberships (ugp…).' }),
  entitlements: z.array(z.unknown()).nullable().optional(),
  roles: z.array(z.unknown()).nullable().optional(),
  locale: nullableText(),
  preferredLanguage: nullableText(),
  timezone: nullableText(),
  profileUrl: nullableText(),
  password: nullableText(),
  meta: z.unknown().optional(),
  [SCIM_ENTERPRISE_USER_URI]: enterpriseExtension,
};

const ADA = {
  schemas: [SCIM_USER_URI],
  userName: 'ada@example.com',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
};

export const createScimUserBody = z.strictObject(userShape).meta({
  title: 'Create a SCIM user',
  description: 'Created active, without a password (sign-in through SSO).',
  examples: [
    ADA,
    {
      schemas: [SCIM_USER_URI, SCIM_ENTERPRISE_USER_URI],
      userName: 'grace@example.com',
      name: { givenName: 'Grace', familyName: 'Hopper' },
      title: 'Engineer',
      externalId: 'okta-00u1a2b3',
      emails: [{ value: 'grace@example.com', primary: true, type: 'work' }],
      [SCIM_ENTERPRISE_USER_URI]: { employeeNumber: '1042', department: 'Research' },
    },
  ],
});

export const replaceScimUserBody = z.strictObject(userShape).meta({
  title: 'Replace a SCIM user',
  description: "Replaces the user's attributes with these.",
  examples: [
    { ...ADA, active: true, displayName: 'Ada Lovelace' },
    { ...ADA, active: false },
  ],
});
