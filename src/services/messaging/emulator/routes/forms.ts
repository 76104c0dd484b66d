/**
 * Forms (v1): a submission identifies the person its email or id names and sets the other fields as their
 * attributes; an unknown form id creates the form connection, even when the submission is then refused.
 */
import type { Context, Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { MESSAGING_OPERATIONS } from '../../endpoints.js';
import { byteLength, LIMITS, MESSAGING_BODIES } from '../../schemas.js';
import { v1Errors } from '../errors.js';
import { identifierKinds, looksLikeEmail, usesKind } from '../identifiers.js';
import { flattenIssues, issueMessages, PARSE_OPTIONS } from '../issues.js';
import type { JsonObject } from '../records.js';
import { readJson, send } from '../wire.js';
import { area, isPlainObject, type RouteDeps } from './common.js';

const FORM_IGNORED_KEYS = new Set(['form_id', 'form_name', 'form_type', 'form_url', 'form_url_param']);

export function formRoutes(deps: RouteDeps): Hono<EmulatorEnv> {
  const { database, now } = deps;

  async function submitForm(c: Context<EmulatorEnv>): Promise<Response> {
    const formId = c.req.param('form_id') ?? '';
    const body = await readJson(c);
    if (!body.ok) return send(c, 400, v1Errors([body.error]));
    // Upstream adds the form connection even when the submission itself is refused (e.g. no email field).
    if (isPlainObject(body.value)) database.forms.ensureForm(formId, now());
    const parsed = MESSAGING_BODIES.form.safeParse(body.value, PARSE_OPTIONS);
    if (!parsed.success) return send(c, 400, v1Errors(issueMessages(flattenIssues(parsed.error.issues))));
    const fields = parsed.data.data;
    const kind: 'id' | 'email' = fields.email !== undefined ? 'email' : 'id';
    const value = fields[kind] ?? '';
    const identifyBy = database.identifyBy;
    const problems: string[] = [];
    if (!usesKind(identifyBy, kind)) {
      problems.push(
        `data.${kind}: this workspace identifies people by ${identifierKinds(identifyBy).join(' or ')}`,
      );
    } else if (kind === 'email' && !looksLikeEmail(value)) {
      problems.push('data.email: must be an email address');
    } else if (value === '') {
      problems.push(`data.${kind}: must not be empty`);
    } else if (byteLength(value) > LIMITS.identifierBytes) {
      problems.push(`data.${kind}: must be at most ${LIMITS.identifierBytes} bytes (UTF-8)`);
    }
    const attributes: JsonObject = {};
    for (const [key, field] of Object.entries(fields)) {
      if (key === kind || FORM_IGNORED_KEYS.has(key)) continue;
      attributes[key] = field;
    }
    // Form fields become attributes, so the attribute limits apply to them as to identify.
    const names = Object.keys(attributes);
    if (names.length > LIMITS.attributesPerCall) {
      problems.push(`data: at most ${LIMITS.attributesPerCall} attributes per call; got ${names.length}`);
    }
    for (const name of names) {
      if (byteLength(name) > LIMITS.attributeNameBytes) {
        problems.push(`data.${name}: attribute name longer than ${LIMITS.attributeNameBytes} bytes`);
      } else if (byteLength(String(attributes[name])) > LIMITS.attributeValueBytes) {
        problems.push(`data.${name}: attribute value longer than ${LIMITS.attributeValueBytes} bytes`);
      }
    }
    if (problems.length > 0) return send(c, 400, v1Errors(problems));
    database.forms.submit(formId, { ref: { kind, value }, attributes }, fields, now());
    return c.body(null, 204);
  }

  return route(area(), MESSAGING_OPERATIONS.submitForm, submitForm);
}
