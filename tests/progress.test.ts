// What `envforge run` and `nightly` print while a batch runs: on a terminal one status line updated in
// place (log-update), in logs a plain line per admission, JSON events only with --json.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { batchProgress } from '../cli/progress.js';
import type { BatchEvent } from '../pipeline/batch.js';

/** A stand-in terminal: what log-update writes, with ANSI erase sequences removed. */
function terminal() {
  let text = '';
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _enc, done) {
        text += chunk.toString();
        done();
      },
    }),
    { isTTY: true, columns: 120, rows: 40 },
  );
  return { stream, screen: () => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''), raw: () => text };
}

const EVENTS: BatchEvent[] = [
  { type: 'specs', proposed: 6, kept: 6 },
  { type: 'candidate', spec: 'a', attempt: 0, step: 'written' },
  { type: 'candidate', spec: 'b', attempt: 0, step: 'written' },
  { type: 'candidate', spec: 'a', attempt: 0, step: 'validated', verdict: 'admit', codes: [] },
  { type: 'admitted', spec: 'a', name: 'alpha-env', version: 1, skills: ['x'] },
  { type: 'candidate', spec: 'b', attempt: 0, step: 'validated', verdict: 'reject', codes: ['E_ACCEPTS_EMPTY'] },
  { type: 'candidate', spec: 'c', attempt: 0, step: 'written' },
];

describe('batch progress', () => {
  it(
    'on a terminal: one status line with admitted/target, rejected, in flight, elapsed and a ' +
      'wait for workers; no JSON',
    () => {
      let clock = 1_000;
      const tty = terminal();
      const err: string[] = [];
      const progress = batchProgress(
        { out: () => {}, err: (l) => err.push(l) },
        { json: false, target: 10, terminal: tty.stream, now: () => clock },
      );
      for (const event of EVENTS) progress.event(event);
      clock += 42_000;
      progress.waiting(12_000, 'postgres://db');
      progress.line('nightly: batch …');
      progress.done();
      const lines = tty.screen().split('\n').filter(Boolean);
      expect(lines.at(-1)).toBe('admitted 1/10, 1 rejected, 1 validating, elapsed 0:42; waiting for workers (0:12)');
      expect(tty.screen()).toContain('nightly: batch …\n');
      expect(tty.raw()).toMatch(/\x1b\[/); // updated in place
      expect(tty.screen()).not.toContain('{');
      expect(err).toEqual([]);
    },
  );

  it('in a log (no terminal): a plain line per admission and for a long wait, no JSON', () => {
    const err: string[] = [];
    const progress = batchProgress(
      { out: () => {}, err: (l) => err.push(l) },
      { json: false, target: 3, terminal: null },
    );
    for (const event of EVENTS) progress.event(event);
    progress.waiting(6_000, 'postgres://db');
    progress.waiting(7_000, 'postgres://db'); // one line a minute, not one per poll
    progress.done();
    expect(err).toEqual([
      'admitted alpha-env@1 (1/3)',
      expect.stringMatching(/^waiting for workers: a job has waited 6 s/),
    ]);
  });

  it('with --json: one JSON event per line, as before', () => {
    const err: string[] = [];
    const progress = batchProgress({ out: () => {}, err: (l) => err.push(l) }, { json: true, target: 3 });
    for (const event of EVENTS) progress.event(event);
    progress.done();
    expect(err.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(EVENTS.map((e) => e.type));
  });
});
