// What an episode says about an entity (validators/episodic/described.ts, rt14 Y5): the replies made for it whole,
// the rows naming it on either side of its id, and lists that name entities without saying anything of them.
import { describe, expect, it } from 'vitest';
import { rowsNaming, saidAbout, type Said } from '../validators/episodic/described.js';

const ids = ['T1', 'T2', 'T3'];
const any = /T1|T2|T3/g;
const read = (id: string, reply: string): Said => ({ tool: 'read_ticket', args: { ticket_id: id }, reply });

describe('what the episode says about an entity', () => {
  it('compares the whole reply of the same read, wherever the id stands in it', () => {
    const calls = [read('T1', '"I was charged twice." (ticket T1)'), read('T2', '"My parcel is late." (ticket T2)')];
    expect(saidAbout('', calls, ['T1'], ids)).toEqual(['read_ticket ticket id @: i was charged twice ticket @']);
    expect(saidAbout('', calls, ['T1'], ids)).not.toEqual(saidAbout('', calls, ['T2'], ids));
    const alike = [read('T1', '"A ticket." (ticket T1)'), read('T2', '"A ticket." (ticket T2)')];
    expect(saidAbout('', alike, ['T1'], ids)).toEqual(saidAbout('', alike, ['T2'], ids));
    // An entity read and one never read are not known to be alike.
    expect(saidAbout('', alike.slice(0, 1), ['T1'], ids)).not.toEqual(saidAbout('', alike.slice(0, 1), ['T2'], ids));
  });

  it('gives a row the text before its id as much as the text after', () => {
    expect(rowsNaming('"charged twice" (T1); "late parcel" (T2); "app crash" (T3)', any, ['T2'])).toEqual([
      'late parcel @',
    ]);
    expect(rowsNaming('T1 (charged twice), T2 (late parcel)', any, ['T1'])).toEqual(['@ charged twice']);
    // Where no separator stands between every two ids, a row spans from the id before to the id after.
    expect(rowsNaming('charged T1 then late T2 then crash T3', any, ['T2'])).toEqual(['then late @ then crash']);
    // A one-entity line is its row whole.
    expect(rowsNaming('- "charged twice" is T3.', any, ['T3'])).toEqual(['charged twice is @']);
  });

  it('reads a plain list of ids, or a list whose rows all say the same, as saying nothing apart', () => {
    expect(rowsNaming('Open tickets: T1, T2 and T3.', any, ['T1'])).toEqual([]);
    const duty = 'On duty: T1 (available), T2 (available), T3 (available)';
    expect(['T1', 'T2', 'T3'].map((t) => rowsNaming(duty, any, [t]))).toEqual([
      ['@ available'],
      ['@ available'],
      ['@ available'],
    ]);
  });

  it('reads the rows naming the entity in the prompt and in replies made for no entity', () => {
    const listing: Said = { tool: 'list', args: {}, reply: 'Open: "late" (T1); "late" (T2); "crash" (T3)' };
    const prompt = 'Route each ticket.\nT3 is urgent.';
    expect(saidAbout(prompt, [listing], ['T1'], ids)).toEqual(saidAbout(prompt, [listing], ['T2'], ids));
    expect(saidAbout(prompt, [listing], ['T3'], ids)).toEqual(['list: crash @', 'prompt: @ is urgent']);
  });
});
