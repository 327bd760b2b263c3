// Red team rtv2 (tests/fixtures/redteam-rtv2/FINDINGS.md), rtv2-3: the service's item-error log shows the first
// message of each code once per process, whoever sent it. An open finding is an it.fails test: it states what
// should hold and fails while the hole exists; a fix turns it red, then flip it to it.
import { describe, expect, it } from 'vitest';
import { ItemErrorLog } from '../serve/item-errors.js';

describe('rtv2-3: one client chooses the only message the operator sees for each error code', () => {
  it("an honest trainer's first error of a code is logged with its own message after a hostile client's", () => {
    const lines: string[] = [];
    const log = new ItemErrorLog({ log: (line) => lines.push(line), intervalMs: 60_000 });
    // At start-up, a hostile client sends one item of each code it can reach, with a message it picked.
    log.record('/v1/verify', [
      { score: 0, error: { code: 'E_UNKNOWN_ENV', message: 'unknown environment "probe-ignore-this"' } },
    ]);
    // An hour later an honest trainer is pointed at the wrong library: every item is E_UNKNOWN_ENV.
    log.record(
      '/v1/verify',
      Array.from({ length: 256 }, () => ({
        score: 0,
        error: { code: 'E_UNKNOWN_ENV', message: 'unknown environment "count-inversions"' },
      })),
    );
    log.close();
    // fixed: the interval's most frequent message
    expect(lines.some((line) => line.includes('count-inversions'))).toBe(true);
  });

  it("each client's first error of a code is logged at once with its own message, the client named", () => {
    const lines: string[] = [];
    const log = new ItemErrorLog({ log: (line) => lines.push(line), intervalMs: 60_000 });
    log.record(
      '/v1/verify',
      [{ score: 0, error: { code: 'E_UNKNOWN_ENV', message: 'unknown environment "probe-ignore-this"' } }],
      'token:hostile',
    );
    log.record(
      '/v1/verify',
      Array.from({ length: 3 }, () => ({
        score: 0,
        error: { code: 'E_UNKNOWN_ENV', message: 'unknown environment "count-inversions"' },
      })),
      'token:trainer',
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('unknown environment "count-inversions"');
    expect(lines[1]).toContain('"token:trainer"');
    log.close();
  });

  it('the first messages kept are bounded: a client naming itself anew each time cannot grow them without end', () => {
    const lines: string[] = [];
    const log = new ItemErrorLog({ log: (line) => lines.push(line), intervalMs: 60_000 });
    for (let i = 0; i < 5_000; i++) {
      log.record('/v1/verify', [{ score: 0, error: { code: 'E_UNKNOWN_ENV', message: 'x' } }], `id-${i}`);
      if (i % 32 === 31) log.flush(); // at most 32 first lines an interval
    }
    expect(lines.filter((line) => line.includes('(the first E_UNKNOWN_ENV of client'))).toHaveLength(5_000);
    log.record('/v1/verify', [{ score: 0, error: { code: 'E_UNKNOWN_ENV', message: 'again' } }], 'id-0');
    expect(lines.at(-1)).toContain('again'); // id-0 was forgotten, so its next error is a first again
    log.close();
  });

  it('writes at most 32 first-message lines an interval, however many clients send errors', () => {
    const lines: string[] = [];
    const log = new ItemErrorLog({ log: (line) => lines.push(line), intervalMs: 60_000 });
    for (let i = 0; i < 100; i++)
      log.record('/v1/verify', [{ score: 0, error: { code: 'E_UNKNOWN_ENV', message: 'x' } }], `id-${i}`);
    expect(lines).toHaveLength(32);
    log.flush();
    log.record('/v1/verify', [{ score: 0, error: { code: 'E_UNKNOWN_ENV', message: 'later' } }], 'id-99');
    expect(lines.at(-1)).toContain('later'); // a first not logged then is logged in a later interval
    log.close();
  });
});
