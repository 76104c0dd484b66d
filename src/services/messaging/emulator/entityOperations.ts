/**
 * Applies one Track v2 entity operation (already validated by the shared schema) to the database, for both
 * /api/v2/entity and each item of /api/v2/batch. Checks the schema cannot make, because they depend on the
 * workspace (which identifiers it uses, which object types exist), come back as field errors; everything the
 * upstream silently accepts (suppressed people, unknown cio_ids) is applied as a drop inside the database.
 */
import type { z } from 'zod';
import { err, ok, type Result } from '../../../emulation/result.js';
import type { entityOperation } from '../schemas.js';
import type { MessagingDatabase } from './database.js';
import { bareCioId, looksLikeEmail, refFromIdentifiers, usesKind } from './identifiers.js';
import type { FieldIssue } from './issues.js';
import type { JsonObject, ObjectRef, PersonRef } from './records.js';
import type { IdentifyInput, RelationshipInput } from './state/profiles.js';

export type EntityOperation = z.infer<typeof entityOperation>;

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
  db: MessagingDatabase,
  identifiers: PersonIdentifiers & { phone?: string | undefined },
  field: string,
): Result<PersonRef, FieldIssue> {
  if (identifiers.phone !== undefined) {
    const message = E164.test(identifiers.phone)
      ? 'phone is not an identifier in this workspace'
      : 'must be a phone number in E.164 format (a + and up to 15 digits)';
    return err({ field: `${field}.phone`, reason: 'invalid', message });
  }
  const ref = refFromIdentifiers(identifiers);
  if (!ref) return err({ field, reason: 'required', message: 'give one of id, email or cio_id' });
  const at = `${field}.${ref.kind}`;
  if (ref.value === '') return err({ field: at, reason: 'required', message: 'must not be empty' });
  if (!usesKind(db.identifyBy, ref.kind)) {
    return err({
      field: at,
      reason: 'invalid',
      message: `${ref.kind} is not an identifier in this workspace`,
    });
  }
  if (ref.kind === 'email' && !looksLikeEmail(ref.value)) {
    return err({ field: at, reason: 'invalid', message: 'must be an email address' });
  }
  return ok(ref);
}

function checkObjectIdentifiers(
  db: MessagingDatabase,
  identifiers: ObjectRef,
  field: string,
): Result<ObjectRef, FieldIssue> {
  if ('cio_object_id' in identifiers) return ok(identifiers);
  if (!db.objects.objectTypeExists(identifiers.object_type_id)) {
    return err({
      field: `${field}.object_type_id`,
      reason: 'invalid',
      message: `object type ${identifiers.object_type_id} does not exist in this workspace`,
    });
  }
  if (identifiers.object_id === '') {
    return err({ field: `${field}.object_id`, reason: 'required', message: 'must not be empty' });
  }
  return ok(identifiers);
}

/** Objects of a person's cio_relationships, checked; the first problem stops the operation. */
export function checkObjectRelationships(
  db: MessagingDatabase,
  relationships: readonly {
    identifiers: ObjectRef;
    relationship_attributes?: Record<string, unknown> | undefined;
  }[],
  field: string,
): Result<RelationshipInput[], FieldIssue> {
  const out: RelationshipInput[] = [];
  for (const [i, rel] of relationships.entries()) {
    const object = checkObjectIdentifiers(db, rel.identifiers, `${field}.${i}.identifiers`);
    if (!object.ok) return object;
    out.push({ object: object.value, attributes: rel.relationship_attributes });
  }
  return ok(out);
}

/** The people of an object operation's cio_relationships, checked; the first problem stops the operation. */
function checkRelatedPeople(
  db: MessagingDatabase,
  relationships: readonly {
    identifiers: PersonIdentifiers & { phone?: string | undefined };
    relationship_attributes?: Record<string, unknown> | undefined;
  }[],
): Result<{ ref: PersonRef; attributes: JsonObject | undefined }[], FieldIssue> {
  const people: { ref: PersonRef; attributes: JsonObject | undefined }[] = [];
  for (const [i, rel] of relationships.entries()) {
    const ref = checkPersonIdentifiers(db, rel.identifiers, `cio_relationships.${i}.identifiers`);
    if (!ref.ok) return ref;
    people.push({ ref: ref.value, attributes: rel.relationship_attributes });
  }
  return ok(people);
}

/** Applies the operation; returns the problems that stopped it (none when it was applied or dropped). */
export function applyOperation(db: MessagingDatabase, op: EntityOperation, now: number): FieldIssue[] {
  if (op.type === 'delivery') {
    const { device_token, ...rest } = op.attributes;
    db.deliveries.recordMetric(
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
  if (op.type === 'object') return applyObjectOperation(db, op, now);

  if (op.action === 'merge') {
    const primary = checkPersonIdentifiers(db, op.primary, 'primary');
    if (!primary.ok) return [primary.error];
    const secondary = checkPersonIdentifiers(db, op.secondary, 'secondary');
    if (!secondary.ok) return [secondary.error];
    db.profiles.merge(primary.value, secondary.value, now, 'v2');
    return [];
  }

  const checked = checkPersonIdentifiers(db, op.identifiers, 'identifiers');
  if (!checked.ok) return [checked.error];
  const ref = checked.value;
  switch (op.action) {
    case 'identify': {
      const relationships = op.cio_relationships
        ? checkObjectRelationships(db, op.cio_relationships, 'cio_relationships')
        : undefined;
      if (relationships && !relationships.ok) return [relationships.error];
      const split = splitPersonAttributes(op.attributes ?? {});
      db.profiles.identify(
        {
          ref,
          ...split,
          // v2 carries the update time beside the attributes rather than as `_timestamp` among them.
          timestamp: op.timestamp ?? split.timestamp,
          ...(relationships ? { relationships: { action: 'add' as const, items: relationships.value } } : {}),
        },
        now,
      );
      return [];
    }
    case 'delete':
      db.people.deletePerson(ref);
      return [];
    case 'event':
    case 'screen':
    case 'page': {
      const name = op.name.trim();
      if (name === '') return [{ field: 'name', reason: 'required', message: 'must not be blank' }];
      db.events.track(
        ref,
        { name, type: op.action, id: op.id, timestamp: op.timestamp, data: op.attributes ?? {} },
        now,
        'v2',
      );
      return [];
    }
    case 'add_relationships':
    case 'delete_relationships': {
      const relationships = checkObjectRelationships(db, op.cio_relationships, 'cio_relationships');
      if (!relationships.ok) return [relationships.error];
      db.transaction(() => {
        for (const rel of relationships.value) {
          if (op.action === 'add_relationships')
            db.objects.relate(ref, rel.object, rel.attributes, now, 'add_relationships');
          else db.objects.unrelate(ref, rel.object);
        }
      });
      return [];
    }
    case 'add_device':
      db.devices.upsert(
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
      db.devices.delete(ref, op.device.token);
      return [];
    case 'suppress':
      db.people.suppress(ref, now);
      return [];
    case 'unsuppress':
      db.people.unsuppress(ref);
      return [];
  }
}

type ObjectOperation = Extract<EntityOperation, { type: 'object' }>;

function applyObjectOperation(db: MessagingDatabase, op: ObjectOperation, now: number): FieldIssue[] {
  const checked = checkObjectIdentifiers(db, op.identifiers, 'identifiers');
  if (!checked.ok) return [checked.error];
  const object = checked.value;
  switch (op.action) {
    case 'identify': {
      const people = checkRelatedPeople(db, op.cio_relationships ?? []);
      if (!people.ok) return [people.error];
      db.transaction(() => {
        const identified = db.objects.identify(object, op.attributes ?? {}, now);
        if (!identified.ok) return;
        const byCio: ObjectRef = { cio_object_id: identified.value.cioObjectId };
        for (const p of people.value) db.objects.relate(p.ref, byCio, p.attributes, now, 'object_identify');
      });
      return [];
    }
    case 'identify_anonymous':
      db.transaction(() => {
        const identified = db.objects.identify(object, op.attributes ?? {}, now);
        if (!identified.ok) return;
        const byCio: ObjectRef = { cio_object_id: identified.value.cioObjectId };
        // The upstream's own example names the visitor at the top level rather than in cio_relationships.
        if (op.anonymous_id !== undefined) db.objects.relateAnonymous(op.anonymous_id, byCio, undefined, now);
        for (const rel of op.cio_relationships ?? []) {
          db.objects.relateAnonymous(rel.identifiers.anonymous_id, byCio, rel.relationship_attributes, now);
        }
      });
      return [];
    case 'delete':
      db.objects.delete(object);
      return [];
    case 'add_relationships':
    case 'delete_relationships': {
      const people = checkRelatedPeople(db, op.cio_relationships);
      if (!people.ok) return [people.error];
      db.transaction(() => {
        for (const p of people.value) {
          if (op.action === 'add_relationships')
            db.objects.relate(p.ref, object, p.attributes, now, 'add_relationships');
          else db.objects.unrelate(p.ref, object);
        }
      });
      return [];
    }
  }
}

/** A merge body's person reference, checked against the workspace's identifiers (v1 merge_customers). */
export function mergeRef(
  db: MessagingDatabase,
  identifiers: PersonIdentifiers,
  field: string,
): Result<PersonRef, string> {
  const checked = checkPersonIdentifiers(db, identifiers, field);
  if (!checked.ok) return err(`${checked.error.field}: ${checked.error.message}`);
  const ref = checked.value;
  return ok(ref.kind === 'cio_id' ? { kind: 'cio_id', value: bareCioId(ref.value) } : ref);
}
