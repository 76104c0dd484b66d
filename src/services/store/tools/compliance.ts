// Compliance: audit log events and audit log export requests, base change events, and eDiscovery exports of an
// enterprise account. 8 StoreApi tools as declarative rows over the generic executor; they need an enterprise
// admin's token.

import { z } from 'zod';
import type { ArgumentIssue } from '../../../runtime/errors.js';
import { STORE_OPERATIONS } from '../endpoints.js';
import { EXPORT_STATES, STORE_BODIES } from '../schemas/index.js';
import { CREATE, entPath, id, READ_ONLY, storeTool } from './shared.js';

const dateTime = (description: string) =>
  z.iso
    .datetime({ offset: true, error: 'an ISO 8601 date-time, e.g. 2026-03-01T00:00:00Z' })
    .optional()
    .describe(description);

/** end_time, when both are given, must come after start_time. */
function timeWindow(args: {
  start_time?: string | undefined;
  end_time?: string | undefined;
}): ArgumentIssue[] {
  if (args.start_time === undefined || args.end_time === undefined) return [];
  return Date.parse(args.end_time) > Date.parse(args.start_time)
    ? []
    : [{ field: 'end_time', problem: 'must be later than start_time' }];
}

const pageSize = (max: number) =>
  z.int().min(1).max(max).optional().describe(`Per page, 1 to ${max} (default 10).`);

export const COMPLIANCE_TOOLS = [
  storeTool({
    name: 'GetAuditLogEvents',
    title: 'Get audit log events',
    description: 'Audit log events of the enterprise, filtered and paged (next/previous).',
    input: z.object({
      enterprise_account_id: id(),
      start_time: dateTime('Earliest event, inclusive (default 180 days ago).'),
      end_time: dateTime('Latest event, exclusive (default now).'),
      event_category: z.string().optional().describe('Only this category of events.'),
      event_type: z.string().optional().describe('Only this event type, e.g. createBase.'),
      filter_by_originating_user_id: z.string().optional().describe('Only events by this user (usr…).'),
      model_identifier: z.string().optional().describe('Only events on this object id.'),
      next_page_token: z.string().optional().describe('pagination.next: the page of newer events.'),
      previous_event_marker: z
        .string()
        .optional()
        .describe('pagination.previous: the page of older events (the next page when newest first).'),
      page_size: z.int().min(1).max(1000).optional().describe('Events per page, 1 to 1000 (default 10).'),
      sort_order: z.enum(['ascending', 'descending']).optional().describe('Default descending.'),
    }),
    hints: READ_ONLY,
    check: timeWindow,
    endpoint: {
      operation: STORE_OPERATIONS.ListAuditLogEvents,
      pathParams: entPath,
      query: {
        startTime: 'start_time',
        endTime: 'end_time',
        category: 'event_category',
        eventType: 'event_type',
        originatingUserId: 'filter_by_originating_user_id',
        modelId: 'model_identifier',
        next: 'next_page_token',
        previous: 'previous_event_marker',
        pageSize: 'page_size',
        sortOrder: 'sort_order',
      },
    },
  }),
  storeTool({
    name: 'RetrieveAuditLogRequests',
    title: 'List audit log requests',
    description: 'Audit log export requests of the enterprise and their state.',
    input: z.object({
      enterprise_account_id: id(),
      audit_log_page_size: pageSize(100),
      pagination_offset: z.int().min(0).optional().describe('offset from the previous page.'),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.ListAuditLogRequests,
      pathParams: entPath,
      query: { pageSize: 'audit_log_page_size', offset: 'pagination_offset' },
    },
  }),
  storeTool({
    name: 'CreateAuditLogRequest',
    title: 'Request an audit log export',
    description: 'Start an export of one month or day of audit log events.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: STORE_BODIES.createAuditLogRequest,
    hints: CREATE,
    endpoint: { operation: STORE_OPERATIONS.CreateAuditLogRequest, pathParams: entPath },
  }),
  storeTool({
    name: 'RetrieveAuditLog',
    title: 'Get an audit log request',
    description: 'State of an audit log export, with download links when done.',
    input: z.object({ audit_log_task_id: id(), enterprise_account_id: id() }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetAuditLogRequest,
      pathParams: { ...entPath, enterpriseAuditLogTaskId: 'audit_log_task_id' },
    },
  }),
  storeTool({
    name: 'GetStoreChangeEvents',
    title: 'Get change events',
    description: 'Base change events of the last 14 days, newest first (next page: offset).',
    input: z.object({
      enterprise_account_id: id(),
      start_time: dateTime('Earliest event, inclusive.'),
      end_time: dateTime('Latest event, exclusive.'),
      page_size_limit: pageSize(100),
      pagination_offset: z.string().optional().describe('offset from the previous page.'),
    }),
    hints: READ_ONLY,
    check: timeWindow,
    endpoint: {
      operation: STORE_OPERATIONS.ListChangeEvents,
      pathParams: entPath,
      query: {
        startTime: 'start_time',
        endTime: 'end_time',
        pageSize: 'page_size_limit',
        offset: 'pagination_offset',
      },
    },
  }),
  storeTool({
    name: 'GetEdiscoveryExportsStatus',
    title: 'List eDiscovery exports',
    description: 'eDiscovery exports of the enterprise, optionally by state.',
    input: z.object({
      enterprise_account_id: id(),
      ediscovery_export_state: z.enum(EXPORT_STATES).optional().describe('Only exports in this state.'),
      pagination_offset: z
        .int()
        .min(0)
        .optional()
        .describe('Exports to skip (offset from the previous page).'),
      result_page_size: pageSize(100),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.ListEdiscoveryExports,
      pathParams: entPath,
      query: { state: 'ediscovery_export_state', offset: 'pagination_offset', pageSize: 'result_page_size' },
    },
  }),
  storeTool({
    name: 'CreateEdiscoveryExport',
    title: 'Start an eDiscovery export',
    description: 'Start an eDiscovery export of one base.',
    input: z.object({ enterprise_account_id: id().optional() }),
    requestBody: STORE_BODIES.createEdiscoveryExport,
    hints: CREATE,
    endpoint: { operation: STORE_OPERATIONS.CreateEdiscoveryExport, pathParams: entPath },
  }),
  storeTool({
    name: 'GetEdiscoveryExportStatus',
    title: 'Get an eDiscovery export',
    description: 'State of an eDiscovery export, with download links when done.',
    input: z.object({ enterprise_account_id: id(), enterprise_task_id: id() }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetEdiscoveryExport,
      pathParams: { ...entPath, enterpriseTaskId: 'enterprise_task_id' },
    },
  }),
];
