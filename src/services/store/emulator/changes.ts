/**
 * The change feed: every mutation the emulator performs is announced here as ChangeEvents, once per request, in
 * transaction order. It is the contract with the webhooks part of the emulator, which turns these events into
 * webhook payloads; nothing else in the data plane depends on who listens.
 */

export type ChangeSource = 'publicApi' | 'client' | 'formSubmission' | 'automation' | 'system';

export type ChangeKind =
  | 'recordCreated'
  | 'recordChanged'
  | 'recordDestroyed'
  | 'tableCreated'
  | 'tableChanged'
  | 'tableDestroyed'
  | 'fieldCreated'
  | 'fieldChanged'
  | 'fieldDestroyed'
  | 'viewDestroyed';

export interface ChangeEvent {
  baseId: string;
  /** Per base, increasing, starts at 1; all events of one request share it. */
  transactionNumber: number;
  /** ISO 8601. */
  timestamp: string;
  source: ChangeSource;
  userId?: string;
  kind: ChangeKind;
  tableId: string;
  recordId?: string;
  fieldId?: string;
  viewId?: string;
  /**
   * Cell values by field id, in the API's JSON cell format, after and before the change (for records). Every
   * non-empty cell of the record is present, computed ones included; a field missing from one side was empty.
   */
  current?: Record<string, unknown>;
  previous?: Record<string, unknown>;
  /** Table or field metadata after and before (name, description, type, options). */
  currentMetadata?: Record<string, unknown>;
  previousMetadata?: Record<string, unknown>;
}

export interface ChangeFeed {
  subscribe(listener: (events: readonly ChangeEvent[]) => void): () => void;
}

/** The feed's publishing side, kept by the emulator; listeners that throw are reported and never break a request. */
export class ChangeHub implements ChangeFeed {
  #listeners = new Set<(events: readonly ChangeEvent[]) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void = reportToStderr) {}

  subscribe(listener: (events: readonly ChangeEvent[]) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  publish(events: readonly ChangeEvent[]): void {
    if (events.length === 0) return;
    const frozen = Object.freeze([...events]);
    for (const listener of [...this.#listeners]) {
      try {
        listener(frozen);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}

function reportToStderr(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`store emulator: change listener failed: ${message}\n`);
}
