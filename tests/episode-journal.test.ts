// The episode journal on its own: ids carry their identity and refuse forgeries, lines come back in order,
// a torn line (a crash or failed write) is skipped, a line out of order ends what is trusted, a write resolves
// only once it has landed, and old journals expire; its files are private (ids are secrets); the writer keeps many
// files open and writes them at once.
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { EpisodeJournal, newEpisodeId, parseEpisodeId } from '../serve/episode-journal.js';
import { JournalWriter } from '../serve/journal-writer.js';

const identity = { env: 'warehouse-restock', version: 2, seed: 77, level: 3 };

describe('episode ids', () => {
  it('carry the identity and refuse anything else', () => {
    const id = newEpisodeId(identity);
    expect(parseEpisodeId(id)).toEqual(identity);
    expect(newEpisodeId(identity)).not.toBe(id);
    for (const bad of [
      '',
      'ep1',
      `${id}x`,
      id.replace('ep1.', 'ep2.'),
      `ep1.${Buffer.from('[1,2]').toString('base64url')}.${'0'.repeat(32)}`,
      `ep1.!!.${'0'.repeat(32)}`,
      'ep1.'.repeat(300),
    ]) {
      expect(parseEpisodeId(bad), bad.slice(0, 40)).toBeNull();
    }
  });
});

describe('the journal', () => {
  it('reads back what was written, in order, up to a torn or out-of-order line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'envforge-journal-'));
    const journal = new EpisodeJournal(dir, 60_000);
    const id = newEpisodeId(identity);
    journal.create(id, { ...identity, hash: 'abc' });
    for (let turn = 1; turn <= 3; turn++) journal.append(id, turn, { tool: 'order', args: { qty: turn } });
    expect(await journal.read(id)).toEqual({
      identity: { ...identity, hash: 'abc' },
      actions: [1, 2, 3].map((qty) => ({ tool: 'order', args: { qty } })),
      ended: null,
    });
    journal.end(id, { end: 'done' });
    expect((await journal.read(id))?.ended).toEqual({ end: 'done' });
    expect(await journal.read(newEpisodeId(identity))).toBeNull();

    // A line that skips a turn (two writers raced) and a torn line (a crash mid-write) end what is trusted.
    const other = new EpisodeJournal(mkdtempSync(join(tmpdir(), 'envforge-journal-')), 60_000);
    const torn = newEpisodeId(identity);
    other.create(torn, { ...identity, hash: 'abc' });
    other.append(torn, 1, { tool: 'a' });
    other.append(torn, 2, { tool: 'b' });
    await other.settle();
    appendFileSync(join(other.dir, readdirSync(other.dir)[0] as string), '{"turn":3,"act');
    expect(await other.read(torn)).toMatchObject({ actions: [{ tool: 'a' }, { tool: 'b' }], ended: null });
    const skips = newEpisodeId(identity);
    other.create(skips, { ...identity, hash: 'abc' });
    other.append(skips, 1, { tool: 'a' });
    other.append(skips, 3, { tool: 'skipped a turn' });
    other.end(skips, { end: 'done' });
    expect(await other.read(skips)).toMatchObject({ actions: [{ tool: 'a' }], ended: null });
  });

  it(
    'resolves a write once it has landed and rejects one that cannot land; a torn line ' +
      'then starts no trusted turn',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'envforge-journal-'));
      const journal = new EpisodeJournal(dir, 60_000);
      const id = newEpisodeId(identity);
      await journal.create(id, { ...identity, hash: 'h' });
      await journal.append(id, 1, { tool: 'a' });
      expect((await journal.read(id))?.actions).toEqual([{ tool: 'a' }]);
      // The folder is gone (as good as a full disk for a file not yet open): the write rejects and is counted.
      const lost = newEpisodeId(identity);
      renameSync(dir, `${dir}.away`);
      writeFileSync(dir, '');
      await expect(journal.create(lost, { ...identity, hash: 'h' })).rejects.toThrow();
      expect(journal.writeErrors).toBe(1);
      rmSync(dir);
      renameSync(`${dir}.away`, dir);
      // A line torn mid-write is skipped; the turn written again after it is trusted.
      appendFileSync(join(dir, readdirSync(dir)[0] as string), '{"turn":2,"act\n');
      await journal.append(id, 2, { tool: 'b' });
      expect((await journal.read(id))?.actions).toEqual([{ tool: 'a' }, { tool: 'b' }]);
      await journal.settle();
    },
  );

  it('deletes journals untouched for longer than their time to live', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'envforge-journal-'));
    const journal = new EpisodeJournal(dir, 1_000);
    const [old, fresh] = [newEpisodeId(identity), newEpisodeId(identity)];
    journal.create(old, { ...identity, hash: 'h' });
    journal.create(fresh, { ...identity, hash: 'h' });
    await journal.settle();
    const files = readdirSync(dir);
    const past = new Date(Date.now() - 10_000);
    for (const f of files) utimesSync(join(dir, f), past, past);
    journal.append(fresh, 1, { tool: 'x' });
    await journal.settle();
    expect(await journal.sweep()).toBe(1);
    expect(await journal.read(old)).toBeNull();
    expect((await journal.read(fresh))?.actions).toEqual([{ tool: 'x' }]);
  });

  it(
    'writes many files at once: each line resolves once it is on disk, in order per file, and a file that ' +
      'cannot be written fails only its own lines',
    async () => {
      const writer = new JournalWriter();
      const dir = mkdtempSync(join(tmpdir(), 'envforge-journal-'));
      const files = Array.from({ length: 300 }, (_, i) => join(dir, `f${i}.jsonl`));
      const gone = join(dir, 'no-such-folder', 'x.jsonl');
      const writes = files.flatMap((file) =>
        [1, 2, 3].map((n) => writer.write(file, `${n}\n`).then(() => readFileSync(file, 'utf8'))),
      );
      const failed = writer.write(gone, 'lost\n').then(
        () => null,
        (error: unknown) => error,
      );
      const seen = await Promise.all(writes);
      // Every write resolved only once its own line (and those before it) was on disk.
      seen.forEach((text, k) => expect(text.startsWith(['1\n', '1\n2\n', '1\n2\n3\n'][k % 3] as string)).toBe(true));
      expect(await failed).toMatchObject({ code: 'ENOENT' });
      expect(writer.writeErrors).toBe(1);
      // The failed file's next line starts a new line (its last write may have been torn); the others are untouched.
      mkdirSync(join(dir, 'no-such-folder'));
      await writer.write(gone, 'next\n');
      expect(readFileSync(gone, 'utf8')).toBe('\nnext\n');
      await writer.settle();
      expect(files.map((f) => readFileSync(f, 'utf8'))).toEqual(files.map(() => '1\n2\n3\n'));
    },
  );
});

describe('the journal keeps the ids it holds from other local accounts (V25-5)', () => {
  const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

  it('makes its folder 0700 and its files 0600, and narrows a folder of its own left open', async () => {
    const root = mkdtempSync(join(tmpdir(), 'envforge-journal-'));
    chmodSync(root, 0o755);
    const made = join(root, 'made', 'episodes');
    const journal = new EpisodeJournal(made, 60_000);
    const id = newEpisodeId(identity);
    await journal.create(id, { ...identity, hash: 'h' });
    await journal.bindKey('client\u0000key', id);
    await journal.settle();
    expect(modeOf(made)).toBe('700');
    expect(readdirSync(made).map((f) => modeOf(join(made, f)))).toEqual(['600', '600']);
    // A folder made earlier (an older service, the operator's umask) that others may enter is narrowed at start.
    const open = join(root, 'open');
    mkdirSync(open, { mode: 0o755 });
    chmodSync(open, 0o755);
    new EpisodeJournal(open, 60_000);
    expect(modeOf(open)).toBe('700');
  });

  it("refuses at start a folder others may enter that is another account's", () => {
    const dir = mkdtempSync(join(tmpdir(), 'envforge-journal-'));
    chmodSync(dir, 0o750);
    const uid = vi.spyOn(process, 'getuid').mockReturnValue(statSync(dir).uid + 1);
    try {
      expect(() => new EpisodeJournal(dir, 60_000)).toThrow(/open to other accounts/);
    } finally {
      uid.mockRestore();
    }
    expect(modeOf(dir)).toBe('750');
  });
});
