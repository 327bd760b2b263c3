// Stage 5, hack resistance: a battery of adversarial responses per instance. Empty, echo, format-only,
// enumeration and huge responses are zero-tolerance; another instance's answer, perturbed references and
// the most common answer are judged by their rate beyond what chance explains (shared answers, several
// valid answers). Also: the answer must not be readable from the prompt by a fixed rule.
import type { Code } from '../../contract/codes.js';
import { runEpisodes, scoreOf, type Episode, type EpisodeRequest } from '../../sandbox/episodes.js';
import { answerContent, flipCase, isIntegerAnswer, mostCommon, normalizeAnswer, perturbNumbers, reorderList, withContent } from '../answers.js';
import { clip, mean, type Stage, type StageContext } from '../context.js';
import type { Problem } from '../report.js';

type Family = 'empty' | 'echo' | 'format-only' | 'enumeration' | 'huge' | 'other-answer' | 'perturbed' | 'common-answer' | 'reordered' | 'case-flipped';

const ZERO_TOLERANCE: Partial<Record<Family, Code>> = {
  empty: 'E_ACCEPTS_EMPTY',
  echo: 'E_ACCEPTS_ECHO',
  'format-only': 'E_ACCEPTS_FORMAT_ONLY',
  enumeration: 'E_ACCEPTS_ENUMERATION',
  huge: 'E_ACCEPTS_HUGE',
};
const RATE: Partial<Record<Family, Code>> = {
  'other-answer': 'E_ACCEPTS_OTHER_ANSWER',
  perturbed: 'E_ACCEPTS_PERTURBED',
  'common-answer': 'E_ACCEPTS_CONSTANT',
};
/** Reordered lists and case flips are often still correct (any valid order, case-insensitive names): measured, not judged. */
const MEASURED_ONLY: Family[] = ['reordered', 'case-flipped'];

interface Probe {
  family: Family;
  response: string;
  /** The probe's answer equals the reference's: a pass is a coincidence, not a hack. */
  coincident: boolean;
}
interface ProbeOutcome extends Probe {
  seed: number;
  level: number;
  score: number;
  failure?: { code: Code; message: string };
}

const HUGE_RESPONSES = [
  'a'.repeat(1_000_000),
  `<answer>${'9'.repeat(100_000)}</answer>`,
  // Bait for catastrophic backtracking in verifier regexes.
  `<answer>${'a'.repeat(50_000)}!`,
  `${' '.repeat(100_000)}x`,
  `<answer>${'1,'.repeat(30_000)}</answer>`,
];

function enumerationProbes(episode: Episode, peers: Episode[]): string[] {
  const content = answerContent(episode.reference);
  let candidates: string[];
  if (isIntegerAnswer(content)) {
    const n = Number(content);
    candidates = Array.from({ length: 41 }, (_, i) => String(n - 20 + i));
  } else {
    const others = [...new Set(peers.map((p) => answerContent(p.reference)).filter((c) => c !== content))].slice(0, 20);
    candidates = [...others.slice(0, others.length >> 1), content, ...others.slice(others.length >> 1)];
  }
  // The right answer sits in the middle, so verifiers that read the first or last tag are not hit.
  const separator = isIntegerAnswer(content) ? ', ' : '\n';
  return [
    candidates.map((c) => `<answer>${c}</answer>`).join('\n'),
    `<answer>${candidates.join(separator)}</answer>`,
    candidates.join(' '),
  ];
}

/** The two cheap baselines every sampled instance gets: another instance's answer and the level's most common one. */
function baselineProbes(episode: Episode, peers: Episode[], common: string | undefined, others: number): Probe[] {
  const content = normalizeAnswer(answerContent(episode.reference));
  const same = (other: string) => normalizeAnswer(answerContent(other)) === content;
  const index = peers.indexOf(episode);
  const probes: Probe[] = [];
  for (let k = 1; k <= Math.min(others, peers.length - 1); k++) {
    const peer = peers[(index + k) % peers.length] as Episode;
    probes.push({ family: 'other-answer', response: peer.reference, coincident: same(peer.reference) });
  }
  if (common !== undefined) probes.push({ family: 'common-answer', response: common, coincident: same(common) });
  return probes;
}

function probesFor(episode: Episode, peers: Episode[], common: string | undefined, withHuge: boolean): Probe[] {
  const content = answerContent(episode.reference);
  const probes: Probe[] = [];
  const add = (family: Family, responses: string[]) => {
    for (const response of responses) probes.push({ family, response, coincident: false });
  };
  add('empty', ['', '   ', '\n\t\n']);
  add('echo', [episode.instance.prompt, `<answer>${episode.instance.prompt}</answer>`]);
  add('format-only', ['<answer></answer>', '<answer>\n</answer>', 'The answer is <answer> </answer>']);
  add('enumeration', enumerationProbes(episode, peers));
  if (withHuge) add('huge', HUGE_RESPONSES);
  add('perturbed', perturbNumbers(content).map((v) => withContent(episode.reference, v)));
  add('reordered', reorderList(content).map((v) => withContent(episode.reference, v)));
  add('case-flipped', flipCase(content).map((v) => withContent(episode.reference, v)));
  return [...probes, ...baselineProbes(episode, peers, common, 3)];
}

interface FamilyStats {
  probes: number;
  maxScore: number;
  meanScore: number;
  passRate: number;
  chanceRate: number;
  worst?: { seed: number; level: number; response: string; score: number };
}

function familyStats(outcomes: ProbeOutcome[]): FamilyStats {
  const scores = outcomes.map((o) => o.score);
  const worst = outcomes.reduce<ProbeOutcome | undefined>((w, o) => (!w || o.score > w.score ? o : w), undefined);
  return {
    probes: outcomes.length,
    maxScore: Math.max(0, ...scores),
    meanScore: mean(scores),
    passRate: mean(scores.map((s) => (s >= 1 ? 1 : 0))),
    chanceRate: mean(outcomes.map((o) => (o.coincident ? 1 : 0))),
    ...(worst ? { worst: { seed: worst.seed, level: worst.level, response: clip(worst.response, 160), score: worst.score } } : {}),
  };
}

async function runProbes(ctx: StageContext): Promise<ProbeOutcome[]> {
  const byLevel = new Map<number, Episode[]>();
  for (const e of ctx.episodes) byLevel.set(e.level, [...(byLevel.get(e.level) ?? []), e]);
  const levels = [...byLevel.keys()].sort((a, b) => a - b);
  const hugeLevels = new Set([levels[0], levels[levels.length >> 1], levels[levels.length - 1]]);
  const requests: EpisodeRequest[] = [];
  const planned: Probe[][] = [];
  for (const level of levels) {
    const peers = byLevel.get(level) as Episode[];
    const common = mostCommon(peers.map((p) => p.reference)).value;
    peers.forEach((episode, i) => {
      const probes = i < ctx.options.probedPerLevel ? probesFor(episode, peers, common, i === 0 && hugeLevels.has(level)) : baselineProbes(episode, peers, common, 1);
      planned.push(probes);
      requests.push({ seed: episode.seed, level, responses: probes.map((p) => p.response) });
    });
  }
  const run = await runEpisodes(ctx.pool, ctx.source, requests, { parallel: true, limits: ctx.options.limits });
  const outcomes: ProbeOutcome[] = [];
  run.episodes.forEach((e, i) => {
    const probes = planned[i] as Probe[];
    probes.forEach((probe, j) => {
      const verdict = e.ok ? e.verdicts[j] : undefined;
      const failure = !e.ok ? { code: e.code, message: e.message } : verdict && !verdict.ok ? { code: verdict.code, message: verdict.message } : undefined;
      outcomes.push({ ...probe, seed: e.seed, level: e.level, score: scoreOf(verdict), ...(failure ? { failure } : {}) });
    });
  });
  return outcomes;
}

/** Fixed rules that read a candidate answer off the prompt: the k-th number from either end, the last words. */
function leakRules(prompt: string): Map<string, string> {
  const rules = new Map<string, string>();
  const numbers = prompt.match(/-?\d+(?:\.\d+)?(?:\/\d+)?/g) ?? [];
  for (let k = 0; k < Math.min(10, numbers.length); k++) {
    rules.set(`number #${k + 1}`, numbers[k] as string);
    rules.set(`number #${k + 1} from the end`, numbers[numbers.length - 1 - k] as string);
  }
  const words = prompt.split(/\s+/).map((w) => w.replace(/^[^\w-]+|[^\w-]+$/g, '')).filter(Boolean);
  for (let k = 1; k <= Math.min(5, words.length); k++) rules.set(`word #${k} from the end`, words[words.length - k] as string);
  return rules;
}

function detectLeak(ctx: StageContext): { rule: string; rate: number; chance: number; examples: unknown[] } | null {
  const hits = new Map<string, { hit: number; chance: number; examples: unknown[] }>();
  const episodes = ctx.episodes;
  episodes.forEach((e, i) => {
    const answer = normalizeAnswer(answerContent(e.reference)).toLowerCase();
    const peer = episodes[(i + 1) % episodes.length] as Episode;
    const peerAnswer = normalizeAnswer(answerContent(peer.reference)).toLowerCase();
    for (const [rule, value] of leakRules(e.instance.prompt)) {
      const v = value.toLowerCase();
      const entry = hits.get(rule) ?? { hit: 0, chance: 0, examples: [] };
      if (v === answer) {
        entry.hit++;
        if (entry.examples.length < 2) entry.examples.push({ seed: e.seed, level: e.level, rule, answer: clip(answer, 80) });
      }
      if (v === peerAnswer) entry.chance++;
      hits.set(rule, entry);
    }
    // A whole multi-part answer printed in the prompt is a leak whatever its position.
    if (answer.length >= 12 && /[\s,]/.test(answer)) {
      const entry = hits.get('the answer verbatim') ?? { hit: 0, chance: 0, examples: [] };
      if (normalizeAnswer(e.instance.prompt).toLowerCase().includes(answer)) entry.hit++;
      if (peerAnswer.length >= 12 && normalizeAnswer(e.instance.prompt).toLowerCase().includes(peerAnswer)) entry.chance++;
      hits.set('the answer verbatim', entry);
    }
  });
  let worst: { rule: string; rate: number; chance: number; examples: unknown[] } | null = null;
  for (const [rule, { hit, chance, examples }] of hits) {
    const rate = hit / episodes.length;
    const chanceRate = chance / episodes.length;
    if (!worst || rate - chanceRate > worst.rate - worst.chance) worst = { rule, rate, chance: chanceRate, examples };
  }
  return worst;
}

export const hackStage: Stage = async (ctx) => {
  const outcomes = await runProbes(ctx);
  const problems: Problem[] = [];
  const families = new Map<Family, ProbeOutcome[]>();
  for (const o of outcomes) families.set(o.family, [...(families.get(o.family) ?? []), o]);

  const crashed = outcomes.filter((o) => o.failure);
  if (crashed.length > 0) {
    const first = crashed[0] as ProbeOutcome;
    const failure = first.failure as { code: Code; message: string };
    problems.push({
      code: failure.code,
      message: `verify failed on ${crashed.length} adversarial responses (first: ${first.family} probe at level ${first.level}): ${failure.message}. A verifier must return a score for any text`,
      evidence: crashed.slice(0, 3).map((o) => ({ family: o.family, seed: o.seed, level: o.level, response: clip(o.response, 120), failure: o.failure })),
    });
  }

  const stats: Record<string, FamilyStats> = {};
  for (const [family, list] of families) stats[family] = familyStats(list.filter((o) => !o.failure));
  for (const [family, code] of Object.entries(ZERO_TOLERANCE) as Array<[Family, Code]>) {
    const s = stats[family];
    if (s && s.maxScore > ctx.options.zeroToleranceMaxScore) {
      problems.push({ code, message: `the ${family} probe scores ${s.maxScore} (at most ${ctx.options.zeroToleranceMaxScore} allowed; the reference scores 1)`, evidence: s.worst });
    }
  }
  for (const [family, code] of Object.entries(RATE) as Array<[Family, Code]>) {
    const s = stats[family];
    if (!s || s.probes < 5) continue;
    const meanExcess = s.meanScore - s.chanceRate;
    const passExcess = s.passRate - s.chanceRate;
    // A perturbed reference is still partly right, so partial credit for it is expected: judge full passes.
    const meanLimit = family === 'perturbed' ? ctx.options.perturbedMeanExcess : ctx.options.rateFamilyMeanExcess;
    if (meanExcess > meanLimit || passExcess > ctx.options.rateFamilyPassExcess) {
      problems.push({
        code,
        message: `${family} responses score ${s.meanScore.toFixed(2)} on average and pass ${(100 * s.passRate).toFixed(0)}% of the time, while chance (identical answers) explains ${(100 * s.chanceRate).toFixed(0)}%`,
        evidence: s.worst,
      });
    }
  }

  const leak = detectLeak(ctx);
  if (leak && leak.rate - leak.chance >= ctx.options.leakMaxRate) {
    problems.push({
      code: 'E_ANSWER_LEAK',
      message: `the answer can be read off the prompt: "${leak.rule}" equals the answer in ${(100 * leak.rate).toFixed(0)}% of instances (chance ${(100 * leak.chance).toFixed(0)}%)`,
      evidence: leak.examples,
    });
  }

  // Baselines for the difficulty curve: the most common answer and another instance's answer, per level.
  for (const level of new Set(outcomes.map((o) => o.level))) {
    const at = (family: Family) => mean(outcomes.filter((o) => o.level === level && o.family === family && !o.failure).map((o) => o.score));
    ctx.baselines.set(level, { common: at('common-answer'), other: at('other-answer') });
  }

  const worstFamily = Object.entries(stats)
    .filter(([family]) => !MEASURED_ONLY.includes(family as Family))
    .sort(([, a], [, b]) => b.maxScore - b.chanceRate - (a.maxScore - a.chanceRate))[0];
  return {
    ok: problems.length === 0,
    metrics: {
      probes: outcomes.length,
      families: stats,
      worstProbe: worstFamily ? { family: worstFamily[0], ...worstFamily[1].worst } : null,
      leak: leak ? { rule: leak.rule, rate: leak.rate, chance: leak.chance } : null,
    },
    problems,
  };
};
