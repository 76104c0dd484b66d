// The sandbox console's state tables: each emulator's collections (the store's bases, tables and records; the issue
// desk's issues, users and teams; the messaging people, events and segments...) read through the emulators' own
// state endpoints (`/_emulator/state`), as rows with columns, and what changed since a marker.
//
// A marker is a snapshot of row fingerprints (a hash of each row's JSON, by id), not a request-log sequence
// number: the log says which requests came, not which rows they touched, and rows also change through a reset. A
// snapshot is exact for every collection it covers. POST /state/mark covers every collection (a point in time the
// person chose); the marker a table read returns covers that collection (its "now"). A row is changed when its id
// is new or its fingerprint differs. Markers are few (MAX_MARKERS marks, MAX_READ_MARKERS reads per collection,
// oldest forgotten) and rows per collection are read up to MAX_ROWS_READ.

import { createHash, randomUUID } from 'node:crypto';
import { redactValue } from '../runtime/secrets.js';
import type { WatchedEmulator } from './feed.js';

/**
 * Markers kept: the last MAX_MARKERS taken with POST /state/mark, and apart from them the last
 * MAX_READ_MARKERS of each collection's reads (a page that re-reads a table often must not push out the point in
 * time its person chose). An older one is refused with a message saying to take a new one.
 */
export const MAX_MARKERS = 16;
export const MAX_READ_MARKERS = 4;
/** The most rows read from one collection (the emulators' own page limit). */
export const MAX_ROWS_READ = 10_000;
/** Rows a table read returns unless `limit` says otherwise. */
export const DEFAULT_ROWS = 1_000;

/** A 4xx the page can show: the message names what to change. */
export class ConsoleRequestError extends Error {
  constructor(
    readonly status: 400 | 404 | 502,
    message: string,
  ) {
    super(message);
  }
}

export interface TableRow {
  id: string;
  values: Record<string, unknown>;
  changed: boolean;
}

export interface TableView {
  columns: string[];
  rows: TableRow[];
  marker: string;
  /** Rows in the collection (rows holds offset..offset+limit of them). */
  total: number;
  offset: number;
  /** False when `changedSince` named a marker that does not cover this collection: nothing is marked. */
  markerCovers: boolean;
}

type Fingerprints = Map<string, string>;

/** Reads an emulator's control API; its errors (`{error: string}`) become ConsoleRequestErrors. */
export async function readEmulator<T>(emulator: WatchedEmulator, path: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${emulator.url}/_emulator${path}`);
  } catch (error) {
    throw new ConsoleRequestError(
      502,
      `The ${emulator.service} emulator at ${emulator.url} did not answer (${(error as Error).message}).`,
    );
  }
  const body = (await response.json().catch(() => ({}))) as T & { error?: unknown };
  if (!response.ok) {
    const message = typeof body.error === 'string' ? body.error : `answered ${response.status}`;
    throw new ConsoleRequestError(response.status === 404 ? 404 : 400, `${emulator.service}: ${message}`);
  }
  return body;
}

function rowId(item: unknown, index: number): string {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : `#${index}`;
}

function fingerprint(item: unknown): string {
  return createHash('sha1').update(JSON.stringify(item)).digest('base64');
}

export class StateTables {
  readonly #emulators: readonly WatchedEmulator[];
  /** Marker -> collection (`store/records`) -> row id -> fingerprint. */
  readonly #markers = new Map<string, Map<string, Fingerprints>>();
  /** The markers of table reads, by collection, oldest first (each also in #markers). */
  readonly #reads = new Map<string, string[]>();
  /** The markers of POST /state/mark, oldest first. */
  readonly #marks: string[] = [];

  constructor(emulators: readonly WatchedEmulator[]) {
    this.#emulators = emulators;
  }

  emulator(service: string): WatchedEmulator {
    const found = this.#emulators.find((emulator) => emulator.service === service);
    if (!found) {
      throw new ConsoleRequestError(
        404,
        `No "${service}" emulator in this sandbox; it runs: ${this.#emulators.map((e) => e.service).join(', ')}.`,
      );
    }
    return found;
  }

  /** Every emulator's collections with their row counts (the emulator summary's `counts`). */
  async overview(): Promise<{
    emulators: { service: string; collections: { name: string; count: number }[] }[];
  }> {
    const emulators = await Promise.all(
      this.#emulators.map(async (emulator) => ({
        service: emulator.service,
        collections: await this.#collections(emulator),
      })),
    );
    return { emulators };
  }

  async #collections(emulator: WatchedEmulator): Promise<{ name: string; count: number }[]> {
    const summary = await readEmulator<{ counts?: Record<string, unknown> }>(emulator, '/state');
    return Object.entries(summary.counts ?? {})
      .filter((entry): entry is [string, number] => typeof entry[1] === 'number')
      .map(([name, count]) => ({ name, count }));
  }

  async #items(
    emulator: WatchedEmulator,
    collection: string,
    offset: number,
    limit: number,
  ): Promise<{ total: number; items: unknown[] }> {
    const path = `/state/${encodeURIComponent(collection)}?offset=${offset}&limit=${limit}`;
    return readEmulator<{ total: number; items: unknown[] }>(emulator, path);
  }

  /** Keeps a snapshot under a new marker, in `pool`, forgetting the pool's oldest beyond `limit`. */
  #remember(snapshot: Map<string, Fingerprints>, pool: string[], limit: number): string {
    const marker = randomUUID();
    this.#markers.set(marker, snapshot);
    pool.push(marker);
    while (pool.length > limit) this.#markers.delete(pool.shift() as string);
    return marker;
  }

  /** A marker for now, covering every collection of every emulator. */
  async mark(): Promise<{ marker: string }> {
    const snapshot = new Map<string, Fingerprints>();
    for (const emulator of this.#emulators) {
      for (const { name } of await this.#collections(emulator)) {
        const { items } = await this.#items(emulator, name, 0, MAX_ROWS_READ);
        snapshot.set(`${emulator.service}/${name}`, fingerprints(items, 0));
      }
    }
    return { marker: this.#remember(snapshot, this.#marks, MAX_MARKERS) };
  }

  /** Rows `offset`..`offset+limit` of a collection, those changed since `changedSince` marked. */
  async table(
    service: string,
    collection: string,
    options: { changedSince?: string; offset?: number; limit?: number },
  ): Promise<TableView> {
    const emulator = this.emulator(service);
    const since = options.changedSince ? this.#markers.get(options.changedSince) : undefined;
    if (options.changedSince && !since) {
      throw new ConsoleRequestError(
        400,
        `changedSince: the marker "${options.changedSince}" is unknown or too old (the last ${MAX_MARKERS} marks and ${MAX_READ_MARKERS} reads of each table are kept); take a new one with POST /console/api/state/mark or from a table read.`,
      );
    }
    const offset = options.offset ?? 0;
    const limit = options.limit ?? DEFAULT_ROWS;
    const key = `${service}/${collection}`;
    const page = await this.#items(emulator, collection, offset, limit);
    // The marker for now covers the whole collection: read the rest only when this page is not all of it.
    const whole =
      offset === 0 && page.items.length >= page.total
        ? page.items
        : (await this.#items(emulator, collection, 0, MAX_ROWS_READ)).items;
    let reads = this.#reads.get(key);
    if (!reads) {
      reads = [];
      this.#reads.set(key, reads);
    }
    const marker = this.#remember(new Map([[key, fingerprints(whole, 0)]]), reads, MAX_READ_MARKERS);
    const before = since?.get(key);
    const columns: string[] = [];
    const seen = new Set<string>();
    const rows = page.items.map((item, index) => {
      const values = redactValue(
        item && typeof item === 'object' && !Array.isArray(item)
          ? (item as Record<string, unknown>)
          : { value: item },
      );
      for (const column of Object.keys(values)) {
        if (!seen.has(column)) {
          seen.add(column);
          columns.push(column);
        }
      }
      const id = rowId(item, offset + index);
      const changed = before !== undefined && before.get(id) !== fingerprint(item);
      return { id, values, changed };
    });
    return {
      columns,
      rows,
      marker,
      total: page.total,
      offset,
      markerCovers: since === undefined || !!before,
    };
  }
}

function fingerprints(items: readonly unknown[], offset: number): Fingerprints {
  const out: Fingerprints = new Map();
  items.forEach((item, index) => {
    out.set(rowId(item, offset + index), fingerprint(item));
  });
  return out;
}
