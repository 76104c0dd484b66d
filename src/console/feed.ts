// The sandbox console's timeline: every tool call of this process, and under it the upstream requests it caused,
// as the page shows them (docs/console.md, the contract in Call and Upstream below). Built from the one stream of
// call events (runtime/callEvents.ts) and the emulators' own request logs: the events say which call ran and how
// it ended; the logs say what reached the emulator (method, path as sent, query, body, status, fault). They are
// joined on the call id the upstream client sends to the console's emulators (callEvents.ts CALL_ID_HEADER), which
// each log records. A log is read over its control API (`/_emulator/requests?since=`) when a call's request to
// that emulator ended, never on a timer.
//
// Bounded: the last CONSOLE_FEED_CAPACITY calls are kept, each shown value cut at MAX_SHOWN_CHARS. Everything
// shown passes through secrets.ts first; the logs keep no credentials (only the auth scheme) to begin with.

import type { RequestLogEntry } from '../emulation/requestLog.js';
import {
  type CallEvent,
  type CallEventListener,
  callEvents,
  shareCallIdWith,
} from '../runtime/callEvents.js';
import { log } from '../runtime/log.js';
import { redactValue } from '../runtime/secrets.js';
import type { CallOutcomeShown, ConsoleCall, ConsoleUpstream } from './timelineTypes.js';

export type { CallOutcomeShown, ConsoleCall, ConsoleUpstream };

/** Calls kept for a page that opens later: enough for an agent's session, small enough to send at once. */
export const CONSOLE_FEED_CAPACITY = 200;

/** A shown value (arguments, a result, a request body) longer than this, as JSON, is cut. */
export const MAX_SHOWN_CHARS = 20_000;

/** An emulator the console watches: its service id (`store`) and its address. */
export interface WatchedEmulator {
  service: string;
  url: string;
}

/** A value as shown: redacted, and cut to MAX_SHOWN_CHARS of JSON (then a string ending in the `…cut` marker). */
export function shownValue(value: unknown): unknown {
  if (value === undefined) return null;
  const redacted = redactValue(value);
  const json = JSON.stringify(redacted);
  if (json === undefined || json.length <= MAX_SHOWN_CHARS) return redacted;
  return `${json.slice(0, MAX_SHOWN_CHARS)}…cut (${json.length} characters in all)`;
}

/** What a tool's CallToolResult shows: its structured content, else its text. */
function resultShown(result: unknown): unknown {
  if (!result || typeof result !== 'object') return null;
  const { structuredContent, content } = result as { structuredContent?: unknown; content?: unknown };
  if (structuredContent !== undefined) return shownValue(structuredContent);
  if (!Array.isArray(content)) return null;
  const text = content
    .map((block) => (block as { text?: unknown }).text)
    .filter((piece): piece is string => typeof piece === 'string')
    .join('\n');
  return shownValue({ text });
}

interface EmulatorWatch extends WatchedEmulator {
  hostname: string;
  port: number;
  /** The last log entry read. */
  lastSeq: number;
  reading: Promise<void> | undefined;
  /** A request ended while the log was being read: read it again after. */
  again: boolean;
}

export class CallFeed {
  readonly capacity: number;
  /** In start order; the oldest first out. */
  readonly #calls = new Map<string, ConsoleCall>();
  readonly #listeners = new Set<(call: ConsoleCall) => void>();
  /** A rate-limiter wait of each call, until its request is sent. */
  readonly #waiting = new Map<string, number>();
  /**
   * The rate-limiter wait (or null) of each request a call sent that is not yet read from a log, in the order sent:
   * a call's requests go one after another, so its log entries come in the same order.
   */
  readonly #sent = new Map<string, (number | null)[]>();
  readonly #emulators: EmulatorWatch[];
  #stop: (() => void) | undefined;

  constructor(emulators: readonly WatchedEmulator[], capacity = CONSOLE_FEED_CAPACITY) {
    this.capacity = capacity;
    this.#emulators = emulators.map((emulator) => {
      const url = new URL(emulator.url);
      return {
        ...emulator,
        hostname: url.hostname,
        port: Number(url.port || 80),
        lastSeq: 0,
        reading: undefined,
        again: false,
      };
    });
  }

  /** Starts listening: call events with their correlation, and the call id sent to the emulators. */
  start(): void {
    if (this.#stop) return;
    const listener: CallEventListener = (event) => this.#record(event);
    const unsubscribe = callEvents.subscribe(listener, { correlate: true });
    const unshare = shareCallIdWith(this.#emulators.map((emulator) => new URL(emulator.url).origin));
    this.#stop = () => {
      unsubscribe();
      unshare();
    };
  }

  /** Stops listening and lets every live subscriber go. */
  close(): void {
    this.#stop?.();
    this.#stop = undefined;
    this.#listeners.clear();
  }

  /** The kept calls, oldest first. */
  backlog(): ConsoleCall[] {
    return [...this.#calls.values()].map((call) => redactValue(call));
  }

  /** Each change of a call (started, a request added, ended), with the whole call; returns the unsubscribe. */
  subscribe(listener: (call: ConsoleCall) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets every kept call; returns how many there were. */
  clear(): number {
    const cleared = this.#calls.size;
    this.#calls.clear();
    this.#waiting.clear();
    this.#sent.clear();
    return cleared;
  }

  /**
   * Sends a changed call to every listener. Redacted again on the way out, not only when recorded: a credential
   * is known to secrets.ts from its first use, which may come after the arguments that carry it were recorded.
   */
  #changed(call: ConsoleCall): void {
    if (this.#listeners.size === 0) return;
    const shown = redactValue(call);
    for (const listener of this.#listeners) listener(shown);
  }

  #record(event: CallEvent): void {
    switch (event.type) {
      case 'tool_call_started': {
        const call: ConsoleCall = {
          id: event.callId,
          parentId: event.parentCallId ?? null,
          service: event.service,
          tool: event.tool,
          client: event.request?.clientName ?? null,
          startedAt: new Date().toISOString(),
          durationMs: null,
          outcome: 'running',
          errorKind: null,
          arguments: shownValue(event.arguments),
          result: null,
          upstream: [],
        };
        this.#calls.set(call.id, call);
        while (this.#calls.size > this.capacity) {
          const oldest = this.#calls.keys().next().value as string;
          this.#calls.delete(oldest);
          this.#waiting.delete(oldest);
          this.#sent.delete(oldest);
        }
        this.#changed(call);
        return;
      }
      case 'tool_call_ended': {
        const call = this.#calls.get(event.call.callId);
        if (!call) return;
        call.durationMs = Math.round(event.durationMs * 10) / 10;
        call.outcome = event.outcome;
        call.errorKind = event.errorKind ?? null;
        call.result = resultShown(event.result);
        this.#changed(call);
        return;
      }
      case 'rate_limit_waited': {
        if (event.callId && this.#calls.has(event.callId))
          this.#waiting.set(event.callId, Math.round(event.waitedMs));
        return;
      }
      case 'upstream_request_started': {
        const { callId } = event;
        if (!callId || !this.#calls.has(callId)) return;
        const sent = this.#sent.get(callId) ?? [];
        sent.push(this.#waiting.get(callId) ?? null);
        this.#waiting.delete(callId);
        this.#sent.set(callId, sent);
        return;
      }
      case 'upstream_request_ended': {
        const { callId, serverAddress, serverPort } = event.request;
        if (!callId || !this.#calls.has(callId)) return;
        // The emulator logged the request before it answered, so the entry is there to read now.
        for (const emulator of this.#emulators) {
          if (emulator.hostname === serverAddress && emulator.port === serverPort) this.#read(emulator);
        }
        return;
      }
      default:
        return;
    }
  }

  /** Reads the emulator's new log entries; one read at a time per emulator, again when more ended meanwhile. */
  #read(emulator: EmulatorWatch): void {
    if (emulator.reading) {
      emulator.again = true;
      return;
    }
    emulator.reading = (async () => {
      do {
        emulator.again = false;
        const response = await fetch(`${emulator.url}/_emulator/requests?since=${emulator.lastSeq}`);
        if (!response.ok) throw new Error(`the request log answered ${response.status}`);
        const { requests, last_seq: lastSeq } = (await response.json()) as {
          requests: RequestLogEntry[];
          last_seq: number;
        };
        emulator.lastSeq = Math.max(emulator.lastSeq, lastSeq);
        for (const entry of requests) this.#attach(emulator, entry);
      } while (emulator.again);
    })()
      .catch((error: unknown) => {
        log('warn', 'the sandbox console could not read an emulator request log', {
          emulator: emulator.service,
          error: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(() => {
        emulator.reading = undefined;
      });
  }

  #attach(emulator: EmulatorWatch, entry: RequestLogEntry): void {
    const call = entry.callId ? this.#calls.get(entry.callId) : undefined;
    if (
      !call ||
      call.upstream.some((shown) => shown.emulator === emulator.service && shown.seq === entry.seq)
    )
      return;
    const wait = this.#sent.get(call.id)?.shift();
    call.upstream.push({
      seq: entry.seq,
      method: entry.method,
      path: entry.path,
      query: redactValue(entry.query),
      body: shownValue(entry.body),
      status: entry.status,
      durationMs: entry.durationMs,
      fault: entry.fault ?? null,
      rateLimitWaitMs: wait ?? null,
      rateLimited: entry.status === 429,
      time: entry.time,
      emulator: emulator.service,
    });
    this.#changed(call);
  }
}
