/**
 * The emulated Airtable model as the store keeps it: users, workspaces, bases with per-user permission levels,
 * tables, fields, views, records, comments and uploaded files. Plain data, no behaviour; cells are kept in the
 * emulator's stored form (see fields.ts), which differs from the API's JSON form only for collaborators
 * (user ids) and attachments (no absolute url).
 */

export type JsonObject = Record<string, unknown>;

export type PermissionLevel = 'none' | 'read' | 'comment' | 'edit' | 'create';

export const PERMISSION_RANK: Readonly<Record<PermissionLevel, number>> = {
  none: 0,
  read: 1,
  comment: 2,
  edit: 3,
  create: 4,
};

export function atLeast(level: PermissionLevel, needed: PermissionLevel): boolean {
  return PERMISSION_RANK[level] >= PERMISSION_RANK[needed];
}

export interface UserRow {
  id: string;
  email: string;
  name: string;
}

export interface WorkspaceRow {
  id: string;
  name: string;
  createdTime: string;
}

export interface BaseRow {
  id: string;
  workspaceId: string;
  name: string;
  createdTime: string;
}

export interface TableRow {
  id: string;
  baseId: string;
  name: string;
  description: string | null;
  primaryFieldId: string;
  /** As set through the update-table endpoint (TableSchema.json's shape); null when never set. */
  dateDependencySettings: JsonObject | null;
}

export interface FieldRow {
  id: string;
  tableId: string;
  name: string;
  type: string;
  description: string | null;
  /** As stored: the public options, plus internal keys (e.g. a rollup's aggregation) that fields.ts hides. */
  options: JsonObject | null;
}

/** Writable types whose stored cell is a string, and whose stored cell is a number. */
export const TEXT_FIELD_TYPES = [
  'singleLineText',
  'multilineText',
  'richText',
  'email',
  'url',
  'phoneNumber',
] as const;
export const NUMBER_FIELD_TYPES = ['number', 'percent', 'currency', 'rating', 'duration'] as const;

export const VIEW_TYPES = ['grid', 'form', 'calendar', 'gallery', 'kanban', 'timeline', 'block'] as const;
export type ViewType = (typeof VIEW_TYPES)[number];

export interface ViewSort {
  fieldId: string;
  direction: 'asc' | 'desc';
}

export interface ViewRow {
  id: string;
  tableId: string;
  name: string;
  type: ViewType;
  personalForUserId: string | null;
  /** The view's own record order; an explicit `sort` in a list request replaces it. */
  sorts: ViewSort[];
  /** A formula over field ids (`{fldXXX} = 'Done'`); records for which it is falsy are not in the view. */
  filter: string | null;
  /** Fields hidden in the view; visibleFieldIds are the table's fields minus these, in table order. */
  hiddenFieldIds: string[];
}

/** A cell per field id, in stored form; absent means empty. */
export type Cells = Record<string, unknown>;

/** Who last changed a field of a record, and when: [ISO time, user id]. */
export type Modifications = Record<string, readonly [string, string]>;

export interface RecordRow {
  id: string;
  tableId: string;
  createdTime: string;
  createdBy: string;
  autoNumber: number;
  cells: Cells;
  modified: Modifications;
}

export interface StoredAttachment {
  id: string;
  /** Absent for files uploaded to the emulator: their url is built from the request's origin when read. */
  url?: string;
  filename: string;
  size?: number;
  type?: string;
}

export interface CommentRow {
  seq: number;
  id: string;
  recordId: string;
  authorId: string;
  text: string;
  parentCommentId: string | null;
  createdTime: string;
  lastUpdatedTime: string | null;
}

export interface FileRow {
  id: string;
  filename: string;
  type: string;
  size: number;
  createdTime: string;
}
