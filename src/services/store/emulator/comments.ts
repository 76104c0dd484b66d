/**
 * Record comments: list (newest first, offset pages), add (replies need a parent on the same record; `@[usrX]`
 * mentions fill `mentioned`), edit and delete (by their author only). Shapes as in store-samples/Comment.json.
 */
import { decodeCursor, encodeCursor } from '../../../emulation/pagination.js';
import { err, ok, type Result } from '../../../emulation/result.js';
import type { SchemaSnapshot, StoreDatabase } from './database.js';
import { errors, type StoreError } from './errors.js';
import type { CommentRow, JsonObject } from './model.js';

export const COMMENTS_MAX_PAGE_SIZE = 100;
const CURSOR_TAG = 'comments';
const MENTION = /@\[(usr[A-Za-z0-9]{14})\]/g;

function mentionsOf(text: string, snapshot: SchemaSnapshot): JsonObject | undefined {
  const mentioned: JsonObject = {};
  for (const match of text.matchAll(MENTION)) {
    const id = match[1] as string;
    const user = snapshot.userById.get(id);
    // An unknown user id stays plain text, as a mention of nobody.
    if (user) mentioned[id] = { type: 'user', id: user.id, displayName: user.name, email: user.email };
  }
  return Object.keys(mentioned).length > 0 ? mentioned : undefined;
}

export function commentJson(comment: CommentRow, snapshot: SchemaSnapshot): JsonObject {
  const author = snapshot.userById.get(comment.authorId);
  const mentioned = mentionsOf(comment.text, snapshot);
  return {
    id: comment.id,
    author: author ? { id: author.id, email: author.email, name: author.name } : { id: comment.authorId },
    text: comment.text,
    createdTime: comment.createdTime,
    lastUpdatedTime: comment.lastUpdatedTime,
    ...(comment.parentCommentId ? { parentCommentId: comment.parentCommentId } : {}),
    ...(mentioned ? { mentioned } : {}),
  };
}

export function listComments(
  store: StoreDatabase,
  recordId: string,
  pageSize: number,
  offset: string | undefined,
): Result<{ comments: JsonObject[]; offset: string | null }, StoreError> {
  let before = Number.MAX_SAFE_INTEGER;
  if (offset !== undefined && offset !== '') {
    const decoded = decodeCursor(CURSOR_TAG, offset, ['string', 'number']);
    if (!decoded || decoded[0] !== recordId) return err(errors.invalidOffset());
    before = decoded[1] as number;
  }
  const rows = store.comments(recordId, before, pageSize + 1);
  const page = rows.slice(0, pageSize);
  const snapshot = store.schema();
  const last = page[page.length - 1];
  return ok({
    comments: page.map((c) => commentJson(c, snapshot)),
    // Unlike the records list, the comments list always carries `offset`, null on the last page (clients
    // written against the upstream, such as airtable-mcp-server, require the key).
    offset: rows.length > pageSize && last ? encodeCursor(CURSOR_TAG, [recordId, last.seq]) : null,
  });
}

export function addComment(
  store: StoreDatabase,
  recordId: string,
  authorId: string,
  text: string,
  parentCommentId: string | undefined,
  at: string,
): Result<JsonObject, StoreError> {
  if (text.trim() === '') return err(errors.invalidRequest('The comment text cannot be empty.'));
  if (parentCommentId !== undefined) {
    const parent = store.comment(parentCommentId);
    if (!parent || parent.recordId !== recordId) {
      return err(
        errors.invalidRequest(`parentCommentId "${parentCommentId}" is not a comment on this record.`),
      );
    }
  }
  const row = store.transaction(() =>
    store.insertComment({
      id: store.newId('comment'),
      recordId,
      authorId,
      text,
      parentCommentId: parentCommentId ?? null,
      createdTime: at,
      lastUpdatedTime: null,
    }),
  );
  return ok(commentJson(row, store.schema()));
}

function ownComment(
  store: StoreDatabase,
  recordId: string,
  commentId: string,
  userId: string,
): Result<CommentRow, StoreError> {
  const comment = store.comment(commentId);
  if (!comment || comment.recordId !== recordId) return err(errors.commentNotFound(commentId));
  if (comment.authorId !== userId) return err(errors.notPermitted('perform this operation'));
  return ok(comment);
}

export function editComment(
  store: StoreDatabase,
  recordId: string,
  commentId: string,
  userId: string,
  text: string,
  at: string,
): Result<JsonObject, StoreError> {
  const found = ownComment(store, recordId, commentId, userId);
  if (!found.ok) return found;
  if (text.trim() === '') return err(errors.invalidRequest('The comment text cannot be empty.'));
  store.transaction(() => store.updateComment(commentId, text, at));
  return ok(commentJson({ ...found.value, text, lastUpdatedTime: at }, store.schema()));
}

export function removeComment(
  store: StoreDatabase,
  recordId: string,
  commentId: string,
  userId: string,
): Result<JsonObject, StoreError> {
  const found = ownComment(store, recordId, commentId, userId);
  if (!found.ok) return found;
  store.transaction(() => store.deleteComment(commentId));
  return ok({ id: commentId, deleted: true });
}
