/**
 * Applies one Track v2 entity operation (already validated by the shared schema) to the store, for both
 * /api/v2/entity and each item of /api/v2/batch. Checks the schema cannot make, because they depend on the
 * workspace (which identifiers it uses, which object types exist), come back as field errors; everything the
 * upstream silently accepts (suppressed people, unknown cio_ids) is applied as a drop inside the store.
 */
import type { z } from 'zod';
import type { entityOperation } from '../schemas.js';
import { bareCioId, looksLikeEmail, refFromIdentifiers, usesKind } from './identifiers.js';
import type { FieldIssue } from './issues.js';
import type { JsonObject, ObjectRef, PersonRef } from './records.js';
import type { IdentifyInput, MessagingStore, RelationshipInput } from './store.js';

export type EntityOperation = z.infer<typeof entityOperation>;

export type OpError = FieldIssue;

/** E.164: a plus and up to 15 digits, no leading zero. */
const E164 = /^\+[1-9]\d{1,14}$/;

type PersonIdentifiers = { id?: string | undefined; email?: string | undefined; cio_id?: string | undefined };

/** JSON dot notation into the subscription preferences, e.g. `cio_subscription_preferences.topics.topic_2`. */
const PREFERENCES_PATH = 'cio_subscription_preferences.';

/**
 * The upstream's reading of `unsubscribed`: "any case of true (i.e. TRUE, true, tRUe, etc.), 1, or "1" to
 * represent unsubscribed. Any other value is considered 'false'".
 */
export function isUnsubscribedValue(value: unknown): boolean {
  if (value === true || value === 1) return true;
  return typeof value === 'string' && (value.toLowerCase() === 'true' || value === '1');
}

/** Splits a person's attributes into the upstream's reserved fields and the plain attributes. */
export function splitPersonAttributes(raw: JsonObject): Omit<IdentifyInput, 'ref' | 'relationships'> {
  const attributes: JsonObject = {};
  const out: Omit<IdentifyInput, 'ref' | 'relationships'> = { attributes };
  for (const [key, value] of Object.entries(raw)) {
    const path = key.startsWith(PREFERENCES_PATH) ? key.slice(PREFERENCES_PATH.length).split('.') : [];
    if (path.length > 0 && path.every((segment) => segment !== '')) {
      out.preferenceChanges = [...(out.preferenceChanges ?? []), { path, value }];
      continue;
    }
    switch (key) {
      case 'id':
        if (typeof value === 'string' || typeof value === 'number') out.id = String(value);
        break;
      case 'email':
        if (typeof value === 'string') out.email = value;
        break;
      case 'anonymous_id':
        // Kept as an attribute too: that is how the upstream ties later anonymous events to the person.
        if (typeof value === 'string') out.anonymousId = value;
        attributes[key] = value;
        break;
      case 'unsubscribed':
        // Empty (or null in v2) still removes the attribute, as for any attribute; absent means subscribed too.
        attributes[key] = value === '' || value === null ? value : isUnsubscribedValue(value);
        break;
      case 'created_at':
        if (typeof value === 'number') out.createdAt = value;
        break;
      case '_update':
        out.updateOnly = value === true;
        break;
      case '_timestamp':
        if (typeof value === 'number') out.timestamp = value;
        break;
      case 'cio_relationships':
        break;
      case 'cio_subscription_preferences':
        // The whole object replaces the stored preferences; dot notation is the upstream's way to keep others.
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
          out.subscriptionPreferences = value as JsonObject;
        }
        break;
      default:
        attributes[key] = value;
    }
  }
  return out;
}

function checkPersonIdentifiers(
  store: MessagingStore,
  identifiers: PersonIdentifiers & { phone?: string | undefined },
  field: string,
): PersonRef | OpError {
  if (identifiers.phone !== undefined) {
    const message = E164.test(identifiers.phone)
      ? 'phone is not an identifier in this workspace'
      : 'must be a phone number in E.164 format (a + and up to 15 digits)';
    return { field: `${field}.phone`, reason: 'invalid', message };
  }
  const ref = refFromIdentifiers(identifiers);
  if (!ref) return { field, reason: 'required', message: 'give one of id, email or cio_id' };
  const at = `${field}.${ref.kind}`;
  if (ref.value === '') return { field: at, reason: 'required', message: 'must not be empty' };
  if (!usesKind(store.identifyBy, ref.kind)) {
    return { field: at, reason: 'invalid', message: `${ref.kind} is not an identifier in this workspace` };
  }
  if (ref.kind === 'email' && !looksLikeEmail(ref.value)) {
    return { field: at, reason: 'invalid', message: 'must be an email address' };
  }
  return ref;
}

function isError(value: PersonRef | OpError | ObjectRef): value is OpError {
  return 'reason' in value;
}

function checkObjectIdentifiers(
  store: MessagingStore,
  identifiers: ObjectRef,
  field: string,
): ObjectRef | OpError {
  if ('cio_object_id' in identifiers) return identifiers;
  if (!store.objectTypeExists(identifiers.object_type_id)) {
    return {
      field: `${field}.object_type_id`,
      reason: 'invalid',
      message: `object type ${identifiers.object_type_id} does not exist in this workspace`,
    };
  }
  if (identifiers.object_id === '') {
    return { field: `${field}.object_id`, reason: 'required', message: 'must not be empty' };
  }
  return identifiers;
}

/** Objects of a person's cio_relationships, checked; the first problem stops the operation. */
export function checkObjectRelationships(
  store: MessagingStore,
  relationships: readonly {
    identifiers: ObjectRef;
    relationship_attributes?: Record<string, unknown> | undefined;
  }[],
  field: string,
): RelationshipInput[] | OpError {
  const out: RelationshipInput[] = [];
  for (const [i, rel] of relationships.entries()) {
    const object = checkObjectIdentifiers(store, rel.identifiers, `${field}.${i}.identifiers`);
    if (isError(object)) return object;
    out.push({ object, attributes: rel.relationship_attributes });
  }
  return out;
}

function trimmedName(name: string): string | OpError {
  const trimmed = name.trim();
  return trimmed === '' ? { field: 'name', reason: 'required', message: 'must not be blank' } : trimmed;
}

/** Applies the operation; returns the problems that stopped it (none when it was applied or dropped). */
export function applyOperation(store: MessagingStore, op: EntityOperation, now: number): OpError[] {
  if (op.type === 'delivery') {
    const { device_token, ...rest } = op.attributes;
    store.recordMetric(
      {
        deliveryId: op.identifiers.id,
        metric: op.name,
        timestamp: op.timestamp,
        fields: { device_token, ...rest },
        source: 'v2_delivery',
      },
      now,
    );
    return [];
  }
  if (op.type === 'object') return applyObjectOperation(store, op, now);

  if (op.action === 'merge') {
    const primary = checkPersonIdentifiers(store, op.primary, 'primary');
    if (isError(primary)) return [primary];
    const secondary = checkPersonIdentifiers(store, op.secondary, 'secondary');
    if (isError(secondary)) return [secondary];
    store.merge(primary, secondary, now, 'v2');
    return [];
  }

  const ref = checkPersonIdentifiers(store, op.identifiers, 'identifiers');
  if (isError(ref)) return [ref];
  switch (op.action) {
    case 'identify': {
      const relationships = op.cio_relationships
        ? checkObjectRelationships(store, op.cio_relationships, 'cio_relationships')
        : undefined;
      if (relationships && !Array.isArray(relationships)) return [relationships];
      const split = splitPersonAttributes(op.attributes ?? {});
      store.identify(
        {
          ref,
          ...split,
          // v2 carries the update time beside the attributes rather than as `_timestamp` among them.
          timestamp: op.timestamp ?? split.timestamp,
          ...(relationships ? { relationships: { action: 'add' as const, items: relationships } } : {}),
        },
        now,
      );
      return [];
    }
    case 'delete':
      store.deletePerson(ref);
      return [];
    case 'event':
    case 'screen':
    case 'page': {
      const name = trimmedName(op.name);
      if (typeof name !== 'string') return [name];
      store.trackEvent(
        ref,
        { name, type: op.action, id: op.id, timestamp: op.timestamp, data: op.attributes ?? {} },
        now,
        'v2',
      );
      return [];
    }
    case 'add_relationships':
    case 'delete_relationships': {
      const relationships = checkObjectRelationships(store, op.cio_relationships, 'cio_relationships');
      if (!Array.isArray(relationships)) return [relationships];
      store.transaction(() => {
        for (const rel of relationships) {
          if (op.action === 'add_relationships')
            store.relate(ref, rel.object, rel.attributes, now, 'add_relationships');
          else store.unrelate(ref, rel.object);
        }
      });
      return [];
    }
    case 'add_device':
      store.upsertDevice(
        ref,
        {
          token: op.device.token,
          platform: op.device.platform,
          lastUsed: op.device.last_used,
          attributes: op.device.attributes,
        },
        now,
      );
      return [];
    case 'delete_device':
      store.deleteDevice(ref, op.device.token);
      return [];
    case 'suppress':
      store.suppress(ref, now);
      return [];
    case 'unsuppress':
      store.unsuppress(ref);
      return [];
  }
}

type ObjectOperation = Extract<EntityOperation, { type: 'object' }>;

function applyObjectOperation(store: MessagingStore, op: ObjectOperation, now: number): OpError[] {
  const object = checkObjectIdentifiers(store, op.identifiers, 'identifiers');
  if (isError(object)) return [object];
  switch (op.action) {
    case 'identify': {
      const people: { ref: PersonRef; attributes: JsonObject | undefined }[] = [];
      for (const [i, rel] of (op.cio_relationships ?? []).entries()) {
        const ref = checkPersonIdentifiers(store, rel.identifiers, `cio_relationships.${i}.identifiers`);
        if (isError(ref)) return [ref];
        people.push({ ref, attributes: rel.relationship_attributes });
      }
      store.transaction(() => {
        const identified = store.identifyObject(object, op.attributes ?? {}, now);
        if (!identified.applied || !identified.object) return;
        const byCio: ObjectRef = { cio_object_id: identified.object.cioObjectId };
        for (const p of people) store.relate(p.ref, byCio, p.attributes, now, 'object_identify');
      });
      return [];
    }
    case 'identify_anonymous':
      store.transaction(() => {
        const identified = store.identifyObject(object, op.attributes ?? {}, now);
        if (!identified.applied || !identified.object) return;
        const byCio: ObjectRef = { cio_object_id: identified.object.cioObjectId };
        // The upstream's own example names the visitor at the top level rather than in cio_relationships.
        if (op.anonymous_id !== undefined) store.relateAnonymous(op.anonymous_id, byCio, undefined, now);
        for (const rel of op.cio_relationships ?? []) {
          store.relateAnonymous(rel.identifiers.anonymous_id, byCio, rel.relationship_attributes, now);
        }
      });
      return [];
    case 'delete':
      store.deleteObject(object);
      return [];
    case 'add_relationships':
    case 'delete_relationships': {
      const people: { ref: PersonRef; attributes: JsonObject | undefined }[] = [];
      for (const [i, rel] of op.cio_relationships.entries()) {
        const ref = checkPersonIdentifiers(store, rel.identifiers, `cio_relationships.${i}.identifiers`);
        if (isError(ref)) return [ref];
        people.push({ ref, attributes: rel.relationship_attributes });
      }
      store.transaction(() => {
        for (const p of people) {
          if (op.action === 'add_relationships')
            store.relate(p.ref, object, p.attributes, now, 'add_relationships');
          else store.unrelate(p.ref, object);
        }
      });
      return [];
    }
  }
}

/** A merge body's person reference, checked against the workspace's identifiers (v1 merge_customers). */
export function mergeRef(
  store: MessagingStore,
  identifiers: PersonIdentifiers,
  field: string,
): PersonRef | string {
  const checked = checkPersonIdentifiers(store, identifiers, field);
  if (isError(checked)) return `${checked.field}: ${checked.message}`;
  return checked.kind === 'cio_id' ? { kind: 'cio_id', value: bareCioId(checked.value) } : checked;
}
