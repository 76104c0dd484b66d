// The published request-body schemas: each is valid JSON Schema 2020-12 (compiled by ajv), a snapshot catches
// unintended changes to what agents see, the zod schema and its JSON Schema agree on documented examples and on
// broken bodies, and the documented limits hold at their bounds.

import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { requestBodyDocument } from '../../../src/runtime/schemaMode.js';
import { LIMITS, MESSAGING_BODIES, type MessagingBodyName } from '../../../src/services/messaging/schemas.js';
import { specAvailable, specPath } from '../../inventory/specTable.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
// The formats the schemas name; ajv checks them only when told how.
ajv.addFormat('email', true);

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return requestBodyDocument(schema).content['application/json'].schema;
}

const compiled = Object.fromEntries(
  Object.entries(MESSAGING_BODIES).map(([name, schema]) => [name, ajv.compile(jsonSchemaOf(schema))]),
) as Record<MessagingBodyName, ReturnType<typeof ajv.compile>>;

/** Both validators must agree; the zod schema may be stricter only where JSON Schema cannot say it (bytes). */
function accepts(name: MessagingBodyName, body: unknown): { zod: boolean; json: boolean } {
  return { zod: MESSAGING_BODIES[name].safeParse(body).success, json: compiled[name](body) === true };
}

const big = (bytes: number, char = 'a') => char.repeat(bytes);

const VALID: [MessagingBodyName, unknown][] = [
  ['identify', { email: 'ada@example.com', first_name: 'Ada', vip: true, logins: 3, created_at: 1767225600 }],
  [
    'identify',
    { _update: true, cio_subscription_preferences: { topics: { topic_1: true, topic_7: false } } },
  ],
  ['identify', { unsubscribed: 'TRUE' }],
  ['identify', { unsubscribed: 1, 'cio_subscription_preferences.topics.topic_2': false }],
  [
    'identify',
    {
      cio_relationships: {
        action: 'add_relationships',
        relationships: [{ identifiers: { object_type_id: '1', object_id: 'acme' } }],
      },
    },
  ],
  ['device', { device: { id: 'tok-1', platform: 'android', last_used: 1767225600 } }],
  ['device', { device: { id: 'tok-1', platform: 'ios', attributes: { push_enabled: 'true', custom: 'x' } } }],
  ['event', { name: 'purchase', data: { amount: 10, nested: { ok: true } } }],
  ['event', { name: '/pricing', type: 'page', timestamp: 1767225600, id: '01HZ0000000000000000000000' }],
  ['anonymousEvent', { name: 'viewed', anonymous_id: 'anon-1', type: 'screen' }],
  ['anonymousEvent', { name: 'invite', data: { recipient: 'friend@example.com' } }],
  ['form', { data: { email: 'ada@example.com', company: 'Analytical' } }],
  ['form', { data: { id: 'user-1' } }],
  ['merge', { primary: { id: 'a' }, secondary: { cio_id: 'abc123' } }],
  ['metrics', { delivery_id: 'd1', metric: 'spammed' }],
  ['metrics', { delivery_id: 'd1', metric: 'bounced', recipient: 15551234567, reason: 'carrier' }],
  ['segmentMembers', { ids: ['a', 'b'] }],
  ['segmentMembers', { ids: Array.from({ length: LIMITS.segmentIdsPerRequest }, (_, i) => `u${i}`) }],
  ['entity', { type: 'person', identifiers: { phone: '+15551234567' }, action: 'delete' }],
  [
    'entity',
    { type: 'person', action: 'merge', primary: { id: 'a' }, secondary: { email: 'b@example.com' } },
  ],
  [
    'entity',
    {
      type: 'person',
      identifiers: { id: '1' },
      action: 'add_device',
      device: { token: 't', platform: 'ios' },
    },
  ],
  ['entity', { type: 'object', identifiers: { cio_object_id: 'x1' }, action: 'delete' }],
  [
    'entity',
    {
      type: 'object',
      identifiers: { object_type_id: '1', object_id: 'acme' },
      action: 'identify_anonymous',
      anonymous_id: 'anon-abc-123',
    },
  ],
  [
    'entity',
    {
      type: 'object',
      identifiers: { object_type_id: '2', object_id: 'course-1' },
      action: 'identify_anonymous',
      cio_relationships: [{ identifiers: { anonymous_id: 'anon-1' } }],
    },
  ],
  [
    'entity',
    {
      type: 'delivery',
      identifiers: { id: 'dlv1' },
      action: 'event',
      name: 'opened',
      attributes: { device_token: 't' },
    },
  ],
  ['batch', { batch: [{ type: 'person', identifiers: { id: '1' }, action: 'suppress' }] }],
];

const INVALID: [MessagingBodyName, unknown, string][] = [
  ['identify', { nested: { no: 'objects' } }, 'attribute values are strings, numbers or booleans'],
  ['identify', { created_at: '2026-01-01' }, 'created_at is unix seconds'],
  ['identify', { cio_subscription_preferences: { topics: { news: true } } }, 'topics are topic_<id>'],
  ['identify', { unsubscribed: null }, 'unsubscribed is a boolean, string or number'],
  ['device', { device: { id: 'tok' } }, 'platform is required'],
  ['device', { device: { id: 'tok', platform: 'windows' } }, 'platform is ios or android'],
  ['device', {}, 'device is required'],
  ['event', { data: {} }, 'name is required'],
  ['event', { name: 'x', type: 'click' }, 'type is event, page or screen'],
  ['event', { name: 'x', timestamp: 1.5 }, 'timestamp is an integer'],
  ['anonymousEvent', { anonymous_id: 'a' }, 'name is required'],
  ['form', { data: { company: 'x' } }, 'one identifier is required'],
  ['form', { data: { email: 'a@example.com', id: '1' } }, 'only one identifier'],
  ['form', { data: { email: 'a@example.com', age: 3 } }, 'form values are strings'],
  ['merge', { primary: { id: 'a', email: 'b@example.com' }, secondary: { id: 'c' } }, 'one identifier each'],
  ['merge', { primary: {}, secondary: { id: 'c' } }, 'an identifier is needed'],
  ['merge', { primary: { id: 'a' } }, 'secondary is required'],
  ['metrics', { delivery_id: 'd1', metric: 'liked' }, 'unknown metric'],
  ['metrics', { metric: 'opened' }, 'delivery_id is required'],
  ['segmentMembers', { ids: [] }, 'at least one id'],
  [
    'segmentMembers',
    { ids: Array.from({ length: LIMITS.segmentIdsPerRequest + 1 }, (_, i) => `u${i}`) },
    'at most 1000 ids',
  ],
  ['entity', { type: 'person', identifiers: { id: '1' }, action: 'explode' }, 'unknown action'],
  ['entity', { type: 'robot', identifiers: { id: '1' }, action: 'identify' }, 'unknown type'],
  [
    'entity',
    { type: 'person', identifiers: { id: '1', email: 'a@example.com' }, action: 'delete' },
    'one id',
  ],
  ['entity', { type: 'person', identifiers: {}, action: 'delete' }, 'an identifier is needed'],
  ['entity', { type: 'person', identifiers: { id: '1' }, action: 'event' }, 'event needs a name'],
  [
    'entity',
    { type: 'person', identifiers: { id: '1' }, action: 'add_relationships' },
    'relationships needed',
  ],
  [
    'entity',
    { type: 'object', identifiers: { object_id: 'acme' }, action: 'delete' },
    'object_type_id needed',
  ],
  [
    'entity',
    {
      type: 'delivery',
      identifiers: { id: 'd' },
      action: 'event',
      name: 'clicked',
      attributes: { device_token: 't' },
    },
    'delivery events are opened, converted or delivered',
  ],
  [
    'entity',
    {
      type: 'object',
      identifiers: { object_type_id: '1', object_id: 'acme' },
      action: 'identify_anonymous',
      anonymous_id: '',
    },
    'a top-level anonymous_id is not empty',
  ],
  ['batch', { batch: [] }, 'a batch has at least one operation'],
  ['batch', { operations: [] }, 'batch is required'],
];

describe('messaging request-body schemas', () => {
  it('are valid JSON Schema 2020-12 documents (ajv compiles each)', () => {
    for (const name of Object.keys(MESSAGING_BODIES) as MessagingBodyName[]) {
      expect(typeof compiled[name], name).toBe('function');
      expect(jsonSchemaOf(MESSAGING_BODIES[name]).$schema).toBe(
        'https://json-schema.org/draft/2020-12/schema',
      );
    }
  });

  it('match the committed snapshot', async () => {
    const all = Object.fromEntries(
      Object.entries(MESSAGING_BODIES).map(([name, schema]) => [name, requestBodyDocument(schema)]),
    );
    await expect(JSON.stringify(all, null, 2)).toMatchFileSnapshot('__snapshots__/request-schemas.json');
  });

  it('each carries examples that both validators accept', () => {
    for (const name of Object.keys(MESSAGING_BODIES) as MessagingBodyName[]) {
      const examples = jsonSchemaOf(MESSAGING_BODIES[name]).examples as unknown[];
      expect(examples?.length, name).toBeGreaterThan(0);
      for (const example of examples)
        expect(accepts(name, example), `${name} ${JSON.stringify(example)}`).toEqual({
          zod: true,
          json: true,
        });
    }
  });

  it.each(VALID.map(([name, body], index) => [index, name, body] as const))(
    'accepts valid body %i (%s)',
    (_index, name, body) => {
      expect(accepts(name, body)).toEqual({ zod: true, json: true });
    },
  );

  it.each(INVALID.map(([name, body, why]) => [why, name, body] as const))(
    'rejects a broken body: %s',
    (_why, name, body) => {
      expect(accepts(name, body)).toEqual({ zod: false, json: false });
    },
  );
});

describe('documented limits, at and over the bound', () => {
  const cases: [string, MessagingBodyName, (size: number) => unknown, number][] = [
    ['event name bytes', 'event', (n) => ({ name: big(n) }), LIMITS.eventNameBytes],
    ['attribute value bytes', 'identify', (n) => ({ bio: big(n) }), LIMITS.attributeValueBytes],
    ['attribute name bytes', 'identify', (n) => ({ [big(n)]: 'x' }), LIMITS.attributeNameBytes],
    ['person id bytes', 'identify', (n) => ({ id: big(n) }), LIMITS.identifierBytes],
    [
      'attributes per call',
      'identify',
      (n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, i])),
      LIMITS.attributesPerCall,
    ],
  ];
  it.each(cases)('%s', (_what, name, build, limit) => {
    expect(MESSAGING_BODIES[name].safeParse(build(limit)).success).toBe(true);
    expect(MESSAGING_BODIES[name].safeParse(build(limit + 1)).success).toBe(false);
  });

  it('counts bytes, not characters (multi-byte text)', () => {
    // "é" is 2 bytes in UTF-8: 50 of them are 100 bytes (fits), 51 are 102 (does not).
    expect(MESSAGING_BODIES.event.safeParse({ name: big(50, 'é') }).success).toBe(true);
    expect(MESSAGING_BODIES.event.safeParse({ name: big(51, 'é') }).success).toBe(false);
  });

  it('event data at most 100,000 bytes serialized', () => {
    const data = (n: number) => ({ text: big(n - '{"text":""}'.length) });
    expect(MESSAGING_BODIES.event.safeParse({ name: 'x', data: data(LIMITS.eventDataBytes) }).success).toBe(
      true,
    );
    expect(
      MESSAGING_BODIES.event.safeParse({ name: 'x', data: data(LIMITS.eventDataBytes + 1) }).success,
    ).toBe(false);
  });

  it('entity requests under 32 KB; batches under 500 KB, each operation 32 KB or less', () => {
    // Attribute values stop at 1000 bytes, so size comes from many event-data keys.
    const event = (bytes: number) => ({
      type: 'person',
      identifiers: { id: '1' },
      action: 'event',
      name: 'e',
      attributes: Object.fromEntries(
        Array.from({ length: Math.ceil(bytes / 1000) }, (_, i) => [`k${i}`, big(990)]),
      ),
    });
    expect(MESSAGING_BODIES.entity.safeParse(event(30_000)).success).toBe(true);
    expect(MESSAGING_BODIES.entity.safeParse(event(34_000)).success).toBe(false);
    const batchOf = (count: number, bytes: number) => ({
      batch: Array.from({ length: count }, () => event(bytes)),
    });
    expect(MESSAGING_BODIES.batch.safeParse(batchOf(15, 30_000)).success).toBe(true);
    expect(MESSAGING_BODIES.batch.safeParse(batchOf(1, 34_000)).success).toBe(false);
    expect(MESSAGING_BODIES.batch.safeParse(batchOf(18, 30_000)).success).toBe(false);
  });

  it('"smaller than" bounds refuse exactly the limit; the per-operation bound allows it', () => {
    // An identify whose serialized size is exactly `bytes`, padded through one 26-byte-per-key attribute set.
    const sized = (bytes: number, id = '1') => {
      const op = {
        type: 'person',
        identifiers: { id },
        action: 'identify',
        attributes: {} as Record<string, string>,
      };
      let room = bytes - JSON.stringify(op).length;
      for (let i = 0; room > 0; i++) {
        const key = `p${i}`;
        const overhead = JSON.stringify({ [key]: '' }).length - 2 + (i > 0 ? 1 : 0);
        const value = Math.min(1000, room - overhead);
        op.attributes[key] = 'x'.repeat(value);
        room -= overhead + value;
      }
      expect(JSON.stringify(op).length).toBe(bytes);
      return op;
    };
    const entity = MESSAGING_BODIES.entity;
    expect(entity.safeParse(sized(LIMITS.entityRequestBytes - 1)).success).toBe(true);
    const atLimit = entity.safeParse(sized(LIMITS.entityRequestBytes));
    expect(atLimit.success).toBe(false);
    expect(atLimit.error?.issues[0]?.message).toBe(
      'the request is 32768 bytes; the limit is 32768 and the request must be smaller than the limit',
    );
    expect(MESSAGING_BODIES.batch.safeParse({ batch: [sized(LIMITS.entityRequestBytes)] }).success).toBe(
      true,
    );
    expect(MESSAGING_BODIES.batch.safeParse({ batch: [sized(LIMITS.entityRequestBytes + 1)] }).success).toBe(
      false,
    );
  });
});

// The upstream's own OpenAPI examples, when the reference folder sits beside the repository.
const openapiFile = specPath('../reference/openapi/messaging-track-upstream.openapi.json');
// A skipped describe still runs its body to collect tests, so the file is read only when it is there.
const openapiPresent = specAvailable('../reference/openapi/messaging-track-upstream.openapi.json');
describe.runIf(openapiPresent)('the upstream OpenAPI examples', () => {
  if (!openapiPresent) return;
  const doc = JSON.parse(readFileSync(openapiFile, 'utf8')) as {
    paths: Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { schema?: Example; example?: unknown }> } }>
    >;
    components: { schemas: Record<string, Example> };
  };
  type Example = { example?: unknown; oneOf?: { $ref?: string; example?: unknown }[]; $ref?: string };
  const component = (ref: string | undefined) =>
    ref ? doc.components.schemas[ref.split('/').pop()!] : undefined;
  const variants = (name: string): unknown[] => {
    const schema = doc.components.schemas[name]!;
    return [schema.example, ...(schema.oneOf ?? []).map((v) => (component(v.$ref) ?? v).example)].filter(
      Boolean,
    );
  };
  const bodyExamples = (path: string, method: string): unknown[] => {
    const content = doc.paths[path]?.[method]?.requestBody?.content['application/json'];
    const schema = content?.schema;
    return [content?.example, schema?.example, ...(schema?.oneOf ?? []).map((v) => v.example)].filter(
      Boolean,
    );
  };
  const cases: [MessagingBodyName, unknown[]][] = [
    ['identify', bodyExamples('/api/v1/customers/{identifier}', 'put')],
    ['merge', bodyExamples('/api/v1/merge_customers', 'post')],
    ['segmentMembers', bodyExamples('/api/v1/segments/{segment_id}/add_customers', 'post')],
    ['batch', bodyExamples('/api/v2/batch', 'post')],
    ['event', variants('eventsRequest')],
    ['anonymousEvent', variants('anonymousEventsRequest')],
    // The upstream's merge variant example leaves out the type and action its own schema requires.
    [
      'entity',
      [
        ...variants('person_operations'),
        ...variants('object_operations'),
        ...variants('delivery_operations'),
      ].filter((example) => (example as { type?: string }).type !== undefined),
    ],
  ];
  it.each(cases)('%s examples are accepted', (name, examples) => {
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      expect(accepts(name, example), JSON.stringify(example)).toEqual({ zod: true, json: true });
    }
  });
});
