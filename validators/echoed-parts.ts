// The parts of a level's references a policy copies from the prompt instead of working out (rt27s S2): a token place of
// the references (the k-th token from either end) that one rule of the encodings reader (leak.ts: a fixed place in the
// prompt, an encoding) reads from each instance's own prompt on most of the level (an echoed ticket, the asker's name)
// is masked in every reference of that level, so a memoriser and its chance judge only the part to be worked out.
import { tokenize } from './answers.js';
import { ENCODINGS } from './leak.js';
import type { ReaderSample } from './readers.js';

/** The token places read from each end of a reference (an id or a name opens or closes an answer). */
const PLACES = 4;
/** The share of a level's references whose token at a place one encodings rule reads for it to be an echo. */
const MIN_SHARE = 0.8;

/** Whether one encodings rule reads `tokens[i]` from `prompts[i]` for at least MIN_SHARE of all the level's samples. */
function echoed(prompts: readonly string[], tokens: ReadonlyArray<string | undefined>, of: number): boolean {
  const at = tokens.flatMap((t, i) => (t === undefined ? [] : [i]));
  if (at.length < MIN_SHARE * of) return false;
  const samples: ReaderSample[] = at.map((i) => ({
    seed: i,
    level: 0,
    reference: tokens[i] as string,
    instance: { prompt: prompts[i] as string },
  }));
  const family = ENCODINGS.prepare(samples);
  if (!family) return false;
  const reads = new Map<string, number>();
  samples.forEach((_, i) => {
    for (const [rule] of family.fit(i)) reads.set(rule, (reads.get(rule) ?? 0) + 1);
  });
  return Math.max(0, ...reads.values()) >= MIN_SHARE * of;
}

/**
 * One level's answers with their echoed token places masked (their other tokens, lower case, joined by a space), or
 * the answers as they are where no place is echoed.
 */
export function maskEchoes(prompts: readonly string[], answers: readonly string[]): string[] {
  const tokens = answers.map((a) => tokenize(a.toLowerCase(), 400));
  const masked = tokens.map(() => new Set<number>());
  for (let k = 0; k < PLACES; k++)
    for (const fromEnd of [false, true]) {
      const index = (t: string[]) => (fromEnd ? t.length - 1 - k : k);
      const place = tokens.map((t) => t[index(t)]);
      if (echoed(prompts, place, answers.length)) tokens.forEach((t, i) => masked[i]?.add(index(t)));
    }
  if (masked.every((m) => m.size === 0)) return [...answers];
  return tokens.map((t, i) => t.filter((_, j) => !masked[i]?.has(j)).join(' '));
}

/** The samples with each level's echoed token places masked in their answers (maskEchoes, level by level). */
export function maskLevelEchoes<T extends { level: number; prompt: string; answer: string }>(
  samples: readonly T[],
): T[] {
  const out = [...samples];
  for (const level of new Set(samples.map((s) => s.level))) {
    const at = samples.flatMap((s, i) => (s.level === level ? [i] : []));
    const answers = maskEchoes(
      at.map((i) => (samples[i] as T).prompt),
      at.map((i) => (samples[i] as T).answer),
    );
    at.forEach((i, k) => (out[i] = { ...(samples[i] as T), answer: answers[k] as string }));
  }
  return out;
}
