/**
 * The Airtable Web API's error catalogue as the emulator answers it: every failure is a StoreError value (status,
 * type, message) built here, so wording and status codes live in one place and match upstream-apis.md C.11.
 * Where the upstream's exact type or text is not documented, the choice is made once here and commented.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { EmulatorEnv } from '../../../emulation/env.js';

export interface StoreError {
  status: ContentfulStatusCode;
  /** Absent for the few upstream errors that carry a bare string (`{"error":"NOT_FOUND"}`). */
  type: string;
  message?: string;
  /** `{"error":"NOT_FOUND"}` rather than `{"error":{"type":…}}`: the upstream's body for unknown routes. */
  bare?: boolean;
}

export type ErrorBody = { error: string } | { error: { type: string; message?: string } };

export function errorBodyOf(error: StoreError): ErrorBody {
  if (error.bare) return { error: error.type };
  return {
    error: error.message === undefined ? { type: error.type } : { type: error.type, message: error.message },
  };
}

export function respond(c: Context<EmulatorEnv>, error: StoreError): Response {
  return c.json(errorBodyOf(error), error.status);
}

const VALIDATION_PREFIX = 'Invalid request: parameter validation failed. Check your request data.';

export const errors = {
  invalidJson: (): StoreError => ({
    status: 400,
    // The errors page documents the status and wording only; the type name is the emulator's choice.
    type: 'INVALID_REQUEST_BODY',
    message: "The request encoding is invalid; the request can't be parsed as a valid JSON.",
  }),
  authenticationRequired: (): StoreError => ({
    status: 401,
    type: 'AUTHENTICATION_REQUIRED',
    message: 'Authentication required',
  }),
  /** Missing scope, no access to the base, or an unknown base/table/field/view id: upstream does not tell them apart. */
  modelNotFound: (): StoreError => ({
    status: 403,
    type: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
    message:
      'Invalid permissions, or the requested model was not found. Check that both your user and your token have the required permissions, and that the model names and/or ids are correct.',
  }),
  notPermitted: (what: string): StoreError => ({
    status: 403,
    type: 'INVALID_PERMISSIONS',
    message: `You are not permitted to ${what}`,
  }),
  routeNotFound: (): StoreError => ({ status: 404, type: 'NOT_FOUND', bare: true }),
  recordNotFound: (recordId: string): StoreError => ({
    status: 404,
    type: 'NOT_FOUND',
    message: `Could not find record ${recordId}`,
  }),
  commentNotFound: (commentId: string): StoreError => ({
    status: 404,
    type: 'NOT_FOUND',
    message: `Could not find comment ${commentId}`,
  }),
  attachmentNotFound: (): StoreError => ({
    status: 404,
    type: 'NOT_FOUND',
    message: 'Could not find attachment',
  }),
  uriTooLong: (length: number, limit: number): StoreError => ({
    status: 414,
    // Upstream documents the 16,000-character limit but not the refusal's body; this type is the emulator's.
    type: 'URI_TOO_LONG',
    message: `The request URL is ${length} characters long; URLs must be shorter than ${limit} characters. Send the list parameters in the body of POST /v0/{baseId}/{tableIdOrName}/listRecords instead.`,
  }),
  tooLarge: (size: number, limit: number, what = 'Request body'): StoreError => ({
    status: 413,
    type: 'REQUEST_TOO_LARGE',
    message: `${what} is ${size} bytes; the limit is ${limit} bytes`,
  }),
  invalidRequest: (detail?: string): StoreError => ({
    status: 422,
    type: 'INVALID_REQUEST_UNKNOWN',
    message: detail ? `${VALIDATION_PREFIX} ${detail}` : VALIDATION_PREFIX,
  }),
  invalidRecords: (): StoreError => ({
    status: 422,
    type: 'INVALID_RECORDS',
    message:
      "You must provide an array of up to 10 record objects, each with an 'id' ID field and a 'fields' object for cell values.",
  }),
  unknownFieldName: (name: string): StoreError => ({
    status: 422,
    type: 'UNKNOWN_FIELD_NAME',
    message: `Unknown field name: "${name}"`,
  }),
  invalidValue: (fieldName: string): StoreError => ({
    status: 422,
    type: 'INVALID_VALUE_FOR_COLUMN',
    message: `Field "${fieldName}" cannot accept the provided value`,
  }),
  invalidDate: (value: string, fieldName: string): StoreError => ({
    status: 422,
    type: 'INVALID_VALUE_FOR_COLUMN',
    message: `Cannot parse date value "${value}" for field ${fieldName}`,
  }),
  computedField: (fieldName: string): StoreError => ({
    status: 422,
    type: 'INVALID_VALUE_FOR_COLUMN',
    message: `Field "${fieldName}" cannot accept a value because the field is computed`,
  }),
  unknownSelectOption: (option: string): StoreError => ({
    status: 422,
    type: 'INVALID_MULTIPLE_CHOICE_OPTIONS',
    message: `Insufficient permissions to create new select option "${option}"`,
  }),
  rowDoesNotExist: (recordId: string): StoreError => ({
    status: 422,
    type: 'ROW_DOES_NOT_EXIST',
    message: `Record ID ${recordId} does not exist`,
  }),
  invalidFilter: (reason: string): StoreError => ({
    status: 422,
    type: 'INVALID_FILTER_BY_FORMULA',
    message: `The formula for filtering records is invalid: ${reason}`,
  }),
  iteratorNotAvailable: (): StoreError => ({ status: 422, type: 'LIST_RECORDS_ITERATOR_NOT_AVAILABLE' }),
  /** Bases and comments pages: their offsets are not record iterators; the type is the emulator's choice. */
  invalidOffset: (): StoreError => ({
    status: 422,
    type: 'INVALID_OFFSET_VALUE',
    message: 'The offset value is invalid or has expired. Restart the listing without an offset.',
  }),
  viewNotFound: (view: string): StoreError => ({
    status: 422,
    type: 'VIEW_NAME_NOT_FOUND',
    message: `View "${view}" not found`,
  }),
  duplicateFieldName: (name: string): StoreError => ({
    status: 422,
    type: 'DUPLICATE_OR_EMPTY_FIELD_NAME',
    message:
      name.trim() === ''
        ? 'Field names cannot be empty'
        : `Field name "${name}" is already in use in this table`,
  }),
  duplicateTableName: (name: string): StoreError => ({
    status: 422,
    // By analogy with DUPLICATE_OR_EMPTY_FIELD_NAME; the upstream's table variant is not documented.
    type: 'DUPLICATE_OR_EMPTY_TABLE_NAME',
    message:
      name.trim() === ''
        ? 'Table names cannot be empty'
        : `Table name "${name}" is already in use in this base`,
  }),
  unsupportedFieldType: (type: string, creatable: readonly string[]): StoreError => ({
    status: 422,
    // Upstream refuses creating computed fields over the API; the type string is the emulator's choice.
    type: 'UNSUPPORTED_FIELD_TYPE_FOR_CREATE',
    message: `Field type "${type}" cannot be created through the API. Creatable types: ${creatable.join(', ')}.`,
  }),
  lastView: (viewName: string): StoreError => ({
    status: 422,
    // The UI refuses deleting a table's last view; the API's type for it is not documented.
    type: 'CANNOT_DELETE_LAST_VIEW',
    message: `View "${viewName}" is the last view of its table and cannot be deleted`,
  }),
  rateLimited: (): StoreError => ({
    status: 429,
    type: 'RATE_LIMIT_REACHED',
    message: 'Rate limit exceeded. Please try again later',
  }),
};
