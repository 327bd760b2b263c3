// `--kind mixed` shares the target between the kinds: half each kept, an odd last place to whichever kind
// fills it first, a full kind's specs set aside, and an exhausted kind's share handed to the other.
import { describe, expect, it } from 'vitest';
import { KindShare } from '../pipeline/kind-share.js';

describe('the mixed kind share', () => {
  it.each([
    [10, { single: 5, episodic: 5, code: 0 }],
    [3, { single: 1, episodic: 1, code: 0 }],
    [1, { single: 0, episodic: 0, code: 0 }],
  ])('target %i keeps %j for the kinds', (target, wanted) => {
    expect(new KindShare('mixed', target).wanted).toEqual(wanted);
  });

  it('gives an odd last place to whichever kind fills it first', () => {
    const share = new KindShare('mixed', 3);
    expect([share.start('single'), share.start('single'), share.start('single')]).toEqual([true, true, false]);
    expect([share.ask(), share.start('episodic')]).toEqual(['episodic', true]);
    expect(new KindShare('mixed', 1).start('single')).toBe(true);
  });

  it("asks for both kinds until one is full, then sets that kind's specs aside and asks for the other alone", () => {
    const share = new KindShare('mixed', 2);
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

  it("hands the rest of a kind's share to the other when a round asked for that kind alone brings nothing", () => {
    const share = new KindShare('mixed', 4);
    share.start('single');
    share.admitted('single');
    share.finish('single');
    share.start('single');
    share.admitted('single');
    share.finish('single');
    expect(share.ask()).toBe('episodic');
    expect(share.roundBrought('episodic', 0)).toBe(true); // the share moved: set-aside single-turn specs may start
    expect(share.wanted).toEqual({ single: 4, episodic: 0, code: 0 });
    expect([share.ask(), share.start('single')]).toEqual(['single', true]);
  });

  it('a single-kind batch is not shared', () => {
    const share = new KindShare('single', 3);
    expect([share.ask(), share.start('episodic'), share.wanted]).toEqual([
      'single',
      true,
      { single: 3, episodic: 0, code: 0 },
    ]);
  });
});
