/**
 * Pylon's error catalogue as the emulator answers it: the envelope `{ errors: [message], request_id, code? }`
 * and every refusal the emulator makes, so status, wording and code live in one place. The shared emulator shell
 * (faults, rate limits, unknown paths, unexpected errors) answers in the same envelope through `errorBody`.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { EmulatorEnv, ErrorBodyFn } from '../../../emulation/env.js';
import type { StateError } from './records.js';

export interface PylonError {
  status: ContentfulStatusCode;
  message: string;
  /** Upstream sends a code with some refusals only (authentication, unknown routes). */
  code?: string;
}

function errorEnvelope(message: string, requestId: string, code?: string): Record<string, unknown> {
  return code === undefined
    ? { errors: [message], request_id: requestId }
    : { errors: [message], request_id: requestId, code };
}

/** The envelope for the refusals of the shared emulator shell. */
export const errorBody: ErrorBodyFn = (_status, message, { requestId, code }) =>
  errorEnvelope(message, requestId, code);

export function respond(c: Context<EmulatorEnv>, error: PylonError): Response {
  return c.json(errorEnvelope(error.message, c.get('requestId'), error.code), error.status);
}

export const errors = {
  bearerSchemeRequired: (): PylonError => ({
    status: 401,
    message: 'Token must follow Bearer authorization scheme: "Authorization: Bearer <API token>"',
    code: 'invalid_authorization_header',
  }),
  invalidApiToken: (): PylonError => ({
    status: 401,
    message: 'Invalid API token',
    code: 'invalid_api_token',
  }),
  issueNotFound: (): PylonError => ({ status: 404, message: 'Issue not found' }),
  contactNotFound: (): PylonError => ({ status: 404, message: 'Contact not found' }),
  userNotFound: (): PylonError => ({ status: 404, message: 'User not found' }),
  teamNotFound: (): PylonError => ({ status: 404, message: 'Team not found' }),
  bodyNotJson: (): PylonError => ({ status: 400, message: 'Request body is not valid JSON' }),
  /** Also the answer to an empty body: every body the emulated endpoints take is an object. */
  bodyNotObject: (): PylonError => ({ status: 400, message: 'Request body must be a JSON object' }),
  invalidCursor: (): PylonError => ({ status: 400, message: 'Invalid cursor' }),
  /** A request an endpoint's rules refuse; `message` names the field and what it takes. */
  invalidRequest: (message: string): PylonError => ({ status: 400, message }),
  /** A change the database refused: an unknown issue is a 404, anything else the request's fault (400). */
  fromState: (error: StateError): PylonError => ({
    status: error.kind === 'not_found' ? 404 : 400,
    message: error.message,
  }),
};
