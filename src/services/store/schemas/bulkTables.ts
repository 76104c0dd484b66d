// Bulk data tables (enterprise tables keyed by a primary key): upsert rows, delete rows by key, read rows by
// key or by cursor. Cells are flat values: text, numbers, dates as ISO text, or null to clear.

import { z } from 'zod';
import { BULK_RECORDS_PER_REQUEST } from './shared.js';

const primaryKey = z.string().min(1, { error: 'a primary key must not be empty' });

function keyList(description: string, atLeastOne: boolean) {
  const keys = z.array(primaryKey);
  return (atLeastOne ? keys.min(1, { error: 'give at least one primary key' }) : keys)
    .max(BULK_RECORDS_PER_REQUEST, {
      error: (issue) =>
        `at most ${BULK_RECORDS_PER_REQUEST} primary keys per request; got ${(issue.input as unknown[]).length}. Split into several calls.`,
    })
    .meta({ description });
}

// The one published body of upsertRecords allows a string, a number, an ISO date string or null per cell, and
// nothing else (no booleans): that shape is followed, so a body that passes here is one the upstream takes.
const cell = z.union([z.string(), z.number(), z.null()], {
  error: 'a cell is text, a number, a date as ISO text, or null to clear (true/false: give text or a number)',
});

export const upsertBulkRecordsBody = z
  .strictObject({
    records: z
      .array(
        z.strictObject({
          primaryKey: primaryKey.meta({ description: 'Key of the row; an existing row is updated.' }),
          fields: z.record(z.string().min(1), cell).meta({
            description:
              'Cells by field name: text, a number, a date as ISO text (2024-03-01T00:00:00.000Z), or null to clear.',
          }),
        }),
      )
      .min(1, { error: 'give at least one record' })
      .max(BULK_RECORDS_PER_REQUEST, {
        error: (issue) =>
          `at most ${BULK_RECORDS_PER_REQUEST} records per request; got ${(issue.input as unknown[]).length}. Split into several calls.`,
      })
      .superRefine((records, ctx) => {
        const seen = new Set<string>();
        records.forEach((record, index) => {
          // JSON Schema cannot say "distinct by primaryKey"; zod checks it (the emulator and the tools use zod).
          if (seen.has(record.primaryKey)) {
            ctx.addIssue({
              code: 'custom',
              message: `primary key ${JSON.stringify(record.primaryKey)} is listed twice; give each row once`,
              path: [index, 'primaryKey'],
            });
          }
          seen.add(record.primaryKey);
        });
      })
      .meta({ description: `Rows to insert or update, 1 to ${BULK_RECORDS_PER_REQUEST} per call.` }),
  })
  .meta({
    title: 'Upsert rows by primary key',
    description: 'Rows whose key exists are updated; the others are added.',
    examples: [
      {
        records: [
          {
            primaryKey: 'SKU-1001',
            fields: { Name: 'Desk lamp', Price: 39.5, Released: '2024-03-01T00:00:00.000Z' },
          },
          { primaryKey: 'SKU-1002', fields: { Name: 'Chair', Price: 120, Discontinued: null } },
        ],
      },
    ],
  });

export const deleteBulkRecordsBody = z
  .strictObject({
    primaryKeysForDelete: keyList(`Keys of the rows to delete, 1 to ${BULK_RECORDS_PER_REQUEST}.`, true),
  })
  .meta({
    title: 'Delete rows by primary key',
    examples: [{ primaryKeysForDelete: ['SKU-1001', 'SKU-1002'] }],
  });

export const readBulkRecordsBody = z
  .strictObject({
    primaryKeys: keyList(
      `Only these rows, at most ${BULK_RECORDS_PER_REQUEST}; default all.`,
      false,
    ).optional(),
    fields: z.array(z.string().min(1)).optional().meta({ description: 'Only these fields; default all.' }),
    maxRecords: z
      .int()
      .min(1)
      .max(BULK_RECORDS_PER_REQUEST)
      .optional()
      .meta({ description: `Rows per call, 1 to ${BULK_RECORDS_PER_REQUEST}.` }),
    cursor: z.string().min(1).optional().meta({ description: 'nextCursor from the previous call.' }),
  })
  .meta({
    title: 'Read rows',
    examples: [{ primaryKeys: ['SKU-1001'], fields: ['Name', 'Price'] }, { maxRecords: 100 }],
  });

export { BULK_RECORDS_PER_REQUEST };
