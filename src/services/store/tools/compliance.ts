// Compliance: audit log events and audit log export requests, base change events, and eDiscovery exports of an
// enterprise account. 8 StoreApi tools as declarative rows over the generic executor; they need an enterprise
// admin's token.

import { z } from 'zod';
import type { ArgumentIssue } from '../../../runtime/errors.js';
import type { JobFollowUp } from '../../../runtime/tool.js';
import { STORE_OPERATIONS } from '../endpoints.js';
import { EXPORT_STATES } from '../schemas/shared.js';
import { CREATE, entPath, id, offset, READ_ONLY, storeBody, storeTool } from './shared.js';

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

/**
 * An audit log request or eDiscovery export, followed as an MCP task: the created job's `id` read back with
 * `statusTool` (`idArgument` names the job there) until its state is `done` or `error` (upstream job states:
 * pending, processing, done, error).
 */
function exportJob(statusTool: string, idArgument: string): JobFollowUp {
  return {
    statusTool,
    statusArguments: (args, created) =>
      typeof created.id === 'string' && typeof args.enterprise_account_id === 'string'
        ? { enterprise_account_id: args.enterprise_account_id, [idArgument]: created.id }
        : undefined,
    stateOf: (status) => (status.state === 'done' ? 'done' : status.state === 'error' ? 'failed' : 'running'),
  };
}

const pageSize = (max: number) => z.int().min(1).max(max).optional().describe('Default 10');

export const COMPLIANCE_TOOLS = [
  storeTool({
    name: 'GetAuditLogEvents',
    title: 'Get audit log events',
    description: 'Audit log events of the enterprise, filtered.',
    input: z.object({
      enterprise_account_id: id(),
      start_time: dateTime('Inclusive; default 180 days ago'),
      end_time: dateTime('Exclusive; default now'),
      // The names say what these filter by.
      event_category: z.string().optional(),
      event_type: z.string().optional().describe('e.g. createBase'),
      filter_by_originating_user_id: z.string().optional(),
      model_identifier: z.string().optional().describe('Id of the object acted on'),
      next_page_token: z.string().optional().describe('pagination.next: newer events'),
      previous_event_marker: z
        .string()
        .optional()
        .describe('pagination.previous: older events (the next page, newest first)'),
      page_size: z.int().min(1).max(1000).optional().describe('Default 10'),
      sort_order: z.enum(['ascending', 'descending']).optional().describe('Default descending'),
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
    description: 'Audit log export requests and their state.',
    input: z.object({
      enterprise_account_id: id(),
      audit_log_page_size: pageSize(100),
      // A count here, not text; the name says it.
      pagination_offset: z.int().min(0).optional(),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.ListAuditLogRequests,
      pathParams: entPath,
      query: { pageSize: 'audit_log_page_size', offset: 'pagination_offset' },
    },
  }),
  {
    ...storeTool({
      name: 'CreateAuditLogRequest',
      title: 'Request audit log export',
      description: 'Start an export of one month or day of audit log events.',
      input: z.object({ enterprise_account_id: id().optional() }),
      requestBody: storeBody('createAuditLogRequest'),
      hints: CREATE,
      endpoint: { operation: STORE_OPERATIONS.CreateAuditLogRequest, pathParams: entPath },
    }),
    job: exportJob('RetrieveAuditLog', 'audit_log_task_id'),
  },
  storeTool({
    name: 'RetrieveAuditLog',
    title: 'Get audit log request',
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
    description: 'Base change events of the last 14 days, newest first.',
    input: z.object({
      enterprise_account_id: id(),
      start_time: dateTime('Inclusive'),
      end_time: dateTime('Exclusive'),
      page_size_limit: pageSize(100),
      pagination_offset: offset,
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
    description: 'eDiscovery exports of the enterprise.',
    input: z.object({
      enterprise_account_id: id(),
      ediscovery_export_state: z.enum(EXPORT_STATES).optional(),
      pagination_offset: z.int().min(0).optional().describe('Exports to skip'),
      result_page_size: pageSize(100),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.ListEdiscoveryExports,
      pathParams: entPath,
      query: { state: 'ediscovery_export_state', offset: 'pagination_offset', pageSize: 'result_page_size' },
    },
  }),
  {
    ...storeTool({
      name: 'CreateEdiscoveryExport',
      title: 'Start eDiscovery export',
      description: 'Start an eDiscovery export of one base.',
      input: z.object({ enterprise_account_id: id().optional() }),
      requestBody: storeBody('createEdiscoveryExport'),
      hints: CREATE,
      endpoint: { operation: STORE_OPERATIONS.CreateEdiscoveryExport, pathParams: entPath },
    }),
    job: exportJob('GetEdiscoveryExportStatus', 'enterprise_task_id'),
  },
  storeTool({
    name: 'GetEdiscoveryExportStatus',
    title: 'Get eDiscovery export',
    description: 'State of an eDiscovery export, with download links when done.',
    input: z.object({ enterprise_account_id: id(), enterprise_task_id: id() }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetEdiscoveryExport,
      pathParams: { ...entPath, enterpriseTaskId: 'enterprise_task_id' },
    },
  }),
];
