// The published store request-body schemas: each is valid JSON Schema 2020-12 (compiled by ajv), a snapshot
// catches unintended changes to what agents see, the zod schema and its JSON Schema agree on documented examples
// and on broken bodies, the documented limits hold at their bounds, and the refusals agents most often meet
// (field types the API cannot create, too many records) say what to do.

import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { requestBodyDocument } from '../../../src/runtime/schemaMode.js';
import {
  ATTACHMENT_MAX_BASE64_CHARS,
  ATTACHMENT_MAX_BYTES,
  BULK_RECORDS_PER_REQUEST,
  FIELD_DESCRIPTION_MAX,
  MERGE_FIELDS_MAX,
  NON_CREATABLE_FIELD_TYPES,
  PRIMARY_FIELD_TYPES,
  RECORDS_PER_REQUEST,
  SCIM_ENTERPRISE_USER_URI,
  SCIM_GROUP_URI,
  SCIM_PATCH_OP_URI,
  SCIM_USER_URI,
  STORE_BODIES,
  type StoreBodyName,
  WRITABLE_FIELD_TYPES,
} from '../../../src/services/store/schemas/index.js';
import { describeIssues, REPORT_INPUT } from '../../../src/text/zodIssues.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
// The formats the schemas name; ajv checks them only when told how.
ajv.addFormat('uri', true);
ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return requestBodyDocument(schema).content['application/json'].schema;
}

const NAMES = Object.keys(STORE_BODIES) as StoreBodyName[];

const compiled = Object.fromEntries(
  NAMES.map((name) => [name, ajv.compile(jsonSchemaOf(STORE_BODIES[name]))]),
) as Record<StoreBodyName, ReturnType<typeof ajv.compile>>;

/** Both validators must agree; zod may be stricter only where JSON Schema cannot say it (noted where tested). */
function accepts(name: StoreBodyName, body: unknown): { zod: boolean; json: boolean } {
  return { zod: STORE_BODIES[name].safeParse(body).success, json: compiled[name](body) === true };
}

/** The problems the caller reports for a body (schemaMode's wording, field paths included). */
function problems(name: StoreBodyName, body: unknown): string[] {
  const parsed = STORE_BODIES[name].safeParse(body, REPORT_INPUT);
  if (parsed.success) return [];
  return describeIssues(parsed.error.issues, 'request_body', STORE_BODIES[name]).map(
    (issue) => `${issue.field}: ${issue.problem}`,
  );
}

const records = (count: number, withIds = false) =>
  Array.from({ length: count }, (_, i) => ({
    ...(withIds ? { id: `rec${String(i).padStart(14, '0')}` } : {}),
    fields: { Name: `Row ${i}` },
  }));
const text = (chars: number) => 'a'.repeat(chars);
const primary = { name: 'Name', type: 'singleLineText' };
const table = (fields: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'T', fields, ...extra });
const dataFilter = (filters: Record<string, unknown>) => ({
  specification: { options: { filters: { dataTypes: ['tableData'], ...filters } } },
});
const dateTimeOptions = {
  timeZone: 'America/New_York',
  dateFormat: { name: 'us', format: 'M/D/YYYY' },
  timeFormat: { name: '12hour', format: 'h:mma' },
};
const dateDependencies = {
  isEnabled: true,
  startDateFieldId: 'fldStart',
  endDateFieldId: 'fldEnd',
  durationFieldId: 'fldDuration',
  predecessorFieldId: null,
  reschedulingMode: 'flexible',
  shouldSkipWeekendsAndHolidays: true,
  holidays: ['2026-12-25'],
};

const scimUser = (extra: Record<string, unknown> = {}) => ({
  schemas: [SCIM_USER_URI],
  userName: 'ada@example.com',
  ...extra,
});
const patch = (...operations: unknown[]) => ({ schemas: [SCIM_PATCH_OP_URI], Operations: operations });
const user = { user: { id: 'usrA1b2C3d4E5f6G7' } };
const group = { group: { id: 'ugpA1b2C3d4E5f6G7' } };
const keys = (count: number) => Array.from({ length: count }, (_, i) => `K${i}`);
const bulkRows = (count: number) => keys(count).map((primaryKey) => ({ primaryKey, fields: { N: 1 } }));

const VALID: [StoreBodyName, unknown][] = [
  // records
  ['createRecords', { records: [{ fields: { Name: 'A' } }] }],
  ['createRecords', { records: records(RECORDS_PER_REQUEST), typecast: true, returnFieldsByFieldId: false }],
  ['createRecords', { fields: {} }],
  ['createRecords', { fields: { fldA1b2C3d4E5f6G7: 3, Tags: ['a', 'b'], Done: true, Notes: null } }],
  [
    'createRecords',
    {
      fields: {
        Photos: [{ url: 'https://example.com/a.png', filename: 'a.png' }],
        Owner: { email: 'ada@example.com' },
        Code: { text: '012345', type: 'upce' },
      },
      typecast: null,
    },
  ],
  ['updateRecords', { records: [{ id: 'recA1b2C3d4E5f6G7', fields: {} }] }],
  ['updateRecords', { records: records(RECORDS_PER_REQUEST, true), typecast: false }],
  [
    'updateRecords',
    { records: [{ fields: { Email: 'a@example.com' } }], performUpsert: { fieldsToMergeOn: ['Email'] } },
  ],
  [
    'updateRecords',
    {
      records: [{ id: 'recA1b2C3d4E5f6G7', fields: { A: 1 } }, { fields: { A: 2, B: 'x' } }],
      performUpsert: { fieldsToMergeOn: ['A', 'B', 'fldC'] },
      returnFieldsByFieldId: true,
    },
  ],
  ['updateRecords', { records: [{ id: 'recA1b2C3d4E5f6G7', fields: {} }], performUpsert: null }],
  ['replaceRecords', { records: [{ id: 'recA1b2C3d4E5f6G7', fields: { Name: 'A' } }] }],
  ['replaceRecords', { records: [{ fields: { Key: 'k1' } }], performUpsert: { fieldsToMergeOn: ['Key'] } }],
  ['updateRecord', { fields: {} }],
  ['updateRecord', { fields: { Status: 'Done' }, typecast: true, returnFieldsByFieldId: null }],
  ['replaceRecord', { fields: { Name: 'A', Linked: ['recA1b2C3d4E5f6G7'] } }],
  // comments
  ['createComment', { text: 'Hello' }],
  ['createComment', { text: 'Reply', parentCommentId: 'comA1b2C3d4E5f6G7' }],
  ['updateComment', { text: 'Edited' }],
  // attachments
  ['uploadAttachment', { contentType: 'image/png', file: 'iVBORw0KGgo=', filename: 'pixel.png' }],
  ['uploadAttachment', { contentType: 'text/plain; charset=utf-8', file: 'YQ==', filename: 'a.txt' }],
  ['uploadAttachment', { contentType: 'application/vnd.ms-excel', file: 'YWJj', filename: 'x.xls' }],
  // fields
  ...WRITABLE_FIELD_TYPES.filter((type) =>
    ['singleLineText', 'email', 'url', 'multilineText', 'phoneNumber', 'richText', 'barcode'].includes(type),
  ).map((type): [StoreBodyName, unknown] => ['createField', { name: `A ${type}`, type }]),
  ['createField', { name: 'N', type: 'number', options: { precision: 0 } }],
  ['createField', { name: 'P', type: 'percent', options: { precision: 8 }, description: 'Share.' }],
  ['createField', { name: 'C', type: 'currency', options: { precision: 7, symbol: '$' } }],
  ['createField', { name: 'R', type: 'rating', options: { icon: 'heart', max: 10, color: 'redBright' } }],
  ['createField', { name: 'D', type: 'duration', options: { durationFormat: 'h:mm:ss.SSS' } }],
  ['createField', { name: 'X', type: 'checkbox', options: { icon: 'xCheckbox', color: 'grayBright' } }],
  ['createField', { name: 'S', type: 'singleSelect', options: { choices: [] } }],
  [
    'createField',
    {
      name: 'M',
      type: 'multipleSelects',
      options: {
        choices: [{ name: 'a', color: 'blueLight2' }, { name: 'b', color: 'purpleDark1' }, { name: 'c' }],
      },
    },
  ],
  ['createField', { name: 'Day', type: 'date', options: { dateFormat: { name: 'friendly', format: 'LL' } } }],
  ['createField', { name: 'At', type: 'dateTime', options: dateTimeOptions }],
  [
    'createField',
    {
      name: 'At',
      type: 'dateTime',
      options: { timeZone: 'utc', dateFormat: { name: 'iso' }, timeFormat: { name: '24hour' } },
    },
  ],
  [
    'createField',
    {
      name: 'At',
      type: 'dateTime',
      options: {
        timeZone: 'America/Argentina/Buenos_Aires',
        dateFormat: { name: 'local' },
        timeFormat: { name: '24hour' },
      },
    },
  ],
  [
    'createField',
    {
      name: 'L',
      type: 'multipleRecordLinks',
      options: { linkedTableId: 'tblA1b2C3d4E5f6G7', viewIdForRecordSelection: 'viwA1b2C3d4E5f6G7' },
    },
  ],
  ['createField', { name: 'Files', type: 'multipleAttachments' }],
  ['createField', { name: 'Files', type: 'multipleAttachments', options: { isReversed: true } }],
  ['createField', { name: 'Owner', type: 'singleCollaborator' }],
  ['createField', { name: 'Team', type: 'multipleCollaborators', options: {} }],
  // tables and bases
  ['createTable', table([primary])],
  ...PRIMARY_FIELD_TYPES.filter((type) => ['email', 'barcode', 'duration'].includes(type)).map(
    (type): [StoreBodyName, unknown] => [
      'createTable',
      table([
        type === 'duration' ? { name: 'D', type, options: { durationFormat: 'h:mm' } } : { name: 'K', type },
      ]),
    ],
  ),
  [
    'createTable',
    table([
      { name: 'When', type: 'dateTime', options: dateTimeOptions },
      { name: 'Ok', type: 'checkbox', options: { icon: 'check', color: 'greenBright' } },
    ]),
  ],
  [
    'createTable',
    table([primary, { name: 'Files', type: 'multipleAttachments' }], { description: 'Some table.' }),
  ],
  ['createBase', { name: 'B', workspaceId: 'wspA1b2C3d4E5f6G7', tables: [table([primary])] }],
  [
    'createBase',
    {
      name: 'B',
      workspaceId: 'wspA1b2C3d4E5f6G7',
      tables: [
        table([primary]),
        { name: 'U', fields: [{ name: 'N', type: 'number', options: { precision: 2 } }] },
      ],
    },
  ],
  ['updateTable', { name: 'Renamed' }],
  ['updateTable', { description: '' }],
  ['updateTable', { dateDependencySettings: dateDependencies }],
  [
    'updateTable',
    { dateDependencySettings: { ...dateDependencies, predecessorFieldId: 'fldPred', isForwardOnly: true } },
  ],
  // webhooks
  ['createWebhook', dataFilter({})],
  ['createWebhook', { notificationUrl: null, ...dataFilter({ recordChangeScope: 'viwA1b2C3d4E5f6G7' }) }],
  [
    'createWebhook',
    { notificationUrl: 'http://localhost:8080/hook', ...dataFilter({ changeTypes: ['remove'] }) },
  ],
  [
    'createWebhook',
    {
      specification: {
        options: {
          filters: {
            dataTypes: ['tableFields', 'tableMetadata', 'tableData'],
            fromSources: ['publicApi', 'formPageSubmission', 'anonymousUser'],
            sourceOptions: { formSubmission: { viewId: 'viwA' }, formPageSubmission: { pageId: 'pagA' } },
            watchSchemasOfFieldIds: ['fldA'],
          },
          includes: { includeCellValuesInFieldIds: ['fldA'], includePreviousFieldDefinitions: true },
        },
      },
    },
  ],
  ['toggleWebhookNotifications', { enable: false }],
  // SCIM
  ['createScimGroup', { schemas: [SCIM_GROUP_URI], displayName: 'Design' }],
  ['createScimGroup', { schemas: ['urn:example:extra', SCIM_GROUP_URI], displayName: 'Ops' }],
  ['replaceScimGroup', { schemas: [SCIM_GROUP_URI] }],
  ['replaceScimGroup', { schemas: [SCIM_GROUP_URI], displayName: 'Ops', members: [{ value: 'usrA' }] }],
  ['replaceScimGroup', { schemas: [SCIM_GROUP_URI], displayName: null, members: [] }],
  ['patchScimGroup', patch({ op: 'replace', path: 'displayName', value: 'Platform' })],
  ['patchScimGroup', patch({ op: 'remove', path: 'members' }, { op: 'add', path: 'members', value: [] })],
  ['patchScimUser', patch({ op: 'replace', path: 'active', value: false })],
  ['patchScimUser', patch({ op: 'add', path: 'title', value: null }, { op: 'remove', path: 'nickName' })],
  ['createScimUser', scimUser()],
  [
    'createScimUser',
    scimUser({
      schemas: [SCIM_USER_URI, SCIM_ENTERPRISE_USER_URI],
      name: { givenName: 'Ada', familyName: 'Lovelace', middleName: null },
      active: true,
      displayName: 'Ada',
      title: null,
      externalId: 'idp-1',
      emails: [{ value: 'ada@example.com', primary: true, type: 'work' }],
      phoneNumbers: [{ value: '+44 20 7946 0000' }],
      addresses: [{ locality: 'London', type: 'work' }],
      photos: [{ value: 'https://example.com/ada.png', type: 'thumbnail' }],
      groups: [{ value: 'ugpA' }],
      locale: 'en-GB',
      [SCIM_ENTERPRISE_USER_URI]: {
        employeeNumber: '7',
        costCenter: 'R&D',
        organization: 'Example',
        division: null,
        department: 'Research',
        manager: { value: 'usrB' },
      },
    }),
  ],
  ['replaceScimUser', scimUser({ active: false })],
  ['replaceScimUser', scimUser({ name: null, emails: null, [SCIM_ENTERPRISE_USER_URI]: null })],
  // bases, interfaces, shares
  ['manageBlockInstallation', { state: 'enabled' }],
  ['manageBlockInstallation', { state: 'disabled' }],
  ['addBaseCollaborators', { collaborators: [{ ...user, permissionLevel: 'create' }] }],
  ['addBaseCollaborators', { collaborators: [{ ...group, permissionLevel: 'read' }] }],
  ['updateBaseCollaborator', { permissionLevel: 'edit' }],
  ['updateBaseCollaborator', { permissionLevel: 'create' }],
  ['addInterfaceCollaborator', { collaborators: [{ ...user, permissionLevel: 'edit' }] }],
  ['addInterfaceCollaborator', { collaborators: [{ ...group, permissionLevel: 'read' }] }],
  ['updateInterfaceCollaborator', { permissionLevel: 'read' }],
  ['updateInterfaceCollaborator', { permissionLevel: 'comment' }],
  ['manageShare', { state: 'enabled' }],
  ['manageShare', { state: 'disabled' }],
  // enterprise administration
  ['createAuditLogRequest', { timePeriod: '2026-01' }],
  ['createAuditLogRequest', { timePeriod: '2026-12-31', filter: 'eventType = createBase' }],
  ['createDescendantAccount', { name: 'Europe' }],
  ['createDescendantAccount', { name: ' APAC ' }],
  ['createEdiscoveryExport', { baseId: 'appA' }],
  ['createEdiscoveryExport', { baseId: 'appA', includeCsvFormat: false, shouldSendEmailOnCompletion: true }],
  ['moveUserGroups', { groupIds: ['ugpA'], targetEnterpriseAccountId: 'entB' }],
  ['moveUserGroups', { groupIds: ['ugpA', 'ugpB'], targetEnterpriseAccountId: 'entB' }],
  ['moveWorkspaces', { workspaceIds: ['wspA'], targetEnterpriseAccountId: 'entB' }],
  [
    'moveWorkspaces',
    { workspaceIds: ['wspA'], targetEnterpriseAccountId: 'entB', replacementOwnerId: 'usrA' },
  ],
  ['manageEnterpriseUsers', { users: [{ id: 'usrA', state: 'deactivated' }] }],
  [
    'manageEnterpriseUsers',
    {
      users: [
        { email: 'a@example.com', firstName: 'A', lastName: 'B' },
        { id: 'usrB', email: 'b@example.com' },
      ],
    },
  ],
  ['manageUserMembership', { users: [{ id: 'usrA', state: 'managed' }] }],
  ['manageUserMembership', { users: [{ email: 'a@example.com', state: 'unmanaged' }] }],
  ['grantAdminAccess', { users: [{ id: 'usrA' }] }],
  ['grantAdminAccess', { users: [{ email: 'a@example.com' }, { id: 'usrB' }] }],
  ['revokeAdminAccess', { users: [{ email: 'a@example.com' }] }],
  ['revokeAdminAccess', { users: [{ id: 'usrA' }, { id: 'usrB' }] }],
  ['removeUserFromEnterprise', {}],
  ['removeUserFromEnterprise', { isDryRun: null, replacementOwnerId: null, removeFromDescendants: false }],
  ['removeUserFromEnterprise', { isDryRun: true, replacementOwnerId: 'usrB' }],
  ['manageEnterpriseUser', { state: 'provisioned' }],
  ['manageEnterpriseUser', { email: 'new@example.com', firstName: 'A', lastName: '' }],
  // workspaces
  ['createWorkspace', { enterpriseAccountId: 'entA', name: 'Sales' }],
  ['createWorkspace', { enterpriseAccountId: 'entA', name: 'Team 2' }],
  ['addWorkspaceCollaborators', { collaborators: [{ ...user, permissionLevel: 'owner' }] }],
  ['addWorkspaceCollaborators', { collaborators: [{ ...group, permissionLevel: 'create' }] }],
  ['updateWorkspaceCollaborator', { permissionLevel: 'owner' }],
  ['updateWorkspaceCollaborator', { permissionLevel: 'comment' }],
  ['moveBase', { baseId: 'appA', targetWorkspaceId: 'wspB' }],
  ['moveBase', { baseId: 'appA', targetWorkspaceId: 'wspB', targetIndex: 3 }],
  ['updateWorkspaceRestrictions', { shareCreationRestriction: 'unrestricted' }],
  [
    'updateWorkspaceRestrictions',
    { inviteCreationRestriction: 'onlyOwners', shareCreationRestriction: 'onlyOwners' },
  ],
  // bulk data tables
  ['upsertBulkRecords', { records: [{ primaryKey: 'K1', fields: {} }] }],
  [
    'upsertBulkRecords',
    { records: [{ primaryKey: 'K1', fields: { A: 'x', B: 2.5, C: '2024-03-01T00:00:00.000Z', D: null } }] },
  ],
  ['upsertBulkRecords', { records: bulkRows(BULK_RECORDS_PER_REQUEST) }],
  ['deleteBulkRecords', { primaryKeysForDelete: ['K1'] }],
  ['deleteBulkRecords', { primaryKeysForDelete: keys(BULK_RECORDS_PER_REQUEST) }],
  ['readBulkRecords', {}],
  ['readBulkRecords', { primaryKeys: [], fields: ['A'], maxRecords: BULK_RECORDS_PER_REQUEST, cursor: 'c1' }],
];

const INVALID: [StoreBodyName, unknown, string][] = [
  // records
  ['createRecords', {}, 'records or fields is needed'],
  ['createRecords', { records: [], typecast: true }, 'at least one record'],
  ['createRecords', { records: records(RECORDS_PER_REQUEST + 1) }, 'at most 10 records'],
  ['createRecords', { records: [{ fields: {} }], fields: {} }, 'records and fields together'],
  ['createRecords', { fields: ['a'] }, 'fields is an object'],
  ['createRecords', { fields: { '': 1 } }, 'field names are not empty'],
  ['createRecords', { records: [{ Name: 'A' }] }, 'cells go inside fields'],
  ['createRecords', { fields: {}, typecast: 'yes' }, 'typecast is a boolean'],
  ['createRecords', { fields: {}, typeCast: true }, 'unknown key (misspelt typecast)'],
  ['updateRecords', { records: [{ fields: { A: 1 } }] }, 'id is needed without performUpsert'],
  [
    'updateRecords',
    { records: [{ fields: {} }], performUpsert: null },
    'id is needed when performUpsert is null',
  ],
  ['updateRecords', { records: records(RECORDS_PER_REQUEST + 1, true) }, 'at most 10 records to update'],
  ['updateRecords', { records: [{ fields: {} }], performUpsert: { fieldsToMergeOn: [] } }, 'a merge field'],
  [
    'updateRecords',
    { records: [{ fields: {} }], performUpsert: { fieldsToMergeOn: ['a', 'b', 'c', 'd'] } },
    'at most 3 merge fields',
  ],
  ['updateRecords', { records: [{ fields: {} }], performUpsert: {} }, 'fieldsToMergeOn is required'],
  ['updateRecords', { records: [{ id: '', fields: {} }] }, 'ids are not empty'],
  ['replaceRecords', { records: [{ id: 'recA1b2C3d4E5f6G7' }] }, 'fields is required'],
  ['replaceRecords', { records: { id: 'recA1b2C3d4E5f6G7', fields: {} } }, 'records is an array'],
  ['updateRecord', {}, 'fields is required'],
  ['updateRecord', { fields: null }, 'fields is an object'],
  ['replaceRecord', { id: 'recA1b2C3d4E5f6G7', fields: {} }, 'the id goes in the path'],
  // comments
  ['createComment', { text: '' }, 'empty comment'],
  ['createComment', { parentCommentId: 'comA' }, 'text is required'],
  ['updateComment', { text: 5 }, 'text is a string'],
  // attachments
  ['uploadAttachment', { contentType: 'image/png', file: 'ab$=', filename: 'a' }, 'not the base64 alphabet'],
  ['uploadAttachment', { contentType: 'image/png', file: 'YW Jj', filename: 'a' }, 'spaces in base64'],
  ['uploadAttachment', { contentType: 'png', file: 'YWJj', filename: 'a' }, 'content type is type/subtype'],
  ['uploadAttachment', { contentType: 'image/png', file: 'YWJj', filename: '' }, 'empty filename'],
  ['uploadAttachment', { contentType: 'image/png', file: '', filename: 'a' }, 'empty file'],
  ['uploadAttachment', { file: 'YWJj', filename: 'a' }, 'contentType is required'],
  // fields
  ['createField', { name: 'F', type: 'formula', options: { formula: '1+1' } }, 'formula cannot be created'],
  ['createField', { name: 'F', type: 'autoNumber' }, 'autoNumber cannot be created'],
  ['createField', { name: 'F', type: 'text' }, 'unknown type'],
  ['createField', { name: 'F' }, 'type is required'],
  ['createField', { name: '', type: 'email' }, 'empty name'],
  ['createField', { name: '   ', type: 'email' }, 'blank name'],
  ['createField', { name: 'F', type: 'email', description: '' }, 'empty description'],
  ['createField', { name: 'F', type: 'email', options: {} }, 'text fields take no options'],
  ['createField', { name: 'F', type: 'number' }, 'number needs options'],
  ['createField', { name: 'F', type: 'number', options: { precision: 9 } }, 'number precision is 0 to 8'],
  ['createField', { name: 'F', type: 'number', options: { precision: 1.5 } }, 'precision is an integer'],
  [
    'createField',
    { name: 'F', type: 'currency', options: { precision: 8, symbol: '$' } },
    'currency precision is 0 to 7',
  ],
  ['createField', { name: 'F', type: 'currency', options: { precision: 2 } }, 'currency needs a symbol'],
  [
    'createField',
    { name: 'F', type: 'rating', options: { icon: 'star', max: 11, color: 'yellowBright' } },
    'rating max is 1 to 10',
  ],
  ['createField', { name: 'F', type: 'rating', options: { icon: 'star', max: 5 } }, 'rating needs a color'],
  [
    'createField',
    { name: 'F', type: 'rating', options: { icon: 'smile', max: 5, color: 'yellowBright' } },
    'unknown rating icon',
  ],
  [
    'createField',
    { name: 'F', type: 'checkbox', options: { icon: 'check', color: 'greenLight1' } },
    'checkbox colors are Bright',
  ],
  [
    'createField',
    { name: 'F', type: 'duration', options: { durationFormat: 'mm:ss' } },
    'unknown duration format',
  ],
  ['createField', { name: 'F', type: 'singleSelect', options: {} }, 'choices are required'],
  [
    'createField',
    { name: 'F', type: 'singleSelect', options: { choices: [{ name: 'a', color: 'blue' }] } },
    'a color has a shade',
  ],
  [
    'createField',
    { name: 'F', type: 'multipleSelects', options: { choices: [{ color: 'blueLight2' }] } },
    'a choice has a name',
  ],
  [
    'createField',
    { name: 'F', type: 'date', options: { dateFormat: { name: 'us', format: 'LL' } } },
    'date format must match its name',
  ],
  [
    'createField',
    { name: 'F', type: 'date', options: { dateFormat: { format: 'LL' } } },
    'date format needs a name',
  ],
  [
    'createField',
    {
      name: 'F',
      type: 'dateTime',
      options: { ...dateTimeOptions, timeFormat: { name: '24hour', format: 'h:mma' } },
    },
    'time format must match its name',
  ],
  [
    'createField',
    { name: 'F', type: 'dateTime', options: { ...dateTimeOptions, timeZone: 'EST' } },
    'time zone is a zone name',
  ],
  [
    'createField',
    { name: 'F', type: 'dateTime', options: { dateFormat: { name: 'iso' }, timeFormat: { name: '24hour' } } },
    'time zone is required',
  ],
  ['createField', { name: 'F', type: 'multipleRecordLinks', options: {} }, 'linkedTableId is required'],
  [
    'createField',
    {
      name: 'F',
      type: 'multipleRecordLinks',
      options: { linkedTableId: 'tblA', prefersSingleRecordLink: true },
    },
    'prefersSingleRecordLink is read-only',
  ],
  [
    'createField',
    { name: 'F', type: 'multipleRecordLinks', options: { linkedTableId: 'tblA', isReversed: false } },
    'isReversed of a link is read-only',
  ],
  [
    'createField',
    { name: 'F', type: 'singleCollaborator', options: { notify: true } },
    'collaborator options are empty',
  ],
  // tables and bases
  ['createTable', { name: 'T', fields: [] }, 'a table needs a field'],
  ['createTable', { fields: [primary] }, 'a table needs a name'],
  [
    'createTable',
    table([{ name: 'Done', type: 'checkbox', options: { icon: 'check', color: 'greenBright' } }]),
    'checkbox cannot be primary',
  ],
  [
    'createTable',
    table([{ name: 'L', type: 'multipleRecordLinks', options: { linkedTableId: 'tblA' } }, primary]),
    'a link cannot be primary',
  ],
  [
    'createTable',
    table([{ name: 'S', type: 'singleSelect', options: { choices: [] } }]),
    'a select cannot be primary',
  ],
  [
    'createTable',
    table([primary, { name: 'F', type: 'rollup' }]),
    'rollup cannot be created, even in a table',
  ],
  ['createTable', table([primary], { description: '' }), 'empty table description'],
  ['createBase', { name: 'B', tables: [table([primary])] }, 'workspaceId is required'],
  ['createBase', { name: 'B', workspaceId: 'wspA', tables: [] }, 'a base needs a table'],
  [
    'createBase',
    { name: 'B', workspaceId: 'wspA', tables: [table([{ name: 'At', type: 'createdTime' }])] },
    'createdTime in a base',
  ],
  ['updateTable', {}, 'nothing to update'],
  ['updateTable', { name: '' }, 'empty table name'],
  ['updateTable', { dateDependencySettings: { isEnabled: false } }, 'date dependencies are given in full'],
  [
    'updateTable',
    { dateDependencySettings: { ...dateDependencies, holidays: ['25/12/2026'] } },
    'holidays are ISO dates',
  ],
  [
    'updateTable',
    { dateDependencySettings: { ...dateDependencies, reschedulingMode: 'auto' } },
    'unknown rescheduling mode',
  ],
  // webhooks
  ['createWebhook', { notificationUrl: 'https://example.com/hook' }, 'specification is required'],
  ['createWebhook', { specification: { options: { filters: {} } } }, 'dataTypes is required'],
  ['createWebhook', { specification: { options: { filters: { dataTypes: [] } } } }, 'at least one data type'],
  [
    'createWebhook',
    { specification: { options: { filters: { dataTypes: ['records'] } } } },
    'unknown data type',
  ],
  [
    'createWebhook',
    { specification: { options: { filters: { dataTypes: ['tableData', 'tableData'] } } } },
    'a data type listed twice',
  ],
  [
    'createWebhook',
    { notificationUrl: 'ftp://example.com/hook', ...dataFilter({}) },
    'the URL is http or https',
  ],
  ['createWebhook', { notificationUrl: 'example.com/hook', ...dataFilter({}) }, 'the URL has a scheme'],
  ['createWebhook', dataFilter({ changeTypes: ['create'] }), 'unknown change type'],
  ['createWebhook', dataFilter({ fromSources: ['api'] }), 'unknown source'],
  [
    'createWebhook',
    {
      specification: {
        options: {
          ...dataFilter({}).specification.options,
          includes: { includeCellValuesInFieldIds: 'some' },
        },
      },
    },
    'includeCellValuesInFieldIds is ids or "all"',
  ],
  [
    'createWebhook',
    { specification: { filters: { dataTypes: ['tableData'] } } },
    'filters go inside options',
  ],
  ['toggleWebhookNotifications', {}, 'enable is required'],
  ['toggleWebhookNotifications', { enable: 'true' }, 'enable is a boolean'],
  // SCIM
  [
    'createScimGroup',
    { schemas: [SCIM_USER_URI], displayName: 'Design' },
    'group without the core group URI',
  ],
  ['createScimGroup', { schemas: [SCIM_GROUP_URI] }, 'a new group needs a displayName'],
  [
    'createScimGroup',
    { schemas: [SCIM_GROUP_URI], displayName: 'D', members: [] },
    'create takes no members',
  ],
  ['replaceScimGroup', { displayName: 'Ops' }, 'replace needs schemas'],
  ['replaceScimGroup', { schemas: [SCIM_GROUP_URI], members: [{ id: 'usrA' }] }, 'members are {value}'],
  ['patchScimGroup', patch(), 'a patch needs an operation'],
  ['patchScimGroup', { schemas: [SCIM_GROUP_URI], Operations: [{ op: 'remove', path: 'x' }] }, 'patch URI'],
  ['patchScimGroup', patch({ op: 'replace', path: 'displayName' }), 'replace needs a value'],
  ['patchScimUser', patch({ op: 'delete', path: 'title' }), 'unknown patch op'],
  ['patchScimUser', patch({ op: 'add', value: 'x' }), 'an operation needs a path'],
  ['patchScimUser', { Operations: [{ op: 'remove', path: 'title' }] }, 'patch without schemas'],
  [
    'createScimUser',
    { schemas: [SCIM_GROUP_URI], userName: 'a@example.com' },
    'user without the core user URI',
  ],
  ['createScimUser', { schemas: [SCIM_USER_URI] }, 'userName is required'],
  ['createScimUser', scimUser({ userName: 'ada' }), 'userName is an email address'],
  ['createScimUser', scimUser({ favouriteColour: 'blue' }), 'unknown attribute'],
  ['replaceScimUser', scimUser({ active: 'yes' }), 'active is a boolean'],
  [
    'replaceScimUser',
    scimUser({ [SCIM_ENTERPRISE_USER_URI]: { badge: '1' } }),
    'unknown extension attribute',
  ],
  ['replaceScimUser', scimUser({ emails: [{ primary: true }] }), 'an email entry needs a value'],
  // bases, interfaces, shares
  ['manageBlockInstallation', { state: 'on' }, 'state is enabled or disabled'],
  ['manageBlockInstallation', {}, 'state is required'],
  ['addBaseCollaborators', { collaborators: [] }, 'base collaborators: none'],
  [
    'addBaseCollaborators',
    {
      collaborators: [
        { ...group, permissionLevel: 'read' },
        { ...user, permissionLevel: 'comment' },
      ],
    },
    'base collaborators: 2 in one request',
  ],
  [
    'addBaseCollaborators',
    { collaborators: [{ permissionLevel: 'read' }] },
    'collaborator without user or group',
  ],
  [
    'addBaseCollaborators',
    { collaborators: [{ ...user, ...group, permissionLevel: 'read' }] },
    'collaborator with user and group',
  ],
  ['addBaseCollaborators', { collaborators: [{ ...user, permissionLevel: 'owner' }] }, 'no owner on a base'],
  ['updateBaseCollaborator', { permissionLevel: 'none' }, 'unknown base permission'],
  ['updateBaseCollaborator', {}, 'permissionLevel is required'],
  [
    'addInterfaceCollaborator',
    {
      collaborators: [
        { ...user, permissionLevel: 'read' },
        { ...group, permissionLevel: 'read' },
      ],
    },
    'interface collaborators: 2 in one request',
  ],
  ['addInterfaceCollaborator', { collaborators: [] }, 'interface collaborators: none'],
  [
    'addInterfaceCollaborator',
    { collaborators: [{ ...user, permissionLevel: 'create' }] },
    'no create on interfaces',
  ],
  ['updateInterfaceCollaborator', { permissionLevel: 'create' }, 'interface permission without create'],
  ['updateInterfaceCollaborator', { permissionLevel: 'edit', extra: 1 }, 'unknown key on interface update'],
  ['manageShare', { state: true }, 'share state is a word'],
  ['manageShare', { enabled: true }, 'share state key is state'],
  // enterprise administration
  ['createAuditLogRequest', { timePeriod: '2026-13' }, 'bad timePeriod month'],
  ['createAuditLogRequest', { timePeriod: '2026/03/01' }, 'bad timePeriod separators'],
  ['createAuditLogRequest', { timePeriod: '2026-03-01T00:00:00Z' }, 'timePeriod is not a timestamp'],
  ['createAuditLogRequest', { filter: 'x' }, 'timePeriod is required'],
  ['createDescendantAccount', { name: '' }, 'empty account name'],
  ['createDescendantAccount', { name: '   ' }, 'blank account name'],
  ['createEdiscoveryExport', { includeCsvFormat: true }, 'baseId is required'],
  ['createEdiscoveryExport', { baseId: 'appA', includeCsvFormat: 'yes' }, 'includeCsvFormat is a boolean'],
  ['moveUserGroups', { groupIds: [], targetEnterpriseAccountId: 'entB' }, 'at least one group'],
  ['moveUserGroups', { groupIds: ['ugpA'] }, 'targetEnterpriseAccountId is required'],
  ['moveWorkspaces', { workspaceIds: [], targetEnterpriseAccountId: 'entB' }, 'at least one workspace'],
  ['moveWorkspaces', { workspaceIds: 'wspA', targetEnterpriseAccountId: 'entB' }, 'workspaceIds is an array'],
  ['manageEnterpriseUsers', { users: [{ firstName: 'A' }] }, 'managed user without id or email'],
  ['manageEnterpriseUsers', { users: [] }, 'at least one user to manage'],
  [
    'manageEnterpriseUsers',
    { users: [{ id: 'usrA', state: 'managed' }] },
    'user state is provisioned/deactivated',
  ],
  ['manageUserMembership', { users: [{ state: 'managed' }] }, 'membership without id or email'],
  ['manageUserMembership', { users: [{ id: 'usrA' }] }, 'membership state is required'],
  ['grantAdminAccess', { users: [{}] }, 'admin grant without id or email'],
  ['grantAdminAccess', { users: [] }, 'admin grant to nobody'],
  ['revokeAdminAccess', { users: [{ name: 'Ada' }] }, 'admin revoke by name'],
  ['revokeAdminAccess', {}, 'users is required'],
  ['removeUserFromEnterprise', { isDryRun: 'no' }, 'isDryRun is a boolean'],
  ['removeUserFromEnterprise', { replacementOwnerId: '' }, 'empty replacement owner'],
  ['manageEnterpriseUser', {}, 'nothing to change on a user'],
  ['manageEnterpriseUser', { state: 'suspended' }, 'unknown user state'],
  // workspaces
  ['createWorkspace', { name: 'Sales' }, 'enterpriseAccountId is required'],
  ['createWorkspace', { enterpriseAccountId: 'entA', name: '' }, 'empty workspace name'],
  ['addWorkspaceCollaborators', { collaborators: [] }, 'workspace collaborators: none'],
  [
    'addWorkspaceCollaborators',
    {
      collaborators: [
        { ...group, permissionLevel: 'create' },
        { ...user, permissionLevel: 'read' },
      ],
    },
    'workspace collaborators: 2 in one request',
  ],
  [
    'addWorkspaceCollaborators',
    { collaborators: [{ user: { email: 'a@example.com' }, permissionLevel: 'read' }] },
    'a user is named by id',
  ],
  ['updateWorkspaceCollaborator', { permissionLevel: 'admin' }, 'unknown workspace permission'],
  ['updateWorkspaceCollaborator', { permissionLevel: ['owner'] }, 'permissionLevel is a string'],
  ['moveBase', { baseId: 'appA', targetWorkspaceId: 'wspB', targetIndex: -1 }, 'negative targetIndex'],
  ['moveBase', { baseId: 'appA', targetWorkspaceId: 'wspB', targetIndex: 1.5 }, 'fractional targetIndex'],
  ['moveBase', { targetWorkspaceId: 'wspB' }, 'baseId is required'],
  ['updateWorkspaceRestrictions', {}, 'empty restrictions'],
  ['updateWorkspaceRestrictions', { inviteCreationRestriction: 'onlyAdmins' }, 'unknown restriction'],
  // bulk data tables
  ['upsertBulkRecords', { records: [] }, 'upsert nothing'],
  ['upsertBulkRecords', { records: bulkRows(BULK_RECORDS_PER_REQUEST + 1) }, 'upsert over the limit'],
  ['upsertBulkRecords', { records: [{ fields: { A: 1 } }] }, 'upsert row without primaryKey'],
  ['upsertBulkRecords', { records: [{ primaryKey: 'K', fields: { A: [1] } }] }, 'cells are flat values'],
  [
    'upsertBulkRecords',
    { records: [{ primaryKey: 'K', fields: { A: false } }] },
    'no boolean cells (published body)',
  ],
  ['deleteBulkRecords', { primaryKeysForDelete: [] }, 'delete no keys'],
  [
    'deleteBulkRecords',
    { primaryKeysForDelete: keys(BULK_RECORDS_PER_REQUEST + 1) },
    'delete over the limit',
  ],
  ['readBulkRecords', { maxRecords: 0 }, 'maxRecords below 1'],
  ['readBulkRecords', { maxRecords: BULK_RECORDS_PER_REQUEST + 1 }, 'maxRecords over the limit'],
  ['readBulkRecords', { primaryKeys: keys(BULK_RECORDS_PER_REQUEST + 1) }, 'read too many keys'],
];

describe('store request-body schemas', () => {
  it('are valid JSON Schema 2020-12 documents (ajv compiles each)', () => {
    for (const name of NAMES) {
      expect(typeof compiled[name], name).toBe('function');
      expect(jsonSchemaOf(STORE_BODIES[name]).$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    }
  });

  it('match the committed snapshot', async () => {
    const all = Object.fromEntries(NAMES.map((name) => [name, requestBodyDocument(STORE_BODIES[name])]));
    await expect(JSON.stringify(all, null, 2)).toMatchFileSnapshot(
      '__snapshots__/store-request-schemas.json',
    );
  });

  it('each carries examples that both validators accept', () => {
    for (const name of NAMES) {
      const examples = jsonSchemaOf(STORE_BODIES[name]).examples as unknown[];
      expect(examples?.length, name).toBeGreaterThan(0);
      for (const example of examples) {
        expect(accepts(name, example), `${name} ${JSON.stringify(example)}`).toEqual({
          zod: true,
          json: true,
        });
      }
    }
  });

  it('have enough cases below', () => {
    expect(VALID.length).toBeGreaterThanOrEqual(40);
    expect(INVALID.length).toBeGreaterThanOrEqual(40);
  });

  it.each(VALID.map(([name, body], index) => [index, name, body] as const))(
    'accepts valid body %i (%s)',
    (_index, name, body) => {
      expect(accepts(name, body), JSON.stringify(problems(name, body))).toEqual({ zod: true, json: true });
    },
  );

  it.each(INVALID.map(([name, body, why]) => [why, name, body] as const))(
    'rejects a broken body: %s',
    (_why, name, body) => {
      expect(accepts(name, body)).toEqual({ zod: false, json: false });
    },
  );
});

describe('documented limits, at and over the bound', () => {
  it(`${RECORDS_PER_REQUEST} records per write`, () => {
    for (const name of ['createRecords', 'updateRecords', 'replaceRecords'] as const) {
      const withIds = name !== 'createRecords';
      expect(accepts(name, { records: records(RECORDS_PER_REQUEST, withIds) }), name).toEqual({
        zod: true,
        json: true,
      });
      expect(accepts(name, { records: records(RECORDS_PER_REQUEST + 1, withIds) }), name).toEqual({
        zod: false,
        json: false,
      });
    }
    expect(jsonSchemaOf(STORE_BODIES.createRecords)).toMatchObject({
      properties: { records: { maxItems: RECORDS_PER_REQUEST } },
    });
  });

  it(`${MERGE_FIELDS_MAX} fields to merge on`, () => {
    const upsert = (count: number) => ({
      records: [{ fields: {} }],
      performUpsert: { fieldsToMergeOn: Array.from({ length: count }, (_, i) => `F${i}`) },
    });
    expect(accepts('updateRecords', upsert(MERGE_FIELDS_MAX))).toEqual({ zod: true, json: true });
    expect(accepts('updateRecords', upsert(MERGE_FIELDS_MAX + 1))).toEqual({ zod: false, json: false });
    expect(accepts('replaceRecords', upsert(1))).toEqual({ zod: true, json: true });
    expect(accepts('replaceRecords', upsert(0))).toEqual({ zod: false, json: false });
  });

  it(`field and table descriptions up to ${FIELD_DESCRIPTION_MAX} characters`, () => {
    const field = (chars: number) => ({ name: 'F', type: 'email', description: text(chars) });
    expect(accepts('createField', field(FIELD_DESCRIPTION_MAX))).toEqual({ zod: true, json: true });
    expect(accepts('createField', field(FIELD_DESCRIPTION_MAX + 1))).toEqual({ zod: false, json: false });
    expect(accepts('createTable', table([field(FIELD_DESCRIPTION_MAX)]))).toEqual({ zod: true, json: true });
    expect(accepts('createTable', table([field(FIELD_DESCRIPTION_MAX + 1)]))).toEqual({
      zod: false,
      json: false,
    });
    expect(
      accepts('createTable', table([primary], { description: text(FIELD_DESCRIPTION_MAX + 1) })),
    ).toEqual({
      zod: false,
      json: false,
    });
    expect(accepts('updateTable', { description: text(FIELD_DESCRIPTION_MAX) })).toEqual({
      zod: true,
      json: true,
    });
    expect(accepts('updateTable', { description: text(FIELD_DESCRIPTION_MAX + 1) })).toEqual({
      zod: false,
      json: false,
    });
    // Characters, not bytes: 20,000 two-byte characters still fit.
    expect(accepts('createField', { ...field(0), description: 'é'.repeat(FIELD_DESCRIPTION_MAX) })).toEqual({
      zod: true,
      json: true,
    });
  });

  it('uploads up to 5 MB once decoded', () => {
    const upload = (bytes: number) => ({
      contentType: 'application/octet-stream',
      file: Buffer.alloc(bytes, 0xab).toString('base64'),
      filename: 'blob.bin',
    });
    expect(ATTACHMENT_MAX_BYTES).toBe(5 * 1024 * 1024);
    // Exactly 5 MB: 6,990,508 characters of base64 with one padding character.
    const atLimit = upload(ATTACHMENT_MAX_BYTES);
    expect(atLimit.file.length).toBe(ATTACHMENT_MAX_BASE64_CHARS);
    expect(accepts('uploadAttachment', atLimit)).toEqual({ zod: true, json: true });
    // One byte over: the same length without padding. JSON Schema can bound only the text length (maxLength),
    // not the decoded size, so only zod refuses this one.
    const justOver = upload(ATTACHMENT_MAX_BYTES + 1);
    expect(justOver.file.length).toBe(ATTACHMENT_MAX_BASE64_CHARS);
    expect(accepts('uploadAttachment', justOver)).toEqual({ zod: false, json: true });
    expect(problems('uploadAttachment', justOver).join('\n')).toContain(
      `limited to ${ATTACHMENT_MAX_BYTES} bytes`,
    );
    // Longer text is over for both.
    expect(accepts('uploadAttachment', upload(ATTACHMENT_MAX_BYTES + 3))).toEqual({
      zod: false,
      json: false,
    });
  });
});

describe('messages that say what to do', () => {
  it('names each field type the API cannot create', () => {
    for (const type of NON_CREATABLE_FIELD_TYPES) {
      const found = problems('createField', { name: 'F', type });
      expect(found, type).toHaveLength(1);
      expect(found[0]).toContain('request_body.type:');
      expect(found[0]).toContain(`${type} fields cannot be created through the API`);
      expect(found[0]).not.toMatch(/discriminator/i);
      expect(compiled.createField({ name: 'F', type })).toBe(false);
    }
    expect(problems('createTable', table([primary, { name: 'F', type: 'formula' }]))).toEqual([
      expect.stringMatching(
        /^request_body\.fields\.1\.type: formula fields cannot be created through the API/,
      ),
    ]);
  });

  it('refuses more than 10 records with the limit and the way out', () => {
    const found = problems('createRecords', { records: records(12) });
    expect(found).toEqual([
      'request_body.records: at most 10 records per request; got 12. Split the write into several calls of up to 10 records each.',
    ]);
    expect(problems('updateRecords', { records: records(11, true) })[0]).toMatch(/at most 10 records.*Split/);
  });

  it('explains unknown types, record ids, read-only link options and the primary field', () => {
    expect(problems('createField', { name: 'F', type: 'singleLineTxt' })[0]).toContain(
      'did you mean singleLineText?',
    );
    expect(problems('updateRecords', { records: [{ fields: {} }] })).toEqual([
      'request_body.records.0.id: required: the record id (rec…), unless performUpsert is given',
    ]);
    expect(
      problems('createField', {
        name: 'L',
        type: 'multipleRecordLinks',
        options: { linkedTableId: 'tblA', inverseLinkFieldId: 'fldB' },
      })[0],
    ).toContain('inverseLinkFieldId is read-only');
    expect(problems('createTable', table([{ name: 'F', type: 'multipleAttachments' }]))[0]).toMatch(
      /^request_body\.fields\.0\.type: the first field becomes the primary field, which cannot be multipleAttachments/,
    );
  });

  // Rules JSON Schema cannot state; zod checks them, the published schema carries them in descriptions.
  it('zod alone refuses repeated names, unpadded base64 and time zones outside the upstream list', () => {
    // The JSON Schema pattern checks the base64 alphabet and trailing '='; the length (a multiple of 4) only zod.
    const unpadded = { contentType: 'image/png', file: 'abc', filename: 'a' };
    expect(accepts('uploadAttachment', unpadded)).toEqual({ zod: false, json: true });
    expect(problems('uploadAttachment', unpadded)[0]).toContain('multiple of 4');
    expect(accepts('createTable', table([primary, { name: 'Name', type: 'email' }]))).toEqual({
      zod: false,
      json: true,
    });
    expect(
      accepts('createBase', { name: 'B', workspaceId: 'wspA', tables: [table([primary]), table([primary])] }),
    ).toEqual({ zod: false, json: true });
    const zone = (timeZone: string) => ({
      name: 'At',
      type: 'dateTime',
      options: { ...dateTimeOptions, timeZone },
    });
    expect(accepts('createField', zone('Mars/Olympus_Mons'))).toEqual({ zod: false, json: true });
    expect(problems('createField', zone('Mars/Olympus_Mons'))[0]).toContain('unknown time zone');
    expect(accepts('createField', zone('client'))).toEqual({ zod: true, json: true });
    // Holidays: JSON Schema checks the YYYY-MM-DD shape, zod also that the day exists.
    const holidays = (day: string) => ({ dateDependencySettings: { ...dateDependencies, holidays: [day] } });
    expect(accepts('updateTable', holidays('2026-02-30'))).toEqual({ zod: false, json: true });
  });
});

describe('administration bodies: refusals that say what to do', () => {
  it('names the SCIM core URI that schemas must include', () => {
    expect(problems('createScimGroup', { schemas: [], displayName: 'D' })).toEqual([
      `request_body.schemas: schemas must include "${SCIM_GROUP_URI}"`,
    ]);
    expect(problems('createScimUser', { schemas: [SCIM_GROUP_URI], userName: 'a@example.com' })[0]).toContain(
      SCIM_USER_URI,
    );
    expect(
      problems('patchScimUser', { schemas: [SCIM_USER_URI], Operations: [{ op: 'remove', path: 'x' }] })[0],
    ).toContain(SCIM_PATCH_OP_URI);
    expect(problems('patchScimGroup', patch({ op: 'add', path: 'members' }))[0]).toContain(
      'add needs a value',
    );
  });

  it('takes one interface, base or workspace collaborator per request and says so', () => {
    const two = {
      collaborators: [
        { ...user, permissionLevel: 'read' },
        { ...group, permissionLevel: 'read' },
      ],
    };
    for (const name of [
      'addInterfaceCollaborator',
      'addBaseCollaborators',
      'addWorkspaceCollaborators',
    ] as const) {
      expect(problems(name, two), name).toEqual([
        expect.stringMatching(/^request_body\.collaborators: exactly one collaborator per request.*got 2/),
      ]);
      expect(compiled[name](two), name).toBe(false);
    }
    expect(jsonSchemaOf(STORE_BODIES.addBaseCollaborators)).toMatchObject({
      properties: { collaborators: { minItems: 1, maxItems: 1 } },
    });
    expect(jsonSchemaOf(STORE_BODIES.addWorkspaceCollaborators)).toMatchObject({
      properties: { collaborators: { minItems: 1, maxItems: 1 } },
    });
  });

  it('asks for user or group, and for id or email', () => {
    expect(problems('addBaseCollaborators', { collaborators: [{ permissionLevel: 'read' }] })[0]).toContain(
      'user {id} or group {id}',
    );
    expect(
      problems('addWorkspaceCollaborators', {
        collaborators: [{ ...user, ...group, permissionLevel: 'read' }],
      })[0],
    ).toContain('not both');
    for (const name of ['manageEnterpriseUsers', 'grantAdminAccess', 'revokeAdminAccess'] as const) {
      expect(problems(name, { users: [{}] }), name).toEqual([
        'request_body.users.0: name the user by id or email',
      ]);
    }
  });

  it('explains empty updates and a bad time period', () => {
    expect(problems('updateWorkspaceRestrictions', {})[0]).toContain(
      'give inviteCreationRestriction, shareCreationRestriction, or both',
    );
    expect(problems('manageEnterpriseUser', {})[0]).toContain('give at least one of email');
    expect(problems('createAuditLogRequest', { timePeriod: '03-2026' })[0]).toContain('YYYY-MM');
    expect(problems('upsertBulkRecords', { records: bulkRows(BULK_RECORDS_PER_REQUEST + 1) })[0]).toContain(
      `at most ${BULK_RECORDS_PER_REQUEST} records per request`,
    );
  });
});
