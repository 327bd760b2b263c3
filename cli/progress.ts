// The one place `envforge run` and `envforge nightly` print their progress: on a terminal one status line
// updated in place (log-update: "admitted 4/10, 2 rejected, 1 validating, elapsed 0:42"), with lines that
// must stay (the frontier, nightly's steps) printed above it; with --json one JSON event per line on stderr;
// otherwise (logs, pipes) one plain line per admission. Names a module chose pass through `shown`.
import { createLogUpdate } from 'log-update';
import type { BatchEvent } from '../pipeline/batch.js';
import type { FrontierReport } from '../pipeline/steering.js';
import { concat, type Io, json, line, type Printed, terminalSafe } from './io.js';

export interface Progress {
  event(event: BatchEvent): void;
  /** Remote jobs have waited this long with no worker taking them. */
  waiting(waitedMs: number, where: string): void;
  /** A line that stays printed (above the status line on a terminal). */
  line(text: string): void;
  /** Stops updating and leaves the last status line in place. */
  done(): void;
}

export interface ProgressOptions {
  json: boolean;
  target: number;
  /** The terminal to update in place (default: stderr when it is a TTY and --json is not given). */
  terminal?: NodeJS.WritableStream | null;
  now?: () => number;
}

/** Text a module chose (environment names), as the terminal gets it: the one place to escape it. */
export const shown = (text: string): string => text;

const clock = (ms: number) => {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60));
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm.padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
};

/** The frontier a batch steers by, in words: what it aims at, what it wants, what this author cannot train. */
export function frontierLines(f: FrontierReport): Printed[] {
  const pct = (rate: number) => `${(100 * rate).toFixed(0)}%`;
  const lines = [
    `feedback: weak ${f.weak.map((w) => `${w.skill} ${pct(w.passRate)}`).join(', ') || '(none trainable)'}; ` +
      `saturated ${f.saturated.map((w) => `${w.skill} ${pct(w.passRate)}`).join(', ') || '(none)'}`,
    f.weakWanted > 0
      ? `feedback: weak share ${pct(f.weakShare)}: ${f.weakWanted} of the admissions should train a weak skill ` +
        `(${f.weak.map((w) => `${w.skill} ${w.wanted}`).join(', ')})`
      : 'feedback: no weak skill this author can train: the batch is not steered',
  ];
  if (f.untrainable.length > 0)
    lines.push(
      `feedback: this author cannot train the weak skills ${f.untrainable.map((w) => w.skill).join(', ')}: ` +
        `they are left out of the share`,
    );
  return lines.map((text) => line`${text}`);
}

export function batchProgress(io: Io, options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const started = now();
  const terminal =
    options.terminal !== undefined ? options.terminal : !options.json && process.stderr.isTTY ? process.stderr : null;
  const render = terminal ? createLogUpdate(terminal) : null;
  const counts = { admitted: 0, rejected: 0, written: 0, validated: 0 };
  let weak = '';
  let waitedMs: number | null = null;
  let stopped = '';
  let nextWaitLine = 5_000;
  const status = () =>
    `admitted ${counts.admitted}/${options.target}${weak}, ${counts.rejected} rejected, ` +
    `${Math.max(0, counts.written - counts.validated)} validating, elapsed ${clock(now() - started)}` +
    (waitedMs !== null ? `; waiting for workers (${clock(waitedMs)})` : '') +
    (stopped ? `; stopped: ${stopped}` : '');
  // What goes straight to the terminal (not through io) is escaped here: the status line names no module text today,
  // but stays safe if it does.
  const draw = () => render?.(terminalSafe(status()));
  const timer = render ? setInterval(draw, 1000) : null;
  timer?.unref();
  const stay = (text: Printed) => {
    if (render) {
      render.clear();
      terminal?.write(`${terminalSafe(text)}\n`);
      draw();
    } else io.err(text);
  };
  return {
    event(event) {
      // The frontier is said in words in every mode (also before its JSON event).
      if (event.type === 'frontier') for (const text of frontierLines(event.frontier)) stay(text);
      if (options.json) return io.err(json({ at: new Date(now()).toISOString(), ...event }));
      if (event.type === 'specs')
        for (const warning of event.warnings ?? []) stay(line`warning: architect: ${warning}`);
      if (event.type === 'candidate' && event.step === 'written') counts.written++;
      if (event.type === 'candidate' && event.step === 'validated') {
        counts.validated++;
        if (event.verdict === 'reject') counts.rejected++;
        waitedMs = null;
      }
      if (event.type === 'admitted') {
        counts.admitted++;
        if (event.weak) weak = `, weak skills ${event.weak.admitted}/${event.weak.wanted}`;
        if (!render)
          io.err(line`admitted ${shown(event.name)}@${event.version} (${counts.admitted}/${options.target})`);
      }
      if (event.type === 'stopped') stopped = event.reason;
      draw();
    },
    waiting(waited, where) {
      if (options.json || !render) {
        if (waited < nextWaitLine) return;
        nextWaitLine = waited + 60_000;
        return void io.err(
          concat(
            line`waiting for workers: a job has waited ${Math.round(waited / 1000)} s and no envforge worker has `,
            line`taken it; start one with: envforge worker --database ${where}`,
          ),
        );
      }
      waitedMs = waited;
      draw();
    },
    line: stay,
    done() {
      if (timer) clearInterval(timer);
      if (render) {
        draw();
        render.done();
      }
    },
  };
}
