/**
 * The two writes that span a person's whole profile: identify (identifiers, attributes in update order,
 * subscription preferences, the visitor's anonymous history, object relationships) and merge (moves events,
 * devices, manual segment memberships and deliveries to the primary person). Both follow the upstream's rules,
 * where a request that must not change anything is still a 200: it comes back as a dropped Outcome.
 */
import { type SqliteDatabase, writeTransaction } from '../../../../emulation/sqlite.js';
import { describeRef, identifierKinds } from '../identifiers.js';
import type { JsonObject, ObjectRef, Outcome, PersonRecord, PersonRef } from '../records.js';
import { isObject, mergeAttributes, withPath } from './attributes.js';
import type { DeliveriesState } from './deliveries.js';
import type { DevicesState } from './devices.js';
import type { EventsState } from './events.js';
import type { MergeOutcome, RequestHistory } from './history.js';
import type { ObjectsState } from './objects.js';
import type { PeopleState } from './people.js';
import type { SegmentsState } from './segments.js';

export interface RelationshipInput {
  object: ObjectRef;
  attributes?: JsonObject | undefined;
}

export interface IdentifyInput {
  /** Who the request names: the path identifier in v1, `identifiers` in v2, the form's id or email. */
  ref: PersonRef;
  /** `id` and `email` from the body: identifiers when the workspace uses them, plain fields otherwise. */
  id?: string | undefined;
  email?: string | undefined;
  /** Plain attributes, including `anonymous_id` and a normalised `unsubscribed`, which are attributes upstream. */
  attributes: JsonObject;
  createdAt?: number | undefined;
  updateOnly?: boolean | undefined;
  /** When the update happened (`_timestamp` in v1, `timestamp` in v2); the receipt time when absent. */
  timestamp?: number | undefined;
  /** Folds in this visitor's earlier anonymous events and relationships. */
  anonymousId?: string | undefined;
  /** The whole `cio_subscription_preferences` object, which replaces the stored one. */
  subscriptionPreferences?: JsonObject | undefined;
  /** Dot-notation changes inside the preferences (path below `cio_subscription_preferences`), kept in order. */
  preferenceChanges?: { path: string[]; value: unknown }[] | undefined;
  relationships?: { action: 'add' | 'delete'; items: RelationshipInput[] } | undefined;
}

/** The other states a profile write touches. */
export interface ProfileParts {
  people: PeopleState;
  events: EventsState;
  devices: DevicesState;
  segments: SegmentsState;
  deliveries: DeliveriesState;
  objects: ObjectsState;
  history: RequestHistory;
}

export class ProfilesState {
  readonly #db: SqliteDatabase;
  readonly #people: PeopleState;
  readonly #events: EventsState;
  readonly #devices: DevicesState;
  readonly #segments: SegmentsState;
  readonly #deliveries: DeliveriesState;
  readonly #objects: ObjectsState;
  readonly #history: RequestHistory;

  constructor(db: SqliteDatabase, parts: ProfileParts) {
    this.#db = db;
    this.#people = parts.people;
    this.#events = parts.events;
    this.#devices = parts.devices;
    this.#segments = parts.segments;
    this.#deliveries = parts.deliveries;
    this.#objects = parts.objects;
    this.#history = parts.history;
  }

  /**
   * Add or update a person, following the upstream's identify rules: the path identifier finds the person; a
   * body identifier that belongs to nobody is added; one that belongs to someone else (or would replace an
   * identifier already set, which needs the cio_ form) is an "Attribute Update Failure": 200, nothing changes.
   */
  identify(input: IdentifyInput, now: number, operation = 'identify'): Outcome {
    return writeTransaction(this.#db, () => {
      const kinds = identifierKinds(this.#people.identifyBy);
      const bodyIdents: PersonRef[] = [];
      if (input.id !== undefined && input.id !== '' && kinds.includes('id')) {
        bodyIdents.push({ kind: 'id', value: input.id });
      }
      if (input.email !== undefined && input.email !== '' && kinds.includes('email')) {
        bodyIdents.push({ kind: 'email', value: input.email });
      }
      const named = input.ref.kind === 'cio_id' ? bodyIdents : [input.ref, ...bodyIdents];
      const blocked = named.find((ref) => this.#people.isSuppressed(ref));
      if (blocked)
        return this.#history.drop(operation, 'suppressed', now, { identifier: describeRef(blocked) });
      const failure = (message: string) =>
        this.#history.drop(operation, 'attribute_update_failure', now, {
          identifier: describeRef(input.ref),
          ...(input.id === undefined ? {} : { id: input.id }),
          ...(input.email === undefined ? {} : { email: input.email }),
          message,
        });

      let target: PersonRecord | undefined;
      const assign: PersonRef[] = [];
      if (input.ref.kind === 'cio_id') {
        target = this.#people.findPerson(input.ref);
        if (!target)
          return this.#history.drop(operation, 'cio_id_not_found', now, {
            identifier: describeRef(input.ref),
          });
        for (const ref of bodyIdents) {
          const owner = this.#people.findPerson(ref);
          if (owner && owner.cioId !== target.cioId)
            return failure(`${describeRef(ref)} belongs to another person`);
          if (!owner) assign.push(ref);
        }
      } else {
        const pathPerson = this.#people.findPerson(input.ref);
        if (pathPerson) {
          for (const ref of bodyIdents) {
            const owner = this.#people.findPerson(ref);
            if (owner && owner.cioId !== pathPerson.cioId) {
              return failure(`${describeRef(ref)} belongs to another person`);
            }
            if (owner) continue;
            const current = ref.kind === 'id' ? pathPerson.id : pathPerson.email;
            if (current !== null) {
              return failure(`changing a person's ${ref.kind} needs the cio_<cio_id> identifier in the path`);
            }
            assign.push(ref);
          }
          target = pathPerson;
        } else {
          const owners = new Map<string, PersonRecord>();
          for (const ref of bodyIdents) {
            const owner = this.#people.findPerson(ref);
            if (owner) owners.set(owner.cioId, owner);
          }
          if (owners.size > 1) return failure('the identifiers in the body belong to different people');
          const [owner] = owners.values();
          if (owner) {
            // Upstream: "updates the person and assigns them the identifier in the path".
            target = owner;
            assign.push(input.ref);
          } else {
            if (input.updateOnly) {
              return this.#history.drop(operation, 'update_only_unknown_person', now, {
                identifier: describeRef(input.ref),
              });
            }
            target = this.#people.create(input.ref, now);
            // The path identifier wins over a body identifier of the same kind.
            assign.push(...bodyIdents.filter((ref) => ref.kind !== input.ref.kind));
          }
        }
      }

      for (const ref of assign) {
        if (ref.kind === 'id') target.id = ref.value;
        else if (ref.kind === 'email') target.email = ref.value;
      }
      // Fields that are not identifiers in this workspace are plain fields of the profile.
      if (input.email !== undefined && !kinds.includes('email'))
        target.email = input.email === '' ? null : input.email;
      if (input.id !== undefined && !kinds.includes('id')) target.id = input.id === '' ? null : input.id;

      // Each attribute keeps the time of the last update that set it; an older update leaves it alone.
      const at = input.timestamp ?? now;
      const times = { ...target.attributeTimes };
      const stale: string[] = [];
      const isCurrent = (name: string): boolean => {
        const last = times[name];
        if (last !== undefined && last > at) {
          stale.push(name);
          return false;
        }
        times[name] = at;
        return true;
      };
      const changes: JsonObject = {};
      for (const [name, value] of Object.entries(input.attributes)) {
        if (isCurrent(name)) changes[name] = value;
      }
      let attributes = mergeAttributes(target.attributes, changes);
      // The preferences are one attribute for ordering, whether replaced whole or changed by dot notation.
      if (
        (input.subscriptionPreferences !== undefined || input.preferenceChanges !== undefined) &&
        isCurrent('cio_subscription_preferences')
      ) {
        const stored = attributes.cio_subscription_preferences;
        let prefs = input.subscriptionPreferences ?? (isObject(stored) ? stored : {});
        for (const change of input.preferenceChanges ?? [])
          prefs = withPath(prefs, change.path, change.value);
        attributes = { ...attributes, cio_subscription_preferences: prefs };
      }
      if (input.createdAt !== undefined && isCurrent('created_at')) {
        // created_at is both the profile's creation time and an attribute people see and segment on.
        target.createdAt = input.createdAt;
        attributes = { ...attributes, created_at: input.createdAt };
      }
      target.attributes = attributes;
      target.attributeTimes = times;
      target.updatedAt = now;
      this.#people.save(target);
      if (stale.length > 0) {
        // The rest of the update applied; the record says which attributes a later update had already set.
        this.#history.drop(operation, 'stale_attributes', now, {
          identifier: describeRef(input.ref),
          timestamp: at,
          attributes: stale,
        });
      }

      if (input.anonymousId !== undefined && input.anonymousId !== '') {
        this.#events.foldAnonymous(target.cioId, input.anonymousId, now);
        this.#objects.claimAnonymous(target.cioId, input.anonymousId, now);
      }
      if (input.relationships) {
        const personRef: PersonRef = { kind: 'cio_id', value: target.cioId };
        for (const item of input.relationships.items) {
          if (input.relationships.action === 'add')
            this.#objects.relate(personRef, item.object, item.attributes, now, operation);
          else this.#objects.unrelate(personRef, item.object);
        }
      }
      return { applied: true };
    });
  }

  /**
   * Folds `secondary` into `primary` and deletes it. Moves what the upstream lists: attributes the primary lacks
   * (or has empty), the last 30 days of events, devices, manual segment memberships and delivery history; the
   * primary also takes an id or email it lacks. Relationships are not on the list and go with the secondary.
   */
  merge(primary: PersonRef, secondary: PersonRef, now: number, origin: string): MergeOutcome {
    return writeTransaction(this.#db, () => {
      const p = this.#people.findPerson(primary);
      const s = p ? this.#people.findPerson(secondary) : undefined;
      let outcome: MergeOutcome;
      if (!p) outcome = 'primary_not_found';
      else if (!s) outcome = 'secondary_not_found';
      else if (p.cioId === s.cioId) outcome = 'same_person';
      else {
        outcome = 'merged';
        const attributes = { ...p.attributes };
        const attributeTimes = { ...p.attributeTimes };
        for (const [key, value] of Object.entries(s.attributes)) {
          const current = attributes[key];
          if (current === undefined || current === null || current === '') {
            attributes[key] = value;
            const time = s.attributeTimes[key];
            if (time === undefined) Reflect.deleteProperty(attributeTimes, key);
            else attributeTimes[key] = time;
          }
        }
        this.#events.moveRecent(p.cioId, s.cioId, now);
        this.#devices.moveAll(p.cioId, s.cioId);
        this.#segments.copyMemberships(p.cioId, s.cioId);
        this.#deliveries.moveAll(p.cioId, s.cioId);
        this.#people.deleteByCioId(s.cioId);
        this.#people.save({
          ...p,
          id: p.id ?? s.id,
          email: p.email ?? s.email,
          attributes,
          attributeTimes,
          updatedAt: now,
        });
      }
      this.#history.recordMerge(
        {
          primary,
          secondary,
          primaryCioId: p?.cioId ?? null,
          secondaryCioId: s?.cioId ?? null,
          outcome,
          origin,
        },
        now,
      );
      return outcome;
    });
  }
}
