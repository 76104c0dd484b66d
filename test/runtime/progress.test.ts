// The progress throttle: a long paging call sends a bounded number of notifications, always increasing, and its
// last report when it reaches its total.

import { describe, expect, it } from 'vitest';
import {
  MAX_PROGRESS_NOTIFICATIONS,
  PROGRESS_INTERVAL_MS,
  type ProgressUpdate,
  throttledProgress,
} from '../../src/runtime/progress.js';

function reporter() {
  let now = 0;
  const sent: ProgressUpdate[] = [];
  const report = throttledProgress(
    (update) => sent.push(update),
    () => now,
  );
  return { report, sent, advance: (ms: number) => (now += ms) };
}

describe('throttledProgress', () => {
  it('sends the first report, then at most one per interval, and the final one', () => {
    const { report, sent, advance } = reporter();
    for (let page = 1; page <= 100; page++) {
      report(page, page === 100 ? 100 : undefined, `page ${page}`);
      advance(PROGRESS_INTERVAL_MS / 5);
    }
    // 100 pages over 20 intervals: one per interval, plus the last.
    expect(sent.length).toBeLessThanOrEqual(22);
    expect(sent[0]).toEqual({ progress: 1, message: 'page 1' });
    expect(sent.at(-1)).toEqual({ progress: 100, total: 100, message: 'page 100' });
  });

  it('never sends more than the cap, however slow the pages', () => {
    const { report, sent, advance } = reporter();
    for (let page = 1; page <= 500; page++) {
      report(page);
      advance(PROGRESS_INTERVAL_MS * 2);
    }
    expect(sent).toHaveLength(MAX_PROGRESS_NOTIFICATIONS);
  });

  it('drops a report that does not increase progress', () => {
    const { report, sent, advance } = reporter();
    report(2);
    advance(PROGRESS_INTERVAL_MS);
    report(2);
    report(1);
    expect(sent).toEqual([{ progress: 2 }]);
  });
});
