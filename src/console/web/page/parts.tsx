// Small pieces several views share: a collapsible JSON block, the upstream-request table (the timeline and the
// playground show the same rows), time and duration formats, the line that reports a failed request, and the
// refresh the state and controls views take (after calls end, and now and then for requests from elsewhere), and
// the form state of settings the page both reads and writes.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { Upstream } from './api.js';

const REFRESH_MS = 500;
const OUTSIDE_MS = 3000;

/**
 * A counter a view re-reads what it shows on, while it is `active`:
 * - after calls end (`endedCount` moves), at most once per REFRESH_MS however many end: an agent making fifty
 *   calls a second must not make the page re-read the emulators fifty times a second;
 * - every OUTSIDE_MS while the page is visible, since the emulators also serve requests this page never hears of
 *   (another process on the same sandbox, the user's own code), which change their data, use fault rules up and
 *   put bases into their penalty.
 */
export function useViewRefresh(active: boolean, endedCount: number): number {
  const [refresh, setRefresh] = useState(0);
  const scheduled = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (!active || endedCount === 0 || scheduled.current !== undefined) return;
    scheduled.current = setTimeout(() => {
      scheduled.current = undefined;
      setRefresh((n) => n + 1);
    }, REFRESH_MS);
  }, [active, endedCount]);
  useEffect(() => () => clearTimeout(scheduled.current), []);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') setRefresh((n) => n + 1);
    }, OUTSIDE_MS);
    return () => clearInterval(timer);
  }, [active]);
  return refresh;
}

/**
 * A form over settings that the page re-reads (each time the view is shown, after calls end) and the user edits.
 * It follows what is read until the user edits it, then keeps the edits until they are saved: a re-read that
 * lands after an edit must not silently undo it (the save would then send the old setting). Edits made while a
 * save is under way stay unsaved.
 */
export function useSettingsForm<T>(initial?: () => T) {
  // Lazy, as useState takes it: the first values are worked out on the first render only.
  const [value, setValue] = useState<T | undefined>(initial);
  const edits = useRef(0);
  const savedEdits = useRef(0);
  return {
    value,
    /** The user has edits not yet saved (each edit and each save re-renders, so this is current). */
    unsaved: edits.current !== savedEdits.current,
    edit(next: T) {
      edits.current += 1;
      setValue(next);
    },
    /** Settings as read: shown unless the user has edits not yet saved. */
    read(next: T) {
      if (edits.current === savedEdits.current) setValue(next);
    },
    /** Sends the form; the answer (the settings as now stored) is shown unless the user edited meanwhile. */
    async save(send: () => Promise<T>): Promise<T> {
      const editsSent = edits.current;
      const stored = await send();
      if (edits.current === editsSent) {
        savedEdits.current = editsSent;
        setValue(stored);
      }
      return stored;
    },
  };
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return (
    date.toLocaleTimeString(undefined, { hour12: false }) +
    `.${String(date.getMilliseconds()).padStart(3, '0')}`
  );
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return 'running';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function jsonText(value: unknown): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/** A JSON value behind a summary the reader opens when they want it: calls stay one line each until then. */
export function JsonDetails(props: { summary: string; value: unknown; open?: boolean; class?: string }) {
  return (
    <details class={props.class ?? 'json'} open={props.open}>
      <summary>{props.summary}</summary>
      <pre>{jsonText(props.value)}</pre>
    </details>
  );
}

export function ErrorNote(props: { error: string | undefined }) {
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {props.error}
    </p>
  );
}

/** What a control form's last action came to: its error, if any, and its status line, read out as it changes. */
export function FormOutcome(props: { error: string | undefined; status: string | undefined }) {
  return (
    <>
      <ErrorNote error={props.error} />
      <p class="muted" aria-live="polite">
        {props.status}
      </p>
    </>
  );
}

function queryText(query: Upstream['query']): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : [value]) parts.push(`${key}=${one}`);
  }
  return parts.join('&');
}

function statusClass(status: number): string {
  if (status === 0 || status >= 500) return 'status-fail';
  if (status >= 400) return 'status-warn';
  return 'status-ok';
}

/** What happened to a request beyond its status: an injected fault, a 429, a wait in our own rate limiter. */
function UpstreamMarks(props: { request: Upstream }) {
  const { request } = props;
  const marks = [];
  if (request.fault) {
    marks.push(
      <span class="mark mark-fault" key="fault">
        fault: {request.fault}
      </span>,
    );
  }
  if (request.status === 0) {
    marks.push(
      <span class="mark mark-fault" key="dropped">
        connection dropped
      </span>,
    );
  }
  if (request.rateLimited) {
    marks.push(
      <span class="mark mark-limit" key="limited">
        rate limited (429)
      </span>,
    );
  }
  if (request.rateLimitWaitMs !== null && request.rateLimitWaitMs > 0) {
    marks.push(
      <span class="mark mark-wait" key="wait">
        waited {formatDuration(request.rateLimitWaitMs)} for the rate limit
      </span>,
    );
  }
  return <>{marks}</>;
}

export function UpstreamTable(props: { requests: Upstream[]; caption?: string }) {
  if (props.requests.length === 0) return <p class="muted upstream-none">No upstream requests.</p>;
  return (
    <div class="table-wrap">
      <table class="upstream">
        <caption>{props.caption ?? 'Upstream requests'}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Emulator</th>
            <th scope="col">Method</th>
            <th scope="col">Path</th>
            <th scope="col">Query</th>
            <th scope="col">Body</th>
            <th scope="col">Status</th>
            <th scope="col">Took</th>
            <th scope="col">Marks</th>
          </tr>
        </thead>
        <tbody>
          {props.requests.map((request) => (
            <tr
              key={request.seq}
              class={`upstream-row ${statusClass(request.status)}`}
              data-status={request.status}
              data-fault={request.fault ?? undefined}
            >
              <td>{formatTime(request.time)}</td>
              <td>{request.emulator}</td>
              <td class="method">{request.method}</td>
              <td class="path">
                <code>{request.path}</code>
              </td>
              <td class="query">
                <code>{queryText(request.query)}</code>
              </td>
              <td>
                {request.body === null || request.body === undefined ? (
                  <span class="muted">none</span>
                ) : (
                  <JsonDetails summary="body" value={request.body} />
                )}
              </td>
              <td class="status">{request.status === 0 ? 'dropped' : request.status}</td>
              <td>{formatDuration(request.durationMs)}</td>
              <td>
                <UpstreamMarks request={request} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
