// The sandbox console's controls: faults, rate limits, reset and reseed of each emulator, passed through to the
// emulator's own control API (emulation/inspection.ts) unchanged, so the console can do exactly what that API
// does and no more. Only the error shape is the console's (`{error: {message}}`).

import type { FaultKind, FaultRule } from '../emulation/faults.js';
import type { WatchedEmulator } from './feed.js';
import { ConsoleRequestError } from './stateTables.js';

export interface FaultField {
  name: keyof FaultRule;
  type: 'string' | 'integer' | 'enum';
  description: string;
  /** For `enum`. */
  choices?: string[];
  required?: boolean;
}

const MATCH: FaultField[] = [
  { name: 'method', type: 'string', description: 'Only requests with this HTTP method (any when empty).' },
  {
    name: 'path',
    type: 'string',
    description: 'Only requests to this path; `:name` matches one segment, `*` the rest (any when empty).',
  },
  {
    name: 'times',
    type: 'integer',
    description: 'For the next N matching requests, then the rule is gone (always when empty).',
  },
];
const WHEN: FaultField = {
  name: 'when',
  type: 'enum',
  choices: ['before', 'after'],
  description:
    'before (default): instead of handling the request; after: once it was handled and took effect.',
};

/** The fields of each fault kind, for the page's form: the emulator's FaultRuleSchema (emulation/faults.ts). */
export const FAULT_KINDS_SHOWN: { kind: FaultKind; fields: FaultField[] }[] = [
  {
    kind: 'latency',
    fields: [
      {
        name: 'latencyMs',
        type: 'integer',
        description: 'Added delay in milliseconds (0 to 120000).',
        required: true,
      },
      ...MATCH,
    ],
  },
  {
    kind: 'error',
    fields: [
      { name: 'status', type: 'integer', description: 'The error status, 400 to 599 (default 500).' },
      ...MATCH,
      WHEN,
    ],
  },
  {
    kind: 'rate_limit',
    fields: [
      {
        name: 'retryAfterSeconds',
        type: 'integer',
        description: "The 429's Retry-After in seconds (default 1).",
      },
      ...MATCH,
    ],
  },
  { kind: 'drop', fields: [...MATCH, WHEN] },
];

/** What a control request answers: the emulator's status and JSON body, errors reshaped. */
export interface ControlAnswer {
  status: number;
  body: unknown;
}

/** Sends a control request to the emulator's `/_emulator<path>` as given. */
export async function passToEmulator(
  emulator: WatchedEmulator,
  method: 'GET' | 'PUT' | 'DELETE' | 'POST',
  path: string,
  body?: string,
): Promise<ControlAnswer> {
  let response: Response;
  try {
    response = await fetch(`${emulator.url}/_emulator${path}`, {
      method,
      ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}),
    });
  } catch (error) {
    throw new ConsoleRequestError(
      502,
      `The ${emulator.service} emulator at ${emulator.url} did not answer (${(error as Error).message}).`,
    );
  }
  const answer = (await response.json().catch(() => ({}))) as { error?: unknown };
  if (response.ok) return { status: response.status, body: answer };
  const message = typeof answer.error === 'string' ? answer.error : `answered ${response.status}`;
  return {
    status: response.status,
    body: { error: { message: `${emulator.service} emulator: ${message}` } },
  };
}

/** A setting of an upstream limit, for the page's form. */
export interface UpstreamLimitField {
  name: string;
  type: 'boolean' | 'integer';
  label: string;
  description: string;
  min?: number;
  max?: number;
}

/**
 * A limit the upstream itself enforces beyond the emulators' shared per-route limits, with its own control
 * endpoint on the emulator (`/_emulator/<name>`: GET reads, PUT sets, DELETE clears counters and penalties).
 */
export interface UpstreamLimit {
  /** The emulator's control path below /_emulator/, and the console's name for the limit. */
  name: string;
  title: string;
  /** What the real upstream enforces, in words: the reference the page shows beside the current settings. */
  upstream: string;
  fields: UpstreamLimitField[];
}

/**
 * The upstream limits of each emulator. The emulators do not list their extra control endpoints, so this table
 * names them; it holds what the emulator's endpoint takes (services/store/emulator/rateLimit.ts UpdateSchema).
 * The store's numbers are the upstream's documented ones (that file's DEFAULT_BASE_RATE_LIMIT), written out
 * rather than imported so the console does not load the store emulator's modules.
 */
export const UPSTREAM_LIMITS: Readonly<Record<string, readonly UpstreamLimit[]>> = {
  store: [
    {
      name: 'base-rate-limit',
      title: 'Per-base rate limit',
      upstream:
        'per base: 5 requests per second, as the upstream enforces; the request over it starts a 30-second penalty in which every request to that base gets 429 RATE_LIMIT_REACHED',
      fields: [
        {
          name: 'enabled',
          type: 'boolean',
          label: 'Enforce the per-base limit',
          description: 'On by default, as upstream; off lets any number of requests through.',
        },
        {
          name: 'perSecond',
          type: 'integer',
          label: 'Requests per second, per base',
          description: 'In a sliding one-second window (upstream: 5).',
          min: 1,
          max: 10_000,
        },
        {
          name: 'penaltyMs',
          type: 'integer',
          label: 'Penalty after going over (ms)',
          description: 'How long every request to that base is refused (upstream: 30000).',
          min: 0,
          max: 3_600_000,
        },
      ],
    },
  ],
};

/** The named upstream limit of an emulator, or a 404 that lists the ones it has. */
export function upstreamLimit(service: string, name: string): UpstreamLimit {
  const limits = UPSTREAM_LIMITS[service] ?? [];
  const found = limits.find((limit) => limit.name === name);
  if (found) return found;
  throw new ConsoleRequestError(
    404,
    limits.length === 0
      ? `The ${service} emulator has no upstream limit beyond its rate-limits.`
      : `The ${service} emulator has no upstream limit "${name}"; it has: ${limits.map((limit) => limit.name).join(', ')}.`,
  );
}
