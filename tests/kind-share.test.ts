// `--kind mixed` shares the target between the kinds: half each, the odd one to the kind the library
// holds fewer of, a full kind's specs set aside, and an exhausted kind's share handed to the other.
import { describe, expect, it } from 'vitest';
import { KindShare } from '../pipeline/kind-share.js';

describe('the mixed kind share', () => {
  it.each([
    [10, { single: 12, episodic: 0 }, { single: 5, episodic: 5 }],
    [3, { single: 12, episodic: 0 }, { single: 1, episodic: 2 }],
    [3, { single: 2, episodic: 8 }, { single: 2, episodic: 1 }],
  ])('target %i over a library of %j wants %j', (target, library, wanted) => {
    expect(new KindShare('mixed', target, library).wanted).toEqual(wanted);
  });

  it('asks for both kinds until one is full, then sets that kind\'s specs aside and asks for the other alone', () => {
    const share = new KindShare('mixed', 2, { single: 12, episodic: 0 });
    expect(share.ask()).toBe('mixed');
    expect(share.start('single')).toBe(true);
    expect(share.ask()).toBe('episodic');
    expect(share.start('single')).toBe(false);
    share.finish('single'); // rejected: its place opens again
    expect(share.start('single')).toBe(true);
    share.admitted('single');
    share.finish('single');
    expect([share.start('single'), share.setAside]).toEqual([false, 2]);
  });

  it('hands the rest of a kind\'s share to the other when a round asked for that kind alone brings nothing', () => {
    const share = new KindShare('mixed', 4, { single: 12, episodic: 0 });
    share.start('single');
    share.admitted('single');
    share.finish('single');
    share.start('single');
    share.admitted('single');
    share.finish('single');
    expect(share.ask()).toBe('episodic');
    expect(share.roundBrought('episodic', 0)).toBe(true); // the share moved: set-aside single-turn specs may start
    expect(share.wanted).toEqual({ single: 4, episodic: 0 });
    expect([share.ask(), share.start('single')]).toEqual(['single', true]);
  });

  it('a single-kind batch is not shared', () => {
    const share = new KindShare('single', 3, { single: 0, episodic: 0 });
    expect([share.ask(), share.start('episodic'), share.wanted]).toEqual(['single', true, { single: 3, episodic: 0 }]);
  });
});
