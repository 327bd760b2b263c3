// A batch-journal writer for crash tests: appends groups of journal entries to a library's batches (a SQLite folder or
// a PostgreSQL URL) in an endless loop until it is killed. Run as
//   node --import tsx tests/helpers/journal-loop.ts DIR START_INDEX
// It resumes the shared batches (JOURNAL_SHARED_BATCHES) that earlier writers left running, first
// replaying their last group (which must be a no-op), and runs batches of its own, finishing each after
// OWN_BATCH_GROUPS groups. Every group is one appendJournal call of 1–4 entries, carrying the ledger
// { lastSeq, group } in the same transaction. Reported on stdout, written synchronously after the call
// returned (so a reported line is committed), each call's lines in one write:
//   entry <batchId> <seq> <kind> <key> <group> <size>     (one per entry of an appended group)
//   replay <batchId> <seq> <kind> <key>                   (one per entry of a replayed group)
//   finished <batchId>
// and `ready` follows the first appended group. Imported (not run), it exports spawnJournalLoop().
import { fileURLToPath } from 'node:url';
import type { JournalEntry } from '../../library/contract.js';
import { openLibrary } from '../../library/open.js';
import { runIfMain, spawnLoop, type Loop } from './killable.js';

const SCRIPT = fileURLToPath(import.meta.url);

export const JOURNAL_SHARED_BATCHES = ['journal-alpha', 'journal-beta'] as const;
/** Groups a writer appends to one of its own batches before finishing it. */
export const OWN_BATCH_GROUPS = 12;
/** A safety net: the loop stops by itself after this long even if nobody kills it. */
const MAX_RUN_MS = 120_000;

/** The payload of every entry the loop appends: which group it belongs to, the group's size, its place in it. */
export interface LoopPayload {
  group: string;
  size: number;
  j: number;
  pad: string;
}

/** The ledger the loop saves with every group: the batch's highest seq once the group is committed. */
export interface LoopLedger {
  lastSeq: number;
  group: string;
}

async function main(dir: string, start: number): Promise<void> {
  const library = openLibrary(dir, { create: true });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const deadline = Date.now() + MAX_RUN_MS;

  /** batchId -> its highest seq. */
  const lastSeqs = new Map<string, number>();
  // Resume the shared batches and replay each one's last group, as a resumed run replays its last step.
  for (const id of JOURNAL_SHARED_BATCHES) {
    await library.startBatch(id, { shared: true, firstWriter: start });
    const journal = await library.journal(id);
    const last = journal.at(-1);
    lastSeqs.set(id, last?.seq ?? 0);
    if (!last) continue;
    const group = (last.payload as LoopPayload).group;
    const replay = journal
      .filter((e) => (e.payload as LoopPayload).group === group)
      .map(({ kind, key, payload }) => ({ kind, key, payload }));
    say((await library.appendJournal(id, replay)).map((e) => `replay ${id} ${e.seq} ${e.kind} ${e.key}`).join('\n'));
  }

  let own = 0;
  let ownId = `journal-own-${start}-${own}`;
  let ownGroups = 0;
  await library.startBatch(ownId, { shared: false, writer: start });
  let ready = false;
  for (let i = start; Date.now() < deadline; i++) {
    const batchId = i % 3 === 2 ? ownId : JOURNAL_SHARED_BATCHES[i % 3]!;
    const size = 1 + (i % 4);
    const group = `g${i}`;
    const entries = Array.from({ length: size }, (_, j) => ({
      kind: j % 2 ? 'admitted' : 'call',
      key: `${i}.${j}`,
      payload: { group, size, j, pad: 'x'.repeat((i * 37 + j * 101) % 700) } satisfies LoopPayload,
    }));
    // The ledger names the seq this group will end at: one writer at a time, so nobody else appends, and
    // the loop dies (a test failure) if the entries come back with other seqs.
    const lastSeq = (lastSeqs.get(batchId) ?? 0) + size;
    const appended: JournalEntry[] = await library.appendJournal(batchId, entries, {
      ledger: { lastSeq, group } satisfies LoopLedger,
    });
    if (appended.map((e) => e.seq).join() !== entries.map((_, j) => lastSeq - size + 1 + j).join())
      throw new Error(
        `group ${group} of ${batchId} got seqs ${appended.map((e) => e.seq).join()}, expected ` +
          `${lastSeq - size + 1}..${lastSeq}`,
      );
    lastSeqs.set(batchId, lastSeq);
    // One write for the whole group (a pipe write this small is atomic), so a kill never reports half of it.
    say(appended.map((e) => `entry ${batchId} ${e.seq} ${e.kind} ${e.key} ${group} ${size}`).join('\n'));
    if (!ready) {
      say('ready');
      ready = true;
    }
    if (batchId === ownId && ++ownGroups === OWN_BATCH_GROUPS) {
      await library.finishBatch(ownId, 'finished', { groups: ownGroups });
      say(`finished ${ownId}`);
      ownId = `journal-own-${start}-${++own}`;
      ownGroups = 0;
      await library.startBatch(ownId, { shared: false, writer: start });
    }
  }
  await library.close();
}

export interface JournalLoop extends Loop {
  /** `batchId|kind|key` -> seq of every entry the child reported as appended. */
  appended: Map<string, number>;
  /** Groups the child reported: `batchId|group` -> { size, seqs }. */
  groups: Map<string, { size: number; seqs: number[] }>;
  /** `batchId|kind|key` -> seq of every entry the child's replays returned. */
  replayed: Map<string, number>;
  finished: string[];
}

export function spawnJournalLoop(dir: string, start: number, readyTimeoutMs = 20_000): JournalLoop {
  const appended = new Map<string, number>();
  const groups = new Map<string, { size: number; seqs: number[] }>();
  const replayed = new Map<string, number>();
  const finished: string[] = [];
  const loop = spawnLoop(SCRIPT, dir, start, readyTimeoutMs, (line) => {
    const [what, batchId, seq, kind, key, group, size] = line.split(' ');
    if (what === 'entry' && group && size) {
      appended.set(`${batchId}|${kind}|${key}`, Number(seq));
      const g = groups.get(`${batchId}|${group}`) ?? { size: Number(size), seqs: [] };
      g.seqs.push(Number(seq));
      groups.set(`${batchId}|${group}`, g);
    } else if (what === 'replay' && key) {
      replayed.set(`${batchId}|${kind}|${key}`, Number(seq));
    } else if (what === 'finished' && batchId) {
      finished.push(batchId);
    }
  });
  return { ...loop, appended, groups, replayed, finished };
}

runIfMain(SCRIPT, main);
