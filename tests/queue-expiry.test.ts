// The work queue's expiry timers (library/postgres/queue.ts): a dead worker's job goes to another worker within a
// quarter of --job-timeout past it, both of pg-boss's timers set (the monitor pass that expires jobs ran once a minute
// when not given, whatever the timeout).
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_OPTIONS, expiryIntervals } from '../library/postgres/queue.js';

describe('expiryIntervals', () => {
  it.each([5, 15, 30, 120, DEFAULT_QUEUE_OPTIONS.jobTimeoutSeconds, 86_400])(
    'checks a %i s job timeout at least every quarter of it (at most once a minute, at least once a second)',
    (timeout) => {
      const { superviseIntervalSeconds, monitorIntervalSeconds } = expiryIntervals(timeout);
      for (const seconds of [superviseIntervalSeconds, monitorIntervalSeconds]) {
        expect(seconds).toBeGreaterThanOrEqual(1);
        expect(seconds).toBeLessThanOrEqual(Math.max(1, Math.min(60, timeout / 4)));
      }
    },
  );

  it("keeps pg-boss's one-minute timers for the default five-minute timeout", () => {
    expect(expiryIntervals(DEFAULT_QUEUE_OPTIONS.jobTimeoutSeconds)).toEqual({
      superviseIntervalSeconds: 60,
      monitorIntervalSeconds: 60,
    });
  });
});
