// Identity: the StoreApi tool that says who the configured token belongs to.

import { z } from 'zod';
import { endpointTool } from '../../../runtime/endpoint.js';
import { client, READ_ONLY } from './shared.js';

export const IDENTITY_TOOLS = [
  endpointTool({
    name: 'RetrieveUserIdAndScopes',
    title: 'Who am I',
    description: "The token's user id, scopes, and email when allowed.",
    input: z.object({}),
    hints: READ_ONLY,
    endpoint: { method: 'GET', path: '/v0/meta/whoami' },
    client,
  }),
];
