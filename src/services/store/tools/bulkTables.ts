// Bulk data tables (enterprise tables keyed by primary key): upsert, read and delete rows. 3 StoreApi tools as
// declarative rows over the generic executor.

import { z } from 'zod';
import { STORE_OPERATIONS } from '../endpoints.js';
import { BULK_RECORDS_PER_REQUEST } from '../schemas/shared.js';
import { DESTROY, id, READ_ONLY, storeBody, storeTool, strings, UPDATE } from './shared.js';

const tablePath = { enterpriseAccountId: 'enterprise_account_id', dataTableId: 'data_table_id' };

export const BULK_TABLE_TOOLS = [
  storeTool({
    name: 'DeleteRecordsByPrimaryKeys',
    title: 'Delete rows by key',
    description: `Delete up to ${BULK_RECORDS_PER_REQUEST} rows of a data table by primary key.`,
    input: z.object({ enterprise_account_id: id().optional(), data_table_id: id().optional() }),
    requestBody: storeBody('deleteBulkRecords'),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteDataTableRecords,
      pathParams: tablePath,
      // Deleting the same keys again leaves the same table.
      idempotent: true,
    },
  }),
  storeTool({
    name: 'ReadBulkTableRecords',
    title: 'Read rows',
    description: 'Rows of a data table, by primary key or paged.',
    input: z.object({
      data_table_id: id(),
      enterprise_account_id: id(),
      // Names and bounds say what these are.
      fields_to_retrieve: strings(),
      maximum_records_to_retrieve: z.int().min(1).max(BULK_RECORDS_PER_REQUEST).optional(),
      pagination_cursor: z.string().optional().describe('nextCursor of the last call'),
      primary_keys_to_retrieve: z
        .array(z.string().min(1))
        .max(BULK_RECORDS_PER_REQUEST, {
          error: (issue) =>
            `at most ${BULK_RECORDS_PER_REQUEST} keys per call; got ${(issue.input as unknown[]).length}. Split into several calls.`,
        })
        .optional(),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetDataTableRecords,
      pathParams: tablePath,
      body: (args) =>
        Object.fromEntries(
          Object.entries({
            fields: args.fields_to_retrieve,
            maxRecords: args.maximum_records_to_retrieve,
            cursor: args.pagination_cursor,
            primaryKeys: args.primary_keys_to_retrieve,
          }).filter(([, value]) => value !== undefined),
        ),
      // A read: safe to repeat although it is a POST.
      idempotent: true,
    },
  }),
  storeTool({
    name: 'UpsertStoreRecords',
    title: 'Upsert rows',
    description: `Insert or update up to ${BULK_RECORDS_PER_REQUEST} rows of a data table by primary key.`,
    input: z.object({ enterprise_account_id: id().optional(), data_table_id: id().optional() }),
    requestBody: storeBody('upsertBulkRecords'),
    hints: UPDATE,
    endpoint: { operation: STORE_OPERATIONS.UpsertDataTableRecords, pathParams: tablePath },
  }),
];
