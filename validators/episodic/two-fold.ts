// Two-fold trials of a learned reader (the field, digit, ask and pick readers): a rule fitted on one half of the
// samples is judged on the other, per level and pooled.
import type { Trial } from '../checks/rules.js';

/**
 * Two-fold trials of a learned reader, per level and pooled: a rule fitted on one half of the samples (`fit`,
 * null where none) reads each sample of the other (`read`: the value it picks, or null); chance is that pick
 * against up to three other samples' values at the level, as the single-turn readers judge (a decision that is
 * nearly always the same value is no secret, however it is read). A reader that picks among a sample's own
 * candidates (`judge`) scores its pick itself, against the chance of a random pick of the same size.
 */
export function twoFold<S extends { level: number; value: string }, R>(
  samples: readonly S[],
  fit: (members: number[]) => R | null,
  read: (rule: R, s: S) => string | null,
  judge?: (rule: R, s: S) => { win: number; chance: number },
): { level: Trial[]; pooled: Trial[]; rules: R[] } {
  const levels = new Map<number, number[]>();
  samples.forEach((s, i) => levels.set(s.level, [...(levels.get(s.level) ?? []), i]));
  const fold = (i: number) => (levels.get((samples[i] as S).level) as number[]).indexOf(i) % 2;
  const trial = (rule: R | null, i: number): Trial => {
    const s = samples[i] as S;
    if (judge) return { level: s.level, ...(rule === null ? { win: 0, chance: 0 } : judge(rule, s)) };
    const members = levels.get(s.level) as number[];
    const pick = rule === null ? null : read(rule, s);
    const at = members.indexOf(i);
    const peers = [1, 2, 3]
      .slice(0, Math.max(0, members.length - 1))
      .map((k) => samples[members[(at + k) % members.length] as number] as S);
    return {
      level: s.level,
      win: pick === s.value ? 1 : 0,
      chance: pick === null || peers.length === 0 ? 0 : peers.filter((p) => p.value === pick).length / peers.length,
    };
  };
  const level: Trial[] = [];
  for (const members of levels.values()) {
    const halves = [0, 1].map((h) => fit(members.filter((i) => fold(i) === h)));
    for (const i of members) level.push(trial(halves[1 - fold(i)] ?? null, i));
  }
  const all = [...samples.keys()];
  const pooled = [0, 1].map((h) => fit(all.filter((i) => fold(i) === h)));
  return {
    level,
    pooled: all.map((i) => trial(pooled[1 - fold(i)] ?? null, i)),
    rules: pooled.filter((r): r is R => r !== null),
  };
}
