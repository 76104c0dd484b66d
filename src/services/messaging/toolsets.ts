// The MessagingTrackApi's toolsets: named groups of its 17 tools, each tool in exactly one, for
// `serve --toolsets` and the HTTP paths `/mcp/messaging.<toolset>` (docs/toolsets.md).

import type { Toolset } from '../../runtime/tool.js';

export const MESSAGING_TOOLSETS = {
  people: {
    description: 'People and their devices: add, update, suppress, merge, delete, unsubscribe; the region',
    tools: [
      'UpdateOrAddPerson',
      'DeleteCustomer',
      'AddDeviceToCustomerProfile',
      'RemoveCustomerDevice',
      'SuppressCustomerProfile',
      'UnsuppressCustomerProfile',
      'MergeCustomerProfiles',
      'GlobalUnsubscribeUser',
      // Which region the credentials belong to: a check made before tracking people, so it goes with them.
      'GetTrackApiRegion',
    ],
  },
  events: {
    description: 'Events of people and anonymous visitors, form responses, delivery metrics',
    tools: ['SendCustomerEvent', 'TrackAnonymousEvent', 'SubmitFormResponse', 'ReportCustomMetrics'],
  },
  segments: {
    description: 'Add people to and remove them from manual segments',
    tools: ['AddPeopleToSegment', 'RemoveUserFromSegment'],
  },
  objects: {
    description: 'One v2 operation on a person, object or delivery, with relationships',
    tools: ['ManageEntity'],
  },
  batch: {
    description: 'Many v2 operations in one call',
    tools: ['BatchProcessRequests'],
  },
} as const satisfies Record<string, Toolset>;
