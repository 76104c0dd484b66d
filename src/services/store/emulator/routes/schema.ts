/**
 * The metadata endpoints the data plane serves: list, create and delete bases; read the base schema; create and
 * update tables; create and update fields; list, read and delete views. Schema reads need schema.bases:read,
 * changes schema.bases:write and the base's "create" permission; deleting a base needs
 * workspacesAndBases:manage; views are under workspacesAndBases:read / :write.
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { decodeCursor, encodeCursor } from '../../../../emulation/pagination.js';
import { err, ok, type Result } from '../../../../emulation/result.js';
import { STORE_OPERATIONS } from '../../endpoints.js';
import type { Principal } from '../auth.js';
import type { TableModel } from '../database.js';
import { errors, respond, type StoreError } from '../errors.js';
import { isRecordObject } from '../fields.js';
// The schema changes by namespace: their names are the handlers' (named after the operations).
import * as metadata from '../metadata.js';
import {
  fieldInputOf,
  type SchemaDeps,
  type TableInput,
  tableInputOf,
  tableJson,
  viewJson,
} from '../metadata.js';
import type { BaseRow, JsonObject } from '../model.js';
import {
  actorOf,
  arrayParam,
  type Ctx,
  createArea,
  param,
  type RouteDeps,
  readBody,
  readJson,
  reply,
  route,
} from './common.js';
import { resolveTable } from './records.js';

export const SCHEMA_READ_SCOPE = 'schema.bases:read';
export const SCHEMA_WRITE_SCOPE = 'schema.bases:write';
export const BASES_MANAGE_SCOPE = 'workspacesAndBases:manage';
export const VIEWS_READ_SCOPE = 'workspacesAndBases:read';
export const VIEWS_WRITE_SCOPE = 'workspacesAndBases:write';

/** Bases per page of GET /v0/meta/bases (the upstream does not document its page size). */
export const BASES_PAGE_SIZE = 100;
const BASES_CURSOR = 'bases';

export function schemaArea(deps: RouteDeps): Hono<EmulatorEnv> {
  const area = createArea();
  const { store, clock, access } = deps;
  const schemaDeps: SchemaDeps = { store, hub: deps.hub, now: () => clock.now() };

  const baseTarget = (
    c: Ctx,
    scope: string,
    needed: 'read' | 'create',
  ): Result<{ principal: Principal; base: BaseRow }, StoreError> => {
    const principal = access.require(c, scope);
    if (!principal.ok) return principal;
    const base = access.base(principal.value, param(c, 'baseId'), needed, 'perform this operation');
    return base.ok ? ok({ principal: principal.value, base: base.value }) : base;
  };

  const tableTarget = (
    c: Ctx,
  ): Result<{ principal: Principal; base: BaseRow; table: TableModel }, StoreError> => {
    const t = baseTarget(c, SCHEMA_WRITE_SCOPE, 'create');
    if (!t.ok) return t;
    // UpdateTable names it {tableIdOrName}; the field operations {tableId} (a name is taken there too).
    const table = resolveTable(store, t.value.base.id, param(c, 'tableIdOrName') || param(c, 'tableId'));
    return table ? ok({ ...t.value, table }) : err(errors.modelNotFound());
  };

  const includesVisibleFieldIds = (c: Ctx) => (arrayParam(c, 'include') ?? []).includes('visibleFieldIds');

  function listBases(c: Ctx) {
    const principal = access.require(c, SCHEMA_READ_SCOPE);
    if (!principal.ok) return respond(c, principal.error);
    const visible = store
      .schema()
      .bases.map((b) => ({ base: b, level: store.permissionOf(b.id, principal.value.userId) }))
      .filter((b) => b.level !== 'none');
    let start = 0;
    const offset = c.req.query('offset');
    if (offset !== undefined && offset !== '') {
      const decoded = decodeCursor(BASES_CURSOR, offset, ['number']);
      if (!decoded || (decoded[0] as number) > visible.length) return respond(c, errors.invalidOffset());
      start = decoded[0] as number;
    }
    const page = visible.slice(start, start + BASES_PAGE_SIZE);
    const next = start + BASES_PAGE_SIZE;
    return c.json({
      bases: page.map(({ base, level }) => ({ id: base.id, name: base.name, permissionLevel: level })),
      ...(next < visible.length ? { offset: encodeCursor(BASES_CURSOR, [next]) } : {}),
    });
  }

  async function createBase(c: Ctx) {
    const principal = access.require(c, SCHEMA_WRITE_SCOPE);
    if (!principal.ok) return respond(c, principal.error);
    const body = await readBody(c, 'createBase');
    if (!body.ok) return respond(c, body.error);
    const tables: TableInput[] = [];
    for (const raw of Array.isArray(body.value.tables) ? body.value.tables : []) {
      const table = tableInputOf(raw);
      if (!table) return respond(c, errors.invalidRequest('Each table needs a name and fields.'));
      tables.push(table);
    }
    const created = metadata.createBase(schemaDeps, actorOf(principal.value), {
      name: String(body.value.name),
      workspaceId: String(body.value.workspaceId),
      tables,
    });
    return reply(c, created);
  }

  function deleteBase(c: Ctx) {
    const t = baseTarget(c, BASES_MANAGE_SCOPE, 'create');
    if (!t.ok) return respond(c, t.error);
    const deleted = metadata.deleteBase(schemaDeps, actorOf(t.value.principal), t.value.base.id);
    return reply(c, deleted);
  }

  function getBaseSchema(c: Ctx) {
    const t = baseTarget(c, SCHEMA_READ_SCOPE, 'read');
    if (!t.ok) return respond(c, t.error);
    const snapshot = store.schema();
    const include = includesVisibleFieldIds(c);
    const tables = snapshot.tablesOfBase.get(t.value.base.id) ?? [];
    return c.json({ tables: tables.map((table) => tableJson(table, snapshot, include)) });
  }

  async function createTable(c: Ctx) {
    const t = baseTarget(c, SCHEMA_WRITE_SCOPE, 'create');
    if (!t.ok) return respond(c, t.error);
    const body = await readBody(c, 'createTable');
    if (!body.ok) return respond(c, body.error);
    const input = tableInputOf(body.value);
    if (!input) return respond(c, errors.invalidRequest('A table needs a name and fields.'));
    const created = metadata.createTable(schemaDeps, actorOf(t.value.principal), t.value.base.id, input);
    return reply(c, created);
  }

  async function updateTable(c: Ctx) {
    const t = tableTarget(c);
    if (!t.ok) return respond(c, t.error);
    const body = await readBody(c, 'updateTable');
    if (!body.ok) return respond(c, body.error);
    const { name, description, dateDependencySettings } = body.value;
    const updated = metadata.updateTable(schemaDeps, actorOf(t.value.principal), t.value.table, {
      ...(typeof name === 'string' ? { name } : {}),
      ...(typeof description === 'string' ? { description } : {}),
      ...(isRecordObject(dateDependencySettings) ? { dateDependencySettings } : {}),
    });
    return reply(c, updated);
  }

  async function createField(c: Ctx) {
    const t = tableTarget(c);
    if (!t.ok) return respond(c, t.error);
    const body = await readBody(c, 'createField');
    if (!body.ok) return respond(c, body.error);
    const input = fieldInputOf(body.value);
    if (!input) return respond(c, errors.invalidRequest('A field needs a name and a type.'));
    const created = metadata.createField(schemaDeps, actorOf(t.value.principal), t.value.table, input);
    return reply(c, created);
  }

  async function updateField(c: Ctx) {
    const t = tableTarget(c);
    if (!t.ok) return respond(c, t.error);
    const field = t.value.table.fieldById.get(param(c, 'columnId'));
    if (!field) return respond(c, errors.modelNotFound());
    // No shared schema covers this body: {name?, description?}, at least one.
    const body = await readJson(c);
    if (!body.ok) return respond(c, body.error);
    const value = body.value;
    if (!isRecordObject(value)) return respond(c, errors.invalidRequest('The body must be a JSON object.'));
    const unknown = Object.keys(value).filter((k) => k !== 'name' && k !== 'description');
    if (unknown.length > 0) return respond(c, errors.invalidRequest(`Unknown parameter "${unknown[0]}".`));
    if (value.name !== undefined && typeof value.name !== 'string') {
      return respond(c, errors.invalidRequest('name must be a string.'));
    }
    if (value.description !== undefined && typeof value.description !== 'string') {
      return respond(c, errors.invalidRequest('description must be a string.'));
    }
    const updated = metadata.updateField(schemaDeps, actorOf(t.value.principal), t.value.table, field, {
      ...(typeof value.name === 'string' ? { name: value.name } : {}),
      ...(typeof value.description === 'string' ? { description: value.description } : {}),
    });
    return reply(c, updated);
  }

  function listViews(c: Ctx) {
    const t = baseTarget(c, VIEWS_READ_SCOPE, 'read');
    if (!t.ok) return respond(c, t.error);
    const include = includesVisibleFieldIds(c);
    const views: JsonObject[] = [];
    for (const table of store.schema().tablesOfBase.get(t.value.base.id) ?? []) {
      for (const view of table.views) views.push(viewJson(view, table, include));
    }
    return c.json({ views });
  }

  const viewTarget = (c: Ctx, scope: string, needed: 'read' | 'create') => {
    const t = baseTarget(c, scope, needed);
    if (!t.ok) return t;
    const found = store.schema().viewById.get(param(c, 'viewId'));
    if (!found || found.table.row.baseId !== t.value.base.id) return err(errors.modelNotFound());
    return ok({ ...t.value, ...found });
  };

  function getViewMetadata(c: Ctx) {
    const t = viewTarget(c, VIEWS_READ_SCOPE, 'read');
    if (!t.ok) return respond(c, t.error);
    return c.json(viewJson(t.value.view, t.value.table, includesVisibleFieldIds(c)));
  }

  function deleteView(c: Ctx) {
    const t = viewTarget(c, VIEWS_WRITE_SCOPE, 'create');
    if (!t.ok) return respond(c, t.error);
    const deleted = metadata.deleteView(schemaDeps, actorOf(t.value.principal), t.value.table, t.value.view);
    return reply(c, deleted);
  }

  route(area, STORE_OPERATIONS.ListBases, listBases);
  route(area, STORE_OPERATIONS.CreateBase, createBase);
  route(area, STORE_OPERATIONS.DeleteBase, deleteBase);
  route(area, STORE_OPERATIONS.GetBaseSchema, getBaseSchema);
  route(area, STORE_OPERATIONS.CreateTable, createTable);
  route(area, STORE_OPERATIONS.UpdateTable, updateTable);
  route(area, STORE_OPERATIONS.CreateField, createField);
  route(area, STORE_OPERATIONS.UpdateField, updateField);
  route(area, STORE_OPERATIONS.ListViews, listViews);
  route(area, STORE_OPERATIONS.GetViewMetadata, getViewMetadata);
  route(area, STORE_OPERATIONS.DeleteView, deleteView);
  return area;
}
