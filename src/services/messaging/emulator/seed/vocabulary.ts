/**
 * The words the seed builds its workspace from: names, cities, plans (with their weights), companies and courses
 * (the two object types), events (with type and weight) and delivery channels (with weights).
 */
import type { DeliveryChannel, EventType } from '../records.js';

export const FIRST_NAMES = [
  'Ada',
  'Grace',
  'Alan',
  'Katherine',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
  'Ken',
  'Frances',
  'Edsger',
  'Radia',
  'Tim',
  'Hedy',
  'John',
  'Karen',
  'Donald',
  'Shafi',
  'Niklaus',
  'Sophie',
] as const;
export const LAST_NAMES = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Johnson',
  'Torvalds',
  'Hamilton',
  'Ritchie',
  'Liskov',
  'Thompson',
  'Allen',
  'Dijkstra',
  'Perlman',
  'Berners-Lee',
  'Lamarr',
  'Backus',
  'Jones',
  'Knuth',
  'Goldwasser',
  'Wirth',
  'Wilson',
] as const;
export const CITIES = [
  'Lisbon',
  'Oslo',
  'Lyon',
  'Austin',
  'Toronto',
  'Dublin',
  'Berlin',
  'Nairobi',
  'Osaka',
  'Lima',
] as const;
export const PLANS: readonly (readonly [string, number])[] = [
  ['free', 50],
  ['basic', 25],
  ['pro', 18],
  ['enterprise', 7],
];
export const COMPANIES = [
  ['acme', 'Acme Corp', 'manufacturing'],
  ['globex', 'Globex', 'energy'],
  ['initech', 'Initech', 'software'],
  ['umbrella', 'Umbrella', 'pharma'],
  ['hooli', 'Hooli', 'software'],
  ['stark', 'Stark Industries', 'defense'],
  ['wayne', 'Wayne Enterprises', 'conglomerate'],
  ['wonka', 'Wonka', 'food'],
  ['tyrell', 'Tyrell', 'biotech'],
  ['cyberdyne', 'Cyberdyne', 'robotics'],
  ['soylent', 'Soylent', 'food'],
  ['aperture', 'Aperture Science', 'research'],
] as const;
export const COURSES = [
  ['course-101', 'Getting started', 'beginner'],
  ['course-201', 'Segments in depth', 'intermediate'],
  ['course-202', 'Campaign triggers', 'intermediate'],
  ['course-301', 'Objects and relationships', 'advanced'],
  ['course-302', 'Data pipelines', 'advanced'],
  ['course-401', 'Deliverability', 'expert'],
] as const;
export const EVENTS: readonly (readonly [string, EventType, number])[] = [
  ['logged_in', 'event', 30],
  ['viewed_pricing', 'event', 12],
  ['added_to_cart', 'event', 10],
  ['purchase', 'event', 8],
  ['/pricing', 'page', 12],
  ['/docs/getting-started', 'page', 10],
  ['Settings', 'screen', 8],
];
export const CHANNELS: readonly (readonly [DeliveryChannel, number])[] = [
  ['email', 50],
  ['push', 20],
  ['sms', 12],
  ['in_app', 10],
  ['slack', 4],
  ['webhook', 4],
];
