// The request bodies of the store upstream (the Airtable Web API) that schema-mode tools publish, as zod
// schemas. One contract with two users: the tools publish them in schema mode (as JSON Schema) and validate
// `request_body` with them before anything is sent; the emulator validates incoming requests with the same
// schemas. Written from the upstream's documented bodies, field model and limits (reference/upstream-apis.md,
// section C).

import { uploadAttachmentBody } from './attachments.js';
import { createCommentBody, updateCommentBody } from './comments.js';
import {
  createRecordsBody,
  replaceRecordBody,
  replaceRecordsBody,
  updateRecordBody,
  updateRecordsBody,
} from './records.js';
import { createBaseBody, createFieldBody, createTableBody, updateTableBody } from './tables.js';
import { createWebhookBody, toggleWebhookNotificationsBody } from './webhooks.js';

export {
  ATTACHMENT_MAX_BASE64_CHARS,
  ATTACHMENT_MAX_BYTES,
  base64Problem,
  decodedBase64Size,
} from './attachments.js';
export { MERGE_FIELDS_MAX, RECORDS_PER_REQUEST } from './records.js';
export {
  CHOICE_COLORS,
  FIELD_DESCRIPTION_MAX,
  FIELD_OPTIONS,
  ICON_COLORS,
  NON_CREATABLE_FIELD_TYPES,
  PRIMARY_FIELD_TYPES,
  WRITABLE_FIELD_TYPES,
  type WritableFieldType,
} from './tables.js';
export { WEBHOOK_CHANGE_TYPES, WEBHOOK_DATA_TYPES, WEBHOOK_SOURCES } from './webhooks.js';

/** Every published body, by the name the tools and the emulator use. */
export const STORE_BODIES = {
  createRecords: createRecordsBody,
  updateRecords: updateRecordsBody,
  replaceRecords: replaceRecordsBody,
  updateRecord: updateRecordBody,
  replaceRecord: replaceRecordBody,
  createComment: createCommentBody,
  updateComment: updateCommentBody,
  uploadAttachment: uploadAttachmentBody,
  createBase: createBaseBody,
  createTable: createTableBody,
  updateTable: updateTableBody,
  createField: createFieldBody,
  createWebhook: createWebhookBody,
  toggleWebhookNotifications: toggleWebhookNotificationsBody,
} as const;

export type StoreBodyName = keyof typeof STORE_BODIES;
