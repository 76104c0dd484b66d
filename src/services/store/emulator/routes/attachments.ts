/**
 * Attachments: POST /v0/{baseId}/{recordId}/{attachmentFieldIdOrName}/uploadAttachment (base64 file of at most
 * 5 MB, appended to the cell; the answer is `{id, createdTime, fields}` keyed by field id), and the download of
 * what was uploaded at GET /_files/{attachmentId}/{filename}, the `url` of the attachment object (built from the
 * request's origin, served without auth like the upstream's signed CDN urls).
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import { Reader } from '../compute.js';
import { errors, respond } from '../errors.js';
import type { StoredAttachment } from '../model.js';
import { resolveField } from '../query.js';
import { Mutation } from '../records.js';
import {
  actorOf,
  type Ctx,
  createArea,
  isReservedBaseSegment,
  originOf,
  param,
  type RouteDeps,
  readBody,
  route,
} from './common.js';
import { WRITE_SCOPE } from './records.js';

export const FILES_PREFIX = '/_files';

/** Emulator-only: the stand-in for the upstream's signed CDN urls, so no operation of the endpoint table. */
export const FILE_DOWNLOAD = { method: 'GET', path: `${FILES_PREFIX}/{attachmentId}/{filename}` } as const;

export function attachmentsArea(deps: RouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { store, clock } = deps;

  async function uploadAttachment(c: Ctx) {
    if (isReservedBaseSegment(param(c, 'baseId'))) return respond(c, errors.routeNotFound());
    const principal = deps.access.require(c, WRITE_SCOPE);
    if (!principal.ok) return respond(c, principal.error);
    const baseId = param(c, 'baseId');
    const base = deps.access.base(principal.value, baseId, 'read', 'read this base');
    if (!base.ok) return respond(c, base.error);
    const recordId = param(c, 'recordId');
    const record = store.findRecord(recordId);
    const table = record ? store.schema().tableById.get(record.tableId) : undefined;
    if (!record || !table || table.row.baseId !== baseId) return respond(c, errors.recordNotFound(recordId));
    const writable = deps.access.base(
      principal.value,
      baseId,
      'edit',
      `write cell values in table ${table.row.name} (${table.row.id})`,
    );
    if (!writable.ok) return respond(c, writable.error);
    const field = resolveField(table, param(c, 'attachmentFieldIdOrName'));
    if (!field) return respond(c, errors.unknownFieldName(param(c, 'attachmentFieldIdOrName')));
    if (field.type !== 'multipleAttachments') return respond(c, errors.invalidValue(field.name));
    const body = await readBody(c, 'uploadAttachment');
    if (!body.ok) return respond(c, body.error);
    const bytes = Buffer.from(String(body.value.file), 'base64');
    const filename = String(body.value.filename);
    const contentType = String(body.value.contentType);
    const now = clock.now().toISOString();
    const attachment: StoredAttachment = {
      id: store.newId('attachment'),
      filename,
      size: bytes.length,
      type: contentType,
    };
    store.transaction(() =>
      store.insertFile(
        { id: attachment.id, filename, type: contentType, size: bytes.length, createdTime: now },
        bytes,
      ),
    );
    const current = Array.isArray(record.cells[field.id])
      ? (record.cells[field.id] as StoredAttachment[])
      : [];
    const mutation = new Mutation(
      { store, hub: deps.hub, now: () => clock.now(), origin: originOf(c) },
      actorOf(principal.value),
      base.value,
    );
    mutation.stageUpdate(table, record, new Map([[field.id, [...current, attachment]]]), false);
    const committed = mutation.commit();
    if (!committed.ok) return respond(c, committed.error);
    const reader = new Reader(store, store.schema(), { now: clock.now(), origin: originOf(c) });
    const fresh = reader.snapshot.tableById.get(table.row.id) ?? table;
    const row = store.record(fresh.row.id, record.id) ?? record;
    return c.json({
      id: row.id,
      createdTime: row.createdTime,
      fields: { [field.id]: reader.view(fresh, row).json(field.id) ?? [] },
    });
  }

  function downloadAttachment(c: Ctx) {
    const id = param(c, 'attachmentId');
    const file = store.file(id);
    const bytes = file ? store.fileBytes(id) : undefined;
    if (!file || !bytes) return respond(c, errors.routeNotFound());
    return c.body(new Uint8Array(bytes), 200, {
      'content-type': file.type,
      'content-length': String(bytes.length),
      'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
      'cache-control': 'private, max-age=3600',
    });
  }

  route(area, STORE_OPERATIONS.UploadAttachment, uploadAttachment);
  route(area, FILE_DOWNLOAD, downloadAttachment);
  return area;
}

/** Whether a path is a file download, which needs no token. */
export function isFilePath(path: string): boolean {
  return path.startsWith(`${FILES_PREFIX}/`);
}
