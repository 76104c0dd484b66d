// Record writes: create, update (merge) and replace (destructive), in batches of up to 10 or one at a time.
// Cell values stay open (their shape depends on the field type, which only the base knows); what can be checked
// without the base is checked: the envelope, the batch size, upsert settings and record ids.

import { z } from 'zod';

/** Records per create, update or replace call. */
export const RECORDS_PER_REQUEST = 10;
/** Fields an upsert may match on. */
export const MERGE_FIELDS_MAX = 3;

const fields = z.record(z.string().min(1), z.unknown()).meta({
  id: 'RecordFields',
  description:
    'Cell values keyed by field name or field id (fld…). Values follow the field type: text, number, boolean, ' +
    'null to clear, arrays of select names or record ids, attachments [{url, filename?}] or [{id}], ' +
    'collaborators {id} or {email}, barcodes {text, type?}.',
});

const flags = {
  typecast: z
    .boolean()
    .nullable()
    .optional()
    .meta({ description: 'true: convert strings to cell values best-effort (may add select options).' }),
  returnFieldsByFieldId: z
    .boolean()
    .nullable()
    .optional()
    .meta({ description: 'true: key the returned fields by field id instead of name.' }),
};

const recordId = z.string().min(1).meta({ description: 'Record id (rec…).' });

/** An array of records with the per-call limit and a message that says what to do about it. */
function recordBatch<T extends z.ZodType>(record: T, description: string) {
  return z
    .array(record)
    .min(1, { error: 'give at least one record' })
    .max(RECORDS_PER_REQUEST, {
      error: (issue) =>
        `at most ${RECORDS_PER_REQUEST} records per request; got ${(issue.input as unknown[]).length}. ` +
        `Split the write into several calls of up to ${RECORDS_PER_REQUEST} records each.`,
    })
    .meta({ description: `${description} 1 to ${RECORDS_PER_REQUEST} per call.` });
}

export const createRecordsBody = z
  .strictObject({
    records: recordBatch(
      z.strictObject({ fields }),
      'Records to create; fields left out stay empty.',
    ).optional(),
    fields: fields.optional().meta({ description: 'Creates a single record (instead of records).' }),
    ...flags,
  })
  .superRefine((body, ctx) => {
    const given = (['records', 'fields'] as const).filter((key) => body[key] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          given.length === 0
            ? 'give records (an array of {fields}) or fields (a single record)'
            : 'give records or fields, not both',
        path: [],
      });
    }
  })
  .meta({
    title: 'Create records',
    description: 'Either records (a batch) or fields (one record).',
    oneOf: [{ required: ['records'] }, { required: ['fields'] }],
    examples: [
      {
        records: [
          { fields: { Name: 'Ada Lovelace', Status: 'Active' } },
          { fields: { Name: 'Grace Hopper', Tags: ['compilers', 'navy'] } },
        ],
        typecast: true,
      },
      { fields: { Name: 'Alan Turing', Score: 42, Active: true } },
    ],
  });

const performUpsert = z
  .strictObject({
    fieldsToMergeOn: z
      .array(z.string().min(1))
      .min(1, { error: 'name at least one field to merge on' })
      .max(MERGE_FIELDS_MAX, {
        error: (issue) =>
          `at most ${MERGE_FIELDS_MAX} fields to merge on; got ${(issue.input as unknown[]).length}`,
      })
      .meta({
        description:
          'Field names or ids whose values identify a record (text, number, date or select fields, not computed).',
      }),
  })
  .nullable()
  .optional()
  .meta({
    description:
      'Upsert: records without id are matched on these fields; no match creates a record, one match updates ' +
      'it, several fail the request.',
  });

/** The rule "without performUpsert, every record names its id", for both validators. */
function requireIdsUnlessUpsert(
  body: { records: { id?: string | undefined }[]; performUpsert?: unknown },
  ctx: z.RefinementCtx,
) {
  if (body.performUpsert != null) return;
  body.records.forEach((record, index) => {
    if (record.id === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'required: the record id (rec…), unless performUpsert is given',
        path: ['records', index, 'id'],
      });
    }
  });
}

const ID_UNLESS_UPSERT = {
  if: { properties: { performUpsert: { type: 'object' } }, required: ['performUpsert'] },
  else: { properties: { records: { items: { required: ['id'] } } } },
};

function batchUpdateBody(title: string, description: string, examples: unknown[]) {
  return z
    .strictObject({
      records: recordBatch(
        z.strictObject({
          id: recordId.optional().meta({ description: 'Record id (rec…); required unless performUpsert.' }),
          fields,
        }),
        'Records to write.',
      ),
      performUpsert,
      ...flags,
    })
    .superRefine(requireIdsUnlessUpsert)
    .meta({ title, description, ...ID_UNLESS_UPSERT, examples });
}

export const updateRecordsBody = batchUpdateBody(
  'Update records',
  'Sets the given cells and leaves the others as they are.',
  [
    { records: [{ id: 'recA1b2C3d4E5f6G7', fields: { Status: 'Done' } }] },
    {
      performUpsert: { fieldsToMergeOn: ['Email'] },
      records: [{ fields: { Email: 'ada@example.com', Name: 'Ada Lovelace' } }],
      typecast: true,
    },
  ],
);

export const replaceRecordsBody = batchUpdateBody(
  'Replace records',
  'Destructive: cells not given are cleared.',
  [
    {
      records: [
        { id: 'recA1b2C3d4E5f6G7', fields: { Name: 'Ada Lovelace', Status: 'Done' } },
        { id: 'recH8i9J0k1L2m3N4', fields: { Name: 'Grace Hopper' } },
      ],
    },
  ],
);

function singleUpdateBody(title: string, description: string, example: unknown) {
  return z.strictObject({ fields, ...flags }).meta({ title, description, examples: [example] });
}

export const updateRecordBody = singleUpdateBody(
  'Update a record',
  'Sets the given cells and leaves the others as they are.',
  { fields: { Status: 'Done', Score: 9.5 } },
);

export const replaceRecordBody = singleUpdateBody(
  'Replace a record',
  'Destructive: cells not given are cleared.',
  { fields: { Name: 'Ada Lovelace', Status: 'Active' }, typecast: true },
);
