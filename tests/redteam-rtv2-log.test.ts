// Red team rtv2 (tests/fixtures/redteam-rtv2/FINDINGS.md), rtv2-3: the service's item-error log shows the first
// message of each code once per process, whoever sent it. An open finding is an it.fails test: it states what
// should hold and fails while the hole exists; a fix turns it red, then flip it to it.
import { describe, expect, it } from 'vitest';
import { ItemErrorLog } from '../serve/item-errors.js';

describe('rtv2-3: one client chooses the only message the operator sees for each error code', () => {
  it.fails('an honest trainer\'s first error of a code is logged with its own message after a hostile client\'s', () => {
    const lines: string[] = [];
    const log = new ItemErrorLog({ log: (line) => lines.push(line), intervalMs: 60_000 });
    // At start-up, a hostile client sends one item of each code it can reach, with a message it picked.
    log.record('/v1/verify', [{ score: 0, error: { code: 'E_UNKNOWN_ENV', message: 'unknown environment "probe-ignore-this"' } }]);
    // An hour later an honest trainer is pointed at the wrong library: every item is E_UNKNOWN_ENV.
    log.record('/v1/verify', Array.from({ length: 256 }, () => ({ score: 0, error: { code: 'E_UNKNOWN_ENV', message: 'unknown environment "count-inversions"' } })));
    log.close();
    expect(lines.some((line) => line.includes('count-inversions'))).toBe(true); // today: only the rate line, "E_UNKNOWN_ENV 256"
  });
});
