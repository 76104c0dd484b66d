/**
 * Injectable time source for emulators, so seeded data and timestamps can be pinned in tests.
 */

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; used by tests that need reproducible timestamps. */
export interface ManualClock extends Clock {
  set(at: Date | string): void;
  advance(ms: number): void;
}

export function manualClock(start: Date | string): ManualClock {
  let current = new Date(start).getTime();
  if (Number.isNaN(current)) throw new RangeError(`manualClock: invalid start time ${String(start)}`);
  return {
    now: () => new Date(current),
    set(at) {
      const next = new Date(at).getTime();
      if (Number.isNaN(next)) throw new RangeError(`manualClock: invalid time ${String(at)}`);
      current = next;
    },
    advance(ms) {
      current += ms;
    },
  };
}
