/**
 * Deterministic seed data for the tracking emulator: the same (seed, scale, now) always gives the same people
 * (`user-<n>` with emails), devices, events, anonymous events, segments (manual 1-3, data-driven 10 and 11),
 * deliveries, object types (1 companies, 2 courses), objects and relationships. `scale` is the number of people.
 */
import { createRng, type Rng } from '../../../../emulation/rng.js';
import type {
  DeliveryRecord,
  JsonObject,
  MessagingSeedData,
  ObjectRecord,
  RelationshipRecord,
  SeedEvent,
  SeedPerson,
  SegmentRecord,
} from '../records.js';
import { cioObjectIdFor } from '../state/objects.js';
import { cioIdFor } from '../state/people.js';
import {
  CHANNELS,
  CITIES,
  COMPANIES,
  COURSES,
  EVENTS,
  FIRST_NAMES,
  LAST_NAMES,
  PLANS,
} from './vocabulary.js';

export const DEFAULT_SEED = 1;
export const DEFAULT_SCALE = 200;

export const MANUAL_SEGMENT_IDS = [1, 2, 3] as const;
export const DATA_DRIVEN_SEGMENT_IDS = [10, 11] as const;
export const COMPANY_TYPE_ID = '1';
export const COURSE_TYPE_ID = '2';

const DAY = 24 * 60 * 60;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface SeedOptions {
  seed?: number;
  scale?: number;
  now: Date;
}

function hex(rng: Rng, length: number): string {
  let out = '';
  while (out.length < length) out += rng.int(0, 0xffff).toString(16).padStart(4, '0');
  return out.slice(0, length);
}

function alphanumeric(rng: Rng, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[rng.int(0, ALPHANUMERIC.length - 1)];
  return out;
}

function eventData(rng: Rng, name: string): JsonObject {
  if (name === 'purchase')
    return { amount: rng.int(5, 500), currency: 'USD', sku: `SKU-${rng.int(100, 999)}` };
  if (name === 'added_to_cart') return { sku: `SKU-${rng.int(100, 999)}`, quantity: rng.int(1, 3) };
  if (name.startsWith('/')) return { url: `https://example.com${name}`, referrer: 'https://www.google.com/' };
  return {};
}

export function buildSeedData(options: SeedOptions): MessagingSeedData {
  const seed = options.seed ?? DEFAULT_SEED;
  const scale = options.scale ?? DEFAULT_SCALE;
  const now = Math.floor(options.now.getTime() / 1000);
  const root = createRng(seed);
  // One sub-stream per part, so growing one part never reshuffles the others.
  const [peopleRng, deviceRng, eventRng, anonRng, segmentRng, deliveryRng, objectRng] = Array.from(
    { length: 7 },
    () => root.fork(),
  ) as [Rng, Rng, Rng, Rng, Rng, Rng, Rng];

  const people: SeedPerson[] = [];
  for (let n = 1; n <= scale; n++) {
    const first = peopleRng.pick(FIRST_NAMES);
    const last = peopleRng.pick(LAST_NAMES);
    const createdAt = now - peopleRng.int(1, 730) * DAY - peopleRng.int(0, DAY - 1);
    people.push({
      cioId: cioIdFor(n),
      id: `user-${n}`,
      email: `${first}.${last}${n}@example.com`.toLowerCase(),
      attributes: {
        first_name: first,
        last_name: last,
        plan: peopleRng.weighted(PLANS),
        city: peopleRng.pick(CITIES),
        created_at: createdAt,
      },
      createdAt,
    });
  }

  const devices: MessagingSeedData['devices'] = [];
  for (const person of people) {
    const count = deviceRng.weighted([
      [0, 60],
      [1, 30],
      [2, 10],
    ] as const);
    for (let i = 0; i < count; i++) {
      const platform = deviceRng.chance(0.55) ? 'ios' : 'android';
      const createdAt = Math.max(person.createdAt, now - deviceRng.int(1, 200) * DAY);
      devices.push({
        token: platform === 'ios' ? hex(deviceRng, 64) : `fcm-${alphanumeric(deviceRng, 40)}`,
        person: person.cioId,
        platform,
        lastUsed: Math.min(now, createdAt + deviceRng.int(0, 30) * DAY),
        attributes: {
          device_os: platform === 'ios' ? `iOS ${deviceRng.int(16, 18)}` : `Android ${deviceRng.int(12, 15)}`,
          app_version: `2.${deviceRng.int(0, 9)}.${deviceRng.int(0, 9)}`,
          push_enabled: deviceRng.chance(0.8) ? 'true' : 'false',
        },
        createdAt,
      });
    }
  }

  const events: SeedEvent[] = [];
  for (const person of people) {
    const count = eventRng.int(0, 4);
    for (let i = 0; i < count; i++) {
      const [name, type] = eventRng.weighted(EVENTS.map(([n, t, w]) => [[n, t] as const, w] as const));
      events.push({
        person: person.cioId,
        anonymousId: null,
        name,
        type,
        timestamp: now - eventRng.int(0, 60 * DAY),
        data: eventData(eventRng, name),
      });
    }
  }
  // Anonymous visitors: most within the 30 days identify folds in, some older (they stay anonymous).
  const visitors = Math.max(4, Math.round(scale / 20));
  for (let v = 0; v < visitors; v++) {
    const anonymousId = `anon-${hex(anonRng, 8)}`;
    const old = anonRng.chance(0.25);
    for (let i = anonRng.int(1, 3); i > 0; i--) {
      const [name, type] = anonRng.weighted(EVENTS.map(([n, t, w]) => [[n, t] as const, w] as const));
      events.push({
        person: null,
        anonymousId,
        name,
        type,
        timestamp: old ? now - anonRng.int(31 * DAY, 45 * DAY) : now - anonRng.int(0, 29 * DAY),
        data: eventData(anonRng, name),
      });
    }
  }
  events.sort((a, b) => a.timestamp - b.timestamp);

  const segmentsCreated = now - 400 * DAY;
  const segments: SegmentRecord[] = [
    {
      id: 1,
      name: 'Newsletter subscribers',
      type: 'manual',
      description: 'Opted in to the newsletter.',
      createdAt: segmentsCreated,
    },
    {
      id: 2,
      name: 'Beta testers',
      type: 'manual',
      description: 'Hand-picked beta programme members.',
      createdAt: segmentsCreated,
    },
    {
      id: 3,
      name: 'Churn risk',
      type: 'manual',
      description: 'Flagged by the success team.',
      createdAt: segmentsCreated,
    },
    {
      id: 10,
      name: 'Pro plan',
      type: 'data_driven',
      description: 'plan is pro or enterprise',
      createdAt: segmentsCreated,
    },
    {
      id: 11,
      name: 'Recent sign-ups',
      type: 'data_driven',
      description: 'created_at within the last 30 days',
      createdAt: segmentsCreated,
    },
  ];
  const share: Record<number, number> = { 1: 0.25, 2: 0.1, 3: 0.05 };
  const segmentMembers: MessagingSeedData['segmentMembers'] = [];
  for (const segmentId of MANUAL_SEGMENT_IDS) {
    for (const person of people) {
      if (segmentRng.chance(share[segmentId] ?? 0)) {
        segmentMembers.push({ segmentId, person: person.cioId, addedAt: now - segmentRng.int(1, 300) * DAY });
      }
    }
  }

  const deliveries: DeliveryRecord[] = [];
  const deliveryCount = people.length === 0 ? 0 : Math.max(10, Math.round(scale / 4));
  const deliveryIds = new Set<string>();
  // Push deliveries go to the person's first device; a map keeps big seeds linear.
  const firstDevice = new Map<string, (typeof devices)[number]>();
  for (const d of devices) if (!firstDevice.has(d.person)) firstDevice.set(d.person, d);
  for (let i = 0; i < deliveryCount; i++) {
    const person = deliveryRng.pick(people);
    const channel = deliveryRng.weighted(CHANNELS);
    let id = `RPI${alphanumeric(deliveryRng, 25)}`;
    while (deliveryIds.has(id)) id = `RPI${alphanumeric(deliveryRng, 25)}`;
    deliveryIds.add(id);
    const device = firstDevice.get(person.cioId);
    const recipient =
      channel === 'email'
        ? person.email
        : channel === 'push'
          ? (device?.token ?? null)
          : channel === 'sms'
            ? `+1555${String(deliveryRng.int(0, 9_999_999)).padStart(7, '0')}`
            : null;
    deliveries.push({
      id,
      person: person.cioId,
      channel,
      recipient,
      createdAt: now - deliveryRng.int(60, 30 * DAY),
    });
  }
  deliveries.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));

  const objects: Omit<ObjectRecord, 'updatedAt'>[] = [];
  const companyCount = Math.max(3, Math.round(scale / 20));
  for (let i = 0; i < companyCount; i++) {
    const [slug, name, industry] = COMPANIES[i % COMPANIES.length] ?? COMPANIES[0];
    const round = Math.floor(i / COMPANIES.length);
    objects.push({
      cioObjectId: cioObjectIdFor(objects.length + 1),
      objectTypeId: COMPANY_TYPE_ID,
      objectId: round === 0 ? slug : `${slug}-${round + 1}`,
      attributes: {
        name: round === 0 ? name : `${name} ${round + 1}`,
        industry,
        seats: objectRng.int(5, 500),
      },
      createdAt: now - objectRng.int(100, 900) * DAY,
    });
  }
  const companies = objects.slice();
  for (const [slug, title, level] of COURSES) {
    objects.push({
      cioObjectId: cioObjectIdFor(objects.length + 1),
      objectTypeId: COURSE_TYPE_ID,
      objectId: slug,
      attributes: { title, level },
      createdAt: now - objectRng.int(100, 900) * DAY,
    });
  }
  const courses = objects.slice(companies.length);
  const relationships: RelationshipRecord[] = [];
  for (const person of people) {
    if (objectRng.chance(0.6)) {
      const company = objectRng.pick(companies);
      relationships.push({
        person: person.cioId,
        cioObjectId: company.cioObjectId,
        attributes: { role: objectRng.chance(0.15) ? 'admin' : 'member' },
        createdAt: Math.max(person.createdAt, company.createdAt),
      });
    }
    if (objectRng.chance(0.3)) {
      for (const course of objectRng.sample(courses, objectRng.int(1, 2))) {
        const enrolledAt = now - objectRng.int(1, 300) * DAY;
        relationships.push({
          person: person.cioId,
          cioObjectId: course.cioObjectId,
          attributes: { enrolled_at: enrolledAt },
          createdAt: enrolledAt,
        });
      }
    }
  }

  return {
    seed,
    scale,
    people,
    devices,
    events,
    segments,
    segmentMembers,
    deliveries,
    objectTypes: [
      { id: COMPANY_TYPE_ID, name: 'companies' },
      { id: COURSE_TYPE_ID, name: 'courses' },
    ],
    objects,
    relationships,
  };
}
