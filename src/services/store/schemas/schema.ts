// Schema writes: create a base with its tables, create a table with its fields, create a field, update a table.
// A field is described by its type and that type's options, in the upstream's write format (field model,
// "Field type and options (write)"). Only some types can be created through the API; the others (computed or
// system-managed fields) are refused by name. Option objects are closed: the upstream refuses unknown options.

import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { FIELD_DESCRIPTION_MAX } from './shared.js';
import { IANA_TIME_ZONES } from './timeZones.js';

// ---- shared pieces ---------------------------------------------------------------------------------------

const HUES = ['blue', 'cyan', 'teal', 'green', 'yellow', 'orange', 'red', 'pink', 'purple', 'gray'] as const;
type Hue = (typeof HUES)[number];
/** Colors a select choice may have: ten hues in four shades. */
export const CHOICE_COLORS = (['Light2', 'Light1', 'Bright', 'Dark1'] as const).flatMap((shade) =>
  HUES.map((hue) => `${hue}${shade}` as const),
);
/** Colors of checkbox and rating icons. */
export const ICON_COLORS = HUES.map((hue) => `${hue}Bright` as `${Hue}Bright`);

const choiceColor = z
  .string()
  .regex(new RegExp(`^(?:${HUES.join('|')})(?:Light2|Light1|Bright|Dark1)$`), {
    error:
      'a choice color is a hue (blue, cyan, teal, green, yellow, orange, red, pink, purple, gray) and a shade (Light2, Light1, Bright, Dark1), e.g. blueLight2',
  })
  .meta({ id: 'ChoiceColor', description: 'Hue and shade, e.g. blueLight2, greenBright, redDark1.' });
const iconColor = z.enum(ICON_COLORS as [string, ...string[]]).meta({
  id: 'IconColor',
  description: 'Free and Plus plans: only yellowBright (rating), greenBright (checkbox).',
});

/** A name: some text that is not only spaces. */
function nameText(what: string) {
  return z.string().regex(/\S/, { error: `the ${what} name must not be empty` });
}

const fieldName = nameText('field').meta({
  id: 'FieldName',
  description: 'Field name, unique in the table.',
});

function description(what: string, allowEmpty: boolean) {
  const text = allowEmpty
    ? z.string()
    : z.string().min(1, { error: `the ${what} description, if given, must not be empty` });
  return text.max(FIELD_DESCRIPTION_MAX, {
    error: (issue) => `at most ${FIELD_DESCRIPTION_MAX} characters; got ${(issue.input as string).length}`,
  });
}

const fieldDescription = description('field', false).meta({
  id: 'FieldDescription',
  description: `Field description, 1 to ${FIELD_DESCRIPTION_MAX} characters.`,
});

/** An option the upstream reports when reading a field but refuses when creating one. */
function readOnlyOption(name: string) {
  return z
    .unknown()
    .refine((value) => value === undefined, {
      error: `${name} is read-only (Airtable reports it when reading the field); leave it out when creating one`,
    })
    .optional()
    .meta({ not: {}, description: 'Read-only; leave out.' });
}

// ---- options per field type ------------------------------------------------------------------------------

const precision = (max: number) =>
  z
    .int()
    .min(0)
    .max(max)
    .meta({ description: `Digits after the decimal point, 0 to ${max}.` });

const precisionOptions = z.strictObject({ precision: precision(8) }).meta({ id: 'PrecisionOptions' });

const currencyOptions = z.strictObject({
  precision: precision(7),
  symbol: z.string().min(1).meta({ description: 'Currency symbol, e.g. $ or €.' }),
});

const ratingOptions = z.strictObject({
  icon: z.enum(['star', 'heart', 'thumbsUp', 'flag', 'dot']),
  max: z.int().min(1).max(10).meta({ description: 'Highest rating, 1 to 10.' }),
  color: iconColor,
});

const durationOptions = z.strictObject({
  durationFormat: z.enum(['h:mm', 'h:mm:ss', 'h:mm:ss.S', 'h:mm:ss.SS', 'h:mm:ss.SSS']),
});

const checkboxOptions = z.strictObject({
  icon: z.enum(['check', 'xCheckbox', 'star', 'heart', 'thumbsUp', 'flag', 'dot']),
  color: iconColor,
});

const selectOptions = z
  .strictObject({
    choices: z
      .array(
        z.strictObject({
          name: z.string().min(1, { error: 'a choice needs a name' }),
          color: choiceColor.optional(),
        }),
      )
      .meta({ description: 'The choices, in order; color optional.' }),
  })
  .meta({ id: 'SelectOptions' });

/** An object {name, format?} where format, if given, must be the one that goes with name. */
function namedFormat<const F extends Record<string, string>>(formats: F, id: string, description: string) {
  const names = Object.keys(formats) as [string, ...string[]];
  const patterns = Object.values(formats) as [string, ...string[]];
  return z
    .strictObject({ name: z.enum(names), format: z.enum(patterns).optional() })
    .superRefine((value, ctx) => {
      const expected = formats[value.name];
      if (value.format !== undefined && value.format !== expected) {
        ctx.addIssue({
          code: 'custom',
          message: `format ${JSON.stringify(value.format)} does not go with name ${JSON.stringify(value.name)}; use ${JSON.stringify(expected)} or leave format out`,
          path: ['format'],
        });
      }
    })
    .meta({
      id,
      description: `${description} format is optional; if given it must match name (${Object.entries(formats)
        .map(([name, format]) => `${name}: ${format}`)
        .join(', ')}).`,
      anyOf: Object.entries(formats).map(([name, format]) => ({
        properties: { name: { const: name }, format: { const: format } },
      })),
    });
}

const dateFormat = namedFormat(
  { local: 'l', friendly: 'LL', us: 'M/D/YYYY', european: 'D/M/YYYY', iso: 'YYYY-MM-DD' },
  'DateFormat',
  'How dates are shown.',
);
const timeFormat = namedFormat(
  { '12hour': 'h:mma', '24hour': 'HH:mm' },
  'TimeFormat',
  'How times are shown.',
);

const TIME_ZONES: ReadonlySet<string> = new Set(['utc', 'client', ...IANA_TIME_ZONES]);
const timeZone = z
  .string()
  .refine((value) => TIME_ZONES.has(value), {
    error: (issue) =>
      `unknown time zone ${JSON.stringify(issue.input)}; use utc, client or an IANA name such as America/New_York`,
  })
  .meta({
    description: "utc, client (each viewer's own zone) or an IANA name such as Europe/Paris.",
    pattern: '^(?:utc|client|[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z0-9_+-]+){1,2})$',
  });

const dateOptions = z.strictObject({ dateFormat });
const dateTimeOptions = z.strictObject({ timeZone, dateFormat, timeFormat });

const linkOptions = z.strictObject({
  linkedTableId: z.string().min(1).meta({ description: 'Table to link to (tbl…); may be this table.' }),
  viewIdForRecordSelection: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'View of the linked table (viw…) that the record picker shows.' }),
  isReversed: readOnlyOption('isReversed'),
  prefersSingleRecordLink: readOnlyOption('prefersSingleRecordLink'),
  inverseLinkFieldId: readOnlyOption('inverseLinkFieldId'),
});

const attachmentOptions = z.strictObject({
  isReversed: z.boolean().optional().meta({ description: 'Show the newest attachment first.' }),
});

const collaboratorOptions = z.strictObject({}).meta({ id: 'CollaboratorOptions' });

interface OptionsRule {
  schema: z.ZodType;
  required: boolean;
}
const needs = (schema: z.ZodType): OptionsRule => ({ schema, required: true });
const mayHave = (schema: z.ZodType): OptionsRule => ({ schema, required: false });

// One rule object per options shape, so that types sharing it share one variant of the field union.
const PRECISION = needs(precisionOptions);
const SELECT = needs(selectOptions);
const COLLABORATOR = mayHave(collaboratorOptions);

/**
 * The field types that can be created through the API, with the options each takes (undefined: none). From the
 * field model: every type whose options are documented for writing, or documented without a read/write split
 * (barcode); the ones marked read only are in NON_CREATABLE_FIELD_TYPES.
 */
export const FIELD_OPTIONS = {
  singleLineText: undefined,
  email: undefined,
  url: undefined,
  multilineText: undefined,
  phoneNumber: undefined,
  richText: undefined,
  barcode: undefined,
  number: PRECISION,
  percent: PRECISION,
  currency: needs(currencyOptions),
  rating: needs(ratingOptions),
  duration: needs(durationOptions),
  checkbox: needs(checkboxOptions),
  singleSelect: SELECT,
  multipleSelects: SELECT,
  date: needs(dateOptions),
  dateTime: needs(dateTimeOptions),
  multipleRecordLinks: needs(linkOptions),
  multipleAttachments: mayHave(attachmentOptions),
  singleCollaborator: COLLABORATOR,
  multipleCollaborators: COLLABORATOR,
} as const satisfies Record<string, OptionsRule | undefined>;

export type WritableFieldType = keyof typeof FIELD_OPTIONS;
export const WRITABLE_FIELD_TYPES = Object.keys(FIELD_OPTIONS) as readonly WritableFieldType[];

/** Field types that exist but that the API cannot create: computed, system-managed or sync-only. */
export const NON_CREATABLE_FIELD_TYPES = [
  'aiText',
  'autoNumber',
  'button',
  'count',
  'createdBy',
  'createdTime',
  'externalSyncSource',
  'formula',
  'lastModifiedBy',
  'lastModifiedTime',
  'lookup',
  'multipleLookupValues',
  'rollup',
] as const;

/** Creatable types a table's first (primary) field may have. */
export const PRIMARY_FIELD_TYPES = [
  'singleLineText',
  'email',
  'url',
  'multilineText',
  'phoneNumber',
  'barcode',
  'number',
  'percent',
  'currency',
  'duration',
  'date',
  'dateTime',
] as const satisfies readonly WritableFieldType[];

const NON_CREATABLE: ReadonlySet<string> = new Set(NON_CREATABLE_FIELD_TYPES);
const PRIMARY: ReadonlySet<string> = new Set(PRIMARY_FIELD_TYPES);

// ---- field specs -----------------------------------------------------------------------------------------

/** One variant of the field union per options rule, its `type` naming every type with that rule. */
function fieldVariant(
  types: readonly [WritableFieldType, ...WritableFieldType[]],
  rule: OptionsRule | undefined,
) {
  return z.strictObject({
    name: fieldName,
    type: types.length === 1 ? z.literal(types[0]) : z.enum(types),
    description: fieldDescription.optional(),
    ...(rule ? { options: rule.required ? rule.schema : rule.schema.optional() } : {}),
  });
}

function fieldVariants() {
  const groups = new Map<OptionsRule | undefined, WritableFieldType[]>();
  for (const type of WRITABLE_FIELD_TYPES) {
    const rule: OptionsRule | undefined = FIELD_OPTIONS[type];
    groups.set(rule, [...(groups.get(rule) ?? []), type]);
  }
  const variants = [...groups].map(([rule, types]) =>
    fieldVariant(types as [WritableFieldType, ...WritableFieldType[]], rule),
  );
  return variants as [(typeof variants)[number], ...(typeof variants)[number][]];
}

/** Why `type` cannot be used, for the message of the union when no variant has that type. */
function unknownTypeMessage(type: unknown): string {
  const creatable = `creatable types: ${WRITABLE_FIELD_TYPES.join(', ')}`;
  if (type === undefined) return `required: the field type; ${creatable}`;
  if (typeof type !== 'string') return `the field type must be a string; ${creatable}`;
  if (NON_CREATABLE.has(type)) {
    return `${type} fields cannot be created through the API (they are computed or managed by Airtable; add them in the Airtable UI); ${creatable}`;
  }
  const near = WRITABLE_FIELD_TYPES.find(
    (candidate) => candidate.toLowerCase() === type.toLowerCase() || distance(candidate, type) <= 2,
  );
  return `unknown field type ${JSON.stringify(type)}${near ? ` (did you mean ${near}?)` : ''}; ${creatable}`;
}

const fieldSpec = z
  .discriminatedUnion('type', fieldVariants(), {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? unknownTypeMessage((issue.input as { type?: unknown } | undefined)?.type)
        : undefined,
  })
  .meta({
    description:
      `A field: name, type and the type's options. Computed and system types (${NON_CREATABLE_FIELD_TYPES.join(', ')}) ` +
      'cannot be created through the API.',
  });

/** The same field spec, kept once under $defs where a body holds many. */
const fieldSpecDef = fieldSpec.meta({ id: 'FieldSpec' });

type FieldSpec = z.output<typeof fieldSpec>;

/** Names given twice in one request; the upstream refuses them. */
function checkUniqueNames(what: string) {
  return (items: readonly { name: string }[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    items.forEach((item, index) => {
      const name = item.name.trim();
      if (seen.has(name)) {
        ctx.addIssue({
          code: 'custom',
          message: `${what} name ${JSON.stringify(name)} is used twice; ${what} names must be unique`,
          path: [index, 'name'],
        });
      }
      seen.add(name);
    });
  };
}

const tableFields = z
  .array(fieldSpecDef)
  .min(1, { error: 'a table needs at least one field (the first becomes the primary field)' })
  .superRefine((fields: FieldSpec[], ctx) => {
    const first = fields[0];
    if (first && !PRIMARY.has(first.type)) {
      ctx.addIssue({
        code: 'custom',
        message:
          `the first field becomes the primary field, which cannot be ${first.type}; ` +
          `put a field of one of these types first: ${PRIMARY_FIELD_TYPES.join(', ')}`,
        path: [0, 'type'],
      });
    }
    checkUniqueNames('field')(fields, ctx);
  })
  .meta({
    description: `The fields, in order. The first becomes the primary field: type ${PRIMARY_FIELD_TYPES.join(', ')}.`,
    prefixItems: [{ $ref: '#/$defs/FieldSpec', properties: { type: { enum: [...PRIMARY_FIELD_TYPES] } } }],
  });

const tableName = nameText('table').meta({ description: 'Table name, unique in the base.' });
const tableDescription = description('table', false).meta({
  description: `Table description, 1 to ${FIELD_DESCRIPTION_MAX} characters.`,
});

const tableShape = { name: tableName, description: tableDescription.optional(), fields: tableFields };

// ---- bodies ----------------------------------------------------------------------------------------------

const EXAMPLE_TABLE = {
  name: 'Tasks',
  description: 'Work to do.',
  fields: [
    { name: 'Name', type: 'singleLineText' },
    {
      name: 'Status',
      type: 'singleSelect',
      options: {
        choices: [
          { name: 'Todo', color: 'grayLight2' },
          { name: 'Done', color: 'greenBright' },
        ],
      },
    },
    { name: 'Due', type: 'date', options: { dateFormat: { name: 'iso' } } },
    { name: 'Estimate', type: 'number', options: { precision: 1 }, description: 'Hours.' },
  ],
};

export const createBaseBody = z
  .strictObject({
    name: nameText('base').meta({ description: 'Base name.' }),
    workspaceId: z.string().min(1).meta({ description: 'Workspace to create the base in (wsp…).' }),
    tables: z
      .array(z.strictObject(tableShape).meta({ id: 'TableSpec' }))
      .min(1, { error: 'a base needs at least one table' })
      .superRefine(checkUniqueNames('table'))
      .meta({ description: 'The tables, at least one; each with its fields.' }),
  })
  .meta({
    title: 'Create a base',
    examples: [{ name: 'Project tracker', workspaceId: 'wspA1b2C3d4E5f6G7', tables: [EXAMPLE_TABLE] }],
  });

export const createTableBody = z.strictObject(tableShape).meta({
  title: 'Create a table',
  examples: [
    EXAMPLE_TABLE,
    {
      name: 'Contacts',
      fields: [
        { name: 'Email', type: 'email' },
        { name: 'Company', type: 'multipleRecordLinks', options: { linkedTableId: 'tblA1b2C3d4E5f6G7' } },
        {
          name: 'Met',
          type: 'dateTime',
          options: {
            timeZone: 'Europe/Paris',
            dateFormat: { name: 'european' },
            timeFormat: { name: '24hour', format: 'HH:mm' },
          },
        },
      ],
    },
  ],
});

export const createFieldBody = fieldSpec.meta({
  title: 'Create a field',
  examples: [
    { name: 'Notes', type: 'multilineText', description: 'Anything worth remembering.' },
    { name: 'Price', type: 'currency', options: { precision: 2, symbol: '€' } },
    { name: 'Priority', type: 'rating', options: { icon: 'star', max: 5, color: 'yellowBright' } },
    { name: 'Done', type: 'checkbox', options: { icon: 'check', color: 'greenBright' } },
  ],
});

const fieldId = (description: string) => z.string().min(1).meta({ description });

const dateDependencySettings = z
  .strictObject({
    isEnabled: z.boolean(),
    startDateFieldId: fieldId('Date field with the start (fld…).'),
    endDateFieldId: fieldId('Date field with the end (fld…).'),
    durationFieldId: fieldId('Number field with the duration in days (fld…).'),
    predecessorFieldId: z
      .string()
      .min(1)
      .nullable()
      .meta({ description: 'Link field to this table holding the predecessors (fld…), or null.' }),
    reschedulingMode: z.enum(['flexible', 'fixed', 'none']),
    shouldSkipWeekendsAndHolidays: z.boolean(),
    holidays: z
      // JSON Schema gets the short form of the date rule; zod also refuses days that do not exist.
      .array(z.iso.date({ error: 'a date like 2026-12-25' }).meta({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }))
      .meta({ description: 'Dates (YYYY-MM-DD) skipped when rescheduling.' }),
    isForwardOnly: z.boolean().optional(),
  })
  .meta({ description: 'Date dependencies between linked records; every setting is given.' });

export const updateTableBody = z
  .strictObject({
    name: tableName.optional().meta({ description: 'New table name.' }),
    description: description('table', true)
      .optional()
      .meta({ description: `New description, at most ${FIELD_DESCRIPTION_MAX} characters; "" clears it.` }),
    dateDependencySettings: dateDependencySettings.optional(),
  })
  .superRefine((body, ctx) => {
    if (Object.keys(body).length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'give at least one of name, description or dateDependencySettings',
        path: [],
      });
    }
  })
  .meta({
    title: 'Update a table',
    minProperties: 1,
    examples: [{ name: 'Open tasks' }, { description: 'Tasks not yet done.' }],
  });

export { FIELD_DESCRIPTION_MAX };
