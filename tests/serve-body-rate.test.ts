// V27-1 (tests/fixtures/redteam-v27): a body's hold is judged against what it holds and when it must be done: one
// that, at the rate it has shown, cannot bring what it still owes before its deadline is reclaimable however steadily
// it moves; an honest slow link that can finish keeps its hold, judged by the better of its average and latest rate.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BodyBudget, type Hold, RATE_WINDOW_MS } from '../serve/body-budget.js';
import type { ServeError } from '../serve/options.js';

const KB = 1024;
const holder = () => {
  const dropped: ServeError[] = [];
  return { dropped, drop: (e: ServeError) => void dropped.push(e) };
};
/** `bytes` more of a body arrive, as body-intake.ts reports them. */
const arrive = (hold: Hold, bytes: number) => hold.moved(bytes);
/** Runs `every` ms apart, `times` times: `bytes` arrive on each hold of `sends`. */
const send = (sends: Array<[Hold, number]>, every: number, times: number) => {
  for (let i = 0; i < times; i++) {
    vi.advanceTimersByTime(every);
    for (const [hold, bytes] of sends) arrive(hold, bytes);
  }
};

describe('a hold that cannot arrive by its deadline (V27-1)', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'] }));
  afterEach(() => vi.useRealTimers());

  it('is reclaimed though it moves (2.2 KB every 300 ms); an honest slow link that can finish keeps its hold', () => {
    const budget = new BodyBudget(200 * KB, 120 * KB, 1_000);
    const [crawler, slow] = [holder(), holder()];
    const crawl = budget.reserve('h', 100 * KB, crawler);
    crawl.dueBy(Date.now() + 10_000);
    const link = budget.reserve('s', 100 * KB, slow);
    link.dueBy(Date.now() + 10_000);
    arrive(crawl, 2_200);
    // ~7 KB/s owes ~76 KB at 3 s with 7 s left (~50 KB at its rate); ~14.6 KB/s owes ~56 KB and brings ~100 KB
    send(
      [
        [crawl, 2_200],
        [link, 4_380],
      ],
      300,
      10,
    );
    expect([crawl.cannotArrive(Date.now(), 1_000), link.cannotArrive(Date.now(), 1_000)]).toEqual([true, false]);
    budget.reserve('c', 50 * KB, holder()).arrived(); // needs 50 KB: the crawler's hold is freed, not the link's
    expect([crawler.dropped.length, slow.dropped.length]).toEqual([1, 0]);
    // the next asker would need the link's: it moves at a rate that brings it in time, so the asker is refused
    expect(() => budget.reserve('d', 60 * KB, holder())).toThrow(/for all clients/);
    expect(slow.dropped).toHaveLength(0);
  });

  it('variant: one client crawling on many bodies loses the one the asker needs, largest first', () => {
    const budget = new BodyBudget(100 * KB, 100 * KB, 1_000);
    const drops = [holder(), holder(), holder()];
    const holds = [40, 30, 20].map((kb, i) => budget.reserve('h', kb * KB, drops[i] as ReturnType<typeof holder>));
    for (const h of holds) h.dueBy(Date.now() + 5_000);
    // 3.5 KB/s each for 2 s: every one "moves" (2 KiB within each 600 ms), none can bring what it owes in 3 s
    send(
      holds.map((h) => [h, 350] as [Hold, number]),
      100,
      20,
    );
    budget.reserve('c', 20 * KB, holder()).arrived();
    expect(drops.map((d) => d.dropped.length)).toEqual([1, 0, 0]);
  });

  it('judges a link that speeds up by its latest window, not its slow start', () => {
    const budget = new BodyBudget(400 * KB, 300 * KB, 1_000);
    const fast = holder();
    const body = budget.reserve('f', 300 * KB, fast);
    body.dueBy(Date.now() + 10_000);
    send([[body, 300]], 100, 20); // 3 KB/s for 2 s
    send([[body, 5 * KB]], 100, 10); // then 50 KB/s for 1 s: average ~19 KB/s (130 KB in 7 s), now 350 KB in 7 s
    expect(body.cannotArrive(Date.now(), 1_000)).toBe(false);
    expect(() => budget.reserve('c', 200 * KB, holder())).toThrow(/for all clients/);
    expect(fast.dropped).toHaveLength(0);
    // it slows to a crawl: a window later its rate no longer brings it in time, and it is reclaimed
    send([[body, 300]], 100, Math.ceil(RATE_WINDOW_MS / 100) + 1);
    budget.reserve('c', 200 * KB, holder()).arrived();
    expect(fast.dropped).toHaveLength(1);
  });

  it('gives a body its first window, and never judges one charged as it arrives (chunked) by its rate', () => {
    const budget = new BodyBudget(100 * KB, 100 * KB, 1_000);
    const [young, chunked] = [holder(), holder()];
    const fresh = budget.reserve('y', 80 * KB, young);
    fresh.dueBy(Date.now() + 1_000);
    vi.advanceTimersByTime(500);
    expect(fresh.cannotArrive(Date.now(), 1_000)).toBe(false);
    expect(() => budget.reserve('c', 30 * KB, holder())).toThrow(/for all clients/);
    expect(young.dropped).toHaveLength(0);
    // a chunked body holds only what came: it owes nothing it has not brought
    const small = new BodyBudget(60 * KB, 60 * KB, 1_000);
    const grown = small.reserve('g', 0, chunked);
    grown.dueBy(Date.now() + 60_000);
    for (let i = 0; i < 20; i++) {
      vi.advanceTimersByTime(300);
      grown.grow(2_200);
      arrive(grown, 2_200);
    }
    expect(grown.cannotArrive(Date.now(), 1_000)).toBe(false);
    expect(() => small.reserve('c', 20 * KB, holder())).toThrow(/for all clients/);
    expect(chunked.dropped).toHaveLength(0);
  });
});
