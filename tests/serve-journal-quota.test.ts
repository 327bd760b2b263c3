// The journal quota (serve/journal-quota.ts): every journal is charged to its client when written, open or ended;
// past the bound the client holding the most loses its oldest, its session leaving memory with it.
import { describe, expect, it } from 'vitest';
import type { Client } from '../serve/clients.js';
import type { EpisodeJournal } from '../serve/episode-journal.js';
import { JournalQuota } from '../serve/journal-quota.js';

const client = (principal: string) => ({ trusted: false, principal, id: null, key: principal }) as Client;

function quota(max: number, maxBytes?: number) {
  const removed: string[] = [];
  const forgotten: string[] = [];
  const journal = {
    ttlMs: 60_000,
    remove: async (id: string) => void removed.push(id),
  } as unknown as EpisodeJournal;
  return { q: new JournalQuota(journal, max, (id) => forgotten.push(id), maxBytes), removed, forgotten };
}

describe('JournalQuota', () => {
  it("counts journals as they are written, never waiting for an end: past the bound the writer's oldest goes", () => {
    const { q, removed, forgotten } = quota(3);
    const a = client('a');
    for (const id of ['a1', 'a2', 'a3']) q.wrote(a, id, 1_000);
    expect(removed).toEqual([]);
    q.wrote(a, 'a4', 1_000);
    expect(removed).toEqual(['a1']);
    expect(forgotten).toEqual(['a1']);
  });

  it('takes from the client holding the most, never from one within its share', () => {
    const { q, removed } = quota(4);
    const [a, b] = [client('a'), client('b')];
    q.wrote(b, 'b1', 1_000);
    for (const id of ['a1', 'a2', 'a3', 'a4', 'a5']) q.wrote(a, id, 1_000);
    q.wrote(b, 'b2', 1_000);
    expect(removed).toEqual(['a1', 'a2', 'a3']);
  });

  it('charges bytes too (V24-2): past the byte bound the client keeping the most bytes loses its oldest', () => {
    const { q, removed, forgotten } = quota(1_000, 100_000);
    const [a, b] = [client('a'), client('b')];
    // b keeps many small journals (the most by count), a few long ones (the most by bytes)
    for (let i = 1; i <= 20; i++) q.wrote(b, `b${i}`, 1_000, 300);
    q.wrote(a, 'a1', 1_000);
    for (let turn = 0; turn < 10; turn++) q.grew('a1', 4_600); // a journal grown line by line
    q.wrote(a, 'a2', 1_000, 300);
    expect(removed).toEqual([]);
    q.grew('a2', 48_000); // written differently: one long line; 6,000 + 46,000 + 48,300 > 100,000
    expect(removed).toEqual(['a1']);
    expect(forgotten).toEqual(['a1']); // an open episode's session leaves memory with its journal
    // a's remaining journal alone over the bound goes too, still never one of b's within the bound
    q.grew('a2', 60_000);
    expect(removed).toEqual(['a1', 'a2']);
    // bytes of a journal no longer counted (or never counted: a key record) charge no one
    q.grew('a1', 1_000_000);
    q.grew('key:x', 1_000_000);
    expect(removed).toEqual(['a1', 'a2']);
  });

  it('the count bound still takes by count, the byte bound by bytes, each from its own holder of the most', () => {
    const { q, removed } = quota(5, 50_000);
    const [a, b] = [client('a'), client('b')];
    q.wrote(a, 'a1', 1_000, 40_000);
    for (let i = 1; i <= 4; i++) q.wrote(b, `b${i}`, 1_000, 100);
    q.wrote(b, 'b5', 1_000, 100); // six journals: b holds the most by count
    expect(removed).toEqual(['b1']);
    q.grew('b5', 9_900); // 40,000 + 300 + 10,000 > 50,000: a holds the most by bytes
    expect(removed).toEqual(['b1', 'a1']);
  });

  it("a snapshot's charge never removes the journal it charges (V26-1): the next oldest goes, or it is refused", () => {
    const { q, removed } = quota(1_000, 100_000);
    const [a, b] = [client('a'), client('b')];
    q.wrote(b, 'b1', 1_000, 10_000);
    for (const id of ['a1', 'a2', 'a3']) q.wrote(a, id, 1_000, 20_000);
    // a holds the most and a1 is its oldest: a snapshot of a1 takes a2, never a1 itself
    expect(q.mayWrite('a1', 50_000)).toBe(true);
    expect(removed).toEqual(['a2']);
    // written differently: a snapshot of the newest journal takes the oldest, a1, now that it is not the one charged
    expect(q.mayWrite('a3', 40_000)).toBe(true);
    expect(removed).toEqual(['a2', 'a1']);
    // a3 is a's only journal: a snapshot past the cap would need a3 itself, so it is refused and its bytes given back
    expect(q.mayWrite('a3', 90_000)).toBe(false);
    expect(removed).toEqual(['a2', 'a1']); // b, within its share, keeps its journal
    expect(q.mayWrite('b1', 1_000)).toBe(true); // the refused bytes were given back: there is room again
    // a journal not counted by this process (before a restart) charges no one, as its lines do
    expect(q.mayWrite('gone', 1_000_000)).toBe(true);
    expect(removed).toEqual(['a2', 'a1']);
  });

  it("a snapshot charges only its growth, its size kept on the journal's record: gone with the journal", () => {
    const { q, removed } = quota(10, 100_000);
    const a = client('a');
    q.wrote(a, 'a1', 1_000, 10_000);
    q.wrote(a, 'a2', 1_000, 10_000);
    expect(q.maySnapshot('a2', 60_000)).toBe(true); // 80,000 charged
    expect(q.maySnapshot('a2', 50_000)).toBe(true); // smaller: nothing more charged
    expect(q.maySnapshot('a2', 70_000)).toBe(true); // 10,000 more: 90,000
    expect(removed).toEqual([]);
    expect(q.maySnapshot('a2', 85_000)).toBe(true); // 15,000 more is past the bound: a1 goes, never a2
    expect(removed).toEqual(['a1']);
    // a journal this process does not count keeps nothing and charges no one, however many snapshots it sees
    for (let i = 0; i < 1_000; i++) expect(q.maySnapshot(`old${i}`, 1_000_000)).toBe(true);
    expect(removed).toEqual(['a1']);
  });
});
