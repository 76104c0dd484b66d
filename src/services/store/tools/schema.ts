// Bases, tables, fields and views: 11 StoreApi tools as declarative rows over the generic executor.

import { z } from 'zod';
import { STORE_OPERATIONS } from '../endpoints.js';
import { FIELD_DESCRIPTION_MAX } from '../schemas/shared.js';
import {
  airtableQuery,
  CREATE,
  DESTROY,
  id,
  offset,
  READ_ONLY,
  storeBody,
  storeTool,
  strings,
  UPDATE,
} from './shared.js';

export const SCHEMA_TOOLS = [
  storeTool({
    name: 'ListStoreBases',
    title: 'List bases',
    description: 'Bases the token can reach, with permission levels.',
    input: z.object({ pagination_offset: offset }),
    hints: READ_ONLY,
    endpoint: { operation: STORE_OPERATIONS.ListBases, query: { offset: 'pagination_offset' } },
  }),
  storeTool({
    name: 'CreateStoreBase',
    title: 'Create base',
    description: 'Create a base in a workspace, with its tables and fields.',
    input: z.object({}),
    requestBody: storeBody('createBase'),
    hints: CREATE,
    endpoint: { operation: STORE_OPERATIONS.CreateBase },
  }),
  storeTool({
    name: 'DeleteStoreBase',
    title: 'Delete base',
    description: 'Delete a base and everything in it.',
    input: z.object({ base_id: id() }),
    hints: DESTROY,
    endpoint: { operation: STORE_OPERATIONS.DeleteBase, pathParams: { baseId: 'base_id' } },
  }),
  storeTool({
    name: 'GetStoreBaseSchema',
    title: 'Get base schema',
    description: 'Tables of a base with their fields and views.',
    input: z.object({ store_base_id: id(), fields_to_include: strings('Extras: visibleFieldIds') }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetBaseSchema,
      pathParams: { baseId: 'store_base_id' },
      query: { include: 'fields_to_include' },
      serializeQuery: airtableQuery,
    },
  }),
  storeTool({
    name: 'CreateStoreTable',
    title: 'Create table',
    description: 'Create a table with its fields.',
    input: z.object({ store_base_id: id().optional() }),
    requestBody: storeBody('createTable'),
    hints: CREATE,
    endpoint: {
      operation: STORE_OPERATIONS.CreateTable,
      pathParams: { baseId: 'store_base_id' },
    },
  }),
  storeTool({
    name: 'UpdateStoreTable',
    title: 'Update table',
    description: "Change a table's name or description.",
    input: z.object({ store_base_id: id().optional(), table_id_or_name: id().optional() }),
    requestBody: storeBody('updateTable'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.UpdateTable,
      pathParams: { baseId: 'store_base_id', tableIdOrName: 'table_id_or_name' },
      idempotent: true,
    },
  }),
  storeTool({
    name: 'CreateStoreField',
    title: 'Create field',
    description: 'Add a field to a table.',
    input: z.object({ store_base_id: id().optional(), table_id: id().optional() }),
    requestBody: storeBody('createField'),
    hints: CREATE,
    endpoint: {
      operation: STORE_OPERATIONS.CreateField,
      pathParams: { baseId: 'store_base_id', tableId: 'table_id' },
    },
  }),
  storeTool({
    name: 'UpdateStoreFieldDetails',
    title: 'Rename or describe field',
    description: "Change a field's name and/or description.",
    input: z.object({
      store_base_id: id(),
      store_table_id: id(),
      field_column_id: id(),
      new_field_description: z.string().max(FIELD_DESCRIPTION_MAX).optional(),
      // Names and maxLength say it; the check names the rule that one of the two is needed.
      new_field_name: z.string().min(1).optional(),
    }),
    hints: UPDATE,
    check: (args) =>
      args.new_field_name === undefined && args.new_field_description === undefined
        ? [{ field: 'new_field_name', problem: 'give new_field_name, new_field_description, or both' }]
        : [],
    endpoint: {
      operation: STORE_OPERATIONS.UpdateField,
      pathParams: { baseId: 'store_base_id', tableId: 'store_table_id', columnId: 'field_column_id' },
      body: (args) => ({
        ...(args.new_field_name !== undefined ? { name: args.new_field_name } : {}),
        ...(args.new_field_description !== undefined ? { description: args.new_field_description } : {}),
      }),
      idempotent: true,
    },
  }),
  storeTool({
    name: 'ListStoreBaseViews',
    title: 'List views',
    description: 'Views of a base.',
    input: z.object({ store_base_id: id(), fields_to_include: strings('Extras: visibleFieldIds') }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.ListViews,
      pathParams: { baseId: 'store_base_id' },
      query: { include: 'fields_to_include' },
      serializeQuery: airtableQuery,
    },
  }),
  storeTool({
    name: 'DeleteStoreView',
    title: 'Delete view',
    description: 'Delete a view (the records stay).',
    input: z.object({ store_base_id: id(), view_identifier: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteView,
      pathParams: { baseId: 'store_base_id', viewId: 'view_identifier' },
    },
  }),
  storeTool({
    name: 'GetStoreViewMetadata',
    title: 'Get view',
    description: "A view's type, name and, on request, visible fields.",
    input: z.object({
      base_identifier: id(),
      view_identifier: id(),
      include_fields: strings('Extras: visibleFieldIds'),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetViewMetadata,
      pathParams: { baseId: 'base_identifier', viewId: 'view_identifier' },
      query: { include: 'include_fields' },
      serializeQuery: airtableQuery,
    },
  }),
];
