// What the StoreApi tool tables share: the context, the row type that names an upstream operation, annotation
// sets, parameter builders in the spec's types, and the upstream's query encoding (`fields[]=A`, `sort[0][field]=A`).

import { z } from 'zod';
import { type EndpointToolRow, endpointTool, type RequestBodyLoader } from '../../../runtime/endpoint.js';
import type { Operation } from '../../../runtime/operation.js';
import type { ToolDefinition } from '../../../runtime/tool.js';
import type { QueryValue } from '../../../runtime/url.js';
import type { StoreClient } from '../client.js';

export interface StoreContext {
  api: StoreClient;
}

/** A StoreApi tool with the upstream operation (endpoints.ts) it calls, from which its OAuth scope is read. */
export interface StoreTool extends ToolDefinition<StoreContext> {
  readonly operation: Operation;
}

type StoreRow<S extends z.ZodObject> = Omit<EndpointToolRow<StoreContext, S>, 'client'> &
  Partial<Pick<EndpointToolRow<StoreContext, S>, 'client'>>;

/**
 * An endpoint row of the store, whose endpoint names its operation from STORE_OPERATIONS. Its upstream client is
 * the caller's API client unless the row names another (the attachment upload's content host).
 */
export function storeTool<S extends z.ZodObject>(row: StoreRow<S>): StoreTool {
  const { operation } = row.endpoint;
  return {
    ...endpointTool({ client: apiClient, ...row }),
    operation,
    ...(operation.scope !== undefined ? { scope: operation.scope } : {}),
  };
}

export { CREATE, DESTROY, READ_ONLY, UPDATE } from '../../../runtime/hints.js';

type StoreBodies = typeof import('../schemas/index.js').STORE_BODIES;

/**
 * The request body schema `name` of STORE_BODIES, loaded with the schemas on the first call that needs it rather
 * than at start: building them was a third of the time `serve store` spent in its own modules before listing tools.
 */
export function storeBody(name: keyof StoreBodies): RequestBodyLoader {
  return async () => (await import('../schemas/index.js')).STORE_BODIES[name];
}

/**
 * The spec's `s` parameter for an identifier. Identifiers go without descriptions: their names say what they
 * are and the server instructions give the id prefixes once, instead of in every tool's schema.
 */
export const id = (description?: string) =>
  description ? z.string().min(1).describe(description) : z.string().min(1);
/**
 * `pagination_offset` where the upstream's offset is text: the `offset` of the previous page. Undescribed: the name
 * says it, and the server instructions say how lists page, once.
 */
export const offset = z.string().optional();
/** The spec's `a` parameter: an array of strings. */
export const strings = (description?: string) => {
  const schema = z.array(z.string().min(1)).optional();
  return description ? schema.describe(description) : schema;
};

/** The enterprise account's path parameter, as the enterprise and compliance tools name it. */
export const entPath = { enterpriseAccountId: 'enterprise_account_id' };

/** The upstream client for one call: per call, so that the caller's own credential can be chosen. */
const apiClient = (ctx: StoreContext, call: Parameters<StoreClient['forCall']>[0]) => ctx.api.forCall(call);

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
