// The request bodies of the tracking API, as zod schemas. One contract with two users: the tools publish them in
// schema mode (as JSON Schema) and validate `request_body` with them before anything is sent; the emulator
// validates incoming requests with the same schemas. Written from the upstream's documented bodies and limits
// (reference/upstream-apis.md, section B). Objects stay open where the upstream accepts custom keys.

import { z } from 'zod';

/** Documented size limits, in bytes of UTF-8 unless named otherwise. */
export const LIMITS = {
  identifierBytes: 150,
  attributeNameBytes: 150,
  attributeValueBytes: 1000,
  attributesPerCall: 300,
  eventNameBytes: 100,
  eventDataBytes: 100_000,
  /**
   * "Your request must be smaller than 32kb": an exclusive bound for /api/v2/entity (32,768 bytes is refused),
   * but an inclusive one for each operation of a batch ("must also be 32kb or smaller").
   */
  entityRequestBytes: 32 * 1024,
  /** "Your batch request must be smaller than 500kb": exclusive, so 512,000 bytes is refused. */
  batchRequestBytes: 500 * 1024,
  segmentIdsPerRequest: 1000,
} as const;

export function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/** A string limited in UTF-8 bytes; JSON Schema gets `maxLength` (characters, a necessary bound) and the note. */
function boundedText(maxBytes: number, description: string) {
  return z
    .string()
    .refine((value) => byteLength(value) <= maxBytes, {
      message: `must be at most ${maxBytes} bytes (UTF-8)`,
    })
    .meta({ description: `${description} At most ${maxBytes} bytes.`, maxLength: maxBytes });
}

const unixSeconds = z.int().nonnegative().meta({ description: 'Unix time in seconds.' });
const ulid = z.string().meta({ description: 'Optional ULID; a repeated id is dropped as a duplicate.' });

const attributeValue = z.union([z.string(), z.number(), z.boolean()]);

/**
 * Checks the per-call attribute rules on an object of attributes: at most 300, names at most 150 bytes, string
 * values at most 1000 bytes. `reserved` keys are the upstream's own fields, not attributes.
 */
function checkAttributes(reserved: ReadonlySet<string>) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
    const names = Object.keys(value).filter((key) => !reserved.has(key));
    if (names.length > LIMITS.attributesPerCall) {
      ctx.addIssue({
        code: 'custom',
        message: `at most ${LIMITS.attributesPerCall} attributes per call; got ${names.length}`,
        path: [],
      });
    }
    for (const name of names) {
      if (byteLength(name) > LIMITS.attributeNameBytes) {
        ctx.addIssue({
          code: 'custom',
          message: `attribute name longer than ${LIMITS.attributeNameBytes} bytes`,
          path: [name],
        });
      }
      const attribute = value[name];
      if (typeof attribute === 'string' && byteLength(attribute) > LIMITS.attributeValueBytes) {
        ctx.addIssue({
          code: 'custom',
          message: `attribute value longer than ${LIMITS.attributeValueBytes} bytes`,
          path: [name],
        });
      }
    }
  };
}

/** The serialized value may be `maxBytes` long, not longer (an inclusive bound). */
function checkSerializedAtMost(maxBytes: number, what: string) {
  return (value: unknown, ctx: z.RefinementCtx) => {
    const size = byteLength(JSON.stringify(value) ?? '');
    if (size > maxBytes) {
      ctx.addIssue({
        code: 'custom',
        message: `${what} is ${size} bytes; the limit is ${maxBytes}`,
        path: [],
      });
    }
  };
}

/** The serialized value must be smaller than `limitBytes` (an exclusive bound: exactly the limit is refused). */
function checkSerializedSmallerThan(limitBytes: number, what: string) {
  return (value: unknown, ctx: z.RefinementCtx) => {
    const size = byteLength(JSON.stringify(value) ?? '');
    if (size >= limitBytes) {
      ctx.addIssue({ code: 'custom', message: smallerThanMessage(what, size, limitBytes), path: [] });
    }
  };
}

/** The message for an exclusive size bound, shared with the emulator, which checks the raw body the same way. */
export function smallerThanMessage(what: string, size: number, limitBytes: number): string {
  return `${what} is ${size} bytes; the limit is ${limitBytes} and ${what} must be smaller than the limit`;
}

/** An object that names exactly one of the given identifier keys. */
function oneIdentifier<K extends string>(keys: readonly K[], description: string) {
  const shape = Object.fromEntries(
    keys.map((key) => [key, boundedText(LIMITS.identifierBytes, `The person's ${key}.`).optional()]),
  ) as Record<K, z.ZodOptional<ReturnType<typeof boundedText>>>;
  return z
    .strictObject(shape)
    .superRefine((value, ctx) => {
      const given = keys.filter((key) => (value as Record<string, unknown>)[key] !== undefined);
      if (given.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          message: `give exactly one of ${keys.join(', ')}${given.length > 1 ? `; got ${given.join(' and ')}` : ''}`,
          path: [],
        });
      }
    })
    .meta({ description, minProperties: 1, maxProperties: 1 });
}

const subscriptionPreferences = z
  .looseObject({
    topics: z
      .record(z.string().regex(/^topic_\d+$/), z.boolean())
      .optional()
      .meta({ description: 'topic_<id>: true to subscribe, false to unsubscribe.' }),
  })
  .meta({
    description:
      'Subscription-centre preferences; replaces the stored ones. To change one topic and keep the others, send "cio_subscription_preferences.topics.topic_<id>": true or false instead.',
  });

const objectIdentifiers = z
  .union([
    z.strictObject({
      object_type_id: z.string().meta({ description: 'Object type id, e.g. "1".' }),
      object_id: boundedText(LIMITS.identifierBytes, 'Object id.'),
    }),
    z.strictObject({ cio_object_id: z.string().meta({ description: 'Internal object id.' }) }),
  ])
  .meta({
    id: 'ObjectIdentifiers',
    description: 'An object: object_type_id with object_id, or cio_object_id.',
  });

/** Relationships from a person to objects (v1 identify and v2 person operations). */
const relationshipsToObjects = z
  .array(
    z.looseObject({
      identifiers: objectIdentifiers,
      relationship_attributes: z.record(z.string(), z.unknown()).optional(),
    }),
  )
  .meta({ id: 'ObjectRelationships', description: 'Objects the person relates to.' });

// ---- v1 bodies -------------------------------------------------------------------------------------------

const IDENTIFY_RESERVED = new Set([
  'id',
  'email',
  'anonymous_id',
  'created_at',
  '_timestamp',
  '_update',
  'cio_relationships',
  'unsubscribed',
  'cio_subscription_preferences',
]);

export const identifyBody = z
  .object({
    id: boundedText(
      LIMITS.identifierBytes,
      'Person id; set or change it (changing needs a cio_ path id).',
    ).optional(),
    email: z.string().meta({ description: 'Email address.' }).optional(),
    anonymous_id: z
      .string()
      .meta({ description: 'Folds in anonymous events sent with this id in the last 30 days.' })
      .optional(),
    created_at: unixSeconds.optional(),
    _timestamp: unixSeconds.optional().meta({
      description:
        'When the update happened (unix seconds); it does not overwrite attributes set by a later-timestamped update.',
    }),
    _update: z.boolean().optional().meta({ description: 'true: update only, never create a person.' }),
    unsubscribed: z.union([z.boolean(), z.string(), z.number()]).optional().meta({
      description:
        'Globally unsubscribed: true in any case ("TRUE", "tRUe"...), 1 or "1" mean unsubscribed; any other value means subscribed.',
    }),
    cio_subscription_preferences: subscriptionPreferences.optional(),
    cio_relationships: z
      .object({
        action: z.enum(['add_relationships', 'delete_relationships']).optional(),
        relationships: relationshipsToObjects,
      })
      .optional(),
  })
  .catchall(attributeValue)
  .superRefine(checkAttributes(IDENTIFY_RESERVED))
  .meta({
    title: 'Person attributes',
    description:
      'Attributes to set on the person (string, number or boolean values), plus the reserved fields below. "cio_subscription_preferences.topics.topic_<id>": true|false changes one topic and keeps the others.',
    examples: [{ email: 'ada@example.com', first_name: 'Ada', plan: 'pro', created_at: 1767225600 }],
  });

const deviceAttributes = z
  .object({
    device_os: z.string().optional(),
    device_model: z.string().optional(),
    app_version: z.string().optional(),
    cio_sdk_version: z.string().optional(),
    device_locale: z.string().optional(),
    push_enabled: z.enum(['true', 'false']).optional(),
  })
  .catchall(z.string())
  .meta({ id: 'DeviceAttributes', description: 'Device attributes; custom ones are strings.' });

const devicePlatform = z.enum(['ios', 'android']);

export const deviceBody = z
  .object({
    device: z.object({
      id: z.string().min(1).meta({ description: 'The device token.' }),
      platform: devicePlatform,
      last_used: unixSeconds.optional(),
      attributes: deviceAttributes.optional(),
    }),
  })
  .meta({
    title: 'Device',
    examples: [{ device: { id: 'f3b2c1', platform: 'ios', attributes: { app_version: '2.1.0' } } }],
  });

const eventName = boundedText(
  LIMITS.eventNameBytes,
  'Event name (for page events the URL, for screen events the screen).',
);
const eventData = z
  .looseObject({
    recipient: z.string().optional().meta({ description: 'Overrides the recipient of triggered messages.' }),
    from_address: z.string().optional(),
    reply_to: z.string().optional(),
  })
  .superRefine(checkSerializedAtMost(LIMITS.eventDataBytes, 'event data'))
  .meta({ id: 'EventData', description: 'Event data, usable in messages.' });
const eventType = z.enum(['event', 'page', 'screen']).meta({ description: 'Default event.' });

export const eventBody = z
  .looseObject({
    name: eventName,
    type: eventType.optional(),
    id: ulid.optional(),
    timestamp: unixSeconds.optional(),
    data: eventData.optional(),
  })
  .meta({
    title: 'Event',
    examples: [
      { name: 'purchase', data: { amount: 49.5, sku: 'A-100' } },
      { name: '/pricing', type: 'page' },
    ],
  });

export const anonymousEventBody = z
  .looseObject({
    name: eventName,
    anonymous_id: z
      .string()
      .optional()
      .meta({ description: 'Visitor id; events fold into the person later identified with it.' }),
    type: eventType.optional(),
    id: ulid.optional(),
    timestamp: unixSeconds.optional(),
    data: eventData.optional(),
  })
  .meta({
    title: 'Anonymous event',
    description: 'Without anonymous_id, data.recipient makes it an invite event.',
    examples: [{ name: 'viewed_pricing', anonymous_id: 'anon-7f3a' }],
  });

const FORM_IGNORED_KEYS = ['form_id', 'form_name', 'form_type', 'form_url', 'form_url_param'];

export const formBody = z
  .object({
    data: z
      .record(z.string(), z.string())
      .superRefine((fields, ctx) => {
        const identifiers = ['email', 'id'].filter((key) => fields[key] !== undefined);
        if (identifiers.length !== 1) {
          ctx.addIssue({
            code: 'custom',
            message: `give exactly one of email or id${identifiers.length > 1 ? '; got both' : ''}`,
            path: [],
          });
        }
        // Form fields become person attributes, so the attribute limits apply (the identifier ones too).
        checkAttributes(new Set(['email', 'id']))(fields, ctx);
        if (fields.id !== undefined && byteLength(fields.id) > LIMITS.identifierBytes) {
          ctx.addIssue({
            code: 'custom',
            message: `must be at most ${LIMITS.identifierBytes} bytes (UTF-8)`,
            path: ['id'],
          });
        }
      })
      .meta({
        description: `Form fields as strings, including exactly one of email or id. Ignored: ${FORM_IGNORED_KEYS.join(', ')}.`,
        // The same rule for JSON Schema readers.
        oneOf: [{ required: ['email'] }, { required: ['id'] }],
      }),
  })
  .meta({
    title: 'Form response',
    examples: [{ data: { email: 'ada@example.com', company: 'Analytical Ltd' } }],
  });

const personRef = oneIdentifier(['id', 'email', 'cio_id'] as const, 'One of id, email or cio_id.').meta({
  id: 'PersonRef',
});

export const mergeBody = z
  .object({
    primary: personRef.meta({
      description: 'The person that remains; must exist. One of id, email or cio_id.',
    }),
    secondary: personRef.meta({
      description: 'The person folded in and deleted. One of id, email or cio_id.',
    }),
  })
  .meta({
    title: 'Merge',
    description: 'Irreversible.',
    examples: [{ primary: { id: 'user-1' }, secondary: { email: 'old@example.com' } }],
  });

function metricVariant(
  channel: string,
  metrics: readonly [string, ...string[]],
  extra: Record<string, z.ZodType>,
) {
  return z
    .looseObject({
      delivery_id: z.string().min(1).meta({ description: 'From the CIO-Delivery-ID header of the message.' }),
      metric: z.enum(metrics),
      timestamp: unixSeconds.optional(),
      ...Object.fromEntries(Object.entries(extra).map(([key, schema]) => [key, schema.optional()])),
    })
    .meta({ title: channel });
}

const EMAIL_METRICS = [
  'bounced',
  'clicked',
  'converted',
  'deferred',
  'delivered',
  'dropped',
  'opened',
  'spammed',
] as const;

export const metricsBody = z
  .union([
    metricVariant('Email', EMAIL_METRICS, { recipient: z.string(), reason: z.string(), href: z.string() }),
    metricVariant('In-app', ['clicked', 'converted', 'opened'], { recipient: z.string(), href: z.string() }),
    metricVariant('Push', ['converted', 'delivered', 'opened'], { recipient: z.string() }),
    metricVariant('Slack', ['clicked', 'converted', 'delivered', 'opened'], { href: z.string() }),
    metricVariant('SMS', ['bounced', 'clicked', 'delivered', 'opened'], {
      recipient: z.union([z.string(), z.int()]),
      reason: z.string(),
      href: z.string(),
    }),
    metricVariant('Webhook', EMAIL_METRICS, { reason: z.string(), href: z.string() }),
  ])
  .meta({
    title: 'Metric',
    description: 'A metric for a delivery; the allowed metric names depend on the message channel.',
    examples: [{ delivery_id: 'dlv_01HZ', metric: 'clicked', href: 'https://example.com/offer' }],
  });

export const segmentMembersBody = z
  .object({
    ids: z.array(z.string().min(1)).min(1).max(LIMITS.segmentIdsPerRequest).meta({
      description: 'People of the identifier type chosen by the tool parameter; others are ignored.',
    }),
  })
  .meta({ title: 'Segment members', examples: [{ ids: ['user-1', 'user-2'] }] });

// ---- v2 entity operations --------------------------------------------------------------------------------

const personIdentifiers = oneIdentifier(
  ['id', 'email', 'phone', 'cio_id'] as const,
  'Exactly one of id, email, phone (E.164) or cio_id.',
).meta({ id: 'PersonIdentifiers' });

const personAttributes = z
  .looseObject({
    _update: z.boolean().optional().meta({ description: 'true: update only, never create.' }),
    cio_subscription_preferences: subscriptionPreferences.optional(),
  })
  .superRefine(checkAttributes(new Set(['_update', 'cio_subscription_preferences'])));

const personOp = <A extends string, S extends z.core.$ZodLooseShape>(action: A, shape: S) =>
  z.looseObject({
    type: z.literal('person'),
    action: z.literal(action),
    identifiers: personIdentifiers,
    ...shape,
  });

const personEventShape = {
  name: eventName,
  id: ulid.optional(),
  timestamp: unixSeconds.optional(),
  attributes: eventData.optional(),
};

const v2Device = z.looseObject({
  token: z.string().min(1).meta({ description: 'The device token.' }),
  platform: devicePlatform,
  last_used: unixSeconds.optional(),
  attributes: deviceAttributes.optional(),
});

const personOperation = z.discriminatedUnion('action', [
  personOp('identify', {
    attributes: personAttributes.optional(),
    cio_relationships: relationshipsToObjects.optional(),
    timestamp: unixSeconds.optional().meta({
      description:
        'When the update happened (unix seconds); it does not overwrite attributes set by a later-timestamped update.',
    }),
  }),
  personOp('delete', {}),
  personOp('event', personEventShape),
  personOp('screen', personEventShape),
  personOp('page', personEventShape),
  personOp('add_relationships', { cio_relationships: relationshipsToObjects }),
  personOp('delete_relationships', { cio_relationships: relationshipsToObjects }),
  personOp('add_device', { device: v2Device }),
  personOp('delete_device', { device: z.looseObject({ token: z.string().min(1) }) }),
  z.looseObject({
    type: z.literal('person'),
    action: z.literal('merge'),
    primary: personRef,
    secondary: personRef,
  }),
  personOp('suppress', {}),
  personOp('unsuppress', {}),
]);

const relationshipsToPeople = z
  .array(
    z.looseObject({
      identifiers: personRef,
      relationship_attributes: z.record(z.string(), z.unknown()).optional(),
    }),
  )
  .meta({ id: 'PersonRelationships', description: 'People the object relates to.' });

const objectAttributes = z.record(z.string(), z.unknown()).superRefine(checkAttributes(new Set()));

const objectOp = <A extends string, S extends z.core.$ZodLooseShape>(action: A, shape: S) =>
  z.looseObject({
    type: z.literal('object'),
    action: z.literal(action),
    identifiers: objectIdentifiers,
    ...shape,
  });

const objectOperation = z.discriminatedUnion('action', [
  objectOp('identify', {
    attributes: objectAttributes.optional(),
    cio_relationships: relationshipsToPeople.optional(),
  }),
  objectOp('identify_anonymous', {
    attributes: objectAttributes.optional(),
    anonymous_id: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'The anonymous visitor to relate the object to (as in the upstream example).' }),
    cio_relationships: z
      .array(
        z.looseObject({
          identifiers: z.strictObject({ anonymous_id: z.string().min(1) }),
          relationship_attributes: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional(),
  }),
  objectOp('delete', {}),
  objectOp('add_relationships', { cio_relationships: relationshipsToPeople }),
  objectOp('delete_relationships', { cio_relationships: relationshipsToPeople }),
]);

const deliveryOperation = z.looseObject({
  type: z.literal('delivery'),
  action: z.literal('event'),
  identifiers: z.strictObject({ id: z.string().min(1).meta({ description: 'The delivery id.' }) }),
  name: z.enum(['opened', 'converted', 'delivered']),
  timestamp: unixSeconds.optional(),
  attributes: z.looseObject({ device_token: z.string().min(1) }),
});

/** One v2 operation, without the size rule (the single-entity and batch endpoints count size differently). */
export const entityOperation = z.discriminatedUnion('type', [
  personOperation,
  objectOperation,
  deliveryOperation,
]);

const ENTITY_EXAMPLES = [
  { type: 'person', identifiers: { id: 'user-1' }, action: 'identify', attributes: { plan: 'pro' } },
  { type: 'person', identifiers: { email: 'ada@example.com' }, action: 'event', name: 'purchase' },
  {
    type: 'object',
    identifiers: { object_type_id: '1', object_id: 'acme' },
    action: 'add_relationships',
    cio_relationships: [{ identifiers: { id: 'user-1' }, relationship_attributes: { role: 'admin' } }],
  },
];

export const entityBody = entityOperation
  .superRefine(checkSerializedSmallerThan(LIMITS.entityRequestBytes, 'the request'))
  .meta({
    title: 'Entity operation',
    description:
      'One operation on a person, an object or a delivery, chosen by type then action. Smaller than 32 KB (32,768 bytes).',
    examples: ENTITY_EXAMPLES,
  });

export const batchBody = z
  .object({
    batch: z
      // "Each of the requests within the batch must also be 32kb or smaller": inclusive, unlike /entity.
      .array(entityOperation.superRefine(checkSerializedAtMost(LIMITS.entityRequestBytes, 'this operation')))
      .min(1)
      .meta({ description: 'Entity operations, each 32 KB (32,768 bytes) or smaller.' }),
  })
  .superRefine(checkSerializedSmallerThan(LIMITS.batchRequestBytes, 'the batch'))
  .meta({
    title: 'Batch',
    description: 'Mixed entity operations; smaller than 500 KB (512,000 bytes) in all.',
    examples: [{ batch: ENTITY_EXAMPLES }],
  });

/** Every published body, by the name the tools and the emulator use. */
export const MESSAGING_BODIES = {
  identify: identifyBody,
  device: deviceBody,
  event: eventBody,
  anonymousEvent: anonymousEventBody,
  form: formBody,
  merge: mergeBody,
  metrics: metricsBody,
  segmentMembers: segmentMembersBody,
  entity: entityBody,
  batch: batchBody,
} as const;

export type MessagingBodyName = keyof typeof MESSAGING_BODIES;
