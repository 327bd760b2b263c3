// The lighter options a test may judge an episodic hack at: only the checks that can give its code, with the
// random-policy and finish-alone probes cut (so the checks that run see a validation at the defaults); the red-team
// runners use them only for a closed hack whose manifest names a code those probes do not give.
import { describe, expect, it } from 'vitest';
import { episodicBaselines } from '../validators/checks/episodic-baselines.js';
import { runEpisodicChecks } from '../validators/checks/episodic.js';
import { CHECKS } from '../validators/checks/registry.js';
import { DEFAULT_VALIDATOR_OPTIONS } from '../validators/options.js';
import { judgedOptions, type RedteamEntry } from './helpers/redteam-manifest.js';
import { episodicHackOptions } from './helpers/validation-seeds.js';

const BASELINE_CODES = episodicBaselines.codes as readonly string[];

describe('episodicHackOptions', () => {
  it('differs from the defaults only in the checks run and the random-policy and finish-alone probe counts', () => {
    const options = episodicHackOptions('E_RULE_IGNORED');
    const { episodic, ...rest } = options ?? {};
    expect(rest).toEqual({});
    const changed = Object.keys(DEFAULT_VALIDATOR_OPTIONS.episodic).filter(
      (k) => episodic?.[k as keyof typeof episodic] !== DEFAULT_VALIDATOR_OPTIONS.episodic[k as keyof typeof episodic],
    );
    expect(changed.sort()).toEqual(['checks', 'finishAloneSamples', 'randomPerLevel']);
    // The checks that can give the code run, no other: not the baselines, which give none of them.
    const giving = CHECKS.filter((c) => c.kinds.includes('episodic') && c.codes.includes('E_RULE_IGNORED'));
    expect(giving.length).toBeGreaterThan(0);
    expect(giving.map((c) => c.name)).not.toContain(episodicBaselines.name);
    expect([...(episodic?.checks ?? [])].sort()).toEqual(giving.map((c) => c.name).sort());
    expect(episodic?.randomPerLevel).toBeLessThan(DEFAULT_VALIDATOR_OPTIONS.episodic.randomPerLevel);
    expect(episodic?.finishAloneSamples).toBeLessThan(DEFAULT_VALIDATOR_OPTIONS.episodic.finishAloneSamples);
  });

  it('keeps the defaults for the codes the cut probes give, and only those among the baselines', () => {
    const cutBy = ['E_ACCEPTS_RANDOM_POLICY', 'E_ACCEPTS_REPEATED_ACTION', 'E_LEVEL_IGNORED'];
    for (const code of cutBy) expect(episodicHackOptions(code), code).toBeUndefined();
    const kept = BASELINE_CODES.filter((code) => !cutBy.includes(code));
    expect(kept).toEqual(
      expect.arrayContaining(['E_ACCEPTS_SHORTCUT', 'E_ACCEPTS_OTHER_EPISODE', 'E_ACCEPTS_NO_ACTION']),
    );
    // A code the baselines give besides the cut probes runs them (with the other checks that give it).
    for (const code of kept)
      expect(episodicHackOptions(code)?.episodic?.checks, code).toContain(episodicBaselines.name);
  });
});

describe('options.episodic.checks', () => {
  it('refuses a name no episodic check has, rather than judging nothing', async () => {
    const ctx = { stage: { options: { ...DEFAULT_VALIDATOR_OPTIONS, episodic: { checks: ['no-such-check'] } } } };
    await expect(runEpisodicChecks(CHECKS, ctx as never)).rejects.toThrow(/names no episodic check: no-such-check/);
  });
});

describe('judgedOptions', () => {
  const entry = (over: Partial<RedteamEntry>): RedteamEntry => ({
    file: 'x/hack.js',
    kind: 'episodic',
    class: 'c',
    expect: 'reject',
    status: 'closed',
    note: '',
    code: 'E_RULE_IGNORED',
    ...over,
  });

  it('lightens a closed episodic hack whose named code the baselines do not give', () => {
    expect(judgedOptions(entry({}))).toEqual(episodicHackOptions('E_RULE_IGNORED'));
    expect(judgedOptions(entry({ code: 'E_ACCEPTS_SHORTCUT' }))).toBeDefined();
  });

  it('keeps the defaults for a twin, an open finding, a hack with no code, a baseline code and other kinds', () => {
    for (const over of [
      { expect: 'admit' as const, code: undefined },
      { status: 'open' as const },
      { code: undefined },
      { code: 'E_ACCEPTS_RANDOM_POLICY' },
      { kind: 'single-turn' as const },
      { kind: 'code' as const },
    ])
      expect(judgedOptions(entry(over)), JSON.stringify(over)).toBeUndefined();
  });
});
