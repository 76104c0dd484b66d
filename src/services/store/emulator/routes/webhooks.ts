/**
 * The Airtable webhooks routes (`/v0/bases/{baseId}/webhooks...`): scopes, body and query validation, and the
 * upstream's status codes, over WebhookService (webhooks.ts), which holds the state. Checks run in this order:
 * webhook:manage, the base (403 INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND), the webhook (404 NOT_FOUND), then the
 * data scopes the specification's dataTypes need and the body or query (422 INVALID_REQUEST_UNKNOWN); a new
 * webhook's body comes before its data scopes, since only the body names its dataTypes.
 */
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import type { Result } from '../../../../emulation/result.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import { STORE_BODIES } from '../../schemas/index.js';
import { errors, type StoreError } from '../errors.js';
import {
  BASE_FAILURE,
  MAX_PAYLOADS_PER_PAGE,
  type WebhookDataType,
  type WebhookFailure,
  type WebhookOwnerKind,
  type WebhookService,
} from '../webhooks.js';
import { type Ctx, createArea, readJson, route } from './common.js';

export interface WebhookRouteDeps {
  webhooks: WebhookService;
  /** Undefined when the token carries the scope, else the refusal to send. */
  requireScope(c: Context<EmulatorEnv>, scope: string): Response | undefined;
  /** Answers `{"error":{"type","message"}}` with the status. */
  fail(c: Context<EmulatorEnv>, status: ContentfulStatusCode, type: string, message?: string): Response;
  /** The kind of token calling, for expiry and the OAuth limit; default: a personal access token. */
  ownerTokenKind?(c: Context<EmulatorEnv>): WebhookOwnerKind;
}

export const WEBHOOK_MANAGE_SCOPE = 'webhook:manage';

const NO_SLASH = { trailingSlash: false } as const;

/** The extra scopes a specification's data types need to create the webhook or list its payloads. */
export function dataScopes(dataTypes: readonly WebhookDataType[]): string[] {
  const scopes = new Set<string>();
  for (const type of dataTypes) scopes.add(type === 'tableData' ? 'data.records:read' : 'schema.bases:read');
  return [...scopes];
}

function statusOf(failure: WebhookFailure): ContentfulStatusCode {
  if (failure.type === 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND') return 403;
  if (failure.type === 'NOT_FOUND') return 404;
  return 422;
}

/** A positive decimal integer, or undefined for anything else. */
function positiveInt(raw: string): number | undefined {
  if (!/^\d{1,15}$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= 1 ? value : undefined;
}

export function webhooksArea(deps: WebhookRouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { webhooks, requireScope, fail } = deps;

  const refuse = (c: Context<EmulatorEnv>, failure: WebhookFailure): Response =>
    fail(c, statusOf(failure), failure.type, failure.message);
  /** The service's answer as JSON, or its refusal. */
  const answer = <T extends object>(c: Context<EmulatorEnv>, result: Result<T, WebhookFailure>): Response =>
    result.ok ? c.json(result.value, 200) : refuse(c, result.error);
  const send = (c: Context<EmulatorEnv>, error: StoreError): Response =>
    fail(c, error.status, error.type, error.message);
  const invalid = (c: Context<EmulatorEnv>, detail?: string): Response =>
    send(c, errors.invalidRequest(detail));
  const requireAll = (c: Context<EmulatorEnv>, scopes: readonly string[]): Response | undefined => {
    for (const scope of scopes) {
      const refusal = requireScope(c, scope);
      if (refusal) return refusal;
    }
    return undefined;
  };
  const params = (c: Context<EmulatorEnv>) => ({
    baseId: c.req.param('baseId') ?? '',
    webhookId: c.req.param('webhookId') ?? '',
  });

  /** The parsed body, or the response refusing it: unparsable JSON is a 400, a wrong shape a 422. */
  async function body<S extends z.ZodType>(
    c: Context<EmulatorEnv>,
    schema: S,
  ): Promise<z.output<S> | Response> {
    const read = await readJson(c);
    if (!read.ok) return send(c, read.error);
    // An empty body reads as {} (refresh sends none).
    const parsed = schema.safeParse(read.value === undefined ? {} : read.value);
    if (parsed.success) return parsed.data;
    // The upstream's message is generic; naming the first problem helps whoever reads it.
    const issue = parsed.error.issues[0];
    return invalid(c, issue ? `${issue.path.map(String).join('.') || 'body'}: ${issue.message}` : undefined);
  }

  async function createWebhook(c: Ctx) {
    const refusal = requireScope(c, WEBHOOK_MANAGE_SCOPE);
    if (refusal) return refusal;
    const { baseId } = params(c);
    // The base first, so an unknown base answers 403 whatever the body.
    if (!webhooks.hasBase(baseId)) return refuse(c, BASE_FAILURE);
    const data = await body(c, STORE_BODIES.createWebhook);
    if (data instanceof Response) return data;
    const scopeRefusal = requireAll(c, dataScopes(data.specification.options.filters.dataTypes));
    if (scopeRefusal) return scopeRefusal;
    return answer(c, webhooks.create(baseId, data, deps.ownerTokenKind?.(c)));
  }

  function listWebhooks(c: Ctx) {
    const refusal = requireScope(c, WEBHOOK_MANAGE_SCOPE);
    if (refusal) return refusal;
    return answer(c, webhooks.list(params(c).baseId));
  }

  function deleteWebhook(c: Ctx) {
    const refusal = requireScope(c, WEBHOOK_MANAGE_SCOPE);
    if (refusal) return refusal;
    const { baseId, webhookId } = params(c);
    return answer(c, webhooks.delete(baseId, webhookId));
  }

  async function enableWebhookNotifications(c: Ctx) {
    const refusal = requireScope(c, WEBHOOK_MANAGE_SCOPE);
    if (refusal) return refusal;
    const { baseId, webhookId } = params(c);
    const found = webhooks.get(baseId, webhookId);
    if (!found.ok) return refuse(c, found.error);
    const data = await body(c, STORE_BODIES.toggleWebhookNotifications);
    if (data instanceof Response) return data;
    return answer(c, webhooks.enableNotifications(baseId, webhookId, data.enable));
  }

  function refreshWebhook(c: Ctx) {
    const refusal = requireScope(c, WEBHOOK_MANAGE_SCOPE);
    if (refusal) return refusal;
    const { baseId, webhookId } = params(c);
    return answer(c, webhooks.refresh(baseId, webhookId));
  }

  function listWebhookPayloads(c: Ctx) {
    const refusal = requireScope(c, WEBHOOK_MANAGE_SCOPE);
    if (refusal) return refusal;
    const { baseId, webhookId } = params(c);
    const found = webhooks.get(baseId, webhookId);
    if (!found.ok) return refuse(c, found.error);
    const scopeRefusal = requireAll(c, dataScopes(found.value.specification.options.filters.dataTypes));
    if (scopeRefusal) return scopeRefusal;
    const rawCursor = c.req.query('cursor');
    const rawLimit = c.req.query('limit');
    const cursor = rawCursor === undefined ? 1 : positiveInt(rawCursor);
    if (cursor === undefined) return invalid(c, 'cursor must be a positive integer');
    const limit = rawLimit === undefined ? MAX_PAYLOADS_PER_PAGE : positiveInt(rawLimit);
    if (limit === undefined || limit > MAX_PAYLOADS_PER_PAGE) {
      return invalid(c, `limit must be an integer from 1 to ${MAX_PAYLOADS_PER_PAGE}`);
    }
    return answer(c, webhooks.payloads(baseId, webhookId, cursor, limit));
  }

  // As before, these routes take no trailing slash: a path ending in one is an unknown route.
  route(area, STORE_OPERATIONS.CreateWebhook, createWebhook, NO_SLASH);
  route(area, STORE_OPERATIONS.ListWebhooks, listWebhooks, NO_SLASH);
  route(area, STORE_OPERATIONS.DeleteWebhook, deleteWebhook, NO_SLASH);
  route(area, STORE_OPERATIONS.EnableWebhookNotifications, enableWebhookNotifications, NO_SLASH);
  route(area, STORE_OPERATIONS.RefreshWebhook, refreshWebhook, NO_SLASH);
  route(area, STORE_OPERATIONS.ListWebhookPayloads, listWebhookPayloads, NO_SLASH);
  return area;
}
