// Identity: the StoreApi tool that says who the configured token belongs to.

import { z } from 'zod';
import { STORE_OPERATIONS } from '../endpoints.js';
import { READ_ONLY, storeTool } from './shared.js';

export const IDENTITY_TOOLS = [
  storeTool({
    name: 'RetrieveUserIdAndScopes',
    title: 'Who am I',
    description: "The token's user id, scopes, and email when allowed.",
    input: z.object({}),
    hints: READ_ONLY,
    endpoint: { operation: STORE_OPERATIONS.GetUserIdAndScopes },
  }),
];
