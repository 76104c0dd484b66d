// Webhooks: what a new webhook watches (the specification) and where pings go; turning notifications on and
// off. Tables, views and fields in a specification are named by id, never by name.

import { z } from 'zod';

export const WEBHOOK_DATA_TYPES = ['tableData', 'tableFields', 'tableMetadata'] as const;
export const WEBHOOK_CHANGE_TYPES = ['add', 'remove', 'update'] as const;
export const WEBHOOK_SOURCES = [
  'client',
  'publicApi',
  'formSubmission',
  'formPageSubmission',
  'automation',
  'system',
  'sync',
  'anonymousUser',
  'unknown',
] as const;

/** An array without repeats; JSON Schema says it with uniqueItems. */
function distinct<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .superRefine((values, ctx) => {
      const seen = new Set<unknown>();
      values.forEach((value, index) => {
        if (seen.has(value)) {
          ctx.addIssue({
            code: 'custom',
            message: `${JSON.stringify(value)} is listed twice`,
            path: [index],
          });
        }
        seen.add(value);
      });
    })
    .meta({ uniqueItems: true });
}

const fieldIds = (description: string) => z.array(z.string().min(1)).meta({ description });

const filters = z
  .strictObject({
    dataTypes: distinct(z.enum(WEBHOOK_DATA_TYPES))
      .min(1, { error: 'name at least one data type: tableData, tableFields or tableMetadata' })
      .max(WEBHOOK_DATA_TYPES.length)
      .meta({
        description:
          'tableData: records and cells; tableFields: field changes; tableMetadata: table name and description.',
      }),
    recordChangeScope: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Only changes in this table (tbl…) or view (viw…); default the whole base.' }),
    changeTypes: distinct(z.enum(WEBHOOK_CHANGE_TYPES))
      .optional()
      .meta({ description: 'Only these kinds of change; default all.' }),
    fromSources: distinct(z.enum(WEBHOOK_SOURCES))
      .optional()
      .meta({ description: 'Only changes made through these sources; default all.' }),
    sourceOptions: z
      .strictObject({
        formSubmission: z.strictObject({ viewId: z.string().min(1) }).optional(),
        formPageSubmission: z.strictObject({ pageId: z.string().min(1) }).optional(),
      })
      .optional()
      .meta({ description: 'Narrows form sources to one form view (viw…) or interface page (pag…).' }),
    watchDataInFieldIds: fieldIds('Only cell changes in these fields (fld…).').optional(),
    watchSchemasOfFieldIds: fieldIds('Only configuration changes of these fields (fld…).').optional(),
  })
  .meta({ description: 'Which changes produce payloads; only dataTypes is required.' });

const includes = z
  .strictObject({
    includeCellValuesInFieldIds: z
      .union([fieldIds('Field ids (fld…).'), z.literal('all')])
      .optional()
      .meta({ description: 'Cell values to include in every payload, changed or not: field ids or "all".' }),
    includePreviousCellValues: z
      .boolean()
      .optional()
      .meta({ description: 'Include the value before the change.' }),
    includePreviousFieldDefinitions: z
      .boolean()
      .optional()
      .meta({ description: 'Include the field configuration before the change.' }),
  })
  .meta({ description: 'Extra data in payloads.' });

const notificationUrl = z
  .string()
  .regex(/^https?:\/\/[^\s/?#]+\S*$/, {
    error: 'must be an http or https URL, e.g. https://example.com/hook',
  })
  .refine((value) => URL.canParse(value), { error: 'must be a valid URL' })
  .meta({ format: 'uri' });

export const createWebhookBody = z
  .strictObject({
    notificationUrl: notificationUrl.nullable().optional().meta({
      description: 'Receives a ping on each new payload; null or absent: no pings (poll payloads).',
    }),
    specification: z.strictObject({
      options: z.strictObject({ filters, includes: includes.optional() }),
    }),
  })
  .meta({
    title: 'Create a webhook',
    description: 'Ids only (tbl…, viw…, fld…). Webhooks expire after 7 days unless refreshed.',
    examples: [
      {
        notificationUrl: 'https://example.com/airtable-hook',
        specification: {
          options: { filters: { dataTypes: ['tableData'], recordChangeScope: 'tblA1b2C3d4E5f6G7' } },
        },
      },
      {
        specification: {
          options: {
            filters: {
              dataTypes: ['tableData', 'tableFields'],
              changeTypes: ['add', 'update'],
              fromSources: ['client', 'formSubmission'],
              watchDataInFieldIds: ['fldA1b2C3d4E5f6G7'],
            },
            includes: { includeCellValuesInFieldIds: 'all', includePreviousCellValues: true },
          },
        },
      },
    ],
  });

export const toggleWebhookNotificationsBody = z
  .strictObject({
    enable: z.boolean().meta({ description: 'true: send pings to the notification URL; false: stop.' }),
  })
  .meta({ title: 'Enable or disable notifications', examples: [{ enable: true }, { enable: false }] });
