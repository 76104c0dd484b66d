// Compliance: the bodies that request an audit log export and an eDiscovery export of a base.

import { z } from 'zod';
import { EXPORT_STATES } from './shared.js';

export const createAuditLogRequestBody = z
  .strictObject({
    timePeriod: z
      .string()
      .regex(/^\d{4}-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?$/, {
        error: 'timePeriod is a month (YYYY-MM) or a day (YYYY-MM-DD), e.g. 2026-03',
      })
      .meta({ description: 'The month (YYYY-MM) or day (YYYY-MM-DD) to export.' }),
    filter: z.string().min(1).optional().meta({ description: 'Filter for the events to include.' }),
  })
  .meta({
    title: 'Request an audit log export',
    examples: [{ timePeriod: '2026-03' }, { timePeriod: '2026-03-14' }],
  });

export const createEdiscoveryExportBody = z
  .strictObject({
    baseId: z.string().min(1).meta({ description: 'Base to export (app…).' }),
    includeCsvFormat: z.boolean().optional().meta({ description: 'Also produce CSV files.' }),
    shouldSendEmailOnCompletion: z
      .boolean()
      .optional()
      .meta({ description: 'Email the requester when the export is ready.' }),
  })
  .meta({
    title: 'Start an eDiscovery export',
    examples: [
      { baseId: 'appA1b2C3d4E5f6G7' },
      { baseId: 'appA1b2C3d4E5f6G7', includeCsvFormat: true, shouldSendEmailOnCompletion: false },
    ],
  });

export { EXPORT_STATES };
