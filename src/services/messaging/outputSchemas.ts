// What each MessagingTrackApi tool returns on success (issue 15, output schemas). The Track API answers writes
// with an empty body (200 `{}` or 204), which the executor turns into `{success: true, status}`
// (runtime/endpoint.ts); the region lookup returns the upstream's JSON; a batch adds what was accepted and, when
// the upstream answers 207, what failed (tools.ts batchShape). What all tools share (a cut result, schema mode's
// answer, errors) is added by runtime/outputSchemas.ts.

import { z } from 'zod';
import { lazyTable } from '../../runtime/outputSchemas.js';

/** Built on its first use (runtime/outputSchemas.ts lazyTable): the built program starts without it. */
export const MESSAGING_OUTPUT_SCHEMAS = lazyTable(() => {
  /** An empty upstream answer made explicit: the HTTP status says which (200 or 204). */
  const accepted = z.looseObject({ success: z.literal(true), status: z.number() });

  return {
    GetTrackApiRegion: z.looseObject({
      url: z.string(),
      region: z.string(),
      environment_id: z.number().optional(),
    }),
    UpdateOrAddPerson: accepted,
    DeleteCustomer: accepted,
    AddDeviceToCustomerProfile: accepted,
    RemoveCustomerDevice: accepted,
    SuppressCustomerProfile: accepted,
    UnsuppressCustomerProfile: accepted,
    GlobalUnsubscribeUser: accepted,
    SendCustomerEvent: accepted,
    TrackAnonymousEvent: accepted,
    SubmitFormResponse: accepted,
    MergeCustomerProfiles: accepted,
    ReportCustomMetrics: accepted,
    AddPeopleToSegment: accepted,
    RemoveUserFromSegment: accepted,
    ManageEntity: accepted,
    BatchProcessRequests: z.looseObject({
      success: z.boolean(),
      status: z.number(),
      /** How many operations of the batch the upstream took. */
      accepted: z.number(),
      partial: z.literal(true).optional(),
      failed: z
        .array(
          z.looseObject({
            batch_index: z.number(),
            operation: z.looseObject({ type: z.string(), action: z.string() }).optional(),
          }),
        )
        .optional(),
      hint: z.string().optional(),
    }),
  } satisfies Record<string, z.ZodType>;
});
