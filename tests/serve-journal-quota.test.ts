// The journal quota (serve/journal-quota.ts): every journal is charged to its client when written, open or ended;
// past the bound the client holding the most loses its oldest, its session leaving memory with it.
import { describe, expect, it } from 'vitest';
import type { Client } from '../serve/clients.js';
import type { EpisodeJournal } from '../serve/episode-journal.js';
import { JournalQuota } from '../serve/journal-quota.js';

const client = (principal: string) => ({ trusted: false, principal, id: null, key: principal }) as Client;

function quota(max: number) {
  const removed: string[] = [];
  const forgotten: string[] = [];
  const journal = {
    ttlMs: 60_000,
    remove: async (id: string) => void removed.push(id),
  } as unknown as EpisodeJournal;
  return { q: new JournalQuota(journal, max, (id) => forgotten.push(id)), removed, forgotten };
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
});
