// Records, attachments and comments: 14 StoreApi tools as declarative rows over the generic executor.

import { z } from 'zod';
import type { ArgumentIssue } from '../../../runtime/errors.js';
import { STORE_OPERATIONS } from '../endpoints.js';
import {
  airtableQuery,
  CREATE,
  DESTROY,
  id,
  offset,
  READ_ONLY,
  type StoreContext,
  storeBody,
  storeTool,
  strings,
  UPDATE,
} from './shared.js';

/** The upstream's URL limit; longer list requests go to its POST twin. */
const MAX_URL_LENGTH = 16_000;
const MAX_RECORDS_PER_DELETE = 10;

const cellFormat = z.enum(['json', 'string']);

interface SortEntry {
  field: string;
  direction?: 'asc' | 'desc';
}

/** `sort_order` is JSON text: `[{"field": "Name", "direction": "desc"}]` (a single object is taken too). */
function parseSort(text: string): SortEntry[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'not valid JSON; expected e.g. [{"field": "Name", "direction": "desc"}]';
  }
  const entries = Array.isArray(parsed) ? parsed : [parsed];
  for (const entry of entries) {
    const { field, direction } = (entry ?? {}) as { field?: unknown; direction?: unknown };
    if (typeof field !== 'string' || field === '') return 'each entry needs "field" (a field name or id)';
    if (direction !== undefined && direction !== 'asc' && direction !== 'desc') {
      return '"direction" is "asc" or "desc"';
    }
  }
  return entries as SortEntry[];
}

function splitFields(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

const listInput = z.object({
  base_id: id(),
  table_id_or_name: id(),
  cell_format_method: cellFormat.optional().describe('json (raw, default) or string (as shown)'),
  filter_by_formula: z.string().optional().describe('e.g. {Status}="Done"'),
  maximum_records: z.int().positive().optional().describe('In all, across pages'),
  output_time_zone: z.string().optional().describe('For string format, e.g. Europe/Paris'),
  // Names, bounds and default say what these are.
  page_size: z.int().min(1).max(100).default(100),
  pagination_offset: offset,
  record_metadata_fields: strings('Only commentCount'),
  return_fields_by_field_id: z.boolean().optional(),
  sort_order: z.string().optional().describe('JSON: [{"field":"Name","direction":"asc|desc"}]'),
  specific_fields: z.string().optional().describe('Comma-separated field names'),
  specified_view: z.string().optional().describe('View name or id; its filter and order apply'),
  user_locale: z.string().optional().describe('For string format, e.g. en-gb'),
});

const listRecords = storeTool({
  name: 'ListStoreRecords',
  title: 'List records',
  description: 'Records of a table, filtered and sorted.',
  input: listInput,
  hints: READ_ONLY,
  check: (args) => {
    const issues: ArgumentIssue[] = [];
    if (args.cell_format_method === 'string') {
      for (const field of ['output_time_zone', 'user_locale'] as const) {
        if (!args[field]) {
          issues.push({
            field,
            problem: 'required when cell_format_method is "string" (the upstream needs both)',
          });
        }
      }
    }
    if (args.sort_order !== undefined) {
      const sort = parseSort(args.sort_order);
      if (typeof sort === 'string') issues.push({ field: 'sort_order', problem: sort });
    }
    return issues;
  },
  endpoint: {
    operation: STORE_OPERATIONS.ListRecords,
    pathParams: { baseId: 'base_id', tableIdOrName: 'table_id_or_name' },
    query: {
      cellFormat: 'cell_format_method',
      filterByFormula: 'filter_by_formula',
      maxRecords: 'maximum_records',
      timeZone: 'output_time_zone',
      pageSize: 'page_size',
      offset: 'pagination_offset',
      recordMetadata: 'record_metadata_fields',
      returnFieldsByFieldId: 'return_fields_by_field_id',
      view: 'specified_view',
      userLocale: 'user_locale',
    },
    queryFrom: (args) => ({
      ...(typeof args.sort_order === 'string' ? { sort: parseSort(args.sort_order) } : {}),
      ...(typeof args.specific_fields === 'string' ? { fields: splitFields(args.specific_fields) } : {}),
    }),
    serializeQuery: airtableQuery,
    // The upstream takes time zone and locale only in the query, even on the POST form.
    longUrl: {
      maxUrlLength: MAX_URL_LENGTH,
      ...STORE_OPERATIONS.ListRecordsByPost,
      keepInQuery: ['timeZone', 'userLocale'],
    },
  },
});

export const RECORD_TOOLS = [
  storeTool({
    name: 'UploadAttachmentToStore',
    title: 'Upload attachment',
    description: "Upload a file (base64, at most 5 MB) to a record's attachment field.",
    input: z.object({
      store_base_id: id().optional(),
      store_record_id: id().optional(),
      attachment_field_id_or_name: id().optional(),
    }),
    requestBody: storeBody('uploadAttachment'),
    hints: CREATE,
    endpoint: {
      operation: STORE_OPERATIONS.UploadAttachment,
      pathParams: {
        baseId: 'store_base_id',
        recordId: 'store_record_id',
        attachmentFieldIdOrName: 'attachment_field_id_or_name',
      },
    },
    client: (ctx: StoreContext, call) => ctx.api.forCall(call, 'content'),
  }),
  storeTool({
    name: 'DeleteMultipleRecords',
    title: 'Delete records',
    description: 'Delete up to 10 records by id.',
    input: z.object({
      base_id: id(),
      table_identifier: id(),
      record_ids_to_delete: strings('1 to 10'),
    }),
    hints: DESTROY,
    check: (args) => {
      const count = args.record_ids_to_delete?.length ?? 0;
      return count >= 1 && count <= MAX_RECORDS_PER_DELETE
        ? []
        : [
            {
              field: 'record_ids_to_delete',
              problem: `give 1 to ${MAX_RECORDS_PER_DELETE} record ids (got ${count}); split larger deletes into several calls`,
            },
          ];
    },
    endpoint: {
      operation: STORE_OPERATIONS.DeleteMultipleRecords,
      pathParams: { baseId: 'base_id', tableIdOrName: 'table_identifier' },
      query: { 'records[]': 'record_ids_to_delete' },
    },
  }),
  listRecords,
  storeTool({
    name: 'UpdateStoreRecords',
    title: 'Update records',
    description: 'Update up to 10 records (fields given only), or upsert.',
    input: z.object({ store_base_id: id().optional(), store_table_id_or_name: id().optional() }),
    requestBody: storeBody('updateRecords'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.UpdateMultipleRecords,
      pathParams: { baseId: 'store_base_id', tableIdOrName: 'store_table_id_or_name' },
      // A plain update sets given values; an upsert may create, so it is not repeated blindly.
      idempotent: false,
    },
  }),
  storeTool({
    name: 'CreateStoreRecords',
    title: 'Create records',
    description: 'Create up to 10 records.',
    input: z.object({ base_id: id().optional(), table_id_or_name: id().optional() }),
    requestBody: storeBody('createRecords'),
    hints: CREATE,
    endpoint: {
      operation: STORE_OPERATIONS.CreateRecords,
      pathParams: { baseId: 'base_id', tableIdOrName: 'table_id_or_name' },
    },
  }),
  storeTool({
    name: 'BulkUpdateStore',
    title: 'Replace records',
    description: 'Replace up to 10 records (fields not given are cleared), or upsert.',
    input: z.object({ base_id: id().optional(), table_identifier: id().optional() }),
    requestBody: storeBody('replaceRecords'),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.ReplaceMultipleRecords,
      pathParams: { baseId: 'base_id', tableIdOrName: 'table_identifier' },
      // With performUpsert a PUT may create records, so a retry could create twice.
      idempotent: false,
    },
  }),
  storeTool({
    name: 'DeleteStoreRecord',
    title: 'Delete record',
    description: 'Delete one record.',
    input: z.object({ store_base_id: id(), record_id: id(), table_identifier: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteRecord,
      pathParams: { baseId: 'store_base_id', tableIdOrName: 'table_identifier', recordId: 'record_id' },
    },
  }),
  storeTool({
    name: 'StoreGetRecord',
    title: 'Get record',
    description: 'One record with its fields.',
    input: z.object({
      store_base_id: id(),
      record_id: id(),
      table_identifier: id(),
      cell_format: cellFormat.optional().describe('json (default) or string (UTC, en-us)'),
      return_fields_by_field_id: z.boolean().optional(),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetRecord,
      pathParams: { baseId: 'store_base_id', tableIdOrName: 'table_identifier', recordId: 'record_id' },
      query: { cellFormat: 'cell_format', returnFieldsByFieldId: 'return_fields_by_field_id' },
      // The upstream needs a time zone and locale for string cells and this tool has no parameters for them.
      queryFrom: (args) => (args.cell_format === 'string' ? { timeZone: 'UTC', userLocale: 'en-us' } : {}),
    },
  }),
  storeTool({
    name: 'UpdateStoreRecord',
    title: 'Update record',
    description: 'Update one record (fields given only).',
    input: z.object({
      base_id: id().optional(),
      table_id_or_name: id().optional(),
      store_record_id: id().optional(),
    }),
    requestBody: storeBody('updateRecord'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.UpdateRecord,
      pathParams: { baseId: 'base_id', tableIdOrName: 'table_id_or_name', recordId: 'store_record_id' },
      idempotent: true,
    },
  }),
  storeTool({
    name: 'ModifyStoreEntry',
    title: 'Replace record',
    description: 'Replace one record (fields not given are cleared).',
    input: z.object({
      base_id: id().optional(),
      table_identifier: id().optional(),
      record_identifier: id().optional(),
    }),
    requestBody: storeBody('replaceRecord'),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.ReplaceRecord,
      pathParams: { baseId: 'base_id', tableIdOrName: 'table_identifier', recordId: 'record_identifier' },
    },
  }),
  storeTool({
    name: 'GetRecordComments',
    title: 'List comments',
    description: "A record's comments, newest first.",
    input: z.object({
      base_id: id(),
      record_id: id(),
      table_identifier: id(),
      pagination_offset: offset,
      results_page_size: z.int().min(1).max(100).optional(),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.ListComments,
      pathParams: { baseId: 'base_id', tableIdOrName: 'table_identifier', recordId: 'record_id' },
      query: { offset: 'pagination_offset', pageSize: 'results_page_size' },
    },
  }),
  storeTool({
    name: 'AddRecordComment',
    title: 'Comment on record',
    description: 'Add a comment (or a reply) to a record.',
    input: z.object({
      base_identifier: id().optional(),
      table_identifier: id().optional(),
      record_identifier: id().optional(),
    }),
    requestBody: storeBody('createComment'),
    hints: CREATE,
    endpoint: {
      operation: STORE_OPERATIONS.CreateComment,
      pathParams: {
        baseId: 'base_identifier',
        tableIdOrName: 'table_identifier',
        recordId: 'record_identifier',
      },
    },
  }),
  storeTool({
    name: 'DeleteCommentFromRecord',
    title: 'Delete comment',
    description: 'Delete a comment you wrote.',
    input: z.object({
      store_base_id: id(),
      comment_id_to_delete: id(),
      record_id: id(),
      table_id_or_name: id(),
    }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteComment,
      pathParams: {
        baseId: 'store_base_id',
        tableIdOrName: 'table_id_or_name',
        recordId: 'record_id',
        rowCommentId: 'comment_id_to_delete',
      },
    },
  }),
  storeTool({
    name: 'UpdateRecordComment',
    title: 'Edit comment',
    description: 'Change the text of a comment you wrote.',
    input: z.object({
      base_identifier: id().optional(),
      table_id_or_name: id().optional(),
      record_id: id().optional(),
      comment_id: id().optional(),
    }),
    requestBody: storeBody('updateComment'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.UpdateComment,
      pathParams: {
        baseId: 'base_identifier',
        tableIdOrName: 'table_id_or_name',
        recordId: 'record_id',
        rowCommentId: 'comment_id',
      },
      idempotent: true,
    },
  }),
];
