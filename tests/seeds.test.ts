// Every seed environment passes the same checklist in the real sandbox: valid meta, deterministic,
// solvable at every level, rejects empty / echo / another instance's answer, and its levels scale. Each
// seed is loaded and sampled once (beforeAll); every test reads that sample and can run alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetaSchema, type Meta } from '../contract/schema.js';
import { listSeeds } from '../library/seeds.js';
import { runEpisodes, scoreOf, type Episode, type EpisodeResult } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());

const SEEDS_PER_LEVEL = 16;

/**
 * The contract's placeholder rule: an <answer> example in a prompt shows the format, never a value. So
 * no token in it is a number, and none that holds a digit is taken from the instance (the prompt uses it
 * outside the tag, as an id or a variable name).
 */
function concreteAnswerExamples(prompt: string): string[] {
  const token = /[\p{L}\p{N}_]+/gu;
  const outside = new Set(prompt.replace(/<answer>[\s\S]*?<\/answer>/g, ' ').match(token) ?? []);
  const found: string[] = [];
  for (const [whole, inner] of prompt.matchAll(/<answer>([\s\S]*?)<\/answer>/g)) {
    for (const word of (inner as string).match(token) ?? []) {
      if (/^\p{N}+$/u.test(word)) found.push(`${whole}: "${word}" is a number`);
      else if (/\p{N}/u.test(word) && outside.has(word)) found.push(`${whole}: "${word}" is taken from the instance`);
    }
  }
  return found;
}

it('the placeholder rule tells placeholders from concrete examples', () => {
  expect(concreteAnswerExamples('Jobs J1, J4, J9. Answer as <answer>J1, J4, …</answer>.')).toHaveLength(2);
  expect(concreteAnswerExamples('Variables x1, x2. For example <answer>x1=1, x2=0</answer>.')).toHaveLength(4);
  expect(
    concreteAnswerExamples(
      'Answer as <answer>N</answer>, or <answer>misses=M; keys=k1,k2</answer>, or <answer>p/q</answer>.',
    ),
  ).toEqual([]);
});
const seeds = listSeeds();

/** A seed's meta, read in the sandbox. */
async function metaOf(source: string): Promise<Meta> {
  const load = await pool.load(source);
  if (!load.ok) throw new Error(`${load.code}: ${load.message}`);
  return MetaSchema.parse(load.meta);
}

it('ships at least 12 seeds, each with a distinct first skill', async () => {
  expect(seeds.length).toBeGreaterThanOrEqual(12);
  const firstSkills = await Promise.all(seeds.map(async (seed) => (await metaOf(seed.source)).skills[0]));
  const twice = firstSkills.filter((skill, i) => firstSkills.indexOf(skill) !== i);
  expect(twice, `first skills: ${firstSkills.join(', ')}`).toEqual([]);
});

describe.each(seeds)('seed $name', ({ name, source }) => {
  let meta: Meta;
  /** SEEDS_PER_LEVEL instances per level, in level order, with their references' verdicts. */
  let sample: EpisodeResult[] = [];
  const episodes = () => sample.filter((e): e is Episode => e.ok);

  beforeAll(async () => {
    meta = await metaOf(source);
    const requests = [];
    for (let level = 1; level <= meta.levels; level++)
      for (let seed = 0; seed < SEEDS_PER_LEVEL; seed++) requests.push({ seed, level });
    sample = (await runEpisodes(pool, source, requests, { parallel: true })).episodes;
  });

  it('has valid meta whose name matches its file', () => {
    expect(meta.name).toBe(name);
  });

  it("is solvable at every level, and rejects empty, echoed and other instances' answers", async () => {
    for (const e of sample) expect(e.ok, JSON.stringify(e)).toBe(true);
    expect(new Set(episodes().map((e) => e.level)).size).toBe(meta.levels);
    for (const e of episodes())
      expect(scoreOf(e.referenceVerdict), `reference at seed ${e.seed} level ${e.level}`).toBe(1);

    const all = episodes();
    const probes = all.map((e, i) => {
      const other = all[i % SEEDS_PER_LEVEL === SEEDS_PER_LEVEL - 1 ? i - SEEDS_PER_LEVEL + 1 : i + 1] as Episode;
      return {
        seed: e.seed,
        level: e.level,
        responses: [
          '',
          '   \n',
          e.instance.prompt,
          `<answer>${e.instance.prompt}</answer>`,
          '<answer></answer>',
          other.reference,
        ],
      };
    });
    const probed = (await runEpisodes(pool, source, probes, { parallel: true })).episodes as Episode[];
    let otherPasses = 0;
    for (const e of probed) {
      const [empty, blank, echo, taggedEcho, formatOnly, other] = e.verdicts.map(scoreOf);
      expect([empty, blank, echo, taggedEcho, formatOnly], `level ${e.level} seed ${e.seed}`).toEqual([0, 0, 0, 0, 0]);
      if ((other ?? 0) >= 1) otherPasses++;
    }
    expect(otherPasses / probed.length).toBeLessThan(0.05);
  });

  it("shows the answer format with placeholders only, never a concrete example (the contract's rule)", () => {
    expect(episodes()).toHaveLength(meta.levels * SEEDS_PER_LEVEL);
    expect(
      episodes()
        .flatMap((e) => concreteAnswerExamples(e.instance.prompt).map((p) => `level ${e.level} seed ${e.seed}: ${p}`))
        .slice(0, 5),
    ).toEqual([]);
  });

  it('is deterministic: a fresh isolate regenerates the same instances and references', async () => {
    const some = episodes().filter((_, i) => i % 5 === 0);
    expect(some.length).toBeGreaterThan(0);
    const again = await runEpisodes(
      pool,
      source,
      some.map((e) => ({ seed: e.seed, level: e.level })),
      { fresh: true },
    );
    expect(again.episodes.map((e) => e.ok && [JSON.stringify(e.instance), e.reference])).toEqual(
      some.map((e) => [JSON.stringify(e.instance), e.reference]),
    );
  });

  it('scales with the level: instances grow and the top level is much bigger than level 1', () => {
    const meanSize = (level: number) => {
      const at = episodes().filter((e) => e.level === level);
      expect(at.length, `level ${level}`).toBe(SEEDS_PER_LEVEL);
      return at.reduce((sum, e) => sum + JSON.stringify(e.instance).length, 0) / at.length;
    };
    const sizes = Array.from({ length: meta.levels }, (_, i) => meanSize(i + 1));
    for (let i = 1; i < sizes.length; i++)
      expect(sizes[i], `level ${i + 1} vs ${i}`).toBeGreaterThanOrEqual((sizes[i - 1] as number) * 0.9);
    expect(sizes[meta.levels - 1]).toBeGreaterThan((sizes[0] as number) * 1.4);
  });
});
