// Benchmarks stage 8 (novelty): one candidate's check against a library of 10,000 synthetic environment fingerprints,
// LSH query side by side with a full scan.
import { NoveltyIndex, type NoveltyMatch } from '../validators/novelty/lsh.js';
import { estimateSimilarity, type NoveltyOptions } from '../validators/novelty/minhash.js';
import { fingerprint, type Fingerprint } from '../validators/novelty/fingerprint.js';
import { copyOf, freshEnv, prompts, PROMPTS_PER_ENV, type SyntheticEnv } from './novelty-corpus.js';
import { int, prng, SEED, type Rand } from './novelty-words.js';

export type BenchResult = Record<string, { value: number; unit: string; [k: string]: unknown }>;

const DEFAULT_LIBRARY_SIZE = 10_000;
/** Share of the library that are disguised copies of earlier entries (so queries meet real duplicates). */
const LIBRARY_COPY_RATE = 0.02;
const DEFAULT_CANDIDATES = 200;
const DEFAULT_ROUNDS = 5;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const key = (m: NoveltyMatch): string => `${m.id}:${m.kind}`;

export interface NoveltyBenchConfig {
  librarySize: number;
  candidates: number;
  rounds: number;
  options: Partial<NoveltyOptions>;
}

/** novelty.ms10k and novelty.speedupVsScan, measured side by side in one run. */
export async function benchNovelty(): Promise<BenchResult> {
  return runNoveltyBench({});
}

/** The same measurement with other sizes or index options (for exploring the banding). */
async function runNoveltyBench(config: Partial<NoveltyBenchConfig>): Promise<BenchResult> {
  const LIBRARY_SIZE = config.librarySize ?? DEFAULT_LIBRARY_SIZE;
  const CANDIDATES = config.candidates ?? DEFAULT_CANDIDATES;
  const ROUNDS = config.rounds ?? DEFAULT_ROUNDS;
  const rand = prng(SEED ^ 0x5a5a);
  const envs: SyntheticEnv[] = [];
  const library: Fingerprint[] = [];
  const index = new NoveltyIndex(config.options);
  const fingerprintOf = (env: SyntheticEnv, r: Rand): Fingerprint => {
    const sample = prompts(env.spec, r);
    return fingerprint(env.source, sample.prompts, sample.references, config.options);
  };

  const buildStart = performance.now();
  let fingerprintTotal = 0;
  for (let i = 0; i < LIBRARY_SIZE; i++) {
    const env =
      i > 100 && rand() < LIBRARY_COPY_RATE
        ? copyOf(envs[int(rand, 0, envs.length - 1)] as SyntheticEnv, rand)
        : freshEnv(rand);
    envs.push(env);
    const t = performance.now();
    const fp = fingerprintOf(env, rand);
    fingerprintTotal += performance.now() - t;
    index.add(`env-${i}`, fp);
    library.push(fp);
  }
  const buildMs = performance.now() - buildStart;

  // Candidates: half disguised copies of library entries (expected duplicates), half fresh environments.
  const candidateEnvs: SyntheticEnv[] = Array.from({ length: CANDIDATES }, (_, i) =>
    i % 2 === 0 ? copyOf(envs[int(rand, 0, envs.length - 1)] as SyntheticEnv, rand) : freshEnv(rand),
  );
  const candidateRands = candidateEnvs.map((_, i) => SEED + i);
  const fingerprintCandidates = (): Fingerprint[] =>
    candidateEnvs.map((env, i) => fingerprintOf(env, prng(candidateRands[i] as number)));
  const candidates = fingerprintCandidates();

  // Warm-up (JIT) on every path, then ROUNDS interleaved rounds; each figure is the median round's mean.
  for (const fp of candidates.slice(0, 20)) {
    index.query(fp);
    index.scan(fp);
  }
  fingerprintCandidates();
  const fpRounds: number[] = [];
  const queryRounds: number[] = [];
  const scanRounds: number[] = [];
  let sink = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let t = performance.now();
    sink += fingerprintCandidates().length;
    fpRounds.push((performance.now() - t) / CANDIDATES);
    t = performance.now();
    for (const fp of candidates) sink += index.query(fp).length;
    queryRounds.push((performance.now() - t) / CANDIDATES);
    t = performance.now();
    for (const fp of candidates) sink += index.scan(fp).length;
    scanRounds.push((performance.now() - t) / CANDIDATES);
  }
  const fingerprintMs = median(fpRounds);
  const queryMs = median(queryRounds);
  const scanMs = median(scanRounds);

  // Agreement with the scan (recall of the LSH index) and how much of the library LSH touches.
  let scanMatches = 0;
  let found = 0;
  let candidatesWithMatch = 0;
  let lshCandidates = 0;
  for (const fp of candidates) {
    const truth = index.scan(fp);
    const got = new Set(index.query(fp).map(key));
    lshCandidates += index.lastCandidates;
    scanMatches += truth.length;
    for (const m of truth) if (got.has(key(m))) found++;
    if (truth.length > 0) candidatesWithMatch++;
  }
  // Background similarity between unrelated library entries (a sample of pairs).
  let background = 0;
  let backgroundMax = 0;
  let behaviourBackground = 0;
  let behaviourBackgroundMax = 0;
  const pairs = 2000;
  const fps = library;
  for (let k = 0; k < pairs; k++) {
    const a = fps[int(rand, 0, fps.length - 1)];
    const b = fps[int(rand, 0, fps.length - 1)];
    if (!a || !b || a === b) continue;
    const s = estimateSimilarity(a.code, b.code);
    background += s;
    backgroundMax = Math.max(backgroundMax, s);
    const sb = estimateSimilarity(a.behaviour, b.behaviour);
    behaviourBackground += sb;
    behaviourBackgroundMax = Math.max(behaviourBackgroundMax, sb);
  }

  const common = {
    library: index.size,
    candidates: CANDIDATES,
    rounds: ROUNDS,
    permutations: index.options.permutations,
    bands: index.options.bands,
    recall: scanMatches === 0 ? 1 : found / scanMatches,
    avgLshCandidates: Math.round(lshCandidates / CANDIDATES),
    scanMatches,
    candidatesWithMatch,
  };
  return {
    'novelty.ms10k': {
      value: round3(fingerprintMs + queryMs),
      unit: 'ms',
      note:
        `per candidate: fingerprint (code + ${PROMPTS_PER_ENV} prompts) + LSH query against ` +
        `${LIBRARY_SIZE} fingerprints`,
      fingerprintMs: round3(fingerprintMs),
      queryMs: round4(queryMs),
      libraryBuildMs: Math.round(buildMs),
      libraryFingerprintMsEach: round3(fingerprintTotal / LIBRARY_SIZE),
      backgroundCodeSimilarityMean: round3(background / pairs),
      backgroundCodeSimilarityMax: round3(backgroundMax),
      backgroundBehaviourSimilarityMean: round3(behaviourBackground / pairs),
      backgroundBehaviourSimilarityMax: round3(behaviourBackgroundMax),
      ...common,
      matchesSeen: sink,
    },
    'novelty.speedupVsScan': {
      value: round3(scanMs / queryMs),
      unit: 'x',
      note: 'brute-force scan time / LSH query time, same fingerprints, same matching rule',
      queryMs: round4(queryMs),
      scanMs: round4(scanMs),
      endToEndSpeedup: round3((fingerprintMs + scanMs) / (fingerprintMs + queryMs)),
      ...common,
    },
  };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const round4 = (x: number): number => Math.round(x * 10000) / 10000;
