// Progress of a tool call that makes many upstream requests (paging through issues, walking a whole user list):
// the channel tools report through (`ToolCall.progress`), throttled so that a long call sends a bounded number of
// `notifications/progress`, and present only when the client asked for progress with a `progressToken`.

/** What a tool reports after each unit of work; `total` when it is known, `message` for people watching. */
export type ProgressReport = (done: number, total?: number, message?: string) => void;

/** One `notifications/progress` payload, without the token (the server adds the request's). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** At most one notification per this interval: a client shows progress, it does not need every page. */
export const PROGRESS_INTERVAL_MS = 250;
/** And never more than this many per call, however long it runs (a paging call is capped well below this). */
export const MAX_PROGRESS_NOTIFICATIONS = 40;

/**
 * A report function that forwards to `send` only what a client needs: the first report, then one per interval,
 * and the last one once `done` reaches `total`. Progress must increase (MCP, Progress), so a report that does not
 * move it is dropped.
 */
export function throttledProgress(
  send: (update: ProgressUpdate) => void,
  now: () => number = () => performance.now(),
): ProgressReport {
  let lastAt = Number.NEGATIVE_INFINITY;
  let lastDone = Number.NEGATIVE_INFINITY;
  let sent = 0;
  return (done, total, message) => {
    if (done <= lastDone || sent >= MAX_PROGRESS_NOTIFICATIONS) return;
    const at = now();
    const finished = total !== undefined && done >= total;
    if (!finished && at - lastAt < PROGRESS_INTERVAL_MS) return;
    lastAt = at;
    lastDone = done;
    sent++;
    send({
      progress: done,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    });
  };
}
