// The timeline's live feed: the server-sent events of /console/api/events, read with fetch rather than
// EventSource, which cannot send the Authorization header a protected server wants. It reconnects after a drop
// as EventSource would (waiting a little longer each time, up to a few seconds); the backlog the server sends on
// each connection replaces what the page held.

import { authorizationHeader, EVENTS_PATH } from './api.js';

export type FeedState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 5_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Reads one event stream to its end, calling `onEvent` for each event that carries data. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (name: string, data: string) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let name = 'message';
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      let line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        // A blank line ends an event (the SSE format); comments (`: ping`) carry none.
        if (data.length > 0) onEvent(name, data.join('\n'));
        name = 'message';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const fieldValue = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') name = fieldValue;
      else if (field === 'data') data.push(fieldValue);
    }
  }
}

/** Follows the feed until the returned function is called; stops at a 401 (the page then asks for a token). */
export function followFeed(handlers: {
  event(name: string, data: string): void;
  state(state: FeedState): void;
}): () => void {
  const abort = new AbortController();
  const run = async () => {
    let wait = FIRST_RETRY_MS;
    while (!abort.signal.aborted) {
      try {
        const response = await fetch(EVENTS_PATH, {
          headers: { accept: 'text/event-stream', ...authorizationHeader() },
          cache: 'no-store',
          signal: abort.signal,
        });
        if (response.status === 401) {
          handlers.state('unauthorized');
          return;
        }
        if (response.ok && response.body) {
          handlers.state('live');
          wait = FIRST_RETRY_MS;
          await readEvents(response.body, handlers.event);
        }
      } catch {
        // A dropped connection or a stopped server: tried again below, as EventSource would.
      }
      if (abort.signal.aborted) return;
      handlers.state('reconnecting');
      await sleep(wait, abort.signal);
      wait = Math.min(wait * 2, LAST_RETRY_MS);
    }
  };
  void run();
  return () => abort.abort();
}
