/**
 * What /_emulator/state shows of the database: one entry per collection (its rows, order, equality filters and
 * item key) and the snake_case views of rows, with JSON columns parsed. Read-only; knows nothing of HTTP.
 *
 * A collection's SELECT names its columns as the view shows them (`token AS id`), so its view is the row with
 * JSON columns parsed and 0/1 flags made booleans; only people need a view of their own, as their filters and
 * order use columns the view leaves out.
 */
import { num, parseJsonObject, type Row, str, strOrNull } from '../../../emulation/rows.js';

import type { JsonObject } from './records.js';

export function personView(row: Row): JsonObject {
  return {
    cio_id: str(row, 'cio_id'),
    id: strOrNull(row, 'id'),
    email: strOrNull(row, 'email'),
    attributes: parseJsonObject(row.attributes),
    created_at: num(row, 'created_at'),
    updated_at: num(row, 'updated_at'),
  };
}

/** Rows as selected, with the JSON text columns parsed and 0/1 flags made booleans. */
function plainView(jsonColumns: readonly string[], flagColumns: readonly string[] = []) {
  return (row: Row): JsonObject => {
    const out: JsonObject = { ...row };
    for (const column of jsonColumns) out[column] = JSON.parse(String(row[column])) as unknown;
    for (const column of flagColumns) out[column] = num(row, column) === 1;
    return out;
  };
}

export interface Filter {
  column: string;
  numeric?: boolean;
  /** 'person' filters accept a cio_id, an id or an email. */
  person?: boolean;
  lower?: boolean;
}

export interface CollectionSpec {
  from: string;
  order: string;
  filters: Record<string, Filter>;
  view: (row: Row) => JsonObject;
  /** The column `item(name, key)` looks the key up in. */
  key: Filter;
}

const person: Filter = { column: 'person', person: true };

/** An event's `id` is the dedupe id its sender gave (absent: null). */
const EVENT_COLUMNS = `SELECT seq, person, anonymous_id, name, type, dedupe_id AS id, timestamp, data, invite,
  received_at, origin FROM events`;
const eventView = plainView(['data'], ['invite']);

export const COLLECTIONS: Record<string, CollectionSpec> = {
  people: {
    from: 'SELECT * FROM people',
    order: 'pos',
    filters: {
      id: { column: 'id' },
      email: { column: 'email_key', lower: true },
      cio_id: { column: 'cio_id' },
    },
    view: personView,
    key: { column: 'cio_id' },
  },
  devices: {
    // `id` as in the v1 body (`device.id`); v2 calls the same token `token`.
    from: 'SELECT token AS id, person, platform, last_used, attributes, created_at, updated_at FROM devices',
    order: 'created_at, id',
    filters: { person, platform: { column: 'platform' } },
    view: plainView(['attributes']),
    key: { column: 'id' },
  },
  events: {
    from: `${EVENT_COLUMNS} WHERE person IS NOT NULL`,
    order: 'seq',
    filters: {
      person,
      name: { column: 'name' },
      type: { column: 'type' },
      anonymous_id: { column: 'anonymous_id' },
      id: { column: 'id' },
      origin: { column: 'origin' },
    },
    view: eventView,
    key: { column: 'seq', numeric: true },
  },
  anonymous_events: {
    from: `${EVENT_COLUMNS} WHERE person IS NULL`,
    order: 'seq',
    filters: {
      anonymous_id: { column: 'anonymous_id' },
      name: { column: 'name' },
      id: { column: 'id' },
    },
    view: eventView,
    key: { column: 'seq', numeric: true },
  },
  forms: {
    from: 'SELECT form_id AS id, created_at, submissions, last_submitted_at FROM forms',
    order: 'created_at, id',
    filters: {},
    view: plainView([]),
    key: { column: 'id' },
  },
  form_submissions: {
    from: 'SELECT * FROM form_submissions',
    order: 'seq',
    filters: { form_id: { column: 'form_id' }, person },
    view: plainView(['fields']),
    key: { column: 'seq', numeric: true },
  },
  metrics: {
    from: 'SELECT * FROM metrics',
    order: 'seq',
    filters: {
      delivery_id: { column: 'delivery_id' },
      metric: { column: 'metric' },
      source: { column: 'source' },
    },
    view: plainView(['fields'], ['known_delivery']),
    key: { column: 'seq', numeric: true },
  },
  segments: {
    from: `SELECT s.*, (SELECT COUNT(*) FROM segment_members m WHERE m.segment_id = s.id) AS member_count
      FROM segments s`,
    order: 'id',
    filters: { type: { column: 'type' } },
    view: plainView([]),
    key: { column: 'id', numeric: true },
  },
  segment_members: {
    from: 'SELECT segment_id, person AS cio_id, added_at FROM segment_members',
    order: 'segment_id, added_at, cio_id',
    filters: {
      segment_id: { column: 'segment_id', numeric: true },
      segment: { column: 'segment_id', numeric: true },
      cio_id: { column: 'cio_id', person: true },
      person: { column: 'cio_id', person: true },
    },
    view: plainView([]),
    key: { column: "segment_id || ':' || cio_id" },
  },
  suppressions: {
    from: 'SELECT kind, value AS identifier, cio_id, suppressed_at FROM suppressions',
    order: 'suppressed_at, kind, identifier',
    filters: { kind: { column: 'kind' }, cio_id: { column: 'cio_id' } },
    view: plainView([]),
    key: { column: 'identifier' },
  },
  deliveries: {
    from: 'SELECT * FROM deliveries',
    order: 'created_at, id',
    filters: { person, channel: { column: 'channel' } },
    view: plainView([]),
    key: { column: 'id' },
  },
  unsubscribes: {
    from: 'SELECT * FROM unsubscribes',
    order: 'seq',
    filters: { delivery_id: { column: 'delivery_id' }, person },
    // `unsubscribed` is false for a resubscribe ({"unsubscribe": false}).
    view: plainView([], ['unsubscribed']),
    key: { column: 'seq', numeric: true },
  },
  objects: {
    from: 'SELECT * FROM objects',
    order: 'object_type_id, object_id',
    filters: { object_type_id: { column: 'object_type_id' }, object_id: { column: 'object_id' } },
    view: plainView(['attributes']),
    key: { column: 'cio_object_id' },
  },
  relationships: {
    from: `SELECT r.seq, r.person, r.anonymous_id, r.cio_object_id, o.object_type_id, o.object_id, r.attributes,
      r.created_at, r.updated_at FROM relationships r JOIN objects o ON o.cio_object_id = r.cio_object_id`,
    order: 'seq',
    filters: {
      person,
      anonymous_id: { column: 'anonymous_id' },
      cio_object_id: { column: 'cio_object_id' },
      object_type_id: { column: 'object_type_id' },
      object_id: { column: 'object_id' },
    },
    view: plainView(['attributes']),
    key: { column: 'seq', numeric: true },
  },
  batches: {
    from: 'SELECT * FROM batches',
    order: 'seq',
    filters: { status: { column: 'status', numeric: true } },
    view: plainView(['failed']),
    key: { column: 'seq', numeric: true },
  },
  merges: {
    from: 'SELECT * FROM merges',
    order: 'seq',
    filters: { outcome: { column: 'outcome' } },
    view: plainView(['primary_ref', 'secondary_ref']),
    key: { column: 'seq', numeric: true },
  },
  dropped: {
    from: 'SELECT * FROM dropped',
    order: 'seq',
    filters: { reason: { column: 'reason' }, operation: { column: 'operation' } },
    view: plainView(['detail']),
    key: { column: 'seq', numeric: true },
  },
};

export const COLLECTION_NAMES: readonly string[] = Object.keys(COLLECTIONS);
