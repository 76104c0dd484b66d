// The StoreApi's output schema table (issue 15): each tool's success structuredContent, by tool name without
// prefix. Kept in two parts along the toolsets (toolsets.ts): the data toolsets (records, comments, bases, schema,
// webhooks, sharing) and the administration ones (workspaces, enterprise, audit, scim, bulk). A tool named in both
// parts is a mistake the assembly refuses, so that neither part silently replaces the other's schema.

import type { z } from 'zod';
import { lazyTable } from '../../runtime/outputSchemas.js';
import { STORE_ADMIN_OUTPUT_SCHEMAS } from './outputSchemas/admin.js';
import { STORE_DATA_OUTPUT_SCHEMAS } from './outputSchemas/data.js';

function assemble<A extends Record<string, z.ZodObject>, B extends Record<string, z.ZodObject>>(
  data: A,
  admin: B,
): A & B {
  const twice = Object.keys(data).filter((name) => Object.hasOwn(admin, name));
  if (twice.length > 0) {
    throw new Error(
      `Output schemas for ${twice.join(', ')} are in both outputSchemas/data.ts and outputSchemas/admin.ts; keep each in the part of its toolset.`,
    );
  }
  return { ...data, ...admin };
}

export const STORE_OUTPUT_SCHEMAS = lazyTable(() =>
  assemble(STORE_DATA_OUTPUT_SCHEMAS(), STORE_ADMIN_OUTPUT_SCHEMAS()),
);
