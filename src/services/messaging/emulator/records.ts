/**
 * Records of the emulated tracking workspace: what the database keeps and what the seed builds. Times are unix
 * seconds, like the upstream's own timestamps; JSON-valued fields are plain objects here and text in SQLite.
 */

/** Workspace setting: which identifiers people have (email is case-insensitive when it is one). */
export type IdentifyBy = 'id' | 'email' | 'email_or_id';

export type Region = 'us' | 'eu';

/** How a request names a person: by id, by email, or by the internal cio_id (without its `cio_` prefix). */
export type PersonKind = 'id' | 'email' | 'cio_id';

export interface PersonRef {
  kind: PersonKind;
  value: string;
}

export type JsonObject = Record<string, unknown>;

export interface PersonRecord {
  cioId: string;
  id: string | null;
  email: string | null;
  attributes: JsonObject;
  /**
   * When each attribute was last set or removed (the update's `_timestamp` / `timestamp`, else its receipt
   * time), so an update older than the last one to touch an attribute leaves it alone, as upstream.
   */
  attributeTimes: Record<string, number>;
  createdAt: number;
  updatedAt: number;
}

export interface DeviceRecord {
  token: string;
  person: string;
  platform: string;
  lastUsed: number | null;
  attributes: JsonObject;
  createdAt: number;
  updatedAt: number;
}

export type EventType = 'event' | 'page' | 'screen';

export interface EventRecord {
  seq: number;
  /** cio_id of the person; null while the event is anonymous. */
  person: string | null;
  anonymousId: string | null;
  name: string;
  type: EventType;
  /** The caller's dedupe id (a ULID upstream), if any. */
  id: string | null;
  timestamp: number;
  data: JsonObject;
  /** An anonymous event without anonymous_id, addressed by data.recipient. */
  invite: boolean;
  receivedAt: number;
  origin: string;
}

export type SegmentType = 'manual' | 'data_driven';

export interface SegmentRecord {
  id: number;
  name: string;
  type: SegmentType;
  description: string;
  createdAt: number;
}

export const DELIVERY_CHANNELS = ['email', 'push', 'sms', 'in_app', 'slack', 'webhook'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

export interface DeliveryRecord {
  id: string;
  person: string | null;
  channel: DeliveryChannel;
  recipient: string | null;
  createdAt: number;
}

export interface ObjectTypeRecord {
  id: string;
  name: string;
}

/** An object: by type and object_id, or by the internal cio_object_id. */
export type ObjectRef = { object_type_id: string; object_id: string } | { cio_object_id: string };

export interface ObjectRecord {
  cioObjectId: string;
  objectTypeId: string;
  objectId: string;
  attributes: JsonObject;
  createdAt: number;
  updatedAt: number;
}

export interface RelationshipRecord {
  person: string;
  cioObjectId: string;
  attributes: JsonObject;
  createdAt: number;
}

/** Why an accepted request changed nothing; kept for inspection, since the upstream answers 200 anyway. */
export type DropReason =
  | 'suppressed'
  | 'cio_id_not_found'
  | 'cio_object_id_not_found'
  | 'update_only_unknown_person'
  | 'attribute_update_failure'
  | 'duplicate_event_id'
  | 'person_not_found'
  | 'stale_attributes';

/**
 * What an accepted write did to the workspace: applied, or dropped for a reason. A domain value, not a result
 * shape: a drop is no error (the upstream answers 200 either way), it is what a form submission records as its
 * outcome and what the `dropped` collection shows.
 */
export type Outcome = { applied: true } | { applied: false; reason: DropReason; detail?: string };

export interface SeedPerson {
  cioId: string;
  id: string;
  email: string;
  attributes: JsonObject;
  createdAt: number;
}

export interface SeedEvent {
  person: string | null;
  anonymousId: string | null;
  name: string;
  type: EventType;
  timestamp: number;
  data: JsonObject;
}

export interface MessagingSeedData {
  seed: number;
  scale: number;
  people: SeedPerson[];
  devices: Omit<DeviceRecord, 'updatedAt'>[];
  events: SeedEvent[];
  segments: SegmentRecord[];
  segmentMembers: { segmentId: number; person: string; addedAt: number }[];
  deliveries: DeliveryRecord[];
  objectTypes: ObjectTypeRecord[];
  objects: Omit<ObjectRecord, 'updatedAt'>[];
  relationships: RelationshipRecord[];
}
