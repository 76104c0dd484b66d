// What the StoreApi tool tables share: the context, annotation sets, parameter builders in the spec's types, and
// the upstream's query encoding (`fields[]=A`, `sort[0][field]=A`).

import { z } from 'zod';
import type { QueryValue } from '../../../runtime/url.js';
import type { StoreApi } from '../upstream.js';

export interface StoreContext {
  api: StoreApi;
}

export { CREATE, DESTROY, READ_ONLY, UPDATE } from '../../../runtime/hints.js';

/**
 * The spec's `s` parameter for an identifier. Identifiers go without descriptions: their names say what they
 * are and the server instructions give the id prefixes once, instead of in every tool's schema.
 */
export const id = (description?: string) =>
  description ? z.string().min(1).describe(description) : z.string().min(1);
/** The spec's `a` parameter: an array of strings. */
export const strings = (description: string) => z.array(z.string().min(1)).optional().describe(description);

export const client = (ctx: StoreContext, call: Parameters<StoreApi['forCall']>[0]) => ctx.api.forCall(call);

/**
 * The upstream's query encoding: arrays of scalars as repeated `name[]` keys, arrays of objects as
 * `name[i][key]`, scalars as they are. Parameter names already ending in `[]` are left alone.
 */
export function airtableQuery(query: Record<string, unknown>): Record<string, QueryValue> {
  const out: Record<string, QueryValue> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (value.every((item) => typeof item !== 'object' || item === null)) {
        out[key.endsWith('[]') ? key : `${key}[]`] = value as (string | number | boolean)[];
      } else {
        value.forEach((item, index) => {
          for (const [inner, innerValue] of Object.entries(item as Record<string, unknown>)) {
            if (innerValue !== undefined) out[`${key}[${index}][${inner}]`] = String(innerValue);
          }
        });
      }
    } else {
      out[key] = value as QueryValue;
    }
  }
  return out;
}
