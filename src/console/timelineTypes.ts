// The timeline's shapes as the server sends them and the page reads them (docs/console.md, the API): one file both
// import, with no imports of its own, so the page's type check (DOM only, no Node types) can use it too.

export type CallOutcomeShown = 'running' | 'ok' | 'tool_error' | 'protocol_error' | 'cancelled';

/** One tool call as the timeline shows it (contract: `Call`). */
export interface ConsoleCall {
  id: string;
  parentId: string | null;
  service: string;
  tool: string;
  client: string | null;
  startedAt: string;
  durationMs: number | null;
  outcome: CallOutcomeShown;
  errorKind: string | null;
  arguments: unknown;
  result: unknown;
  upstream: ConsoleUpstream[];
}

/** One request an emulator served for a call (contract: `Upstream`). */
export interface ConsoleUpstream {
  seq: number;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  body: unknown;
  /** 0: the connection was dropped (a `drop` fault). */
  status: number;
  durationMs: number;
  fault: string | null;
  /** How long the client-side rate limiter held the request before it was sent, when it did. */
  rateLimitWaitMs: number | null;
  /** The emulator answered 429. */
  rateLimited: boolean;
  time: string;
  emulator: string;
}
